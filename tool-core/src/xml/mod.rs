//! The XML call protocol for models without native tool calling, or for tool use
//! written into the prompt: the catalog goes out as a `<functions>` block with output
//! instructions, and the model answers with `<function_calls>` blocks of `<invoke>`s.
//!
//! - Out: [`functions_block`], [`OUTPUT_INSTRUCTIONS`], and [`XmlPrompt`] to put a prompt
//!   together.
//! - In: [`XmlParser`] reads a whole answer ([`XmlParser::parse`]) or a streamed one
//!   ([`XmlParser::stream`]), typing each value by its declared parameter.
//! - Results back: [`parse_and_execute`], the `tool_result` event ([`tool_result_event`]) and
//!   the `<function_results>` block ([`function_results`]).
//!
//! Every warning rule, with examples: `docs/xml.md`.

mod scan; // the answer's text cut into the protocol's tags and text
mod values; // a value's text decoded and typed by its declared parameter
mod parse; // the parser, whole or streamed
mod prompt; // `<functions>`, output instructions, the prompt builder
mod turn; // parse and execute; results rendered back

#[cfg(feature = "open-models")]
pub(crate) use parse::Utf8Tail;
pub use parse::{XmlEvent, XmlParser, XmlResponse, XmlStream};
pub use prompt::{functions_block, XmlPrompt, OUTPUT_INSTRUCTIONS, OUTPUT_INSTRUCTIONS_ZH};
pub use turn::{function_results, parse_and_execute, tool_result_event, XmlTurn};
#[cfg(feature = "open-models")]
pub(crate) use values::{typed, Reading, Shape};
