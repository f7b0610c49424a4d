//! A struct tool: its fields are the parameters, its `impl ToolRun` the body.

use syn::ext::IdentExt as _;
use syn::{ItemStruct, Type};

use super::keys::{param_config, tool_config, Target};
use super::{check_examples, check_headers, check_wire_names, description, krate, tool_name, wire_param, StructTool};
use crate::docs::{doc_text, strip_ours};
use crate::errors::Errors;
use crate::names::snake_case;
use crate::parse::{param_entries, Entry};

pub fn validate(entries: &[Entry], mut item: ItemStruct, errors: &mut Errors) -> StructTool {
    let config = tool_config(entries, Target::Struct, errors);
    let krate = krate(config.krate.as_ref());
    if let Some(param) = item.generics.params.first() {
        errors.push(syn::Error::new_spanned(
            param,
            "a tool struct cannot be generic: its field types must be concrete so its schema is known; replace the type parameter with a concrete type",
        ));
    }
    if let Some(blocking) = config.blocking {
        errors.push(syn::Error::new(blocking, "`blocking` applies to sync functions; a struct tool's `ToolRun::run` is async, so use `tokio::task::spawn_blocking` inside it"));
    }
    if let Some(inline) = config.inline {
        errors.push(syn::Error::new(inline, "`inline` applies to sync functions; a struct tool's `ToolRun::run` is async and runs on the async worker anyway: remove `inline`"));
    }
    let mut wire = Vec::new();
    match &mut item.fields {
        syn::Fields::Named(fields) => {
            for field in &mut fields.named {
                let param = param_config(&param_entries(&field.attrs, errors), errors);
                let doc = doc_text(&field.attrs);
                strip_ours(&mut field.attrs, true);
                let Some(binding) = field.ident.clone() else { continue };
                if let Type::ImplTrait(impl_trait) = &field.ty {
                    errors.push(syn::Error::new_spanned(
                        impl_trait,
                        "`impl Trait` cannot be a tool parameter: use a concrete type",
                    ));
                }
                wire.push(wire_param(binding, field.ty.clone(), param, doc));
            }
        }
        syn::Fields::Unnamed(fields) => {
            for field in &mut fields.unnamed {
                strip_ours(&mut field.attrs, true);
            }
            errors.push(syn::Error::new_spanned(fields, "a tool struct needs named fields, because each field name is a key in the arguments: write `struct Search { query: String }`"));
        }
        syn::Fields::Unit => {
            errors.push(syn::Error::new_spanned(
                &item.ident,
                "a tool struct needs braces, even with no parameters: write `struct Ping {}`",
            ));
        }
    }
    check_wire_names(&wire, errors);
    check_headers(&wire, errors);
    check_examples(&config, &wire, errors);
    let ident = item.ident.clone();
    let name = tool_name(&config, &snake_case(&ident.unraw().to_string()), ident.span(), errors);
    let description = description(&config, doc_text(&item.attrs), ident.span(), &ident, errors);
    StructTool { item, krate, config, name, description, wire }
}
