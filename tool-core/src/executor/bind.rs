//! The executor's parts, and a call bound: its tool looked up and its arguments read (on the
//! blocking pool when they are large), or the record of why it could not be.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::catalog::ToolCatalog;
use crate::context::Environment;
use crate::model::ToolCallRequest;
use crate::stateful::Conversations;

use super::rules::Policy;
use super::run::{failed, human_duration, Prepared, Reply, FAILED_UNEXPECTEDLY};
use super::scope::Asking;
use super::{CallFailure, CallStatus, ExecutionRecord};

/// Runs tool calls. Cheap to clone; clones share the catalog, environment and the instances of
/// stateful tools.
#[derive(Clone, Debug)]
pub struct Executor {
    pub(super) catalog: ToolCatalog,
    pub(super) environment: Arc<Environment>,
    pub(super) timeout: Option<Duration>,
    pub(super) concurrency: usize,
    pub(super) reply: Reply,
    pub(super) conversations: Conversations,
    pub(super) asking: Asking,
    pub(super) policy: Arc<Policy>,
}

/// The record of a call whose task never reported (aborted by a runtime shutdown).
pub(super) fn lost(request: Arc<ToolCallRequest>, started: Instant, message: String) -> ExecutionRecord {
    failed(request, started, CallStatus::Failed, CallFailure::Panicked { message }, FAILED_UNEXPECTEDLY.to_owned())
}

pub(super) enum Stage {
    Done(Box<ExecutionRecord>),
    Ready(Prepared),
}

impl Executor {
    /// [`Executor::prepare`] for large arguments: on the blocking pool, so that reading them
    /// never holds an async worker, and under the call's time limit and cancellation. A call
    /// stopped while its arguments are read ends at once; the reading itself finishes on its
    /// thread (it is bounded by the catalog's argument limits) and is dropped.
    pub(super) async fn prepare_off_workers(
        &self,
        request: ToolCallRequest,
        watched: Option<&CancellationToken>,
        started: Instant,
    ) -> Stage {
        let limit = self.catalog.definition(&request.tool_name).and_then(|d| d.timeout).or(self.timeout);
        let kept = request.clone();
        let executor = self.clone();
        let span = tracing::Span::current();
        let binding = tokio::task::spawn_blocking(move || span.in_scope(|| executor.prepare(request, started)));
        let limited = async {
            match limit {
                Some(limit) => {
                    let deadline = tokio::time::Instant::from_std(started + limit);
                    tokio::time::timeout_at(deadline, binding).await.map_err(|_| limit)
                }
                None => Ok(binding.await),
            }
        };
        let outcome = match watched {
            None => Some(limited.await),
            Some(watched) => tokio::select! {
                biased;
                () = watched.cancelled() => None,
                outcome = limited => Some(outcome),
            },
        };
        let (status, failure, message) = match outcome {
            Some(Ok(Ok(stage))) => return stage,
            Some(Ok(Err(error))) => {
                return Stage::Done(Box::new(lost(
                    Arc::new(kept),
                    started,
                    format!("reading the call's arguments ended abnormally: {error}"),
                )))
            }
            Some(Err(limit)) => (
                CallStatus::TimedOut,
                CallFailure::TimedOut { after_ms: limit.as_millis() as u64 },
                format!("The arguments were not read within {}; the call was stopped.", human_duration(limit)),
            ),
            None => (
                CallStatus::Cancelled,
                CallFailure::Cancelled,
                "The call was cancelled before its arguments were read.".to_owned(),
            ),
        };
        Stage::Done(Box::new(failed(Arc::new(kept), started, status, failure, message)))
    }

    /// Looks the tool up and binds the arguments; a failure here is already a record.
    pub(super) fn prepare(&self, mut request: ToolCallRequest, started: Instant) -> Stage {
        let Some(tool) = self.catalog.get(&request.tool_name) else {
            // Keep what the model sent readable in the record: a generic tolerant parse, unless
            // a reader already made the arguments object (a Python call's raw text is no JSON)
            // or refused them (a call the end of the answer cut keeps its own error).
            if request.arguments.is_none() && request.parse_error.is_none() {
                let untyped = crate::extract::untyped_with(&request.raw_arguments, self.catalog.policy());
                request.parse_warnings.extend(untyped.warnings);
                request.arguments = untyped.arguments;
                request.parse_error = untyped.value.err();
            }
            let suggestions: Vec<String> =
                self.catalog.closest_names(&request.tool_name, 3).into_iter().map(str::to_owned).collect();
            let message = unknown_tool_message(&request.tool_name, &suggestions, self.catalog.is_empty());
            return Stage::Done(Box::new(failed(
                Arc::new(request),
                started,
                CallStatus::Failed,
                CallFailure::UnknownTool { suggestions },
                message,
            )));
        };
        // Arguments given in the request (a provider's call put back in the declared form) are
        // what the values are read from; the raw text stays as the provider sent it.
        let policy = self.catalog.policy();
        // Under the strict policy the repairs that made the given arguments (an undecodable
        // JSON text left as it was by restoring, an XML call's broken structure read) are
        // refused, each as an error saying what lenient extraction would have done.
        let strict = policy.strict || tool.definition().strict;
        let refused = strict && request.arguments.is_some() && !request.parse_warnings.is_empty();
        // A reader that already refused the call (one cut by the end of the answer or of the
        // stream) has said why: nothing the text holds is run.
        let bound = if let Some(errors) = request.parse_error.take() {
            Err(errors)
        } else {
            match request.arguments.take() {
                Some(arguments) if refused => {
                    request.arguments = Some(arguments);
                    let refusals = request.parse_warnings.drain(..).map(|w| crate::extract::refusal(&w)).collect();
                    Err(crate::model::ArgumentErrors { errors: refusals })
                }
                None => self.conversations.binding(|| tool.bind(&mut request, policy)),
                Some(arguments) => {
                    let raw = std::mem::replace(&mut request.raw_arguments, arguments.to_string());
                    let bound = self.conversations.binding(|| tool.bind(&mut request, policy));
                    request.raw_arguments = raw;
                    request.arguments.get_or_insert(arguments);
                    bound
                }
            }
        };
        match bound {
            Ok(invocation) => {
                let timeout = tool.definition().timeout.or(self.timeout);
                Stage::Ready(Prepared {
                    request: Arc::new(request),
                    invocation,
                    timeout,
                    approved: false,
                    counts_from: started,
                })
            }
            Err(errors) => {
                let message = errors.model_message(&request.tool_name);
                let structured = errors.structured();
                request.parse_error = Some(errors);
                let mut record =
                    failed(Arc::new(request), started, CallStatus::Failed, CallFailure::InvalidArguments, message);
                record.content.structured = Some(json!({ "errors": structured }));
                Stage::Done(Box::new(record))
            }
        }
    }
}

/// Arguments at least this long are read on the blocking pool (see
/// [`Executor::prepare_off_workers`]); shorter ones are read in place, in less time than a
/// trip to another thread takes.
const OFF_WORKERS_BYTES: usize = 64 * 1024;

/// Whether the arguments of `request` are read on the blocking pool.
pub(super) fn binds_off_workers(request: &ToolCallRequest) -> bool {
    request.raw_arguments.len() >= OFF_WORKERS_BYTES
}

fn unknown_tool_message(name: &str, suggestions: &[String], no_tools: bool) -> String {
    // The name is the model's own text, of any length: the message quotes it cut.
    let name = crate::model::truncate(name);
    if no_tools {
        return format!("There is no tool named `{name}`, and no tools are available.");
    }
    if suggestions.is_empty() {
        return format!("There is no tool named `{name}`, and no tool has a name like it.");
    }
    let list: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
    format!(
        "There is no tool named `{name}`. The closest existing tools are: {}. Call one of them instead.",
        list.join(", ")
    )
}
