//! Elicitation: a running tool asks the user of whoever made its call to fill in a form, and
//! reads the answer as it reads arguments.

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::form::Form;
use crate::extract::{missing_required, read_by_tree, ExtractionPolicy};
use crate::model::rules;
use crate::model::{pointer, received_text, ArgumentError, ArgumentErrors, ParseWarning, ToolError};

/// What a tool asks the user ([`ToolContext::elicit`]): a message, and the form to fill in.
///
/// [`ToolContext::elicit`]: crate::ToolContext::elicit
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// What the tool asks, for the user to read.
    pub message: String,
    /// The form: a JSON Schema object of flat fields, as MCP's `elicitation/create` has it
    /// (`requestedSchema`).
    pub requested_schema: Value,
    /// The name the question goes by where questions are named: the key of its `inputRequests`
    /// entry on MCP 2026-07-28 (`elicitation_<n>` when none).
    pub key: Option<String>,
}

impl ElicitationRequest {
    /// A request for `message` with the form `requested_schema`.
    pub fn new(message: impl Into<String>, requested_schema: Value) -> Self {
        ElicitationRequest { message: message.into(), requested_schema, key: None }
    }

    /// The same request, named `key` where questions are named (see [`key`](Self::key)).
    pub fn keyed(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The answer `content` with the form's declared defaults added for the fields it leaves
    /// out, as MCP clients send an accepted form (SEP-1034).
    pub fn with_defaults(&self, mut content: Map<String, Value>) -> Map<String, Value> {
        let properties = self.requested_schema.get("properties").and_then(Value::as_object);
        for (name, field) in properties.into_iter().flatten() {
            if let Some(default) = field.get("default") {
                content.entry(name.clone()).or_insert_with(|| default.clone());
            }
        }
        content
    }
}

/// What the user did with a form, as it came back: filled it in, said no, or dismissed it.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitationAnswer {
    /// The user filled in the form and sent it.
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the form without choosing.
    Cancel,
}

/// What the user did with a form, its answer read as a `T`.
#[derive(Clone, Debug, PartialEq)]
pub enum Elicitation<T> {
    /// The user filled in the form: the answer, with a warning for each value converted to the
    /// declared type (`"42"` for an integer), as for a tool's arguments.
    Accepted {
        /// The answer.
        value: T,
        /// What was converted or repaired to read it.
        warnings: Vec<ParseWarning>,
    },
    /// The user said no.
    Declined,
    /// The user dismissed the form without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The answer, when the user filled in the form.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted { value, .. } => Some(value),
            _ => None,
        }
    }
}

/// Answers a tool's [`ElicitationRequest`]s: the MCP client that made the call, or the host's
/// own user interface ([`CallScope::on_elicit`], [`ExecutorBuilder::on_elicit`]).
///
/// [`CallScope::on_elicit`]: crate::CallScope::on_elicit
/// [`ExecutorBuilder::on_elicit`]: crate::ExecutorBuilder::on_elicit
pub type ElicitationHandler =
    Arc<dyn Fn(ElicitationRequest) -> super::future::AskFuture<ElicitationAnswer> + Send + Sync>;

/// Makes an [`ElicitationHandler`] of an async function.
pub(crate) fn elicitation_handler<F, Fut>(handler: F) -> ElicitationHandler
where
    F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ElicitationAnswer, ToolError>> + Send + 'static,
{
    Arc::new(move |request| Box::pin(handler(request)))
}

/// Asks `handler` to have the form of `T` filled in, and reads the answer.
pub(crate) async fn elicit<T: schemars::JsonSchema + DeserializeOwned>(
    handler: Option<&ElicitationHandler>,
    tool: &str,
    message: String,
    key: Option<&str>,
) -> Result<Elicitation<T>, ToolError> {
    let form = Form::of::<T>()?;
    let Some(handler) = handler else {
        return Err(ToolError::new(format!(
            "`{tool}` has nobody to ask: over MCP the client that made the call must declare the \
             `elicitation` capability; otherwise the host answers with `CallScope::on_elicit` or \
             `ExecutorBuilder::on_elicit`"
        ))
        .with_code("no_elicitation"));
    };
    let request = ElicitationRequest { message, requested_schema: form.requested.clone(), key: key.map(str::to_owned) };
    match handler(request).await? {
        ElicitationAnswer::Decline => Ok(Elicitation::Declined),
        ElicitationAnswer::Cancel => Ok(Elicitation::Cancelled),
        ElicitationAnswer::Accept(content) => {
            let (value, warnings) = read_answer::<T>(&form, content)?;
            Ok(Elicitation::Accepted { value, warnings })
        }
    }
}

/// Reads an accepted form's content as a `T`, converting as for arguments (within the
/// lenient policy's limits); an answer that does not fit is an error naming each field, what
/// the form expects there and what arrived.
fn read_answer<T: DeserializeOwned>(
    form: &Form,
    content: Map<String, Value>,
) -> Result<(T, Vec<ParseWarning>), ToolError> {
    let raw = Value::Object(content).to_string();
    let parameters = &form.definition.parameters;
    let extraction = read_by_tree(&raw, &form.definition, &form.compiled, ExtractionPolicy::LENIENT, |object| {
        // Every required field missing, not only the first serde meets.
        let mut errors = missing_required(parameters, object);
        let error = match serde_path_to_error::deserialize::<_, T>(Value::Object(object.clone())) {
            Ok(value) if errors.is_empty() => return Ok(value),
            Ok(_) => return Err(errors),
            Err(error) => error,
        };
        let mut place = String::new();
        for segment in error.path().iter() {
            match segment {
                serde_path_to_error::Segment::Map { key } => pointer::push(&mut place, key),
                serde_path_to_error::Segment::Seq { index } => place.push_str(&format!("/{index}")),
                _ => {}
            }
        }
        let detail = error.into_inner().to_string();
        let missing = detail.strip_prefix("missing field `").and_then(|rest| rest.split_once('`'));
        if let Some((field, _)) = missing {
            pointer::push(&mut place, field);
        }
        let field = pointer::segments(&place).next().map(|s| s.into_owned()).unwrap_or_default();
        let expected = parameters
            .iter()
            .find(|p| p.name == field)
            .map(|p| p.expected())
            .unwrap_or_else(|| "a value the form declares".to_owned());
        let received = missing.is_none().then(|| object_at(object, &place).map(received_text)).flatten();
        let rule = if missing.is_some() { rules::MISSING_REQUIRED } else { rules::INVALID_VALUE };
        if !errors.iter().any(|e| e.pointer == place) {
            errors.push(ArgumentError { pointer: place, rule: rule.into(), expected, received, detail });
        }
        // In the order of the form's fields.
        let position = |e: &ArgumentError| {
            let first = pointer::segments(&e.pointer).next().map(|s| s.into_owned()).unwrap_or_default();
            parameters.iter().position(|p| p.name == first).unwrap_or(usize::MAX)
        };
        errors.sort_by_key(position);
        Err(errors)
    });
    let warnings = extraction.warnings.into_iter().collect();
    match extraction.value {
        Ok(value) => Ok((value, warnings)),
        Err(errors) => Err(refused(form.name, &errors)),
    }
}

/// The value at `place` in `object`.
fn object_at<'a>(object: &'a Map<String, Value>, place: &str) -> Option<&'a Value> {
    let mut segments = pointer::segments(place);
    let first = segments.next()?;
    let mut value = object.get(first.as_ref())?;
    for segment in segments {
        value = match value {
            Value::Object(map) => map.get(segment.as_ref())?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(value)
}

/// The error of an answer that does not fit the form.
fn refused(form: &str, errors: &ArgumentErrors) -> ToolError {
    let mut text = format!("The answer to the form `{form}` does not fit it:");
    for e in &errors.errors {
        let place = if e.pointer.is_empty() { "the answer".to_owned() } else { format!("`{}`", e.field()) };
        match (&e.received, e.rule.as_str()) {
            (None, rules::MISSING_REQUIRED) => {
                text.push_str(&format!("\n- {place}: required, expected {}; it was missing.", e.expected))
            }
            (None, _) => text.push_str(&format!("\n- {place}: expected {}.", e.expected)),
            (Some(got), _) => text.push_str(&format!("\n- {place}: expected {}; got {got}.", e.expected)),
        }
    }
    ToolError::new(text).with_code("invalid_elicitation_answer").with_details(errors.structured())
}
