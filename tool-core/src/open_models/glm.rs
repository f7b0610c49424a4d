//! GLM-4.5, 4.6 and 4.7: each call a `<tool_call>` block, the tool's name first, then its
//! arguments as pairs of text.
//!
//! `<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>`
//!
//! GLM-4.7 writes the same without the line breaks, and a call without arguments is
//! `<tool_call>get_time</tool_call>`. A value is text: the chat template writes strings as they
//! are and everything else as JSON, so each value is typed by its declared parameter, without a
//! warning (`3` for an integer is the form's own way to write it). Read with a warning: a value
//! or a key left open, a key without its value, text between the pairs, a call left open.

use memchr::memmem;

use super::reader::{first_token, starts, Body, Cx, Opens, RawCall, Reader, Step};
use crate::model::rules;
use crate::model::{pointer, truncate, ParseWarning};

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const KEY: &str = "<arg_key>";
const KEY_END: &str = "</arg_key>";
const VALUE: &str = "<arg_value>";
const VALUE_END: &str = "</arg_value>";

#[derive(Debug, Default)]
pub(super) struct Glm {
    /// Where the search for the call's end goes on.
    scanned: Option<usize>,
    /// The call was given out: what follows it is outside.
    done: bool,
}

impl Reader for Glm {
    fn triggers(&self) -> &'static [u8] {
        b"<"
    }

    fn opens(&self, _: &Cx, buf: &str, at: usize, _: bool, finished: bool) -> Opens {
        let text = &buf[at..];
        match starts(text, OPEN, finished) {
            Opens::Yes => {}
            other => return other,
        }
        // Hermes writes JSON after the tag, Qwen3-Coder `<function=`: GLM the tool's name, right
        // after it (or after a line break); prose that mentions the tag (`use <tool_call> here`)
        // puts a space there.
        let after = text[OPEN.len()..].trim_start_matches(['\n', '\r']);
        match after.chars().next() {
            None if !finished => Opens::More,
            Some(c) if c.is_alphabetic() || c == '_' => Opens::Yes,
            _ => Opens::No,
        }
    }

    fn step(&mut self, _: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        if std::mem::take(&mut self.done) {
            return Step::Out(pos);
        }
        let body_start = pos + OPEN.len();
        let from = self.scanned.unwrap_or(body_start).max(body_start);
        // The call ends at its `</tool_call>`, or, left open, where the next call begins.
        let end = first_token(buf.as_bytes(), from, &[CLOSE, OPEN]).map(|(at, token)| (at, token == CLOSE));
        let Some((end, closed)) = end else {
            if !finished {
                self.scanned = Some(buf.len().saturating_sub(CLOSE.len()).max(body_start));
                return Step::More;
            }
            self.scanned = None;
            self.done = true;
            let mut call = read_call(&buf[body_start.min(buf.len())..]);
            call.cut = Some("`</tool_call>`");
            return Step::Call(buf.len(), Box::new(call));
        };
        self.scanned = None;
        self.done = true;
        let mut call = read_call(&buf[body_start..end]);
        if closed {
            return Step::Call(end + CLOSE.len(), Box::new(call));
        }
        call.warnings.push(ParseWarning::new(
            "",
            rules::GLM_UNCLOSED_CALL,
            "`</tool_call>`",
            OPEN,
            "ended the call before it",
        ));
        Step::Call(end, Box::new(call))
    }
}

/// The call in `body`: the name, then the pairs.
fn read_call(body: &str) -> RawCall {
    let name_end = body.find('<').unwrap_or(body.len());
    let mut call = RawCall { name: body[..name_end].trim().to_owned(), ..RawCall::default() };
    call.raw = body[name_end..].trim().to_owned();
    let mut pairs = Vec::new();
    let mut rest = &body[name_end..];
    loop {
        let blank = rest.len() - rest.trim_start().len();
        rest = &rest[blank..];
        if rest.is_empty() {
            break;
        }
        let Some(after_key) = rest.strip_prefix(KEY) else {
            // Text that is no pair: up to the next key.
            let end = memmem::find(rest.as_bytes(), KEY.as_bytes()).unwrap_or(rest.len());
            call.warnings.push(ParseWarning::new(
                "",
                rules::GLM_STRAY_TEXT,
                "`<arg_key>..</arg_key><arg_value>..</arg_value>` pairs",
                &truncate(&rest[..end]),
                "ignored the text",
            ));
            rest = &rest[end..];
            continue;
        };
        let (key, after) = until(after_key, KEY_END, &[VALUE, KEY]);
        let key = key.trim().to_owned();
        let at = pointer::child("", &key);
        if after.closed.is_none() {
            call.warnings.push(ParseWarning::new(
                &at,
                rules::GLM_UNCLOSED_KEY,
                "`</arg_key>`",
                after.instead,
                "ended the key",
            ));
        }
        let rest_after_key = after.rest.trim_start();
        let Some(after_value) = rest_after_key.strip_prefix(VALUE) else {
            call.warnings.push(ParseWarning::new(
                &at,
                rules::GLM_MISSING_VALUE,
                "`<arg_value>` after the key",
                &truncate(rest_after_key),
                "left the key out of the arguments",
            ));
            rest = rest_after_key;
            continue;
        };
        let (value, after) = until(after_value, VALUE_END, &[KEY]);
        if after.closed.is_none() {
            call.warnings.push(ParseWarning::new(
                &at,
                rules::GLM_UNCLOSED_VALUE,
                "`</arg_value>`",
                after.instead,
                "ended the value before it",
            ));
        }
        pairs.push((key, value.to_owned()));
        rest = after.rest;
    }
    call.body = Body::Pairs(pairs);
    call
}

/// Where a piece of text ended.
struct Ended<'a> {
    /// The closing tag, when the text ended at it.
    closed: Option<&'static str>,
    /// What stood where the closing tag was expected.
    instead: &'static str,
    /// The text after the piece (and after its closing tag).
    rest: &'a str,
}

/// The text of `text` up to `close`, or, when another tag of `interrupts` comes first, up to
/// it (or to the end).
fn until<'a>(text: &'a str, close: &'static str, interrupts: &[&'static str]) -> (&'a str, Ended<'a>) {
    let closing = memmem::find(text.as_bytes(), close.as_bytes());
    let interrupt = interrupts
        .iter()
        .filter_map(|tag| memmem::find(text.as_bytes(), tag.as_bytes()).map(|at| (at, *tag)))
        .min_by_key(|(at, _)| *at);
    match (closing, interrupt) {
        (Some(at), interrupt) if interrupt.is_none_or(|(i, _)| at < i) => {
            (&text[..at], Ended { closed: Some(close), instead: "", rest: &text[at + close.len()..] })
        }
        (_, Some((at, tag))) => (&text[..at], Ended { closed: None, instead: tag, rest: &text[at..] }),
        _ => (text, Ended { closed: None, instead: "the end of the call", rest: "" }),
    }
}
