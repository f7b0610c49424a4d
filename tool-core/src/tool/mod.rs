//! The [`Tool`] trait every tool goes through, declared (`#[tool]`) or built at run time.
//!
//! A tool has a definition and can *bind* a call: extract the arguments, and either return an
//! [`Invocation`] ready to run or the reasons the arguments were refused. Running, timeouts and
//! records belong to the executor, not here.

mod contract;
mod dynamic;

pub(crate) use contract::{parts, settle};
pub use contract::{BoxFuture, Invocation, Tool, ToolResult};
pub use dynamic::{DynamicTool, DynamicToolBuilder, DynamicToolError};
