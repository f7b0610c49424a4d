//! Every error of one expansion, combined into one `syn::Error`, so the user sees them all at
//! once, each at its own token.

use proc_macro2::TokenStream;

#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// One `compile_error!` per collected error.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.0.as_ref().map(syn::Error::to_compile_error).unwrap_or_default()
    }
}

#[cfg(test)]
impl Errors {
    /// The messages, in the order they were collected.
    pub fn messages(&self) -> Vec<String> {
        self.0.clone().into_iter().flatten().map(|e| e.to_string()).collect()
    }
}
