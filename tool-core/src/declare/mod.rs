//! Declaration support: what the `#[tool]` macro's expansion needs from the runtime: the
//! [`DeclaredTool`] and [`ToolRun`] traits, the static catalog entry of a declared tool and its
//! link-time registration, and the building of its definition from what was declared.

mod checks;
mod definition;
mod run;
mod tool_run;

use std::sync::OnceLock;

use crate::context::ToolContext;
use crate::extract::compiled::CompiledSchema;
use crate::extract::{self, ExtractionPolicy, WireArgs};
use crate::model::{ArgumentErrors, Extraction, ToolCallRequest, ToolDefinition};
use crate::schema;
use crate::stateful::Turn;
use crate::tool::{parts, settle, BoxFuture, Invocation, Tool, ToolResult};

pub use checks::{assert_header, assert_numeric, assert_output, assert_param, assert_text, assert_tool_run};
pub use checks::{Checked, DefaultState, HeaderParam, NumericParam, TextParam};
use definition::TypeFacts;
pub use definition::{AnnotationsDeclaration, Declaration, ParamDeclaration};
pub use run::{approval_pending, created, run_blocking, run_struct, struct_output_schema};
pub use tool_run::ToolRun;

/// A type the `#[tool]` macro turned into a tool: a function's companion type, or the struct.
///
/// `ToolCatalog::builder().add_declared::<memory_search>()` adds one explicitly.
pub trait DeclaredTool: Sized + 'static {
    /// The wire parameters, in declaration order: the tuple of their types
    /// (`(String, Option<u32>)`), or past 16 parameters a [`Wide`](crate::extract::Wide) of
    /// such tuples. What [`extract`](DeclaredTool::extract) reads; see
    /// [`WireArgs`](crate::extract::WireArgs).
    type Args: WireArgs;

    /// The tool's static catalog entry (the macro writes it).
    #[doc(hidden)]
    fn entry() -> &'static StaticTool;

    #[doc(hidden)]
    fn declaration() -> &'static Declaration;

    #[doc(hidden)]
    fn defaults() -> <Self::Args as WireArgs>::Defaults;

    #[doc(hidden)]
    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>;

    #[doc(hidden)]
    fn invoke(args: Self::Args, ctx: ToolContext, turn: Turn) -> BoxFuture<'static, ToolResult>;

    /// Whether the tool is a method of a type with state per conversation.
    #[doc(hidden)]
    const STATEFUL: bool = false;

    /// A stateful tool's place in its conversation's queue, taken when its arguments are bound.
    #[doc(hidden)]
    fn reserve(_request: &ToolCallRequest) -> Turn {
        Turn::stateless()
    }

    /// The tool as a catalog entry.
    fn tool() -> &'static dyn Tool {
        Self::entry()
    }

    /// The tool's definition.
    fn definition() -> &'static ToolDefinition {
        Self::entry().definition()
    }

    /// Extracts typed arguments from a raw arguments string, leniently, with warnings and errors:
    /// the value is the tuple of the parameters ([`DeclaredTool::Args`]).
    ///
    /// ```
    /// use tool_core::prelude::*;
    ///
    /// /// Find books.
    /// #[tool]
    /// fn find_books(query: String, limit: Option<u32>) -> Vec<String> {
    ///     vec![format!("{query} ({limit:?})")]
    /// }
    ///
    /// let extraction: tool_core::Extraction<'_, (String, Option<u32>)> =
    ///     <find_books as DeclaredTool>::extract(r#"{"query": "rust", "limit": "5"}"#);
    /// assert_eq!(extraction.value.unwrap(), ("rust".to_owned(), Some(5)));
    /// assert_eq!(extraction.warnings[0].rule(), "string_to_integer");
    /// ```
    fn extract(raw: &str) -> Extraction<'_, Self::Args> {
        extract_declared::<Self, true>(raw, Self::entry(), ExtractionPolicy::LENIENT)
    }

    /// Extracts typed arguments under `policy`.
    fn extract_with(raw: &str, policy: ExtractionPolicy) -> Extraction<'_, Self::Args> {
        extract_declared::<Self, true>(raw, Self::entry(), policy)
    }
}

/// Extracts `T`'s arguments through the tree path alone, without the single pass: the
/// reference the single pass must agree with (for tests and the fuzz target).
pub fn extract_by_tree<T: DeclaredTool>(raw: &str) -> Extraction<'_, T::Args> {
    let entry = T::entry();
    let (definition, compiled) = (entry.definition(), entry.compiled());
    extract::tree_path::<T::Args>(raw, definition, compiled, &T::defaults(), ExtractionPolicy::LENIENT)
}

/// Extracts `T`'s arguments through the single pass alone, without the object scan: the
/// reference the scan must agree with (for tests and the fuzz target).
pub fn extract_by_single_pass<T: DeclaredTool>(raw: &str) -> Extraction<'_, T::Args> {
    extract_declared::<T, false>(raw, T::entry(), ExtractionPolicy::LENIENT)
}

/// Extracts `T`'s arguments, with the object scan (`SCAN`) or through the single pass alone.
fn extract_declared<'r, T: DeclaredTool, const SCAN: bool>(
    raw: &'r str,
    entry: &StaticTool,
    policy: ExtractionPolicy,
) -> Extraction<'r, T::Args> {
    let (definition, compiled) = (entry.definition(), entry.compiled());
    extract::extract::<T::Args, SCAN>(raw, definition, compiled, T::declaration().param_names, &T::defaults(), policy)
}

/// The catalog entry of a declared tool: a static whose definition is built on first use.
///
/// Not generic: the per-tool work sits behind two function pointers, so the lazy-init and
/// dispatch code is compiled once for all tools instead of once per tool.
#[doc(hidden)]
pub struct StaticTool {
    definition: OnceLock<ToolDefinition>,
    /// The input schema compiled for extraction, on the first call.
    compiled: OnceLock<CompiledSchema>,
    build: fn() -> ToolDefinition,
    bind: fn(&StaticTool, &mut ToolCallRequest, ExtractionPolicy) -> Result<Invocation, ArgumentErrors>,
    stateful: bool,
}

impl StaticTool {
    /// The entry of `T`; `const` so it can be a `static`.
    pub const fn new<T: DeclaredTool>() -> Self {
        StaticTool {
            definition: OnceLock::new(),
            compiled: OnceLock::new(),
            build: build_declared::<T>,
            bind: bind_declared::<T>,
            stateful: T::STATEFUL,
        }
    }

    #[inline]
    fn compiled(&self) -> &CompiledSchema {
        self.compiled.get_or_init(|| {
            let definition = self.definition();
            CompiledSchema::compile(&definition.input_schema, &definition.parameters, false)
        })
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
    let mut generator = schema::generator();
    let schemas = element_schemas(&mut generator);
    let definitions = generator.take_definitions(true);
    let output_schema = output_schema(&mut schema::generator());
    let facts = TypeFacts { schemas, definitions, accepts_missing, has_default, output_schema };
    definition::build_definition(declaration, facts)
}

fn bind_declared<T: DeclaredTool>(
    entry: &StaticTool,
    request: &mut ToolCallRequest,
    policy: ExtractionPolicy,
) -> Result<Invocation, ArgumentErrors> {
    let extraction = parts(extract_declared::<T, true>(&request.raw_arguments, entry, policy));
    let args = settle(request, extraction)?;
    let turn = T::reserve(request);
    Ok(Invocation::new(move |ctx| T::invoke(args, ctx, turn)))
}

impl Tool for StaticTool {
    #[inline]
    fn definition(&self) -> &ToolDefinition {
        self.definition.get_or_init(self.build)
    }

    fn bind(&self, request: &mut ToolCallRequest, policy: ExtractionPolicy) -> Result<Invocation, ArgumentErrors> {
        (self.bind)(self, request, policy)
    }

    fn keeps_state(&self) -> bool {
        self.stateful
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
