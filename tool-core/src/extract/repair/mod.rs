//! Repair of the raw arguments text, before any declared type is consulted.
//!
//! Models send arguments that are almost JSON: wrapped in a markdown code fence, followed by a
//! special token, sent twice, encoded twice, written as a Python literal, with a trailing comma
//! or a Windows path's backslashes. [`repair_arguments`] reads all of these, cheapest first (a
//! strict `serde_json` parse, and repairs only when that fails), and records each repair as a
//! [`ParseWarning`](crate::model::ParseWarning). What it cannot read without guessing is an
//! [`ArgumentError`](crate::model::ArgumentError) that keeps the raw text.
//!
//! The parts: the repairs of the whole text and their warnings (`arguments.rs`), the tolerant
//! parser that reads one value (`parser.rs`), and what models put around the arguments: code
//! fences, special tokens, tags (`surroundings.rs`).

mod arguments;
mod parser;
mod surroundings;
#[cfg(test)]
mod tests;

pub(crate) use arguments::{repair_arguments, Repaired};
pub(crate) use parser::parse_tolerant;
