//! A Python call's text read as Python's own parser reads it: the dotted name, then keyword
//! and positional arguments whose values are literals (strings with their prefixes, escapes and
//! implicit concatenation, numbers with underscores and bases, `True`/`False`/`None`, lists,
//! tuples, dicts, sets), each made a JSON value.
//!
//! What JSON holds otherwise (a tuple, a set, a key that is not text, a number JSON cannot
//! hold, a JSON literal written in Python) is read with a note that says what was done. What
//! is no literal (a variable, a call, arithmetic, an f-string, a comprehension) is refused,
//! never passed on as text. The text given is a whole call, closed by the scanner, so reading
//! never waits; nesting is bounded, so a deep value is an error, never a stack overflow.

use std::collections::HashSet;

use serde_json::{Map, Number, Value};

use crate::model::rules;
use crate::model::{pointer, truncate};

/// The deepest nesting of lists, tuples, dicts and sets read; deeper is refused.
pub(super) const MAX_DEPTH: usize = 128;

/// A conversion made while reading a value: a warning, once the argument's name is known.
#[derive(Debug)]
pub(super) struct Note {
    /// Where, below the argument (`""` for the argument itself).
    pub path: String,
    pub rule: &'static str,
    pub expected: &'static str,
    pub received: String,
    pub action: String,
}

/// Why a value, or the call, cannot be read: an error, once the argument's name is known.
#[derive(Debug)]
pub(super) struct Refusal {
    /// Where, below the argument (`""` for the argument itself).
    pub path: String,
    pub rule: &'static str,
    pub expected: String,
    pub received: String,
    pub detail: String,
}

/// One argument as written.
#[derive(Debug)]
pub(super) struct Arg<'a> {
    /// The name, for a keyword argument.
    pub keyword: Option<&'a str>,
    /// The value's text.
    pub text: &'a str,
    /// The value, unless refused.
    pub value: Option<Value>,
    pub notes: Vec<Note>,
    pub refusals: Vec<Refusal>,
}

/// A call as written.
#[derive(Debug)]
pub(super) struct Call<'a> {
    /// The dotted name, as written.
    pub name: &'a str,
    pub args: Vec<Arg<'a>>,
    /// What concerns the call's own structure (no argument's value).
    pub errors: Vec<Refusal>,
}

/// What a literal value is, for the model's error.
const LITERAL: &str = "a literal value (a string, a number, True, False, None, a list or a dict)";

/// The length of the dotted name at the start of `text` (`math.factorial`), 0 when none.
pub(super) fn dotted_name_len(text: &str) -> usize {
    let mut end = 0;
    loop {
        let part = identifier_len(&text[end..]);
        if part == 0 {
            // A name never ends with its dot.
            return end.saturating_sub(1);
        }
        end += part;
        if text[end..].starts_with('.') && identifier_len(&text[end + 1..]) > 0 {
            end += 1;
        } else {
            return end;
        }
    }
}

/// The length of the identifier at the start of `text`, 0 when none.
pub(super) fn identifier_len(text: &str) -> usize {
    let mut chars = text.char_indices();
    match chars.next() {
        Some((_, c)) if c == '_' || c.is_alphabetic() => {}
        _ => return 0,
    }
    chars.find(|(_, c)| !(*c == '_' || c.is_alphanumeric())).map_or(text.len(), |(at, _)| at)
}

/// Reads the whole call `text`: its name, `(`, its arguments and its closing bracket (the
/// scanner ended it at the bracket that closed its `(`).
pub(super) fn parse_call(text: &str) -> Call<'_> {
    let name_len = dotted_name_len(text);
    let mut p = Parser { s: text, i: name_len, path: String::new(), notes: Vec::new(), refusals: Vec::new() };
    let mut call = Call { name: &text[..name_len], args: Vec::new(), errors: Vec::new() };
    p.skip_blank();
    if !p.eat(b'(') {
        call.errors.push(syntax("`(` after the tool's name", p.rest_text()));
        return call;
    }
    loop {
        p.skip_blank();
        match p.peek() {
            Some(b')') => break,
            None => {
                call.errors.push(syntax("`)` to close the call", "the end of the call".to_owned()));
                break;
            }
            Some(b']' | b'}') => {
                call.errors.push(syntax("`)` to close the call", p.rest_text()));
                break;
            }
            _ => {}
        }
        let keyword = p.keyword();
        let start = p.i;
        let value = p.element(0, false);
        let arg = Arg {
            keyword,
            text: p.s[start..p.i].trim_end(),
            value,
            notes: std::mem::take(&mut p.notes),
            refusals: std::mem::take(&mut p.refusals),
        };
        call.args.push(arg);
        p.skip_blank();
        if !p.eat(b',') {
            // `element` stopped at the call's `)` or at a bracket that does not close it.
            if p.peek() != Some(b')') {
                call.errors.push(syntax("`)` to close the call", p.rest_text()));
            }
            break;
        }
    }
    call
}

/// A container not closed by its own bracket, at `path`.
fn syntax_at(path: &str, close: u8, received: String) -> Refusal {
    let close = char::from(close);
    Refusal {
        path: path.to_owned(),
        rule: rules::PYTHON_SYNTAX,
        expected: format!("`{close}` to close the value"),
        received,
        detail: format!("the value is not valid Python: expected `{close}`"),
    }
}

/// A refusal of the call's structure.
fn syntax(expected: &str, received: String) -> Refusal {
    Refusal {
        path: String::new(),
        rule: rules::PYTHON_SYNTAX,
        expected: expected.to_owned(),
        received,
        detail: format!("the call is not valid Python: expected {expected}"),
    }
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
    /// Where the value being read is, below the argument.
    path: String,
    notes: Vec<Note>,
    refusals: Vec<Refusal>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.s.as_bytes().get(self.i + offset).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// What stands at the reading place, for an error.
    fn rest_text(&self) -> String {
        let rest = &self.s[self.i..];
        if rest.is_empty() {
            "the end of the call".to_owned()
        } else {
            format!("`{}`", truncate(rest))
        }
    }

    /// Skips blanks, line breaks, a backslash that continues a line, and comments.
    fn skip_blank(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => self.i += 1,
                b'\\' if matches!(self.peek_at(1), Some(b'\n' | b'\r')) => self.i += 2,
                b'#' => {
                    self.i = memchr::memchr(b'\n', &self.s.as_bytes()[self.i..]).map_or(self.s.len(), |at| self.i + at)
                }
                _ => break,
            }
        }
    }

    /// `name=` at the reading place (not `name==`): reads it and gives the name.
    fn keyword(&mut self) -> Option<&'a str> {
        let len = identifier_len(&self.s[self.i..]);
        if len == 0 {
            return None;
        }
        let name = &self.s[self.i..self.i + len];
        let mut at = self.i + len;
        let bytes = self.s.as_bytes();
        while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        if bytes.get(at) == Some(&b'=') && bytes.get(at + 1) != Some(&b'=') {
            self.i = at + 1;
            Some(name)
        } else {
            None
        }
    }

    /// One element of a container (or an argument's value), ending at `,`, at a closing
    /// bracket, or, for a dict's key, at `:`. What is not one literal is refused whole, from its
    /// start to there.
    fn element(&mut self, depth: usize, key: bool) -> Option<Value> {
        self.skip_blank();
        let start = self.i;
        let (notes, refusals) = (self.notes.len(), self.refusals.len());
        let value = self.value(depth);
        self.skip_blank();
        // A bracket that closes another container than this one is the container's to report.
        let ends = match self.peek() {
            Some(b',' | b')' | b']' | b'}') | None => true,
            Some(b':') => key,
            Some(_) => false,
        };
        if ends {
            return value;
        }
        // `1 + 2`, `x(1) for x in y`, `a.b`, `a if b else c`: more than one literal.
        self.notes.truncate(notes);
        self.refusals.truncate(refusals);
        self.i = skip_expression(self.s, start, key);
        self.not_literal(start);
        None
    }

    /// A bracket that does not close the container open (`[1, 2)`): the text is not Python.
    fn mismatch(&mut self, close: u8) {
        let received = match self.s[self.i..].chars().next() {
            Some(c) => format!("`{c}`"),
            None => "the end of the call".to_owned(),
        };
        self.refusals.push(syntax_at(&self.path, close, received));
        self.i = (self.i + self.s[self.i..].chars().next().map_or(0, char::len_utf8)).min(self.s.len());
    }

    /// Refuses the text from `start` to the reading place: it is no literal.
    fn not_literal(&mut self, start: usize) {
        let text = self.s[start..self.i].trim_end();
        let received =
            if text.is_empty() { "nothing".to_owned() } else { format!("`{}`, {}", truncate(text), kind(text)) };
        self.refusals.push(Refusal {
            path: self.path.clone(),
            rule: rules::PYTHON_NOT_LITERAL,
            expected: LITERAL.to_owned(),
            received,
            detail: "a Python call's values must be written as literals: the value itself, not a name or an expression that computes it".to_owned(),
        });
    }

    /// One value at `depth` (an argument's value is at 0): at most `MAX_DEPTH` lists, tuples,
    /// dicts and sets, one in the other.
    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_blank();
        let start = self.i;
        if depth >= MAX_DEPTH && matches!(self.peek(), Some(b'[' | b'(' | b'{')) {
            self.i = skip_expression(self.s, start, false);
            self.refusals.push(Refusal {
                path: self.path.clone(),
                rule: rules::PYTHON_TOO_DEEP,
                expected: format!("values nested at most {MAX_DEPTH} levels deep"),
                received: "a deeper value".to_owned(),
                detail: format!("the value is nested deeper than {MAX_DEPTH} levels"),
            });
            return None;
        }
        let Some(b) = self.peek() else {
            self.not_literal(start);
            return None;
        };
        match b {
            b'[' => {
                self.i += 1;
                self.sequence(depth, b']').map(|(items, _)| Value::Array(items))
            }
            b'(' => self.tuple(depth),
            b'{' => self.braces(depth),
            b'\'' | b'"' => self.strings(),
            b'0'..=b'9' => self.number(start, false),
            b'.' if matches!(self.peek_at(1), Some(b'0'..=b'9')) => self.number(start, false),
            b'-' | b'+' => {
                let mut negative = false;
                while let Some(sign @ (b'-' | b'+')) = self.peek() {
                    negative ^= sign == b'-';
                    self.i += 1;
                    self.skip_blank();
                }
                match self.peek() {
                    Some(b'0'..=b'9') => self.number(start, negative),
                    Some(b'.') if matches!(self.peek_at(1), Some(b'0'..=b'9')) => self.number(start, negative),
                    _ => {
                        self.i = skip_expression(self.s, start, false);
                        self.not_literal(start);
                        None
                    }
                }
            }
            _ => {
                let len = identifier_len(&self.s[self.i..]);
                if len == 0 {
                    self.i = skip_expression(self.s, start, false);
                    self.not_literal(start);
                    return None;
                }
                if string_prefix(&self.s[self.i..self.i + len])
                    && matches!(self.s.as_bytes().get(self.i + len), Some(b'\'' | b'"'))
                {
                    return self.strings();
                }
                let word = &self.s[self.i..self.i + len];
                self.i += len;
                match word {
                    "True" => Some(Value::Bool(true)),
                    "False" => Some(Value::Bool(false)),
                    "None" => Some(Value::Null),
                    "true" | "false" | "null" => {
                        let (python, value) = match word {
                            "true" => ("`True`", Value::Bool(true)),
                            "false" => ("`False`", Value::Bool(false)),
                            _ => ("`None`", Value::Null),
                        };
                        self.note(rules::PYTHON_JSON_LITERAL, python, word.to_owned(), format!("read as {value}"));
                        Some(value)
                    }
                    _ => {
                        self.i = skip_expression(self.s, start, false);
                        self.not_literal(start);
                        None
                    }
                }
            }
        }
    }

    fn note(&mut self, rule: &'static str, expected: &'static str, received: String, action: String) {
        self.notes.push(Note { path: self.path.clone(), rule, expected, received, action });
    }

    /// The elements up to `close` (read past it); whether a comma followed the last one.
    fn sequence(&mut self, depth: usize, close: u8) -> Option<(Vec<Value>, bool)> {
        let mut items = Vec::new();
        let mut refused = false;
        let mut trailing_comma = false;
        loop {
            self.skip_blank();
            match self.peek() {
                Some(b) if b == close => {
                    self.i += 1;
                    break;
                }
                None => {
                    self.refusals.push(syntax_at(&self.path, close, "the end of the call".to_owned()));
                    return None;
                }
                _ => {}
            }
            let len = self.path.len();
            pointer::push(&mut self.path, &items.len().to_string());
            let item = self.element(depth + 1, false);
            self.path.truncate(len);
            match item {
                Some(item) => items.push(item),
                None => {
                    refused = true;
                    // Keep the indexes of the elements after it.
                    items.push(Value::Null);
                }
            }
            self.skip_blank();
            trailing_comma = self.eat(b',');
            if !trailing_comma {
                if self.eat(close) {
                    break;
                }
                self.mismatch(close);
                return None;
            }
        }
        (!refused).then_some((items, trailing_comma))
    }

    /// `(..)`: a tuple, read as a list; `(x)` without a comma is `x`.
    fn tuple(&mut self, depth: usize) -> Option<Value> {
        let start = self.i;
        self.i += 1;
        let (items, trailing_comma) = self.sequence(depth, b')')?;
        if items.len() == 1 && !trailing_comma {
            return items.into_iter().next();
        }
        let text = &self.s[start..self.i];
        self.note(rules::PYTHON_TUPLE, "a list", truncate(text), "read the tuple as a list".to_owned());
        Some(Value::Array(items))
    }

    /// `{..}`: a dict, or a set (read as a list).
    fn braces(&mut self, depth: usize) -> Option<Value> {
        let start = self.i;
        self.i += 1;
        self.skip_blank();
        if self.eat(b'}') {
            return Some(Value::Object(Map::new()));
        }
        let first_at = self.i;
        let (notes, refusals) = (self.notes.len(), self.refusals.len());
        let len = self.path.len();
        pointer::push(&mut self.path, "0");
        let first = self.element(depth + 1, true);
        self.path.truncate(len);
        self.skip_blank();
        if self.eat(b':') {
            return self.dict(depth, start, first);
        }
        // A set: its elements are read again as a sequence's, from the first.
        self.i = first_at;
        self.notes.truncate(notes);
        self.refusals.truncate(refusals);
        let (items, _) = self.sequence(depth, b'}')?;
        let text = &self.s[start..self.i];
        let mut seen = HashSet::with_capacity(items.len());
        let unique: Vec<Value> = items.into_iter().filter(|item| seen.insert(item.to_string())).collect();
        self.note(
            rules::PYTHON_SET,
            "a list",
            truncate(text),
            "read the set as a list of its distinct elements".to_owned(),
        );
        Some(Value::Array(unique))
    }

    /// The rest of a dict whose first key (`first`) was read, with its `:`.
    fn dict(&mut self, depth: usize, start: usize, first: Option<Value>) -> Option<Value> {
        let mut object = Map::new();
        let mut refused = false;
        let mut key = first;
        loop {
            let name = key.as_ref().and_then(|key| self.key_text(key));
            let len = self.path.len();
            pointer::push(&mut self.path, name.as_deref().unwrap_or(""));
            let value = self.element(depth + 1, false);
            match (name, value) {
                (Some(name), Some(value)) => self.insert_key(&mut object, name, value),
                _ => refused = true,
            }
            self.path.truncate(len);
            self.skip_blank();
            if !self.eat(b',') {
                if self.eat(b'}') {
                    break;
                }
                self.mismatch(b'}');
                return None;
            }
            self.skip_blank();
            if self.eat(b'}') {
                break;
            }
            let len = self.path.len();
            pointer::push(&mut self.path, &object.len().to_string());
            key = self.element(depth + 1, true);
            self.path.truncate(len);
            self.skip_blank();
            if !self.eat(b':') {
                // `{1: 2, 3}`: Python refuses a set and a dict mixed.
                self.i = skip_expression(self.s, start + 1, false);
                self.eat(b'}');
                self.not_literal(start);
                return None;
            }
        }
        (!refused).then_some(Value::Object(object))
    }

    /// A dict key as text: a string as it is; a number, `True`, `False` or `None` as
    /// `json.dumps` writes it, with a note; anything else refused.
    fn key_text(&mut self, key: &Value) -> Option<String> {
        let text = match key {
            Value::String(text) => return Some(text.clone()),
            Value::Number(_) | Value::Bool(_) | Value::Null => key.to_string(),
            Value::Array(_) | Value::Object(_) => {
                self.refusals.push(Refusal {
                    path: self.path.clone(),
                    rule: rules::PYTHON_DICT_KEY,
                    expected: "a text key".to_owned(),
                    received: truncate(&key.to_string()),
                    detail: "a JSON object's keys are text; a list, tuple or dict cannot be one".to_owned(),
                });
                return None;
            }
        };
        let mut at = self.path.clone();
        pointer::push(&mut at, &text);
        self.notes.push(Note {
            path: at,
            rule: rules::PYTHON_DICT_KEY,
            expected: "a text key",
            received: truncate(&text),
            action: format!("used the key as the text \"{}\", as json.dumps does", truncate(&text)),
        });
        Some(text)
    }

    /// Puts a dict's entry in; a key given twice keeps one value when both are the same,
    /// and is refused, naming both, when they differ.
    fn insert_key(&mut self, object: &mut Map<String, Value>, name: String, value: Value) {
        match object.get(&name) {
            None => {
                object.insert(name, value);
            }
            Some(earlier) if *earlier == value => {
                self.note(
                    rules::PYTHON_DUPLICATE_KEY,
                    "each key once",
                    format!("`{}` twice, with the same value", truncate(&name)),
                    "kept the value".to_owned(),
                );
            }
            Some(earlier) => {
                let received = format!("`{}` and `{}`", truncate(&earlier.to_string()), truncate(&value.to_string()));
                self.refusals.push(Refusal {
                    path: self.path.clone(),
                    rule: rules::PYTHON_DUPLICATE_KEY,
                    expected: "each key once".to_owned(),
                    received,
                    detail: format!("the key `{name}` was given twice with different values"),
                });
            }
        }
    }

    /// One string, or several written side by side (`'a' 'b'` is `'ab'`).
    fn strings(&mut self) -> Option<Value> {
        let start = self.i;
        let mut text = String::new();
        let mut refused = false;
        loop {
            let len = identifier_len(&self.s[self.i..]);
            let prefix = &self.s[self.i..self.i + len];
            if len > 0 && !string_prefix(prefix) {
                break;
            }
            let Some(quote @ (b'\'' | b'"')) = self.s.as_bytes().get(self.i + len).copied() else { break };
            let lower = prefix.to_ascii_lowercase();
            let raw = lower.contains('r');
            if lower.contains('b') || lower.contains('f') {
                refused = true;
            }
            self.i += len;
            let triple = self.s[self.i..].starts_with(if quote == b'"' { "\"\"\"" } else { "'''" });
            let open = if triple { 3 } else { 1 };
            self.i += open;
            let body_start = self.i;
            let body_end = string_end(self.s.as_bytes(), body_start, quote, triple);
            let body = &self.s[body_start..body_end];
            self.i = (body_end + open).min(self.s.len());
            if !triple && body.contains('\n') {
                self.note(
                    rules::PYTHON_NEWLINE_IN_STRING,
                    "`\\n` for a line break inside a quoted string",
                    "a line break".to_owned(),
                    "kept the line break in the text".to_owned(),
                );
            }
            if raw {
                text.push_str(body);
            } else {
                self.unescape(body, &mut text);
            }
            let after = self.i;
            self.skip_blank();
            let next = identifier_len(&self.s[self.i..]);
            let continues = matches!(self.s.as_bytes().get(self.i + next), Some(b'\'' | b'"'))
                && (next == 0 || string_prefix(&self.s[self.i..self.i + next]));
            if !continues {
                self.i = after;
                break;
            }
        }
        if refused {
            self.not_literal(start);
            return None;
        }
        Some(Value::String(text))
    }

    /// Appends `body` with its escapes read, as Python reads them.
    fn unescape(&mut self, body: &str, out: &mut String) {
        let mut rest = body;
        while let Some(at) = rest.find('\\') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let Some(c) = after.chars().next() else {
                out.push('\\');
                return;
            };
            let mut used = c.len_utf8();
            match c {
                '\n' => {}
                '\r' => used += usize::from(after[1..].starts_with('\n')),
                '\\' | '\'' | '"' => out.push(c),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'v' => out.push('\x0b'),
                '0'..='7' => {
                    let digits = after.bytes().take(3).take_while(|b| (b'0'..=b'7').contains(b)).count();
                    let code = u32::from_str_radix(&after[..digits], 8).unwrap_or(0);
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    used = digits;
                }
                'x' | 'u' | 'U' => {
                    let len = match c {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex = after.get(1..1 + len).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                    let code = hex.and_then(|h| u32::from_str_radix(h, 16).ok());
                    match code {
                        Some(code) if (0xD800..0xDC00).contains(&code) => {
                            // A JSON habit: a character beyond U+FFFF as two `\u` halves.
                            let low = after
                                .get(1 + len..1 + len + 6)
                                .and_then(|t| t.strip_prefix("\\u"))
                                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .filter(|low| (0xDC00..0xE000).contains(low));
                            if let Some(low) = low {
                                let joined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                out.push(char::from_u32(joined).unwrap_or('\u{fffd}'));
                                used = 1 + len + 6;
                                self.note(
                                    rules::PYTHON_SURROGATE_PAIR,
                                    "one `\\U` escape for a character beyond U+FFFF",
                                    truncate(&format!("\\{}", &after[..used])),
                                    "joined the two halves into one character".to_owned(),
                                );
                            } else {
                                out.push('\u{fffd}');
                                used = 1 + len;
                                self.lone_surrogate(&after[..used]);
                            }
                        }
                        Some(code) => match char::from_u32(code) {
                            Some(ch) => {
                                out.push(ch);
                                used = 1 + len;
                            }
                            None if (0xDC00..0xE000).contains(&code) => {
                                out.push('\u{fffd}');
                                used = 1 + len;
                                self.lone_surrogate(&after[..used]);
                            }
                            None => self.bad_escape(c, out),
                        },
                        None => self.bad_escape(c, out),
                    }
                }
                'N' if after[1..].starts_with('{') => {
                    let end = after.find('}').map_or(after.len(), |e| e + 1);
                    out.push('\\');
                    out.push_str(&after[..end]);
                    used = end;
                    self.note(
                        rules::PYTHON_NAMED_ESCAPE,
                        "the character itself, or its `\\u` escape",
                        truncate(&format!("\\{}", &after[..end])),
                        "kept the escape as written".to_owned(),
                    );
                }
                // Python keeps an escape it does not know as written.
                _ => {
                    out.push('\\');
                    out.push(c);
                }
            }
            rest = &after[used..];
        }
        out.push_str(rest);
    }

    fn lone_surrogate(&mut self, escape: &str) {
        self.note(
            rules::PYTHON_LONE_SURROGATE,
            "a character",
            format!("\\{escape}"),
            "read as U+FFFD, the replacement character: half a character is none".to_owned(),
        );
    }

    fn bad_escape(&mut self, c: char, out: &mut String) {
        out.push('\\');
        out.push(c);
        self.note(
            rules::PYTHON_BAD_ESCAPE,
            "a complete `\\x`, `\\u` or `\\U` escape",
            format!("\\{c}"),
            "kept the backslash and the letter as written".to_owned(),
        );
    }

    /// A number (its sign already read when `negative`), from `start` (the sign's place).
    fn number(&mut self, start: usize, negative: bool) -> Option<Value> {
        let digits_at = self.i;
        let bytes = self.s.as_bytes();
        let based = bytes.get(self.i) == Some(&b'0')
            && matches!(bytes.get(self.i + 1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'));
        let mut end = self.i;
        while let Some(&b) = bytes.get(end) {
            let exponent_sign = (b == b'+' || b == b'-') && !based && matches!(bytes[end - 1], b'e' | b'E');
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || exponent_sign {
                end += 1;
            } else {
                break;
            }
        }
        self.i = end;
        let literal = &self.s[digits_at..end];
        let sign = if negative { "-" } else { "" };
        let written = format!("{sign}{}", literal.replace('_', ""));
        if literal.ends_with(['j', 'J']) {
            self.not_literal(start);
            return None;
        }
        let value = if based {
            let radix = match literal.as_bytes()[1] {
                b'x' | b'X' => 16,
                b'o' | b'O' => 8,
                _ => 2,
            };
            let digits = &literal[2..];
            if !digits_ok(digits, radix, true) {
                self.not_literal(start);
                return None;
            }
            integer(u128::from_str_radix(&digits.replace('_', ""), radix).ok(), negative)
        } else if literal.contains(['.', 'e', 'E']) {
            if !float_ok(literal) {
                self.not_literal(start);
                return None;
            }
            written.parse::<f64>().ok().and_then(Number::from_f64).map(Value::Number)
        } else {
            if !digits_ok(literal, 10, false) {
                self.not_literal(start);
                return None;
            }
            let plain = literal.replace('_', "");
            if plain.len() > 1 && plain.starts_with('0') && plain.bytes().any(|b| b != b'0') {
                self.note(
                    rules::PYTHON_LEADING_ZERO,
                    "a number without leading zeros",
                    written.clone(),
                    format!("kept the digits as the text \"{written}\""),
                );
                return Some(Value::String(written));
            }
            integer(plain.parse::<u128>().ok(), negative)
        };
        match value {
            Some(value) => Some(value),
            None => {
                self.note(
                    rules::PYTHON_BIG_NUMBER,
                    "a number JSON holds (an integer within 64 bits, a finite float)",
                    truncate(&written),
                    format!("kept the number as the text \"{}\"", truncate(&written)),
                );
                Some(Value::String(written))
            }
        }
    }
}

/// `digits` (after a base's prefix) with Python's underscores: one between two digits (or,
/// after a prefix, before the first).
fn digits_ok(digits: &str, radix: u32, after_prefix: bool) -> bool {
    let body = if after_prefix { digits.strip_prefix('_').unwrap_or(digits) } else { digits };
    !body.is_empty()
        && !body.starts_with('_')
        && !body.ends_with('_')
        && !body.contains("__")
        && body.chars().all(|c| c == '_' || c.is_digit(radix))
}

/// A decimal float as Python writes one: `1.5`, `.5`, `1.`, `1e-9`, `1_000.5`.
fn float_ok(literal: &str) -> bool {
    let (mantissa, exponent) = match literal.find(['e', 'E']) {
        Some(at) => (&literal[..at], Some(&literal[at + 1..])),
        None => (literal, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            (!whole.is_empty() || !fraction.is_empty())
                && (whole.is_empty() || digits_ok(whole, 10, false))
                && (fraction.is_empty() || digits_ok(fraction, 10, false))
        }
        None => digits_ok(mantissa, 10, false),
    };
    let exponent_ok = exponent.is_none_or(|e| digits_ok(e.strip_prefix(['+', '-']).unwrap_or(e), 10, false));
    mantissa_ok && exponent_ok
}

/// An integer JSON holds, when it does.
fn integer(magnitude: Option<u128>, negative: bool) -> Option<Value> {
    let magnitude = magnitude?;
    if negative {
        if magnitude == 0 {
            return Some(Value::from(0));
        }
        let value = i128::try_from(magnitude).ok()?.checked_neg()?;
        i64::try_from(value).ok().map(Value::from)
    } else {
        u64::try_from(magnitude).ok().map(Value::from)
    }
}

/// Whether `word` is a string's prefix (`r`, `b`, `f`, `u`, `rb`, `fr`...).
fn string_prefix(word: &str) -> bool {
    matches!(word.to_ascii_lowercase().as_str(), "r" | "u" | "b" | "f" | "br" | "rb" | "fr" | "rf")
}

/// Where the string whose body begins at `from` ends (its closing quote, or the text's end).
fn string_end(bytes: &[u8], from: usize, quote: u8, triple: bool) -> usize {
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b if b == quote && (!triple || bytes[at..].starts_with(&[quote, quote, quote])) => return at,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// The end of the expression that begins at `from`: the first `,` (or, for a dict's key,
/// `:`) or unmatched closing bracket outside brackets and strings. Iterative: any depth.
fn skip_expression(s: &str, from: usize, key: bool) -> usize {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                if depth == 0 {
                    return at;
                }
                depth -= 1;
            }
            b',' if depth == 0 => return at,
            b':' if depth == 0 && key => return at,
            quote @ (b'\'' | b'"') => {
                let triple = bytes[at..].starts_with(&[quote, quote, quote]);
                let open = if triple { 3 } else { 1 };
                let end = string_end(bytes, at + open, quote, triple);
                at = (end + open).min(bytes.len());
                continue;
            }
            b'#' => {
                at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |e| at + e);
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    bytes.len()
}

/// What a refused value is, in the model's words.
fn kind(text: &str) -> &'static str {
    let name = dotted_name_len(text);
    let after = text[name..].trim_start();
    let lower = text.to_ascii_lowercase();
    if name > 0 && name == text.len() {
        if text.contains('.') {
            "a name, not a value"
        } else {
            "a variable name, not a value"
        }
    } else if (lower.starts_with('f') || lower.starts_with("rf") || lower.starts_with("fr"))
        && identifier_len(text) <= 2
        && text[identifier_len(text)..].starts_with(['\'', '"'])
    {
        "an f-string, computed when run"
    } else if (lower.starts_with('b') || lower.starts_with("rb") || lower.starts_with("br"))
        && identifier_len(text) <= 2
        && text[identifier_len(text)..].starts_with(['\'', '"'])
    {
        "bytes, not text"
    } else if text.contains(" for ") {
        "a comprehension, computed when run"
    } else if name > 0 && after.starts_with('(') {
        "a call, computed when run"
    } else if text.trim_end().ends_with(['j', 'J'])
        && text.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
    {
        "a complex number, which JSON cannot hold"
    } else if text.starts_with("lambda") {
        "a function, not a value"
    } else {
        "an expression, not a value"
    }
}
