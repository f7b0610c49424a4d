//! The expansion names every standard item by its full path: a crate that shadows the
//! prelude (`None`, `Some`, `Ok`, `Err`, `Option`, `Result`, `Vec`, `String`, `Box`, the
//! derivable traits) still compiles.
#![allow(dead_code, non_camel_case_types)]

use tool_core::prelude::*;

struct None;
struct Some;
struct Ok;
struct Err;
struct Option;
struct Result;
struct Vec;
struct String;
struct Box;
trait Clone {}
trait Copy {}
trait Debug {}
trait Default {}
trait Send {}
trait Sync {}

/// Greet someone.
#[tool]
fn greet(
    /// Who to greet.
    name: std::string::String,
    /// How many times.
    #[param(range(min = 1, max = 3))]
    times: core::option::Option<u32>,
) -> std::string::String {
    name.repeat(times.unwrap_or(1) as usize)
}

/// Shout a text.
#[tool(annotations(read_only))]
struct Shout {
    /// The text.
    text: std::string::String,
}

impl ToolRun for Shout {
    type Output = core::result::Result<std::string::String, ToolError>;

    async fn run(self, _ctx: &ToolContext) -> Self::Output {
        core::result::Result::Ok(self.text.to_uppercase())
    }
}

/// A tool without parameters.
#[tool]
async fn ping() -> &'static str {
    "pong"
}

fn main() {
    assert_eq!(<greet as DeclaredTool>::definition().name, "greet");
    assert_eq!(<Shout as DeclaredTool>::definition().parameters.len(), 1);
}
