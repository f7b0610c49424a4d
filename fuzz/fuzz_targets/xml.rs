//! Arbitrary bytes as a model's answer in the XML call protocol (seeded with valid blocks and
//! every malformed form, which libFuzzer mutates): reading it whole, and streamed in chunks
//! cut where the first byte says (inside tags and UTF-8 characters too), must never panic or
//! hang, must agree, and must keep each call's raw text as it is in the answer; every call then
//! goes through extraction and the executor.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use tool_core::prelude::*;
use tool_core::xml::{XmlParser, XmlResponse};

/// Check whether a room is free.
#[tool]
fn check_availability(room: String, hours: u32) -> String {
    format!("{room} {hours}")
}

/// Where.
#[derive(Deserialize, schemars::JsonSchema)]
struct Place {
    /// Building.
    building: String,
    /// Floor.
    floor: Option<i8>,
}

/// Book a room.
#[tool]
fn book_room(room: String, attendees: Vec<String>, notify: Option<bool>, place: Option<Place>, extra: Option<serde_json::Value>) -> String {
    let _ = (place.map(|p| (p.building, p.floor)), extra);
    format!("{room} {attendees:?} {notify:?}")
}

fn executor() -> &'static (Executor, tokio::runtime::Runtime) {
    static EXECUTOR: OnceLock<(Executor, tokio::runtime::Runtime)> = OnceLock::new();
    EXECUTOR.get_or_init(|| {
        let catalog =
            ToolCatalog::builder().add_declared::<check_availability>().add_declared::<book_room>().build().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        (Executor::new(catalog), runtime)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&step, bytes)) = data.split_first() else { return };
    let (executor, runtime) = executor();
    let parser = XmlParser::new(executor.catalog());
    let text = String::from_utf8_lossy(bytes);
    let whole = parser.parse(&text);

    let mut stream = parser.stream();
    let mut events = Vec::new();
    let step = usize::from(step % 32) + 1;
    for chunk in bytes.chunks(step) {
        events.extend(stream.feed_bytes(chunk));
    }
    events.extend(stream.finish());
    assert_eq!(XmlResponse::from_events(events), whole, "streamed in chunks of {step} bytes");

    for call in &whole.calls {
        let json_call = call.parse_warnings.iter().any(|w| w.rule() == "xml_json_tool_call");
        assert!(json_call || text.contains(call.raw_arguments.as_str()), "the raw text of a call is in the answer");
        let _ = tool_core::ParseWarning::joined(&call.parse_warnings);
    }
    let records = runtime.block_on(executor.execute_batch(whole.calls));
    for record in &records {
        assert_eq!(record.status == CallStatus::Success, !record.is_error());
    }
    let _ = tool_core::xml::function_results(&records);
    let _ = tool_core::xml::tool_result_event(&records, std::time::SystemTime::UNIX_EPOCH);
});
