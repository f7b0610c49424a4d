//! The object scan: the arguments object's own syntax (braces, keys, colons, commas) read by
//! hand, each value read by serde_json through the single pass's converting reader.
//!
//! Tool arguments are a flat object whose keys are short plain names, so the scan reads that
//! frame itself and hands serde_json only the values. Whatever it does not read exactly as the
//! single pass would (an escaped or unknown key, a key given twice, a trailing comma, text
//! after the object) stops it, and the single pass reads the text instead: the scan never
//! decides anything the single pass would decide otherwise.

use serde::de::{DeserializeSeed, IgnoredAny};

use crate::extract::keys::{parameter_named, Key};
use crate::extract::param::ToolParam;
use crate::extract::single_pass::{ParamSeed, Pass};

/// Why the scan stopped before the object's end.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// A value failed to read: the tree path decides, as it does when the single pass fails.
    Failed,
    /// Text the scan does not read: the single pass reads the whole text instead.
    Unread,
}

/// A position in the raw arguments text, inside its top-level object.
#[doc(hidden)]
pub struct ObjectScan<'r> {
    raw: &'r str,
    at: usize,
}

impl<'r> ObjectScan<'r> {
    /// Starts after the object's `{`.
    #[inline]
    pub fn open(raw: &'r str) -> Result<Self, Stop> {
        let mut scan = ObjectScan { raw, at: 0 };
        scan.skip_whitespace();
        if scan.peek() != Some(b'{') {
            return Err(Stop::Unread);
        }
        scan.at += 1;
        Ok(scan)
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.raw.as_bytes().get(self.at).copied()
    }

    /// JSON's whitespace, as serde_json skips it.
    #[inline]
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The first key's parameter, or `None` for an empty object.
    #[inline]
    pub fn first_key(&mut self, names: &[&str]) -> Result<Option<Key>, Stop> {
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            return self.close();
        }
        self.key(names, 0).map(Some)
    }

    /// After a value: the next key's parameter, or `None` at the object's end. `expected` is
    /// the parameter tried first (models mostly send them in declaration order).
    #[inline]
    pub fn next_key(&mut self, names: &[&str], expected: Key) -> Result<Option<Key>, Stop> {
        self.skip_whitespace();
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                self.skip_whitespace();
                self.key(names, expected).map(Some)
            }
            Some(b'}') => self.close(),
            _ => Err(Stop::Unread),
        }
    }

    /// The object's `}`: only whitespace may follow.
    #[inline]
    fn close(&mut self) -> Result<Option<Key>, Stop> {
        self.at += 1;
        self.skip_whitespace();
        if self.at == self.raw.len() {
            Ok(None)
        } else {
            Err(Stop::Unread)
        }
    }

    /// A key, up to and including its colon: the position of the parameter it names.
    #[inline]
    fn key(&mut self, names: &[&str], expected: Key) -> Result<Key, Stop> {
        let bytes = self.raw.as_bytes();
        if self.peek() != Some(b'"') {
            return Err(Stop::Unread);
        }
        let start = self.at + 1;
        let end = start + plain_run(&bytes[start..]);
        // An escape, a control character (invalid JSON) or the end: the single pass's.
        if bytes.get(end) != Some(&b'"') {
            return Err(Stop::Unread);
        }
        let key = &bytes[start..end];
        self.at = end + 1;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(Stop::Unread);
        }
        self.at += 1;
        // Unknown keys are noted (and maybe unwrapped) by the single pass.
        parameter_named(names, key, expected).ok_or(Stop::Unread)
    }

    /// Reads the value after a key into the parameter's `slot`, as the single pass would.
    /// Always inlined into the tuple's scan in optimised builds: with `#[inline]` alone LLVM
    /// keeps it out of line once several tuples of a binary read the same type, so a tool's
    /// reading would depend on which other tools share its binary. Not in debug builds, where
    /// nothing else is inlined and each copy is only more code to compile per tool.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn value<T: ToolParam>(&mut self, slot: &mut Option<T>, param: usize, pass: &Pass<'_>) -> Result<(), Stop> {
        // A key given twice: the single pass leaves it to the tree path, which reports it.
        if slot.is_some() {
            return Err(Stop::Unread);
        }
        let rest = self.raw.get(self.at..).ok_or(Stop::Unread)?;
        let mut de = serde_json::Deserializer::from_str(rest);
        match ParamSeed::new(param, pass).deserialize(&mut de) {
            Ok(value) => *slot = Some(value),
            Err(_) => return Err(Stop::Failed),
        }
        // Where the value ended (serde_json says it only through a stream).
        self.at += de.into_iter::<IgnoredAny>().byte_offset();
        Ok(())
    }
}

/// How many bytes at the start of `bytes` a key holds as they are: up to the first `"`, `\\` or
/// control character. Eight bytes at a time: keys are short, but a byte loop with three tests
/// per byte costs more than the rest of the key's reading.
#[inline]
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `word` that is zero; exact up to the lowest such byte.
    let zeros = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
        let special = zeros(word ^ (ONES * u64::from(b'"'))) | zeros(word ^ (ONES * u64::from(b'\\'))) | below_space;
        if special != 0 {
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..].iter().take_while(|&&byte| byte != b'"' && byte != b'\\' && byte >= 0x20).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys and stops of a scan that reads no values (every key's value is `0`, skipped).
    fn keys(raw: &str, names: &[&str]) -> Result<Vec<Key>, Stop> {
        let mut scan = ObjectScan::open(raw)?;
        let mut found = Vec::new();
        let mut key = scan.first_key(names)?;
        while let Some(k) = key {
            found.push(k);
            scan.skip_whitespace();
            if scan.peek() != Some(b'0') {
                return Err(Stop::Failed);
            }
            scan.at += 1;
            key = scan.next_key(names, k.wrapping_add(1))?;
        }
        Ok(found)
    }

    #[test]
    fn reads_keys_in_any_order_with_json_whitespace_anywhere() {
        let names = ["a", "bb", "ccc"];
        assert_eq!(keys(r#"{"a":0,"bb":0,"ccc":0}"#, &names), Ok(vec![0, 1, 2]));
        assert_eq!(keys(" \n{ \"ccc\" :\t0 ,\r\"a\": 0 } \n", &names), Ok(vec![2, 0]));
        assert_eq!(keys("{}", &names), Ok(vec![]));
        assert_eq!(keys(" { } ", &names), Ok(vec![]));
    }

    #[test]
    fn stops_unread_where_the_single_pass_must_decide() {
        let names = ["a", "bb"];
        for raw in [
            r#"{"a":0,}"#,             // trailing comma (a repair)
            r#"{,"a":0}"#,             // comma first
            r#"{"a":0}x"#,             // text after the object
            r#"{"a":0}{"a":0}"#,       // concatenated objects
            r#"{"a":0 "bb":0}"#,       // missing comma
            r#"{"a" 0}"#,              // missing colon
            r#"{"x":0}"#,              // unknown key
            r#"{"\u0061":0}"#,         // escaped key
            "{\"a\u{1}\":0}",          // control character in a key
            r#"{"a":0"#,               // truncated
            r#"{"a"#,                  // truncated in a key
            r#"{'a':0}"#,              // single quotes
            r#"[0]"#,                  // not an object
            "",                        // nothing
            "```json\n{\"a\":0}\n```", // a fence
        ] {
            assert_eq!(keys(raw, &names), Err(Stop::Unread), "{raw:?}");
        }
    }

    #[test]
    fn plain_run_stops_at_the_first_quote_backslash_or_control_character_at_any_offset() {
        for len in 0..40 {
            let plain: Vec<u8> = (0..len).map(|i| [b'a', b' ', 0x7f, 0x80, 0xff, b'~', b'!'][i % 7]).collect();
            assert_eq!(plain_run(&plain), len);
            for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                for at in 0..len {
                    let mut bytes = plain.clone();
                    bytes[at] = stop;
                    // Another stop later never hides the first.
                    bytes.push(b'"');
                    assert_eq!(plain_run(&bytes), at, "{stop:#x} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn reads_non_ascii_keys_byte_for_byte() {
        assert_eq!(keys(r#"{"店名":0,"a":0}"#, &["a", "店名"]), Ok(vec![1, 0]));
    }
}
