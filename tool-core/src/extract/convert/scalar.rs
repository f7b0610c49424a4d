//! One scalar converted by its schema node: a boolean, number or string in the wrong form, a
//! null word for "absent", an enum token in the wrong case or type. The tree and the single
//! pass both convert scalars here.

use std::borrow::Cow;

use serde_json::{Number, Value};

use super::text::{cut_after, push_json_string, push_number, push_serialized, texts_capacity, trim, write_texts};
use crate::model::rules;
use crate::schema::plan::{Children, Kind, NodeId, Plan, Tag, Tokens};

/// Appends a value as JSON text, cut when long, as `received_text` cuts it.
pub(super) fn push_json(out: &mut String, value: &Value) {
    let start = out.len();
    match Token::of(value) {
        // Scalars written directly: this is on the path of every conversion.
        Some(token) => token.write(out),
        None if value.is_null() => out.push_str("null"),
        None => push_serialized(out, value),
    }
    cut_after(out, start);
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
    pub(super) fn write_received(&self, out: &mut String) {
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
    pub(super) fn into_value(self) -> Value {
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
            return Ok(Some(Change::new(Scalar::Null, rules::NULL_LITERAL, "a value or null", "read as absent:")));
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
                (true, rules::STRING_TO_BOOLEAN)
            } else if word.eq_ignore_ascii_case("false") {
                (false, rules::STRING_TO_BOOLEAN)
            } else {
                return None;
            }
        }
        Token::Number(n) => match n.as_f64() {
            Some(0.0) => (false, rules::NUMBER_TO_BOOLEAN),
            Some(1.0) => (true, rules::NUMBER_TO_BOOLEAN),
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
                return Some(Change::new(
                    Scalar::Number(exact),
                    rules::STRING_TO_INTEGER,
                    "an integer",
                    "converted to",
                ));
            }
            (parse_number_text(text)?, rules::STRING_TO_INTEGER)
        }
        Token::Number(n) if n.is_i64() || n.is_u64() => return None,
        Token::Number(n) => (n.as_f64()?, rules::FLOAT_TO_INTEGER),
        Token::Bool(_) => return None,
    };
    if let Some(exact) = integer_value(number) {
        return Some(Change::new(Scalar::Number(exact), rule, "an integer", "converted to"));
    }
    let truncated = integer_value(number.trunc())?;
    let rule = if matches!(token, Token::Text(_)) { rule } else { rules::FLOAT_TRUNCATED };
    Some(Change::new(Scalar::Number(truncated), rule, "an integer", "truncated to"))
}

fn number(token: &Token<'_>) -> Option<Change<'static>> {
    let Token::Text(text) = token else { return None };
    let f = parse_number_text(text)?;
    let converted = integer_value(f).or_else(|| Number::from_f64(f))?;
    Some(Change::new(Scalar::Number(converted), rules::STRING_TO_NUMBER, "a number", "converted to"))
}

fn string(token: &Token<'_>) -> Option<Change<'static>> {
    let text = match token {
        Token::Bool(b) => b.to_string(),
        Token::Number(n) => n.to_string(),
        Token::Text(_) => return None,
    };
    Some(Change::new(Scalar::Text(text), rules::LITERAL_TO_STRING, "a string", "kept as the text"))
}

/// An enum token: the same token as text (a number sent as a string or the reverse), or the
/// one token differing only in case.
pub(super) fn token_change<'p>(tokens: &'p Tokens, token: &Token<'_>, case_sensitive: bool) -> Option<Change<'p>> {
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
        (exact[0], rules::ENUM_TOKEN_RETYPED)
    } else if case_sensitive {
        return None;
    } else {
        let folded = as_text.to_lowercase();
        let matches: Vec<usize> =
            (0..tokens.texts.len()).filter(|&i| tokens.texts[i].to_lowercase() == folded).collect();
        if matches.len() != 1 {
            return None;
        }
        (matches[0], rules::ENUM_CASE_NORMALIZED)
    };
    let expected = Cow::Owned(tokens.expected.clone());
    Some(Change { new: Scalar::Token(&tokens.values[found]), rule, expected, verb: "read as" })
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
