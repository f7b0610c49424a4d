//! Python calls ("pythonic"): Llama 3.2 and 4, the prompts of benchmarks such as BFCL, and
//! the many fine-tunes trained on them.
//!
//! `[get_weather(city="Paris", days=3), get_time(tz='CET')]`
//!
//! The values are Python literals ([`literal`]), made one JSON object per call
//! ([`arguments`]) that extraction then converts by the declared types. The form is plain text,
//! so a call is claimed only on evidence: a `[` followed by a dotted name and `(` opens a list
//! of calls when the name is a declared tool, the call is empty, or its first argument has a
//! name (`name=`); a call without brackets opens at the start of a line (or after
//! `<|python_tag|>`, which the engine drops) when its name is declared. So `[text](url)`,
//! `[len(s)]` and `[x(1) for x in y]` stay the model's words.
//!
//! Read with a warning: a call without its brackets, several lists, a list without its `]`
//! after complete calls, calls without a comma between them; a Markdown fence around the
//! calls (```` ```python ````, ```` ```tool_code ````), or BFCL's `<TOOLCALL>` tags, are dropped
//! with them. A call cut by the end of the answer (its `)` or a string's closing quote missing)
//! is refused.
//!
//! Each call is scanned once as it arrives (strings, triple quotes, escapes, brackets, comments),
//! and read when its `)` is: it comes out then.

mod arguments; // the arguments made one JSON object
mod literal; // the call's text read as Python reads it

use serde_json::Value;

use super::reader::{starts, Body, Cx, Opens, RawCall, Reader, Step};
use crate::model::rules;
use crate::model::{truncate, ParseWarning};

const FENCE: &str = "```";
/// The tags BFCL's prompt asks for when it wants the calls tagged.
const TAG: &str = "<TOOLCALL>";
const TAG_END: &str = "</TOOLCALL>";
/// The longest name (dotted, as `uber.ride`) an opening is looked for in; longer is words.
const MAX_NAME: usize = 256;
/// The most blank an opening is looked through (between `[` and the name, after `(`).
const MAX_BLANK: usize = 64;
/// The most of the text a warning about the list's structure shows.
const SHOWN: usize = 24;
/// The longest fence line (```` ```python ````) an opening is looked for in.
const MAX_FENCE_LINE: usize = 32;

/// Where the reader stands.
#[derive(Debug, Default)]
pub(super) struct Python {
    state: State,
    /// The lists of calls opened in the answer so far.
    lists: usize,
    /// What closes the fence or tag the calls are in (```` ``` ````, `</TOOLCALL>`), dropped
    /// with them.
    fence: Option<&'static str>,
    /// A warning to give at the next step.
    pending: Option<ParseWarning>,
}

#[derive(Debug, Default)]
enum State {
    /// At the opening the engine found.
    #[default]
    Opening,
    /// In a list of calls, after `[` or a `,` (`after_call` false), or after a call; the
    /// blanks before `seen` were looked through.
    List { after_call: bool, seen: usize },
    /// In a fence, between calls.
    Fence,
    /// In a fence, in a line that holds no call.
    FenceText,
    /// After a call written without brackets.
    AfterBare,
    /// In a call, scanned so far.
    Call { scan: Scan, bare: bool },
    /// The form's calls end here.
    Done,
}

impl Reader for Python {
    fn triggers(&self) -> &'static [u8] {
        b"[`<"
    }

    fn opens_at_line_start(&self) -> bool {
        true
    }

    fn opens(&self, cx: &Cx, buf: &str, at: usize, line_start: bool, finished: bool) -> Opens {
        let text = &buf[at..];
        match text.as_bytes().first() {
            Some(b'[') => list_opens(cx, &text[1..], finished),
            Some(b'`') => fence_opens(cx, text, finished),
            Some(b'<') => match starts(text, TAG, finished) {
                Opens::Yes => body_opens(cx, &text[TAG.len()..], finished),
                other => other,
            },
            Some(_) if line_start => match call_shape(text, finished) {
                Shape::Yes { name, .. } if cx.tool(&text[..name]).is_some() => Opens::Yes,
                Shape::More => Opens::More,
                _ => Opens::No,
            },
            _ => Opens::No,
        }
    }

    fn step(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        if let Some(warning) = self.pending.take() {
            return Step::Warning(warning);
        }
        let text = &buf[pos..];
        match std::mem::take(&mut self.state) {
            State::Opening => {
                if text.starts_with(TAG) {
                    self.fence = Some(TAG_END);
                    self.state = State::Fence;
                    return Step::Skip(pos + TAG.len());
                }
                if text.starts_with(FENCE) {
                    self.fence = Some(FENCE);
                    self.state = State::Fence;
                    let line = memchr::memchr(b'\n', text.as_bytes()).map_or(text.len(), |at| at + 1);
                    return Step::Skip(pos + line);
                }
                if text.starts_with('[') {
                    return self.open_list(pos);
                }
                self.state = State::Call { scan: Scan::new(pos), bare: true };
                self.step(cx, buf, pos, finished)
            }
            State::List { after_call, seen } => self.in_list(cx, buf, pos, after_call, seen, finished),
            State::Fence => self.in_fence(cx, buf, pos, finished),
            State::FenceText => match self.fence_words_end(text) {
                Some(end) => {
                    self.state = State::Fence;
                    Step::Text(pos + end)
                }
                None if text.is_empty() => self.end_of_fence_text(pos, finished),
                None => {
                    self.state = State::FenceText;
                    Step::Text(buf.len())
                }
            },
            State::AfterBare => self.after_bare(cx, buf, pos, finished),
            State::Call { mut scan, bare } => match scan.run(buf.as_bytes(), finished) {
                Scanned::More => {
                    self.state = State::Call { scan, bare };
                    Step::More
                }
                Scanned::End(end) => {
                    self.state = if bare { State::AfterBare } else { State::List { after_call: true, seen: 0 } };
                    Step::Call(end, Box::new(read(cx, &buf[scan.start..end], bare)))
                }
                Scanned::Cut(missing) => {
                    let text = &buf[scan.start..];
                    let name = literal::dotted_name_len(text);
                    let call = RawCall {
                        name: text[..name].to_owned(),
                        raw: text.to_owned(),
                        cut: Some(missing),
                        ..RawCall::default()
                    };
                    self.state = State::Done;
                    Step::Call(buf.len(), Box::new(call))
                }
            },
            State::Done => self.out(pos),
        }
    }
}

impl Python {
    /// Reading leaves the form's calls at `end`.
    fn out(&mut self, end: usize) -> Step {
        self.fence = None;
        self.state = State::Opening;
        Step::Out(end)
    }

    /// A `[` opens a list of calls at `pos`.
    fn open_list(&mut self, pos: usize) -> Step {
        self.lists += 1;
        if self.lists > 1 {
            self.pending = Some(ParseWarning::new(
                "",
                rules::PYTHON_SEVERAL_LISTS,
                "one list of calls: `[a(..), b(..)]`",
                &format!("list number {}", self.lists),
                "read the calls of every list",
            ));
        }
        self.state = State::List { after_call: false, seen: 0 };
        Step::Skip(pos + 1)
    }

    /// In a list: blanks are looked through from `seen` on (each byte once), and kept as the
    /// model's words when the list turns out to end without its `]`.
    fn in_list(&mut self, cx: &Cx, buf: &str, pos: usize, after_call: bool, seen: usize, finished: bool) -> Step {
        let from = seen.max(pos);
        let at = from + blank_len(&buf[from..]);
        let text = &buf[at..];
        let wait = |this: &mut Self| {
            this.state = State::List { after_call, seen: at };
            Step::More
        };
        match text.as_bytes().first() {
            None if !finished => return wait(self),
            None => return self.unclosed_list("the end of the answer".to_owned()),
            Some(b']') => {
                return if self.fence.is_some() {
                    self.state = State::Fence;
                    Step::Skip(at + 1)
                } else {
                    self.out(at + 1)
                };
            }
            Some(b',') if after_call => {
                self.state = State::List { after_call: false, seen: 0 };
                return Step::Skip(at + 1);
            }
            _ => {}
        }
        match call_shape(text, finished) {
            Shape::More => wait(self),
            Shape::Yes { paren, .. } => {
                self.state = State::Call { scan: Scan::new(at), bare: false };
                if after_call {
                    return Step::Warning(ParseWarning::new(
                        "",
                        rules::PYTHON_MISSING_COMMA,
                        "`,` between two calls",
                        &format!("`{}`", truncate(&text[..=paren])),
                        "read the next call",
                    ));
                }
                self.step(cx, buf, pos, finished)
            }
            Shape::No => match settled(text, finished) {
                Some(what) => self.unclosed_list(format!("`{what}`")),
                None => wait(self),
            },
        }
    }

    /// The list of calls ends without its `]`; what follows is the model's words.
    fn unclosed_list(&mut self, received: String) -> Step {
        self.state = if self.fence.is_some() { State::Fence } else { State::Done };
        Step::Warning(ParseWarning::new(
            "",
            rules::PYTHON_UNCLOSED_LIST,
            "`]` to close the list of calls",
            &received,
            "read the calls before it and ended the list",
        ))
    }

    fn in_fence(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        let text = &buf[pos..];
        let blank = blank_len(text);
        if blank > 0 {
            self.state = State::Fence;
            return Step::Skip(pos + blank);
        }
        if text.is_empty() {
            if finished {
                return self.out(pos);
            }
            self.state = State::Fence;
            return Step::More;
        }
        let close = self.fence.unwrap_or(FENCE);
        match starts(text, close, finished) {
            Opens::Yes => return self.out(pos + close.len()),
            Opens::More => {
                self.state = State::Fence;
                return Step::More;
            }
            Opens::No => {}
        }
        let (call, list) = match text.strip_prefix('[') {
            Some(rest) => {
                let blank = blank_len(rest);
                (&rest[blank..], true)
            }
            None => (text, false),
        };
        match call_shape(call, finished) {
            Shape::Yes { .. } if list => self.open_list(pos),
            Shape::Yes { .. } => {
                self.state = State::Call { scan: Scan::new(pos), bare: true };
                self.step(cx, buf, pos, finished)
            }
            Shape::More => {
                self.state = State::Fence;
                Step::More
            }
            Shape::No => {
                self.state = State::FenceText;
                self.step(cx, buf, pos, finished)
            }
        }
    }

    /// Where words in a fence end, when the text so far shows it: after the line's end, or, in
    /// `<TOOLCALL>` tags, at the next `<` (past the first byte, so that reading moves on).
    fn fence_words_end(&self, text: &str) -> Option<usize> {
        let line = memchr::memchr(b'\n', text.as_bytes()).map(|at| at + 1);
        let tag = match self.fence {
            Some(TAG_END) => memchr::memchr(b'<', text.as_bytes().get(1..).unwrap_or_default()).map(|at| at + 1),
            _ => None,
        };
        match (line, tag) {
            (Some(line), Some(tag)) => Some(line.min(tag)),
            (line, tag) => line.or(tag),
        }
    }

    /// The text ran out inside a fence: wait, or, at the end of the answer, leave it.
    fn end_of_fence_text(&mut self, pos: usize, finished: bool) -> Step {
        if finished {
            self.out(pos)
        } else {
            self.state = State::FenceText;
            Step::More
        }
    }

    fn after_bare(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        let text = &buf[pos..];
        let spaces = text.len() - text.trim_start_matches([' ', '\t']).len();
        if spaces > 0 {
            self.state = State::AfterBare;
            return Step::Skip(pos + spaces);
        }
        match text.as_bytes().first() {
            None if !finished => {
                self.state = State::AfterBare;
                return Step::More;
            }
            // `get_weather(city="Paris")]`: the list's `]` without its `[`.
            Some(b']') => {
                self.state = State::AfterBare;
                return Step::Skip(pos + 1);
            }
            // `a(x=1), b(y=2)` or `a(x=1); b(y=2)`: several calls on one line.
            Some(b',' | b';') => {
                let rest = &text[1..];
                let next = 1 + rest.len() - rest.trim_start_matches([' ', '\t']).len();
                match call_shape(&text[next..], finished) {
                    Shape::Yes { .. } => {
                        self.state = State::Call { scan: Scan::new(pos + next), bare: true };
                        return Step::Skip(pos + next);
                    }
                    Shape::More => {
                        self.state = State::AfterBare;
                        return Step::More;
                    }
                    Shape::No => {}
                }
            }
            _ => {}
        }
        if self.fence.is_some() {
            self.state = State::Fence;
            return self.step(cx, buf, pos, finished);
        }
        self.out(pos)
    }
}

/// The call `text` (from its name to its closing bracket), read.
fn read(cx: &Cx, text: &str, bare: bool) -> RawCall {
    let call = literal::parse_call(text);
    let mut raw = RawCall { name: call.name.to_owned(), raw: text.to_owned(), ..RawCall::default() };
    if bare {
        raw.warnings.push(ParseWarning::new(
            "",
            rules::PYTHON_NO_BRACKETS,
            "a list of calls in brackets: `[name(..)]`",
            &truncate(text),
            "read the call",
        ));
    }
    let object = arguments::object(cx, call, &mut raw.warnings, &mut raw.errors);
    raw.body = Body::Object(Value::Object(object));
    raw
}

/// How many of `text`'s first bytes are among `bytes`, counted up to `MAX_BLANK + 1` (an
/// opening is looked for through a bounded blank, so that a long one waiting for its end is not
/// scanned again with each chunk).
fn leading(text: &str, bytes: &[u8]) -> usize {
    text.bytes().take(MAX_BLANK + 1).take_while(|b| bytes.contains(b)).count()
}

/// The length of the blanks and line breaks at the start of `text`.
fn blank_len(text: &str) -> usize {
    text.len() - text.trim_start_matches([' ', '\t', '\n', '\r']).len()
}

/// What a warning shows of the text that stands where a call was expected: up to the line's
/// end, at most [`SHOWN`] bytes; `None` while the text so far cannot tell (the warning must
/// read the same wherever the chunks were cut).
fn settled(text: &str, finished: bool) -> Option<&str> {
    let mut end = memchr::memchr(b'\n', text.as_bytes()).unwrap_or(text.len()).min(SHOWN);
    if end == text.len() && text.len() < SHOWN && !finished {
        return None;
    }
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(&text[..end])
}

/// Whether a call (a dotted name, then `(`) begins `text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    No,
    More,
    /// The name's length, and where the `(` is.
    Yes {
        name: usize,
        paren: usize,
    },
}

fn call_shape(text: &str, finished: bool) -> Shape {
    // The name is looked for in a bounded piece, so that a long word waiting for its end is
    // not scanned again with each chunk.
    let mut cap = text.len().min(MAX_NAME + 1);
    while !text.is_char_boundary(cap) {
        cap -= 1;
    }
    let name = literal::dotted_name_len(&text[..cap]);
    if name == 0 || name > MAX_NAME {
        return if text.is_empty() && !finished { Shape::More } else { Shape::No };
    }
    let after = &text[name..];
    // The name may go on in the next chunk (`get_wea`, `math.`).
    if !finished && (after.is_empty() || after == ".") {
        return Shape::More;
    }
    let spaces = leading(after, b" \t");
    match after.as_bytes().get(spaces) {
        Some(b'(') => Shape::Yes { name, paren: name + spaces },
        None if !finished && spaces <= MAX_BLANK => Shape::More,
        _ => Shape::No,
    }
}

/// Whether a list of calls opens at the `[` before `text`: a call follows whose name is
/// declared, or which is empty, or whose first argument is named.
fn list_opens(cx: &Cx, text: &str, finished: bool) -> Opens {
    let blank = leading(text, b" \t\r\n");
    if blank > MAX_BLANK {
        return Opens::No;
    }
    let text = &text[blank..];
    match call_shape(text, finished) {
        Shape::Yes { name, paren } => evidence(cx, text, name, paren, finished),
        Shape::More => Opens::More,
        Shape::No => Opens::No,
    }
}

/// Whether the call at the start of `text` is one: its name declared, its argument list empty,
/// or its first argument named (`name=`, not `name==`).
fn evidence(cx: &Cx, text: &str, name: usize, paren: usize, finished: bool) -> Opens {
    if cx.tool(&text[..name]).is_some() {
        return Opens::Yes;
    }
    let more = if finished { Opens::No } else { Opens::More };
    let inside = &text[paren + 1..];
    let blank = leading(inside, b" \t\r\n");
    if blank > MAX_BLANK {
        return Opens::No;
    }
    let inside = &inside[blank..];
    let Some(&first) = inside.as_bytes().first() else { return more };
    if first == b')' {
        return Opens::Yes;
    }
    let mut cap = inside.len().min(MAX_NAME + 1);
    while !inside.is_char_boundary(cap) {
        cap -= 1;
    }
    let keyword = literal::identifier_len(&inside[..cap]);
    if keyword == 0 || keyword > MAX_NAME {
        return Opens::No;
    }
    let after = &inside[keyword..];
    let after = &after[leading(after, b" \t")..];
    match after.as_bytes() {
        [] => more,
        [b'='] => more,
        [b'=', b'=', ..] => Opens::No,
        [b'=', ..] => Opens::Yes,
        _ => Opens::No,
    }
}

/// Whether a fence of calls opens at the start of `text`: ```` ``` ````, a language, the line's
/// end, then a list of calls or a call as [`evidence`] accepts one.
fn fence_opens(cx: &Cx, text: &str, finished: bool) -> Opens {
    match starts(text, FENCE, finished) {
        Opens::Yes => {}
        other => return other,
    }
    let more = if finished { Opens::No } else { Opens::More };
    let rest = &text[FENCE.len()..];
    let Some(line_end) = memchr::memchr(b'\n', &rest.as_bytes()[..rest.len().min(MAX_FENCE_LINE + 1)]) else {
        return if rest.len() <= MAX_FENCE_LINE { more } else { Opens::No };
    };
    let language = rest[..line_end].trim();
    if line_end > MAX_FENCE_LINE || !language.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Opens::No;
    }
    body_opens(cx, &rest[line_end + 1..], finished)
}

/// Whether calls begin `body` (in a fence or a tag, after blanks): a list of calls, or a call
/// as [`evidence`] accepts one.
fn body_opens(cx: &Cx, body: &str, finished: bool) -> Opens {
    let more = if finished { Opens::No } else { Opens::More };
    let blank = leading(body, b" \t\r\n");
    if blank > MAX_BLANK {
        return Opens::No;
    }
    let body = &body[blank..];
    match body.as_bytes().first() {
        None => more,
        Some(b'[') => list_opens(cx, &body[1..], finished),
        Some(_) => match call_shape(body, finished) {
            Shape::Yes { name, paren } => evidence(cx, body, name, paren, finished),
            Shape::More => Opens::More,
            Shape::No => Opens::No,
        },
    }
}

/// A call being scanned for its end: the bracket that closes its `(`, outside strings and
/// comments. Kept between chunks, so each byte is scanned once.
#[derive(Debug, Clone, Copy)]
struct Scan {
    /// Where the call's name begins.
    start: usize,
    /// Where scanning goes on.
    at: usize,
    /// Brackets open.
    depth: usize,
    lex: Lex,
}

#[derive(Debug, Clone, Copy)]
enum Lex {
    Code,
    Str { quote: u8, triple: bool },
    Comment,
}

/// What a scan found.
enum Scanned {
    More,
    /// The call ends here (after its closing bracket).
    End(usize),
    /// The answer ended inside the call, which lacked this.
    Cut(&'static str),
}

impl Scan {
    fn new(start: usize) -> Self {
        Scan { start, at: start, depth: 0, lex: Lex::Code }
    }

    fn run(&mut self, bytes: &[u8], finished: bool) -> Scanned {
        let len = bytes.len();
        let mut at = self.at;
        while at < len {
            match self.lex {
                Lex::Comment => match memchr::memchr(b'\n', &bytes[at..]) {
                    Some(end) => {
                        at += end + 1;
                        self.lex = Lex::Code;
                    }
                    None => at = len,
                },
                Lex::Str { quote, triple } => match memchr::memchr2(b'\\', quote, &bytes[at..]) {
                    None => at = len,
                    Some(found) => {
                        let i = at + found;
                        if bytes[i] == b'\\' {
                            // The escaped byte may be in the next chunk.
                            if i + 1 >= len && !finished {
                                at = i;
                                break;
                            }
                            at = i + 2;
                        } else if !triple {
                            at = i + 1;
                            self.lex = Lex::Code;
                        } else if bytes[i..].starts_with(&[quote, quote, quote]) {
                            at = i + 3;
                            self.lex = Lex::Code;
                        } else if !finished && len - i < 3 && bytes[i..].iter().all(|&b| b == quote) {
                            at = i;
                            break;
                        } else {
                            at = i + 1;
                        }
                    }
                },
                Lex::Code => {
                    match bytes[at] {
                        b'(' | b'[' | b'{' => self.depth += 1,
                        b')' | b']' | b'}' => {
                            self.depth = self.depth.saturating_sub(1);
                            if self.depth == 0 {
                                self.at = at + 1;
                                return Scanned::End(at + 1);
                            }
                        }
                        b'#' => self.lex = Lex::Comment,
                        quote @ (b'\'' | b'"') => {
                            // Whether the string is triple-quoted may be told by the next chunk.
                            if !finished && len - at < 3 && bytes[at..].iter().all(|&b| b == quote) {
                                break;
                            }
                            let triple = bytes[at..].starts_with(&[quote, quote, quote]);
                            self.lex = Lex::Str { quote, triple };
                            at += if triple { 3 } else { 1 };
                            continue;
                        }
                        _ => {}
                    }
                    at += 1;
                }
            }
        }
        self.at = at.min(len);
        if !finished {
            return Scanned::More;
        }
        Scanned::Cut(match self.lex {
            Lex::Str { .. } => "the string's closing quote and `)`",
            _ => "`)`",
        })
    }
}
