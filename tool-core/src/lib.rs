//! Declare the tools an LLM agent may call with one attribute, and never lose a tool call to a
//! formatting mistake.
//!
//! ```
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
//! See the README for the whole tour: the struct form, injected values, the catalog, the
//! executor, and the records.
//!
//! The crate's modules are layers that read top-down, from plain data to providers and
//! protocols: `model`, `schema`, `extract`, `context`, `tool`, `stateful`, `declare`, `catalog`,
//! `executor`, `providers`, `mcp`, `rest`, `xml`. Each uses only the layers below it.

// The modules are layers, bottom first: each uses only the ones above it in this list, never
// one that uses it back (`tests/tests/layers.rs` checks both from the source).
mod suggest; // name similarity, for "did you mean" (no dependency)
mod model; // plain data: definitions, calls, warnings and errors, outputs, JSON pointers
mod schema; // schemars settings; what a schema says a value is; the conversion plan
mod extract; // raw arguments text to typed parameters: repair, conversion, constraints
mod context; // what the executor hands a running tool
mod tool; // the `Tool` contract, and tools built at run time
mod stateful; // tools with state per conversation: instances, turns, the host's handle
mod declare; // what `#[tool]` expands to: declared tools, their registration and definitions
mod catalog; // the set of tools a host offers
mod executor; // running calls: timeouts, cancellation, parallelism, records
pub mod providers; // provider dialects: definitions out, calls in, results back
#[cfg(any(feature = "mcp", feature = "playground"))]
mod listen; // an HTTP server's accept loop: connections capped, slow headers cut off
#[cfg(feature = "mcp")]
pub mod mcp; // MCP with rmcp: serve a catalog
#[cfg(feature = "rest")]
pub mod rest; // REST tools: endpoints from a registry file or code, sent with reqwest
#[cfg(feature = "xml")]
pub mod xml; // the XML call protocol: `<functions>` out, `<function_calls>` in
pub mod document; // the catalog written out: JSON, Markdown, every dialect, sizes
#[cfg(feature = "cli")]
pub mod cli; // the `tools` command line, and the playground page

pub use catalog::{CatalogBuilder, CatalogError, CatalogProblem, ToolCatalog};
pub use context::{Environment, FromContext, Progress, ProgressSink, State, ToolContext};
pub use declare::{DeclaredTool, ToolRun};
pub use executor::{
    CallFailure, CallScope, CallStatus, ExecutionRecord, Executor, ExecutorBuilder, OutputCut, DEFAULT_MAX_OUTPUT_BYTES,
};
pub use extract::{extract_untyped, ExtractionPolicy, ToolParam};
pub use model::{
    is_valid_tool_name, Cardinality, EnumConstraint, SourceLocation, ToolAnnotations, ToolDefinition, ToolParameter,
    ValueKind,
};
pub use model::{ArgumentError, ArgumentErrors, Extraction, ParseWarning, ToolCallRequest};
pub use model::{IntoToolOutput, Json, ToolError, ToolOutput};
pub use schema::shape::VALUE_KIND_KEYWORD;
pub use schema::{schema_generator, schema_settings};
pub use stateful::{ConversationState, Conversations, StateLimits};
pub use tokio_util::sync::CancellationToken;
pub use tool::{BoxFuture, DynamicTool, DynamicToolBuilder, DynamicToolError, Invocation, Tool, ToolResult};

/// Declares a tool: on a free function (sync or async) or on a struct with named fields.
///
/// The tool's name defaults to the item's name in snake_case; its description is the doc
/// comment; each parameter's description is its own doc comment (or the item's rustdoc
/// `# Arguments` entry). Parameters taken by reference (`&ToolContext`,
/// `&CancellationToken`, `&State<T>`) are injected by the executor and never reach the schema.
///
/// Keys of `#[tool(...)]`: `name`, `description`, `tags(..)`, `category`, `version`,
/// `examples(..)` (JSON object texts), `annotations(read_only, destructive, idempotent,
/// open_world, title = "..")`, `timeout_ms`, `inline` (run a sync fn on the async worker
/// instead of the blocking pool, for bodies that never block), `blocking` (the default for a
/// sync fn, accepted for older code),
/// `strict` (refuse every repair and conversion of this tool's arguments), `crate` (path to
/// this crate when renamed).
///
/// Keys of `#[param(...)]` on parameters and fields: `rename`, `description`, `example`,
/// `default` / `default = expr`, `range(min, max, exclusive_min, exclusive_max)` on numbers,
/// `length(min, max)` and `pattern` on strings, `case_sensitive` on enums, `strict` (refuse
/// conversions of this parameter's values). Every key, with examples: `docs/attributes.md`.
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
#[cfg(feature = "macros")]
#[doc(inline)]
pub use tool_macros::tool;

/// Everything a host crate needs to declare and run tools.
pub mod prelude {
    // From the macro crate, not `crate::tool`: that path also names the private module `tool`,
    // which rustdoc's JSON then shows as `prelude::tool` with the module's items.
    pub use crate::{
        CallStatus, CancellationToken, DeclaredTool, DynamicTool, ExecutionRecord, Executor, Json, State, Tool,
        ToolCallRequest, ToolCatalog, ToolContext, ToolDefinition, ToolError, ToolOutput, ToolRun,
    };
    #[cfg(feature = "macros")]
    pub use tool_macros::tool;
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The provider reference's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/providers.md")]
pub struct ProvidersDoctests;

/// The security reference's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/security.md")]
pub struct SecurityDoctests;

/// The macro's only contract with the runtime. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::context::FromContext;
    pub use crate::declare::{
        extract_by_single_pass, extract_by_tree, DeclaredTool, Registration, StaticTool, ToolRun,
    };
    pub use crate::declare::{AnnotationsDeclaration, Declaration, ParamDeclaration};
    pub use crate::extract::convert::closest_key;
    pub use crate::extract::scan::Stop;
    pub use crate::extract::single_pass::Pass;
    pub use crate::extract::{ToolParam, Wide, WireArgs};
    pub use crate::model::Findings;
    pub use crate::model::IntoToolOutput;
    pub use crate::stateful::{reserve, run_exclusive, run_shared, ConversationState, StateLimits, Turn};
    pub use crate::tool::{BoxFuture, Tool, ToolResult};
    pub use crate::{ToolCallRequest, ToolContext, ToolError};
    pub use inventory;
    pub use schemars::{Schema, SchemaGenerator};
    pub use std::boxed::Box;
    pub use std::result::Result::{Err, Ok};

    /// `<[T; N] as Checked>::Param` is `T`, where `N` is one of the `assert_*` calls below. When
    /// the check fails, the compiler reports it once, at the type, and treats the type as an
    /// error everywhere else: one clear error instead of one per use.
    pub trait Checked {
        /// The checked type.
        type Param;
    }

    impl<T> Checked for [T; 0] {
        type Param = T;
    }

    /// Checks, at the parameter's type, that it can be a tool parameter.
    pub const fn assert_param<T: ToolParam>() -> usize {
        0
    }

    /// Checks, at the return type, that a tool may return it.
    pub const fn assert_output<T: IntoToolOutput>() -> usize {
        0
    }

    /// How the instance of a type with `#[tool]` methods is made when its impl block names no
    /// `create`: `Default`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` holds the state of tool methods, and there is no way to make one",
        label = "needs `Default`, or `create = \"..\"` on this impl block's `#[tool]`",
        note = "derive or implement `Default` for `{Self}`, or name an async factory: `#[tool(create = \"connect\")]` with `async fn connect(ctx: &ToolContext) -> Result<{Self}, ToolError>`"
    )]
    pub trait DefaultState: Sized {
        /// A new instance.
        fn make() -> Self;
    }

    #[diagnostic::do_not_recommend]
    impl<T: Default> DefaultState for T {
        fn make() -> T {
            T::default()
        }
    }

    /// Makes an instance with its factory's result, converting the factory's error.
    pub fn created<T, E: Into<ToolError>>(made: Result<T, E>) -> Result<T, ToolError> {
        made.map_err(Into::into)
    }

    /// Checks, at the struct's name, that the struct has its `impl ToolRun`.
    pub const fn assert_tool_run<T: ToolRun>() -> usize {
        0
    }

    /// Runs a struct tool (`ToolRun::run`) and converts its output.
    pub fn run_struct<T: ToolRun>(value: T, ctx: ToolContext) -> BoxFuture<'static, ToolResult> {
        Box::pin(async move { value.run(&ctx).await.into_output() })
    }

    /// The output schema of a struct tool.
    pub fn struct_output_schema<T: ToolRun>(generator: &mut SchemaGenerator) -> Option<Schema> {
        T::Output::output_schema(generator)
    }

    /// Checks, at the `range` key, that the parameter is a number.
    pub const fn assert_numeric<T: NumericParam>() {}

    /// Checks, at the `length`/`pattern` key, that the parameter is a string.
    pub const fn assert_text<T: TextParam>() {}

    /// Types `range(..)` applies to.
    #[diagnostic::on_unimplemented(
        message = "`range(..)` applies to number parameters, and `{Self}` is not a number",
        label = "`range` on a `{Self}` parameter",
        note = "use `range` on integers or floats (or `Option`s of them); for strings use `length(min = .., max = ..)`"
    )]
    pub trait NumericParam {}

    /// Types `length(..)` and `pattern` apply to.
    #[diagnostic::on_unimplemented(
        message = "`length(..)` and `pattern` apply to string parameters, and `{Self}` is not a string",
        label = "on a `{Self}` parameter",
        note = "use `length`/`pattern` on `String` (or `Option<String>`); for numbers use `range(min = .., max = ..)`"
    )]
    pub trait TextParam {}

    // `do_not_recommend` keeps the list of these impls out of the errors above: their notes
    // already say which types fit.
    macro_rules! marker {
        ($tr:ident: $($t:ty),*) => {$(#[diagnostic::do_not_recommend] impl $tr for $t {})*};
    }
    marker!(NumericParam: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);
    marker!(TextParam: String, Box<str>, std::borrow::Cow<'static, str>);
    #[diagnostic::do_not_recommend]
    impl<T: NumericParam> NumericParam for Option<T> {}
    #[diagnostic::do_not_recommend]
    impl<T: TextParam> TextParam for Option<T> {}

    /// Runs a sync tool body on the blocking pool (every sync `#[tool]` not marked `inline`),
    /// inside the call's tracing span. When the call's future is dropped (time limit,
    /// cancellation) the body goes on until it returns; only its result is dropped.
    pub async fn run_blocking<R: IntoToolOutput + Send + 'static>(
        body: impl FnOnce() -> R + Send + 'static,
    ) -> ToolResult {
        let span = tracing::Span::current();
        match tokio::task::spawn_blocking(move || span.in_scope(body)).await {
            Ok(result) => result.into_output(),
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => Err(ToolError::new(format!("the blocking task did not finish: {error}"))),
        }
    }
}
