//! Execution records rendered as every provider's result messages, and the assistant turn replayed
//! into the history: the exact JSON each provider receives.
//!
//! The records come from the real executor running the tools below.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use tool_core::prelude::*;
use tool_core::providers::names::NameMap;
use tool_core::providers::results::{assistant_turn, result_message, results_turn};
use tool_core::providers::Provider;

/// The weather in a city.
#[tool(name = "weather.now")]
fn weather_now(city: String) -> String {
    format!("Sunny in {city}")
}

/// A forecast.
#[derive(Debug, Serialize, JsonSchema)]
struct Forecast {
    /// Degrees Celsius.
    celsius: f64,
    /// Sky.
    sky: String,
}

/// Forecast the weather.
#[tool]
fn forecast(city: String) -> Json<Forecast> {
    Json(Forecast { celsius: if city == "Oslo" { 4.5 } else { 21.5 }, sky: "clear".into() })
}

/// The next few days' highs.
#[tool]
fn highs(days: u32) -> Json<Vec<u32>> {
    Json((0..days).map(|d| 20 + d).collect())
}

/// Open a locked door.
#[tool]
fn open_door(door: String) -> Result<String, ToolError> {
    Err(ToolError::new(format!("The door `{door}` is locked.")).with_code("locked").with_details(json!({"door": door})))
}

/// Sleeps past its limit.
#[tool(timeout_ms = 5)]
async fn slow() -> String {
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    "late".into()
}

fn names() -> NameMap {
    let mut names = NameMap::identity();
    names.insert("weather.now", "weather_now");
    names
}

async fn run(request: ToolCallRequest) -> ExecutionRecord {
    Executor::new(tool_tests::declared_in(file!())).execute(request).await
}

async fn text_success() -> ExecutionRecord {
    run(ToolCallRequest::new("weather.now", "call_1", r#"{"city":"Paris"}"#)).await
}

async fn structured_success() -> ExecutionRecord {
    run(ToolCallRequest::new("forecast", "call_2", r#"{"city":"Oslo"}"#)).await
}

async fn list_success() -> ExecutionRecord {
    run(ToolCallRequest::new("highs", "call_3", r#"{"days":2}"#)).await
}

async fn tool_error() -> ExecutionRecord {
    run(ToolCallRequest::new("open_door", "call_4", r#"{"door":"cellar"}"#)).await
}

async fn bad_arguments() -> ExecutionRecord {
    run(ToolCallRequest::new("weather.now", "call_5", r#"{"town":"Paris"}"#)).await
}

async fn unknown_tool() -> ExecutionRecord {
    run(ToolCallRequest::new("forecasts", "call_6", r#"{"city":"Rome"}"#)).await
}

const BAD_ARGUMENTS_TEXT: &str = "The arguments for `weather.now` were not accepted:\n- `city`: required, expected a string; it was missing.\nSend the corrected arguments to `weather.now` again.";
const UNKNOWN_TOOL_TEXT: &str =
    "There is no tool named `forecasts`. The closest existing tools are: `forecast`. Call one of them instead.";

fn gemini_call(call_id: &str, provider_data: Value) -> ToolCallRequest {
    let mut request = ToolCallRequest::new("weather.now", call_id, r#"{"city":"San Francisco"}"#);
    request.provider_data = provider_data.as_object().cloned().unwrap_or_default();
    request
}

#[tokio::test]
async fn the_records_are_what_the_executor_made() {
    assert_eq!(text_success().await.status, CallStatus::Success);
    assert_eq!(structured_success().await.content.structured, Some(json!({"celsius": 4.5, "sky": "clear"})));
    assert_eq!(list_success().await.content.text, "[20,21]");
    let error = tool_error().await;
    assert_eq!((error.status, error.content.text.as_str()), (CallStatus::Failed, "The door `cellar` is locked."));
    assert_eq!(bad_arguments().await.content.text, BAD_ARGUMENTS_TEXT);
    assert_eq!(unknown_tool().await.content.text, UNKNOWN_TOOL_TEXT);
}

#[tokio::test]
async fn openai_chat_gets_one_tool_message_per_record_with_the_text() {
    let names = names();
    let records = [text_success().await, structured_success().await, tool_error().await, bad_arguments().await];
    assert_eq!(
        results_turn(Provider::OpenAiChat, &records, &names),
        vec![
            json!({"role": "tool", "tool_call_id": "call_1", "content": "Sunny in Paris"}),
            json!({"role": "tool", "tool_call_id": "call_2", "content": r#"{"celsius":4.5,"sky":"clear"}"#}),
            json!({"role": "tool", "tool_call_id": "call_4", "content": "The door `cellar` is locked."}),
            json!({"role": "tool", "tool_call_id": "call_5", "content": BAD_ARGUMENTS_TEXT}),
        ]
    );
    assert_eq!(
        result_message(Provider::OpenAiChat, &unknown_tool().await, &names),
        json!({"role": "tool", "tool_call_id": "call_6", "content": UNKNOWN_TOOL_TEXT})
    );
}

#[tokio::test]
async fn openai_responses_gets_one_function_call_output_item_per_record() {
    let names = names();
    let records = [text_success().await, list_success().await, unknown_tool().await];
    assert_eq!(
        results_turn(Provider::OpenAiResponses, &records, &names),
        vec![
            json!({"type": "function_call_output", "call_id": "call_1", "output": "Sunny in Paris"}),
            json!({"type": "function_call_output", "call_id": "call_3", "output": "[20,21]"}),
            json!({"type": "function_call_output", "call_id": "call_6", "output": UNKNOWN_TOOL_TEXT}),
        ]
    );
    assert_eq!(
        result_message(Provider::OpenAiResponses, &tool_error().await, &names),
        json!({"type": "function_call_output", "call_id": "call_4", "output": "The door `cellar` is locked."})
    );
}

#[tokio::test]
async fn anthropic_gets_every_result_of_the_turn_in_one_user_message_with_is_error_only_on_failure() {
    let names = names();
    let records = [
        text_success().await,
        structured_success().await,
        tool_error().await,
        bad_arguments().await,
        unknown_tool().await,
    ];
    assert_eq!(
        results_turn(Provider::Anthropic, &records, &names),
        vec![json!({
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "Sunny in Paris"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": r#"{"celsius":4.5,"sky":"clear"}"#},
                {"type": "tool_result", "tool_use_id": "call_4", "content": "The door `cellar` is locked.", "is_error": true},
                {"type": "tool_result", "tool_use_id": "call_5", "content": BAD_ARGUMENTS_TEXT, "is_error": true},
                {"type": "tool_result", "tool_use_id": "call_6", "content": UNKNOWN_TOOL_TEXT, "is_error": true},
            ]
        })]
    );
}

#[tokio::test]
async fn the_anthropic_error_result_has_the_shape_of_a_recorded_request() {
    // The tool_result block of a real request (anthropic-sdk-python's tool runner, recorded:
    // fixtures/providers/anthropic_request_tool_result_is_error.json). Its successful results
    // carry no `is_error` at all.
    let recorded = json!({
        "type": "tool_result",
        "tool_use_id": "toolu_01A9HHF5Ezy3oBrKmSgfASm9",
        "content": "RuntimeError('Unexpected error, try again')",
        "is_error": true
    });
    let ours = result_message(Provider::Anthropic, &tool_error().await, &names());
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&ours), keys(&recorded));
    assert_eq!(ours["is_error"], recorded["is_error"]);
}

#[tokio::test]
async fn gemini_gets_one_user_content_with_an_object_response_per_record() {
    let names = names();
    let records = [
        text_success().await,
        structured_success().await,
        list_success().await,
        tool_error().await,
        bad_arguments().await,
        unknown_tool().await,
    ];
    assert_eq!(
        results_turn(Provider::Gemini, &records, &names),
        vec![json!({
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "weather_now", "id": "call_1", "response": {"output": "Sunny in Paris"}}},
                {"functionResponse": {"name": "forecast", "id": "call_2", "response": {"celsius": 4.5, "sky": "clear"}}},
                {"functionResponse": {"name": "highs", "id": "call_3", "response": {"output": "[20,21]"}}},
                {"functionResponse": {"name": "open_door", "id": "call_4", "response": {"error": "The door `cellar` is locked."}}},
                {"functionResponse": {"name": "weather_now", "id": "call_5", "response": {"error": BAD_ARGUMENTS_TEXT}}},
                {"functionResponse": {"name": "forecasts", "id": "call_6", "response": {"error": UNKNOWN_TOOL_TEXT}}},
            ]
        })]
    );
}

#[tokio::test]
async fn gemini_results_leave_out_an_id_the_parser_made_up_and_carry_no_thought_signature() {
    let names = names();
    let signed = run(gemini_call("call_7", json!({"thoughtSignature": "EskgCsYgAb4+9vt"}))).await;
    let generated = run(gemini_call("gemini_call_0", json!({"generatedId": true}))).await;
    assert_eq!(
        results_turn(Provider::Gemini, &[signed, generated], &names),
        vec![json!({
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "weather_now", "id": "call_7", "response": {"output": "Sunny in San Francisco"}}},
                {"functionResponse": {"name": "weather_now", "response": {"output": "Sunny in San Francisco"}}},
            ]
        })]
    );
}

#[tokio::test]
async fn mcp_gets_a_call_tool_result_per_record_with_object_structured_content() {
    let names = names();
    let records = [
        text_success().await,
        structured_success().await,
        list_success().await,
        tool_error().await,
        bad_arguments().await,
        unknown_tool().await,
    ];
    assert_eq!(
        results_turn(Provider::Mcp, &records, &names),
        vec![
            json!({"content": [{"type": "text", "text": "Sunny in Paris"}], "isError": false}),
            json!({
                "content": [{"type": "text", "text": r#"{"celsius":4.5,"sky":"clear"}"#}],
                "structuredContent": {"celsius": 4.5, "sky": "clear"},
                "isError": false,
            }),
            json!({
                "content": [{"type": "text", "text": r#"{"result":[20,21]}"#}],
                "structuredContent": {"result": [20, 21]},
                "isError": false,
            }),
            // The tool error's details and the refused arguments' structured errors stay in the
            // record: they would not follow the tool's output schema. Parse warnings go in
            // `_meta`, for the client.
            json!({"content": [{"type": "text", "text": "The door `cellar` is locked."}], "isError": true}),
            json!({
                "content": [{"type": "text", "text": BAD_ARGUMENTS_TEXT}],
                "isError": true,
                "_meta": {"tool-core/parse_warnings": [{
                    "pointer": "/town",
                    "rule": "unknown_parameter",
                    "expected": "one of the declared parameters: city",
                    "received": "town",
                    "action": "ignored"
                }]}
            }),
            json!({
                "content": [{"type": "text", "text": UNKNOWN_TOOL_TEXT}],
                "isError": true,
                "_meta": {"tool-core/parse_warnings": [{
                    "pointer": "",
                    "rule": "tool_definition_missing",
                    "expected": "a declared tool",
                    "received": r#"{"city":"Rome"}"#,
                    "action": "read the arguments without a definition: repairs only, no conversions"
                }]}
            }),
        ]
    );
}

#[tokio::test]
async fn a_timed_out_call_is_an_error_result_too() {
    let record = run(ToolCallRequest::new("slow", "call_8", "{}")).await;
    assert_eq!(record.status, CallStatus::TimedOut);
    let text = "The tool did not finish within 5 ms; it was stopped.";
    assert_eq!(
        result_message(Provider::Anthropic, &record, &NameMap::identity()),
        json!({"type": "tool_result", "tool_use_id": "call_8", "content": text, "is_error": true})
    );
    assert_eq!(
        result_message(Provider::Mcp, &record, &NameMap::identity()),
        json!({"content": [{"type": "text", "text": text}], "isError": true})
    );
}

#[test]
fn no_records_and_no_calls_make_no_messages() {
    let names = NameMap::identity();
    for provider in
        [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini, Provider::Mcp]
    {
        assert_eq!(results_turn(provider, &[], &names), Vec::<Value>::new());
        assert_eq!(assistant_turn::<ToolCallRequest>(provider, &[], &names), Vec::<Value>::new());
    }
}

fn calls() -> Vec<ToolCallRequest> {
    let mut first = ToolCallRequest::new("weather.now", "call_1", r#"{"city": "Paris"}"#);
    first.provider_data = Map::from_iter([("id".to_owned(), json!("fc_01"))]);
    // Arguments that only the repair reads.
    let second = ToolCallRequest::new("forecast", "call_2", "{'city': 'Oslo',}");
    vec![first, second]
}

#[test]
fn the_openai_chat_assistant_turn_sends_the_raw_arguments_under_the_wire_name() {
    assert_eq!(
        assistant_turn(Provider::OpenAiChat, &calls(), &names()),
        vec![json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "weather_now", "arguments": r#"{"city": "Paris"}"#}},
                {"id": "call_2", "type": "function", "function": {"name": "forecast", "arguments": "{'city': 'Oslo',}"}},
            ]
        })]
    );
}

#[test]
fn the_responses_assistant_turn_is_the_function_call_items_with_their_item_ids() {
    assert_eq!(
        assistant_turn(Provider::OpenAiResponses, &calls(), &names()),
        vec![
            json!({"type": "function_call", "id": "fc_01", "call_id": "call_1", "name": "weather_now", "arguments": r#"{"city": "Paris"}"#}),
            json!({"type": "function_call", "call_id": "call_2", "name": "forecast", "arguments": "{'city': 'Oslo',}"}),
        ]
    );
}

#[test]
fn the_anthropic_assistant_turn_sends_objects_repaired_when_they_need_it() {
    let mut calls = calls();
    calls.push(ToolCallRequest::new("forecast", "call_3", "city=Oslo"));
    assert_eq!(
        assistant_turn(Provider::Anthropic, &calls, &names()),
        vec![json!({
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_1", "name": "weather_now", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_2", "name": "forecast", "input": {"city": "Oslo"}},
                // Not even the repair reads it: Anthropic takes only an object.
                {"type": "tool_use", "id": "call_3", "name": "forecast", "input": {}},
            ]
        })]
    );
}

#[tokio::test]
async fn the_assistant_turn_takes_the_arguments_extraction_read_the_values_from() {
    // Repaired text: extraction built an arguments object (converted, too), and the replayed
    // turn shows it. Clean text read in one pass has no such object: the raw text is parsed.
    let repaired = run(ToolCallRequest::new("highs", "call_9", r#"{"days": "2",}"#)).await;
    let clean = run(ToolCallRequest::new("highs", "call_10", r#"{"days": "2"}"#)).await;
    assert_eq!((repaired.content.text.as_str(), clean.content.text.as_str()), ("[20,21]", "[20,21]"));
    assert_eq!(repaired.request.arguments, Some(json!({"days": 2})));
    assert_eq!(clean.request.arguments, None);
    assert_eq!(
        assistant_turn(Provider::Anthropic, &[repaired.request, clean.request], &NameMap::identity()),
        vec![json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "call_9", "name": "highs", "input": {"days": 2}},
            {"type": "tool_use", "id": "call_10", "name": "highs", "input": {"days": "2"}},
        ]})]
    );
}

#[test]
fn the_gemini_assistant_turn_puts_each_thought_signature_back_on_its_part() {
    let calls = [
        gemini_call("call_7", json!({"thoughtSignature": "EskgCsYgAb4+9vt"})),
        gemini_call("gemini_call_1", json!({"generatedId": true})),
    ];
    assert_eq!(
        assistant_turn(Provider::Gemini, &calls, &names()),
        vec![json!({
            "role": "model",
            "parts": [
                {
                    "functionCall": {"name": "weather_now", "args": {"city": "San Francisco"}, "id": "call_7"},
                    "thoughtSignature": "EskgCsYgAb4+9vt",
                },
                {"functionCall": {"name": "weather_now", "args": {"city": "San Francisco"}}},
            ]
        })]
    );
}

#[test]
fn the_mcp_assistant_turn_is_one_tools_call_params_object_per_call() {
    assert_eq!(
        assistant_turn(Provider::Mcp, &calls(), &NameMap::identity()),
        vec![
            json!({"name": "weather.now", "arguments": {"city": "Paris"}}),
            json!({"name": "forecast", "arguments": {"city": "Oslo"}}),
        ]
    );
}
