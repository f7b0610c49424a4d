//! What observing a call costs: a no-op tool's call through the executor with no subscriber
//! (the spans are off), and with OpenTelemetry recording them (`tracing-opentelemetry` into an
//! SDK tracer whose exporter drops what it gets), at `info` (the call's span) and at
//! `debug` (its stage spans too), with and without a meter.
//!
//! Run: `cargo bench -p tool-benches --bench tracing -- --warm-up-time 1 --measurement-time 3`
//! then `python3 benches/criterion_table.py` for the medians as a markdown table.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::testing::trace::NoopSpanExporter;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tool_core::prelude::*;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer as _;

/// Returns its argument (`inline`: on the async worker, so the figure is the executor's own).
#[tool(inline)]
fn noop(
    /// Any number.
    x: u32,
) -> u32 {
    x
}

const RAW: &str = r#"{"x":1}"#;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a current-thread runtime")
}

fn tracing(c: &mut Criterion) {
    let catalog = ToolCatalog::global().expect("the benchmark's tool forms a valid catalog");
    let executor = Executor::new(catalog.clone());
    let rt = runtime();
    let call = |executor: &Executor| {
        let record = rt.block_on(executor.execute(ToolCallRequest::new("noop", "c1", RAW)));
        assert_eq!(record.status, CallStatus::Success);
    };
    call(&executor);

    let mut group = c.benchmark_group("tracing");
    group.throughput(Throughput::Elements(1));
    group.bench_function("call, no subscriber (off)", |b| b.iter(|| call(&executor)));

    // The simple processor hands each span to the exporter as it ends, on this thread: no
    // background thread competes with the measured one.
    let provider = SdkTracerProvider::builder().with_simple_exporter(NoopSpanExporter::new()).build();
    for (name, level, lean) in [
        ("call, OpenTelemetry at info", tracing::Level::INFO, false),
        ("call, OpenTelemetry at info, lean layer", tracing::Level::INFO, true),
        ("call, OpenTelemetry at debug (stages)", tracing::Level::DEBUG, false),
    ] {
        let filter = tracing_subscriber::filter::LevelFilter::from_level(level);
        // The lean layer leaves out what the bridge adds by default: busy and idle times, the
        // thread, the source location, and events as span events.
        let layer = tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("bench"))
            .with_tracked_inactivity(!lean)
            .with_threads(!lean)
            .with_location(!lean);
        let subscriber = tracing_subscriber::registry().with(layer.with_filter(filter));
        tracing::subscriber::with_default(subscriber, || {
            group.bench_function(name, |b| b.iter(|| call(&executor)));
        });
    }

    let meters = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
        .build();
    let measured = Executor::builder(catalog.clone()).meter(&meters.meter("bench")).build();
    call(&measured);
    group.bench_function("call, metrics (no spans)", |b| b.iter(|| call(&measured)));
    group.finish();
    let _ = provider.shutdown();
    let _ = meters.shutdown();
}

criterion_group!(benches, tracing);
criterion_main!(benches);
