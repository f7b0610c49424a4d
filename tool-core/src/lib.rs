//! Declare the tools an LLM agent may call with one attribute, and never lose a tool call to a
//! formatting mistake.
//!
//! ```standalone_crate
//! use tool_core::prelude::*;
//!
//! /// Search the memory store for fragments matching a query.
//! #[tool(name = "memory.search", tags("memory"), annotations(read_only))]
//! async fn memory_search(
//!     /// Keywords to look for.
//!     #[param(example = "agent state consistency")]
//!     query: String,
//!     /// Maximum number of fragments to return.
//!     #[param(range(min = 1, max = 50))]
//!     limit: Option<u32>,
//!     ctx: &ToolContext,
//! ) -> Result<Vec<String>, ToolError> {
//!     Ok(vec![format!("{query} (call {}, limit {})", ctx.call_id(), limit.unwrap_or(3))])
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let catalog = ToolCatalog::global().unwrap();
//! let definition = catalog.definition("memory.search").unwrap();
//! assert_eq!(definition.parameters[1].required, false);
//!
//! let executor = Executor::new(catalog.clone());
//! let record = executor.execute(ToolCallRequest::new("memory.search", "call_1", r#"{"query":"rust"}"#)).await;
//! assert_eq!(record.status, CallStatus::Success);
//! assert_eq!(record.content.text, r#"["rust (call call_1, limit 3)"]"#);
//! # }
//! ```
//!
//! The README has a short tour; the guides in the repository's `docs/` folder (its
//! `README.md` lists them) cover every form of `#[tool]`, the executor, the records, the
//! providers, MCP, REST tools, the XML protocol and open models' own tool calls.
//!
//! What a host uses most is at the crate root and in the [`prelude`]. The modules hold the rest:
//! [`extract`] (reading arguments without a declared tool, the parameter traits), [`schema`]
//! (the schemars settings every schema is made with), [`providers`] (each provider's dialect),
//! [`document`] (the catalog written out), and, behind their features, `mcp`, `rest`, `xml`,
//! `open_models` and `cli`.

// The modules are layers, bottom first: each uses only the ones above it in this list, never
// one that uses it back (`tests/tests/layers.rs` checks both from the source).
mod suggest; // name similarity, for "did you mean" (no dependency)
#[cfg(all(feature = "otel", any(feature = "mcp", feature = "rest")))]
mod otel; // W3C trace context written from a span and read back as its parent (no dependency)
mod model; // plain data: definitions, calls, warnings and errors, outputs, JSON pointers
pub mod state; // where state lives between calls: one store (memory, Redis) for every piece of it
pub mod schema; // schemars settings; what a schema says a value is; the conversion plan
pub mod extract; // raw arguments text to typed parameters: repair, conversion, constraints
mod wire; // calls as a provider sent them (names, arguments), back in the declared form
pub mod ask; // what a running tool asks whoever made its call: their model, their user
mod context; // what the executor hands a running tool
mod tool; // the `Tool` contract, and tools built at run time
mod stateful; // tools with state per conversation: instances, turns, the host's handle
mod declare; // what `#[tool]` expands to: declared tools, their registration and definitions
mod catalog; // the set of tools a host offers
pub mod policy; // call policy: approval, guardrails, retries, rate limits, repair
mod executor; // running calls: timeouts, cancellation, parallelism, records
pub mod providers; // provider dialects: definitions out, calls in, results back
#[cfg(feature = "search")]
pub mod search; // tool search over large catalogs, and deferred loading
#[cfg(any(feature = "mcp", feature = "playground"))]
mod listen; // an HTTP server's accept loop: connections capped, slow headers cut off
#[cfg(feature = "oauth")]
pub mod auth; // OAuth 2.1 resource servers: access tokens checked as JWTs, protected resource metadata
#[cfg(feature = "mcp")]
pub mod mcp; // MCP with rmcp: serve a catalog
#[cfg(feature = "rest")]
pub mod rest; // REST tools: endpoints from a registry file or code, sent with reqwest
#[cfg(feature = "xml")]
pub mod xml; // the XML call protocol: `<functions>` out, `<function_calls>` in
#[cfg(feature = "open-models")]
pub mod open_models; // the tool-call text of open models, in each family's own form
pub mod document; // the catalog written out: JSON, Markdown, every dialect, sizes
#[cfg(feature = "cli")]
pub mod cli; // the `tools` command line, and the playground page

pub use catalog::{CatalogBuilder, CatalogError, CatalogProblem, ToolCatalog};
pub use context::{
    Environment, FromContext, LogLevel, LogMessage, LogSink, Progress, ProgressSink, State, ToolContext,
};
pub use declare::{DeclaredTool, ToolRun};
pub use executor::{
    BudgetScope, CallFailure, CallScope, CallStatus, ExecutionRecord, Executor, ExecutorBuilder, NotPendingReason,
    OutputCut, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_PENDING_TTL,
};
pub use extract::policy::ExtractionPolicy;
pub use model::rules;
pub use model::{
    is_valid_tool_name, Approval, Cardinality, EnumConstraint, IconTheme, SourceLocation, TaskSupport, ToolAnnotations,
    ToolDefinition, ToolIcon, ToolParameter, ValueKind,
};
pub use model::{ArgumentError, ArgumentErrors, Extraction, ParseWarning, Principal, ToolCallRequest};
pub use model::{Audio, ContentBlock, EmbeddedResource, Image, ResourceContents, ResourceLink};
pub use model::{ErrorKind, IntoToolOutput, Json, ToolError, ToolOutput};
pub use stateful::{ConversationState, Conversations, StateLimits, DEFAULT_MAX_STATE_BYTES};
pub use tokio_util::sync::CancellationToken;
pub use tool::{BoxFuture, DynamicTool, DynamicToolBuilder, DynamicToolError, Invocation, Tool, ToolResult};

/// Declares a tool: on a free function (sync or async), on a struct with named fields, or on
/// an impl block whose `#[tool]` methods keep state per conversation.
///
/// The tool's name defaults to the item's name in snake_case; its description is the doc
/// comment; each parameter's description is its own doc comment (or the item's rustdoc
/// `# Arguments` entry). Parameters taken by reference (`&ToolContext`,
/// `&CancellationToken`, `&State<T>`) are injected by the executor and never reach the schema.
/// A function tool's companion type, the one the host registers
/// (`CatalogBuilder::add_declared::<list_files>()`), is a unit struct named like the function.
///
/// Keys of `#[tool(...)]` on a function, a method or a struct: `name`, `description`,
/// `tags(..)`, `category`, `version`, `examples(..)` (JSON object texts),
/// `annotations(read_only, destructive, idempotent, open_world, title = "..")`, `timeout_ms`,
/// `inline` (run a sync fn on the async worker instead of the blocking pool, for bodies that
/// never block), `blocking` (the default for a sync fn, accepted for older code), `strict`
/// (refuse every repair and conversion of this tool's arguments), `defer` (left out of requests
/// until a tool search finds it), `requires_approval` (every call waits for a person),
/// `approval = "fn"` (a function of the arguments, each by reference, then `&ToolContext`, or of
/// `&Self` for a struct, decides per call whether a person must approve it), `sequential` (a
/// call runs alone in its batch), `task` (an MCP server answers a call with a task the client
/// polls; `task = "required"`: only as a task), `example(query = "rust", limit = 5)` (a whole call's
/// arguments by wire name, repeatable), `crate` (path to this crate when renamed).
///
/// Keys of `#[param(...)]` on parameters and fields: `rename`, `description`, `example`,
/// `default` / `default = expr`, `range(min, max, exclusive_min, exclusive_max)` on numbers,
/// `length(min, max)` and `pattern` on strings, `case_sensitive` on enums, `strict` (refuse
/// conversions of this parameter's values).
///
/// A flag (`inline`, `blocking`, `strict`, `defer`, `requires_approval`, `sequential`,
/// `case_sensitive`, `new`, the annotation hints) also takes `= true` or `= false`; `= false`
/// is the same as leaving it out. Every key, with
/// examples: `docs/attributes.md`.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tool_core::prelude::*;
///
/// /// How to sort results.
/// #[derive(Deserialize, JsonSchema)]
/// #[serde(rename_all = "snake_case")]
/// enum Order {
///     Newest,
///     Oldest,
/// }
///
/// /// List the files of a folder.
/// ///
/// /// # Arguments
/// ///
/// /// * `folder` - The folder, relative to the workspace.
/// #[tool(name = "files.list", tags("files"), annotations(read_only), timeout_ms = 2000)]
/// fn list_files(
///     folder: String,
///     /// How to sort.
///     #[param(default = Order::Newest)]
///     order: Order,
///     /// At most this many.
///     #[param(range(min = 1, max = 100))]
///     limit: Option<u32>,
///     cancel: &CancellationToken,
/// ) -> Result<Vec<String>, ToolError> {
///     let _ = (order, cancel.is_cancelled());
///     Ok(vec![format!("{folder}/a.txt"); limit.unwrap_or(1) as usize])
/// }
///
/// /// Rename a file.
/// #[tool(annotations(destructive, idempotent))]
/// struct RenameFile {
///     /// The current path.
///     from: String,
///     /// The new path.
///     to: String,
/// }
///
/// impl ToolRun for RenameFile {
///     type Output = Result<String, ToolError>;
///
///     async fn run(self, _ctx: &ToolContext) -> Self::Output {
///         Ok(format!("renamed {} to {}", self.from, self.to))
///     }
/// }
///
/// let list = <list_files as DeclaredTool>::definition();
/// assert_eq!(list.description, "List the files of a folder.");
/// assert_eq!(list.parameters[0].description, "The folder, relative to the workspace.");
/// assert_eq!(list.input_schema["required"], serde_json::json!(["folder"]));
/// assert_eq!(<RenameFile as DeclaredTool>::definition().name, "rename_file");
/// ```
///
/// # On an impl block
///
/// `#[tool]` on an inherent impl block makes each method marked `#[tool]` (taking `&self` or
/// `&mut self`) a tool that runs on one instance of the type per conversation
/// ([`ToolCallRequest::in_conversation`]). A method takes the keys of a function above and is
/// named `type.method` (`counter.add`) unless `name` says otherwise; its companion type is
/// `Type_method` (`add_declared::<Counter_add>()`). The block's own `#[tool(...)]` takes other
/// keys, which say how the instance is made, kept and dropped:
///
/// - none: the instance is `Default::default()`;
/// - `new`: the instance is `Self::new()`;
/// - `create = "connect"`: `async fn connect(ctx: &ToolContext) -> Result<Self, E>`
///   (`E: Into<ToolError>`) makes it; an error fails that call, and the next call tries again;
/// - `cleanup = "close"`: `async fn close(&mut self)` runs once before the instance is dropped;
/// - `idle_timeout_ms = N`: an instance unused for N ms is cleaned up (30 minutes when left
///   out);
/// - `max_instances = N`: at most N instances of the type live in one executor (10,000 when
///   left out);
/// - `crate`: as on a function; the block's methods use it too.
///
/// ```
/// use tool_core::prelude::*;
///
/// #[derive(Default)]
/// struct Cart {
///     items: Vec<String>,
/// }
///
/// #[tool(idle_timeout_ms = 600_000)]
/// impl Cart {
///     /// Put an item in the cart.
///     #[tool]
///     fn add(&mut self, item: String) -> usize {
///         self.items.push(item);
///         self.items.len()
///     }
///
///     /// List the cart.
///     #[tool(name = "cart.list", annotations(read_only = true))]
///     fn items(&self) -> Vec<String> {
///         self.items.clone()
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let catalog = ToolCatalog::builder().add_declared::<Cart_add>().add_declared::<Cart_items>().build().unwrap();
/// let executor = Executor::new(catalog);
/// let add = ToolCallRequest::new("cart.add", "1", r#"{"item": "tea"}"#).in_conversation("alice");
/// assert_eq!(executor.execute(add).await.content.text, "1");
/// let list = ToolCallRequest::new("cart.list", "2", "{}").in_conversation("alice");
/// assert_eq!(executor.execute(list).await.content.text, r#"["tea"]"#);
/// # }
/// ```
///
/// # Compile errors
///
/// Misuse is a compile error at the offending token, with how to fix it, and every error of
/// an item is reported at once. The item is still emitted as written, with its companion
/// type, so the rest of the crate and the IDE keep seeing it and no follow-on errors pile up.
#[cfg(feature = "macros")]
#[doc(inline)]
pub use tool_macros::tool;

/// Everything a host crate needs to declare and run tools.
pub mod prelude {
    // From the macro crate, not `crate::tool`: that path also names the private module `tool`,
    // which rustdoc's JSON then shows as `prelude::tool` with the module's items.
    pub use crate::{
        CallScope, CallStatus, CancellationToken, DeclaredTool, DynamicTool, ExecutionRecord, Executor, Json, LogLevel,
        State, Tool, ToolCallRequest, ToolCatalog, ToolContext, ToolDefinition, ToolError, ToolOutput, ToolRun,
    };
    #[cfg(feature = "macros")]
    pub use tool_macros::tool;
}

/// The guides' examples (`docs/*.md`), compiled and run as doc tests. The README's code is
/// checked differently: each block is an excerpt of a file under `examples/`
/// (`tests/tests/readme.rs`), so that it shows no hidden doc-test lines. The guides declare
/// tools with `#[tool]`, hence `macros`; a guide about a feature needs that feature too.
#[cfg(all(doctest, feature = "macros"))]
mod guides {
    #[doc = include_str!("../../docs/attributes.md")]
    pub struct Attributes;
    #[doc = include_str!("../../docs/records.md")]
    pub struct Records;
    #[doc = include_str!("../../docs/extraction.md")]
    pub struct Extraction;
    #[doc = include_str!("../../docs/providers.md")]
    pub struct Providers;
    #[doc = include_str!("../../docs/provider-names.md")]
    pub struct ProviderNames;
    #[doc = include_str!("../../docs/security.md")]
    pub struct Security;
    #[doc = include_str!("../../docs/policy.md")]
    pub struct Policy;
    #[cfg(feature = "mcp")]
    #[doc = include_str!("../../docs/mcp.md")]
    pub struct Mcp;
    #[cfg(feature = "rest")]
    #[doc = include_str!("../../docs/rest.md")]
    pub struct Rest;
    #[cfg(feature = "xml")]
    #[doc = include_str!("../../docs/xml.md")]
    pub struct Xml;
    #[cfg(feature = "open-models")]
    #[doc = include_str!("../../docs/open-models.md")]
    pub struct OpenModels;
    #[cfg(feature = "cli")]
    #[doc = include_str!("../../docs/cli.md")]
    pub struct Cli;
    #[cfg(feature = "search")]
    #[doc = include_str!("../../docs/tool-search.md")]
    pub struct ToolSearch;
    #[cfg(all(feature = "redis", feature = "mcp"))]
    #[doc = include_str!("../../docs/scale-out.md")]
    pub struct ScaleOut;
    #[cfg(feature = "oauth")]
    #[doc = include_str!("../../docs/auth.md")]
    pub struct Auth;
}

/// The macro's only contract with the runtime. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::context::FromContext;
    pub use crate::declare::{approval_pending, created, run_blocking, run_struct, struct_output_schema};
    pub use crate::declare::{
        assert_header, assert_numeric, assert_output, assert_param, assert_text, assert_tool_run,
    };
    pub use crate::declare::{
        extract_by_single_pass, extract_by_tree, DeclaredTool, Registration, StaticTool, ToolRun,
    };
    pub use crate::declare::{AnnotationsDeclaration, Declaration, ParamDeclaration};
    pub use crate::declare::{Checked, DefaultState, HeaderParam, NumericParam, TextParam};
    pub use crate::extract::keys::closest_key;
    pub use crate::extract::scan::Stop;
    pub use crate::extract::single_pass::Pass;
    pub use crate::extract::{ToolParam, Wide, WireArgs};
    pub use crate::model::Approval;
    pub use crate::model::IntoToolOutput;
    pub use crate::model::TaskSupport;
    pub use crate::stateful::{reserve, run_exclusive, run_shared, ConversationState, StateLimits, Turn};
    pub use crate::stateful::{reserve_stored, run_stored_exclusive, run_stored_shared, stored_type};
    pub use crate::stateful::{SharedState, Storable, StoredType};
    pub use crate::tool::{BoxFuture, Tool, ToolResult};
    pub use crate::{ToolCallRequest, ToolContext, ToolError};
    pub use inventory;
    pub use schemars::{Schema, SchemaGenerator};
    pub use serde_json::Value;
    pub use std::boxed::Box;
    pub use std::result::Result::{Err, Ok};
}
