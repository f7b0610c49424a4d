//! What a tool hands back: its output, or an error for the model to read.
//!
//! [`IntoToolOutput`] turns whatever a tool function returns into a [`ToolOutput`] (text,
//! structured JSON, content blocks), and says whether the return type carries an output schema
//! ([`Json<T>`]).

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use super::content::{Audio, ContentBlock, Image};

/// The result of a successful call.
///
/// A result is its text, then its content blocks (images, audio, resources, more text) in
/// order. A result of text alone goes out as it always has; see
/// [`ContentBlock`] for what each provider makes of the blocks.
///
/// ```
/// use tool_core::{ContentBlock, EmbeddedResource, Image, ToolOutput};
///
/// let png = [0x89, b'P', b'N', b'G'];
/// let output = ToolOutput::text("The chart:")
///     .with_image(png, "image/png")
///     .with_block(EmbeddedResource::text("file:///data.csv", "text/csv", "x,y\n1,2"));
/// assert_eq!(output.blocks.len(), 2);
/// assert_eq!(output.blocks[0], ContentBlock::Image(Image::png(png)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolOutput {
    /// The text the model reads first.
    pub text: String,
    /// The structured result, when the tool returned one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// The blocks after the text, in order.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::content::serialize_blocks")]
    pub blocks: Vec<ContentBlock>,
    /// Host-facing metadata, not shown to the model.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl ToolOutput {
    /// A text-only output.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput { text: text.into(), ..Default::default() }
    }

    /// A structured output; its text is the compact JSON.
    pub fn structured(value: Value) -> Self {
        ToolOutput { text: value.to_string(), structured: Some(value), ..Default::default() }
    }

    /// An output made of `blocks`, in order; a text block at the start becomes its text.
    pub fn from_blocks(blocks: impl IntoIterator<Item = ContentBlock>) -> Self {
        let mut blocks: Vec<ContentBlock> = blocks.into_iter().collect();
        let text = match blocks.first() {
            Some(ContentBlock::Text { .. }) => match blocks.remove(0) {
                ContentBlock::Text { text } => text,
                _ => String::new(),
            },
            _ => String::new(),
        };
        ToolOutput { text, blocks, ..Default::default() }
    }

    /// Adds a block after the others: an [`Image`], an [`Audio`], an
    /// [`EmbeddedResource`](super::EmbeddedResource), a [`ResourceLink`](super::ResourceLink) or
    /// a [`ContentBlock`].
    pub fn with_block(mut self, block: impl Into<ContentBlock>) -> Self {
        self.blocks.push(block.into());
        self
    }

    /// Adds an image from its raw bytes (base64-encoded here), of `mime_type` (`image/png`).
    pub fn with_image(self, bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        self.with_block(Image::new(bytes, mime_type))
    }

    /// Adds a sound from its raw bytes (base64-encoded here), of `mime_type` (`audio/wav`).
    pub fn with_audio(self, bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        self.with_block(Audio::new(bytes, mime_type))
    }

    /// Adds a metadata entry.
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }
}

/// A failure a tool reports; its message is what the model reads.
///
/// Any `std::error::Error` converts into it, so `?` works in tool bodies; the error's text (and
/// its sources') becomes the message the model reads. Text the model should not see (an
/// upstream's answer, an OS error, a path) goes in [`ToolError::with_internal_detail`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolError {
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Boxed, so that an error (in every tool's `Result`) stays small.
    details: Option<Box<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    internal_detail: Option<String>,
    #[serde(skip_serializing_if = "ErrorKind::is_plain")]
    kind: ErrorKind,
}

/// What an error asks of whoever made the call, beyond reading its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// Nothing: the call failed.
    #[default]
    Plain,
    /// The model should call again with what the message says changed
    /// ([`ToolError::retry`]); counted against the tool's retry budget.
    Retry,
    /// The failure may pass on its own (an upstream's 503, a dropped connection): the executor
    /// may run the call again, if the tool is idempotent ([`ToolError::transient`]).
    Transient,
    /// The call needs a person's approval before it can run
    /// ([`ToolError::approval_required`]).
    ApprovalRequired,
}

impl ErrorKind {
    fn is_plain(&self) -> bool {
        *self == ErrorKind::Plain
    }
}

impl ToolError {
    /// An error with a model-facing message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError { message: message.into(), code: None, details: None, internal_detail: None, kind: ErrorKind::Plain }
    }

    /// Asks the model to call again, changing what `message` says ("the date must be in the
    /// future"): the result tells the model so, and the executor counts the try against the
    /// tool's retry budget, after which the failure is final and says so.
    pub fn retry(message: impl Into<String>) -> Self {
        ToolError { kind: ErrorKind::Retry, ..ToolError::new(message) }
    }

    /// A failure that may pass on its own (an upstream's 503 or 429, a dropped connection):
    /// the executor runs a call of an idempotent tool again, with backoff, as its retry policy
    /// allows; any other tool's call fails with it.
    pub fn transient(message: impl Into<String>) -> Self {
        ToolError { kind: ErrorKind::Transient, ..ToolError::new(message) }
    }

    /// Stops the call until a person approves it (`reason` says why, to that person): the
    /// executor's record says pending, and the call runs again once approved, with
    /// [`ToolContext::approved`](crate::ToolContext::approved) true. For a tool whose body
    /// decides, as `#[tool(approval = "fn")]` does before the body runs.
    pub fn approval_required(reason: impl Into<String>) -> Self {
        ToolError { kind: ErrorKind::ApprovalRequired, ..ToolError::new(reason) }
    }

    /// What the error asks of whoever made the call.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Adds text for the host alone: kept in the call's record (and its logs), not shown to the
    /// model or an MCP client unless the host opts in with
    /// [`ExecutorBuilder::expose_error_details`](crate::ExecutorBuilder::expose_error_details).
    /// For what came from elsewhere: an upstream's error body, a connection error, a path.
    pub fn with_internal_detail(mut self, detail: impl Into<String>) -> Self {
        self.internal_detail = Some(detail.into());
        self
    }

    /// The text for the host alone, if any.
    pub fn internal_detail(&self) -> Option<&str> {
        self.internal_detail.as_deref()
    }

    /// Bounds the error to `limit` bytes a part (a tool's error is as unbounded as its output):
    /// the message and the internal detail cut, saying so; details over the limit dropped, said
    /// in the message.
    pub(crate) fn cut_to(&mut self, limit: usize) {
        cut_saying(&mut self.message, limit);
        if let Some(detail) = &mut self.internal_detail {
            cut_saying(detail, limit);
        }
        if self.details.as_ref().is_some_and(|details| serialized_over(details, limit)) {
            self.details = None;
            self.message.push_str(&format!("\n[details dropped: over {limit} bytes]"));
        }
    }

    /// Adds a stable machine-readable code (`not_found`, `rate_limited`, ...).
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Adds structured details, shown to the model as JSON.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// The model-facing message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The machine-readable code, if any.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The structured details, if any.
    pub fn details(&self) -> Option<&Value> {
        self.details.as_deref()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        ToolError::new(message)
    }
}

/// Cuts `text` to at most `limit` bytes, at a character boundary; whether it was cut.
pub(crate) fn cut_at(text: &mut String, limit: usize) -> bool {
    if text.len() <= limit {
        return false;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    true
}

/// Cuts `text` to at most `limit` bytes and says so at its end; whether it was cut.
pub(crate) fn cut_saying(text: &mut String, limit: usize) -> bool {
    let bytes = text.len();
    if !cut_at(text, limit) {
        return false;
    }
    text.push_str(&format!("\n[cut at {limit} bytes of {bytes}]"));
    true
}

/// Whether `value` serialised as JSON is longer than `limit` bytes; the writing stops at the
/// limit, so a huge value costs no more than `limit` bytes of work.
pub(crate) fn serialized_over<T: Serialize + ?Sized>(value: &T, limit: usize) -> bool {
    struct Counter {
        left: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.left = self.left.checked_sub(bytes.len()).ok_or(std::io::ErrorKind::FileTooLarge)?;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(&mut Counter { left: limit }, value).is_err()
}

/// A structured tool result: serialised as JSON content, and its type's JSON Schema becomes
/// the tool's output schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// What a tool may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "not a tool result type",
    note = "return `String`, `()`, `serde_json::Value`, `Vec<T>` (T: Serialize), `Json<T>` (T: Serialize + JsonSchema, for structured results with an output schema), `ToolOutput`, a content block (`Image`, `Audio`, `EmbeddedResource`, `ResourceLink`, `ContentBlock`) or `Vec<ContentBlock>`, or a `Result` of one of these whose error converts into `ToolError`",
    note = "to return your own type, derive `serde::Serialize` and `schemars::JsonSchema` on it and return `Json(value)`"
)]
pub trait IntoToolOutput {
    /// Converts the value into the output, or the error the tool reported.
    fn into_output(self) -> Result<ToolOutput, ToolError>;

    /// The JSON Schema of the structured result, when the type declares one.
    fn output_schema(_generator: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl IntoToolOutput for () {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::default())
    }
}

impl IntoToolOutput for String {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &'static str {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for Cow<'static, str> {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for Value {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::structured(self))
    }
}

impl<T: Serialize> IntoToolOutput for Vec<T> {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        serialize_output(&self)
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutput for Json<T> {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        serialize_output(&self.0)
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        let mut schema = generator.root_schema_for::<T>();
        if let Some(object) = schema.as_object_mut() {
            object.remove("$schema");
        }
        Some(schema)
    }
}

macro_rules! block_output {
    ($($t:ty),*) => {$(
        impl IntoToolOutput for $t {
            fn into_output(self) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::from_blocks([ContentBlock::from(self)]))
            }
        }
    )*};
}

block_output!(ContentBlock, Image, Audio, super::EmbeddedResource, super::ResourceLink);

impl IntoToolOutput for Vec<ContentBlock> {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::from_blocks(self))
    }
}

macro_rules! display_output {
    ($($t:ty),*) => {$(
        impl IntoToolOutput for $t {
            fn into_output(self) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput { text: self.to_string(), structured: Some(Value::from(self)), ..Default::default() })
            }
        }
    )*};
}

display_output!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

impl<T: IntoToolOutput, E: Into<ToolError>> IntoToolOutput for Result<T, E> {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        self.map_err(Into::into)?.into_output()
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        T::output_schema(generator)
    }
}

fn serialize_output<T: Serialize + ?Sized>(value: &T) -> Result<ToolOutput, ToolError> {
    serde_json::to_value(value).map(ToolOutput::structured).map_err(|e| {
        ToolError::new(format!("the tool's result could not be serialised: {e}")).with_code("output_not_serializable")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn std_errors_convert_with_their_source_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "notes.md not found");
        let e: ToolError = io.into();
        assert_eq!(e.message(), "notes.md not found");
    }

    #[test]
    fn results_and_vectors_render_text_and_structure() {
        let ok: Result<Vec<u32>, ToolError> = Ok(vec![1, 2]);
        let out = ok.into_output().unwrap();
        assert_eq!(out.text, "[1,2]");
        assert_eq!(out.structured, Some(json!([1, 2])));
        let err: Result<String, ToolError> = Err(ToolError::new("no such room").with_code("not_found"));
        assert_eq!(err.into_output().unwrap_err().code(), Some("not_found"));
        assert_eq!(42u32.into_output().unwrap().text, "42");
        assert_eq!(7usize.into_output().unwrap().structured, Some(json!(7)));
    }
}
