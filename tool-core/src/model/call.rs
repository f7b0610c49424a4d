//! A tool call as the model sent it, and what argument extraction made of it.
//!
//! Nothing the model sent is lost: the raw arguments stay verbatim beside the parsed ones, and
//! every deviation is a structured [`ParseWarning`] or [`ArgumentError`].

use std::borrow::Cow;
use std::fmt;
use std::mem::ManuallyDrop;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::pointer;
use super::principal::Principal;
use super::rules;

/// How long a received value may be in messages before it is cut.
pub(crate) const RECEIVED_MAX_CHARS: usize = 120;

/// One tool call from the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    /// The tool the model asked for.
    pub tool_name: String,
    /// The provider's id for the call, echoed in the result.
    pub call_id: String,
    /// The arguments exactly as the model sent them.
    pub raw_arguments: String,
    /// The arguments object the tool's values were read from, when extraction had to build one
    /// (it repaired the text, checked declared constraints, or reported errors). `None` when
    /// the values were read straight from the raw text; conversions made on the way are in
    /// `parse_warnings`, each with its place and the value it became.
    ///
    /// Set before execution, by [`NameMap::restore`](crate::providers::names::NameMap::restore) for a
    /// call whose arguments went out other than declared, it is what the values are read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Why the arguments could not be used, when they could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<ArgumentErrors>,
    /// What extraction noticed or changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parse_warnings: Vec<ParseWarning>,
    /// What the provider attached to the call that must go back with its result unchanged
    /// (Gemini's `thoughtSignature`, the Responses API's item `id`), keyed by the provider's
    /// own field name.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub provider_data: Map<String, Value>,
    /// The conversation the call belongs to: a stateful tool (a `#[tool]` method) runs on
    /// that conversation's instance of its type, and refuses a call without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// Who made the call, as the front end that received it authenticated them (an MCP
    /// server's OAuth subject): their state is kept apart from every other principal's, even
    /// under the same conversation id. Set by the host or the front end, never by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// What the caller's access token says of them (subject, client, scopes), when the front
    /// end checked one (an MCP server with OAuth); `principal` is then its
    /// [`id`](Principal::id). Kept in the call's record; it holds no token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Principal>,
}

impl ToolCallRequest {
    /// A request as a provider hands it over, before extraction.
    pub fn new(tool_name: impl Into<String>, call_id: impl Into<String>, raw_arguments: impl Into<String>) -> Self {
        ToolCallRequest {
            tool_name: tool_name.into(),
            call_id: call_id.into(),
            raw_arguments: raw_arguments.into(),
            arguments: None,
            parse_error: None,
            parse_warnings: Vec::new(),
            provider_data: Map::new(),
            conversation_id: None,
            principal: None,
            identity: None,
        }
    }

    /// The same request, made by `principal` (see [`ToolCallRequest::principal`]).
    pub fn by_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// The same request, in `conversation` (see [`ToolCallRequest::conversation_id`]).
    pub fn in_conversation(mut self, conversation: impl Into<String>) -> Self {
        self.conversation_id = Some(conversation.into());
        self
    }
}

/// Something extraction noticed or changed, that did not stop the call.
///
/// Its texts (the pointer, what arrived, what was done) share one allocation: a conversion's
/// warning costs one string, not three. Serialized as an object with the five fields.
#[derive(Clone, PartialEq, Eq)]
pub struct ParseWarning {
    rule: Cow<'static, str>,
    expected: Cow<'static, str>,
    /// The pointer, the received text and the action, one after the other.
    texts: String,
    /// Where the received text and the action start in `texts`.
    splits: [usize; 2],
}

impl ParseWarning {
    /// A warning at `pointer` (a JSON pointer, `""` for the whole object): the rule it applied
    /// (a stable snake_case id), what the declaration expected there, what arrived (as JSON
    /// text; extraction cuts it after 120 characters) and what extraction did about it.
    pub fn new(
        pointer: &str,
        rule: impl Into<Cow<'static, str>>,
        expected: impl Into<Cow<'static, str>>,
        received: &str,
        action: &str,
    ) -> Self {
        let mut texts = String::with_capacity(pointer.len() + received.len() + action.len());
        texts.push_str(pointer);
        texts.push_str(received);
        texts.push_str(action);
        let splits = [pointer.len(), pointer.len() + received.len()];
        ParseWarning { rule: rule.into(), expected: expected.into(), texts, splits }
    }

    /// A warning whose texts were written one after the other into `texts` (the received text
    /// from `splits[0]`, the action from `splits[1]`).
    pub(crate) fn from_texts(
        texts: String,
        splits: [usize; 2],
        rule: &'static str,
        expected: Cow<'static, str>,
    ) -> Self {
        debug_assert!(splits[0] <= splits[1] && splits[1] <= texts.len());
        ParseWarning { rule: Cow::Borrowed(rule), expected, texts, splits }
    }

    /// JSON pointer of the place in the arguments (`""` is the whole object).
    pub fn pointer(&self) -> &str {
        &self.texts[..self.splits[0]]
    }

    /// A stable snake_case rule id, e.g. `unknown_parameter`.
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// What the declaration expected there.
    pub fn expected(&self) -> &str {
        &self.expected
    }

    /// What arrived, as JSON text (cut when long).
    pub fn received(&self) -> &str {
        &self.texts[self.splits[0]..self.splits[1]]
    }

    /// What extraction did about it.
    pub fn action(&self) -> &str {
        &self.texts[self.splits[1]..]
    }

    /// `warnings` as one `"; "`-separated text (each as its `Display` writes it); `None` when
    /// there are none. For a request's `parse_warnings` or an extraction's `warnings` alike.
    ///
    /// ```
    /// use tool_core::{ParseWarning, ToolCallRequest};
    ///
    /// let mut request = ToolCallRequest::new("search", "call_1", r#"{"limit": "5", "q": 1}"#);
    /// assert_eq!(ParseWarning::joined(&request.parse_warnings), None);
    /// request.parse_warnings.push(ParseWarning::new("/limit", "string_to_integer", "an integer", "\"5\"", "converted to 5"));
    /// request.parse_warnings.push(ParseWarning::new("/q", "literal_to_string", "a string", "1", "kept as the text \"1\""));
    /// assert_eq!(
    ///     ParseWarning::joined(&request.parse_warnings).as_deref(),
    ///     Some(r#"string_to_integer at `limit`: converted to 5; literal_to_string at `q`: kept as the text "1""#)
    /// );
    /// ```
    pub fn joined(warnings: &[ParseWarning]) -> Option<String> {
        (!warnings.is_empty()).then(|| warnings.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
    }
}

impl fmt::Debug for ParseWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParseWarning")
            .field("pointer", &self.pointer())
            .field("rule", &self.rule())
            .field("expected", &self.expected())
            .field("received", &self.received())
            .field("action", &self.action())
            .finish()
    }
}

impl Serialize for ParseWarning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("ParseWarning", 5)?;
        out.serialize_field("pointer", self.pointer())?;
        out.serialize_field("rule", self.rule())?;
        out.serialize_field("expected", self.expected())?;
        out.serialize_field("received", self.received())?;
        out.serialize_field("action", self.action())?;
        out.end()
    }
}

impl<'de> Deserialize<'de> for ParseWarning {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Fields {
            pointer: String,
            rule: String,
            expected: String,
            received: String,
            action: String,
        }
        let f = Fields::deserialize(deserializer)?;
        Ok(ParseWarning::new(&f.pointer, f.rule, f.expected, &f.received, &f.action))
    }
}

impl fmt::Display for ParseWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at `{}`: {}", self.rule, display_pointer(self.pointer()), self.action())
    }
}

/// Why one part of the arguments could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ArgumentError {
    /// JSON pointer of the place in the arguments (`""` is the whole object).
    pub pointer: String,
    /// A stable snake_case rule id, e.g. `missing_required`, `invalid_type`.
    pub rule: String,
    /// What the declaration expects there, in the words the model reads.
    pub expected: String,
    /// What arrived (cut when long); `None` when nothing arrived.
    pub received: Option<String>,
    /// The underlying parser's message, for programs and logs.
    pub detail: String,
}

impl ArgumentError {
    /// The field this error is about, as the model knows it (`limit`, `filters.tags[2]`).
    pub fn field(&self) -> String {
        display_pointer(&self.pointer)
    }
}

/// Every reason the arguments of one call were refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ArgumentErrors {
    /// The errors, in parameter order.
    pub errors: Findings<ArgumentError>,
}

impl ArgumentErrors {
    /// One error.
    pub fn single(error: ArgumentError) -> Self {
        ArgumentErrors { errors: vec![error].into() }
    }

    /// The short message the model reads, naming each field, what was expected and what
    /// arrived, so that its next try succeeds.
    pub fn model_message(&self, tool_name: &str) -> String {
        let mut text = format!("The arguments for `{tool_name}` were not accepted:");
        for e in &self.errors {
            let place = if e.pointer.is_empty() { "arguments".to_owned() } else { format!("`{}`", e.field()) };
            // Where the whole text could not be read, the reader's words say where and why
            // (`the text ends inside a string at line 1 column 30`); the text alone does not.
            let why = if e.pointer.is_empty() && !e.detail.is_empty() && e.rule != rules::NOT_AN_OBJECT {
                format!(" ({})", e.detail)
            } else {
                String::new()
            };
            match (&e.received, e.rule.as_str()) {
                (None, rules::MISSING_REQUIRED) => {
                    text.push_str(&format!("\n- {place}: required, expected {}; it was missing.", e.expected))
                }
                (None, _) => text.push_str(&format!("\n- {place}: expected {}{why}.", e.expected)),
                (Some(got), _) => text.push_str(&format!("\n- {place}: expected {}; got {got}{why}.", e.expected)),
            }
        }
        text.push_str(&format!("\nSend the corrected arguments to `{tool_name}` again."));
        text
    }

    /// A list for programs, in the shape pydantic uses: `[{type, loc, msg, input}]`.
    pub fn structured(&self) -> Value {
        Value::Array(
            self.errors
                .iter()
                .map(|e| {
                    json!({
                        "type": e.rule,
                        "loc": pointer_segments(&e.pointer),
                        "msg": format!("expected {}", e.expected),
                        "input": e.received,
                        "detail": e.detail,
                    })
                })
                .collect(),
        )
    }
}

impl fmt::Display for ArgumentErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .errors
            .iter()
            .map(|e| match &e.received {
                Some(got) => format!("{} at `{}`: expected {}, got {}", e.rule, e.field(), e.expected, got),
                None => format!("{} at `{}`: expected {}", e.rule, e.field(), e.expected),
            })
            .collect();
        f.write_str(&parts.join("; "))
    }
}

impl std::error::Error for ArgumentErrors {}

/// What extraction made of a raw arguments string: the typed value or the errors, with every
/// warning and the raw text kept beside them.
#[derive(Debug)]
pub struct Extraction<'r, T> {
    /// The arguments exactly as received.
    pub raw: &'r str,
    /// The typed arguments, or why they could not be built.
    pub value: Result<T, ArgumentErrors>,
    /// What extraction noticed or changed.
    pub warnings: Findings<ParseWarning>,
    /// The arguments object the value was read from, when extraction had to build one (see
    /// [`ToolCallRequest::arguments`]).
    pub arguments: Option<Value>,
}

/// The warnings or errors extraction found: a `Vec` (it dereferences to one) whose elements
/// are freed out of line.
///
/// An [`Extraction`] is dropped after every call, almost always with nothing in its lists, so
/// the common drop is a check for emptiness, and the loop that frees elements sits in a cold
/// function of its own.
///
/// ```
/// use tool_core::extract::Findings;
/// use tool_core::ParseWarning;
///
/// let mut warnings: Findings<ParseWarning> = Findings::new();
/// assert!(warnings.is_empty());
/// warnings.push(ParseWarning::new("/limit", "string_to_integer", "an integer", "\"5\"", "converted to 5"));
/// assert_eq!(warnings[0].pointer(), "/limit");
/// let as_vec: Vec<ParseWarning> = warnings.into_vec();
/// assert_eq!(as_vec.len(), 1);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Findings<T>(ManuallyDrop<Vec<T>>);

impl<T> Findings<T> {
    /// An empty list (no allocation).
    pub const fn new() -> Self {
        Findings(ManuallyDrop::new(Vec::new()))
    }

    /// The elements as a `Vec`, without copying.
    pub fn into_vec(mut self) -> Vec<T> {
        std::mem::take(&mut *self.0)
    }
}

impl<T> Drop for Findings<T> {
    #[inline]
    fn drop(&mut self) {
        if self.0.capacity() != 0 {
            drop_findings(&mut self.0);
        }
    }
}

/// Frees a non-empty list's elements and buffer, out of the callers' way.
#[cold]
#[inline(never)]
fn drop_findings<T>(list: &mut Vec<T>) {
    drop(std::mem::take(list));
}

impl<T> Default for Findings<T> {
    fn default() -> Self {
        Findings::new()
    }
}

impl<T> std::ops::Deref for Findings<T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Findings<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T> From<Vec<T>> for Findings<T> {
    fn from(list: Vec<T>) -> Self {
        Findings(ManuallyDrop::new(list))
    }
}

impl<T> From<Findings<T>> for Vec<T> {
    fn from(findings: Findings<T>) -> Self {
        findings.into_vec()
    }
}

impl<T> FromIterator<T> for Findings<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl<T> Extend<T> for Findings<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl<T> IntoIterator for Findings<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a, T> IntoIterator for &'a Findings<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Findings<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for Findings<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        *self.0 == *other
    }
}

impl<T: PartialEq> PartialEq<[T]> for Findings<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.0[..] == *other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for Findings<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.0[..] == other[..]
    }
}

impl<T: fmt::Debug> fmt::Debug for Findings<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: Serialize> Serialize for Findings<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Findings<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::deserialize(deserializer).map(Findings::from)
    }
}

/// Renders a received value for messages: JSON text, cut after a fixed number of characters.
pub fn received_text(value: &Value) -> String {
    truncate(&value.to_string())
}

/// Cuts `text` after a fixed number of characters, marking the cut.
pub fn truncate(text: &str) -> String {
    Cut(text).to_string()
}

/// `text` cut as [`truncate`] cuts it, written without a copy: a log field is only written when
/// a subscriber records it, so a call whose events nobody listens to pays nothing for it.
pub(crate) struct Cut<'a>(pub &'a str);

impl fmt::Display for Cut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(RECEIVED_MAX_CHARS) {
            Some((cut, _)) => write!(f, "{}… ({} chars)", &self.0[..cut], self.0.chars().count()),
            None => f.write_str(self.0),
        }
    }
}

fn pointer_segments(pointer: &str) -> Vec<Value> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer::segments(pointer)
        .map(|s| match s.parse::<u64>() {
            Ok(i) => Value::from(i),
            Err(_) => Value::from(s.into_owned()),
        })
        .collect()
}

/// `/filters/tags/2` → `filters.tags[2]`; `""` → `(arguments)`.
fn display_pointer(pointer: &str) -> String {
    let segments = pointer_segments(pointer);
    if segments.is_empty() {
        return "(arguments)".to_owned();
    }
    let mut out = String::new();
    for s in segments {
        match s {
            Value::Number(i) => out.push_str(&format!("[{i}]")),
            Value::String(s) if out.is_empty() => out.push_str(&s),
            Value::String(s) => {
                out.push('.');
                out.push_str(&s);
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_free_their_elements_when_dropped_and_move_them_out_whole() {
        use std::rc::Rc;
        let shared = Rc::new(());
        let findings: Findings<Rc<()>> = (0..3).map(|_| Rc::clone(&shared)).collect();
        assert_eq!(Rc::strong_count(&shared), 4);
        drop(findings);
        assert_eq!(Rc::strong_count(&shared), 1, "the cold drop frees every element");

        let mut findings = Findings::from(vec![Rc::clone(&shared)]);
        findings.extend([Rc::clone(&shared)]);
        let buffer = findings.as_ptr();
        let list = findings.into_vec();
        assert_eq!((list.len(), list.as_ptr()), (2, buffer), "into_vec hands over the same buffer");
        assert_eq!(Rc::strong_count(&shared), 3);
        drop(list);
        assert_eq!(Rc::strong_count(&shared), 1);

        let empty: Findings<u8> = Findings::default();
        assert_eq!((empty.len(), empty.capacity()), (0, 0), "an empty list allocates nothing");
        let numbers: Findings<u8> = vec![1, 2].into();
        assert_eq!(numbers, vec![1, 2]);
        assert_eq!(numbers, [1, 2]);
        assert_eq!(format!("{numbers:?}"), "[1, 2]");
        assert_eq!(serde_json::to_string(&numbers).unwrap(), "[1,2]");
        assert_eq!(numbers.into_iter().map(u32::from).sum::<u32>(), 3);
    }

    fn error(pointer: &str, received: Option<&str>, rule: &str) -> ArgumentError {
        ArgumentError {
            pointer: pointer.into(),
            rule: rule.into(),
            expected: "an integer".into(),
            received: received.map(Into::into),
            detail: String::new(),
        }
    }

    #[test]
    fn model_message_names_field_expectation_and_received_value() {
        let errors = ArgumentErrors {
            errors: vec![error("/limit", Some("\"many\""), "invalid_type"), error("/query", None, "missing_required")]
                .into(),
        };
        assert_eq!(
            errors.model_message("memory.search"),
            "The arguments for `memory.search` were not accepted:\n- `limit`: expected an integer; got \"many\".\n- `query`: required, expected an integer; it was missing.\nSend the corrected arguments to `memory.search` again."
        );
    }

    #[test]
    fn model_message_says_where_unreadable_arguments_go_wrong() {
        let errors = crate::extract::untyped(r#"{"a":"b",c":"d"}"#).value.unwrap_err();
        assert_eq!(
            errors.model_message("t"),
            "The arguments for `t` were not accepted:\n- arguments: expected a JSON object; got {\"a\":\"b\",c\":\"d\"} (expected a quoted key, found `c` at line 1 column 10).\nSend the corrected arguments to `t` again."
        );
        // Valid JSON of the wrong kind: what arrived says it all.
        let errors = crate::extract::untyped("[1]").value.unwrap_err();
        assert_eq!(
            errors.model_message("t"),
            "The arguments for `t` were not accepted:\n- arguments: expected a JSON object; got [1].\nSend the corrected arguments to `t` again."
        );
    }

    #[test]
    fn structured_errors_use_location_segments() {
        let errors = ArgumentErrors::single(error("/filters/tags/2", Some("true"), "invalid_type"));
        assert_eq!(errors.structured()[0]["loc"], json!(["filters", "tags", 2]));
        assert_eq!(errors.errors[0].field(), "filters.tags[2]");
    }

    #[test]
    fn long_received_values_are_cut_with_their_length() {
        let long = "x".repeat(300);
        let cut = truncate(&long);
        assert!(cut.starts_with(&"x".repeat(120)));
        assert!(cut.ends_with("… (300 chars)"));
        assert_eq!(truncate("short"), "short");
    }
}
