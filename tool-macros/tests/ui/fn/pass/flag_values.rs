use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::prelude::*;

/// How to sort.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Newest first.
    Newest,
    /// Oldest first.
    Oldest,
}

// Flags take `= true` and `= false` as well as no value; `= false` is as if left out.
/// Sort two lists.
#[tool(strict = false, blocking = false, inline = true, annotations(read_only = true, destructive = false))]
fn sort_lists(
    /// The first order.
    #[param(case_sensitive = false, strict = true)]
    first: Order,
    /// The second order.
    #[param(case_sensitive = true, strict = false)]
    second: Order,
) -> String {
    format!("{first:?} {second:?}")
}

/// Read a file.
#[tool(strict = true, blocking = true, inline = false)]
fn read_file(
    /// The path.
    path: String,
) -> String {
    path
}

#[derive(Default)]
pub struct Counter {
    total: u64,
}

#[tool(new = false)]
impl Counter {
    /// Read the counter.
    #[tool(inline = false, strict = true)]
    pub fn read(&self) -> u64 {
        self.total
    }
}

fn main() {
    let sort = <sort_lists as DeclaredTool>::definition();
    assert!(!sort.strict);
    assert_eq!(sort.annotations.read_only, Some(true));
    assert_eq!(sort.annotations.destructive, Some(false));
    let first = sort.parameter("first").unwrap();
    assert!(first.strict);
    assert!(!first.enum_constraint.as_ref().unwrap().case_sensitive);
    let second = sort.parameter("second").unwrap();
    assert!(!second.strict);
    assert!(second.enum_constraint.as_ref().unwrap().case_sensitive);
    assert!(<read_file as DeclaredTool>::definition().strict);
    assert!(<Counter_read as DeclaredTool>::definition().strict);

    let catalog = ToolCatalog::builder()
        .add_declared::<sort_lists>()
        .add_declared::<read_file>()
        .add_declared::<Counter_read>()
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let executor = Executor::new(catalog);
    let sorted = runtime.block_on(executor.execute(ToolCallRequest::new(
        "sort_lists",
        "1",
        r#"{"first": "newest", "second": "oldest"}"#,
    )));
    assert_eq!(sorted.content.text, "Newest Oldest");
    let read = runtime.block_on(executor.execute(ToolCallRequest::new("read_file", "2", r#"{"path": "/tmp/a"}"#)));
    assert_eq!(read.content.text, "/tmp/a");
    let counter = runtime.block_on(executor.execute(ToolCallRequest::new("counter.read", "3", "{}").in_conversation("c")));
    assert_eq!(counter.content.text, "0");
}
