//! An impl block of `#[tool]` methods, which run on one instance of the type per
//! conversation.

use proc_macro2::TokenStream;
use syn::ext::IdentExt as _;
use syn::{Meta, Type};

use super::keys::{impl_config, tool_config, Target};
use super::tool_fn::{self, Owner};
use super::{krate, ImplMember, ImplTool};
use crate::errors::Errors;
use crate::parse::{self, Entry, ItemFn, Member, ToolImpl};

pub fn validate(entries: &[Entry], item: ToolImpl, errors: &mut Errors) -> ImplTool {
    let config = impl_config(entries, errors);
    let ToolImpl { header, members: parsed } = item;
    if let Some((_, path, _)) = &header.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "`#[tool]` goes on an inherent impl block (`impl Counter { .. }`), not on a trait impl",
        ));
    }
    if let Some(param) = header.generics.params.first() {
        errors.push(syn::Error::new_spanned(param, "a type whose methods are tools cannot be generic: each tool's schema and state must be known; use a concrete type"));
    }
    if let (Some(new), Some(create)) = (config.new, &config.create) {
        errors.push(syn::Error::new(
            new,
            format!("the instance is made either by `Self::new()` (`new`) or by `{create}` (`create`): keep one"),
        ));
    }
    let self_ty = (*header.self_ty).clone();
    let type_ident = match &self_ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    };
    if type_ident.is_none() {
        errors.push(syn::Error::new_spanned(
            &self_ty,
            "`#[tool]` goes on the impl block of a named type (`impl Counter { .. }`)",
        ));
    }
    let stored = config.shared_state.is_some();
    let owner = Owner { self_ty: &self_ty, type_ident: type_ident.as_ref(), krate: config.krate.as_ref(), stored };
    let mut members = Vec::new();
    let mut methods = Vec::new();
    for member in parsed {
        match member {
            Member::Fn(mut func) => match tool_attr(&mut func, errors) {
                Some(tokens) => {
                    let method_config = tool_config(&parse::entries(tokens, errors), Target::Method, errors);
                    members.push(ImplMember::Tool(methods.len()));
                    methods.push(tool_fn::validate(method_config, *func, Some(&owner), errors));
                }
                None => members.push(ImplMember::Fn(func)),
            },
            Member::Other(item) => members.push(ImplMember::Other(item)),
        }
    }
    if methods.is_empty() {
        errors.push(syn::Error::new(
            header.impl_token.span,
            "`#[tool]` on an impl block collects the methods marked `#[tool]`, and this block has none: mark each tool method with `#[tool]`",
        ));
    }
    let krate = krate(config.krate.as_ref());
    let state_name = type_ident.map(|ident| ident.unraw().to_string()).unwrap_or_default();
    ImplTool { header, members, self_ty, krate, config, methods, state_name }
}

/// The tokens of a method's `#[tool(..)]`, taken off the method; `None` when it has none.
fn tool_attr(func: &mut ItemFn, errors: &mut Errors) -> Option<TokenStream> {
    let (ours, rest): (Vec<_>, Vec<_>) =
        std::mem::take(&mut func.attrs).into_iter().partition(|a| a.path().is_ident("tool"));
    func.attrs = rest;
    let mut ours = ours.into_iter();
    let first = ours.next()?;
    for repeated in ours {
        errors.push(syn::Error::new_spanned(
            repeated,
            "repeated `#[tool]` on one method: give its keys in one `#[tool(..)]`",
        ));
    }
    let tokens = match first.meta {
        Meta::Path(_) => TokenStream::new(),
        Meta::List(list) => list.tokens,
        Meta::NameValue(value) => {
            errors.push(syn::Error::new_spanned(value, "write `#[tool]` or `#[tool(name = \"..\")]`"));
            TokenStream::new()
        }
    };
    Some(tokens)
}
