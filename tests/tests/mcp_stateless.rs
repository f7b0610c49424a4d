//! Requests of protocol 2026-07-28 (stateless MCP) sent over real HTTP to a served catalog, as
//! the conformance suite sends them: each carries its protocol version in the
//! `MCP-Protocol-Version` header and in `_meta` with the client's capabilities, and each answer
//! is checked whole, HTTP status included. What protocol 2026-07-28 asks of a server beyond
//! earlier ones: `resultType` on every result, the removed methods answered as unknown ones,
//! -32021 for a capability the request did not declare, arguments mirrored into `Mcp-Param-*`
//! headers (SEP-2243) and checked against them.

use reqwest::header::CONTENT_TYPE;
use serde_json::{json, Value};
use tool_core::ask::{SamplingRequest, SamplingResponse};
use tool_core::mcp::{McpHttpServer, McpPrimitives, McpServer, Prompt, PromptMessage, Resource, ResourceContent};
use tool_core::prelude::*;
use tool_core::DynamicToolError;

/// The protocol revision these requests speak.
const REVISION: &str = "2026-07-28";

/// Asks the client's model, and says what it answered.
#[tool]
async fn ask_model(ctx: &ToolContext) -> Result<String, ToolError> {
    let response = ctx.sample(SamplingRequest::new("Say hello.", 20)).await?;
    Ok(format!("The model said: {}", response.text_content()))
}

/// Asks the client's model, and goes on without it when nobody answers.
#[tool]
async fn ask_model_or_not(ctx: &ToolContext) -> String {
    match ctx.sample(SamplingRequest::new("Say hello.", 20)).await {
        Ok(response) => format!("The model said: {}", response.text_content()),
        Err(error) => format!("No model: {}", error.code().unwrap_or_default()),
    }
}

/// The argument of the `greeting` prompt.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Whom {
    /// Whom to greet.
    name: String,
}

/// A served catalog of this file's tools, with a prompt, a resource and a completion.
async fn serve(executor: Executor) -> McpHttpServer {
    let primitives = McpPrimitives::new()
        .resource(Resource::new("test://note", "note", |_| Ok(ResourceContent::text("a note"))).mime_type("text/plain"))
        .prompt(
            Prompt::with_arguments("greeting", |whom: Whom| {
                Ok(vec![PromptMessage::user(format!("Hello, {}.", whom.name))])
            })
            .description("Says hello")
            .complete("name", |partial, _| {
                ["Ada", "Alan"].into_iter().filter(|name| name.starts_with(partial)).map(str::to_owned).collect()
            }),
        );
    McpServer::builder(executor).primitives(primitives).build().unwrap().http().start().await.unwrap()
}

fn executor() -> Executor {
    Executor::new(tool_tests::declared_in(file!()))
}

/// Sends `method` with `params` as a 2026-07-28 client declaring `capabilities` does, with
/// the headers SEP-2243 asks for; the HTTP status and the JSON-RPC answer (from the JSON body,
/// or the event stream's message answering the request).
async fn post(url: &str, method: &str, params: Value, capabilities: Value) -> (u16, Value) {
    post_with(url, method, params, capabilities, &[]).await
}

/// [`post`], with these headers too.
async fn post_with(
    url: &str,
    method: &str,
    mut params: Value,
    capabilities: Value,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let name = match method {
        "tools/call" | "prompts/get" => params["name"].as_str().map(str::to_owned),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => params["uri"].as_str().map(str::to_owned),
        _ => None,
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", REVISION)
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let response = request.body(body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    let event_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let text = response.text().await.unwrap();
    let answer = match event_stream {
        false => serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
        true => text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message["id"] == 7)
            .unwrap_or_else(|| panic!("no answer to the request in the stream:\n{text}")),
    };
    (status, answer)
}

/// The result of an answer, with the caching hints rmcp adds to lists and reads taken out.
fn result(answer: &Value) -> Value {
    let mut result = answer["result"].clone();
    if let Some(fields) = result.as_object_mut() {
        fields.remove("ttlMs");
        fields.remove("cacheScope");
        fields.remove("_meta");
    }
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_resources_and_completions_say_their_result_is_complete() {
    let running = serve(executor()).await;
    let url = running.url();

    let (status, answer) = post(&url, "prompts/list", json!({}), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        result(&answer),
        json!({"resultType": "complete", "prompts": [{
            "name": "greeting",
            "description": "Says hello",
            "arguments": [{"name": "name", "description": "Whom to greet.", "required": true}]
        }]})
    );
    let (status, answer) =
        post(&url, "prompts/get", json!({"name": "greeting", "arguments": {"name": "Ada"}}), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        result(&answer),
        json!({
            "resultType": "complete",
            "description": "Says hello",
            "messages": [{"role": "user", "content": {"type": "text", "text": "Hello, Ada."}}]
        })
    );
    let (status, answer) = post(&url, "resources/list", json!({}), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        result(&answer),
        json!({
            "resultType": "complete",
            "resources": [{"uri": "test://note", "name": "note", "mimeType": "text/plain"}]
        })
    );
    let (status, answer) = post(&url, "resources/read", json!({"uri": "test://note"}), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        result(&answer),
        json!({
            "resultType": "complete",
            "contents": [{"uri": "test://note", "mimeType": "text/plain", "text": "a note"}]
        })
    );
    let (status, answer) = post(&url, "resources/templates/list", json!({}), json!({})).await;
    assert_eq!((status, result(&answer)), (200, json!({"resultType": "complete", "resourceTemplates": []})));
    let complete = json!({
        "ref": {"type": "ref/prompt", "name": "greeting"},
        "argument": {"name": "name", "value": "A"}
    });
    let (status, answer) = post(&url, "completion/complete", complete, json!({})).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        result(&answer),
        json!({"resultType": "complete", "completion": {"values": ["Ada", "Alan"], "total": 2, "hasMore": false}}),
        "{answer}"
    );
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_methods_2026_07_28_removed_are_unknown_methods_with_http_404() {
    let running = serve(executor()).await;
    let url = running.url();
    // Without the params they had (as the suite sends them), and with them. (A whole
    // `initialize` is the handshake of a 2025-11-25 client, which is served.)
    let requests = [
        ("initialize", json!({})),
        ("ping", json!({})),
        ("logging/setLevel", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({})),
        ("resources/subscribe", json!({"uri": "test://note"})),
        ("resources/unsubscribe", json!({})),
        ("resources/unsubscribe", json!({"uri": "test://note"})),
    ];
    for (method, params) in requests {
        let (status, answer) = post(&url, method, params.clone(), json!({})).await;
        assert_eq!(
            (status, answer["error"]["code"].clone(), answer["id"].clone()),
            (404, json!(-32601), json!(7)),
            "{method} {params}: {answer}"
        );
    }
    // A malformed request of a method 2026-07-28 still has stays invalid params.
    let (status, answer) = post(&url, "resources/read", json!({"uri": 5}), json!({})).await;
    assert_eq!(
        (status, answer["error"].clone()),
        (200, json!({"code": -32602, "message": "the params of `resources/read` are not valid for it"}))
    );
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_needing_a_capability_the_request_did_not_declare_is_refused_with_32021() {
    let running = serve(executor()).await;
    let url = running.url();
    let (status, answer) = post(&url, "tools/call", json!({"name": "ask_model", "arguments": {}}), json!({})).await;
    assert_eq!(
        (status, answer),
        (
            400,
            json!({"jsonrpc": "2.0", "id": 7, "error": {
                "code": -32021,
                "message": "the tool `ask_model` needs the client's `sampling` capability, which this request did \
                            not declare in `_meta.io.modelcontextprotocol/clientCapabilities`",
                "data": {"requiredCapabilities": {"sampling": {}}}
            }})
        )
    );
    // A tool that goes on without the answer did not need the capability.
    let (status, answer) =
        post(&url, "tools/call", json!({"name": "ask_model_or_not", "arguments": {}}), json!({})).await;
    assert_eq!(
        (status, result(&answer)),
        (
            200,
            json!({"resultType": "complete", "content": [{"type": "text", "text": "No model: no_sampling"}], "isError": false})
        )
    );
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capability_the_host_answers_for_is_not_required_of_the_client() {
    let executor = Executor::builder(tool_tests::declared_in(file!()))
        .on_sample(|_| async { Ok(SamplingResponse::text("hello", "host-model")) })
        .build();
    let running = serve(executor).await;
    let (status, answer) =
        post(&running.url(), "tools/call", json!({"name": "ask_model", "arguments": {}}), json!({})).await;
    assert_eq!(
        (status, result(&answer)),
        (
            200,
            json!({"resultType": "complete", "content": [{"type": "text", "text": "The model said: hello"}], "isError": false})
        )
    );
    running.shutdown().await;
}

/// Tells which region a deployment goes to; the region travels in a header too.
#[tool]
async fn deploy(
    /// Where to deploy.
    #[param(header = "Region")]
    region: String,
    /// How many replicas.
    #[param(header = "Replicas", default = 1)]
    replicas: u32,
    /// The image, in the body only.
    image: String,
) -> String {
    format!("{image} x{replicas} in {region}")
}

/// A `tools/call` of `deploy` with these arguments and `Mcp-Param-*` headers.
async fn call_deploy(url: &str, arguments: Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let params = json!({"name": "deploy", "arguments": arguments});
    post_with(url, "tools/call", params, json!({}), headers).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parameter_mirrored_into_a_header_is_listed_with_x_mcp_header_and_checked_against_it() {
    let running = serve(executor()).await;
    let url = running.url();
    let (_, answer) = post(&url, "tools/list", json!({}), json!({})).await;
    let deploy = answer["result"]["tools"].as_array().unwrap().iter().find(|tool| tool["name"] == "deploy").unwrap();
    assert_eq!(
        deploy["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "description": "Where to deploy.", "x-mcp-header": "Region"},
                "replicas": {
                    "type": "integer", "description": "How many replicas.", "x-mcp-header": "Replicas",
                    "default": 1, "minimum": 0
                },
                "image": {"type": "string", "description": "The image, in the body only."}
            },
            "required": ["region", "image"]
        })
    );
    let arguments = json!({"region": "eu-west1", "replicas": 2, "image": "app:1"});
    let ok = |text: &str| {
        (200, json!({"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": false}))
    };
    let (status, answer) =
        call_deploy(&url, arguments.clone(), &[("mcp-param-region", "eu-west1"), ("mcp-param-replicas", "2")]).await;
    assert_eq!((status, result(&answer)), ok("app:1 x2 in eu-west1"));
    // Base64 for a value a header cannot hold as it is, header names in any case.
    let arguments = json!({"region": "Zürich ", "image": "app:1"});
    let (status, answer) = call_deploy(&url, arguments, &[("MCP-PARAM-REGION", "=?base64?WsO8cmljaCA=?=")]).await;
    assert_eq!((status, result(&answer)), ok("app:1 x1 in Zürich "));

    let refused =
        |message: &str| (400, json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32020, "message": message}}));
    let arguments = json!({"region": "eu-west1", "image": "app:1"});
    assert_eq!(
        call_deploy(&url, arguments.clone(), &[("mcp-param-region", "us-east1")]).await,
        refused("Mcp-Param-Region header `us-east1` does not match body value `eu-west1`")
    );
    assert_eq!(
        call_deploy(&url, arguments.clone(), &[]).await,
        refused("missing Mcp-Param-Region header for `region`")
    );
    assert_eq!(
        call_deploy(&url, arguments.clone(), &[("mcp-param-region", "=?base64?ZXUtd2VzdDE?=")]).await,
        refused("Mcp-Param-Region header is not valid Base64")
    );
    assert_eq!(
        call_deploy(&url, arguments.clone(), &[("mcp-param-region", "eu-west1"), ("mcp-param-replicas", "1")]).await,
        refused("unexpected Mcp-Param-Replicas header for absent or null `replicas`")
    );
    running.shutdown().await;
}

/// The schema of the conformance suite's `json-schema-2020-12` scenario, keyword for keyword.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
        }},
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string", "x-mcp-header": "Phone"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_built_from_a_json_schema_is_listed_with_that_schema_exactly() {
    let contact = DynamicTool::builder("contact")
        .description("Reach someone.")
        .input_schema(json_schema_2020_12())
        .handler(|_, _| async { "reached" })
        .build()
        .unwrap();
    let running = serve(Executor::new(ToolCatalog::builder().add_tool(contact).build().unwrap())).await;
    let (status, answer) = post(&running.url(), "tools/list", json!({}), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["result"]["tools"],
        json!([{"name": "contact", "description": "Reach someone.", "inputSchema": json_schema_2020_12()}])
    );
    running.shutdown().await;
}

#[test]
fn a_dynamic_tool_names_its_headers_and_its_mistakes() {
    let schema = json!({"type": "object", "properties": {
        "region": {"type": "string"}, "zone": {"type": "string"}, "size": {"type": "number"}
    }});
    let build = |headers: &[(&str, &str)]| {
        let mut builder = DynamicTool::builder("place").input_schema(schema.clone()).handler(|_, _| async { "" });
        for (property, header) in headers {
            builder = builder.header(*property, *header);
        }
        builder.build().map(|tool| tool.definition().input_schema["properties"]["region"].clone())
    };
    assert_eq!(build(&[("region", "Region")]), Ok(json!({"type": "string", "x-mcp-header": "Region"})));
    let refused = |property: &str, reason: &str| {
        Err(DynamicToolError::InvalidHeader {
            tool: "place".to_owned(),
            property: property.to_owned(),
            reason: reason.to_owned(),
        })
    };
    assert_eq!(build(&[("area", "Area")]), refused("area", "the input schema has no such property"));
    assert_eq!(
        build(&[("size", "Size")]),
        refused("size", "only a string, integer or boolean property can be a header")
    );
    assert_eq!(
        build(&[("region", "Region"), ("zone", "REGION")]),
        refused("zone", "`region` is mirrored into `Mcp-Param-REGION` already")
    );
    let error = build(&[("region", "The Region")]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the tool `place` cannot mirror `region` into an HTTP header: `x-mcp-header` must be an HTTP token \
         (letters, digits and !#$%&'*+-.^_`|~), not \"The Region\""
    );
}

/// An order line, which refuses keys it does not have.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Line {
    /// The article.
    article: String,
}

/// Orders one line.
#[tool]
async fn order(
    /// What to order.
    line: Line,
) -> String {
    line.article
}

/// Orders one line, strictly.
#[tool(strict)]
async fn order_strictly(
    /// What to order.
    article: String,
) -> String {
    article
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_that_refuses_unknown_keys_is_listed_closed() {
    let running = serve(executor()).await;
    let (_, answer) = post(&running.url(), "tools/list", json!({}), json!({})).await;
    let schema = |name: &str| {
        answer["result"]["tools"].as_array().unwrap().iter().find(|tool| tool["name"] == name).unwrap()["inputSchema"]
            .clone()
    };
    assert_eq!(
        schema("order"),
        json!({
            "type": "object",
            "properties": {"line": {"$ref": "#/$defs/Line", "description": "What to order."}},
            "required": ["line"],
            "$defs": {"Line": {
                "type": "object",
                "description": "An order line, which refuses keys it does not have.",
                "properties": {"article": {"type": "string", "description": "The article."}},
                "required": ["article"],
                "additionalProperties": false
            }}
        })
    );
    assert_eq!(
        schema("order_strictly"),
        json!({
            "type": "object",
            "properties": {"article": {"type": "string", "description": "What to order."}},
            "required": ["article"],
            "additionalProperties": false
        })
    );
    running.shutdown().await;
}
