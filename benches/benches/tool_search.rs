//! Tool search over large catalogs: building the index and answering a query, over BFCL's
//! 2,961 real tools and over 10,000 (the same tools, renamed, until there are 10,000), with
//! BFCL's real requests as queries. Prints the index's heap.
//!
//!     cargo bench -p tool-benches --bench tool_search -- --warm-up-time 1 --measurement-time 3

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;
use tool_core::search::ToolSearch;
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

criterion_group!(benches, search);
criterion_main!(benches);
