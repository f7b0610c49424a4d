//! A model's answer cut into tokens: the protocol's tags, CDATA sections inside values, and
//! text.
//!
//! A model's answer is not an XML document: it is free text in which `<` may appear anywhere
//! (`a < b`, `<br>`, code), with tags of the protocol among it. So the scanner recognises only
//! the protocol's own tags (and their variants), and everything else, down to a single `<`, is
//! text. Tags are read with quick-xml's attribute parser.
//!
//! The scanner works on a buffer that grows as chunks arrive: when the bytes at hand cannot
//! decide a token yet (a tag cut before its `>`, a CDATA section before its `]]>`), it asks for
//! more, and decides the same way it would have on the whole text. Text tokens may end anywhere,
//! so whoever reads them must treat consecutive text tokens as one.

use std::borrow::Cow;

use memchr::{memchr, memchr2, memmem};
use quick_xml::events::BytesStart;

/// The longest tag read as one: a `<` with no `>` within this many bytes is text.
pub(super) const MAX_TAG: usize = 1024;

/// The names the protocol's tags use, in both forms.
const NAMES: [&str; 5] = ["function_calls", "invoke", "parameter", "tool_call", "function"];

const CDATA_OPEN: &str = "<![CDATA[";
const CDATA_CLOSE: &str = "]]>";

/// Which family of tags: the protocol's own (`<function_calls>`, `<invoke name="..">`,
/// `<parameter name="..">`) or Qwen's (`<tool_call>`, `<function=..>`, `<parameter=..>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Xml,
    Qwen,
}

/// How the name was written in an opening tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quoting {
    /// `name="x"`, as the protocol asks.
    Double,
    /// `name='x'`.
    Single,
    /// `name=x`.
    Unquoted,
    /// Qwen's `<function=x>`.
    Bare,
}

/// An opening `<invoke>` or `<parameter>` tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Opening {
    /// The name, decoded; `None` when the tag has none.
    pub name: Option<String>,
    pub quoting: Quoting,
    /// `<invoke name="x"/>`: opened and closed at once.
    pub self_closing: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    Text,
    /// `<![CDATA[..]]>`, recognised only inside a value.
    CData,
    BlockOpen(Form),
    BlockClose(Form),
    InvokeOpen(Form, Opening),
    InvokeClose,
    ParamOpen(Form, Opening),
    ParamClose,
}

/// A token: its kind and where it is in the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

pub(super) enum Step {
    Token(Token),
    /// The bytes at hand cannot decide the next token.
    More,
    /// The answer is over and every byte was read.
    End,
}

/// Remembers how far the search for a CDATA section's `]]>` got, so that a streamed section is
/// not searched again from its start on every chunk.
#[derive(Debug, Default)]
pub(super) struct Scanner {
    cdata: Option<(usize, usize)>,
}

impl Scanner {
    /// Forgets what it remembered (the buffer was shifted).
    pub fn reset(&mut self) {
        self.cdata = None;
    }

    /// The token at `pos` of `buf`. `finished`: no more bytes will come. `in_value`: the token
    /// is inside a parameter's value, where CDATA sections are read.
    pub fn next(&mut self, buf: &str, pos: usize, finished: bool, in_value: bool) -> Step {
        let bytes = buf.as_bytes();
        if pos >= bytes.len() {
            return if finished { Step::End } else { Step::More };
        }
        let token = |kind, end| Step::Token(Token { kind, start: pos, end });
        if bytes[pos] != b'<' {
            let end = memchr(b'<', &bytes[pos..]).map_or(bytes.len(), |at| pos + at);
            return token(Kind::Text, end);
        }
        let rest = &buf[pos..];
        if in_value && rest.starts_with(CDATA_OPEN) {
            let from = match self.cdata {
                Some((at, searched)) if at == pos => searched,
                _ => pos + CDATA_OPEN.len(),
            };
            return match memmem::find(&bytes[from..], CDATA_CLOSE.as_bytes()) {
                Some(at) => {
                    self.cdata = None;
                    token(Kind::CData, from + at + CDATA_CLOSE.len())
                }
                // Never closed: the opener is text, and what follows is read as usual.
                None if finished => token(Kind::Text, pos + CDATA_OPEN.len()),
                None => {
                    // The close may begin in the last two bytes.
                    self.cdata = Some((pos, bytes.len().saturating_sub(2).max(from)));
                    Step::More
                }
            };
        }
        if in_value && !finished && CDATA_OPEN.starts_with(rest) {
            return Step::More;
        }
        let window = &bytes[pos..bytes.len().min(pos + MAX_TAG)];
        match memchr2(b'>', b'<', &window[1..]).map(|at| at + 1) {
            Some(at) if window[at] == b'>' => match classify(&buf[pos..=pos + at]) {
                Some(kind) => token(kind, pos + at + 1),
                None => token(Kind::Text, pos + 1),
            },
            None if !finished && window.len() < MAX_TAG && could_be_tag(rest) => Step::More,
            _ => token(Kind::Text, pos + 1),
        }
    }
}

/// Whether `rest` (a `<` and what follows, with no `>` yet) may still become a tag of the
/// protocol. It must say yes to every beginning of what [`classify`] takes for a tag, or a
/// streamed answer would read as text what the whole answer reads as a tag; both use ASCII
/// whitespace only.
fn could_be_tag(rest: &str) -> bool {
    let head = &rest[1..];
    let head = head.strip_prefix('/').unwrap_or(head);
    let ident = identifier(head);
    if ident.len() == head.len() {
        return NAMES.iter().any(|name| name.starts_with(ident));
    }
    let next = head.as_bytes()[ident.len()];
    NAMES.contains(&ident) && (next.is_ascii_whitespace() || next == b'/' || next == b'=')
}

/// The leading `[a-z_]` run of `text`.
fn identifier(text: &str) -> &str {
    let len = text.bytes().take_while(|b| b.is_ascii_lowercase() || *b == b'_').count();
    &text[..len]
}

/// What the whole tag `tag` (`<` to `>`) is, if it is one of the protocol's.
fn classify(tag: &str) -> Option<Kind> {
    let inner = &tag[1..tag.len() - 1];
    if let Some(name) = inner.strip_prefix('/') {
        return match name.trim_ascii_end() {
            "function_calls" => Some(Kind::BlockClose(Form::Xml)),
            "tool_call" => Some(Kind::BlockClose(Form::Qwen)),
            "invoke" | "function" => Some(Kind::InvokeClose),
            "parameter" => Some(Kind::ParamClose),
            _ => None,
        };
    }
    let (inner, self_closing) = match inner.strip_suffix('/') {
        Some(inner) => (inner, true),
        None => (inner, false),
    };
    let ident = identifier(inner);
    let after = &inner[ident.len()..];
    let spaced = after.is_empty() || after.starts_with(|c: char| c.is_ascii_whitespace());
    match ident {
        "function_calls" if after.trim_ascii().is_empty() && !self_closing => Some(Kind::BlockOpen(Form::Xml)),
        "tool_call" if after.trim_ascii().is_empty() && !self_closing => Some(Kind::BlockOpen(Form::Qwen)),
        "invoke" if spaced => Some(Kind::InvokeOpen(Form::Xml, named(inner, ident.len(), self_closing))),
        "parameter" if spaced => Some(Kind::ParamOpen(Form::Xml, named(inner, ident.len(), self_closing))),
        "function" if after.starts_with('=') => Some(Kind::InvokeOpen(Form::Qwen, bare(&after[1..], self_closing))),
        "parameter" if after.starts_with('=') => Some(Kind::ParamOpen(Form::Qwen, bare(&after[1..], self_closing))),
        _ => None,
    }
}

/// The `name` attribute of `<invoke ..>` or `<parameter ..>` (`inner` is the tag between `<`
/// and `>`, the element's name `name_len` bytes long), read by quick-xml in its HTML mode,
/// which also takes single-quoted and unquoted values.
fn named(inner: &str, name_len: usize, self_closing: bool) -> Opening {
    let start = BytesStart::from_content(inner, name_len);
    let name = start.html_attributes().flatten().find(|a| a.key.as_ref() == "name").map(|a| {
        match quick_xml::escape::unescape(&a.value) {
            Ok(value) => value.into_owned(),
            // An entity it does not know: the name as written.
            Err(_) => a.value.into_owned(),
        }
    });
    Opening { name, quoting: quoting(&inner[name_len..]), self_closing }
}

/// How the `name` attribute's value is quoted in `attributes`.
fn quoting(attributes: &str) -> Quoting {
    let mut rest = attributes;
    while let Some(at) = rest.find("name") {
        let before_ok = at == 0 || rest.as_bytes()[at - 1].is_ascii_whitespace();
        let after = rest[at + 4..].trim_start();
        if let (true, Some(value)) = (before_ok, after.strip_prefix('=')) {
            return match value.trim_start().as_bytes().first() {
                Some(b'"') => Quoting::Double,
                Some(b'\'') => Quoting::Single,
                _ => Quoting::Unquoted,
            };
        }
        rest = &rest[at + 4..];
    }
    Quoting::Double
}

/// The name of Qwen's `<function=name>`: trimmed, and without quotes if it has them.
fn bare(value: &str, self_closing: bool) -> Opening {
    let value = value.trim();
    let unquoted =
        ['"', '\''].iter().find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q))).unwrap_or(value);
    let name = (!unquoted.is_empty()).then(|| match quick_xml::escape::unescape(unquoted) {
        Ok(Cow::Borrowed(name)) => name.to_owned(),
        Ok(Cow::Owned(name)) => name,
        Err(_) => unquoted.to_owned(),
    });
    Opening { name, quoting: Quoting::Bare, self_closing }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str, in_value: bool) -> Vec<(Kind, &str)> {
        let mut scanner = Scanner::default();
        let mut pos = 0;
        let mut out = Vec::new();
        while let Step::Token(token) = scanner.next(text, pos, true, in_value) {
            out.push((token.kind, &text[token.start..token.end]));
            pos = token.end;
        }
        out
    }

    #[test]
    fn only_the_protocols_tags_are_tags() {
        let text = "a < b <br> <invoke name='x'><parameter=p></parameter></function>";
        let open = |name: &str, quoting| Opening { name: Some(name.into()), quoting, self_closing: false };
        assert_eq!(
            kinds(text, false),
            vec![
                (Kind::Text, "a "),
                (Kind::Text, "<"),
                (Kind::Text, " b "),
                (Kind::Text, "<"),
                (Kind::Text, "br> "),
                (Kind::InvokeOpen(Form::Xml, open("x", Quoting::Single)), "<invoke name='x'>"),
                (Kind::ParamOpen(Form::Qwen, open("p", Quoting::Bare)), "<parameter=p>"),
                (Kind::ParamClose, "</parameter>"),
                (Kind::InvokeClose, "</function>"),
            ]
        );
    }

    #[test]
    fn a_cut_tag_waits_for_more_and_text_does_not() {
        let mut scanner = Scanner::default();
        assert!(matches!(scanner.next("<invo", 0, false, false), Step::More));
        assert!(matches!(scanner.next("<invoke name=\"a", 0, false, false), Step::More));
        assert!(matches!(scanner.next("<b", 0, false, false), Step::Token(Token { kind: Kind::Text, end: 1, .. })));
        assert!(matches!(scanner.next("<invo", 0, true, false), Step::Token(Token { kind: Kind::Text, end: 1, .. })));
        assert!(matches!(scanner.next("<![CDA", 0, false, true), Step::More));
        assert!(matches!(scanner.next("<![CDATA[ x </parameter>", 0, false, true), Step::More));
        assert!(matches!(
            scanner.next("<![CDATA[ x </parameter>]]>", 0, false, true),
            Step::Token(Token { kind: Kind::CData, end: 27, .. })
        ));
    }

    #[test]
    fn names_are_decoded_and_their_quoting_kept() {
        let cases = [
            ("invoke name=\"a&amp;b\"", 6, Some("a&b"), Quoting::Double),
            ("invoke name=plain", 6, Some("plain"), Quoting::Unquoted),
            ("invoke  id=\"1\" name = 'x' ", 6, Some("x"), Quoting::Single),
            ("invoke", 6, None, Quoting::Double),
        ];
        for (inner, len, name, quoting) in cases {
            let opening = named(inner, len, false);
            assert_eq!((opening.name.as_deref(), opening.quoting), (name, quoting), "{inner}");
        }
        assert_eq!(bare(" \"get_weather\" ", false).name.as_deref(), Some("get_weather"));
    }
}
