//! What a call leaves behind: how it ended, why it failed, what the model reads, and what was
//! cut from its output.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::model::{ToolCallRequest, ToolError, ToolOutput};

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallStatus {
    /// The tool ran and returned a result.
    Success,
    /// The call failed: unknown tool, refused arguments, a tool error or a panic.
    Failed,
    /// The tool did not finish in time.
    TimedOut,
    /// The host cancelled the call.
    Cancelled,
}

/// Why a call did not succeed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallFailure {
    /// No tool has the requested name.
    UnknownTool {
        /// The closest existing names, best first.
        suggestions: Vec<String>,
    },
    /// The arguments were refused and the tool was not called; the reasons are in the
    /// request's `parse_error`.
    InvalidArguments,
    /// The tool returned an error.
    ToolError {
        /// The error, with its [internal detail](ToolError::internal_detail) (which the model
        /// does not read unless the host exposes it), cut to the output limit.
        error: ToolError,
    },
    /// The tool panicked.
    Panicked {
        /// The panic message, for the host: the model reads "The tool failed unexpectedly."
        /// unless [`ExecutorBuilder::expose_error_details`](crate::ExecutorBuilder::expose_error_details) is set.
        message: String,
    },
    /// The tool ran out of time.
    TimedOut {
        /// The limit, in milliseconds.
        after_ms: u64,
    },
    /// The host cancelled the call.
    Cancelled,
}

/// Everything about one call: the request (raw arguments verbatim), how it ended, what the model
/// gets back, the warnings and how long it took.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ExecutionRecord {
    /// The request, with the raw arguments, parse warnings and argument errors.
    pub request: Arc<ToolCallRequest>,
    /// How the call ended.
    pub status: CallStatus,
    /// What the model gets back. On failure: the model-facing message, and the structured
    /// error where there is one.
    pub content: ToolOutput,
    /// Why it did not succeed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<CallFailure>,
    /// Wall-clock time from receipt to record.
    #[serde(serialize_with = "serialize_micros", rename = "duration_us")]
    pub duration: Duration,
    /// What of the tool's output (or error) was cut to the executor's output limit, when
    /// anything was; the content says so too, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_cut: Option<OutputCut>,
}

/// How a call's output was cut to [`ExecutorBuilder::max_output_bytes`](crate::ExecutorBuilder::max_output_bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OutputCut {
    /// The limit, in bytes.
    pub limit: usize,
    /// The size in bytes of the text the tool returned (or of its error message), before the
    /// cut.
    pub text_bytes: usize,
    /// The structured result was over the limit and was dropped; the text stands for it.
    pub structured_dropped: bool,
    /// The host-facing metadata was over the limit and was dropped.
    pub metadata_dropped: bool,
    /// How many content blocks ([`ToolOutput::blocks`]) were dropped: the text and the blocks
    /// together are held to the limit, in order, and a block that does not fit in what is left
    /// is dropped whole.
    pub blocks_dropped: usize,
}

fn serialize_micros<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u128(d.as_micros())
}

impl ExecutionRecord {
    /// Whether the model should see this result as an error.
    pub fn is_error(&self) -> bool {
        self.status != CallStatus::Success
    }

    /// The parse warnings of the call.
    pub fn warnings(&self) -> &[crate::model::ParseWarning] {
        &self.request.parse_warnings
    }

    /// The text the model reads.
    pub fn model_text(&self) -> &str {
        &self.content.text
    }
}
