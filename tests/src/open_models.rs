//! What the open-model reader tests share: an answer read whole and checked against reading it
//! streamed, and the parts of warnings, errors and calls the tests compare.

use tool_core::open_models::{OpenModelParser, OpenModelResponse};
use tool_core::{ParseWarning, ToolCallRequest};

/// `answer` read whole, after checking that reading it streamed a byte at a time (through
/// `feed_bytes`, so cut inside characters) and a character at a time gives the same.
pub fn read(parser: &OpenModelParser, answer: &str) -> OpenModelResponse {
    let whole = parser.parse(answer);
    let mut stream = parser.stream();
    let mut events = Vec::new();
    for byte in answer.as_bytes() {
        events.extend(stream.feed_bytes(std::slice::from_ref(byte)));
    }
    events.extend(stream.finish());
    assert_eq!(OpenModelResponse::from_events(events), whole, "byte chunks of {answer:?}");
    let mut stream = parser.stream();
    let mut events = Vec::new();
    for c in answer.chars() {
        events.extend(stream.feed(c.encode_utf8(&mut [0; 4])));
    }
    events.extend(stream.finish());
    assert_eq!(OpenModelResponse::from_events(events), whole, "character chunks of {answer:?}");
    whole
}

/// A warning's pointer, rule, expected, received and action.
pub fn warning(w: &ParseWarning) -> [&str; 5] {
    [w.pointer(), w.rule(), w.expected(), w.received(), w.action()]
}

pub fn warnings(ws: &[ParseWarning]) -> Vec<[&str; 5]> {
    ws.iter().map(warning).collect()
}

/// A refused call's errors: pointer, rule, expected, received, detail.
pub fn errors(call: &ToolCallRequest) -> Vec<[String; 5]> {
    call.parse_error.as_ref().map_or_else(Vec::new, |e| {
        e.errors
            .iter()
            .map(|e| {
                [
                    e.pointer.clone(),
                    e.rule.clone(),
                    e.expected.clone(),
                    e.received.clone().unwrap_or_default(),
                    e.detail.clone(),
                ]
            })
            .collect()
    })
}

pub fn truncated(expected: &str) -> [String; 5] {
    [
        String::new(),
        "truncated_call".to_owned(),
        format!("the whole call, with {expected}"),
        "the end of the answer".to_owned(),
        "the answer ended inside the call, so its values may be cut short; it was not run".to_owned(),
    ]
}

/// Each call's name, id and raw arguments.
pub fn calls(response: &OpenModelResponse) -> Vec<[&str; 3]> {
    response.calls.iter().map(|c| [c.tool_name.as_str(), c.call_id.as_str(), c.raw_arguments.as_str()]).collect()
}
