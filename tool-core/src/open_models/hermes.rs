//! The forms the XML reader reads ([`crate::xml`]): Hermes's and Qwen's `<tool_call>` JSON,
//! Qwen3-Coder's `<tool_call><function=..><parameter=..>`, and this crate's `<function_calls>`.
//! Once an answer shows one of them, the XML reader reads the rest of it: this form's reader
//! hands it the text as it arrives and gives out its events as steps.

use std::collections::VecDeque;

use super::reader::{starts, starts_any, Cx, Opens, Reader, Step};
use super::tokens::TextFilter;
use crate::model::rules;
use crate::xml::{XmlEvent, XmlParser, XmlStream};

/// Whether one of the XML reader's forms opens at the start of `text`. `<tool_call>` alone is
/// not enough: GLM writes it too, with the tool's name after it.
fn opens(text: &str, finished: bool) -> Opens {
    match starts_any(text, &["<function_calls>", "<invoke", "<function="], finished) {
        Opens::No => {}
        found => return found,
    }
    if starts(text, "<tool_call>", finished) != Opens::Yes {
        return starts(text, "<tool_call>", finished);
    }
    let after = text["<tool_call>".len()..].trim_start();
    if after.starts_with('{') || after.starts_with("<function=") {
        Opens::Yes
    } else if !finished && (after.is_empty() || "<function=".starts_with(after)) {
        Opens::More
    } else {
        Opens::No
    }
}

/// The XML reader as a form's reader: from its opening on, every step hands it the text that
/// arrived and gives out what it read.
#[derive(Debug)]
pub(super) struct Hermes {
    /// The prefix of the call ids the model wrote none for.
    prefix: String,
    /// The conversation of the calls.
    conversation: Option<String>,
    /// The XML reader, from the first step until the answer ends.
    stream: Option<XmlStream>,
    /// Whether the XML reader was handed the end of the answer.
    ended: bool,
    /// The XML reader's words, without the special tokens.
    text: TextFilter,
    /// What it read and this reader has not given out yet.
    pending: VecDeque<Step>,
}

impl Hermes {
    pub(super) fn new(prefix: String, conversation: Option<String>) -> Self {
        Hermes {
            prefix,
            conversation,
            stream: None,
            ended: false,
            text: TextFilter::default(),
            pending: VecDeque::new(),
        }
    }

    /// The XML reader's events as steps, its words without the special tokens.
    fn queue(&mut self, events: Vec<XmlEvent>, finished: bool) {
        for event in events {
            match event {
                XmlEvent::Text(text) => {
                    let words = self.text.push(&text);
                    self.words(words);
                }
                XmlEvent::Call(mut call) => {
                    let words = self.text.flush();
                    self.words(words);
                    // The XML reader's own form is `<invoke>`: for it, Hermes's JSON and
                    // Qwen3-Coder's `<function=..>` are variants; here they are the forms the
                    // models were trained on, and say nothing about the call.
                    call.parse_warnings
                        .retain(|w| !matches!(w.rule(), rules::XML_JSON_TOOL_CALL | rules::XML_QWEN_FORM));
                    self.pending.push_back(Step::Request(Box::new(call)));
                }
                XmlEvent::Warning(warning) => {
                    let words = self.text.flush();
                    self.words(words);
                    self.pending.push_back(Step::Warning(warning));
                }
            }
        }
        if finished {
            let words = self.text.flush();
            self.words(words);
        }
    }

    fn words(&mut self, words: String) {
        if !words.is_empty() {
            self.pending.push_back(Step::Words(words));
        }
    }
}

impl Reader for Hermes {
    fn triggers(&self) -> &'static [u8] {
        b"<"
    }

    fn opens(&self, _: &Cx, buf: &str, at: usize, _: bool, finished: bool) -> Opens {
        opens(&buf[at..], finished)
    }

    /// Takes the text whole: what it was given is never read again.
    fn keeps_places(&self) -> bool {
        false
    }

    fn step(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        if let Some(step) = self.pending.pop_front() {
            return step;
        }
        if self.ended {
            return Step::Out(buf.len());
        }
        let stream = match &mut self.stream {
            Some(stream) => stream,
            None => {
                let parser = XmlParser::for_tools(cx.definitions()).call_id_prefix(self.prefix.clone());
                let parser = match &self.conversation {
                    Some(conversation) => parser.in_conversation(conversation.clone()),
                    None => parser,
                };
                self.stream.insert(parser.stream())
            }
        };
        let mut events = stream.feed(&buf[pos..]);
        if finished {
            self.ended = true;
            events.extend(self.stream.take().map(XmlStream::finish).unwrap_or_default());
        }
        self.queue(events, finished);
        if pos < buf.len() {
            return Step::Skip(buf.len());
        }
        match self.pending.pop_front() {
            Some(step) => step,
            None if finished => Step::Out(buf.len()),
            None => Step::More,
        }
    }
}
