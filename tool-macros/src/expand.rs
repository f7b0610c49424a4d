//! Stage 3, expand: a declaration without errors into the item, its companion type and the
//! `DeclaredTool` impl beside it.
//!
//! The expansion is small: static declaration data and one `DeclaredTool` impl whose methods
//! call into `__private`. Extraction, schemas and defaults handling live in the runtime.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, ImplItem, Path, ReturnType};

use crate::validate::{
    Annotations, CallArg, Callable, Companion, DefaultValue, Description, ImplMember, ImplTool, StructTool, Tool,
    ToolConfig, WireParam, WithSpan,
};

/// The widest tuple `WireArgs` is implemented for in the runtime; a tool with more parameters
/// is declared as a tree of `Wide` over tuples this wide.
const TUPLE_WIDTH: usize = 16;

pub fn tool(tool: &Tool) -> TokenStream {
    match tool {
        Tool::Fn(func) => {
            let item = fn_item(func, true);
            let declared = callable(func);
            quote!(#item #declared)
        }
        Tool::Struct(item) => structure(item),
        Tool::Impl(block) => impl_block(block),
        Tool::Other(tokens) => tokens.clone(),
    }
}

/// The function as the compiler gets it. Parameters are owned (`String`, not `&str`): they are
/// extracted from the model's arguments and moved into the call, which clippy cannot know.
pub fn fn_item(func: &Callable, declared: bool) -> TokenStream {
    let item = &func.item;
    if declared && !func.wire.is_empty() {
        quote!(#[allow(clippy::needless_pass_by_value)] #item)
    } else {
        item.to_token_stream()
    }
}

/// The impl block as the compiler gets it, its tool methods as [`fn_item`] gives them.
pub fn impl_item(block: &ImplTool, declared: bool) -> TokenStream {
    let mut item = block.header.clone();
    item.items = block
        .members
        .iter()
        .map(|member| match member {
            ImplMember::Tool(i) => ImplItem::Verbatim(fn_item(&block.methods[*i], declared)),
            ImplMember::Fn(func) => ImplItem::Verbatim(func.to_token_stream()),
            ImplMember::Other(other) => (**other).clone(),
        })
        .collect();
    item.to_token_stream()
}

/// The unit struct the host names to register a function or method tool.
pub fn companion(companion: &Companion) -> TokenStream {
    let Companion { ident, vis, doc } = companion;
    quote_spanned! {ident.span()=>
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
        #vis struct #ident {}
    }
}

/// A function or method tool's companion type and `DeclaredTool` impl (beside the impl block,
/// for a method).
fn callable(func: &Callable) -> TokenStream {
    let Some(companion_type) = &func.companion else { return TokenStream::new() };
    let ident = &companion_type.ident;
    let krate = &func.krate;
    let sig = &func.item.sig;
    let fn_ident = &sig.ident;
    // The return type, checked once (at the type) for `IntoToolOutput`.
    let return_ty: TokenStream = match &sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => checked(ty, &quote!(#krate::__private::assert_output::<#ty>()), krate),
    };
    // The values are bound to names of their own, so that a parameter named like the function
    // (`fn triage(triage: Triage)`) cannot shadow it at the call.
    let wire_var = |i: usize| format_ident!("__tool_arg_{}", i, span = Span::mixed_site());
    let injected_var = |i: usize| format_ident!("__tool_injected_{}", i, span = Span::mixed_site());
    let bindings: Vec<Ident> = (0..func.wire.len()).map(wire_var).collect();
    let injections = func.injected.iter().enumerate().map(|(i, inner)| {
        let binding = injected_var(i);
        quote_spanned! {inner.span()=>
            let #binding = <#inner as #krate::__private::FromContext>::from_context(&__ctx)?;
        }
    });
    let args = func.call_args.iter().map(|a| match a {
        CallArg::Wire(i) => wire_var(*i),
        CallArg::Injected(i) => injected_var(*i),
    });
    let call = match &func.method {
        None => quote!(#fn_ident(#(#args),*)),
        Some(method) => {
            let self_ty = &method.self_ty;
            let this = if method.exclusive { quote!(&mut *__this) } else { quote!(&*__this) };
            quote!(<#self_ty>::#fn_ident(#this, #(#args),*))
        }
    };
    // A sync body runs on the blocking pool unless it is `inline`: there the time limit and
    // cancellation end the call when the body does not return, and the async workers stay
    // free. The injected values are borrowed from the context moved in with it.
    let pooled = sig.asyncness.is_none() && func.config.inline.is_none();
    let body = if pooled {
        quote! {
            #krate::__private::Box::pin(#krate::__private::run_blocking(move || -> #krate::__private::ToolResult {
                #(#injections)*
                let output: #return_ty = #call;
                #krate::__private::IntoToolOutput::into_output(output)
            }))
        }
    } else {
        let awaited = if sig.asyncness.is_some() { quote!(#call.await) } else { call };
        quote! {
            #krate::__private::Box::pin(async move {
                #(#injections)*
                let output: #return_ty = #awaited;
                #krate::__private::IntoToolOutput::into_output(output)
            })
        }
    };
    let invoke_body = match &func.method {
        Some(method) => {
            let self_ty = &method.self_ty;
            let (run, this) = match (method.exclusive, method.stored) {
                (true, false) => (quote!(run_exclusive), quote!(mut __this)),
                (false, false) => (quote!(run_shared), quote!(__this)),
                (true, true) => (quote!(run_stored_exclusive), quote!(mut __this)),
                (false, true) => (quote!(run_stored_shared), quote!(__this)),
            };
            quote! {
                #krate::__private::#run::<#self_ty, _>(__ctx, __turn, move |__ctx, #this| #body)
            }
        }
        None => body,
    };
    let pattern = wire_tree(&bindings, |b| quote!(#b), krate, true);
    let approval = approval_check(
        &func.config,
        krate,
        &func.name,
        &bindings.iter().map(ToTokens::to_token_stream).collect::<Vec<_>>(),
        func.method.as_ref().map(|m| &m.self_ty),
    );
    let invoke = quote! {
        let #pattern = args;
        #approval
        #invoke_body
    };
    let output_schema = quote!(<#return_ty as #krate::__private::IntoToolOutput>::output_schema(generator));
    let reserve = match &func.method {
        None => TokenStream::new(),
        Some(method) => {
            let self_ty = &method.self_ty;
            let reserve = if method.stored { quote!(reserve_stored) } else { quote!(reserve) };
            quote! {
                const STATEFUL: bool = true;

                fn reserve(request: &#krate::__private::ToolCallRequest) -> #krate::__private::Turn {
                    #krate::__private::#reserve::<#self_ty>(request)
                }
            }
        }
    };
    let declared = declared_impl(
        ident,
        krate,
        &func.config,
        &func.name,
        &func.description,
        &func.wire,
        &output_schema,
        &invoke,
        &reserve,
    );
    let companion = companion(companion_type);
    quote!(#companion #declared)
}

/// `#[tool]` on an impl block: its `#[tool]` methods become tools that run on one instance of
/// the type per conversation, which this implements `ConversationState` for.
fn impl_block(block: &ImplTool) -> TokenStream {
    let ImplTool { self_ty, krate, config, .. } = block;
    let item = impl_item(block, true);
    let create = match (&config.create, config.new) {
        (Some(create), _) => quote!(#krate::__private::created(<#self_ty>::#create(ctx).await)),
        (None, Some(new)) => quote_spanned!(new=> ::core::result::Result::Ok(<#self_ty>::new())),
        (None, None) => quote_spanned! {self_ty.span()=>
            ::core::result::Result::Ok(<#self_ty as #krate::__private::DefaultState>::make())
        },
    };
    let cleanup = config.cleanup.as_ref().map(|cleanup| {
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
    let idle = limit(&config.idle_timeout_ms, quote!(::core::time::Duration::from_millis));
    let max = limit(&config.max_instances, quote!(::core::convert::identity));
    let methods = block.methods.iter().map(callable);
    let stored = stored(block);
    quote! {
        #item
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

            #stored
        };
        #(#methods)*
    }
}

/// With `shared_state`: how the state is stored (its name, schema version and migration), and
/// its registration for the conversations' end. The impl's type sits at the key, where a type
/// that does not serialize is reported.
fn stored(block: &ImplTool) -> TokenStream {
    let ImplTool { self_ty, krate, config, state_name, .. } = block;
    let Some(span) = config.shared_state else { return TokenStream::new() };
    let version = match &config.schema_version {
        Some(lit) => quote!(#lit),
        None => quote!(1),
    };
    let migrate = config.migrate.as_ref().map(|migrate| {
        quote_spanned! {migrate.span()=>
            fn migrate(
                from_version: u32,
                data: #krate::__private::Value,
            ) -> ::core::option::Option<::core::result::Result<Self, #krate::__private::ToolError>> {
                ::core::option::Option::Some(<#self_ty>::#migrate(from_version, data))
            }
        }
    });
    let at_key = respan(self_ty.to_token_stream(), span);
    quote! {
        #[automatically_derived]
        impl #krate::__private::SharedState for #at_key {
            const NAME: &'static str = #state_name;
            const SCHEMA_VERSION: u32 = #version;
            #migrate
        }

        #krate::__private::inventory::submit! {
            #krate::__private::stored_type::<#self_ty>()
        }
    }
}

fn structure(tool: &StructTool) -> TokenStream {
    let StructTool { item, krate, wire, .. } = tool;
    let ident = &item.ident;
    let bindings: Vec<&Ident> = wire.iter().map(|p| &p.binding).collect();
    // The struct, checked once (at its name) for its `impl ToolRun`; the rest goes through
    // generic helpers, so an `Output` that is not a tool output is reported once, in that impl.
    let this = ident.to_token_stream();
    let run = checked(ident, &quote_spanned!(ident.span()=> #krate::__private::assert_tool_run::<#this>()), krate);
    let pattern = wire_tree(&bindings, |b| quote!(#b), krate, true);
    let value = format_ident!("__tool_value", span = Span::mixed_site());
    let approval = approval_check(&tool.config, krate, &tool.name, &[value.to_token_stream()], None);
    let invoke = quote! {
        let #pattern = args;
        let #value: #run = #ident { #(#bindings),* };
        #approval
        #krate::__private::run_struct(#value, __ctx)
    };
    let output_schema = quote!(#krate::__private::struct_output_schema::<#run>(generator));
    let declared = declared_impl(
        ident,
        krate,
        &tool.config,
        &tool.name,
        &tool.description,
        wire,
        &output_schema,
        &invoke,
        &TokenStream::new(),
    );
    quote! {
        #item
        #declared
    }
}

/// With `approval = "path"`: before the body runs, the predicate over the call's values (each by
/// reference, then the context), spanned at the key's string so that a wrong signature is
/// reported there; a call it flags and nobody approved yet ends asking for approval. Without
/// the key, nothing: the call runs as before.
fn approval_check(
    config: &ToolConfig,
    krate: &Path,
    name: &str,
    values: &[TokenStream],
    self_ty: Option<&syn::Type>,
) -> TokenStream {
    let Some(WithSpan { value: path, span }) = &config.approval else { return TokenStream::new() };
    let span = *span;
    // In a method's key, `Self` is the impl block's type, as it is in the method's signature.
    let path = match self_ty {
        Some(ty) if path.leading_colon.is_none() && path.segments.first().is_some_and(|s| s.ident == "Self") => {
            let ty = respan(ty.to_token_stream(), span);
            let rest = path.segments.iter().skip(1);
            quote_spanned!(span=> <#ty> #(:: #rest)*)
        }
        _ => path.to_token_stream(),
    };
    // The values keep their hygiene but sit at the string, where a mismatch is reported.
    let values = values.iter().map(|v| respan(v.clone(), span));
    // Called as written rather than through a `fn` pointer, so that deref coercion applies:
    // a `String` parameter may be read as `&str`, a `Vec<T>` as `&[T]`.
    quote_spanned! {span=>
        if !__ctx.approved() && #path(#(&#values,)* &__ctx) {
            return #krate::__private::approval_pending(#name);
        }
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

/// The `DeclaredTool` impl and the registration shared by both forms.
#[allow(clippy::too_many_arguments)]
fn declared_impl(
    ident: &Ident,
    krate: &Path,
    config: &ToolConfig,
    name: &str,
    Description { tokens: description, from_docs }: &Description,
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
    let tags = config.tags.iter();
    let examples = config.examples.iter().map(ToTokens::to_token_stream);
    let call_examples = config.call_examples.iter().map(|e| {
        let json = e.json();
        quote!(#json)
    });
    let examples = examples.chain(call_examples);
    let approval = match (&config.requires_approval, &config.approval) {
        (Some(WithSpan { value: true, .. }), _) => quote!(Always),
        (_, Some(_)) => quote!(ByArguments),
        _ => quote!(Never),
    };
    let sequential = config.sequential;
    let task = syn::Ident::new(config.task.unwrap_or("Never"), proc_macro2::Span::call_site());
    let task_asks_first = config.task_asks_first;
    let icons = &config.icons;
    let scopes = &config.scopes;
    let opt = |v: &Option<syn::LitStr>| match v {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    };
    let (category, version) = (opt(&config.category), opt(&config.version));
    let strict = config.strict;
    let defer = config.defer;
    let timeout = match &config.timeout_ms {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    };
    let annotations = annotations(config.annotations.as_ref().unwrap_or(&Annotations::default()), krate);
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
                        defer: #defer,
                        approval: #krate::__private::Approval::#approval,
                        sequential: #sequential,
                        task: #krate::__private::TaskSupport::#task,
                        task_asks_first: #task_asks_first,
                        icons: &[#(#icons),*],
                        scopes: &[#(#scopes),*],
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

fn annotations(annotations: &Annotations, krate: &Path) -> TokenStream {
    let opt_bool = |v: Option<bool>| match v {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    let title = match &annotations.title {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let (read_only, destructive, idempotent, open_world) = (
        opt_bool(annotations.read_only),
        opt_bool(annotations.destructive),
        opt_bool(annotations.idempotent),
        opt_bool(annotations.open_world),
    );
    quote! {
        #krate::__private::AnnotationsDeclaration {
            title: #title, read_only: #read_only, destructive: #destructive, idempotent: #idempotent, open_world: #open_world,
        }
    }
}

fn param_declaration(p: &WireParam, krate: &Path) -> TokenStream {
    let name = &p.wire_name;
    let description = match (&p.config.description, &p.doc) {
        (Some(lit), _) => quote!(#lit),
        (None, Some(doc)) => doc.clone(),
        (None, None) => quote!(""),
    };
    let example = match &p.config.example {
        Some(json) => quote!(::core::option::Option::Some(#json)),
        None => quote!(::core::option::Option::None),
    };
    let default = match p.config.default.as_ref().map(|d| &d.value) {
        Some(DefaultValue::Expr(_, Some(json))) => quote!(::core::option::Option::Some(#json)),
        _ => quote!(::core::option::Option::None),
    };
    let constraints = p.config.constraints().into_iter().map(|(k, v)| quote!((#k, #v)));
    let case_sensitive = p.config.case_sensitive;
    let strict = p.config.strict;
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
    match p.config.default.as_ref().map(|d| (&d.value, d.span)) {
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
        (p.config.range.as_ref().map(|r| r.span), quote!(assert_numeric)),
        (p.config.length.as_ref().map(|l| l.span), quote!(assert_text)),
        (p.config.pattern.as_ref().map(|l| l.span), quote!(assert_text)),
        (p.config.header.as_ref().map(|h| h.span), quote!(assert_header)),
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
