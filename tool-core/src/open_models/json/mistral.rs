//! Mistral's `[TOOL_CALLS]`, both generations.
//!
//! Before v11 (Mistral 7B v0.3, Mixtral 8x22B, Nemo, Small 3.0/3.1) one list of JSON calls,
//! each with the id the model gave it: `[TOOL_CALLS] [{"name": "get_weather", "arguments":
//! {"city": "Paris"}, "id": "a1B2c3D4e"}]` (Tekken tokenizers write no space after the token).
//! From v11 (Small 3.2, Magistral, Devstral, Ministral 3) one token per call:
//! `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`, with `[CALL_ID]a1B2c3D4e` before `[ARGS]`
//! in v11; the id is kept as the call's. Read with a warning: `name{..}` without `[ARGS]`, a
//! single object without its list, single-quoted keys and names, the arguments as a JSON
//! string, a name without arguments.

use super::call::ObjectRules;
use super::llama::WINDOW;
use super::state::{JsonReader, State};
use crate::model::rules;
use crate::model::{truncate, ParseWarning};
use crate::open_models::json_extent::Extent;
use crate::open_models::reader::{first_token, starts, starts_any, Opens, RawCall, Step};
use crate::open_models::tokens;

const TOOL_CALLS: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";

/// The rule ids of the warnings about a Mistral call object.
pub(super) const OBJECT_RULES: ObjectRules = ObjectRules {
    name_not_string: rules::MISTRAL_NAME_NOT_STRING,
    single_quotes: rules::MISTRAL_SINGLE_QUOTES,
    arguments_string: rules::MISTRAL_ARGUMENTS_STRING,
    unknown_key: rules::MISTRAL_UNKNOWN_KEY,
    no_arguments_key: rules::MISTRAL_NO_ARGUMENTS_KEY,
};

/// Whether Mistral's calls open at `at`: a `[TOOL_CALLS]`.
pub(super) fn opens(buf: &str, at: usize, finished: bool) -> Opens {
    starts(&buf[at..], TOOL_CALLS, finished)
}

impl JsonReader {
    /// At a `[TOOL_CALLS]`.
    pub(super) fn mistral_opening(&mut self, pos: usize) -> Step {
        self.state = State::AfterToken;
        Step::Skip(pos + TOOL_CALLS.len())
    }

    /// After `[ARGS]`.
    pub(super) fn args(&mut self, buf: &str, pos: usize, name: String, id: Option<String>, finished: bool) -> Step {
        let text = &buf[pos..];
        let blank = text.len() - text.trim_start().len();
        if blank > 0 {
            self.state = State::Args { name, id };
            return Step::Skip(pos + blank);
        }
        // The turn ended (`</s>`) where the arguments were due: as if the answer had.
        let ended = match tokens::dropped(text, finished).0 {
            Opens::More => {
                self.state = State::Args { name, id };
                return Step::More;
            }
            Opens::Yes => true,
            Opens::No => text.is_empty(),
        };
        if text.is_empty() && !finished {
            self.state = State::Args { name, id };
            return Step::More;
        }
        if ended {
            self.state = State::After;
            let call = RawCall { name, id, cut: Some("the arguments after `[ARGS]`"), ..RawCall::default() };
            return Step::Call(pos, Box::new(call));
        }
        match text.as_bytes().first() {
            Some(b'{') => {
                self.state = State::Arguments { name, id, extent: Extent::new(pos, false) };
                Step::Skip(pos)
            }
            _ => {
                self.state = State::Loose { name, id, start: pos, scanned: pos };
                Step::Skip(pos)
            }
        }
    }

    /// In the arguments object after `[ARGS]`.
    pub(super) fn arguments(
        &mut self,
        buf: &str,
        name: String,
        id: Option<String>,
        mut extent: Extent,
        finished: bool,
    ) -> Step {
        match extent.scan(buf, usize::MAX) {
            Some(end) => {
                self.state = State::After;
                let raw = buf[extent.start()..end].to_owned();
                Step::Call(end, Box::new(RawCall { name, id, raw, ..RawCall::default() }))
            }
            None if !finished => {
                self.state = State::Arguments { name, id, extent };
                Step::More
            }
            None => {
                self.state = State::After;
                let raw = buf[extent.start()..].to_owned();
                let cut = Some("the rest of the arguments and their closing `}`");
                Step::Call(buf.len(), Box::new(RawCall { name, id, raw, cut, ..RawCall::default() }))
            }
        }
    }

    /// In arguments that are no object, up to the next `[TOOL_CALLS]` or the end.
    pub(super) fn loose(
        &mut self,
        buf: &str,
        name: String,
        id: Option<String>,
        start: usize,
        scanned: usize,
        finished: bool,
    ) -> Step {
        let end = first_token(buf.as_bytes(), scanned, &[TOOL_CALLS, "</s>"]).map(|(at, _)| at);
        let end = match end {
            Some(end) => end,
            None if finished => buf.len(),
            None => {
                let scanned = buf.len().saturating_sub(TOOL_CALLS.len()).max(start);
                let scanned = (scanned..=buf.len()).find(|&i| buf.is_char_boundary(i)).unwrap_or(buf.len());
                self.state = State::Loose { name, id, start, scanned };
                return Step::More;
            }
        };
        self.state = State::After;
        let raw = buf[start..end].trim_end().to_owned();
        Step::Call(end, Box::new(RawCall { name, id, raw, ..RawCall::default() }))
    }

    /// After a call or list: another `[TOOL_CALLS]`, or the end of the calls.
    pub(super) fn mistral_after(&mut self, buf: &str, pos: usize, finished: bool) -> Step {
        // Blanks before the next `[TOOL_CALLS]` are looked over up to a bound, so that a
        // long run of them is not scanned again at each chunk.
        let bytes = buf.as_bytes();
        let bound = bytes.len().min(pos + WINDOW);
        let Some(at) = (pos..bound).find(|&i| !bytes[i].is_ascii_whitespace()) else {
            if finished || bound == pos + WINDOW {
                return Step::Out(pos);
            }
            self.state = State::After;
            return Step::More;
        };
        match starts(&buf[at..], TOOL_CALLS, finished) {
            Opens::Yes => Step::Skip(at),
            Opens::More => {
                self.state = State::After;
                Step::More
            }
            Opens::No => Step::Out(pos),
        }
    }

    pub(super) fn after_token(&mut self, buf: &str, pos: usize, finished: bool) -> Step {
        let text = &buf[pos..];
        let blank = text.len() - text.trim_start().len();
        if blank > 0 {
            self.state = State::AfterToken;
            return Step::Skip(pos + blank);
        }
        let at = pos;
        let rest = &buf[at..];
        match rest.as_bytes().first() {
            None if !finished => {
                self.state = State::AfterToken;
                Step::More
            }
            None => {
                self.state = State::After;
                let call = RawCall { cut: Some("a call after `[TOOL_CALLS]`"), ..RawCall::default() };
                Step::Call(buf.len(), Box::new(call))
            }
            Some(b'[') => match starts_any(rest, &[TOOL_CALLS, ARGS, CALL_ID], finished) {
                Opens::More => {
                    self.state = State::AfterToken;
                    Step::More
                }
                // `[TOOL_CALLS][ARGS]..`: a call without its name, read so (its tool is unknown).
                Opens::Yes if !rest.starts_with(TOOL_CALLS) => {
                    self.state = State::Name { start: at, scanned: at, name: None };
                    Step::Skip(at)
                }
                Opens::Yes => Step::Skip(at),
                Opens::No => {
                    self.state = State::List;
                    Step::Skip(at + 1)
                }
            },
            Some(b'{') => {
                self.state = State::Object { extent: Extent::new(at, true), in_list: false };
                Step::Warning(ParseWarning::new(
                    "",
                    rules::MISTRAL_NO_LIST,
                    "a list of calls `[{..}]` after `[TOOL_CALLS]`",
                    "one call object",
                    "read the call",
                ))
            }
            Some(_) => {
                self.state = State::Name { start: at, scanned: at, name: None };
                Step::Skip(at)
            }
        }
    }

    /// Reads a v11 name, or (`name` known) the id after `[CALL_ID]`, up to `[ARGS]`.
    pub(super) fn in_name(
        &mut self,
        buf: &str,
        start: usize,
        scanned: usize,
        name: Option<String>,
        finished: bool,
    ) -> Step {
        let bytes = buf.as_bytes();
        let mut at = scanned;
        while at < bytes.len() {
            match bytes[at] {
                b'{' => {
                    let piece = buf[start..at].trim().to_owned();
                    let (name, id) = split(name, piece);
                    let received = format!("`{}` then `{{`", truncate(&name));
                    self.state = State::Arguments { name, id, extent: Extent::new(at, false) };
                    return Step::Warning(ParseWarning::new(
                        "",
                        rules::MISTRAL_NO_ARGS_TOKEN,
                        "`[ARGS]` between the name and the arguments",
                        &received,
                        "read the arguments after the name",
                    ));
                }
                b'[' => match starts_any(&buf[at..], &[ARGS, CALL_ID, TOOL_CALLS], finished) {
                    Opens::More => {
                        self.state = State::Name { start, scanned: at, name };
                        return Step::More;
                    }
                    Opens::No => {}
                    Opens::Yes => {
                        let piece = buf[start..at].trim().to_owned();
                        let rest = &buf[at..];
                        if rest.starts_with(ARGS) {
                            let (name, id) = split(name, piece);
                            self.state = State::Args { name, id };
                            return Step::Skip(at + ARGS.len());
                        }
                        if rest.starts_with(CALL_ID) && name.is_none() {
                            let after = at + CALL_ID.len();
                            self.state = State::Name { start: after, scanned: after, name: Some(piece) };
                            return Step::Skip(after);
                        }
                        // The next call, or a second `[CALL_ID]`: this call has no arguments.
                        let (name, id) = split(name, piece);
                        let mut call = RawCall { name, id, raw: "{}".to_owned(), ..RawCall::default() };
                        call.warnings.push(ParseWarning::new(
                            "",
                            rules::MISTRAL_NO_ARGUMENTS,
                            "`[ARGS]` and the arguments after the name",
                            &truncate(&rest[..rest.find(']').map_or(rest.len(), |i| i + 1)]),
                            "read the call without arguments",
                        ));
                        self.state = State::After;
                        return Step::Call(at, Box::new(call));
                    }
                },
                b'<' => match tokens::dropped(&buf[at..], finished) {
                    (Opens::More, _) => {
                        self.state = State::Name { start, scanned: at, name };
                        return Step::More;
                    }
                    (Opens::Yes, _) => return self.cut_name(buf, start, at, name),
                    (Opens::No, _) => {}
                },
                _ => {}
            }
            at += 1;
        }
        if !finished {
            self.state = State::Name { start, scanned: at, name };
            return Step::More;
        }
        self.cut_name(buf, start, buf.len(), name)
    }

    /// A name (or id) the end of the answer, or its end-of-turn token at `end`, cut.
    fn cut_name(&mut self, buf: &str, start: usize, end: usize, name: Option<String>) -> Step {
        let piece = buf[start..end].trim().to_owned();
        let (name, id) = split(name, piece);
        self.state = State::After;
        let call = RawCall { name, id, cut: Some("`[ARGS]` and the arguments"), ..RawCall::default() };
        Step::Call(end, Box::new(call))
    }
}

/// The name and id of a v11 call: `piece` is the name, or the id when the name came before.
fn split(name: Option<String>, piece: String) -> (String, Option<String>) {
    match name {
        Some(name) => (name, Some(piece).filter(|id| !id.is_empty())),
        None => (piece, None),
    }
}
