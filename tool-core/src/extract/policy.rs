//! How forgiving extraction is (the lenient and strict policies), and how much it reads at
//! most: the limits on the arguments' size and on the keys of one object.

use crate::model::pointer;
use crate::model::rules;
use crate::model::{truncate, ArgumentError, ArgumentErrors, Extraction, Findings};

/// How forgiving extraction is, and how much it reads at most.
///
/// Lenient (the default) repairs the arguments text and converts values by their declared
/// types, with a warning for each change. Strict refuses every repair and conversion as an
/// error instead, for hosts that want exact arguments. A tool (`#[tool(strict)]`) or a parameter
/// (`#[param(strict)]`) can be strict on its own; a catalog (`CatalogBuilder::strict`) makes
/// every tool strict.
///
/// Whatever the policy, arguments longer than [`max_argument_bytes`](Self::max_argument_bytes)
/// or with an object of more than [`max_keys_per_object`](Self::max_keys_per_object) keys are
/// refused before they are read, with an error that names the limit (a catalog's
/// `CatalogBuilder::max_argument_bytes` and `CatalogBuilder::max_keys_per_object` change them).
///
/// ```
/// use tool_core::ExtractionPolicy;
///
/// let policy = ExtractionPolicy::LENIENT.with_max_keys_per_object(100_000);
/// assert_eq!(policy.max_keys_per_object, 100_000);
/// assert_eq!(policy.max_argument_bytes, ExtractionPolicy::DEFAULT_MAX_ARGUMENT_BYTES);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExtractionPolicy {
    /// Refuse repairs and conversions.
    pub strict: bool,
    /// The longest arguments text read, in bytes.
    pub max_argument_bytes: usize,
    /// The most keys one object of the arguments may have, at any depth.
    pub max_keys_per_object: usize,
}

impl ExtractionPolicy {
    /// The default of [`max_argument_bytes`](Self::max_argument_bytes): 4 MiB, the body limit
    /// of rmcp's HTTP server, and far beyond what a model writes in one answer.
    pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 4 * 1024 * 1024;
    /// The default of [`max_keys_per_object`](Self::max_keys_per_object): 10,000, far beyond the
    /// keys of a real call, and few enough that one call's warnings stay small.
    pub const DEFAULT_MAX_KEYS_PER_OBJECT: usize = 10_000;

    /// Repair and convert, with warnings.
    pub const LENIENT: ExtractionPolicy = ExtractionPolicy {
        strict: false,
        max_argument_bytes: Self::DEFAULT_MAX_ARGUMENT_BYTES,
        max_keys_per_object: Self::DEFAULT_MAX_KEYS_PER_OBJECT,
    };
    /// Refuse every repair and conversion.
    pub const STRICT: ExtractionPolicy = ExtractionPolicy { strict: true, ..Self::LENIENT };

    /// This policy, strict or not.
    pub const fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// This policy, reading arguments of at most `bytes` bytes.
    pub const fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        self
    }

    /// This policy, reading objects of at most `keys` keys.
    pub const fn with_max_keys_per_object(mut self, keys: usize) -> Self {
        self.max_keys_per_object = keys;
        self
    }

    /// Why `raw` is refused before it is read: longer than the limit, or an object (also one
    /// inside JSON text in a string) with more keys than the limit. Linear in the text, and
    /// only read through when the text is long enough to hold such an object.
    #[inline]
    pub(crate) fn check(&self, raw: &str) -> Result<(), ArgumentError> {
        // A member is at least four bytes (`a:1,`): shorter text holds no object over the limit.
        if raw.len() > self.max_argument_bytes || raw.len() / 4 > self.max_keys_per_object {
            return self.check_long(raw);
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn check_long(&self, raw: &str) -> Result<(), ArgumentError> {
        if raw.len() > self.max_argument_bytes {
            let (len, max) = (raw.len(), self.max_argument_bytes);
            return Err(ArgumentError {
                pointer: String::new(),
                rule: rules::ARGUMENTS_TOO_LARGE.into(),
                expected: format!("arguments of at most {max} bytes"),
                received: Some(truncate(raw)),
                detail: format!(
                    "the arguments are {len} bytes, more than the limit of {max} (`max_argument_bytes`; the host \
                     raises it with `CatalogBuilder::max_argument_bytes`)"
                ),
            });
        }
        let max = self.max_keys_per_object;
        match crowded_object(raw, max, "") {
            None => Ok(()),
            Some(at) => Err(ArgumentError {
                pointer: at,
                rule: rules::TOO_MANY_KEYS.into(),
                expected: format!("an object of at most {max} keys"),
                received: Some(format!("an object of more than {max} keys")),
                detail: format!(
                    "an object of the arguments has more than {max} keys, the limit (`max_keys_per_object`; the host \
                     raises it with `CatalogBuilder::max_keys_per_object`)"
                ),
            }),
        }
    }
}

/// Arguments refused before they are read (over a limit of the policy).
#[cold]
#[inline(never)]
pub(crate) fn refused_before_reading<T>(raw: &str, error: ArgumentError) -> Extraction<'_, T> {
    Extraction { raw, value: Err(ArgumentErrors::single(error)), warnings: Findings::new(), arguments: None }
}

impl Default for ExtractionPolicy {
    fn default() -> Self {
        Self::LENIENT
    }
}

/// Containers deeper than this are not looked into: both parsers refuse them anyway.
const SCAN_DEPTH: usize = 256;

/// One open container of the scan.
struct Frame {
    object: bool,
    /// Keys so far (an object), or elements so far (a list).
    count: usize,
    /// Where the current member began (after `{` or `,`).
    member: usize,
    /// The current member's key, once its `:` is read (a span of the text).
    key: Option<(usize, usize)>,
}

/// The JSON pointer of the first object of `text` with more than `max` keys, after `at` (the
/// pointer of `text` itself); `None` when there is none, or the text is too short to hold one.
/// Read as the tolerant parser reads (both quotes, comments, unquoted keys), and JSON text held
/// in a string is read too, as the arguments or a value may be decoded from it.
fn crowded_object(text: &str, max: usize, at: &str) -> Option<String> {
    if text.len() / 4 <= max {
        return None;
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    // The last string read, as a span of the text.
    let mut string = (0, 0);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'"' | b'\'') => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                let end = i.min(bytes.len());
                string = (start, end);
                // A string that may hold an object over the limit, as JSON text: read it too.
                let inner = end - start;
                let json_like = text.get(start + 1..end).is_some_and(|s| s.trim_start().starts_with(['{', '[']));
                if inner / 4 > max
                    && json_like
                    && quote == b'"'
                    && let Ok(decoded) = serde_json::from_str::<String>(&text[start..end])
                {
                    let inner_at = pointer_of(text, &stack, at);
                    if let Some(found) = crowded_object(&decoded, max, &inner_at) {
                        return Some(found);
                    }
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 1;
            }
            open @ (b'{' | b'[') => {
                if stack.len() >= SCAN_DEPTH {
                    return None;
                }
                stack.push(Frame { object: open == b'{', count: 0, member: i + 1, key: None });
            }
            b'}' | b']' => {
                stack.pop();
            }
            b':' => {
                if let Some(frame) = stack.last_mut().filter(|f| f.object && f.key.is_none()) {
                    frame.count += 1;
                    // A quoted key, else the word before the colon.
                    frame.key = Some(if string.0 >= frame.member { string } else { (frame.member, i) });
                    if frame.count > max {
                        stack.pop();
                        return Some(pointer_of(text, &stack, at));
                    }
                }
            }
            b',' => {
                if let Some(frame) = stack.last_mut() {
                    frame.member = i + 1;
                    frame.key = None;
                    if !frame.object {
                        frame.count += 1;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The pointer of the value being read inside the open containers `stack` of `text`, below `at`.
fn pointer_of(text: &str, stack: &[Frame], at: &str) -> String {
    let mut out = at.to_owned();
    for frame in stack {
        if frame.object {
            let (start, end) = frame.key.unwrap_or((0, 0));
            let key = text.get(start..end).unwrap_or("");
            let key = key.split_whitespace().last().filter(|_| !key.starts_with(['"', '\''])).unwrap_or(key);
            let key = match key.as_bytes().first() {
                Some(b'"') => serde_json::from_str::<String>(key).unwrap_or_else(|_| key.trim_matches('"').to_owned()),
                Some(b'\'') => key.trim_matches('\'').to_owned(),
                _ => key.to_owned(),
            };
            pointer::push(&mut out, &key);
        } else {
            out.push('/');
            out.push_str(itoa::Buffer::new().format(frame.count));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: usize) -> String {
        let members: Vec<String> = (0..n).map(|i| format!("\"k{i}\": {i}")).collect();
        format!("{{{}}}", members.join(", "))
    }

    #[test]
    fn the_first_object_over_the_limit_is_found_at_any_depth_and_inside_json_text() {
        let policy = ExtractionPolicy::LENIENT.with_max_keys_per_object(3);
        let refused = |raw: &str| policy.check(raw).err().map(|e| (e.pointer, e.rule));
        assert_eq!(refused(&keys(3)), None);
        assert_eq!(refused(&keys(4)), Some((String::new(), rules::TOO_MANY_KEYS.to_owned())));
        let nested = format!("{{'a': [1, {{}}, {{b: {}}}]}}", keys(4));
        assert_eq!(refused(&nested), Some(("/a/2/b".to_owned(), rules::TOO_MANY_KEYS.to_owned())));
        // Colons and braces inside strings and comments are not members.
        let quoted = format!("{{\"a/b\": \"x: {{y: 1, z: 2}}\", // c: d\n \"e\": {}}}", keys(4));
        assert_eq!(refused(&quoted), Some(("/e".to_owned(), rules::TOO_MANY_KEYS.to_owned())));
        let encoded = serde_json::to_string(&format!("{{\"o\": {}}}", keys(4))).unwrap();
        assert_eq!(
            refused(&format!("{{\"p\": {encoded}}}")),
            Some(("/p/o".to_owned(), rules::TOO_MANY_KEYS.to_owned()))
        );
        assert_eq!(
            refused(&serde_json::to_string(&keys(4)).unwrap()),
            Some((String::new(), rules::TOO_MANY_KEYS.to_owned()))
        );
        // Values with colons in strings do not count twice.
        assert_eq!(refused(r#"{"a": "1:2:3:4:5", "b": "6:7:8:9", "c": 1}"#), None);
    }

    #[test]
    fn arguments_over_the_size_limit_are_refused_naming_the_limit() {
        let policy = ExtractionPolicy::LENIENT.with_max_argument_bytes(10);
        assert_eq!(policy.check(r#"{"a": 123}"#), Ok(()));
        assert_eq!(
            policy.check(r#"{"a": 1234}"#),
            Err(ArgumentError {
                pointer: String::new(),
                rule: "arguments_too_large".into(),
                expected: "arguments of at most 10 bytes".into(),
                received: Some(r#"{"a": 1234}"#.into()),
                detail: "the arguments are 11 bytes, more than the limit of 10 (`max_argument_bytes`; the host raises \
                         it with `CatalogBuilder::max_argument_bytes`)"
                    .into(),
            })
        );
    }

    #[test]
    fn hostile_texts_end_without_a_panic() {
        let policy = ExtractionPolicy::LENIENT.with_max_keys_per_object(1);
        for raw in ["\"", "{\"a", "{'a\\", "/*", "//", "{a:1,b:2", "}}}]]{", "{\"\\u00\": 1, \"b\": 2, c: 3}"] {
            let _ = policy.check(raw);
        }
        assert!(policy.check(&"[".repeat(100_000)).is_ok());
    }
}
