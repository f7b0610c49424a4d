//! Llama 3.1, 3.3 and 4's JSON calls: `{"name": "get_weather", "parameters": {"city": "Paris"}}`,
//! after `<|python_tag|>` (dropped as a special token) or alone, several separated by `;`.
//!
//! The form is plain text, so an object in the model's prose is a call only when it has the
//! call's shape: a string `"name"` and a `"parameters"` or `"arguments"` key, or a `"name"`
//! that is a declared tool; an object whose first keys are others (`{"name": "Alice", "age": 3}`)
//! is prose. Whether an object is a call is settled within its first [`WINDOW`] bytes, so a
//! long JSON document in the prose is not held back, nor scanned again at each chunk.
//! Read with a warning: calls separated by `,` or given as a JSON list, calls in a markdown
//! code fence (removed), the arguments as a JSON string, a declared name with its arguments beside it instead of under `parameters`,
//! keys a call does not have. Numbers written as strings (`"n": "10"`) are left to extraction,
//! which converts them by the declared type with its own warning.

use super::call::{call_key, ObjectRules};
use super::state::{JsonReader, State};
use crate::model::rules;
use crate::model::{truncate, ParseWarning};
use crate::open_models::json_extent::{key_name, string_value, Extent};
use crate::open_models::reader::{starts, Cx, Opens, Reader, Step};

/// How far into an object the reader looks for the call's shape before deciding it is prose.
pub(super) const WINDOW: usize = 512;

/// The rule ids of the warnings about a Llama call object.
pub(super) const OBJECT_RULES: ObjectRules = ObjectRules {
    name_not_string: rules::LLAMA_NAME_NOT_STRING,
    single_quotes: rules::LLAMA_SINGLE_QUOTES,
    arguments_string: rules::LLAMA_ARGUMENTS_STRING,
    unknown_key: rules::LLAMA_UNKNOWN_KEY,
    no_arguments_key: rules::LLAMA_NO_ARGUMENTS_KEY,
};

/// Whether Llama's calls open at `at` (a `{`, a `[` or a code fence).
pub(super) fn opens(cx: &Cx, buf: &str, at: usize, finished: bool) -> Opens {
    match buf.as_bytes()[at] {
        b'`' => match fence_opening(buf, at, finished) {
            Ok(to) => opens(cx, buf, to, finished),
            Err(opens) => opens,
        },
        b'{' => object_opens(cx, buf, at, finished),
        b'[' => {
            let bytes = buf.as_bytes();
            let limit = (at + WINDOW).min(bytes.len());
            match (at + 1..limit).find(|&i| !bytes[i].is_ascii_whitespace()) {
                Some(i) if bytes[i] == b'{' => object_opens(cx, buf, i, finished),
                Some(_) => Opens::No,
                None if limit == bytes.len() && !finished => Opens::More,
                None => Opens::No,
            }
        }
        _ => Opens::No,
    }
}

impl JsonReader {
    /// At the `{`, `[` or code fence the engine found.
    pub(super) fn llama_opening(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        if buf[pos..].starts_with('`') {
            let Ok(to) = fence_opening(buf, pos, finished) else {
                // `opens` found the fence's opening line whole in this same text.
                return Step::Out(pos);
            };
            self.fenced = true;
            self.state = State::Fence { to };
            return Step::Warning(ParseWarning::new(
                "",
                rules::LLAMA_CODE_FENCE,
                "the calls' JSON alone",
                &truncate(buf[pos..to].trim_end()),
                "removed the markdown code fence around the calls",
            ));
        }
        if buf[pos..].starts_with('[') {
            self.state = State::ListOpen;
            return Step::Warning(ParseWarning::new(
                "",
                rules::LLAMA_JSON_LIST,
                "one call object, or calls separated by `;`",
                "a JSON list of calls",
                "read each call in the list",
            ));
        }
        self.state = State::Object { extent: Extent::new(pos, true), in_list: false };
        Reader::step(self, cx, buf, pos, finished)
    }

    /// The calls end at `at`; inside a fence, after its closing line (Llama's alone).
    pub(super) fn out(&mut self, buf: &str, at: usize, finished: bool) -> Step {
        if !self.fenced {
            return Step::Out(at);
        }
        let bytes = buf.as_bytes();
        let limit = bytes.len().min(at + WINDOW);
        let close = (at..limit).find(|&i| !bytes[i].is_ascii_whitespace());
        let wait = |this: &mut Self| {
            this.state = State::Closing { at };
            Step::More
        };
        match close {
            None if !finished && limit == bytes.len() => return wait(self),
            Some(i) => match starts(&buf[i..], "```", finished) {
                Opens::Yes => {
                    self.fenced = false;
                    return Step::Out(i + 3);
                }
                Opens::More => return wait(self),
                Opens::No => {}
            },
            None => {}
        }
        self.fenced = false;
        Step::Out(at)
    }

    /// After a call: `;` (or `,`) and another call, or the end of the calls.
    pub(super) fn llama_after(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        let bytes = buf.as_bytes();
        // Blanks before a separator are looked over up to a bound, so that a long run of them
        // is not scanned again at each chunk.
        let skip = |from: usize| (from..bytes.len().min(from + WINDOW)).find(|&i| !bytes[i].is_ascii_whitespace());
        let Some(separator) = skip(pos) else {
            if finished || bytes.len() >= pos + WINDOW {
                return self.out(buf, pos, finished);
            }
            self.state = State::After;
            return Step::More;
        };
        let comma = match bytes[separator] {
            b';' => false,
            b',' => true,
            _ => return self.out(buf, pos, finished),
        };
        let Some(next) = skip(separator + 1) else {
            if finished || bytes.len() >= separator + 1 + WINDOW {
                return self.out(buf, pos, finished);
            }
            self.state = State::After;
            return Step::More;
        };
        if bytes[next] != b'{' {
            return self.out(buf, pos, finished);
        }
        match object_opens(cx, buf, next, finished) {
            Opens::No => self.out(buf, pos, finished),
            Opens::More => {
                self.state = State::After;
                Step::More
            }
            Opens::Yes => {
                self.state = State::Object { extent: Extent::new(next, true), in_list: false };
                if comma {
                    return Step::Warning(ParseWarning::new(
                        "",
                        rules::LLAMA_COMMA_SEPARATOR,
                        "`;` between calls",
                        ",",
                        "read the next call",
                    ));
                }
                Step::Skip(next)
            }
        }
    }
}

/// Where the calls begin after a code fence's opening line at `at` (`` ```json `` and the line
/// break), or whether an opening can begin there at all.
fn fence_opening(buf: &str, at: usize, finished: bool) -> Result<usize, Opens> {
    let bytes = buf.as_bytes();
    let more = if finished { Opens::No } else { Opens::More };
    match starts(&buf[at..], "```", finished) {
        Opens::Yes => {}
        other => return Err(other),
    }
    let limit = bytes.len().min(at + WINDOW);
    let mut i = at + 3;
    while i < limit && bytes[i].is_ascii_alphanumeric() {
        i += 1;
    }
    while i < limit && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'{' | b'[') if i > at + 3 && i < limit => Ok(i),
        None if limit == bytes.len() => Err(more),
        _ => Err(Opens::No),
    }
}

/// Whether the object at `at` is a call: a string name beside `parameters` or `arguments`, or
/// a declared tool's name; settled within its first [`WINDOW`] bytes.
fn object_opens(cx: &Cx, buf: &str, at: usize, finished: bool) -> Opens {
    let mut extent = Extent::new(at, true);
    let limit = at.saturating_add(WINDOW);
    let closed = extent.scan(buf, limit).is_some();
    let mut name: Option<String> = None;
    let mut arguments = false;
    // After a declared tool's name, other keys may be its arguments written beside it, unless
    // one is `description`: a tool's definition echoed back (`{"name": .., "description": ..}`)
    // is not a call. The object's keys within the window tell.
    let declared = |name: &Option<String>| name.as_deref().is_some_and(|name| cx.tool(name).is_some());
    for member in extent.members() {
        let key = key_name(&buf[member.key.clone()]);
        if key == "description" {
            return Opens::No;
        }
        if declared(&name) {
            if key == "parameters" || key == "arguments" {
                return Opens::Yes;
            }
            continue;
        }
        if !call_key(&key) {
            return Opens::No;
        }
        match key.as_str() {
            "parameters" | "arguments" => arguments = true,
            "name" if member.complete => match string_value(&buf[member.value.clone()]) {
                Some(text) if !text.is_empty() => name = Some(text),
                _ => return Opens::No,
            },
            _ => {}
        }
        if name.is_some() && arguments {
            return Opens::Yes;
        }
    }
    // A declared tool without arguments (`{"name": "get_time"}`) or with them beside its name,
    // once the object or the window ends without a `description`.
    if declared(&name) && (closed || extent.scanned() >= limit || finished) {
        return Opens::Yes;
    }
    if closed || extent.scanned() >= limit || finished {
        Opens::No
    } else {
        Opens::More
    }
}
