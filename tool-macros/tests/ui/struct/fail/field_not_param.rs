use tool_core::prelude::*;

/// Read a file.
#[tool]
struct ReadFile {
    /// The file.
    file: std::fs::File,
}

impl ToolRun for ReadFile {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        format!("{:?}", self.file)
    }
}

fn main() {}
