//! The resources, templates and prompts a server offers beside its tools, the subscriptions of
//! its sessions, and the host's handle to change them and announce updates.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, RwLock};

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, ErrorCode, GetPromptRequestParams, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PromptsCapability, ReadResourceResult, Reference,
    ResourceUpdatedNotificationParam, ResourcesCapability, ServerCapabilities,
};
use rmcp::service::{Peer, RoleServer, SubscriptionContext};
use rmcp::ErrorData;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use tokio::sync::broadcast;

use super::completion::{complete, Completers};
use super::prompts::{Prompt, PromptError, PromptFailure};
use super::resources::{ReadFailure, Resource, ResourceError, ResourceRequest, ResourceTemplate};
use crate::model::truncate;
use crate::providers::results::MCP_WARNINGS_META;
use crate::suggest::Names;

/// The longest URI a client may send unless the host says otherwise.
const MAX_URI_BYTES: usize = 4096;
/// The longest prompt argument or completion value a client may send unless told otherwise.
const MAX_ARGUMENT_BYTES: usize = 64 * 1024;
/// How many URIs one session may subscribe to unless told otherwise.
const MAX_SUBSCRIPTIONS: usize = 256;

/// The MCP primitives a server offers beside its tools: resources, resource templates and
/// prompts, with completion of their arguments. Hand them to the server with
/// [`McpServerBuilder::primitives`](crate::mcp::McpServerBuilder::primitives) and keep a clone: clones share
/// everything, so the host announces a resource's update
/// ([`resource_updated`](McpPrimitives::resource_updated)) or changes the set (each change
/// sends `list_changed` to every session) through its clone.
///
/// A server declares the `resources`, `prompts` and `completions` capabilities only when it
/// offers one of each.
#[derive(Clone, Default)]
pub struct McpPrimitives {
    inner: Arc<Inner>,
}

struct Inner {
    sets: RwLock<Arc<Sets>>,
    limits: RwLock<Limits>,
    sessions: Mutex<Sessions>,
    /// Every change and update, for `subscriptions/listen` streams (protocol 2026-07-28).
    changes: broadcast::Sender<Change>,
}

impl Default for Inner {
    fn default() -> Inner {
        Inner {
            sets: RwLock::default(),
            limits: RwLock::default(),
            sessions: Mutex::default(),
            changes: broadcast::Sender::new(CHANGES),
        }
    }
}

/// How many changes a `subscriptions/listen` stream may fall behind before it misses some.
const CHANGES: usize = 256;

/// A change a `subscriptions/listen` stream may be told of.
#[derive(Clone, Debug)]
pub(crate) enum Change {
    List(List),
    Updated(String),
}

#[derive(Default, Clone)]
struct Sets {
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompts: Vec<Prompt>,
}

impl Sets {
    fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    fn has_completers(&self) -> bool {
        self.prompts.iter().any(|p| !p.completers.is_empty()) || self.templates.iter().any(|t| !t.completers.is_empty())
    }

    /// The resource at `uri`, or the first template it matches, with its variables.
    fn find(&self, uri: &str) -> Option<(ResourceRequest, Found<'_>)> {
        if let Some(resource) = self.resources.iter().find(|r| r.uri == uri) {
            return Some((ResourceRequest::new(uri.to_owned(), Default::default()), Found::Resource(resource)));
        }
        self.templates.iter().find_map(|template| {
            let variables = template.template.matches(uri)?;
            Some((ResourceRequest::new(uri.to_owned(), variables), Found::Template(template)))
        })
    }
}

enum Found<'a> {
    Resource(&'a Resource),
    Template(&'a ResourceTemplate),
}

#[derive(Clone, Copy)]
struct Limits {
    uri_bytes: usize,
    argument_bytes: usize,
    subscriptions: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { uri_bytes: MAX_URI_BYTES, argument_bytes: MAX_ARGUMENT_BYTES, subscriptions: MAX_SUBSCRIPTIONS }
    }
}

#[derive(Default)]
struct Sessions {
    /// Every session opened, told when a set changes.
    peers: Vec<Peer<RoleServer>>,
    /// The URIs each session subscribed to, by session number.
    subscribed: HashMap<u64, Subscriber>,
}

struct Subscriber {
    peer: Peer<RoleServer>,
    uris: BTreeSet<String>,
}

impl Sessions {
    /// Forgets the sessions whose client left.
    fn prune(&mut self) {
        self.peers.retain(|peer| !peer.is_transport_closed());
        self.subscribed.retain(|_, subscriber| !subscriber.peer.is_transport_closed());
    }
}

/// Which list changed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum List {
    Resources,
    Prompts,
}

impl std::fmt::Debug for McpPrimitives {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sets = self.sets();
        f.debug_struct("McpPrimitives")
            .field("resources", &sets.resources)
            .field("templates", &sets.templates)
            .field("prompts", &sets.prompts)
            .finish_non_exhaustive()
    }
}

impl McpPrimitives {
    /// No primitives yet.
    pub fn new() -> McpPrimitives {
        McpPrimitives::default()
    }

    /// Offers `resource`; one with the same URI is replaced.
    pub fn resource(self, resource: Resource) -> McpPrimitives {
        self.change(|sets| put(&mut sets.resources, resource, |r| r.uri.clone()));
        self
    }

    /// Offers the resources of `template`; one with the same template text is replaced. A URI
    /// that is both a resource's and a template's is the resource's; one that two templates
    /// match is the first one's.
    pub fn resource_template(self, template: ResourceTemplate) -> McpPrimitives {
        self.change(|sets| put(&mut sets.templates, template, |t| t.template.text().to_owned()));
        self
    }

    /// Offers `prompt`; one with the same name is replaced.
    pub fn prompt(self, prompt: Prompt) -> McpPrimitives {
        self.change(|sets| put(&mut sets.prompts, prompt, |p| p.name.clone()));
        self
    }

    /// The longest URI a client may send, in bytes (4096 unless told; at least 1). A longer one
    /// is refused with invalid params before any lookup.
    pub fn max_uri_bytes(self, bytes: usize) -> McpPrimitives {
        self.inner.limits.write().unwrap_or_else(|e| e.into_inner()).uri_bytes = bytes.max(1);
        self
    }

    /// The longest prompt argument (its name and its value), prompt name or completion value a
    /// client may send, in bytes (65536 unless told; at least 1).
    pub fn max_argument_bytes(self, bytes: usize) -> McpPrimitives {
        self.inner.limits.write().unwrap_or_else(|e| e.into_inner()).argument_bytes = bytes.max(1);
        self
    }

    /// How many URIs one session may subscribe to at once (256 unless told).
    pub fn max_subscriptions_per_session(self, uris: usize) -> McpPrimitives {
        self.inner.limits.write().unwrap_or_else(|e| e.into_inner()).subscriptions = uris;
        self
    }

    /// Tells every session subscribed to `uri` that the resource changed
    /// (`notifications/resources/updated`); returns how many sessions subscribed with
    /// `resources/subscribe` were told. The `subscriptions/listen` streams (protocol 2026-07-28)
    /// that asked for `uri` are told too.
    pub async fn resource_updated(&self, uri: &str) -> usize {
        // No stream listening is no error.
        let _ = self.inner.changes.send(Change::Updated(uri.to_owned()));
        let peers: Vec<Peer<RoleServer>> = {
            let mut sessions = self.inner.sessions.lock().unwrap_or_else(|e| e.into_inner());
            sessions.prune();
            sessions.subscribed.values().filter(|s| s.uris.contains(uri)).map(|s| s.peer.clone()).collect()
        };
        let mut told = 0;
        for peer in peers {
            if peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await.is_ok() {
                told += 1;
            }
        }
        told
    }

    /// Offers `resource` from now on, telling every session the list changed.
    pub async fn add_resource(&self, resource: Resource) {
        self.change(|sets| put(&mut sets.resources, resource, |r| r.uri.clone()));
        self.announce(List::Resources).await;
    }

    /// Stops offering the resource at `uri`, telling every session the list changed; `false`
    /// when there was none.
    pub async fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.change(|sets| take(&mut sets.resources, |r| r.uri == uri));
        if removed {
            self.announce(List::Resources).await;
        }
        removed
    }

    /// Offers the resources of `template` from now on, telling every session the list changed.
    pub async fn add_resource_template(&self, template: ResourceTemplate) {
        self.change(|sets| put(&mut sets.templates, template, |t| t.template.text().to_owned()));
        self.announce(List::Resources).await;
    }

    /// Stops offering the template written `uri_template`, telling every session the list
    /// changed; `false` when there was none.
    pub async fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed = self.change(|sets| take(&mut sets.templates, |t| t.template.text() == uri_template));
        if removed {
            self.announce(List::Resources).await;
        }
        removed
    }

    /// Offers `prompt` from now on, telling every session the list changed.
    pub async fn add_prompt(&self, prompt: Prompt) {
        self.change(|sets| put(&mut sets.prompts, prompt, |p| p.name.clone()));
        self.announce(List::Prompts).await;
    }

    /// Stops offering the prompt `name`, telling every session the list changed; `false` when
    /// there was none.
    pub async fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.change(|sets| take(&mut sets.prompts, |p| p.name == name));
        if removed {
            self.announce(List::Prompts).await;
        }
        removed
    }

    fn change<R>(&self, change: impl FnOnce(&mut Sets) -> R) -> R {
        let mut sets = self.inner.sets.write().unwrap_or_else(|e| e.into_inner());
        change(Arc::make_mut(&mut sets))
    }

    fn sets(&self) -> Arc<Sets> {
        Arc::clone(&self.inner.sets.read().unwrap_or_else(|e| e.into_inner()))
    }

    fn limits(&self) -> Limits {
        *self.inner.limits.read().unwrap_or_else(|e| e.into_inner())
    }

    async fn announce(&self, list: List) {
        // No stream listening is no error.
        let _ = self.inner.changes.send(Change::List(list));
        let peers = {
            let mut sessions = self.inner.sessions.lock().unwrap_or_else(|e| e.into_inner());
            sessions.prune();
            sessions.peers.clone()
        };
        for peer in peers {
            // A client that left meanwhile is forgotten at the next change.
            let _ = match list {
                List::Resources => peer.notify_resource_list_changed().await,
                List::Prompts => peer.notify_prompt_list_changed().await,
            };
        }
    }

    /// Declares the capabilities of what is offered.
    pub(crate) fn declare(&self, capabilities: &mut ServerCapabilities) {
        let sets = self.sets();
        if sets.has_resources() {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = Some(true);
            resources.list_changed = Some(true);
            capabilities.resources = Some(resources);
        }
        if !sets.prompts.is_empty() {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = Some(true);
            capabilities.prompts = Some(prompts);
        }
        if sets.has_completers() {
            capabilities.completions = Some(Map::new());
        }
    }

    /// What of a `subscriptions/listen` request's filter is served here: the lists' changes, and
    /// the updates of the URIs the client may subscribe to (known, within the URI bound, at most
    /// as many as one session may subscribe to).
    pub(crate) fn accept(&self, requested: &SubscriptionFilter, accepted: &mut SubscriptionFilter) {
        let sets = self.sets();
        let limits = self.limits();
        if sets.has_resources() {
            accepted.resources_list_changed = requested.resources_list_changed.filter(|&wanted| wanted);
            accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
                uris.iter()
                    .filter(|uri| uri.len() <= limits.uri_bytes && sets.find(uri).is_some())
                    .take(limits.subscriptions)
                    .cloned()
                    .collect()
            });
        }
        if !sets.prompts.is_empty() {
            accepted.prompts_list_changed = requested.prompts_list_changed.filter(|&wanted| wanted);
        }
    }

    /// The changes to come, for one `subscriptions/listen` stream.
    pub(crate) fn changes(&self) -> broadcast::Receiver<Change> {
        self.inner.changes.subscribe()
    }

    /// Sends `change` on the stream when its filter asked for it; `false` when the stream is
    /// gone. A stream that fell behind misses the changes it could not keep.
    pub(crate) async fn forward(
        &self,
        context: &SubscriptionContext,
        change: Result<Change, broadcast::error::RecvError>,
    ) -> bool {
        let accepted = context.accepted();
        let sent = match change {
            Err(broadcast::error::RecvError::Lagged(_)) => return true,
            Err(broadcast::error::RecvError::Closed) => return false,
            Ok(Change::List(List::Resources)) if accepted.resources_list_changed == Some(true) => {
                context.sink().notify_resource_list_changed().await
            }
            Ok(Change::List(List::Prompts)) if accepted.prompts_list_changed == Some(true) => {
                context.sink().notify_prompt_list_changed().await
            }
            Ok(Change::Updated(uri))
                if accepted.resource_subscriptions.as_ref().is_some_and(|uris| uris.contains(&uri)) =>
            {
                context.sink().notify_resource_updated(uri).await
            }
            Ok(_) => return true,
        };
        sent.is_ok()
    }

    /// Notes a session, to tell it when a list changes.
    pub(crate) fn opened(&self, peer: &Peer<RoleServer>) {
        let mut sessions = self.inner.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.prune();
        sessions.peers.push(peer.clone());
    }

    pub(crate) fn list_resources(&self, cursor: Option<String>, page: usize) -> Result<ListResourcesResult, ErrorData> {
        let sets = self.sets();
        if !sets.has_resources() {
            return Err(not_offered("resources"));
        }
        listed(&sets.resources, cursor, page, "resources", Resource::to_mcp)
    }

    pub(crate) fn list_resource_templates(
        &self,
        cursor: Option<String>,
        page: usize,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let sets = self.sets();
        if !sets.has_resources() {
            return Err(not_offered("resources"));
        }
        listed(&sets.templates, cursor, page, "resourceTemplates", ResourceTemplate::to_mcp)
    }

    pub(crate) fn list_prompts(&self, cursor: Option<String>, page: usize) -> Result<ListPromptsResult, ErrorData> {
        let sets = self.sets();
        if sets.prompts.is_empty() {
            return Err(not_offered("prompts"));
        }
        listed(&sets.prompts, cursor, page, "prompts", Prompt::to_mcp)
    }

    /// `resources/read`: the reader's content, or MCP's "resource not found" (-32002) with the
    /// URI; a reader's error or panic is an internal error, never a closed session.
    pub(crate) async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        self.check_uri(uri)?;
        let sets = self.sets();
        let Some((request, found)) = sets.find(uri) else {
            let names = Names::new(sets.resources.iter().map(|r| r.uri.as_str()));
            let close: Vec<&str> = names.closest(uri, 1, 0.34).into_iter().map(|i| names.name(i)).collect();
            let hint = close.first().map(|uri| format!("; did you mean `{uri}`?")).unwrap_or_default();
            return Err(not_found(uri, &hint));
        };
        let (reader, mime_type) = match found {
            Found::Resource(resource) => (resource.reader.clone(), resource.about.mime_type.clone()),
            Found::Template(template) => (template.reader.clone(), template.about.mime_type.clone()),
        };
        drop(sets);
        let content = reader.read(request).await.map_err(|failure| match failure {
            ReadFailure::Error(ResourceError::NotFound) => not_found(uri, ""),
            ReadFailure::Error(ResourceError::Failed(message)) => ErrorData::internal_error(
                format!("reading the resource `{}` failed: {message}", truncate(uri)),
                Some(json!({"uri": uri})),
            ),
            ReadFailure::Panicked(panic) => {
                tracing::error!(uri, panic, "an MCP resource reader panicked");
                ErrorData::internal_error(
                    format!("reading the resource `{}` failed: its reader panicked", truncate(uri)),
                    Some(json!({"uri": uri})),
                )
            }
        })?;
        let contents = content.to_mcp(uri, mime_type.as_deref());
        result(json!({"contents": [contents]}))
    }

    /// `resources/subscribe`, for the session numbered `session` (none on a stateless server).
    pub(crate) fn subscribe(&self, session: Option<u64>, peer: &Peer<RoleServer>, uri: &str) -> Result<(), ErrorData> {
        self.check_uri(uri)?;
        let Some(session) = session else { return Err(sessionless()) };
        if self.sets().find(uri).is_none() {
            return Err(not_found(uri, ""));
        }
        let most = self.limits().subscriptions;
        let mut sessions = self.inner.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.prune();
        let subscriber = sessions
            .subscribed
            .entry(session)
            .or_insert_with(|| Subscriber { peer: peer.clone(), uris: BTreeSet::new() });
        if !subscriber.uris.contains(uri) && subscriber.uris.len() >= most {
            return Err(ErrorData::invalid_params(
                format!(
                    "this session is subscribed to {} resources, the most this server keeps for one session (the host sets it with `max_subscriptions_per_session`); unsubscribe from one first",
                    subscriber.uris.len()
                ),
                Some(json!({"uri": uri})),
            ));
        }
        subscriber.uris.insert(uri.to_owned());
        Ok(())
    }

    /// `resources/unsubscribe`: done whether or not the session was subscribed.
    pub(crate) fn unsubscribe(&self, session: Option<u64>, uri: &str) -> Result<(), ErrorData> {
        self.check_uri(uri)?;
        let Some(session) = session else { return Err(sessionless()) };
        let mut sessions = self.inner.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(subscriber) = sessions.subscribed.get_mut(&session) {
            subscriber.uris.remove(uri);
            if subscriber.uris.is_empty() {
                sessions.subscribed.remove(&session);
            }
        }
        Ok(())
    }

    /// The question `prompts/get` of `request` asks the user first, if any (see
    /// [`Prompt::asks`]).
    pub(crate) fn prompt_question(
        &self,
        request: &GetPromptRequestParams,
    ) -> Result<Option<crate::ask::ElicitationRequest>, ErrorData> {
        self.check_argument("the prompt name", &request.name, self.limits())?;
        let sets = self.sets();
        Ok(self.prompt_named(&sets, &request.name)?.question(request.arguments.as_ref()).cloned())
    }

    /// `prompts/get`: the prompt's messages for the client's arguments, with the warnings of
    /// reading them in `_meta`.
    pub(crate) fn get_prompt(&self, request: GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
        let limits = self.limits();
        self.check_argument("the prompt name", &request.name, limits)?;
        let sets = self.sets();
        let prompt = self.prompt_named(&sets, &request.name)?;
        let given = request.arguments.unwrap_or_default();
        for (name, value) in &given {
            self.check_argument("an argument's name", name, limits)?;
            let length = value.as_str().map_or_else(|| value.to_string().len(), str::len);
            if length > limits.argument_bytes {
                return Err(too_long(&format!("the argument `{}`", truncate(name)), length, limits.argument_bytes));
            }
        }
        let name = truncate(&prompt.name);
        let (messages, warnings) = prompt.render(&given).map_err(|failure| match failure {
            PromptFailure::Missing(missing) => ErrorData::invalid_params(
                format!(
                    "the prompt `{name}` needs the argument{} {}, which the request left out",
                    plural(missing.len()),
                    quoted(&missing)
                ),
                Some(json!({"prompt": prompt.name, "missing": missing})),
            ),
            PromptFailure::Invalid(why) => {
                ErrorData::invalid_params(format!("the arguments of the prompt `{name}` cannot be used: {why}"), None)
            }
            PromptFailure::Error(PromptError::InvalidArguments(why)) => {
                ErrorData::invalid_params(format!("the prompt `{name}` cannot use these arguments: {why}"), None)
            }
            PromptFailure::Error(PromptError::Failed(why)) => {
                ErrorData::internal_error(format!("making the prompt `{name}` failed: {why}"), None)
            }
            PromptFailure::Panicked(panic) => {
                tracing::error!(prompt = %name, panic, "an MCP prompt panicked");
                ErrorData::internal_error(format!("making the prompt `{name}` failed: it panicked"), None)
            }
        })?;
        let mut reply = json!({"messages": messages});
        if let Some(description) = prompt.description_text() {
            reply["description"] = Value::from(description);
        }
        if !warnings.is_empty() {
            reply["_meta"] = json!({ MCP_WARNINGS_META: warnings });
        }
        result(reply)
    }

    /// `completion/complete`: the host's candidates for a prompt argument or a template
    /// variable; none when the host gave no completer for it.
    pub(crate) fn complete(&self, request: CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
        let limits = self.limits();
        let argument = &request.argument;
        self.check_argument("the completed argument's name", &argument.name, limits)?;
        self.check_argument("the completed value", &argument.value, limits)?;
        let given = request.context.and_then(|context| context.arguments).unwrap_or_default();
        for (name, value) in &given {
            self.check_argument("an argument's name in the context", name, limits)?;
            self.check_argument(&format!("the argument `{}` in the context", truncate(name)), value, limits)?;
        }
        let sets = self.sets();
        let (completers, what, declared): (&Completers, String, Vec<&str>) = match &request.r#ref {
            Reference::Prompt(reference) => {
                self.check_argument("the prompt name", &reference.name, limits)?;
                let prompt = self.prompt_named(&sets, &reference.name)?;
                let declared = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
                (&prompt.completers, format!("the prompt `{}`", truncate(&prompt.name)), declared)
            }
            Reference::Resource(reference) => {
                self.check_uri(&reference.uri)?;
                let template = sets.templates.iter().find(|t| t.template.text() == reference.uri).ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!(
                            "there is no resource template `{}`; the templates are {}",
                            truncate(&reference.uri),
                            quoted(&sets.templates.iter().map(|t| t.template.text().to_owned()).collect::<Vec<_>>())
                        ),
                        Some(json!({"uri": reference.uri})),
                    )
                })?;
                let declared = template.template.variables().collect();
                (&template.completers, format!("the resource template `{}`", template.template.text()), declared)
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    "the reference is neither `ref/prompt` nor `ref/resource`, the ones this server completes",
                    None,
                ))
            }
        };
        if !declared.contains(&argument.name.as_str()) {
            let declared: Vec<String> = declared.iter().map(|d| (*d).to_owned()).collect();
            let has = if declared.is_empty() { "none".to_owned() } else { quoted(&declared) };
            return Err(ErrorData::invalid_params(
                format!("{what} has no argument `{}`; its arguments are {has}", truncate(&argument.name)),
                None,
            ));
        }
        let completion = complete(completers.get(&argument.name), &argument.value, &given).map_err(|panic| {
            tracing::error!(argument = %argument.name, panic, "an MCP completer panicked");
            ErrorData::internal_error(
                format!("completing the argument `{}` of {what} failed: its completer panicked", argument.name),
                None,
            )
        })?;
        result(json!({"completion": completion}))
    }

    fn prompt_named<'s>(&self, sets: &'s Sets, name: &str) -> Result<&'s Prompt, ErrorData> {
        sets.prompts.iter().find(|p| p.name == name).ok_or_else(|| {
            let names = Names::new(sets.prompts.iter().map(|p| p.name.as_str()));
            let close: Vec<&str> = names.closest(name, 1, 0.34).into_iter().map(|i| names.name(i)).collect();
            let hint = close.first().map(|name| format!("; did you mean `{name}`?")).unwrap_or_default();
            ErrorData::invalid_params(
                format!("there is no prompt `{}`{hint}", truncate(name)),
                Some(json!({"name": name})),
            )
        })
    }

    fn check_uri(&self, uri: &str) -> Result<(), ErrorData> {
        let most = self.limits().uri_bytes;
        if uri.len() > most {
            return Err(ErrorData::invalid_params(
                format!(
                    "the URI is {} bytes long, and this server takes URIs of at most {most} bytes (the host sets it with `max_uri_bytes`)",
                    uri.len()
                ),
                None,
            ));
        }
        Ok(())
    }

    fn check_argument(&self, what: &str, value: &str, limits: Limits) -> Result<(), ErrorData> {
        if value.len() > limits.argument_bytes {
            return Err(too_long(what, value.len(), limits.argument_bytes));
        }
        Ok(())
    }
}

/// `item` added to `items`, in place of the one with its key.
fn put<T>(items: &mut Vec<T>, item: T, key: impl Fn(&T) -> String) {
    let wanted = key(&item);
    match items.iter_mut().find(|existing| key(existing) == wanted) {
        Some(existing) => *existing = item,
        None => items.push(item),
    }
}

/// Removes the item `which` picks; whether there was one.
fn take<T>(items: &mut Vec<T>, which: impl Fn(&T) -> bool) -> bool {
    let before = items.len();
    items.retain(|item| !which(item));
    items.len() != before
}

/// A page of `items` as the list result `R`, under `key`; the cursor is the index of the
/// page's first item, as text.
fn listed<T, R: DeserializeOwned>(
    items: &[T],
    cursor: Option<String>,
    page: usize,
    key: &str,
    to_mcp: impl Fn(&T) -> Value,
) -> Result<R, ErrorData> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|&start| start < items.len())
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown cursor `{}`", truncate(&cursor)), None))?,
    };
    let end = start.saturating_add(page.max(1)).min(items.len());
    let mut reply = json!({ key: items[start..end].iter().map(to_mcp).collect::<Vec<_>>() });
    if end < items.len() {
        reply["nextCursor"] = Value::from(end.to_string());
    }
    result(reply)
}

/// `value` as the rmcp result type it was built for, marked complete: protocol 2026-07-28
/// requires `resultType` on every result (rmcp's constructors set it, and rmcp takes it out for
/// peers of earlier versions), and these are built from JSON, not with the constructors.
fn result<R: DeserializeOwned>(mut value: Value) -> Result<R, ErrorData> {
    if let Value::Object(fields) = &mut value {
        fields.insert("resultType".to_owned(), Value::from("complete"));
    }
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("the result is not a valid MCP result: {e}"), None))
}

fn not_offered(what: &str) -> ErrorData {
    ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("this server offers no {what}"), None)
}

fn not_found(uri: &str, hint: &str) -> ErrorData {
    ErrorData::resource_not_found(format!("there is no resource `{}`{hint}", truncate(uri)), Some(json!({"uri": uri})))
}

fn sessionless() -> ErrorData {
    ErrorData::invalid_request(
        "this server keeps no sessions (stateless HTTP), so it cannot tell a client when a resource changes; read the resource again instead",
        None,
    )
}

fn too_long(what: &str, length: usize, most: usize) -> ErrorData {
    ErrorData::invalid_params(
        format!("{what} is {length} bytes long, and this server takes at most {most} (the host sets it with `max_argument_bytes`)"),
        None,
    )
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

fn quoted(names: &[String]) -> String {
    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
}
