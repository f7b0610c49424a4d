//! What the call policy costs a call: the echo tool bare, through three input guardrails,
//! and through a whole stack (three input guardrails, an output guardrail, two rate limits and
//! the retry budget of a conversation); and 10,000 calls in one batch, bare, through the three
//! guardrails and through the stack.
//!
//! Run: `cargo bench -p tool-benches --bench policy -- --warm-up-time 1 --measurement-time 3`
//! then `python3 benches/criterion_table.py` for the medians as a markdown table.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use tool_core::policy::{GuardScope, GuardedCall, InputVerdict, OutputVerdict, RateLimit};
use tool_core::prelude::*;
use tool_core::{ExecutorBuilder, ToolOutput};

/// Echo a text (`inline`: on the async worker, so the figures are the executor's and the
/// policy's own).
#[tool(inline, tags("chat"))]
fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

const RAW: &str = r#"{"text":"What is on the agenda for Thursday's planning meeting?"}"#;

fn not_too_long(call: &GuardedCall) -> InputVerdict {
    match call.argument("text").and_then(Value::as_str) {
        Some(text) if text.len() > 10_000 => InputVerdict::reject("The text is over 10,000 bytes."),
        _ => InputVerdict::allow(),
    }
}

fn no_keys(call: &GuardedCall) -> InputVerdict {
    match call.argument("text").and_then(Value::as_str) {
        Some(text) if text.contains("sk-") => InputVerdict::reject("The text holds what looks like an API key."),
        _ => InputVerdict::allow(),
    }
}

fn known_tool(call: &GuardedCall) -> InputVerdict {
    match call.definition().annotations.destructive {
        Some(true) => InputVerdict::stop_turn("no destructive tools in this agent"),
        _ => InputVerdict::allow(),
    }
}

/// Three guardrails that decide from the call's tool and request alone, reading no argument.
fn three_light_guardrails(builder: ExecutorBuilder) -> ExecutorBuilder {
    builder
        .input_guardrail("small", GuardScope::All, |call: &GuardedCall| match call.request().raw_arguments.len() {
            0..=65_536 => InputVerdict::allow(),
            _ => InputVerdict::reject("The arguments are over 64 KiB."),
        })
        .input_guardrail("chat_only", GuardScope::All, |call: &GuardedCall| match call.definition().has_tag("chat") {
            true => InputVerdict::allow(),
            false => InputVerdict::reject("Only chat tools here."),
        })
        .input_guardrail("known_tool", GuardScope::All, known_tool)
}

fn three_guardrails(builder: ExecutorBuilder) -> ExecutorBuilder {
    builder
        .input_guardrail("not_too_long", GuardScope::All, not_too_long)
        .input_guardrail("no_keys", GuardScope::tag("chat"), no_keys)
        .input_guardrail("known_tool", GuardScope::All, known_tool)
}

fn stack(builder: ExecutorBuilder) -> ExecutorBuilder {
    three_guardrails(builder)
        .output_guardrail("no_keys_out", GuardScope::All, |_: &GuardedCall, output: &ToolOutput| {
            match output.text.contains("sk-") {
                true => OutputVerdict::reject("withheld"),
                false => OutputVerdict::allow(),
            }
        })
        .rate_limit(RateLimit::per_tool(u32::MAX, Duration::from_secs(1)))
        .rate_limit(RateLimit::per_conversation(u32::MAX, Duration::from_secs(1)))
}

fn policy(c: &mut Criterion) {
    let catalog = ToolCatalog::builder().add_declared::<echo>().build().expect("a valid catalog");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let bare = Executor::new(catalog.clone());
    let guarded = three_guardrails(Executor::builder(catalog.clone())).build();
    let light = three_light_guardrails(Executor::builder(catalog.clone())).build();
    let stacked = stack(Executor::builder(catalog.clone())).build();
    for executor in [&bare, &guarded, &light, &stacked] {
        let record = rt.block_on(executor.execute(ToolCallRequest::new("echo", "c1", RAW).in_conversation("c")));
        assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    }

    // The bare call is measured first and last: on a shared machine the first figure of a run
    // is often the slowest, and the two bound the noise the ratios stand in.
    let mut group = c.benchmark_group("policy");
    let bare_call =
        |b: &mut criterion::Bencher| b.to_async(&rt).iter(|| bare.execute(ToolCallRequest::new("echo", "c1", RAW)));
    group.bench_function("echo bare", bare_call);
    group.bench_function("echo, three input guardrails", |b| {
        b.to_async(&rt).iter(|| guarded.execute(ToolCallRequest::new("echo", "c1", RAW)))
    });
    group.bench_function("echo, three input guardrails reading no argument", |b| {
        b.to_async(&rt).iter(|| light.execute(ToolCallRequest::new("echo", "c1", RAW)))
    });
    group.bench_function("echo bare, in a conversation", |b| {
        b.to_async(&rt).iter(|| bare.execute(ToolCallRequest::new("echo", "c1", RAW).in_conversation("conv-1")))
    });
    group.bench_function("echo, the whole stack, in a conversation", |b| {
        b.to_async(&rt).iter(|| stacked.execute(ToolCallRequest::new("echo", "c1", RAW).in_conversation("conv-1")))
    });
    group.bench_function("echo bare, again", bare_call);
    // What any guardrail that reads the arguments needs first: the arguments as a JSON value.
    group.bench_function("the arguments read as a serde_json::Value", |b| {
        b.iter(|| serde_json::from_str::<Value>(std::hint::black_box(RAW)).expect("JSON"))
    });
    group.finish();

    let batch = |n: usize| -> Vec<ToolCallRequest> {
        (0..n)
            .map(|i| ToolCallRequest::new("echo", format!("c{i}"), RAW).in_conversation(format!("conv-{}", i % 100)))
            .collect()
    };
    let mut group = c.benchmark_group("policy batch");
    group.sample_size(10);
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("10,000 calls bare", |b| b.to_async(&rt).iter(|| bare.execute_batch(batch(10_000))));
    group.bench_function("10,000 calls, three input guardrails", |b| {
        b.to_async(&rt).iter(|| guarded.execute_batch(batch(10_000)))
    });
    group.bench_function("10,000 calls, the whole stack", |b| {
        b.to_async(&rt).iter(|| stacked.execute_batch(batch(10_000)))
    });
    group.finish();
}

criterion_group!(benches, policy);
criterion_main!(benches);
