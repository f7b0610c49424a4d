//! A function or method tool: its signature judged (the body is never looked at), its
//! parameters sorted into what the model sends and what the executor injects.

use quote::format_ident;
use syn::ext::IdentExt as _;
use syn::{FnArg, Ident, Pat, Path, ReturnType, Type};

use super::keys::{param_config, ToolConfig};
use super::{
    check_examples, check_headers, check_wire_names, description, krate, tool_name, wire_param, CallArg, Callable,
    Companion, MethodOf,
};
use crate::docs::{doc_text, strip_ours};
use crate::errors::Errors;
use crate::names::snake_case;
use crate::parse::{param_entries, ItemFn};

/// The impl block a `#[tool]` method belongs to.
pub struct Owner<'a> {
    pub self_ty: &'a Type,
    pub type_ident: Option<&'a Ident>,
    /// The block's `crate` key, which its methods inherit.
    pub krate: Option<&'a Path>,
    /// The block's `shared_state` key.
    pub stored: bool,
}

pub fn validate(config: ToolConfig, mut func: ItemFn, owner: Option<&Owner>, errors: &mut Errors) -> Callable {
    let krate = krate(config.krate.as_ref().or(owner.and_then(|o| o.krate)));
    check_signature(&func, &config, errors);

    let mut exclusive = false;
    let mut wire = Vec::new();
    let mut injected = Vec::new();
    let mut call_args = Vec::new();
    for (position, input) in func.sig.inputs.iter_mut().enumerate() {
        let pat_type = match input {
            FnArg::Receiver(receiver) => {
                if owner.is_none() {
                    errors.push(syn::Error::new_spanned(
                        &*receiver,
                        "`self` is not a tool parameter: to keep state per conversation, put `#[tool]` on the impl block too (`#[tool] impl Counter { #[tool] fn add(&mut self, ..) }`); otherwise move the body into a free function",
                    ));
                } else if receiver.reference.is_none() || receiver.colon_token.is_some() {
                    errors.push(syn::Error::new_spanned(
                        &*receiver,
                        "a tool method takes `&self` or `&mut self`: the instance belongs to its conversation, so one call cannot take it",
                    ));
                } else {
                    exclusive = receiver.mutability.is_some();
                }
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        let param = param_config(&param_entries(&pat_type.attrs, errors), errors);
        let doc = doc_text(&pat_type.attrs);
        let param_attr = pat_type.attrs.iter().find(|a| a.path().is_ident("param")).cloned();
        strip_ours(&mut pat_type.attrs, false);
        let binding = match &*pat_type.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
            other => {
                errors.push(syn::Error::new_spanned(other, "a tool parameter needs a plain name, because the name is its key in the arguments: write `point: Point` and destructure inside the body"));
                format_ident!("__arg{}", position)
            }
        };
        match &*pat_type.ty {
            Type::ImplTrait(impl_trait) => {
                errors.push(syn::Error::new_spanned(
                    impl_trait,
                    "`impl Trait` cannot be a tool parameter: its schema must be known, so use a concrete type",
                ));
            }
            Type::Reference(reference) => {
                if let Some(mutability) = &reference.mutability {
                    errors.push(syn::Error::new_spanned(
                        mutability,
                        "injected values are shared references: write `&ToolContext`, not `&mut ToolContext`",
                    ));
                }
                if let Some(attr) = param_attr {
                    errors.push(syn::Error::new_spanned(
                        attr,
                        format!("`#[param]` applies to parameters the model sends; `{binding}` is taken by reference, so the executor injects it"),
                    ));
                }
                call_args.push(CallArg::Injected(injected.len()));
                injected.push((*reference.elem).clone());
            }
            ty => {
                call_args.push(CallArg::Wire(wire.len()));
                wire.push(wire_param(binding, ty.clone(), param, doc));
            }
        }
    }
    check_wire_names(&wire, errors);
    check_headers(&wire, errors);
    check_examples(&config, &wire, errors);

    let fn_ident = func.sig.ident.clone();
    let type_ident = owner.and_then(|o| o.type_ident);
    let in_plain_impl = owner.is_none() && func.sig.receiver().is_some();
    let (ident, default_name, doc) = match type_ident {
        None => (
            fn_ident.clone(),
            snake_case(&fn_ident.unraw().to_string()),
            format!(
                "The `#[tool]` declaration of [`{fn_ident}()`], for `CatalogBuilder::add_declared::<{fn_ident}>()`."
            ),
        ),
        Some(type_ident) => {
            let ident = format_ident!("{}_{}", type_ident, fn_ident.unraw(), span = fn_ident.span());
            let name = format!("{}.{}", snake_case(&type_ident.unraw().to_string()), fn_ident.unraw());
            let doc = format!(
                "The `#[tool]` declaration of [`{type_ident}::{fn_ident}()`], for `CatalogBuilder::add_declared::<{ident}>()`."
            );
            (ident, name, doc)
        }
    };
    // A method whose type has no name, or a method with `self` in a plain impl block: no type
    // can stand beside it.
    let companion = (!in_plain_impl && (owner.is_none() || type_ident.is_some())).then(|| Companion {
        ident,
        vis: func.vis.clone(),
        doc,
    });
    let name = tool_name(&config, &default_name, fn_ident.span(), errors);
    let description = description(&config, doc_text(&func.attrs), fn_ident.span(), &fn_ident, errors);
    let method = owner.map(|o| MethodOf { self_ty: o.self_ty.clone(), exclusive, stored: o.stored });
    Callable { item: func, companion, krate, config, name, description, wire, injected, call_args, method }
}

/// What the signature itself may not be.
fn check_signature(func: &ItemFn, config: &ToolConfig, errors: &mut Errors) {
    let sig = &func.sig;
    if let Some(param) = sig.generics.params.first() {
        errors.push(syn::Error::new_spanned(param, "a tool cannot be generic: its parameter types must be concrete so its schema is known; replace the type parameter with a concrete type"));
    } else if let Some(where_clause) = &sig.generics.where_clause {
        errors.push(syn::Error::new_spanned(
            where_clause,
            "a tool cannot have a `where` clause: remove it and use concrete types, so the schema is known",
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.push(syn::Error::new_spanned(unsafety, "a tool cannot be an `unsafe fn`: the executor calls it with model input; make it safe and keep the `unsafe` block inside"));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(abi, "a tool cannot have an `extern` ABI: remove it"));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new_spanned(variadic, "a tool cannot be variadic"));
    }
    match (config.blocking, config.inline, sig.asyncness.is_some()) {
        (Some(_), Some(inline), _) => errors.push(syn::Error::new(
            inline,
            "`blocking` and `inline` say opposite things: a sync tool runs on the blocking pool unless it is `inline`; keep one",
        )),
        (Some(blocking), None, true) => errors.push(syn::Error::new(
            blocking,
            "`blocking` runs a sync function on the blocking pool; this function is `async`: remove `blocking`",
        )),
        (None, Some(inline), true) => errors.push(syn::Error::new(
            inline,
            "`inline` keeps a sync function on the async worker; this function is `async`, so it runs there anyway: remove `inline`",
        )),
        _ => {}
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        if contains_impl_trait(ty) {
            errors.push(syn::Error::new_spanned(ty, "a tool must return a concrete type (`String`, `Json<T>`, `Result<T, ToolError>`, ..), not `impl Trait`"));
        }
    }
}

fn contains_impl_trait(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Path(path) => path.path.segments.iter().any(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(args) => {
                args.args.iter().any(|a| matches!(a, syn::GenericArgument::Type(t) if contains_impl_trait(t)))
            }
            _ => false,
        }),
        Type::Reference(r) => contains_impl_trait(&r.elem),
        Type::Tuple(t) => t.elems.iter().any(contains_impl_trait),
        _ => false,
    }
}
