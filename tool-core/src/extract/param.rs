//! One tool parameter: what a parameter type must be, and how one value is read, filled in
//! when missing, or stored by the single pass.

use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::single_pass::{ParamSeed, Pass};
use crate::model::rules;
use crate::model::{pointer, received_text, ArgumentError, ToolParameter};

/// A type that can be a tool parameter: deserializable from owned JSON, described by a JSON
/// Schema, and sendable to the task that runs the tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "not a tool parameter type",
    note = "a tool parameter must implement `serde::Deserialize` and `schemars::JsonSchema` (derive both), be `Send` and own its data (`String`, not `&str`)",
    note = "values the executor supplies (`&ToolContext`, `&CancellationToken`, `&State<T>`) are taken by reference"
)]
pub trait ToolParam: DeserializeOwned + JsonSchema + Send + 'static {}

// `do_not_recommend`: an unusable type gets the one error above, not one per missing bound.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam for T {}

/// The error of a required parameter the arguments left out.
fn missing(parameter: &ToolParameter) -> ArgumentError {
    ArgumentError {
        pointer: pointer::child("", &parameter.name),
        rule: rules::MISSING_REQUIRED.into(),
        expected: parameter.expected(),
        received: None,
        detail: format!("missing field `{}`", parameter.name),
    }
}

/// One error for every required parameter `object` lacks, not only the first serde meets.
pub(crate) fn missing_required(parameters: &[ToolParameter], object: &Map<String, Value>) -> Vec<ArgumentError> {
    parameters.iter().filter(|p| p.required && !object.contains_key(&p.name)).map(missing).collect()
}

/// Reads one parameter from the object (slow path), pushing an error when it cannot.
pub fn read_element<T: ToolParam>(
    object: &Map<String, Value>,
    parameter: &ToolParameter,
    default: Option<fn() -> T>,
    errors: &mut Vec<ArgumentError>,
) -> Option<T> {
    let pointer = pointer::child("", &parameter.name);
    match object.get(&parameter.name) {
        None => match default {
            Some(make) => Some(make()),
            None => match T::deserialize(MissingField) {
                Ok(value) => Some(value),
                Err(_) => {
                    errors.push(missing(parameter));
                    None
                }
            },
        },
        Some(value) => match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(typed) => Some(typed),
            Err(e) => {
                // Point at the element that failed, not the whole parameter.
                let inner = inner_pointer(e.path(), value);
                let received = value.pointer(&inner).unwrap_or(value);
                let detail = e.into_inner().to_string();
                // A field missing inside an object: point at the field (`/items/0/qty`).
                if let Some(field) = missing_field(&detail) {
                    errors.push(ArgumentError {
                        pointer: format!("{pointer}{inner}/{}", pointer::escape(field)),
                        rule: rules::MISSING_REQUIRED.into(),
                        expected: parameter.expected(),
                        received: None,
                        detail,
                    });
                    return None;
                }
                let rule = serde_rule(&detail);
                // A list of the wrong length: serde's own words say what length (`a tuple of
                // size 2`), which the parameter's kind (`an array`) does not.
                let expected = match detail.split_once(", expected ") {
                    Some((_, wanted)) if rule == rules::INVALID_LENGTH => wanted.to_owned(),
                    _ => parameter.expected(),
                };
                errors.push(ArgumentError {
                    pointer: pointer + &inner,
                    rule: rule.into(),
                    expected,
                    received: Some(received_text(received)),
                    detail,
                });
                None
            }
        },
    }
}

/// The JSON pointer (relative to the parameter `value`) of a deserialization error's path. An
/// enum variant is a step only where it is a key of the value (`{"within": {...}}`), not where
/// the variant is a token (`"asap"`).
fn inner_pointer(path: &serde_path_to_error::Path, value: &Value) -> String {
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            serde_path_to_error::Segment::Map { key } => pointer::push(&mut pointer, key),
            serde_path_to_error::Segment::Enum { variant } => {
                if value.pointer(&pointer).is_some_and(|v| v.get(variant).is_some()) {
                    pointer::push(&mut pointer, variant);
                }
            }
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    pointer
}

/// The field serde's error says is missing (``missing field `qty` ``).
fn missing_field(detail: &str) -> Option<&str> {
    detail.strip_prefix("missing field `")?.split_once('`').map(|(field, _)| field)
}

/// Maps serde's error wording onto our rule ids.
fn serde_rule(detail: &str) -> &'static str {
    if detail.starts_with("invalid type") {
        rules::INVALID_TYPE
    } else if detail.starts_with("unknown variant") {
        rules::NOT_ALLOWED
    } else if detail.starts_with("invalid length") {
        rules::INVALID_LENGTH
    } else {
        rules::INVALID_VALUE
    }
}

/// Whether `T` accepts being absent, asked the way serde asks: through `deserialize_option`.
pub fn accepts_missing<T: ToolParam>() -> bool {
    T::deserialize(MissingField).is_ok()
}

/// A deserializer for a key that is not there: `Option<T>` reads it as `None`, anything else
/// fails, just as `#[derive(Deserialize)]` treats a missing field.
pub(crate) struct MissingField;

impl<'de> de::Deserializer<'de> for MissingField {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("missing field"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Fills a parameter the single pass did not see: its default, `None` for options, or nothing.
#[doc(hidden)]
#[inline]
pub fn fill_missing<T: ToolParam>(seen: Option<T>, default: Option<fn() -> T>) -> Option<T> {
    match seen {
        Some(value) => Some(value),
        None => match default {
            Some(make) => Some(make()),
            None => T::deserialize(MissingField).ok(),
        },
    }
}

/// Stores a value read by the single pass. A key given twice is left to the tree path, which
/// reports it where it finds it, with the repairs.
#[doc(hidden)]
#[inline]
pub fn store<'de, T: ToolParam, M: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut M,
    index: usize,
    pass: &Pass<'_>,
) -> Result<(), M::Error> {
    if slot.is_some() {
        return Err(given_twice());
    }
    *slot = Some(map.next_value_seed(ParamSeed::new(index, pass))?);
    Ok(())
}

/// The error that leaves a key given twice to the tree path; out of line, so that `store`
/// stays small enough to inline.
#[cold]
#[inline(never)]
fn given_twice<E: de::Error>() -> E {
    E::custom("a parameter given twice")
}
