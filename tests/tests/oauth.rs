//! The MCP server as an OAuth 2.1 resource server (feature `oauth`), against a local
//! authorization server that signs tokens with test keys (`tool_tests::oauth_server`): the
//! metadata and the challenge, every way a token is refused (expired, not yet valid, another
//! audience or issuer, an unknown key and a rotation, `alg: none`, HS256 signed with the public
//! key, a key of another family, a token of megabytes), a key set that hangs or is 100 MB, and
//! two principals that share a conversation id but nothing else.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_core::auth::{Algorithm, ResourceServer, ResourceServerBuilder, TokenRefusal};
use tool_core::mcp::{McpHttpServer, McpServer};
use tool_core::prelude::*;
use tool_tests::oauth_server::{now, public_pem, AuthServer, Jwks};

/// Says who called.
#[tool(name = "whoami")]
fn whoami(ctx: &ToolContext) -> String {
    ctx.request().principal.clone().unwrap_or_else(|| "nobody".to_owned())
}

/// Writes a note: needs the scope `notes:write`.
#[tool(name = "notes.write", scopes("notes:write"))]
fn write_note(text: String) -> String {
    format!("wrote {text}")
}

/// Resets everything: the host's rule gives tools tagged `admin` the scope `admin`.
#[tool(name = "admin.reset", tags("admin"))]
fn reset() -> String {
    "reset".to_owned()
}

/// A count per conversation.
#[derive(Default, Serialize, Deserialize)]
pub struct Purse {
    total: u64,
}

#[tool(shared_state)]
impl Purse {
    /// Add one; says the total.
    #[tool]
    fn add(&mut self) -> String {
        self.total += 1;
        self.total.to_string()
    }
}

/// A free port on 127.0.0.1, so that the resource's URL is known before it listens.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The MCP server on `port`, protected by the resource server `configure` makes.
async fn protected(
    auth: &AuthServer,
    configure: impl FnOnce(ResourceServerBuilder) -> ResourceServerBuilder,
) -> (McpHttpServer, ResourceServer) {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let checker = configure(ResourceServer::builder(auth.issuer(), &resource)).build().unwrap();
    let catalog = ToolCatalog::builder()
        .add_declared::<whoami>()
        .add_declared::<Purse_add>()
        .add_declared::<write_note>()
        .add_declared::<reset>()
        .build()
        .unwrap();
    let admin = |definition: &tool_core::ToolDefinition| match definition.has_tag("admin") {
        true => vec!["admin".to_owned()],
        false => Vec::new(),
    };
    let server = McpServer::builder(Executor::new(catalog)).scopes_for(admin).build().unwrap();
    let address = format!("127.0.0.1:{port}").parse().unwrap();
    let running = server
        .http()
        .bind(address)
        .stateless(true)
        .conversation_header("x-conversation-id")
        .oauth(checker.clone())
        .start()
        .await
        .unwrap();
    (running, checker)
}

/// POSTs a `tools/list` with `token`: the status, the challenge, the body.
async fn post(url: &str, token: Option<&str>) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string());
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = request.send().await.unwrap();
    let challenge = response.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned());
    (response.status().as_u16(), challenge, response.text().await.unwrap())
}

fn challenge(checker: &ResourceServer, description: &str) -> String {
    format!(
        "Bearer resource_metadata=\"{}\", error=\"invalid_token\", error_description=\"{description}\"",
        checker.metadata_url()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_is_public_and_a_request_without_a_token_is_challenged_to_it() {
    let auth = AuthServer::start().await;
    let (running, checker) = protected(&auth, |b| b.scopes_supported(["notes:read"])).await;
    let port = running.local_addr().port();
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let response = reqwest::get(format!("http://127.0.0.1:{port}{path}")).await.unwrap();
        // Browser-based clients read it from other origins.
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
        let metadata: Value = response.json().await.unwrap();
        assert_eq!(
            metadata,
            json!({
                "resource": format!("http://127.0.0.1:{port}/mcp"),
                "authorization_servers": [auth.issuer()],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["notes:read"],
            })
        );
    }
    let (status, given, body) = post(&running.url(), None).await;
    assert_eq!(status, 401);
    assert_eq!(
        given.as_deref(),
        Some(
            format!("Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\"")
                .as_str()
        )
    );
    assert_eq!(body, "the request has no access token: send `Authorization: Bearer <token>`");
    assert_eq!(checker.metadata_url(), format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"));
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_token_reaches_the_tool_as_its_principal() {
    let auth = AuthServer::start().await;
    let (running, _) = protected(&auth, |b| b).await;
    let token = auth.token("rsa1", &auth.claims("ada", &running.url(), "notes:read"));
    let headers = HashMap::from([("authorization".parse().unwrap(), format!("Bearer {token}").parse().unwrap())]);
    let config = StreamableHttpClientTransportConfig::with_uri(running.url()).custom_headers(headers);
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    let result = client.call_tool(CallToolRequestParams::new("whoami")).await.unwrap();
    let result = serde_json::to_value(result).unwrap();
    assert_eq!(result["content"][0]["text"], format!("{} ada", auth.issuer()));
    // A token signed with the P-256 key is as good.
    let token = auth.token("ec1", &auth.claims("bo", &running.url(), ""));
    assert_eq!(post(&running.url(), Some(&token)).await.0, 200);
    client.cancel().await.unwrap();
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_token_is_refused_with_the_reason() {
    let auth = AuthServer::start().await;
    let (running, checker) = protected(&auth, |b| b.leeway(Duration::from_secs(30))).await;
    let url = running.url();
    let base = auth.claims("ada", &url, "");
    let with = |change: Value| {
        let mut claims = base.clone();
        claims.as_object_mut().unwrap().extend(change.as_object().unwrap().clone());
        claims
    };
    let now = now();
    let cases = [
        (auth.token("rsa1", &with(json!({"exp": now - 120}))), "the access token has expired"),
        (
            auth.token("rsa1", &with(json!({"nbf": now + 120}))),
            "the access token is not valid yet (its `nbf` is in the future)",
        ),
        (
            auth.token("rsa1", &with(json!({"aud": "https://other.example.com/mcp"}))),
            &format!("the access token is for another resource: its `aud` does not name {url}"),
        ),
        (
            auth.token("rsa1", &with(json!({"iss": "https://evil.example.com"}))),
            &format!("the access token was issued by another authorization server: its `iss` is not {}", auth.issuer()),
        ),
        (auth.token("rsa2", &base), "the authorization server has no key `rsa2`"),
        (
            format!("{}.{}.", b64(&json!({"alg": "none", "typ": "JWT"})), b64(&base)),
            "the access token is not signed (`alg: none`)",
        ),
        (
            // The classic confusion: HS256 with the RSA public key as the shared secret.
            auth.token_with("rsa1", Algorithm::HS256, &jsonwebtoken::EncodingKey::from_secret(&public_pem("rsa1")), &base),
            "the access token is signed with HS256; this server accepts RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA",
        ),
        (
            // Signed with the P-256 key but naming the RSA key.
            auth.token_with("rsa1", Algorithm::ES256, &jsonwebtoken::EncodingKey::from_ec_pem(&std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/oauth/ec1.pem")).unwrap()).unwrap(), &base),
            "the access token is signed with ES256, which its key `rsa1` is not for",
        ),
        ("not a token".to_owned(), "the access token is not a JWT this server can read: its header is not base64url"),
    ];
    for (token, why) in cases {
        let (status, given, body) = post(&url, Some(&token)).await;
        assert_eq!((status, body.as_str()), (401, why), "{token}");
        assert_eq!(given, Some(challenge(&checker, why)));
    }
    // Within the leeway an expired token still passes.
    assert_eq!(post(&url, Some(&auth.token("rsa1", &with(json!({"exp": now - 10}))))).await.0, 200);
    // A signature that does not verify: the payload changed after signing.
    let token = auth.token("rsa1", &base);
    let mut parts: Vec<&str> = token.split('.').collect();
    let forged = b64(&with(json!({"sub": "root"})));
    parts[1] = &forged;
    let (status, _, body) = post(&url, Some(&parts.join("."))).await;
    assert_eq!((status, body.as_str()), (401, "the access token's signature does not verify"));
    running.shutdown().await;
}

fn b64(value: &Value) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}

/// A token naming the key `kid`, which nobody published (its signature is no matter: the key
/// is looked up first).
fn naming(auth: &AuthServer, url: &str, kid: &str) -> String {
    let token = auth.token("rsa1", &auth.claims("ada", url, ""));
    let (_, rest) = token.split_once('.').unwrap();
    format!("{}.{rest}", b64(&json!({"alg": "RS256", "kid": kid})))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_key_ids_cost_one_fetch_per_interval() {
    let auth = AuthServer::start().await;
    let (running, _) = protected(&auth, |b| b.jwks_min_refresh(Duration::from_secs(30))).await;
    let url = running.url();
    assert_eq!(post(&url, Some(&auth.token("rsa1", &auth.claims("ada", &url, "")))).await.0, 200);
    assert_eq!(auth.fetches(), 1);
    // Fifty tokens naming keys nobody published, within the interval after the last fetch:
    // none fetches the keys again (after it, the first would: see the rotation test).
    for i in 0..50 {
        let (status, _, body) = post(&url, Some(&naming(&auth, &url, &format!("made-up-{i}")))).await;
        assert_eq!((status, body), (401, format!("the authorization server has no key `made-up-{i}`")));
    }
    assert_eq!(auth.fetches(), 1);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_fetched_when_a_token_names_it() {
    let auth = AuthServer::start().await;
    let (running, _) = protected(&auth, |b| b.jwks_min_refresh(Duration::from_millis(200))).await;
    let url = running.url();
    assert_eq!(post(&url, Some(&auth.token("rsa1", &auth.claims("ada", &url, "")))).await.0, 200);
    let rotated = auth.token("rsa2", &auth.claims("ada", &url, ""));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(post(&url, Some(&rotated)).await.2, "the authorization server has no key `rsa2`");
    // The authorization server rotates to rsa2; after the interval the token naming it fetches
    // the new keys, and then rsa1's tokens are refused.
    auth.serve_jwks(Jwks::Keys(vec!["rsa2"]));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fetched = auth.fetches();
    assert_eq!(post(&url, Some(&rotated)).await.0, 200);
    assert_eq!(auth.fetches(), fetched + 1);
    let old = auth.token("rsa1", &auth.claims("ada", &url, ""));
    assert_eq!(post(&url, Some(&old)).await.2, "the authorization server has no key `rsa1`");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_set_that_hangs_or_is_huge_is_cut_off_and_the_request_gets_503() {
    let auth = AuthServer::start().await;
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let bounded = |b: ResourceServerBuilder| {
        b.jwks_uri(auth.jwks_uri()).fetch_timeout(Duration::from_millis(300)).jwks_min_refresh(Duration::ZERO)
    };
    let checker = bounded(ResourceServer::builder(auth.issuer(), &url)).build().unwrap();
    let token = auth.token("rsa1", &auth.claims("ada", &url, ""));
    let header = format!("Bearer {token}");
    auth.serve_jwks(Jwks::Hang);
    let started = Instant::now();
    let refused = checker.authenticate(Some(&header)).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(
        refused,
        TokenRefusal::AuthorizationServerUnavailable(format!(
            "the authorization server's keys ({}) could not be fetched: it did not answer within 300 ms; retry shortly",
            auth.jwks_uri()
        ))
    );
    assert_eq!(refused.status(), 503);
    auth.serve_jwks(Jwks::Huge);
    let refused = checker.authenticate(Some(&header)).await.unwrap_err();
    assert_eq!(
        refused,
        TokenRefusal::AuthorizationServerUnavailable(format!(
            "the authorization server's keys ({}) could not be fetched: it is larger than the 1048576 bytes read; retry shortly",
            auth.jwks_uri()
        ))
    );
    // Once the keys are served, the same token passes.
    auth.serve_jwks(Jwks::Keys(vec!["rsa1"]));
    assert_eq!(checker.authenticate(Some(&header)).await.unwrap().subject, "ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_of_megabytes_is_refused_before_it_is_read() {
    let auth = AuthServer::start().await;
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let checker = ResourceServer::builder(auth.issuer(), &url).build().unwrap();
    let huge = format!("Bearer {}", "a".repeat(5 << 20));
    assert_eq!(
        checker.authenticate(Some(&huge)).await.unwrap_err(),
        TokenRefusal::TooLarge { bytes: 5 << 20, max: ResourceServer::MAX_TOKEN_BYTES }
    );
    assert_eq!(auth.fetches(), 0, "nothing fetched for it");
    // Over HTTP, one past the bound is refused as well.
    let (running, _) = protected(&auth, |b| b).await;
    let (status, _, body) = post(&running.url(), Some(&"a".repeat(ResourceServer::MAX_TOKEN_BYTES + 1))).await;
    assert_eq!((status, body.as_str()), (401, "the access token is 16385 bytes long; this server reads at most 16384"));
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_principals_with_one_conversation_id_share_nothing() {
    let auth = AuthServer::start().await;
    let (running, _) = protected(&auth, |b| b).await;
    let url = running.url();
    let client = |subject: &str| {
        let token = auth.token("rsa1", &auth.claims(subject, &url, ""));
        let headers = HashMap::from([
            ("authorization".parse().unwrap(), format!("Bearer {token}").parse().unwrap()),
            ("x-conversation-id".parse().unwrap(), "shared-id".parse().unwrap()),
        ]);
        StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.clone()).custom_headers(headers),
        )
    };
    let (ada, bo) = (().serve(client("ada")).await.unwrap(), ().serve(client("bo")).await.unwrap());
    let add = |c| async move {
        let c: &rmcp::service::RunningService<rmcp::RoleClient, ()> = c;
        serde_json::to_value(c.call_tool(CallToolRequestParams::new("purse.add")).await.unwrap()).unwrap()["content"][0]
            ["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(add(&ada).await, "1");
    assert_eq!(add(&ada).await, "2");
    assert_eq!(add(&bo).await, "1", "bo's tally is his own");
    assert_eq!(add(&ada).await, "3");
    ada.cancel().await.unwrap();
    bo.cancel().await.unwrap();
    running.shutdown().await;
}

#[test]
fn a_shared_secret_algorithm_or_a_plain_http_issuer_is_refused() {
    let refused = ResourceServer::builder("https://login.example.com", "https://tools.example.com/mcp")
        .algorithms([Algorithm::RS256, Algorithm::HS256])
        .build()
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "HS256 is a shared-secret algorithm; a resource server accepts only public-key algorithms (RS*, PS*, ES*, EdDSA)"
    );
    let refused =
        ResourceServer::builder("http://login.example.com", "https://tools.example.com/mcp").build().unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the issuer `http://login.example.com` cannot be used: use https (plain http only on a loopback host)"
    );
}

/// A client of `url` whose requests carry `token`.
async fn client_with(url: &str, token: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let headers = HashMap::from([("authorization".parse().unwrap(), format!("Bearer {token}").parse().unwrap())]);
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap()
}

/// POSTs a `tools/call` of `tool` with `token`: the status, the challenge, the body.
async fn call_raw(url: &str, token: &str, tool: &str) -> (u16, Option<String>, String) {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .header("authorization", format!("Bearer {token}"))
        .body(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": tool, "arguments": {"text": "hi"}}}).to_string())
        .send()
        .await
        .unwrap();
    let challenge = response.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned());
    (response.status().as_u16(), challenge, response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_needing_a_scope_is_hidden_and_refused_with_403_until_the_client_steps_up() {
    let auth = AuthServer::start().await;
    let (running, checker) = protected(&auth, |b| b).await;
    let url = running.url();
    let reader = auth.token("rsa1", &auth.claims("ada", &url, "notes:read"));
    let client = client_with(&url, &reader).await;
    let names = |tools: Vec<rmcp::model::Tool>| tools.into_iter().map(|t| t.name.to_string()).collect::<Vec<_>>();
    assert_eq!(names(client.list_all_tools().await.unwrap()), ["purse.add", "whoami"]);
    client.cancel().await.unwrap();
    let (status, challenge, body) = call_raw(&url, &reader, "notes.write").await;
    assert_eq!(
        (status, body.as_str()),
        (403, "the access token lacks the scope notes:write, which the tool `notes.write` needs")
    );
    assert_eq!(
        challenge.unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{}\", error_description=\"the access token lacks the scope notes:write\"",
            checker.metadata_url()
        )
    );
    assert_eq!(call_raw(&url, &reader, "admin.reset").await.0, 403, "the host's rule holds too");
    // Stepped up: a token with the scope sees the tool and calls it.
    let writer = auth.token("rsa1", &auth.claims("ada", &url, "notes:read notes:write"));
    let client = client_with(&url, &writer).await;
    assert_eq!(names(client.list_all_tools().await.unwrap()), ["notes.write", "purse.add", "whoami"]);
    let result = client
        .call_tool(
            CallToolRequestParams::new("notes.write")
                .with_arguments(json!({"text": "hi"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(serde_json::to_value(result).unwrap()["content"][0]["text"], "wrote hi");
    client.cancel().await.unwrap();
    running.shutdown().await;
}

#[tokio::test]
async fn without_oauth_scopes_hold_nothing_back() {
    let catalog = ToolCatalog::builder().add_declared::<write_note>().build().unwrap();
    let executor = Executor::new(catalog);
    assert_eq!(executor.catalog().definition("notes.write").unwrap().scopes, ["notes:write"]);
    let record = executor.execute(ToolCallRequest::new("notes.write", "c1", r#"{"text": "hi"}"#)).await;
    assert_eq!(record.content.text, "wrote hi");
}

/// `serve-mcp` (the replicas example's command line) as a process, protected by the local
/// authorization server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_mcp_with_oauth_flags_serves_the_metadata_and_checks_tokens() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let auth = AuthServer::start().await;
    // `serve-mcp` on a free port with OAuth by `auth` and `more`: the process, its port and its URL.
    let serve = |more: &[&str], env: &[(&str, &str)]| {
        let port = free_port();
        let resource = format!("http://127.0.0.1:{port}/mcp");
        let mut child = Command::new(env!("CARGO_BIN_EXE_example_replicas"))
            .args(["serve-mcp", "--http", &format!("127.0.0.1:{port}"), "--json", "--stateless"])
            .args(["--oauth-issuer", &auth.issuer(), "--oauth-resource", &resource])
            .args(more)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .spawn()
            .expect("serve-mcp starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&line).unwrap()["url"], resource);
        (child, port, resource)
    };
    let (mut child, port, resource) = serve(&[], &[]);
    let metadata = resource_metadata(port).await;
    assert_eq!(metadata["authorization_servers"], json!([auth.issuer()]));
    assert_eq!(post(&resource, None).await.0, 401);
    let token = auth.token("rsa1", &auth.claims("ada", &resource, ""));
    assert_eq!(post(&resource, Some(&token)).await.0, 200);
    let _ = child.kill();
    let _ = child.wait();

    // Another audience accepted, the scopes listed, opaque tokens introspected.
    use tool_tests::oauth_server::{CLIENT_ID, CLIENT_SECRET};
    let introspection = auth.introspection_uri();
    let (mut child, port, resource) = serve(
        &[
            "--oauth-audience",
            "api://tools",
            "--oauth-scopes-supported",
            "notes:read notes:write",
            "--oauth-introspection",
            &introspection,
            "--oauth-client-id",
            CLIENT_ID,
            "--oauth-client-secret-env",
            "TOOL_TEST_INTROSPECTION_SECRET",
        ],
        &[("TOOL_TEST_INTROSPECTION_SECRET", CLIENT_SECRET)],
    );
    let metadata = resource_metadata(port).await;
    assert_eq!(metadata["scopes_supported"], json!(["notes:read", "notes:write"]));
    let opaque = auth.opaque(&auth.claims("ada", "api://tools", "notes:read"));
    assert_eq!(post(&resource, Some(&opaque)).await.0, 200, "introspected, for the other audience");
    assert_eq!(auth.introspections(), 1);
    let _ = child.kill();
    let _ = child.wait();
    let refused = Command::new(env!("CARGO_BIN_EXE_example_replicas"))
        .args(["serve-mcp", "--http", "127.0.0.1:0", "--oauth-issuer", &auth.issuer()])
        .args(["--oauth-resource", "http://127.0.0.1:9/mcp", "--oauth-introspection", &auth.introspection_uri()])
        .args(["--oauth-client-id", CLIENT_ID, "--oauth-client-secret-env", "TOOL_TEST_UNSET_SECRET"])
        .env_remove("TOOL_TEST_UNSET_SECRET")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).trim(),
        "error: --oauth-client-secret-env: the environment variable `TOOL_TEST_UNSET_SECRET` is not set (or not UTF-8)"
    );

    // A plain http issuer beyond loopback, or a token flag beside OAuth, is refused.
    let refused = Command::new(env!("CARGO_BIN_EXE_example_replicas"))
        .args(["serve-mcp", "--http", "127.0.0.1:0", "--oauth-issuer", "http://login.example.com"])
        .args(["--oauth-resource", "https://tools.example.com/mcp"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).trim(),
        "error: --oauth-issuer: the issuer `http://login.example.com` cannot be used: use https (plain http only on a loopback host)"
    );
    let refused = Command::new(env!("CARGO_BIN_EXE_example_replicas"))
        .args([
            "serve-mcp",
            "--http",
            "127.0.0.1:0",
            "--token",
            "s3cret",
            "--oauth-issuer",
            "https://login.example.com",
        ])
        .args(["--oauth-resource", "https://tools.example.com/mcp"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("cannot be used with"), "{refused:?}");
}

/// The protected resource metadata served on `port` for `/mcp`.
async fn resource_metadata(port: u16) -> Value {
    let url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

/// A resource server that introspects tokens at the local authorization server, keeping each
/// answer `keep`.
fn introspecting(auth: &AuthServer, resource: &str, keep: Duration) -> ResourceServer {
    use tool_tests::oauth_server::{CLIENT_ID, CLIENT_SECRET};
    ResourceServer::builder(auth.issuer(), resource)
        .introspection(auth.introspection_uri(), CLIENT_ID, CLIENT_SECRET)
        .introspection_cache(keep)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opaque_token_is_introspected_and_a_revoked_one_stops_working() {
    let auth = AuthServer::start().await;
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let bearer = |token: &str| format!("Bearer {token}");
    let checker = introspecting(&auth, &url, Duration::ZERO);
    let token =
        auth.opaque(&json!({"sub": "ada", "aud": url, "scope": "notes:read", "client_id": "app", "exp": now() + 60}));
    let principal = checker.authenticate(Some(&bearer(&token))).await.unwrap();
    assert_eq!((principal.id(), principal.client_id.as_deref()), (format!("{} ada", auth.issuer()), Some("app")));
    assert!(principal.has_scope("notes:read"));
    auth.revoke(&token);
    assert_eq!(checker.authenticate(Some(&bearer(&token))).await.unwrap_err(), TokenRefusal::Inactive);
    assert_eq!(
        TokenRefusal::Inactive.to_string(),
        "the access token is not active: the authorization server's introspection says so"
    );
    // What introspection says is checked as a JWT's claims are.
    let other = auth.opaque(&json!({"sub": "ada", "aud": "https://other.example.com/mcp"}));
    assert_eq!(checker.authenticate(Some(&bearer(&other))).await.unwrap_err(), TokenRefusal::Audience(url.clone()));
    let old = auth.opaque(&json!({"sub": "ada", "exp": now() - 600}));
    assert_eq!(checker.authenticate(Some(&bearer(&old))).await.unwrap_err(), TokenRefusal::Expired);
    // A client's own token names no user: the client is the subject.
    let machine = auth.opaque(&json!({"client_id": "batch-job"}));
    assert_eq!(checker.authenticate(Some(&bearer(&machine))).await.unwrap().subject, "batch-job");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_answers_are_kept_and_a_failing_endpoint_is_503() {
    let auth = AuthServer::start().await;
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let checker = introspecting(&auth, &url, Duration::from_secs(60));
    let token = format!("Bearer {}", auth.opaque(&json!({"sub": "ada"})));
    for _ in 0..20 {
        assert_eq!(checker.authenticate(Some(&token)).await.unwrap().subject, "ada");
    }
    assert_eq!(auth.introspections(), 1, "one question for twenty requests");
    // Over HTTP the same: the MCP endpoint accepts the opaque token.
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let server =
        McpServer::new(Executor::new(ToolCatalog::builder().add_declared::<whoami>().build().unwrap())).unwrap();
    let running = server
        .http()
        .bind(format!("127.0.0.1:{port}").parse().unwrap())
        .stateless(true)
        .oauth(introspecting(&auth, &resource, Duration::ZERO))
        .start()
        .await
        .unwrap();
    let opaque = auth.opaque(&json!({"sub": "bo", "aud": resource}));
    let answered = post(&resource, Some(&opaque)).await;
    assert_eq!(answered.0, 200, "{answered:?}");
    assert_eq!(
        post(&resource, Some("nobody-issued-this")).await.2,
        "the access token is not active: the authorization server's introspection says so"
    );
    running.shutdown().await;
    // Wrong client credentials: the authorization server refuses, the request gets 503.
    let wrong = ResourceServer::builder(auth.issuer(), &url)
        .introspection(auth.introspection_uri(), "resource-server", "not the secret")
        .build()
        .unwrap();
    let refused = wrong.authenticate(Some(&token)).await.unwrap_err();
    assert_eq!(
        refused,
        TokenRefusal::AuthorizationServerUnavailable(format!(
            "the authorization server's introspection endpoint ({}) could not be asked: it answered HTTP 401; retry shortly",
            auth.introspection_uri()
        ))
    );
    assert_eq!(refused.status(), 503);
}
