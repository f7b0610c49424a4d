//! Tool names each provider accepts, and the reversible mapping for names it refuses.
//!
//! Our names follow `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`. MCP and Gemini accept all of them;
//! OpenAI and Anthropic refuse the dot (`^[a-zA-Z0-9_-]{1,64}$`), so `memory.search` goes out
//! as `memory_search` and a call to `memory_search` comes back as `memory.search`. A mapped name
//! that meets another tool's name (`math.gcd` and `math_gcd`) is an export error: the model could
//! not tell the two apart.

use std::collections::BTreeMap;

use serde::Serialize;

/// The characters and length a provider accepts in a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameRule {
    /// Longest accepted name, in bytes (names are ASCII).
    pub max_len: usize,
    /// Whether `.` is accepted.
    pub dot: bool,
    /// Whether `:` is accepted.
    pub colon: bool,
    /// Whether the name must start with a letter or `_`.
    pub letter_first: bool,
}

impl NameRule {
    /// OpenAI (O1) and Anthropic (A1): `^[a-zA-Z0-9_-]{1,64}$`.
    pub const OPENAI_ANTHROPIC: NameRule = NameRule { max_len: 64, dot: false, colon: false, letter_first: false };
    /// Gemini (G1): a letter or `_` first, then `[a-zA-Z0-9_.:-]`; at most 64 (the older, lower of
    /// the two documented limits).
    pub const GEMINI: NameRule = NameRule { max_len: 64, dot: true, colon: true, letter_first: true };
    /// MCP: 1 to 128 of `[A-Za-z0-9_.-]`.
    pub const MCP: NameRule = NameRule { max_len: 128, dot: true, colon: false, letter_first: false };

    fn allows(self, c: char) -> bool {
        c.is_ascii_alphanumeric() || c == '_' || c == '-' || (self.dot && c == '.') || (self.colon && c == ':')
    }

    /// Whether the provider accepts `name` as it is.
    pub fn accepts(self, name: &str) -> bool {
        !name.is_empty()
            && name.len() <= self.max_len
            && name.chars().all(|c| self.allows(c))
            && (!self.letter_first || name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    }

    /// The name sent to the provider: every refused character becomes `_`, a refused first
    /// character gets a `_` in front. `None` when it is still too long.
    pub fn wire_name(self, name: &str) -> Option<String> {
        let mut wire: String = name.chars().map(|c| if self.allows(c) { c } else { '_' }).collect();
        if self.letter_first && !wire.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            wire.insert(0, '_');
        }
        (!wire.is_empty() && wire.len() <= self.max_len).then_some(wire)
    }
}

/// Which of our tool names go out under another name, and back.
///
/// Built by an export; hand it to the call parsers so that calls come back under the names
/// the catalog knows. Names it does not hold map to themselves.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NameMap {
    /// Our name to the provider's.
    to_wire: BTreeMap<String, String>,
    /// The provider's name to ours.
    to_tool: BTreeMap<String, String>,
}

impl NameMap {
    /// A map that renames nothing.
    pub fn identity() -> Self {
        NameMap::default()
    }

    /// Records that `tool` goes out as `wire` (an export does this; hosts that export by hand can too).
    pub fn insert(&mut self, tool: &str, wire: &str) {
        if tool != wire {
            self.to_wire.insert(tool.to_owned(), wire.to_owned());
            self.to_tool.insert(wire.to_owned(), tool.to_owned());
        }
    }

    /// The name the provider sees for our tool `tool`.
    pub fn wire_name<'a>(&'a self, tool: &'a str) -> &'a str {
        self.to_wire.get(tool).map_or(tool, String::as_str)
    }

    /// Our tool name for the name `wire` a provider sent back.
    pub fn tool_name<'a>(&'a self, wire: &'a str) -> &'a str {
        self.to_tool.get(wire).map_or(wire, String::as_str)
    }

    /// Whether no name is changed.
    pub fn is_empty(&self) -> bool {
        self.to_wire.is_empty()
    }

    /// The renamed tools: (our name, the provider's name), in our names' order.
    pub fn renamed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.to_wire.iter().map(|(tool, wire)| (tool.as_str(), wire.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dotted_name_goes_out_with_an_underscore_for_openai_and_unchanged_for_gemini_and_mcp() {
        assert_eq!(NameRule::OPENAI_ANTHROPIC.wire_name("memory.search").as_deref(), Some("memory_search"));
        assert!(!NameRule::OPENAI_ANTHROPIC.accepts("memory.search"));
        assert!(NameRule::GEMINI.accepts("memory.search"));
        assert!(NameRule::MCP.accepts("memory.search"));
    }

    #[test]
    fn gemini_needs_a_letter_or_underscore_first() {
        assert!(!NameRule::GEMINI.accepts("-x"));
        assert_eq!(NameRule::GEMINI.wire_name("-x").as_deref(), Some("_-x"));
        assert!(NameRule::OPENAI_ANTHROPIC.accepts("-x"));
    }

    #[test]
    fn a_name_over_the_limit_has_no_wire_name() {
        let long = "a".repeat(65);
        assert_eq!(NameRule::OPENAI_ANTHROPIC.wire_name(&long), None);
        assert_eq!(NameRule::MCP.wire_name(&long).as_deref(), Some(long.as_str()));
    }

    #[test]
    fn the_map_turns_names_both_ways_and_leaves_unknown_names_alone() {
        let mut map = NameMap::identity();
        map.insert("memory.search", "memory_search");
        map.insert("read_file", "read_file");
        assert_eq!(map.wire_name("memory.search"), "memory_search");
        assert_eq!(map.tool_name("memory_search"), "memory.search");
        assert_eq!(map.tool_name("read_file"), "read_file");
        assert_eq!(map.tool_name("other"), "other");
        assert_eq!(map.renamed().collect::<Vec<_>>(), vec![("memory.search", "memory_search")]);
    }
}
