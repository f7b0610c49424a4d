//! Arbitrary bytes as an open model's answer (seeded with valid answers in every form, which
//! libFuzzer mutates): read whole, and streamed in chunks whose sizes the input sets (cut inside
//! special tokens and UTF-8 characters too), by the parser of every form and by the one that
//! reads whichever form the answer shows. Nothing may panic or hang, both readings must agree,
//! and every call then runs through the executor and is written back in every family's form.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use tool_core::open_models::{
    detect, result_messages, CallForm, OpenModelParser, OpenModelResponse, ResultFormat,
};
use tool_core::prelude::*;

/// Tell the weather in a city.
#[tool]
fn get_weather(city: String, days: Option<u32>, metric: Option<bool>) -> String {
    format!("{city} {days:?} {metric:?}")
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
#[tool(name = "rooms.book")]
fn book_room(room: String, attendees: Vec<String>, place: Option<Place>, extra: Option<serde_json::Value>) -> String {
    let _ = (place.map(|p| (p.building, p.floor)), extra);
    format!("{room} {attendees:?}")
}

fn executor() -> &'static (Executor, tokio::runtime::Runtime) {
    static EXECUTOR: OnceLock<(Executor, tokio::runtime::Runtime)> = OnceLock::new();
    EXECUTOR.get_or_init(|| {
        let catalog =
            ToolCatalog::builder().add_declared::<get_weather>().add_declared::<book_room>().build().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        (Executor::new(catalog), runtime)
    })
}

/// Reads `bytes` with `parser` fed in the chunks `cuts` gives.
fn streamed(parser: &OpenModelParser, bytes: &[u8], cuts: impl Iterator<Item = usize>) -> OpenModelResponse {
    let mut stream = parser.stream();
    let mut events = Vec::new();
    let mut rest = bytes;
    for cut in cuts {
        if rest.is_empty() {
            break;
        }
        let (chunk, after) = rest.split_at(cut.min(rest.len()));
        events.extend(stream.feed_bytes(chunk));
        rest = after;
    }
    events.extend(stream.feed_bytes(rest));
    events.extend(stream.finish());
    OpenModelResponse::from_events(events)
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, bytes)) = data.split_first() else { return };
    let (executor, runtime) = executor();
    let text = String::from_utf8_lossy(bytes);
    let step = usize::from(control % 32) + 1;

    let mut parsers = vec![("auto".to_owned(), OpenModelParser::new(executor.catalog()))];
    for &form in CallForm::ALL {
        parsers.push((form.name().to_owned(), OpenModelParser::new(executor.catalog()).form(form)));
    }
    let mut auto = None;
    for (name, parser) in &parsers {
        let whole = parser.parse(&text);
        // Even chunks, then chunks as long as the input's own bytes say (1 to 8), so that cuts
        // land everywhere the mutations put them.
        let even = streamed(parser, bytes, std::iter::repeat(step));
        assert_eq!(even, whole, "{name}: streamed in chunks of {step} bytes");
        let ragged = streamed(parser, bytes, bytes.iter().map(|&b| usize::from(b % 8) + 1));
        assert_eq!(ragged, whole, "{name}: streamed in chunks the input's bytes set");
        if let Some(form) = whole.form {
            assert!(name == "auto" || name == form.name(), "{name}: a parser for one form reads only it");
        }
        for call in &whole.calls {
            let _ = tool_core::ParseWarning::joined(&call.parse_warnings);
        }
        if auto.is_none() {
            auto = Some(whole);
        }
    }
    let _ = detect(&text);

    let Some(auto) = auto else { return };
    let form = auto.form;
    let records = runtime.block_on(executor.execute_batch(auto.calls));
    for record in &records {
        assert_eq!(record.status == CallStatus::Success, !record.is_error());
    }
    for format in ResultFormat::ALL {
        let rendered = format.render(&records);
        assert_eq!(rendered.is_empty(), records.is_empty(), "{format:?}");
    }
    assert_eq!(result_messages(&records).len(), records.len());
    if let Some(form) = form {
        let _ = ResultFormat::for_answer(form, &text);
    }
});
