//! Dispatch overhead of the executor around a no-op tool, and the cost of typed extraction
//! compared with a plain `#[derive(Deserialize)]` struct.
//!
//! Run: `cargo bench -p tool-benches --bench dispatch -- --warm-up-time 1 --measurement-time 3`
//! then `python3 benches/criterion_table.py` for the medians as a markdown table.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::prelude::*;

/// Returns its argument (`inline`: on the async worker, so the figure is the executor's own
/// overhead, without the hand-over to the blocking pool every other sync tool gets).
#[tool(inline)]
fn noop(
    /// Any number.
    x: u32,
) -> u32 {
    x
}

/// Returns its argument, asynchronously.
#[tool]
async fn noop_async(
    /// Any number.
    x: u32,
) -> u32 {
    x
}

/// Looks notes up (a five-parameter tool; the body does nothing).
#[tool(inline)]
fn search_notes(
    /// Keywords.
    query: String,
    /// At most this many.
    limit: Option<u32>,
    /// Only notes with these tags.
    tags: Vec<String>,
    /// Match the keywords exactly.
    exact: bool,
    /// Minimum score.
    threshold: f64,
) -> String {
    let _ = (query, limit, tags, exact, threshold);
    String::new()
}

/// What `noop` would take as a hand-written args struct.
#[derive(Deserialize)]
struct NoopArgs {
    #[allow(dead_code)]
    x: u32,
}

/// What `search_notes` would take as a hand-written args struct.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct SearchNotesArgs {
    query: String,
    limit: Option<u32>,
    tags: Vec<String>,
    exact: bool,
    threshold: f64,
}

const NOOP_RAW: &str = r#"{"x":1}"#;
const SEARCH_RAW: &str =
    r#"{"query":"agent state consistency","limit":5,"tags":["rust","agents","notes"],"exact":false,"threshold":0.25}"#;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a current-thread runtime")
}

fn dispatch(c: &mut Criterion) {
    let catalog = ToolCatalog::global().expect("the benchmark's tools form a valid catalog");
    let executor = Executor::new(catalog.clone());
    let rt = runtime();

    // Sanity: the calls measured below succeed (a failing call would take a different path).
    for name in ["noop", "noop_async"] {
        let record = rt.block_on(executor.execute(ToolCallRequest::new(name, "c1", NOOP_RAW)));
        assert_eq!(record.status, CallStatus::Success, "{name}: {}", record.content.text);
        assert_eq!(record.content.text, "1");
    }
    let future = executor.execute(ToolCallRequest::new("noop", "c1", NOOP_RAW));
    eprintln!("the future `Executor::execute` returns is {} bytes", std::mem::size_of_val(&future));
    drop(future);
    // Build the definitions before measuring (they are built once, on first use).
    let _ = <noop as DeclaredTool>::definition();
    let _ = <search_notes as DeclaredTool>::definition();

    let mut group = c.benchmark_group("dispatch");
    group.throughput(Throughput::Elements(1));

    group.bench_function("execute noop (sync)", |b| {
        b.to_async(&rt).iter(|| executor.execute(ToolCallRequest::new("noop", "c1", NOOP_RAW)))
    });
    group.bench_function("execute noop_async", |b| {
        b.to_async(&rt).iter(|| executor.execute(ToolCallRequest::new("noop_async", "c1", NOOP_RAW)))
    });

    // Baselines and the pieces `execute` is made of.
    group.bench_function("ToolCallRequest::new", |b| {
        b.iter(|| ToolCallRequest::new(black_box("noop"), black_box("c1"), black_box(NOOP_RAW)))
    });
    group.bench_function("catalog.get", |b| b.iter(|| catalog.get(black_box("noop")).is_some()));
    group.bench_function("serde_json::from_str derived struct", |b| {
        b.iter(|| serde_json::from_str::<NoopArgs>(black_box(NOOP_RAW)).is_ok())
    });
    group.bench_function("DeclaredTool::extract", |b| {
        b.iter(|| <noop as DeclaredTool>::extract(black_box(NOOP_RAW)).value.is_ok())
    });
    // What `execute` does with cancellation tokens around every call: a fresh root token, a child
    // for the call, a clone in the `ToolContext`, one poll of `cancelled()` in the `select!`,
    // `cancel()` at the end, and the drops.
    group.bench_function("CancellationToken bookkeeping as in execute", |b| {
        b.to_async(&rt).iter(|| async {
            let root = CancellationToken::new();
            let token = root.child_token();
            let in_context = token.clone();
            tokio::select! {
                biased;
                () = token.cancelled() => {}
                () = std::future::ready(()) => {}
            }
            token.cancel();
            drop(in_context);
            drop(token);
            drop(root);
        })
    });
    group.bench_function("catalog.get + Tool::bind", |b| {
        b.iter_batched(
            || ToolCallRequest::new("noop", "c1", NOOP_RAW),
            |mut request| {
                catalog
                    .get(black_box("noop"))
                    .map(|tool| tool.bind(&mut request, tool_core::ExtractionPolicy::LENIENT).is_ok())
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();

    let mut group = c.benchmark_group("dispatch batch");
    group.throughput(Throughput::Elements(8));
    group.bench_function("execute_batch 8 x noop", |b| {
        b.to_async(&rt).iter(|| {
            executor.execute_batch((0..8).map(|i| ToolCallRequest::new("noop", format!("c{i}"), NOOP_RAW)).collect())
        })
    });
    group.bench_function("8 x execute noop, sequential", |b| {
        b.to_async(&rt).iter(|| async {
            for i in 0..8 {
                black_box(executor.execute(ToolCallRequest::new("noop", format!("c{i}"), NOOP_RAW)).await);
            }
        })
    });
    group.finish();
}

fn extraction(c: &mut Criterion) {
    let catalog = ToolCatalog::global().expect("the benchmark's tools form a valid catalog");
    // Same values either way, and clean: the fast path applies.
    let typed = <search_notes as DeclaredTool>::extract(SEARCH_RAW);
    assert!(typed.value.is_ok() && typed.warnings.is_empty() && typed.arguments.is_none());
    assert!(serde_json::from_str::<SearchNotesArgs>(SEARCH_RAW).is_ok());

    let mut group = c.benchmark_group("extraction 5 params");
    group.throughput(Throughput::Elements(1));
    group.bench_function("serde_json::from_str derived struct", |b| {
        b.iter(|| serde_json::from_str::<SearchNotesArgs>(black_box(SEARCH_RAW)).is_ok())
    });
    group.bench_function("DeclaredTool::extract", |b| {
        b.iter(|| <search_notes as DeclaredTool>::extract(black_box(SEARCH_RAW)).value.is_ok())
    });
    group.bench_function("Tool::bind", |b| {
        let tool = catalog.get("search_notes").expect("search_notes is declared");
        b.iter_batched(
            || ToolCallRequest::new("search_notes", "c1", SEARCH_RAW),
            |mut request| tool.bind(&mut request, tool_core::ExtractionPolicy::LENIENT).is_ok(),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, dispatch, extraction);
criterion_main!(benches);
