//! JSON text inside a string, where the schema declares a list or an object: decoded (also
//! Python-literal style), with its warning.

use serde_json::Value;

use super::scalar::Token;
use super::text::{trim, write_texts};
use crate::schema::plan::{Kind, NodeId, Plan};

/// Whether the single pass reads JSON `text` met at node `id` as the value it holds: a list's
/// text for a list, an object's for an object, as the tree decodes them. It returns what the
/// node expects, for the warning.
pub(crate) fn decodes(plan: &Plan, id: NodeId, text: &str) -> Option<&'static str> {
    let node = plan.node(id);
    let start = trim(text).as_bytes().first();
    match (node.kind, start) {
        _ if node.tokens.is_some() || node.deferred() => None,
        (Kind::Array, Some(b'[')) => Some("an array"),
        (Kind::Object, Some(b'{')) => Some("an object"),
        _ => None,
    }
}

/// Appends the received and action texts of JSON `text` decoded (the value is the text
/// itself) to `out`, which holds the pointer; returns where each starts.
pub(crate) fn write_decoded(text: &str, out: &mut String) -> [usize; 2] {
    let action = |out: &mut String| out.push_str("decoded the JSON text inside the string");
    write_texts(out, |out| Token::Text(text).write_received(out), action)
}

/// JSON text inside a string (also Python-literal style), parsed once more.
pub(super) fn decode_text(text: &str) -> Option<Value> {
    let trimmed = trim(text);
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value) => Some(value),
        Err(_) => crate::extract::repair::parse_tolerant(trimmed).ok().map(|tolerant| tolerant.value),
    }
}
