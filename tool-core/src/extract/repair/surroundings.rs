//! What models put around the arguments: markdown code fences, special tokens (`<|call|>`),
//! opening and closing tags (`<tool_call>`, `</tool_call>`), read and removed by the parser.

use super::parser::Parser;

impl<'t> Parser<'t> {
    /// An opening markdown code fence (```` ``` ```` and an optional language tag).
    pub(super) fn open_fence(&mut self) -> bool {
        if !self.eat("```") {
            return false;
        }
        while let Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'+' | b'-' | b'.') = self.peek() {
            self.pos += 1;
        }
        true
    }

    /// Special tokens and opening tags before the arguments (`<tool_call>`, `<|python_tag|>`,
    /// `<function=search>`), each consumed and added to `found`.
    pub(super) fn leading_tokens(&mut self, found: &mut Vec<&'t str>) {
        loop {
            self.skip_whitespace();
            match self.special_token().or_else(|| self.opening_tag()) {
                Some(token) => found.push(token),
                None => return,
            }
        }
    }

    /// An opening tag at the cursor (`<tool_call>`, `<function=search>`): a name of letters,
    /// digits and `_-:.=`, no attributes, no spaces. Consumed and returned.
    fn opening_tag(&mut self) -> Option<&'t str> {
        let body = self.rest().strip_prefix('<')?;
        let name = body.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.' | '=')))?;
        if name == 0 || !body.get(name..)?.starts_with('>') || !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let tag = self.rest().get(..name + 2)?;
        self.pos += tag.len();
        Some(tag)
    }

    /// A model's special token (`<|call|>`, `<｜end▁of▁sentence｜>`) or a closing tag
    /// (`</tool_call>`) at the cursor, consumed and returned.
    pub(super) fn special_token(&mut self) -> Option<&'t str> {
        let rest = self.rest();
        let len = if let Some(body) = rest.strip_prefix("</") {
            let name = body.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')))?;
            (name > 0 && body.get(name..)?.starts_with('>')).then_some(2 + name + 1)?
        } else {
            let open = ["<|", "<｜"].into_iter().find(|open| rest.starts_with(open))?.len();
            let body = rest.get(open..)?;
            let mut end = None;
            let mut chars = body.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                if matches!(c, '|' | '｜') && chars.peek().map(|&(_, n)| n) == Some('>') {
                    end = (i > 0).then_some(open + i + c.len_utf8() + 1);
                    break;
                }
                if c.is_whitespace() || matches!(c, '<' | '>' | '|' | '｜' | '"' | '\'' | '{' | '}') {
                    return None;
                }
            }
            end?
        };
        let token = rest.get(..len)?;
        self.pos += len;
        Some(token)
    }
}
