//! The tool catalog: a validated, name-indexed, name-sorted set of tools.
//!
//! [`ToolCatalog::global`] holds every `#[tool]` linked into the binary; [`CatalogBuilder`]
//! makes explicit sets. Building validates every definition and reports duplicate names with
//! both declarations' locations, never shadowing one silently. A tool added as yielding (an
//! imported MCP tool) gives way to any other tool of its name and is told why. It must not run
//! tools.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::declare::{DeclaredTool, Registration};
use crate::extract::ExtractionPolicy;
use crate::model::ToolCallRequest;
use crate::model::{is_valid_tool_name, SourceLocation, ToolDefinition};
use crate::suggest::Names;
use crate::tool::{Invocation, Tool};

/// A validated set of tools, looked up by name in O(1) and iterated sorted by name.
#[derive(Clone)]
pub struct ToolCatalog {
    inner: Arc<Inner>,
}

struct Inner {
    tools: Vec<Entry>,
    by_name: HashMap<String, usize>,
    policy: ExtractionPolicy,
    /// Per tool, in `tools`' order: whether requests leave it out up front.
    deferred: Vec<bool>,
    deferral: Deferral,
    /// The names prepared for suggestions, on the first unknown name.
    suggestions: OnceLock<Names>,
}

/// One thing wrong with a catalog's definitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogProblem {
    /// Two or more tools share a name.
    DuplicateName {
        /// The shared name.
        name: String,
        /// Where each one is declared.
        locations: Vec<SourceLocation>,
    },
    /// A deferral setting names a tool the catalog does not have.
    UnknownTool {
        /// The name given.
        name: String,
        /// The setting that gave it (`defer`, `keep_loaded`).
        setting: &'static str,
        /// The closest name the catalog has, if one is close.
        suggestion: Option<String>,
    },
    /// A definition breaks a rule.
    InvalidDefinition {
        /// The tool's name.
        name: String,
        /// Where it is declared.
        location: SourceLocation,
        /// What is wrong, and how to fix it.
        reason: String,
    },
}

impl fmt::Display for CatalogProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogProblem::DuplicateName { name, locations } => {
                let places: Vec<String> = locations.iter().map(ToString::to_string).collect();
                write!(f, "the tool name `{name}` is declared {} times: at {}; rename all but one (`#[tool(name = \"...\")]`)", locations.len(), places.join(" and at "))
            }
            CatalogProblem::UnknownTool { name, setting, suggestion } => {
                write!(f, "`{setting}(\"{name}\")` names no tool of the catalog")?;
                match suggestion {
                    Some(close) => write!(f, " (did you mean `{close}`?)"),
                    None => write!(f, ": give the name a tool is declared with"),
                }
            }
            CatalogProblem::InvalidDefinition { name, location, reason } => {
                write!(f, "the tool `{name}` (at {location}) {reason}")
            }
        }
    }
}

/// Why a catalog could not be built: every problem found, not only the first.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the tool catalog is invalid:\n{}", .problems.iter().map(|p| format!("- {p}")).collect::<Vec<_>>().join("\n"))]
pub struct CatalogError {
    /// Every problem found.
    pub problems: Vec<CatalogProblem>,
}

impl ToolCatalog {
    /// Every `#[tool]` linked into the binary, collected and validated once.
    pub fn global() -> Result<&'static ToolCatalog, &'static CatalogError> {
        static GLOBAL: OnceLock<Result<ToolCatalog, CatalogError>> = OnceLock::new();
        GLOBAL.get_or_init(|| CatalogBuilder::new().add_all_declared().build()).as_ref()
    }

    /// An empty builder.
    pub fn builder() -> CatalogBuilder {
        CatalogBuilder::new()
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.inner.by_name.get(name).map(|&i| &*self.inner.tools[i].tool)
    }

    /// The tool with this name, shared: for what outlives a borrow of the catalog (a guarded
    /// call an async guardrail keeps).
    pub(crate) fn shared(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.inner.by_name.get(name).map(|&i| &self.inner.tools[i].tool)
    }

    /// The definition of the tool with this name.
    pub fn definition(&self, name: &str) -> Option<&ToolDefinition> {
        self.get(name).map(Tool::definition)
    }

    /// Whether a tool has this name.
    pub fn contains(&self, name: &str) -> bool {
        self.inner.by_name.contains_key(name)
    }

    /// The tools, sorted by name.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &dyn Tool> {
        self.inner.tools.iter().map(|entry| &*entry.tool)
    }

    /// The definitions, sorted by name.
    pub fn definitions(&self) -> impl ExactSizeIterator<Item = &ToolDefinition> {
        self.iter().map(Tool::definition)
    }

    /// The names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.definitions().map(|d| d.name.as_str())
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.inner.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.inner.tools.is_empty()
    }

    /// Up to `limit` existing names resembling `name`, best first.
    pub fn closest_names(&self, name: &str, limit: usize) -> Vec<&str> {
        let names = self.inner.suggestions.get_or_init(|| Names::new(self.names()));
        names.closest(name, limit, 0.34).into_iter().map(|i| names.name(i)).collect()
    }

    /// A builder starting from this catalog's tools, policy and deferral.
    pub fn to_builder(&self) -> CatalogBuilder {
        CatalogBuilder {
            tools: self.inner.tools.clone(),
            policy: self.inner.policy,
            deferral: self.inner.deferral.clone(),
        }
    }

    /// Whether requests leave this tool out up front, for a tool search to find: it is
    /// `#[tool(defer)]` or the catalog defers it ([`CatalogBuilder::defer_all`],
    /// [`CatalogBuilder::defer`], [`CatalogBuilder::defer_tagged`]), and no
    /// [`CatalogBuilder::keep_loaded`] keeps it. `false` for a name the catalog does not have.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.inner.by_name.get(name).is_some_and(|&i| self.inner.deferred[i])
    }

    /// The definitions requests send up front (those not deferred), sorted by name.
    pub fn loaded(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.definitions().zip(&self.inner.deferred).filter(|(_, d)| !**d).map(|(t, _)| t)
    }

    /// The definitions left for a tool search to find, sorted by name.
    pub fn deferred(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.definitions().zip(&self.inner.deferred).filter(|(_, d)| **d).map(|(t, _)| t)
    }

    /// How forgiving argument extraction is for calls to these tools.
    pub fn policy(&self) -> ExtractionPolicy {
        self.inner.policy
    }
}

impl fmt::Debug for ToolCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// Builds a [`ToolCatalog`]: start empty or from the global registry, add, remove, filter.
#[derive(Default, Clone)]
pub struct CatalogBuilder {
    tools: Vec<Entry>,
    policy: ExtractionPolicy,
    deferral: Deferral,
}

/// Which tools requests leave out up front: the catalog's settings over `#[tool(defer)]`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Deferral {
    all: bool,
    names: Vec<String>,
    tags: Vec<String>,
    keep_names: Vec<String>,
    keep_tags: Vec<String>,
}

impl Deferral {
    /// Whether `definition` is deferred: kept loaded by name or tag wins, then deferred by
    /// the catalog or its declaration.
    fn defers(&self, definition: &ToolDefinition) -> bool {
        let kept = self.keep_names.contains(&definition.name) || self.keep_tags.iter().any(|t| definition.has_tag(t));
        let deferred = self.all
            || definition.defer
            || self.names.contains(&definition.name)
            || self.tags.iter().any(|t| definition.has_tag(t));
        deferred && !kept
    }
}

/// A tool in a catalog, and whether it gives way to others of its name.
#[derive(Clone)]
struct Entry {
    tool: Arc<dyn Tool>,
    yielding: Option<Yielding>,
}

impl Entry {
    fn of(tool: Arc<dyn Tool>) -> Entry {
        Entry { tool, yielding: None }
    }

    fn name(&self) -> &str {
        &self.tool.definition().name
    }
}

/// Marks a tool that gives way to any other tool of its name: an imported tool never replaces
/// one of the host's, whichever was added first. Its owner is told why it was left out.
// Only imports add yielding tools.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
#[derive(Clone)]
pub(crate) struct Yielding {
    /// Who added it, so it can take back its own tools and no others.
    owner: u64,
    refused: Arc<dyn Fn(Refusal) + Send + Sync>,
}

impl Yielding {
    // Only imports add yielding tools.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn new(owner: u64, refused: impl Fn(Refusal) + Send + Sync + 'static) -> Yielding {
        Yielding { owner, refused: Arc::new(refused) }
    }
}

/// Why a yielding tool was left out of a catalog: the tool that holds its name.
// Only imports add yielding tools.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub(crate) struct Refusal {
    /// The name.
    pub name: String,
    /// Whether the holder is a yielding tool too (else it is one of the host's).
    pub yielding: bool,
    /// Where the holder comes from.
    pub holder_source: String,
}

fn refusal(name: &str, holder: &Entry) -> Refusal {
    Refusal {
        name: name.to_owned(),
        yielding: holder.yielding.is_some(),
        holder_source: holder.tool.definition().source.to_string(),
    }
}

impl CatalogBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every `#[tool]` linked into the binary: the tools of [`ToolCatalog::global`].
    pub fn add_all_declared(mut self) -> Self {
        for registration in inventory::iter::<Registration> {
            self.tools.push(Entry::of(Arc::new(StaticRef(registration.tool()))));
        }
        self
    }

    /// Adds a tool declared with `#[tool]`: `builder.add_declared::<memory_search>()`.
    pub fn add_declared<T: DeclaredTool>(mut self) -> Self {
        self.tools.push(Entry::of(Arc::new(StaticRef(T::tool()))));
        self
    }

    /// Adds a tool built at run time.
    pub fn add_tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Entry::of(Arc::new(tool)));
        self
    }

    /// Adds a shared tool.
    pub fn add_shared(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(Entry::of(tool));
        self
    }

    /// Adds a tool that gives way to any other of its name, now or added later: when there is
    /// one, this one is left out and `yielding` is told why.
    // Only imports add yielding tools.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn add_yielding(mut self, tool: Arc<dyn Tool>, yielding: Yielding) -> Self {
        if let Some(holder) = self.tools.iter().find(|entry| entry.name() == tool.definition().name) {
            (yielding.refused)(refusal(&tool.definition().name, holder));
            return self;
        }
        self.tools.push(Entry { tool, yielding: Some(yielding) });
        self
    }

    /// Removes the yielding tools `owner` added.
    // Only imports add yielding tools.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn remove_yielding_of(mut self, owner: u64) -> Self {
        self.tools.retain(|entry| entry.yielding.as_ref().is_none_or(|y| y.owner != owner));
        self
    }

    /// Removes every tool with this name.
    pub fn remove(mut self, name: &str) -> Self {
        self.tools.retain(|entry| entry.name() != name);
        self
    }

    /// Keeps the tools whose definition satisfies `keep`.
    pub fn retain(mut self, mut keep: impl FnMut(&ToolDefinition) -> bool) -> Self {
        self.tools.retain(|entry| keep(entry.tool.definition()));
        self
    }

    /// Makes extraction strict for every tool: repairs and conversions become errors.
    pub fn strict(mut self, strict: bool) -> Self {
        self.policy.strict = strict;
        self
    }

    /// The longest arguments text read, in bytes (default
    /// [`ExtractionPolicy::DEFAULT_MAX_ARGUMENT_BYTES`], 4 MiB); longer arguments are refused
    /// with the error `arguments_too_large`, and the tool is not called.
    pub fn max_argument_bytes(mut self, bytes: usize) -> Self {
        self.policy.max_argument_bytes = bytes;
        self
    }

    /// The most keys one object of the arguments may have, at any depth (default
    /// [`ExtractionPolicy::DEFAULT_MAX_KEYS_PER_OBJECT`], 10,000); arguments with a larger
    /// object are refused with the error `too_many_keys`, and the tool is not called.
    pub fn max_keys_per_object(mut self, keys: usize) -> Self {
        self.policy.max_keys_per_object = keys;
        self
    }

    /// Defers every tool except those [`keep_loaded`](CatalogBuilder::keep_loaded) or
    /// [`keep_loaded_tagged`](CatalogBuilder::keep_loaded_tagged) name: requests send those
    /// and a tool search, and the search finds the rest.
    pub fn defer_all(mut self) -> Self {
        self.deferral.all = true;
        self
    }

    /// Defers this tool, as `#[tool(defer)]` would. A name the catalog does not have is a
    /// [`CatalogProblem::UnknownTool`].
    pub fn defer(mut self, name: impl Into<String>) -> Self {
        self.deferral.names.push(name.into());
        self
    }

    /// Defers the tools carrying `tag`.
    pub fn defer_tagged(mut self, tag: impl Into<String>) -> Self {
        self.deferral.tags.push(tag.into());
        self
    }

    /// Never defers this tool, whatever else says so: it is in every request. A name the
    /// catalog does not have is a [`CatalogProblem::UnknownTool`].
    pub fn keep_loaded(mut self, name: impl Into<String>) -> Self {
        self.deferral.keep_names.push(name.into());
        self
    }

    /// Never defers the tools carrying `tag`.
    pub fn keep_loaded_tagged(mut self, tag: impl Into<String>) -> Self {
        self.deferral.keep_tags.push(tag.into());
        self
    }

    /// Keeps only the tools carrying `tag` (a [`retain`](CatalogBuilder::retain) by tag).
    pub fn retain_tagged(self, tag: &str) -> Self {
        self.retain(|d| d.has_tag(tag))
    }

    /// Validates every definition and builds the catalog, or reports every problem.
    ///
    /// A yielding tool (an imported MCP tool) that shares its name with another is left out:
    /// a tool of the host's wins whatever the order they were added in; between yielding tools,
    /// the first added.
    pub fn build(mut self) -> Result<ToolCatalog, CatalogError> {
        self.give_way();
        self.tools.sort_by(|a, b| {
            a.name()
                .cmp(b.name())
                .then_with(|| a.tool.definition().source.to_string().cmp(&b.tool.definition().source.to_string()))
        });
        let mut problems = Vec::new();
        for entry in &self.tools {
            problems.extend(validate(entry.tool.as_ref()));
        }
        let mut by_name = HashMap::with_capacity(self.tools.len());
        for group in self.tools.chunk_by(|a, b| a.name() == b.name()) {
            if group.len() > 1 {
                problems.push(CatalogProblem::DuplicateName {
                    name: group[0].name().to_owned(),
                    locations: group.iter().map(|entry| entry.tool.definition().source.clone()).collect(),
                });
            }
        }
        for (i, entry) in self.tools.iter().enumerate() {
            by_name.insert(entry.name().to_owned(), i);
        }
        let settings = [("defer", &self.deferral.names), ("keep_loaded", &self.deferral.keep_names)];
        for (setting, names) in settings {
            for name in names.iter().filter(|name| !by_name.contains_key(name.as_str())) {
                let known = Names::new(self.tools.iter().map(Entry::name));
                let suggestion = known.closest(name, 1, 0.34).first().map(|&i| known.name(i).to_owned());
                problems.push(CatalogProblem::UnknownTool { name: name.clone(), setting, suggestion });
            }
        }
        let deferred = self.tools.iter().map(|entry| self.deferral.defers(entry.tool.definition())).collect();
        if problems.is_empty() {
            Ok(ToolCatalog {
                inner: Arc::new(Inner {
                    tools: self.tools,
                    by_name,
                    policy: self.policy,
                    deferred,
                    deferral: self.deferral,
                    suggestions: OnceLock::new(),
                }),
            })
        } else {
            Err(CatalogError { problems })
        }
    }
}

impl CatalogBuilder {
    /// Leaves out each yielding tool whose name another tool holds: a tool of the host's when
    /// there is one, else the first yielding tool added. One pass over the names.
    fn give_way(&mut self) {
        let mut holders: HashMap<&str, usize> = HashMap::with_capacity(self.tools.len());
        for (i, entry) in self.tools.iter().enumerate() {
            let holder = holders.entry(entry.name()).or_insert(i);
            if self.tools[*holder].yielding.is_some() && entry.yielding.is_none() {
                *holder = i;
            }
        }
        let mut refused = Vec::new();
        for (i, entry) in self.tools.iter().enumerate() {
            let holder = holders[entry.name()];
            if holder != i && entry.yielding.is_some() {
                refused.push(i);
            }
        }
        if refused.is_empty() {
            return;
        }
        let holders: HashMap<String, Entry> =
            holders.into_iter().map(|(name, i)| (name.to_owned(), self.tools[i].clone())).collect();
        let mut index = 0;
        self.tools.retain(|entry| {
            let keep = refused.binary_search(&index).is_err();
            index += 1;
            if !keep && let Some(yielding) = &entry.yielding {
                (yielding.refused)(refusal(entry.name(), &holders[entry.name()]));
            }
            keep
        });
    }
}

/// Checks one definition: name, description, object root, `required` ⊆ `properties`,
/// examples (see [`example_problems`]).
fn validate(tool: &dyn Tool) -> Vec<CatalogProblem> {
    let d = tool.definition();
    let mut reasons = Vec::new();
    if !is_valid_tool_name(&d.name) {
        reasons.push("has an invalid name: use 1-64 of `A-Z a-z 0-9 _ . -`, starting with a letter or `_`".to_owned());
    }
    if d.description.trim().is_empty() {
        reasons.push("has an empty description: write a doc comment on it or `description = \"...\"`".to_owned());
    }
    if d.input_schema.get("type") != Some(&Value::from("object")) {
        reasons.push("has an input schema whose root is not `type: object`".to_owned());
    }
    let properties = d.input_schema.get("properties").and_then(Value::as_object);
    match d.input_schema.get("required") {
        Some(Value::Array(required)) => {
            for name in required {
                let known = name.as_str().is_some_and(|n| properties.is_some_and(|p| p.contains_key(n)));
                if !known {
                    reasons.push(format!("lists {name} as required but has no such property"));
                }
            }
        }
        _ => reasons.push("has an input schema without a `required` array".to_owned()),
    }
    reasons.extend(example_problems(tool));
    if d.icons.len() > ToolDefinition::MAX_ICONS {
        reasons.push(format!("has {} icons: keep at most {}", d.icons.len(), ToolDefinition::MAX_ICONS));
    }
    reasons.extend(d.icons.iter().take(ToolDefinition::MAX_ICONS).filter_map(crate::model::ToolIcon::problem));
    for scope in d
        .scopes
        .iter()
        .filter(|scope| scope.is_empty() || !scope.chars().all(|c| c.is_ascii_graphic() && c != '"' && c != '\\'))
    {
        reasons.push(format!(
            "needs the scope `{}`, which is not an OAuth scope: use printable ASCII without spaces, quotes or backslashes (RFC 6749)",
            crate::model::truncate(scope)
        ));
    }
    reasons
        .into_iter()
        .map(|reason| CatalogProblem::InvalidDefinition { name: d.name.clone(), location: d.source.clone(), reason })
        .collect()
}

/// What is wrong with the examples of `tool`. An example teaches the model a form, so it must
/// be the arguments object of one call exactly as the tool takes it: a JSON object, valid
/// against the input schema, and bound under the strict policy without a warning (a repair or
/// a conversion the lenient policy would make is a form the model should not learn). Each
/// example stops at its first failing check, so one mistake is said once. The work is
/// bounded: at most [`ToolDefinition::MAX_EXAMPLES`] examples of at most
/// [`ToolDefinition::MAX_EXAMPLE_BYTES`] each are checked.
fn example_problems(tool: &dyn Tool) -> Vec<String> {
    let d = tool.definition();
    let mut reasons = Vec::new();
    if d.examples.is_empty() {
        return reasons;
    }
    if d.examples.len() > ToolDefinition::MAX_EXAMPLES {
        reasons.push(format!(
            "has {} examples: keep at most {} (a few examples teach the form; more only cost the model's context)",
            d.examples.len(),
            ToolDefinition::MAX_EXAMPLES
        ));
    }
    let validator = match jsonschema::options()
        .should_validate_formats(true)
        .should_ignore_unknown_formats(true)
        .build(&d.input_schema)
    {
        Ok(validator) => Some(validator),
        Err(error) => {
            reasons.push(format!("has examples, but its input schema cannot check them: {error}"));
            None
        }
    };
    for (i, example) in d.examples.iter().enumerate().take(ToolDefinition::MAX_EXAMPLES) {
        let text = example.to_string();
        if text.len() > ToolDefinition::MAX_EXAMPLE_BYTES {
            reasons.push(format!(
                "has example {i} of {} bytes of JSON: an example may have at most {} bytes",
                text.len(),
                ToolDefinition::MAX_EXAMPLE_BYTES
            ));
            continue;
        }
        if !example.is_object() {
            reasons.push(format!(
                "has example {i} that is not a JSON object ({}): an example is the arguments object of one call",
                crate::model::received_text(example)
            ));
            continue;
        }
        let Some(validator) = &validator else { continue };
        let refusals: Vec<String> = validator
            .iter_errors(example)
            .map(|error| {
                let pointer = error.instance_path().to_string();
                let place = if pointer.is_empty() { "(arguments)".to_owned() } else { pointer };
                format!("at `{place}`: {error}")
            })
            .collect();
        if !refusals.is_empty() {
            reasons.push(format!("has example {i} that its input schema refuses: {}", refusals.join("; ")));
            continue;
        }
        let mut request = ToolCallRequest::new(&d.name, format!("example-{i}"), text);
        match tool.bind(&mut request, ExtractionPolicy::STRICT).map(drop::<Invocation>) {
            Err(errors) => {
                reasons.push(format!("has example {i} that its own arguments refuse under the strict policy: {errors}"))
            }
            Ok(()) if !request.parse_warnings.is_empty() => {
                let warnings: Vec<String> = request.parse_warnings.iter().map(ToString::to_string).collect();
                reasons.push(format!(
                    "has example {i} that its own arguments take only with a warning: {}; write the value as the tool declares it",
                    warnings.join("; ")
                ));
            }
            Ok(()) => {}
        }
    }
    reasons
}

/// A `'static` tool held in a catalog.
struct StaticRef(&'static dyn Tool);

impl Tool for StaticRef {
    fn definition(&self) -> &ToolDefinition {
        self.0.definition()
    }

    fn bind(
        &self,
        request: &mut ToolCallRequest,
        policy: ExtractionPolicy,
    ) -> Result<Invocation, crate::model::ArgumentErrors> {
        self.0.bind(request, policy)
    }

    fn keeps_state(&self) -> bool {
        self.0.keeps_state()
    }
}
