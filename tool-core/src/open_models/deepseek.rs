//! DeepSeek V3, R1 and V3.1: calls between special tokens written with U+FF5C `｜` and
//! U+2581 `▁`.
//!
//! V3 and R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n`
//! `` ```json\n{"city": "Paris"}\n``` ``<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, calls joined by `\n`.
//! V3.1: `<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>`.
//! The arguments are the JSON between the fence's lines or after the separator, however many
//! lines it spans; the text after the calls is the model's words. Read with a warning: a call
//! without the section's tokens, a call left open before the next one, no separator, V3's
//! arguments without their fence.

use super::reader::{first_token, starts, starts_any, Cx, Opens, RawCall, Reader, Step};
use super::tokens;
use crate::model::rules;
use crate::model::{truncate, ParseWarning};

const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";

#[derive(Debug, Default)]
pub(super) struct DeepSeek {
    state: State,
}

#[derive(Debug, Default)]
enum State {
    /// At the opening the engine found.
    #[default]
    Opening,
    /// In the section of calls, between calls; `words` when the model's words are being read
    /// there (blanks after them are words too, blanks after a token are layout).
    Section { words: bool },
    /// In a call that began at `start` (its `<｜tool▁call▁begin｜>`), searched up to `scanned`.
    Call { start: usize, in_section: bool, scanned: usize },
    /// A call without its section was given: what follows is outside.
    Done,
}

impl Reader for DeepSeek {
    fn triggers(&self) -> &'static [u8] {
        b"<"
    }

    fn opens(&self, _: &Cx, buf: &str, at: usize, _: bool, finished: bool) -> Opens {
        starts_any(&buf[at..], &[CALLS_BEGIN, CALL_BEGIN], finished)
    }

    fn step(&mut self, _: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        match std::mem::take(&mut self.state) {
            State::Opening if buf[pos..].starts_with(CALLS_BEGIN) => {
                self.state = State::Section { words: false };
                Step::Skip(pos + CALLS_BEGIN.len())
            }
            State::Opening => {
                self.state = State::Call { start: pos, in_section: false, scanned: pos };
                Step::Warning(ParseWarning::new(
                    "",
                    rules::DEEPSEEK_NO_SECTION,
                    "`<｜tool▁calls▁begin｜>` before the call",
                    CALL_BEGIN,
                    "read the call without its section",
                ))
            }
            State::Section { words } => self.in_section(buf, pos, words, finished),
            State::Call { start, in_section, scanned } => self.in_call(buf, start, in_section, scanned, finished),
            State::Done => Step::Out(pos),
        }
    }
}

impl DeepSeek {
    fn in_section(&mut self, buf: &str, pos: usize, words: bool, finished: bool) -> Step {
        let text = &buf[pos..];
        let blank = text.len() - text.trim_start().len();
        if blank > 0 && !words {
            self.state = State::Section { words };
            return Step::Skip(pos + blank);
        }
        if text.is_empty() {
            if finished {
                return Step::Out(pos);
            }
            self.state = State::Section { words };
            return Step::More;
        }
        match starts(text, CALLS_END, finished) {
            Opens::Yes => return Step::Out(pos + CALLS_END.len()),
            Opens::More => {
                self.state = State::Section { words };
                return Step::More;
            }
            Opens::No => {}
        }
        match starts(text, CALL_BEGIN, finished) {
            Opens::Yes => {
                self.state = State::Call { start: pos, in_section: true, scanned: pos };
                Step::Skip(pos)
            }
            Opens::More => {
                self.state = State::Section { words };
                Step::More
            }
            // Words inside the section are the model's, up to the next token.
            Opens::No => {
                self.state = State::Section { words: true };
                Step::Text(memchr::memchr(b'<', &text.as_bytes()[1..]).map_or(buf.len(), |at| pos + 1 + at))
            }
        }
    }

    fn in_call(&mut self, buf: &str, start: usize, in_section: bool, scanned: usize, finished: bool) -> Step {
        let body_start = start + CALL_BEGIN.len();
        let from = scanned.max(body_start);
        // The call ends at its end token, or, left open, where the next call or the
        // section's end begins.
        let ends = [CALL_END, CALL_BEGIN, CALLS_END];
        let found = first_token(buf.as_bytes(), from, &ends);
        let next = if in_section { State::Section { words: false } } else { State::Done };
        let Some((end, token)) = found else {
            if !finished {
                let longest = ends.iter().map(|t| t.len()).max().unwrap_or(0);
                let scanned = buf.len().saturating_sub(longest).max(body_start);
                self.state = State::Call { start, in_section, scanned };
                return Step::More;
            }
            self.state = next;
            let mut call = read_call(tokens::trim_end(&buf[body_start.min(buf.len())..]));
            call.cut = Some("`<｜tool▁call▁end｜>`");
            return Step::Call(buf.len(), Box::new(call));
        };
        self.state = next;
        let mut call = read_call(&buf[body_start..end]);
        if token == CALL_END {
            return Step::Call(end + CALL_END.len(), Box::new(call));
        }
        call.warnings.push(ParseWarning::new(
            "",
            rules::DEEPSEEK_UNCLOSED_CALL,
            "`<｜tool▁call▁end｜>`",
            token,
            "ended the call before it",
        ));
        Step::Call(end, Box::new(call))
    }
}

/// The call in `body`: `function<｜tool▁sep｜>name\n```json\n{..}\n```` (V3) or
/// `name<｜tool▁sep｜>{..}` (V3.1).
fn read_call(body: &str) -> RawCall {
    let mut call = RawCall::default();
    let (head, rest) = match body.find(SEP) {
        Some(at) => (&body[..at], &body[at + SEP.len()..]),
        None => {
            let at = body.find(['{', '`']).unwrap_or(body.len());
            call.warnings.push(ParseWarning::new(
                "",
                rules::DEEPSEEK_NO_SEP,
                "`<｜tool▁sep｜>` after the call's type or name",
                &truncate(body.trim()),
                "read the name up to the arguments",
            ));
            (&body[..at], &body[at..])
        }
    };
    let after = rest.trim_start();
    let (name, arguments, v3) = if head.trim().is_empty() || after.starts_with('{') || after.starts_with("```") {
        // V3.1 (or no separator): the name, then the arguments.
        (head.trim(), after, false)
    } else {
        // V3: the type (`function`), then the name on its line, then the fenced arguments.
        let line_end = after.find(['\n', '`', '{']).unwrap_or(after.len());
        (after[..line_end].trim(), &after[line_end..], true)
    };
    call.name = name.to_owned();
    let arguments = arguments.trim();
    call.raw = match unfence(arguments) {
        Some(inner) => inner.to_owned(),
        None => {
            if v3 && !arguments.is_empty() {
                call.warnings.push(ParseWarning::new(
                    "",
                    rules::DEEPSEEK_NO_FENCE,
                    "the arguments in a ```json fence",
                    &truncate(arguments),
                    "read the arguments as they are",
                ));
            }
            arguments.to_owned()
        }
    };
    call
}

/// The text inside a markdown fence (`` ```json\n..\n``` ``; the closing fence may be missing
/// when the end of the answer cut it).
fn unfence(text: &str) -> Option<&str> {
    // The language's name (`json`) is the fence's own.
    let rest = text.strip_prefix("```")?.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    let rest = rest.trim();
    Some(rest.strip_suffix("```").unwrap_or(rest).trim())
}
