//! A generated set of 240 varied tools, exported in every dialect: each export either succeeds
//! and its output passes the dialect's rule checker (PROVIDERS.md: O1-O9, A1-A4, G1-G3, MCP),
//! or fails with an error that names a construct the dialect cannot express.
//!
//! The schemas are what schemars writes for Rust types (formats, type lists and `anyOf` for
//! options, `$defs` and `$ref`, tagged unions as `oneOf` with `const`, tuples as
//! `prefixItems`, maps, recursive types) plus the constraint keywords `#[param]` adds, mixed by a
//! seeded generator so that every run checks the same tools.

use serde_json::{json, Map, Value};
use tool_core::prelude::*;
use tool_core::providers::check::check_tool;
use tool_core::providers::{export, Dialect, ExportProblem};
use tool_tests::dynamic;

/// A small seeded generator (xorshift), so the set is the same on every run.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const FORMATS: [&str; 8] = ["uint8", "uint16", "uint32", "uint64", "int8", "int32", "int64", "uint"];
const STRING_FORMATS: [&str; 6] = ["date-time", "date", "uri", "email", "uuid", "hostname"];

/// A scalar the way schemars writes it, with constraints `#[param]` may add.
fn scalar(rng: &mut Seeded) -> Value {
    match rng.below(6) {
        0 => {
            let mut s = json!({"type": "string"});
            if rng.chance(30) {
                s["minLength"] = json!(1 + rng.below(3));
                s["maxLength"] = json!(10 + rng.below(50));
            }
            if rng.chance(20) {
                s["pattern"] = json!("^[a-z0-9-]+$");
            }
            if rng.chance(20) {
                s["format"] = json!(STRING_FORMATS[rng.below(STRING_FORMATS.len())]);
            }
            s
        }
        1 => {
            let format = FORMATS[rng.below(FORMATS.len())];
            let mut s = json!({"type": "integer", "format": format});
            if format.starts_with('u') {
                s["minimum"] = json!(0);
            }
            if rng.chance(30) {
                s["minimum"] = json!(1);
                s["maximum"] = json!(100);
            }
            if rng.chance(15) {
                s["exclusiveMinimum"] = json!(0);
            }
            if rng.chance(10) {
                s["multipleOf"] = json!(5);
            }
            s
        }
        2 => {
            let mut s = json!({"type": "number", "format": if rng.chance(50) { "double" } else { "float" }});
            if rng.chance(30) {
                s["minimum"] = json!(0.0);
                s["maximum"] = json!(1.0);
            }
            s
        }
        3 => json!({"type": "boolean"}),
        4 => json!({"type": "string", "enum": ["low", "medium", "high"]}),
        _ => json!({"type": "string", "description": "Free text."}),
    }
}

/// A value schema: a scalar, a list, a map, a tuple, an option, or a reference to a struct,
/// union or recursive type in `defs`.
fn value(rng: &mut Seeded, defs: &mut Map<String, Value>, depth: usize) -> Value {
    let pick = if depth > 2 { rng.below(2) } else { rng.below(10) };
    match pick {
        0 | 1 => scalar(rng),
        2 => {
            let mut list = json!({"type": "array", "items": value(rng, defs, depth + 1)});
            if rng.chance(20) {
                list["minItems"] = json!(1 + rng.below(3));
                list["uniqueItems"] = json!(true);
            }
            list
        }
        3 => json!({"type": "object", "additionalProperties": value(rng, defs, depth + 1)}),
        4 => json!({"type": "array", "prefixItems": [scalar(rng), scalar(rng)], "minItems": 2, "maxItems": 2}),
        5 => {
            // An option: a type list for scalars, `anyOf` with null otherwise.
            let inner = value(rng, defs, depth + 1);
            match inner.get("type").and_then(Value::as_str) {
                Some(t) if t != "object" && t != "array" && inner.get("enum").is_none() => {
                    let mut option = inner.clone();
                    option["type"] = json!([t, "null"]);
                    option
                }
                _ => json!({"anyOf": [inner, {"type": "null"}]}),
            }
        }
        6 | 7 => {
            let name = format!("Struct{}", defs.len());
            defs.insert(name.clone(), Value::Null);
            let fields = 1 + rng.below(4);
            let mut properties = Map::new();
            let mut required = Vec::new();
            for i in 0..fields {
                let field = format!("field_{i}");
                properties.insert(field.clone(), value(rng, defs, depth + 1));
                if rng.chance(70) {
                    required.push(json!(field));
                }
            }
            defs.insert(
                name.clone(),
                json!({"type": "object", "description": "A nested struct.", "properties": properties, "required": required}),
            );
            json!({"$ref": format!("#/$defs/{name}")})
        }
        8 => {
            let name = format!("Union{}", defs.len());
            defs.insert(
                name.clone(),
                json!({"description": "A tagged union.", "oneOf": [
                    {"type": "object", "properties": {"kind": {"type": "string", "const": "a"}, "x": scalar(rng)}, "required": ["kind", "x"]},
                    {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}, "y": scalar(rng)}, "required": ["kind", "y"]},
                ]}),
            );
            json!({"$ref": format!("#/$defs/{name}")})
        }
        _ => {
            let name = format!("Tree{}", defs.len());
            defs.insert(
                name.clone(),
                json!({"type": "object", "description": "A recursive node.", "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": format!("#/$defs/{name}")}},
                }, "required": ["label", "children"]}),
            );
            json!({"$ref": format!("#/$defs/{name}"), "description": "A tree."})
        }
    }
}

fn generated_tools(count: usize) -> Vec<DynamicTool> {
    let mut rng = Seeded(0x5eed_1234_abcd_ef01);
    (0..count)
        .map(|i| {
            let mut defs = Map::new();
            let mut properties = Map::new();
            let mut required = Vec::new();
            for p in 0..rng.below(6) {
                let name = format!("param_{p}");
                let mut schema = value(&mut rng, &mut defs, 0);
                if rng.chance(50) {
                    schema["description"] = json!(format!("Parameter {p}."));
                }
                if rng.chance(60) {
                    required.push(json!(name));
                } else if rng.chance(30) && schema.get("type") == Some(&json!("string")) {
                    schema["default"] = json!("x");
                }
                properties.insert(name, schema);
            }
            let mut schema = json!({"type": "object", "properties": properties, "required": required});
            if !defs.is_empty() {
                schema["$defs"] = Value::Object(defs);
            }
            let name = if i % 3 == 0 { format!("generated.tool_{i}") } else { format!("generated_tool_{i}") };
            dynamic(name, format!("Generated tool number {i}."), schema)
        })
        .collect()
}

const DIALECTS: [Dialect; 10] = [
    Dialect::OpenAiChat { strict: false },
    Dialect::OpenAiChat { strict: true },
    Dialect::OpenAiResponses { strict: false },
    Dialect::OpenAiResponses { strict: true },
    Dialect::Anthropic { strict: false },
    Dialect::Anthropic { strict: true },
    Dialect::Gemini,
    Dialect::GeminiJsonSchema,
    Dialect::Mcp,
    Dialect::JsonSchema,
];

#[test]
fn every_generated_tool_exports_in_every_dialect_within_the_providers_rules() {
    let tools = generated_tools(240);
    let mut exported_count = 0;
    let mut refused = Vec::new();
    for dialect in DIALECTS {
        for tool in &tools {
            match export(dialect, [tool.definition()]) {
                Ok(exported) => {
                    exported_count += 1;
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
    // 240 tools in 10 dialects; the 102 refusals are the tools with a recursive type.
    assert_eq!((exported_count, refused.len()), (2298, 102));
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
        for dialect in DIALECTS {
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
