//! Runs one extraction of `benches/extraction.rs` in a loop, for profilers: instruction counts
//! under callgrind are stable on a loaded machine where criterion's times are not.
//!
//! ```sh
//! cargo build --profile bench -p tool-benches --example extract_loop
//! valgrind --tool=callgrind --toggle-collect='extract_loop::run*' \
//!     target/release/examples/extract_loop 5 clean 10000
//! ```
//!
//! Arguments: the tool (`1`, `2`, `5` or `8` parameters), the case (`limit`, `clean`, `messy`,
//! `refused`, `rmcp`) and the number of calls.
//!
//! A case written `paired:<case>` (e.g. `paired:messy`) times the case against the limit in
//! alternating blocks of 1000 calls and prints the median of the per-block-pair ratios: a
//! comparison that a noisy host cannot tilt, for telling two builds apart. Every call goes through `run`, which is never inlined, so
//! callgrind's inclusive cost of `run` divided by the calls is the cost of one call.

use std::hint::black_box;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tool_core::prelude::*;

#[path = "../benches/extraction/tools.rs"]
mod tools;

use tools::*;

#[inline(never)]
fn run<T: DeclaredTool, L: DeserializeOwned>(case: &str, clean: &str, messy: &str) -> bool {
    match case {
        "limit" => serde_json::from_str::<L>(black_box(clean)).is_ok(),
        "clean" => T::extract(black_box(clean)).value.is_ok(),
        "messy" => T::extract(black_box(messy)).value.is_ok(),
        // What the strict read costs when it refuses the messy text (a floor for any retry).
        "refused" => serde_json::from_str::<L>(black_box(messy)).is_err(),
        "rmcp" => serde_json::from_str::<Map<String, Value>>(black_box(clean))
            .and_then(|map| serde_json::from_value::<L>(Value::Object(map)))
            .is_ok(),
        other => panic!("unknown case `{other}`: limit, clean, messy, refused or rmcp"),
    }
}

fn repeat<T: DeclaredTool, L: DeserializeOwned>(case: &str, calls: u64, clean: &str, messy: &str) {
    let _ = T::definition(); // built once, before the loop
    if let Some(case) = case.strip_prefix("paired:") {
        return paired::<T, L>(case, calls, clean, messy);
    }
    for _ in 0..calls {
        assert!(run::<T, L>(case, clean, messy));
    }
}

/// `calls` calls of `case` and of the limit, in alternating blocks (the order swapped each
/// time); prints the median, quartiles and total of the per-pair ratios.
fn paired<T: DeclaredTool, L: DeserializeOwned>(case: &str, calls: u64, clean: &str, messy: &str) {
    let block_calls: u64 = std::env::var("BLOCK").ok().and_then(|b| b.parse().ok()).unwrap_or(10_000);
    let block = |case: &str| {
        let start = std::time::Instant::now();
        for _ in 0..block_calls {
            assert!(run::<T, L>(case, clean, messy));
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios = Vec::new();
    let (mut limit_total, mut case_total) = (0.0, 0.0);
    for i in 0..calls.div_ceil(block_calls) {
        let (limit, way) = if i % 2 == 0 {
            let limit = block("limit");
            (limit, block(case))
        } else {
            let way = block(case);
            (block("limit"), way)
        };
        limit_total += limit;
        case_total += way;
        ratios.push(way / limit);
    }
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    println!(
        "{case} / limit: median {:.3} [{:.3}-{:.3}], of totals {:.3}; limit {:.1} ns per call",
        at(0.5),
        at(0.25),
        at(0.75),
        case_total / limit_total,
        limit_total * 1e9 / (ratios.len() as f64 * block_calls as f64)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [tool, case, calls] = args.as_slice() else {
        panic!("usage: extract_loop <1|2|5|8> <limit|clean|messy|refused|rmcp> <calls>");
    };
    let calls: u64 = calls.parse().expect("the number of calls");
    match tool.as_str() {
        "1" => repeat::<get_issue, GetIssueArgs>(case, calls, GET_ISSUE_CLEAN, GET_ISSUE_MESSY),
        "2" => repeat::<read_file, ReadFileArgs>(case, calls, READ_FILE_CLEAN, READ_FILE_MESSY),
        "5" => repeat::<search_notes, SearchNotesArgs>(case, calls, SEARCH_NOTES_CLEAN, SEARCH_NOTES_MESSY),
        "8" => repeat::<create_shipment, CreateShipmentArgs>(case, calls, CREATE_SHIPMENT_CLEAN, CREATE_SHIPMENT_MESSY),
        other => panic!("unknown tool `{other}`: 1, 2, 5 or 8 parameters"),
    }
}
