//! Tool calls in, from whole responses: every recorded provider response (`tests/data/providers`,
//! provenance in its SOURCES.md) read into its exact calls; names mapped back; malformed
//! responses with their exact errors; and no panic on any field changed or removed.

use serde_json::{json, Map, Value};
use tool_core::providers::calls::{parse_response, ParsedCalls, ResponseError};
use tool_core::providers::{NameMap, Provider};
use tool_core::ToolCallRequest;

// ---------------------------------------------------------------------------------------------
// Helpers.

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/providers/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).unwrap()
}

fn whole(provider: Provider, name: &str) -> ParsedCalls {
    parse_response(provider, &fixture_json(name), &NameMap::identity()).unwrap()
}

fn call(tool: &str, id: &str, raw: &str) -> ToolCallRequest {
    ToolCallRequest::new(tool, id, raw)
}

fn with(mut call: ToolCallRequest, key: &str, value: Value) -> ToolCallRequest {
    call.provider_data.insert(key.to_owned(), value);
    call
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions.

const EDINBURGH_UK: &str = r#"{"city":"Edinburgh","country":"UK","units":"c"}"#;
const EDINBURGH_GB: &str = r#"{"city": "Edinburgh", "country": "GB", "units": "c"}"#;
const AAPL: &str = r#"{"ticker": "AAPL", "exchange": "NASDAQ"}"#;

#[test]
fn openai_chat_one_call() {
    let parsed = whole(Provider::OpenAiChat, "openai_chat_tool_call.json");
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![call("GetWeatherArgs", "call_Y6qJ7ofLgOrBnMD5WbVAeiRV", EDINBURGH_UK)],
            text: String::new(),
            stop_reason: Some("tool_calls".into()),
        }
    );
}

#[test]
fn openai_chat_parallel_calls_in_one_message() {
    let parsed = whole(Provider::OpenAiChat, "openai_chat_parallel_tool_calls.json");
    assert_eq!(
        parsed.calls,
        vec![
            call("GetWeatherArgs", "call_fdNz3vOBKYgOIpMdWotB9MjY", EDINBURGH_GB),
            call("get_stock_price", "call_h1DWI1POMJLb0KwIyQHWXD4p", AAPL),
        ]
    );
    assert_eq!(parsed.stop_reason.as_deref(), Some("tool_calls"));
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses API.

#[test]
fn openai_responses_function_call_item() {
    let parsed = whole(Provider::OpenAiResponses, "openai_responses_function_call.json");
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![with(
                call(
                    "semantic_scholar_search",
                    "call_2mhz5FtwkZnzXQkTOMtYZpZH",
                    r#"{"query":"machine learning","limit":10,"offset":0,"year":0}"#
                ),
                "id",
                json!("fc_08c7eac45286fefb006a5f41bceb6081a3a366f3ae718bea5e")
            )],
            text: String::new(),
            stop_reason: Some("completed".into()),
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Anthropic.

#[test]
fn anthropic_tool_use_block() {
    let parsed = whole(Provider::Anthropic, "anthropic_message_tool_use.json");
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![call(
                "get_weather",
                "toolu_01A9HHF5Ezy3oBrKmSgfASm9",
                r#"{"location":"San Francisco, CA","units":"f"}"#
            )],
            text: String::new(),
            stop_reason: Some("tool_use".into()),
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Gemini.

#[test]
fn gemini_function_call_part_with_its_thought_signature() {
    let parsed = whole(Provider::Gemini, "gemini_google-tool-call.json");
    let expected = with(
        with(
            call("weather", "gemini_call_0", r#"{"location":"San Francisco"}"#),
            "thoughtSignature",
            json!(
                "EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5"
            ),
        ),
        "generatedId",
        json!(true),
    );
    assert_eq!(parsed, ParsedCalls { calls: vec![expected], text: String::new(), stop_reason: Some("STOP".into()) });
}

#[test]
fn gemini_parallel_calls_without_ids_are_numbered_in_order() {
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Checking both."},
        {"functionCall": {"name": "weather", "args": {"city": "Paris"}}, "thoughtSignature": "sig-1"},
        {"text": "thinking", "thought": true},
        {"functionCall": {"name": "weather", "args": {"city": "Rome"}}},
        {"functionCall": {"name": "clock", "id": "call-from-gemini"}}
    ]}, "finishReason": "STOP"}]});
    let parsed = parse_response(Provider::Gemini, &response, &NameMap::identity()).unwrap();
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![
                with(
                    with(call("weather", "gemini_call_0", r#"{"city":"Paris"}"#), "thoughtSignature", json!("sig-1")),
                    "generatedId",
                    json!(true)
                ),
                with(call("weather", "gemini_call_1", r#"{"city":"Rome"}"#), "generatedId", json!(true)),
                call("clock", "call-from-gemini", "{}"),
            ],
            text: "Checking both.".into(),
            stop_reason: Some("STOP".into()),
        }
    );
}

// ---------------------------------------------------------------------------------------------
// MCP.

#[test]
fn mcp_tools_call_request_whole_or_params_alone() {
    let mut names = NameMap::identity();
    names.insert("memory.search", "memory_search");
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "memory.search", "arguments": {"query": "rust", "limit": 3}}});
    assert_eq!(
        parse_response(Provider::Mcp, &request, &names).unwrap(),
        ParsedCalls {
            calls: vec![call("memory.search", "7", r#"{"query":"rust","limit":3}"#)],
            text: "".into(),
            stop_reason: None
        }
    );
    let params = json!({"name": "clock"});
    assert_eq!(parse_response(Provider::Mcp, &params, &names).unwrap().calls, vec![call("clock", "", "{}")]);
}

// ---------------------------------------------------------------------------------------------
// Names mapped back.

fn memory_names() -> NameMap {
    let mut names = NameMap::identity();
    names.insert("memory.search", "memory_search");
    names
}

#[test]
fn a_renamed_tool_comes_back_under_its_own_name_from_every_provider() {
    let names = memory_names();
    let chat = json!({"choices": [{"message": {"content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "memory_search", "arguments": "{\"query\":\"rust\"}"}}]}, "finish_reason": "tool_calls"}]});
    let responses = json!({"output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
        "name": "memory_search", "arguments": "{\"query\":\"rust\"}"}], "status": "completed"});
    let anthropic = json!({"content": [{"type": "tool_use", "id": "toolu_1", "name": "memory_search",
        "input": {"query": "rust"}}], "stop_reason": "tool_use"});
    let gemini = json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "memory.search",
        "args": {"query": "rust"}}}]}}]});
    for (provider, response) in [
        (Provider::OpenAiChat, chat),
        (Provider::OpenAiResponses, responses),
        (Provider::Anthropic, anthropic),
        (Provider::Gemini, gemini),
    ] {
        let parsed = parse_response(provider, &response, &names).unwrap();
        assert_eq!(parsed.calls[0].tool_name, "memory.search", "{provider:?}");
        assert_eq!(parsed.calls[0].raw_arguments, r#"{"query":"rust"}"#, "{provider:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed responses and events.

#[test]
fn a_provider_error_body_is_the_providers_error() {
    let error =
        parse_response(Provider::OpenAiResponses, &fixture_json("openai_error_nested_defs.json"), &NameMap::identity())
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        "OpenAI Responses response: the provider reported an error (invalid_request_error): Invalid schema for response_format 'response': In context=('properties', 'elements', 'items', 'properties', 'shared'), reference to component '#/$defs/Shared' which was not found in the schema."
    );
    let gemini = json!({"error": {"code": 400, "message": "Unknown name \"$schema\"", "status": "INVALID_ARGUMENT"}});
    assert_eq!(
        parse_response(Provider::Gemini, &gemini, &NameMap::identity()).unwrap_err(),
        ResponseError::Provider {
            provider: Provider::Gemini,
            event: None,
            kind: Some("INVALID_ARGUMENT".into()),
            message: "Unknown name \"$schema\"".into()
        }
    );
}

#[test]
fn malformed_responses_name_the_provider_the_path_and_what_was_found() {
    let cases = [
        (Provider::OpenAiChat, json!([]), "OpenAI Chat response: expected an object at `$`, found an array []"),
        (Provider::OpenAiChat, json!({"choices": []}), "OpenAI Chat response: expected an object at `$.choices[0]`, found nothing"),
        (
            Provider::OpenAiChat,
            json!({"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"city": "Paris"}}}]}}]}),
            "OpenAI Chat response: expected a string at `$.choices[0].message.tool_calls[0].function.arguments`, found an object {\"city\":\"Paris\"}",
        ),
        (
            Provider::OpenAiChat,
            json!({"choices": [{"message": {"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]}),
            "OpenAI Chat response: expected a string at `$.choices[0].message.tool_calls[0].id`, found nothing",
        ),
        (
            Provider::OpenAiChat,
            json!({"choices": [{"message": {"content": 5}}]}),
            "OpenAI Chat response: expected a string, an array of content parts, or null at `$.choices[0].message.content`, found a number 5",
        ),
        (Provider::OpenAiResponses, json!({"status": "completed"}), "OpenAI Responses response: expected an array at `$.output`, found nothing"),
        (
            Provider::OpenAiResponses,
            json!({"output": [{"type": "function_call", "id": "fc_1", "name": "f", "arguments": "{}"}]}),
            "OpenAI Responses response: expected a string at `$.output[0].call_id`, found nothing",
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": 7, "name": "f", "input": {}}]}),
            "Anthropic response: expected a string at `$.content[0].id`, found a number 7",
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": "t", "name": "f", "input": "{}"}]}),
            "Anthropic response: expected an object at `$.content[0].input`, found a string \"{}\"",
        ),
        (Provider::Anthropic, json!({"content": [{"text": "hi"}]}), "Anthropic response: expected a string at `$.content[0].type`, found nothing"),
        (Provider::Gemini, json!({}), "Gemini response: expected an array of candidates at `$.candidates`, found nothing"),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": "{}"}}]}}]}),
            "Gemini response: expected an object at `$.candidates[0].content.parts[0].functionCall.args`, found a string \"{}\"",
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
            "Gemini response: expected a string at `$.candidates[0].content.parts[0].functionCall.name`, found nothing",
        ),
        (
            Provider::Mcp,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            "MCP response: expected \"tools/call\" at `$.method`, found a string \"tools/list\"",
        ),
        (
            Provider::Mcp,
            json!({"name": "f", "arguments": [1]}),
            "MCP response: expected an object at `$.arguments`, found an array [1]",
        ),
    ];
    for (provider, response, expected) in cases {
        let error = parse_response(provider, &response, &NameMap::identity()).unwrap_err();
        assert_eq!(error.to_string(), expected);
    }
}

#[test]
fn a_blocked_gemini_prompt_has_no_calls_and_its_block_reason() {
    let response = json!({"promptFeedback": {"blockReason": "SAFETY"}});
    assert_eq!(
        parse_response(Provider::Gemini, &response, &NameMap::identity()).unwrap(),
        ParsedCalls { calls: vec![], text: String::new(), stop_reason: Some("SAFETY".into()) }
    );
}

// ---------------------------------------------------------------------------------------------
// No panic on any field changed or removed.

const WHOLE: [(Provider, &str); 7] = [
    (Provider::OpenAiChat, "openai_chat_tool_call.json"),
    (Provider::OpenAiChat, "openai_chat_parallel_tool_calls.json"),
    (Provider::OpenAiResponses, "openai_responses_function_call.json"),
    (Provider::OpenAiResponses, "openai_error_nested_defs.json"),
    (Provider::Anthropic, "anthropic_message_tool_use.json"),
    (Provider::Gemini, "gemini_google-tool-call.json"),
    (Provider::Gemini, "gemini_google-stream-tool-call-arguments.chunks.txt"),
];

const LABELS: [&str; 5] = ["OpenAI Chat ", "OpenAI Responses ", "Anthropic ", "Gemini ", "MCP "];

/// An error's text starts with the label of the provider it is about.
fn assert_names_provider(provider: Provider, result: Result<(), ResponseError>) {
    if let Err(error) = result {
        let label = match provider {
            Provider::OpenAiChat => LABELS[0],
            Provider::OpenAiResponses => LABELS[1],
            Provider::Anthropic => LABELS[2],
            Provider::Gemini => LABELS[3],
            Provider::Mcp => LABELS[4],
        };
        assert!(error.to_string().starts_with(label), "{error}");
    }
}

/// Every variant of `value` with one node changed to another kind or removed.
fn structural_mutations(value: &Value) -> Vec<Value> {
    let kinds = [Value::Null, json!(7), json!("x"), json!([]), json!({}), json!(true)];
    let mut out = Vec::new();
    for kind in &kinds {
        out.push(kind.clone());
    }
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                let mut removed = object.clone();
                removed.remove(key);
                out.push(Value::Object(removed));
                for variant in structural_mutations(child) {
                    let mut changed = object.clone();
                    changed.insert(key.clone(), variant);
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                for variant in structural_mutations(child) {
                    let mut changed = items.clone();
                    changed[i] = variant;
                    out.push(Value::Array(changed));
                }
            }
        }
        _ => {}
    }
    out
}

/// The value without long strings (thought signatures, tool descriptions), so that the mutations
/// stay few.
fn shortened(value: &Value) -> Value {
    match value {
        Value::String(text) if text.len() > 40 => Value::String(text.chars().take(40).collect()),
        Value::Array(items) => Value::Array(items.iter().map(shortened).collect()),
        Value::Object(object) => {
            Value::Object(object.iter().map(|(k, v)| (k.clone(), shortened(v))).collect::<Map<_, _>>())
        }
        other => other.clone(),
    }
}

#[test]
fn every_field_of_every_response_changed_to_another_kind_or_removed_gives_a_result_not_a_panic() {
    let mut tried = 0;
    for (provider, name) in WHOLE {
        let value = if name.ends_with(".json") {
            fixture_json(name)
        } else {
            serde_json::from_str(fixture(name).lines().nth(1).unwrap()).unwrap()
        };
        for variant in structural_mutations(&shortened(&value)) {
            tried += 1;
            assert_names_provider(provider, parse_response(provider, &variant, &NameMap::identity()).map(|_| ()));
            assert_names_provider(
                Provider::Mcp,
                parse_response(Provider::Mcp, &variant, &NameMap::identity()).map(|_| ()),
            );
        }
    }
    assert!(tried > 1_000, "{tried}");
}

// ---------------------------------------------------------------------------------------------
// The partial view, as properties.
