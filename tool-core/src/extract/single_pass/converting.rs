//! The deserializer every parameter value is read through ([`Converting`]): it hands on what
//! the type asked for and converts what arrived in the wrong form; lists, maps and enums are
//! wrapped so that what is inside them is read through it too.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use serde::Deserialize;
use serde_json::{Number, Value};

use super::feed::{feed, feed_scalar, feed_token, give_up};
use super::key_capture::KeyCapture;
use super::pass::{Became, Pass, Place, Segment, Step};
use super::variant_capture::VariantCapture;
use crate::extract::convert::Token;

/// Reads one parameter through [`Converting`].
#[doc(hidden)]
pub struct ParamSeed<'p, T> {
    param: usize,
    pass: &'p Pass<'p>,
    value: PhantomData<fn() -> T>,
}

impl<'p, T> ParamSeed<'p, T> {
    pub(crate) fn new(param: usize, pass: &'p Pass<'p>) -> Self {
        ParamSeed { param, pass, value: PhantomData }
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for ParamSeed<'_, T> {
    type Value = T;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<T, D::Error> {
        T::deserialize(Converting { de, place: &Step::Param(self.param, self.pass) })
    }
}

/// Any seed, reading through [`Converting`] at a place.
struct Wrapped<'p, S> {
    seed: S,
    place: Place<'p>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Wrapped<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Converting { de, place: self.place })
    }
}

/// What the type asked for: which kinds of value it takes as they arrive. A const parameter of
/// [`Dispatch`], so that its checks fold away in each reader.
mod hint {
    pub const BOOL: u8 = 0;
    pub const INTEGER: u8 = 1;
    pub const FLOAT: u8 = 2;
    pub const TEXT: u8 = 3;
    pub const SEQ: u8 = 4;
    pub const MAP: u8 = 5;
    /// A struct: an object, or its fields in order as a list.
    pub const STRUCT: u8 = 6;
    /// `()` or a unit struct: only `null`, never converted.
    pub const UNIT: u8 = 7;

    pub const fn takes_seq(hint: u8) -> bool {
        hint == SEQ || hint == STRUCT
    }

    pub const fn takes_map(hint: u8) -> bool {
        hint == MAP || hint == STRUCT
    }
}

/// The deserializer every parameter value is read through.
struct Converting<'p, D> {
    de: D,
    place: Place<'p>,
}

impl<'p, 'de, D: Deserializer<'de>> Converting<'p, D> {
    #[inline]
    fn dispatch<const H: u8, V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_any(Dispatch::<V, H> { v, place: self.place })
    }
}

macro_rules! dispatch_as {
    ($($method:ident => $hint:expr),* $(,)?) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
                self.dispatch::<{ $hint }, V>(v)
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Converting<'_, D> {
    type Error = D::Error;

    /// No hint (`serde_json::Value`, untagged enums, flattened fields): handed on untouched
    /// where the schema declares nothing to convert, else read whole and converted.
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        let pass = self.place.pass();
        if !pass.converts(self.place) {
            return self.de.deserialize_any(v);
        }
        let value = Value::deserialize(self.de)?;
        match pass.convert(self.place, value) {
            Some(value) => value.deserialize_any(v).map_err(de::Error::custom),
            None => Err(give_up()),
        }
    }

    dispatch_as! {
        deserialize_bool => hint::BOOL,
        deserialize_i8 => hint::INTEGER,
        deserialize_i16 => hint::INTEGER,
        deserialize_i32 => hint::INTEGER,
        deserialize_i64 => hint::INTEGER,
        deserialize_i128 => hint::INTEGER,
        deserialize_u8 => hint::INTEGER,
        deserialize_u16 => hint::INTEGER,
        deserialize_u32 => hint::INTEGER,
        deserialize_u64 => hint::INTEGER,
        deserialize_u128 => hint::INTEGER,
        deserialize_f32 => hint::FLOAT,
        deserialize_f64 => hint::FLOAT,
        deserialize_char => hint::TEXT,
        deserialize_str => hint::TEXT,
        deserialize_string => hint::TEXT,
        deserialize_identifier => hint::TEXT,
        deserialize_unit => hint::UNIT,
        deserialize_seq => hint::SEQ,
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        let pass = self.place.pass();
        // A struct read as a map (`#[serde(flatten)]`): converted whole, as the tree converts
        // it, so that the keys it does not declare are noted (and dropped) there too.
        if pass.declares_fields(self.place) {
            let value = Value::deserialize(self.de)?;
            return match pass.convert(self.place, value) {
                Some(value) => feed(value, v),
                None => Err(give_up()),
            };
        }
        self.dispatch::<{ hint::MAP }, V>(v)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_bytes(v)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_byte_buf(v)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_option(OptionVisitor { v, place: self.place })
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value, D::Error> {
        self.dispatch::<{ hint::UNIT }, V>(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, D::Error> {
        // serde_json's `RawValue` asks by this name for the text itself.
        if name.starts_with("$serde_json::") {
            return self.de.deserialize_newtype_struct(name, v);
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, D::Error> {
        self.dispatch::<{ hint::SEQ }, V>(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.dispatch::<{ hint::SEQ }, V>(v)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.dispatch::<{ hint::STRUCT }, V>(v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_enum(name, variants, EnumVisitor { v, variants, place: self.place })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        // A key the type does not declare: never dropped without a word.
        if let Step::In(parent, Segment::Key(key)) = *self.place
            && !self.place.pass().ignores(parent, key)
        {
            return Err(give_up());
        }
        self.de.deserialize_ignored_any(v)
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// Receives what arrived and either hands it on (it is what the type asked for) or converts it.
struct Dispatch<'p, V, const H: u8> {
    v: V,
    place: Place<'p>,
}

impl<'de, V: Visitor<'de>, const H: u8> Dispatch<'_, V, H> {
    // Every mismatch is out of line, its value built there: the forwarding arms stay small
    // enough to inline into the type's own code, as a derived `Deserialize` reads.
    #[cold]
    #[inline(never)]
    fn mismatch<E: de::Error>(self, value: Value) -> Result<V::Value, E> {
        match self.place.pass().convert(self.place, value) {
            Some(value) => feed(value, self.v),
            None => Err(give_up()),
        }
    }

    /// A scalar of the wrong kind, converted without building a `Value` for it.
    #[cold]
    #[inline(never)]
    fn mismatch_token<E: de::Error>(self, token: Token<'_>) -> Result<V::Value, E> {
        match self.place.pass().convert_token(self.place, token.clone()) {
            None => Err(give_up()),
            Some(Became::Kept) => feed_token(token, self.v),
            Some(Became::Scalar(scalar)) => feed_scalar(scalar, self.v),
            Some(Became::Whole(value)) => feed(value, self.v),
            Some(Became::Decode) => match token {
                Token::Text(text) => self.read_decoded(text),
                _ => Err(give_up()),
            },
        }
    }

    /// Reads JSON `text` as the value it holds, through [`Converting`] at the same place: its
    /// elements and fields convert as if the text had been sent as JSON. Text the tree would
    /// have to repair first (Python literals) is left to it.
    fn read_decoded<E: de::Error>(self, text: &str) -> Result<V::Value, E> {
        // A reader that never borrows from its input: the text lives only as long as this call,
        // while the type may borrow for `'de`.
        let mut inner = serde_json::Deserializer::from_reader(text.as_bytes());
        let converting = Converting { de: &mut inner, place: self.place };
        let value = converting.dispatch::<H, V>(self.v).map_err(|_| give_up())?;
        inner.end().map_err(|_| give_up())?;
        Ok(value)
    }

    #[cold]
    #[inline(never)]
    fn mismatch_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let value = Value::deserialize(SeqAccessDeserializer::new(seq))?;
        self.mismatch(value)
    }

    #[cold]
    #[inline(never)]
    fn mismatch_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let value = Value::deserialize(MapAccessDeserializer::new(map))?;
        self.mismatch(value)
    }
}

impl<'de, V: Visitor<'de>, const H: u8> Visitor<'de> for Dispatch<'_, V, H> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    #[inline]
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<V::Value, E> {
        if H == hint::BOOL {
            self.v.visit_bool(b)
        } else {
            self.mismatch_token(Token::Bool(b))
        }
    }

    #[inline]
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<V::Value, E> {
        if H == hint::INTEGER || H == hint::FLOAT {
            self.v.visit_i64(n)
        } else {
            self.mismatch_token(Token::Number(n.into()))
        }
    }

    #[inline]
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<V::Value, E> {
        if H == hint::INTEGER || H == hint::FLOAT {
            self.v.visit_u64(n)
        } else {
            self.mismatch_token(Token::Number(n.into()))
        }
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<V::Value, E> {
        match H {
            hint::FLOAT => self.v.visit_f64(n),
            // serde_json reads only finite numbers.
            _ => match Number::from_f64(n) {
                Some(n) => self.mismatch_token(Token::Number(n)),
                None => Err(give_up()),
            },
        }
    }

    #[inline]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        if H == hint::TEXT {
            self.v.visit_str(s)
        } else {
            self.mismatch_token(Token::Text(s))
        }
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        if H == hint::TEXT {
            self.v.visit_borrowed_str(s)
        } else {
            self.mismatch_token(Token::Text(s))
        }
    }

    #[inline]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        if H == hint::TEXT {
            self.v.visit_string(s)
        } else {
            self.mismatch_token(Token::Text(&s))
        }
    }

    // `null` is never converted (except in options, which do not come here): the type decides.
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_unit()
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        if hint::takes_seq(H) {
            return self.v.visit_seq(SeqWrap { seq, parent: self.place, index: 0 });
        }
        self.mismatch_seq(seq)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        if hint::takes_map(H) {
            return self.v.visit_map(MapWrap { map, parent: self.place, key: None });
        }
        self.mismatch_map(map)
    }
}

/// `Option<T>`: `null` is `None`; anything else goes on to `T` through [`Converting`].
struct OptionVisitor<'p, V> {
    v: V,
    place: Place<'p>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for OptionVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(Converting { de, place: self.place })
    }
}

/// A list's elements, each read through [`Converting`] at its index.
struct SeqWrap<'p, A> {
    seq: A,
    /// The list's place.
    parent: Place<'p>,
    /// The next element's index.
    index: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for SeqWrap<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, A::Error> {
        let step = Step::In(self.parent, Segment::Index(self.index));
        let element = self.seq.next_element_seed(Wrapped { seed, place: &step });
        self.index += 1;
        element
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// An object's or map's entries: each key is noted, each value read through [`Converting`] under
/// it. `'x` is no longer than the place it is in nor the text it reads (`'de: 'x`), so that a
/// borrowed key can be kept.
struct MapWrap<'x, A> {
    map: A,
    /// The object's place.
    parent: Place<'x>,
    /// The key just read (see [`Segment::Key`]).
    key: Option<&'x str>,
}

impl<'de: 'x, 'x, A: MapAccess<'de>> MapAccess<'de> for MapWrap<'x, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(KeyCapture { seed, slot: &mut self.key })
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let step = Step::In(self.parent, Segment::Key(self.key));
        self.map.next_value_seed(Wrapped { seed, place: &step })
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// An enum: its token is checked against the variants (and converted like any token when it
/// differs), its content read through [`Converting`] under the variant's name.
struct EnumVisitor<'p, V> {
    v: V,
    variants: &'static [&'static str],
    place: Place<'p>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for EnumVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.v.visit_enum(EnumWrap { data, variants: self.variants, place: self.place })
    }
}

struct EnumWrap<'p, A> {
    data: A,
    variants: &'static [&'static str],
    place: Place<'p>,
}

impl<'p, 'de, A: EnumAccess<'de>> EnumAccess<'de> for EnumWrap<'p, A> {
    type Error = A::Error;
    type Variant = VariantWrap<'p, A::Variant>;

    #[inline]
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        let EnumWrap { data, variants, place } = self;
        let mut name = None;
        let capture = VariantCapture { seed, variants, place, slot: &mut name };
        let (value, variant) = data.variant_seed(capture)?;
        Ok((value, VariantWrap { variant, place, name }))
    }
}

/// A variant's content, read through [`Converting`] under the variant's name.
struct VariantWrap<'p, A> {
    variant: A,
    place: Place<'p>,
    name: Option<&'static str>,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for VariantWrap<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        let step = Step::In(self.place, Segment::Key(self.name));
        self.variant.newtype_variant_seed(Wrapped { seed, place: &step })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, A::Error> {
        let step = Step::In(self.place, Segment::Key(self.name));
        self.variant.tuple_variant(len, Dispatch::<V, { hint::SEQ }> { v, place: &step })
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], v: V) -> Result<V::Value, A::Error> {
        let step = Step::In(self.place, Segment::Key(self.name));
        self.variant.struct_variant(fields, Dispatch::<V, { hint::STRUCT }> { v, place: &step })
    }
}
