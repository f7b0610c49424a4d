//! Resources a host serves: fixed URIs and URI templates, each read by a host function when a
//! client asks, so that what it returns is fresh.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::completion::{Completer, Completers};
use super::panics::panic_text;
use super::template::{UriTemplate, UriTemplateError};

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;
type SyncReader = dyn Fn(ResourceRequest) -> Result<ResourceContent, ResourceError> + Send + Sync;
type AsyncReader = dyn Fn(ResourceRequest) -> BoxFuture<Result<ResourceContent, ResourceError>> + Send + Sync;

/// How a resource is read.
#[derive(Clone)]
pub(crate) enum Reader {
    /// Run on the blocking pool: a sync reader may read a file or wait on a lock.
    Sync(Arc<SyncReader>),
    Async(Arc<AsyncReader>),
}

/// Why a reader gave no content.
pub(crate) enum ReadFailure {
    Error(ResourceError),
    /// The reader panicked; the message stays on the server.
    Panicked(String),
}

impl Reader {
    fn sync<F>(reader: F) -> Reader
    where
        F: Fn(ResourceRequest) -> Result<ResourceContent, ResourceError> + Send + Sync + 'static,
    {
        Reader::Sync(Arc::new(reader))
    }

    fn future<F, Fut>(reader: F) -> Reader
    where
        F: Fn(ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ResourceContent, ResourceError>> + Send + 'static,
    {
        Reader::Async(Arc::new(move |request| Box::pin(reader(request))))
    }

    /// Reads, on a task of its own, so that a panic ends the task, not the session.
    pub(crate) async fn read(&self, request: ResourceRequest) -> Result<ResourceContent, ReadFailure> {
        let joined = match self {
            Reader::Sync(reader) => {
                let reader = Arc::clone(reader);
                tokio::task::spawn_blocking(move || reader(request)).await
            }
            Reader::Async(reader) => tokio::spawn(reader(request)).await,
        };
        match joined {
            Ok(read) => read.map_err(ReadFailure::Error),
            Err(error) => Err(ReadFailure::Panicked(panic_text(error))),
        }
    }
}

/// What a reader is asked for: the URI the client named and, for a template, the value of each
/// of its variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRequest {
    uri: String,
    variables: BTreeMap<String, String>,
}

impl ResourceRequest {
    pub(crate) fn new(uri: String, variables: BTreeMap<String, String>) -> ResourceRequest {
        ResourceRequest { uri, variables }
    }

    /// The URI the client asked for.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The value of the template variable `name` (percent-escapes decoded); `None` for a fixed
    /// resource or a name the template does not have.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }

    /// Every template variable and its value.
    pub fn variables(&self) -> &BTreeMap<String, String> {
        &self.variables
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Body {
    Text(String),
    Binary(Vec<u8>),
}

/// What a resource holds when read: text, or bytes (sent base64-encoded), with a MIME type
/// (the resource's own when not given here).
///
/// ```
/// use tool_core::mcp::ResourceContent;
///
/// let text = ResourceContent::text("# Notes").mime_type("text/markdown");
/// let png = ResourceContent::binary(vec![0x89, b'P', b'N', b'G']).mime_type("image/png");
/// # let _ = (text, png);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContent {
    body: Body,
    mime_type: Option<String>,
}

impl ResourceContent {
    /// Text content.
    pub fn text(text: impl Into<String>) -> ResourceContent {
        ResourceContent { body: Body::Text(text.into()), mime_type: None }
    }

    /// Binary content, sent to the client base64-encoded.
    pub fn binary(bytes: impl Into<Vec<u8>>) -> ResourceContent {
        ResourceContent { body: Body::Binary(bytes.into()), mime_type: None }
    }

    /// The content's MIME type, when it differs from the resource's declared one.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> ResourceContent {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// MCP's `TextResourceContents` or `BlobResourceContents`.
    pub(crate) fn to_mcp(&self, uri: &str, declared_mime_type: Option<&str>) -> Value {
        let mut contents = Map::new();
        contents.insert("uri".to_owned(), Value::from(uri));
        if let Some(mime_type) = self.mime_type.as_deref().or(declared_mime_type) {
            contents.insert("mimeType".to_owned(), Value::from(mime_type));
        }
        match &self.body {
            Body::Text(text) => contents.insert("text".to_owned(), Value::from(text.as_str())),
            Body::Binary(bytes) => contents.insert("blob".to_owned(), Value::from(base64_of(bytes))),
        };
        Value::Object(contents)
    }
}

impl From<String> for ResourceContent {
    fn from(text: String) -> ResourceContent {
        ResourceContent::text(text)
    }
}

impl From<&str> for ResourceContent {
    fn from(text: &str) -> ResourceContent {
        ResourceContent::text(text)
    }
}

pub(crate) fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Why a reader could not give a resource's content: the client gets a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// There is no such resource (a template's variables name nothing): MCP's "resource not
    /// found" error (-32002), with the URI.
    #[error("there is no such resource")]
    NotFound,
    /// Reading failed: an internal error (-32603) carrying the message.
    #[error("{0}")]
    Failed(String),
}

impl ResourceError {
    /// Reading failed; `message` is sent to the client.
    pub fn new(message: impl Into<String>) -> ResourceError {
        ResourceError::Failed(message.into())
    }

    /// There is no resource at the URI asked for.
    pub fn not_found() -> ResourceError {
        ResourceError::NotFound
    }
}

/// What a resource and a template both describe.
#[derive(Clone)]
pub(crate) struct Description {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
}

impl Description {
    fn new(name: String) -> Description {
        Description { name, title: None, description: None, mime_type: None }
    }

    fn write(&self, object: &mut Map<String, Value>) {
        object.insert("name".to_owned(), Value::from(self.name.as_str()));
        for (key, value) in [("title", &self.title), ("description", &self.description), ("mimeType", &self.mime_type)]
        {
            if let Some(value) = value {
                object.insert(key.to_owned(), Value::from(value.as_str()));
            }
        }
    }
}

/// A resource at a fixed URI, read by a host function each time a client asks.
///
/// ```
/// use tool_core::mcp::{Resource, ResourceContent};
///
/// let readme = Resource::new("docs://readme", "readme", |_request| Ok(ResourceContent::text("# Hello")))
///     .title("README")
///     .description("The project's README.")
///     .mime_type("text/markdown");
/// # let _ = readme;
/// ```
#[derive(Clone)]
pub struct Resource {
    pub(crate) uri: String,
    pub(crate) about: Description,
    pub(crate) size: Option<u64>,
    pub(crate) reader: Reader,
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource").field("uri", &self.uri).field("name", &self.about.name).finish_non_exhaustive()
    }
}

impl Resource {
    /// A resource at `uri`, listed as `name`, read by `reader` (run on the blocking pool, so it
    /// may read files).
    pub fn new<F>(uri: impl Into<String>, name: impl Into<String>, reader: F) -> Resource
    where
        F: Fn(ResourceRequest) -> Result<ResourceContent, ResourceError> + Send + Sync + 'static,
    {
        Resource { uri: uri.into(), about: Description::new(name.into()), size: None, reader: Reader::sync(reader) }
    }

    /// A resource read by an async function.
    pub fn new_async<F, Fut>(uri: impl Into<String>, name: impl Into<String>, reader: F) -> Resource
    where
        F: Fn(ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ResourceContent, ResourceError>> + Send + 'static,
    {
        Resource { uri: uri.into(), about: Description::new(name.into()), size: None, reader: Reader::future(reader) }
    }

    /// A title for people.
    pub fn title(mut self, title: impl Into<String>) -> Resource {
        self.about.title = Some(title.into());
        self
    }

    /// What the resource holds, for the client and the model.
    pub fn description(mut self, description: impl Into<String>) -> Resource {
        self.about.description = Some(description.into());
        self
    }

    /// The MIME type of its content.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Resource {
        self.about.mime_type = Some(mime_type.into());
        self
    }

    /// Its size in bytes, when known without reading it.
    pub fn size(mut self, bytes: u64) -> Resource {
        self.size = Some(bytes);
        self
    }

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// MCP's `Resource` object, for `resources/list`.
    pub(crate) fn to_mcp(&self) -> Value {
        let mut object = Map::new();
        object.insert("uri".to_owned(), Value::from(self.uri.as_str()));
        self.about.write(&mut object);
        if let Some(size) = self.size {
            object.insert("size".to_owned(), json!(size));
        }
        Value::Object(object)
    }
}

/// Resources at the URIs a template describes (`weather://{city}/today`): a client asks for a
/// URI of that form, and the reader gets the variables' values.
///
/// ```
/// use tool_core::mcp::{ResourceContent, ResourceError, ResourceTemplate};
///
/// let notes = ResourceTemplate::new("notes://{id}", "note", |request| {
///     match request.variable("id") {
///         Some("1") => Ok(ResourceContent::text("buy milk")),
///         _ => Err(ResourceError::not_found()),
///     }
/// })?
/// .description("A note, by id.")
/// .complete("id", |partial, _given| vec!["1".to_owned()].into_iter().filter(|id| id.starts_with(partial)).collect());
/// # let _ = notes;
/// # Ok::<(), tool_core::mcp::UriTemplateError>(())
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    pub(crate) template: UriTemplate,
    pub(crate) about: Description,
    pub(crate) reader: Reader,
    pub(crate) completers: Completers,
}

impl std::fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("uri_template", &self.template.text())
            .field("name", &self.about.name)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplate {
    /// Resources at the URIs of `template` (RFC 6570 level 1: literal text and `{name}`
    /// variables), listed as `name`, read by `reader` (run on the blocking pool). A template
    /// that is not level 1 is refused, saying why.
    pub fn new<F>(template: &str, name: impl Into<String>, reader: F) -> Result<ResourceTemplate, UriTemplateError>
    where
        F: Fn(ResourceRequest) -> Result<ResourceContent, ResourceError> + Send + Sync + 'static,
    {
        ResourceTemplate::with_reader(template, name.into(), Reader::sync(reader))
    }

    /// Resources of a template read by an async function.
    pub fn new_async<F, Fut>(
        template: &str,
        name: impl Into<String>,
        reader: F,
    ) -> Result<ResourceTemplate, UriTemplateError>
    where
        F: Fn(ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ResourceContent, ResourceError>> + Send + 'static,
    {
        ResourceTemplate::with_reader(template, name.into(), Reader::future(reader))
    }

    fn with_reader(template: &str, name: String, reader: Reader) -> Result<ResourceTemplate, UriTemplateError> {
        Ok(ResourceTemplate {
            template: UriTemplate::parse(template)?,
            about: Description::new(name),
            reader,
            completers: Completers::default(),
        })
    }

    /// A title for people.
    pub fn title(mut self, title: impl Into<String>) -> ResourceTemplate {
        self.about.title = Some(title.into());
        self
    }

    /// What the resources hold, for the client and the model.
    pub fn description(mut self, description: impl Into<String>) -> ResourceTemplate {
        self.about.description = Some(description.into());
        self
    }

    /// The MIME type of their content.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> ResourceTemplate {
        self.about.mime_type = Some(mime_type.into());
        self
    }

    /// Completes the variable `variable` for `completion/complete`: `completer` gets what the
    /// user typed so far and the variables already given, and returns the candidates, best
    /// first (the client gets the first 100, with their total).
    pub fn complete<F>(mut self, variable: &str, completer: F) -> ResourceTemplate
    where
        F: Fn(&str, &HashMap<String, String>) -> Vec<String> + Send + Sync + 'static,
    {
        let completer: Completer = Arc::new(completer);
        self.completers.insert(variable.to_owned(), completer);
        self
    }

    /// The template, as written.
    pub fn uri_template(&self) -> &str {
        self.template.text()
    }

    /// MCP's `ResourceTemplate` object, for `resources/templates/list`.
    pub(crate) fn to_mcp(&self) -> Value {
        let mut object = Map::new();
        object.insert("uriTemplate".to_owned(), Value::from(self.template.text()));
        self.about.write(&mut object);
        Value::Object(object)
    }
}
