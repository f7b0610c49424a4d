use std::time::Duration;

use tool_core::prelude::*;

/// Ignored: the `description` key wins.
#[tool(
    name = "files.delete",
    description = "Delete a file.",
    tags("files", "dangerous"),
    category = "filesystem",
    version = "2.1.0",
    examples(r#"{"path": "/tmp/x"}"#),
    example(path = "/tmp/y"),
    annotations(read_only = false, destructive, idempotent, open_world = false, title = "Delete file"),
    timeout_ms = 1500,
    defer,
    requires_approval,
    sequential,
    crate = "::tool_core"
)]
fn delete_file(
    /// The path.
    path: String,
) -> String {
    path
}

/// Read a file.
#[tool(annotations(read_only, destructive = false, idempotent, open_world, title = "Read file"), requires_approval = false)]
fn read_file(
    /// The path.
    path: String,
) -> String {
    path
}

/// Move a file.
#[tool(approval = "outside_tmp", sequential = false, example(from = "/tmp/a", to = "/tmp/b"))]
fn move_file(
    /// From here.
    from: String,
    /// To here.
    to: String,
) -> String {
    format!("{from} {to}")
}

fn outside_tmp(from: &str, to: &String, _ctx: &ToolContext) -> bool {
    !from.starts_with("/tmp/") || !to.starts_with("/tmp/")
}

fn main() {
    let d = <delete_file as DeclaredTool>::definition();
    assert_eq!(d.name, "files.delete");
    assert_eq!(d.description, "Delete a file.");
    assert_eq!(d.tags, ["files", "dangerous"]);
    assert!(d.has_tag("dangerous"));
    assert_eq!(d.category.as_deref(), Some("filesystem"));
    assert_eq!(d.version.as_deref(), Some("2.1.0"));
    assert_eq!(d.examples, [serde_json::json!({"path": "/tmp/x"}), serde_json::json!({"path": "/tmp/y"})]);
    assert_eq!(d.annotations.title.as_deref(), Some("Delete file"));
    assert_eq!(d.annotations.read_only, Some(false));
    assert_eq!(d.annotations.destructive, Some(true));
    assert_eq!(d.annotations.idempotent, Some(true));
    assert_eq!(d.annotations.open_world, Some(false));
    assert_eq!(d.timeout, Some(Duration::from_millis(1500)));
    assert!(d.defer);
    assert_eq!(d.approval, tool_core::Approval::Always);
    assert!(d.sequential);

    let r = <read_file as DeclaredTool>::definition();
    assert_eq!(r.name, "read_file");
    assert_eq!(r.annotations.read_only, Some(true));
    assert_eq!(r.annotations.destructive, Some(false));
    assert_eq!(r.annotations.idempotent, Some(true));
    assert_eq!(r.annotations.open_world, Some(true));
    assert_eq!(r.annotations.title.as_deref(), Some("Read file"));
    assert_eq!(r.timeout, None);
    assert!(!r.defer);
    assert!(r.tags.is_empty());
    assert_eq!(r.approval, tool_core::Approval::Never);
    assert!(!r.sequential);
    assert!(r.examples.is_empty());

    let m = <move_file as DeclaredTool>::definition();
    assert_eq!(m.approval, tool_core::Approval::ByArguments);
    assert!(!m.sequential);
    assert_eq!(m.examples, [serde_json::json!({"from": "/tmp/a", "to": "/tmp/b"})]);
}
