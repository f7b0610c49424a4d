//! The rule checkers: for each rule of docs/providers.md, a definition that breaks it (and the exact
//! violation) and definitions that pass.

use serde_json::{json, Map, Value};
use tool_core::providers::check::{check_request, check_tool, Violation};
use tool_core::providers::Dialect;

const CHAT_STRICT: Dialect = Dialect::OpenAiChat { strict: true };
const CHAT: Dialect = Dialect::OpenAiChat { strict: false };
const RESPONSES_STRICT: Dialect = Dialect::OpenAiResponses { strict: true };
const RESPONSES: Dialect = Dialect::OpenAiResponses { strict: false };
const ANTHROPIC_STRICT: Dialect = Dialect::Anthropic { strict: true };
const ANTHROPIC: Dialect = Dialect::Anthropic { strict: false };

fn v(rule: &'static str, pointer: &str, message: &str) -> Violation {
    Violation { rule, pointer: pointer.to_owned(), message: message.to_owned() }
}

/// A strict-mode parameters schema that follows every rule: optional fields nullable, closed
/// objects, a recursive definition, constraints OpenAI supports.
fn openai_strict_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Keywords.", "pattern": "^\\w+$"},
            "limit": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 50}, {"type": "null"}]},
            "since": {"type": ["string", "null"], "format": "date-time"},
            "order": {"anyOf": [{"$ref": "#/$defs/Order"}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5},
            "place": {"$ref": "#/$defs/Place"},
            "mode": {"type": ["string", "null"], "enum": ["fast", "exact", null]}
        },
        "required": ["query", "limit", "since", "order", "tags", "place", "mode"],
        "additionalProperties": false,
        "$defs": {
            "Order": {"type": "string", "enum": ["newest", "oldest"]},
            "Place": {
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "next": {"anyOf": [{"$ref": "#/$defs/Place"}, {"type": "null"}]}
                },
                "required": ["street", "next"],
                "additionalProperties": false
            }
        }
    })
}

fn chat(name: &str, strict: Value, parameters: Value) -> Value {
    json!({"type": "function", "function": {"name": name, "description": "Search.", "strict": strict, "parameters": parameters}})
}

fn strict_chat(parameters: Value) -> Value {
    chat("memory_search", json!(true), parameters)
}

/// A strict parameters object with one property `x`.
fn one_property(x: Value) -> Value {
    json!({"type": "object", "properties": {"x": x}, "required": ["x"], "additionalProperties": false})
}

fn anthropic(strict: bool, input_schema: Value) -> Value {
    let mut tool = json!({"name": "memory_search", "description": "Search.", "input_schema": input_schema});
    if strict {
        tool["strict"] = json!(true);
    }
    tool
}

fn anthropic_strict_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "pattern": "^\\w+$", "title": "Query"},
            "limit": {"type": "integer", "default": 3},
            "site": {"type": "string", "format": "uri"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "place": {"$ref": "#/$defs/Place"},
            "mode": {"enum": ["fast", 2, true, null]},
            "both": {"allOf": [{"type": "object", "properties": {}, "additionalProperties": false}]},
            "file.name": {"type": "string"}
        },
        "required": ["query"],
        "additionalProperties": false,
        "$defs": {
            "Place": {"type": "object", "properties": {"street": {"type": "string"}}, "additionalProperties": false}
        }
    })
}

fn gemini(parameters: Value) -> Value {
    json!({"name": "memory.search", "description": "Search.", "parameters": parameters})
}

fn gemini_json(schema: Value) -> Value {
    json!({"name": "memory.search", "description": "Search.", "parametersJsonSchema": schema})
}

fn mcp(input_schema: Value) -> Value {
    json!({"name": "memory.search", "title": "Search memory", "description": "Search.", "inputSchema": input_schema})
}

#[test]
fn well_formed_tools_pass_in_every_dialect() {
    let parameters = openai_strict_parameters();
    assert_eq!(check_tool(CHAT_STRICT, &strict_chat(parameters.clone())), vec![]);
    let mut flat = json!({"type": "function", "name": "memory_search", "strict": true, "parameters": parameters});
    assert_eq!(check_tool(RESPONSES_STRICT, &flat), vec![]);
    flat["strict"] = json!(false);
    flat["parameters"] = json!({
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1}, "at": {"type": "string", "format": "uri"}},
        "required": ["query"]
    });
    assert_eq!(check_tool(RESPONSES, &flat), vec![]);
    assert_eq!(check_tool(ANTHROPIC_STRICT, &anthropic(true, anthropic_strict_schema())), vec![]);
    let loose = json!({
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1}, "n": {"type": "integer", "minimum": 1}},
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
    });
    assert_eq!(check_tool(ANTHROPIC, &anthropic(false, loose.clone())), vec![]);
    let parameters = json!({
        "type": "OBJECT",
        "properties": {
            "query": {"type": "STRING", "description": "Keywords.", "minLength": 1, "example": "rust"},
            "since": {"type": "string", "format": "date-time", "nullable": true},
            "order": {"type": "STRING", "format": "enum", "enum": ["newest", "oldest"]},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": 5},
            "either": {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]},
            "page_size": {"type": "INTEGER", "minimum": 1, "default": 10}
        },
        "required": ["query"],
        "propertyOrdering": ["query", "since", "order", "tags", "either", "page_size"]
    });
    assert_eq!(check_tool(Dialect::Gemini, &gemini(parameters.clone())), vec![]);
    let wrapper = json!({"functionDeclarations": [gemini(parameters), {"name": "_ping"}]});
    assert_eq!(check_tool(Dialect::Gemini, &wrapper), vec![]);
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "title": "Query"},
            "place": {"$ref": "#/$defs/Place", "$anchor": "home"},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "one": {"oneOf": [{"type": "string"}, {"type": "null"}]},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}}
        },
        "required": ["query"],
        "$defs": {"Place": {"type": "object", "properties": {"street": {"type": "string", "format": "email"}}}}
    });
    assert_eq!(check_tool(Dialect::GeminiJsonSchema, &gemini_json(schema)), vec![]);
    let mut tool = mcp(loose.clone());
    tool["outputSchema"] = json!({"type": "object", "properties": {"result": {"type": "array"}}});
    tool["annotations"] = json!({"title": "Search", "readOnlyHint": true, "openWorldHint": false});
    assert_eq!(check_tool(Dialect::Mcp, &tool), vec![]);
    assert_eq!(check_tool(Dialect::JsonSchema, &loose), vec![]);
}

#[test]
fn o1_the_name_is_letters_digits_underscore_and_dash_up_to_64() {
    let tool = chat("memory.search", json!(true), one_property(json!({"type": "string"})));
    assert_eq!(
        check_tool(CHAT_STRICT, &tool),
        vec![v("O1", "/function/name", "the name `memory.search` does not match ^[a-zA-Z0-9_-]{1,64}$")]
    );
    let long = "a".repeat(65);
    let tool = json!({"type": "function", "name": long, "strict": false, "parameters": {"type": "object"}});
    assert_eq!(
        check_tool(RESPONSES, &tool),
        vec![v("O1", "/name", &format!("the name `{long}` does not match ^[a-zA-Z0-9_-]{{1,64}}$"))]
    );
    let tool = json!({"type": "function", "name": "a".repeat(64), "strict": false, "parameters": {"type": "object"}});
    assert_eq!(check_tool(RESPONSES, &tool), vec![]);
}

#[test]
fn o2_the_shape_and_an_explicit_strict_flag() {
    let parameters = one_property(json!({"type": "string"}));
    let mut tool = strict_chat(parameters.clone());
    tool["function"].as_object_mut().unwrap().remove("strict");
    assert_eq!(
        check_tool(CHAT_STRICT, &tool),
        vec![v("O2", "/function", "`strict` must be sent explicitly (`\"strict\": true`)")]
    );
    let tool = chat("memory_search", json!(false), parameters.clone());
    assert_eq!(
        check_tool(CHAT_STRICT, &tool),
        vec![v("O2", "/function/strict", "`strict` is false, but the dialect is strict")]
    );
    let tool = json!({"type": "function", "function": {"name": "f", "description": 5, "strict": false, "parameters": {"type": "object"}}});
    assert_eq!(check_tool(CHAT, &tool), vec![v("O2", "/function/description", "`description` must be a string")]);
    let tool = json!({"type": "tool", "function": {"name": "f", "strict": false, "parameters": {"type": "object"}}, "extra": 1});
    assert_eq!(
        check_tool(CHAT, &tool),
        vec![
            v("O2", "/type", "`type` must be \"function\""),
            v("O2", "/extra", "unknown key `extra`; expected one of `type`, `function`"),
        ]
    );
    // The Chat shape sent to the Responses API.
    let tool = chat("memory_search", json!(true), parameters);
    assert_eq!(
        check_tool(RESPONSES_STRICT, &tool),
        vec![
            v(
                "O2",
                "/function",
                "unknown key `function`; expected one of `type`, `name`, `description`, `parameters`, `strict`, `defer_loading`"
            ),
            v("O1", "", "`name` is missing"),
            v("O2", "", "`strict` must be sent explicitly (`\"strict\": true`)"),
            v("O2", "", "`parameters` is missing"),
        ]
    );
}

#[test]
fn o3_the_root_is_an_object_without_top_level_combinators() {
    let tool = chat("f", json!(false), json!({"type": "string"}));
    assert_eq!(
        check_tool(CHAT, &tool),
        vec![v("O3", "/function/parameters/type", "the parameters must have `\"type\": \"object\"`, not \"string\"")]
    );
    let tool = chat("f", json!(false), json!({"type": "object", "anyOf": [{"required": ["a"]}], "not": {}}));
    assert_eq!(
        check_tool(CHAT, &tool),
        vec![
            v("O3", "/function/parameters/anyOf", "`anyOf` is not allowed at the top level"),
            v("O3", "/function/parameters/not", "`not` is not allowed at the top level"),
        ]
    );
}

#[test]
fn o4_every_object_is_closed_and_requires_all_its_properties() {
    let mut parameters = openai_strict_parameters();
    parameters["$defs"]["Place"].as_object_mut().unwrap().remove("additionalProperties");
    parameters["required"] = json!(["query", "limit", "since", "order", "tags", "place", "gone"]);
    parameters["properties"]["tags"]["items"] =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true});
    assert_eq!(
        check_tool(CHAT_STRICT, &strict_chat(parameters)),
        vec![
            v("O4", "/function/parameters/required", "`required` must list every property; missing `mode`"),
            v("O4", "/function/parameters/required", "`required` names what is not a property: `gone`"),
            v(
                "O4",
                "/function/parameters/properties/tags/items/additionalProperties",
                "`additionalProperties` must be false"
            ),
            v("O4", "/function/parameters/properties/tags/items", "`required` must list every property; missing `a`"),
            v("O4", "/function/parameters/$defs/Place", "an object needs `\"additionalProperties\": false`"),
        ]
    );
}

#[test]
fn o5_nullable_means_one_type_and_null() {
    let parameters = json!({
        "type": "object",
        "properties": {
            "a": {"type": ["string", "integer", "null"]},
            "b": {"type": ["string", "null"], "enum": ["x", "y"]}
        },
        "required": ["a", "b"],
        "additionalProperties": false
    });
    assert_eq!(
        check_tool(CHAT_STRICT, &strict_chat(parameters)),
        vec![
            v(
                "O5",
                "/function/parameters/properties/a/type",
                "a type list is one type and \"null\"; found `string`, `integer`"
            ),
            v("O5", "/function/parameters/properties/b/enum", "the type is nullable, so `enum` must list null"),
        ]
    );
}

#[test]
fn o6_strict_mode_takes_only_the_listed_keywords_and_formats() {
    let parameters = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "site": {"type": "string", "format": "uri"},
            "count": {"type": "integer", "pattern": "^[0-9]+$"},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "pair": {"type": "array", "items": [{"type": "string"}]},
            "map": {"type": "object", "additionalProperties": {"type": "string"}, "required": []},
            "any": true
        },
        "required": ["name", "site", "count", "either", "pair", "map", "any"],
        "additionalProperties": false
    });
    let p = "/function/parameters/properties";
    assert_eq!(
        check_tool(CHAT_STRICT, &strict_chat(parameters)),
        vec![
            v("O6", &format!("{p}/name/minLength"), "`minLength` is not supported in strict mode"),
            v(
                "O6",
                &format!("{p}/site/format"),
                "format `uri` is not supported; expected one of `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`"
            ),
            v("O6", &format!("{p}/count/pattern"), "`pattern` applies to strings, and this node is integer"),
            v("O6", &format!("{p}/either/oneOf"), "`oneOf` is not supported in strict mode"),
            v("O6", &format!("{p}/pair/items"), "`items` must be one schema, not a list"),
            v("O6", &format!("{p}/map/additionalProperties"), "map-style `additionalProperties` (a schema) is not supported in strict mode"),
            v("O6", &format!("{p}/any"), "`true` as a schema is not supported here"),
        ]
    );
}

#[test]
fn o7_refs_point_into_the_root_defs_alone_and_resolve() {
    let parameters = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/definitions/A"},
            "b": {"$ref": "#/$defs/B", "description": "The b."},
            "c": {"$ref": "#/$defs/Missing"},
            "d": {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": false,
                "$defs": {"Inner": {"type": "string"}}
            }
        },
        "required": ["a", "b", "c", "d"],
        "additionalProperties": false,
        "$defs": {"B": {"type": "string"}}
    });
    let p = "/function/parameters/properties";
    assert_eq!(
        check_tool(CHAT_STRICT, &strict_chat(parameters)),
        vec![
            v("O7", &format!("{p}/a/$ref"), "`#/definitions/A` points at nothing"),
            v(
                "O7",
                &format!("{p}/a/$ref"),
                "`$ref` must be `#` or point into the root `$defs` (`#/$defs/...`), not \"#/definitions/A\""
            ),
            v("O7", &format!("{p}/b"), "a `$ref` node has no other keys; found `description`"),
            v("O7", &format!("{p}/c/$ref"), "`#/$defs/Missing` points at nothing"),
            v("O7", &format!("{p}/d/$defs"), "`$defs` is allowed only at the root"),
        ]
    );
    // A reference to the root is fine.
    let parameters = json!({
        "type": "object",
        "properties": {"child": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
        "required": ["child"],
        "additionalProperties": false
    });
    assert_eq!(check_tool(CHAT_STRICT, &strict_chat(parameters)), vec![]);
}

/// An object with `count` string properties `p0`, `p1`, ...
fn wide(count: usize) -> Value {
    let properties: Map<String, Value> = (0..count).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    json!({"type": "object", "properties": properties})
}

#[test]
fn o8_size_and_depth_limits_per_schema() {
    let tool = chat("f", json!(false), wide(5000));
    assert_eq!(check_tool(CHAT, &tool), vec![]);
    let tool = chat("f", json!(false), wide(5001));
    assert_eq!(check_tool(CHAT, &tool), vec![v("O8", "/function/parameters", "5001 properties; at most 5000")]);

    let values: Vec<Value> = (0..1001).map(|i| json!(format!("v{i}"))).collect();
    let tool =
        chat("f", json!(false), json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}}));
    assert_eq!(check_tool(CHAT, &tool), vec![v("O8", "/function/parameters", "1001 enum values; at most 1000")]);

    let long = "x".repeat(60_000);
    let schema = json!({"type": "object", "properties": {"a": {"enum": [long.clone()]}, "b": {"const": long}}});
    assert_eq!(
        check_tool(CHAT, &chat("f", json!(false), schema)),
        vec![v(
            "O8",
            "/function/parameters",
            "120002 characters of property names, definition names, enum and const values; at most 120000"
        )]
    );

    // Eleven objects deep: the root, then `n` inside `n` ..., the last one through a `$ref`.
    let mut schema = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for _ in 0..9 {
        schema = json!({"type": "object", "properties": {"n": schema}});
    }
    let ten_deep = schema.clone();
    assert_eq!(check_tool(CHAT, &chat("f", json!(false), ten_deep)), vec![]);
    let mut root = schema;
    let mut node = &mut root;
    for _ in 0..9 {
        node = &mut node["properties"]["n"];
    }
    node["properties"]["leaf"] = json!({"$ref": "#/$defs/Leaf"});
    root["$defs"] = json!({"Leaf": {"type": "object", "properties": {}}});
    assert_eq!(
        check_tool(CHAT, &chat("f", json!(false), root)),
        vec![v("O8", "/function/parameters/$defs/Leaf", "objects nest more than 10 levels deep here")]
    );
}

#[test]
fn o9_schema_title_and_default_are_stripped_in_both_modes() {
    let parameters = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Args",
        "type": "object",
        "properties": {"limit": {"type": "integer", "default": 3}, "title": {"type": "string"}}
    });
    let p = "/function/parameters";
    assert_eq!(
        check_tool(CHAT, &chat("f", json!(false), parameters)),
        vec![
            v("O9", &format!("{p}/$schema"), "`$schema` must be stripped"),
            v("O9", &format!("{p}/title"), "`title` must be stripped"),
            v("O9", &format!("{p}/properties/limit/default"), "`default` must be stripped"),
        ]
    );
    let parameters = one_property(json!({"type": "integer", "default": 3}));
    assert_eq!(
        check_tool(CHAT_STRICT, &strict_chat(parameters)),
        vec![v("O9", "/function/parameters/properties/x/default", "`default` must be stripped")]
    );
}

#[test]
fn format_a_non_standard_format_is_a_violation_in_every_dialect() {
    let property = json!({"type": "integer", "format": "uint32"});
    let message = "`uint32` is not a JSON Schema format; exports drop it";
    assert_eq!(
        check_tool(CHAT_STRICT, &strict_chat(one_property(property.clone()))),
        vec![v("FORMAT", "/function/parameters/properties/x/format", message)]
    );
    let loose = json!({"type": "object", "properties": {"x": property}});
    assert_eq!(
        check_tool(CHAT, &chat("f", json!(false), loose.clone())),
        vec![v("FORMAT", "/function/parameters/properties/x/format", message)]
    );
    assert_eq!(
        check_tool(ANTHROPIC, &anthropic(false, loose.clone())),
        vec![v("FORMAT", "/input_schema/properties/x/format", message)]
    );
    let gemini_int = json!({"type": "object", "properties": {"x": {"type": "INTEGER", "format": "int64"}}});
    assert_eq!(
        check_tool(Dialect::Gemini, &gemini(gemini_int)),
        vec![v("FORMAT", "/parameters/properties/x/format", "`int64` is not a JSON Schema format; exports drop it")]
    );
    assert_eq!(
        check_tool(Dialect::GeminiJsonSchema, &gemini_json(loose.clone())),
        vec![v("FORMAT", "/parametersJsonSchema/properties/x/format", message)]
    );
    let mut tool = mcp(json!({"type": "object"}));
    tool["outputSchema"] = json!({"type": "object", "properties": {"ratio": {"type": "number", "format": "double"}}});
    assert_eq!(
        check_tool(Dialect::Mcp, &tool),
        vec![v(
            "FORMAT",
            "/outputSchema/properties/ratio/format",
            "`double` is not a JSON Schema format; exports drop it"
        )]
    );
    let deep =
        json!({"type": "object", "$defs": {"B": {"type": "array", "items": {"type": "integer", "format": "uint8"}}}});
    assert_eq!(
        check_tool(Dialect::JsonSchema, &deep),
        vec![v("FORMAT", "/$defs/B/items/format", "`uint8` is not a JSON Schema format; exports drop it")]
    );
    // Only Gemini's `parameters` know the `enum` format.
    let enum_format =
        json!({"type": "object", "properties": {"x": {"type": "string", "format": "enum", "enum": ["a"]}}});
    assert_eq!(
        check_tool(Dialect::JsonSchema, &enum_format),
        vec![v("FORMAT", "/properties/x/format", "`enum` is not a JSON Schema format; exports drop it")]
    );
}

#[test]
fn schema_local_refs_resolve_and_schemas_are_objects_or_booleans() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Nope"},
            "b": {"$ref": "#place"},
            "c": {"$ref": "#/$defs/With%20Space"},
            "d": 5
        },
        "$defs": {"Place": {"$anchor": "place", "type": "object"}, "With Space": {"type": "string"}}
    });
    assert_eq!(
        check_tool(Dialect::JsonSchema, &schema),
        vec![
            v("SCHEMA", "/properties/a/$ref", "`#/$defs/Nope` points at nothing"),
            v("SCHEMA", "/properties/d", "a schema must be an object or a boolean"),
        ]
    );
}

#[test]
fn a1_shape_name_strict_flag_and_property_keys() {
    let mut tool = anthropic(false, json!({"type": "object", "properties": {"my key": {"type": "string"}}}));
    tool["name"] = json!("memory.search");
    tool["input_schema_v2"] = json!({});
    assert_eq!(
        check_tool(ANTHROPIC, &tool),
        vec![
            v(
                "A1",
                "/input_schema_v2",
                "unknown key `input_schema_v2`; expected one of `name`, `description`, `input_schema`, `strict`, `eager_input_streaming`, `cache_control`, `defer_loading`, `input_examples`"
            ),
            v("A1", "/name", "the name `memory.search` does not match ^[a-zA-Z0-9_-]{1,64}$"),
            v("A1", "/input_schema/properties/my key", "the property key `my key` does not match ^[a-zA-Z0-9_.-]{1,64}$"),
        ]
    );
    let tool = anthropic(false, anthropic_strict_schema());
    assert_eq!(check_tool(ANTHROPIC_STRICT, &tool), vec![v("A1", "", "a strict tool needs `\"strict\": true`")]);
    let tool = anthropic(true, json!({"type": "object"}));
    assert_eq!(
        check_tool(ANTHROPIC, &tool),
        vec![v("A1", "/strict", "`strict` is true, but the dialect is not strict")]
    );
    let tool = json!({"name": "f"});
    assert_eq!(check_tool(ANTHROPIC, &tool), vec![v("A1", "", "`input_schema` is missing")]);
}

#[test]
fn a2_the_input_schema_is_an_object_without_top_level_combinators() {
    let tool = anthropic(false, json!({"type": "array"}));
    assert_eq!(
        check_tool(ANTHROPIC, &tool),
        vec![v("A2", "/input_schema/type", "`input_schema` must have `\"type\": \"object\"`, not \"array\"")]
    );
    let tool =
        anthropic(true, json!({"type": "object", "additionalProperties": false, "oneOf": [{"required": ["a"]}]}));
    assert_eq!(
        check_tool(ANTHROPIC_STRICT, &tool),
        vec![v("A2", "/input_schema/oneOf", "`oneOf` is not allowed at the top level")]
    );
}

#[test]
fn a4_strict_tool_use_supports_a_subset() {
    let schema = json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1},
            "s": {"type": "string", "maxLength": 5},
            "list": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "r": {"type": "string", "format": "regex"},
            "open": {"type": "object", "properties": {}},
            "e": {"enum": [{"a": 1}, "b"]},
            "merged": {"allOf": [{"$ref": "#/$defs/Place"}]},
            "remote": {"$ref": "https://example.com/place.json"},
            "any": true
        },
        "additionalProperties": false,
        "$defs": {"Place": {"type": "object", "properties": {}, "additionalProperties": false}}
    });
    let p = "/input_schema/properties";
    assert_eq!(
        check_tool(ANTHROPIC_STRICT, &anthropic(true, schema)),
        vec![
            v("A4", &format!("{p}/n/minimum"), "`minimum` is not supported in strict mode"),
            v("A4", &format!("{p}/s/maxLength"), "`maxLength` is not supported in strict mode"),
            v("A4", &format!("{p}/list/minItems"), "`minItems` may be only 0 or 1, not 2"),
            v(
                "A4",
                &format!("{p}/r/format"),
                "format `regex` is not supported; expected one of `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `uri`, `ipv4`, `ipv6`, `uuid`"
            ),
            v("A4", &format!("{p}/open"), "an object needs `\"additionalProperties\": false`"),
            v("A4", &format!("{p}/e/enum/0"), "enum values must be strings, numbers, booleans or null"),
            v("A4", &format!("{p}/merged/allOf/0/$ref"), "`allOf` may not hold a `$ref`"),
            v("A4", &format!("{p}/remote/$ref"), "`$ref` must be local (`#...`), not \"https://example.com/place.json\""),
            v("A4", &format!("{p}/any"), "`true` as a schema is not supported here"),
        ]
    );
}

#[test]
fn a4_strict_schemas_are_not_recursive() {
    let schema = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Tree"}, "me": {"$ref": "#"}},
        "additionalProperties": false,
        "$defs": {
            "Tree": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Forest"}}},
                "additionalProperties": false
            },
            "Forest": {"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]},
            "Leaf": {"type": "string"}
        }
    });
    // `tree` only enters the recursion; the `$ref`s on the cycle are reported.
    let p = "/input_schema";
    assert_eq!(
        check_tool(ANTHROPIC_STRICT, &anthropic(true, schema.clone())),
        vec![
            v(
                "A4",
                &format!("{p}/properties/me/$ref"),
                "recursive schema: `#` leads back here; strict mode does not support recursion"
            ),
            v(
                "A4",
                &format!("{p}/$defs/Tree/properties/children/items/$ref"),
                "recursive schema: `#/$defs/Forest` leads back here; strict mode does not support recursion"
            ),
            v(
                "A4",
                &format!("{p}/$defs/Forest/anyOf/0/$ref"),
                "recursive schema: `#/$defs/Tree` leads back here; strict mode does not support recursion"
            ),
        ]
    );
    // Without strict, recursion is fine (A3).
    assert_eq!(check_tool(ANTHROPIC, &anthropic(false, schema)), vec![]);
}

#[test]
fn a4_per_request_limits_of_strict_tools() {
    let small = |name: String| {
        let mut tool = anthropic(true, json!({"type": "object", "properties": {}, "additionalProperties": false}));
        tool["name"] = json!(name);
        tool
    };
    let tools: Vec<Value> = (0..20).map(|i| small(format!("t{i}"))).collect();
    assert_eq!(check_request(ANTHROPIC_STRICT, &tools), vec![]);
    let tools: Vec<Value> = (0..21).map(|i| small(format!("t{i}"))).collect();
    assert_eq!(
        check_request(ANTHROPIC_STRICT, &tools),
        vec![v("A4", "/20", "strict tool number 21: at most 20 per request")]
    );

    // 25 optional parameters over two tools, 17 of them unions.
    let optional = |range: std::ops::Range<usize>, union: bool| {
        let properties: Map<String, Value> = range
            .map(|i| {
                let schema = if union {
                    json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
                } else {
                    json!({"type": "string"})
                };
                (format!("p{i}"), schema)
            })
            .collect();
        json!({"type": "object", "properties": properties, "additionalProperties": false})
    };
    let mut first = anthropic(true, optional(0..17, true));
    first["name"] = json!("first");
    let second = anthropic(true, optional(17..25, false));
    assert_eq!(
        check_request(ANTHROPIC_STRICT, &[first, second]),
        vec![
            v(
                "A4",
                "/0/input_schema/properties/p16",
                "union-typed parameter number 17 of the strict tools: at most 16 per request"
            ),
            v(
                "A4",
                "/1/input_schema/properties/p24",
                "optional parameter number 25 of the strict tools: at most 24 per request"
            ),
        ]
    );
}

#[test]
fn g1_names_parameter_names_and_the_declaration_shape() {
    let mut tool =
        gemini(json!({"type": "object", "properties": {"page-size": {"type": "integer"}, "1st": {"type": "string"}}}));
    tool["name"] = json!("1search");
    assert_eq!(
        check_tool(Dialect::Gemini, &tool),
        vec![
            v("G1", "/name", "the name `1search` does not match ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"),
            v(
                "G1",
                "/parameters/properties/page-size",
                "the parameter name `page-size` does not match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$"
            ),
            v(
                "G1",
                "/parameters/properties/1st",
                "the parameter name `1st` does not match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$"
            ),
        ]
    );
    // `parameters` and `parametersJsonSchema` exclude each other; each dialect sends its own.
    let mut tool = gemini(json!({"type": "object"}));
    tool["parametersJsonSchema"] = json!({"type": "object"});
    assert_eq!(
        check_tool(Dialect::Gemini, &tool),
        vec![v(
            "G1",
            "/parametersJsonSchema",
            "unknown key `parametersJsonSchema`; expected one of `name`, `description`, `parameters`, `response`"
        )]
    );
    let tool = json!({"functionDeclarations": [gemini_json(json!({"type": "string"})), {"name": "ns:tool"}]});
    assert_eq!(
        check_tool(Dialect::GeminiJsonSchema, &tool),
        vec![v(
            "G1",
            "/functionDeclarations/0/parametersJsonSchema/type",
            "`parametersJsonSchema` must have `\"type\": \"object\"`, not \"string\""
        )]
    );
}

#[test]
fn g2_parameters_json_schema_takes_its_keyword_subset() {
    let schema = json!({
        "type": "object",
        "properties": {
            "mode": {"const": "fast"},
            "n": {"type": "integer", "default": 3, "exclusiveMinimum": 0},
            "place": {"$ref": "#/$defs/Place", "description": "Where."}
        },
        "$defs": {"Place": {"type": "object", "allOf": [{"required": ["street"]}]}}
    });
    let p = "/parametersJsonSchema";
    assert_eq!(
        check_tool(Dialect::GeminiJsonSchema, &gemini_json(schema)),
        vec![
            v("G2", &format!("{p}/properties/mode/const"), "`const` is not supported in `parametersJsonSchema`"),
            v("G2", &format!("{p}/properties/n/default"), "`default` is not supported in `parametersJsonSchema`"),
            v(
                "G2",
                &format!("{p}/properties/n/exclusiveMinimum"),
                "`exclusiveMinimum` is not supported in `parametersJsonSchema`"
            ),
            v("G2", &format!("{p}/properties/place"), "a `$ref` node may carry only `$` keywords; found `description`"),
            v("G2", &format!("{p}/$defs/Place/allOf"), "`allOf` is not supported in `parametersJsonSchema`"),
        ]
    );
}

#[test]
fn g3_parameters_take_the_openapi_subset() {
    let parameters = json!({
        "type": "object",
        "properties": {
            "opts": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}},
            "mode": {"type": "string", "const": "fast"},
            "maybe": {"type": ["string", "null"]},
            "place": {"$ref": "#/$defs/Place"},
            "mail": {"type": "string", "format": "email"},
            "when": {"type": "integer", "format": "date-time"},
            "level": {"type": "integer", "enum": [1, 2]},
            "pair": {"type": "array", "items": [{"type": "string"}]},
            "ratio": {"type": "float"}
        },
        "$defs": {"Place": {"type": "object"}}
    });
    let p = "/parameters/properties";
    assert_eq!(
        check_tool(Dialect::Gemini, &gemini(parameters)),
        vec![
            v("G3", "/parameters/$defs", "`$defs` is rejected in `parameters`; inline the definitions"),
            v(
                "G3",
                &format!("{p}/opts/additionalProperties"),
                "unknown key `additionalProperties` (Gemini: Unknown name \"additionalProperties\")"
            ),
            v("G3", &format!("{p}/mode/const"), "unknown key `const` (Gemini: Unknown name \"const\")"),
            v(
                "G3",
                &format!("{p}/maybe/type"),
                "`type` must be one type, not a list; say `\"nullable\": true` for null"
            ),
            v("G3", &format!("{p}/place/$ref"), "`$ref` is rejected in `parameters`; inline the definitions"),
            v(
                "G3",
                &format!("{p}/mail/format"),
                "format `email` is not supported; expected one of `enum`, `date-time`"
            ),
            v("G3", &format!("{p}/when/format"), "format `date-time` is allowed only on strings"),
            v("G3", &format!("{p}/level/enum/0"), "enum values must be strings, not 1"),
            v("G3", &format!("{p}/level/enum/1"), "enum values must be strings, not 2"),
            v("G3", &format!("{p}/pair/items"), "`items` must be one schema, not a list"),
            v(
                "G3",
                &format!("{p}/ratio/type"),
                "`type` \"float\" is not one of `STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY`, `OBJECT`, `NULL`"
            ),
            v(
                "G3",
                "/parameters/$defs/Place",
                "an object without properties (a map, a free-form object) cannot be declared in `parameters`; send it as JSON text"
            ),
        ]
    );
}

#[test]
fn mcp_name_schemas_and_annotations() {
    let mut tool = mcp(json!({"type": "object"}));
    tool["name"] = json!("memory:search");
    tool["outputSchema"] = json!({"type": "array", "items": {"type": "string"}});
    tool["annotations"] = json!({"readOnlyHint": "yes", "cached": true});
    tool["version"] = json!("1");
    assert_eq!(
        check_tool(Dialect::Mcp, &tool),
        vec![
            v(
                "MCP",
                "/version",
                "unknown key `version`; expected one of `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `icons`, `execution`, `_meta`"
            ),
            v("MCP", "/name", "the name `memory:search` does not match ^[a-zA-Z0-9_.-]{1,128}$"),
            v("MCP", "/outputSchema/type", "`outputSchema` must have `\"type\": \"object\"`, not \"array\""),
            v("MCP", "/annotations/readOnlyHint", "`readOnlyHint` must be a boolean"),
            v(
                "MCP",
                "/annotations/cached",
                "unknown annotation `cached`; expected one of `title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`"
            ),
        ]
    );
    let tool = json!({"name": "a".repeat(129), "inputSchema": {"properties": {}}});
    assert_eq!(
        check_tool(Dialect::Mcp, &tool),
        vec![
            v("MCP", "/name", &format!("the name `{}` does not match ^[a-zA-Z0-9_.-]{{1,128}}$", "a".repeat(129))),
            v("MCP", "/inputSchema", "`inputSchema` must have `\"type\": \"object\"`"),
        ]
    );
    assert_eq!(check_tool(Dialect::Mcp, &json!({"name": "x"})), vec![v("MCP", "", "`inputSchema` is missing")]);
}

#[test]
fn a_request_names_each_tool_once_in_every_dialect() {
    let parameters = one_property(json!({"type": "string"}));
    let tools = [strict_chat(parameters.clone()), strict_chat(parameters)];
    assert_eq!(
        check_request(CHAT_STRICT, &tools),
        vec![v("O1", "/1/function/name", "the name `memory_search` is already used at `/0/function/name`")]
    );
    let tools = [anthropic(false, json!({"type": "object"})), anthropic(false, json!({"type": "object"}))];
    assert_eq!(
        check_request(ANTHROPIC, &tools),
        vec![v("A1", "/1/name", "the name `memory_search` is already used at `/0/name`")]
    );
    let tools =
        [json!({"functionDeclarations": [gemini(json!({"type": "object"}))]}), gemini(json!({"type": "object"}))];
    assert_eq!(
        check_request(Dialect::Gemini, &tools),
        vec![v("G1", "/1/name", "the name `memory.search` is already used at `/0/functionDeclarations/0/name`")]
    );
    let tools = [mcp(json!({"type": "object"})), mcp(json!({"type": "object"}))];
    assert_eq!(
        check_request(Dialect::Mcp, &tools),
        vec![v("MCP", "/1/name", "the name `memory.search` is already used at `/0/name`")]
    );
}

#[test]
fn a_request_reports_each_tools_violations_under_its_index() {
    let good = strict_chat(openai_strict_parameters());
    let bad = chat("bad.name", json!(true), openai_strict_parameters());
    assert_eq!(
        check_request(CHAT_STRICT, &[good, bad]),
        vec![v("O1", "/1/function/name", "the name `bad.name` does not match ^[a-zA-Z0-9_-]{1,64}$")]
    );
}

#[test]
fn a_violation_reads_as_rule_place_and_message() {
    let violation = v("O4", "/function/parameters", "an object needs `\"additionalProperties\": false`");
    assert_eq!(
        violation.to_string(),
        "O4 at `/function/parameters`: an object needs `\"additionalProperties\": false`"
    );
}
