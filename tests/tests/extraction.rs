//! The extraction API: typed values, structured warnings and errors, and the raw text, for
//! every call. (Strict, plain serde reading; tolerance comes on top of this API.)

use serde_json::json;
use tool_core::prelude::*;

/// Book a table.
#[tool]
fn book(
    /// Guest name.
    name: String,
    /// Party size.
    #[param(default = 2)]
    seats: u8,
    /// Notes for the kitchen.
    notes: Option<String>,
    /// Tags.
    #[param(default)]
    tags: Vec<String>,
) -> String {
    format!("{name} {seats} {notes:?} {tags:?}")
}

#[test]
fn clean_arguments_give_the_typed_values_and_no_warnings() {
    let raw = r#"{"name": "Ada", "seats": 4, "notes": "window", "tags": ["vip"]}"#;
    let extraction = <book as DeclaredTool>::extract(raw);
    assert_eq!(extraction.raw, raw);
    assert_eq!(extraction.value.unwrap(), ("Ada".to_owned(), 4, Some("window".to_owned()), vec!["vip".to_owned()]));
    assert!(extraction.warnings.is_empty());
    assert_eq!(extraction.arguments, None, "the raw text was read as it is");
}

#[test]
fn absent_parameters_take_their_defaults_or_none() {
    let extraction = <book as DeclaredTool>::extract(r#"{"name": "Ada", "notes": null}"#);
    assert_eq!(extraction.value.unwrap(), ("Ada".to_owned(), 2, None, Vec::new()));
}

#[test]
fn unknown_keys_are_dropped_with_a_warning_naming_the_closest_parameter() {
    let extraction = <book as DeclaredTool>::extract(r#"{"name": "Ada", "seat": 3}"#);
    assert_eq!(extraction.value.as_ref().unwrap().1, 2);
    let warning = &extraction.warnings[0];
    assert_eq!(
        (warning.pointer(), warning.rule(), warning.received(), warning.action()),
        ("/seat", "unknown_parameter", "seat", "ignored; did you mean `seats`?")
    );
    assert_eq!(warning.expected(), "one of the declared parameters: name, seats, notes, tags");
    assert_eq!(
        tool_core::ParseWarning::joined(&extraction.warnings).as_deref(),
        Some("unknown_parameter at `seat`: ignored; did you mean `seats`?")
    );
}

#[test]
fn a_megabyte_key_is_dropped_naming_only_a_parameter_it_starts_with_and_received_cut() {
    let key = format!("seats{}", "s".repeat(1 << 20));
    let raw = format!(r#"{{"name": "Ada", "{key}": 3}}"#);
    let extraction = <book as DeclaredTool>::extract(&raw);
    assert_eq!(extraction.value.unwrap().1, 2);
    let warning = &extraction.warnings[0];
    assert_eq!(
        (warning.rule(), warning.received(), warning.action()),
        (
            "unknown_parameter",
            format!("seats{}… (1048581 chars)", "s".repeat(115)).as_str(),
            "ignored; did you mean `seats`?"
        )
    );
    assert_eq!(warning.pointer(), format!("/{key}"));
}

#[test]
fn every_bad_field_is_reported_with_pointer_rule_expectation_and_received_value() {
    let extraction = <book as DeclaredTool>::extract(r#"{"seats": 300, "tags": ["vip", {"x": 2}]}"#);
    let errors = extraction.value.unwrap_err();
    let summary: Vec<(String, String, String, Option<String>)> = errors
        .errors
        .iter()
        .map(|e| (e.pointer.clone(), e.rule.clone(), e.expected.clone(), e.received.clone()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("/name".into(), "missing_required".into(), "a string".into(), None),
            // Out of range for the `u8`: the range is said, so the retry can fit it.
            ("/seats".into(), "invalid_value".into(), "an integer from 0 to 255".into(), Some("300".into())),
            ("/tags/1".into(), "invalid_type".into(), "a string".into(), Some(r#"{"x":2}"#.into())),
        ]
    );
    assert_eq!(extraction.arguments, Some(json!({"seats": 300, "tags": ["vip", {"x": 2}]})));
    assert_eq!(
        errors.structured(),
        json!([
            {"type": "missing_required", "loc": ["name"], "msg": "expected a string", "input": null, "detail": "missing field `name`"},
            {"type": "invalid_value", "loc": ["seats"], "msg": "expected an integer from 0 to 255", "input": "300", "detail": "invalid value: integer `300`, expected u8"},
            {"type": "invalid_type", "loc": ["tags", 1], "msg": "expected a string", "input": "{\"x\":2}", "detail": "invalid type: map, expected a string"}
        ])
    );
    assert_eq!(
        errors.model_message("book"),
        "The arguments for `book` were not accepted:\n- `name`: required, expected a string; it was missing.\n- `seats`: expected an integer from 0 to 255; got 300.\n- `tags[1]`: expected a string; got {\"x\":2}.\nSend the corrected arguments to `book` again."
    );
}

#[test]
fn a_key_given_twice_keeps_the_last_value_with_a_warning() {
    let extraction = <book as DeclaredTool>::extract(r#"{"name": "Ada", "name": "Bob"}"#);
    assert_eq!(extraction.value.unwrap().0, "Bob");
    let warning = &extraction.warnings[0];
    assert_eq!(
        (warning.pointer(), warning.rule(), warning.received(), warning.action()),
        ("/name", "duplicate_parameter", "`name` more than once", "kept the last value")
    );
}

#[test]
fn arguments_that_are_not_an_object_are_refused() {
    for (raw, rule, received) in [("[1,2,3]", "not_an_object", "[1,2,3]"), ("null", "not_an_object", "null")] {
        let extraction = <book as DeclaredTool>::extract(raw);
        assert!(extraction.warnings.is_empty(), "{raw}");
        assert_eq!(extraction.arguments, None, "{raw}");
        let errors = extraction.value.unwrap_err();
        assert_eq!(errors.errors.len(), 1, "{raw}");
        assert_eq!(
            (errors.errors[0].pointer.as_str(), errors.errors[0].rule.as_str(), errors.errors[0].received.as_deref()),
            ("", rule, Some(received)),
            "{raw}"
        );
    }
}

#[test]
fn empty_arguments_are_an_empty_object_and_the_required_parameters_are_missing() {
    let extraction = <book as DeclaredTool>::extract("");
    assert_eq!(
        extraction.warnings,
        vec![tool_core::ParseWarning::new("", "empty_arguments", "a JSON object", "", "read as an empty object `{}`")]
    );
    assert_eq!(extraction.arguments, Some(json!({})));
    let errors = extraction.value.unwrap_err();
    let summary: Vec<(&str, &str, Option<&str>)> =
        errors.errors.iter().map(|e| (e.pointer.as_str(), e.rule.as_str(), e.received.as_deref())).collect();
    assert_eq!(summary, vec![("/name", "missing_required", None)]);
}

#[test]
fn long_received_values_are_cut_in_errors() {
    let long = "x".repeat(500);
    let errors =
        <book as DeclaredTool>::extract(&format!(r#"{{"name": "Ada", "seats": "{long}"}}"#)).value.unwrap_err();
    let received = errors.errors[0].received.clone().unwrap();
    assert!(received.ends_with("… (502 chars)"), "{received}");
    assert_eq!(received.chars().count(), 120 + "… (502 chars)".chars().count());
}

#[test]
fn a_warning_reads_its_five_parts_and_serialises_as_an_object_of_them() {
    let extraction = <book as DeclaredTool>::extract(r#"{"name": "Ada", "seats": "4"}"#);
    let warning = &extraction.warnings[0];
    assert_eq!(
        (warning.pointer(), warning.rule(), warning.expected(), warning.received(), warning.action()),
        ("/seats", "string_to_integer", "an integer", "\"4\"", "converted to 4")
    );
    assert_eq!(
        serde_json::to_value(warning).unwrap(),
        json!({
            "pointer": "/seats",
            "rule": "string_to_integer",
            "expected": "an integer",
            "received": "\"4\"",
            "action": "converted to 4",
        })
    );
    assert_eq!(warning.to_string(), "string_to_integer at `seats`: converted to 4");
    // Built by hand, the same parts read back, empty ones included.
    let by_hand = tool_core::ParseWarning::new("/seats", "string_to_integer", "an integer", "\"4\"", "converted to 4");
    assert_eq!(&by_hand, warning);
    let empty =
        tool_core::ParseWarning::new("", "empty_arguments", "a JSON object", "", "read as an empty object `{}`");
    assert_eq!((empty.pointer(), empty.received(), empty.action()), ("", "", "read as an empty object `{}`"));
}

/// Draw a line.
#[tool]
fn draw_line(
    /// From x, y.
    from: (i32, i32),
    /// Through these points, three of them.
    through: [u8; 3],
) -> String {
    format!("{from:?} {through:?}")
}

#[tokio::test]
async fn a_tuple_or_array_of_the_wrong_length_says_what_length_it_wants() {
    let catalog = ToolCatalog::builder().add_declared::<draw_line>().build().unwrap();
    let record = Executor::new(catalog)
        .execute(ToolCallRequest::new("draw_line", "c", r#"{"from": [1], "through": [1, 2, 3, 4]}"#))
        .await;
    assert_eq!(
        record.content.text,
        "The arguments for `draw_line` were not accepted:\n- `from`: expected a tuple of size 2; got [1].\n\
         - `through`: expected fewer elements in array; got [1,2,3,4].\nSend the corrected arguments to `draw_line` again."
    );
}
