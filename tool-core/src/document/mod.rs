//! The catalog written out for people and tools: one JSON document, every provider dialect, the
//! XML `<functions>` block (feature `xml`), Markdown documentation, and what each costs in
//! characters and tokens (feature `tokens`). Everything is deterministic, so a host can commit
//! the output and review its diffs.

mod kind; // where a tool comes from
mod format; // the formats, and a catalog rendered in one
mod markdown; // Markdown documentation
#[cfg(feature = "tokens")]
mod size; // characters and tokens per tool, dialect and catalog; descriptions cut to a budget

pub use format::{definition_json, render, Format, FORMATS};
pub use kind::tool_kind;
#[cfg(feature = "cli")]
pub(crate) use markdown::constraints;
pub use markdown::markdown;
#[cfg(all(feature = "tokens", feature = "search"))]
pub use size::{deferral_report, DeferralReport, DeferredCost, UpFront};
#[cfg(feature = "tokens")]
pub use size::{shorten_descriptions, size_report, DialectSize, Shortened, SizeReport, ToolSize};
