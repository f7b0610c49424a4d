//! Runs one extraction of `benches/extraction.rs` in a loop, for profilers: instruction counts
//! under callgrind are stable on a loaded machine where criterion's times are not.
//!
//! ```sh
//! cargo build --profile bench -p tool-benches --example extract_loop
//! valgrind --tool=callgrind --toggle-collect='extract_loop::run*' \
//!     target/release/examples/extract_loop 5 clean 10000
//! ```
//!
//! Arguments: the tool (`1`, `2`, `5`, `8` or `40` parameters), the case (`limit`, `clean`, `messy`,
//! `refused`, `rmcp`) and the number of calls. Every call goes through `run`, which is never
//! inlined, so callgrind's inclusive cost of `run` divided by the calls is the cost of one call.
//!
//! A case written `paired:<case>` (e.g. `paired:messy`) times the case against the limit in
//! alternating blocks of 10,000 calls (`BLOCK=<calls>` to change) and prints the statistics
//! of the per-pair ratios, as the benchmark's paired functions record them.

use std::hint::black_box;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tool_core::prelude::*;

#[path = "../benches/extraction/tools.rs"]
mod tools;

#[path = "../benches/extraction/paired.rs"]
mod paired_stats;

use paired_stats::{alternate, paired_stats};

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

/// `calls` calls of `case` and of the limit, in alternating blocks (see [`alternate`]);
/// prints the statistics of the per-pair ratios (see [`paired_stats`]).
fn paired<T: DeclaredTool, L: DeserializeOwned>(case: &str, calls: u64, clean: &str, messy: &str) {
    let block: u64 = std::env::var("BLOCK").ok().and_then(|b| b.parse().ok()).unwrap_or(10_000);
    let (pairs, _) = alternate(calls, block, || run::<T, L>("limit", clean, messy), || run::<T, L>(case, clean, messy));
    println!("{case} / limit: {}", paired_stats(&pairs));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [tool, case, calls] = args.as_slice() else {
        panic!("usage: extract_loop <1|2|5|8|40> <limit|clean|messy|refused|rmcp> <calls>");
    };
    let calls: u64 = calls.parse().expect("the number of calls");
    match tool.as_str() {
        "1" => repeat::<get_issue, GetIssueArgs>(case, calls, GET_ISSUE_CLEAN, GET_ISSUE_MESSY),
        "2" => repeat::<read_file, ReadFileArgs>(case, calls, READ_FILE_CLEAN, READ_FILE_MESSY),
        "5" => repeat::<search_notes, SearchNotesArgs>(case, calls, SEARCH_NOTES_CLEAN, SEARCH_NOTES_MESSY),
        "8" => repeat::<create_shipment, CreateShipmentArgs>(case, calls, CREATE_SHIPMENT_CLEAN, CREATE_SHIPMENT_MESSY),
        "40" => {
            repeat::<search_listings, SearchListingsArgs>(case, calls, SEARCH_LISTINGS_CLEAN, SEARCH_LISTINGS_MESSY)
        }
        other => panic!("unknown tool `{other}`: 1, 2, 5, 8 or 40 parameters"),
    }
}
