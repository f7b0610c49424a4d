//! Repairing a megabyte of arguments that needs every repair, against the limit: serde_json
//! reading the same megabyte once repaired. Each input's time must grow linearly with its size
//! (a repair that went quadratic would read seconds here, not milliseconds).
//!
//!     cargo bench -p tool-benches --bench repair -- --warm-up-time 1 --measurement-time 3

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{Map, Value};
use tool_core::extract;

/// The inputs of a megabyte each, by name: the repairs they need.
fn inputs() -> Vec<(&'static str, String)> {
    let item = r"{'path': 'C:\dir\file.txt', 'ok': True, 'n': [1, 2.5, -3,],},";
    let body = item.repeat(1_000_000 / item.len());
    vec![
        ("fence+python+escapes+commas+token", format!("```json\n{{'items': [{body}]}}\n```<|call|>")),
        ("invalid escapes", format!("{{\"s\": \"{}\"}}", "\\q".repeat(500_000))),
        ("trailing tokens", format!("{{\"a\":1}}{}", "<|call|>".repeat(125_000))),
        ("identical objects", "{\"a\":1}".repeat(140_000)),
        ("unclosed token", format!("{{\"a\":1}}<|{}", "x".repeat(1_000_000))),
        ("truncated python string", format!("{{'a': '{}", "é".repeat(500_000))),
    ]
}

fn repair(c: &mut Criterion) {
    let mut group = c.benchmark_group("repair_1mb");
    group.sample_size(10);
    // The limit: the first input once repaired, read by serde_json.
    let Ok(repaired) = extract::untyped(&inputs()[0].1).value else { panic!("the first input is repaired") };
    let clean = serde_json::to_string(&repaired).expect("serialises");
    group.bench_function("limit: serde_json of the repaired text", |b| {
        b.iter(|| serde_json::from_str::<Map<String, Value>>(&clean).is_ok())
    });
    for (name, input) in inputs() {
        group.bench_function(name, |b| b.iter(|| extract::untyped(&input).value.is_ok()));
    }
    group.finish();
}

criterion_group!(benches, repair);
criterion_main!(benches);
