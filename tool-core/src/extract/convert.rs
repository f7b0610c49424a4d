//! Lenient in: converts an arguments object toward its declared schema, by the declared type and
//! never by the value's look, recording a [`ParseWarning`] (with the JSON pointer) for each
//! change.
//!
//! It only rewrites values it can convert exactly as the rules say; anything else is left as
//! it arrived, for the typed read to refuse with a precise error. It never drops data silently
//! and never runs the tool. The schema is read through its compiled [`Plan`]; the tree path
//! converts whole objects ([`coerce_arguments`]), the single pass one value at a time
//! ([`convert_node`]), by the same code.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use crate::model::pointer;
use crate::model::ToolParameter;
use crate::model::{truncate, ArgumentError, ParseWarning, RECEIVED_MAX_CHARS};
use crate::schema::plan::{Children, Kind, NodeId, Plan, Tag, Tokens, Variants};
use crate::suggest::Names;

/// What conversion did: the warnings for what it changed, and, under the strict policy, the
/// errors for what it would have changed.
#[derive(Default)]
pub(crate) struct Converted {
    pub warnings: Vec<ParseWarning>,
    pub refused: Vec<ArgumentError>,
}

/// Converts the top-level parameters of `object` by the compiled schema, in the order they
/// arrived. With `strict`, nothing is changed: each conversion that would have applied is
/// refused (so is any conversion inside a parameter declared `strict`).
pub(crate) fn coerce_arguments(
    object: &mut Map<String, Value>,
    plan: &Plan,
    parameters: &[ToolParameter],
    strict: bool,
) -> Converted {
    let mut coercer = Coercer { plan, path: String::new(), strict, out: Converted::default() };
    coercer.unwrap_wrapper(object);
    // Arguments that take any key (a runtime-built tool's `additionalProperties`) keep them as
    // they came. A refused rename is reported once, as that (the caller skips it among the
    // unknown keys).
    if plan.node(Plan::ROOT).closed() {
        let names: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
        coercer.normalize_names(object, &names);
    }
    if let Children::Fields { properties, .. } = &plan.node(Plan::ROOT).children {
        let optional = |key: &str| {
            properties.iter().find(|(name, ..)| name == key).filter(|(.., required)| !required).map(|(_, id, _)| *id)
        };
        let strict_of = |key: &str| strict || parameters.iter().any(|p| p.name == key && p.strict);
        coercer.nulls_as_absent(object, optional, strict_of);
    }
    let declared: Vec<(String, NodeId)> =
        object.keys().filter_map(|name| plan.parameter(name).map(|id| (name.clone(), id))).collect();
    for (name, node) in declared {
        if let Some(value) = object.get_mut(&name) {
            let parameter = parameters.iter().find(|p| p.name == name);
            let case_sensitive = parameter.and_then(|p| p.enum_constraint.as_ref()).is_some_and(|e| e.case_sensitive);
            coercer.strict = strict || parameter.is_some_and(|p| p.strict);
            coercer.enter(&name);
            coercer.value(value, node, case_sensitive);
            coercer.leave();
        }
    }
    coercer.out
}

/// Converts one value the single pass met at `pointer` (schema node `node`), exactly as
/// [`coerce_arguments`] converts it in the tree; the warnings are appended to `warnings`.
pub(crate) fn convert_node(
    plan: &Plan,
    node: NodeId,
    pointer: String,
    value: &mut Value,
    (strict, case_sensitive): (bool, bool),
    warnings: Vec<ParseWarning>,
) -> Converted {
    let out = Converted { warnings, refused: Vec::new() };
    let mut coercer = Coercer { plan, path: pointer, strict, out };
    coercer.value(value, node, case_sensitive);
    coercer.out
}

/// Whether the single pass may take a value met at a deferred node as it is: when no node the
/// tree path could pick for it would change it (see [`Children::Deferred`]). The value is left
/// changed when it may not.
pub(crate) fn settled(plan: &Plan, node: NodeId, value: &mut Value) -> bool {
    let Children::Deferred { candidates, .. } = &plan.node(node).children else { return false };
    !candidates.is_empty()
        && candidates.iter().all(|&candidate| {
            let out = Converted::default();
            let mut coercer = Coercer { plan, path: String::new(), strict: false, out };
            // As in the tree: a parameter's case sensitivity does not reach an object's fields.
            coercer.value(value, candidate, false);
            coercer.out.warnings.is_empty()
        })
}

/// What a wrapped arguments object should have been: the expectation of `wrapper_unwrapped`.
const WRAPPER_KEYS_HINT: &str = "the parameters at the top level";

/// The rule of a key read as the declared parameter it names but for case and separators.
pub(crate) const NAME_NORMALIZED: &str = "parameter_name_normalized";

/// A parameter name without case and separators: `max_bytes`, `MaxBytes` and `max-bytes` all
/// fold to `maxbytes`.
fn fold_name(name: &str) -> impl Iterator<Item = char> + '_ {
    name.chars().filter(|c| !matches!(c, '_' | '-' | ' ' | '.')).flat_map(char::to_lowercase)
}

/// The one of `names` that `key` names but for case and separators, if exactly one does.
pub(crate) fn folded_name<'n>(key: &str, names: impl IntoIterator<Item = &'n str>) -> Option<&'n str> {
    // Compared as they fold, so a key sent a megabyte long stops at the first difference.
    let mut matching = names.into_iter().filter(|name| fold_name(name).eq(fold_name(key)));
    match (matching.next(), matching.next()) {
        (Some(name), None) => Some(name),
        _ => None,
    }
}

/// The declared name an unknown key most likely meant, if any is at least half alike.
/// (Public, hidden, for the benchmarks: it is what an unknown key costs.)
pub fn closest_key<'a>(key: &str, declared: &[&'a str]) -> Option<&'a str> {
    thread_local! {
        // The names last prepared on this thread: the keys of one call, and of the calls to
        // one tool, are compared with the same declared names again and again.
        static PREPARED: std::cell::RefCell<Option<Names>> = const { std::cell::RefCell::new(None) };
    }
    PREPARED.with_borrow_mut(|prepared| {
        let names = match prepared {
            Some(names) if names.are(declared) => names,
            _ => prepared.insert(Names::new(declared.iter().copied())),
        };
        names.closest(key, 1, 0.5).first().map(|&best| declared[best])
    })
}

/// The rule of a key that no parameter or field declares.
pub(crate) const UNKNOWN_PARAMETER: &str = "unknown_parameter";

/// The warning for the key `key` at `pointer` that none of `declared` names, naming the closest
/// one; `what` says what the declared names are (`parameters` at the top level, `fields` below).
pub(crate) fn unknown_key(pointer: &str, key: &str, declared: &[&str], what: &str) -> ParseWarning {
    let action = match closest_key(key, declared) {
        Some(best) => format!("ignored; did you mean `{best}`?"),
        None => "ignored".to_owned(),
    };
    let expected = if declared.is_empty() {
        format!("no {what}")
    } else {
        format!("one of the declared {what}: {}", declared.join(", "))
    };
    ParseWarning::new(pointer, UNKNOWN_PARAMETER, expected, &truncate(key), &action)
}

struct Coercer<'a> {
    plan: &'a Plan,
    /// The JSON pointer of the value being converted.
    path: String,
    /// Refuse conversions instead of applying them.
    strict: bool,
    out: Converted,
}

/// Appends a value as JSON text, cut when long, as `received_text` cuts it.
fn push_json(out: &mut String, value: &Value) {
    let start = out.len();
    match Token::of(value) {
        // Scalars written directly: this is on the path of every conversion.
        Some(token) => token.write(out),
        None if value.is_null() => out.push_str("null"),
        None => push_serialized(out, value),
    }
    cut_after(out, start);
}

/// Cuts what was appended after `start` when it is long, as `received_text` cuts it.
#[inline]
fn cut_after(out: &mut String, start: usize) {
    if out.len() - start > RECEIVED_MAX_CHARS {
        cut_long(out, start);
    }
}

#[cold]
#[inline(never)]
fn cut_long(out: &mut String, start: usize) {
    let cut = truncate(&out[start..]);
    out.truncate(start);
    out.push_str(&cut);
}

/// Appends a number as serde_json writes it.
fn push_number(out: &mut String, n: &Number) {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => push_integer(out, u, false),
        (None, Some(i)) => push_integer(out, i.unsigned_abs(), i < 0),
        _ => {
            let _ = write!(out, "{n}");
        }
    }
}

/// Appends an integer's decimal digits, as `Display` (and serde_json) writes them.
fn push_integer(out: &mut String, magnitude: u64, negative: bool) {
    if negative {
        out.push('-');
    }
    out.push_str(itoa::Buffer::new().format(magnitude));
}

/// `str::trim`, with the common case (nothing to trim) decided from the two end bytes.
fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// Appends `text` as a JSON string literal, escaped as serde_json escapes it.
fn push_json_string(out: &mut String, text: &str) {
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        push_serialized(out, text);
        return;
    }
    out.reserve(text.len() + 2);
    out.push('"');
    out.push_str(text);
    out.push('"');
}

/// A value as serde_json writes it, straight after the text so far (no second buffer): lists,
/// objects, and strings that need escapes.
#[cold]
#[inline(never)]
fn push_serialized<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    let mut bytes = std::mem::take(out).into_bytes();
    let _ = serde_json::to_writer(&mut bytes, value);
    // serde_json writes UTF-8, and the text before it was a `String`.
    *out = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// A scalar as it arrived, borrowed: read from the text by the single pass, or a leaf of the
/// tree. Both paths convert it by [`scalar_change`].
#[derive(Clone, Debug)]
pub(crate) enum Token<'a> {
    Bool(bool),
    Number(Number),
    Text(&'a str),
}

impl<'a> Token<'a> {
    /// The value as a token, when it is a scalar (not null, a list or an object).
    pub(crate) fn of(value: &'a Value) -> Option<Token<'a>> {
        match value {
            Value::Bool(b) => Some(Token::Bool(*b)),
            Value::Number(n) => Some(Token::Number(n.clone())),
            Value::String(text) => Some(Token::Text(text)),
            _ => None,
        }
    }

    /// The token as an owned value.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Token::Bool(b) => Value::Bool(*b),
            Token::Number(n) => Value::Number(n.clone()),
            Token::Text(text) => Value::String((*text).to_owned()),
        }
    }

    /// Whether `value` is this token.
    fn is(&self, value: &Value) -> bool {
        match (self, value) {
            (Token::Bool(a), Value::Bool(b)) => a == b,
            (Token::Number(a), Value::Number(b)) => a == b,
            (Token::Text(a), Value::String(b)) => a == b,
            _ => false,
        }
    }

    /// Appends the token as JSON text, cut when long (as a warning's received text).
    fn write_received(&self, out: &mut String) {
        let start = out.len();
        self.write(out);
        cut_after(out, start);
    }

    /// Room for the texts of a warning about this token after its pointer (see
    /// [`texts_capacity`]).
    pub(crate) fn texts_capacity(&self) -> usize {
        texts_capacity(if let Token::Text(text) = self { Some(*text) } else { None })
    }

    /// Appends the token as JSON text (uncut).
    fn write(&self, out: &mut String) {
        match self {
            Token::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Token::Number(n) => push_number(out, n),
            Token::Text(text) => push_json_string(out, text),
        }
    }
}

/// What a converted scalar becomes.
#[derive(Debug)]
pub(crate) enum Scalar<'p> {
    /// Absent: a null word where the type could not hold it as a value.
    Null,
    Bool(bool),
    Number(Number),
    Text(String),
    /// One of an enum's tokens, as the schema declares it.
    Token(&'p Value),
}

impl Scalar<'_> {
    fn into_value(self) -> Value {
        match self {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Number(n) => Value::Number(n),
            Scalar::Text(text) => Value::String(text),
            Scalar::Token(token) => token.clone(),
        }
    }

    /// Appends the value as JSON text, cut when long.
    fn push_json(&self, out: &mut String) {
        let start = out.len();
        match self {
            Scalar::Null => out.push_str("null"),
            Scalar::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Scalar::Number(n) => push_number(out, n),
            Scalar::Text(text) => push_json_string(out, text),
            Scalar::Token(token) => return push_json(out, token),
        }
        cut_after(out, start);
    }
}

/// One scalar conversion: what the token becomes, and the words of its warning.
#[derive(Debug)]
pub(crate) struct Change<'p> {
    pub new: Scalar<'p>,
    pub rule: &'static str,
    pub expected: Cow<'static, str>,
    /// What was done, before the new value: `converted to`.
    verb: &'static str,
}

impl<'p> Change<'p> {
    fn new(new: Scalar<'p>, rule: &'static str, expected: &'static str, verb: &'static str) -> Self {
        Change { new, rule, expected: Cow::Borrowed(expected), verb }
    }

    /// Appends the warning's received and action texts, for the change of `token`, to `out`
    /// (which holds its pointer); returns where each starts.
    pub(crate) fn write(&self, token: &Token<'_>, out: &mut String) -> [usize; 2] {
        write_texts(out, |out| token.write_received(out), |out| self.write_action(out))
    }

    fn write_action(&self, out: &mut String) {
        out.push_str(self.verb);
        out.push(' ');
        self.new.push_json(out);
    }
}

/// Appends a warning's received text (written by `received`, which cuts it when long) and its
/// action (written by `action`) to `out`, which holds its pointer; returns where each starts.
fn write_texts(out: &mut String, received: impl FnOnce(&mut String), action: impl FnOnce(&mut String)) -> [usize; 2] {
    let start = out.len();
    received(out);
    let split = out.len();
    action(out);
    [start, split]
}

/// Room for a warning's texts after its pointer, so that writing them never grows the string:
/// what arrived as JSON (a text's quotes and some escapes: JSON sent as text escapes every
/// quote), and the action, a verb of up to 41 bytes and the new value, about as long as what
/// arrived. `text` is what arrived when it is a string.
fn texts_capacity(text: Option<&str>) -> usize {
    let received = text.map_or(24, |text| text.len() + text.len() / 4 + 2);
    received + 41 + received.max(16)
}

/// The node is a list, an object or an enum with data: its value converts as a whole.
pub(crate) struct Composite;

/// How the scalar `token`, met at node `id`, converts: `Ok(None)` when it stays as it is (the
/// typed read decides), `Err(Composite)` when the node converts whole values instead (a scalar
/// wrapped in a list, JSON text decoded into an object).
pub(crate) fn scalar_change<'p>(
    plan: &'p Plan,
    id: NodeId,
    token: &Token<'_>,
    case_sensitive: bool,
) -> Result<Option<Change<'p>>, Composite> {
    let node = plan.node(id);
    // A null word means "absent" where the declared type could not hold it as a value: any
    // non-string, and enum tokens none of which is that word.
    if let (true, Token::Text(text)) = (node.nullable, token) {
        let tokens = match (&node.tokens, &node.children) {
            (Some(tokens), _) => Some(tokens),
            (None, Children::Variants(variants)) if matches!(variants.tag, Tag::External) => Some(&variants.names),
            _ => None,
        };
        let holds_text = match tokens {
            Some(tokens) => tokens.texts.iter().any(|a| a.eq_ignore_ascii_case(trim(text))),
            None => node.kind == Kind::String,
        };
        if !holds_text && is_null_word(text) {
            return Ok(Some(Change::new(Scalar::Null, "null_literal", "a value or null", "read as absent:")));
        }
    }
    if let Some(tokens) = &node.tokens {
        return Ok(token_change(tokens, token, case_sensitive));
    }
    Ok(match node.kind {
        Kind::Boolean => boolean(token),
        Kind::Integer => integer(token),
        Kind::Number => number(token),
        Kind::String => string(token),
        Kind::Other => None,
        Kind::Array | Kind::Object | Kind::Enum => return Err(Composite),
    })
}

fn boolean(token: &Token<'_>) -> Option<Change<'static>> {
    let (b, rule) = match token {
        Token::Text(text) => {
            let word = trim(text);
            if word.eq_ignore_ascii_case("true") {
                (true, "string_to_boolean")
            } else if word.eq_ignore_ascii_case("false") {
                (false, "string_to_boolean")
            } else {
                return None;
            }
        }
        Token::Number(n) => match n.as_f64() {
            Some(0.0) => (false, "number_to_boolean"),
            Some(1.0) => (true, "number_to_boolean"),
            _ => return None,
        },
        Token::Bool(_) => return None,
    };
    Some(Change::new(Scalar::Bool(b), rule, "a boolean", "converted to"))
}

fn integer(token: &Token<'_>) -> Option<Change<'static>> {
    let (number, rule) = match token {
        Token::Text(text) => {
            // The common case first: integer text (`"42"`, `" +7 "`), read without a float detour.
            let trimmed = trim(text);
            let unsigned = trimmed.strip_prefix('+').unwrap_or(trimmed);
            let exact = match unsigned.parse::<i64>() {
                Ok(i) => Some(Number::from(i)),
                Err(_) => unsigned.parse::<u64>().ok().map(Number::from),
            };
            if let Some(exact) = exact {
                return Some(Change::new(Scalar::Number(exact), "string_to_integer", "an integer", "converted to"));
            }
            (parse_number_text(text)?, "string_to_integer")
        }
        Token::Number(n) if n.is_i64() || n.is_u64() => return None,
        Token::Number(n) => (n.as_f64()?, "float_to_integer"),
        Token::Bool(_) => return None,
    };
    if let Some(exact) = integer_value(number) {
        return Some(Change::new(Scalar::Number(exact), rule, "an integer", "converted to"));
    }
    let truncated = integer_value(number.trunc())?;
    let rule = if matches!(token, Token::Text(_)) { rule } else { "float_truncated" };
    Some(Change::new(Scalar::Number(truncated), rule, "an integer", "truncated to"))
}

fn number(token: &Token<'_>) -> Option<Change<'static>> {
    let Token::Text(text) = token else { return None };
    let f = parse_number_text(text)?;
    let converted = integer_value(f).or_else(|| Number::from_f64(f))?;
    Some(Change::new(Scalar::Number(converted), "string_to_number", "a number", "converted to"))
}

fn string(token: &Token<'_>) -> Option<Change<'static>> {
    let text = match token {
        Token::Bool(b) => b.to_string(),
        Token::Number(n) => n.to_string(),
        Token::Text(_) => return None,
    };
    Some(Change::new(Scalar::Text(text), "literal_to_string", "a string", "kept as the text"))
}

/// An enum token: the same token as text (a number sent as a string or the reverse), or the
/// one token differing only in case.
fn token_change<'p>(tokens: &'p Tokens, token: &Token<'_>, case_sensitive: bool) -> Option<Change<'p>> {
    if tokens.values.iter().any(|value| token.is(value)) {
        return None;
    }
    let number_text;
    let as_text = match token {
        Token::Text(text) => trim(text),
        Token::Number(n) => {
            number_text = n.to_string();
            &number_text
        }
        Token::Bool(b) => {
            if *b {
                "true"
            } else {
                "false"
            }
        }
    };
    let exact: Vec<usize> = (0..tokens.texts.len()).filter(|&i| tokens.texts[i] == as_text).collect();
    let (found, rule) = if exact.len() == 1 {
        (exact[0], "enum_token_retyped")
    } else if case_sensitive {
        return None;
    } else {
        let folded = as_text.to_lowercase();
        let matches: Vec<usize> =
            (0..tokens.texts.len()).filter(|&i| tokens.texts[i].to_lowercase() == folded).collect();
        if matches.len() != 1 {
            return None;
        }
        (matches[0], "enum_case_normalized")
    };
    let expected = Cow::Owned(tokens.expected.clone());
    Some(Change { new: Scalar::Token(&tokens.values[found]), rule, expected, verb: "read as" })
}

impl<'a> Coercer<'a> {
    fn enter(&mut self, segment: &str) {
        pointer::push(&mut self.path, segment);
    }

    fn leave(&mut self) {
        let cut = self.path.rfind('/').unwrap_or(0);
        self.path.truncate(cut);
    }

    /// Replaces `value` with `new` and records the warning; under the strict policy leaves it
    /// and records the refusal instead. Returns whether the value was replaced.
    fn apply(
        &mut self,
        value: &mut Value,
        new: Value,
        rule: &'static str,
        expected: impl Into<Cow<'static, str>>,
        verb: &str,
    ) -> bool {
        let capacity = texts_capacity(if let Value::String(text) = &*value { Some(text.as_str()) } else { None });
        let received = |out: &mut String| push_json(out, value);
        let action = |out: &mut String| {
            out.push_str(verb);
            out.push(' ');
            push_json(out, &new);
        };
        if !self.record(rule, expected.into(), capacity, |out| write_texts(out, received, action)) {
            return false;
        }
        *value = new;
        true
    }

    /// Records the warning for a change at the current path, its texts written after the
    /// pointer by `texts` (in a string of `capacity` more bytes); under the strict policy the
    /// refusal instead. Returns whether the change applies.
    fn record(
        &mut self,
        rule: &'static str,
        expected: Cow<'static, str>,
        capacity: usize,
        texts: impl FnOnce(&mut String) -> [usize; 2],
    ) -> bool {
        let at = pointer::cut(&self.path);
        let mut out = String::with_capacity(at.len() + capacity);
        out.push_str(&at);
        let splits = texts(&mut out);
        let warning = ParseWarning::from_texts(out, splits, rule, expected);
        if self.strict {
            self.out.refused.push(refusal(&warning));
            return false;
        }
        self.out.warnings.push(warning);
        true
    }

    /// `{"arguments": {...}}`, `{"_": {...}}`, or a call's envelope `{"name": "search",
    /// "arguments": {...}}`: when no key is declared and exactly one of them holds an object
    /// (or JSON text of one) with only declared parameters, that object is the real arguments.
    /// The other keys are named in the warning's action, as dropped.
    fn unwrap_wrapper(&mut self, object: &mut Map<String, Value>) {
        if object.is_empty() || object.keys().any(|key| self.plan.declares(key)) {
            return;
        }
        let fits = |inner: &Value| {
            let inner_object = match inner {
                Value::Object(map) => Some(map.clone()),
                Value::String(text) => match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(map)) => Some(map),
                    _ => None,
                },
                _ => None,
            };
            inner_object.filter(|map| !map.is_empty() && map.keys().all(|k| self.plan.declares(k)))
        };
        let mut fitting = object.iter().filter_map(|(key, inner)| fits(inner).map(|map| (key, map)));
        let (Some((key, inner_object)), None) = (fitting.next(), fitting.next()) else { return };
        let key = key.clone();
        let dropped: Vec<String> = object.keys().filter(|k| **k != key).map(|k| format!("`{k}`")).collect();
        let verb = if dropped.is_empty() {
            "used as the arguments:".to_owned()
        } else {
            format!("dropped {}; used as the arguments:", dropped.join(", "))
        };
        self.enter(&key);
        let mut whole = Value::Object(std::mem::take(object));
        let unwrapped = Value::Object(inner_object);
        self.apply(&mut whole, unwrapped, "wrapper_unwrapped", WRAPPER_KEYS_HINT, &verb);
        self.leave();
        if let Value::Object(map) = whole {
            *object = map;
        }
    }

    /// Keys that name a declared parameter but for case and separators (`max_bytes`, `MaxBytes`
    /// or `max-bytes` for `maxBytes`) are read as that parameter, when exactly one parameter
    /// matches and it did not also arrive under its own name.
    ///
    /// Returns the keys whose rename the strict policy refused.
    fn normalize_names<'n>(&mut self, object: &mut Map<String, Value>, names: &[&'n str]) -> HashSet<String> {
        let renames: Vec<(String, &'n str)> = object
            .keys()
            .filter(|key| !names.contains(&key.as_str()))
            .filter_map(|key| {
                let name = folded_name(key, names.iter().copied()).filter(|name| !object.contains_key(*name))?;
                Some((key.clone(), name))
            })
            .collect();
        // Two keys for one parameter (`MaxBytes` and `max_bytes`): neither is renamed.
        let mut keys_for: HashMap<&str, usize> = HashMap::new();
        for (_, name) in &renames {
            *keys_for.entry(name).or_default() += 1;
        }
        let renames: Vec<(String, &'n str)> =
            renames.iter().filter(|(_, name)| keys_for.get(name) == Some(&1)).cloned().collect();
        if renames.is_empty() {
            return HashSet::new();
        }
        let (mut applied, mut refused) = (HashMap::new(), HashSet::new());
        for (key, name) in &renames {
            self.enter(key);
            let expected = format!("the declared name `{name}`");
            let renamed = self.record(NAME_NORMALIZED, expected.into(), key.len() + name.len() + 16, |out| {
                let received = |out: &mut String| {
                    out.push('`');
                    out.push_str(key);
                    out.push('`');
                };
                let action = |out: &mut String| {
                    out.push_str("read as `");
                    out.push_str(name);
                    out.push('`');
                };
                write_texts(out, received, action)
            });
            self.leave();
            if renamed {
                applied.insert(key.as_str(), *name);
            } else {
                refused.insert(key.clone());
            }
        }
        if !applied.is_empty() {
            *object = std::mem::take(object)
                .into_iter()
                .map(|(key, value)| match applied.get(key.as_str()) {
                    Some(name) => ((*name).to_owned(), value),
                    None => (key, value),
                })
                .collect();
        }
        refused
    }

    fn value(&mut self, value: &mut Value, id: NodeId, case_sensitive: bool) {
        let plan = self.plan;
        if let Some(token) = Token::of(value) {
            match scalar_change(plan, id, &token, case_sensitive) {
                Ok(Some(change)) => return self.apply_change(value, change),
                Ok(None) => return,
                Err(Composite) => {}
            }
        }
        let node = plan.node(id);
        if value.is_null() || node.tokens.is_some() {
            return;
        }
        match node.kind {
            Kind::Array => self.array(value, &node.children, case_sensitive),
            Kind::Object => self.object(value, &node.children),
            Kind::Enum => {
                if let Children::Variants(variants) = &node.children {
                    self.variants(value, variants, case_sensitive);
                }
            }
            _ => {}
        }
    }

    /// Converts a scalar `value` to one of `tokens` (see [`token_change`]).
    fn enum_token(&mut self, value: &mut Value, tokens: &Tokens, case_sensitive: bool) {
        let change = Token::of(value).and_then(|token| token_change(tokens, &token, case_sensitive));
        if let Some(change) = change {
            self.apply_change(value, change);
        }
    }

    /// Applies a scalar's `change` to `value`, as [`Coercer::apply`] does.
    fn apply_change(&mut self, value: &mut Value, change: Change<'_>) {
        let Some(token) = Token::of(value) else { return };
        let capacity = token.texts_capacity();
        if self.record(change.rule, change.expected.clone(), capacity, |out| change.write(&token, out)) {
            *value = change.new.into_value();
        }
    }

    fn array(&mut self, value: &mut Value, children: &Children, case_sensitive: bool) {
        match value {
            Value::Array(_) => {}
            Value::String(text) => match decode_text(text) {
                Some(decoded @ Value::Array(_)) => {
                    if !self.decoded(value, decoded) {
                        return;
                    }
                }
                _ => {
                    if !self.wrap(value) {
                        return;
                    }
                }
            },
            Value::Object(_) | Value::Number(_) | Value::Bool(_) => {
                if !self.wrap(value) {
                    return;
                }
            }
            Value::Null => return,
        }
        let Value::Array(items) = value else { return };
        let mut index = String::new();
        for (i, item) in items.iter_mut().enumerate() {
            let item_node = match children {
                Children::Items(id) => *id,
                Children::Prefix(ids) => match ids.get(i) {
                    Some(id) => *id,
                    None => break,
                },
                _ => break,
            };
            index.clear();
            index.push_str(itoa::Buffer::new().format(i));
            self.enter(&index);
            self.value(item, item_node, case_sensitive);
            self.leave();
        }
    }

    /// Replaces JSON text with the `decoded` value, as [`Coercer::apply`] does.
    fn decoded(&mut self, value: &mut Value, decoded: Value) -> bool {
        let Value::String(text) = value else { return false };
        let expected = if decoded.is_array() { "an array" } else { "an object" };
        let capacity = Token::Text(text).texts_capacity();
        if !self.record(DECODED_RULE, Cow::Borrowed(expected), capacity, |out| write_decoded(text, out)) {
            return false;
        }
        *value = decoded;
        true
    }

    fn wrap(&mut self, value: &mut Value) -> bool {
        let wrapped = Value::Array(vec![value.clone()]);
        self.apply(value, wrapped, "scalar_wrapped", "an array", "wrapped in a one-element list:")
    }

    /// Whether the value is an object, once JSON text inside a string is decoded.
    fn decoded_object(&mut self, value: &mut Value) -> bool {
        if let Value::String(text) = value {
            match decode_text(text) {
                Some(decoded @ Value::Object(_)) => return self.decoded(value, decoded),
                _ => return false,
            }
        }
        value.is_object()
    }

    /// An object's fields, converted in the order they arrived. Where the object declares its
    /// fields (a struct, not a map), a key that names one but for case and separators is read as
    /// it, and any other key is dropped (the type would drop it silently), each with a warning.
    fn object(&mut self, value: &mut Value, children: &Children) {
        if !self.decoded_object(value) {
            return;
        }
        let Value::Object(map) = value else { return };
        let Children::Fields { properties, closed, .. } = children else { return };
        let names: Vec<&str> =
            if *closed { properties.iter().map(|(name, ..)| name.as_str()).collect() } else { Vec::new() };
        // A key whose rename the strict policy refused is reported once, as that.
        let refused = if *closed { self.normalize_names(map, &names) } else { HashSet::new() };
        let optional = |key: &str| {
            properties.iter().find(|(name, ..)| name == key).filter(|(.., required)| !required).map(|(_, id, _)| *id)
        };
        let strict = self.strict;
        self.nulls_as_absent(map, optional, |_| strict);
        // One pass that converts the fields and drops the unknown keys, in the order they
        // arrived (removing keys one at a time would move the rest of the map each time).
        map.retain(|key, field| match children.field(key) {
            Some(node) => {
                self.enter(key);
                self.value(field, node, false);
                self.leave();
                true
            }
            None => !(*closed && !refused.contains(key.as_str()) && self.unknown_field(key, &names)),
        });
    }

    /// Records the warning for the key `key` the object at the current path does not declare
    /// (or, under the strict policy, the refusal). Returns whether the key is dropped.
    fn unknown_field(&mut self, key: &str, declared: &[&str]) -> bool {
        self.enter(key);
        let warning = unknown_key(&pointer::cut(&self.path), key, declared, "fields");
        self.leave();
        if self.strict {
            self.out.refused.push(refusal(&warning));
            return false;
        }
        self.out.warnings.push(warning);
        true
    }
}

impl Coercer<'_> {
    /// An enum with data: converted by the variant it names (see [`Variants`]). A variant's name
    /// is a token of the enum, converted at the enum's place whether it arrives as the value or
    /// as the one key of an external tag's object (the single pass reads both the same way).
    fn variants(&mut self, value: &mut Value, variants: &Variants, case_sensitive: bool) {
        let plan = self.plan;
        match &variants.tag {
            Tag::External => {
                if !value.is_object() {
                    self.enum_token(value, &variants.names, case_sensitive);
                    if variants.names.values.contains(value) || !self.decoded_object(value) {
                        return;
                    }
                }
                let Value::Object(map) = value else { return };
                let Some(key) = map.keys().next().filter(|_| map.len() == 1).cloned() else { return };
                let mut name = Value::String(key.clone());
                self.enum_token(&mut name, &variants.names, case_sensitive);
                let Value::String(name) = name else { return };
                if name != key {
                    if let Some(content) = map.remove(&key) {
                        map.insert(name.clone(), content);
                    }
                }
                if let (Some(node), Some(content)) = (variants.variant(&name), map.get_mut(&name)) {
                    self.enter(&name);
                    self.value(content, node, false);
                    self.leave();
                }
            }
            Tag::Field { name: tag, node: tag_node, .. } => {
                if !self.decoded_object(value) {
                    return;
                }
                let Value::Object(map) = value else { return };
                if let Some(tag_value) = map.get_mut(tag) {
                    self.enter(tag);
                    self.value(tag_value, *tag_node, false);
                    self.leave();
                }
                let variant = map.get(tag).and_then(Value::as_str).and_then(|name| variants.variant(name));
                if let Some(node) = variant {
                    self.object(value, &plan.node(node).children);
                }
            }
        }
    }

    /// `null` for an optional field whose type has no null (a defaulted parameter, a
    /// `#[serde(default)]` field): the field is read as absent, so its default applies. OpenAI's
    /// strict mode makes every field required and the optional ones nullable, so this is how
    /// such a model leaves a field out.
    fn nulls_as_absent(
        &mut self,
        map: &mut Map<String, Value>,
        optional: impl Fn(&str) -> Option<NodeId>,
        strict_of: impl Fn(&str) -> bool,
    ) {
        let plan = self.plan;
        let absent: Vec<String> = map
            .iter()
            .filter(|(key, value)| {
                value.is_null()
                    && optional(key).is_some_and(|id| !plan.node(id).nullable && plan.node(id).kind != Kind::Other)
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in absent {
            self.enter(&key);
            let action = "removed the field: it is optional, so it is read as absent and its default applies";
            let texts = |out: &mut String| write_texts(out, |out| out.push_str("null"), |out| out.push_str(action));
            let expected = Cow::Borrowed("a value, or the field left out");
            let strict = std::mem::replace(&mut self.strict, strict_of(&key));
            if self.record("null_as_absent", expected, 4 + action.len(), texts) {
                map.remove(&key);
            }
            self.strict = strict;
            self.leave();
        }
    }
}

/// `null`, `None`, `nil` or an empty string, standing for "no value".
fn is_null_word(text: &str) -> bool {
    matches!(trim(text).to_ascii_lowercase().as_str(), "" | "null" | "none" | "nil")
}

/// A number written as text: `42`, ` 42 `, `+7`, `1e3`, `-2.5`. Infinities and NaN are not numbers.
fn parse_number_text(text: &str) -> Option<f64> {
    let trimmed = trim(text);
    let unsigned = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if unsigned.is_empty()
        || !unsigned.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
    {
        return None;
    }
    unsigned.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// An integral float as a JSON integer, when it fits 64 bits.
fn integer_value(f: f64) -> Option<Number> {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if !f.is_finite() || f.fract() != 0.0 {
        return None;
    }
    if (-LIMIT..LIMIT).contains(&f) {
        // Exact: |f| < 2^63 and integral.
        #[allow(clippy::cast_possible_truncation)]
        return Some(Number::from(f as i64));
    }
    if (0.0..2.0 * LIMIT).contains(&f) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return Some(Number::from(f as u64));
    }
    None
}

/// Under the strict policy, the change lenient extraction would have made (its `warning`), as
/// an error that says so.
#[cold]
pub(crate) fn refusal(warning: &ParseWarning) -> ArgumentError {
    ArgumentError {
        pointer: warning.pointer().to_owned(),
        rule: warning.rule().to_owned(),
        expected: warning.expected().to_owned(),
        received: Some(warning.received().to_owned()),
        detail: format!("refused by the strict policy; lenient extraction would have {}", warning.action()),
    }
}

/// The rule of JSON text inside a string, decoded.
pub(crate) const DECODED_RULE: &str = "json_string_decoded";

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
fn decode_text(text: &str) -> Option<Value> {
    let trimmed = trim(text);
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value) => Some(value),
        Err(_) => crate::extract::repair::parse_tolerant(trimmed).ok().map(|tolerant| tolerant.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_closest_key_is_taken_from_the_declared_names_given_not_from_those_prepared_before() {
        assert_eq!(closest_key("lnaguage", &["query", "language", "limit"]), Some("language"));
        assert_eq!(closest_key("lnaguage", &["query", "language", "limit"]), Some("language"));
        assert_eq!(closest_key("lnaguage", &["query", "languages", "limit"]), Some("languages"));
        assert_eq!(closest_key("lnaguage", &["query", "limit"]), None);
        assert_eq!(closest_key("qurey", &["query", "limit"]), Some("query"));
        assert_eq!(closest_key("qurey", &[]), None);
    }

    /// Converts `{"p": input}` against a one-property schema; returns the value and the
    /// (pointer, rule) of each warning.
    fn convert(property: Value, input: Value) -> (Value, Vec<(String, String)>) {
        convert_with_defs(property, json!({}), input)
    }

    /// [`convert`], with `$defs` the property's references resolve against.
    fn convert_with_defs(property: Value, defs: Value, input: Value) -> (Value, Vec<(String, String)>) {
        let schema = json!({"type": "object", "properties": {"p": property}, "required": ["p"], "$defs": defs});
        let mut object = Map::from_iter([("p".to_owned(), input)]);
        let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
        (
            object.remove("p").unwrap_or(Value::Null),
            warnings.into_iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect(),
        )
    }

    fn rule(rule: &str) -> Vec<(String, String)> {
        vec![("/p".to_owned(), rule.to_owned())]
    }

    #[test]
    fn null_for_an_optional_field_without_null_is_removed_and_a_nullable_one_keeps_it() {
        let object = json!({"type": "object", "properties": {
            "defaulted": {"type": "integer"},
            "optional": {"type": ["integer", "null"]},
            "needed": {"type": "integer"},
            "anything": {},
        }, "required": ["needed"]});
        assert_eq!(
            convert(object, json!({"defaulted": null, "optional": null, "needed": null, "anything": null})),
            (
                json!({"optional": null, "needed": null, "anything": null}),
                vec![("/p/defaulted".to_owned(), "null_as_absent".to_owned())]
            )
        );
    }

    #[test]
    fn booleans_from_text_in_any_case_and_from_zero_or_one() {
        let b = json!({"type": "boolean"});
        assert_eq!(convert(b.clone(), json!(" TRUE ")), (json!(true), rule("string_to_boolean")));
        assert_eq!(convert(b.clone(), json!("false")), (json!(false), rule("string_to_boolean")));
        assert_eq!(convert(b.clone(), json!(1)), (json!(true), rule("number_to_boolean")));
        assert_eq!(convert(b.clone(), json!(0)), (json!(false), rule("number_to_boolean")));
        assert_eq!(convert(b.clone(), json!("yes")), (json!("yes"), vec![]));
        assert_eq!(convert(b, json!(2)), (json!(2), vec![]));
    }

    #[test]
    fn integers_from_text_integral_floats_and_truncated_floats() {
        let i = json!({"type": "integer", "format": "uint32", "minimum": 0});
        assert_eq!(convert(i.clone(), json!("42")), (json!(42), rule("string_to_integer")));
        assert_eq!(convert(i.clone(), json!(" 42 ")), (json!(42), rule("string_to_integer")));
        assert_eq!(convert(i.clone(), json!("+7")), (json!(7), rule("string_to_integer")));
        assert_eq!(convert(i.clone(), json!("1e3")), (json!(1000), rule("string_to_integer")));
        assert_eq!(convert(i.clone(), json!(3.0)), (json!(3), rule("float_to_integer")));
        assert_eq!(convert(i.clone(), json!(3.7)), (json!(3), rule("float_truncated")));
        assert_eq!(convert(i.clone(), json!(-3.7)), (json!(-3), rule("float_truncated")));
        assert_eq!(convert(i.clone(), json!("3.7")), (json!(3), rule("string_to_integer")));
        assert_eq!(convert(i.clone(), json!("many")), (json!("many"), vec![]));
        assert_eq!(convert(i.clone(), json!("inf")), (json!("inf"), vec![]));
        assert_eq!(
            convert(i, json!(1e300)),
            (json!(1e300), vec![]),
            "out of any integer range: left for the typed read"
        );
    }

    #[test]
    fn numbers_from_text_but_not_infinity_or_nan() {
        let n = json!({"type": "number"});
        assert_eq!(convert(n.clone(), json!("2.5")), (json!(2.5), rule("string_to_number")));
        assert_eq!(convert(n.clone(), json!("-4")), (json!(-4), rule("string_to_number")));
        assert_eq!(convert(n.clone(), json!("nan")), (json!("nan"), vec![]));
        assert_eq!(convert(n, json!("inf")), (json!("inf"), vec![]));
    }

    #[test]
    fn strings_keep_literal_text_and_are_never_promoted() {
        let s = json!({"type": "string"});
        assert_eq!(convert(s.clone(), json!(true)), (json!("true"), rule("literal_to_string")));
        assert_eq!(convert(s.clone(), json!(42)), (json!("42"), rule("literal_to_string")));
        assert_eq!(convert(s.clone(), json!(2.5)), (json!("2.5"), rule("literal_to_string")));
        assert_eq!(convert(s.clone(), json!("true")), (json!("true"), vec![]));
        assert_eq!(convert(s, json!("null")), (json!("null"), vec![]));
    }

    #[test]
    fn null_words_mean_absent_only_for_non_string_optionals() {
        let opt_int = json!({"type": ["integer", "null"]});
        assert_eq!(convert(opt_int.clone(), json!("None")), (Value::Null, rule("null_literal")));
        assert_eq!(convert(opt_int.clone(), json!("null")), (Value::Null, rule("null_literal")));
        assert_eq!(convert(opt_int, json!("")), (Value::Null, rule("null_literal")));
        let opt_str = json!({"type": ["string", "null"]});
        assert_eq!(convert(opt_str, json!("None")), (json!("None"), vec![]));
        assert_eq!(convert(json!({"type": "integer"}), json!("None")), (json!("None"), vec![]), "not optional");
    }

    #[test]
    fn null_words_mean_absent_for_optional_enums_unless_a_token_is_that_word() {
        let opt_enum = json!({"anyOf": [{"type": "string", "enum": ["low", "high"]}, {"type": "null"}]});
        assert_eq!(convert(opt_enum, json!("None")), (Value::Null, rule("null_literal")));
        let with_none = json!({"anyOf": [{"type": "string", "enum": ["none", "all"]}, {"type": "null"}]});
        assert_eq!(convert(with_none, json!("None")), (json!("none"), rule("enum_case_normalized")));
    }

    #[test]
    fn lists_decode_json_text_and_wrap_scalars_then_convert_elements() {
        let list = json!({"type": "array", "items": {"type": "integer"}});
        assert_eq!(
            convert(list.clone(), json!("[1, \"2\"]")),
            (
                json!([1, 2]),
                vec![("/p".into(), "json_string_decoded".into()), ("/p/1".into(), "string_to_integer".into())]
            )
        );
        assert_eq!(convert(list.clone(), json!(5)), (json!([5]), rule("scalar_wrapped")));
        assert_eq!(
            convert(list, json!("7")),
            (json!([7]), vec![("/p".into(), "scalar_wrapped".into()), ("/p/0".into(), "string_to_integer".into())])
        );
        let strings = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(convert(strings.clone(), json!("foo")), (json!(["foo"]), rule("scalar_wrapped")));
        assert_eq!(convert(strings, json!("[\"u1\",\"u2\"]")), (json!(["u1", "u2"]), rule("json_string_decoded")));
    }

    #[test]
    fn objects_and_maps_decode_json_and_python_text_and_convert_fields() {
        let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
        assert_eq!(
            convert(map.clone(), json!("{\"User-Agent\":\"x\"}")),
            (json!({"User-Agent": "x"}), rule("json_string_decoded"))
        );
        assert_eq!(
            convert(map, json!("{'a': 1}")),
            (
                json!({"a": "1"}),
                vec![("/p".into(), "json_string_decoded".into()), ("/p/a".into(), "literal_to_string".into())]
            )
        );
        let object = json!({"type": "object", "properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}}});
        assert_eq!(
            convert(object, json!({"n": "3", "b": "TRUE"})),
            (
                json!({"n": 3, "b": true}),
                vec![("/p/n".into(), "string_to_integer".into()), ("/p/b".into(), "string_to_boolean".into())]
            )
        );
    }

    #[test]
    fn map_values_are_converted_by_the_property_else_the_first_pattern_their_key_matches() {
        // schemars writes `BTreeMap<u32, _>` as `^\d+$` and `BTreeMap<i64, _>` as `^-?\d+$`.
        let map = json!({
            "type": "object",
            "properties": {"7": {"type": "string"}},
            "patternProperties": {"^\\d+$": {"type": "integer"}, "^-?\\d+$": {"type": "boolean"}, "x(": {"type": "boolean"}},
            "additionalProperties": {"type": "number"}
        });
        assert_eq!(
            convert(map, json!({"7": 7, "3": "4", "-1": "TRUE", "x": "2.5"})),
            (
                json!({"7": "7", "3": 4, "-1": true, "x": 2.5}),
                vec![
                    ("/p/7".into(), "literal_to_string".into()),
                    ("/p/3".into(), "string_to_integer".into()),
                    ("/p/-1".into(), "string_to_boolean".into()),
                    ("/p/x".into(), "string_to_number".into()),
                ]
            ),
            "a pattern that does not compile (`x(`) is ignored"
        );
    }

    fn warned(warnings: &[(&str, &str)]) -> Vec<(String, String)> {
        warnings.iter().map(|(pointer, rule)| ((*pointer).to_owned(), (*rule).to_owned())).collect()
    }

    /// An externally tagged enum as schemars writes it: `Asap`, `Within { hours: u32 }`, `Slot(u32)`.
    fn external_enum() -> Value {
        json!({"oneOf": [
            {"type": "string", "enum": ["asap"]},
            {
                "type": "object",
                "properties": {"within": {
                    "type": "object", "properties": {"hours": {"type": "integer"}}, "required": ["hours"]
                }},
                "required": ["within"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"slot": {"type": "integer"}},
                "required": ["slot"],
                "additionalProperties": false
            }
        ]})
    }

    #[test]
    fn an_externally_tagged_enum_converts_its_token_its_one_key_and_the_content_under_it() {
        let e = external_enum();
        assert_eq!(
            convert(e.clone(), json!({"within": {"hours": "4"}})),
            (json!({"within": {"hours": 4}}), warned(&[("/p/within/hours", "string_to_integer")]))
        );
        assert_eq!(
            convert(e.clone(), json!({"Slot": "2"})),
            (json!({"slot": 2}), warned(&[("/p", "enum_case_normalized"), ("/p/slot", "string_to_integer")]))
        );
        assert_eq!(convert(e.clone(), json!("ASAP")), (json!("asap"), rule("enum_case_normalized")));
        assert_eq!(
            convert(e.clone(), json!("{\"slot\": \"2\"}")),
            (json!({"slot": 2}), warned(&[("/p", "json_string_decoded"), ("/p/slot", "string_to_integer")]))
        );
        // Not one key, or a key naming no variant: which variant it is would be a guess.
        let two = json!({"slot": "2", "within": {"hours": "4"}});
        assert_eq!(convert(e.clone(), two.clone()), (two, vec![]));
        assert_eq!(convert(e.clone(), json!({"later": "2"})), (json!({"later": "2"}), vec![]));
        // An enum takes no `null`: for an optional field without one, it means absent.
        let optional = json!({"type": "object", "properties": {"w": e}});
        assert_eq!(convert(optional, json!({"w": null})), (json!({}), warned(&[("/p/w", "null_as_absent")])));
    }

    #[test]
    fn a_variant_name_is_normalised_only_when_one_name_matches_and_not_for_a_case_sensitive_parameter() {
        let e = json!({"oneOf": [
            {"type": "string", "const": "ab"},
            {"type": "object", "properties": {"AB": {"type": "integer"}}, "required": ["AB"], "additionalProperties": false}
        ]});
        assert_eq!(convert(e.clone(), json!({"Ab": "1"})), (json!({"Ab": "1"}), vec![]), "two names fold to it");
        assert_eq!(convert(e, json!({"AB": "1"})), (json!({"AB": 1}), warned(&[("/p/AB", "string_to_integer")])));

        let schema = json!({"type": "object", "properties": {"p": external_enum()}});
        let parameter = ToolParameter {
            name: "p".into(),
            value_kind: crate::ValueKind::Any,
            cardinality: crate::Cardinality::Single,
            required: true,
            description: String::new(),
            enum_constraint: Some(crate::EnumConstraint { allowed_values: vec![], case_sensitive: true }),
            example: None,
            default: None,
            strict: false,
        };
        let mut object = Map::from_iter([("p".to_owned(), json!({"SLOT": "2"}))]);
        assert!(coerce_arguments(&mut object, &Plan::compile(&schema), &[parameter], false).warnings.is_empty());
        assert_eq!(object["p"], json!({"SLOT": "2"}));
    }

    #[test]
    fn a_tagged_enum_is_converted_by_the_variant_its_tag_names() {
        // `#[serde(tag = "type")]` with `Within { hours: u32 }` and `Boxed(Inner)`, and
        // `#[serde(tag = "t", content = "c")]` with `Slot(u32)`, as schemars writes them.
        let defs = json!({"Inner": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}});
        let internal = json!({"oneOf": [
            {"type": "object", "properties": {"type": {"type": "string", "const": "asap"}}, "required": ["type"]},
            {
                "type": "object",
                "properties": {"type": {"type": "string", "const": "within"}, "hours": {"type": "integer"}},
                "required": ["type", "hours"]
            },
            {
                "type": "object",
                "properties": {"type": {"type": "string", "const": "boxed"}},
                "$ref": "#/$defs/Inner",
                "required": ["type"]
            }
        ]});
        assert_eq!(
            convert_with_defs(internal.clone(), defs.clone(), json!({"hours": "4", "type": "Within"})),
            (
                json!({"hours": 4, "type": "within"}),
                warned(&[("/p/type", "enum_case_normalized"), ("/p/hours", "string_to_integer")])
            )
        );
        assert_eq!(
            convert_with_defs(internal.clone(), defs.clone(), json!({"type": "boxed", "n": 2.0})),
            (json!({"type": "boxed", "n": 2}), warned(&[("/p/n", "float_to_integer")]))
        );
        let unknown = json!({"type": "later", "hours": "4"});
        assert_eq!(convert_with_defs(internal, defs, unknown.clone()), (unknown, vec![]));

        let adjacent = json!({"oneOf": [
            {"type": "object", "properties": {"t": {"type": "string", "const": "asap"}}, "required": ["t"]},
            {
                "type": "object",
                "properties": {"t": {"type": "string", "const": "slot"}, "c": {"type": "integer"}},
                "required": ["t", "c"]
            }
        ]});
        assert_eq!(
            convert(adjacent, json!({"c": "3", "t": "SLOT"})),
            (json!({"c": 3, "t": "slot"}), warned(&[("/p/t", "enum_case_normalized"), ("/p/c", "string_to_integer")]))
        );
    }

    #[test]
    fn untagged_enums_and_objects_without_a_common_tag_are_not_variants() {
        // `#[serde(untagged)]`: schemars writes `anyOf`, and which branch a value is is a guess.
        let untagged = json!({"anyOf": [
            {"type": "integer"},
            {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": false}
        ]});
        assert_eq!(convert(untagged, json!({"x": "1"})), (json!({"x": "1"}), vec![]));
        let no_tag = json!({"oneOf": [
            {"type": "object", "properties": {"k": {"type": "string", "const": "a"}, "n": {"type": "integer"}}},
            {"type": "object", "properties": {"k": {"type": "string", "const": "b"}}, "required": ["k"]}
        ]});
        assert_eq!(convert(no_tag, json!({"k": "a", "n": "1"})), (json!({"k": "a", "n": "1"}), vec![]), "not required");
    }

    #[test]
    fn enum_tokens_are_normalised_only_when_unambiguous() {
        let e = json!({"type": "string", "enum": ["customer", "partner", "Partner"]});
        assert_eq!(convert(e.clone(), json!("Customer")), (json!("customer"), rule("enum_case_normalized")));
        assert_eq!(convert(e.clone(), json!("PARTNER")), (json!("PARTNER"), vec![]), "two tokens fold to it");
        assert_eq!(convert(e, json!("vendor")), (json!("vendor"), vec![]));
        let numbered = json!({"oneOf": [{"const": 1}, {"const": 2}]});
        assert_eq!(convert(numbered, json!("2")), (json!(2), rule("enum_token_retyped")));
    }

    #[test]
    fn case_sensitive_parameters_keep_their_case() {
        let schema = json!({"type": "object", "properties": {"p": {"type": "string", "enum": ["low"]}}});
        let parameter = ToolParameter {
            name: "p".into(),
            value_kind: crate::ValueKind::EnumToken,
            cardinality: crate::Cardinality::Single,
            required: true,
            description: String::new(),
            enum_constraint: Some(crate::EnumConstraint { allowed_values: vec!["low".into()], case_sensitive: true }),
            example: None,
            default: None,
            strict: false,
        };
        let mut object = Map::from_iter([("p".to_owned(), json!("LOW"))]);
        assert!(coerce_arguments(&mut object, &Plan::compile(&schema), &[parameter], false).warnings.is_empty());
        assert_eq!(object["p"], json!("LOW"));
    }

    #[test]
    fn a_single_wrapper_key_is_unwrapped_when_its_content_fits() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}});
        for wrapper in ["_", "arguments", "input"] {
            let mut object = Map::from_iter([(wrapper.to_owned(), json!({"path": "a.md", "n": "2"}))]);
            let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
            assert_eq!(Value::Object(object), json!({"path": "a.md", "n": 2}));
            let rules: Vec<(&str, &str)> = warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
            assert_eq!(rules, vec![(format!("/{wrapper}").as_str(), "wrapper_unwrapped"), ("/n", "string_to_integer")]);
        }
        let mut unrelated = Map::from_iter([("other".to_owned(), json!({"x": 1}))]);
        assert!(coerce_arguments(&mut unrelated, &Plan::compile(&schema), &[], false).warnings.is_empty());
        assert_eq!(unrelated["other"], json!({"x": 1}));
    }

    #[test]
    fn references_and_nullable_references_are_followed() {
        let schema = json!({
            "type": "object",
            "properties": {"p": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]}},
            "$defs": {"Mode": {"type": "string", "enum": ["fast", "slow"]}}
        });
        let mut object = Map::from_iter([("p".to_owned(), json!("FAST"))]);
        let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
        assert_eq!(object["p"], json!("fast"));
        assert_eq!(warnings[0].rule(), "enum_case_normalized");
        assert_eq!(warnings[0].expected(), "one of: `fast`, `slow`");
        assert_eq!(warnings[0].received(), "\"FAST\"");
    }

    #[test]
    fn received_text_is_written_as_serde_json_writes_it() {
        let texts = [
            "plain",
            "quote \" and \\ slash",
            "tab\tnew\nline\r",
            "\u{1}\u{1f}\u{7f}",
            "\u{8}\u{c} back",
            "é 店 🦀",
            "\"",
            "",
        ];
        let mut values: Vec<Value> = texts.iter().map(|t| json!(t)).collect();
        values.extend([json!(null), json!(true), json!(false), json!(-3), json!(2.5), json!(1e300), json!([1, "a"])]);
        values.extend([json!(0), json!(u64::MAX), json!(i64::MIN), json!(-1), json!(4211)]);
        for value in values {
            let mut out = String::new();
            push_json(&mut out, &value);
            assert_eq!(out, value.to_string());
        }
        let long = json!("x".repeat(300));
        let mut out = String::new();
        push_json(&mut out, &long);
        assert_eq!(out, crate::model::received_text(&long));
    }

    #[test]
    fn recursive_types_convert_at_every_depth() {
        let schema = json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
            }}
        });
        let mut object =
            Map::from_iter([("p".to_owned(), json!({"n": "1", "kids": [{"n": "2", "kids": "[{\"n\": 3.0}]"}]}))]);
        let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
        assert_eq!(object["p"], json!({"n": 1, "kids": [{"n": 2, "kids": [{"n": 3}]}]}));
        let rules: Vec<(&str, &str)> = warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
        assert_eq!(
            rules,
            vec![
                ("/p/n", "string_to_integer"),
                ("/p/kids/0/n", "string_to_integer"),
                ("/p/kids/0/kids", "json_string_decoded"),
                ("/p/kids/0/kids/0/n", "float_to_integer"),
            ]
        );
    }
}
