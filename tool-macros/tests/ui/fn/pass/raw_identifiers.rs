use tool_core::prelude::*;

/// Convert a value to a type.
#[tool]
fn r#convert(
    /// The target type.
    r#type: String,
    /// The value.
    r#value: u32,
) -> String {
    format!("{value} as {type}", type = r#type)
}

fn main() {
    let d = <r#convert as DeclaredTool>::definition();
    assert_eq!(d.name, "convert");
    let names: Vec<&str> = d.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["type", "value"]);
    let (ty, value) = r#convert::extract(r#"{"type": "hex", "value": 7}"#).into_result().unwrap();
    assert_eq!((ty.as_str(), value), ("hex", 7));
}
