//! Deferral and search on the wire of every dialect: the exact request `tools` per dialect and
//! mode (ours, Anthropic's regex and BM25 search, OpenAI's hosted search with and without
//! namespaces, the client-executed Responses search), discovered tools appended in order with
//! the part before them unchanged across turns and across a switch of provider, the documented
//! responses read back whole and streamed (`tests/data/providers/*tool_search*`, provenance in
//! its SOURCES.md), the error objects, and a client-executed OpenAI round trip.

use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::providers::calls::ParsedCalls;
use tool_core::providers::names::NameMap;
use tool_core::providers::results::assistant_turn;
use tool_core::providers::stream::sse_data;
use tool_core::providers::{Dialect, Provider};
use tool_core::search::{
    anthropic_tool_result, check_deferral, execute_openai_tool_search_output, read_response, Discovered, Namespaces,
    SearchMode, SearchOutcome, SearchRequest, SearchRequestError, SearchResponse, SearchStream, SearchToolBuilder,
};

// ---------------------------------------------------------------------------------------------
// The catalog: one loaded tool, four deferred, two of them in the `crm` group.

fn tool(name: &str, description: &str, parameter: &str, tags: &[&str]) -> DynamicTool {
    let mut builder = DynamicTool::builder(name).description(description).input_schema(json!({
        "type": "object",
        "properties": {parameter: {"type": "string"}},
        "required": [parameter],
    }));
    for tag in tags {
        builder = builder.tag(*tag);
    }
    builder.handler(|_, _| async { ToolOutput::text("done") }).build().unwrap()
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_tool(tool("clock_now", "The current time in a time zone.", "zone", &[]))
        .add_tool(tool("crm.get_customer_profile", "Fetch a customer profile by customer ID.", "customer_id", &["crm"]))
        .add_tool(tool("crm.list_open_orders", "List open orders for a customer ID.", "customer_id", &["crm"]))
        .add_tool(tool("get_weather", "Get the weather at a specific location", "location", &["weather"]))
        .add_tool(tool("shipping_eta", "Look up shipping ETA details for an order.", "order_id", &[]))
        .defer_all()
        .keep_loaded("clock_now")
        .build()
        .unwrap()
}

fn search_tool(catalog: &ToolCatalog) -> DynamicTool {
    SearchToolBuilder::new(catalog.deferred()).description("Find more tools.").build().unwrap()
}

/// The search tool's input schema, as every dialect here sends it.
fn search_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What the tool you need does, in a few words (`weather forecast for a city`, `refund an order`). Tool names work too."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "How many tools to return, best first (default 5, at most 20)."
            }
        },
        "required": ["query"]
    })
}

fn schema(parameter: &str) -> Value {
    json!({"type": "object", "properties": {parameter: {"type": "string"}}, "required": [parameter]})
}

fn request(dialect: Dialect, mode: SearchMode) -> SearchRequest {
    let catalog = catalog();
    let search = search_tool(&catalog);
    SearchRequest::builder(&catalog, search.definition(), dialect).mode(mode).build().unwrap()
}

fn discovered(names: &[&str]) -> Discovered {
    let mut discovered = Discovered::new();
    for name in names {
        discovered.insert(*name);
    }
    discovered
}

fn chat(name: &str, description: &str, parameters: Value) -> Value {
    json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters, "strict": false}})
}

fn anthropic(name: &str, description: &str, parameters: Value) -> Value {
    json!({"name": name, "description": description, "input_schema": parameters})
}

fn deferred(mut tool: Value) -> Value {
    tool["defer_loading"] = Value::Bool(true);
    tool
}

fn responses(name: &str, description: &str, parameters: Value) -> Value {
    json!({"type": "function", "name": name, "description": description, "parameters": parameters, "strict": false})
}

// ---------------------------------------------------------------------------------------------
// Requests: ours, where the provider has no deferral.

#[test]
fn chat_completions_with_our_search_sends_the_loaded_tools_and_the_search_tool_then_the_discovered_ones_in_order() {
    let request = request(Dialect::OpenAiChat { strict: false }, SearchMode::Ours);
    let first = request.tools(&Discovered::new());
    let prefix = vec![
        chat("clock_now", "The current time in a time zone.", schema("zone")),
        chat("search_tools", "Find more tools.", search_schema()),
    ];
    assert_eq!(first.tools, prefix);
    // Found in this order: appended in this order, never re-sorted.
    let second = request.tools(&discovered(&["get_weather", "crm.list_open_orders"]));
    let mut expected = prefix.clone();
    expected.push(chat("get_weather", "Get the weather at a specific location", schema("location")));
    expected.push(chat("crm_list_open_orders", "List open orders for a customer ID.", schema("customer_id")));
    assert_eq!(second.tools, expected);
    // A later turn only adds at the end: the part sent before is the same, byte for byte.
    let third = request.tools(&discovered(&["get_weather", "crm.list_open_orders", "shipping_eta"]));
    assert_eq!(third.tools[..4], second.tools[..]);
    assert_eq!(third.tools[4], chat("shipping_eta", "Look up shipping ETA details for an order.", schema("order_id")));
    // A name the catalog does not defer (loaded, or unknown) is not sent twice or at all.
    assert_eq!(request.tools(&discovered(&["clock_now", "no_such_tool"])).tools, prefix);
    // Calls come back under our names, discovered tools and those not yet sent alike.
    assert_eq!(first.names.tool_name("crm_list_open_orders"), "crm.list_open_orders");
    assert_eq!(first.names.tool_name("crm_get_customer_profile"), "crm.get_customer_profile");
}

#[test]
fn gemini_and_mcp_with_our_search_send_the_same_tools_in_their_shapes() {
    let request = request(Dialect::GeminiJsonSchema, SearchMode::Ours);
    let tools = request.tools(&discovered(&["crm.get_customer_profile"]));
    assert_eq!(
        tools.request_fragment(),
        json!({"tools": [{"functionDeclarations": [
            {"name": "clock_now", "description": "The current time in a time zone.", "parametersJsonSchema": schema("zone")},
            {"name": "search_tools", "description": "Find more tools.", "parametersJsonSchema": search_schema()},
            {"name": "crm.get_customer_profile", "description": "Fetch a customer profile by customer ID.",
             "parametersJsonSchema": schema("customer_id")},
        ]}]})
    );
    let request = request_mcp();
    assert_eq!(
        request.tools(&discovered(&["get_weather"])).tools,
        vec![
            json!({"name": "clock_now", "description": "The current time in a time zone.", "inputSchema": schema("zone")}),
            json!({"name": "search_tools", "description": "Find more tools.", "inputSchema": search_schema(),
                   "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}}),
            json!({"name": "get_weather", "description": "Get the weather at a specific location", "inputSchema": schema("location")}),
        ]
    );
}

fn request_mcp() -> SearchRequest {
    request(Dialect::Mcp, SearchMode::Ours)
}

#[test]
fn a_switch_of_provider_mid_conversation_sends_the_same_discovered_tools() {
    // Found while talking to OpenAI Chat; the conversation then goes on with Gemini, then MCP.
    let found = discovered(&["shipping_eta", "get_weather"]);
    let wire_names = |dialect: Dialect| -> Vec<String> {
        let tools = request(dialect, SearchMode::Ours).tools(&found).tools.into_owned();
        tools.iter().map(|t| t.get("function").unwrap_or(t)["name"].as_str().unwrap().to_owned()).collect()
    };
    let same = ["clock_now", "search_tools", "shipping_eta", "get_weather"];
    assert_eq!(wire_names(Dialect::OpenAiChat { strict: false }), same);
    assert_eq!(wire_names(Dialect::OpenAiChat { strict: true }), same);
    assert_eq!(wire_names(Dialect::Gemini), same);
    assert_eq!(wire_names(Dialect::Mcp), same);
    // Anthropic with our search sends every deferred tool deferred, found or not: the API
    // loads what the search results (`tool_reference` blocks) name, so nothing changes.
    let anthropic = request(Dialect::Anthropic { strict: false }, SearchMode::Ours);
    assert_eq!(anthropic.tools(&found).tools, anthropic.tools(&Discovered::new()).tools);
    // The `Discovered` kept with the conversation is plain JSON.
    assert_eq!(serde_json::to_value(&found).unwrap(), json!({"names": ["shipping_eta", "get_weather"]}));
}

// ---------------------------------------------------------------------------------------------
// Requests: Anthropic.

fn anthropic_deferred() -> Vec<Value> {
    vec![
        deferred(anthropic(
            "crm_get_customer_profile",
            "Fetch a customer profile by customer ID.",
            schema("customer_id"),
        )),
        deferred(anthropic("crm_list_open_orders", "List open orders for a customer ID.", schema("customer_id"))),
        deferred(anthropic("get_weather", "Get the weather at a specific location", schema("location"))),
        deferred(anthropic("shipping_eta", "Look up shipping ETA details for an order.", schema("order_id"))),
    ]
}

#[test]
fn anthropic_with_our_search_sends_it_as_a_custom_tool_and_every_deferred_tool_with_defer_loading() {
    let request = request(Dialect::Anthropic { strict: false }, SearchMode::Ours);
    let mut expected = vec![
        anthropic("clock_now", "The current time in a time zone.", schema("zone")),
        anthropic("search_tools", "Find more tools.", search_schema()),
    ];
    expected.extend(anthropic_deferred());
    assert_eq!(request.tools(&Discovered::new()).tools, expected);
    assert_eq!(request.tools(&discovered(&["get_weather"])).tools, expected);
}

#[test]
fn anthropic_native_search_sends_the_server_tool_and_every_deferred_tool_with_defer_loading() {
    for (mode, kind, name) in [
        (SearchMode::AnthropicRegex, "tool_search_tool_regex_20251119", "tool_search_tool_regex"),
        (SearchMode::AnthropicBm25, "tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
    ] {
        let request = request(Dialect::Anthropic { strict: false }, mode);
        let mut expected = vec![
            anthropic("clock_now", "The current time in a time zone.", schema("zone")),
            json!({"type": kind, "name": name}),
        ];
        expected.extend(anthropic_deferred());
        assert_eq!(request.tools(&Discovered::new()).tools, expected, "{mode}");
        assert_eq!(request.tools(&discovered(&["get_weather"])).tools, expected, "{mode}");
    }
}

#[test]
fn anthropic_strict_keeps_strict_beside_defer_loading() {
    let request = request(Dialect::Anthropic { strict: true }, SearchMode::AnthropicBm25);
    let tools = request.tools(&Discovered::new()).tools;
    assert_eq!(
        tools[2],
        json!({"name": "crm_get_customer_profile", "description": "Fetch a customer profile by customer ID.",
               "input_schema": {"type": "object", "properties": {"customer_id": {"type": "string"}},
                                "required": ["customer_id"], "additionalProperties": false},
               "strict": true, "defer_loading": true})
    );
}

#[test]
fn the_anthropic_cache_breakpoint_goes_on_the_last_tool_that_is_not_deferred() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let request = SearchRequest::builder(&catalog, search.definition(), Dialect::Anthropic { strict: false })
        .mode(SearchMode::AnthropicRegex)
        .cache_breakpoint(true)
        .build()
        .unwrap();
    let tools = request.tools(&Discovered::new()).tools;
    assert_eq!(
        tools[1],
        json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex", "cache_control": {"type": "ephemeral"}})
    );
    assert_eq!(tools.iter().filter(|t| t.get("cache_control").is_some()).count(), 1);
    assert!(tools[2..].iter().all(|t| t["defer_loading"] == true && t.get("cache_control").is_none()));
}

#[test]
fn anthropic_refuses_a_request_of_deferred_tools_only_and_cache_control_on_a_deferred_tool() {
    let weather = deferred(anthropic("get_weather", "Get the weather.", schema("location")));
    let error = check_deferral(std::slice::from_ref(&weather)).unwrap_err();
    assert_eq!(error, SearchRequestError::AllDeferred);
    assert_eq!(
        error.to_string(),
        "every tool of the request is deferred (`defer_loading: true`), which Anthropic refuses (\"At least one tool \
         must have defer_loading=false\"): keep the search tool, or another tool, loaded"
    );
    let mut cached = weather.clone();
    cached["cache_control"] = json!({"type": "ephemeral"});
    let server = json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"});
    let error = check_deferral(&[server.clone(), cached]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`get_weather` is deferred and carries `cache_control`, which Anthropic refuses: put the cache breakpoint on \
         a tool that is not deferred"
    );
    assert_eq!(check_deferral(&[server, weather]), Ok(()));
}

#[test]
fn anthropic_takes_at_most_ten_thousand_deferred_tools() {
    let mut builder = ToolCatalog::builder();
    for i in 0..10_001 {
        builder = builder.add_tool(tool(&format!("tool_{i}"), "Does one thing.", "x", &[]));
    }
    let catalog = builder.defer_all().build().unwrap();
    let search = search_tool(&catalog);
    let error = SearchRequest::builder(&catalog, search.definition(), Dialect::Anthropic { strict: false })
        .build()
        .unwrap_err();
    assert_eq!(error.to_string(), "10001 deferred tools: Anthropic takes at most 10000 in one request");
}

// ---------------------------------------------------------------------------------------------
// Requests: the OpenAI Responses API.

#[test]
fn openai_hosted_search_sends_tool_search_and_every_deferred_function_with_defer_loading() {
    let request = request(Dialect::OpenAiResponses { strict: false }, SearchMode::OpenAiHosted);
    let expected = vec![
        responses("clock_now", "The current time in a time zone.", schema("zone")),
        json!({"type": "tool_search"}),
        deferred(responses(
            "crm_get_customer_profile",
            "Fetch a customer profile by customer ID.",
            schema("customer_id"),
        )),
        deferred(responses("crm_list_open_orders", "List open orders for a customer ID.", schema("customer_id"))),
        deferred(responses("get_weather", "Get the weather at a specific location", schema("location"))),
        deferred(responses("shipping_eta", "Look up shipping ETA details for an order.", schema("order_id"))),
    ];
    assert_eq!(request.tools(&Discovered::new()).tools, expected);
    assert_eq!(request.tools(&discovered(&["get_weather"])).tools, expected);
}

#[test]
fn openai_hosted_search_groups_deferred_functions_into_namespaces_by_prefix_and_maps_calls_back() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let request = SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiResponses { strict: true })
        .mode(SearchMode::OpenAiHosted)
        .namespaces(Namespaces::by_prefix().describe("crm", "CRM tools for customer lookup and order management."))
        .build()
        .unwrap();
    let strict = |name: &str, description: &str, parameter: &str| {
        json!({"type": "function", "name": name, "description": description, "strict": true,
               "parameters": {"type": "object", "properties": {parameter: {"type": "string"}},
                              "required": [parameter], "additionalProperties": false}})
    };
    let exported = request.tools(&Discovered::new());
    assert_eq!(
        exported.tools,
        vec![
            strict("clock_now", "The current time in a time zone.", "zone"),
            json!({"type": "tool_search"}),
            json!({"type": "namespace", "name": "crm", "description": "CRM tools for customer lookup and order management.",
            "tools": [
                deferred(strict("get_customer_profile", "Fetch a customer profile by customer ID.", "customer_id")),
                deferred(strict("list_open_orders", "List open orders for a customer ID.", "customer_id")),
            ]}),
            deferred(strict("get_weather", "Get the weather at a specific location", "location")),
            deferred(strict("shipping_eta", "Look up shipping ETA details for an order.", "order_id")),
        ]
    );
    assert_eq!(exported.names.namespaced_tool_name(Some("crm"), "list_open_orders"), "crm.list_open_orders");
    assert_eq!(exported.names.namespace_of("crm.list_open_orders"), Some(("crm", "list_open_orders")));
    // The documented quirk: a top-level function's call names its own name as the namespace.
    assert_eq!(exported.names.namespaced_tool_name(Some("get_weather"), "get_weather"), "get_weather");
}

#[test]
fn openai_namespaces_by_tag_describe_themselves_when_the_host_does_not() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let request = SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiResponses { strict: false })
        .mode(SearchMode::OpenAiHosted)
        .namespaces(Namespaces::by_tag())
        .build()
        .unwrap();
    assert_eq!(
        request.tools(&Discovered::new()).tools[2..],
        [
            json!({"type": "namespace", "name": "crm", "description": "The crm tools: get_customer_profile, list_open_orders.",
            "tools": [
                deferred(responses("get_customer_profile", "Fetch a customer profile by customer ID.", schema("customer_id"))),
                deferred(responses("list_open_orders", "List open orders for a customer ID.", schema("customer_id"))),
            ]}),
            json!({"type": "namespace", "name": "weather", "description": "The weather tools: get_weather.",
                   "tools": [deferred(responses("get_weather", "Get the weather at a specific location", schema("location")))]}),
            deferred(responses("shipping_eta", "Look up shipping ETA details for an order.", schema("order_id"))),
        ]
    );
}

#[test]
fn openai_responses_with_our_search_sends_the_client_executed_tool_search() {
    let request = request(Dialect::OpenAiResponses { strict: false }, SearchMode::Ours);
    let expected = vec![
        responses("clock_now", "The current time in a time zone.", schema("zone")),
        json!({"type": "tool_search", "execution": "client", "description": "Find more tools.", "parameters": search_schema()}),
    ];
    assert_eq!(request.tools(&Discovered::new()).tools, expected);
    // What was found goes back in `tool_search_output` items, never into `tools`.
    assert_eq!(request.tools(&discovered(&["get_weather"])).tools, expected);
}

// ---------------------------------------------------------------------------------------------
// Requests refused.

#[test]
fn a_native_search_asked_of_another_dialect_is_refused_with_the_way_out() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let refused = |dialect, mode| {
        SearchRequest::builder(&catalog, search.definition(), dialect).mode(mode).build().unwrap_err().to_string()
    };
    assert_eq!(
        refused(Dialect::OpenAiChat { strict: false }, SearchMode::AnthropicRegex),
        "Anthropic's regex tool search runs on Anthropic's side, and OpenAI Chat Completions has no such tool: use \
         `SearchMode::Ours`, our search tool, which every dialect takes"
    );
    assert_eq!(
        refused(Dialect::Anthropic { strict: false }, SearchMode::OpenAiHosted),
        "OpenAI's hosted tool search runs on the OpenAI Responses API's side, and Anthropic has no such tool: use \
         `SearchMode::Ours`, our search tool, which every dialect takes"
    );
    assert_eq!(
        refused(Dialect::Gemini, SearchMode::AnthropicBm25),
        "Anthropic's BM25 tool search runs on Anthropic's side, and Gemini `parameters` has no such tool: use \
         `SearchMode::Ours`, our search tool, which every dialect takes"
    );
    let namespaced = SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiResponses { strict: false })
        .namespaces(Namespaces::by_prefix())
        .build()
        .unwrap_err();
    assert_eq!(
        namespaced.to_string(),
        "`namespaces` applies only to OpenAI's hosted tool search, not to our search tool in the OpenAI Responses API"
    );
    let taken = ToolCatalog::builder()
        .add_tool(tool("tool_search_tool_regex", "A tool of ours by that name.", "q", &[]))
        .build()
        .unwrap();
    let error = SearchRequest::builder(&taken, search.definition(), Dialect::Anthropic { strict: false })
        .mode(SearchMode::AnthropicRegex)
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "`tool_search_tool_regex` would name both the tool `tool_search_tool_regex` and the server tool of Anthropic's \
         regex tool search: rename one"
    );
    let cached = SearchRequest::builder(&catalog, search.definition(), Dialect::Gemini)
        .cache_breakpoint(true)
        .build()
        .unwrap_err();
    assert_eq!(
        cached.to_string(),
        "`cache_breakpoint` applies only to Anthropic, not to our search tool in Gemini `parameters`"
    );
}

#[test]
fn a_namespace_that_would_hold_two_functions_under_one_name_or_is_too_long_is_refused() {
    let catalog = ToolCatalog::builder()
        .add_tool(tool("crm.list", "List orders.", "q", &["crm"]))
        .add_tool(tool("list", "List orders too.", "q", &["crm"]))
        .add_tool(tool("clock_now", "Now.", "zone", &[]))
        .defer_all()
        .keep_loaded("clock_now")
        .build()
        .unwrap();
    let search = search_tool(&catalog);
    let error = SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiResponses { strict: false })
        .mode(SearchMode::OpenAiHosted)
        .namespaces(Namespaces::by_tag())
        .build()
        .unwrap_err();
    assert_eq!(error.to_string(), "`list` would name both `crm.list` in the namespace `crm` and `list`: rename one");
    let long = "t".repeat(65);
    let catalog = ToolCatalog::builder()
        .add_tool(tool("report", "A report.", "q", &[long.as_str()]))
        .add_tool(tool("clock_now", "Now.", "zone", &[]))
        .defer("report")
        .build()
        .unwrap();
    let search = search_tool(&catalog);
    let error = SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiResponses { strict: false })
        .mode(SearchMode::OpenAiHosted)
        .namespaces(Namespaces::by_tag())
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("the namespace `{long}` is longer than the 64 characters OpenAI takes in a name: use a shorter tag")
    );
}

// ---------------------------------------------------------------------------------------------
// Responses: fixtures and helpers.

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/providers/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).unwrap()
}

fn streamed(provider: Provider, names: &NameMap, payloads: &[String]) -> SearchResponse {
    let mut stream = SearchStream::new(provider, names.clone());
    for (i, data) in payloads.iter().enumerate() {
        stream.push_data(data).unwrap_or_else(|error| panic!("payload {i}: {error}"));
    }
    stream.finish()
}

fn searches(response: &SearchResponse) -> Value {
    serde_json::to_value(&response.searches).unwrap()
}

fn calls(parsed: &ParsedCalls) -> Vec<(String, String, String)> {
    parsed.calls.iter().map(|c| (c.tool_name.clone(), c.call_id.clone(), c.raw_arguments.clone())).collect()
}

// ---------------------------------------------------------------------------------------------
// Responses: Anthropic.

#[test]
fn anthropics_documented_search_response_reads_as_one_search_that_found_get_weather_and_one_call() {
    let read =
        read_response(Provider::Anthropic, &fixture_json("anthropic_message_tool_search.json"), &NameMap::identity())
            .unwrap();
    assert_eq!(
        searches(&read),
        json!([{"execution": "server", "tool": "tool_search_tool_regex", "call_id": "srvtoolu_01ABC123",
                "item_id": null, "arguments": {"pattern": "weather"},
                "outcome": {"kind": "found", "tools": ["get_weather"]}}])
    );
    // The search blocks are never calls to run: the one call is the discovered tool's.
    assert_eq!(
        calls(&read.calls),
        [(
            "get_weather".to_owned(),
            "toolu_01XYZ789".to_owned(),
            r#"{"location":"San Francisco","unit":"fahrenheit"}"#.to_owned()
        )]
    );
    assert_eq!(read.calls.text, "I'll search for tools to help with the weather information.");
    let mut found = Discovered::new();
    assert_eq!(read.record(&mut found), ["get_weather"]);
    assert_eq!(read.record(&mut found), Vec::<String>::new());
}

#[test]
fn anthropics_error_object_reads_as_a_failed_search() {
    let read = read_response(
        Provider::Anthropic,
        &fixture_json("anthropic_message_tool_search_error.json"),
        &NameMap::identity(),
    )
    .unwrap();
    assert_eq!(
        searches(&read),
        json!([{"execution": "server", "tool": "tool_search_tool_regex", "call_id": "srvtoolu_01ABC123",
                "item_id": null, "arguments": {"pattern": "("},
                "outcome": {"kind": "failed", "code": "invalid_tool_input",
                            "message": "Invalid regular expression pattern: missing ) at position 1"}}])
    );
    assert!(read.calls.calls.is_empty());
    assert_eq!(read.record(&mut Discovered::new()), Vec::<String>::new());
}

#[test]
fn anthropics_streamed_search_reads_as_the_whole_response_does() {
    let payloads = sse_data(&fixture("anthropic_stream_tool_search.sse"));
    let read = streamed(Provider::Anthropic, &NameMap::identity(), &payloads);
    assert_eq!(
        searches(&read),
        json!([{"execution": "server", "tool": "tool_search_tool_regex", "call_id": "srvtoolu_xyz789",
                "item_id": null, "arguments": {"pattern": "weather"},
                "outcome": {"kind": "found", "tools": ["get_weather"]}}])
    );
    assert_eq!(
        calls(&read.calls),
        [(
            "get_weather".to_owned(),
            "toolu_01XYZ789".to_owned(),
            r#"{"location": "San Francisco", "unit": "fahrenheit"}"#.to_owned()
        )]
    );
    assert_eq!(read.calls.stop_reason.as_deref(), Some("tool_use"));
    // The documentation's start event leaves `input` out; the API sends `{}`. Both read alike.
    let documented: Vec<String> = payloads.iter().map(|p| p.replace(r#","input":{}}}"#, "}}")).collect();
    assert_ne!(documented, payloads);
    assert_eq!(streamed(Provider::Anthropic, &NameMap::identity(), &documented), read);
    // Mid-stream: the search is there, its input read at its block's end, no result yet.
    let mut stream = SearchStream::new(Provider::Anthropic, NameMap::identity());
    for data in &payloads[..7] {
        stream.push_data(data).unwrap();
    }
    assert_eq!(stream.searches()[0].arguments, json!({"pattern": "weather"}));
    assert_eq!(stream.searches()[0].outcome, SearchOutcome::Pending);
    assert!(stream.calls().completed().is_empty() && stream.calls().in_progress().is_empty());
}

#[test]
fn a_malformed_search_result_is_an_error_that_names_its_place() {
    let response = json!({"content": [
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {"type": "tool_search_tool_search_result"}}
    ]});
    assert_eq!(
        read_response(Provider::Anthropic, &response, &NameMap::identity()).unwrap_err().to_string(),
        "Anthropic response: expected an array at `$.content[0].content.tool_references`, found nothing"
    );
    let mut stream = SearchStream::new(Provider::Anthropic, NameMap::identity());
    let event = json!({"type": "content_block_start", "index": 0, "content_block":
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {"type": "surprise"}}});
    assert_eq!(
        stream.push(&event).unwrap_err().to_string(),
        "Anthropic stream event 1: expected `tool_search_tool_search_result` or `tool_search_tool_result_error` at \
         `$.content_block.content.type`, found \"surprise\""
    );
    assert!(stream.searches().is_empty());
}

#[test]
fn our_search_answers_anthropic_with_tool_reference_blocks_or_one_text_block() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let executor = Executor::new(catalog.to_builder().add_tool(search).build().unwrap());
    let request = request(Dialect::Anthropic { strict: false }, SearchMode::Ours);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let run = |arguments: &str| {
        runtime.block_on(executor.execute(ToolCallRequest::new("search_tools", "toolu_search", arguments)))
    };
    let record = run(r#"{"query": "open orders of a customer", "limit": 2}"#);
    assert_eq!(
        anthropic_tool_result(&record, &request),
        json!({"type": "tool_result", "tool_use_id": "toolu_search", "content": [
            {"type": "tool_reference", "tool_name": "crm_list_open_orders"},
            {"type": "tool_reference", "tool_name": "crm_get_customer_profile"},
        ]})
    );
    let mut found = Discovered::new();
    assert_eq!(found.record("search_tools", &record), ["crm.list_open_orders", "crm.get_customer_profile"]);
    let record = run(r#"{"query": "zebra"}"#);
    assert_eq!(
        anthropic_tool_result(&record, &request),
        json!({"type": "tool_result", "tool_use_id": "toolu_search", "content": [
            {"type": "text", "text": "No tool matched. Try other words for the action (a verb and what it acts on), or go on without one."},
        ]})
    );
    let record = run(r#"{"query": ""}"#);
    let failed = anthropic_tool_result(&record, &request);
    assert_eq!(failed["is_error"], true);
    assert_eq!(failed["tool_use_id"], "toolu_search");
    // A search over more tools than the request sends: a reference to one it does not send
    // would be refused by the API, so it is left out.
    let fax = tool("fax_send", "Send a fax to a number.", "number", &[]);
    let wider = SearchToolBuilder::new(catalog.deferred().chain([fax.definition()])).build().unwrap();
    let executor = Executor::new(ToolCatalog::builder().add_tool(wider).build().unwrap());
    let call = ToolCallRequest::new("search_tools", "toolu_fax", r#"{"query": "send a fax", "limit": 1}"#);
    let record = runtime.block_on(executor.execute(call));
    assert_eq!(Discovered::new().record("search_tools", &record), ["fax_send"]);
    assert_eq!(
        anthropic_tool_result(&record, &request),
        json!({"type": "tool_result", "tool_use_id": "toolu_fax", "content": [{"type": "text", "text": "No tool matched."}]})
    );
}

// ---------------------------------------------------------------------------------------------
// Responses: OpenAI.

fn hosted_names() -> NameMap {
    let catalog = catalog();
    let search = search_tool(&catalog);
    SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiResponses { strict: false })
        .mode(SearchMode::OpenAiHosted)
        .namespaces(Namespaces::by_prefix())
        .build()
        .unwrap()
        .names()
        .clone()
}

fn hosted_search() -> Value {
    json!([{"execution": "server", "tool": "tool_search", "call_id": null, "item_id": "tsc_01",
            "arguments": {"paths": ["crm"]}, "outcome": {"kind": "found", "tools": ["crm.list_open_orders"]}}])
}

#[test]
fn openais_documented_hosted_response_reads_as_a_search_and_a_namespaced_call_mapped_back() {
    let names = hosted_names();
    let read =
        read_response(Provider::OpenAiResponses, &fixture_json("openai_responses_tool_search_hosted.json"), &names)
            .unwrap();
    assert_eq!(searches(&read), hosted_search());
    let mut expected = ToolCallRequest::new("crm.list_open_orders", "call_abc123", r#"{"customer_id":"CUST-12345"}"#);
    expected.provider_data.insert("id".to_owned(), json!("fc_01"));
    expected.provider_data.insert("namespace".to_owned(), json!("crm"));
    assert_eq!(read.calls.calls, [expected.clone()]);
    assert_eq!(read.calls.stop_reason.as_deref(), Some("completed"));
    // Sent back into the history, the call names its namespace and its name there.
    assert_eq!(
        assistant_turn(Provider::OpenAiResponses, &[expected], &names),
        [json!({"type": "function_call", "id": "fc_01", "call_id": "call_abc123", "name": "list_open_orders",
                "namespace": "crm", "arguments": "{\"customer_id\":\"CUST-12345\"}"})]
    );
}

#[test]
fn openais_streamed_hosted_search_reads_as_the_whole_response_does() {
    let names = hosted_names();
    let payloads: Vec<String> =
        fixture("openai_responses_stream_tool_search.jsonl").lines().map(str::to_owned).collect();
    let read = streamed(Provider::OpenAiResponses, &names, &payloads);
    let whole =
        read_response(Provider::OpenAiResponses, &fixture_json("openai_responses_tool_search_hosted.json"), &names)
            .unwrap();
    assert_eq!(read, whole);
    assert_eq!(searches(&read), hosted_search());
    // After `.added` only, the call is there, pending, its arguments not known yet.
    let mut stream = SearchStream::new(Provider::OpenAiResponses, names);
    for data in &payloads[..2] {
        stream.push_data(data).unwrap();
    }
    assert_eq!(
        serde_json::to_value(stream.searches()).unwrap(),
        json!([{"execution": "server", "tool": "tool_search", "call_id": null, "item_id": "tsc_01",
                "arguments": {}, "outcome": {"kind": "pending"}}])
    );
}

#[test]
fn a_client_executed_openai_search_round_trips_through_our_search() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let request = SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiResponses { strict: false })
        .build()
        .unwrap();
    let executor = Executor::new(catalog.to_builder().add_tool(search).build().unwrap());
    // The model's call, in our search tool's arguments (the documented one used `goal`).
    let mut response = fixture_json("openai_responses_tool_search_client.json");
    let read = read_response(Provider::OpenAiResponses, &response, request.names()).unwrap();
    assert_eq!(
        searches(&read),
        json!([{"execution": "client", "tool": "tool_search", "call_id": "call_abc123", "item_id": "tsc_02",
                "arguments": {"goal": "Find the shipping ETA tool for order_42."}, "outcome": {"kind": "pending"}}])
    );
    response["output"][0]["arguments"] = json!({"query": "shipping ETA for an order", "limit": 1});
    let read = read_response(Provider::OpenAiResponses, &response, request.names()).unwrap();
    assert!(read.calls.calls.is_empty());
    let mut found = Discovered::new();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let item = runtime
        .block_on(execute_openai_tool_search_output(&executor, &request, &read.searches[0], &mut found))
        .unwrap();
    assert_eq!(
        item,
        json!({"type": "tool_search_output", "execution": "client", "call_id": "call_abc123", "status": "completed",
               "tools": [deferred(responses("shipping_eta", "Look up shipping ETA details for an order.", schema("order_id")))]})
    );
    assert_eq!(found.names().collect::<Vec<_>>(), ["shipping_eta"]);
    // The next turn's call, as documented (its own name as namespace), comes back as ours.
    let next = json!({"output": [{"type": "function_call", "name": "shipping_eta", "namespace": "shipping_eta",
                                  "call_id": "call_xyz456", "arguments": "{\"order_id\":\"order_42\"}"}]});
    let read = read_response(Provider::OpenAiResponses, &next, request.names()).unwrap();
    assert_eq!(
        calls(&read.calls),
        [("shipping_eta".to_owned(), "call_xyz456".to_owned(), r#"{"order_id":"order_42"}"#.to_owned())]
    );
    // A hosted search, or one already answered, is not ours to answer.
    let hosted = read_response(
        Provider::OpenAiResponses,
        &fixture_json("openai_responses_tool_search_hosted.json"),
        request.names(),
    )
    .unwrap();
    assert_eq!(
        runtime.block_on(execute_openai_tool_search_output(&executor, &request, &hosted.searches[0], &mut found)),
        None
    );
}

// ---------------------------------------------------------------------------------------------
// Chat Completions, Gemini, MCP: the search tool is an ordinary tool.

#[test]
fn elsewhere_the_search_is_an_ordinary_call_and_discovered_picks_up_what_it_found() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let executor = Executor::new(catalog.to_builder().add_tool(search).build().unwrap());
    let request = request(Dialect::OpenAiChat { strict: false }, SearchMode::Ours);
    let response = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "search_tools", "arguments": "{\"query\":\"weather at a location\",\"limit\":1}"}}]}}]});
    let read = read_response(Provider::OpenAiChat, &response, request.names()).unwrap();
    assert!(read.searches.is_empty());
    assert_eq!(read.calls.calls[0].tool_name, "search_tools");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let record = runtime.block_on(executor.execute_with_names(read.calls.calls[0].clone(), request.names()));
    let mut found = Discovered::new();
    assert_eq!(found.record("search_tools", &record), ["get_weather"]);
    let next = request.tools(&found).tools;
    assert_eq!(next[2], chat("get_weather", "Get the weather at a specific location", schema("location")));
}

#[test]
fn the_xml_prompt_lists_the_loaded_tools_the_search_tool_and_the_discovered_ones_in_order() {
    let catalog = catalog();
    let search = search_tool(&catalog);
    let found = discovered(&["shipping_eta", "clock_now", "get_weather"]);
    let definitions = tool_core::search::definitions_with_search(&catalog, search.definition(), &found);
    let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["clock_now", "search_tools", "shipping_eta", "get_weather"]);
    let block = tool_core::xml::functions_block(definitions).unwrap();
    let function = |name: &str, description: &str, parameters: Value| {
        format!("<function>{}</function>", json!({"description": description, "name": name, "parameters": parameters}))
    };
    let expected = [
        "<functions>".to_owned(),
        function("clock_now", "The current time in a time zone.", schema("zone")),
        function("search_tools", "Find more tools.", search_schema()),
        function("shipping_eta", "Look up shipping ETA details for an order.", schema("order_id")),
        function("get_weather", "Get the weather at a specific location", schema("location")),
        "</functions>".to_owned(),
    ];
    assert_eq!(block, expected.join("\n"));
}

#[test]
fn every_mode_passes_the_providers_rules_and_the_deferral_rules_are_checked() {
    use tool_core::providers::check::check_request;
    for dialect in [Dialect::Anthropic { strict: false }, Dialect::Anthropic { strict: true }] {
        for mode in [SearchMode::Ours, SearchMode::AnthropicRegex, SearchMode::AnthropicBm25] {
            let tools = request(dialect, mode).tools(&Discovered::new()).tools.into_owned();
            assert_eq!(check_request(dialect, &tools), vec![], "{mode} {}", dialect.label());
        }
    }
    for dialect in [Dialect::OpenAiResponses { strict: false }, Dialect::OpenAiResponses { strict: true }] {
        for mode in [SearchMode::Ours, SearchMode::OpenAiHosted] {
            let tools = request(dialect, mode).tools(&Discovered::new()).tools.into_owned();
            assert_eq!(check_request(dialect, &tools), vec![], "{mode} {}", dialect.label());
        }
    }
    let claude = Dialect::Anthropic { strict: false };
    let mut cached = deferred(anthropic("get_weather", "Get the weather.", schema("location")));
    cached["cache_control"] = json!({"type": "ephemeral"});
    let server =
        json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_bm25", "defer_loading": true});
    let violations: Vec<String> = check_request(claude, &[server, cached]).iter().map(ToString::to_string).collect();
    assert_eq!(
        violations,
        [
            "A1 at `/0/name`: the tool search tool's name must be `tool_search_tool_regex`, not \"tool_search_tool_bm25\"",
            "A1 at `/0/defer_loading`: the tool search tool itself must not be deferred",
            "A1 at `/1/cache_control`: a deferred tool (`defer_loading: true`) cannot carry `cache_control`: put it on a tool \
             that is not deferred",
            "A1 at ``: every tool is deferred (`defer_loading: true`); at least one must not be (the tool search tool)",
        ]
    );
    let responses = Dialect::OpenAiResponses { strict: false };
    let tools = [
        json!({"type": "tool_search", "execution": "nearby"}),
        json!({"type": "namespace", "name": "crm", "defer_loading": true,
               "tools": [{"type": "function", "name": "list", "parameters": schema("q"), "strict": false, "defer_loading": "yes"}]}),
    ];
    let violations: Vec<String> = check_request(responses, &tools).iter().map(ToString::to_string).collect();
    assert_eq!(
        violations,
        [
            "O2 at `/0/execution`: `execution` must be \"server\" or \"client\", not \"nearby\"",
            "O2 at `/1/defer_loading`: unknown key `defer_loading`; expected one of `type`, `name`, `description`, `tools`",
            "O2 at `/1`: a namespace needs a `description`, which the model sees before it loads any function",
            "O2 at `/1/tools/0/defer_loading`: `defer_loading` must be a boolean",
        ]
    );
}

#[test]
fn a_streamed_search_input_is_bounded_and_no_prefix_or_cut_event_of_the_recorded_streams_panics() {
    // 64 fragments of 1 KiB: the input kept stops short of 16 KiB (a small fragment after
    // that is not kept either), and reads as the text it kept.
    let mut stream = SearchStream::new(Provider::Anthropic, NameMap::identity());
    let start = json!({"type": "content_block_start", "index": 0, "content_block":
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {}}});
    stream.push(&start).unwrap();
    stream.push(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"query\":\""}})).unwrap();
    let kilobyte = "a".repeat(1024);
    for _ in 0..64 {
        let delta = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": kilobyte}});
        stream.push(&delta).unwrap();
    }
    let small = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "\"}"}});
    stream.push(&small).unwrap();
    stream.push(&json!({"type": "content_block_stop", "index": 0})).unwrap();
    let kept = stream.finish().searches[0].arguments.as_str().unwrap().len();
    assert_eq!(kept, 10 + 15 * 1024);
    // Every prefix of the recorded streams, and each event cut in half, reads without a panic.
    for (provider, payloads) in [
        (Provider::Anthropic, sse_data(&fixture("anthropic_stream_tool_search.sse"))),
        (
            Provider::OpenAiResponses,
            fixture("openai_responses_stream_tool_search.jsonl").lines().map(str::to_owned).collect(),
        ),
    ] {
        for end in 0..=payloads.len() {
            for cut in [false, true] {
                let mut stream = SearchStream::new(provider, hosted_names());
                for (i, data) in payloads[..end].iter().enumerate() {
                    let data = if cut && i + 1 == end { &data[..data.len() / 2] } else { data.as_str() };
                    let _ = stream.push_data(data);
                }
                let read = stream.finish();
                assert!(read.searches.len() <= 1, "{provider:?} {end} {cut}: {read:?}");
            }
        }
    }
}

#[test]
fn other_server_tools_are_no_searches_and_a_result_without_its_search_stands_alone() {
    let response = json!({"stop_reason": "end_turn", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_web", "name": "web_search", "input": {"query": "weather tools"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_web", "content": []},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_elsewhere",
         "content": {"type": "tool_search_tool_search_result", "tool_references": []}},
    ]});
    let read = read_response(Provider::Anthropic, &response, &NameMap::identity()).unwrap();
    assert!(read.calls.calls.is_empty());
    assert_eq!(
        searches(&read),
        json!([{"execution": "server", "tool": "tool_search_tool", "call_id": "srvtoolu_elsewhere", "item_id": null,
                "arguments": null, "outcome": {"kind": "found", "tools": []}}])
    );
}
