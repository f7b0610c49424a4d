//! The repairs of the whole arguments text: strict JSON first, then empty text, fences,
//! special tokens, objects sent twice, double encoding and the tolerant parser, one warning per
//! repair.

use serde_json::{Map, Value};

use super::parser::{parse_tolerant, Parser, Tolerance, Tolerant, TolerantError};
use crate::extract::duplicates::duplicate_key_warnings;
use crate::model::rules;
use crate::model::{received_text, truncate, ArgumentError, ParseWarning};

/// What the arguments must be, in the model's words.
pub(super) const EXPECTED: &str = "a JSON object";

/// The arguments as a JSON value, and one warning per repair.
#[derive(Debug)]
pub(crate) struct Repaired {
    /// The arguments object.
    pub value: Map<String, Value>,
    /// One warning per repair, outermost first.
    pub warnings: Vec<ParseWarning>,
}

/// Turns the raw arguments text into a JSON object, repairing what models commonly get wrong,
/// one [`ParseWarning`] per repair (pointer `""`, `received` = the raw text, cut); tolerances
/// of the same rule share one warning, their actions joined.
///
/// Strict JSON is read as it is. Otherwise, in order: empty text is `{}`; a markdown code
/// fence around the value and special tokens or closing tags after it are removed; identical
/// objects sent one after another are read once (different ones are refused); a JSON string
/// holding an object is decoded; and whatever [`parse_tolerant`] accepts is read.
pub(crate) fn repair_arguments(raw: &str) -> Result<Repaired, ArgumentError> {
    if let Ok(value) = serde_json::from_str::<Value>(raw) {
        // A JSON object keeps the last of duplicate keys silently; say so.
        return finish(raw, value, duplicate_key_warnings(raw), Vec::new());
    }
    if raw.trim().is_empty() {
        let warning = warning(raw, rules::EMPTY_ARGUMENTS, "read as an empty object `{}`".to_owned());
        return Ok(Repaired { value: Map::new(), warnings: vec![warning] });
    }

    let mut parser = Parser::new(raw);
    let byte_order_mark = parser.eat("\u{feff}");
    // What may come first: special tokens and opening tags (`<tool_call>`), a code fence.
    let mut leading: Vec<&str> = Vec::new();
    parser.leading_tokens(&mut leading);
    let fenced = parser.open_fence();
    parser.leading_tokens(&mut leading);
    let first = parser.value(0).map_err(|e| syntax_error(raw, &e, ""))?;
    let first_duplicates = parser.duplicates.len();
    let first_out_of_range = parser.out_of_range.len();

    // Objects sent one after another.
    let mut objects = 1usize;
    let mut all_equal = true;
    if first.is_object() {
        loop {
            parser.skip_whitespace();
            if parser.peek() != Some(b'{') {
                break;
            }
            let next = parser.value(0).map_err(|e| syntax_error(raw, &e, ""))?;
            objects += 1;
            all_equal &= next == first;
        }
    }

    // What may follow: special tokens, closing tags, the closing fence.
    let mut removed: Vec<&str> = Vec::new();
    let mut fence_closed = false;
    loop {
        parser.skip_whitespace();
        if parser.at_end() {
            break;
        }
        if let Some(token) = parser.special_token() {
            removed.push(token);
        } else if !fence_closed && parser.eat("```") {
            // Closing the opening fence, or a closing fence alone.
            fence_closed = true;
        } else {
            let e = parser.unexpected("the end of the arguments");
            return Err(syntax_error(raw, &e, ""));
        }
    }

    if !all_equal {
        return Err(ArgumentError {
            pointer: String::new(),
            rule: rules::MULTIPLE_OBJECTS.into(),
            expected: EXPECTED.into(),
            received: Some(truncate(raw)),
            detail: format!(
                "{objects} JSON objects one after another, and they differ: the call is not run on a guess of which one was meant"
            ),
        });
    }

    let mut warnings = Vec::new();
    if byte_order_mark {
        warnings.push(warning(
            raw,
            rules::BYTE_ORDER_MARK_REMOVED,
            "removed the byte order mark (U+FEFF) before the arguments".into(),
        ));
    }
    if fenced || fence_closed {
        warnings.push(warning(
            raw,
            rules::CODE_FENCE_REMOVED,
            "removed the markdown code fence around the arguments".into(),
        ));
    }
    let tokens = |list: &[&str]| format!("`{}`", truncate(&list.join(" ")));
    let action = match (leading.is_empty(), removed.is_empty()) {
        (true, true) => None,
        (false, true) => Some(format!("removed {} before the arguments", tokens(&leading))),
        (true, false) => Some(format!("removed {} after the arguments", tokens(&removed))),
        (false, false) => {
            Some(format!("removed {} before and {} after the arguments", tokens(&leading), tokens(&removed)))
        }
    };
    if let Some(action) = action {
        warnings.push(warning(raw, rules::SPECIAL_TOKEN_REMOVED, action));
    }
    if objects > 1 {
        let action = format!("read the first of {objects} identical objects sent one after another");
        warnings.push(warning(raw, rules::IDENTICAL_OBJECTS_MERGED, action));
    }
    // Read with the tolerant parser: serde_json's duplicate walk could not read this text. The
    // copies of an identical object would only repeat the first one's.
    parser.duplicates.truncate(first_duplicates);
    warnings.append(&mut parser.duplicates);
    parser.out_of_range.truncate(first_out_of_range);
    warnings.append(&mut parser.out_of_range);
    finish(raw, first, warnings, parser.tolerances)
}

/// Checks that the value read is an object (decoding a double-encoded one), and adds the
/// tolerance warnings after the other repairs.
fn finish(
    raw: &str,
    value: Value,
    mut warnings: Vec<ParseWarning>,
    mut tolerances: Vec<Tolerance>,
) -> Result<Repaired, ArgumentError> {
    let value = match value {
        Value::Object(object) => object,
        Value::String(text) => {
            let inner = text.trim();
            match parse_tolerant(inner) {
                Ok(Tolerant { value: Value::Object(object), tolerances: inner_leniencies, duplicates }) => {
                    let action = "decoded the JSON string the arguments were sent as, and read the object inside";
                    warnings.push(warning(raw, rules::DOUBLE_ENCODED_ARGUMENTS, action.into()));
                    warnings.extend(duplicates);
                    for tolerance in inner_leniencies {
                        if !tolerances.contains(&tolerance) {
                            tolerances.push(tolerance);
                        }
                    }
                    object
                }
                Err(e) if inner.starts_with('{') => {
                    return Err(syntax_error(
                        raw,
                        &e,
                        "the arguments are a JSON string holding an object that cannot be read: ",
                    ))
                }
                _ => return Err(not_an_object(&Value::String(text))),
            }
        }
        other => return Err(not_an_object(&other)),
    };
    // One warning per rule: tolerances sharing a rule (single quotes and `True`) share it.
    let mut rules: Vec<&str> = Vec::new();
    for tolerance in &tolerances {
        if !rules.contains(&tolerance.rule()) {
            rules.push(tolerance.rule());
        }
    }
    for rule in rules {
        let actions: Vec<&str> = tolerances.iter().filter(|l| l.rule() == rule).map(|l| l.action()).collect();
        warnings.push(warning(raw, rule, actions.join("; ")));
    }
    Ok(Repaired { value, warnings })
}

fn warning(raw: &str, rule: &'static str, action: String) -> ParseWarning {
    ParseWarning::new("", rule, EXPECTED, &truncate(raw), &action)
}

fn syntax_error(raw: &str, error: &TolerantError, context: &str) -> ArgumentError {
    ArgumentError {
        pointer: String::new(),
        rule: error.rule().into(),
        expected: EXPECTED.into(),
        received: Some(truncate(raw)),
        detail: format!("{context}{}", error.message()),
    }
}

fn not_an_object(value: &Value) -> ArgumentError {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    ArgumentError {
        pointer: String::new(),
        rule: rules::NOT_AN_OBJECT.into(),
        expected: EXPECTED.into(),
        received: Some(received_text(value)),
        detail: format!("the arguments are {kind}, not an object"),
    }
}
