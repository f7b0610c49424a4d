//! Arbitrary bytes (read as lossy UTF-8) as the raw arguments of four tools: extraction (and
//! through it the repair of the raw text and the conversion by declared type) must never
//! panic, must keep the raw text, must say why when it refuses, and every value it accepts
//! must read back exactly, without warnings, from the JSON that value serialises to. The object
//! scan must agree with the single pass it shortcuts, in values, warnings and errors.

#![no_main]

use std::collections::BTreeMap;
use std::fmt::Debug;

use libfuzzer_sys::fuzz_target;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::prelude::*;

/// How to rank results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Relevance,
    Newest,
    MostViewed,
}

/// A point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// An address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Address {
    street: String,
    zip: u32,
    geo: Option<Point>,
}

/// An order line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Item {
    sku: String,
    qty: u32,
    tags: Vec<String>,
    mode: Option<Mode>,
}

/// Search documents.
#[tool]
fn search(query: String, limit: Option<u32>, tags: Vec<String>, mode: Mode) -> String {
    format!("{query} {limit:?} {tags:?} {mode:?}")
}

/// Place an order.
#[tool]
fn place_order(items: Vec<Item>, address: Address, express: bool, offset: i64) -> String {
    format!("{items:?} {address:?} {express} {offset}")
}

/// Compute statistics.
#[tool]
fn stats(
    values: BTreeMap<String, f64>,
    offsets: Vec<i64>,
    scale: Option<f64>,
    filters: Option<BTreeMap<String, Vec<u32>>>,
) -> String {
    format!("{values:?} {offsets:?} {scale:?} {filters:?}")
}

/// Change settings; every parameter is optional.
#[tool]
fn settings(verbose: Option<bool>, level: Option<u8>, name: Option<String>, origin: Option<Point>) -> String {
    format!("{verbose:?} {level:?} {name:?} {origin:?}")
}

fuzz_target!(|data: &[u8]| {
    let raw = String::from_utf8_lossy(data);
    check::<search>(&raw);
    check::<place_order>(&raw);
    check::<stats>(&raw);
    check::<settings>(&raw);
});

/// The length at which extraction cuts a received value in its messages.
const RECEIVED_MAX_CHARS: usize = 120;

fn check<T: DeclaredTool>(raw: &str)
where
    T::Args: Serialize + PartialEq + Debug,
{
    let extraction = T::extract(raw);
    assert!(std::ptr::eq(extraction.raw, raw), "the raw text is kept as it is");
    // The object scan is only ever a faster way to the single pass's result.
    let reference = tool_core::__private::extract_by_single_pass::<T>(raw);
    assert_eq!(extraction.value, reference.value, "object scan vs single pass: {raw:?}");
    assert_eq!(extraction.warnings, reference.warnings, "object scan vs single pass: {raw:?}");
    assert_eq!(extraction.arguments, reference.arguments, "object scan vs single pass: {raw:?}");
    for warning in &extraction.warnings {
        assert!(!warning.rule().is_empty());
        let _ = warning.to_string();
    }
    let _ = tool_core::ParseWarning::joined(&extraction.warnings);
    if let Some(arguments) = &extraction.arguments {
        assert!(arguments.is_object(), "the arguments kept are an object: {arguments}");
    }
    // What the single pass settles, the tree path settles the same way (it is only ever a
    // faster way to the tree's result): the same value and the same warnings, keys at every
    // depth included.
    if extraction.value.is_ok() && extraction.arguments.is_none() {
        let tree = tool_core::__private::extract_by_tree::<T>(raw);
        assert_eq!(extraction.value, tree.value, "single pass vs tree path: {raw:?}");
        assert_eq!(extraction.warnings, tree.warnings, "single pass vs tree path: {raw:?}");
    }
    match &extraction.value {
        Ok(args) => round_trip::<T>(raw, args),
        Err(errors) => {
            assert!(!errors.errors.is_empty(), "a refusal says why");
            for error in &errors.errors {
                assert!(!error.rule.is_empty());
                let _ = error.field();
                // Errors about the text as a whole keep it (cut when long).
                if matches!(error.rule.as_str(), "invalid_json" | "truncated_json" | "multiple_objects") {
                    let received = error.received.as_deref().expect("the raw text is kept in the error");
                    assert!(keeps(received, raw), "error {error:?} does not keep the raw text {raw:?}");
                }
            }
            let _ = errors.model_message(&T::definition().name);
        }
    }
}

/// `received` is `raw`, or its first characters when it is long.
fn keeps(received: &str, raw: &str) -> bool {
    if raw.chars().count() <= RECEIVED_MAX_CHARS {
        received == raw
    } else {
        let prefix: String = raw.chars().take(RECEIVED_MAX_CHARS).collect();
        received.starts_with(&prefix)
    }
}

/// An accepted value, serialised as its arguments object, reads back exactly and cleanly.
fn round_trip<T: DeclaredTool>(raw: &str, args: &T::Args)
where
    T::Args: Serialize + PartialEq + Debug,
{
    let Ok(Value::Array(values)) = serde_json::to_value(args) else {
        panic!("an argument tuple serialises as an array")
    };
    let names = T::definition().parameters.iter().map(|p| p.name.clone());
    let clean = serde_json::to_string(&Value::Object(names.zip(values).collect())).expect("arguments serialise");
    let again = T::extract(&clean);
    assert_eq!(again.value.as_ref(), Ok(args), "accepted from {raw:?}, not read back from {clean}");
    assert!(again.warnings.is_empty(), "warnings reading back {clean} (accepted from {raw:?}): {:?}", again.warnings);
}
