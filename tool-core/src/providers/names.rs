//! Tool and property names each provider accepts, and the reversible mapping for what it refuses.
//!
//! Our names follow `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`. MCP and Gemini accept all of them;
//! OpenAI and Anthropic refuse the dot (`^[a-zA-Z0-9_-]{1,64}$`), so `memory.search` goes out
//! as `memory_search` and a call to `memory_search` comes back as `memory.search`. A mapped name
//! that meets another tool's name (`math.gcd` and `math_gcd`) is an export error unless the host
//! chose numbered suffixes ([`NameCollisions`](super::export::NameCollisions)).
//!
//! Per tool, the map also holds how the arguments went out ([`ArgumentMap`]): property names a
//! provider refuses (`año_vehiculo` sent as `ano_vehiculo`) and values sent as JSON text (what
//! a dialect cannot declare: a free-form value, a map), at any depth. [`NameMap::restore`] turns
//! a call that comes back into the declared form; the raw text stays as the provider sent it.

pub use crate::wire::{ArgumentMap, NameMap};

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
    /// OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`.
    pub const OPENAI_ANTHROPIC: NameRule = NameRule { max_len: 64, dot: false, colon: false, letter_first: false };
    /// Gemini: a letter or `_` first, then `[a-zA-Z0-9_.:-]`; at most 64 (the older, lower of
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

/// The characters a provider accepts in a property name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PropertyRule {
    /// Anthropic (A1): `^[a-zA-Z0-9_.-]{1,64}$`.
    Anthropic,
    /// Gemini's `parameters` (G1): `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
    Gemini,
}

impl PropertyRule {
    fn allows(self, c: char) -> bool {
        c.is_ascii_alphanumeric() || c == '_' || (self == PropertyRule::Anthropic && matches!(c, '.' | '-'))
    }

    /// Whether the provider accepts `key` as it is.
    pub(super) fn accepts(self, key: &str) -> bool {
        !key.is_empty()
            && key.len() <= 64
            && key.chars().all(|c| self.allows(c))
            && (self == PropertyRule::Anthropic || key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    }

    /// The name sent for `key`: Latin letters lose their accents (`ñ` → `n`, `ß` → `ss`), every
    /// other refused character becomes `_`, a refused first character gets a `_` in front, and
    /// the result is cut at 64 characters. Deterministic, so the same key always maps alike.
    pub(super) fn wire_name(self, key: &str) -> String {
        let mut wire = String::with_capacity(key.len());
        for c in key.chars() {
            if self.allows(c) {
                wire.push(c);
            } else if let Some(plain) = unaccented(c) {
                wire.extend(plain.chars().filter(|c| self.allows(*c)));
            } else {
                wire.push('_');
            }
        }
        if self == PropertyRule::Gemini && !wire.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            wire.insert(0, '_');
        }
        if wire.is_empty() {
            wire.push('_');
        }
        wire.truncate(64);
        wire
    }
}

/// A Latin letter with a diacritic (Latin-1 Supplement and Latin Extended-A) without it.
fn unaccented(c: char) -> Option<&'static str> {
    const TABLE: &[(&str, &str)] = &[
        ("ÀÁÂÃÄÅĀĂĄ", "A"),
        ("àáâãäåāăą", "a"),
        ("ÇĆĈĊČ", "C"),
        ("çćĉċč", "c"),
        ("ÐĎĐ", "D"),
        ("ðďđ", "d"),
        ("ÈÉÊËĒĔĖĘĚ", "E"),
        ("èéêëēĕėęě", "e"),
        ("ĜĞĠĢ", "G"),
        ("ĝğġģ", "g"),
        ("ĤĦ", "H"),
        ("ĥħ", "h"),
        ("ÌÍÎÏĨĪĬĮİ", "I"),
        ("ìíîïĩīĭįı", "i"),
        ("Ĵ", "J"),
        ("ĵ", "j"),
        ("Ķ", "K"),
        ("ķĸ", "k"),
        ("ĹĻĽĿŁ", "L"),
        ("ĺļľŀł", "l"),
        ("ÑŃŅŇŊ", "N"),
        ("ñńņňŉŋ", "n"),
        ("ÒÓÔÕÖØŌŎŐ", "O"),
        ("òóôõöøōŏő", "o"),
        ("ŔŖŘ", "R"),
        ("ŕŗř", "r"),
        ("ŚŜŞŠ", "S"),
        ("śŝşš", "s"),
        ("ŢŤŦ", "T"),
        ("ţťŧ", "t"),
        ("ÙÚÛÜŨŪŬŮŰŲ", "U"),
        ("ùúûüũūŭůűų", "u"),
        ("Ŵ", "W"),
        ("ŵ", "w"),
        ("ÝŶŸ", "Y"),
        ("ýÿŷ", "y"),
        ("ŹŻŽ", "Z"),
        ("źżž", "z"),
        ("Æ", "AE"),
        ("æ", "ae"),
        ("Œ", "OE"),
        ("œ", "oe"),
        ("ß", "ss"),
        ("Þ", "TH"),
        ("þ", "th"),
        ("Ĳ", "IJ"),
        ("ĳ", "ij"),
        ("ſ", "s"),
    ];
    TABLE.iter().find(|(letters, _)| letters.contains(c)).map(|(_, plain)| *plain)
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
    fn refused_property_names_lose_accents_and_other_refused_characters_become_underscores() {
        let anthropic = PropertyRule::Anthropic;
        let gemini = PropertyRule::Gemini;
        assert_eq!(anthropic.wire_name("año_vehiculo"), "ano_vehiculo");
        assert_eq!(gemini.wire_name("año_vehiculo"), "ano_vehiculo");
        assert!(anthropic.accepts("Content-Type") && anthropic.accepts("x.y") && anthropic.accepts("9lives"));
        assert_eq!(gemini.wire_name("Content-Type"), "Content_Type");
        assert_eq!(gemini.wire_name("x.y"), "x_y");
        assert_eq!(gemini.wire_name("9lives"), "_9lives");
        assert_eq!(anthropic.wire_name("Straße Œuvre"), "Strasse_OEuvre");
        assert_eq!(anthropic.wire_name("código-postal"), "codigo-postal");
        assert_eq!(gemini.wire_name("código-postal"), "codigo_postal");
        assert_eq!(anthropic.wire_name("名前"), "__");
        assert_eq!(gemini.wire_name("名前"), "__");
        assert_eq!(anthropic.wire_name(""), "_");
        assert_eq!(gemini.wire_name(&"é".repeat(70)), "e".repeat(64));
        for key in ["ano_vehiculo", "Content_Type", "_9lives", "x"] {
            assert!(gemini.accepts(key) && gemini.wire_name(key) == key);
        }
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
