//! Tool and property names each provider accepts, and the reversible mapping for what it refuses.
//!
//! Our names follow `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`. MCP and Gemini accept all of them;
//! OpenAI and Anthropic refuse the dot (`^[a-zA-Z0-9_-]{1,64}$`), so `memory.search` goes out
//! as `memory_search` and a call to `memory_search` comes back as `memory.search`. A mapped name
//! that meets another tool's name (`math.gcd` and `math_gcd`) is an export error unless the host
//! chose numbered suffixes ([`NameCollisions`](super::NameCollisions)).
//!
//! Per tool, the map also holds how the arguments went out ([`ArgumentMap`]): property names a
//! provider refuses (`año_vehiculo` sent as `ano_vehiculo`) and values sent as JSON text (what
//! a dialect cannot declare: a free-form value, a map), at any depth. [`NameMap::restore`] turns
//! a call that comes back into the declared form; the raw text stays as the provider sent it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::executor::{ExecutionRecord, Executor};
use crate::model::pointer;
use crate::model::{received_text, ParseWarning, ToolCallRequest};

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

/// Which of our tool names go out under another name, and back; and per tool, how its
/// arguments went out ([`ArgumentMap`]).
///
/// Built by an export; hand it to the call parsers (or to
/// [`ExecuteAsSent::execute_with_names`]) so that calls come
/// back under the names the catalog knows, with the arguments in their declared form. Names it
/// does not hold map to themselves.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NameMap {
    /// Our name to the provider's.
    to_wire: BTreeMap<String, String>,
    /// The provider's name to ours.
    to_tool: BTreeMap<String, String>,
    /// Per tool (our name), how its arguments went out, when not as declared.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    arguments: BTreeMap<String, ArgumentMap>,
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

    /// Whether nothing is changed: no tool renamed, no arguments sent other than declared.
    pub fn is_empty(&self) -> bool {
        self.to_wire.is_empty() && self.arguments.is_empty()
    }

    /// The renamed tools: (our name, the provider's name), in our names' order.
    pub fn renamed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.to_wire.iter().map(|(tool, wire)| (tool.as_str(), wire.as_str()))
    }

    /// How the arguments of `tool` (our name) went out, when not as declared.
    pub fn arguments(&self, tool: &str) -> Option<&ArgumentMap> {
        self.arguments.get(tool)
    }

    /// Records how the arguments of `tool` (our name) went out; an empty map is not kept.
    pub fn insert_arguments(&mut self, tool: &str, arguments: ArgumentMap) {
        if arguments.is_empty() {
            self.arguments.remove(tool);
        } else {
            self.arguments.insert(tool.to_owned(), arguments);
        }
    }

    /// Turns a call as the provider sent it into the declared form: the tool under our name,
    /// and, for a tool whose arguments went out other than declared, the arguments with the
    /// declared property names and the JSON text decoded, in `request.arguments` (the executor
    /// reads the values from there). `raw_arguments` stays as the provider sent it.
    ///
    /// A request that already has `arguments`, or a `parse_error`, keeps them; arguments text
    /// that is no object even once repaired is left to extraction to report. Applying it twice
    /// changes nothing more.
    pub fn restore(&self, request: &mut ToolCallRequest) {
        let tool = self.tool_name(&request.tool_name);
        if tool != request.tool_name {
            request.tool_name = tool.to_owned();
        }
        let Some(map) = self.arguments.get(&request.tool_name) else { return };
        if request.arguments.is_some() || request.parse_error.is_some() {
            return;
        }
        let Ok(repaired) = crate::extract::repair::repair_arguments(&request.raw_arguments) else { return };
        let mut arguments = Value::Object(repaired.value);
        request.parse_warnings.extend(repaired.warnings);
        map.restore(&mut arguments, &mut request.parse_warnings);
        request.arguments = Some(arguments);
    }
}

/// How one tool's arguments went out, for reading a call back in the declared form: the
/// property names sent in place of the declared ones, and the places whose value went out as
/// JSON text, at any depth (struct fields, list elements, map values, union branches,
/// definitions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArgumentMap {
    root: WireNode,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    defs: BTreeMap<String, WireNode>,
}

/// One place of the schema: what changed there, and below.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
struct WireNode {
    /// The value went out as JSON text.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    json_text: bool,
    /// The provider's property name to the declared one.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    renamed: BTreeMap<String, String>,
    /// Below each declared property.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    properties: BTreeMap<String, WireNode>,
    /// Below each list element.
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<Box<WireNode>>,
    /// Below each map value.
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Box<WireNode>>,
    /// The definitions this place is (a `$ref` kept by the dialect).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    refs: BTreeSet<String>,
}

/// One step from a place of the schema to a place below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    /// The declared property.
    Property(String),
    /// A list element (`items`, a tuple's `prefixItems`).
    Items,
    /// A map value (`additionalProperties`).
    Values,
}

/// What the export did at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Mark {
    /// The object's property `declared` went out as `wire`.
    Renamed { wire: String, declared: String },
    /// The value went out as JSON text.
    JsonText,
    /// The place is the definition `name`, kept as a `$ref`.
    Ref(String),
}

/// How deep restoring descends; `serde_json` parses no deeper.
const MAX_RESTORE_DEPTH: usize = 128;

impl ArgumentMap {
    /// Whether the arguments went out as declared.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty() && self.root == WireNode::default()
    }

    /// Records what the export did at `steps` below the root, or below the definition `def`.
    pub(super) fn record(&mut self, def: Option<&str>, steps: &[Step], mark: Mark) {
        let mut node = match def {
            Some(name) => self.defs.entry(name.to_owned()).or_default(),
            None => &mut self.root,
        };
        for step in steps {
            node = match step {
                Step::Property(key) => node.properties.entry(key.clone()).or_default(),
                Step::Items => node.items.get_or_insert_with(Box::default),
                Step::Values => node.values.get_or_insert_with(Box::default),
            };
        }
        match mark {
            Mark::Renamed { wire, declared } => {
                node.renamed.insert(wire, declared);
            }
            Mark::JsonText => node.json_text = true,
            Mark::Ref(name) => {
                node.refs.insert(name);
            }
        }
    }

    /// Drops the definitions no place refers to, and the references to definitions that
    /// changed nothing.
    pub(super) fn prune(&mut self) {
        fn keep(node: &mut WireNode, changed: &BTreeSet<String>) -> bool {
            node.refs.retain(|name| changed.contains(name));
            node.properties.retain(|_, child| keep(child, changed));
            if node.items.as_deref_mut().is_some_and(|child| !keep(child, changed)) {
                node.items = None;
            }
            if node.values.as_deref_mut().is_some_and(|child| !keep(child, changed)) {
                node.values = None;
            }
            *node != WireNode::default()
        }
        // A definition that only refers to definitions that change nothing changes nothing:
        // repeat until no more drop out.
        loop {
            let before: BTreeSet<String> = self.defs.keys().cloned().collect();
            let mut defs = std::mem::take(&mut self.defs);
            defs.retain(|_, node| keep(node, &before));
            self.defs = defs;
            if self.defs.len() == before.len() {
                break;
            }
        }
        let names: BTreeSet<String> = self.defs.keys().cloned().collect();
        keep(&mut self.root, &names);
    }

    /// Turns `arguments` as the provider sent them into the declared form: property names
    /// mapped back, JSON text decoded. JSON text that is not JSON stays a string, with the
    /// warning `json_text_undecoded`.
    pub fn restore(&self, arguments: &mut Value, warnings: &mut Vec<ParseWarning>) {
        let mut pointer = String::new();
        self.restore_at(&[&self.root], arguments, &mut pointer, warnings, 0);
    }

    /// `nodes`: every description of this place (union branches and definitions merged).
    fn restore_at(
        &self,
        nodes: &[&WireNode],
        value: &mut Value,
        pointer: &mut String,
        warnings: &mut Vec<ParseWarning>,
        depth: usize,
    ) {
        let mut all = Vec::new();
        let mut seen = BTreeSet::new();
        for node in nodes {
            self.expand(node, &mut all, &mut seen);
        }
        if all.is_empty() || depth > MAX_RESTORE_DEPTH {
            return;
        }
        if all.iter().any(|node| node.json_text) {
            if let Value::String(text) = value {
                match serde_json::from_str::<Value>(text) {
                    Ok(decoded) => *value = decoded,
                    Err(_) => warnings.push(ParseWarning::new(
                        pointer,
                        "json_text_undecoded",
                        "JSON text",
                        &received_text(&Value::String(text.clone())),
                        "kept as a string: the value went out as JSON text, and this text is not JSON",
                    )),
                }
            }
            // Inside the text the model wrote the declared form: nothing more to map.
            return;
        }
        match value {
            Value::Object(object) => {
                let entries = std::mem::take(object);
                let sent: BTreeSet<String> = entries.keys().cloned().collect();
                let mut restored = Map::with_capacity(entries.len());
                for (key, mut child) in entries {
                    let declared = all.iter().find_map(|node| node.renamed.get(&key)).cloned();
                    // A declared name the model also sent as it is keeps its own value.
                    let name = match declared {
                        Some(declared) if !sent.contains(&declared) => declared,
                        _ => key,
                    };
                    let below: Vec<&WireNode> =
                        all.iter().filter_map(|node| node.properties.get(&name).or(node.values.as_deref())).collect();
                    if !below.is_empty() {
                        let len = pointer.len();
                        pointer::push(pointer, &name);
                        self.restore_at(&below, &mut child, pointer, warnings, depth + 1);
                        pointer.truncate(len);
                    }
                    restored.insert(name, child);
                }
                *object = restored;
            }
            Value::Array(elements) => {
                let below: Vec<&WireNode> = all.iter().filter_map(|node| node.items.as_deref()).collect();
                if below.is_empty() {
                    return;
                }
                for (i, element) in elements.iter_mut().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    self.restore_at(&below, element, pointer, warnings, depth + 1);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }

    /// `node` and the definitions it refers to, each once.
    fn expand<'a>(&'a self, node: &'a WireNode, out: &mut Vec<&'a WireNode>, seen: &mut BTreeSet<&'a str>) {
        out.push(node);
        for name in &node.refs {
            if seen.insert(name.as_str()) {
                if let Some(def) = self.defs.get(name) {
                    self.expand(def, out, seen);
                }
            }
        }
    }
}

/// Runs calls as a provider sent them, for tools exported with a [`NameMap`]: the tool and
/// its arguments are read in the declared form ([`NameMap::restore`]); the record keeps the
/// raw text as sent. Implemented for the [`Executor`].
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::providers::{export, Dialect, ExecuteAsSent};
///
/// /// Add a note.
/// #[tool(name = "notes.add")]
/// fn add_note(
///     /// The note.
///     text: String,
/// ) -> String {
///     text
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let catalog = ToolCatalog::global().unwrap();
/// let exported = export(Dialect::OpenAiChat { strict: false }, catalog.definitions()).unwrap();
/// let executor = Executor::new(catalog.clone());
/// // OpenAI names may not hold a dot: the tool went out as `notes_add`.
/// let request = ToolCallRequest::new("notes_add", "call_1", r#"{"text":"hi"}"#);
/// let record = executor.execute_with_names(request, &exported.names).await;
/// assert_eq!(record.status, CallStatus::Success);
/// assert_eq!(record.request.tool_name, "notes.add");
/// # }
/// ```
pub trait ExecuteAsSent {
    /// Runs one call as a provider sent it.
    fn execute_with_names(
        &self,
        request: ToolCallRequest,
        names: &NameMap,
    ) -> impl std::future::Future<Output = ExecutionRecord> + Send;

    /// Runs calls as a provider sent them (see [`ExecuteAsSent::execute_with_names`]).
    fn execute_batch_with_names(
        &self,
        requests: Vec<ToolCallRequest>,
        names: &NameMap,
    ) -> impl std::future::Future<Output = Vec<ExecutionRecord>> + Send;
}

impl ExecuteAsSent for Executor {
    async fn execute_with_names(&self, mut request: ToolCallRequest, names: &NameMap) -> ExecutionRecord {
        names.restore(&mut request);
        self.execute(request).await
    }

    async fn execute_batch_with_names(
        &self,
        mut requests: Vec<ToolCallRequest>,
        names: &NameMap,
    ) -> Vec<ExecutionRecord> {
        for request in &mut requests {
            names.restore(request);
        }
        self.execute_batch(requests).await
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
