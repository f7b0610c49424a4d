//! Kimi K2 (Instruct and Thinking): a section of calls, each its id, then its JSON arguments.
//!
//! `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>`
//! `{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>`
//!
//! The id (`functions.{name}:{index}`, the index counting calls across the conversation) is the
//! call's id, kept as written because the model expects it back with the result; the tool's
//! name is the id without `functions.` and `:{index}` (a name may hold dots). Read with a
//! warning: the singular `<|tool_call_section_begin|>` some versions write, a call without its
//! section, an id without `functions.`, a call or section left open.

use super::reader::{first_token, starts, starts_any, Cx, Opens, RawCall, Reader, Step};
use crate::model::rules;
use crate::model::{truncate, ParseWarning};

const SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
const SECTION_BEGIN_SINGULAR: &str = "<|tool_call_section_begin|>";
const SECTION_END: &str = "<|tool_calls_section_end|>";
const SECTION_END_SINGULAR: &str = "<|tool_call_section_end|>";
const CALL_BEGIN: &str = "<|tool_call_begin|>";
const ARGUMENTS_BEGIN: &str = "<|tool_call_argument_begin|>";
const CALL_END: &str = "<|tool_call_end|>";

/// Where the reader stands.
#[derive(Debug, Default)]
pub(super) struct Kimi {
    state: State,
}

#[derive(Debug, Default)]
enum State {
    /// At the opening the engine found.
    #[default]
    Opening,
    /// In a section, between calls; `words` once the model's words began there (their blanks
    /// are then words too, up to the next token).
    Section { words: bool },
    /// In a call that began at `start` (its `<|tool_call_begin|>`), searched up to `scanned`.
    Call { start: usize, in_section: bool, scanned: usize },
    /// A call without its section was read: what follows it is outside.
    Out,
}

impl Reader for Kimi {
    fn triggers(&self) -> &'static [u8] {
        b"<"
    }

    fn opens(&self, _: &Cx, buf: &str, at: usize, _: bool, finished: bool) -> Opens {
        starts_any(&buf[at..], &[SECTION_BEGIN, SECTION_BEGIN_SINGULAR, CALL_BEGIN], finished)
    }

    fn step(&mut self, _: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        match self.state {
            State::Opening => {
                let text = &buf[pos..];
                if let Some(token) = [SECTION_BEGIN, SECTION_BEGIN_SINGULAR].into_iter().find(|t| text.starts_with(t)) {
                    self.state = State::Section { words: false };
                    if token == SECTION_BEGIN_SINGULAR {
                        return Step::Warning(ParseWarning::new(
                            "",
                            rules::KIMI_SECTION_TOKEN,
                            "`<|tool_calls_section_begin|>`",
                            SECTION_BEGIN_SINGULAR,
                            "read the section",
                        ));
                    }
                    return Step::Skip(pos + token.len());
                }
                self.state = State::Call { start: pos, in_section: false, scanned: pos };
                Step::Warning(ParseWarning::new(
                    "",
                    rules::KIMI_NO_SECTION,
                    "`<|tool_calls_section_begin|>` before the call",
                    CALL_BEGIN,
                    "read the call without its section",
                ))
            }
            State::Section { words } => self.in_section(buf, pos, words, finished),
            State::Out => {
                self.state = State::Opening;
                Step::Out(pos)
            }
            State::Call { start, in_section, scanned } => self.in_call(buf, start, in_section, scanned, finished),
        }
    }
}

impl Kimi {
    fn in_section(&mut self, buf: &str, pos: usize, words: bool, finished: bool) -> Step {
        // The singular opening token was read in `Opening` without being skipped.
        match starts(&buf[pos..], SECTION_BEGIN_SINGULAR, finished) {
            Opens::Yes => return Step::Skip(pos + SECTION_BEGIN_SINGULAR.len()),
            // Decided on the whole token, as reading the whole answer decides it.
            Opens::More => return Step::More,
            Opens::No => {}
        }
        let text = &buf[pos..];
        // Blanks between the tokens are markup; a chunk's cut must not make them so inside words.
        let blank = text.len() - text.trim_start().len();
        if blank > 0 && !words {
            return Step::Skip(pos + blank);
        }
        if text.is_empty() {
            if !finished {
                return Step::More;
            }
            self.state = State::Opening;
            return Step::Out(pos);
        }
        for token in [SECTION_END, SECTION_END_SINGULAR] {
            match starts(text, token, finished) {
                Opens::Yes => {
                    self.state = State::Opening;
                    return Step::Out(pos + token.len());
                }
                Opens::More => return Step::More,
                Opens::No => {}
            }
        }
        match starts(text, CALL_BEGIN, finished) {
            Opens::Yes => {
                self.state = State::Call { start: pos, in_section: true, scanned: pos };
                Step::Skip(pos)
            }
            Opens::More => Step::More,
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
        let ends = [CALL_END, CALL_BEGIN, SECTION_END, SECTION_END_SINGULAR];
        let found = first_token(buf.as_bytes(), from, &ends);
        let Some((end, token)) = found else {
            if !finished {
                let longest = ends.iter().map(|t| t.len()).max().unwrap_or(0);
                let scanned = buf.len().saturating_sub(longest).max(body_start);
                self.state = State::Call { start, in_section, scanned };
                return Step::More;
            }
            let mut call = read_call(&buf[body_start..]);
            call.cut = Some("`<|tool_call_end|>`");
            self.state = if in_section { State::Section { words: false } } else { State::Opening };
            let end = buf.len();
            return if in_section { Step::Call(end, Box::new(call)) } else { self.out_after(call, end) };
        };
        let mut call = read_call(&buf[body_start..end]);
        let after = if token == CALL_END {
            end + CALL_END.len()
        } else {
            call.warnings.push(ParseWarning::new(
                "",
                rules::KIMI_UNCLOSED_CALL,
                "`<|tool_call_end|>`",
                token,
                "ended the call before it",
            ));
            end
        };
        if in_section {
            self.state = State::Section { words: false };
            Step::Call(after, Box::new(call))
        } else {
            self.out_after(call, after)
        }
    }

    /// A call read without its section: the reader is outside again after it.
    fn out_after(&mut self, call: RawCall, end: usize) -> Step {
        self.state = State::Out;
        Step::Call(end, Box::new(call))
    }
}

/// The call in `body` (`functions.get_weather:0<|tool_call_argument_begin|>{..}`).
fn read_call(body: &str) -> RawCall {
    let mut call = RawCall::default();
    let (id, arguments) = match body.find(ARGUMENTS_BEGIN) {
        Some(at) => (body[..at].trim(), body[at + ARGUMENTS_BEGIN.len()..].trim()),
        None => {
            call.warnings.push(ParseWarning::new(
                "",
                rules::KIMI_NO_ARGUMENTS_TOKEN,
                "`<|tool_call_argument_begin|>` after the call's id",
                &truncate(body),
                "read the call without arguments",
            ));
            (body.trim(), "")
        }
    };
    let name = id.strip_prefix("functions.").unwrap_or_else(|| {
        call.warnings.push(ParseWarning::new(
            "",
            rules::KIMI_ID_FORM,
            "`functions.{name}:{index}`",
            &truncate(id),
            "read the name from the id",
        ));
        id
    });
    let name = match name.rsplit_once(':') {
        Some((name, index)) if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => name,
    };
    call.name = name.to_owned();
    call.id = (!id.is_empty()).then(|| id.to_owned());
    call.raw = if arguments.is_empty() { "{}".to_owned() } else { arguments.to_owned() };
    call
}
