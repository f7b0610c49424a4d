//! Arbitrary bytes (read as lossy UTF-8) as a provider's streamed body and as a whole
//! response: the SSE splitter, every provider's stream accumulator, the response parsers and
//! the partial-JSON view must never panic; and the partial-JSON view of a complete object is
//! that object.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_core::providers::calls::parse_response;
use tool_core::providers::stream::{parse_partial_json, sse_data, StreamAccumulator};
use tool_core::providers::names::NameMap;
use tool_core::providers::Provider;

const PROVIDERS: [Provider; 5] =
    [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini, Provider::Mcp];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut names = NameMap::identity();
    names.insert("memory.search", "memory_search");
    let whole = serde_json::from_str::<Value>(&text).ok();
    let partial = parse_partial_json(&text);
    if let Some(object @ Value::Object(_)) = &whole {
        assert_eq!(partial.as_ref(), Some(object), "the partial view of a complete object");
    }
    // The body as SSE, and each line as one event (Gemini's chunks, the Responses JSON lines).
    let mut events = sse_data(&text);
    events.extend(text.lines().map(str::to_owned));
    for provider in PROVIDERS {
        let mut stream = StreamAccumulator::new(provider, names.clone());
        for data in &events {
            let _ = stream.push_data(data);
            let _ = stream.in_progress();
        }
        let _ = stream.finish();
        if let Some(value) = &whole {
            let _ = parse_response(provider, value, &names);
        }
    }
});
