//! The import as an OAuth 2.1 client (`McpImportBuilder::oauth`), end to end: our MCP server
//! protected by our resource server, and the local authorization server of the tests
//! (`tool_tests::oauth_server`: dynamic registration, an authorization page that approves at
//! once, PKCE, refresh and client credentials). The host's part of the authorization code flow
//! is a callback that opens the page and gives back where it redirects.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tool_core::auth::ResourceServer;
use tool_core::mcp::{AuthorizationPrompt, McpHttpServer, McpImport, McpServer, OAuthClient};
use tool_core::prelude::*;
use tool_core::state::{MemoryStore, SharedStore};
use tool_tests::oauth_server::AuthServer;

/// Says who called, as the token said: subject, client, scopes.
#[tool(name = "whoami")]
fn whoami(ctx: &ToolContext) -> String {
    match &ctx.request().identity {
        Some(who) => format!(
            "{} via {} with [{}]",
            who.subject,
            who.client_id.as_deref().unwrap_or("?"),
            who.scopes.iter().cloned().collect::<Vec<_>>().join(" ")
        ),
        None => "nobody".to_owned(),
    }
}

/// Writes a note: needs the scope `notes:write`.
#[tool(name = "notes.write", scopes("notes:write"))]
fn write_note(text: String) -> String {
    format!("wrote {text}")
}

/// A free port on 127.0.0.1, so that the resource's URL is known before it listens.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Our MCP server, protected by tokens of `auth`, listing every tool to every caller (so that
/// a client learns of `notes.write` and steps up when it calls it).
async fn protected(auth: &AuthServer) -> McpHttpServer {
    protected_keeping(auth, Arc::default()).await
}

/// `protected`, keeping the record of every call in `records`, as JSON.
async fn protected_keeping(auth: &AuthServer, records: Arc<Mutex<Vec<serde_json::Value>>>) -> McpHttpServer {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let checker = ResourceServer::builder(auth.issuer(), &resource)
        .scopes_supported(["notes:read", "notes:write"])
        .build()
        .unwrap();
    let catalog = ToolCatalog::builder().add_declared::<whoami>().add_declared::<write_note>().build().unwrap();
    let server = McpServer::builder(Executor::new(catalog))
        .list_tools_beyond_scopes(true)
        .on_record(move |record| records.lock().unwrap().push(serde_json::to_value(record).unwrap()))
        .build()
        .unwrap();
    server.http().bind(format!("127.0.0.1:{port}").parse().unwrap()).oauth(checker).start().await.unwrap()
}

const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// A host whose user approves every page, and what it was asked.
#[derive(Clone, Default)]
struct Browser {
    prompts: Arc<Mutex<Vec<AuthorizationPrompt>>>,
}

impl Browser {
    fn client(&self) -> OAuthClient {
        let prompts = Arc::clone(&self.prompts);
        OAuthClient::authorization_code(REDIRECT, move |prompt: AuthorizationPrompt| {
            prompts.lock().unwrap().push(prompt.clone());
            async move {
                let page = reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .unwrap()
                    .get(&prompt.url)
                    .send()
                    .await
                    .map_err(|e| ToolError::new(e.to_string()))?;
                let back = page.headers().get("location").map(|v| v.to_str().unwrap().to_owned());
                back.ok_or_else(|| ToolError::new(format!("the page answered {}", page.status())))
            }
        })
        .client_name("oauth client test")
    }

    /// The prompts so far: whether each was a step-up, and the scopes it asked for.
    fn asked(&self) -> Vec<(bool, Vec<String>)> {
        self.prompts.lock().unwrap().iter().map(|p| (p.step_up, p.scopes.clone())).collect()
    }
}

/// The local authorization server (its tokens living `lifetime` seconds), our server behind it,
/// and an import signed in through a browser as a reader (`notes:read`).
async fn reader(lifetime: usize) -> (AuthServer, McpHttpServer, Browser, McpImport) {
    let auth = AuthServer::start().await;
    auth.token_lifetime(lifetime);
    let running = protected(&auth).await;
    let browser = Browser::default();
    let import = McpImport::http(running.url()).oauth(browser.client().scopes(["notes:read"])).connect().await.unwrap();
    (auth, running, browser, import)
}

async fn call(import: &McpImport, tool: &str, arguments: serde_json::Value) -> (CallStatus, String) {
    let catalog = import.add_to(ToolCatalog::builder()).build().unwrap();
    let record = Executor::new(catalog).execute(ToolCallRequest::new(tool, "1", arguments.to_string())).await;
    (record.status, record.model_text().to_owned())
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_import_registers_authorizes_through_the_host_and_calls_as_its_user() {
    let auth = AuthServer::start().await;
    let records = Arc::new(Mutex::new(Vec::new()));
    let running = protected_keeping(&auth, Arc::clone(&records)).await;
    let browser = Browser::default();
    let import = McpImport::http(running.url())
        .oauth(browser.client().scopes(["notes:read"]))
        .connect()
        .await
        .expect("authorized and listed");
    assert_eq!(auth.registered(), 1, "no client id given, no metadata document supported: registered");
    assert_eq!(browser.asked(), [(false, strings(&["notes:read", "offline_access"]))]);
    assert_eq!(auth.grants(), ["authorization_code"]);
    let mut listed: Vec<String> = import.tools().iter().map(|t| t.definition().name.clone()).collect();
    listed.sort();
    assert_eq!(listed, ["notes.write", "whoami"], "listed beyond the scopes, for the step-up");
    assert_eq!(
        call(&import, "whoami", json!({})).await,
        (CallStatus::Success, "alice via registered-1 with [notes:read offline_access]".to_owned())
    );
    // The server's record says who called, as the token said, and holds no token.
    let kept = records.lock().unwrap().clone();
    assert_eq!(kept.len(), 1);
    let identity = kept[0]["request"]["identity"].clone();
    assert_eq!(
        (identity["subject"].clone(), identity["client_id"].clone(), identity["scopes"].clone()),
        (json!("alice"), json!("registered-1"), json!(["notes:read", "offline_access"]))
    );
    assert_eq!(kept[0]["request"]["principal"], json!(format!("{} alice", auth.issuer())));
    assert!(!kept[0].to_string().contains("eyJ"), "no JWT in the record: {}", kept[0]);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_403_insufficient_scope_steps_up_through_the_host_and_the_call_goes_through() {
    let (auth, running, browser, import) = reader(300).await;
    assert_eq!(call(&import, "notes.write", json!({"text": "hi"})).await, (CallStatus::Success, "wrote hi".to_owned()));
    assert_eq!(
        browser.asked(),
        [
            (false, strings(&["notes:read", "offline_access"])),
            (true, strings(&["notes:read", "offline_access", "notes:write"])),
        ]
    );
    assert_eq!(auth.grants(), ["authorization_code", "authorization_code"]);
    assert_eq!(
        call(&import, "whoami", json!({})).await.1,
        "alice via registered-1 with [notes:read notes:write offline_access]"
    );
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_refused_at_once_for_one_scope_step_up_once() {
    let (_auth, running, browser, import) = reader(300).await;
    let (first, second, third) = tokio::join!(
        call(&import, "notes.write", json!({"text": "a"})),
        call(&import, "notes.write", json!({"text": "b"})),
        call(&import, "notes.write", json!({"text": "c"})),
    );
    assert_eq!(
        [first, second, third],
        [
            (CallStatus::Success, "wrote a".to_owned()),
            (CallStatus::Success, "wrote b".to_owned()),
            (CallStatus::Success, "wrote c".to_owned())
        ]
    );
    let step_ups = browser.asked().iter().filter(|(step_up, _)| *step_up).count();
    assert_eq!(step_ups, 1, "one prompt for the three refusals: {:?}", browser.asked());
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_up_beyond_the_limit_fails_the_call_with_the_setting_named() {
    let auth = AuthServer::start().await;
    let running = protected(&auth).await;
    let browser = Browser::default();
    let client = browser.client().scopes(["notes:read"]).max_step_ups(0);
    let import = McpImport::http(running.url()).oauth(client).connect().await.unwrap();
    let (status, text) = call(&import, "notes.write", json!({"text": "hi"})).await;
    assert_eq!(status, CallStatus::Failed);
    assert!(
        text.contains(
            "authorizing failed: the server asked for the scope `notes:write` after 0 step-ups already (`OAuthClient::max_step_ups`)"
        ),
        "{text}"
    );
    assert_eq!(browser.asked().len(), 1, "no second prompt");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expiring_token_is_refreshed_without_asking_the_user_again() {
    let (auth, running, browser, import) = reader(2).await;
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    assert_eq!(call(&import, "whoami", json!({})).await.0, CallStatus::Success);
    assert_eq!(auth.grants(), ["authorization_code", "refresh_token"]);
    assert_eq!(browser.asked().len(), 1, "the refresh asked nobody");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_get_a_token_for_the_machine_itself() {
    let auth = AuthServer::start().await;
    let running = protected(&auth).await;
    let client = OAuthClient::client_credentials("machine", "machine-secret").scopes(["notes:write"]);
    let import = McpImport::http(running.url()).oauth(client).scopes(["proxy:use"]).connect().await.unwrap();
    assert_eq!(call(&import, "whoami", json!({})).await.1, "machine via machine with [notes:write]");
    // Served again by this host, each imported tool needs this host's scope of its own.
    for tool in import.tools() {
        assert_eq!(tool.definition().scopes, ["proxy:use"], "{}", tool.definition().name);
    }
    assert_eq!(call(&import, "notes.write", json!({"text": "x"})).await.1, "wrote x");
    assert_eq!(auth.grants(), ["client_credentials"]);
    let wrong = OAuthClient::client_credentials("machine", "not the secret");
    let refused = McpImport::http(running.url()).oauth(wrong).connect().await.expect_err("a wrong secret");
    assert!(refused.to_string().contains("authorizing failed: OAuth:"), "{refused}");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_in_a_shared_store_serve_a_second_import_without_a_prompt() {
    let auth = AuthServer::start().await;
    let running = protected(&auth).await;
    let store: SharedStore = Arc::new(MemoryStore::new());
    let browser = Browser::default();
    let first = McpImport::http(running.url())
        .oauth(browser.client().client_id("known-client").scopes(["notes:read"]).token_store(store.clone()))
        .connect()
        .await
        .unwrap();
    first.close().await;
    // Another process of the host (a restart, a replica): same store, same client.
    let second = McpImport::http(running.url())
        .oauth(browser.client().client_id("known-client").scopes(["notes:read"]).token_store(store))
        .connect()
        .await
        .unwrap();
    assert_eq!(call(&second, "whoami", json!({})).await.1, "alice via known-client with [notes:read offline_access]");
    assert_eq!(browser.asked().len(), 1, "the second import used the stored tokens");
    assert_eq!(auth.registered(), 0, "a pre-registered client is not registered");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_gives_no_redirect_or_a_forged_one_gets_no_token() {
    let auth = AuthServer::start().await;
    let running = protected(&auth).await;
    let refusing = OAuthClient::authorization_code(REDIRECT, |_prompt| async {
        Err(ToolError::new("the user closed the window"))
    });
    let refused = McpImport::http(running.url()).oauth(refusing).connect().await.expect_err("no redirect");
    assert!(
        refused.to_string().ends_with(
            "authorizing failed: the host's authorization callback gave no redirect: the user closed the window"
        ),
        "{refused}"
    );
    // A redirect whose `state` is not the one sent (a forged callback): refused by the CSRF check.
    let forged = OAuthClient::authorization_code(REDIRECT, |_prompt| async {
        Ok(format!("{REDIRECT}?code=code1&state=forged"))
    });
    let refused = McpImport::http(running.url()).oauth(forged).connect().await.expect_err("a forged state");
    assert!(refused.to_string().contains("authorizing failed: OAuth:"), "{refused}");
    assert!(auth.grants().is_empty(), "no token was given");
    // A redirect to somewhere else than the redirect URI.
    let elsewhere = OAuthClient::authorization_code(REDIRECT, |prompt: AuthorizationPrompt| async move {
        Ok(prompt.url.replace("/authorize", "/elsewhere"))
    });
    let refused = McpImport::http(running.url()).oauth(elsewhere).connect().await.expect_err("not the redirect URI");
    assert!(
        refused
            .to_string()
            .contains(&format!("the authorization callback gave a URL that is not the redirect URI `{REDIRECT}`")),
        "{refused}"
    );
    running.shutdown().await;
}
