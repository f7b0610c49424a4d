//! Tool search over large catalogs: building the index and answering a query, over BFCL's
//! 2,961 real tools and over 10,000 (the same tools, renamed, until there are 10,000), with
//! BFCL's real requests as queries. Prints the index's heap. Then a request's `tools` for one
//! turn (`SearchRequest::tools`) over the 2,961 tools, all deferred but a few.
//!
//!     cargo bench -p tool-benches --bench tool_search -- --warm-up-time 1 --measurement-time 3

use std::collections::HashSet;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;
use tool_core::prelude::*;
use tool_core::providers::export::{ExportOptions, NameCollisions};
use tool_core::providers::Dialect;
use tool_core::search::{Discovered, SearchRequest, SearchToolBuilder, ToolSearch};
use tool_core::ToolDefinition;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/tests/data/tool_search");

fn lines(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{DATA}/{file}")).expect("the tool search data");
    text.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect()
}

/// `count` definitions: the real tools, then the same renamed `name_vK`.
fn catalog(count: usize) -> Vec<ToolDefinition> {
    let tools = lines("tools.jsonl");
    (0..count)
        .map(|i| {
            let tool = &tools[i % tools.len()];
            let name = tool["name"].as_str().unwrap();
            let name = if i < tools.len() { name.to_owned() } else { format!("{name}_v{}", i / tools.len()) };
            ToolDefinition::new(name, tool["description"].as_str().unwrap(), tool["parameters"].clone())
        })
        .collect()
}

fn queries() -> Vec<String> {
    lines("requests.jsonl").iter().step_by(28).map(|r| r["query"].as_str().unwrap().to_owned()).collect()
}

fn search(c: &mut Criterion) {
    let queries = queries();
    let mut group = c.benchmark_group("tool_search");
    for count in [2_961, 10_000] {
        let tools = catalog(count);
        let index = ToolSearch::new(&tools);
        eprintln!("{} tools: index heap {:.1} MB", index.len(), index.heap_bytes() as f64 / 1e6);
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::new("build", count), &tools, |b, tools| b.iter(|| ToolSearch::new(tools)));
        group.throughput(Throughput::Elements(queries.len() as u64));
        group.bench_with_input(BenchmarkId::new("query_top5", count), &index, |b, index| {
            b.iter(|| queries.iter().map(|q| index.search(q, 5).len()).sum::<usize>())
        });
    }
    group.finish();
}

/// The real tools as a catalog (each name once), every one deferred but the first `loaded`.
fn deferred_catalog(loaded: usize) -> ToolCatalog {
    let mut seen = HashSet::new();
    let mut builder = ToolCatalog::builder();
    let mut kept = Vec::new();
    for tool in lines("tools.jsonl") {
        let name = tool["name"].as_str().unwrap().to_owned();
        if !seen.insert(name.clone()) {
            continue;
        }
        let built = DynamicTool::builder(name.clone())
            .description(tool["description"].as_str().unwrap())
            .input_schema(tool["parameters"].clone())
            .handler(|_, _| async { ToolOutput::text("") })
            .build();
        if let Ok(built) = built {
            builder = builder.add_tool(built);
            kept.push(name);
        }
    }
    builder = builder.defer_all();
    for name in kept.iter().take(loaded) {
        builder = builder.keep_loaded(name.clone());
    }
    builder.build().expect("the catalog of the real tools")
}

fn request_tools(c: &mut Criterion) {
    let catalog = deferred_catalog(5);
    let search = SearchToolBuilder::new(catalog.deferred()).build().unwrap();
    let mut discovered = Discovered::new();
    for definition in catalog.deferred().take(5) {
        discovered.insert(definition.name.clone());
    }
    eprintln!("{} tools, {} deferred, {} discovered", catalog.len(), catalog.deferred().count(), 5);
    let mut group = c.benchmark_group("search_request_tools");
    for (label, dialect) in
        [("chat_ours", Dialect::OpenAiChat { strict: false }), ("anthropic_ours", Dialect::Anthropic { strict: false })]
    {
        // BFCL has `math.factorial` and `math_factorial`, one name for OpenAI.
        let options = ExportOptions::default().name_collisions(NameCollisions::NumberedSuffix);
        let request =
            SearchRequest::builder(&catalog, search.definition(), dialect).export_options(options).build().unwrap();
        group.bench_function(BenchmarkId::new(label, "none_found"), |b| {
            b.iter(|| request.tools(&Discovered::new()).tools.len())
        });
        group.bench_function(BenchmarkId::new(label, "5_found"), |b| b.iter(|| request.tools(&discovered).tools.len()));
        // What `tools` cost when it gave an owned `Exported` every turn.
        group.bench_function(BenchmarkId::new(label, "none_found_owned"), |b| {
            b.iter(|| request.tools(&Discovered::new()).into_exported().tools.len())
        });
        group.bench_function(BenchmarkId::new(label, "5_found_owned"), |b| {
            b.iter(|| request.tools(&discovered).into_exported().tools.len())
        });
    }
    group.finish();
}

criterion_group!(benches, search, request_tools);
criterion_main!(benches);
