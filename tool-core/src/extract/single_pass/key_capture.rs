//! A map's key read with the seed the type gave, its text noted on the way (borrowed, so that a
//! conversion below it can name its place).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// Reads a key with the seed the type gave, noting its text on the way.
pub(super) struct KeyCapture<'k, 'x, S> {
    pub(super) seed: S,
    pub(super) slot: &'k mut Option<&'x str>,
}

impl<'de: 'x, 'x, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeyCapture<'_, 'x, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(KeyDeserializer { de, slot: self.slot })
    }
}

struct KeyDeserializer<'k, 'x, D> {
    de: D,
    slot: &'k mut Option<&'x str>,
}

macro_rules! forward_key {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* v: V) -> Result<V::Value, D::Error> {
                self.de.$method($($arg,)* KeyVisitor { v, slot: self.slot })
            }
        )*
    };
}

impl<'de: 'x, 'x, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<'_, 'x, D> {
    type Error = D::Error;

    forward_key! {
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(), deserialize_i32(),
        deserialize_i64(), deserialize_i128(), deserialize_u8(), deserialize_u16(), deserialize_u32(),
        deserialize_u64(), deserialize_u128(), deserialize_f32(), deserialize_f64(), deserialize_char(),
        deserialize_str(), deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_option(), deserialize_unit(), deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str), deserialize_seq(), deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize), deserialize_map(),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        deserialize_identifier(), deserialize_ignored_any(),
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

struct KeyVisitor<'k, 'x, V> {
    v: V,
    slot: &'k mut Option<&'x str>,
}

macro_rules! note_key {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(
            fn $method<E: de::Error>(self, n: $ty) -> Result<V::Value, E> {
                *self.slot = None;
                self.v.$method(n)
            }
        )*
    };
}

impl<'de: 'x, 'x, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, 'x, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        *self.slot = Some(s);
        self.v.visit_borrowed_str(s)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        *self.slot = None;
        self.v.visit_str(s)
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        *self.slot = None;
        self.v.visit_string(s)
    }

    note_key! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64), visit_i128(i128),
        visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64), visit_u128(u128), visit_f32(f32),
        visit_f64(f64), visit_char(char),
    }

    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<V::Value, E> {
        self.v.visit_bytes(b)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, b: &'de [u8]) -> Result<V::Value, E> {
        self.v.visit_borrowed_bytes(b)
    }

    fn visit_byte_buf<E: de::Error>(self, b: Vec<u8>) -> Result<V::Value, E> {
        self.v.visit_byte_buf(b)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(de)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_unit()
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_newtype_struct(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.v.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.v.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.v.visit_enum(data)
    }
}
