//! The single pass's key reader: a key read as the position of the parameter it names,
//! without allocating; an unknown key noted with its warning.

use std::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

use super::names::{parameter_named, unknown_parameter, Key, UNKNOWN_KEY};
use crate::extract::single_pass::Pass;

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

/// Notes an unknown key; out of line, so that reading a declared key stays small enough to inline.
#[cold]
#[inline(never)]
fn note_unknown(pass: &Pass<'_>, key: &str) -> Key {
    pass.note_unknown(unknown_parameter(key, pass.parameters()));
    UNKNOWN_KEY
}
