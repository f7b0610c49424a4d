//! Conversions by the declared type, each with the exact value and warnings.

use serde_json::{json, Map, Value};

use super::coerce_arguments;
use super::scalar::push_json;
use crate::model::ToolParameter;
use crate::schema::plan::Plan;

/// Converts `{"p": input}` against a one-property schema; returns the value and the
/// (pointer, rule) of each warning.
fn convert(property: Value, input: Value) -> (Value, Vec<(String, String)>) {
    convert_with_defs(property, json!({}), input)
}

/// [`convert`], with `$defs` the property's references resolve against.
fn convert_with_defs(property: Value, defs: Value, input: Value) -> (Value, Vec<(String, String)>) {
    let schema = json!({"type": "object", "properties": {"p": property}, "required": ["p"], "$defs": defs});
    let mut object = Map::from_iter([("p".to_owned(), input)]);
    let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
    (
        object.remove("p").unwrap_or(Value::Null),
        warnings.into_iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect(),
    )
}

fn rule(rule: &str) -> Vec<(String, String)> {
    vec![("/p".to_owned(), rule.to_owned())]
}

#[test]
fn null_for_an_optional_field_without_null_is_removed_and_a_nullable_one_keeps_it() {
    let object = json!({"type": "object", "properties": {
        "defaulted": {"type": "integer"},
        "optional": {"type": ["integer", "null"]},
        "needed": {"type": "integer"},
        "anything": {},
    }, "required": ["needed"]});
    assert_eq!(
        convert(object, json!({"defaulted": null, "optional": null, "needed": null, "anything": null})),
        (
            json!({"optional": null, "needed": null, "anything": null}),
            vec![("/p/defaulted".to_owned(), "null_as_absent".to_owned())]
        )
    );
}

#[test]
fn booleans_from_text_in_any_case_and_from_zero_or_one() {
    let b = json!({"type": "boolean"});
    assert_eq!(convert(b.clone(), json!(" TRUE ")), (json!(true), rule("string_to_boolean")));
    assert_eq!(convert(b.clone(), json!("false")), (json!(false), rule("string_to_boolean")));
    assert_eq!(convert(b.clone(), json!(1)), (json!(true), rule("number_to_boolean")));
    assert_eq!(convert(b.clone(), json!(0)), (json!(false), rule("number_to_boolean")));
    assert_eq!(convert(b.clone(), json!("yes")), (json!("yes"), vec![]));
    assert_eq!(convert(b, json!(2)), (json!(2), vec![]));
}

#[test]
fn integers_from_text_integral_floats_and_truncated_floats() {
    let i = json!({"type": "integer", "format": "uint32", "minimum": 0});
    assert_eq!(convert(i.clone(), json!("42")), (json!(42), rule("string_to_integer")));
    assert_eq!(convert(i.clone(), json!(" 42 ")), (json!(42), rule("string_to_integer")));
    assert_eq!(convert(i.clone(), json!("+7")), (json!(7), rule("string_to_integer")));
    assert_eq!(convert(i.clone(), json!("1e3")), (json!(1000), rule("string_to_integer")));
    assert_eq!(convert(i.clone(), json!(3.0)), (json!(3), rule("float_to_integer")));
    assert_eq!(convert(i.clone(), json!(3.7)), (json!(3), rule("float_truncated")));
    assert_eq!(convert(i.clone(), json!(-3.7)), (json!(-3), rule("float_truncated")));
    assert_eq!(convert(i.clone(), json!("3.7")), (json!(3), rule("string_to_integer")));
    assert_eq!(convert(i.clone(), json!("many")), (json!("many"), vec![]));
    assert_eq!(convert(i.clone(), json!("inf")), (json!("inf"), vec![]));
    assert_eq!(convert(i, json!(1e300)), (json!(1e300), vec![]), "out of any integer range: left for the typed read");
}

#[test]
fn numbers_from_text_but_not_infinity_or_nan() {
    let n = json!({"type": "number"});
    assert_eq!(convert(n.clone(), json!("2.5")), (json!(2.5), rule("string_to_number")));
    assert_eq!(convert(n.clone(), json!("-4")), (json!(-4), rule("string_to_number")));
    assert_eq!(convert(n.clone(), json!("nan")), (json!("nan"), vec![]));
    assert_eq!(convert(n, json!("inf")), (json!("inf"), vec![]));
}

#[test]
fn strings_keep_literal_text_and_are_never_promoted() {
    let s = json!({"type": "string"});
    assert_eq!(convert(s.clone(), json!(true)), (json!("true"), rule("literal_to_string")));
    assert_eq!(convert(s.clone(), json!(42)), (json!("42"), rule("literal_to_string")));
    assert_eq!(convert(s.clone(), json!(2.5)), (json!("2.5"), rule("literal_to_string")));
    assert_eq!(convert(s.clone(), json!("true")), (json!("true"), vec![]));
    assert_eq!(convert(s, json!("null")), (json!("null"), vec![]));
}

#[test]
fn null_words_mean_absent_only_for_non_string_optionals() {
    let opt_int = json!({"type": ["integer", "null"]});
    assert_eq!(convert(opt_int.clone(), json!("None")), (Value::Null, rule("null_literal")));
    assert_eq!(convert(opt_int.clone(), json!("null")), (Value::Null, rule("null_literal")));
    assert_eq!(convert(opt_int, json!("")), (Value::Null, rule("null_literal")));
    let opt_str = json!({"type": ["string", "null"]});
    assert_eq!(convert(opt_str, json!("None")), (json!("None"), vec![]));
    assert_eq!(convert(json!({"type": "integer"}), json!("None")), (json!("None"), vec![]), "not optional");
}

#[test]
fn null_words_mean_absent_for_optional_enums_unless_a_token_is_that_word() {
    let opt_enum = json!({"anyOf": [{"type": "string", "enum": ["low", "high"]}, {"type": "null"}]});
    assert_eq!(convert(opt_enum, json!("None")), (Value::Null, rule("null_literal")));
    let with_none = json!({"anyOf": [{"type": "string", "enum": ["none", "all"]}, {"type": "null"}]});
    assert_eq!(convert(with_none, json!("None")), (json!("none"), rule("enum_case_normalized")));
}

#[test]
fn lists_decode_json_text_and_wrap_scalars_then_convert_elements() {
    let list = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(
        convert(list.clone(), json!("[1, \"2\"]")),
        (json!([1, 2]), vec![("/p".into(), "json_string_decoded".into()), ("/p/1".into(), "string_to_integer".into())])
    );
    assert_eq!(convert(list.clone(), json!(5)), (json!([5]), rule("scalar_wrapped")));
    assert_eq!(
        convert(list, json!("7")),
        (json!([7]), vec![("/p".into(), "scalar_wrapped".into()), ("/p/0".into(), "string_to_integer".into())])
    );
    let strings = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(convert(strings.clone(), json!("foo")), (json!(["foo"]), rule("scalar_wrapped")));
    assert_eq!(convert(strings, json!("[\"u1\",\"u2\"]")), (json!(["u1", "u2"]), rule("json_string_decoded")));
}

#[test]
fn objects_and_maps_decode_json_and_python_text_and_convert_fields() {
    let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    assert_eq!(
        convert(map.clone(), json!("{\"User-Agent\":\"x\"}")),
        (json!({"User-Agent": "x"}), rule("json_string_decoded"))
    );
    assert_eq!(
        convert(map, json!("{'a': 1}")),
        (
            json!({"a": "1"}),
            vec![("/p".into(), "json_string_decoded".into()), ("/p/a".into(), "literal_to_string".into())]
        )
    );
    let object = json!({"type": "object", "properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}}});
    assert_eq!(
        convert(object, json!({"n": "3", "b": "TRUE"})),
        (
            json!({"n": 3, "b": true}),
            vec![("/p/n".into(), "string_to_integer".into()), ("/p/b".into(), "string_to_boolean".into())]
        )
    );
}

#[test]
fn map_values_are_converted_by_the_property_else_the_first_pattern_their_key_matches() {
    // schemars writes `BTreeMap<u32, _>` as `^\d+$` and `BTreeMap<i64, _>` as `^-?\d+$`.
    let map = json!({
        "type": "object",
        "properties": {"7": {"type": "string"}},
        "patternProperties": {"^\\d+$": {"type": "integer"}, "^-?\\d+$": {"type": "boolean"}, "x(": {"type": "boolean"}},
        "additionalProperties": {"type": "number"}
    });
    assert_eq!(
        convert(map, json!({"7": 7, "3": "4", "-1": "TRUE", "x": "2.5"})),
        (
            json!({"7": "7", "3": 4, "-1": true, "x": 2.5}),
            vec![
                ("/p/7".into(), "literal_to_string".into()),
                ("/p/3".into(), "string_to_integer".into()),
                ("/p/-1".into(), "string_to_boolean".into()),
                ("/p/x".into(), "string_to_number".into()),
            ]
        ),
        "a pattern that does not compile (`x(`) is ignored"
    );
}

fn warned(warnings: &[(&str, &str)]) -> Vec<(String, String)> {
    warnings.iter().map(|(pointer, rule)| ((*pointer).to_owned(), (*rule).to_owned())).collect()
}

/// An externally tagged enum as schemars writes it: `Asap`, `Within { hours: u32 }`, `Slot(u32)`.
fn external_enum() -> Value {
    json!({"oneOf": [
        {"type": "string", "enum": ["asap"]},
        {
            "type": "object",
            "properties": {"within": {
                "type": "object", "properties": {"hours": {"type": "integer"}}, "required": ["hours"]
            }},
            "required": ["within"],
            "additionalProperties": false
        },
        {
            "type": "object",
            "properties": {"slot": {"type": "integer"}},
            "required": ["slot"],
            "additionalProperties": false
        }
    ]})
}

#[test]
fn an_externally_tagged_enum_converts_its_token_its_one_key_and_the_content_under_it() {
    let e = external_enum();
    assert_eq!(
        convert(e.clone(), json!({"within": {"hours": "4"}})),
        (json!({"within": {"hours": 4}}), warned(&[("/p/within/hours", "string_to_integer")]))
    );
    assert_eq!(
        convert(e.clone(), json!({"Slot": "2"})),
        (json!({"slot": 2}), warned(&[("/p", "enum_case_normalized"), ("/p/slot", "string_to_integer")]))
    );
    assert_eq!(convert(e.clone(), json!("ASAP")), (json!("asap"), rule("enum_case_normalized")));
    assert_eq!(
        convert(e.clone(), json!("{\"slot\": \"2\"}")),
        (json!({"slot": 2}), warned(&[("/p", "json_string_decoded"), ("/p/slot", "string_to_integer")]))
    );
    // Not one key, or a key naming no variant: which variant it is would be a guess.
    let two = json!({"slot": "2", "within": {"hours": "4"}});
    assert_eq!(convert(e.clone(), two.clone()), (two, vec![]));
    assert_eq!(convert(e.clone(), json!({"later": "2"})), (json!({"later": "2"}), vec![]));
    // An enum takes no `null`: for an optional field without one, it means absent.
    let optional = json!({"type": "object", "properties": {"w": e}});
    assert_eq!(convert(optional, json!({"w": null})), (json!({}), warned(&[("/p/w", "null_as_absent")])));
}

#[test]
fn a_variant_name_is_normalised_only_when_one_name_matches_and_not_for_a_case_sensitive_parameter() {
    let e = json!({"oneOf": [
        {"type": "string", "const": "ab"},
        {"type": "object", "properties": {"AB": {"type": "integer"}}, "required": ["AB"], "additionalProperties": false}
    ]});
    assert_eq!(convert(e.clone(), json!({"Ab": "1"})), (json!({"Ab": "1"}), vec![]), "two names fold to it");
    assert_eq!(convert(e, json!({"AB": "1"})), (json!({"AB": 1}), warned(&[("/p/AB", "string_to_integer")])));

    let schema = json!({"type": "object", "properties": {"p": external_enum()}});
    let parameter = ToolParameter {
        name: "p".into(),
        value_kind: crate::ValueKind::Any,
        cardinality: crate::Cardinality::Single,
        required: true,
        description: String::new(),
        enum_constraint: Some(crate::EnumConstraint { allowed_values: vec![], case_sensitive: true }),
        example: None,
        default: None,
        strict: false,
    };
    let mut object = Map::from_iter([("p".to_owned(), json!({"SLOT": "2"}))]);
    assert!(coerce_arguments(&mut object, &Plan::compile(&schema), &[parameter], false).warnings.is_empty());
    assert_eq!(object["p"], json!({"SLOT": "2"}));
}

#[test]
fn a_tagged_enum_is_converted_by_the_variant_its_tag_names() {
    // `#[serde(tag = "type")]` with `Within { hours: u32 }` and `Boxed(Inner)`, and
    // `#[serde(tag = "t", content = "c")]` with `Slot(u32)`, as schemars writes them.
    let defs = json!({"Inner": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}});
    let internal = json!({"oneOf": [
        {"type": "object", "properties": {"type": {"type": "string", "const": "asap"}}, "required": ["type"]},
        {
            "type": "object",
            "properties": {"type": {"type": "string", "const": "within"}, "hours": {"type": "integer"}},
            "required": ["type", "hours"]
        },
        {
            "type": "object",
            "properties": {"type": {"type": "string", "const": "boxed"}},
            "$ref": "#/$defs/Inner",
            "required": ["type"]
        }
    ]});
    assert_eq!(
        convert_with_defs(internal.clone(), defs.clone(), json!({"hours": "4", "type": "Within"})),
        (
            json!({"hours": 4, "type": "within"}),
            warned(&[("/p/type", "enum_case_normalized"), ("/p/hours", "string_to_integer")])
        )
    );
    assert_eq!(
        convert_with_defs(internal.clone(), defs.clone(), json!({"type": "boxed", "n": 2.0})),
        (json!({"type": "boxed", "n": 2}), warned(&[("/p/n", "float_to_integer")]))
    );
    let unknown = json!({"type": "later", "hours": "4"});
    assert_eq!(convert_with_defs(internal, defs, unknown.clone()), (unknown, vec![]));

    let adjacent = json!({"oneOf": [
        {"type": "object", "properties": {"t": {"type": "string", "const": "asap"}}, "required": ["t"]},
        {
            "type": "object",
            "properties": {"t": {"type": "string", "const": "slot"}, "c": {"type": "integer"}},
            "required": ["t", "c"]
        }
    ]});
    assert_eq!(
        convert(adjacent, json!({"c": "3", "t": "SLOT"})),
        (json!({"c": 3, "t": "slot"}), warned(&[("/p/t", "enum_case_normalized"), ("/p/c", "string_to_integer")]))
    );
}

#[test]
fn untagged_enums_and_objects_without_a_common_tag_are_not_variants() {
    // `#[serde(untagged)]`: schemars writes `anyOf`, and which branch a value is is a guess.
    let untagged = json!({"anyOf": [
        {"type": "integer"},
        {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": false}
    ]});
    assert_eq!(convert(untagged, json!({"x": "1"})), (json!({"x": "1"}), vec![]));
    let no_tag = json!({"oneOf": [
        {"type": "object", "properties": {"k": {"type": "string", "const": "a"}, "n": {"type": "integer"}}},
        {"type": "object", "properties": {"k": {"type": "string", "const": "b"}}, "required": ["k"]}
    ]});
    assert_eq!(convert(no_tag, json!({"k": "a", "n": "1"})), (json!({"k": "a", "n": "1"}), vec![]), "not required");
}

#[test]
fn enum_tokens_are_normalised_only_when_unambiguous() {
    let e = json!({"type": "string", "enum": ["customer", "partner", "Partner"]});
    assert_eq!(convert(e.clone(), json!("Customer")), (json!("customer"), rule("enum_case_normalized")));
    assert_eq!(convert(e.clone(), json!("PARTNER")), (json!("PARTNER"), vec![]), "two tokens fold to it");
    assert_eq!(convert(e, json!("vendor")), (json!("vendor"), vec![]));
    let numbered = json!({"oneOf": [{"const": 1}, {"const": 2}]});
    assert_eq!(convert(numbered, json!("2")), (json!(2), rule("enum_token_retyped")));
}

#[test]
fn case_sensitive_parameters_keep_their_case() {
    let schema = json!({"type": "object", "properties": {"p": {"type": "string", "enum": ["low"]}}});
    let parameter = ToolParameter {
        name: "p".into(),
        value_kind: crate::ValueKind::EnumToken,
        cardinality: crate::Cardinality::Single,
        required: true,
        description: String::new(),
        enum_constraint: Some(crate::EnumConstraint { allowed_values: vec!["low".into()], case_sensitive: true }),
        example: None,
        default: None,
        strict: false,
    };
    let mut object = Map::from_iter([("p".to_owned(), json!("LOW"))]);
    assert!(coerce_arguments(&mut object, &Plan::compile(&schema), &[parameter], false).warnings.is_empty());
    assert_eq!(object["p"], json!("LOW"));
}

#[test]
fn a_single_wrapper_key_is_unwrapped_when_its_content_fits() {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}});
    for wrapper in ["_", "arguments", "input"] {
        let mut object = Map::from_iter([(wrapper.to_owned(), json!({"path": "a.md", "n": "2"}))]);
        let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
        assert_eq!(Value::Object(object), json!({"path": "a.md", "n": 2}));
        let rules: Vec<(&str, &str)> = warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
        assert_eq!(rules, vec![(format!("/{wrapper}").as_str(), "wrapper_unwrapped"), ("/n", "string_to_integer")]);
    }
    let mut unrelated = Map::from_iter([("other".to_owned(), json!({"x": 1}))]);
    assert!(coerce_arguments(&mut unrelated, &Plan::compile(&schema), &[], false).warnings.is_empty());
    assert_eq!(unrelated["other"], json!({"x": 1}));
}

#[test]
fn references_and_nullable_references_are_followed() {
    let schema = json!({
        "type": "object",
        "properties": {"p": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]}},
        "$defs": {"Mode": {"type": "string", "enum": ["fast", "slow"]}}
    });
    let mut object = Map::from_iter([("p".to_owned(), json!("FAST"))]);
    let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
    assert_eq!(object["p"], json!("fast"));
    assert_eq!(warnings[0].rule(), "enum_case_normalized");
    assert_eq!(warnings[0].expected(), "one of: `fast`, `slow`");
    assert_eq!(warnings[0].received(), "\"FAST\"");
}

#[test]
fn received_text_is_written_as_serde_json_writes_it() {
    let texts = [
        "plain",
        "quote \" and \\ slash",
        "tab\tnew\nline\r",
        "\u{1}\u{1f}\u{7f}",
        "\u{8}\u{c} back",
        "é 店 🦀",
        "\"",
        "",
    ];
    let mut values: Vec<Value> = texts.iter().map(|t| json!(t)).collect();
    values.extend([json!(null), json!(true), json!(false), json!(-3), json!(2.5), json!(1e300), json!([1, "a"])]);
    values.extend([json!(0), json!(u64::MAX), json!(i64::MIN), json!(-1), json!(4211)]);
    for value in values {
        let mut out = String::new();
        push_json(&mut out, &value);
        assert_eq!(out, value.to_string());
    }
    let long = json!("x".repeat(300));
    let mut out = String::new();
    push_json(&mut out, &long);
    assert_eq!(out, crate::model::received_text(&long));
}

#[test]
fn recursive_types_convert_at_every_depth() {
    let schema = json!({
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
        }}
    });
    let mut object =
        Map::from_iter([("p".to_owned(), json!({"n": "1", "kids": [{"n": "2", "kids": "[{\"n\": 3.0}]"}]}))]);
    let warnings = coerce_arguments(&mut object, &Plan::compile(&schema), &[], false).warnings;
    assert_eq!(object["p"], json!({"n": 1, "kids": [{"n": 2, "kids": [{"n": 3}]}]}));
    let rules: Vec<(&str, &str)> = warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
    assert_eq!(
        rules,
        vec![
            ("/p/n", "string_to_integer"),
            ("/p/kids/0/n", "string_to_integer"),
            ("/p/kids/0/kids", "json_string_decoded"),
            ("/p/kids/0/kids/0/n", "float_to_integer"),
        ]
    );
}
