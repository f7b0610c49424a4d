use tool_core::prelude::*;

struct Store;

impl Store {
    /// Look a key up.
    #[tool]
    fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}
