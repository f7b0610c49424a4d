//! An enum's variant name read with the seed the type gave, noting which variant it is, and
//! converted as the tree converts it when it names none.

use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};
use serde_json::Value;

use super::feed::give_up;
use super::pass::Place;

/// Reads a variant's name, noting which of `variants` it is.
pub(super) struct VariantCapture<'k, 'p, S> {
    pub(super) seed: S,
    pub(super) variants: &'static [&'static str],
    pub(super) place: Place<'p>,
    pub(super) slot: &'k mut Option<&'static str>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for VariantCapture<'_, '_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        de.deserialize_identifier(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> VariantCapture<'_, '_, S> {
    /// Notes the variant `token` names, if it names one.
    fn note(&mut self, token: &str) -> bool {
        *self.slot = self.variants.iter().copied().find(|variant| *variant == token);
        self.slot.is_some()
    }

    /// A token that names no variant: converted as the tree converts it (case, retyping).
    fn convert<E: de::Error>(mut self, token: &str) -> Result<S::Value, E> {
        match self.place.pass().convert(self.place, Value::String(token.to_owned())) {
            Some(Value::String(converted)) => {
                self.note(&converted);
                self.seed.deserialize(StringDeserializer::<E>::new(converted))
            }
            _ => Err(give_up()),
        }
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for VariantCapture<'_, '_, S> {
    type Value = S::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variant name")
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(mut self, token: &'de str) -> Result<S::Value, E> {
        if self.note(token) {
            return self.seed.deserialize(BorrowedStrDeserializer::<E>::new(token));
        }
        self.convert(token)
    }

    fn visit_str<E: de::Error>(mut self, token: &str) -> Result<S::Value, E> {
        if self.note(token) {
            return self.seed.deserialize(StrDeserializer::<E>::new(token));
        }
        self.convert(token)
    }

    fn visit_string<E: de::Error>(self, token: String) -> Result<S::Value, E> {
        self.visit_str(&token)
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<S::Value, E> {
        *self.slot = usize::try_from(index).ok().and_then(|index| self.variants.get(index).copied());
        self.seed.deserialize(index.into_deserializer())
    }
}
