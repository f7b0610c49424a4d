//! Keys of the arguments object: which declared parameter a key names, read without
//! allocating, and the warning for a key no parameter declares.

use std::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

use super::convert;
use super::single_pass::Pass;
use crate::model::{pointer, ParseWarning, ToolParameter};

/// The position of the declared parameter a key names, or [`UNKNOWN_KEY`]. A `usize`, so that a
/// tool may have any number of parameters; reading a key still returns in registers, as serde's
/// derived field identifiers do.
#[doc(hidden)]
pub type Key = usize;

/// The [`Key`] of a name no parameter declares (its warning goes to the [`Pass`]).
#[doc(hidden)]
pub const UNKNOWN_KEY: Key = Key::MAX;

/// Reads a key without allocating when it names a declared parameter; an unknown name is
/// noted as a warning.
///
/// Not generic: one copy of serde_json's per-key code serves every tool of a crate, rather than
/// a copy per parameter list compiled into each tool (the object scan reads most keys anyway).
pub(crate) struct KeySeed<'a> {
    /// The declared wire names, in parameter order.
    pub names: &'a [&'a str],
    /// Where unknown names are noted.
    pub pass: &'a Pass<'a>,
    /// The parameter this key most likely names: the one after the previous key's.
    pub expected: Key,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a parameter name")
    }

    #[inline]
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        match parameter_named(self.names, key.as_bytes(), self.expected) {
            Some(param) => Ok(param),
            None => Ok(note_unknown(self.pass, key)),
        }
    }
}

/// The position among `names` of the parameter `key` names, trying `expected` first: models
/// mostly send the parameters in declaration order (wire names are unique, `#[tool]` refuses
/// duplicates, so this finds what the search would). Inlined into each key reader, as the
/// comparison it makes is.
#[inline(always)]
pub(crate) fn parameter_named(names: &[&str], key: &[u8], expected: Key) -> Option<Key> {
    if names.get(expected).is_some_and(|name| same_name(name.as_bytes(), key)) {
        return Some(expected);
    }
    names.iter().position(|name| same_name(name.as_bytes(), key))
}

/// Notes an unknown key; out of line, so that reading a declared key stays small enough to inline.
#[cold]
#[inline(never)]
fn note_unknown(pass: &Pass<'_>, key: &str) -> Key {
    pass.note_unknown(unknown_parameter(key, pass.parameters()));
    UNKNOWN_KEY
}

/// Whether `key` is `name`, compared inline: parameter names are short, and a `memcmp` call per
/// candidate costs more than the comparison itself.
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two overlapping loads cover every byte of a name of 1 to 16 bytes.
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// `N` bytes of `bytes` from `at`, as one comparable value.
#[inline]
fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut word = [0; N];
    word.copy_from_slice(&bytes[at..at + N]);
    word
}

/// The warning for a key no parameter declares, naming the closest declared one.
pub(crate) fn unknown_parameter(key: &str, parameters: &[ToolParameter]) -> ParseWarning {
    let declared: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
    convert::unknown_key(&pointer::child("", key), key, &declared, "parameters")
}

#[cfg(test)]
mod tests {
    use super::same_name;

    #[test]
    fn same_name_agrees_with_string_equality_at_every_length_and_position() {
        for n in 0..=40usize {
            let name: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let same = |a: &str, b: &str| same_name(a.as_bytes(), b.as_bytes());
            assert!(same(&name, &name), "{name}");
            assert!(!same(&name, &format!("{name}x")), "{name}");
            assert!(n == 0 || !same(&name, &name[..n - 1]), "{name}");
            // One byte different, at each position.
            for at in 0..n {
                let mut other = name.clone().into_bytes();
                other[at] = b'_';
                let other = String::from_utf8(other).unwrap();
                assert!(!same(&name, &other), "{name} vs {other}");
            }
        }
    }
}
