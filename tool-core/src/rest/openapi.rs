//! REST tool specs from an OpenAPI 3.0 or 3.1 document (JSON or YAML): one per operation.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::call::scalar_text;
use super::error::RestError;
use super::spec::RestToolSpec;

/// How deep `$ref`s are followed before a schema is cut short (a recursive schema).
const REF_DEPTH: usize = 32;
/// How many JSON nodes one operation's parameters and body may expand to, `$ref`s inlined.
const MAX_SCHEMA_NODES: usize = 100_000;
/// How many JSON nodes all the operations imported from one document may expand to.
const MAX_DOCUMENT_NODES: usize = 1_000_000;
/// The keys of an operation a tool is made from (its responses say nothing to the model).
const OPERATION_KEYS: [&str; 6] = ["operationId", "summary", "description", "tags", "parameters", "requestBody"];
/// The methods an OpenAPI path item may hold.
const METHODS: [&str; 7] = ["get", "put", "post", "delete", "options", "head", "patch"];

/// Which operations of an OpenAPI document become tools, and where their requests go.
#[derive(Debug, Clone)]
pub struct OpenApiOptions {
    /// Where requests go; the document's first server (its variables at their defaults)
    /// unless given. Required when that server URL is relative.
    pub base_url: Option<String>,
    /// Only operations with one of these tags (all when empty).
    pub tags: Vec<String>,
    /// Only operations with one of these ids (all when empty).
    pub operations: Vec<String>,
    /// Put before each tool's name (`petstore.`).
    pub prefix: String,
    /// Headers sent with every request (`${NAME}` reads the environment, as in registries).
    pub headers: BTreeMap<String, String>,
    /// The time limit of each call.
    pub timeout_ms: Option<u64>,
    /// How many JSON nodes (objects, arrays, values) one operation's parameters and request
    /// body may expand to once `$ref`s are inlined (100,000 unless set): a few schemas that
    /// each reference the next twice expand to millions, so a document past this is refused,
    /// naming the operation.
    pub max_schema_nodes: usize,
    /// How many JSON nodes all the selected operations together may expand to (1,000,000
    /// unless set): many operations that each stay under `max_schema_nodes` are refused too,
    /// naming the operation where the total ran out.
    pub max_document_nodes: usize,
}

impl Default for OpenApiOptions {
    fn default() -> OpenApiOptions {
        OpenApiOptions {
            base_url: None,
            tags: Vec::new(),
            operations: Vec::new(),
            prefix: String::new(),
            headers: BTreeMap::new(),
            timeout_ms: None,
            max_schema_nodes: MAX_SCHEMA_NODES,
            max_document_nodes: MAX_DOCUMENT_NODES,
        }
    }
}

/// The specs of the operations of `document` that `options` select, in the document's order.
pub fn openapi_specs(document: &str, options: &OpenApiOptions) -> Result<Vec<RestToolSpec>, RestError> {
    let doc = parse(document)?;
    let version = doc.get("openapi").and_then(Value::as_str).unwrap_or_default();
    if !(version.starts_with("3.0") || version.starts_with("3.1")) {
        return Err(invalid(format!("this is not an OpenAPI 3.0 or 3.1 document (`openapi: {version}`)")));
    }
    let base_url = match &options.base_url {
        Some(url) => url.clone(),
        None => server_url(&doc)?,
    };
    let mut specs = Vec::new();
    let mut document_left = options.max_document_nodes;
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else { return Ok(specs) };
    for (path, item) in paths {
        // A path item may be a `$ref` itself; its operations are expanded one by one below.
        let item = follow(&doc, item);
        let shared = item.get("parameters").cloned().unwrap_or(Value::Null);
        for method in METHODS {
            let Some(operation) = item.get(method) else { continue };
            if !selected(operation, options) {
                continue;
            }
            let mut spec = operation_spec(&doc, path, method, operation, &shared, options, &mut document_left)?;
            spec.base_url.clone_from(&base_url);
            spec.scopes = oauth_scopes(&doc, operation);
            specs.push(spec);
        }
    }
    Ok(specs)
}

/// The OAuth scopes an operation needs, from its `security` (else the document's): those of the
/// first requirement that names any, of its `oauth2` and `openIdConnect` schemes. OpenAPI lists
/// requirements as alternatives, and a tool needs every scope it names, so one alternative is
/// taken: the first that says something. At most [`MAX_SCOPES`] are kept.
fn oauth_scopes(doc: &Value, operation: &Value) -> Vec<String> {
    let schemes = doc.pointer("/components/securitySchemes").and_then(Value::as_object);
    let is_oauth = |name: &str| {
        let scheme = schemes.and_then(|schemes| schemes.get(name)).map(|scheme| follow(doc, scheme));
        matches!(scheme.and_then(|s| s.get("type")).and_then(Value::as_str), Some("oauth2" | "openIdConnect"))
    };
    let security = operation.get("security").or_else(|| doc.get("security")).and_then(Value::as_array);
    let mut scopes: Vec<String> = security
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .map(|requirement| {
            requirement
                .iter()
                .filter(|(name, _)| is_oauth(name))
                .filter_map(|(_, scopes)| scopes.as_array())
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .find(|scopes| !scopes.is_empty())
        .unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    scopes.retain(|scope| seen.insert(scope.clone()));
    scopes.truncate(MAX_SCOPES);
    scopes
}

/// Scopes of one operation kept at most: a tool's scopes go into every `tools/list` and every
/// refusal's challenge.
const MAX_SCOPES: usize = 32;

fn invalid(reason: String) -> RestError {
    RestError::Parse { format: "OpenAPI", reason }
}

/// JSON, or YAML (keys of any scalar kind read as text).
fn parse(document: &str) -> Result<Value, RestError> {
    if document.trim_start().starts_with('{') {
        return serde_json::from_str(document).map_err(|e| RestError::Parse { format: "JSON", reason: e.to_string() });
    }
    let yaml: yaml_serde::Value =
        yaml_serde::from_str(document).map_err(|e| RestError::Parse { format: "YAML", reason: e.to_string() })?;
    Ok(from_yaml(yaml))
}

fn from_yaml(value: yaml_serde::Value) -> Value {
    match value {
        yaml_serde::Value::Null => Value::Null,
        yaml_serde::Value::Bool(b) => Value::Bool(b),
        yaml_serde::Value::Number(n) => serde_json::to_value(&n).unwrap_or(Value::Null),
        yaml_serde::Value::String(s) => Value::String(s),
        yaml_serde::Value::Sequence(items) => Value::Array(items.into_iter().map(from_yaml).collect()),
        yaml_serde::Value::Mapping(map) => Value::Object(
            map.into_iter().map(|(key, value)| (scalar_text(&from_yaml(key)), from_yaml(value))).collect(),
        ),
        yaml_serde::Value::Tagged(tagged) => from_yaml(tagged.value),
    }
}

/// The first server's URL with its variables at their defaults.
fn server_url(doc: &Value) -> Result<String, RestError> {
    let server = doc
        .pointer("/servers/0")
        .ok_or_else(|| invalid("the document names no server: give `OpenApiOptions::base_url`".to_owned()))?;
    let mut url = server.get("url").and_then(Value::as_str).unwrap_or_default().to_owned();
    if let Some(variables) = server.get("variables").and_then(Value::as_object) {
        for (name, variable) in variables {
            let default = variable.get("default").map(scalar_text).unwrap_or_default();
            url = url.replace(&format!("{{{name}}}"), &default);
        }
    }
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return Err(invalid(format!(
            "the document's server URL `{url}` is not absolute: give `OpenApiOptions::base_url`"
        )));
    }
    Ok(url)
}

fn selected(operation: &Value, options: &OpenApiOptions) -> bool {
    let id = operation.get("operationId").and_then(Value::as_str);
    let tags: Vec<&str> =
        operation.get("tags").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    (options.operations.is_empty() || id.is_some_and(|id| options.operations.iter().any(|o| o == id)))
        && (options.tags.is_empty() || tags.iter().any(|t| options.tags.iter().any(|o| o == t)))
}

/// What a local `$ref` points at, one step (the value itself when it is not one).
fn follow<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference.strip_prefix('#').and_then(|pointer| doc.pointer(pointer)).unwrap_or(value),
        None => value,
    }
}

/// Inlines local `$ref`s within a budget of nodes, so that a small document cannot expand to
/// an enormous schema.
struct Expander<'a> {
    doc: &'a Value,
    /// Nodes that may still be made.
    left: usize,
    /// The outermost `$ref` being inlined when the budget ran out.
    exhausted_at: Option<String>,
}

impl Expander<'_> {
    /// `value` with every local `$ref` replaced by what it points at (sibling keys kept over
    /// it), and vendor extensions (`x-..`) and `xml` hints dropped: they say nothing to a
    /// model. `None` once the budget is spent.
    fn resolve(&mut self, value: &Value, depth: usize) -> Option<Value> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(match value {
            Value::Object(object) => {
                let mut out = Map::new();
                if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
                    let target = reference.strip_prefix('#').and_then(|pointer| self.doc.pointer(pointer));
                    match target {
                        Some(target) if depth < REF_DEPTH => match self.resolve(target, depth + 1) {
                            Some(Value::Object(target)) => out = target,
                            Some(_) => {}
                            None => {
                                self.exhausted_at = Some(reference.to_owned());
                                return None;
                            }
                        },
                        // Too deep (a recursive schema) or not in this document: any value.
                        _ => {}
                    }
                }
                for (key, child) in object {
                    if key == "$ref" || key == "xml" || key.starts_with("x-") {
                        continue;
                    }
                    out.insert(key.clone(), self.resolve(child, depth)?);
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.resolve(item, depth)).collect::<Option<_>>()?)
            }
            other => other.clone(),
        })
    }
}

/// A name a tool may have: invalid characters become `_`, cut to 64.
fn tool_name(prefix: &str, id: &str) -> String {
    let mut name: String = format!("{prefix}{id}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    name.chars().take(64).collect()
}

fn operation_spec(
    doc: &Value,
    path: &str,
    method: &str,
    operation: &Value,
    shared: &Value,
    options: &OpenApiOptions,
    document_left: &mut usize,
) -> Result<RestToolSpec, RestError> {
    let id = operation
        .get("operationId")
        .and_then(Value::as_str)
        .map_or_else(|| format!("{method}_{}", path.trim_matches('/')), str::to_owned);
    let name = tool_name(&options.prefix, &id);
    let budget = options.max_schema_nodes.min(*document_left);
    let mut expander = Expander { doc, left: budget, exhausted_at: None };
    let mut used: Map<String, Value> = OPERATION_KEYS
        .iter()
        .filter_map(|key| operation.get(*key).map(|value| ((*key).to_owned(), value.clone())))
        .collect();
    // Of the request body, only its JSON schema makes parameters.
    if let Some(body) = operation.get("requestBody").map(|body| follow(doc, body)) {
        let mut kept = Map::new();
        if let Some(required) = body.get("required") {
            kept.insert("required".to_owned(), required.clone());
        }
        if let Some((kind, media)) = body.get("content").and_then(Value::as_object).and_then(json_media) {
            kept.insert("content".to_owned(), json!({ kind: media }));
        }
        used.insert("requestBody".to_owned(), Value::Object(kept));
    }
    let (Some(operation), Some(shared)) = (expander.resolve(&Value::Object(used), 0), expander.resolve(shared, 0))
    else {
        let at = expander.exhausted_at.map(|r| format!(" (at `{r}`)")).unwrap_or_default();
        let method = method.to_uppercase();
        let reason = match budget < options.max_schema_nodes {
            true => format!(
                "the operations selected from the document expand to more than {} schema nodes together once \
                 `$ref`s are inlined, reached at `{method} {path}`{at}; raise `OpenApiOptions::max_document_nodes` \
                 to import them",
                options.max_document_nodes
            ),
            false => format!(
                "the parameters and body of `{method} {path}` expand to more than {} schema nodes once `$ref`s are \
                 inlined{at}; raise `OpenApiOptions::max_schema_nodes` to import it",
                options.max_schema_nodes
            ),
        };
        return Err(RestError::Invalid { tool: name, reason });
    };
    *document_left -= budget - expander.left;
    let text = |key: &str| operation.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let description = match (text("summary"), text("description")) {
        (Some(summary), Some(description)) if summary != description => format!("{summary}\n\n{description}"),
        (Some(text), _) | (None, Some(text)) => text.to_owned(),
        (None, None) => format!("{} {path}", method.to_uppercase()),
    };
    // The caller sets the base URL.
    let mut spec = RestToolSpec::new(name, description, method.to_uppercase(), String::new(), path);
    spec.headers = options.headers.clone();
    spec.timeout_ms = options.timeout_ms;
    spec.tags = operation
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();

    let mut properties = Map::new();
    let mut required: Vec<String> = Vec::new();
    // Path-item parameters first; an operation's own parameter of the same name and place
    // replaces one.
    let mut parameters: Vec<Value> = Vec::new();
    for parameter in [shared, operation.get("parameters").cloned().unwrap_or(Value::Null)]
        .iter()
        .filter_map(Value::as_array)
        .flatten()
    {
        let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
        parameters.retain(|p| key(p) != key(parameter));
        parameters.push(parameter.clone());
    }
    for parameter in &parameters {
        let (Some(name), Some(place)) =
            (parameter.get("name").and_then(Value::as_str), parameter.get("in").and_then(Value::as_str))
        else {
            continue;
        };
        let mut schema = parameter.get("schema").cloned().unwrap_or_else(|| json!({}));
        if let (Some(text), Value::Object(schema)) = (parameter.get("description").and_then(Value::as_str), &mut schema)
            && !text.trim().is_empty()
        {
            schema.insert("description".to_owned(), Value::from(text.trim()));
        }
        match place {
            "path" => {}
            "query" => spec.query.push(name.to_owned()),
            "header" => {
                spec.header_parameters.insert(name.to_owned(), name.to_owned());
            }
            // Cookies are the host's business, not the model's.
            _ => continue,
        }
        if place == "path" || parameter.get("required").and_then(Value::as_bool) == Some(true) {
            required.push(name.to_owned());
        }
        properties.insert(name.to_owned(), schema);
    }

    if let Some(body) = json_body(&operation) {
        let body_required = operation.pointer("/requestBody/required").and_then(Value::as_bool) == Some(true);
        let fields = body.get("properties").and_then(Value::as_object).filter(|fields| {
            body.get("type").is_none_or(|t| t == "object") && fields.keys().all(|k| !properties.contains_key(k))
        });
        match fields {
            // An object body: its fields are the tool's parameters beside the others.
            Some(fields) => {
                for (name, schema) in fields {
                    properties.insert(name.clone(), schema.clone());
                }
                let listed = body.get("required").and_then(Value::as_array).into_iter().flatten();
                required.extend(listed.filter_map(Value::as_str).map(str::to_owned));
            }
            // Anything else: one parameter holding the whole body.
            None => {
                let name = if properties.contains_key("body") { "request_body" } else { "body" };
                properties.insert(name.to_owned(), body.clone());
                if body_required {
                    required.push(name.to_owned());
                }
                spec.body_parameter = Some(name.to_owned());
            }
        }
    }
    // Built as values: `json!` would serialize a copy of the (possibly large) properties.
    let mut parameters = Map::new();
    parameters.insert("type".to_owned(), Value::from("object"));
    parameters.insert("properties".to_owned(), Value::Object(properties));
    parameters.insert("required".to_owned(), Value::from(required));
    spec.parameters = Value::Object(parameters);
    Ok(spec)
}

/// The JSON schema of an operation's request body, when it takes JSON.
fn json_body(operation: &Value) -> Option<&Value> {
    let (_, media) = json_media(operation.pointer("/requestBody/content")?.as_object()?)?;
    media.get("schema")
}

/// The first JSON media type of a body's `content`.
fn json_media(content: &Map<String, Value>) -> Option<(&String, &Value)> {
    content.iter().find(|(kind, _)| kind.split(';').next().is_some_and(|k| k.trim().ends_with("json")))
}
