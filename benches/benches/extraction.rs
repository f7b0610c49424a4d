//! Typed argument extraction against the physical limit: plain `serde_json::from_str` into a
//! `#[derive(Deserialize)]` struct with the same fields, for tools of 1, 2, 5 and 8 parameters.
//!
//! Per tool, one criterion group (`extract <N> params`) with four functions:
//!
//! - `limit`: `serde_json::from_str::<Args>(clean)`, the derived struct;
//! - `extract clean`: `<tool as DeclaredTool>::extract(clean)`;
//! - `extract messy`: `<tool as DeclaredTool>::extract(messy)`, the same values with a few
//!   conversions to make (`"5"` for an integer, `"true"` for a boolean, a list sent as JSON
//!   text, an enum token in the wrong case), converted in the same single pass;
//! - `rmcp way`: `serde_json::from_str::<Map<String, Value>>(clean)` then
//!   `serde_json::from_value::<Args>(Value::Object(map))`, as rmcp reads tool arguments.
//!
//! Every measured call drops its result inside the iteration, so each side pays for freeing
//! what it built.
//!
//! Run: `cargo bench -p tool-benches --bench extraction -- --warm-up-time 1 --measurement-time 3`
//! then `python3 benches/criterion_table.py --extraction` for the table.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tool_core::prelude::*;

#[path = "extraction/tools.rs"]
mod tools;

use tools::*;

/// Checks the inputs take the paths they are meant to, then measures one tool.
fn measure<T, L>(c: &mut Criterion, group: &str, clean: &'static str, messy: &'static str, conversions: usize)
where
    T: DeclaredTool,
    T::Args: PartialEq + std::fmt::Debug,
    L: DeserializeOwned,
{
    // Built once, on first use; not part of any measurement.
    let _ = T::definition();
    let fast = T::extract(clean);
    assert!(fast.warnings.is_empty() && fast.arguments.is_none(), "{group}: the clean text is read as it is");
    let slow = T::extract(messy);
    assert_eq!(slow.warnings.len(), conversions, "{group}: {:?}", slow.warnings);
    assert!(slow.arguments.is_none(), "{group}: the messy text is converted in the single pass, without a tree");
    assert_eq!(fast.value.unwrap(), slow.value.unwrap(), "{group}: same values either way");
    assert!(serde_json::from_str::<L>(clean).is_ok());
    let map = serde_json::from_str::<Map<String, Value>>(clean).unwrap();
    assert!(serde_json::from_value::<L>(Value::Object(map)).is_ok());

    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(1));
    g.bench_function("limit", |b| b.iter(|| serde_json::from_str::<L>(black_box(clean)).is_ok()));
    g.bench_function("extract clean", |b| b.iter(|| T::extract(black_box(clean)).value.is_ok()));
    g.bench_function("extract messy", |b| b.iter(|| T::extract(black_box(messy)).value.is_ok()));
    g.bench_function("rmcp way", |b| {
        b.iter(|| {
            serde_json::from_str::<Map<String, Value>>(black_box(clean))
                .and_then(|map| serde_json::from_value::<L>(Value::Object(map)))
                .is_ok()
        })
    });
    g.finish();
}

fn extraction(c: &mut Criterion) {
    measure::<get_issue, GetIssueArgs>(c, "extract 1 param", GET_ISSUE_CLEAN, GET_ISSUE_MESSY, 1);
    measure::<read_file, ReadFileArgs>(c, "extract 2 params", READ_FILE_CLEAN, READ_FILE_MESSY, 1);
    measure::<search_notes, SearchNotesArgs>(c, "extract 5 params", SEARCH_NOTES_CLEAN, SEARCH_NOTES_MESSY, 3);
    measure::<create_shipment, CreateShipmentArgs>(
        c,
        "extract 8 params",
        CREATE_SHIPMENT_CLEAN,
        CREATE_SHIPMENT_MESSY,
        3,
    );
}

criterion_group!(benches, extraction);
criterion_main!(benches);
