//! The generated set (`tool_tests::generated`, 240 tools), exported in every dialect: each
//! export either succeeds and its output passes the dialect's rule checker (docs/providers.md:
//! O1-O9, A1-A4, G1-G3, MCP), or fails with an error that names a construct the dialect cannot
//! express. Values of any type, free-form maps and property names a provider refuses are in the
//! set: they go out as JSON text or renamed, never as an error.

use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::providers::check::check_tool;
use tool_core::providers::export::{export, ExportProblem};
use tool_core::providers::Dialect;
use tool_tests::generated::generated_tools;
use tool_tests::{dynamic, DIALECTS};

#[test]
fn every_generated_tool_exports_in_every_dialect_within_the_providers_rules() {
    let tools = generated_tools(240);
    let mut exported_count = 0;
    let mut refused = Vec::new();
    // Report notes: property names mapped, values sent as JSON text.
    let (mut renamed, mut as_text) = (0, 0);
    for &dialect in DIALECTS {
        for tool in &tools {
            match export(dialect, [tool.definition()]) {
                Ok(exported) => {
                    exported_count += 1;
                    for note in exported.reports.iter().flat_map(|r| &r.notes) {
                        renamed += usize::from(note.detail.starts_with("the property name"));
                        as_text += usize::from(note.detail.contains("sent as JSON text"));
                    }
                    let violations = check_tool(dialect, &exported.tools[0]);
                    assert!(
                        violations.is_empty(),
                        "{} in {}: {violations:#?}\n{:#}",
                        tool.definition().name,
                        dialect.label(),
                        exported.tools[0]
                    );
                }
                Err(error) => {
                    for problem in &error.problems {
                        let ExportProblem::Inexpressible { construct, .. } = problem else {
                            panic!("{}: unexpected {problem}", tool.definition().name);
                        };
                        refused.push((dialect.label(), construct.clone()));
                    }
                }
            }
        }
    }
    // Only Anthropic's strict mode refuses, and only recursive types.
    assert!(refused
        .iter()
        .all(|(dialect, construct)| *dialect == "Anthropic (strict)"
            && construct.starts_with("the recursive type `Tree")));
    // 240 tools in 10 dialects; the 76 refusals are the tools with a recursive type.
    assert_eq!((exported_count, refused.len()), (2324, 76));
    assert_eq!((renamed, as_text), (643, 1368));
}

/// Any JSON value, weighted towards schema keywords, as a schema from outside (an MCP server)
/// may be.
fn arbitrary_schema() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let keyword = prop::sample::select(vec![
        "type",
        "properties",
        "items",
        "prefixItems",
        "additionalProperties",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "enum",
        "const",
        "format",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "default",
        "required",
        "nullable",
        "description",
        "title",
        "x-kind",
        "not",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "object",
            "string",
            "integer",
            "null",
            "uint32",
            "date-time",
            "#/$defs/A",
            "#/$defs/B",
            "#",
            "#/properties/a",
            "#/definitions/A",
            "A",
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((keyword.clone(), inner.clone()), 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
            prop::collection::vec((prop::sample::select(vec!["a", "b", "A", "B"]), inner), 0..3)
                .prop_map(|entries| Value::Object(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    #[test]
    fn any_schema_exports_or_fails_with_a_reason_and_never_panics(properties in arbitrary_schema(), defs in arbitrary_schema()) {
        let schema = json!({"type": "object", "properties": {"p": properties}, "$defs": {"A": defs.clone(), "B": {"$ref": "#/$defs/A"}}});
        let tool = dynamic("outside.tool", "From outside.", schema);
        for &dialect in DIALECTS {
            match export(dialect, [tool.definition()]) {
                Ok(exported) => proptest::prop_assert_eq!(exported.tools.len(), 1),
                Err(error) => proptest::prop_assert!(!error.problems.is_empty()),
            }
        }
    }
}

#[test]
fn a_schema_that_multiplies_when_written_out_in_place_is_refused_not_expanded() {
    // Each definition refers to the next one twice: 2^30 copies if Gemini's inlining ran on.
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {
                "left": {"$ref": format!("#/$defs/D{}", i + 1)},
                "right": {"$ref": format!("#/$defs/D{}", i + 1)},
            }}),
        );
    }
    defs.insert("D30".into(), json!({"type": "string"}));
    let tool = dynamic(
        "wide.tree",
        "A tree that doubles at every level.",
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/D0"}}, "$defs": defs}),
    );
    let error = export(Dialect::Gemini, [tool.definition()]).unwrap_err();
    assert_eq!(error.problems.len(), 1);
    assert!(error.to_string().contains("larger than 20000 nodes once written out"), "{error}");
    // Dialects that keep `$ref` export it as it is.
    assert!(export(Dialect::OpenAiChat { strict: true }, [tool.definition()]).is_ok());
}
