//! Python calls ("pythonic": Llama 3.2/4, BFCL's prompts, many fine-tunes) read by the
//! declared types: exact arguments objects, warnings and errors, whole and streamed.

use serde_json::json;
use tool_core::open_models::{CallForm, OpenModelParser, OpenModelResponse};
use tool_core::prelude::*;

/// Tell the weather in a city.
#[tool]
fn get_weather(city: String, days: u32) -> String {
    format!("{city}: sunny for {days} days")
}

/// Tell the time in a time zone.
#[tool]
fn get_time(tz: String) -> String {
    format!("noon in {tz}")
}

/// Factor a number.
#[tool]
fn get_prime_factors(number: u64, formatted: bool) -> String {
    format!("{number} {formatted}")
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<get_weather>()
        .add_declared::<get_time>()
        .add_declared::<get_prime_factors>()
        .build()
        .unwrap()
}

/// The answer read whole, checked against the same answer streamed in pieces of every size
/// from 1 to 7 bytes (cut anywhere, inside characters too).
fn read(answer: &str) -> OpenModelResponse {
    let parser = OpenModelParser::new(&catalog());
    let whole = parser.parse(answer);
    for size in 1..=7 {
        let mut stream = parser.stream();
        let mut events = Vec::new();
        for chunk in answer.as_bytes().chunks(size) {
            events.extend(stream.feed_bytes(chunk));
        }
        events.extend(stream.finish());
        assert_eq!(OpenModelResponse::from_events(events), whole, "streamed in pieces of {size} bytes");
    }
    whole
}

#[test]
fn a_list_of_calls_after_prose_is_read_with_its_values() {
    let response = read("Let me check: [get_weather(city=\"Paris\", days=3), get_time(tz='CET')]<|eot_id|>");
    assert_eq!(response.form, Some(CallForm::Python));
    assert_eq!(response.text, "Let me check: ");
    assert!(response.warnings.is_empty());
    let [weather, time] = &response.calls[..] else { panic!("two calls: {response:?}") };
    assert_eq!((weather.tool_name.as_str(), weather.call_id.as_str()), ("get_weather", "call_0"));
    assert_eq!(weather.raw_arguments, "get_weather(city=\"Paris\", days=3)");
    assert_eq!(weather.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert!(weather.parse_warnings.is_empty() && weather.parse_error.is_none());
    assert_eq!((time.tool_name.as_str(), time.call_id.as_str()), ("get_time", "call_1"));
    assert_eq!(time.raw_arguments, "get_time(tz='CET')");
    assert_eq!(time.arguments, Some(json!({"tz": "CET"})));
}
