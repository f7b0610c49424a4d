//! Validation and expansion of the two forms: `#[tool] fn` and `#[tool] struct`.
//!
//! The expansion is small: static declaration data and one `DeclaredTool` impl whose methods
//! call into `__private`. Extraction, schemas and defaults handling live in the runtime.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, ItemStruct, Pat, Path, ReturnType, Type};

use crate::attrs::{json_string, DefaultValue, ParamAttrs, ToolAttrs};
use crate::docs::{doc_text, strip_ours};
use crate::errors::Errors;

/// The widest tuple `WireArgs` is implemented for in the runtime; a tool with more parameters
/// is declared as a tree of `Wide` over tuples this wide.
const TUPLE_WIDTH: usize = 16;

/// One parameter the model sends.
struct WireParam {
    binding: Ident,
    wire_name: String,
    name_span: Span,
    ty: Type,
    attrs: ParamAttrs,
    doc: Option<TokenStream>,
}

/// One value the executor injects (`&T`).
struct Injected {
    inner: Type,
}

enum CallArg {
    Wire(Ident),
    Injected(usize),
}

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attrs = ToolAttrs::parse(attr, &mut errors);
    let item: syn::Item = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            let error = e.to_compile_error();
            return quote!(#item #error);
        }
    };
    match item {
        syn::Item::Fn(f) => expand_fn(attrs, f, errors),
        syn::Item::Struct(s) => expand_struct(attrs, s, errors),
        syn::Item::Impl(i) => expand_impl(attrs, i, errors),
        other => {
            errors.push(syn::Error::new(
                item_keyword_span(&other),
                "`#[tool]` goes on a function (`#[tool] async fn search(..)`), on a struct with named fields (`#[tool] struct Search { .. }` plus `impl ToolRun`), or on an impl block whose `#[tool]` methods keep state per conversation",
            ));
            let compile_errors = errors.to_compile_errors();
            quote!(#other #compile_errors)
        }
    }
}

fn item_keyword_span(item: &syn::Item) -> Span {
    match item {
        syn::Item::Enum(e) => e.enum_token.span,
        syn::Item::Impl(i) => i.impl_token.span,
        syn::Item::Trait(t) => t.trait_token.span,
        syn::Item::Mod(m) => m.mod_token.span,
        syn::Item::Union(u) => u.union_token.span,
        other => other.span(),
    }
}

fn krate(attrs: &ToolAttrs) -> Path {
    attrs.krate.clone().unwrap_or_else(|| syn::parse_quote!(::tool_core))
}

/// A `#[tool]` method of an impl block: the type whose instance it runs on.
struct Method<'a> {
    self_ty: &'a Type,
    type_ident: &'a Ident,
}

fn expand_fn(attrs: ToolAttrs, func: ItemFn, errors: Errors) -> TokenStream {
    let (func, declared) = expand_callable(attrs, func, errors, None);
    quote!(#func #declared)
}

/// A function or method tool: the item as it stays, and the declaration that goes beside it
/// (beside the impl block, for a method).
fn expand_callable(
    attrs: ToolAttrs,
    mut func: ItemFn,
    mut errors: Errors,
    method: Option<&Method>,
) -> (TokenStream, TokenStream) {
    let krate = krate(&attrs);
    if let Some((span, key)) = attrs.impl_key() {
        errors.push(syn::Error::new(span, format!("`{key}` applies to `#[tool]` on an impl block of tool methods, where it sets up the per-conversation instance; remove it here")));
    }
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
    match (attrs.blocking, attrs.inline, sig.asyncness.is_some()) {
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

    let in_impl = sig.receiver().is_some() || method.is_some();
    let mut exclusive = false;
    let mut wire: Vec<WireParam> = Vec::new();
    let mut injected: Vec<Injected> = Vec::new();
    let mut call_args: Vec<CallArg> = Vec::new();
    let fn_docs = doc_text(&func.attrs);
    for (position, input) in sig.inputs.iter().enumerate() {
        let pat_type = match input {
            FnArg::Receiver(receiver) => {
                if method.is_none() {
                    errors.push(syn::Error::new_spanned(
                        receiver,
                        "`self` is not a tool parameter: to keep state per conversation, put `#[tool]` on the impl block too (`#[tool] impl Counter { #[tool] fn add(&mut self, ..) }`); otherwise move the body into a free function",
                    ));
                } else if receiver.reference.is_none() || receiver.colon_token.is_some() {
                    errors.push(syn::Error::new_spanned(
                        receiver,
                        "a tool method takes `&self` or `&mut self`: the instance belongs to its conversation, so one call cannot take it",
                    ));
                } else {
                    exclusive = receiver.mutability.is_some();
                }
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        let param_attrs = ParamAttrs::parse(&pat_type.attrs, &mut errors);
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
                if !param_attrs.is_empty() {
                    errors.push(syn::Error::new_spanned(
                        pat_type.attrs.iter().find(|a| a.path().is_ident("param")),
                        format!("`#[param]` applies to parameters the model sends; `{binding}` is taken by reference, so the executor injects it"),
                    ));
                }
                call_args.push(CallArg::Injected(injected.len()));
                injected.push(Injected { inner: (*reference.elem).clone() });
            }
            ty => {
                let (wire_name, name_span) = match &param_attrs.rename {
                    Some(lit) => (lit.value(), lit.span()),
                    None => (binding.unraw().to_string(), binding.span()),
                };
                call_args.push(CallArg::Wire(binding.clone()));
                wire.push(WireParam {
                    binding,
                    wire_name,
                    name_span,
                    ty: ty.clone(),
                    doc: doc_text(&pat_type.attrs),
                    attrs: param_attrs,
                });
            }
        }
    }
    check_wire_params(&wire, &mut errors);

    // The return type, checked once (at the type) for `IntoToolOutput`.
    let return_ty: TokenStream = match &sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => {
            if contains_impl_trait(ty) {
                errors.push(syn::Error::new_spanned(ty, "a tool must return a concrete type (`String`, `Json<T>`, `Result<T, ToolError>`, ..), not `impl Trait`"));
            }
            checked(ty, &quote!(#krate::__private::assert_output::<#ty>()), &krate)
        }
    };

    // The item as the user wrote it, minus what the compiler must not see.
    for input in &mut func.sig.inputs {
        if let FnArg::Typed(pat_type) = input {
            strip_ours(&mut pat_type.attrs, false);
        }
    }
    if !wire.is_empty() {
        // Parameters must be owned (`String`, not `&str`): they are extracted from the model's
        // arguments and moved into the call. Clippy cannot know that.
        func.attrs.push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
    }
    let fn_ident = func.sig.ident.clone();
    let vis = func.vis.clone();
    let (ident, default_name, companion_doc) = match method {
        None => (
            fn_ident.clone(),
            snake_case(&fn_ident.unraw().to_string()),
            format!(
                "The `#[tool]` declaration of [`{fn_ident}()`], for `CatalogBuilder::add_declared::<{fn_ident}>()`."
            ),
        ),
        Some(method) => {
            let ident = format_ident!("{}_{}", method.type_ident, fn_ident.unraw(), span = fn_ident.span());
            let name = format!("{}.{}", snake_case(&method.type_ident.unraw().to_string()), fn_ident.unraw());
            let doc = format!(
                "The `#[tool]` declaration of [`{}::{fn_ident}()`], for `CatalogBuilder::add_declared::<{ident}>()`.",
                method.type_ident
            );
            (ident, name, doc)
        }
    };
    let name = tool_name(&attrs, &default_name, fn_ident.span(), &mut errors);
    let description = description(&attrs, fn_docs, fn_ident.span(), &fn_ident, &mut errors);

    let companion = quote_spanned! {ident.span()=>
        #[doc = #companion_doc]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
        #vis struct #ident {}
    };

    if !errors.is_empty() {
        let compile_errors = errors.to_compile_errors();
        if in_impl && method.is_none() {
            // A method of a plain impl block: a companion struct or a `const _` is not allowed
            // where it stands.
            return (quote!(#func #compile_errors), TokenStream::new());
        }
        let stub = stub_impl(&ident, &krate);
        return (quote!(#func), quote!(#companion #compile_errors #stub));
    }

    // The values are bound to names of their own, so that a parameter named like the function
    // (`fn triage(triage: Triage)`) cannot shadow it at the call.
    let wire_var = |i: usize| format_ident!("__tool_arg_{}", i, span = Span::mixed_site());
    let injected_var = |i: usize| format_ident!("__tool_injected_{}", i, span = Span::mixed_site());
    let bindings: Vec<Ident> = (0..wire.len()).map(wire_var).collect();
    let injections = injected.iter().enumerate().map(|(i, inj)| {
        let (binding, inner) = (injected_var(i), &inj.inner);
        quote_spanned! {inner.span()=>
            let #binding = <#inner as #krate::__private::FromContext>::from_context(&__ctx)?;
        }
    });
    let args = call_args.iter().map(|a| match a {
        CallArg::Wire(binding) => {
            let position = wire.iter().position(|p| &p.binding == binding).unwrap_or_default();
            let var = wire_var(position);
            quote!(#var)
        }
        CallArg::Injected(i) => {
            let var = injected_var(*i);
            quote!(#var)
        }
    });
    let call = match method {
        None => quote!(#fn_ident(#(#args),*)),
        Some(method) => {
            let self_ty = method.self_ty;
            let this = if exclusive { quote!(&mut *__this) } else { quote!(&*__this) };
            quote!(<#self_ty>::#fn_ident(#this, #(#args),*))
        }
    };
    // A sync body runs on the blocking pool unless it is `inline`: there the time limit and
    // cancellation end the call when the body does not return, and the async workers stay
    // free. The injected values are borrowed from the context moved in with it.
    let pooled = func.sig.asyncness.is_none() && attrs.inline.is_none();
    let body = if pooled {
        quote! {
            #krate::__private::Box::pin(#krate::__private::run_blocking(move || -> #krate::__private::ToolResult {
                #(#injections)*
                let output: #return_ty = #call;
                #krate::__private::IntoToolOutput::into_output(output)
            }))
        }
    } else {
        let awaited = if func.sig.asyncness.is_some() { quote!(#call.await) } else { call };
        quote! {
            #krate::__private::Box::pin(async move {
                #(#injections)*
                let output: #return_ty = #awaited;
                #krate::__private::IntoToolOutput::into_output(output)
            })
        }
    };
    let invoke_body = if let Some(method) = method {
        let self_ty = method.self_ty;
        let (run, this) =
            if exclusive { (quote!(run_exclusive), quote!(mut __this)) } else { (quote!(run_shared), quote!(__this)) };
        quote! {
            #krate::__private::#run::<#self_ty, _>(__ctx, __turn, move |__ctx, #this| #body)
        }
    } else {
        body
    };
    let pattern = wire_tree(&bindings, |b| quote!(#b), &krate, true);
    let invoke = quote! {
        let #pattern = args;
        #invoke_body
    };
    let output_schema = quote!(<#return_ty as #krate::__private::IntoToolOutput>::output_schema(generator));
    let reserve = match method {
        None => TokenStream::new(),
        Some(method) => {
            let self_ty = method.self_ty;
            quote! {
                const STATEFUL: bool = true;

                fn reserve(request: &#krate::__private::ToolCallRequest) -> #krate::__private::Turn {
                    #krate::__private::reserve::<#self_ty>(request)
                }
            }
        }
    };
    let declared = declared_impl(&ident, &krate, &attrs, &name, &description, &wire, &output_schema, &invoke, &reserve);
    (quote!(#func), quote!(#companion #declared))
}

/// `#[tool]` on an impl block: its `#[tool]` methods become tools that run on one instance of
/// the type per conversation, which this implements `ConversationState` for.
fn expand_impl(attrs: ToolAttrs, mut item: syn::ItemImpl, mut errors: Errors) -> TokenStream {
    let krate = krate(&attrs);
    if let Some((span, key)) = attrs.tool_key() {
        errors.push(syn::Error::new(span, format!("`{key}` belongs to a tool: on an impl block, `#[tool]` takes `new`, `create`, `cleanup`, `idle_timeout_ms` and `max_instances`; put `{key}` in the method's `#[tool(..)]`")));
    }
    if let Some((_, path, _)) = &item.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "`#[tool]` goes on an inherent impl block (`impl Counter { .. }`), not on a trait impl",
        ));
    }
    if let Some(param) = item.generics.params.first() {
        errors.push(syn::Error::new_spanned(param, "a type whose methods are tools cannot be generic: each tool's schema and state must be known; use a concrete type"));
    }
    let self_ty = (*item.self_ty).clone();
    let type_ident = match &self_ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    };
    let Some(type_ident) = type_ident else {
        errors.push(syn::Error::new_spanned(
            &self_ty,
            "`#[tool]` goes on the impl block of a named type (`impl Counter { .. }`)",
        ));
        let compile_errors = errors.to_compile_errors();
        return quote!(#item #compile_errors);
    };
    let method_context = Method { self_ty: &self_ty, type_ident: &type_ident };
    let mut beside = TokenStream::new();
    let mut tools = 0;
    for impl_item in &mut item.items {
        let syn::ImplItem::Fn(method) = impl_item else { continue };
        let Some(position) = method.attrs.iter().position(|a| a.path().is_ident("tool")) else { continue };
        let attr = method.attrs.remove(position);
        let mut method_errors = Errors::default();
        let tokens = match attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(list) => list.tokens,
            syn::Meta::NameValue(value) => {
                method_errors.push(syn::Error::new_spanned(value, "write `#[tool]` or `#[tool(name = \"..\")]`"));
                TokenStream::new()
            }
        };
        let method_attrs = ToolAttrs::parse(tokens, &mut method_errors);
        let func = ItemFn {
            attrs: std::mem::take(&mut method.attrs),
            vis: method.vis.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let (func, declared) = expand_callable(method_attrs, func, method_errors, Some(&method_context));
        *impl_item = syn::ImplItem::Verbatim(func);
        beside.extend(declared);
        tools += 1;
    }
    if tools == 0 {
        errors.push(syn::Error::new(
            item.impl_token.span,
            "`#[tool]` on an impl block collects the methods marked `#[tool]`, and this block has none: mark each tool method with `#[tool]`",
        ));
    }
    if let (Some(new), Some(create)) = (attrs.new, &attrs.create) {
        errors.push(syn::Error::new(
            new,
            format!("the instance is made either by `Self::new()` (`new`) or by `{create}` (`create`): keep one"),
        ));
    }
    let compile_errors = errors.to_compile_errors();
    let create = match (&attrs.create, attrs.new) {
        (Some(create), _) => quote!(#krate::__private::created(<#self_ty>::#create(ctx).await)),
        (None, Some(new)) => quote_spanned!(new=> ::core::result::Result::Ok(<#self_ty>::new())),
        (None, None) => quote_spanned! {self_ty.span()=>
            ::core::result::Result::Ok(<#self_ty as #krate::__private::DefaultState>::make())
        },
    };
    let cleanup = attrs.cleanup.as_ref().map(|cleanup| {
        quote! {
            fn cleanup(&mut self) -> impl ::core::future::Future<Output = ()> + ::core::marker::Send {
                <#self_ty>::#cleanup(self)
            }
        }
    });
    let limit = |lit: &Option<syn::LitInt>, make: TokenStream| match lit {
        Some(lit) => quote!(::core::option::Option::Some(#make(#lit))),
        None => quote!(::core::option::Option::None),
    };
    let idle = limit(&attrs.idle_timeout_ms, quote!(::core::time::Duration::from_millis));
    let max = limit(&attrs.max_instances, quote!(::core::convert::identity));
    quote! {
        #item
        #compile_errors
        const _: () = {
            #[automatically_derived]
            impl #krate::__private::ConversationState for #self_ty {
                #[allow(unused_variables)]
                fn create(ctx: &#krate::__private::ToolContext) -> impl ::core::future::Future<Output = ::core::result::Result<Self, #krate::__private::ToolError>> + ::core::marker::Send {
                    async move { #create }
                }

                #cleanup

                fn limits() -> #krate::__private::StateLimits {
                    #krate::__private::StateLimits { idle_timeout: #idle, max_instances: #max }
                }
            }
        };
        #beside
    }
}

fn expand_struct(attrs: ToolAttrs, mut item: ItemStruct, mut errors: Errors) -> TokenStream {
    let krate = krate(&attrs);
    let ident = item.ident.clone();
    let generic = item.generics.params.first().cloned();
    if let Some(param) = &generic {
        errors.push(syn::Error::new_spanned(
            param,
            "a tool struct cannot be generic: its field types must be concrete so its schema is known; replace the type parameter with a concrete type",
        ));
    }
    if let Some(blocking) = attrs.blocking {
        errors.push(syn::Error::new(blocking, "`blocking` applies to sync functions; a struct tool's `ToolRun::run` is async, so use `tokio::task::spawn_blocking` inside it"));
    }
    if let Some(inline) = attrs.inline {
        errors.push(syn::Error::new(inline, "`inline` applies to sync functions; a struct tool's `ToolRun::run` is async and runs on the async worker anyway: remove `inline`"));
    }
    let mut wire = Vec::new();
    match &mut item.fields {
        syn::Fields::Named(fields) => {
            for field in &mut fields.named {
                let param_attrs = ParamAttrs::parse(&field.attrs, &mut errors);
                let Some(binding) = field.ident.clone() else { continue };
                if let Type::ImplTrait(impl_trait) = &field.ty {
                    errors.push(syn::Error::new_spanned(
                        impl_trait,
                        "`impl Trait` cannot be a tool parameter: use a concrete type",
                    ));
                }
                let (wire_name, name_span) = match &param_attrs.rename {
                    Some(lit) => (lit.value(), lit.span()),
                    None => (binding.unraw().to_string(), binding.span()),
                };
                wire.push(WireParam {
                    binding,
                    wire_name,
                    name_span,
                    ty: field.ty.clone(),
                    doc: doc_text(&field.attrs),
                    attrs: param_attrs,
                });
                strip_ours(&mut field.attrs, true);
            }
        }
        syn::Fields::Unnamed(fields) => {
            errors.push(syn::Error::new_spanned(fields, "a tool struct needs named fields, because each field name is a key in the arguments: write `struct Search { query: String }`"));
        }
        syn::Fields::Unit => {
            errors.push(syn::Error::new_spanned(
                &item.ident,
                "a tool struct needs braces, even with no parameters: write `struct Ping {}`",
            ));
        }
    }
    check_wire_params(&wire, &mut errors);
    let default_name = snake_case(&ident.unraw().to_string());
    let name = tool_name(&attrs, &default_name, ident.span(), &mut errors);
    let description = description(&attrs, doc_text(&item.attrs), ident.span(), &ident, &mut errors);

    if !errors.is_empty() {
        let compile_errors = errors.to_compile_errors();
        let stub = if generic.is_none() { stub_impl(&ident, &krate) } else { TokenStream::new() };
        return quote!(#item #compile_errors #stub);
    }

    let bindings: Vec<&Ident> = wire.iter().map(|p| &p.binding).collect();
    // The struct, checked once (at its name) for its `impl ToolRun`; the rest goes through
    // generic helpers, so an `Output` that is not a tool output is reported once, in that impl.
    let this = ident.to_token_stream();
    let run = checked(&ident, &quote_spanned!(ident.span()=> #krate::__private::assert_tool_run::<#this>()), &krate);
    let pattern = wire_tree(&bindings, |b| quote!(#b), &krate, true);
    let invoke = quote! {
        let #pattern = args;
        let value: #run = #ident { #(#bindings),* };
        #krate::__private::run_struct(value, __ctx)
    };
    let output_schema = quote!(#krate::__private::struct_output_schema::<#run>(generator));
    let declared =
        declared_impl(&ident, &krate, &attrs, &name, &description, &wire, &output_schema, &invoke, &TokenStream::new());
    quote! {
        #item
        #declared
    }
}

/// The wire parameters as `WireArgs` sees them: one tuple of up to [`TUPLE_WIDTH`], or a
/// balanced tree of `Wide` (`pattern`, else the type) or of pairs (neither: the defaults) over
/// tuples of that width, so that reaching a parameter takes a few comparisons at any width.
fn wire_tree<T>(items: &[T], each: impl Fn(&T) -> TokenStream + Copy, krate: &Path, pattern: bool) -> TokenStream {
    wire_tree_as(items, each, &|front, back| {
        if pattern {
            quote!(#krate::__private::Wide(#front, #back))
        } else {
            quote!(#krate::__private::Wide<#front, #back>)
        }
    })
}

fn wire_tree_as<T>(
    items: &[T],
    each: impl Fn(&T) -> TokenStream + Copy,
    join: &dyn Fn(TokenStream, TokenStream) -> TokenStream,
) -> TokenStream {
    if items.len() <= TUPLE_WIDTH {
        let each = items.iter().map(each);
        return quote!((#(#each,)*));
    }
    // Split at a multiple of the tuple width, so that every tuple but the last is full.
    let tuples = items.len().div_ceil(TUPLE_WIDTH);
    let (front, back) = items.split_at(tuples / 2 * TUPLE_WIDTH);
    join(wire_tree_as(front, each, join), wire_tree_as(back, each, join))
}

/// Duplicate wire names.
fn check_wire_params(wire: &[WireParam], errors: &mut Errors) {
    for (i, param) in wire.iter().enumerate() {
        if let Some(first) = wire[..i].iter().find(|p| p.wire_name == param.wire_name) {
            errors.push(syn::Error::new(
                param.name_span,
                format!("`{}` is sent as `{}`, and so is `{}`: give one of them another name with `#[param(rename = \"..\")]`", param.binding.unraw(), param.wire_name, first.binding.unraw()),
            ));
        }
    }
}

fn tool_name(attrs: &ToolAttrs, default_name: &str, span: Span, errors: &mut Errors) -> String {
    let (name, span) = match &attrs.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (default_name.to_owned(), span),
    };
    if let Some(problem) = name_problem(&name) {
        let fix = if attrs.name.is_some() { "" } else { "; set one with `#[tool(name = \"..\")]`" };
        errors.push(syn::Error::new(span, format!("invalid tool name `{name}`: {problem}{fix}")));
    }
    name
}

/// Why `name` does not match `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`.
fn name_problem(name: &str) -> Option<String> {
    let Some(first) = name.chars().next() else { return Some("it is empty".to_owned()) };
    if !(first.is_ascii_alphabetic() || first == '_') {
        return Some("it must start with an ASCII letter or `_`".to_owned());
    }
    if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))) {
        let bad = if bad.is_whitespace() { "spaces are".to_owned() } else { format!("`{bad}` is") };
        return Some(format!("{bad} not allowed; use ASCII letters, digits, `_`, `.` and `-`"));
    }
    if name.len() > 64 {
        return Some(format!("it is {} characters long; the limit is 64", name.len()));
    }
    None
}

/// The description tokens and whether they are doc text.
fn description(
    attrs: &ToolAttrs,
    docs: Option<TokenStream>,
    span: Span,
    ident: &Ident,
    errors: &mut Errors,
) -> (TokenStream, bool) {
    if let Some(lit) = &attrs.description {
        if lit.value().trim().is_empty() {
            errors.push(syn::Error::new(lit.span(), "the description is empty: say what the tool does, for the model"));
        }
        return (quote!(#lit), false);
    }
    match docs {
        Some(docs) => (docs, true),
        None => {
            errors.push(syn::Error::new(
                span,
                format!("the tool `{ident}` has no description: add a doc comment (`/// What it does.`) above it, or `#[tool(description = \"..\")]`"),
            ));
            (quote!(""), false)
        }
    }
}

/// The `DeclaredTool` impl and the registration shared by both forms.
#[allow(clippy::too_many_arguments)]
fn declared_impl(
    ident: &Ident,
    krate: &Path,
    attrs: &ToolAttrs,
    name: &str,
    (description, from_docs): &(TokenStream, bool),
    wire: &[WireParam],
    output_schema: &TokenStream,
    invoke: &TokenStream,
    reserve: &TokenStream,
) -> TokenStream {
    let args = wire_tree(
        wire,
        |p| {
            let ty = &p.ty;
            checked(ty, &quote!(#krate::__private::assert_param::<#ty>()), krate)
        },
        krate,
        false,
    );
    let params = wire.iter().map(|p| param_declaration(p, krate));
    let param_names = wire.iter().map(|p| &p.wire_name);
    // No parameters: an empty body, since `{ () }` trips `clippy::unused_unit` in user crates.
    let defaults = if wire.is_empty() {
        TokenStream::new()
    } else {
        wire_tree_as(wire, default_tokens, &|front, back| quote!((#front, #back)))
    };
    let assertions = wire.iter().map(|p| assertions(p, krate));
    let tags = attrs.tags.iter().flatten();
    let examples = attrs.examples.iter().flatten();
    let opt = |v: &Option<syn::LitStr>| match v {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    };
    let (category, version) = (opt(&attrs.category), opt(&attrs.version));
    let strict = attrs.strict.is_some();
    let timeout = match &attrs.timeout_ms {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    };
    let annotations = attrs.annotations.as_ref().map_or_else(|| quote!(#krate::__private::AnnotationsDeclaration { title: ::core::option::Option::None, read_only: ::core::option::Option::None, destructive: ::core::option::Option::None, idempotent: ::core::option::Option::None, open_world: ::core::option::Option::None }), |a| a.tokens(krate));
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #krate::__private::DeclaredTool for #ident {
                type Args = #args;

                fn entry() -> &'static #krate::__private::StaticTool {
                    static TOOL: #krate::__private::StaticTool = #krate::__private::StaticTool::new::<#ident>();
                    &TOOL
                }

                fn declaration() -> &'static #krate::__private::Declaration {
                    static DECLARATION: #krate::__private::Declaration = #krate::__private::Declaration {
                        name: #name,
                        description: #description,
                        description_from_docs: #from_docs,
                        parameters: &[#(#params),*],
                        param_names: &[#(#param_names),*],
                        tags: &[#(#tags),*],
                        category: #category,
                        version: #version,
                        examples: &[#(#examples),*],
                        annotations: #annotations,
                        timeout_ms: #timeout,
                        strict: #strict,
                        file: ::core::file!(),
                        line: ::core::line!(),
                    };
                    &DECLARATION
                }

                fn defaults() -> <Self::Args as #krate::__private::WireArgs>::Defaults {
                    #defaults
                }

                fn output_schema(generator: &mut #krate::__private::SchemaGenerator) -> ::core::option::Option<#krate::__private::Schema> {
                    #output_schema
                }

                fn invoke(args: Self::Args, __ctx: #krate::__private::ToolContext, __turn: #krate::__private::Turn) -> #krate::__private::BoxFuture<'static, #krate::__private::ToolResult> {
                    #invoke
                }

                #reserve
            }

            const _: () = {
                #(#assertions)*
            };

            #krate::__private::inventory::submit! {
                #krate::__private::Registration::new(<#ident as #krate::__private::DeclaredTool>::tool)
            }
        };
    }
}

fn param_declaration(p: &WireParam, krate: &Path) -> TokenStream {
    let name = &p.wire_name;
    let description = match (&p.attrs.description, &p.doc) {
        (Some(lit), _) => quote!(#lit),
        (None, Some(doc)) => doc.clone(),
        (None, None) => quote!(""),
    };
    let example = match &p.attrs.example {
        Some(json) => quote!(::core::option::Option::Some(#json)),
        None => quote!(::core::option::Option::None),
    };
    let default = match p.attrs.default.as_ref().map(|d| &d.value) {
        Some(DefaultValue::Expr(_, Some(json))) => quote!(::core::option::Option::Some(#json)),
        _ => quote!(::core::option::Option::None),
    };
    let constraints = p.attrs.constraints().into_iter().map(|(k, v)| quote!((#k, #v)));
    let case_sensitive = p.attrs.case_sensitive.is_some();
    let strict = p.attrs.strict.is_some();
    quote! {
        #krate::__private::ParamDeclaration {
            name: #name,
            description: #description,
            example: #example,
            default: #default,
            constraints: &[#(#constraints),*],
            case_sensitive: #case_sensitive,
            strict: #strict,
        }
    }
}

fn default_tokens(p: &WireParam) -> TokenStream {
    let ty = &p.ty;
    match p.attrs.default.as_ref().map(|d| (&d.value, d.span)) {
        None => quote!(::core::option::Option::None),
        Some((DefaultValue::Trait, span)) => {
            // At the `default` key: that is what needs `Default`.
            let key_ty = respan(ty.to_token_stream(), span);
            quote_spanned!(span=> ::core::option::Option::Some(<#key_ty as ::core::default::Default>::default))
        }
        Some((DefaultValue::Expr(expr, _), _)) => {
            quote_spanned!(expr.span()=> ::core::option::Option::Some(|| -> #ty { #expr }))
        }
    }
}

/// `<[T; assert::<T>()] as Checked>::Param`: `T` when the assertion holds; otherwise the one
/// error of the assertion, at `T`, and an error type that silences every later use of `T`.
fn checked(ty: &impl ToTokens, assertion: &TokenStream, krate: &Path) -> TokenStream {
    quote_spanned!(ty.span()=> <[#ty; #assertion] as #krate::__private::Checked>::Param)
}

/// Compile-time checks of the constraint keys, each spanned at its key. (Whether the type can
/// be a parameter at all is checked in `type Args`, see [`checked`].)
fn assertions(p: &WireParam, krate: &Path) -> TokenStream {
    let mut out = TokenStream::new();
    let keys = [
        (p.attrs.range.as_ref().map(|r| r.span), quote!(assert_numeric)),
        (p.attrs.length.as_ref().map(|l| l.span), quote!(assert_text)),
        (p.attrs.pattern.as_ref().map(|l| l.span), quote!(assert_text)),
    ];
    for (span, assert) in keys {
        if let Some(span) = span {
            let ty = respan(p.ty.to_token_stream(), span);
            out.extend(quote_spanned!(span=> #krate::__private::#assert::<#ty>();));
        }
    }
    out
}

/// `tokens` moved to `span` for error locations (name resolution is unchanged).
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(group.span().located_at(span));
                tree = TokenTree::Group(inner);
            } else {
                tree.set_span(tree.span().located_at(span));
            }
            tree
        })
        .collect()
}

/// On error: a `DeclaredTool` impl with no parameters, so uses elsewhere in the crate do not
/// pile up follow-on errors. The crate does not compile anyway (the errors are emitted too).
fn stub_impl(ident: &Ident, krate: &Path) -> TokenStream {
    let description = json_string("");
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #krate::__private::DeclaredTool for #ident {
                type Args = ();
                fn entry() -> &'static #krate::__private::StaticTool {
                    static TOOL: #krate::__private::StaticTool = #krate::__private::StaticTool::new::<#ident>();
                    &TOOL
                }
                fn declaration() -> &'static #krate::__private::Declaration {
                    static DECLARATION: #krate::__private::Declaration = #krate::__private::Declaration {
                        name: ::core::stringify!(#ident), description: #description, description_from_docs: false, parameters: &[], param_names: &[], tags: &[],
                        category: ::core::option::Option::None, version: ::core::option::Option::None, examples: &[], timeout_ms: ::core::option::Option::None, strict: false, file: ::core::file!(), line: ::core::line!(),
                        annotations: #krate::__private::AnnotationsDeclaration { title: ::core::option::Option::None, read_only: ::core::option::Option::None, destructive: ::core::option::Option::None, idempotent: ::core::option::Option::None, open_world: ::core::option::Option::None },
                    };
                    &DECLARATION
                }
                fn defaults() {}
                fn output_schema(_: &mut #krate::__private::SchemaGenerator) -> ::core::option::Option<#krate::__private::Schema> { ::core::option::Option::None }
                fn invoke(_: (), _: #krate::__private::ToolContext, _: #krate::__private::Turn) -> #krate::__private::BoxFuture<'static, #krate::__private::ToolResult> {
                    #krate::__private::Box::pin(async { #krate::__private::Err(#krate::__private::ToolError::new("this tool's declaration has compile errors")) })
                }
            }
        };
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

/// `CheckAvailability` → `check_availability`, `HTTPServer` → `http_server`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                Some('_') => false,
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(|n| n.is_lowercase()),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_names_become_snake_case() {
        assert_eq!(snake_case("CheckAvailability"), "check_availability");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("Parse2Json"), "parse2_json");
        assert_eq!(snake_case("memory_search"), "memory_search");
        assert_eq!(snake_case("A"), "a");
    }

    #[test]
    fn names_are_checked_against_the_pattern() {
        assert_eq!(name_problem("memory.search"), None);
        assert!(name_problem("9lives").unwrap().contains("start"));
        assert!(name_problem("a b").unwrap().contains("spaces"));
        assert!(name_problem("a!").unwrap().contains("`!`"));
        assert!(name_problem(&"a".repeat(65)).unwrap().contains("65"));
        assert_eq!(name_problem("").as_deref(), Some("it is empty"));
    }
}
