//! gpt-oss's harmony format: the answer is a run of messages, each a header, `<|message|>`, its
//! text and an end token; a message with a recipient (`to=functions.get_weather`) is a call.
//!
//! `<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary`
//! ` to=functions.get_weather <|constrain|>json<|message|>{"location":"Paris"}<|call|>`
//!
//! A message without a recipient (the `analysis` channel's reasoning, a `commentary` preamble,
//! the `final` answer) is the model's words: its text is given out, its header and end token
//! dropped. The analysis text is kept rather than dropped because nothing in the answer is lost
//! (a host that shows only the final answer reads the `final` message itself): it is what the
//! `<think>` block is for the other families. Read as written, without a warning: the recipient
//! in the role part (`<|start|>assistant to=functions.x<|channel|>commentary`), no content type,
//! the built-in tools (`browser.search`, `python`, `container.exec`: a call to the tool named
//! as written). Read with a warning: a function call on another channel than `commentary`, a
//! bare recipient (`to=get_weather`), a content type written without `<|constrain|>`, a call
//! ended by `<|end|>` or `<|return|>`, a message left open before the next one, a header without
//! `<|message|>`, a message of another role (a tool's result, the user's turn: left out).
//!
//! `<|call|>` is the stop token of a turn that calls, and engines often leave stop tokens out of
//! the text they hand back: a call without it at the end of the answer is read, with a warning,
//! when its arguments are a whole JSON value; otherwise the length limit may have cut them, and
//! the call is refused as cut.

use super::reader::{starts, starts_any, Cx, Opens, RawCall, Reader, Step};
use crate::model::rules;
use crate::model::{truncate, ParseWarning};

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const CONSTRAIN: &str = "<|constrain|>";
const MESSAGE: &str = "<|message|>";
const END: &str = "<|end|>";
const CALL: &str = "<|call|>";
const RETURN: &str = "<|return|>";

/// What ends a header: its `<|message|>`, or, when it has none, a line break or another token.
const HEADER_ENDS: &[&str] = &[MESSAGE, "\n", START, END, CALL, RETURN];
/// What ends a message's text: its end token, or the next message's header.
const MESSAGE_ENDS: &[&str] = &[END, CALL, RETURN, START, CHANNEL];

/// The built-in tools' namespaces: their recipients are standard, and name the tool as written.
const BUILT_IN: &[&str] = &["browser.", "container."];

#[derive(Debug, Default)]
pub(super) struct Harmony {
    state: State,
}

#[derive(Debug, Default)]
enum State {
    /// At a header's opening token; the search for its end goes on from `scanned`.
    #[default]
    Header,
    HeaderFrom(usize),
    /// In a message's text, which begins at `body`; the search for its end goes on from
    /// `scanned`.
    Message {
        kind: Kind,
        body: usize,
        scanned: usize,
    },
    /// The message was read: reading goes on outside from `end`.
    Out(usize),
}

/// What a message is.
#[derive(Debug)]
enum Kind {
    /// The model's words.
    Words,
    /// A call, its name and warnings read from the header.
    Call(Box<RawCall>),
    /// A message of another role (a tool's result, the user's turn), left out.
    Other,
}

impl Reader for Harmony {
    fn triggers(&self) -> &'static [u8] {
        b"<"
    }

    fn opens(&self, _: &Cx, buf: &str, at: usize, _: bool, finished: bool) -> Opens {
        starts_any(&buf[at..], &[START, CHANNEL], finished)
    }

    fn step(&mut self, _: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        match std::mem::take(&mut self.state) {
            State::Header => self.header(buf, pos, pos, finished),
            State::HeaderFrom(scanned) => self.header(buf, pos, scanned, finished),
            State::Message { kind, body, scanned } => self.message(buf, pos, kind, body, scanned, finished),
            State::Out(end) => Step::Out(end),
        }
    }
}

impl Harmony {
    /// Reads the header that opens at `pos` (`<|start|>` or `<|channel|>`).
    fn header(&mut self, buf: &str, pos: usize, scanned: usize, finished: bool) -> Step {
        let opening = if buf[pos..].starts_with(START) { START.len() } else { CHANNEL.len() };
        let found = find(buf, scanned.max(pos + opening), HEADER_ENDS, finished);
        let end = match found {
            Found::At(at, token) if token == MESSAGE => at,
            Found::More(at) | Found::Nothing(at) if !finished => {
                self.state = State::HeaderFrom(at);
                return Step::More;
            }
            other => {
                let header = Header::read(&buf[pos..other.at()]);
                if finished && matches!(other, Found::Nothing(_)) && header.is_call() {
                    // The end of the answer cut the call in its header.
                    let mut call = header.call();
                    call.cut = Some("`<|message|>`, the arguments and `<|call|>`");
                    self.state = State::Out(buf.len());
                    return Step::Call(buf.len(), Box::new(call));
                }
                // Not a header after all: the opening token is dropped, what follows is text.
                self.state = State::Out(pos + opening);
                let instead = match other {
                    Found::At(_, "\n") => "a line break",
                    Found::At(_, token) => token,
                    _ => "the end of the answer",
                };
                return Step::Warning(ParseWarning::new(
                    "",
                    rules::HARMONY_NO_MESSAGE,
                    "`<|message|>` after the message's header",
                    instead,
                    "dropped the header's opening token and read what follows as text",
                ));
            }
        };
        let body = end + MESSAGE.len();
        let header = Header::read(&buf[pos..end]);
        if let Some(role) = header.role.filter(|role| *role != "assistant") {
            self.state = State::Message { kind: Kind::Other, body, scanned: body };
            return Step::Warning(ParseWarning::new(
                "",
                rules::HARMONY_OTHER_ROLE,
                "a message of the `assistant`",
                &format!("a message of `{}`", truncate(role)),
                "left the message out",
            ));
        }
        let kind = if header.is_call() { Kind::Call(Box::new(header.call())) } else { Kind::Words };
        self.state = State::Message { kind, body, scanned: body };
        Step::Skip(body)
    }

    /// Reads a message's text from `pos`, up to its end.
    fn message(&mut self, buf: &str, pos: usize, kind: Kind, body: usize, scanned: usize, finished: bool) -> Step {
        if pos < body {
            self.state = State::Message { kind, body, scanned };
            return Step::Skip(body);
        }
        let found = find(buf, scanned.max(pos), MESSAGE_ENDS, finished);
        match kind {
            Kind::Words => match found {
                // The words up to the end token, or up to what may still grow into one.
                Found::At(at, _) | Found::More(at) | Found::Nothing(at) if at > pos => {
                    self.state = State::Message { kind, body, scanned: at };
                    Step::Text(at)
                }
                Found::At(at, token) => self.ended(at, token, None),
                Found::More(at) | Found::Nothing(at) if !finished => {
                    self.state = State::Message { kind, body, scanned: at };
                    Step::More
                }
                Found::More(at) | Found::Nothing(at) => Step::Out(at),
            },
            Kind::Other => match found {
                Found::At(at, token) => self.ended(at, token, None),
                Found::More(at) | Found::Nothing(at) if !finished => {
                    self.state = State::Message { kind, body, scanned: at };
                    Step::More
                }
                Found::More(at) | Found::Nothing(at) => Step::Out(at),
            },
            Kind::Call(mut call) => match found {
                Found::At(at, token) => {
                    call.raw = arguments(&buf[body..at]);
                    self.ended(at, token, Some(call))
                }
                Found::More(at) | Found::Nothing(at) if !finished => {
                    self.state = State::Message { kind: Kind::Call(call), body, scanned: at };
                    Step::More
                }
                Found::More(_) | Found::Nothing(_) => {
                    call.raw = arguments(&buf[body..]);
                    // Engines leave the stop token out of the text they hand back: arguments
                    // that are a whole JSON value lost nothing, anything else may be cut.
                    if serde_json::from_str::<serde::de::IgnoredAny>(&call.raw).is_ok() {
                        call.warnings.push(ParseWarning::new(
                            "",
                            rules::HARMONY_NO_CALL_TOKEN,
                            "`<|call|>` after the arguments",
                            "the end of the answer",
                            "read the call: its arguments are whole",
                        ));
                    } else {
                        call.cut = Some("`<|call|>`");
                    }
                    self.state = State::Out(buf.len());
                    Step::Call(buf.len(), call)
                }
            },
        }
    }

    /// A message ended at `at` by `token`: the call it was given out, reading goes on outside.
    fn ended(&mut self, at: usize, token: &'static str, call: Option<Box<RawCall>>) -> Step {
        // The next message's header is read as the next message's.
        let after = if token == START || token == CHANNEL { at } else { at + token.len() };
        let unclosed = ParseWarning::new(
            "",
            rules::HARMONY_UNCLOSED_MESSAGE,
            "`<|end|>` or `<|call|>` at the message's end",
            token,
            "ended the message before it",
        );
        let Some(mut call) = call else {
            if after == at {
                self.state = State::Out(after);
                return Step::Warning(unclosed);
            }
            return Step::Out(after);
        };
        if after == at {
            call.warnings.push(unclosed);
        } else if token != CALL {
            call.warnings.push(ParseWarning::new(
                "",
                rules::HARMONY_CALL_END,
                "`<|call|>` at the call's end",
                token,
                "read the call",
            ));
        }
        self.state = State::Out(after);
        Step::Call(after, call)
    }
}

/// The arguments' text: the message's, or `{}` when the call has none.
fn arguments(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() { "{}" } else { text }.to_owned()
}

/// What a header says: `<|start|>{role} to={recipient}<|channel|>{channel} to={recipient}
/// <|constrain|>{content type}`, each part optional.
#[derive(Debug, Default)]
struct Header<'a> {
    role: Option<&'a str>,
    channel: Option<&'a str>,
    recipient: Option<&'a str>,
    /// The content type, and whether `<|constrain|>` announced it.
    content_type: Option<(&'a str, bool)>,
}

impl<'a> Header<'a> {
    fn read(text: &'a str) -> Self {
        let mut header = Header::default();
        let mut rest = text;
        let mut part = "";
        loop {
            // The part's text runs to the next token of the header.
            let next = next_token(rest);
            let (words, after) = match next {
                Some((at, token)) => (&rest[..at], Some((token, &rest[at + token.len()..]))),
                None => (rest, None),
            };
            let mut first = true;
            for word in words.split_whitespace() {
                if let Some(recipient) = word.strip_prefix("to=") {
                    header.recipient = header.recipient.or(Some(recipient).filter(|r| !r.is_empty()));
                    continue;
                }
                match part {
                    START if first => header.role = Some(word),
                    CHANNEL if first => header.channel = Some(word),
                    CONSTRAIN if first => header.content_type = Some((word, true)),
                    // A word after the channel (or the role) is its content type, written
                    // without `<|constrain|>`.
                    START | CHANNEL => header.content_type = header.content_type.or(Some((word, false))),
                    _ => {}
                }
                first = false;
            }
            let Some((token, after)) = after else { break };
            part = token;
            rest = after;
        }
        header
    }

    /// Whether the message goes to a tool rather than to a person.
    fn is_call(&self) -> bool {
        self.recipient
            .is_some_and(|recipient| !matches!(recipient, "assistant" | "user" | "all" | "system" | "developer"))
    }

    /// The call the header names, with the warnings its header earns.
    fn call(&self) -> RawCall {
        let recipient = self.recipient.unwrap_or_default();
        let mut call = RawCall::default();
        let function = recipient.strip_prefix("functions.");
        let built_in = recipient == "python" || BUILT_IN.iter().any(|namespace| recipient.starts_with(namespace));
        call.name = function.unwrap_or(recipient).to_owned();
        if built_in {
            return call;
        }
        if function.is_none() {
            call.warnings.push(ParseWarning::new(
                "",
                rules::HARMONY_BARE_RECIPIENT,
                "`to=functions.{name}`",
                &format!("to={}", truncate(recipient)),
                &format!("called the tool `{}`", truncate(recipient)),
            ));
        }
        if self.channel != Some("commentary") {
            let received =
                self.channel.map_or_else(|| "no channel".to_owned(), |c| format!("the `{}` channel", truncate(c)));
            call.warnings.push(ParseWarning::new(
                "",
                rules::HARMONY_CALL_CHANNEL,
                "the call on the `commentary` channel",
                &received,
                "read the call",
            ));
        }
        if let Some((content_type, false)) = self.content_type {
            call.warnings.push(ParseWarning::new(
                "",
                rules::HARMONY_CONTENT_TYPE,
                "`<|constrain|>json` before `<|message|>`",
                &truncate(content_type),
                "read the arguments as JSON",
            ));
        }
        call
    }
}

/// The first of the header's tokens in `text`, and its place.
fn next_token(text: &str) -> Option<(usize, &'static str)> {
    let mut from = 0;
    while let Some(offset) = text[from..].find("<|") {
        let at = from + offset;
        if let Some(token) = [START, CHANNEL, CONSTRAIN].into_iter().find(|token| text[at..].starts_with(token)) {
            return Some((at, token));
        }
        from = at + 2;
    }
    None
}

/// Where a search for one of a set of tokens stopped.
#[derive(Debug, Clone, Copy)]
enum Found {
    /// The token, at its place.
    At(usize, &'static str),
    /// The text ends at this place inside what could grow into one of them.
    More(usize),
    /// None of them up to the text's end (the place given).
    Nothing(usize),
}

impl Found {
    fn at(self) -> usize {
        match self {
            Found::At(at, _) | Found::More(at) | Found::Nothing(at) => at,
        }
    }
}

/// The first of `tokens` (`"\n"` among them for a line break) in `buf[from..]`.
fn find(buf: &str, from: usize, tokens: &[&'static str], finished: bool) -> Found {
    let bytes = buf.as_bytes();
    let line_breaks = tokens.contains(&"\n");
    let mut at = from;
    while let Some(offset) = memchr::memchr2(b'<', b'\n', &bytes[at.min(bytes.len())..]) {
        let place = at + offset;
        if bytes[place] == b'\n' {
            if line_breaks {
                return Found::At(place, "\n");
            }
        } else {
            let mut more = false;
            for &token in tokens.iter().filter(|token| token.starts_with('<')) {
                match starts(&buf[place..], token, finished) {
                    Opens::Yes => return Found::At(place, token),
                    Opens::More => more = true,
                    Opens::No => {}
                }
            }
            if more {
                return Found::More(place);
            }
        }
        at = place + 1;
    }
    Found::Nothing(buf.len())
}
