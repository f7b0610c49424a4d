//! Stage 2, validate: the parsed item judged in one pass that collects every error, and the
//! declaration it makes. The declaration is complete even when there are errors (with stand-ins
//! where a part was wrong), so that the item and its companion type can still be emitted.

mod keys;
mod tool_fn;
mod tool_impl;
mod tool_struct;
mod values;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt as _;
use syn::{Ident, ImplItem, ItemImpl, ItemStruct, Path, Type, Visibility};

pub use keys::{Annotations, DefaultValue, ImplConfig, ParamConfig, ToolConfig, WithSpan};

use crate::errors::Errors;
use crate::names::{closest, name_problem};
use crate::parse::{Entry, Item, ItemFn};

/// What `#[tool]` declares.
pub enum Tool {
    Fn(Box<Callable>),
    Struct(Box<StructTool>),
    Impl(Box<ImplTool>),
    /// Not something `#[tool]` goes on: emitted as written, beside the error.
    Other(TokenStream),
}

/// The unit struct named like a function tool (or `Type_method`), which the host registers.
pub struct Companion {
    pub ident: Ident,
    pub vis: Visibility,
    pub doc: String,
}

/// A tool's description: the `description` key, or the doc comment.
pub struct Description {
    pub tokens: TokenStream,
    pub from_docs: bool,
}

/// One parameter the model sends.
pub struct WireParam {
    pub binding: Ident,
    pub wire_name: String,
    pub name_span: Span,
    pub ty: Type,
    pub config: ParamConfig,
    pub doc: Option<TokenStream>,
}

/// One argument of the call to the user's function, in the order of its parameters.
pub enum CallArg {
    /// Index into the wire parameters.
    Wire(usize),
    /// Index into the injected values.
    Injected(usize),
}

/// A function or method tool.
pub struct Callable {
    /// The function as the compiler gets it: our attributes removed, the body untouched.
    pub item: ItemFn,
    /// `None` for a method with `self` outside a `#[tool]` impl block, where no type can go.
    pub companion: Option<Companion>,
    pub krate: Path,
    pub config: ToolConfig,
    pub name: String,
    pub description: Description,
    pub wire: Vec<WireParam>,
    /// The `T` of each `&T` parameter the executor injects.
    pub injected: Vec<Type>,
    pub call_args: Vec<CallArg>,
    pub method: Option<MethodOf>,
}

/// What a `#[tool]` method runs on.
pub struct MethodOf {
    pub self_ty: Type,
    /// `&mut self`.
    pub exclusive: bool,
    /// The impl block has `shared_state`: the state lives in the executor's store.
    pub stored: bool,
}

/// A struct tool, whose `ToolRun` impl is the body.
pub struct StructTool {
    /// The struct as the compiler gets it: our attributes removed.
    pub item: ItemStruct,
    pub krate: Path,
    pub config: ToolConfig,
    pub name: String,
    pub description: Description,
    pub wire: Vec<WireParam>,
}

/// An impl block whose `#[tool]` methods run on one instance per conversation.
pub struct ImplTool {
    /// The block's header, attributes included; its items are `members`.
    pub header: ItemImpl,
    pub members: Vec<ImplMember>,
    pub self_ty: Type,
    pub krate: Path,
    pub config: ImplConfig,
    pub methods: Vec<Callable>,
    /// The type's name as written (`Counter`): what a stored state is keyed by.
    pub state_name: String,
}

pub enum ImplMember {
    /// Index into `methods`.
    Tool(usize),
    Fn(Box<ItemFn>),
    Other(Box<ImplItem>),
}

pub fn tool(entries: &[Entry], item: Item, errors: &mut Errors) -> Tool {
    match item {
        Item::Fn(func) => {
            let config = keys::tool_config(entries, keys::Target::Fn, errors);
            Tool::Fn(Box::new(tool_fn::validate(config, func, None, errors)))
        }
        Item::Struct(item) => Tool::Struct(Box::new(tool_struct::validate(entries, item, errors))),
        Item::Impl(item) => Tool::Impl(Box::new(tool_impl::validate(entries, item, errors))),
        Item::Other { tokens, keyword } => {
            errors.push(syn::Error::new(
                keyword,
                "`#[tool]` goes on a function (`#[tool] async fn search(..)`), on a struct with named fields (`#[tool] struct Search { .. }` plus `impl ToolRun`), or on an impl block whose `#[tool]` methods keep state per conversation",
            ));
            Tool::Other(tokens)
        }
    }
}

fn krate(given: Option<&Path>) -> Path {
    given.cloned().unwrap_or_else(|| syn::parse_quote!(::tool_core))
}

/// The wire parameter named by `binding` (or `rename`).
fn wire_param(binding: Ident, ty: Type, config: ParamConfig, doc: Option<TokenStream>) -> WireParam {
    let (wire_name, name_span) = match &config.rename {
        Some(lit) => (lit.value(), lit.span()),
        None => (binding.unraw().to_string(), binding.span()),
    };
    WireParam { binding, wire_name, name_span, ty, config, doc }
}

/// Two parameters sent under one name.
fn check_wire_names(wire: &[WireParam], errors: &mut Errors) {
    for (i, param) in wire.iter().enumerate() {
        if let Some(first) = wire[..i].iter().find(|p| p.wire_name == param.wire_name) {
            errors.push(syn::Error::new(
                param.name_span,
                format!("`{}` is sent as `{}`, and so is `{}`: give one of them another name with `#[param(rename = \"..\")]`", param.binding.unraw(), param.wire_name, first.binding.unraw()),
            ));
        }
    }
}

/// Two parameters mirrored into one HTTP header (header names are case-insensitive).
fn check_headers(wire: &[WireParam], errors: &mut Errors) {
    let header = |param: &WireParam| param.config.header.as_ref().map(|h| (h.value.value(), h.value.span()));
    for (i, param) in wire.iter().enumerate() {
        let Some((name, span)) = header(param) else { continue };
        let first = wire[..i].iter().find(|p| header(p).is_some_and(|(other, _)| other.eq_ignore_ascii_case(&name)));
        if let Some(first) = first {
            errors.push(syn::Error::new(
                span,
                format!(
                    "`{}` is mirrored into the header `Mcp-Param-{name}`, and so is `{}` (header names ignore case): \
                     give one of them another `header`",
                    param.wire_name, first.wire_name
                ),
            ));
        }
    }
}

/// Each `example(..)` names only parameters, and every parameter the call needs. A parameter
/// suggested for a mistyped key is not reported missing too: the one fix is the key's.
fn check_examples(config: &ToolConfig, wire: &[WireParam], errors: &mut Errors) {
    let names: Vec<&str> = wire.iter().map(|p| p.wire_name.as_str()).collect();
    for example in &config.call_examples {
        let mut suggested = Vec::new();
        for field in &example.fields {
            if names.contains(&field.name.as_str()) {
                continue;
            }
            let renamed = wire.iter().find(|p| p.binding.unraw() == field.name.as_str());
            let message = match (renamed, closest(&field.name, &names), names.as_slice()) {
                (Some(param), ..) => {
                    suggested.push(param.wire_name.as_str());
                    format!("`{}` is sent as `{}`: write `{} = ..`", field.name, param.wire_name, param.wire_name)
                }
                (None, _, []) => {
                    format!("`{}` is not a parameter: this tool takes none, so its example is `example()`", field.name)
                }
                (None, Some(best), _) => {
                    suggested.push(best);
                    format!("`{}` is not a parameter of this tool: did you mean `{best}`?", field.name)
                }
                (None, None, _) => format!(
                    "`{}` is not a parameter of this tool; its parameters are {}",
                    field.name,
                    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
            };
            errors.push(syn::Error::new(field.span, message));
        }
        for param in wire.iter().filter(|p| required(p)) {
            let name = param.wire_name.as_str();
            if !suggested.contains(&name) && !example.fields.iter().any(|f| f.name == name) {
                errors.push(syn::Error::new(
                    example.span,
                    format!("the example leaves out `{name}`, which every call needs: add `{name} = ..`"),
                ));
            }
        }
    }
}

/// Whether a call must send `param`: it has no default and, as written, is no `Option`.
fn required(param: &WireParam) -> bool {
    let optional = match &param.ty {
        Type::Path(path) => path.path.segments.last().is_some_and(|s| s.ident == "Option"),
        _ => false,
    };
    param.config.default.is_none() && !optional
}

fn tool_name(config: &ToolConfig, default_name: &str, span: Span, errors: &mut Errors) -> String {
    let (name, span) = match &config.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (default_name.to_owned(), span),
    };
    if let Some(problem) = name_problem(&name) {
        let fix = if config.name.is_some() { "" } else { "; set one with `#[tool(name = \"..\")]`" };
        errors.push(syn::Error::new(span, format!("invalid tool name `{name}`: {problem}{fix}")));
    }
    name
}

fn description(
    config: &ToolConfig,
    docs: Option<TokenStream>,
    span: Span,
    ident: &Ident,
    errors: &mut Errors,
) -> Description {
    if let Some(lit) = &config.description {
        if lit.value().trim().is_empty() {
            errors.push(syn::Error::new(lit.span(), "the description is empty: say what the tool does, for the model"));
        }
        return Description { tokens: quote!(#lit), from_docs: false };
    }
    match docs {
        Some(tokens) => Description { tokens, from_docs: true },
        None => {
            errors.push(syn::Error::new(
                span,
                format!("the tool `{ident}` has no description: add a doc comment (`/// What it does.`) above it, or `#[tool(description = \"..\")]`"),
            ));
            Description { tokens: quote!(""), from_docs: false }
        }
    }
}
