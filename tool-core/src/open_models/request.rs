//! A call a reader found, made into the request the executor runs: its id, its arguments as
//! the form carries them, its warnings, and the refusal of a call the end of the answer cut.

use serde_json::{Map, Value};

use super::reader::{Body, Cx, RawCall};
use crate::model::rules;
use crate::model::{pointer, truncate, ArgumentError, ArgumentErrors, ParseWarning, ToolCallRequest};
use crate::xml::{typed, Reading};

/// Numbers calls and puts them in their conversation.
#[derive(Debug, Clone)]
pub(super) struct Requests {
    pub conversation: Option<String>,
    pub prefix: String,
    pub next: usize,
}

impl Requests {
    /// `raw` as a request: numbered as the next call unless the model gave its id.
    pub fn make(&mut self, cx: &Cx, raw: RawCall) -> ToolCallRequest {
        let RawCall { name, id, raw, body, mut warnings, mut errors, cut } = raw;
        let id = id.unwrap_or_else(|| format!("{}{}", self.prefix, self.next));
        self.next += 1;
        let arguments = match body {
            Body::Json => None,
            Body::Pairs(pairs) => Some(Value::Object(pairs_object(cx, &name, pairs, &mut warnings, &mut errors))),
            Body::Object(object) => Some(object),
        };
        if let Some(expected) = cut {
            errors.push(ArgumentError {
                pointer: String::new(),
                rule: rules::TRUNCATED_CALL.to_owned(),
                expected: format!("the whole call, with {expected}"),
                received: Some("the end of the answer".to_owned()),
                detail: "the answer ended inside the call, so its values may be cut short; it was not run".to_owned(),
            });
        }
        // The end of the answer may have left its end-of-turn token in the call it cut.
        let raw = if cut.is_some() { super::tokens::trim_end(&raw).to_owned() } else { raw };
        let mut call = ToolCallRequest::new(name, id, raw);
        call.arguments = arguments;
        call.parse_warnings = warnings;
        if !errors.is_empty() {
            call.parse_error = Some(ArgumentErrors { errors: errors.into() });
        }
        call.conversation_id.clone_from(&self.conversation);
        call
    }
}

/// The arguments object of text pairs: each value typed by its declared parameter.
fn pairs_object(
    cx: &Cx,
    tool: &str,
    pairs: Vec<(String, String)>,
    warnings: &mut Vec<ParseWarning>,
    errors: &mut Vec<ArgumentError>,
) -> Map<String, Value> {
    let shape = cx.tool(tool).map(|known| &known.shape);
    let mut object = Map::with_capacity(pairs.len());
    for (name, text) in pairs {
        let reading = shape.map_or(Reading::Text, |shape| shape.reading(&name).0);
        let value = typed(std::borrow::Cow::Owned(text), reading);
        insert_argument(&mut object, name, value, warnings, errors);
    }
    object
}

/// Puts `value` in `object` under `name`. A name given twice keeps one value: with the same
/// value a warning says so; with another value nothing tells which one the model meant, so an
/// error names both and the call is refused.
pub(super) fn insert_argument(
    object: &mut Map<String, Value>,
    name: String,
    value: Value,
    warnings: &mut Vec<ParseWarning>,
    errors: &mut Vec<ArgumentError>,
) {
    let Some(earlier) = object.get(&name) else {
        object.insert(name, value);
        return;
    };
    let at = pointer::child("", &name);
    if *earlier == value {
        let received = format!("`{}` twice, with the same value", truncate(&name));
        warnings.push(ParseWarning::new(
            &at,
            rules::DUPLICATE_ARGUMENT,
            "each argument once",
            &received,
            "kept the value",
        ));
    } else {
        let received = format!("`{}` and `{}`", truncate(&earlier.to_string()), truncate(&value.to_string()));
        errors.push(ArgumentError {
            pointer: at,
            rule: rules::CONFLICTING_ARGUMENT.to_owned(),
            expected: "each argument once".to_owned(),
            received: Some(received),
            detail: format!("`{name}` was given twice with different values; give it once"),
        });
    }
}
