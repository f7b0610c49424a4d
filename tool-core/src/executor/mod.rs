//! The executor: runs tool calls against a catalog and records every one.
//!
//! A call is one value, [`CallRun`](call::CallRun), taken through the stages in the order
//! `chain.rs` writes once: the retry budget, the arguments bound, the host's repair, input
//! guardrails, approval, rate limits, the tool run (again after a transient failure), output
//! guardrails, and the budget settled. Whatever happens (unknown tool, refused arguments, an
//! error, a panic, a timeout) the result is an [`ExecutionRecord`], never a crash. Batches run
//! concurrently, up to a bound, and come back in request order.

mod batch;
mod builder;
mod call;
mod calls;
mod chain;
mod log;
#[cfg(feature = "otel")]
mod metrics; // a call's metrics through OpenTelemetry
mod pending;
mod record;
mod rules;
mod run;
mod scope;
#[cfg(feature = "tower")]
mod service;
mod stages;

pub use builder::{Executor, ExecutorBuilder, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_PENDING_TTL};
#[cfg(feature = "playground")]
pub(crate) use pending::KIND as PENDING_KIND;
pub use record::{BudgetScope, CallFailure, CallStatus, ExecutionRecord, NotPendingReason, OutputCut};
pub use scope::CallScope;
