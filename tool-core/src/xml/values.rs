//! A parameter's text made into the JSON value its declared type asks for.
//!
//! In the XML protocol every value is text, so reading `42` as an integer for an integer
//! parameter is the expected path, not a repair: it makes no warning. What the text cannot be
//! read as (`"forty"` for an integer, a stringified list for a list) goes on as a string, and
//! argument extraction converts it or refuses it with its usual warnings and errors.

use std::borrow::Cow;

use memchr::{memchr2, memmem};
use serde_json::Value;

use crate::model::{Cardinality, ToolDefinition, ValueKind};

/// How a parameter's text becomes a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Text kinds (strings, enum tokens, timestamps, URIs): the text itself.
    Text,
    /// Numbers: the text read as a JSON number (or `null`).
    Number,
    /// Booleans: the text read as `true` or `false` (or `null`).
    Boolean,
    /// Objects, lists, maps and free-form values: the text read as JSON.
    Json,
}

/// The parameters of one tool, as the parser reads them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shape {
    params: Vec<(String, Reading, bool)>,
}

impl Shape {
    /// The shape of `definition`'s parameters.
    pub fn of(definition: &ToolDefinition) -> Self {
        let params = definition
            .parameters
            .iter()
            .map(|p| {
                let list = matches!(p.cardinality, Cardinality::List);
                let reading = match (p.cardinality, p.value_kind) {
                    (Cardinality::List | Cardinality::Map, _) => Reading::Json,
                    (_, ValueKind::Object | ValueKind::Array | ValueKind::Any) => Reading::Json,
                    (_, ValueKind::Integer | ValueKind::Number) => Reading::Number,
                    (_, ValueKind::Boolean) => Reading::Boolean,
                    _ => Reading::Text,
                };
                (p.name.clone(), reading, list)
            })
            .collect();
        Shape { params }
    }

    /// How `name`'s text is read, and whether it is a list. Parameters the tool does not
    /// declare are text (extraction then reports them).
    pub fn reading(&self, name: &str) -> (Reading, bool) {
        self.params.iter().find(|(n, ..)| n == name).map_or((Reading::Text, false), |(_, r, list)| (*r, *list))
    }
}

/// The value `text` stands for, read as `reading` says.
pub(crate) fn typed(text: Cow<'_, str>, reading: Reading) -> Value {
    let parsed = match reading {
        Reading::Text => None,
        Reading::Number => {
            serde_json::from_str::<Value>(&text).ok().filter(|v| matches!(v, Value::Number(_) | Value::Null))
        }
        Reading::Boolean => {
            serde_json::from_str::<Value>(&text).ok().filter(|v| matches!(v, Value::Bool(_) | Value::Null))
        }
        Reading::Json => serde_json::from_str::<Value>(&text).ok(),
    };
    parsed.unwrap_or_else(|| Value::String(text.into_owned()))
}

/// A value's text as written between its tags (`raw`), decoded: without the line break after
/// the opening tag and the one before the closing tag when it has both, with CDATA sections
/// taken as they are and entities (`&lt;`, `&#x41;`) decoded. An `&` that begins no entity is
/// itself. A value that was never closed (`closed` false) ends where the next tag began, so a
/// line break on either side of it is layout and goes even alone. Sets `unclosed_cdata` when a
/// `<![CDATA[` has no `]]>`: it is then text.
pub(super) fn decode<'a>(raw: &'a str, closed: bool, unclosed_cdata: &mut bool) -> Cow<'a, str> {
    let raw = without_framing_line_breaks(raw, closed);
    if memchr2(b'&', b'<', raw.as_bytes()).is_none() {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = memmem::find(rest.as_bytes(), b"<![CDATA[") {
        entities(&rest[..at], &mut out);
        let body = &rest[at + 9..];
        match memmem::find(body.as_bytes(), b"]]>") {
            Some(end) => {
                out.push_str(&body[..end]);
                rest = &body[end + 3..];
            }
            None => {
                *unclosed_cdata = true;
                entities(&rest[at..], &mut out);
                return Cow::Owned(out);
            }
        }
    }
    entities(rest, &mut out);
    Cow::Owned(out)
}

/// `text` without one leading and one trailing line break (`\n` or `\r\n`): when it has both,
/// or, unless `both`, either.
fn without_framing_line_breaks(text: &str, both: bool) -> &str {
    let lead = if text.starts_with("\r\n") { 2 } else { usize::from(text.starts_with('\n')) };
    let trail = if text.ends_with("\r\n") { 2 } else { usize::from(text.ends_with('\n')) };
    if both && (lead == 0 || trail == 0) {
        return text;
    }
    if lead + trail > text.len() {
        // One line break read from both sides.
        return if both { text } else { "" };
    }
    &text[lead..text.len() - trail]
}

/// The longest entity read (`&#x10FFFF;` and the named ones fit).
const MAX_ENTITY: usize = 12;

/// Appends `text` to `out` with its entities decoded by quick-xml; an `&` that does not begin
/// an entity quick-xml knows is kept as written.
fn entities(text: &str, out: &mut String) {
    // Most values are well formed: quick-xml decodes them in one go.
    if let Ok(decoded) = quick_xml::escape::unescape(text) {
        out.push_str(&decoded);
        return;
    }
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let candidate = &rest[at..];
        let window = &candidate.as_bytes()[..candidate.len().min(MAX_ENTITY)];
        match memchr::memchr(b';', window) {
            Some(end) if push_entity(&candidate[1..end], out) => rest = &candidate[end + 1..],
            _ => {
                out.push('&');
                rest = &candidate[1..];
            }
        }
    }
    out.push_str(rest);
}

/// Appends what the entity `name` (between `&` and `;`) stands for, if it is one of XML's
/// (quick-xml's table) or a character reference; returns whether it was.
fn push_entity(name: &str, out: &mut String) -> bool {
    if let Some(value) = quick_xml::escape::resolve_predefined_entity(name) {
        out.push_str(value);
        return true;
    }
    let Some(number) = name.strip_prefix('#') else { return false };
    let code = match number.strip_prefix('x') {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => number.parse().ok(),
    };
    match code.and_then(char::from_u32).filter(|&c| c != '\0') {
        Some(c) => {
            out.push(c);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(raw: &str) -> (String, bool) {
        let mut unclosed = false;
        let text = decode(raw, true, &mut unclosed).into_owned();
        (text, unclosed)
    }

    #[test]
    fn only_the_framing_line_breaks_go() {
        assert_eq!(decoded("\nParis\n").0, "Paris");
        assert_eq!(decoded("\r\n  two\n\nlines \r\n").0, "  two\n\nlines ");
        assert_eq!(decoded("\nonly before").0, "\nonly before");
        assert_eq!(decoded("only after\n").0, "only after\n");
        assert_eq!(decoded("\n").0, "\n");
        assert_eq!(decoded("\n\n").0, "");
        assert_eq!(decoded(" \nspaced\n ").0, " \nspaced\n ");
        let unclosed = |raw| decode(raw, false, &mut false).into_owned();
        assert_eq!(unclosed("R1\n"), "R1");
        assert_eq!(unclosed("\r\nR1"), "R1");
        assert_eq!(unclosed("R1\n\n"), "R1\n");
        assert_eq!(unclosed("\n"), "");
    }

    #[test]
    fn entities_and_cdata_are_decoded_and_stray_ampersands_kept() {
        assert_eq!(decoded("a &lt; b &amp;&amp; c &#x41;&#66;").0, "a < b && c AB");
        assert_eq!(decoded("AT&T & co; &unknown; &").0, "AT&T & co; &unknown; &");
        assert_eq!(decoded("<![CDATA[</parameter> &lt;]]> &lt;").0, "</parameter> &lt; <");
        assert_eq!(decoded("x <![CDATA[never closed &amp;"), ("x <![CDATA[never closed &".to_owned(), true));
    }

    #[test]
    fn values_are_read_by_the_declared_type() {
        let t = |text: &str, reading| typed(Cow::Borrowed(text), reading);
        assert_eq!(t("42", Reading::Number), Value::from(42));
        assert_eq!(t(" 2.5 ", Reading::Number), Value::from(2.5));
        assert_eq!(t("forty", Reading::Number), Value::from("forty"));
        assert_eq!(t("true", Reading::Number), Value::from("true"));
        assert_eq!(t("false", Reading::Boolean), Value::from(false));
        assert_eq!(t("yes", Reading::Boolean), Value::from("yes"));
        assert_eq!(t("null", Reading::Boolean), Value::Null);
        assert_eq!(t("42", Reading::Text), Value::from("42"));
        assert_eq!(t("[1, 2]", Reading::Json), serde_json::json!([1, 2]));
        assert_eq!(t("\"[1, 2]\"", Reading::Json), Value::from("[1, 2]"));
        assert_eq!(t("a, b", Reading::Json), Value::from("a, b"));
    }
}
