//! The tolerant parser: one JSON value read by hand, linear in the input, no backtracking,
//! nesting capped at [`MAX_DEPTH`], never panicking, noting each tolerance it had to accept.

use serde_json::{Map, Value};

use crate::extract::duplicates::duplicate_warning;
use crate::model::pointer;
use crate::model::rules;
use crate::model::{truncate, ParseWarning};

/// The deepest nesting of arrays and objects [`parse_tolerant`] reads.
pub(super) const MAX_DEPTH: usize = 128;

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
            Tolerance::SingleQuotes | Tolerance::PythonLiteral => rules::PYTHON_LITERAL,
            Tolerance::TrailingComma => rules::TRAILING_COMMA_REMOVED,
            Tolerance::InvalidEscape | Tolerance::EscapedSingleQuote => rules::INVALID_ESCAPE_REPAIRED,
            Tolerance::RawControlCharacter => rules::RAW_CONTROL_CHARACTER,
            Tolerance::UnquotedKey => rules::UNQUOTED_KEY,
            Tolerance::Comment => rules::COMMENT_REMOVED,
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
    pub(super) fn rule(&self) -> &'static str {
        match self {
            TolerantError::Truncated { .. } => rules::TRUNCATED_JSON,
            TolerantError::Syntax { .. } => rules::INVALID_JSON,
        }
    }

    pub(super) fn message(&self) -> &str {
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

/// The tolerant parser: a cursor over the text and the tolerances seen so far.
pub(super) struct Parser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pub(super) pos: usize,
    pub(super) tolerances: Vec<Tolerance>,
    /// The JSON pointer of the value being read.
    path: String,
    /// Keys met twice in one object (the last value is kept).
    pub(super) duplicates: Vec<ParseWarning>,
    /// Numbers no 64-bit float holds (`1e400`), each kept as its text (see [`Parser::number`]).
    pub(super) out_of_range: Vec<ParseWarning>,
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
    pub(super) fn new(text: &'t str) -> Self {
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

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    pub(super) fn rest(&self) -> &'t str {
        self.text.get(self.pos..).unwrap_or("")
    }

    pub(super) fn eat(&mut self, literal: &str) -> bool {
        let found = self.rest().starts_with(literal);
        if found {
            self.pos += literal.len();
        }
        found
    }

    /// Skips whitespace and comments (`// line`, `/* block */`; an unclosed block comment runs
    /// to the end of the text).
    pub(super) fn skip_whitespace(&mut self) {
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
    pub(super) fn unexpected(&self, expected: &str) -> TolerantError {
        let found = match self.rest().chars().next() {
            Some(c) if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
            None => "the end of the text".to_owned(),
        };
        TolerantError::Syntax { message: format!("expected {expected}, found {found} at {}", self.location(self.pos)) }
    }

    pub(super) fn value(&mut self, depth: usize) -> Result<Value, TolerantError> {
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
                    rules::NUMBER_OUT_OF_RANGE,
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
}
