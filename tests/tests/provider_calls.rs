//! Tool calls in: every recorded provider response (`tests/data/providers`, provenance in its
//! SOURCES.md) read into its exact calls, whole and streamed; names mapped back; streams cut
//! off; partial arguments for UIs; malformed responses and events with their exact errors; and
//! no panic on any prefix or mutation of the recorded events.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tool_core::providers::calls::{parse_response, ParsedCalls, ResponseError};
use tool_core::providers::names::NameMap;
use tool_core::providers::stream::{parse_partial_json, sse_data, PartialCall, StreamAccumulator};
use tool_core::providers::Provider;
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

/// The payloads of a fixture: SSE `data` fields, or the lines of a JSON lines file.
fn payloads(name: &str) -> Vec<String> {
    let text = fixture(name);
    if name.ends_with(".sse") {
        sse_data(&text)
    } else {
        text.lines().map(str::to_owned).collect()
    }
}

fn whole(provider: Provider, name: &str) -> ParsedCalls {
    parse_response(provider, &fixture_json(name), &NameMap::identity()).unwrap()
}

fn streamed_payloads(provider: Provider, names: NameMap, payloads: &[String]) -> ParsedCalls {
    let mut stream = StreamAccumulator::new(provider, names);
    for (i, data) in payloads.iter().enumerate() {
        stream.push_data(data).unwrap_or_else(|error| panic!("payload {i}: {error}"));
    }
    stream.finish()
}

fn streamed(provider: Provider, name: &str) -> ParsedCalls {
    streamed_payloads(provider, NameMap::identity(), &payloads(name))
}

fn call(tool: &str, id: &str, raw: &str) -> ToolCallRequest {
    ToolCallRequest::new(tool, id, raw)
}

fn with(mut call: ToolCallRequest, key: &str, value: Value) -> ToolCallRequest {
    call.provider_data.insert(key.to_owned(), value);
    call
}

/// (name, raw arguments) of each call: what a whole response and its stream must agree on
/// when they are separate recordings of the same request (ids and signatures differ).
fn names_and_arguments(parsed: &ParsedCalls) -> Vec<(&str, &str)> {
    parsed.calls.iter().map(|c| (c.tool_name.as_str(), c.raw_arguments.as_str())).collect()
}

fn partial(tool: &str, id: &str, raw: &str, arguments: Option<Value>) -> PartialCall {
    PartialCall { tool_name: tool.to_owned(), call_id: id.to_owned(), raw_arguments: raw.to_owned(), arguments }
}

/// The `thoughtSignature` of the first part of line `line` of a Gemini chunks fixture.
fn signature_in(name: &str, line: usize) -> Value {
    let chunk: Value = serde_json::from_str(fixture(name).lines().nth(line).unwrap()).unwrap();
    chunk["candidates"][0]["content"]["parts"][0]["thoughtSignature"].clone()
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

#[test]
fn openai_chat_stream_gives_the_calls_of_the_whole_response() {
    let parsed = streamed(Provider::OpenAiChat, "openai_chat_stream_tool_call.sse");
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![call("GetWeatherArgs", "call_c91SqDXlYFuETYv8mUHzz6pp", EDINBURGH_UK)],
            text: String::new(),
            stop_reason: Some("tool_calls".into()),
        }
    );
    let whole = whole(Provider::OpenAiChat, "openai_chat_tool_call.json");
    assert_eq!(names_and_arguments(&parsed), names_and_arguments(&whole));
}

#[test]
fn openai_chat_parallel_stream_gives_the_calls_of_the_whole_response() {
    let parsed = streamed(Provider::OpenAiChat, "openai_chat_stream_parallel_tool_calls.sse");
    assert_eq!(
        parsed.calls,
        vec![
            call("GetWeatherArgs", "call_JMW1whyEaYG438VE1OIflxA2", EDINBURGH_GB),
            call("get_stock_price", "call_DNYTawLBoN8fj3KN6qU9N1Ou", AAPL),
        ]
    );
    let whole = whole(Provider::OpenAiChat, "openai_chat_parallel_tool_calls.json");
    assert_eq!(names_and_arguments(&parsed), names_and_arguments(&whole));
    assert_eq!(parsed.stop_reason, whole.stop_reason);
}

#[test]
fn openai_chat_stream_shows_the_partial_arguments_after_each_event() {
    let mut stream = StreamAccumulator::new(Provider::OpenAiChat, NameMap::identity());
    let mut seen = Vec::new();
    for data in payloads("openai_chat_stream_tool_call.sse") {
        stream.push_data(&data).unwrap();
        seen.push(stream.in_progress().into_iter().map(|p| (p.raw_arguments, p.arguments)).collect::<Vec<_>>());
    }
    let step = |raw: &str, arguments: Value| vec![(raw.to_owned(), Some(arguments))];
    assert_eq!(seen[0], vec![(String::new(), None)]);
    assert_eq!(seen[1], step(r#"{""#, json!({})));
    assert_eq!(seen[2], step(r#"{"city"#, json!({})));
    assert_eq!(seen[3], step(r#"{"city":""#, json!({"city": ""})));
    assert_eq!(seen[4], step(r#"{"city":"Ed"#, json!({"city": "Ed"})));
    assert_eq!(seen[5], step(r#"{"city":"Edinburgh"#, json!({"city": "Edinburgh"})));
    assert_eq!(seen[6], step(r#"{"city":"Edinburgh",""#, json!({"city": "Edinburgh"})));
    assert_eq!(seen[8], step(r#"{"city":"Edinburgh","country":""#, json!({"city": "Edinburgh", "country": ""})));
    assert_eq!(seen[14], step(EDINBURGH_UK, json!({"city": "Edinburgh", "country": "UK", "units": "c"})));
    // `finish_reason` finishes the call: nothing is in progress any more.
    assert_eq!(seen[15], vec![]);
    assert_eq!(stream.completed(), &[call("GetWeatherArgs", "call_c91SqDXlYFuETYv8mUHzz6pp", EDINBURGH_UK)]);
}

#[test]
fn openai_chat_stream_finishes_a_call_when_the_next_one_starts() {
    let mut stream = StreamAccumulator::new(Provider::OpenAiChat, NameMap::identity());
    for data in payloads("openai_chat_stream_parallel_tool_calls.sse") {
        stream.push_data(&data).unwrap();
        if stream.in_progress().first().is_some_and(|p| p.call_id == "call_DNYTawLBoN8fj3KN6qU9N1Ou") {
            break;
        }
    }
    assert_eq!(stream.completed(), &[call("GetWeatherArgs", "call_JMW1whyEaYG438VE1OIflxA2", EDINBURGH_GB)]);
    assert_eq!(stream.in_progress(), vec![partial("get_stock_price", "call_DNYTawLBoN8fj3KN6qU9N1Ou", "", None)]);
}

#[test]
fn openai_chat_stream_from_a_server_that_sends_every_call_at_index_0() {
    let chunk = |id: Option<&str>, name: Option<&str>, arguments: &str| {
        let mut call = json!({"index": 0, "function": {"arguments": arguments}});
        if let Some(id) = id {
            call["id"] = json!(id);
            call["type"] = json!("function");
            call["function"]["name"] = json!(name);
        }
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    };
    let mut stream = StreamAccumulator::new(Provider::OpenAiChat, NameMap::identity());
    stream.push(&chunk(Some("call_a"), Some("first"), "{\"x\":")).unwrap();
    stream.push(&chunk(None, None, "1}")).unwrap();
    stream.push(&chunk(Some("call_b"), Some("second"), "{}")).unwrap();
    stream.push(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})).unwrap();
    assert_eq!(stream.finish().calls, vec![call("first", "call_a", r#"{"x":1}"#), call("second", "call_b", "{}")]);
}

#[test]
fn openai_chat_text_is_collected_from_the_deltas() {
    let mut stream = StreamAccumulator::new(Provider::OpenAiChat, NameMap::identity());
    for text in ["Let me ", "check."] {
        stream.push(&json!({"choices": [{"index": 0, "delta": {"content": text}}]})).unwrap();
    }
    stream.push(&json!({"choices": [{"index": 1, "delta": {"content": "another choice"}}]})).unwrap();
    stream.push(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})).unwrap();
    assert_eq!(
        stream.finish(),
        ParsedCalls { calls: vec![], text: "Let me check.".into(), stop_reason: Some("stop".into()) }
    );
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

/// The four responses of the Responses fixture, each its own list of payloads.
fn responses_in_stream() -> Vec<Vec<String>> {
    let mut responses: Vec<Vec<String>> = Vec::new();
    for line in payloads("openai_responses_stream_function_calls.jsonl") {
        if line.contains(r#""type":"response.created""#) {
            responses.push(Vec::new());
        }
        responses.last_mut().unwrap().push(line);
    }
    responses
}

fn calculator(id: &str, item: &str, raw: &str) -> ToolCallRequest {
    with(call("calculator", id, raw), "id", json!(item))
}

#[test]
fn openai_responses_stream_gives_each_response_its_calls_and_text() {
    let responses = responses_in_stream();
    assert_eq!(responses.iter().map(Vec::len).collect::<Vec<_>>(), vec![56, 19, 19, 16]);
    let parsed: Vec<ParsedCalls> =
        responses.iter().map(|r| streamed_payloads(Provider::OpenAiResponses, NameMap::identity(), r)).collect();
    let completed = Some("completed".to_owned());
    assert_eq!(
        parsed,
        vec![
            ParsedCalls {
                calls: vec![calculator(
                    "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
                    "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f",
                    r#"{"a":12,"b":7,"op":"add"}"#
                )],
                text: String::new(),
                stop_reason: completed.clone(),
            },
            ParsedCalls {
                calls: vec![calculator(
                    "call_Q6pW65MUgW9vF59BmItYGos3",
                    "fc_01830d662ab3856501693c32165be4819098c08f205f8932ef",
                    r#"{"a":19,"b":3,"op":"multiply"}"#
                )],
                text: String::new(),
                stop_reason: completed.clone(),
            },
            ParsedCalls {
                calls: vec![calculator(
                    "call_Zl5vIMnD7dVAjgU6FkhmiCZh",
                    "fc_01830d662ab3856501693c32173d5081908f2121e1c3ff2901",
                    r#"{"a":57,"b":10,"op":"multiply"}"#
                )],
                text: String::new(),
                stop_reason: completed.clone(),
            },
            ParsedCalls { calls: vec![], text: "The final result is **570**.".into(), stop_reason: completed },
        ]
    );
}

#[test]
fn openai_responses_stream_shows_partial_arguments_and_finishes_at_arguments_done() {
    let first = &responses_in_stream()[0];
    let mut stream = StreamAccumulator::new(Provider::OpenAiResponses, NameMap::identity());
    for data in &first[..44] {
        stream.push_data(data).unwrap();
    }
    assert_eq!(
        stream.in_progress(),
        vec![partial("calculator", "call_AB6AaRZ1FYZB2RwS6A5vbdqn", r#"{"a":12"#, Some(json!({"a": 12})))]
    );
    for data in &first[44..54] {
        stream.push_data(data).unwrap();
    }
    assert_eq!(stream.in_progress(), vec![]);
    assert_eq!(stream.completed().len(), 1);
    assert_eq!(stream.completed()[0].raw_arguments, r#"{"a":12,"b":7,"op":"add"}"#);
}

#[test]
fn openai_responses_output_item_done_alone_is_a_whole_call() {
    let first = &responses_in_stream()[0];
    let done: Vec<String> =
        first.iter().filter(|l| l.contains(r#""type":"response.output_item.done""#)).cloned().collect();
    let parsed = streamed_payloads(Provider::OpenAiResponses, NameMap::identity(), &done);
    assert_eq!(
        parsed.calls,
        vec![calculator(
            "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
            "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f",
            r#"{"a":12,"b":7,"op":"add"}"#
        )]
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

#[test]
fn anthropic_stream_joins_the_partial_json_of_the_block() {
    let parsed = streamed(Provider::Anthropic, "anthropic_stream_tool_use.sse");
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![call("get_weather", "toolu_01NRLabsLyVHZPKxbKvkfSMn", r#"{"location": "Paris"}"#)],
            text: "I'll check the current weather in Paris for you.".into(),
            stop_reason: Some("tool_use".into()),
        }
    );
}

const TAXES_PARTIAL: &str = "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes";

#[test]
fn anthropic_stream_cut_mid_json_keeps_the_partial_text_with_a_truncated_json_error() {
    let parsed = streamed(Provider::Anthropic, "anthropic_stream_incomplete_partial_json.sse");
    assert_eq!(parsed.stop_reason.as_deref(), Some("max_tokens"));
    assert_eq!(
        parsed.text,
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now."
    );
    assert_eq!(parsed.calls.len(), 1);
    let cut = &parsed.calls[0];
    assert_eq!((cut.tool_name.as_str(), cut.call_id.as_str()), ("make_file", "toolu_01EKqbqmZrGRXy18eN7m9kvY"));
    assert_eq!(cut.raw_arguments, TAXES_PARTIAL);
    let errors = &cut.parse_error.as_ref().expect("a cut-off call has a parse error").errors;
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].rule, "truncated_json");
    assert_eq!(errors[0].pointer, "");
    assert_eq!(errors[0].expected, "a JSON object");
    assert_eq!(errors[0].detail, "the text ends inside a string at line 6 column 14");
    assert_eq!(
        errors[0].received.as_deref(),
        Some("{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INT… (149 chars)")
    );
}

#[test]
fn anthropic_stream_cut_mid_json_is_in_progress_until_message_stop() {
    let events = payloads("anthropic_stream_incomplete_partial_json.sse");
    let mut stream = StreamAccumulator::new(Provider::Anthropic, NameMap::identity());
    for data in &events[..events.len() - 1] {
        stream.push_data(data).unwrap();
    }
    assert_eq!(stream.stop_reason(), Some("max_tokens"));
    assert_eq!(stream.completed(), &[]);
    assert_eq!(
        stream.in_progress(),
        vec![partial(
            "make_file",
            "toolu_01EKqbqmZrGRXy18eN7m9kvY",
            TAXES_PARTIAL,
            Some(json!({
                "filename": "taxes.txt",
                "lines_of_text": [
                    "# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",
                    "",
                    "## INTRODUCTION",
                    "",
                    "Filing taxes"
                ]
            }))
        )]
    );
    stream.push_data(events.last().unwrap()).unwrap();
    assert_eq!(stream.in_progress(), vec![]);
    assert_eq!(stream.completed()[0].parse_error.as_ref().unwrap().errors[0].rule, "truncated_json");
}

fn anthropic_events(deltas: &[&str], input: Value) -> Vec<Value> {
    let mut events = vec![json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "now", "input": input}})];
    for partial in deltas {
        events.push(json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": partial}}));
    }
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events
}

fn anthropic_stream_of(events: &[Value]) -> ParsedCalls {
    let mut stream = StreamAccumulator::new(Provider::Anthropic, NameMap::identity());
    for event in events {
        stream.push(event).unwrap();
    }
    stream.finish()
}

#[test]
fn anthropic_block_without_fragments_has_empty_arguments() {
    assert_eq!(anthropic_stream_of(&anthropic_events(&[""], json!({}))).calls, vec![call("now", "toolu_1", "{}")]);
    assert_eq!(anthropic_stream_of(&anthropic_events(&[], json!({}))).calls, vec![call("now", "toolu_1", "{}")]);
}

#[test]
fn anthropic_block_whose_input_came_whole_in_its_start_keeps_it() {
    let parsed = anthropic_stream_of(&anthropic_events(&[], json!({"tz": "UTC"})));
    assert_eq!(parsed.calls, vec![call("now", "toolu_1", r#"{"tz":"UTC"}"#)]);
}

#[test]
fn anthropic_block_cut_before_any_fragment_is_an_error_not_empty_arguments() {
    let events = anthropic_events(&[], json!({}));
    let parsed = anthropic_stream_of(&events[..1]);
    let error = &parsed.calls[0].parse_error.as_ref().unwrap().errors[0];
    assert_eq!(parsed.calls[0].raw_arguments, "");
    assert_eq!(
        (error.rule.as_str(), error.detail.as_str()),
        ("truncated_json", "the stream ended before any of the call's arguments arrived")
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
fn gemini_chunks_give_the_calls_of_the_whole_response() {
    let parsed = streamed(Provider::Gemini, "gemini_google-tool-call.chunks.txt");
    let expected = with(
        with(
            call("weather", "gemini_call_0", r#"{"location":"San Francisco"}"#),
            "thoughtSignature",
            json!("EqUCCqICAb4+9vsh8Pd5taZVoPzSvjWWwzBrvhEQWBLCGa7IdY8FBMm7Z6dCKFU3Ft0la15gF7RaHe1NlPRygQec0bFwPDfMwGcUOMNiJiNIKxusCs4ejCZRuouNYQ4etEIt7CujEUHiILLfZXSJZYhs4UCrD2bLqPq0sE0lWgYJnzHkkKUOnMsA2hKffAhtF4DWn5INYj8pPssvch/2VpDFW2F9XSE04zLDzkIWF2eztJX50Y0lTehRZC3FW7fOrXCzGx+PwdataD6eXlF5O1zn+86XtmktOs2DEp4o1PMvXFFAXe8GGvPt8Idf3UtHMq7AsapwMW9sjiKj+FJk54m+9LMTSaj7C86smfvoQryYBEHTVazr1bEnpl4bPG5JUtm2yAMkHj4="),
        ),
        "generatedId",
        json!(true),
    );
    assert_eq!(parsed, ParsedCalls { calls: vec![expected], text: String::new(), stop_reason: Some("STOP".into()) });
    let whole = whole(Provider::Gemini, "gemini_google-tool-call.json");
    assert_eq!(names_and_arguments(&parsed), names_and_arguments(&whole));
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

#[test]
fn gemini_vertex_partial_args_are_assembled_by_json_path() {
    let name = "gemini_google-stream-tool-call-arguments.chunks.txt";
    let parsed = streamed(Provider::Gemini, name);
    let signature = signature_in(name, 0);
    assert!(signature.as_str().unwrap().starts_with("CiMBjz1rX25KieIB4d4AwFn8"));
    assert_eq!(signature.as_str().unwrap().len(), 1032);
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![
                with(
                    with(call("getWeather", "gemini_call_0", r#"{"location":"Boston"}"#), "generatedId", json!(true)),
                    "thoughtSignature",
                    signature
                ),
                with(
                    call("getWeather", "gemini_call_1", r#"{"location":"San Francisco"}"#),
                    "generatedId",
                    json!(true)
                ),
            ],
            text: String::new(),
            stop_reason: Some("STOP".into()),
        }
    );
}

#[test]
fn gemini_vertex_stream_shows_the_arguments_assembled_so_far() {
    let lines = payloads("gemini_google-stream-tool-call-arguments.chunks.txt");
    let mut stream = StreamAccumulator::new(Provider::Gemini, NameMap::identity());
    stream.push_data(&lines[0]).unwrap();
    assert_eq!(stream.in_progress(), vec![partial("getWeather", "gemini_call_0", "{}", Some(json!({})))]);
    stream.push_data(&lines[1]).unwrap();
    let boston =
        partial("getWeather", "gemini_call_0", r#"{"location":"Boston"}"#, Some(json!({"location": "Boston"})));
    assert_eq!(stream.in_progress(), vec![boston.clone()]);
    stream.push_data(&lines[2]).unwrap();
    assert_eq!(stream.in_progress(), vec![boston]);
    assert_eq!(stream.completed(), &[]);
    stream.push_data(&lines[3]).unwrap();
    assert_eq!(stream.in_progress(), vec![]);
    assert_eq!(stream.completed()[0].raw_arguments, r#"{"location":"Boston"}"#);
}

#[test]
fn gemini_vertex_nested_paths_build_objects_and_arrays() {
    let name = "gemini_google-vertex-stream-tool-call-arguments-nested.1.chunks.txt";
    let parsed = streamed(Provider::Gemini, name);
    let args = json!({"recipe": {
        "ingredients": [
            {"amount": "16 oz", "name": "Lasagna noodles"},
            {"amount": "1 lb", "name": "Ground beef"},
            {"amount": "15 oz", "name": "Ricotta cheese"},
            {"amount": "3 cups", "name": "Mozzarella cheese"},
            {"amount": "1/2 cup", "name": "Parmesan cheese"},
            {"amount": "24 oz", "name": "Tomato sauce"},
            {"amount": "1", "name": "Egg"},
            {"amount": "2 cloves", "name": "Garlic"},
            {"amount": "1 tsp", "name": "Salt"},
            {"amount": "1/2 tsp", "name": "Pepper"}
        ],
        "name": "Lasagna",
        "steps": [
            "Preheat oven to 375°F (190°C).",
            "Cook lasagna noodles according to package directions, drain and set aside.",
            "Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.",
            "In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",
            "In a 9x13 baking dish, spread a thin layer of meat sauce.",
            "Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",
            "Top with remaining mozzarella cheese.",
            "Cover with foil and bake for 25 minutes.",
            "Remove foil and bake for another 25 minutes until golden.",
            "Let stand for 15 minutes before serving."
        ]
    }});
    let signature = signature_in(name, 0);
    assert!(signature.as_str().unwrap().starts_with("CmIBjz1rX0OQAtrZnJaEf6TJ"));
    assert_eq!(
        parsed.calls,
        vec![with(
            with(call("cookRecipe", "gemini_call_0", &args.to_string()), "generatedId", json!(true)),
            "thoughtSignature",
            signature
        )]
    );
    assert!(parsed.calls[0].raw_arguments.starts_with(r#"{"recipe":{"ingredients":[{"amount":"16 oz","name":"#));
}

#[test]
fn gemini_vertex_call_ending_on_a_partial_args_part_is_finished_there() {
    let name = "gemini_google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt";
    let parsed = streamed(Provider::Gemini, name);
    let signature = signature_in(name, 0);
    assert!(signature.as_str().unwrap().starts_with("AY89a19ZkXSMGh/bSOlwTCxl"));
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![with(
                with(
                    call(
                        "writeItems",
                        "gemini_call_0",
                        r#"{"operations":[{"action":"add","description":"Fresh red apple","itemid":"apple_001","price":0.5},{"action":"add","description":"Ripe yellow banana","itemid":"banana_001","price":0.3}]}"#
                    ),
                    "generatedId",
                    json!(true)
                ),
                "thoughtSignature",
                signature
            )],
            text: String::new(),
            stop_reason: Some("STOP".into()),
        }
    );
}

#[test]
fn gemini_stream_with_a_call_without_args_then_streamed_calls() {
    let name = "gemini_google-stream-no-args-tool-call.chunks.txt";
    let parsed = streamed(Provider::Gemini, name);
    let generated = |c: ToolCallRequest| with(c, "generatedId", json!(true));
    let signature = signature_in(name, 1);
    assert!(signature.as_str().unwrap().starts_with("AY89a18a8/Loc2wl5oft+F3q"));
    assert_eq!(
        parsed,
        ParsedCalls {
            calls: vec![
                with(generated(call("read_theme", "gemini_call_0", "{}")), "thoughtSignature", signature),
                generated(call("read_screen", "gemini_call_1", r#"{"id":"A"}"#)),
                generated(call("read_screen", "gemini_call_2", r#"{"id":"B"}"#)),
                generated(call("read_screen", "gemini_call_3", r#"{"id":"C"}"#)),
            ],
            // The only text is a thought summary, which is not the answer's text.
            text: String::new(),
            stop_reason: Some("STOP".into()),
        }
    );
}

#[test]
fn gemini_stream_cut_while_the_call_continues_is_an_error() {
    let lines = payloads("gemini_google-stream-tool-call-arguments.chunks.txt");
    let parsed = streamed_payloads(Provider::Gemini, NameMap::identity(), &lines[..2]);
    let cut = &parsed.calls[0];
    assert_eq!(cut.raw_arguments, r#"{"location":"Boston"}"#);
    let error = &cut.parse_error.as_ref().unwrap().errors[0];
    assert_eq!(
        (error.rule.as_str(), error.detail.as_str()),
        ("truncated_json", "the stream ended while the call was still marked `willContinue`")
    );
    // The arguments that arrived read as a whole object, but the call was refused: it is not run.
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = ran.clone();
    let tool = tool_core::DynamicTool::builder(cut.tool_name.clone())
        .description("The weather in a place.")
        .input_schema(json!({"type": "object", "properties": {"location": {"type": "string"}}}))
        .handler(move |_, _| {
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
            async { "sunny" }
        })
        .build()
        .unwrap();
    let executor = tool_core::Executor::new(tool_core::ToolCatalog::builder().add_tool(tool).build().unwrap());
    let record = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(executor.execute(cut.clone()));
    assert_eq!(record.status, tool_core::CallStatus::Failed);
    assert!(!ran.load(std::sync::atomic::Ordering::SeqCst), "a refused call must not run");
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
    let mut stream = StreamAccumulator::new(Provider::Mcp, names);
    stream.push(&request).unwrap();
    stream.push(&json!({"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "clock"}})).unwrap();
    assert_eq!(
        stream.finish().calls,
        vec![call("memory.search", "7", r#"{"query":"rust","limit":3}"#), call("clock", "b", "{}")]
    );
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

#[test]
fn a_renamed_tool_comes_back_under_its_own_name_from_a_stream() {
    let data: Vec<String> = payloads("anthropic_stream_tool_use.sse")
        .into_iter()
        .map(|d| d.replace(r#""name":"get_weather""#, r#""name":"memory_search""#))
        .collect();
    let parsed = streamed_payloads(Provider::Anthropic, memory_names(), &data);
    assert_eq!(parsed.calls, vec![call("memory.search", "toolu_01NRLabsLyVHZPKxbKvkfSMn", r#"{"location": "Paris"}"#)]);
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

#[test]
fn malformed_stream_events_name_the_event_the_path_and_what_was_found() {
    let cases: Vec<(Provider, Vec<&str>, &str)> = vec![
        (Provider::Anthropic, vec!["{not json"], "Anthropic stream event 1: not JSON (key must be a string at line 1 column 2): {not json"),
        (
            Provider::Anthropic,
            vec![r#"{"type":"content_block_delta","index":5,"delta":{"type":"input_json_delta","partial_json":"{"}}"#],
            "Anthropic stream event 1: `$.index` = 5 names no tool call open in the stream",
        ),
        (
            Provider::Anthropic,
            vec!["[DONE]", r#"{"type":"content_block_start","index":"0","content_block":{"type":"text","text":""}}"#],
            "Anthropic stream event 1: expected a non-negative integer at `$.index`, found a string \"0\"",
        ),
        (
            Provider::Anthropic,
            vec![r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#],
            "Anthropic stream event 1: the provider reported an error (overloaded_error): Overloaded",
        ),
        (
            Provider::OpenAiChat,
            vec![r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}"#],
            "OpenAI Chat stream event 1: `$.choices[0].delta.tool_calls[0].index` = 0 names no tool call open in the stream",
        ),
        (
            Provider::OpenAiChat,
            vec![r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":""}}]}}]}"#],
            "OpenAI Chat stream event 1: expected a string at `$.choices[0].delta.tool_calls[0].id`, found nothing",
        ),
        (
            Provider::OpenAiResponses,
            vec![r#"{"type":"response.function_call_arguments.delta","item_id":"fc_9","delta":"{"}"#],
            "OpenAI Responses stream event 1: `$.item_id` = \"fc_9\" names no tool call open in the stream",
        ),
        (
            Provider::OpenAiResponses,
            vec![r#"{"type":"response.output_item.added","item":{"type":"function_call","id":"fc_1","name":"f"}}"#],
            "OpenAI Responses stream event 1: expected a string at `$.item.call_id`, found nothing",
        ),
        (
            Provider::Gemini,
            vec![r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]}}]}}]}"#],
            "Gemini stream event 1: `$.candidates[0].content.parts[0].functionCall` = {\"partialArgs\":[{\"jsonPath\":\"$.a\",\"stringValue\":\"x\"}]} names no tool call open in the stream",
        ),
        (
            Provider::Gemini,
            vec![r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true,"partialArgs":[{"jsonPath":"$.a[3]","numberValue":1}]}}]}}]}"#],
            "Gemini stream event 1: expected a path the arguments can hold (an array index at most the array's length) at `$.candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath`, found a string \"$.a[3]\"",
        ),
        (
            Provider::Gemini,
            vec![r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"location","stringValue":"x"}]}}]}}]}"#],
            "Gemini stream event 1: expected a JSON path like `$.a.b[0]` at `$.candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath`, found a string \"location\"",
        ),
        (Provider::Mcp, vec![r#"{"params":{}}"#], "MCP stream event 1: expected a string at `$.name`, found nothing"),
    ];
    for (provider, events, expected) in cases {
        let mut stream = StreamAccumulator::new(provider, NameMap::identity());
        let (last, before) = events.split_last().unwrap();
        for data in before {
            stream.push_data(data).unwrap();
        }
        let error = stream.push_data(last).unwrap_err();
        assert_eq!(error.to_string(), expected);
    }
}

#[test]
fn an_event_that_is_an_error_changes_nothing() {
    let events = payloads("anthropic_stream_tool_use.sse");
    let clean = streamed_payloads(Provider::Anthropic, NameMap::identity(), &events);
    let bad = [
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":7}}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"x","name":"y","input":{}}}"#,
        r#"{"type":"content_block_delta","index":9,"delta":{"type":"input_json_delta","partial_json":"x"}}"#,
        "{\"type\":",
    ];
    let mut stream = StreamAccumulator::new(Provider::Anthropic, NameMap::identity());
    for (i, data) in events.iter().enumerate() {
        if i == 9 {
            for bad in bad {
                assert!(stream.push_data(bad).is_err(), "{bad}");
            }
        }
        stream.push_data(data).unwrap();
    }
    assert_eq!(stream.finish(), clean);

    // Gemini: a chunk whose second part fails leaves the call its first part started unmade.
    let chunk = json!({"candidates": [{"content": {"parts": [
        {"functionCall": {"name": "f", "args": {"a": 1}}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.b", "stringValue": "x"}]}}
    ]}}]});
    let mut stream = StreamAccumulator::new(Provider::Gemini, NameMap::identity());
    assert!(stream.push(&chunk).is_err());
    assert_eq!(stream.finish(), ParsedCalls::default());
}

// ---------------------------------------------------------------------------------------------
// No panic on any prefix or mutation of the recorded events.

const STREAMS: [(Provider, &str); 9] = [
    (Provider::OpenAiChat, "openai_chat_stream_tool_call.sse"),
    (Provider::OpenAiChat, "openai_chat_stream_parallel_tool_calls.sse"),
    (Provider::OpenAiResponses, "openai_responses_stream_function_calls.jsonl"),
    (Provider::Anthropic, "anthropic_stream_tool_use.sse"),
    (Provider::Anthropic, "anthropic_stream_incomplete_partial_json.sse"),
    (Provider::Gemini, "gemini_google-tool-call.chunks.txt"),
    (Provider::Gemini, "gemini_google-stream-tool-call-arguments.chunks.txt"),
    (Provider::Gemini, "gemini_google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt"),
    (Provider::Gemini, "gemini_google-stream-no-args-tool-call.chunks.txt"),
];

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
            other => panic!("no label known for {other:?}"),
        };
        assert!(error.to_string().starts_with(label), "{error}");
    }
}

/// A small deterministic generator (xorshift), so that a failure is reproduced exactly.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

#[test]
fn every_prefix_of_every_stream_finishes_with_the_calls_started_so_far() {
    for (provider, name) in STREAMS {
        let events = payloads(name);
        let total = streamed_payloads(provider, NameMap::identity(), &events).calls.len();
        for cut in 0..=events.len() {
            let parsed = streamed_payloads(provider, NameMap::identity(), &events[..cut]);
            assert!(parsed.calls.len() <= total, "{name} cut at {cut}");
            for call in &parsed.calls {
                assert!(!call.tool_name.is_empty(), "{name} cut at {cut}");
            }
        }
    }
}

#[test]
fn every_event_cut_at_every_byte_or_mutated_gives_a_result_not_a_panic() {
    let mut random = Xorshift(0x9E37_79B9_7F4A_7C15);
    let replacements = [b'"', b'{', b'}', b'[', b']', b',', b':', b'\\', b'0', b'x', b' ', 0xFF];
    for (provider, name) in STREAMS {
        let events = payloads(name);
        for (i, event) in events.iter().enumerate() {
            let mut stream = StreamAccumulator::new(provider, NameMap::identity());
            for earlier in &events[..i] {
                stream.push_data(earlier).unwrap();
            }
            // Every cut of this event (capped for the long ones), then every mutation, each on
            // its own copy of the stream so far.
            let bytes = event.as_bytes();
            let step = (bytes.len() / 400).max(1);
            for cut in (0..bytes.len()).step_by(step) {
                let mut copy = stream.clone();
                assert_names_provider(provider, copy.push_data(&String::from_utf8_lossy(&bytes[..cut])));
                let _ = copy.finish();
            }
            for _ in 0..24 {
                let mut mutated = bytes.to_vec();
                for _ in 0..=random.next(3) {
                    let at = random.next(mutated.len());
                    mutated[at] = replacements[random.next(replacements.len())];
                }
                let mut copy = stream.clone();
                assert_names_provider(provider, copy.push_data(&String::from_utf8_lossy(&mutated)));
                let _ = copy.in_progress();
                let _ = copy.finish();
            }
        }
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
    for (provider, name) in STREAMS {
        let events = payloads(name);
        for (i, event) in events.iter().enumerate().take(40) {
            let Ok(value) = serde_json::from_str::<Value>(event) else { continue };
            let mut stream = StreamAccumulator::new(provider, NameMap::identity());
            for earlier in &events[..i] {
                stream.push_data(earlier).unwrap();
            }
            for variant in structural_mutations(&shortened(&value)) {
                tried += 1;
                let mut copy = stream.clone();
                assert_names_provider(provider, copy.push(&variant));
                let _ = copy.finish();
            }
        }
    }
    assert!(tried > 10_000, "{tried}");
}

// ---------------------------------------------------------------------------------------------
// The partial view, as properties.

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(|f| json!(f)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::String),
        "[\"\\\\\\n\\u{1F600}é a]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-z\"\\\\]{0,5}", inner), 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

fn any_object() -> impl Strategy<Value = Value> {
    prop::collection::vec(("[a-z_\"\\\\]{1,6}", any_json()), 0..6)
        .prop_map(|entries| Value::Object(entries.into_iter().collect()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Every prefix of an arguments object's text reads as an object, and the whole text as
    /// exactly that object.
    #[test]
    fn every_prefix_of_an_object_reads_as_an_object(object in any_object()) {
        let text = object.to_string();
        for (cut, _) in text.char_indices().skip(1) {
            let partial = parse_partial_json(&text[..cut]);
            prop_assert!(matches!(partial, Some(Value::Object(_))), "{:?} -> {:?}", &text[..cut], partial);
        }
        prop_assert_eq!(parse_partial_json(&text), serde_json::from_str::<Value>(&text).ok());
    }

    /// Arbitrary text never panics the partial view, the SSE splitter or an accumulator.
    #[test]
    fn arbitrary_text_gives_a_result_not_a_panic(text in "\\PC{0,64}|[{}\\[\\]\",:\\\\0-9a-z ]{0,64}") {
        let parsed = parse_partial_json(&text);
        if let Ok(strict) = serde_json::from_str::<Value>(&text) {
            prop_assert_eq!(parsed, Some(strict));
        }
        let payloads = sse_data(&text);
        prop_assert!(payloads.len() <= text.matches(['\n', '\r']).count() + 1);
        for provider in [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini, Provider::Mcp] {
            let mut stream = StreamAccumulator::new(provider, NameMap::identity());
            assert_names_provider(provider, stream.push_data(&text));
            let _ = stream.finish();
        }
    }
}
