//! Lenient in: real tool-call arguments from public issue trackers of LLM frameworks, each with
//! its exact outcome: the typed value and the warnings, or the errors.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::prelude::*;
use tool_core::Extraction;

/// (pointer, rule) of each warning.
fn warnings<T>(extraction: &Extraction<'_, T>) -> Vec<(String, String)> {
    extraction.warnings.iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect()
}

/// (pointer, rule) of each error.
fn errors<T: std::fmt::Debug>(extraction: Extraction<'_, T>) -> Vec<(String, String)> {
    extraction.value.unwrap_err().errors.into_iter().map(|e| (e.pointer, e.rule)).collect()
}

fn at(pointer: &str, rule: &str) -> (String, String) {
    (pointer.to_owned(), rule.to_owned())
}

/// Assign an issue.
#[tool]
fn assign(assignees: Vec<String>) -> String {
    assignees.join(",")
}

#[test]
fn a_list_sent_as_json_text_is_decoded() {
    let e = <assign as DeclaredTool>::extract(r#"{"assignees": "[\"u1\",\"u2\"]"}"#);
    assert_eq!(warnings(&e), vec![at("/assignees", "json_string_decoded")]);
    assert_eq!(e.value.unwrap(), (vec!["u1".to_owned(), "u2".to_owned()],));
}

/// Fetch files.
#[tool]
fn fetch(
    #[param(rename = "maxBytes")] max_bytes: u64,
    paths: Vec<String>,
    headers: BTreeMap<String, String>,
) -> String {
    format!("{max_bytes} {paths:?} {headers:?}")
}

#[test]
fn numbers_lists_and_maps_sent_as_text_are_converted_by_their_declared_types() {
    let e = <fetch as DeclaredTool>::extract(
        r#"{"maxBytes":"200000","paths":"[\"img/a.png\"]","headers":"{\"User-Agent\":\"x\"}"}"#,
    );
    assert_eq!(
        warnings(&e),
        vec![
            at("/maxBytes", "string_to_integer"),
            at("/paths", "json_string_decoded"),
            at("/headers", "json_string_decoded")
        ]
    );
    let (max_bytes, paths, headers) = e.value.unwrap();
    assert_eq!(max_bytes, 200_000);
    assert_eq!(paths, vec!["img/a.png".to_owned()]);
    assert_eq!(headers, BTreeMap::from([("User-Agent".to_owned(), "x".to_owned())]));
}

/// Search the web.
#[tool]
fn web_search(#[param(rename = "maxResults")] max_results: u32) -> u32 {
    max_results
}

#[test]
fn an_integer_sent_as_text_is_converted() {
    let e = <web_search as DeclaredTool>::extract(r#"{"maxResults":"5"}"#);
    assert_eq!(warnings(&e), vec![at("/maxResults", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (5,));
}

#[test]
fn an_integral_float_for_an_integer_is_converted() {
    let e = <web_search as DeclaredTool>::extract(r#"{"maxResults": 3.0}"#);
    assert_eq!(warnings(&e), vec![at("/maxResults", "float_to_integer")]);
    assert_eq!(e.value.unwrap(), (3,));
}

/// An order line.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Line {
    name: String,
    qty: u32,
}

/// Place an order.
#[tool]
fn order(items: Vec<Line>) -> String {
    format!("{items:?}")
}

#[test]
fn a_nested_list_of_objects_sent_as_text_is_decoded_and_its_fields_converted() {
    let e = <order as DeclaredTool>::extract(
        r#"{"items": "[{\"name\":\"tea\",\"qty\":\"2\"},{\"name\":\"cake\",\"qty\":1}]"}"#,
    );
    assert_eq!(warnings(&e), vec![at("/items", "json_string_decoded"), at("/items/0/qty", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (vec![Line { name: "tea".into(), qty: 2 }, Line { name: "cake".into(), qty: 1 }],));
}

/// Open a shop.
#[tool]
fn open_shop(shop_name: String) -> String {
    shop_name
}

#[test]
fn arguments_encoded_twice_are_decoded() {
    let e = <open_shop as DeclaredTool>::extract(r#""{\"shop_name\": \"A店\"}""#);
    assert_eq!(warnings(&e), vec![at("", "double_encoded_arguments")]);
    assert_eq!(e.value.unwrap(), ("A店".to_owned(),));
}

#[test]
fn a_fenced_object_and_a_trailing_special_token_are_repaired() {
    let fenced = <open_shop as DeclaredTool>::extract("```json\n{\"shop_name\": \"B\"}\n```");
    assert_eq!(warnings(&fenced), vec![at("", "code_fence_removed")]);
    assert_eq!(fenced.value.unwrap(), ("B".to_owned(),));
    let token = <open_shop as DeclaredTool>::extract(r#"{"shop_name":"C"}<|call|>"#);
    assert_eq!(warnings(&token), vec![at("", "special_token_removed")]);
    assert_eq!(token.value.unwrap(), ("C".to_owned(),));
}

/// Theme preferences.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Theme {
    Light,
    Dark,
}

/// Write a post.
#[tool]
fn write_post(tags: Vec<String>, theme: Theme, verbose: bool) -> String {
    format!("{tags:?} {theme:?} {verbose}")
}

#[test]
fn python_literals_are_read() {
    let e = <write_post as DeclaredTool>::extract("{'tags': ['python','tutorial'], 'theme': 'dark', 'verbose': True}");
    assert_eq!(warnings(&e), vec![at("", "python_literal")]);
    assert_eq!(e.value.unwrap(), (vec!["python".to_owned(), "tutorial".to_owned()], Theme::Dark, true));
}

/// Annotate.
#[tool]
fn annotate(note: Option<String>, page: Option<u32>) -> String {
    format!("{note:?} {page:?}")
}

#[test]
fn none_is_kept_as_text_for_a_string_and_absent_for_a_number() {
    let e = <annotate as DeclaredTool>::extract(r#"{"note": "None", "page": "None"}"#);
    assert_eq!(warnings(&e), vec![at("/page", "null_literal")]);
    assert_eq!(e.value.unwrap(), (Some("None".to_owned()), None));
}

#[test]
fn empty_arguments_are_an_empty_object_for_a_tool_whose_parameters_are_optional() {
    let e = <annotate as DeclaredTool>::extract("");
    assert_eq!(warnings(&e), vec![at("", "empty_arguments")]);
    assert_eq!(e.value.unwrap(), (None, None));
    let required = <open_shop as DeclaredTool>::extract("");
    assert_eq!(errors(required), vec![at("/shop_name", "missing_required")]);
}

#[test]
fn broken_json_is_an_error_never_an_empty_object() {
    assert_eq!(errors(<open_shop as DeclaredTool>::extract(r#"{"a":"b",c":"d"}"#)), vec![at("", "invalid_json")]);
    assert_eq!(
        errors(<open_shop as DeclaredTool>::extract("Sure! I will open the shop now.")),
        vec![at("", "invalid_json")]
    );
}

/// Run a command.
#[tool]
fn run_command(command: Vec<String>) -> String {
    command.join(" ")
}

#[test]
fn truncated_json_is_an_error_that_keeps_the_text() {
    let raw = r#"{"command":["bash","-lc","find"#;
    let e = <run_command as DeclaredTool>::extract(raw);
    let error = &e.value.as_ref().unwrap_err().errors[0];
    assert_eq!((error.rule.as_str(), error.received.as_deref()), ("truncated_json", Some(raw)));
}

/// Open a file.
#[tool]
fn open_file(f: String) -> String {
    f
}

#[test]
fn identical_concatenated_objects_merge_and_different_ones_are_refused() {
    let same = <open_file as DeclaredTool>::extract(r#"{"f":"a.ts"}{"f":"a.ts"}"#);
    assert_eq!(warnings(&same), vec![at("", "identical_objects_merged")]);
    assert_eq!(same.value.unwrap(), ("a.ts".to_owned(),));
    assert_eq!(
        errors(<open_file as DeclaredTool>::extract(r#"{"f":"a.ts"}{"f":"b.ts"}"#)),
        vec![at("", "multiple_objects")]
    );
}

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    path
}

#[test]
fn a_wrong_key_is_dropped_with_the_closest_name_and_the_missing_parameter_is_an_error() {
    let e = <read_file as DeclaredTool>::extract(r#"{"relative_path": "src/main.rs"}"#);
    assert_eq!(warnings(&e), vec![at("/relative_path", "unknown_parameter")]);
    assert_eq!(e.warnings[0].action(), "ignored; did you mean `path`?");
    assert_eq!(errors(e), vec![at("/path", "missing_required")]);
}

#[test]
fn a_wrapper_key_around_fitting_arguments_is_unwrapped() {
    let e = <read_file as DeclaredTool>::extract(r#"{"_": {"path": "src/lib.rs"}}"#);
    assert_eq!(warnings(&e), vec![at("/_", "wrapper_unwrapped")]);
    assert_eq!(e.value.unwrap(), ("src/lib.rs".to_owned(),));
}

/// A customer lifecycle stage.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Lifecycle {
    Lead,
    Customer,
}

/// Update a contact.
#[tool]
fn update_contact(lifecycle: Lifecycle) -> String {
    format!("{lifecycle:?}")
}

#[test]
fn an_enum_token_differing_only_in_case_is_normalised() {
    let e = <update_contact as DeclaredTool>::extract(r#"{"lifecycle":"Customer"}"#);
    assert_eq!(warnings(&e), vec![at("/lifecycle", "enum_case_normalized")]);
    assert_eq!(e.value.unwrap(), (Lifecycle::Customer,));
    let refused = <update_contact as DeclaredTool>::extract(r#"{"lifecycle":"vip"}"#);
    let error = &refused.value.as_ref().unwrap_err().errors[0];
    assert_eq!((error.rule.as_str(), error.expected.as_str()), ("not_allowed", "one of: `lead`, `customer`"));
}

/// Attach files.
#[tool]
fn attach(files: String) -> String {
    files
}

#[test]
fn invalid_escapes_in_windows_paths_are_kept_as_backslashes() {
    let e = <attach as DeclaredTool>::extract(r#"{"files": "E:\Chat gpt\a.md"}"#);
    assert_eq!(warnings(&e), vec![at("", "invalid_escape_repaired")]);
    assert_eq!(e.value.unwrap(), (r"E:\Chat gpt\a.md".to_owned(),));
}

/// Run a shell command.
#[tool]
fn shell(command: String) -> String {
    command
}

#[test]
fn text_that_looks_like_a_boolean_stays_text_for_a_string_parameter() {
    let e = <shell as DeclaredTool>::extract(r#"{"command":"true"}"#);
    assert!(e.warnings.is_empty());
    assert_eq!(e.value.unwrap(), ("true".to_owned(),));
    let e = <shell as DeclaredTool>::extract(r#"{"command":true}"#);
    assert_eq!(warnings(&e), vec![at("/command", "literal_to_string")]);
    assert_eq!(e.value.unwrap(), ("true".to_owned(),));
}

#[test]
fn a_conversion_keeps_the_raw_text_and_its_warning_says_what_the_value_became() {
    let raw = r#"{"maxResults":"5"}"#;
    let e = <web_search as DeclaredTool>::extract(raw);
    assert_eq!(e.raw, raw);
    let w = &e.warnings[0];
    assert_eq!(
        (w.pointer(), w.rule(), w.expected(), w.received(), w.action()),
        ("/maxResults", "string_to_integer", "an integer", "\"5\"", "converted to 5")
    );
    // Read in one pass: no tree was built, the warnings are the whole account.
    assert_eq!(e.arguments, None);
}

#[test]
fn arguments_for_a_tool_with_no_definition_are_still_read_leniently() {
    let e = tool_core::extract::untyped("{'city': 'Oslo', 'days': 3}");
    assert_eq!(warnings(&e), vec![at("", "tool_definition_missing"), at("", "python_literal")]);
    assert_eq!(serde_json::Value::Object(e.value.unwrap()), json!({"city": "Oslo", "days": 3}));
    let broken = tool_core::extract::untyped(r#"{"city": "Os"#);
    assert_eq!(warnings(&broken), vec![at("", "tool_definition_missing")]);
    assert_eq!(errors(broken), vec![at("", "truncated_json")]);
}

/// Adjust settings; every parameter is optional.
#[tool]
fn adjust(verbose: Option<bool>, limit: Option<u32>, #[param(default = 1)] level: u32) -> String {
    format!("{verbose:?} {limit:?} {level}")
}

#[test]
fn a_wrapper_key_is_unwrapped_even_when_every_parameter_is_optional() {
    let e = <adjust as DeclaredTool>::extract(r#"{"arguments": {"limit": 3, "level": 2}}"#);
    assert_eq!(warnings(&e), vec![at("/arguments", "wrapper_unwrapped")]);
    assert_eq!(e.value.unwrap(), (None, Some(3), 2));
    // A lone unknown key whose content does not fit stays an unknown key.
    let e = <adjust as DeclaredTool>::extract(r#"{"verbosity": true}"#);
    assert_eq!(warnings(&e), vec![at("/verbosity", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (None, None, 1));
}

#[test]
fn a_call_envelope_around_the_arguments_is_unwrapped_and_its_other_keys_named() {
    // Llama-style `parameters`, OpenAI-style `arguments` as JSON text; every parameter optional,
    // so the single pass alone would have read an empty call.
    for raw in [
        r#"{"name": "adjust", "parameters": {"limit": "3"}}"#,
        r#"{"type": "function", "name": "adjust", "arguments": "{\"limit\": \"3\"}"}"#,
    ] {
        let e = <adjust as DeclaredTool>::extract(raw);
        let wrapper = if raw.contains("parameters") { "/parameters" } else { "/arguments" };
        assert_eq!(warnings(&e), vec![at(wrapper, "wrapper_unwrapped"), at("/limit", "string_to_integer")], "{raw}");
        assert_eq!(e.value.unwrap(), (None, Some(3), 1), "{raw}");
    }
    let e = <adjust as DeclaredTool>::extract(r#"{"name": "adjust", "parameters": {"limit": 3}}"#);
    assert_eq!(e.warnings[0].action(), r#"dropped `name`; used as the arguments: {"limit":3}"#);
    // Two keys that could each be the arguments: no guess, both unknown.
    let e = <adjust as DeclaredTool>::extract(r#"{"a": {"limit": 3}, "b": {"limit": 4}}"#);
    assert_eq!(warnings(&e), vec![at("/a", "unknown_parameter"), at("/b", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (None, None, 1));
    // A declared key beside it: the arguments are not wrapped.
    let e = <adjust as DeclaredTool>::extract(r#"{"level": 2, "arguments": {"limit": 3}}"#);
    assert_eq!(warnings(&e), vec![at("/arguments", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (None, None, 2));
}

#[test]
fn a_key_differing_only_in_case_or_separators_is_read_as_the_declared_parameter() {
    let e = <fetch as DeclaredTool>::extract(r#"{"max_bytes": "200", "Paths": ["a.png"], "HEADERS": {}}"#);
    assert_eq!(
        warnings(&e),
        vec![
            at("/max_bytes", "parameter_name_normalized"),
            at("/Paths", "parameter_name_normalized"),
            at("/HEADERS", "parameter_name_normalized"),
            at("/maxBytes", "string_to_integer")
        ]
    );
    assert_eq!(e.warnings[0].expected(), "the declared name `maxBytes`");
    assert_eq!(e.warnings[0].received(), "`max_bytes`");
    assert_eq!(e.warnings[0].action(), "read as `maxBytes`");
    assert_eq!(e.value.unwrap(), (200, vec!["a.png".to_owned()], BTreeMap::new()));

    // Also where the single pass would have settled the call (every parameter optional).
    let e = <adjust as DeclaredTool>::extract(r#"{"Limit": 3}"#);
    assert_eq!(warnings(&e), vec![at("/Limit", "parameter_name_normalized")]);
    assert_eq!(e.value.unwrap(), (None, Some(3), 1));

    // The parameter also arrived under its own name, or two keys name it: no rename.
    let e = <adjust as DeclaredTool>::extract(r#"{"limit": 3, "LIMIT": 4}"#);
    assert_eq!(warnings(&e), vec![at("/LIMIT", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (None, Some(3), 1));
    let e = <adjust as DeclaredTool>::extract(r#"{"Limit": 3, "LIMIT": 4}"#);
    assert_eq!(warnings(&e), vec![at("/Limit", "unknown_parameter"), at("/LIMIT", "unknown_parameter")]);
    assert_eq!(e.value.unwrap(), (None, None, 1));

    // The strict policy refuses the rename.
    let e = <adjust as DeclaredTool>::extract_with(r#"{"Limit": 3}"#, tool_core::ExtractionPolicy::STRICT);
    assert_eq!(errors(e), vec![at("/Limit", "parameter_name_normalized")]);
}

#[test]
fn a_parameter_sent_twice_is_reported_on_the_lenient_path_too() {
    let e = <adjust as DeclaredTool>::extract(r#"{"limit": 2, "limit": "3"}"#);
    assert_eq!(warnings(&e), vec![at("/limit", "duplicate_parameter"), at("/limit", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (None, Some(3), 1));
}

/// A shelf of counted things.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Shelf {
    counts: BTreeMap<String, u32>,
}

/// Store counts.
#[tool]
fn stock(shelf: Shelf) -> String {
    format!("{shelf:?}")
}

#[test]
fn conversions_under_escaped_keys_point_at_the_key_as_sent() {
    // serde_json hands keys with escapes over unborrowed; the conversion below them must still
    // land on the key as sent.
    let raw = r#"{"shelf": {"counts": {"a\"b": "5", "c\\d": 6, "e": "7"}, "unknown\u0041": 1}, "x\ty": 2}"#;
    let e = <stock as DeclaredTool>::extract(raw);
    assert_eq!(
        warnings(&e),
        vec![
            at("/shelf/counts/a\"b", "string_to_integer"),
            at("/shelf/counts/e", "string_to_integer"),
            at("/shelf/unknownA", "unknown_parameter"),
            at("/x\ty", "unknown_parameter"),
        ]
    );
    let counts = BTreeMap::from([("a\"b".to_owned(), 5), ("c\\d".to_owned(), 6), ("e".to_owned(), 7)]);
    assert_eq!(e.value.unwrap(), (Shelf { counts },));
    let tree = tool_core::__private::extract_by_tree::<stock>(raw);
    assert_eq!(warnings(&tree), warnings(&<stock as DeclaredTool>::extract(raw)));
}

/// Seats taken per row, and which floors are open.
#[tool]
fn seat(rows: BTreeMap<u32, u32>, floors: BTreeMap<i64, bool>) -> String {
    format!("{rows:?} {floors:?}")
}

#[test]
fn values_of_maps_with_integer_keys_are_converted_by_their_declared_type() {
    // schemars declares these maps' values under `patternProperties` (`^\d+$`, `^-?\d+$`).
    let raw = r#"{"rows": {"3": "4", "12": 2.0}, "floors": {"-1": "TRUE", "2": false}}"#;
    let e = <seat as DeclaredTool>::extract(raw);
    assert_eq!(
        warnings(&e),
        vec![
            at("/rows/3", "string_to_integer"),
            at("/rows/12", "float_to_integer"),
            at("/floors/-1", "string_to_boolean")
        ]
    );
    assert_eq!(e.value.unwrap(), (BTreeMap::from([(3, 4), (12, 2)]), BTreeMap::from([(-1, true), (2, false)])));
    let tree = tool_core::__private::extract_by_tree::<seat>(raw);
    assert_eq!(tree.warnings, <seat as DeclaredTool>::extract(raw).warnings);
}

#[test]
fn an_error_inside_a_map_with_integer_keys_says_what_its_values_are() {
    let e = <seat as DeclaredTool>::extract(r#"{"rows": {"3": "many"}, "floors": {}}"#);
    let error = &e.value.as_ref().unwrap_err().errors[0];
    assert_eq!(
        (error.pointer.as_str(), error.rule.as_str(), error.expected.as_str()),
        ("/rows/3", "invalid_type", "an integer")
    );
    let e = <seat as DeclaredTool>::extract(r#"{"rows": {"3": -1}, "floors": {}}"#);
    let error = &e.value.as_ref().unwrap_err().errors[0];
    assert_eq!(
        (error.pointer.as_str(), error.rule.as_str(), error.expected.as_str()),
        ("/rows/3", "invalid_value", "an integer from 0 to 4294967295")
    );
}

/// A delivery window, by kind.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Window {
    Asap,
    Within { hours: u32 },
    Slot(u32),
    Between(u32, u32),
}

/// Book a delivery.
#[tool]
fn deliver(window: Window, fallback: Option<Window>) -> String {
    format!("{window:?} {fallback:?}")
}

/// Extracts `raw` on both paths: the single pass's extraction, after checking that the tree path
/// gives the same warnings, every field of each, in order.
fn both_paths<T: DeclaredTool>(raw: &str) -> Extraction<'_, T::Args> {
    let tree = tool_core::__private::extract_by_tree::<T>(raw);
    let extraction = T::extract(raw);
    assert_eq!(extraction.warnings, tree.warnings, "single pass vs tree path: {raw}");
    extraction
}

#[test]
fn an_externally_tagged_variant_is_converted_inside_by_its_content_type() {
    let e = both_paths::<deliver>(r#"{"window": {"within": {"hours": "4"}}, "fallback": {"slot": 2.0}}"#);
    assert_eq!(
        warnings(&e),
        vec![at("/window/within/hours", "string_to_integer"), at("/fallback/slot", "float_to_integer")]
    );
    assert_eq!(e.value.unwrap(), (Window::Within { hours: 4 }, Some(Window::Slot(2))));
    let e = both_paths::<deliver>(r#"{"window": {"between": ["9", 17]}, "fallback": "None"}"#);
    assert_eq!(warnings(&e), vec![at("/window/between/0", "string_to_integer"), at("/fallback", "null_literal")]);
    assert_eq!(e.value.unwrap(), (Window::Between(9, 17), None));
    // A unit variant is a token: the case rule of enum tokens.
    let e = both_paths::<deliver>(r#"{"window": "ASAP"}"#);
    assert_eq!(warnings(&e), vec![at("/window", "enum_case_normalized")]);
    assert_eq!(e.value.unwrap(), (Window::Asap, None));
    // The variant as JSON text, like any object.
    let e = both_paths::<deliver>(r#"{"window": "{\"slot\": \"3\"}"}"#);
    assert_eq!(warnings(&e), vec![at("/window", "json_string_decoded"), at("/window/slot", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (Window::Slot(3), None));
}

#[test]
fn an_external_tag_in_the_wrong_case_is_normalised_at_the_enums_place() {
    // The variant's name is a token of the enum, whether it is the value or the object's one
    // key; its warning points at the enum (the single pass reads both forms alike).
    let e = both_paths::<deliver>(r#"{"window": {"Within": {"hours": "4"}}, "fallback": {"SLOT": 1}}"#);
    assert_eq!(
        warnings(&e),
        vec![
            at("/window", "enum_case_normalized"),
            at("/window/within/hours", "string_to_integer"),
            at("/fallback", "enum_case_normalized"),
        ]
    );
    let w = &e.warnings[0];
    assert_eq!(
        (w.expected(), w.received(), w.action()),
        ("one of: `asap`, `within`, `slot`, `between`", "\"Within\"", "read as \"within\"")
    );
    assert_eq!(e.value.unwrap(), (Window::Within { hours: 4 }, Some(Window::Slot(1))));
}

/// When to remind.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Remind {
    Never,
    After { minutes: u32 },
}

/// Set a reminder.
#[tool]
fn remind(when: Remind) -> String {
    format!("{when:?}")
}

#[test]
fn an_external_tag_in_the_wrong_case_and_its_content_are_converted_in_one_pass() {
    let e = both_paths::<remind>(r#"{"when": {"AFTER": {"minutes": "5"}}}"#);
    assert_eq!(warnings(&e), vec![at("/when", "enum_case_normalized"), at("/when/after/minutes", "string_to_integer")]);
    // No tree was built: the single pass converted both.
    assert_eq!(e.arguments, None);
    assert_eq!(e.value.unwrap(), (Remind::After { minutes: 5 },));
}

/// A voucher.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Voucher {
    code: String,
    value: u32,
}

/// How to pay.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case")]
enum Payment {
    Cash,
    Card { last4: String, installments: u8 },
    Voucher(Voucher),
}

/// Pay for an order.
#[tool]
fn pay(payment: Payment) -> String {
    format!("{payment:?}")
}

#[test]
fn an_internally_tagged_variant_is_picked_by_its_tag_and_its_fields_converted() {
    let e = both_paths::<pay>(r#"{"payment": {"method": "card", "last4": 1234, "installments": "3"}}"#);
    assert_eq!(
        warnings(&e),
        vec![at("/payment/last4", "literal_to_string"), at("/payment/installments", "string_to_integer")]
    );
    assert_eq!(e.value.unwrap(), (Payment::Card { last4: "1234".into(), installments: 3 },));
    // A newtype variant's fields are its struct's (schemars: the tag beside a `$ref`).
    let e = both_paths::<pay>(r#"{"payment": {"value": "20", "method": "voucher", "code": "X"}}"#);
    assert_eq!(warnings(&e), vec![at("/payment/value", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (Payment::Voucher(Voucher { code: "X".into(), value: 20 }),));
    // The tag in the wrong case: normalised first, then the fields by that variant.
    let e = both_paths::<pay>(r#"{"payment": {"installments": 2.0, "method": "Card", "last4": "0042"}}"#);
    assert_eq!(
        warnings(&e),
        vec![at("/payment/method", "enum_case_normalized"), at("/payment/installments", "float_to_integer")]
    );
    assert_eq!(e.value.unwrap(), (Payment::Card { last4: "0042".into(), installments: 2 },));
    let w = &e.warnings[0];
    assert_eq!((w.expected(), w.received()), ("one of: `cash`, `card`, `voucher`", "\"Card\""));
    // A tag naming no variant: nothing is guessed.
    let e = both_paths::<pay>(r#"{"payment": {"method": "cheque", "value": "20"}}"#);
    assert_eq!(errors(e), vec![at("/payment/method", "not_allowed")]);
}

/// An edit to a text.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "op", content = "args", rename_all = "snake_case")]
enum Edit {
    Insert { at: u32, text: String },
    Delete(u32),
    Clear,
}

/// Edit a text.
#[tool]
fn edit_text(edit: Edit) -> String {
    format!("{edit:?}")
}

#[test]
fn an_adjacently_tagged_variant_is_picked_by_its_tag_and_its_content_converted() {
    let e = both_paths::<edit_text>(r#"{"edit": {"op": "insert", "args": {"at": "3", "text": 7}}}"#);
    assert_eq!(
        warnings(&e),
        vec![at("/edit/args/at", "string_to_integer"), at("/edit/args/text", "literal_to_string")]
    );
    assert_eq!(e.value.unwrap(), (Edit::Insert { at: 3, text: "7".into() },));
    // The content before the tag.
    let e = both_paths::<edit_text>(r#"{"edit": {"args": "7", "op": "delete"}}"#);
    assert_eq!(warnings(&e), vec![at("/edit/args", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (Edit::Delete(7),));
    // The tag in the wrong case: normalised first, then the content by that variant.
    let e = both_paths::<edit_text>(r#"{"edit": {"args": {"text": "hi", "at": 1.0}, "op": "INSERT"}}"#);
    assert_eq!(warnings(&e), vec![at("/edit/op", "enum_case_normalized"), at("/edit/args/at", "float_to_integer")]);
    assert_eq!(e.value.unwrap(), (Edit::Insert { at: 1, text: "hi".into() },));
    // Clean content is read in one pass, before or after the tag: serde reads a struct
    // variant's content without a type hint, and no variant's type would change it.
    for raw in [
        r#"{"edit": {"op": "insert", "args": {"at": 3, "text": "x"}}}"#,
        r#"{"edit": {"args": {"at": 3, "text": "x"}, "op": "insert"}}"#,
    ] {
        let e = both_paths::<edit_text>(raw);
        assert_eq!((e.warnings.len(), e.arguments.as_ref()), (0, None), "{raw}");
        assert_eq!(e.value.unwrap(), (Edit::Insert { at: 3, text: "x".into() },));
    }
    // Only the tag: read in one pass.
    let e = both_paths::<edit_text>(r#"{"edit": {"op": "Clear"}}"#);
    assert_eq!(warnings(&e), vec![at("/edit/op", "enum_case_normalized")]);
    assert_eq!(e.arguments, None);
    assert_eq!(e.value.unwrap(), (Edit::Clear,));
}

/// A count that also reads its digits from text, as hand-written `Deserialize` impls may.
#[derive(Debug, PartialEq, JsonSchema)]
struct Count(u32);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Count, D::Error> {
        struct Digits;
        impl serde::de::Visitor<'_> for Digits {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a count")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Count, E> {
                u32::try_from(n).map(Count).map_err(E::custom)
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Count, E> {
                text.parse().map(Count).map_err(E::custom)
            }
        }
        deserializer.deserialize_u32(Digits)
    }
}

/// A repeated step.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
enum Step {
    Repeat(Count),
    Stop,
}

/// Run a step.
#[tool]
fn run_step(step: Step) -> String {
    format!("{step:?}")
}

#[test]
fn a_value_whose_node_depends_on_an_adjacent_tag_is_left_to_the_tree_path() {
    // The single pass does not keep the tag it read beside the content, so it cannot tell
    // which variant's type converts `"5"`: it hands the call to the tree path, which can (else
    // `Count` would take the text as it is, without the warning the tree path gives).
    let e = both_paths::<run_step>(r#"{"step": {"kind": "repeat", "value": "5"}}"#);
    // Only the tree path builds the arguments tree (the schema declares no constraint).
    assert!(e.arguments.is_some());
    assert_eq!(warnings(&e), vec![at("/step/value", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (Step::Repeat(Count(5)),));
}

#[test]
fn an_error_inside_a_variant_points_at_it_and_says_what_is_expected_there() {
    let e = <deliver as DeclaredTool>::extract(r#"{"window": {"within": {"hours": "soon"}}}"#);
    let error = &e.value.as_ref().unwrap_err().errors[0];
    assert_eq!(
        (error.pointer.as_str(), error.rule.as_str(), error.expected.as_str(), error.received.as_deref()),
        ("/window/within/hours", "invalid_type", "an integer", Some("\"soon\""))
    );
    let e = <deliver as DeclaredTool>::extract(r#"{"window": {"slot": -1}}"#);
    let error = &e.value.as_ref().unwrap_err().errors[0];
    assert_eq!(
        (error.pointer.as_str(), error.rule.as_str(), error.expected.as_str()),
        ("/window/slot", "invalid_value", "an integer from 0 to 4294967295")
    );
    // A data variant's name sent as a token: the error is the enum's.
    assert_eq!(
        errors(<deliver as DeclaredTool>::extract(r#"{"window": "slot"}"#)),
        vec![at("/window", "invalid_type")]
    );
}

/// One leg of a route, between numbered stops.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Leg {
    from: u32,
    to: u32,
}

/// Plan a route.
#[tool]
fn route(stops: Vec<u32>, leg: Leg, tags: Option<Vec<String>>) -> String {
    format!("{stops:?} {leg:?} {tags:?}")
}

#[test]
fn json_text_is_read_as_the_value_it_holds_with_its_elements_converted() {
    let raw = r#"{"stops": "[\"4\", 7, 9.0]", "leg": "{\"from\": 1, \"to\": 2}", "tags": " [\"a\"] "}"#;
    let e = both_paths::<route>(raw);
    assert_eq!(
        warnings(&e),
        vec![
            at("/stops", "json_string_decoded"),
            at("/stops/0", "string_to_integer"),
            at("/stops/2", "float_to_integer"),
            at("/leg", "json_string_decoded"),
            at("/tags", "json_string_decoded"),
        ]
    );
    // Read in the single pass: no tree was built.
    assert_eq!(e.arguments, None);
    let w = &e.warnings[0];
    assert_eq!(
        (w.expected(), w.received(), w.action()),
        ("an array", r#""[\"4\", 7, 9.0]""#, "decoded the JSON text inside the string")
    );
    assert_eq!(e.warnings[3].expected(), "an object");
    assert_eq!(e.value.unwrap(), (vec![4, 7, 9], Leg { from: 1, to: 2 }, Some(vec!["a".to_owned()])));
}

#[test]
fn json_text_the_single_pass_cannot_settle_is_left_to_the_tree_with_the_same_result() {
    // A conversion under a key of decoded text (its keys are not borrowed from the arguments),
    // and Python-literal text, which only the tree repairs before decoding.
    for raw in [
        r#"{"stops": [], "leg": "{\"from\": \"1\", \"to\": 2}"}"#,
        r#"{"stops": "[1, 2]", "leg": "{'from': 1, 'to': 2}"}"#,
    ] {
        let e = both_paths::<route>(raw);
        assert!(e.arguments.is_some(), "the tree path read {raw}");
        assert_eq!(e.warnings[0].rule(), "json_string_decoded");
        let (_, leg, _) = e.value.unwrap();
        assert_eq!(leg, Leg { from: 1, to: 2 });
    }
}

/// Extracts `raw` with the object scan, after checking that the single pass alone gives the same
/// extraction: value, warnings and the arguments kept.
fn scan_agrees<T: DeclaredTool>(raw: &str) -> Extraction<'_, T::Args>
where
    T::Args: PartialEq + std::fmt::Debug,
{
    let extraction = T::extract(raw);
    let reference = tool_core::__private::extract_by_single_pass::<T>(raw);
    assert_eq!(extraction.value, reference.value, "object scan vs single pass: {raw}");
    assert_eq!(extraction.warnings, reference.warnings, "object scan vs single pass: {raw}");
    assert_eq!(extraction.arguments, reference.arguments, "object scan vs single pass: {raw}");
    extraction
}

#[test]
fn the_object_scan_reads_json_whitespace_anywhere_between_keys_and_values() {
    let raw = "\n{\n  \"maxBytes\" :\t\"5\" ,\r\n  \"paths\":[ \"a\" ] ,\"headers\":{ } \n}\n ";
    let e = scan_agrees::<fetch>(raw);
    assert_eq!(warnings(&e), vec![at("/maxBytes", "string_to_integer")]);
    assert_eq!(e.value.unwrap(), (5, vec!["a".to_owned()], BTreeMap::new()));
}

#[test]
fn the_object_scan_hands_over_to_the_single_pass_without_noting_a_conversion_twice() {
    // Each stops the scan after it converted `maxBytes`; the single pass starts again.
    let unknown = scan_agrees::<fetch>(r#"{"maxBytes": "5", "paths": [], "headers": {}, "extra": 1}"#);
    assert_eq!(warnings(&unknown), vec![at("/maxBytes", "string_to_integer"), at("/extra", "unknown_parameter")]);
    assert_eq!(unknown.value.unwrap(), (5, vec![], BTreeMap::new()));
    let escaped = scan_agrees::<fetch>(r#"{"maxBytes": "5", "p\u0061ths": ["x"], "headers": {}}"#);
    assert_eq!(warnings(&escaped), vec![at("/maxBytes", "string_to_integer")]);
    assert_eq!(escaped.value.unwrap(), (5, vec!["x".to_owned()], BTreeMap::new()));
    let trailing_comma = scan_agrees::<fetch>(r#"{"maxBytes": "5", "paths": [], "headers": {},}"#);
    assert_eq!(warnings(&trailing_comma), vec![at("", "trailing_comma_removed"), at("/maxBytes", "string_to_integer")]);
    assert_eq!(trailing_comma.value.unwrap(), (5, vec![], BTreeMap::new()));
    let special_token = scan_agrees::<fetch>(r#"{"maxBytes": "5", "paths": [], "headers": {}}<|call|>"#);
    assert_eq!(warnings(&special_token), vec![at("", "special_token_removed"), at("/maxBytes", "string_to_integer")]);
    assert_eq!(special_token.value.unwrap(), (5, vec![], BTreeMap::new()));
}

#[test]
fn the_object_scan_leaves_a_key_given_twice_and_a_value_it_cannot_read_to_the_tree_path_as_the_single_pass_does() {
    // The last value wins, as in any JSON object, with a warning.
    let twice = scan_agrees::<fetch>(r#"{"maxBytes": 5, "paths": [], "headers": {}, "maxBytes": 6}"#);
    assert_eq!(warnings(&twice), vec![at("/maxBytes", "duplicate_parameter")]);
    assert_eq!(twice.value.unwrap(), (6, vec![], BTreeMap::new()));
    let wrong = scan_agrees::<fetch>(r#"{"maxBytes": "many", "paths": [], "headers": {}}"#);
    assert_eq!(errors(wrong), vec![at("/maxBytes", "invalid_type")]);
}
