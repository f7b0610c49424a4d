//! Arguments mirrored into HTTP headers (MCP, SEP-2243): a property of a tool's input schema
//! marked `"x-mcp-header": "Region"` travels, in the calls of protocol 2026-07-28 over
//! streamable HTTP, both in the body and in the header `Mcp-Param-Region`, so that a proxy can
//! route on it. What the specification allows of such a mark, checked when a tool is built.

use serde_json::Value;

/// The keyword that marks a property.
pub(crate) const KEYWORD: &str = "x-mcp-header";

/// Checks every `x-mcp-header` of `schema`: each on a property reached from the root through
/// `properties` alone, of type string, integer or boolean, naming an HTTP token, no two the same
/// (ignoring case). The first that is not, as the property's dot-separated path and the reason.
pub(crate) fn check(schema: &Value) -> Result<(), (String, String)> {
    if schema.get(KEYWORD).is_some() {
        return Err((String::new(), "`x-mcp-header` must mark a property, not the schema's root".to_owned()));
    }
    let mut seen: Vec<(String, String)> = Vec::new();
    check_properties(schema, &mut Vec::new(), &mut seen)
}

fn check_properties<'a>(
    schema: &'a Value,
    path: &mut Vec<&'a str>,
    seen: &mut Vec<(String, String)>,
) -> Result<(), (String, String)> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Ok(()) };
    for (name, property) in properties {
        path.push(name);
        if let Some(header) = property.get(KEYWORD) {
            let at = path.join(".");
            let Some(header) = header.as_str().filter(|h| !h.is_empty() && h.chars().all(is_token_char)) else {
                return Err((
                    at,
                    format!("`{KEYWORD}` must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~), not {header}"),
                ));
            };
            match property.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                _ => return Err((at, "only a string, integer or boolean property can be a header".to_owned())),
            }
            if let Some((other, _)) = seen.iter().find(|(_, taken)| taken.eq_ignore_ascii_case(header)) {
                return Err((at, format!("`{other}` is mirrored into `Mcp-Param-{header}` already")));
            }
            seen.push((at, header.to_owned()));
        }
        check_properties(property, path, seen)?;
        path.pop();
    }
    Ok(())
}

/// A character of an HTTP token (RFC 9110 §5.6.2).
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;

    fn object(properties: serde_json::Value) -> serde_json::Value {
        json!({"type": "object", "properties": properties})
    }

    #[test]
    fn marks_are_checked_where_the_specification_says() {
        let region = json!({"type": "string", "x-mcp-header": "Region"});
        assert_eq!(check(&object(json!({"region": region, "n": {"type": "integer", "x-mcp-header": "N"}}))), Ok(()));
        let nested = object(json!({"at": {"type": "object", "properties": {"region": region}}}));
        assert_eq!(check(&nested), Ok(()));
        assert_eq!(
            check(&object(json!({"a": region, "b": {"type": "boolean", "x-mcp-header": "region"}}))),
            Err(("b".to_owned(), "`a` is mirrored into `Mcp-Param-region` already".to_owned()))
        );
        assert_eq!(
            check(&object(json!({"a": {"type": "string", "x-mcp-header": "Re gion"}}))),
            Err((
                "a".to_owned(),
                "`x-mcp-header` must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~), not \"Re gion\""
                    .to_owned()
            ))
        );
        assert_eq!(
            check(&object(json!({"a": {"type": "number", "x-mcp-header": "A"}}))),
            Err(("a".to_owned(), "only a string, integer or boolean property can be a header".to_owned()))
        );
        assert_eq!(
            check(&json!({"type": "object", "x-mcp-header": "A"})),
            Err((String::new(), "`x-mcp-header` must mark a property, not the schema's root".to_owned()))
        );
    }
}
