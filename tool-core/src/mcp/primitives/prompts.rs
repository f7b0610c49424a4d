//! Prompts a host serves: messages made by a host function from arguments typed by a Rust
//! struct, read from the strings a client sends with the same lenient extraction as a tool's.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::completion::{Completer, Completers};
use super::panics::payload_text;
use crate::extract::compiled::CompiledSchema;
use crate::extract::{read_by_tree, ExtractionPolicy};
use crate::model::rules;
use crate::model::{truncate, ArgumentError, ContentBlock, Findings, ParseWarning, ToolDefinition};
use crate::providers::results::mcp_block;

/// Who a prompt message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

/// One message of a prompt, from the user or the assistant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    role: Role,
    content: ContentBlock,
}

impl PromptMessage {
    /// A message from the user: text (`"..."` converts), or an image, audio or embedded
    /// resource, the content blocks of tool results.
    pub fn user(content: impl Into<ContentBlock>) -> PromptMessage {
        PromptMessage { role: Role::User, content: content.into() }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<ContentBlock>) -> PromptMessage {
        PromptMessage { role: Role::Assistant, content: content.into() }
    }

    fn to_mcp(&self) -> Value {
        let role = match self.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        json!({"role": role, "content": mcp_block(&self.content)})
    }
}

/// Why a prompt could not be made: the client gets a JSON-RPC error with the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// The arguments, though of the declared types, cannot be used: invalid params (-32602).
    #[error("{0}")]
    InvalidArguments(String),
    /// Making the prompt failed: an internal error (-32603).
    #[error("{0}")]
    Failed(String),
}

impl PromptError {
    /// Making the prompt failed; `message` is sent to the client.
    pub fn new(message: impl Into<String>) -> PromptError {
        PromptError::Failed(message.into())
    }

    /// The arguments cannot be used; `message` says why, for the client.
    pub fn invalid_arguments(message: impl Into<String>) -> PromptError {
        PromptError::InvalidArguments(message.into())
    }
}

/// Why a prompt gave no messages.
pub(crate) enum PromptFailure {
    /// Required arguments the client left out.
    Missing(Vec<String>),
    /// Arguments that could not be read as their declared types.
    Invalid(String),
    Error(PromptError),
    Panicked(String),
}

/// The messages and the warnings of reading the arguments.
pub(crate) type Rendered = Result<(Vec<Value>, Findings<ParseWarning>), PromptFailure>;

type Render = dyn Fn(&Map<String, Value>) -> Rendered + Send + Sync;

/// A declared argument, as `prompts/list` shows it.
#[derive(Clone)]
pub(crate) struct Argument {
    pub(crate) name: String,
    description: String,
    required: bool,
}

/// A prompt: a name, a description, typed arguments and a host function that makes its
/// messages.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tool_core::mcp::{Prompt, PromptMessage};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Review {
///     /// The code to review.
///     code: String,
///     /// How many issues to name at most.
///     max_issues: Option<u32>,
/// }
///
/// let review = Prompt::with_arguments("review", |args: Review| {
///     let most = args.max_issues.unwrap_or(3);
///     Ok(vec![PromptMessage::user(format!("Name at most {most} issues in:\n{}", args.code))])
/// })
/// .description("Asks for a code review.");
/// # let _ = review;
/// ```
#[derive(Clone)]
pub struct Prompt {
    pub(crate) name: String,
    title: Option<String>,
    description: Option<String>,
    pub(crate) arguments: Vec<Argument>,
    render: Arc<Render>,
    pub(crate) completers: Completers,
    /// The question for the arguments the user is asked for, when the client leaves them out.
    pub(crate) asks: Option<crate::ask::ElicitationRequest>,
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let arguments: Vec<&str> = self.arguments.iter().map(|a| a.name.as_str()).collect();
        f.debug_struct("Prompt").field("name", &self.name).field("arguments", &arguments).finish_non_exhaustive()
    }
}

impl Prompt {
    /// A prompt without arguments, its messages made by `messages`.
    pub fn new<F>(name: impl Into<String>, messages: F) -> Prompt
    where
        F: Fn() -> Result<Vec<PromptMessage>, PromptError> + Send + Sync + 'static,
    {
        let render = move |_: &Map<String, Value>| -> Rendered {
            let messages = made(catch_unwind(AssertUnwindSafe(&messages)))?;
            Ok((messages, Findings::new()))
        };
        Prompt::with_render(name.into(), Vec::new(), Arc::new(render))
    }

    /// A prompt whose arguments are the fields of `T`: each field's name, its doc comment as
    /// the description, required unless it is an `Option` or has a default. MCP sends every
    /// argument as a string; each is converted to its field's type as a tool's arguments are
    /// (`"3"` for a `u32` is 3, with a warning in the result's `_meta`), and a required
    /// argument left out is an invalid-params error naming it.
    pub fn with_arguments<T, F>(name: impl Into<String>, messages: F) -> Prompt
    where
        T: JsonSchema + DeserializeOwned + 'static,
        F: Fn(T) -> Result<Vec<PromptMessage>, PromptError> + Send + Sync + 'static,
    {
        let name = name.into();
        let schema = serde_json::to_value(crate::schema::generator().into_root_schema_for::<T>()).unwrap_or_default();
        let definition = ToolDefinition::new(name.clone(), "", schema);
        let compiled = CompiledSchema::compile(&definition.input_schema, &definition.parameters, false);
        let arguments = definition
            .parameters
            .iter()
            .map(|p| Argument { name: p.name.clone(), description: p.description.clone(), required: p.required })
            .collect();
        let render = move |given: &Map<String, Value>| -> Rendered {
            let raw = Value::Object(given.clone()).to_string();
            let mut missing = Vec::new();
            let extraction = read_by_tree(&raw, &definition, &compiled, ExtractionPolicy::LENIENT, |object| {
                missing = definition
                    .parameters
                    .iter()
                    .filter(|p| p.required && !object.contains_key(&p.name))
                    .map(|p| p.name.clone())
                    .collect();
                if !missing.is_empty() {
                    return Err(Vec::new());
                }
                let object = Value::Object(object.clone());
                serde_path_to_error::deserialize::<_, T>(&object).map_err(|error| {
                    let path = error.path().to_string();
                    let field = path.split(['.', '[']).next().unwrap_or_default();
                    let parameter = definition.parameters.iter().find(|p| p.name == field);
                    vec![ArgumentError {
                        pointer: parameter.map(|p| format!("/{}", p.name)).unwrap_or_default(),
                        rule: rules::INVALID_TYPE.to_owned(),
                        expected: parameter.map_or_else(|| "the prompt's arguments".to_owned(), |p| p.expected()),
                        received: object.get(field).map(|value| truncate(&value.to_string())),
                        detail: error.inner().to_string(),
                    }]
                })
            });
            if !missing.is_empty() {
                return Err(PromptFailure::Missing(missing));
            }
            let args = extraction.value.map_err(|errors| PromptFailure::Invalid(errors.to_string()))?;
            let messages = made(catch_unwind(AssertUnwindSafe(|| messages(args))))?;
            Ok((messages, extraction.warnings))
        };
        Prompt::with_render(name, arguments, Arc::new(render))
    }

    fn with_render(name: String, arguments: Vec<Argument>, render: Arc<Render>) -> Prompt {
        Prompt {
            name,
            title: None,
            description: None,
            arguments,
            render,
            completers: Completers::default(),
            asks: None,
        }
    }

    /// Asks the user for the fields of `Q` the client leaves out of `prompts/get`: with `Q`'s
    /// form, `message`, under `key` where questions are named (MCP 2026-07-28's
    /// `inputRequests`). The fields are arguments of the prompt (by name) that its list shows
    /// as optional, since the server asks for them; the answers fill them in before the
    /// messages are made. A client of 2026-07-28 is asked in the request's rounds, an older
    /// one with `elicitation/create`; one that takes no forms, or a user who declines, leaves
    /// them out, and a required one is then refused as missing.
    ///
    /// # Errors
    /// `Q` is no form of flat fields MCP can carry ([`form_schema`](crate::ask::form_schema)).
    pub fn asks<Q: JsonSchema>(
        mut self,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<Prompt, PromptError> {
        let form = crate::ask::form_schema::<Q>().map_err(|e| {
            PromptError::new(format!("the prompt `{}` cannot ask with this form: {}", self.name, e.message()))
        })?;
        let fields: Vec<&str> = form
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        for argument in self.arguments.iter_mut().filter(|a| fields.contains(&a.name.as_str())) {
            argument.required = false;
        }
        self.asks = Some(crate::ask::ElicitationRequest::new(message, form).keyed(key));
        Ok(self)
    }

    /// The question to ask before the messages are made, when `given` leaves out a field it
    /// asks for.
    pub(crate) fn question(&self, given: Option<&Map<String, Value>>) -> Option<&crate::ask::ElicitationRequest> {
        let asks = self.asks.as_ref()?;
        let fields = asks.requested_schema.get("properties").and_then(Value::as_object)?;
        fields.keys().any(|field| given.is_none_or(|given| !given.contains_key(field))).then_some(asks)
    }

    /// A title for people.
    pub fn title(mut self, title: impl Into<String>) -> Prompt {
        self.title = Some(title.into());
        self
    }

    /// What the prompt is for.
    pub fn description(mut self, description: impl Into<String>) -> Prompt {
        self.description = Some(description.into());
        self
    }

    /// Completes the argument `argument` for `completion/complete`: `completer` gets what the
    /// user typed so far and the arguments already given, and returns the candidates, best
    /// first (the client gets the first 100, with their total).
    pub fn complete<F>(mut self, argument: &str, completer: F) -> Prompt
    where
        F: Fn(&str, &HashMap<String, String>) -> Vec<String> + Send + Sync + 'static,
    {
        let completer: Completer = Arc::new(completer);
        self.completers.insert(argument.to_owned(), completer);
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The messages for `given`, as MCP content, and the warnings of reading them.
    pub(crate) fn render(&self, given: &Map<String, Value>) -> Rendered {
        (self.render)(given)
    }

    pub(crate) fn description_text(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// MCP's `Prompt` object, for `prompts/list`.
    pub(crate) fn to_mcp(&self) -> Value {
        let mut object = Map::new();
        object.insert("name".to_owned(), Value::from(self.name.as_str()));
        if let Some(title) = &self.title {
            object.insert("title".to_owned(), Value::from(title.as_str()));
        }
        if let Some(description) = &self.description {
            object.insert("description".to_owned(), Value::from(description.as_str()));
        }
        if !self.arguments.is_empty() {
            let arguments = self
                .arguments
                .iter()
                .map(|argument| {
                    let mut object = json!({"name": argument.name, "required": argument.required});
                    if !argument.description.is_empty() {
                        object["description"] = Value::from(argument.description.as_str());
                    }
                    object
                })
                .collect();
            object.insert("arguments".to_owned(), Value::Array(arguments));
        }
        Value::Object(object)
    }
}

/// The host function's messages as MCP content, or why there are none.
fn made(
    result: Result<Result<Vec<PromptMessage>, PromptError>, Box<dyn std::any::Any + Send>>,
) -> Result<Vec<Value>, PromptFailure> {
    match result {
        Ok(Ok(messages)) => {
            // A broken block (a MIME type that is not `type/subtype`, data that is not base64)
            // is the host's mistake: refused whole rather than sent for the client to trip on.
            for (index, message) in messages.iter().enumerate() {
                if let Some(problem) = message.content.problem() {
                    let kind = message.content.kind();
                    return Err(PromptFailure::Error(PromptError::new(format!(
                        "the {kind} block of message {index} {problem}"
                    ))));
                }
            }
            Ok(messages.iter().map(PromptMessage::to_mcp).collect())
        }
        Ok(Err(error)) => Err(PromptFailure::Error(error)),
        Err(panic) => Err(PromptFailure::Panicked(payload_text(panic.as_ref()))),
    }
}
