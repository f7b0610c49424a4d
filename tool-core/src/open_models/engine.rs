//! The parser and its stream: the answer scanned for the places where a form's calls begin,
//! the text before them given out as the model's words, the calls read by their form's reader
//! and made into requests, in the answer's order.
//!
//! When the host names no form, the first form whose opening the answer shows is the answer's
//! form from then on: a model writes one form, and what looks like another one later (a Python
//! list in its prose after a Kimi call) is its words.

use std::sync::Arc;

use serde::Serialize;

use super::form::CallForm;
use super::hermes::Hermes;
use super::json::{JsonForm, JsonReader};
use super::reader::{Cx, Opens, Reader, Step};
use super::request::Requests;
use super::tokens;
use crate::catalog::ToolCatalog;
use crate::model::{ParseWarning, ToolCallRequest, ToolDefinition};
use crate::xml::Utf8Tail;

/// Reads the tool calls an open model wrote as text, typed by the declared parameters of the
/// tools it knows. Cheap to clone.
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::open_models::{CallForm, OpenModelParser};
///
/// /// Tell the weather in a city.
/// #[tool]
/// fn get_weather(city: String, days: u32) -> String {
///     format!("{city}: sunny for {days} days")
/// }
///
/// let catalog = ToolCatalog::builder().add_declared::<get_weather>().build().unwrap();
/// let answer = "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0\
///     <|tool_call_argument_begin|>{\"city\": \"Paris\", \"days\": 3}<|tool_call_end|>\
///     <|tool_calls_section_end|><|im_end|>";
/// let response = OpenModelParser::new(&catalog).parse(answer);
/// assert_eq!(response.form, Some(CallForm::Kimi));
/// assert_eq!(response.text, "Checking.");
/// assert_eq!(response.calls[0].tool_name, "get_weather");
/// assert_eq!(response.calls[0].call_id, "functions.get_weather:0");
/// assert_eq!(response.calls[0].raw_arguments, r#"{"city": "Paris", "days": 3}"#);
/// ```
#[derive(Debug, Clone)]
pub struct OpenModelParser {
    cx: Arc<Cx>,
    form: Option<CallForm>,
    conversation: Option<String>,
    call_ids: String,
}

impl OpenModelParser {
    /// A parser for the tools of `catalog`, reading whichever form the answer shows first.
    pub fn new(catalog: &ToolCatalog) -> Self {
        Self::for_tools(catalog.definitions())
    }

    /// A parser for `tools`. Calls to other tools are still read (the executor refuses them
    /// with the names it knows); their values are not typed by a declaration.
    pub fn for_tools<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Self {
        OpenModelParser { cx: Arc::new(Cx::new(tools)), form: None, conversation: None, call_ids: "call_".to_owned() }
    }

    /// Reads `form` alone: the host knows what its model writes, and text that looks like
    /// another form is the model's words.
    pub fn form(mut self, form: CallForm) -> Self {
        self.form = Some(form);
        self
    }

    /// Puts every call in `conversation` (see [`ToolCallRequest::conversation_id`]).
    pub fn in_conversation(mut self, conversation: impl Into<String>) -> Self {
        self.conversation = Some(conversation.into());
        self
    }

    /// Calls whose form carries no id are numbered from 0 after this prefix (`call_` unless
    /// set); an id the model wrote (Kimi's `functions.get_weather:0`, Mistral's `[CALL_ID]`)
    /// is kept, as the model expects it back.
    pub fn call_id_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.call_ids = prefix.into();
        self
    }

    /// Reads a whole answer.
    pub fn parse(&self, answer: &str) -> OpenModelResponse {
        let mut stream = self.stream();
        let mut events = stream.feed(answer);
        events.extend(stream.finish());
        OpenModelResponse::from_events(events)
    }

    /// A parser for an answer that arrives in chunks.
    pub fn stream(&self) -> OpenModelStream {
        let forms = match self.form {
            Some(form) => vec![form],
            None => CallForm::ALL.to_vec(),
        };
        let requests = Requests { conversation: self.conversation.clone(), prefix: self.call_ids.clone(), next: 0 };
        let readers: Vec<(CallForm, Box<dyn Reader>)> =
            forms.into_iter().map(|form| (form, reader(form, &requests))).collect();
        let mut triggers = [false; 256];
        for (_, reader) in &readers {
            for &byte in reader.triggers() {
                triggers[usize::from(byte)] = true;
            }
        }
        // The dropped special tokens all begin with `<`.
        triggers[usize::from(b'<')] = true;
        let line_starts = readers.iter().any(|(_, reader)| reader.opens_at_line_start());
        OpenModelStream {
            cx: Arc::clone(&self.cx),
            requests,
            locked: self.form,
            announced: false,
            readers,
            inside: false,
            buf: String::new(),
            pos: 0,
            scanned: 0,
            line_start: true,
            triggers,
            line_starts,
            tail: Utf8Tail::default(),
            events: Vec::new(),
        }
    }
}

/// The reader of `form`, for calls made as `requests` makes them.
fn reader(form: CallForm, requests: &Requests) -> Box<dyn Reader> {
    match form {
        CallForm::Hermes => Box::new(Hermes::new(requests.prefix.clone(), requests.conversation.clone())),
        CallForm::Kimi => Box::<super::kimi::Kimi>::default(),
        CallForm::Glm => Box::<super::glm::Glm>::default(),
        CallForm::DeepSeek => Box::<super::deepseek::DeepSeek>::default(),
        CallForm::Mistral => Box::new(JsonReader::new(JsonForm::Mistral)),
        CallForm::LlamaJson => Box::new(JsonReader::new(JsonForm::Llama)),
        CallForm::Harmony => Box::<super::harmony::Harmony>::default(),
        CallForm::Python => Box::<super::python::Python>::default(),
    }
}

/// What a whole answer holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OpenModelResponse {
    /// The form the calls were read in: the first whose markup the answer shows (`None` when it
    /// shows none). A form marked by its own tokens is named even when no call follows them
    /// (a harmony answer of an analysis and a final message, an empty Kimi section).
    pub form: Option<CallForm>,
    /// The model's own words: the text outside the calls, in order, special tokens left out.
    pub text: String,
    /// The calls, in order, each with its raw text in `raw_arguments`, its warnings in
    /// `parse_warnings` and, when the form's own literals were read into an object, that
    /// object in `arguments`.
    pub calls: Vec<ToolCallRequest>,
    /// What concerns the answer's structure rather than one call.
    pub warnings: Vec<ParseWarning>,
}

impl OpenModelResponse {
    /// The response the events of a stream add up to.
    pub fn from_events(events: impl IntoIterator<Item = OpenModelEvent>) -> Self {
        let mut response = OpenModelResponse::default();
        for event in events {
            match event {
                OpenModelEvent::Form(form) => response.form = Some(form),
                OpenModelEvent::Text(text) => response.text.push_str(&text),
                OpenModelEvent::Call(call) => response.calls.push(call),
                OpenModelEvent::Warning(warning) => response.warnings.push(warning),
            }
        }
        response
    }
}

/// What a stream yields, in the order of the answer.
// Most events are calls, each moved once to its consumer: boxing the call would cost every call
// an allocation to make the rarer text events smaller.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum OpenModelEvent {
    /// The form of the answer's calls, given once, before its first call.
    Form(CallForm),
    /// Some of the model's own words.
    Text(String),
    /// A call, complete.
    Call(ToolCallRequest),
    /// Something about the answer's structure rather than one call.
    Warning(ParseWarning),
}

/// An answer being read as it streams: [`OpenModelStream::feed`] each chunk, then
/// [`OpenModelStream::finish`]. The text outside the calls comes out as it arrives (what could
/// still be the start of a call or a special token waits for the next chunk); each call comes
/// out whole, as soon as the text settles it. Chunks may be cut anywhere, and the events add up
/// to what [`OpenModelParser::parse`] gives for the whole answer.
#[derive(Debug)]
pub struct OpenModelStream {
    cx: Arc<Cx>,
    requests: Requests,
    /// The answer's form, once named or seen.
    locked: Option<CallForm>,
    /// Whether the `Form` event was given.
    announced: bool,
    /// The forms still possible, in the order they are tried.
    readers: Vec<(CallForm, Box<dyn Reader>)>,
    /// Whether reading is inside the locked form's calls.
    inside: bool,
    /// The text not yet given out (from the start of an open call, at least).
    buf: String,
    /// Where in `buf` reading goes on.
    pos: usize,
    /// Outside the calls, where scanning for an opening goes on (no opening begins between
    /// `pos` and here).
    scanned: usize,
    /// Whether `scanned` is at the start of a line (spaces and tabs aside).
    line_start: bool,
    /// The bytes where an opening or a dropped token can begin.
    triggers: [bool; 256],
    /// Whether a form opens at a line's first identifier.
    line_starts: bool,
    /// The start of a UTF-8 character cut by a chunk's end ([`OpenModelStream::feed_bytes`]).
    tail: Utf8Tail,
    events: Vec<OpenModelEvent>,
}

impl OpenModelStream {
    /// Reads a chunk; returns what it completed.
    pub fn feed(&mut self, chunk: &str) -> Vec<OpenModelEvent> {
        self.tail.flush(&mut self.buf);
        self.buf.push_str(chunk);
        self.run(false);
        std::mem::take(&mut self.events)
    }

    /// Reads a chunk of bytes, which may end inside a UTF-8 character (the rest of it is
    /// expected in the next chunk). Invalid UTF-8 is read as U+FFFD, as
    /// [`String::from_utf8_lossy`] reads it.
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Vec<OpenModelEvent> {
        self.tail.push(&mut self.buf, chunk);
        self.run(false);
        std::mem::take(&mut self.events)
    }

    /// Ends the answer: a call it cut is refused (its record says what was missing); returns
    /// what that completed.
    pub fn finish(mut self) -> Vec<OpenModelEvent> {
        self.tail.flush(&mut self.buf);
        self.run(true);
        self.events
    }

    /// The answer's form, once the host named it or the answer showed it.
    pub fn form(&self) -> Option<CallForm> {
        self.locked
    }

    fn run(&mut self, finished: bool) {
        loop {
            let more = if self.inside { self.read_inside(finished) } else { self.scan_outside(finished) };
            if !more {
                break;
            }
        }
        self.compact();
    }

    /// Reads the locked form's calls; returns whether reading goes on outside them.
    fn read_inside(&mut self, finished: bool) -> bool {
        loop {
            let Some((_, reader)) = self.readers.first_mut() else { return false };
            match reader.step(&self.cx, &self.buf, self.pos, finished) {
                // A reader never waits on a finished answer; should one, what is left is text.
                Step::More if finished => {
                    self.text(self.buf.len());
                    self.inside = false;
                    return false;
                }
                Step::More => return false,
                Step::Text(end) => self.text(end),
                // Not merged with the words before: the reader gives them out as it read them.
                Step::Words(words) => self.events.push(OpenModelEvent::Text(words)),
                Step::Skip(end) => self.pos = end,
                Step::Call(end, raw) => {
                    let call = self.requests.make(&self.cx, *raw);
                    self.events.push(OpenModelEvent::Call(call));
                    self.pos = end;
                }
                Step::Request(call) => self.events.push(OpenModelEvent::Call(*call)),
                Step::Warning(warning) => self.events.push(OpenModelEvent::Warning(warning)),
                Step::Out(end) => {
                    self.pos = end;
                    self.scanned = end;
                    self.line_start = true;
                    self.inside = false;
                    return true;
                }
            }
        }
    }

    /// Scans the text outside the calls for the next opening; returns whether a form's
    /// calls begin (reading goes on inside them).
    fn scan_outside(&mut self, finished: bool) -> bool {
        let mut at = self.scanned.max(self.pos);
        let mut line_start = self.line_start;
        while at < self.buf.len() {
            let byte = self.buf.as_bytes()[at];
            let identifier = self.line_starts && line_start && (byte.is_ascii_alphabetic() || byte == b'_');
            if self.triggers[usize::from(byte)] || identifier {
                match self.opening(at, line_start, finished) {
                    Opens::No => {}
                    Opens::More => {
                        self.text(at);
                        self.scanned = at;
                        self.line_start = line_start;
                        return false;
                    }
                    Opens::Yes => return true,
                }
                // A dropped token moved reading past it.
                if self.pos > at {
                    at = self.pos;
                    line_start = true;
                    continue;
                }
            }
            line_start = match byte {
                b'\n' => true,
                b' ' | b'\t' | b'\r' => line_start,
                _ => false,
            };
            at += 1;
        }
        self.text(self.buf.len());
        self.scanned = self.buf.len();
        self.line_start = line_start;
        false
    }

    /// What begins at `at`: a dropped token (skipped here), a form's opening (reading is then
    /// inside it), or nothing.
    fn opening(&mut self, at: usize, line_start: bool, finished: bool) -> Opens {
        match tokens::dropped(&self.buf[at..], finished) {
            (Opens::Yes, len) => {
                self.text(at);
                self.pos = at + len;
                return Opens::No;
            }
            (Opens::More, _) => return Opens::More,
            (Opens::No, _) => {}
        }
        let mut found = None;
        for (index, (_, reader)) in self.readers.iter().enumerate() {
            match reader.opens(&self.cx, &self.buf, at, line_start, finished) {
                Opens::No => continue,
                Opens::More => return Opens::More,
                Opens::Yes => {
                    found = Some(index);
                    break;
                }
            }
        }
        let Some(index) = found else { return Opens::No };
        self.text(at);
        let (form, reader) = self.readers.swap_remove(index);
        self.readers = vec![(form, reader)];
        self.locked = Some(form);
        if !self.announced {
            self.announced = true;
            self.events.push(OpenModelEvent::Form(form));
        }
        self.inside = true;
        Opens::Yes
    }

    /// Gives out `buf[pos..end]` as the model's words.
    fn text(&mut self, end: usize) {
        if end > self.pos {
            let text = &self.buf[self.pos..end];
            match self.events.last_mut() {
                Some(OpenModelEvent::Text(last)) => last.push_str(text),
                _ => self.events.push(OpenModelEvent::Text(text.to_owned())),
            }
            self.pos = end;
        }
    }

    /// Drops the text already given out, when no call is open or the open one's reader keeps
    /// no place in it.
    fn compact(&mut self) {
        let kept = self.inside && self.readers.first().is_some_and(|(_, reader)| reader.keeps_places());
        if kept || self.pos == 0 {
            return;
        }
        if self.pos == self.buf.len() {
            self.buf.clear();
        } else if self.pos >= 4096 {
            self.buf.drain(..self.pos);
        } else {
            return;
        }
        self.scanned -= self.pos.min(self.scanned);
        self.pos = 0;
    }
}
