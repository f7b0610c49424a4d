//! Tools built at run time from a JSON Schema and an async handler.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use super::contract::{parts, settle, BoxFuture, Invocation, Tool, ToolResult};
use crate::context::ToolContext;
use crate::extract::compiled::CompiledSchema;
use crate::extract::{self, ExtractionPolicy};
use crate::model::{is_valid_tool_name, Approval, SourceLocation, TaskSupport, ToolAnnotations, ToolDefinition};
use crate::model::{ArgumentErrors, IntoToolOutput, ToolCallRequest};

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
    /// The input schema compiled for extraction, on the first call.
    compiled: OnceLock<CompiledSchema>,
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
            output_schema: None,
            annotations: ToolAnnotations::default(),
            tags: Vec::new(),
            timeout: None,
            strict: false,
            defer: false,
            approval: Approval::Never,
            sequential: false,
            task: TaskSupport::Never,
            task_asks_first: false,
            icons: Vec::new(),
            scopes: Vec::new(),
            examples: Vec::new(),
            headers: Vec::new(),
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
        let compiled = self
            .compiled
            .get_or_init(|| CompiledSchema::compile(&self.definition.input_schema, &self.definition.parameters, true));
        let closed = compiled.closed();
        let declared = |key: &str| parameters.iter().any(|p| p.name == key);
        let extraction = extract::read_by_tree(&request.raw_arguments, &self.definition, compiled, policy, |object| {
            let missing = extract::missing_required(parameters, object);
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
    output_schema: Option<Value>,
    annotations: ToolAnnotations,
    tags: Vec<String>,
    timeout: Option<std::time::Duration>,
    strict: bool,
    defer: bool,
    approval: Approval,
    sequential: bool,
    task: TaskSupport,
    task_asks_first: bool,
    icons: Vec<crate::model::ToolIcon>,
    scopes: Vec<String>,
    examples: Vec<Value>,
    /// `(property, header)`: arguments mirrored into `Mcp-Param-<header>` (MCP, SEP-2243).
    headers: Vec<(String, String)>,
    handler: Option<Arc<DynamicHandler>>,
    source: SourceLocation,
}

/// Why a runtime-built tool could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DynamicToolError {
    /// No handler was given.
    #[error("the tool `{0}` has no handler: call `.handler(..)` before `.build()`")]
    MissingHandler(String),
    /// The name does not match `^[A-Za-z_][A-Za-z0-9_.-]{{0,63}}$`.
    #[error("the tool name `{0}` is invalid: use 1-64 of `A-Z a-z 0-9 _ . -`, starting with a letter or `_`")]
    InvalidName(String),
    /// An argument mirrored into an HTTP header (`.header(..)`, or `x-mcp-header` in the input
    /// schema) that cannot be: the property is missing or not a string, integer or boolean, the
    /// header name is not an HTTP token, or two properties share one header.
    #[error("the tool `{tool}` cannot mirror `{property}` into an HTTP header: {reason}")]
    InvalidHeader {
        /// The tool's name.
        tool: String,
        /// The property's path from the schema's root, dot-separated.
        property: String,
        /// What is wrong.
        reason: String,
    },
}

impl DynamicToolBuilder {
    /// What the tool does, for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The arguments' JSON Schema (root `type: object`). Parameters are read off it. A root
    /// object without `properties` or `required` (common in foreign schemas) gets empty ones,
    /// which is what their absence means.
    pub fn input_schema(mut self, mut schema: Value) -> Self {
        if let Some(root) = schema.as_object_mut().filter(|root| root.get("type") == Some(&Value::from("object"))) {
            root.entry("properties").or_insert_with(|| Value::Object(Map::new()));
            root.entry("required").or_insert_with(|| Value::Array(Vec::new()));
        }
        self.input_schema = schema;
        self
    }

    /// Mirrors the argument `property` (a string, integer or boolean property of the input
    /// schema's root) into the HTTP header `Mcp-Param-<header>` of the calls MCP clients of
    /// protocol 2026-07-28 make over streamable HTTP (SEP-2243), by writing `"x-mcp-header":
    /// header` on the property. A load balancer or gateway can then route a call by the value
    /// (a region, a tenant) without reading its body; the server refuses a call whose header
    /// and argument differ. [`build`](Self::build) refuses a property that is missing or not
    /// such a value, a `header` that is not an HTTP token, and two properties with one header.
    pub fn header(mut self, property: impl Into<String>, header: impl Into<String>) -> Self {
        self.headers.push((property.into(), header.into()));
        self
    }

    /// The JSON Schema of the tool's structured output, exported where a dialect has a place
    /// for it (MCP's `outputSchema`).
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Hints about the tool's behaviour (title, read-only, destructive, idempotent, open
    /// world), exported where a dialect has a place for them.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
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

    /// With `true`, no repairs of its arguments text: it must be exact JSON. Off by default.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// With `true`, left out of what a request sends up front, to be found by a tool search.
    /// Off by default.
    pub fn defer(mut self, defer: bool) -> Self {
        self.defer = defer;
        self
    }

    /// Whether calls wait for a person's approval: [`Approval::Always`], or
    /// [`Approval::ByArguments`] for a handler that decides per call by returning
    /// [`ToolError::approval_required`](crate::ToolError::approval_required) unless
    /// [`ToolContext::approved`](crate::ToolContext::approved).
    pub fn approval(mut self, approval: Approval) -> Self {
        self.approval = approval;
        self
    }

    /// With `true`, a call runs alone in its batch, in order. Off by default.
    pub fn sequential(mut self, sequential: bool) -> Self {
        self.sequential = sequential;
        self
    }

    /// Whether an MCP server answers a call with a task the client polls, as `#[tool(task)]`
    /// does ([`TaskSupport`]); [`TaskSupport::Never`] by default.
    pub fn task(mut self, task: TaskSupport) -> Self {
        self.task = task;
        self
    }

    /// An icon a client may show beside the tool, as `#[tool(icons(..))]` gives; the catalog
    /// checks it ([`ToolIcon::problem`](crate::ToolIcon::problem)).
    pub fn icon(mut self, icon: crate::model::ToolIcon) -> Self {
        self.icons.push(icon);
        self
    }

    /// An OAuth scope a caller's token must grant for a call, as `#[tool(scopes(..))]` gives
    /// ([`ToolDefinition::scopes`](crate::ToolDefinition::scopes)).
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// With `true`, a call answered with a task first runs in its request, asking in the
    /// request's rounds, and becomes the task where the tool calls
    /// [`ToolContext::continue_as_task`](crate::ToolContext::continue_as_task), as
    /// `#[tool(task(asks_first))]` does. Off by default.
    pub fn task_asks_first(mut self, asks_first: bool) -> Self {
        self.task_asks_first = asks_first;
        self
    }

    /// The arguments object of one whole call, as an example for the model: the catalog checks
    /// that it is an object the input schema accepts and the tool binds strictly without a
    /// warning ([`ToolDefinition::examples`] has the bounds); exports send it as Anthropic's
    /// `input_examples` or in the description.
    pub fn example(mut self, arguments: Value) -> Self {
        self.examples.push(arguments);
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
        let mut input_schema = self.input_schema;
        for (property, header) in self.headers {
            let invalid = |reason: &str| DynamicToolError::InvalidHeader {
                tool: self.name.clone(),
                property: property.clone(),
                reason: reason.to_owned(),
            };
            let schema = input_schema
                .get_mut("properties")
                .and_then(|properties| properties.get_mut(&property))
                .and_then(Value::as_object_mut)
                .ok_or_else(|| invalid("the input schema has no such property"))?;
            schema.insert("x-mcp-header".into(), Value::String(header));
        }
        crate::model::mcp_headers::check(&input_schema).map_err(|(property, reason)| {
            DynamicToolError::InvalidHeader { tool: self.name.clone(), property, reason }
        })?;
        let mut definition = ToolDefinition::new(self.name, self.description.trim(), input_schema);
        definition.output_schema = self.output_schema;
        definition.annotations = self.annotations;
        definition.tags = self.tags;
        definition.timeout = self.timeout;
        definition.strict = self.strict;
        definition.defer = self.defer;
        definition.approval = self.approval;
        definition.sequential = self.sequential;
        definition.task = self.task;
        definition.task_asks_first = self.task_asks_first;
        definition.icons = self.icons;
        definition.scopes = self.scopes;
        definition.examples = self.examples;
        definition.source = self.source;
        Ok(DynamicTool { definition, compiled: OnceLock::new(), handler })
    }
}
