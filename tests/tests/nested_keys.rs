//! Keys inside parameters get the care top-level keys get: at every depth (struct fields, list
//! elements, map values, options, enum variant content, JSON text decoded inside a string), a
//! key the type does not declare is dropped with `unknown_parameter` at its pointer, a key that
//! names a field but for case and separators is read as that field, and a missing required
//! field is `missing_required` at the field's own pointer. Types that take any key keep them.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::{Extraction, ExtractionPolicy};

/// (pointer, rule) of each warning.
fn warnings<T>(extraction: &Extraction<'_, T>) -> Vec<(String, String)> {
    extraction.warnings.iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect()
}

fn at(pointer: &str, rule: &str) -> (String, String) {
    (pointer.to_owned(), rule.to_owned())
}

/// Extracts `raw` on the single pass (with and without the object scan) and on the tree path,
/// checks that all three agree in warnings and errors, and returns the extraction.
fn all_paths<T: DeclaredTool>(raw: &str) -> Extraction<'_, T::Args>
where
    T::Args: std::fmt::Debug + PartialEq,
{
    let extraction = T::extract(raw);
    let tree = tool_core::__private::extract_by_tree::<T>(raw);
    let single = tool_core::__private::extract_by_single_pass::<T>(raw);
    assert_eq!(extraction.warnings, tree.warnings, "single pass vs tree path: {raw}");
    assert_eq!(extraction.warnings, single.warnings, "object scan vs single pass: {raw}");
    assert_eq!(extraction.value, tree.value, "values: {raw}");
    assert_eq!(extraction.value, single.value, "values: {raw}");
    extraction
}

/// One line of an order.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Item {
    /// How many.
    qty: u32,
    /// The product code.
    #[serde(default)]
    sku: Option<String>,
}

/// Free parameters of a request.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Data {
    param1: String,
    #[serde(rename = "maxBytes", default)]
    max_bytes: Option<u64>,
}

/// Place an order.
#[tool]
fn place_order(items: Vec<Item>, data: Option<Data>) -> String {
    format!("{items:?} {data:?}")
}

#[test]
fn a_key_a_nested_struct_does_not_declare_is_dropped_with_a_warning_at_its_pointer() {
    let raw = r#"{"items": [{"qty": 1, "colour": "red"}], "data": {"param1": "x", "name": "John"}}"#;
    let e = all_paths::<place_order>(raw);
    assert_eq!(warnings(&e), vec![at("/items/0/colour", "unknown_parameter"), at("/data/name", "unknown_parameter")]);
    assert_eq!(e.warnings[0].expected(), "one of the declared fields: qty, sku");
    assert_eq!(e.warnings[0].received(), "colour");
    assert_eq!(e.warnings[0].action(), "ignored");
    assert_eq!(e.warnings[1].expected(), "one of the declared fields: param1, maxBytes");
    assert_eq!(
        e.value.unwrap(),
        (vec![Item { qty: 1, sku: None }], Some(Data { param1: "x".into(), max_bytes: None }))
    );
}

#[test]
fn an_unknown_nested_key_names_the_closest_declared_field() {
    let e = all_paths::<place_order>(r#"{"items": [{"qty": 2, "skus": "A-1"}]}"#);
    assert_eq!(warnings(&e), vec![at("/items/0/skus", "unknown_parameter")]);
    assert_eq!(e.warnings[0].action(), "ignored; did you mean `sku`?");
    assert_eq!(e.value.unwrap(), (vec![Item { qty: 2, sku: None }], None));
}

#[test]
fn a_nested_key_in_another_case_or_with_other_separators_is_read_as_the_field() {
    let e = all_paths::<place_order>(r#"{"items": [{"Qty": 1}]}"#);
    assert_eq!(warnings(&e), vec![at("/items/0/Qty", "parameter_name_normalized")]);
    assert_eq!(e.warnings[0].expected(), "the declared name `qty`");
    assert_eq!(e.warnings[0].action(), "read as `qty`");
    assert_eq!(e.value.unwrap(), (vec![Item { qty: 1, sku: None }], None));

    let e = all_paths::<place_order>(r#"{"items": [], "data": {"param1": "p", "max-bytes": 7}}"#);
    assert_eq!(warnings(&e), vec![at("/data/max-bytes", "parameter_name_normalized")]);
    assert_eq!(e.value.unwrap(), (vec![], Some(Data { param1: "p".into(), max_bytes: Some(7) })));

    let e = all_paths::<place_order>(r#"{"items": [], "data": {"PARAM_1": "p", "MaxBytes": "7"}}"#);
    assert_eq!(
        warnings(&e),
        vec![
            at("/data/PARAM_1", "parameter_name_normalized"),
            at("/data/MaxBytes", "parameter_name_normalized"),
            at("/data/maxBytes", "string_to_integer"),
        ]
    );
    assert_eq!(e.value.unwrap(), (vec![], Some(Data { param1: "p".into(), max_bytes: Some(7) })));
}

#[test]
fn a_field_that_also_arrived_under_its_own_name_is_not_renamed_and_the_other_key_is_unknown() {
    let e = all_paths::<place_order>(r#"{"items": [{"qty": 1, "QTY": 2}]}"#);
    assert_eq!(warnings(&e), vec![at("/items/0/QTY", "unknown_parameter")]);
    assert_eq!(e.warnings[0].action(), "ignored; did you mean `qty`?");
    assert_eq!(e.value.unwrap(), (vec![Item { qty: 1, sku: None }], None));
}

#[test]
fn a_missing_nested_field_is_missing_required_at_the_fields_pointer() {
    let e = <place_order as DeclaredTool>::extract(r#"{"items": [{"qty": 1}, {"sku": "B"}]}"#);
    let refused = e.value.unwrap_err();
    assert_eq!(
        refused.model_message("place_order"),
        "The arguments for `place_order` were not accepted:\n- `items[1].qty`: required, expected an integer; it was missing.\nSend the corrected arguments to `place_order` again."
    );
    let errors = refused.errors;
    assert_eq!(errors.len(), 1);
    let error = &errors[0];
    assert_eq!(
        (error.pointer.as_str(), error.rule.as_str(), error.expected.as_str(), error.received.as_deref()),
        ("/items/1/qty", "missing_required", "an integer", None)
    );
    assert_eq!(error.detail, "missing field `qty`");
    // A key that names nothing and the missing field it may have meant: both said.
    let e = <place_order as DeclaredTool>::extract(r#"{"items": [{"quantity": 1}]}"#);
    assert_eq!(warnings(&e), vec![at("/items/0/quantity", "unknown_parameter")]);
    let errors = e.value.unwrap_err().errors;
    assert_eq!((errors[0].pointer.as_str(), errors[0].rule.as_str()), ("/items/0/qty", "missing_required"));
}

/// Stock, by shelf name.
#[tool]
fn restock(shelves: HashMap<String, Item>) -> String {
    format!("{}", shelves.len())
}

#[test]
fn keys_inside_map_values_are_checked_and_the_maps_own_keys_are_data() {
    let e = all_paths::<restock>(r#"{"shelves": {"top": {"qty": 1, "Sku": "A"}, "low": {"qty": 2, "note": "x"}}}"#);
    assert_eq!(
        warnings(&e),
        vec![at("/shelves/top/Sku", "parameter_name_normalized"), at("/shelves/low/note", "unknown_parameter")]
    );
    let shelves = e.value.unwrap().0;
    assert_eq!(shelves["top"], Item { qty: 1, sku: Some("A".into()) });
    assert_eq!(shelves["low"], Item { qty: 2, sku: None });
}

/// When to deliver.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Window {
    Asap,
    Within { hours: u32 },
}

/// How to pay.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Payment {
    Card { number: String },
    Cash,
}

/// Book a delivery.
#[tool]
fn book(window: Window, payment: Option<Payment>) -> String {
    format!("{window:?} {payment:?}")
}

#[test]
fn keys_inside_enum_variant_content_are_checked_for_every_tagging() {
    let e = all_paths::<book>(r#"{"window": {"within": {"hours": 4, "minutes": 30}}}"#);
    assert_eq!(warnings(&e), vec![at("/window/within/minutes", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (Window::Within { hours: 4 }, None));

    let e = all_paths::<book>(r#"{"window": {"within": {"Hours": 4}}}"#);
    assert_eq!(warnings(&e), vec![at("/window/within/Hours", "parameter_name_normalized")]);
    assert_eq!(e.value.unwrap(), (Window::Within { hours: 4 }, None));

    let e = all_paths::<book>(r#"{"window": "asap", "payment": {"type": "card", "number": "4242", "cvv": "1"}}"#);
    assert_eq!(warnings(&e), vec![at("/payment/cvv", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (Window::Asap, Some(Payment::Card { number: "4242".into() })));
}

#[test]
fn keys_inside_json_text_decoded_from_a_string_are_checked() {
    let raw = r#"{"items": "[{\"qty\": 3, \"colour\": \"red\"}]", "data": "{\"Param1\": \"x\"}"}"#;
    let e = all_paths::<place_order>(raw);
    assert_eq!(
        warnings(&e),
        vec![
            at("/items", "json_string_decoded"),
            at("/items/0/colour", "unknown_parameter"),
            at("/data", "json_string_decoded"),
            at("/data/Param1", "parameter_name_normalized"),
        ]
    );
    assert_eq!(
        e.value.unwrap(),
        (vec![Item { qty: 3, sku: None }], Some(Data { param1: "x".into(), max_bytes: None }))
    );
}

/// A struct that refuses unknown keys itself.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Exact {
    a: u32,
}

/// Take an exact struct.
#[tool]
fn take_exact(exact: Exact) -> String {
    format!("{exact:?}")
}

#[test]
fn a_struct_that_denies_unknown_fields_is_recovered_by_dropping_them_with_a_warning() {
    let e = all_paths::<take_exact>(r#"{"exact": {"a": 1, "b": 2}}"#);
    assert_eq!(warnings(&e), vec![at("/exact/b", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (Exact { a: 1 },));
}

/// Common fields of a request.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Common {
    id: u32,
}

/// A request with flattened parts.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Flat {
    #[serde(flatten)]
    common: Common,
    name: String,
}

/// A request that keeps extra keys.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Open {
    name: String,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

/// Headers, each a list of values.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Headers {
    #[serde(flatten)]
    values: BTreeMap<String, Vec<String>>,
}

/// Send a request.
#[tool]
fn send(
    flat: Flat,
    open: Option<Open>,
    free: Option<serde_json::Map<String, Value>>,
    headers: Option<Headers>,
) -> String {
    format!("{flat:?} {open:?} {free:?} {headers:?}")
}

#[test]
fn a_struct_flattened_into_a_struct_still_drops_unknown_keys_with_a_warning() {
    let e = all_paths::<send>(r#"{"flat": {"id": 1, "name": "n", "extra": true}}"#);
    assert_eq!(warnings(&e), vec![at("/flat/extra", "unknown_parameter")]);
    assert_eq!(e.value.unwrap().0, Flat { common: Common { id: 1 }, name: "n".into() });
}

#[test]
fn types_that_take_any_key_keep_the_keys_as_data_without_a_warning() {
    let raw = r#"{"flat": {"id": 1, "name": "n"}, "open": {"name": "o", "colour": "red"}, "free": {"anything": [1]}, "headers": {"Accept": ["a/b"]}}"#;
    let e = all_paths::<send>(raw);
    assert_eq!(warnings(&e), vec![]);
    let (_, open, free, headers) = e.value.unwrap();
    assert_eq!(open.unwrap().extra, BTreeMap::from([("colour".to_owned(), json!("red"))]));
    assert_eq!(free.unwrap()["anything"], json!([1]));
    assert_eq!(headers.unwrap().values, BTreeMap::from([("Accept".to_owned(), vec!["a/b".to_owned()])]));
}

#[test]
fn under_the_strict_policy_nested_unknown_and_renamed_keys_are_errors_that_say_what_lenient_would_do() {
    let e = <place_order as DeclaredTool>::extract_with(
        r#"{"items": [{"qty": 1, "colour": "red"}, {"Qty": 2}]}"#,
        ExtractionPolicy::STRICT,
    );
    let errors: Vec<(String, String, String)> =
        e.value.unwrap_err().errors.into_iter().map(|e| (e.pointer, e.rule, e.detail)).collect();
    assert_eq!(
        errors,
        vec![
            (
                "/items/0/colour".into(),
                "unknown_parameter".into(),
                "refused by the strict policy; lenient extraction would have ignored".into()
            ),
            (
                "/items/1/Qty".into(),
                "parameter_name_normalized".into(),
                "refused by the strict policy; lenient extraction would have read as `qty`".into()
            ),
            ("/items/1/qty".into(), "missing_required".into(), "missing field `qty`".into()),
        ]
    );
    // A top-level unknown key too.
    let e = <place_order as DeclaredTool>::extract_with(r#"{"items": [], "itemz": 1}"#, ExtractionPolicy::STRICT);
    let errors = e.value.unwrap_err().errors;
    assert_eq!((errors[0].pointer.as_str(), errors[0].rule.as_str()), ("/itemz", "unknown_parameter"));
    assert_eq!(
        errors[0].detail,
        "refused by the strict policy; lenient extraction would have ignored; did you mean `items`?"
    );
}

/// A tool that is strict on one parameter only.
#[tool]
fn mixed(#[param(strict)] exact: Vec<Item>, loose: Vec<Item>) -> String {
    format!("{exact:?} {loose:?}")
}

#[test]
fn a_strict_parameter_refuses_unknown_keys_inside_it_while_the_others_are_dropped() {
    let e = <mixed as DeclaredTool>::extract(r#"{"exact": [{"qty": 1, "x": 0}], "loose": [{"qty": 1, "y": 0}]}"#);
    assert_eq!(warnings(&e), vec![at("/loose/0/y", "unknown_parameter")]);
    let errors = e.value.unwrap_err().errors;
    assert_eq!((errors[0].pointer.as_str(), errors[0].rule.as_str()), ("/exact/0/x", "unknown_parameter"));
}

#[test]
fn the_converted_arguments_no_longer_hold_a_dropped_key_and_the_raw_text_keeps_it() {
    let raw = r#"{"items": [{"qty": "1", "colour": "red"}]}"#;
    let e = tool_core::__private::extract_by_tree::<place_order>(raw);
    assert_eq!(e.raw, raw);
    assert_eq!(e.arguments, Some(json!({"items": [{"qty": 1}]})));
}

/// A runtime-built tool echoing the arguments its handler got.
fn echo_arguments(name: &str, schema: Value) -> DynamicTool {
    DynamicTool::builder(name)
        .description("Echo the arguments back.")
        .input_schema(schema)
        .handler(|args, _ctx| async move { serde_json::to_string(&args).unwrap() })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_runtime_built_tool_gets_only_declared_keys_unless_its_schema_takes_any_key() {
    let closed = echo_arguments(
        "closed",
        json!({"type": "object", "properties": {"page": {"type": "object", "properties": {"size": {"type": "integer"}}}}, "required": []}),
    );
    let open = echo_arguments(
        "open",
        json!({"type": "object", "properties": {"page": {"type": "integer"}}, "required": [], "additionalProperties": true}),
    );
    let catalog = tool_core::CatalogBuilder::new().add_tool(closed).add_tool(open).build().unwrap();
    let executor = Executor::new(catalog);

    let raw = r#"{"page": {"Size": "5", "colour": 1}, "extra": true}"#;
    let record = executor.execute(ToolCallRequest::new("closed", "c1", raw)).await;
    assert_eq!(record.content.text, r#"{"page":{"size":5}}"#);
    let rules: Vec<(&str, &str)> = record.warnings().iter().map(|w| (w.pointer(), w.rule())).collect();
    assert_eq!(
        rules,
        vec![
            ("/page/Size", "parameter_name_normalized"),
            ("/page/size", "string_to_integer"),
            ("/page/colour", "unknown_parameter"),
            ("/extra", "unknown_parameter"),
        ]
    );

    let record = executor.execute(ToolCallRequest::new("open", "c2", r#"{"page": "2", "Extra": [1]}"#)).await;
    assert_eq!(record.content.text, r#"{"page":2,"Extra":[1]}"#);
    let rules: Vec<(&str, &str)> = record.warnings().iter().map(|w| (w.pointer(), w.rule())).collect();
    assert_eq!(rules, vec![("/page", "string_to_integer")]);
}

#[test]
fn an_unknown_key_given_twice_is_reported_once_as_given_twice_on_both_paths() {
    let e = all_paths::<place_order>(r#"{"items": [], "x": 1, "x": 2}"#);
    assert_eq!(warnings(&e), vec![at("/x", "duplicate_parameter"), at("/x", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (vec![], None));
}
