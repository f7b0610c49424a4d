//! The `#[tool]` attribute. Depend on `tool-core`, which re-exports it with its documentation.
//!
//! Three stages: `parse` reads the tokens into syntax (function bodies stay tokens),
//! `validate` judges it in one pass that collects every error, and `expand` writes the
//! declaration, or, when there are errors, `recover` writes the item, its companion type and
//! every error. The expansion names only `::tool_core::__private` (or the path given with
//! `#[tool(crate = "..")]`); all logic beyond parsing and validation lives in the runtime.

mod docs;
mod errors;
mod expand;
mod names;
mod parse;
mod recover;
mod validate;

use errors::Errors;

/// Declares a tool. See `tool_core::tool` for the documentation.
#[proc_macro_attribute]
pub fn tool(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    let mut errors = Errors::default();
    let entries = parse::entries(attr.into(), &mut errors);
    let parsed = match parse::item(item.clone()) {
        Ok(parsed) => parsed,
        Err(error) => {
            // Not an item syn knows: left to the compiler as written.
            errors.push(error);
            let compile_errors = errors.to_compile_errors();
            return quote::quote!(#item #compile_errors).into();
        }
    };
    let tool = validate::tool(&entries, parsed, &mut errors);
    if errors.is_empty() { expand::tool(&tool) } else { recover::tool(&tool, &errors) }.into()
}
