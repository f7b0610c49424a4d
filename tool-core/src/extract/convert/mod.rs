//! Lenient in: converts an arguments object toward its declared schema, by the declared type and
//! never by the value's look, recording a [`ParseWarning`](crate::model::ParseWarning) (with the
//! JSON pointer) for each change.
//!
//! It only rewrites values it can convert exactly as the rules say; anything else is left as
//! it arrived, for the typed read to refuse with a precise error. It never drops data silently
//! and never runs the tool. The schema is read through its compiled
//! [`Plan`](crate::schema::plan::Plan); the tree path converts whole objects
//! ([`coerce_arguments`]), the single pass one value at a time ([`convert_node`]), by the same
//! code.
//!
//! The parts: the walk over a value by its schema node (`walk.rs`), the conversion of one
//! scalar (`scalar.rs`), JSON text inside a string (`json_text.rs`), and the warnings' texts,
//! written as serde_json writes values (`text.rs`).

mod json_text;
mod scalar;
#[cfg(test)]
mod tests;
mod text;
mod walk;

pub(crate) use json_text::{decodes, write_decoded};
pub(crate) use scalar::{scalar_change, Composite, Scalar, Token};
pub(crate) use walk::{coerce_arguments, convert_node, refusal, settled};
