//! Arguments with many distinct keys, doubled from 10,000 to 320,000, through the executor
//! (record included): at the top level of a declared tool, in a nested struct, in a free-form
//! parameter, for a runtime-built tool (the path of REST and MCP-imported tools) and for a
//! tool that does not exist; and the floor, serde_json reading the same text into a `Value`.
//! Time must grow linearly, as serde_json's own does (`python3 benches/doubling.py
//! hostile_keys` prints each doubling's ratio beside the floor's).
//!
//!     cargo bench -p tool-benches --bench hostile_keys -- --warm-up-time 1 --measurement-time 3
//!
//! The catalog raises the limits on keys per object and on the arguments' size, so that every
//! call is read in full (the defaults refuse these arguments before reading them).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::{json, Map, Value};
use tool_benches::hostile::{configure, echo, keys, store, tally};
use tool_core::prelude::*;

fn hostile_keys(c: &mut Criterion) {
    let lookup = DynamicTool::builder("lookup")
        .description("Looks a city up.")
        .input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}}))
        .handler(|args, _| async move { args.len() })
        .build()
        .expect("a valid tool");
    let catalog = ToolCatalog::builder()
        .add_declared::<echo>()
        .add_declared::<configure>()
        .add_declared::<store>()
        .add_declared::<tally>()
        .add_tool(lookup)
        .max_keys_per_object(1_000_000)
        .max_argument_bytes(64 * 1024 * 1024)
        .build()
        .expect("a valid catalog");
    let executor = Executor::new(catalog);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    type Case = (&'static str, &'static str, fn(usize) -> String);
    let cases: [Case; 6] = [
        ("top level", "echo", |n| keys("\"text\":\"a\"", n)),
        ("nested", "configure", |n| format!("{{\"options\":{}}}", keys("\"name\":\"a\"", n))),
        ("free-form", "store", |n| format!("{{\"data\":{}}}", keys("", n))),
        ("map", "tally", |n| format!("{{\"counts\":{}}}", keys("", n))),
        ("dynamic tool", "lookup", |n| keys("\"city\":\"a\"", n)),
        ("unknown tool", "nope", |n| keys("", n)),
    ];
    // The floor: serde_json reading the top-level case into a `Value` (and dropping it), which
    // the memory of a larger map slows by itself.
    let mut group = c.benchmark_group("hostile_keys limit: serde_json Value");
    group.sample_size(10);
    for n in [10_000, 20_000, 40_000, 80_000, 160_000, 320_000] {
        let raw = keys("\"text\":\"a\"", n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &raw, |b, raw| {
            b.iter(|| serde_json::from_str::<Value>(raw).map(|v| v.as_object().map_or(0, Map::len)))
        });
    }
    group.finish();
    for (name, tool, arguments) in cases {
        let mut group = c.benchmark_group(format!("hostile_keys {name}"));
        group.sample_size(10);
        for n in [10_000, 20_000, 40_000, 80_000, 160_000, 320_000] {
            let raw = arguments(n);
            group.bench_with_input(BenchmarkId::from_parameter(n), &raw, |b, raw| {
                b.iter(|| {
                    let record = runtime.block_on(executor.execute(ToolCallRequest::new(tool, "call_1", raw.as_str())));
                    assert!(record.request.parse_error.is_none() || tool == "nope");
                    record
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, hostile_keys);
criterion_main!(benches);
