//! The [`Tool`] trait every tool goes through, declared (`#[tool]`) or built at run time.
//!
//! A tool has a definition and can *bind* a call: extract the arguments, and either return an
//! [`Invocation`] ready to run or the reasons the arguments were refused. Running, timeouts and
//! records belong to the executor, not here.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::context::ToolContext;
use crate::declare::{self, Declaration, TypeFacts};
use crate::extract::{self, ExtractionPolicy, WireArgs};
use crate::model::pointer;
use crate::model::{is_valid_tool_name, SourceLocation, ToolDefinition, ToolParameter};
use crate::model::{ArgumentError, ArgumentErrors, Extraction, ToolCallRequest};
use crate::model::{IntoToolOutput, ToolError, ToolOutput};
use crate::schema;
use crate::schema::shape::shape_of;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What running a tool body yields.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// A call whose arguments were accepted, ready to run in a context.
pub struct Invocation(Box<dyn FnOnce(ToolContext) -> BoxFuture<'static, ToolResult> + Send>);

impl Invocation {
    /// Wraps the function that starts the call.
    pub fn new(run: impl FnOnce(ToolContext) -> BoxFuture<'static, ToolResult> + Send + 'static) -> Self {
        Invocation(Box::new(run))
    }

    /// Starts the call.
    pub fn run(self, ctx: ToolContext) -> BoxFuture<'static, ToolResult> {
        (self.0)(ctx)
    }
}

/// A tool the catalog can hold and the executor can run.
pub trait Tool: Send + Sync + 'static {
    /// The tool's definition, built once.
    fn definition(&self) -> &ToolDefinition;

    /// Extracts the arguments of `request` under `policy`, recording warnings (and the
    /// arguments object, when one was built) in it; returns the ready call, or why the arguments
    /// were refused.
    fn bind(&self, request: &mut ToolCallRequest, policy: ExtractionPolicy) -> Result<Invocation, ArgumentErrors>;
}

/// Records an extraction's warnings and arguments in the request, returning its value.
fn settle<T>(
    request: &mut ToolCallRequest,
    (value, warnings, arguments): ExtractionParts<T>,
) -> Result<T, ArgumentErrors> {
    request.parse_warnings.extend(warnings);
    request.arguments = arguments;
    value
}

type ExtractionParts<T> = (Result<T, ArgumentErrors>, Vec<crate::model::ParseWarning>, Option<Value>);

fn parts<T>(extraction: Extraction<'_, T>) -> ExtractionParts<T> {
    (extraction.value, extraction.warnings.into_vec(), extraction.arguments)
}

/// A type the `#[tool]` macro turned into a tool: a function's companion type, or the struct.
///
/// `ToolCatalog::builder().add_declared::<memory_search>()` adds one explicitly.
pub trait DeclaredTool: Sized + 'static {
    /// The wire parameters, in declaration order.
    type Args: WireArgs;

    /// The tool as a catalog entry.
    fn tool() -> &'static dyn Tool;

    #[doc(hidden)]
    fn declaration() -> &'static Declaration;

    #[doc(hidden)]
    fn defaults() -> <Self::Args as WireArgs>::Defaults;

    #[doc(hidden)]
    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>;

    #[doc(hidden)]
    fn invoke(args: Self::Args, ctx: ToolContext) -> BoxFuture<'static, ToolResult>;

    /// The tool's definition.
    fn definition() -> &'static ToolDefinition {
        Self::tool().definition()
    }

    /// Extracts typed arguments from a raw arguments string, leniently, with warnings and errors.
    fn extract(raw: &str) -> Extraction<'_, Self::Args> {
        extract_declared::<Self, true>(raw, Self::definition(), ExtractionPolicy::LENIENT)
    }

    /// Extracts typed arguments under `policy`.
    fn extract_with(raw: &str, policy: ExtractionPolicy) -> Extraction<'_, Self::Args> {
        extract_declared::<Self, true>(raw, Self::definition(), policy)
    }

    /// Extracts through the tree path alone, without the single pass: the reference the single
    /// pass must agree with (for tests).
    #[doc(hidden)]
    fn extract_by_tree(raw: &str) -> Extraction<'_, Self::Args> {
        extract::lenient_path::<Self::Args>(raw, Self::definition(), &Self::defaults(), ExtractionPolicy::LENIENT)
    }

    /// Extracts through the single pass alone, without the object scan: the reference the scan
    /// must agree with (for tests and the fuzz target).
    #[doc(hidden)]
    fn extract_by_single_pass(raw: &str) -> Extraction<'_, Self::Args> {
        extract_declared::<Self, false>(raw, Self::definition(), ExtractionPolicy::LENIENT)
    }
}

/// Extracts `T`'s arguments, with the object scan (`SCAN`) or through the single pass alone.
fn extract_declared<'r, T: DeclaredTool, const SCAN: bool>(
    raw: &'r str,
    definition: &ToolDefinition,
    policy: ExtractionPolicy,
) -> Extraction<'r, T::Args> {
    extract::extract::<T::Args, SCAN>(raw, definition, T::declaration().param_names, &T::defaults(), policy)
}

/// The struct form's body: `#[tool] struct CheckAvailability { .. }` plus this impl.
///
/// ```
/// use tool_core::prelude::*;
///
/// /// Check whether a meeting room is free.
/// #[tool]
/// struct CheckAvailability {
///     /// Room name.
///     room: String,
/// }
///
/// impl ToolRun for CheckAvailability {
///     type Output = Result<String, ToolError>;
///
///     async fn run(self, _ctx: &ToolContext) -> Self::Output {
///         Ok(format!("{} is free", self.room))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is declared with `#[tool]` but has no body",
    label = "needs `impl ToolRun for {Self}`",
    note = "add `impl ToolRun for {Self} {{ type Output = Result<String, ToolError>; async fn run(self, ctx: &ToolContext) -> Self::Output {{ .. }} }}`"
)]
pub trait ToolRun: Sized + Send + 'static {
    /// What the tool returns (see [`IntoToolOutput`]).
    type Output: IntoToolOutput;

    /// Runs the tool with its extracted parameters.
    fn run(self, ctx: &ToolContext) -> impl Future<Output = Self::Output> + Send;
}

/// The catalog entry of a declared tool: a static whose definition is built on first use.
///
/// Not generic: the per-tool work sits behind two function pointers, so the lazy-init and
/// dispatch code is compiled once for all tools instead of once per tool.
#[doc(hidden)]
pub struct StaticTool {
    definition: OnceLock<ToolDefinition>,
    build: fn() -> ToolDefinition,
    bind: fn(&ToolDefinition, &mut ToolCallRequest, ExtractionPolicy) -> Result<Invocation, ArgumentErrors>,
}

impl StaticTool {
    /// The entry of `T`; `const` so it can be a `static`.
    pub const fn new<T: DeclaredTool>() -> Self {
        StaticTool { definition: OnceLock::new(), build: build_declared::<T>, bind: bind_declared::<T> }
    }
}

fn build_declared<T: DeclaredTool>() -> ToolDefinition {
    let has_default = T::Args::has_default(&T::defaults());
    build_definition(
        T::declaration(),
        T::Args::element_schemas,
        T::Args::accepts_missing(),
        has_default,
        T::output_schema,
    )
}

/// The type-independent part of [`build_declared`], compiled once rather than once per tool.
fn build_definition(
    declaration: &Declaration,
    element_schemas: fn(&mut schemars::SchemaGenerator) -> Vec<schemars::Schema>,
    accepts_missing: Vec<bool>,
    has_default: Vec<bool>,
    output_schema: fn(&mut schemars::SchemaGenerator) -> Option<schemars::Schema>,
) -> ToolDefinition {
    let mut generator = schema::schema_generator();
    let schemas = element_schemas(&mut generator);
    let definitions = generator.take_definitions(true);
    let output_schema = output_schema(&mut schema::schema_generator());
    let facts = TypeFacts { schemas, definitions, accepts_missing, has_default, output_schema };
    declare::build_definition(declaration, facts)
}

fn bind_declared<T: DeclaredTool>(
    definition: &ToolDefinition,
    request: &mut ToolCallRequest,
    policy: ExtractionPolicy,
) -> Result<Invocation, ArgumentErrors> {
    let extraction = parts(extract_declared::<T, true>(&request.raw_arguments, definition, policy));
    let args = settle(request, extraction)?;
    Ok(Invocation::new(move |ctx| T::invoke(args, ctx)))
}

impl Tool for StaticTool {
    #[inline]
    fn definition(&self) -> &ToolDefinition {
        self.definition.get_or_init(self.build)
    }

    fn bind(&self, request: &mut ToolCallRequest, policy: ExtractionPolicy) -> Result<Invocation, ArgumentErrors> {
        (self.bind)(self.definition(), request, policy)
    }
}

/// What `#[tool]` submits to the link-time registry.
#[doc(hidden)]
pub struct Registration {
    tool: fn() -> &'static dyn Tool,
}

impl Registration {
    /// A registration of the tool `tool` returns.
    pub const fn new(tool: fn() -> &'static dyn Tool) -> Self {
        Registration { tool }
    }

    /// The registered tool.
    pub fn tool(&self) -> &'static dyn Tool {
        (self.tool)()
    }
}

inventory::collect!(Registration);

type DynamicHandler = dyn Fn(Map<String, Value>, ToolContext) -> BoxFuture<'static, ToolResult> + Send + Sync;

/// A tool built at run time from a JSON Schema and an async handler (REST and MCP tools, tools
/// loaded from configuration). It goes through the same [`Tool`] trait as declared tools.
///
/// ```
/// use serde_json::json;
/// use tool_core::prelude::*;
///
/// let tool = DynamicTool::builder("weather.lookup")
///     .description("Current weather for a city.")
///     .input_schema(json!({
///         "type": "object",
///         "properties": {"city": {"type": "string", "description": "City name."}},
///         "required": ["city"]
///     }))
///     .handler(|args, _ctx| async move {
///         format!("sunny in {}", args["city"].as_str().unwrap_or("?"))
///     })
///     .build()
///     .unwrap();
/// assert_eq!(tool.definition().parameters[0].name, "city");
/// ```
pub struct DynamicTool {
    definition: ToolDefinition,
    handler: Arc<DynamicHandler>,
}

impl DynamicTool {
    /// Starts a tool named `name`.
    pub fn builder(name: impl Into<String>) -> DynamicToolBuilder {
        DynamicToolBuilder {
            name: name.into(),
            description: String::new(),
            input_schema: Value::Object(Map::from_iter([
                ("type".to_owned(), Value::from("object")),
                ("properties".to_owned(), Value::Object(Map::new())),
                ("required".to_owned(), Value::Array(Vec::new())),
            ])),
            tags: Vec::new(),
            timeout: None,
            strict: false,
            handler: None,
            source: SourceLocation { file: "(runtime)".to_owned(), line: 0 },
        }
    }
}

impl Tool for DynamicTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn bind(&self, request: &mut ToolCallRequest, policy: ExtractionPolicy) -> Result<Invocation, ArgumentErrors> {
        let parameters = &self.definition.parameters;
        let closed = self.definition.checks().plan.node(crate::schema::plan::Plan::ROOT).closed();
        let declared = |key: &str| parameters.iter().any(|p| p.name == key);
        let extraction = extract::slow_path(&request.raw_arguments, &self.definition, policy, |object| {
            let missing: Vec<ArgumentError> = parameters
                .iter()
                .filter(|p| p.required && !object.contains_key(&p.name))
                .map(|p| ArgumentError {
                    pointer: pointer::child("", &p.name),
                    rule: "missing_required".into(),
                    expected: p.expected(),
                    received: None,
                    detail: format!("missing field `{}`", p.name),
                })
                .collect();
            if missing.is_empty() {
                // The handler gets what the warnings say it gets: no key the schema does not
                // declare, unless it takes any key.
                Ok(match closed {
                    true => {
                        object.iter().filter(|(key, _)| declared(key)).map(|(k, v)| (k.clone(), v.clone())).collect()
                    }
                    false => object.clone(),
                })
            } else {
                Err(missing)
            }
        });
        let extraction = parts(extraction);
        let args = settle(request, extraction)?;
        let handler = Arc::clone(&self.handler);
        Ok(Invocation::new(move |ctx| handler(args, ctx)))
    }
}

/// Builds a [`DynamicTool`].
pub struct DynamicToolBuilder {
    name: String,
    description: String,
    input_schema: Value,
    tags: Vec<String>,
    timeout: Option<std::time::Duration>,
    strict: bool,
    handler: Option<Arc<DynamicHandler>>,
    source: SourceLocation,
}

/// Why a runtime-built tool could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DynamicToolError {
    /// No handler was given.
    #[error("the tool `{0}` has no handler: call `.handler(..)` before `.build()`")]
    MissingHandler(String),
    /// The name does not match `^[A-Za-z_][A-Za-z0-9_.-]{{0,63}}$`.
    #[error("the tool name `{0}` is invalid: use 1-64 of `A-Z a-z 0-9 _ . -`, starting with a letter or `_`")]
    InvalidName(String),
}

impl DynamicToolBuilder {
    /// What the tool does, for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The arguments' JSON Schema (root `type: object`). Parameters are read off it.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self
    }

    /// Adds a tag.
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.tags.push(tag.into());
        self
    }

    /// A per-call time limit.
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// No repairs of its arguments text: it must be exact JSON.
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }

    /// Where the tool comes from (a config file, a server URL), for catalog reports.
    pub fn source(mut self, file: impl Into<String>, line: u32) -> Self {
        self.source = SourceLocation { file: file.into(), line };
        self
    }

    /// The body: receives the arguments object and the context.
    pub fn handler<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolOutput,
    {
        self.handler = Some(Arc::new(move |args, ctx| {
            let fut = handler(args, ctx);
            Box::pin(async move { fut.await.into_output() })
        }));
        self
    }

    /// Builds the tool. The catalog validates the definition further when the tool is added.
    pub fn build(self) -> Result<DynamicTool, DynamicToolError> {
        if !is_valid_tool_name(&self.name) {
            return Err(DynamicToolError::InvalidName(self.name));
        }
        let handler = self.handler.ok_or_else(|| DynamicToolError::MissingHandler(self.name.clone()))?;
        let parameters = parameters_of(&self.input_schema);
        Ok(DynamicTool {
            definition: ToolDefinition {
                name: self.name,
                description: self.description.trim().to_owned(),
                parameters,
                input_schema: self.input_schema,
                output_schema: None,
                tags: self.tags,
                category: None,
                version: None,
                examples: Vec::new(),
                annotations: Default::default(),
                timeout: self.timeout,
                strict: self.strict,
                source: self.source,
                checks: crate::extract::constraints::LazyChecks::untyped(),
            },
            handler,
        })
    }
}

/// Reads the parameter list off an object schema.
pub fn parameters_of(schema: &Value) -> Vec<ToolParameter> {
    let empty = Map::new();
    let definitions = schema.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .map(|(name, property)| {
            let shape = shape_of(property, definitions);
            ToolParameter {
                name: name.clone(),
                value_kind: shape.kind,
                cardinality: shape.cardinality,
                required: required.contains(&name.as_str()),
                description: property.get("description").and_then(Value::as_str).unwrap_or_default().to_owned(),
                enum_constraint: shape
                    .allowed_values
                    .map(|allowed_values| crate::model::EnumConstraint { allowed_values, case_sensitive: false }),
                example: property.get("examples").and_then(|e| e.get(0)).cloned(),
                default: property.get("default").cloned(),
                strict: false,
            }
        })
        .collect()
}
