//! Typed argument extraction against the physical limit: plain `serde_json::from_str` into a
//! `#[derive(Deserialize)]` struct with the same fields, for tools of 1, 2, 5, 8 and 40 parameters.
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
//! Then three **paired** functions (`paired: extract clean`, `paired: extract messy`,
//! `paired: rmcp way`) measure the ratio to the limit where the host's noise cannot bias it.
//! On a shared machine a slow spell of a few seconds can fall on one function's measurement
//! and not on another's, which moved single-run ratios by ±10%. A paired function runs the
//! limit and the measured way in alternating blocks of [`BLOCK`] calls inside every sample
//! (the order swapped from block to block), so both see the same spell; criterion records the
//! measured way's time, and the ratios of the block pairs go to
//! `target/criterion/paired/<group>.json` (median, quartiles, and the median over the pairs
//! whose limit ran near its floor: see `extraction/paired.rs`).
//!
//! Run: `cargo bench -p tool-benches --bench extraction -- --warm-up-time 1 --measurement-time 3`
//! then `python3 benches/criterion_table.py --extraction` for the tables.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tool_core::prelude::*;

#[path = "extraction/tools.rs"]
mod tools;

#[path = "extraction/paired.rs"]
mod paired_stats;

use paired_stats::{alternate, paired_stats, Pair};

use tools::*;

/// Checks the inputs take the paths they are meant to, then measures one tool.
fn measure<T, L>(c: &mut Criterion, group: &str, clean: &'static str, messy: &'static str, conversions: usize)
where
    T: DeclaredTool,
    L: DeserializeOwned,
{
    // Built once, on first use; not part of any measurement.
    let _ = T::definition();
    let fast = T::extract(clean);
    assert!(fast.warnings.is_empty() && fast.arguments.is_none(), "{group}: the clean text is read as it is");
    let slow = T::extract(messy);
    assert_eq!(slow.warnings.len(), conversions, "{group}: {:?}", slow.warnings);
    assert!(slow.arguments.is_none(), "{group}: the messy text is converted in the single pass, without a tree");
    assert!(fast.value.is_ok() && slow.value.is_ok(), "{group}: both read");
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
    let limit = || serde_json::from_str::<L>(black_box(clean)).is_ok();
    let ratios = [
        paired_function(&mut g, "extract clean", limit, || T::extract(black_box(clean)).value.is_ok()),
        paired_function(&mut g, "extract messy", limit, || T::extract(black_box(messy)).value.is_ok()),
        paired_function(&mut g, "rmcp way", limit, || {
            serde_json::from_str::<Map<String, Value>>(black_box(clean))
                .and_then(|map| serde_json::from_value::<L>(Value::Object(map)))
                .is_ok()
        }),
    ];
    g.finish();
    write_paired(group, &ratios);
}

/// Calls per block of a paired sample (about half a millisecond for one parameter): short
/// enough that both sides of a pair run within the same spell of the host; long enough that
/// reading the clock is negligible and that re-warming the branch predictors after the other
/// side's block does not count. Blocks of 1000 calls read 1-point-something percent higher
/// ratios than blocks of 10,000 on the same build (`BLOCK=1000` with `extract_loop paired:`).
const BLOCK: u64 = 10_000;

/// The paired function `paired: <name>`: the block pairs of each of its samples (see
/// [`alternate`]); criterion records the time of `way`.
fn paired_function<M, L, W>(
    g: &mut criterion::BenchmarkGroup<'_, M>,
    name: &'static str,
    limit: L,
    way: W,
) -> (&'static str, Vec<Vec<Pair>>)
where
    M: criterion::measurement::Measurement<Value = Duration>,
    L: Fn() -> bool,
    W: Fn() -> bool,
{
    let mut samples = Vec::new();
    g.bench_function(format!("paired: {name}"), |b| {
        b.iter_custom(|iters| {
            let (pairs, way_total) = alternate(iters, BLOCK, &limit, &way);
            samples.push(pairs);
            way_total
        })
    });
    (name, samples)
}

/// Writes the paired statistics of one group (see [`paired_stats`]) over the block pairs of
/// the measured samples; criterion's warm-up calls come first and are left out.
fn write_paired(group: &str, ways: &[(&str, Vec<Vec<Pair>>)]) {
    const SAMPLES: usize = 100; // criterion's default sample size, which `measure` keeps
    let mut entries = Vec::new();
    for (name, samples) in ways {
        // Too few samples: a `--test` or filtered run; nothing to report.
        let Some(warm_up) = samples.len().checked_sub(SAMPLES) else { return };
        let pairs: Vec<Pair> = samples[warm_up..].iter().flatten().copied().collect();
        entries.push(format!("{name:?}: {}", paired_stats(&pairs)));
    }
    let directory = criterion_directory().join("paired");
    let written = std::fs::create_dir_all(&directory).and_then(|()| {
        std::fs::write(directory.join(format!("{group}.json")), format!("{{{}}}\n", entries.join(", ")))
    });
    if let Err(error) = written {
        eprintln!("paired ratios of `{group}` not written: {error}");
    }
}

/// Where criterion writes its results: `$CRITERION_HOME`, else `criterion` in the target
/// directory this benchmark was built in (`target/release/deps/extraction-*` → `target`).
fn criterion_directory() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let exe = std::env::current_exe().unwrap_or_default();
    exe.ancestors().nth(3).map_or_else(|| PathBuf::from("target"), PathBuf::from).join("criterion")
}

/// The clean and the messy text of a tool give the same values (tuples of more than 12 elements
/// cannot be compared, so the 40-parameter tool is left to `tests/tests/wide.rs`).
fn same_values<T: DeclaredTool>(group: &str, clean: &str, messy: &str)
where
    T::Args: PartialEq + std::fmt::Debug,
{
    assert_eq!(T::extract(clean).value.unwrap(), T::extract(messy).value.unwrap(), "{group}: same values either way");
}

fn extraction(c: &mut Criterion) {
    same_values::<get_issue>("1 param", GET_ISSUE_CLEAN, GET_ISSUE_MESSY);
    same_values::<read_file>("2 params", READ_FILE_CLEAN, READ_FILE_MESSY);
    same_values::<search_notes>("5 params", SEARCH_NOTES_CLEAN, SEARCH_NOTES_MESSY);
    same_values::<create_shipment>("8 params", CREATE_SHIPMENT_CLEAN, CREATE_SHIPMENT_MESSY);
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
    measure::<search_listings, SearchListingsArgs>(
        c,
        "extract 40 params",
        SEARCH_LISTINGS_CLEAN,
        SEARCH_LISTINGS_MESSY,
        3,
    );
}

criterion_group!(benches, extraction);
criterion_main!(benches);
