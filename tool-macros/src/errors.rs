//! Collects every error of one expansion, so the user sees them all at once.

use proc_macro2::TokenStream;

#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `compile_error!`s of every collected error.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.0.iter().map(syn::Error::to_compile_error).collect()
    }
}
