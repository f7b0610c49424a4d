//! Tool definitions out: every dialect's exact output for a set of tools that covers nested
//! structs, enums, options of scalars, enums and structs, lists of structs, maps, integer and
//! float widths, a tagged enum, a tuple, a recursive type, constraints, a tool without
//! parameters and a dotted name (insta snapshots), and the rules behind them (exact values).

use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::providers::check::{check_request, check_tool};
use tool_core::providers::export::{export, ExportProblem, NoteAction};
use tool_core::providers::Dialect;
use tool_tests::dialect_tools::{catalog, TOOLS};
use tool_tests::dynamic;

const DIALECTS: [(&str, Dialect); 10] = [
    ("openai_chat", Dialect::OpenAiChat { strict: false }),
    ("openai_chat_strict", Dialect::OpenAiChat { strict: true }),
    ("openai_responses", Dialect::OpenAiResponses { strict: false }),
    ("openai_responses_strict", Dialect::OpenAiResponses { strict: true }),
    ("anthropic", Dialect::Anthropic { strict: false }),
    ("anthropic_strict", Dialect::Anthropic { strict: true }),
    ("gemini", Dialect::Gemini),
    ("gemini_json_schema", Dialect::GeminiJsonSchema),
    ("mcp", Dialect::Mcp),
    ("json_schema", Dialect::JsonSchema),
];

fn definition(name: &str) -> &'static ToolDefinition {
    catalog().definition(name).unwrap()
}

/// Each tool alone in `dialect`: its wire form and report, or the export error.
fn exported_alone(dialect: Dialect) -> Value {
    let mut out = serde_json::Map::new();
    for name in TOOLS {
        let entry = match export(dialect, [definition(name)]) {
            Ok(exported) => json!({
                "tool": exported.tools[0],
                "report": exported.reports.first().map(|r| &r.notes),
            }),
            Err(error) => json!({"error": error.to_string()}),
        };
        out.insert(name.to_owned(), entry);
    }
    Value::Object(out)
}

#[test]
fn every_dialect_matches_its_snapshot() {
    for (label, dialect) in DIALECTS {
        insta::assert_json_snapshot!(label, exported_alone(dialect));
    }
}

#[test]
fn a_dotted_name_goes_out_with_an_underscore_and_maps_back() {
    let exported = export(Dialect::OpenAiChat { strict: false }, [definition("shipment.create")]).unwrap();
    assert_eq!(exported.tools[0]["function"]["name"], "shipment_create");
    assert_eq!(exported.names.tool_name("shipment_create"), "shipment.create");
    assert_eq!(exported.names.wire_name("shipment.create"), "shipment_create");
    let gemini = export(Dialect::Gemini, [definition("shipment.create")]).unwrap();
    assert_eq!(gemini.tools[0]["name"], "shipment.create");
    assert_eq!(gemini.names.renamed().count(), 0);
}

#[test]
fn a_mapped_name_meeting_another_tool_is_an_error_naming_both() {
    let gcd = |name: &str| dynamic(name, "Greatest common divisor.", json!({"type": "object", "properties": {}}));
    let (dotted, plain) = (gcd("math.gcd"), gcd("math_gcd"));
    let error = export(Dialect::Anthropic { strict: false }, [dotted.definition(), plain.definition()]).unwrap_err();
    assert_eq!(
        error.problems,
        vec![ExportProblem::NameCollision {
            first: "math.gcd".into(),
            second: "math_gcd".into(),
            wire: "math_gcd".into(),
            dialect: "Anthropic",
        }]
    );
    assert_eq!(
        error.to_string(),
        "the tools cannot be exported: tools `math.gcd` and `math_gcd` would both be sent as `math_gcd` to Anthropic; rename one"
    );
    // MCP accepts the dot: no collision.
    assert!(export(Dialect::Mcp, [dotted.definition(), plain.definition()]).is_ok());
}

#[test]
fn openai_strict_makes_every_property_required_and_the_optional_ones_nullable() {
    let exported = export(Dialect::OpenAiChat { strict: true }, [definition("canvas_draw")]).unwrap();
    let parameters = &exported.tools[0]["function"]["parameters"];
    assert_eq!(parameters["required"], json!(["shape", "at", "opacity", "layer"]));
    assert_eq!(parameters["additionalProperties"], json!(false));
    // `Option<u8>`: already nullable (a type list); its width said as bounds.
    assert_eq!(
        parameters["properties"]["layer"],
        json!({"type": ["integer", "null"], "minimum": 0, "maximum": 255, "description": "Layer number."})
    );
    assert_eq!(exported.tools[0]["function"]["strict"], json!(true));
}

#[test]
fn openai_strict_sends_a_map_as_json_text_and_reports_it() {
    let exported = export(Dialect::OpenAiChat { strict: true }, [definition("shipment.create")]).unwrap();
    let metadata = &exported.tools[0]["function"]["parameters"]["properties"]["metadata"];
    assert_eq!(
        metadata,
        &json!({"description": "Free-form labels. (a JSON object as text, mapping names to strings)", "type": "string"})
    );
    let note = exported.reports[0].notes.iter().find(|n| n.keyword == "additionalProperties").unwrap();
    assert_eq!(note.pointer, "/properties/metadata");
    assert_eq!(note.action, NoteAction::Rewritten);
}

#[tokio::test]
async fn a_map_sent_as_json_text_reaches_the_tool_as_a_map() {
    // What a strict-mode model sends for the map above, and for the nullable optional fields.
    let executor = Executor::new(catalog().clone());
    let raw = r#"{"recipient": {"name": "Ada", "street": "1 Main St", "line2": null, "postcode": null},
        "return_to": null, "items": [], "service": "express", "upgrade": null,
        "metadata": "{\"order\": \"A-1\"}", "insured_value": null, "account": 7, "reference": "PO-12",
        "parcels": null}"#;
    let record = executor.execute(ToolCallRequest::new("shipment.create", "call_1", raw)).await;
    assert_eq!(record.status, CallStatus::Success, "{}", record.content.text);
    let rules: Vec<(&str, &str)> = record.warnings().iter().map(|w| (w.pointer(), w.rule())).collect();
    assert_eq!(rules, vec![("/parcels", "null_as_absent"), ("/metadata", "json_string_decoded")]);
}

#[test]
fn gemini_inlines_references_says_null_as_nullable_and_cuts_recursion_in_words() {
    let exported = export(Dialect::Gemini, [definition("folders.create")]).unwrap();
    let root = &exported.tools[0]["parameters"]["properties"]["root"];
    assert_eq!(root["type"], "object");
    assert_eq!(root["description"], "The top folder.");
    let children = &root["properties"]["children"];
    assert_eq!(
        children["items"],
        json!({
            "type": "string",
            "description": "A folder and what is in it. (a `Folder` as JSON text, with the same fields as the enclosing `Folder`)",
        })
    );
    let gemini = export(Dialect::Gemini, [definition("shipment.create")]).unwrap();
    let postcode = &gemini.tools[0]["parameters"]["properties"]["recipient"]["properties"]["postcode"];
    assert_eq!(postcode, &json!({"type": "integer", "nullable": true, "minimum": 0, "description": "Postal code."}));
}

#[test]
fn anthropic_strict_refuses_a_recursive_type_by_name() {
    let error = export(Dialect::Anthropic { strict: true }, [definition("folders.create")]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the tools cannot be exported: tool `folders.create`: the recursive type `Folder` at `/$defs/Folder` cannot be expressed in Anthropic (strict)"
    );
}

#[test]
fn a_tool_without_parameters_gets_each_providers_empty_form() {
    let clock = definition("clock.now");
    let openai = export(Dialect::OpenAiChat { strict: true }, [clock]).unwrap();
    assert_eq!(
        openai.tools[0]["function"]["parameters"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    let gemini = export(Dialect::Gemini, [clock]).unwrap();
    assert_eq!(gemini.tools[0], json!({"name": "clock.now", "description": "The current time."}));
    let mcp = export(Dialect::Mcp, [clock]).unwrap();
    assert_eq!(mcp.tools[0]["inputSchema"], json!({"type": "object", "additionalProperties": false}));
    assert_eq!(mcp.tools[0]["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
}

#[test]
fn the_request_fragment_has_each_providers_envelope() {
    let clock = definition("clock.now");
    let gemini = export(Dialect::Gemini, [clock]).unwrap();
    assert_eq!(
        gemini.request_fragment(),
        json!({"tools": [{"functionDeclarations": [{"name": "clock.now", "description": "The current time."}]}]})
    );
    let responses = export(Dialect::OpenAiResponses { strict: false }, [clock]).unwrap();
    assert_eq!(
        responses.request_fragment(),
        json!({"tools": [{"type": "function", "name": "clock_now", "description": "The current time.",
            "parameters": {"type": "object", "properties": {}}, "strict": false}]})
    );
}

#[test]
fn anthropic_strict_counts_optional_parameters_over_the_whole_request() {
    let properties: serde_json::Map<String, Value> =
        (0..25).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    let tool = dynamic("wide", "Many optional parameters.", json!({"type": "object", "properties": properties}));
    let error = export(Dialect::Anthropic { strict: true }, [tool.definition()]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the tools cannot be exported: Anthropic (strict) takes at most 24 optional parameters per request; these tools have 25"
    );
    // Without strict mode there is no such limit.
    assert!(export(Dialect::Anthropic { strict: false }, [tool.definition()]).is_ok());
}

#[test]
fn every_snapshot_tool_passes_its_dialects_rule_checker() {
    for (label, dialect) in DIALECTS {
        let mut exported_tools = Vec::new();
        for name in TOOLS {
            if let Ok(exported) = export(dialect, [definition(name)]) {
                assert_eq!(check_tool(dialect, &exported.tools[0]), vec![], "{name} in {label}");
                exported_tools.push(exported.tools[0].clone());
            }
        }
        assert_eq!(check_request(dialect, &exported_tools), vec![], "{label}");
        // Only Anthropic's strict mode refuses one of them (the recursive type).
        let expected = if label == "anthropic_strict" { TOOLS.len() - 1 } else { TOOLS.len() };
        assert_eq!(exported_tools.len(), expected, "{label}");
    }
}

#[test]
fn nested_definitions_are_hoisted_to_the_root_and_their_references_follow() {
    // The shape behind `openai_error_nested_defs.json`: a generator nested `$defs`, and OpenAI
    // refused "reference to component '#/$defs/Shared' which was not found in the schema".
    let tool = dynamic(
        "layout.render",
        "Renders elements.",
        json!({"type": "object", "properties": {
            "elements": {"type": "array", "items": {
                "type": "object",
                "properties": {"shared": {"$ref": "#/$defs/Shared"}, "own": {"$ref": "#/properties/elements/$defs/Own"}},
                "required": ["shared", "own"],
            }, "$defs": {
                "Shared": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
                "Own": {"type": "string", "enum": ["a", "b"]},
            }},
        }, "required": ["elements"]}),
    );
    let exported = export(Dialect::OpenAiChat { strict: true }, [tool.definition()]).unwrap();
    let parameters = &exported.tools[0]["function"]["parameters"];
    assert_eq!(
        parameters["properties"]["elements"]["items"]["properties"],
        json!({"shared": {"$ref": "#/$defs/Shared"}, "own": {"$ref": "#/$defs/Own"}})
    );
    assert_eq!(
        parameters["$defs"],
        json!({
            "Shared": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"],
                "additionalProperties": false},
            "Own": {"type": "string", "enum": ["a", "b"]},
        })
    );
    assert_eq!(check_tool(Dialect::OpenAiChat { strict: true }, &exported.tools[0]), vec![]);
    // Gemini `parameters` writes both out in place.
    let gemini = export(Dialect::Gemini, [tool.definition()]).unwrap();
    assert_eq!(
        gemini.tools[0]["parameters"]["properties"]["elements"]["items"]["properties"]["own"],
        json!({"type": "string", "enum": ["a", "b"]})
    );
}

#[tokio::test]
async fn a_constraint_moved_into_the_description_is_still_enforced_at_call_time() {
    let exported = export(Dialect::Anthropic { strict: true }, [definition("shipment.create")]).unwrap();
    let reference = &exported.tools[0]["input_schema"]["properties"]["reference"];
    assert_eq!(reference["description"], "The sender's reference. (minLength: 4; maxLength: 12)");
    assert_eq!(reference.get("minLength"), None);
    let executor = Executor::new(catalog().clone());
    let raw = r#"{"recipient": {"name": "Ada", "street": "1 Main St"}, "items": [], "service": "express",
        "metadata": {}, "account": 7, "reference": "PO1"}"#;
    let record = executor.execute(ToolCallRequest::new("shipment.create", "call_2", raw)).await;
    assert_eq!(record.status, CallStatus::Failed);
    let errors = &record.request.parse_error.as_ref().unwrap().errors;
    let rules: Vec<(&str, &str)> = errors.iter().map(|e| (e.pointer.as_str(), e.rule.as_str())).collect();
    assert_eq!(rules, vec![("/reference", "min_length"), ("/reference", "pattern")]);
}

#[test]
fn openai_strict_refuses_objects_nested_deeper_than_ten_levels() {
    let mut schema = json!({"type": "object", "properties": {"leaf": {"type": "string"}}, "required": ["leaf"]});
    for _ in 0..11 {
        schema = json!({"type": "object", "properties": {"inner": schema}, "required": ["inner"]});
    }
    let tool = dynamic("deep.nest", "Deep.", schema);
    let error = export(Dialect::OpenAiChat { strict: true }, [tool.definition()]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the tools cannot be exported: tool `deep.nest`: 12 levels of nested objects (at most 10) at `` cannot be expressed in OpenAI Chat Completions (strict)"
    );
    assert!(export(Dialect::OpenAiChat { strict: false }, [tool.definition()]).is_ok());
}
