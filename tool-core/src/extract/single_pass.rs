//! The single pass: typed arguments read straight from the raw text, lenient where the model
//! was sloppy.
//!
//! Every parameter is deserialized through [`Converting`], a thin wrapper around serde_json's
//! deserializer. While what arrives is what the type asks for, the wrapper only hands it on, as
//! a `#[derive(Deserialize)]` struct would read it. Where it is not (`"42"`
//! for a `u32`, a list sent as JSON text, an enum token in the wrong case), the value is
//! converted by the tree path's own code (the same schema node, the same rules, the same
//! warnings) and handed to the type: a scalar by [`convert::scalar_change`], read from the text
//! as it is (no `Value` built for it), anything else by [`convert::convert_node`].
//!
//! Whatever the single pass cannot settle makes it fail: a repair of the raw text, a null word
//! inside an option, a value that stays wrong after conversion. Extraction then starts again on
//! the tree path, which reports every problem. The single pass never gives a result the tree
//! path would not give.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{
    BorrowedStrDeserializer, MapAccessDeserializer, SeqAccessDeserializer, StrDeserializer, StringDeserializer,
};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::Deserialize;
use serde_json::{Number, Value};

use crate::extract::compiled::CompiledSchema;
use crate::extract::convert::{self, Scalar, Token};
use crate::extract::keys::{folded_name, unknown_key};
use crate::model::pointer;
use crate::model::ParseWarning;
use crate::model::ToolDefinition;
use crate::schema::plan::{NodeId, Plan};

/// What the single pass shares over one extraction: the definition it converts by, and the
/// warnings for what it converted.
#[doc(hidden)]
pub struct Pass<'c> {
    definition: &'c ToolDefinition,
    compiled: &'c CompiledSchema,
    strict: bool,
    warnings: RefCell<Vec<ParseWarning>>,
    /// How many of the warnings are about unknown keys.
    unknown: Cell<usize>,
}

impl<'c> Pass<'c> {
    pub(crate) fn new(definition: &'c ToolDefinition, compiled: &'c CompiledSchema, strict: bool) -> Self {
        Pass { definition, compiled, strict, warnings: RefCell::new(Vec::new()), unknown: Cell::new(0) }
    }

    fn plan(&self) -> &'c Plan {
        &self.compiled.plan
    }

    /// Whether the tool is read under the strict policy.
    pub(crate) fn strict(&self) -> bool {
        self.strict
    }

    /// Whether nothing was converted and no unknown key met.
    #[inline]
    pub(crate) fn noted_nothing(&self) -> bool {
        self.warnings.borrow().is_empty()
    }

    /// Forgets what was noted (the single pass starts again).
    pub(crate) fn forget(&self) {
        self.warnings.borrow_mut().clear();
        self.unknown.set(0);
    }

    /// The tool's declared parameters.
    pub(crate) fn parameters(&self) -> &'c [crate::model::ToolParameter] {
        &self.definition.parameters
    }

    /// Notes the warning about an unknown key.
    pub(crate) fn note_unknown(&self, warning: ParseWarning) {
        self.warnings.borrow_mut().push(warning);
        self.unknown.set(self.unknown.get() + 1);
    }

    /// The warnings, and how many of them are about unknown keys.
    pub(crate) fn into_warnings(self) -> (Vec<ParseWarning>, usize) {
        (self.warnings.into_inner(), self.unknown.get())
    }

    /// Converts `value`, met at `place` with the wrong kind, as the tree path would. `None` when
    /// the single pass must give up: the strict policy refused, or the conversion means
    /// "absent", which only the tree path can express inside an option.
    #[cold]
    #[inline(never)]
    fn convert(&self, place: Place<'_>, value: Value) -> Option<Value> {
        if !place.is_known() {
            return None;
        }
        let mut pointer = String::with_capacity(POINTER_CAPACITY);
        let Some((node, only_indices)) = self.locate(place, &mut pointer) else { return Some(value) };
        self.convert_at((place.root().0, node, only_indices), pointer, value)
    }

    /// [`Pass::convert`], once the node (and `pointer`) of the value is known.
    fn convert_at(&self, (param, node, only_indices): Located, pointer: String, mut value: Value) -> Option<Value> {
        // Its node depends on a value beside it (a tagged enum's content, by its tag).
        if self.plan().node(node).deferred() {
            return convert::settled(self.plan(), node, &mut value).then_some(value);
        }
        let (strict, case_sensitive) = self.flags(param, only_indices);
        let plan = self.plan();
        let mut warnings = self.warnings.borrow_mut();
        let before = warnings.len();
        reserve_first(&mut warnings);
        let taken = std::mem::take(&mut *warnings);
        let converted = convert::convert_node(plan, node, pointer, &mut value, (strict, case_sensitive), taken);
        *warnings = converted.warnings;
        if !converted.refused.is_empty() || (value.is_null() && warnings.len() > before) {
            return None;
        }
        Some(value)
    }

    /// Converts the scalar `token`, met at `place` with the wrong kind, as the tree path would,
    /// without building a `Value` for it. `None` when the single pass must give up (as
    /// [`Pass::convert`]).
    #[cold]
    #[inline(never)]
    fn convert_token(&self, place: Place<'_>, token: Token<'_>) -> Option<Became<'c>> {
        if !place.is_known() {
            return None;
        }
        // The warning's texts, its pointer first, in one string.
        let mut texts = String::with_capacity(POINTER_CAPACITY + token.texts_capacity());
        let Some((node, only_indices)) = self.locate(place, &mut texts) else { return Some(Became::Kept) };
        let param = place.root().0;
        let located = (param, node, only_indices);
        // A node that depends on a value beside it, or one that converts whole values (a list, an
        // object): the way of a whole value.
        if self.plan().node(node).deferred() {
            return self.convert_at(located, texts, token.to_value()).map(Became::Whole);
        }
        let (strict, case_sensitive) = self.flags(param, only_indices);
        let change = match convert::scalar_change(self.plan(), node, &token, case_sensitive) {
            Ok(Some(change)) => change,
            Ok(None) => return Some(Became::Kept),
            Err(convert::Composite) => {
                // JSON text holding the list or object declared there is read as the value it
                // holds; anything else converts as a whole value.
                let decoded = match token {
                    Token::Text(text) => convert::decodes(self.plan(), node, text).map(|expected| (text, expected)),
                    _ => None,
                };
                let Some((text, expected)) = decoded else {
                    return self.convert_at(located, texts, token.to_value()).map(Became::Whole);
                };
                if strict {
                    return None;
                }
                let splits = convert::write_decoded(text, &mut texts);
                self.push(ParseWarning::from_texts(texts, splits, convert::DECODED_RULE, Cow::Borrowed(expected)));
                return Some(Became::Decode);
            }
        };
        // Refused, or "absent", which only the tree path can express inside an option.
        if strict || matches!(change.new, Scalar::Null) {
            return None;
        }
        let splits = change.write(&token, &mut texts);
        self.push(ParseWarning::from_texts(texts, splits, change.rule, change.expected));
        Some(Became::Scalar(change.new))
    }

    /// Notes a conversion's warning.
    fn push(&self, warning: ParseWarning) {
        let mut warnings = self.warnings.borrow_mut();
        reserve_first(&mut warnings);
        warnings.push(warning);
    }

    /// The strict policy and the case sensitivity of enum tokens for a value under the parameter
    /// `param`. As in the tree, a parameter's case sensitivity reaches its list elements
    /// (`only_indices`), not the fields of objects inside it.
    fn flags(&self, param: usize, only_indices: bool) -> (bool, bool) {
        let parameter = &self.definition.parameters[param];
        let case_sensitive = only_indices && parameter.enum_constraint.as_ref().is_some_and(|e| e.case_sensitive);
        (self.strict || parameter.strict, case_sensitive)
    }

    /// Whether a value read without a type hint at `place` could need converting.
    #[cold]
    #[inline(never)]
    fn converts(&self, place: Place<'_>) -> bool {
        // Where the path is not known, `convert` gives up, which leaves the call to the tree.
        if !place.is_known() {
            return true;
        }
        let mut pointer = String::new();
        self.locate(place, &mut pointer).is_some_and(|(node, _)| self.plan().node(node).converts())
    }

    /// The schema node of the value at `place`, where the tree's conversion descends to it,
    /// with its JSON pointer written to `pointer`; and whether the steps below the parameter
    /// are all list indices.
    fn locate(&self, place: Place<'_>, pointer: &mut impl PointerSink) -> Option<(NodeId, bool)> {
        let plan = self.plan();
        let (parent, segment) = match *place {
            Step::Param(param, _) => {
                let at = self.compiled.places.get(param)?;
                pointer.push_str(&at.pointer);
                return Some((at.node?, true));
            }
            Step::In(parent, segment) => (parent, segment),
        };
        let (parent, only_indices) = self.locate(parent, pointer)?;
        match segment {
            Segment::Key(key) => {
                let key = key?;
                pointer.push_segment(key);
                Some((plan.node(parent).field(key)?, false))
            }
            Segment::Index(index) => {
                pointer.push_str("/");
                pointer.push_str(itoa::Buffer::new().format(index));
                Some((plan.node(parent).element(index)?, only_indices))
            }
        }
    }

    /// Whether the type may drop the key `key` of the object at `parent` (a derived struct reads
    /// the value of a key it does not declare as ignored): when the schema declares the object's
    /// fields and none of them is the key, even but for case and separators, the key is noted
    /// as unknown, as the tree notes it. `false` leaves the call to the tree path: the key may
    /// be a field's name in another case, the policy is strict, or the place is not known.
    #[cold]
    #[inline(never)]
    fn ignores(&self, parent: Place<'_>, key: Option<&str>) -> bool {
        let Some(key) = key else { return false };
        if !parent.is_known() {
            return false;
        }
        let mut pointer = String::with_capacity(POINTER_CAPACITY + key.len());
        let Some((node, only_indices)) = self.locate(parent, &mut pointer) else { return false };
        let Some(declared) = self.plan().node(node).closed_fields() else { return false };
        let strict = self.flags(parent.root().0, only_indices).0;
        if strict || declared.contains(&key) || folded_name(key, declared.iter().copied()).is_some() {
            return false;
        }
        PointerSink::push_segment(&mut pointer, key);
        self.push(unknown_key(&pointer, key, &declared, "fields"));
        true
    }

    /// Whether the schema declares the fields of the object at `place` (see
    /// [`crate::schema::plan::Node::closed_fields`]): a type that reads it as a map
    /// (`#[serde(flatten)]`) would drop the keys it does not know without a word.
    #[inline]
    fn declares_fields(&self, place: Place<'_>) -> bool {
        place.is_known() && self.locate(place, &mut NoPointer).is_some_and(|(node, _)| self.plan().node(node).closed())
    }
}

/// Where [`Pass::locate`] writes a value's JSON pointer.
trait PointerSink {
    fn push_str(&mut self, text: &str);
    fn push_segment(&mut self, segment: &str);
}

/// A warning's pointer is written up to [`pointer::WARNING_POINTER_MAX`] bytes, then `…` (as
/// [`pointer::cut`] cuts it): what is written past the bound is not even read, so that many
/// warnings below a long key do not each copy it.
impl PointerSink for String {
    fn push_str(&mut self, text: &str) {
        push_capped(self, text);
    }

    fn push_segment(&mut self, segment: &str) {
        let room = pointer::WARNING_POINTER_MAX.saturating_sub(self.len());
        // Escaping doubles a byte at most: the segment's beginning that can fit is enough.
        let head = &segment[..floor_boundary(segment, room.saturating_add(1))];
        push_capped(self, "/");
        push_capped(self, &pointer::escape(head));
        if head.len() < segment.len() {
            push_capped(self, "…");
        }
    }
}

/// Appends `text` to a pointer being written, up to [`pointer::WARNING_POINTER_MAX`] bytes,
/// then `…` once.
fn push_capped(out: &mut String, text: &str) {
    let room = pointer::WARNING_POINTER_MAX.saturating_sub(out.len());
    if text.len() <= room {
        out.push_str(text);
    } else if !out.ends_with('…') {
        out.push_str(&text[..floor_boundary(text, room)]);
        out.push('…');
    }
}

/// The largest character boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut end = at.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// For [`Pass::locate`] when only the node is asked for: no pointer is written.
struct NoPointer;

impl PointerSink for NoPointer {
    fn push_str(&mut self, _: &str) {}

    fn push_segment(&mut self, _: &str) {}
}

/// A value's parameter, its schema node, and whether the steps below the parameter are all list
/// indices (see [`Pass::flags`]).
type Located = (usize, NodeId, bool);

/// The warnings' first allocation, straight away: cheaper than the first push growing it.
fn reserve_first(warnings: &mut Vec<ParseWarning>) {
    if warnings.capacity() == 0 {
        *warnings = Vec::with_capacity(4);
    }
}

/// Room for a JSON pointer, in the string a warning's texts are written to.
const POINTER_CAPACITY: usize = 32;

/// What a scalar met with the wrong kind became.
enum Became<'c> {
    /// Nothing converts it: the type decides.
    Kept,
    /// A scalar again.
    Scalar(Scalar<'c>),
    /// A list or an object (a scalar wrapped in a list, JSON text decoded).
    Whole(Value),
    /// JSON text holding the list or object the type asked for: read as the value it holds.
    Decode,
}

/// Where a value is: the steps up to its parameter (a linked list on the stack, so that going
/// down costs nothing until a conversion needs the path). One pointer: a reader passes it, with
/// the deserializer, in registers; the pass is found at the root when a conversion needs it.
type Place<'p> = &'p Step<'p>;

/// A value's place: a parameter, or a step from its container's place.
#[derive(Clone, Copy)]
enum Step<'p> {
    /// The value of the parameter at this index, read in this pass.
    Param(usize, &'p Pass<'p>),
    /// A value inside the container at the first place.
    In(Place<'p>, Segment<'p>),
}

impl<'p> Step<'p> {
    /// The parameter this place is under, and the pass it is read in.
    fn root(&self) -> (usize, &'p Pass<'p>) {
        let mut step = *self;
        loop {
            match step {
                Step::Param(param, pass) => return (param, pass),
                Step::In(parent, _) => step = *parent,
            }
        }
    }

    fn pass(&self) -> &'p Pass<'p> {
        self.root().1
    }

    /// Whether every key on the way is known (see [`Segment::Key`]).
    fn is_known(&self) -> bool {
        let mut step = *self;
        loop {
            match step {
                Step::Param(..) => return true,
                Step::In(_, Segment::Key(None)) => return false,
                Step::In(parent, _) => step = *parent,
            }
        }
    }
}

/// One step from a container's value to a value inside it (`Copy`: overwriting it costs
/// nothing more than the store).
#[derive(Clone, Copy)]
enum Segment<'a> {
    /// A field of an object, a map's key, or an enum variant's name; `None` when serde_json
    /// handed the key over unborrowed (an escaped key, a number key). A conversion below such a
    /// key is left to the tree path.
    Key(Option<&'a str>),
    /// An element of a list.
    Index(usize),
}

/// Hands a scalar that arrived to the type's visitor, as serde_json would have.
fn feed_token<'de, V: Visitor<'de>, E: de::Error>(token: Token<'_>, v: V) -> Result<V::Value, E> {
    match token {
        Token::Bool(b) => v.visit_bool(b),
        Token::Number(n) => n.deserialize_any(v).map_err(E::custom),
        Token::Text(text) => v.visit_str(text),
    }
}

/// Hands a converted scalar to the type's visitor, as a `serde_json::Value` of it would.
fn feed_scalar<'de, V: Visitor<'de>, E: de::Error>(scalar: Scalar<'_>, v: V) -> Result<V::Value, E> {
    match scalar {
        Scalar::Null => v.visit_unit(),
        Scalar::Bool(b) => feed_token(Token::Bool(b), v),
        Scalar::Number(n) => feed_token(Token::Number(n), v),
        // The text moves to the type instead of being copied.
        Scalar::Text(text) => v.visit_string(text),
        Scalar::Token(token) => match Token::of(token) {
            Some(token) => feed_token(token, v),
            None => token.clone().deserialize_any(v).map_err(E::custom),
        },
    }
}

/// The error that hands the call over to the tree path (its text is never shown).
fn give_up<E: de::Error>() -> E {
    E::custom("left to the tree path")
}

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

/// Hands a converted value to the type's visitor. A `serde_json::Value` deserializes the same
/// way whatever the type asked for (it ignores names, field lists and lengths), so the value
/// says which visitor method it calls.
fn feed<'de, V: Visitor<'de>, E: de::Error>(value: Value, v: V) -> Result<V::Value, E> {
    value.deserialize_any(v).map_err(E::custom)
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
        if let Step::In(parent, Segment::Key(key)) = *self.place {
            if !self.place.pass().ignores(parent, key) {
                return Err(give_up());
            }
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

/// Reads a key with the seed the type gave, noting its text on the way.
struct KeyCapture<'k, 'x, S> {
    seed: S,
    slot: &'k mut Option<&'x str>,
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

/// Reads a variant's name, noting which of `variants` it is.
struct VariantCapture<'k, 'p, S> {
    seed: S,
    variants: &'static [&'static str],
    place: Place<'p>,
    slot: &'k mut Option<&'static str>,
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
