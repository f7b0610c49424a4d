//! What a form's reader is given (the answer so far, the tools it knows) and what it gives
//! back: a step at a time, so that a streamed answer is read as it arrives, each decision
//! taken on the text alone, never on where the chunks were cut.

use std::collections::HashMap;
use std::fmt::Debug;

use serde_json::Value;

use crate::model::{ArgumentError, ParseWarning, ToolCallRequest, ToolDefinition};
use crate::xml::Shape;

/// The tools a parser knows, by name.
#[derive(Debug, Default)]
pub(super) struct Cx {
    tools: HashMap<String, Known>,
}

/// A declared tool: its definition, and how its parameters' text is typed.
#[derive(Debug)]
pub(super) struct Known {
    pub definition: ToolDefinition,
    pub shape: Shape,
}

impl Cx {
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Self {
        let tools =
            tools.into_iter().map(|d| (d.name.clone(), Known { definition: d.clone(), shape: Shape::of(d) })).collect();
        Cx { tools }
    }

    /// The declared tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&Known> {
        self.tools.get(name)
    }

    pub fn definitions(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.tools.values().map(|known| &known.definition)
    }
}

/// Whether one of a form's calls, or its block of calls, begins at a place in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opens {
    /// Not here: the text goes on.
    No,
    /// The text so far cannot tell (it ends inside what could be an opening); never returned
    /// once the answer is finished.
    More,
    /// Here: the reader's [`Reader::step`] reads on from this place.
    Yes,
}

/// What a reader read from where reading stands (`pos`) on.
#[derive(Debug)]
pub(super) enum Step {
    /// The text so far does not settle what comes next; never returned once the answer is
    /// finished.
    More,
    /// `buf[pos..end]` is the model's own words.
    Text(usize),
    /// Words of the model's that the reader took from the text it read (a reader that keeps
    /// no place in the text).
    Words(String),
    /// `buf[pos..end]` is markup (special tokens, separators): neither words nor a call.
    Skip(usize),
    /// A call, ending at `end`.
    Call(usize, Box<RawCall>),
    /// A call the reader made a request itself (the XML reader's).
    Request(Box<ToolCallRequest>),
    /// Something about the answer's structure rather than one call; reading stays at `pos`.
    Warning(ParseWarning),
    /// The form's calls end at `end`: what follows is the text outside them.
    Out(usize),
}

/// A form: where its calls can begin, and how they are read.
pub(super) trait Reader: Debug + Send {
    /// The bytes at which one of the form's openings can begin (ASCII).
    fn triggers(&self) -> &'static [u8];

    /// Whether an opening can also begin with an identifier at the start of a line (a Python
    /// call without brackets).
    fn opens_at_line_start(&self) -> bool {
        false
    }

    /// Whether the reader keeps places in the text while inside its calls, so that the text
    /// must stay as it is until they end; a reader that takes each step's text whole keeps
    /// none, and the text it read can be dropped.
    fn keeps_places(&self) -> bool {
        true
    }

    /// Whether an opening begins at `at`, where `buf[at]` is a trigger (or, when
    /// `line_start`, an identifier begins a line).
    fn opens(&self, cx: &Cx, buf: &str, at: usize, line_start: bool, finished: bool) -> Opens;

    /// Reads on from `pos`, inside what [`Reader::opens`] found at the first step. A reader
    /// that returns `More` keeps what it scanned, so that the next chunk is read from where it
    /// stopped, not again from the start.
    fn step(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step;
}

/// A call as a reader found it, before it is made a request.
#[derive(Debug, Default)]
pub(super) struct RawCall {
    /// The tool named, as the model wrote it (prefixes such as `functions.` removed).
    pub name: String,
    /// The call id the model wrote, when the form carries one.
    pub id: Option<String>,
    /// The arguments as the model wrote them: the JSON text, the Python call's argument list,
    /// the pairs' markup. Kept whole in the request's `raw_arguments`.
    pub raw: String,
    pub body: Body,
    /// Repairs made while reading, with their pointers.
    pub warnings: Vec<ParseWarning>,
    /// Why the arguments cannot be used as they are.
    pub errors: Vec<ArgumentError>,
    /// What the call lacked when the end of the answer cut it (`"`)` and the rest of the
    /// call"`): it is refused, never run with a value the end may have cut.
    pub cut: Option<&'static str>,
}

/// How a call's arguments are read.
#[derive(Debug, Default)]
pub(super) enum Body {
    /// `raw` is the JSON text of the arguments: extraction reads it, with its repairs.
    #[default]
    Json,
    /// Parameter names and their text (GLM's `<arg_key>`/`<arg_value>`), each typed by its
    /// declared parameter without a warning: the form carries text alone.
    Pairs(Vec<(String, String)>),
    /// The arguments object the reader built from the form's own literals (a Python call's):
    /// extraction converts each value by its declared type, with its usual warnings.
    Object(Value),
}

/// Whether `text` starts with `token`, or, when the answer is not finished, could still grow into it.
pub(super) fn starts(text: &str, token: &str, finished: bool) -> Opens {
    if text.starts_with(token) {
        Opens::Yes
    } else if !finished && token.starts_with(text) {
        Opens::More
    } else {
        Opens::No
    }
}

/// Whether `text` starts with one of `tokens` (see [`starts`]).
pub(super) fn starts_any(text: &str, tokens: &[&str], finished: bool) -> Opens {
    let mut more = false;
    for token in tokens {
        match starts(text, token, finished) {
            Opens::Yes => return Opens::Yes,
            Opens::More => more = true,
            Opens::No => {}
        }
    }
    if more {
        Opens::More
    } else {
        Opens::No
    }
}

/// The first of `tokens` in `bytes` from `from` on, with where it begins. Searching for each
/// token through the whole rest would read the rest once per call when one of them (a section's
/// end) stands only at the end of a long answer; this stops at the first one met.
pub(super) fn first_token(bytes: &[u8], from: usize, tokens: &[&'static str]) -> Option<(usize, &'static str)> {
    // The distinct first bytes of the tokens (every form's tokens begin with one of a few).
    let mut firsts = [0u8; 3];
    let mut count = 0;
    for token in tokens {
        let first = *token.as_bytes().first()?;
        if !firsts[..count].contains(&first) {
            if count == firsts.len() {
                return first_token_slow(bytes, from, tokens);
            }
            firsts[count] = first;
            count += 1;
        }
    }
    let rest = bytes.get(from..)?;
    let mut at = 0;
    while at < rest.len() {
        let next = match firsts[..count] {
            [a] => memchr::memchr(a, &rest[at..]),
            [a, b] => memchr::memchr2(a, b, &rest[at..]),
            [a, b, c] => memchr::memchr3(a, b, c, &rest[at..]),
            _ => None,
        }?;
        let place = at + next;
        if let Some(token) = tokens.iter().find(|token| rest[place..].starts_with(token.as_bytes())) {
            return Some((from + place, token));
        }
        at = place + 1;
    }
    None
}

/// [`first_token`] for tokens of more than three first bytes: each place tried in turn.
fn first_token_slow(bytes: &[u8], from: usize, tokens: &[&'static str]) -> Option<(usize, &'static str)> {
    let rest = bytes.get(from..)?;
    (0..rest.len()).find_map(|place| {
        tokens.iter().find(|token| rest[place..].starts_with(token.as_bytes())).map(|token| (from + place, *token))
    })
}
