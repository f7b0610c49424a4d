//! The parser: every `<function_calls>` block of a model's answer read into tool calls, from
//! the whole answer or chunk by chunk as it streams.
//!
//! It reads the protocol's own form (`<function_calls>`, `<invoke name="..">`, `<parameter name="..">`)
//! and, each with a warning, the variants models write: an `<invoke>` without its block, a name
//! in single quotes or none, and Qwen's `<tool_call><function=..><parameter=..>` (or a JSON
//! object in `<tool_call>`). What is not well formed is read as far as it can be, with a
//! warning that says what was expected, what came and what was done; the call's raw text is
//! kept whole in `raw_arguments`. Nothing here panics, and nothing the model wrote is dropped:
//! text outside the calls is the model's message.
//!
//! Every decision depends on the text alone, never on where the chunks were cut: a call is
//! emitted once the text after it settles it (normally its `</invoke>`), and what cannot be
//! settled yet waits for the next chunk.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use super::scan::{Form, Kind, Opening, Quoting, Scanner, Step, Token};
use super::values::{decode, typed, Reading, Shape};
use crate::catalog::ToolCatalog;
use crate::model::rules;
use crate::model::{pointer, truncate, ArgumentError, ArgumentErrors, ParseWarning, ToolCallRequest, ToolDefinition};

/// Reads the XML protocol's tool calls out of a model's answer, typed by the declared
/// parameters of the tools it knows. Cheap to clone.
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::xml::XmlParser;
///
/// /// Check whether a room is free.
/// #[tool]
/// fn check_availability(room: String, hours: u32) -> String {
///     format!("{room} is free for {hours} hours")
/// }
///
/// let catalog = ToolCatalog::builder().add_declared::<check_availability>().build().unwrap();
/// let answer = "Let me check.\n<function_calls>\n<invoke name=\"check_availability\">\n\
///     <parameter name=\"room\">观星阁</parameter>\n<parameter name=\"hours\">2</parameter>\n\
///     </invoke>\n</function_calls>";
/// let response = XmlParser::new(&catalog).parse(answer);
/// assert_eq!(response.text, "Let me check.\n");
/// assert_eq!(response.calls[0].tool_name, "check_availability");
/// assert_eq!(response.calls[0].arguments, Some(serde_json::json!({"room": "观星阁", "hours": 2})));
/// assert!(response.calls[0].parse_warnings.is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct XmlParser {
    shapes: Arc<HashMap<String, Shape>>,
    conversation: Option<String>,
    call_ids: String,
}

impl XmlParser {
    /// A parser for the tools of `catalog`.
    pub fn new(catalog: &ToolCatalog) -> Self {
        Self::for_tools(catalog.definitions())
    }

    /// A parser for `tools`. Calls to other tools are still read, with every value as text.
    pub fn for_tools<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Self {
        let shapes = tools.into_iter().map(|d| (d.name.clone(), Shape::of(d))).collect();
        XmlParser { shapes: Arc::new(shapes), conversation: None, call_ids: "xml_call_".to_owned() }
    }

    /// Puts every call in `conversation` (see [`ToolCallRequest::conversation_id`]).
    pub fn in_conversation(mut self, conversation: impl Into<String>) -> Self {
        self.conversation = Some(conversation.into());
        self
    }

    /// The protocol has no call ids, so the parser numbers the calls of an answer from 0 after
    /// this prefix (`xml_call_` unless set).
    pub fn call_id_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.call_ids = prefix.into();
        self
    }

    /// Reads a whole answer.
    pub fn parse(&self, answer: &str) -> XmlResponse {
        let mut stream = self.stream();
        let mut events = stream.feed(answer);
        events.extend(stream.finish());
        XmlResponse::from_events(events)
    }

    /// A parser for an answer that arrives in chunks.
    pub fn stream(&self) -> XmlStream {
        XmlStream {
            parser: self.clone(),
            buf: String::new(),
            pos: 0,
            scanner: Scanner::default(),
            state: State::Outside,
            calls: 0,
            tail: Utf8Tail::default(),
            events: Vec::new(),
        }
    }
}

/// What a whole answer holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct XmlResponse {
    /// The model's own words: the text outside the calls, in order (text inside a
    /// `<function_calls>` block but outside its invokes is trimmed).
    pub text: String,
    /// The calls, in order, each with its raw text in `raw_arguments`, its values in
    /// `arguments` and its warnings in `parse_warnings`.
    pub calls: Vec<ToolCallRequest>,
    /// What concerns the answer's structure rather than one call (a block never closed).
    pub warnings: Vec<ParseWarning>,
}

impl XmlResponse {
    /// The response the events of a stream add up to.
    pub fn from_events(events: impl IntoIterator<Item = XmlEvent>) -> Self {
        let mut response = XmlResponse::default();
        for event in events {
            match event {
                XmlEvent::Text(text) => response.text.push_str(&text),
                XmlEvent::Call(call) => response.calls.push(call),
                XmlEvent::Warning(warning) => response.warnings.push(warning),
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
pub enum XmlEvent {
    /// Some of the model's own words.
    Text(String),
    /// A call, complete.
    Call(ToolCallRequest),
    /// Something about the answer's structure rather than one call.
    Warning(ParseWarning),
}

/// An answer being read as it streams: [`XmlStream::feed`] each chunk, then
/// [`XmlStream::finish`]. The text outside the calls comes out as it arrives; each call comes
/// out whole, as soon as the text settles it, never half. Chunks may be cut anywhere, and the
/// events add up to what [`XmlParser::parse`] gives for the whole answer.
#[derive(Debug)]
pub struct XmlStream {
    parser: XmlParser,
    /// The text not yet given out (from the start of an open call, at least).
    buf: String,
    /// Where in `buf` reading goes on.
    pos: usize,
    scanner: Scanner,
    state: State,
    /// Calls given out so far.
    calls: usize,
    /// The start of a UTF-8 character cut by a chunk's end ([`XmlStream::feed_bytes`]).
    tail: Utf8Tail,
    events: Vec<XmlEvent>,
}

#[derive(Debug)]
enum State {
    Outside,
    Block(Block),
    Invoke(Box<Invoke>),
}

/// An open `<function_calls>` (or `<tool_call>`) block.
#[derive(Debug)]
struct Block {
    form: Form,
    /// Text between its calls.
    text: String,
    /// Calls read in it so far.
    invokes: usize,
}

/// An open `<invoke>`.
#[derive(Debug)]
struct Invoke {
    /// The block it is in, to go back to.
    block: Option<Block>,
    start: usize,
    name: Option<String>,
    params: Vec<Param>,
    /// The parameter whose value is being read.
    open: Option<Param>,
    /// Text after the last parameter.
    pending: Option<(usize, usize)>,
    /// A `</invoke>` met inside the open parameter's value: it ends the call, unless a
    /// `</parameter>` follows and shows it was part of the value.
    maybe_end: Option<(usize, usize)>,
    warnings: Vec<ParseWarning>,
}

#[derive(Debug)]
struct Param {
    name: Option<String>,
    /// The value's raw text, as a range of the buffer.
    value: (usize, usize),
    /// Whether the value ended at its `</parameter>` (or its tag was `<parameter .. />`).
    closed: bool,
}

/// What stood where a closing tag was expected, when it was the end of the answer.
const THE_END: &str = "the end of the answer";

impl XmlStream {
    /// Reads a chunk; returns what it completed.
    pub fn feed(&mut self, chunk: &str) -> Vec<XmlEvent> {
        self.tail.flush(&mut self.buf);
        self.buf.push_str(chunk);
        self.run(false);
        std::mem::take(&mut self.events)
    }

    /// Reads a chunk of bytes, which may end inside a UTF-8 character (the rest of it is
    /// expected in the next chunk). Invalid UTF-8 is read as U+FFFD, as
    /// [`String::from_utf8_lossy`] reads it.
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Vec<XmlEvent> {
        self.tail.push(&mut self.buf, chunk);
        self.run(false);
        std::mem::take(&mut self.events)
    }

    /// Ends the answer: reads what was left open (a call without its `</invoke>` ends here,
    /// with a warning); returns what that completed.
    pub fn finish(mut self) -> Vec<XmlEvent> {
        self.tail.flush(&mut self.buf);
        self.run(true);
        self.events
    }

    fn run(&mut self, finished: bool) {
        loop {
            let in_value = matches!(&self.state, State::Invoke(invoke) if invoke.open.is_some());
            match self.scanner.next(&self.buf, self.pos, finished, in_value) {
                Step::More => break,
                Step::End => {
                    if self.end() {
                        break;
                    }
                }
                // Text and CDATA inside a value are part of it: the value's range grows when
                // it is closed, so there is nothing to do but read on.
                Step::Token(Token { kind: Kind::Text | Kind::CData, end, .. }) if in_value => self.pos = end,
                Step::Token(token) => self.token(token),
            }
        }
        self.compact();
    }

    /// Drops the text already given out, when no open call points into it.
    fn compact(&mut self) {
        if matches!(self.state, State::Invoke(_)) || self.pos == 0 {
            return;
        }
        if self.pos == self.buf.len() {
            self.buf.clear();
        } else if self.pos >= 4096 {
            self.buf.drain(..self.pos);
        } else {
            return;
        }
        self.pos = 0;
        self.scanner.reset();
    }

    fn token(&mut self, token: Token) {
        match std::mem::replace(&mut self.state, State::Outside) {
            State::Outside => self.outside(token),
            State::Block(block) => self.in_block(block, token),
            State::Invoke(invoke) => self.in_invoke(invoke, token),
        }
    }

    /// The answer is over. Returns whether reading is done; otherwise what was open is closed
    /// and the end is read again in the state that follows.
    fn end(&mut self) -> bool {
        match std::mem::replace(&mut self.state, State::Outside) {
            State::Outside => true,
            State::Block(block) => {
                let expected = match block.form {
                    Form::Xml => "`</function_calls>`",
                    Form::Qwen => "`</tool_call>`",
                };
                let json = block.form == Form::Qwen && block.invokes == 0 && block.text.trim_start().starts_with('{');
                let cut = || matches!(serde_json::from_str::<Value>(block.text.trim()), Err(error) if error.is_eof());
                match json.then(cut) {
                    // A Hermes/Qwen JSON call the end cut: refused, never read as words.
                    Some(true) => {
                        let call = self.cut_json_call(&block.text);
                        self.events.push(XmlEvent::Call(call));
                    }
                    _ => self.close_block(block),
                }
                self.events.push(structure(
                    rules::XML_UNCLOSED_BLOCK,
                    expected,
                    THE_END,
                    "read the calls the block holds",
                ));
                false
            }
            State::Invoke(invoke) => {
                self.interrupt(invoke, self.buf.len(), THE_END);
                false
            }
        }
    }

    fn outside(&mut self, token: Token) {
        self.pos = token.end;
        match token.kind {
            Kind::BlockOpen(form) => self.state = State::Block(Block { form, text: String::new(), invokes: 0 }),
            Kind::InvokeOpen(form, opening) => self.open_invoke(None, form, opening, (token.start, token.end)),
            // A block closed that never opened (its opening tag left out, as a call before it
            // was): markup, not the model's words.
            Kind::BlockClose(_) => self.events.push(structure(
                rules::XML_UNEXPECTED_TAG,
                "a block's closing tag after its opening tag",
                &self.buf[token.start..token.end],
                "ignored the tag",
            )),
            _ => self.text(token.start, token.end),
        }
    }

    fn in_block(&mut self, mut block: Block, token: Token) {
        self.pos = token.end;
        match token.kind {
            Kind::Text => block.text.push_str(&self.buf[token.start..token.end]),
            Kind::InvokeOpen(form, opening) => {
                self.flush_block_text(&mut block);
                return self.open_invoke(Some(block), form, opening, (token.start, token.end));
            }
            Kind::BlockClose(_) => return self.close_block(block),
            Kind::BlockOpen(_) => self.events.push(structure(
                rules::XML_NESTED_BLOCK,
                "one block at a time",
                &self.buf[token.start..token.end],
                "ignored the inner opening tag",
            )),
            _ => {
                let tag = &self.buf[token.start..token.end];
                let expected = "`<invoke name=\"..\">` or the block's closing tag";
                self.events.push(structure(rules::XML_UNEXPECTED_TAG, expected, tag, "kept the tag as text"));
                block.text.push_str(tag);
            }
        }
        self.state = State::Block(block);
    }

    /// Gives out the text met in a block, trimmed, if there is any.
    fn flush_block_text(&mut self, block: &mut Block) {
        let text = block.text.trim();
        if !text.is_empty() {
            push_text(&mut self.events, text);
        }
        block.text.clear();
    }

    /// Ends a block: a `<tool_call>` without `<function=..>` in it may hold a JSON call.
    fn close_block(&mut self, mut block: Block) {
        if block.form == Form::Qwen
            && block.invokes == 0
            && let Some(call) = self.json_call(&block.text)
        {
            self.events.push(XmlEvent::Call(call));
            return;
        }
        self.flush_block_text(&mut block);
    }

    /// The call in `<tool_call>{"name": .., "arguments": {..}}</tool_call>` (Hermes, Qwen 2.5).
    fn json_call(&mut self, text: &str) -> Option<ToolCallRequest> {
        let text = text.trim();
        let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(text) else { return None };
        let Some(Value::String(name)) = object.remove("name") else { return None };
        let arguments = object.remove("arguments").or_else(|| object.remove("parameters"));
        let raw = match arguments {
            None => "{}".to_owned(),
            Some(Value::String(text)) => text,
            Some(value) => value.to_string(),
        };
        let mut call = self.request(name, raw);
        call.parse_warnings.push(ParseWarning::new(
            "",
            rules::XML_JSON_TOOL_CALL,
            "`<function=..>` inside `<tool_call>`",
            &truncate(text),
            "read the JSON call",
        ));
        Some(call)
    }

    /// The call in `<tool_call>{"name": .., "arguments": {..` when the end of the answer cut
    /// it: its name and the arguments' text as far as they came, refused.
    fn cut_json_call(&mut self, text: &str) -> ToolCallRequest {
        // The value after `"key":`, as far as it came.
        let after_key = |key: &str| {
            let at = text.find(key)?;
            text[at + key.len()..].trim_start().strip_prefix(':').map(str::trim_start)
        };
        let name = after_key("\"name\"")
            .and_then(|value| serde_json::Deserializer::from_str(value).into_iter::<String>().next())
            .and_then(Result::ok)
            .unwrap_or_default();
        let raw = after_key("\"arguments\"").or_else(|| after_key("\"parameters\"")).unwrap_or_default().trim_end();
        let mut call = self.request(name, raw.to_owned());
        call.parse_error = Some(ArgumentErrors::single(ArgumentError {
            pointer: String::new(),
            rule: rules::TRUNCATED_CALL.to_owned(),
            expected: "the whole call, closed by `</tool_call>`".to_owned(),
            received: Some(THE_END.to_owned()),
            detail: "the answer ended inside the call, so its values may be cut short; it was not run".to_owned(),
        }));
        call
    }

    fn open_invoke(&mut self, block: Option<Block>, form: Form, opening: Opening, (start, end): (usize, usize)) {
        let tag = truncate(&self.buf[start..end]);
        let mut warnings = Vec::new();
        if block.is_none() {
            warnings.push(ParseWarning::new(
                "",
                rules::XML_NO_WRAPPER,
                "`<invoke>` inside a `<function_calls>` block",
                &tag,
                "read the call without its block",
            ));
        }
        if form == Form::Qwen {
            warnings.push(ParseWarning::new(
                "",
                rules::XML_QWEN_FORM,
                "`<invoke name=\"..\">` and `<parameter name=\"..\">`",
                &tag,
                "read Qwen's `<function=..>` form",
            ));
        }
        push_quoting_warning(&mut warnings, "", opening.quoting, &tag);
        if opening.name.is_none() {
            warnings.push(ParseWarning::new(
                "",
                rules::XML_MISSING_NAME,
                "`<invoke name=\"..\">`",
                &tag,
                "the call names no tool",
            ));
        }
        let invoke = Invoke {
            block,
            start,
            name: opening.name,
            params: Vec::new(),
            open: None,
            pending: None,
            maybe_end: None,
            warnings,
        };
        if opening.self_closing {
            self.emit_call(Box::new(invoke), end, None);
        } else {
            self.state = State::Invoke(Box::new(invoke));
        }
    }

    fn in_invoke(&mut self, mut invoke: Box<Invoke>, token: Token) {
        if let Some(mut open) = invoke.open.take() {
            if invoke.maybe_end.is_some() {
                match token.kind {
                    Kind::Text | Kind::CData | Kind::InvokeClose => invoke.open = Some(open),
                    Kind::ParamClose => {
                        invoke.warnings.push(close_tag_in_value(open.name.as_deref(), "</invoke>"));
                        open.value.1 = token.start;
                        invoke.params.push(open);
                        invoke.maybe_end = None;
                    }
                    // The `</invoke>` ended the call; what followed it is read again outside.
                    _ => {
                        invoke.open = Some(open);
                        return self.interrupt(invoke, token.start, "");
                    }
                }
                self.pos = token.end;
                self.state = State::Invoke(invoke);
                return;
            }
            match token.kind {
                Kind::Text | Kind::CData => invoke.open = Some(open),
                Kind::ParamClose => {
                    open.value.1 = token.start;
                    invoke.params.push(open);
                }
                Kind::InvokeClose => {
                    invoke.maybe_end = Some((token.start, token.end));
                    invoke.open = Some(open);
                }
                Kind::ParamOpen(_, opening) => {
                    open.value.1 = token.start;
                    let tag = truncate(&self.buf[token.start..token.end]);
                    invoke.warnings.push(unclosed_parameter(&mut open, &tag));
                    invoke.params.push(open);
                    self.open_param(&mut invoke, opening, (token.start, token.end));
                }
                // Another call, or the block's end: both this value and this call end here.
                _ => {
                    open.value.1 = token.start;
                    let tag = truncate(&self.buf[token.start..token.end]);
                    invoke.warnings.push(unclosed_parameter(&mut open, &tag));
                    invoke.params.push(open);
                    return self.interrupt(invoke, token.start, &tag);
                }
            }
            self.pos = token.end;
            self.state = State::Invoke(invoke);
            return;
        }
        match token.kind {
            Kind::Text | Kind::CData => {
                let start = invoke.pending.map_or(token.start, |(start, _)| start);
                invoke.pending = Some((start, token.end));
            }
            Kind::ParamOpen(_, opening) => {
                self.take_pending(&mut invoke);
                self.open_param(&mut invoke, opening, (token.start, token.end));
            }
            Kind::ParamClose => {
                let text_before = invoke.pending.filter(|&(s, e)| !self.buf[s..e].trim().is_empty());
                match (text_before, invoke.params.last_mut()) {
                    // `</parameter>` written inside the value: the first one closed it too soon.
                    (Some(_), Some(last)) => {
                        last.value.1 = token.start;
                        let warning = close_tag_in_value(last.name.as_deref(), "</parameter>");
                        invoke.warnings.push(warning);
                        invoke.pending = None;
                    }
                    _ => {
                        self.take_pending(&mut invoke);
                        invoke.warnings.push(ParseWarning::new(
                            "",
                            rules::XML_UNEXPECTED_TAG,
                            "`<parameter name=\"..\">` or `</invoke>`",
                            "</parameter>",
                            "ignored the tag",
                        ));
                    }
                }
            }
            Kind::InvokeClose => {
                self.take_pending(&mut invoke);
                self.pos = token.end;
                return self.emit_call(invoke, token.end, None);
            }
            _ => {
                self.take_pending(&mut invoke);
                let tag = truncate(&self.buf[token.start..token.end]);
                return self.interrupt(invoke, token.start, &tag);
            }
        }
        self.pos = token.end;
        self.state = State::Invoke(invoke);
    }

    /// Ends a call that `instead` (a tag at `at`, or the end) cut short: its open value ends
    /// there too. The reading goes on at `at` in the state that follows (or, after a
    /// `</invoke>` met in a value, just after that tag).
    fn interrupt(&mut self, mut invoke: Box<Invoke>, at: usize, instead: &str) {
        if let Some(mut open) = invoke.open.take() {
            if let Some((close_start, close_end)) = invoke.maybe_end {
                open.value.1 = close_start;
                invoke.warnings.push(unclosed_parameter(&mut open, "</invoke>"));
                invoke.params.push(open);
                self.pos = close_end;
                return self.emit_call(invoke, close_end, None);
            }
            open.value.1 = at;
            invoke.warnings.push(unclosed_parameter(&mut open, instead));
            invoke.params.push(open);
        }
        self.take_pending(&mut invoke);
        self.pos = at;
        self.emit_call(invoke, at, Some(instead));
    }

    /// Text between parameters is not part of any value: a warning keeps it.
    fn take_pending(&mut self, invoke: &mut Invoke) {
        if let Some((start, end)) = invoke.pending.take() {
            let text = self.buf[start..end].trim();
            if !text.is_empty() {
                invoke.warnings.push(ParseWarning::new(
                    "",
                    rules::XML_TEXT_IN_INVOKE,
                    "only parameters inside `<invoke>`",
                    &truncate(text),
                    "left the text out of the arguments",
                ));
            }
        }
    }

    fn open_param(&mut self, invoke: &mut Invoke, opening: Opening, (start, end): (usize, usize)) {
        if let Some(name) = &opening.name {
            let tag = truncate(&self.buf[start..end]);
            push_quoting_warning(&mut invoke.warnings, &pointer::child("", name), opening.quoting, &tag);
        }
        let param = Param { name: opening.name, value: (end, end), closed: true };
        if opening.self_closing {
            invoke.params.push(param);
        } else {
            invoke.open = Some(param);
        }
    }

    /// Gives the call out, with its values typed, and goes back to its block (or outside).
    /// `cut`: what stood where `</invoke>` was expected, when it was missing.
    fn emit_call(&mut self, invoke: Box<Invoke>, end: usize, cut: Option<&str>) {
        let Invoke { block, start, name, params, mut warnings, .. } = *invoke;
        let raw = &self.buf[start..end];
        let raw = if cut.is_some() { raw.trim_end() } else { raw };
        // A call the answer's end cut may have lost the end of its last value, or parameters
        // after it: it is refused, never run with what arrived (kept in the record).
        let cut_by_the_end = cut == Some(THE_END);
        if let Some(instead) = cut.filter(|_| !cut_by_the_end) {
            warnings.push(ParseWarning::new(
                "",
                rules::XML_UNCLOSED_INVOKE,
                "`</invoke>`",
                instead,
                "ended the call before it",
            ));
        }
        let arguments = self.arguments(name.as_deref().unwrap_or(""), &params, &mut warnings);
        let mut call = self.request(name.unwrap_or_default(), raw.to_owned());
        call.arguments = Some(Value::Object(arguments));
        call.parse_warnings = warnings;
        if cut_by_the_end {
            call.parse_error = Some(ArgumentErrors::single(ArgumentError {
                pointer: String::new(),
                rule: rules::TRUNCATED_CALL.to_owned(),
                expected: "the whole call, closed by `</invoke>`".to_owned(),
                received: Some(THE_END.to_owned()),
                detail: "the answer ended inside the call, so its values may be cut short; it was not run".to_owned(),
            }));
        }
        self.events.push(XmlEvent::Call(call));
        self.state = match block {
            Some(mut block) => {
                block.invokes += 1;
                State::Block(block)
            }
            None => State::Outside,
        };
    }

    /// The arguments object of a call to `tool`: each value decoded and typed by its declared
    /// parameter.
    fn arguments(&self, tool: &str, params: &[Param], warnings: &mut Vec<ParseWarning>) -> Map<String, Value> {
        let shape = self.parser.shapes.get(tool);
        let mut arguments = Map::with_capacity(params.len());
        for param in params {
            let mut unclosed_cdata = false;
            let text = decode(&self.buf[param.value.0..param.value.1], param.closed, &mut unclosed_cdata);
            let Some(name) = &param.name else {
                warnings.push(ParseWarning::new(
                    "",
                    rules::XML_MISSING_NAME,
                    "`<parameter name=\"..\">`",
                    &truncate(&text),
                    "left the value out of the arguments",
                ));
                continue;
            };
            let at = pointer::child("", name);
            if unclosed_cdata {
                warnings.push(ParseWarning::new(
                    &at,
                    rules::XML_UNCLOSED_CDATA,
                    "`]]>` after `<![CDATA[`",
                    "`<![CDATA[` without `]]>`",
                    "read the section as text",
                ));
            }
            let (reading, list) = shape.map_or((Reading::Text, false), |shape| shape.reading(name));
            let value = typed(text, reading);
            let Some(earlier) = arguments.get_mut(name.as_str()) else {
                arguments.insert(name.clone(), value);
                continue;
            };
            let action = if list {
                let mut items = match earlier.take() {
                    Value::Array(items) => items,
                    one => vec![one],
                };
                match value {
                    Value::Array(more) => items.extend(more),
                    one => items.push(one),
                }
                *earlier = Value::Array(items);
                "joined the values into one list"
            } else {
                *earlier = value;
                "kept the last value"
            };
            let received = format!("`{}` more than once", truncate(name));
            warnings.push(ParseWarning::new(&at, rules::DUPLICATE_PARAMETER, "each parameter once", &received, action));
        }
        arguments
    }

    /// A request numbered as the next call, in the parser's conversation.
    fn request(&mut self, name: String, raw: String) -> ToolCallRequest {
        let id = format!("{}{}", self.parser.call_ids, self.calls);
        self.calls += 1;
        let mut call = ToolCallRequest::new(name, id, raw);
        call.conversation_id.clone_from(&self.parser.conversation);
        call
    }

    fn text(&mut self, start: usize, end: usize) {
        push_text(&mut self.events, &self.buf[start..end]);
    }
}

/// The start of a UTF-8 character a chunk of bytes cut, kept for the next chunk.
#[derive(Debug, Default)]
pub(crate) struct Utf8Tail(Vec<u8>);

impl Utf8Tail {
    /// Appends `chunk` to `buf` as UTF-8 (invalid sequences as U+FFFD), after what the last
    /// chunk left; keeps the start of a character cut by the chunk's end.
    pub fn push(&mut self, buf: &mut String, chunk: &[u8]) {
        if self.0.is_empty() {
            let cut = push_utf8(buf, chunk);
            self.0.extend_from_slice(&chunk[cut..]);
        } else {
            // The end of a character cut by the last chunk: read it together with this one.
            let mut bytes = std::mem::take(&mut self.0);
            bytes.extend_from_slice(chunk);
            let cut = push_utf8(buf, &bytes);
            bytes.drain(..cut);
            self.0 = bytes;
        }
    }

    /// Bytes of a cut character that never got their end: U+FFFD.
    pub fn flush(&mut self, buf: &mut String) {
        if !self.0.is_empty() {
            buf.push_str(&String::from_utf8_lossy(&self.0));
            self.0.clear();
        }
    }
}

/// Appends `bytes` to `buf` as UTF-8, invalid sequences as U+FFFD; returns where a character
/// cut by the end of `bytes` begins (`bytes.len()` when none is).
fn push_utf8(buf: &mut String, bytes: &[u8]) -> usize {
    let mut start = 0;
    loop {
        match std::str::from_utf8(&bytes[start..]) {
            Ok(valid) => {
                buf.push_str(valid);
                return bytes.len();
            }
            Err(error) => {
                let valid_end = start + error.valid_up_to();
                buf.push_str(std::str::from_utf8(&bytes[start..valid_end]).unwrap_or_default());
                match error.error_len() {
                    Some(len) => {
                        buf.push(char::REPLACEMENT_CHARACTER);
                        start = valid_end + len;
                    }
                    None => return valid_end,
                }
            }
        }
    }
}

/// A warning about the answer's structure rather than one call.
fn structure(rule: &'static str, expected: &'static str, received: &str, action: &str) -> XmlEvent {
    XmlEvent::Warning(ParseWarning::new("", rule, expected, &truncate(received), action))
}

/// Adds text to the events, to the last one when it is text too.
fn push_text(events: &mut Vec<XmlEvent>, text: &str) {
    match events.last_mut() {
        Some(XmlEvent::Text(last)) => last.push_str(text),
        _ => events.push(XmlEvent::Text(text.to_owned())),
    }
}

/// The warning for a name written in single quotes or none.
fn push_quoting_warning(warnings: &mut Vec<ParseWarning>, at: &str, quoting: Quoting, tag: &str) {
    let action = match quoting {
        Quoting::Double | Quoting::Bare => return,
        Quoting::Single => "read the name in single quotes",
        Quoting::Unquoted => "read the unquoted name",
    };
    warnings.push(ParseWarning::new(at, rules::XML_ATTRIBUTE_QUOTES, "`name=\"..\"`, in double quotes", tag, action));
}

/// The warning for a value that did not end at its `</parameter>`.
fn unclosed_parameter(param: &mut Param, instead: &str) -> ParseWarning {
    param.closed = false;
    let name = param.name.as_deref();
    let at = name.map(|name| pointer::child("", name)).unwrap_or_default();
    ParseWarning::new(&at, rules::XML_UNCLOSED_PARAMETER, "`</parameter>`", instead, "ended the value before it")
}

/// The warning for a closing tag written inside a value.
fn close_tag_in_value(name: Option<&str>, tag: &str) -> ParseWarning {
    let at = name.map(|name| pointer::child("", name)).unwrap_or_default();
    ParseWarning::new(
        &at,
        rules::XML_CLOSE_TAG_IN_VALUE,
        "one `</parameter>`, after the value",
        tag,
        "kept the tag and the text after it in the value",
    )
}
