//! The `tools` command line (feature `cli`): the tools linked into a program, listed, shown,
//! exported, called, checked, sized and served, with clap. A host adds it with one line:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     tool_core::cli::main()
//! }
//! ```
//!
//! or, when its tools need state, `ToolsCli::new(executor).run()`. Reference: `docs/cli.md`.

mod style; // aligned tables, and colour only on a terminal
mod commands; // what each subcommand does
mod run; // the arguments (clap) and the entry points
#[cfg(feature = "oauth")]
mod oauth_args; // `serve-mcp --oauth-*`: the endpoint as an OAuth resource server
#[cfg(feature = "playground")]
mod playground; // the playground page and its API (axum)

pub use run::{main, ToolsCli};
