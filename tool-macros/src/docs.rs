//! Doc comments as descriptions: `concat!` of the `#[doc]` attributes, so that
//! `#[doc = include_str!("..")]` works too. Trimming happens at run time, once.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, Meta};

/// The `concat!(..)` of the doc attributes, or `None` when there are none.
pub fn doc_text(attrs: &[Attribute]) -> Option<TokenStream> {
    let parts: Vec<&Expr> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => Some(&nv.value),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    Some(quote!(::core::concat!(#(#parts, "\n"),*)))
}

/// Drops the attributes the compiler would reject on a fn parameter (`#[doc]`) or that are
/// ours (`#[param]`).
pub fn strip_ours(attrs: &mut Vec<Attribute>, keep_docs: bool) {
    attrs.retain(|a| !(a.path().is_ident("param") || (!keep_docs && a.path().is_ident("doc"))));
}
