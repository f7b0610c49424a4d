//! Building REST tools from registries and specs.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::call::{Limits, RestCall};
use super::error::RestError;
use super::openapi::{openapi_specs, OpenApiOptions};
use super::spec::{RegistryFile, RestToolSpec};
use crate::tool::DynamicTool;

/// How long a request may wait to connect, on the client [`RestTools::new`] builds.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one request may take, body included, unless the host or the tool says otherwise.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How much of a response body is read unless the host or the tool says otherwise.
const MAX_BODY_BYTES: usize = 1 << 20;

/// Builds REST tools from specs, sharing one HTTP client (its connection pool).
///
/// The defaults hold against an API that misbehaves: no redirect is followed (a 3xx is the
/// call's answer), a request waits at most 10 s to connect and 30 s in all (body included),
/// and at most 1 MiB of a response body is read. The builder's methods loosen them.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tool_core::prelude::*;
/// use tool_core::rest::RestTools;
///
/// let tools = RestTools::new().load_file("tools.toml")?;
/// let mut catalog = ToolCatalog::builder().add_all_declared();
/// for tool in tools {
///     catalog = catalog.add_tool(tool);
/// }
/// let executor = Executor::new(catalog.build()?);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct RestTools {
    client: reqwest::Client,
    limits: Limits,
    /// The origins whose requests carry the call's trace context (feature `otel`).
    #[cfg(feature = "otel")]
    trace_origins: Vec<String>,
}

impl Default for RestTools {
    fn default() -> RestTools {
        RestTools::new()
    }
}

impl RestTools {
    /// A builder with its own HTTP client: no redirects followed, 10 s to connect.
    pub fn new() -> RestTools {
        // reqwest's own `Client::new` fails the same way, when the TLS backend cannot start.
        let client = RestTools::client_builder().build().expect("the HTTP client's TLS backend could not start");
        RestTools::with_client(client)
    }

    /// A builder whose tools send with `client` (proxies, TLS roots, default headers). The
    /// client's redirect policy and connection time-out are its own: reqwest's default client
    /// follows up to 10 redirects to any host, carrying the tools' headers with it, so start
    /// from [`RestTools::client_builder`], which follows none.
    pub fn with_client(client: reqwest::Client) -> RestTools {
        RestTools {
            client,
            limits: Limits { timeout: TIMEOUT, max_body_bytes: MAX_BODY_BYTES, redirects: 0 },
            #[cfg(feature = "otel")]
            trace_origins: Vec::new(),
        }
    }

    /// Sends the W3C trace context of each call (`traceparent`, `tracestate`) with the requests
    /// of the tools whose base URL is at one of `origins` (`https://api.internal`, with the port
    /// when it is not the scheme's own; feature `otel`), so that the API's work joins the
    /// agent turn's trace. Requests to any other origin carry none: a trace id is an
    /// identifier a third party could correlate. An origin that is not a URL matches nothing.
    #[cfg(feature = "otel")]
    pub fn propagate_trace_to<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, origins: I) -> RestTools {
        self.trace_origins.extend(origins.into_iter().filter_map(|o| origin_of(o.as_ref())));
        self
    }

    /// The client settings [`RestTools::new`] uses (no redirects followed, 10 s to connect),
    /// for a host that adds its own (proxies, TLS roots) before [`RestTools::with_client`].
    /// Redirects are followed by the tools themselves, see [`RestTools::follow_redirects`].
    pub fn client_builder() -> reqwest::ClientBuilder {
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).connect_timeout(CONNECT_TIMEOUT)
    }

    /// How long one request may take, from connecting to the body's end, for tools without a
    /// `timeout_ms` of their own (30 s unless set). A tool's `timeout_ms` is its whole call's
    /// limit instead, retries included.
    pub fn timeout(mut self, timeout: Duration) -> RestTools {
        self.limits.timeout = timeout;
        self
    }

    /// The most bytes of a response body read, for tools without a `max_body_bytes` of their
    /// own (1 MiB unless set): reading stops there, the connection is dropped, and the result
    /// says where it was cut; a JSON body cut is kept as text, not parsed.
    pub fn max_body_bytes(mut self, limit: usize) -> RestTools {
        self.limits.max_body_bytes = limit;
        self
    }

    /// Follows up to `max` redirects (none unless set), and only those that stay under the
    /// tool's base URL: the same scheme, host and port, below its path. A redirect anywhere
    /// else (another host or port, `https` to `http`, another path) is not followed and is the
    /// call's answer, so the tools' headers, secrets among them, never go elsewhere.
    pub fn follow_redirects(mut self, max: u32) -> RestTools {
        self.limits.redirects = max;
        self
    }

    /// The tools of a registry file: TOML (`[[tool]]` tables) unless its name ends in `.json`.
    pub fn load_file(&self, path: impl AsRef<Path>) -> Result<Vec<DynamicTool>, RestError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| RestError::Read { path: path.display().to_string(), reason: e.to_string() })?;
        let specs = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
            parse_json(&text)?
        } else {
            parse_toml(&text)?
        };
        self.build_all(&specs, &path.display().to_string())
    }

    /// The tools of a TOML registry (`[[tool]]` tables).
    pub fn load_toml(&self, text: &str) -> Result<Vec<DynamicTool>, RestError> {
        self.build_all(&parse_toml(text)?, "(toml)")
    }

    /// The tools of a JSON registry (`{"tools": [..]}`).
    pub fn load_json(&self, text: &str) -> Result<Vec<DynamicTool>, RestError> {
        self.build_all(&parse_json(text)?, "(json)")
    }

    /// One tool per operation of an OpenAPI 3.0 or 3.1 document (JSON or YAML) that `options`
    /// select: `operationId` as the name, summary and description, path, query and header
    /// parameters and the JSON request body as parameters, `$ref`s resolved.
    pub fn load_openapi(&self, document: &str, options: &OpenApiOptions) -> Result<Vec<DynamicTool>, RestError> {
        self.build_all(&openapi_specs(document, options)?, "(openapi)")
    }

    /// One tool from its spec.
    pub fn build(&self, spec: &RestToolSpec) -> Result<DynamicTool, RestError> {
        self.build_from(spec, "(code)")
    }

    fn build_all(&self, specs: &[RestToolSpec], source: &str) -> Result<Vec<DynamicTool>, RestError> {
        specs.iter().map(|spec| self.build_from(spec, source)).collect()
    }

    fn build_from(&self, spec: &RestToolSpec, source: &str) -> Result<DynamicTool, RestError> {
        #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
        let mut call = RestCall::new(spec, self.client.clone(), self.limits)?;
        #[cfg(feature = "otel")]
        {
            call.propagate = origin_of(&spec.base_url).is_some_and(|origin| self.trace_origins.contains(&origin));
        }
        let call = Arc::new(call);
        let mut builder = DynamicTool::builder(&spec.name)
            .description(&spec.description)
            .input_schema(spec.parameters.clone())
            .source(source, 0)
            .handler(move |arguments, _ctx| {
                let call = Arc::clone(&call);
                async move { call.call(arguments).await }
            });
        if let Some(limit) = spec.timeout_ms {
            builder = builder.timeout(Duration::from_millis(limit));
        }
        for tag in &spec.tags {
            builder = builder.tag(tag);
        }
        for scope in &spec.scopes {
            builder = builder.scope(scope);
        }
        Ok(builder.build()?)
    }
}

/// A URL's origin as a browser writes it (`https://api.internal:8443`), when it is a URL.
#[cfg(feature = "otel")]
fn origin_of(url: &str) -> Option<String> {
    reqwest::Url::parse(url).ok().map(|url| url.origin().ascii_serialization())
}

fn parse_toml(text: &str) -> Result<Vec<RestToolSpec>, RestError> {
    let file: RegistryFile =
        toml::from_str(text).map_err(|e| RestError::Parse { format: "TOML", reason: e.to_string() })?;
    Ok(file.tools)
}

fn parse_json(text: &str) -> Result<Vec<RestToolSpec>, RestError> {
    let file: RegistryFile =
        serde_json::from_str(text).map_err(|e| RestError::Parse { format: "JSON", reason: e.to_string() })?;
    Ok(file.tools)
}
