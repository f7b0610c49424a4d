//! On errors: the user's item as written (minus our attributes), its companion types with a
//! stand-in `DeclaredTool` impl, and every error. The rest of the crate and the IDE keep seeing
//! the item and its companion, so no follow-on errors ("cannot find type `search`") pile up on
//! the real ones.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, Path};

use crate::errors::Errors;
use crate::expand::{companion, fn_item, impl_item};
use crate::names::json_string;
use crate::validate::{Callable, Tool};

pub fn tool(tool: &Tool, errors: &Errors) -> TokenStream {
    let compile_errors = errors.to_compile_errors();
    let item = match tool {
        Tool::Fn(func) => {
            let item = fn_item(func, false);
            let stand_in = stand_in(func);
            quote!(#item #stand_in)
        }
        Tool::Struct(tool) => {
            let item = &tool.item;
            // A generic struct has no one type to implement it for; it is emitted alone.
            let stub = if tool.item.generics.params.is_empty() {
                stub_impl(&item.ident, &tool.krate)
            } else {
                TokenStream::new()
            };
            quote!(#item #stub)
        }
        Tool::Impl(block) => {
            let item = impl_item(block, false);
            let stand_ins = block.methods.iter().map(stand_in);
            quote!(#item #(#stand_ins)*)
        }
        Tool::Other(tokens) => tokens.clone(),
    };
    quote!(#item #compile_errors)
}

fn stand_in(func: &Callable) -> TokenStream {
    let Some(companion_type) = &func.companion else { return TokenStream::new() };
    let companion = companion(companion_type);
    let stub = stub_impl(&companion_type.ident, &func.krate);
    quote!(#companion #stub)
}

/// A `DeclaredTool` impl with no parameters, so uses elsewhere in the crate do not
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
                        category: ::core::option::Option::None, version: ::core::option::Option::None, examples: &[], timeout_ms: ::core::option::Option::None, strict: false, defer: false, approval: #krate::__private::Approval::Never, sequential: false, task: #krate::__private::TaskSupport::Never, task_asks_first: false, icons: &[], scopes: &[], file: ::core::file!(), line: ::core::line!(),
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
