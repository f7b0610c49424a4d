//! Repair of the raw arguments text, before any declared type is consulted.
//!
//! Models send arguments that are almost JSON: wrapped in a markdown code fence, followed by a
//! special token, sent twice, encoded twice, written as a Python literal, with a trailing comma
//! or a Windows path's backslashes. [`repair_arguments`] reads all of these, cheapest first (a
//! strict `serde_json` parse, and repairs only when that fails), and records each repair as a
//! [`ParseWarning`]. What it cannot read without guessing is an [`ArgumentError`] that keeps
//! the raw text.
//!
//! The tolerant parser, [`parse_tolerant`], is hand-written: linear in the input, no
//! backtracking, nesting capped at [`MAX_DEPTH`], and it never panics.

use serde_json::{Map, Value};

use super::duplicates::{duplicate_key_warnings, duplicate_warning};
use crate::model::pointer;
use crate::model::{received_text, truncate, ArgumentError, ParseWarning};

/// The deepest nesting of arrays and objects [`parse_tolerant`] reads.
const MAX_DEPTH: usize = 128;

/// What the arguments must be, in the model's words.
const EXPECTED: &str = "a JSON object";

/// The rule of a number literal no 64-bit float holds (`1e400`), kept as its text.
pub(crate) const NUMBER_OUT_OF_RANGE: &str = "number_out_of_range";

/// What a number literal must be to be read as a number.
const OUT_OF_RANGE_EXPECTED: &str = "a number within ±1.7976931348623157e308";

/// One thing the tolerant parser had to accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tolerance {
    /// A string (or key) in single quotes.
    SingleQuotes,
    /// `True`, `False` or `None`.
    PythonLiteral,
    /// A comma after the last element of an object or array.
    TrailingComma,
    /// A backslash that starts no valid JSON escape, kept as a literal backslash.
    InvalidEscape,
    /// The escape `\'` inside a double-quoted string, read as `'` (as Python and JavaScript do).
    EscapedSingleQuote,
    /// A line break, tab or other control character written raw inside a string, read as itself
    /// (as Python's `json.loads(strict=False)` does).
    RawControlCharacter,
    /// An object key without quotes (`{path: "a"}`, JavaScript's object literal), an identifier.
    UnquotedKey,
    /// A `// line` or `/* block */` comment between tokens.
    Comment,
}

impl Tolerance {
    /// The stable rule id of the warning.
    pub(crate) fn rule(self) -> &'static str {
        match self {
            Tolerance::SingleQuotes | Tolerance::PythonLiteral => "python_literal",
            Tolerance::TrailingComma => "trailing_comma_removed",
            Tolerance::InvalidEscape | Tolerance::EscapedSingleQuote => "invalid_escape_repaired",
            Tolerance::RawControlCharacter => "raw_control_character",
            Tolerance::UnquotedKey => "unquoted_key",
            Tolerance::Comment => "comment_removed",
        }
    }

    /// What was done about it.
    pub(crate) fn action(self) -> &'static str {
        match self {
            Tolerance::SingleQuotes => "read single-quoted strings as JSON strings",
            Tolerance::PythonLiteral => "read Python's True, False and None as true, false and null",
            Tolerance::TrailingComma => "removed the comma after the last element",
            Tolerance::InvalidEscape => "kept each backslash that starts no valid JSON escape as a literal backslash",
            Tolerance::EscapedSingleQuote => "read the escape `\\'` as a single quote",
            Tolerance::RawControlCharacter => {
                "read the line breaks, tabs and other control characters written raw inside strings as themselves"
            }
            Tolerance::UnquotedKey => "read keys written without quotes as strings",
            Tolerance::Comment => "removed the comments",
        }
    }
}

/// A value the tolerant parser read, and what it had to accept to read it.
#[derive(Debug)]
pub(crate) struct Tolerant {
    /// The value.
    pub value: Value,
    /// Each tolerance once, in the order first seen.
    pub tolerances: Vec<Tolerance>,
    /// Keys met twice in one object.
    pub duplicates: Vec<ParseWarning>,
}

/// Why the tolerant parser could not read a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TolerantError {
    /// The text ends inside a value.
    Truncated {
        /// What was being read and where the text ends.
        message: String,
    },
    /// Anything else.
    Syntax {
        /// What was expected, what was found, and where.
        message: String,
    },
}

impl TolerantError {
    fn rule(&self) -> &'static str {
        match self {
            TolerantError::Truncated { .. } => "truncated_json",
            TolerantError::Syntax { .. } => "invalid_json",
        }
    }

    fn message(&self) -> &str {
        match self {
            TolerantError::Truncated { message } | TolerantError::Syntax { message } => message,
        }
    }
}

/// Parses one JSON value tolerantly: standard JSON, plus Python-literal style (single-quoted
/// strings, True/False/None), trailing commas in objects/arrays, and invalid backslash escapes
/// inside strings (a backslash not starting a valid JSON escape is kept as a literal backslash,
/// e.g. Windows paths `"E:\Chat gpt\a.md"`). Rejects everything else, e.g. `{"a":"b",c":"d"}`
/// (never guess), and reports truncation (input ends inside a value) as `Truncated`.
pub(crate) fn parse_tolerant(text: &str) -> Result<Tolerant, TolerantError> {
    let mut parser = Parser::new(text);
    let value = parser.value(0)?;
    parser.skip_whitespace();
    if !parser.at_end() {
        return Err(parser.unexpected("the end of the text after the value"));
    }
    Ok(Tolerant { value, tolerances: parser.tolerances, duplicates: parser.duplicates })
}

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
        let warning = warning(raw, "empty_arguments", "read as an empty object `{}`".to_owned());
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
            rule: "multiple_objects".into(),
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
            "byte_order_mark_removed",
            "removed the byte order mark (U+FEFF) before the arguments".into(),
        ));
    }
    if fenced || fence_closed {
        warnings.push(warning(
            raw,
            "code_fence_removed",
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
        warnings.push(warning(raw, "special_token_removed", action));
    }
    if objects > 1 {
        let action = format!("read the first of {objects} identical objects sent one after another");
        warnings.push(warning(raw, "identical_objects_merged", action));
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
                    warnings.push(warning(raw, "double_encoded_arguments", action.into()));
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
        rule: "not_an_object".into(),
        expected: EXPECTED.into(),
        received: Some(received_text(value)),
        detail: format!("the arguments are {kind}, not an object"),
    }
}

/// The tolerant parser: a cursor over the text and the tolerances seen so far.
struct Parser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    tolerances: Vec<Tolerance>,
    /// The JSON pointer of the value being read.
    path: String,
    /// Keys met twice in one object (the last value is kept).
    duplicates: Vec<ParseWarning>,
    /// Numbers no 64-bit float holds (`1e400`), each kept as its text (see [`Parser::number`]).
    out_of_range: Vec<ParseWarning>,
}

/// The literal words a value may be, and whether each is Python's spelling.
const WORDS: [(&str, Value, bool); 6] = [
    ("true", Value::Bool(true), false),
    ("false", Value::Bool(false), false),
    ("null", Value::Null, false),
    ("True", Value::Bool(true), true),
    ("False", Value::Bool(false), true),
    ("None", Value::Null, true),
];

/// Four hex digits of a `\u` escape.
enum Hex {
    Value(u32),
    Truncated,
    Invalid,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            tolerances: Vec::new(),
            path: String::new(),
            duplicates: Vec::new(),
            out_of_range: Vec::new(),
        }
    }

    fn note(&mut self, tolerance: Tolerance) {
        if !self.tolerances.contains(&tolerance) {
            self.tolerances.push(tolerance);
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn rest(&self) -> &'t str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn eat(&mut self, literal: &str) -> bool {
        let found = self.rest().starts_with(literal);
        if found {
            self.pos += literal.len();
        }
        found
    }

    /// Skips whitespace and comments (`// line`, `/* block */`; an unclosed block comment runs
    /// to the end of the text).
    fn skip_whitespace(&mut self) {
        loop {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
                self.pos += 1;
            }
            let rest = self.rest();
            let comment = if rest.starts_with("//") {
                rest.find('\n').unwrap_or(rest.len())
            } else if let Some(body) = rest.strip_prefix("/*") {
                body.find("*/").map_or(rest.len(), |end| 2 + end + 2)
            } else {
                return;
            };
            self.note(Tolerance::Comment);
            self.pos += comment;
        }
    }

    /// `line L column C` of a byte offset (columns count characters).
    fn location(&self, pos: usize) -> String {
        let before = self.bytes.get(..pos).unwrap_or(self.bytes);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).unwrap_or_default().iter().filter(|&&b| b & 0xC0 != 0x80).count() + 1;
        format!("line {line} column {column}")
    }

    fn truncated(&self, inside: &str) -> TolerantError {
        TolerantError::Truncated { message: format!("the text ends inside {inside} at {}", self.location(self.pos)) }
    }

    /// A syntax error at the cursor: what was expected and what is there.
    fn unexpected(&self, expected: &str) -> TolerantError {
        let found = match self.rest().chars().next() {
            Some(c) if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
            None => "the end of the text".to_owned(),
        };
        TolerantError::Syntax { message: format!("expected {expected}, found {found} at {}", self.location(self.pos)) }
    }

    fn value(&mut self, depth: usize) -> Result<Value, TolerantError> {
        self.skip_whitespace();
        match self.peek() {
            None => Err(self.truncated("a value")),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(quote @ (b'"' | b'\'')) => self.string(quote).map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.word(),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), TolerantError> {
        if depth > MAX_DEPTH {
            Err(TolerantError::Syntax {
                message: format!("nesting deeper than {MAX_DEPTH} levels at {}", self.location(self.pos)),
            })
        } else {
            Ok(())
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, TolerantError> {
        self.enter(depth)?;
        self.pos += 1;
        let mut map = Map::new();
        self.skip_whitespace();
        if self.eat("}") {
            return Ok(Value::Object(map));
        }
        loop {
            self.skip_whitespace();
            let key = match self.peek() {
                Some(quote @ (b'"' | b'\'')) => self.string(quote)?,
                None => return Err(self.truncated("an object")),
                Some(_) => match self.unquoted_key() {
                    Some(key) => key,
                    None => return Err(self.unexpected("a quoted key")),
                },
            };
            self.skip_whitespace();
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(self.truncated("an object")),
                Some(_) => return Err(self.unexpected("`:` after the key")),
            }
            let before = self.path.len();
            pointer::push(&mut self.path, &key);
            let value = self.value(depth)?;
            if map.contains_key(&key) {
                self.duplicates.push(duplicate_warning(pointer::cut(&self.path).into_owned(), &key, before == 0));
            }
            self.path.truncate(before);
            map.insert(key, value);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.eat("}") {
                        self.note(Tolerance::TrailingComma);
                        return Ok(Value::Object(map));
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(map));
                }
                None => return Err(self.truncated("an object")),
                Some(_) => return Err(self.unexpected("`,` or `}` after an object member")),
            }
        }
    }

    /// A key without quotes at the cursor: an identifier (`[A-Za-z_$][A-Za-z0-9_$]*`) followed by
    /// `:`. `None`, the cursor unmoved, for anything else.
    fn unquoted_key(&mut self) -> Option<String> {
        let rest = self.rest();
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).unwrap_or(rest.len());
        let key = rest.get(..len).filter(|key| key.starts_with(|c: char| !c.is_ascii_digit()))?;
        let after = rest.get(len..)?.trim_start_matches([' ', '\t', '\n', '\r']);
        if !after.starts_with(':') {
            return None;
        }
        self.note(Tolerance::UnquotedKey);
        self.pos += len;
        Some(key.to_owned())
    }

    fn array(&mut self, depth: usize) -> Result<Value, TolerantError> {
        self.enter(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.eat("]") {
            return Ok(Value::Array(items));
        }
        loop {
            let before = self.path.len();
            self.path.push('/');
            self.path.push_str(itoa::Buffer::new().format(items.len()));
            let item = self.value(depth);
            self.path.truncate(before);
            items.push(item?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.eat("]") {
                        self.note(Tolerance::TrailingComma);
                        return Ok(Value::Array(items));
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                None => return Err(self.truncated("an array")),
                Some(_) => return Err(self.unexpected("`,` or `]` after an array element")),
            }
        }
    }

    /// A string in `quote`s, the cursor on the opening quote.
    fn string(&mut self, quote: u8) -> Result<String, TolerantError> {
        if quote == b'\'' {
            self.note(Tolerance::SingleQuotes);
        }
        self.pos += 1;
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == quote || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The run ends before an ASCII byte or at the end: both are character boundaries.
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
            match self.peek() {
                None => return Err(self.truncated("a string")),
                Some(b) if b == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => self.escape(quote, &mut out)?,
                Some(control) => {
                    self.note(Tolerance::RawControlCharacter);
                    out.push(char::from(control));
                    self.pos += 1;
                }
            }
        }
    }

    /// An escape, the cursor on the backslash. An invalid one keeps the backslash as text and
    /// leaves the cursor after it, so what follows is read as ordinary characters.
    fn escape(&mut self, quote: u8, out: &mut String) -> Result<(), TolerantError> {
        self.pos += 1;
        let decoded = match self.peek() {
            None => return Err(self.truncated("a string")),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'\'') => {
                if quote != b'\'' {
                    self.note(Tolerance::EscapedSingleQuote);
                }
                '\''
            }
            Some(b'u') => match self.unicode_escape()? {
                Some(c) => c,
                None => return self.literal_backslash(out),
            },
            Some(_) => return self.literal_backslash(out),
        };
        out.push(decoded);
        self.pos += 1;
        Ok(())
    }

    fn literal_backslash(&mut self, out: &mut String) -> Result<(), TolerantError> {
        self.note(Tolerance::InvalidEscape);
        out.push('\\');
        Ok(())
    }

    /// `\uXXXX` (or a surrogate pair), the cursor on the `u`. Leaves the cursor on the last
    /// hex digit read. `None` when the escape is not a valid character.
    fn unicode_escape(&mut self) -> Result<Option<char>, TolerantError> {
        let first = match self.hex4(self.pos + 1) {
            Hex::Value(n) => n,
            Hex::Truncated => return Err(self.truncated("a string")),
            Hex::Invalid => return Ok(None),
        };
        let after = self.pos + 5;
        if (0xD800..0xDC00).contains(&first) {
            match (self.bytes.get(after), self.bytes.get(after + 1)) {
                (None, _) | (Some(b'\\'), None) => return Err(self.truncated("a string")),
                (Some(b'\\'), Some(b'u')) => match self.hex4(after + 2) {
                    Hex::Truncated => return Err(self.truncated("a string")),
                    Hex::Value(low) if (0xDC00..0xE000).contains(&low) => {
                        let c = char::from_u32(0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00));
                        if c.is_some() {
                            self.pos = after + 5;
                        }
                        return Ok(c);
                    }
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            }
        }
        let c = char::from_u32(first);
        if c.is_some() {
            self.pos += 4;
        }
        Ok(c)
    }

    fn hex4(&self, at: usize) -> Hex {
        let mut n = 0;
        for i in at..at + 4 {
            match self.bytes.get(i) {
                None => return Hex::Truncated,
                Some(&b) => match char::from(b).to_digit(16) {
                    Some(d) => n = n * 16 + d,
                    None => return Hex::Invalid,
                },
            }
        }
        Hex::Value(n)
    }

    fn number(&mut self) -> Result<Value, TolerantError> {
        let start = self.pos;
        self.eat("-");
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            None => return Err(self.truncated("a number")),
            Some(_) => return Err(self.unexpected("a digit")),
        }
        if self.eat(".") {
            self.required_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.required_digits()?;
        }
        let token = self.text.get(start..self.pos).unwrap_or_default();
        match token.parse::<serde_json::Number>() {
            Ok(number) => Ok(Value::Number(number)),
            // Well formed, but beyond any 64-bit float (`1e400`): one field's problem, not the
            // whole text's. Kept as its text, so that the declared type refuses it where it is
            // (or a string takes it), and the other fields are still read.
            Err(_) => {
                let action = format!("kept as the text \"{}\" for the declared type to read", truncate(token));
                let warning = ParseWarning::new(
                    &pointer::cut(&self.path),
                    NUMBER_OUT_OF_RANGE,
                    OUT_OF_RANGE_EXPECTED,
                    &truncate(token),
                    &action,
                );
                self.out_of_range.push(warning);
                Ok(Value::String(token.to_owned()))
            }
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn required_digits(&mut self) -> Result<(), TolerantError> {
        match self.peek() {
            Some(b'0'..=b'9') => {
                self.digits();
                Ok(())
            }
            None => Err(self.truncated("a number")),
            Some(_) => Err(self.unexpected("a digit")),
        }
    }

    /// `true`, `false`, `null`, or Python's `True`, `False`, `None`.
    fn word(&mut self) -> Result<Value, TolerantError> {
        let rest = self.rest();
        for (word, value, python) in WORDS {
            if rest.starts_with(word) {
                self.pos += word.len();
                if python {
                    self.note(Tolerance::PythonLiteral);
                }
                return Ok(value);
            }
            if word.starts_with(rest) {
                return Err(self.truncated("a value"));
            }
        }
        Err(self.unexpected("a value"))
    }

    /// An opening markdown code fence (```` ``` ```` and an optional language tag).
    fn open_fence(&mut self) -> bool {
        if !self.eat("```") {
            return false;
        }
        while let Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'+' | b'-' | b'.') = self.peek() {
            self.pos += 1;
        }
        true
    }

    /// Special tokens and opening tags before the arguments (`<tool_call>`, `<|python_tag|>`,
    /// `<function=search>`), each consumed and added to `found`.
    fn leading_tokens(&mut self, found: &mut Vec<&'t str>) {
        loop {
            self.skip_whitespace();
            match self.special_token().or_else(|| self.opening_tag()) {
                Some(token) => found.push(token),
                None => return,
            }
        }
    }

    /// An opening tag at the cursor (`<tool_call>`, `<function=search>`): a name of letters,
    /// digits and `_-:.=`, no attributes, no spaces. Consumed and returned.
    fn opening_tag(&mut self) -> Option<&'t str> {
        let body = self.rest().strip_prefix('<')?;
        let name = body.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.' | '=')))?;
        if name == 0 || !body.get(name..)?.starts_with('>') || !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let tag = self.rest().get(..name + 2)?;
        self.pos += tag.len();
        Some(tag)
    }

    /// A model's special token (`<|call|>`, `<｜end▁of▁sentence｜>`) or a closing tag
    /// (`</tool_call>`) at the cursor, consumed and returned.
    fn special_token(&mut self) -> Option<&'t str> {
        let rest = self.rest();
        let len = if let Some(body) = rest.strip_prefix("</") {
            let name = body.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')))?;
            (name > 0 && body.get(name..)?.starts_with('>')).then_some(2 + name + 1)?
        } else {
            let open = ["<|", "<｜"].into_iter().find(|open| rest.starts_with(open))?.len();
            let body = rest.get(open..)?;
            let mut end = None;
            let mut chars = body.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                if matches!(c, '|' | '｜') && chars.peek().map(|&(_, n)| n) == Some('>') {
                    end = (i > 0).then_some(open + i + c.len_utf8() + 1);
                    break;
                }
                if c.is_whitespace() || matches!(c, '<' | '>' | '|' | '｜' | '"' | '\'' | '{' | '}') {
                    return None;
                }
            }
            end?
        };
        let token = rest.get(..len)?;
        self.pos += len;
        Some(token)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The value read and (pointer, rule) of each warning.
    type Read = (Value, Vec<(String, String)>);
    /// (pointer, rule, received) of the error.
    type Refused = (String, String, Option<String>);

    fn outcome(raw: &str) -> Result<Read, Refused> {
        match repair_arguments(raw) {
            Ok(Repaired { value, warnings }) => Ok((
                Value::Object(value),
                warnings.into_iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect(),
            )),
            Err(e) => {
                assert_eq!((e.pointer.as_str(), e.expected.as_str()), ("", EXPECTED), "{raw}");
                Err((e.pointer, e.rule, e.received))
            }
        }
    }

    fn whole(rules: &[&str]) -> Vec<(String, String)> {
        rules.iter().map(|rule| (String::new(), (*rule).to_owned())).collect()
    }

    /// Each input, the exact value read, and the exact warnings (all at the pointer `""`).
    fn check_repairs(cases: &[(&str, Value, &[&str])]) {
        for (raw, value, rules) in cases {
            assert_eq!(outcome(raw), Ok((value.clone(), whole(rules))), "{raw}");
        }
    }

    /// Each input, and the exact error rule; `received` is always the raw text, cut.
    fn check_errors(cases: &[(&str, &str)]) {
        for (raw, rule) in cases {
            assert_eq!(outcome(raw), Err((String::new(), (*rule).to_owned(), Some(truncate(raw)))), "{raw}");
        }
    }

    #[test]
    fn strict_json_objects_are_read_without_warnings() {
        check_repairs(&[
            (r#"{"a":1}"#, json!({"a": 1}), &[]),
            (
                " {\"a\": [1, 2.5, -3e2, true, null, \"\\u00e9\\ud83d\\ude00\"]} \n",
                json!({"a": [1, 2.5, -300.0, true, null, "é😀"]}),
                &[],
            ),
            ("{}", json!({}), &[]),
        ]);
    }

    #[test]
    fn object_key_order_is_kept() {
        let Ok((value, _)) = outcome("{'z': 1, 'a': 2, 'm': 3,}") else { panic!("not repaired") };
        let keys: Vec<&String> = value.as_object().map(|o| o.keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["z", "a", "m"]);
    }

    #[test]
    fn empty_arguments_are_an_empty_object() {
        check_repairs(&[("", json!({}), &["empty_arguments"]), (" \n\t ", json!({}), &["empty_arguments"])]);
        let Ok(repaired) = repair_arguments("") else { panic!("not repaired") };
        assert_eq!(
            repaired.warnings,
            vec![ParseWarning::new("", "empty_arguments", "a JSON object", "", "read as an empty object `{}`")]
        );
    }

    #[test]
    fn a_markdown_code_fence_is_removed() {
        check_repairs(&[
            ("```json\n{\"shop_name\": \"B\"}\n```", json!({"shop_name": "B"}), &["code_fence_removed"]),
            ("```\n{\"a\": 1}\n```", json!({"a": 1}), &["code_fence_removed"]),
            ("  \n```JSON {\"a\": 1}```\n ", json!({"a": 1}), &["code_fence_removed"]),
            (
                "```json\n{\"md\": \"```py\\nx = 1\\n```\"}\n```",
                json!({"md": "```py\nx = 1\n```"}),
                &["code_fence_removed"],
            ),
            ("```json\n{\"a\": 1}\n", json!({"a": 1}), &["code_fence_removed"]),
        ]);
        check_errors(&[
            ("Here you go:\n```json\n{\"a\": 1}\n```", "invalid_json"),
            ("```json\n{\"a\": 1}\n```\nDone.", "invalid_json"),
            ("```json\n{\"a\": 1}\n``````", "invalid_json"),
            ("```json\n{\"a\": \n```", "invalid_json"),
            ("```json\n{\"a\": ", "truncated_json"),
        ]);
    }

    #[test]
    fn trailing_special_tokens_and_closing_tags_are_removed() {
        check_repairs(&[
            (r#"{"a":1}<|call|>"#, json!({"a": 1}), &["special_token_removed"]),
            ("{\"a\":1}\n<|im_end|>", json!({"a": 1}), &["special_token_removed"]),
            (r#"{"a":1}</tool_call>"#, json!({"a": 1}), &["special_token_removed"]),
            (r#"{"a":1} <|end|><|start|> </function> </s>"#, json!({"a": 1}), &["special_token_removed"]),
            ("{\"a\":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", json!({"a": 1}), &["special_token_removed"]),
            ("```json\n{\"a\":1}\n```<|call|>", json!({"a": 1}), &["code_fence_removed", "special_token_removed"]),
        ]);
        let Ok(repaired) = repair_arguments(r#"{"a":1}<|call|>"#) else { panic!("not repaired") };
        assert_eq!(repaired.warnings[0].action(), "removed `<|call|>` after the arguments");
        assert_eq!(repaired.warnings[0].received(), r#"{"a":1}<|call|>"#);
        check_errors(&[
            (r#"{"a":1}<|call"#, "invalid_json"),
            (r#"{"a":1}<||>"#, "invalid_json"),
            (r#"{"a":1}<| call |>"#, "invalid_json"),
            (r#"{"a":1}</>"#, "invalid_json"),
            (r#"{"a":1}</tool call>"#, "invalid_json"),
            (r#"{"a":1}<tool_call>"#, "invalid_json"),
            (r#"{"a":1}<|call|> and more"#, "invalid_json"),
            ("<|call|>", "truncated_json"),
        ]);
    }

    #[test]
    fn leading_tokens_a_byte_order_mark_and_a_lone_closing_fence_are_removed() {
        check_repairs(&[
            ("<tool_call>{\"a\": 1}</tool_call>", json!({"a": 1}), &["special_token_removed"]),
            ("<|python_tag|>{\"a\": 1}", json!({"a": 1}), &["special_token_removed"]),
            ("<function=search>{\"a\": 1}</function>", json!({"a": 1}), &["special_token_removed"]),
            ("<|tool_call|> <tool_call>\n{\"a\": 1}", json!({"a": 1}), &["special_token_removed"]),
            (
                "```json\n<tool_call>{\"a\": 1}</tool_call>\n```",
                json!({"a": 1}),
                &["code_fence_removed", "special_token_removed"],
            ),
            ("\u{feff}{\"a\": 1}", json!({"a": 1}), &["byte_order_mark_removed"]),
            ("{\"a\": 1}\n```", json!({"a": 1}), &["code_fence_removed"]),
        ]);
        let action = |raw: &str| repair_arguments(raw).map(|r| r.warnings[0].action().to_owned());
        assert_eq!(
            action("<tool_call>{}</tool_call>").as_deref(),
            Ok("removed `<tool_call>` before and `</tool_call>` after the arguments")
        );
        assert_eq!(action("<|python_tag|>{}").as_deref(), Ok("removed `<|python_tag|>` before the arguments"));
        assert_eq!(action("\u{feff}{}").as_deref(), Ok("removed the byte order mark (U+FEFF) before the arguments"));
        check_errors(&[
            ("<tool call>{\"a\": 1}", "invalid_json"),
            ("<>{\"a\": 1}", "invalid_json"),
            ("<1>{\"a\": 1}", "invalid_json"),
            ("Here: <tool_call>{\"a\": 1}", "invalid_json"),
            ("<tool_call>", "truncated_json"),
            ("{\"a\": 1}\n```\n```", "invalid_json"),
            ("\u{feff}\u{feff}{}", "invalid_json"),
        ]);
    }

    #[test]
    fn raw_control_characters_comments_and_unquoted_keys_are_read() {
        check_repairs(&[
            (
                "{\"code\": \"def f():\n\treturn 1\n\"}",
                json!({"code": "def f():\n\treturn 1\n"}),
                &["raw_control_character"],
            ),
            ("{'a': 'x\ry'}", json!({"a": "x\ry"}), &["python_literal", "raw_control_character"]),
            ("{\"a\": 1, // the count\n \"b\": 2}", json!({"a": 1, "b": 2}), &["comment_removed"]),
            ("/* args */ {\"a\": [1, /* two */ 2]}", json!({"a": [1, 2]}), &["comment_removed"]),
            ("{\"url\": \"http://x/*y*/\"} // done", json!({"url": "http://x/*y*/"}), &["comment_removed"]),
            (
                "{path: \"a\", max_bytes : 5, $ref: null}",
                json!({"path": "a", "max_bytes": 5, "$ref": null}),
                &["unquoted_key"],
            ),
            (
                "{query: 'x', limit: 3,}",
                json!({"query": "x", "limit": 3}),
                &["unquoted_key", "python_literal", "trailing_comma_removed"],
            ),
        ]);
        let Ok(repaired) = repair_arguments("{\"a\": \"x\ny\"}") else { panic!("not repaired") };
        assert_eq!(
            repaired.warnings[0].action(),
            "read the line breaks, tabs and other control characters written raw inside strings as themselves"
        );
        check_errors(&[
            ("{1a: 2}", "invalid_json"),
            ("{a b: 1}", "invalid_json"),
            ("{a-b: 1}", "invalid_json"),
            ("{a}", "invalid_json"),
            ("{a", "invalid_json"),
            ("{\"a\": 1 /* open", "truncated_json"),
            ("{\"a\": 1} / 2", "invalid_json"),
            ("{\"a\": \"x\n", "truncated_json"),
        ]);
    }

    #[test]
    fn identical_objects_are_merged_and_different_ones_refused() {
        check_repairs(&[
            (r#"{"a":1}{"a":1}"#, json!({"a": 1}), &["identical_objects_merged"]),
            (
                "{\"f\":\"a.ts\"}\n{\"f\":\"a.ts\"}\n {\"f\": \"a.ts\"}",
                json!({"f": "a.ts"}),
                &["identical_objects_merged"],
            ),
            (r#"{"a":1}{'a':1}"#, json!({"a": 1}), &["identical_objects_merged", "python_literal"]),
        ]);
        let Ok(repaired) = repair_arguments("{}{}{}") else { panic!("not repaired") };
        assert_eq!(repaired.warnings[0].action(), "read the first of 3 identical objects sent one after another");
        check_errors(&[
            (r#"{"f":"a.ts"}{"f":"b.ts"}"#, "multiple_objects"),
            ("{\"f\":\"a.ts\"}\n{\"f\":\"a.ts\"}\n{\"g\":1}", "multiple_objects"),
            (r#"{"a":1}{"a":"#, "truncated_json"),
            (r#"{"a":1},{"a":1}"#, "invalid_json"),
            (r#"{"a":1}[1]"#, "invalid_json"),
            ("[1][1]", "invalid_json"),
        ]);
    }

    #[test]
    fn arguments_encoded_twice_are_decoded() {
        check_repairs(&[
            (r#""{\"shop_name\": \"A店\"}""#, json!({"shop_name": "A店"}), &["double_encoded_arguments"]),
            (r#"" {\"a\": [1]} ""#, json!({"a": [1]}), &["double_encoded_arguments"]),
            (
                r#""{'a': True,}""#,
                json!({"a": true}),
                &["double_encoded_arguments", "python_literal", "trailing_comma_removed"],
            ),
            ("```json\n\"{\\\"a\\\": 1}\"\n```", json!({"a": 1}), &["code_fence_removed", "double_encoded_arguments"]),
        ]);
        check_errors(&[(r#""{\"a\": ""#, "truncated_json"), (r#""{\"a\"}""#, "invalid_json")]);
        let Err(e) = repair_arguments(r#""{\"a\": ""#) else { panic!("repaired") };
        assert!(
            e.detail.starts_with("the arguments are a JSON string holding an object that cannot be read: "),
            "{}",
            e.detail
        );
    }

    #[test]
    fn python_literals_are_read() {
        check_repairs(&[
            (
                "{'tags': ['python','tutorial'], 'theme': 'dark', 'verbose': True}",
                json!({"tags": ["python", "tutorial"], "theme": "dark", "verbose": true}),
                &["python_literal"],
            ),
            ("{'a': {'b': None, 'c': False}}", json!({"a": {"b": null, "c": false}}), &["python_literal"]),
            (r#"{"a": None}"#, json!({"a": null}), &["python_literal"]),
            (r#"{'msg': "it's"}"#, json!({"msg": "it's"}), &["python_literal"]),
            (r#"{"msg": 'say "hi"'}"#, json!({"msg": "say \"hi\""}), &["python_literal"]),
            (r"{'msg': 'it\'s'}", json!({"msg": "it's"}), &["python_literal"]),
            (r"{'e': '\u00e9 \ud83d\ude00 \n\t\\'}", json!({"e": "é 😀 \n\t\\"}), &["python_literal"]),
        ]);
        let Ok(repaired) = repair_arguments("{'a': True}") else { panic!("not repaired") };
        assert_eq!(
            repaired.warnings[0].action(),
            "read single-quoted strings as JSON strings; read Python's True, False and None as true, false and null"
        );
        check_errors(&[
            ("{'a': true", "truncated_json"),
            ("{'a': 'b}", "truncated_json"),
            ("{'a': Tru", "truncated_json"),
            ("{'a': TRUE}", "invalid_json"),
            ("{'a': none}", "invalid_json"),
            ("{'a': Nonesuch}", "invalid_json"),
            ("{'a': (1, 2)}", "invalid_json"),
            ("{'a': u'x'}", "invalid_json"),
        ]);
    }

    #[test]
    fn trailing_commas_are_removed() {
        check_repairs(&[
            (r#"{"a":[1,2,],}"#, json!({"a": [1, 2]}), &["trailing_comma_removed"]),
            ("{\"a\": {\"b\": [ {} , ] , } ,\n}", json!({"a": {"b": [{}]}}), &["trailing_comma_removed"]),
        ]);
        check_errors(&[
            (r#"{"a":1,,}"#, "invalid_json"),
            (r#"{,}"#, "invalid_json"),
            (r#"{"a":[,]}"#, "invalid_json"),
            (r#"{"a":[1,,2]}"#, "invalid_json"),
            (r#"{"a":1,"#, "truncated_json"),
        ]);
    }

    #[test]
    fn invalid_escapes_keep_their_backslash() {
        check_repairs(&[
            (r#"{"files": "E:\Chat gpt\a.md"}"#, json!({"files": r"E:\Chat gpt\a.md"}), &["invalid_escape_repaired"]),
            (
                r#"{"p": "C:\users\me", "q": "\x41\0"}"#,
                json!({"p": r"C:\users\me", "q": r"\x41\0"}),
                &["invalid_escape_repaired"],
            ),
            (
                r#"{"e": "\u00e9\ud83d\ude00", "w": "D:\data"}"#,
                json!({"e": "é😀", "w": r"D:\data"}),
                &["invalid_escape_repaired"],
            ),
            (
                r#"{"lone": "\ud800x", "low": "\udc00"}"#,
                json!({"lone": r"\ud800x", "low": r"\udc00"}),
                &["invalid_escape_repaired"],
            ),
            (r#"{"msg": "it\'s"}"#, json!({"msg": "it's"}), &["invalid_escape_repaired"]),
            (r#"{"m": "\'\q"}"#, json!({"m": r"'\q"}), &["invalid_escape_repaired"]),
        ]);
        let Ok(repaired) = repair_arguments(r#"{"m": "\'\q"}"#) else { panic!("not repaired") };
        assert_eq!(
            repaired.warnings[0].action(),
            "read the escape `\\'` as a single quote; kept each backslash that starts no valid JSON escape as a literal backslash"
        );
        check_errors(&[
            (r#"{"a": "x\"#, "truncated_json"),
            (r#"{"a": "\u00e"#, "truncated_json"),
            (r#"{"a": "\ud83d"#, "truncated_json"),
            (r#"{"a": "\ud83d\"#, "truncated_json"),
            (r#"{"a": "\ud83d\ude0"#, "truncated_json"),
        ]);
    }

    #[test]
    fn what_cannot_be_read_without_guessing_is_an_error() {
        check_errors(&[
            (r#"{"a":"b",c":"d"}"#, "invalid_json"),
            (r#"{"command":["bash","-lc","find"#, "truncated_json"),
            ("Sure! I will open the shop now.", "invalid_json"),
            (r#"{"a": 1} thanks"#, "invalid_json"),
            (r#"{"a": NaN}"#, "invalid_json"),
            (r#"{"a": 01}"#, "invalid_json"),
            (r#"{"a": .5}"#, "invalid_json"),
            (r#"{"a": +1}"#, "invalid_json"),
            (r#"{"a" 1}"#, "invalid_json"),
            (r#"{"a": 1 "b": 2}"#, "invalid_json"),
            (r#"{"a": -"#, "truncated_json"),
            (r#"{"a": 1."#, "truncated_json"),
            (r#"{"a": 1e+"#, "truncated_json"),
            (r#"{"a""#, "truncated_json"),
            (r#"{"a":"#, "truncated_json"),
            ("{", "truncated_json"),
        ]);
        let Err(e) = repair_arguments(r#"{"a":"b",c":"d"}"#) else { panic!("repaired") };
        assert_eq!(e.detail, "expected a quoted key, found `c` at line 1 column 10");
        // A well-formed number no float holds is one field's problem: kept as its text.
        let Ok(repaired) = repair_arguments(r#"{"a": 1e999, "b": [-1e400]}"#) else { panic!("not repaired") };
        let rules: Vec<(&str, &str)> = repaired.warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
        assert_eq!(rules, vec![("/a", "number_out_of_range"), ("/b/0", "number_out_of_range")]);
        assert_eq!(Value::Object(repaired.value), json!({"a": "1e999", "b": ["-1e400"]}));
        let Err(e) = repair_arguments("{\"command\":[\"bash\",\n\"find") else { panic!("repaired") };
        assert_eq!(e.detail, "the text ends inside a string at line 2 column 6");
    }

    #[test]
    fn valid_json_that_is_not_an_object_is_refused() {
        for (raw, received, detail) in [
            ("[1,2,3]", "[1,2,3]", "the arguments are an array, not an object"),
            ("null", "null", "the arguments are null, not an object"),
            ("42", "42", "the arguments are a number, not an object"),
            (r#""just text""#, r#""just text""#, "the arguments are a string, not an object"),
            (r#""""#, r#""""#, "the arguments are a string, not an object"),
            (r#""[1]""#, r#""[1]""#, "the arguments are a string, not an object"),
            ("[1,2,]", "[1,2]", "the arguments are an array, not an object"),
            ("None", "null", "the arguments are null, not an object"),
        ] {
            assert_eq!(
                repair_arguments(raw).map(|r| Value::Object(r.value)),
                Err(ArgumentError {
                    pointer: String::new(),
                    rule: "not_an_object".into(),
                    expected: "a JSON object".into(),
                    received: Some(received.into()),
                    detail: detail.into(),
                }),
                "{raw}"
            );
        }
    }

    #[test]
    fn several_repairs_give_one_warning_each_outermost_first() {
        check_repairs(&[(
            "```json\n{'a': [1,], 'p': 'C:\\dir'}\n```\n<|call|>",
            json!({"a": [1], "p": r"C:\dir"}),
            &[
                "code_fence_removed",
                "special_token_removed",
                "python_literal",
                "trailing_comma_removed",
                "invalid_escape_repaired",
            ],
        )]);
    }

    #[test]
    fn parse_tolerant_lists_each_tolerance_once_in_first_seen_order() {
        let tolerant = parse_tolerant(r#"{"a": [True, 'x', 'y',], "b": "\q\q", "c": False, 'd': 1,}"#);
        let Ok(Tolerant { value, tolerances, duplicates }) = tolerant else { panic!("{tolerant:?}") };
        assert_eq!(value, json!({"a": [true, "x", "y"], "b": r"\q\q", "c": false, "d": 1}));
        assert_eq!(
            tolerances,
            [Tolerance::PythonLiteral, Tolerance::SingleQuotes, Tolerance::TrailingComma, Tolerance::InvalidEscape]
        );
        assert_eq!(duplicates, vec![]);
        assert!(matches!(parse_tolerant(r#"{"a":"b",c":"d"}"#), Err(TolerantError::Syntax { .. })));
        assert!(matches!(parse_tolerant(r#"{"a": ["#), Err(TolerantError::Truncated { .. })));
        assert!(matches!(parse_tolerant(""), Err(TolerantError::Truncated { .. })));
        assert!(matches!(parse_tolerant("1 2"), Err(TolerantError::Syntax { .. })));
        assert!(matches!(parse_tolerant(" 1 "), Ok(Tolerant { value: Value::Number(_), .. })));
    }

    #[test]
    fn every_leniency_names_its_rule() {
        let rules: Vec<&str> = [
            Tolerance::SingleQuotes,
            Tolerance::PythonLiteral,
            Tolerance::TrailingComma,
            Tolerance::InvalidEscape,
            Tolerance::EscapedSingleQuote,
            Tolerance::RawControlCharacter,
            Tolerance::UnquotedKey,
            Tolerance::Comment,
        ]
        .into_iter()
        .map(Tolerance::rule)
        .collect();
        assert_eq!(
            rules,
            [
                "python_literal",
                "python_literal",
                "trailing_comma_removed",
                "invalid_escape_repaired",
                "invalid_escape_repaired",
                "raw_control_character",
                "unquoted_key",
                "comment_removed"
            ]
        );
    }

    #[test]
    fn nesting_is_capped_at_128_levels() {
        let nested = |levels: usize| format!("{{'a': {}{}}}", "[".repeat(levels - 1), "]".repeat(levels - 1));
        let Ok((_, rules)) = outcome(&nested(MAX_DEPTH)) else { panic!("128 levels refused") };
        assert_eq!(rules, whole(&["python_literal"]));
        check_errors(&[(&nested(MAX_DEPTH + 1), "invalid_json")]);
        let Err(e) = repair_arguments(&nested(MAX_DEPTH + 1)) else { panic!("129 levels read") };
        assert_eq!(e.detail, "nesting deeper than 128 levels at line 1 column 134");
        check_errors(&[(&"[".repeat(1_000_000), "invalid_json"), (&"{\"a\":".repeat(100_000), "invalid_json")]);
    }

    /// Every prefix and many mutations of tricky inputs: errors, never a panic.
    #[test]
    fn no_input_panics() {
        let corpus = [
            "```json\n{'a': [1,], \"p\": \"C:\\dir\\u00e9\\ud83d\\ude00\"}\n```\n<|call|></tool_call>",
            "\"{\\\"shop_name\\\": \\\"A店\\\"}\"",
            "{\"a\":1}{\"a\":1}<｜end▁of▁sentence｜>",
            "{'a': {'b': None, 'c': False, 'd': -1.5e-3, 'e': [True, null, \"\\'\"]}}",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet: Vec<char> = "{}[]\"',:\\u0Ee+-.tTfFnN <|>/`\n\u{e9}店".chars().collect();
        for text in corpus {
            for (cut, _) in text.char_indices() {
                let _ = repair_arguments(&text[..cut]);
                let _ = parse_tolerant(&text[cut..]);
            }
            for _ in 0..2000 {
                let mut chars: Vec<char> = text.chars().collect();
                for _ in 0..1 + next() % 4 {
                    let at = (next() as usize) % chars.len();
                    let c = alphabet[(next() as usize) % alphabet.len()];
                    match next() % 3 {
                        0 => chars[at] = c,
                        1 => chars.insert(at, c),
                        _ => {
                            chars.remove(at);
                        }
                    }
                }
                let mutated: String = chars.into_iter().collect();
                let _ = repair_arguments(&mutated);
            }
        }
    }

    /// A megabyte of arguments needing every repair is read, or refused, with a result (its time
    /// is measured by the `repair` benchmark, not here).
    #[test]
    fn a_megabyte_needing_every_repair_is_read_or_refused() {
        let item = r"{'path': 'C:\dir\file.txt', 'ok': True, 'n': [1, 2.5, -3,],},";
        let body = item.repeat(1_000_000 / item.len());
        let inputs = [
            format!("```json\n{{'items': [{body}]}}\n```<|call|>"),
            format!("{{\"s\": \"{}\"}}", "\\q".repeat(500_000)),
            format!("{{\"a\":1}}{}", "<|call|>".repeat(125_000)),
            "{\"a\":1}".repeat(140_000),
            format!("{{\"a\":1}}<|{}", "x".repeat(1_000_000)),
            format!("{{'a': '{}", "é".repeat(500_000)),
        ];
        let outcomes: Vec<bool> = inputs.iter().map(|input| repair_arguments(input).is_ok()).collect();
        assert_eq!(outcomes, [true, true, true, true, false, false]);
        let Ok(repaired) = repair_arguments(&inputs[0]) else { panic!("not repaired") };
        assert_eq!(repaired.value["items"].as_array().map(Vec::len), Some(body.len() / item.len()));
    }
}

#[cfg(test)]
mod duplicate_tests {
    use super::super::duplicates::duplicate_key_warnings;
    use super::*;

    #[test]
    fn duplicate_keys_are_reported_at_any_depth() {
        let warnings = duplicate_key_warnings(
            r#"{"limit": 2, "limit": "3", "origin": {"x": 1, "x": 2, "y": 0}, "list": [{"a": 1, "a": 1}]}"#,
        );
        let found: Vec<(&str, &str)> = warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
        assert_eq!(
            found,
            vec![("/limit", "duplicate_parameter"), ("/origin/x", "duplicate_key"), ("/list/0/a", "duplicate_key")]
        );
        assert!(duplicate_key_warnings(r#"{"a": {"a": 1}, "b": [1, 2]}"#).is_empty());
    }

    #[test]
    fn a_long_key_above_duplicates_is_cut_in_their_pointers() {
        let key = "k".repeat(5_000);
        let cut = format!("/{}…", "k".repeat(1_023));
        for raw in [format!(r#"{{"{key}": {{"a": 1, "a": 2}}}}"#), format!(r#"{{'{key}': {{'a': 1, 'a': 2}}}}"#)] {
            let Ok(repaired) = repair_arguments(&raw) else { panic!("not repaired") };
            let duplicate = repaired.warnings.iter().find(|w| w.rule() == "duplicate_key").expect("a duplicate");
            assert_eq!(duplicate.pointer(), cut);
        }
    }

    #[test]
    fn duplicate_keys_are_reported_in_text_only_the_tolerant_parser_reads() {
        let found = |raw: &str| -> Vec<(String, String)> {
            let Ok(repaired) = repair_arguments(raw) else { panic!("not repaired: {raw}") };
            repaired.warnings.iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect()
        };
        assert_eq!(
            found("{'limit': 2, 'limit': 3, 'origin': {'x': 1, 'x': 2}, 'list': [{'a': True, 'a': False}]}"),
            vec![
                ("/limit".to_owned(), "duplicate_parameter".to_owned()),
                ("/origin/x".to_owned(), "duplicate_key".to_owned()),
                ("/list/0/a".to_owned(), "duplicate_key".to_owned()),
                (String::new(), "python_literal".to_owned()),
            ]
        );
        // Identical objects sent twice: the first copy's duplicates, once.
        assert_eq!(
            found("{'a': 1, 'a': 1}{'a': 1, 'a': 1}"),
            vec![
                (String::new(), "identical_objects_merged".to_owned()),
                ("/a".to_owned(), "duplicate_parameter".to_owned()),
                (String::new(), "python_literal".to_owned()),
            ]
        );
    }
}
