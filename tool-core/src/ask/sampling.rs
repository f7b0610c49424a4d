//! Sampling: a running tool asks the model of whoever made its call for a message.

use std::future::Future;
use std::sync::Arc;

use crate::model::ToolError;

/// Who said a message of a [`SamplingRequest`], or who answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SamplingRole {
    /// The person (or the tool speaking for them).
    User,
    /// The model.
    Assistant,
}

/// What one message of a sampling conversation holds.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum SamplingContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The image's bytes in base64.
        data: String,
        /// Its MIME type (`image/png`).
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// The audio's bytes in base64.
        data: String,
        /// Its MIME type (`audio/wav`).
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Text { text: text.into() }
    }

    /// An image block: `data` is the image in base64, `mime_type` its type (`image/png`).
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        SamplingContent::Image { data: data.into(), mime_type: mime_type.into() }
    }

    /// The text, when this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// One message of the conversation a [`SamplingRequest`] sends.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: SamplingRole,
    /// What it says.
    pub content: SamplingContent,
}

impl SamplingMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        SamplingMessage { role: SamplingRole::User, content: SamplingContent::text(text) }
    }

    /// A text message from the model, for a conversation that goes on from its answer.
    pub fn assistant(text: impl Into<String>) -> Self {
        SamplingMessage { role: SamplingRole::Assistant, content: SamplingContent::text(text) }
    }
}

/// Which model the tool would like, as hints for whoever picks it: names to look for and what
/// matters most, each priority from 0 (does not matter) to 1 (matters most).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelPreferences {
    /// Model names or parts of them, best first (`claude-3-5-sonnet`, `sonnet`, `claude`).
    pub hints: Vec<String>,
    /// How much a low cost matters.
    pub cost_priority: Option<f32>,
    /// How much a fast answer matters.
    pub speed_priority: Option<f32>,
    /// How much a capable model matters.
    pub intelligence_priority: Option<f32>,
}

/// What a tool asks the model of whoever made its call ([`ToolContext::sample`]): a
/// conversation to continue, and how.
///
/// [`ToolContext::sample`]: crate::ToolContext::sample
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation, oldest message first.
    pub messages: Vec<SamplingMessage>,
    /// The system prompt the tool asks for; the client may change or ignore it.
    pub system_prompt: Option<String>,
    /// The most tokens the answer may take.
    pub max_tokens: u32,
    /// The sampling temperature.
    pub temperature: Option<f32>,
    /// Texts that end the answer where they appear.
    pub stop_sequences: Vec<String>,
    /// Which model the tool would like.
    pub model_preferences: Option<ModelPreferences>,
    /// The name the question goes by where questions are named: the key of its `inputRequests`
    /// entry on MCP 2026-07-28 (`sampling_<n>` when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl SamplingRequest {
    /// A request for an answer of at most `max_tokens` tokens to one user message, `prompt`.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        SamplingRequest::conversation(vec![SamplingMessage::user(prompt)], max_tokens)
    }

    /// A request for an answer of at most `max_tokens` tokens to a conversation.
    pub fn conversation(messages: Vec<SamplingMessage>, max_tokens: u32) -> Self {
        SamplingRequest {
            messages,
            system_prompt: None,
            max_tokens,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            key: None,
        }
    }

    /// The same request, named `key` where questions are named (see [`key`](Self::key)).
    pub fn keyed(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The system prompt to ask for.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a text that ends the answer where it appears.
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> Self {
        self.stop_sequences.push(stop.into());
        self
    }

    /// Which model the tool would like.
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(preferences);
        self
    }
}

/// The model's answer to a [`SamplingRequest`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct SamplingResponse {
    /// Who answered: the model, normally.
    pub role: SamplingRole,
    /// What it answered, block by block.
    pub content: Vec<SamplingContent>,
    /// The name of the model that answered.
    pub model: String,
    /// Why it stopped (`endTurn`, `stopSequence`, `maxTokens`), when the client says.
    pub stop_reason: Option<String>,
}

impl SamplingResponse {
    /// A text answer from the model `model`.
    pub fn text(text: impl Into<String>, model: impl Into<String>) -> Self {
        SamplingResponse {
            role: SamplingRole::Assistant,
            content: vec![SamplingContent::text(text)],
            model: model.into(),
            stop_reason: None,
        }
    }

    /// Why the model stopped.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// The answer's text: its text blocks, one after the other.
    pub fn text_content(&self) -> String {
        self.content.iter().filter_map(SamplingContent::as_text).collect()
    }
}

/// Answers a tool's [`SamplingRequest`]s: the MCP client that made the call, or the host's
/// own model ([`CallScope::on_sample`], [`ExecutorBuilder::on_sample`]).
///
/// [`CallScope::on_sample`]: crate::CallScope::on_sample
/// [`ExecutorBuilder::on_sample`]: crate::ExecutorBuilder::on_sample
pub type SamplingHandler = Arc<dyn Fn(SamplingRequest) -> super::future::AskFuture<SamplingResponse> + Send + Sync>;

/// Makes a [`SamplingHandler`] of an async function.
pub(crate) fn sampling_handler<F, Fut>(handler: F) -> SamplingHandler
where
    F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<SamplingResponse, ToolError>> + Send + 'static,
{
    Arc::new(move |request| Box::pin(handler(request)))
}
