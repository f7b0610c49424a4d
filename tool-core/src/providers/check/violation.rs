//! One broken rule in one place, and the list the checkers fill.

use std::fmt;

use serde::Serialize;

/// One broken rule in one place.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Violation {
    /// The rule's id (`O4`, `A2`, `G3`, `MCP`), or `FORMAT` / `SCHEMA` for the rules of every
    /// dialect; `docs/providers.md` lists them.
    pub rule: &'static str,
    /// JSON pointer of the place: in the tool object for [`check_tool`](super::check_tool), in the tools list for
    /// [`check_request`](super::check_request).
    pub pointer: String,
    /// What is wrong, and what the rule wants.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at `{}`: {}", self.rule, self.pointer, self.message)
    }
}

/// The violations found so far.
#[derive(Default)]
pub(super) struct Out(pub(super) Vec<Violation>);

impl Out {
    pub(super) fn push(&mut self, rule: &'static str, pointer: impl Into<String>, message: impl Into<String>) {
        self.0.push(Violation { rule, pointer: pointer.into(), message: message.into() });
    }
}
