extern crate tool_core as agent_tools;

use agent_tools::DeclaredTool;

/// Echo the text back.
#[agent_tools::tool(crate = "::agent_tools", name = "echo")]
pub fn echo_text(
    /// The text.
    text: String,
) -> String {
    text
}

fn main() {
    let d = <echo_text as DeclaredTool>::definition();
    assert_eq!(d.name, "echo");
    assert_eq!(d.parameters[0].name, "text");
    assert!(agent_tools::ToolCatalog::global().unwrap().contains("echo"));
}
