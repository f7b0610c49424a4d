//! Numbers are reported as they were sent: the digits of an integer too large for its type, a
//! literal no 64-bit float holds as one field's problem (the other fields are still read), and
//! the range of an integer whose text is out of it, at every depth.

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::prelude::*;
use tool_core::{ArgumentError, ExtractionPolicy};

/// A point.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Point {
    x: f64,
    y: u8,
}

/// Record a reading.
#[tool]
fn record(count: u64, ratio: f64, label: String, level: u8, points: Vec<Point>) -> String {
    format!("{count} {ratio} {label} {level} {points:?}")
}

/// (pointer, rule, expected, received) of each error.
fn errors(raw: &str, policy: ExtractionPolicy) -> Vec<(String, String, String, Option<String>)> {
    let e = <record as DeclaredTool>::extract_with(raw, policy);
    let errors: Vec<ArgumentError> = e.value.unwrap_err().errors.into_iter().collect();
    errors.into_iter().map(|e| (e.pointer, e.rule, e.expected, e.received)).collect()
}

fn error(pointer: &str, rule: &str, expected: &str, received: &str) -> (String, String, String, Option<String>) {
    (pointer.into(), rule.into(), expected.into(), Some(received.into()))
}

#[test]
fn an_integer_too_large_for_its_type_is_echoed_as_sent_with_the_range() {
    let raw = r#"{"count": 18446744073709551616, "ratio": 1, "label": "a", "level": 1, "points": []}"#;
    assert_eq!(
        errors(raw, ExtractionPolicy::LENIENT),
        vec![error("/count", "invalid_type", "an integer from 0 to 18446744073709551615", "18446744073709551616")]
    );
}

#[test]
fn a_number_no_float_holds_is_one_fields_problem_and_the_others_are_read() {
    let raw = r#"{"count": 1, "ratio": 1e400, "label": "a", "level": 1, "points": [{"x": -1e999, "y": 2}]}"#;
    let e = <record as DeclaredTool>::extract(raw);
    let warned: Vec<(&str, &str)> = e.warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
    assert_eq!(warned, vec![("/ratio", "number_out_of_range"), ("/points/0/x", "number_out_of_range")]);
    assert_eq!(e.warnings[0].received(), "1e400");
    assert_eq!(e.warnings[0].action(), "kept as the text \"1e400\" for the declared type to read");
    let refused = e.value.unwrap_err();
    assert_eq!(
        refused.model_message("record"),
        "The arguments for `record` were not accepted:\n\
         - `ratio`: expected a number within ±1.7976931348623157e308; got 1e400.\n\
         - `points[0].x`: expected a number within ±1.7976931348623157e308; got -1e999.\n\
         Send the corrected arguments to `record` again."
    );
    // The strict policy refuses the field, not the whole text.
    assert_eq!(
        errors(raw, ExtractionPolicy::STRICT),
        vec![
            error("/ratio", "invalid_type", "a number within ±1.7976931348623157e308", "1e400"),
            error("/points/0/x", "invalid_type", "a number within ±1.7976931348623157e308", "-1e999"),
        ]
    );
}

#[test]
fn a_number_no_float_holds_sent_for_a_string_is_kept_as_its_text_with_a_warning() {
    let raw = r#"{"count": 1, "ratio": 2.5, "label": 1e400, "level": 1, "points": []}"#;
    let e = <record as DeclaredTool>::extract(raw);
    let warned: Vec<(&str, &str)> = e.warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
    assert_eq!(warned, vec![("/label", "number_out_of_range")]);
    assert_eq!(e.value.unwrap(), (1, 2.5, "1e400".to_owned(), 1, vec![]));
}

#[test]
fn integer_text_out_of_range_says_the_range_at_every_depth() {
    let raw = r#"{"count": 1, "ratio": 1, "label": "a", "level": "1e30", "points": [{"x": 0, "y": "300"}]}"#;
    assert_eq!(
        errors(raw, ExtractionPolicy::LENIENT),
        vec![
            error("/level", "invalid_type", "an integer from 0 to 255", "\"1e30\""),
            error("/points/0/y", "invalid_value", "an integer from 0 to 255", "300"),
        ]
    );
}
