//! A REST tool checked and ready: how a call's arguments become one HTTP request that can only
//! go to the configured base URL, and how the response becomes the call's result.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
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
/// How much of a redirect's `Location` goes in the error.
const LOCATION_LIMIT: usize = 200;

/// What every tool of one `RestTools` shares about sending and reading.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// The time one request may take, body included, when the tool has no `timeout_ms`.
    pub(super) timeout: Duration,
    /// The most bytes of a response body read, when the tool says no other.
    pub(super) max_body_bytes: usize,
    /// How many redirects inside the base URL are followed (none by default).
    pub(super) redirects: u32,
}

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
    /// The time one request may take; none when the tool's own time limit governs the call.
    timeout: Option<Duration>,
    max_body_bytes: usize,
    redirects: u32,
    client: reqwest::Client,
    /// Whether its requests carry the call's trace context (feature `otel`).
    #[cfg(feature = "otel")]
    pub(super) propagate: bool,
}

fn bad(spec: &RestToolSpec, reason: impl Into<String>) -> RestError {
    RestError::Invalid { tool: spec.name.clone(), reason: reason.into() }
}

impl RestCall {
    pub(super) fn new(spec: &RestToolSpec, client: reqwest::Client, limits: Limits) -> Result<RestCall, RestError> {
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
            timeout: spec.timeout_ms.is_none().then_some(limits.timeout),
            max_body_bytes: spec.max_body_bytes.unwrap_or(limits.max_body_bytes),
            redirects: limits.redirects,
            client,
            #[cfg(feature = "otel")]
            propagate: false,
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
            match self.exchange(sent).await {
                Ok((response, _)) if !last && retryable(response.status()) => {}
                Ok((response, redirect)) => return self.answer(response, redirect).await,
                Err(error) if !last && (error.is_connect() || error.is_timeout()) => {}
                Err(error) => return Err(self.failed("failed before an answer came", "http_unreachable", error)),
            }
            tokio::time::sleep(wait).await;
            wait *= 2;
        }
        Err(ToolError::new(format!("The request of `{}` could not be sent again.", self.name))
            .with_code("http_unreachable"))
    }

    /// Why the request failed: a time-out says the limit, anything else what reqwest said.
    fn failed(&self, what: &str, code: &str, error: reqwest::Error) -> ToolError {
        if let (true, Some(limit)) = (error.is_timeout(), self.timeout) {
            return ToolError::new(format!(
                "The request of `{}` timed out: no complete answer within {}.",
                self.name,
                crate::model::duration_words(limit)
            ))
            .with_code("http_timeout");
        }
        // The model reads what kind of failure it was; the error itself (OS errors, addresses)
        // is for the host. Without the URL: the tool's name already says which API this is.
        let kind = if error.is_timeout() {
            "it timed out"
        } else if error.is_connect() {
            "the connection could not be made"
        } else {
            "the connection failed"
        };
        ToolError::new(format!("The request of `{}` {what}: {kind}.", self.name))
            .with_code(code)
            .with_internal_detail(error_chain(&error.without_url()))
    }

    /// Sends `request`, following the redirects this tool may follow: the last response, and
    /// why the redirect it is (if it is one) was not followed. A redirect is followed only
    /// inside the base URL (same scheme, host and port, under its path), so the configured
    /// headers never go anywhere else.
    async fn exchange(
        &self,
        mut request: reqwest::Request,
    ) -> Result<(reqwest::Response, Option<String>), reqwest::Error> {
        let mut followed = 0;
        loop {
            let again = request.try_clone();
            let response = self.client.execute(request).await?;
            let status = response.status();
            if !matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308) {
                return Ok((response, None));
            }
            let Some(location) =
                response.headers().get(LOCATION).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            else {
                return Ok((response, None));
            };
            let shown = cut(&location, LOCATION_LIMIT);
            let target = response.url().join(&location).ok();
            let refusal = match (&target, again) {
                _ if self.redirects == 0 => Err("redirects are not followed".to_owned()),
                (None, _) => Err("it is not a URL".to_owned()),
                (Some(target), _) if !self.under_base(target) => Err("it leaves the base URL".to_owned()),
                _ if followed == self.redirects => Err(format!("the limit of {} redirects is reached", self.redirects)),
                (_, None) => Err("the request cannot be sent again".to_owned()),
                (Some(target), Some(again)) => Ok((target.clone(), again)),
            };
            let (target, mut again) = match refusal {
                Ok(next) => next,
                Err(why) => return Ok((response, Some(format!("a redirect to `{shown}`, not followed: {why}")))),
            };
            // 303, and 301 or 302 after anything but GET or HEAD, continue as a GET without
            // the body, as browsers do; 307 and 308 keep the method and the body.
            let method = again.method().clone();
            if status == StatusCode::SEE_OTHER
                || (matches!(status.as_u16(), 301 | 302) && !matches!(method, Method::GET | Method::HEAD))
            {
                *again.method_mut() = Method::GET;
                *again.body_mut() = None;
                again.headers_mut().remove(CONTENT_TYPE);
                again.headers_mut().remove(CONTENT_LENGTH);
            }
            *again.url_mut() = target;
            request = again;
            followed += 1;
        }
    }

    /// Whether `url` has the base URL's origin and lies under its path, segment by segment
    /// (`/api-admin` is not under `/api`).
    fn under_base(&self, url: &Url) -> bool {
        url.origin() == self.base.origin() && under_path(self.base.path(), url.path())
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
        if !self.under_base(&url) {
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
        #[cfg(feature = "otel")]
        if self.propagate
            && let Some((parent, state)) = crate::otel::written(&tracing::Span::current())
        {
            let values = [("traceparent", Some(parent)), ("tracestate", state)];
            for (name, value) in values {
                if let Some(value) = value.and_then(|value| HeaderValue::from_str(&value).ok()) {
                    headers.insert(name, value);
                }
            }
        }
        let has_body = !matches!(self.method, Method::GET | Method::HEAD | Method::DELETE | Method::OPTIONS);
        let mut builder = self.client.request(self.method.clone(), url).headers(headers);
        if let Some(limit) = self.timeout {
            builder = builder.timeout(limit);
        }
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
    /// The body is read up to the byte limit and no further.
    async fn answer(&self, mut response: reqwest::Response, redirect: Option<String>) -> ToolResult {
        let status = response.status();
        let json =
            response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("json"));
        let body = read_body(&mut response, self.max_body_bytes)
            .await
            .map_err(|e| self.failed("could not read the answer", "http_unreadable", e))?;
        drop(response);
        if !status.is_success() {
            // The status is the model's; the body (stack traces, internal names, echoed
            // headers) is the host's, in the record.
            let reason = status.canonical_reason().map(|r| format!(" {r}")).unwrap_or_default();
            let redirect = redirect.map(|text| format!(" ({text})")).unwrap_or_default();
            let start = body.shown(ERROR_BODY_LIMIT, false);
            return Err(ToolError::new(format!(
                "The API of `{}` answered {}{reason}{redirect}.",
                self.name,
                status.as_u16()
            ))
            .with_code(format!("http_{}", status.as_u16()))
            .with_details(Value::from(status.as_u16()))
            .with_internal_detail(start));
        }
        if json
            && body.over_limit.is_none()
            && let Ok(value) = serde_json::from_slice::<Value>(&body.bytes)
        {
            return Ok(ToolOutput::structured(value));
        }
        Ok(ToolOutput::text(body.shown(TEXT_LIMIT, json)))
    }
}

/// A response body read up to a byte limit.
struct ReadBody {
    bytes: Vec<u8>,
    limit: usize,
    /// Set when the body is longer than the limit: its `Content-Length`, when it said one.
    over_limit: Option<Option<u64>>,
}

impl ReadBody {
    /// The body as text, at most `characters` characters, with every cut said: the characters
    /// left out when the whole body was read, the byte limit when it was not.
    fn shown(&self, characters: usize, json: bool) -> String {
        let mut end = self.bytes.len();
        if self.over_limit.is_some() {
            // The limit may fall inside a character: end before it.
            if let Err(error) = std::str::from_utf8(&self.bytes)
                && error.error_len().is_none()
            {
                end = error.valid_up_to();
            }
        }
        let text = String::from_utf8_lossy(&self.bytes[..end]);
        let Some(over) = self.over_limit else { return cut(&text, characters) };
        let start = match text.char_indices().nth(characters) {
            Some((end, _)) => &text[..end],
            None => &text,
        };
        let length = over.map(|n| format!(" ({n} bytes by its Content-Length)")).unwrap_or_default();
        let parsed = if json { " and the JSON not parsed" } else { "" };
        format!(
            "{start}… [cut: the body is longer than the limit of {} bytes{length}; the rest was not read{parsed}]",
            self.limit
        )
    }
}

/// Reads `response`'s body as it arrives, stopping at `limit` bytes: a longer body is never
/// held whole (its `Content-Length` already says so when it has one), and the connection is
/// dropped with the rest unread.
async fn read_body(response: &mut reqwest::Response, limit: usize) -> Result<ReadBody, reqwest::Error> {
    let declared = response.content_length();
    let mut over = declared.is_some_and(|n| n > limit as u64);
    let capacity = declared.map_or(0, |n| n.min(limit as u64) as usize);
    let mut bytes = Vec::with_capacity(capacity);
    while let Some(chunk) = response.chunk().await? {
        let room = limit - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            over = true;
            break;
        }
        bytes.extend_from_slice(&chunk);
        if over && bytes.len() == limit {
            break;
        }
    }
    Ok(ReadBody { bytes, limit, over_limit: over.then_some(declared) })
}

/// Whether `path` lies under `base`, compared by segments: `/api/items` is under `/api` and
/// `/api/`, `/api-admin/items` is not.
fn under_path(base: &str, path: &str) -> bool {
    let mut segments = path.split('/');
    base.trim_end_matches('/').split('/').all(|segment| segments.next() == Some(segment))
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
    // A placeholder first would let its value lengthen the base path's last segment.
    if !template.is_empty() && !template.starts_with('/') {
        return Err(format!("the path `{template}` must start with `/`"));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_the_base_url_means_its_origin_and_below_its_path_by_segments() {
        let limits = Limits { timeout: Duration::from_secs(1), max_body_bytes: 1, redirects: 1 };
        let spec = RestToolSpec::new("t", "T.", "GET", "https://api.example.com:8443/api", "/x");
        let call = RestCall::new(&spec, reqwest::Client::new(), limits).unwrap();
        let under = |url: &str| call.under_base(&Url::parse(url).unwrap());
        assert!(under("https://api.example.com:8443/api"));
        assert!(under("https://api.example.com:8443/api/"));
        assert!(under("https://api.example.com:8443/api/items/1?x=2"));
        assert!(!under("https://api.example.com:8443/api-admin/items"));
        assert!(!under("https://api.example.com:8443/ap"));
        assert!(!under("https://api.example.com:8443/"));
        // https to http, another port, another host.
        assert!(!under("http://api.example.com:8443/api/items"));
        assert!(!under("https://api.example.com/api/items"));
        assert!(!under("https://evil.example.com:8443/api/items"));
        assert!(under_path("/", "/anything/at/all"));
        assert!(under_path("/api/", "/api/x"));
        assert!(!under_path("/api/v1", "/api/v10/x"));
    }
}
