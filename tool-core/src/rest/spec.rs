//! A REST tool as declared: in a TOML or JSON registry file, or in code.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One REST tool: what the model sees (name, description, parameters) and how a call becomes
/// an HTTP request. Parameters named in the path template go into the path, those listed in
/// `query` into the query string, those in `header_parameters` into headers, and the rest into
/// the JSON body (into the query string for `GET`, `HEAD`, `DELETE` and `OPTIONS`).
///
/// ```toml
/// [[tool]]
/// name = "weather.current"
/// description = "Current weather for a city."
/// method = "GET"
/// base_url = "https://api.example.com/v1"
/// path = "/cities/{city}/weather"
/// query = ["units"]
/// timeout_ms = 5000
/// retries = 2
/// headers = { Authorization = "Bearer ${WEATHER_TOKEN}" }
///
/// [tool.parameters]
/// type = "object"
/// required = ["city"]
/// properties.city = { type = "string", description = "City name." }
/// properties.units = { type = "string", enum = ["metric", "imperial"] }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestToolSpec {
    /// The tool's name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The HTTP method (`GET` unless told).
    #[serde(default = "get")]
    pub method: String,
    /// Where every request goes: scheme, host, port and a base path. A call can never send a
    /// request anywhere else.
    pub base_url: String,
    /// The path below the base URL, with `{parameter}` placeholders.
    #[serde(default)]
    pub path: String,
    /// The arguments' JSON Schema (root `type: object`).
    #[serde(default = "no_parameters")]
    pub parameters: Value,
    /// Parameters sent in the query string.
    #[serde(default)]
    pub query: Vec<String>,
    /// Parameters sent as headers: header name to parameter name.
    #[serde(default)]
    pub header_parameters: BTreeMap<String, String>,
    /// The parameter whose value is the whole JSON body (an OpenAPI body that is not an object
    /// of fields); without it, the remaining parameters are the body's fields.
    #[serde(default)]
    pub body_parameter: Option<String>,
    /// Headers sent with every request. `${NAME}` in a value is the environment variable
    /// `NAME`, read when the tool is built: secrets stay out of the file, and out of every
    /// record, trace and error message.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The time limit of a call, retries included; without it each request (connection,
    /// answer and body) may take the `RestTools`' time (30 s unless the host set another).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The most bytes of a response body read; a longer body is cut there, saying so, and a
    /// JSON body cut is not parsed. The `RestTools`' limit (1 MiB unless the host set another)
    /// unless given.
    #[serde(default)]
    pub max_body_bytes: Option<usize>,
    /// How many times an idempotent request (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`) is
    /// sent again after a connection failure or a 429, 502, 503 or 504.
    #[serde(default)]
    pub retries: u32,
    /// The wait before the first retry, doubled before each next one (100 ms unless told).
    #[serde(default)]
    pub retry_backoff_ms: Option<u64>,
    /// Tags, for narrowing catalogs.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The OAuth scopes a caller's token must grant to call the tool over an MCP server
    /// protected by OAuth ([`ToolDefinition::scopes`](crate::ToolDefinition::scopes)); from an
    /// OpenAPI document, the operation's `security` says them.
    #[serde(default)]
    pub scopes: Vec<String>,
}

fn get() -> String {
    "GET".to_owned()
}

fn no_parameters() -> Value {
    json!({"type": "object", "properties": {}, "required": []})
}

impl RestToolSpec {
    /// A spec for `method` on `base_url` + `path`, without parameters; set the rest with the
    /// struct's fields.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        method: impl Into<String>,
        base_url: impl Into<String>,
        path: impl Into<String>,
    ) -> RestToolSpec {
        RestToolSpec {
            name: name.into(),
            description: description.into(),
            method: method.into(),
            base_url: base_url.into(),
            path: path.into(),
            parameters: no_parameters(),
            query: Vec::new(),
            header_parameters: BTreeMap::new(),
            body_parameter: None,
            headers: BTreeMap::new(),
            timeout_ms: None,
            max_body_bytes: None,
            retries: 0,
            retry_backoff_ms: None,
            tags: Vec::new(),
            scopes: Vec::new(),
        }
    }
}

/// A registry file: `[[tool]]` tables in TOML, or `{"tools": [..]}` in JSON.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RegistryFile {
    #[serde(rename = "tool", alias = "tools", default)]
    pub(super) tools: Vec<RestToolSpec>,
}
