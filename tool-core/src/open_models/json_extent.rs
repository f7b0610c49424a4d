//! Where a JSON object or list the model wrote ends, found as the text arrives: strings (in
//! double quotes, or the single quotes some models write), their escapes and the nesting are
//! followed across chunks, so a streamed answer is scanned once. The top-level members of an
//! object (`"name": ..`, `"parameters": ..`) are noted as their places in the text, so the
//! readers take the arguments as the very text the model wrote, leaving its repairs
//! (trailing commas, single quotes...) to extraction.

use std::ops::Range;

/// The scan of one object or list, from its opening `{` or `[`.
#[derive(Debug, Clone)]
pub(super) struct Extent {
    /// Where the opening bracket is.
    start: usize,
    /// Where scanning goes on.
    at: usize,
    depth: u32,
    /// The quote of the string being read, if inside one.
    quote: Option<u8>,
    escaped: bool,
    /// Whether the members of the top-level object are noted.
    record: bool,
    members: Vec<Member>,
    /// In the top-level object, whether a key (not a value) is being read.
    in_key: bool,
    /// The key read, waiting for its value.
    key: Option<Range<usize>>,
    /// Where the key or value being read began.
    piece: Option<usize>,
    /// The end of the last byte that was no blank, in the key or value being read.
    last: usize,
    end: Option<usize>,
}

/// A member of the top-level object: the places of its key (quotes included) and its value.
#[derive(Debug, Clone)]
pub(super) struct Member {
    pub key: Range<usize>,
    /// The value's place; for the member the text's end cut, up to where the text ends.
    pub value: Range<usize>,
    /// Whether the value was ended by a `,` or the object's `}`.
    pub complete: bool,
}

impl Extent {
    /// The scan of the object or list whose opening bracket is at `start`; `record` notes the
    /// top-level members of an object.
    pub fn new(start: usize, record: bool) -> Self {
        Extent {
            start,
            at: start,
            depth: 0,
            quote: None,
            escaped: false,
            record,
            members: Vec::new(),
            in_key: true,
            key: None,
            piece: None,
            last: start,
            end: None,
        }
    }

    /// Where the opening bracket is.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Where scanning stands.
    pub fn scanned(&self) -> usize {
        self.at
    }

    /// Scans on up to `limit`: the end of the value (after its closing bracket) once it closed.
    pub fn scan(&mut self, text: &str, limit: usize) -> Option<usize> {
        if self.end.is_some() {
            return self.end;
        }
        let bytes = text.as_bytes();
        // Stopping between characters keeps every place noted on a character's boundary.
        let mut limit = limit.min(bytes.len());
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        while self.at < limit {
            let i = self.at;
            let byte = bytes[i];
            self.at += 1;
            if let Some(quote) = self.quote {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == quote {
                    self.quote = None;
                }
                self.last = i + 1;
                continue;
            }
            let top = self.record && self.depth == 1;
            match byte {
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'{' | b'[' => {
                    if top {
                        self.piece.get_or_insert(i);
                        self.last = i + 1;
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        if self.record {
                            self.close_member(true);
                        }
                        self.end = Some(i + 1);
                        return self.end;
                    }
                    if self.record && self.depth == 1 {
                        self.last = i + 1;
                    }
                }
                b':' if top && self.in_key => {
                    if let Some(piece) = self.piece.take() {
                        self.key = Some(piece..self.last);
                    }
                    self.in_key = false;
                }
                b',' if top => {
                    self.close_member(true);
                    self.in_key = true;
                }
                _ => {
                    if byte == b'"' || byte == b'\'' {
                        self.quote = Some(byte);
                    }
                    if top {
                        self.piece.get_or_insert(i);
                        self.last = i + 1;
                    }
                }
            }
        }
        None
    }

    /// Notes the member being read, ended by a `,` or the object's close.
    fn close_member(&mut self, complete: bool) {
        if let (Some(key), Some(piece)) = (self.key.take(), self.piece.take()) {
            self.members.push(Member { key, value: piece..self.last, complete });
        }
        self.piece = None;
    }

    /// The members noted, the one being read last (its value up to where scanning stands).
    pub fn members(&self) -> Vec<Member> {
        let mut members = self.members.clone();
        if let (Some(key), false) = (&self.key, self.in_key) {
            // Inside a nested value or a string, the value runs to where the scan stopped.
            let end = if self.depth > 1 || self.quote.is_some() { self.at } else { self.last };
            let value = self.piece.map_or(self.at..self.at, |piece| piece..end);
            members.push(Member { key: key.clone(), value, complete: false });
        }
        members
    }
}

/// The text of a JSON string as written (`"get_weather"`, `'get_weather'`), decoded; a key
/// without quotes is itself. `None` when `text` is no string, or one the end cut.
pub(super) fn string_value(text: &str) -> Option<String> {
    let text = text.trim();
    if text.starts_with('"') {
        return serde_json::from_str(text).ok();
    }
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    // The same escapes as JSON's, the single quote escaped instead of the double one.
    let mut json = String::with_capacity(inner.len() + 2);
    json.push('"');
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\'') => json.push('\''),
                Some(next) => {
                    json.push('\\');
                    json.push(next);
                }
                None => json.push_str("\\\\"),
            },
            '"' => json.push_str("\\\""),
            c => json.push(c),
        }
    }
    json.push('"');
    serde_json::from_str(&json).ok()
}

/// A key as written: its string, or the bare word some models write.
pub(super) fn key_name(text: &str) -> String {
    string_value(text).unwrap_or_else(|| text.trim().trim_matches(['"', '\'']).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(text: &str) -> (Option<usize>, Vec<(String, String, bool)>) {
        let mut extent = Extent::new(0, true);
        let end = extent.scan(text, usize::MAX);
        let members = extent
            .members()
            .into_iter()
            .map(|m| (text[m.key].to_owned(), text[m.value].to_owned(), m.complete))
            .collect();
        (end, members)
    }

    #[test]
    fn an_object_ends_at_its_own_close_whatever_its_strings_hold() {
        let text = r#"{"name": "a}\"{", "parameters": {"x": [1, {"y": "]"}]}} tail"#;
        let (end, members) = whole(text);
        assert_eq!(end, Some(text.len() - 5));
        assert_eq!(
            members,
            vec![
                (r#""name""#.to_owned(), r#""a}\"{""#.to_owned(), true),
                (r#""parameters""#.to_owned(), r#"{"x": [1, {"y": "]"}]}"#.to_owned(), true),
            ]
        );
    }

    #[test]
    fn a_scan_cut_anywhere_goes_on_to_the_same_end() {
        let text = "{'name': 'it\\'s', \"arguments\": {\"k\": \"v\\\\\"}}";
        let (end, members) = whole(text);
        for cut in 0..=text.len() {
            let mut extent = Extent::new(0, true);
            assert_eq!(extent.scan(&text[..cut], usize::MAX), if cut == text.len() { end } else { None });
            assert_eq!(extent.scan(text, usize::MAX), end, "cut at {cut}");
            let again: Vec<_> = extent
                .members()
                .into_iter()
                .map(|m| (text[m.key].to_owned(), text[m.value].to_owned(), m.complete))
                .collect();
            assert_eq!(again, members);
        }
        assert_eq!(string_value(&members[0].1), Some("it's".to_owned()));
    }

    #[test]
    fn a_cut_object_gives_the_member_it_was_reading() {
        let (end, members) = whole(r#"{"name": "f", "parameters": {"a": 1"#);
        assert_eq!(end, None);
        assert_eq!(members[1], (r#""parameters""#.to_owned(), r#"{"a": 1"#.to_owned(), false));
    }
}
