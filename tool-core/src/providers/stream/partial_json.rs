//! What a JSON text cut short would hold if it ended here, for showing calls still streaming.

use serde_json::Value;

/// What a JSON text cut short would hold if it ended here: an open string, array or object is
/// closed; an unfinished key, a key without its value, and an unfinished literal or number
/// (`tru`, `1.`, `-`) are left out, as is an unfinished escape. `None` when the text is not the
/// beginning of one JSON value.
///
/// ```
/// use serde_json::json;
/// use tool_core::providers::stream::parse_partial_json;
///
/// assert_eq!(parse_partial_json(r#"{"city":"Edin"#), Some(json!({"city": "Edin"})));
/// assert_eq!(parse_partial_json(r#"{"a":[1,2"#), Some(json!({"a": [1, 2]})));
/// assert_eq!(parse_partial_json(r#"{"a":1,"b":tr"#), Some(json!({"a": 1})));
/// assert_eq!(parse_partial_json(r#"{"a":1}}"#), None);
/// ```
pub fn parse_partial_json(text: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    serde_json::from_str(&close_partial_json(text)?).ok()
}

/// An open array or object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Object,
    Array,
}

/// What may come next in [`close_partial_json`]'s scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// A value (at the top, after `:` or after `,` in an array).
    Value,
    /// A value or `]`, after `[`.
    ValueOrEnd,
    /// A key or `}`, after `{`.
    KeyOrEnd,
    /// A key, after `,` in an object.
    Key,
    /// `:` after a key.
    Colon,
    /// `,` or the end of the open array or object, after a value.
    CommaOrEnd,
    /// Nothing: the top value is complete.
    Nothing,
}

/// The text cut at the last place a value can end, with the open strings, arrays and objects
/// closed. The text is scanned once, without recursion; whether the result is JSON is left to
/// the parser.
fn close_partial_json(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut next = Next::Value;
    // Where the text can be cut and closed; no `[`/`{`/`]`/`}` comes after it (each of them is
    // itself such a place), so the stack there is the stack at the end.
    let mut cut: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
            continue;
        }
        match next {
            Next::Value | Next::ValueOrEnd => match byte {
                b'{' => {
                    stack.push(Open::Object);
                    next = Next::KeyOrEnd;
                    i += 1;
                    cut = Some(i);
                }
                b'[' => {
                    stack.push(Open::Array);
                    next = Next::ValueOrEnd;
                    i += 1;
                    cut = Some(i);
                }
                b']' if next == Next::ValueOrEnd => {
                    stack.pop();
                    next = after_value(&stack);
                    i += 1;
                    cut = Some(i);
                }
                b'"' => match scan_string(bytes, i) {
                    Ok(end) => {
                        i = end;
                        next = after_value(&stack);
                        cut = Some(i);
                    }
                    // The text ends inside a string value: close it where the text can end.
                    Err(end) => return Some(format!("{}\"{}", &text[..end], closers(&stack))),
                },
                _ => {
                    let end = bytes[i..]
                        .iter()
                        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
                        .map_or(bytes.len(), |n| i + n);
                    if end == i {
                        return None;
                    }
                    if end == bytes.len() {
                        // A number or literal at the very end may be unfinished: keep it only
                        // when it is whole as it stands (`12`, `true`).
                        if serde_json::from_str::<Value>(&text[i..end]).is_ok() {
                            return Some(format!("{text}{}", closers(&stack)));
                        }
                        break;
                    }
                    i = end;
                    next = after_value(&stack);
                    cut = Some(i);
                }
            },
            Next::KeyOrEnd | Next::Key => match byte {
                b'}' if next == Next::KeyOrEnd => {
                    stack.pop();
                    next = after_value(&stack);
                    i += 1;
                    cut = Some(i);
                }
                b'"' => match scan_string(bytes, i) {
                    Ok(end) => {
                        i = end;
                        next = Next::Colon;
                    }
                    Err(_) => break,
                },
                _ => return None,
            },
            Next::Colon if byte == b':' => {
                next = Next::Value;
                i += 1;
            }
            Next::CommaOrEnd => match (byte, stack.last()) {
                (b',', Some(Open::Object)) => {
                    next = Next::Key;
                    i += 1;
                }
                (b',', Some(Open::Array)) => {
                    next = Next::Value;
                    i += 1;
                }
                (b'}', Some(Open::Object)) | (b']', Some(Open::Array)) => {
                    stack.pop();
                    next = after_value(&stack);
                    i += 1;
                    cut = Some(i);
                }
                _ => return None,
            },
            Next::Colon | Next::Nothing => return None,
        }
    }
    let cut = cut?;
    Some(format!("{}{}", &text[..cut], closers(&stack)))
}

fn after_value(stack: &[Open]) -> Next {
    if stack.is_empty() {
        Next::Nothing
    } else {
        Next::CommaOrEnd
    }
}

fn closers(stack: &[Open]) -> String {
    stack.iter().rev().map(|open| if *open == Open::Object { '}' } else { ']' }).collect()
}

/// Scans the string starting at the quote `start`: `Ok` with the index after its closing quote,
/// or `Err` with the index where the text, ending inside it, can be cut (before an unfinished
/// escape, or a high surrogate whose low half has not arrived).
fn scan_string(bytes: &[u8], start: usize) -> Result<usize, usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Ok(i + 1),
            b'\\' => {
                let Some(&escaped) = bytes.get(i + 1) else { return Err(i) };
                if escaped != b'u' {
                    i += 2;
                    continue;
                }
                let Some(hex) = bytes.get(i + 2..i + 6) else { return Err(i) };
                let high_surrogate = std::str::from_utf8(hex)
                    .ok()
                    .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                    .is_some_and(|unit| (0xD800..0xDC00).contains(&unit));
                if high_surrogate && bytes.len() < i + 12 {
                    return Err(i);
                }
                i += 6;
            }
            _ => i += 1,
        }
    }
    Err(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partial_json_is_closed_where_a_value_can_end() {
        let cases: &[(&str, Option<Value>)] = &[
            ("", None),
            ("   ", None),
            ("{", Some(json!({}))),
            (r#"{"ci"#, Some(json!({}))),
            (r#"{"city""#, Some(json!({}))),
            (r#"{"city":"#, Some(json!({}))),
            (r#"{"city":""#, Some(json!({"city": ""}))),
            (r#"{"city":"Edin"#, Some(json!({"city": "Edin"}))),
            (r#"{"city":"Edinburgh","#, Some(json!({"city": "Edinburgh"}))),
            (r#"{"city":"Edinburgh","units":"c"}"#, Some(json!({"city": "Edinburgh", "units": "c"}))),
            (r#"{"n":12"#, Some(json!({"n": 12}))),
            (r#"{"n":1."#, Some(json!({}))),
            (r#"{"n":-"#, Some(json!({}))),
            (r#"{"a":1,"n":1e"#, Some(json!({"a": 1}))),
            (r#"{"ok":tru"#, Some(json!({}))),
            (r#"{"ok":true"#, Some(json!({"ok": true}))),
            (r#"{"ok":null,"#, Some(json!({"ok": null}))),
            (r#"{"a":[1,2"#, Some(json!({"a": [1, 2]}))),
            (r#"{"a":[1,2,"#, Some(json!({"a": [1, 2]}))),
            (r#"{"a":[{"b":"x"},{"#, Some(json!({"a": [{"b": "x"}, {}]}))),
            (r#"{"a":{"b":{"c":"deep"#, Some(json!({"a": {"b": {"c": "deep"}}}))),
            (r#"{"a":"x\"#, Some(json!({"a": "x"}))),
            (r#"{"a":"x\n"#, Some(json!({"a": "x\n"}))),
            (r#"{"a":"\u00e"#, Some(json!({"a": ""}))),
            (r#"{"a":"\u00e9"#, Some(json!({"a": "é"}))),
            (r#"{"a":"\ud83d"#, Some(json!({"a": ""}))),
            (r#"{"a":"\ud83d\ude0"#, Some(json!({"a": ""}))),
            (r#"{"a":"\ud83d\ude00"#, Some(json!({"a": "😀"}))),
            (r#"{"a":"naïve"#, Some(json!({"a": "naïve"}))),
            (r#"["x"#, Some(json!(["x"]))),
            (r#""x"#, Some(json!("x"))),
            (r#"{"a":1}}"#, None),
            (r#"{"a" 1"#, None),
            (r#"{'a':1"#, None),
            ("]", None),
            (r#"{"a":1]"#, None),
            (r#"{"a":01,"#, None),
        ];
        for (text, expected) in cases {
            assert_eq!(&parse_partial_json(text), expected, "{text}");
        }
    }

    #[test]
    fn deep_nesting_gives_none_instead_of_overflowing() {
        let text = "[".repeat(100_000);
        assert_eq!(parse_partial_json(&text), None);
    }
}
