//! Declaration support: what the `#[tool]` macro's expansion needs from the runtime.

mod definition;

pub(crate) use definition::{build_definition, TypeFacts};
pub use definition::{AnnotationsDeclaration, Declaration, ParamDeclaration};
