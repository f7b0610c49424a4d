//! A client built on `McpImport`, for the client scenarios of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`). The suite starts a test server for each scenario, runs
//! this binary with the server's URL as its last argument and the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`, and checks what the server saw:
//!
//! ```text
//! cargo build -p tool-examples --features oauth --bin mcp_conformance_client
//! npx -y -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 \
//!     conformance client --command target/debug/mcp_conformance_client --suite all \
//!     --spec-version 2026-07-28 --expected-failures tests/mcp-conformance/client-baseline-2026-07-28.yml
//! ```
//!
//! Each scenario is what a host does: import the server's tools (`server/discover` or
//! `initialize`, then `tools/list`), run the scenario's tools through an executor, and close
//! the session. The exit status says whether the host got what it expected.

use std::process::ExitCode;

use serde_json::{json, Value};
use tool_core::ask::ElicitationAnswer;
use tool_core::mcp::{McpImport, OAuthClient};
use tool_core::prelude::*;

#[tokio::main]
async fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> mcp_conformance_client <server-url>");
        return ExitCode::FAILURE;
    };
    match run(&scenario, &url).await {
        Ok(said) => {
            println!("{scenario}: {said}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// What the host does in a scenario once it has imported the server's tools.
enum Plan {
    /// Nothing more: connecting and listing is the scenario.
    List,
    /// Runs these tools, in order, with these arguments.
    Calls(Vec<(String, Value)>),
    /// Runs every imported tool with these arguments.
    EveryTool(Value),
    /// Runs the first tool with the input schema of the second, as the host read it.
    EchoSchemaOf(&'static str, &'static str),
}

fn calls(list: &[(&str, Value)]) -> Plan {
    Plan::Calls(list.iter().map(|(name, arguments)| ((*name).to_owned(), arguments.clone())).collect())
}

/// What the host does in `scenario`; `context` is the suite's `MCP_CONFORMANCE_CONTEXT`.
fn plan(scenario: &str, context: Option<&Value>) -> Result<Plan, String> {
    Ok(match scenario {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => Plan::List,
        "tools_call" => calls(&[("add_numbers", json!({"a": 5, "b": 3}))]),
        // The server closes the call's event stream before answering; the answer comes on the
        // stream the client reopens after the `retry` delay, with `Last-Event-ID`.
        "sse-retry" => calls(&[("test_reconnection", json!({}))]),
        // The tool asks the client for a form; the answer must carry the form's defaults.
        "elicitation-sep1034-client-defaults" => calls(&[("test_client_elicitation_defaults", json!({}))]),
        // Each tool asks for a form in an `InputRequiredResult` (2026-07-28), with and
        // without a `requestState`; one answers at once in between, one without `resultType`.
        "sep-2322-client-request-state" => calls(&[
            ("test_mrtr_echo_state", json!({})),
            ("test_mrtr_unrelated", json!({})),
            ("test_mrtr_no_state", json!({})),
            ("test_mrtr_no_result_type", json!({})),
        ]),
        "http-standard-headers" => calls(&[("test_headers", json!({})), ("my-hyphenated-tool", json!({}))]),
        // The calls come from the suite, whose arguments the tools' `x-mcp-header` annotations
        // turn into `Mcp-Param-*` headers.
        "http-custom-headers" => {
            let listed = context.and_then(|c| c.get("toolCalls")).and_then(Value::as_array);
            let listed = listed.ok_or("the suite gave no `toolCalls` in MCP_CONFORMANCE_CONTEXT")?;
            Plan::Calls(
                listed
                    .iter()
                    .filter_map(|call| Some((call.get("name")?.as_str()?.to_owned(), call.get("arguments")?.clone())))
                    .collect(),
            )
        }
        // The import leaves out the tools whose `x-mcp-header` annotations are invalid: the
        // host runs what it was given.
        "http-invalid-tool-headers" => Plan::EveryTool(json!({"region": "us-west1"})),
        "json-schema-2020-12-preservation" => Plan::EchoSchemaOf("json_schema_echo", "json_schema_2020_12_tool"),
        // The servers of the auth scenarios want an OAuth token before anything else.
        auth if auth.starts_with("auth/") => calls(&[("test-tool", json!({}))]),
        other => return Err(format!("no such scenario `{other}` (MCP_CONFORMANCE_SCENARIO)")),
    })
}

async fn run(scenario: &str, url: &str) -> Result<String, String> {
    let context: Option<Value> =
        std::env::var("MCP_CONFORMANCE_CONTEXT").ok().and_then(|text| serde_json::from_str(&text).ok());
    let plan = plan(scenario, context.as_ref())?;
    // This host's user accepts every form as offered, changing nothing: the import fills in the
    // defaults the form declares, as MCP asks of clients.
    let mut import =
        McpImport::http(url).on_elicit(|_form| async { Ok(ElicitationAnswer::Accept(serde_json::Map::new())) });
    if scenario.starts_with("auth/") {
        import = import.oauth(oauth_client(context.as_ref())?);
    }
    let import = import.connect().await.map_err(|e| e.to_string())?;
    let tools = import.tools();
    let calls = match plan {
        Plan::List => Vec::new(),
        Plan::Calls(calls) => calls,
        Plan::EveryTool(arguments) => {
            tools.iter().map(|tool| (tool.definition().name.clone(), arguments.clone())).collect()
        }
        Plan::EchoSchemaOf(echo, of) => {
            let schema =
                tools.iter().find(|tool| tool.definition().name == of).map(|t| t.definition().input_schema.clone());
            let schema = schema.ok_or_else(|| format!("the server's tool `{of}` was not imported"))?;
            vec![(echo.to_owned(), json!({"schema": schema}))]
        }
    };
    let mut said =
        vec![format!("imported {} tool(s) over {}", tools.len(), import.protocol_version().unwrap_or_default())];
    let mut outcome = Ok(());
    for (name, arguments) in calls {
        match call_tool(&import, &name, &arguments).await {
            Ok(text) => said.push(text),
            Err(error) => {
                outcome = Err(error);
                break;
            }
        }
    }
    import.close().await;
    outcome.map(|()| said.join("; "))
}

/// The suite's client for its authorization servers: client credentials when the scenario gives
/// them (with a secret or a private key), else the authorization code flow as a desktop host
/// runs it, a pre-registered client when the scenario names one, else the client ID metadata
/// document the suite serves, else dynamic registration.
fn oauth_client(context: Option<&Value>) -> Result<OAuthClient, String> {
    let field = |name: &str| context.and_then(|c| c.get(name)).and_then(Value::as_str).map(str::to_owned);
    let (client_id, secret, key) = (field("client_id"), field("client_secret"), field("private_key_pem"));
    let client = match (client_id, secret, key) {
        (id, _, Some(pem)) => {
            let id = id.ok_or("the suite gave a private key and no `client_id`")?;
            let algorithm = field("signing_algorithm").unwrap_or_else(|| "ES256".to_owned());
            OAuthClient::private_key_jwt(id, pem, &algorithm).map_err(|e| e.to_string())?
        }
        (Some(id), Some(secret), None) if field("issuer").is_none() => OAuthClient::client_credentials(id, secret),
        (id, secret, None) => {
            let mut client = OAuthClient::authorization_code(REDIRECT_URI, |prompt| browse(prompt.url))
                .client_metadata_url(CLIENT_METADATA_URL)
                .client_name("tool-core conformance client");
            if let Some(id) = id {
                client = client.client_id(id);
            }
            if let Some(secret) = secret {
                client = client.client_secret(secret);
            }
            client
        }
    };
    Ok(client)
}

/// Where the suite's authorization servers send the browser back.
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document the suite's authorization servers accept.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// A user who approves at once: the authorization page is opened and the redirect it answers
/// with is where the browser would go.
async fn browse(url: String) -> Result<String, ToolError> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ToolError::new(e.to_string()))?;
    let page = http.get(&url).send().await.map_err(|e| ToolError::new(e.to_string()))?;
    let location = page.headers().get("location").and_then(|v| v.to_str().ok());
    location
        .map(str::to_owned)
        .ok_or_else(|| ToolError::new(format!("the authorization page answered {}", page.status())))
}

/// Runs `name` through an executor over the imported tools, as a host runs a model's call.
async fn call_tool(import: &McpImport, name: &str, arguments: &Value) -> Result<String, String> {
    let catalog = import.add_to(ToolCatalog::builder()).build().map_err(|e| e.to_string())?;
    let executor = Executor::new(catalog);
    let record = executor.execute(ToolCallRequest::new(name, "1", arguments.to_string())).await;
    match record.status {
        CallStatus::Success => Ok(format!("{name} -> {}", record.model_text())),
        status => Err(format!("{name} -> {status:?}: {}", record.model_text())),
    }
}
