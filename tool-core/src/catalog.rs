//! The tool catalog: a validated, name-indexed, name-sorted set of tools.
//!
//! [`ToolCatalog::global`] holds every `#[tool]` linked into the binary; [`CatalogBuilder`]
//! makes explicit sets. Building validates every definition and reports duplicate names with
//! both declarations' locations, never shadowing one silently. It must not run tools.

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
    tools: Vec<Arc<dyn Tool>>,
    by_name: HashMap<String, usize>,
    policy: ExtractionPolicy,
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
        GLOBAL.get_or_init(|| CatalogBuilder::new().with_global().build()).as_ref()
    }

    /// An empty builder.
    pub fn builder() -> CatalogBuilder {
        CatalogBuilder::new()
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.inner.by_name.get(name).map(|&i| &*self.inner.tools[i])
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
        self.inner.tools.iter().map(|t| &**t)
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

    /// A builder starting from this catalog's tools and policy.
    pub fn to_builder(&self) -> CatalogBuilder {
        CatalogBuilder { tools: self.inner.tools.clone(), policy: self.inner.policy }
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
    tools: Vec<Arc<dyn Tool>>,
    policy: ExtractionPolicy,
}

impl CatalogBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every `#[tool]` linked into the binary.
    pub fn with_global(mut self) -> Self {
        for registration in inventory::iter::<Registration> {
            self.tools.push(Arc::new(StaticRef(registration.tool())));
        }
        self
    }

    /// Adds a tool declared with `#[tool]`: `builder.add_declared::<memory_search>()`.
    pub fn add_declared<T: DeclaredTool>(mut self) -> Self {
        self.tools.push(Arc::new(StaticRef(T::tool())));
        self
    }

    /// Adds a tool built at run time.
    pub fn add_tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Adds a shared tool.
    pub fn add_shared(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Removes every tool with this name.
    pub fn remove(mut self, name: &str) -> Self {
        self.tools.retain(|t| t.definition().name != name);
        self
    }

    /// Keeps the tools whose definition satisfies `keep`.
    pub fn retain(mut self, mut keep: impl FnMut(&ToolDefinition) -> bool) -> Self {
        self.tools.retain(|t| keep(t.definition()));
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

    /// Keeps the tools carrying `tag`.
    pub fn with_tag(self, tag: &str) -> Self {
        self.retain(|d| d.has_tag(tag))
    }

    /// Validates every definition and builds the catalog, or reports every problem.
    pub fn build(mut self) -> Result<ToolCatalog, CatalogError> {
        self.tools.sort_by(|a, b| {
            a.definition()
                .name
                .cmp(&b.definition().name)
                .then_with(|| a.definition().source.to_string().cmp(&b.definition().source.to_string()))
        });
        let mut problems = Vec::new();
        for tool in &self.tools {
            problems.extend(validate(tool.as_ref()));
        }
        let mut by_name = HashMap::with_capacity(self.tools.len());
        for group in self.tools.chunk_by(|a, b| a.definition().name == b.definition().name) {
            if group.len() > 1 {
                problems.push(CatalogProblem::DuplicateName {
                    name: group[0].definition().name.clone(),
                    locations: group.iter().map(|t| t.definition().source.clone()).collect(),
                });
            }
        }
        for (i, tool) in self.tools.iter().enumerate() {
            by_name.insert(tool.definition().name.clone(), i);
        }
        if problems.is_empty() {
            Ok(ToolCatalog {
                inner: Arc::new(Inner {
                    tools: self.tools,
                    by_name,
                    policy: self.policy,
                    suggestions: OnceLock::new(),
                }),
            })
        } else {
            Err(CatalogError { problems })
        }
    }
}

/// Checks one definition: name, description, object root, `required` ⊆ `properties`,
/// examples that the tool itself accepts.
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
    for (i, example) in d.examples.iter().enumerate() {
        let mut request = ToolCallRequest::new(&d.name, format!("example-{i}"), example.to_string());
        if let Err(errors) = tool.bind(&mut request, ExtractionPolicy::LENIENT).map(drop::<Invocation>) {
            reasons.push(format!("has example {i} that its own arguments refuse: {errors}"));
        }
    }
    reasons
        .into_iter()
        .map(|reason| CatalogProblem::InvalidDefinition { name: d.name.clone(), location: d.source.clone(), reason })
        .collect()
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
}
