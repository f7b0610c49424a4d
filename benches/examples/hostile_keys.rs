//! Times one call through the executor for arguments with many distinct keys, in each place
//! a model can put them; prints one line per case. The catalog raises the limits on keys per
//! object and on size, so that the calls are read in full; the last cases keep the defaults.
//!
//! ```sh
//! cargo run --profile bench -p tool-benches --example hostile_keys -- 50000 300000
//! ```
//!
//! `CASE=<part of a case name>` runs only the cases whose name contains it.

use std::time::{Duration, Instant};

use serde_json::json;
use tool_benches::hostile::{configure, echo, keys, store, tally};
use tool_core::prelude::*;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let sizes = if sizes.is_empty() { vec![50_000] } else { sizes };
    let dynamic = |name: &str, open: bool| {
        let mut schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        if open {
            schema["additionalProperties"] = json!(true);
        }
        DynamicTool::builder(name)
            .description("A dynamic tool.")
            .input_schema(schema)
            .handler(|args, _| async move { args.len() })
            .build()
            .unwrap()
    };
    let catalog = ToolCatalog::builder()
        .add_declared::<echo>()
        .add_declared::<configure>()
        .add_declared::<tally>()
        .add_declared::<store>()
        .add_tool(dynamic("rest_like", false))
        .add_tool(dynamic("open_dynamic", true))
        .max_keys_per_object(1_000_000)
        .max_argument_bytes(64 * 1024 * 1024)
        .build()
        .unwrap();
    // The default limits, which refuse these arguments before reading them.
    let defaults =
        catalog.to_builder().max_keys_per_object(10_000).max_argument_bytes(4 * 1024 * 1024).build().unwrap();
    let strict = catalog.to_builder().strict(true).build().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    for n in sizes {
        let top = keys("\"text\":\"a\"", n);
        let flat = keys("", n);
        let python = flat.replace('"', "'");
        let duplicated = format!("{{\"text\":\"a\",{}}}", "\"k\":1,".repeat(n).trim_end_matches(','));
        let nested_struct = format!("{{\"options\":{}}}", keys("\"name\":\"a\"", n));
        let nested_string = format!("{{\"options\":{}}}", serde_json::to_string(&keys("\"name\":\"a\"", n)).unwrap());
        let map = format!("{{\"counts\":{flat}}}");
        let free = format!("{{\"data\":{flat}}}");
        let city = keys("\"city\":\"a\"", n);
        // A long key above many warnings: each warning's pointer holds it.
        let long_key = "x".repeat(100_000);
        let long_path = format!("{{\"{long_key}\":{{{}}}}}", "\"a\":1,".repeat(n / 10).trim_end_matches(','));
        let cases: Vec<(&str, &str, &str, bool)> = vec![
            ("unknown tool, duplicates under a 100 KB key (n/10)", "nope", &long_path, false),
            ("declared, unknown top-level keys", "echo", &top, false),
            ("declared, strict, unknown top-level keys", "echo", &top, true),
            ("declared, duplicate key", "echo", &duplicated, false),
            ("declared, nested struct unknown keys", "configure", &nested_struct, false),
            ("declared, nested struct in JSON text", "configure", &nested_string, false),
            ("declared, strict, nested struct unknown keys", "configure", &nested_struct, true),
            ("declared, map parameter", "tally", &map, false),
            ("declared, free-form parameter", "store", &free, false),
            ("dynamic closed (REST/MCP)", "rest_like", &city, false),
            ("dynamic open", "open_dynamic", &city, false),
            ("unknown tool", "nope", &flat, false),
            ("unknown tool, python literal", "nope", &python, false),
            ("default limits: dynamic closed", "rest_like", &city, false),
            ("default limits: unknown tool", "nope", &flat, false),
        ];
        println!("n = {n} (text {} bytes)", top.len());
        let only = std::env::var("CASE").ok();
        for (name, tool, raw, strict_policy) in cases {
            if only.as_deref().is_some_and(|only| !name.contains(only)) {
                continue;
            }
            let chosen = match (strict_policy, name.starts_with("default limits")) {
                (true, _) => strict.clone(),
                (false, true) => defaults.clone(),
                (false, false) => catalog.clone(),
            };
            let executor = Executor::new(chosen);
            let request = ToolCallRequest::new(tool, "call_1", raw);
            let started = Instant::now();
            let record = runtime.block_on(executor.execute(request));
            let took = started.elapsed();
            println!(
                "  {name:<48} {:>10}  status {:?}, {} warnings, {} errors",
                show(took),
                record.status,
                record.warnings().len(),
                record.request.parse_error.as_ref().map_or(0, |e| e.errors.len())
            );
        }
    }
}

fn show(d: Duration) -> String {
    if d.as_secs_f64() >= 1.0 {
        format!("{:.2} s", d.as_secs_f64())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    }
}
