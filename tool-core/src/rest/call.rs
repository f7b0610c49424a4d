//! A REST tool checked and ready: how a call's arguments become one HTTP request that can only
//! go to the configured base URL, and how the response becomes the call's result.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use reqwest::{Method, StatusCode, Url};
use serde_json::{Map, Value};

use super::error::RestError;
use super::spec::RestToolSpec;
use crate::model::{ToolError, ToolOutput};
use crate::tool::ToolResult;

/// How much of a non-JSON body becomes the result's text.
const TEXT_LIMIT: usize = 16_000;
/// How much of an error response's body goes in the error.
const ERROR_BODY_LIMIT: usize = 500;

/// One piece of the path template.
#[derive(Debug, Clone)]
enum Piece {
    Literal(String),
    Parameter(String),
}

/// A spec, checked: the request's fixed parts parsed once.
#[derive(Debug)]
pub(super) struct RestCall {
    name: String,
    method: Method,
    base: Url,
    path: Vec<Piece>,
    query: Vec<String>,
    header_parameters: Vec<(HeaderName, String)>,
    body_parameter: Option<String>,
    /// Fixed headers, secrets among them (marked sensitive, never printed).
    headers: HeaderMap,
    retries: u32,
    backoff: Duration,
    client: reqwest::Client,
}

fn bad(spec: &RestToolSpec, reason: impl Into<String>) -> RestError {
    RestError::Invalid { tool: spec.name.clone(), reason: reason.into() }
}

impl RestCall {
    pub(super) fn new(spec: &RestToolSpec, client: reqwest::Client) -> Result<RestCall, RestError> {
        let method = Method::from_bytes(spec.method.to_ascii_uppercase().as_bytes())
            .map_err(|_| bad(spec, format!("`{}` is not an HTTP method", spec.method)))?;
        let base = Url::parse(&spec.base_url)
            .map_err(|e| bad(spec, format!("the base URL `{}` is not a URL: {e}", spec.base_url)))?;
        if !matches!(base.scheme(), "http" | "https") || base.host().is_none() {
            return Err(bad(spec, format!("the base URL `{}` must be http(s)://host[:port][/path]", spec.base_url)));
        }
        if base.query().is_some() || base.fragment().is_some() || !base.username().is_empty() {
            return Err(bad(spec, "the base URL cannot carry a query, a fragment or credentials: use `headers`"));
        }
        let properties = spec.parameters.get("properties").and_then(Value::as_object);
        // Every name the spec routes must be a parameter.
        let require = |shown: String, name: &str| match properties.is_some_and(|p| p.contains_key(name)) {
            true => Ok(()),
            false => Err(bad(spec, format!("{shown}, which is not a parameter"))),
        };
        let header_name = |name: &str| {
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad(spec, format!("`{name}` is not a header name")))
        };
        let path = parse_template(&spec.path).map_err(|reason| bad(spec, reason))?;
        for piece in &path {
            if let Piece::Parameter(name) = piece {
                require(format!("the path names `{{{name}}}`"), name)?;
            }
        }
        for name in &spec.query {
            require(format!("the query names `{name}`"), name)?;
        }
        let mut header_parameters = Vec::new();
        for (header, parameter) in &spec.header_parameters {
            require(format!("the header `{header}` names `{parameter}`"), parameter)?;
            header_parameters.push((header_name(header)?, parameter.clone()));
        }
        if let Some(body) = &spec.body_parameter {
            require(format!("the body names `{body}`"), body)?;
        }
        let mut headers = HeaderMap::new();
        for (name, template) in &spec.headers {
            let header = header_name(name)?;
            let (value, secret) = expand_environment(template).map_err(|reason| bad(spec, reason))?;
            let mut value = HeaderValue::from_str(&value)
                .map_err(|_| bad(spec, format!("the value of the header `{name}` is not a valid header value")))?;
            value.set_sensitive(secret);
            headers.insert(header, value);
        }
        Ok(RestCall {
            name: spec.name.clone(),
            method,
            base,
            path,
            query: spec.query.clone(),
            header_parameters,
            body_parameter: spec.body_parameter.clone(),
            headers,
            retries: spec.retries,
            backoff: Duration::from_millis(spec.retry_backoff_ms.unwrap_or(100)),
            client,
        })
    }

    /// Sends the call (again, for an idempotent method that met a transient failure).
    pub(super) async fn call(&self, arguments: Map<String, Value>) -> ToolResult {
        let request = self.request(arguments)?;
        let idempotent =
            matches!(self.method, Method::GET | Method::HEAD | Method::PUT | Method::DELETE | Method::OPTIONS);
        let attempts = if idempotent { self.retries + 1 } else { 1 };
        let mut wait = self.backoff;
        for attempt in 1..=attempts {
            let Some(sent) = request.try_clone() else { break };
            let last = attempt == attempts;
            match self.client.execute(sent).await {
                Ok(response) if !last && retryable(response.status()) => {}
                Ok(response) => return self.answer(response).await,
                Err(error) if !last && (error.is_connect() || error.is_timeout()) => {}
                Err(error) => {
                    // The model reads what kind of failure it was; the error itself (OS errors,
                    // addresses) is for the host. Without the URL: the tool's name already says
                    // which API this is.
                    let kind = if error.is_timeout() {
                        "it timed out"
                    } else if error.is_connect() {
                        "the connection could not be made"
                    } else {
                        "the connection failed"
                    };
                    return Err(ToolError::new(format!(
                        "The request of `{}` failed before an answer came: {kind}.",
                        self.name
                    ))
                    .with_code("http_unreachable")
                    .with_internal_detail(error_chain(&error.without_url())));
                }
            }
            tokio::time::sleep(wait).await;
            wait *= 2;
        }
        Err(ToolError::new(format!("The request of `{}` could not be sent again.", self.name))
            .with_code("http_unreachable"))
    }

    /// The request for `arguments`: every value encoded where it goes; anything that could
    /// change where the request goes is refused.
    fn request(&self, mut arguments: Map<String, Value>) -> Result<reqwest::Request, ToolError> {
        let mut path = self.base.path().trim_end_matches('/').to_owned();
        for piece in &self.path {
            match piece {
                Piece::Literal(text) => path.push_str(text),
                Piece::Parameter(name) => {
                    let value = arguments.remove(name).filter(|v| !v.is_null()).ok_or_else(|| {
                        refused(format!("the path parameter `{name}` of `{}` has no value", self.name))
                    })?;
                    path.push_str(&path_segment(name, &value)?);
                }
            }
        }
        let mut url = self.base.clone();
        url.set_path(&path);
        // The request goes where the spec says, whatever the values were.
        if url.origin() != self.base.origin() || !url.path().starts_with(self.base.path().trim_end_matches('/')) {
            return Err(refused(format!("the arguments of `{}` would send the request elsewhere", self.name)));
        }
        let mut headers = self.headers.clone();
        for (header, parameter) in &self.header_parameters {
            if let Some(value) = arguments.remove(parameter).filter(|v| !v.is_null()) {
                let text = scalar_text(&value);
                if text.contains(['\r', '\n', '\0']) {
                    return Err(refused(format!(
                        "the header parameter `{parameter}` contains a line break or NUL, which a header value cannot"
                    )));
                }
                let value = HeaderValue::from_str(&text)
                    .map_err(|_| refused(format!("the header parameter `{parameter}` is not a valid header value")))?;
                headers.insert(header.clone(), value);
            }
        }
        let mut query: Vec<(String, String)> = Vec::new();
        for name in &self.query {
            if let Some(value) = arguments.remove(name) {
                push_query(&mut query, name, &value);
            }
        }
        let has_body = !matches!(self.method, Method::GET | Method::HEAD | Method::DELETE | Method::OPTIONS);
        let mut builder = self.client.request(self.method.clone(), url).headers(headers);
        if has_body {
            let body = match &self.body_parameter {
                Some(name) => arguments.remove(name).filter(|v| !v.is_null()),
                None => (!arguments.is_empty()).then(|| Value::Object(std::mem::take(&mut arguments))),
            };
            if let Some(body) = body {
                builder = builder.json(&body);
            }
        } else {
            for (name, value) in &arguments {
                push_query(&mut query, name, value);
            }
        }
        if !query.is_empty() {
            builder = builder.query(&query);
        }
        builder
            .build()
            .map_err(|e| refused(format!("the request of `{}` could not be built: {}", self.name, e.without_url())))
    }

    /// The response as the call's result: a JSON body as structured content, any other body
    /// as text (cut, saying so); a status other than 2xx as a failure with the body's start.
    async fn answer(&self, response: reqwest::Response) -> ToolResult {
        let status = response.status();
        let json =
            response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("json"));
        let body = response.text().await.map_err(|e| {
            ToolError::new(format!("The answer of `{}` could not be read: {}", self.name, e.without_url()))
                .with_code("http_unreadable")
        })?;
        if !status.is_success() {
            // The status is the model's; the body (stack traces, internal names, echoed
            // headers) is the host's, in the record.
            let reason = status.canonical_reason().map(|r| format!(" {r}")).unwrap_or_default();
            let start = cut(&body, ERROR_BODY_LIMIT);
            return Err(ToolError::new(format!("The API of `{}` answered {}{reason}.", self.name, status.as_u16()))
                .with_code(format!("http_{}", status.as_u16()))
                .with_details(Value::from(status.as_u16()))
                .with_internal_detail(start));
        }
        if json {
            if let Ok(value) = serde_json::from_str::<Value>(&body) {
                return Ok(ToolOutput::structured(value));
            }
        }
        Ok(ToolOutput::text(cut(&body, TEXT_LIMIT)))
    }
}

/// An error and its sources, as one text: `error sending request: client error (Connect): tcp
/// connect error: Connection refused (os error 111)`.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn retryable(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 502 | 503 | 504)
}

fn refused(message: String) -> ToolError {
    ToolError::new(message).with_code("request_refused")
}

/// `text`, cut after `limit` characters with the cut said.
fn cut(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((end, _)) => {
            let rest = text[end..].chars().count();
            format!("{}… [cut: {rest} more characters]", &text[..end])
        }
    }
}

/// A value as text: strings as they are, anything else as JSON.
pub(super) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A list is the key repeated; anything else one pair.
fn push_query(query: &mut Vec<(String, String)>, name: &str, value: &Value) {
    match value {
        Value::Null => {}
        Value::Array(items) => query.extend(items.iter().map(|item| (name.to_owned(), scalar_text(item)))),
        other => query.push((name.to_owned(), scalar_text(other))),
    }
}

/// `value` as one path segment: every byte but the unreserved ones percent-encoded, so `/`,
/// `?`, `#`, `%`, spaces and non-ASCII stay inside the segment. `.` and `..` (which URL
/// parsers resolve even when encoded) and the empty segment are refused.
fn path_segment(name: &str, value: &Value) -> Result<String, ToolError> {
    let text = scalar_text(value);
    if text.is_empty() || text == "." || text == ".." {
        return Err(refused(format!("the path parameter `{name}` cannot be `{text}`: it would change the path")));
    }
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    Ok(encoded)
}

/// `/cities/{city}/weather` as literal and parameter pieces.
fn parse_template(template: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            pieces.push(Piece::Literal(rest[..open].to_owned()));
        }
        let close = rest[open..].find('}').ok_or_else(|| format!("the path `{template}` has a `{{` without `}}`"))?;
        let name = &rest[open + 1..open + close];
        if name.is_empty() {
            return Err(format!("the path `{template}` has an empty `{{}}`"));
        }
        pieces.push(Piece::Parameter(name.to_owned()));
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("the path `{template}` has a `}}` without `{{`"));
    }
    if !rest.is_empty() {
        pieces.push(Piece::Literal(rest.to_owned()));
    }
    if let Some(Piece::Literal(first)) = pieces.first() {
        if !first.starts_with('/') {
            return Err(format!("the path `{template}` must start with `/`"));
        }
    }
    Ok(pieces)
}

/// Replaces each `${NAME}` with the environment variable `NAME`; whether one was used (the
/// value is then a secret). A missing variable is an error naming it, never a value.
fn expand_environment(template: &str) -> Result<(String, bool), String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    let mut secret = false;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').ok_or_else(|| format!("`{template}` has a `${{` without `}}`"))?;
        let variable = &rest[start + 2..start + end];
        let value = std::env::var(variable).map_err(|_| format!("the environment variable `{variable}` is not set"))?;
        out.push_str(&value);
        secret = true;
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok((out, secret))
}
