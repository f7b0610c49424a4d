//! The `#[tool]` attribute. Depend on `tool-core`, which re-exports it with its documentation.
//!
//! The expansion names only `::tool_core::__private` (or the path given with
//! `#[tool(crate = "..")]`); all logic beyond parsing and validation lives in the runtime.

mod attrs;
mod docs;
mod errors;
mod expand;

/// Declares a tool. See `tool_core::tool` for the documentation.
#[proc_macro_attribute]
pub fn tool(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
