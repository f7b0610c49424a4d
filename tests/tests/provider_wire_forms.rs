//! What a dialect cannot take as declared goes out another way and comes back declared:
//! free-form values as JSON text (OpenAI strict, Anthropic strict, Gemini `parameters`),
//! property names a provider refuses under a name it accepts (Anthropic, Gemini), tool names
//! that meet after mapping with a numbered suffix when the host asks for it. Exact exports,
//! report notes and error texts; calls back parsed whole, streamed, and given to the executor
//! with the export's name map; and generated schemas at random depths whose calls, written the
//! way the exported schema asks, come back as the declared value.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tool_core::prelude::*;
use tool_core::providers::calls::parse_response;
use tool_core::providers::check::{check_tool, Violation};
use tool_core::providers::export::{
    export, export_with, ConversionNote, ExportOptions, ExportProblem, Exported, NameCollisions, NoteAction,
};
use tool_core::providers::names::NameMap;
use tool_core::providers::stream::{sse_data, StreamAccumulator};
use tool_core::providers::{Dialect, Provider};
use tool_tests::dynamic;

// ---------------------------------------------------------------------------------------------
// The tools.

/// One step of an event.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Step {
    /// What to do.
    pub action: String,
    /// Its input, of any shape.
    pub input: Value,
}

/// Posts an event.
#[tool(name = "events.post")]
fn post_event(
    /// The event body, any JSON.
    body: Value,
    /// Free-form labels.
    labels: Map<String, Value>,
    /// Counters by name.
    counters: HashMap<String, Value>,
    /// The steps.
    steps: Vec<Step>,
    /// More values.
    extras: Option<Vec<Value>>,
) -> String {
    let mut counters: Vec<(String, Value)> = counters.into_iter().collect();
    counters.sort_by(|a, b| a.0.cmp(&b.0));
    json!({"body": body, "labels": labels, "counters": counters, "steps": steps, "extras": extras}).to_string()
}

/// Request headers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Headers {
    /// The media type.
    #[serde(rename = "Content-Type")]
    pub content_type: String,
}

/// Quotes a car insurance.
#[tool(name = "seguro.cotizar")]
fn cotizar(
    /// Year the car was made.
    año_vehiculo: u16,
    /// Headers.
    headers: Headers,
) -> String {
    json!({"año_vehiculo": año_vehiculo, "headers": headers}).to_string()
}

/// One header of a batched request.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Header {
    /// The media type.
    #[serde(rename = "Content-Type")]
    pub content_type: String,
    /// The fiscal year, if any.
    #[serde(rename = "Año-Fiscal")]
    pub fiscal_year: Option<u16>,
}

/// One request of a batch.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Request {
    /// Where to.
    pub url: String,
    /// Its headers.
    pub headers: Vec<Header>,
    /// Anything attached.
    #[serde(rename = "meta-data")]
    pub meta: Option<Value>,
}

/// Sends requests.
#[tool(name = "http.batch")]
fn batch(
    /// The requests.
    requests: Vec<Request>,
) -> String {
    serde_json::to_string(&requests).unwrap_or_default()
}

fn executor() -> Executor {
    Executor::new(tool_tests::declared_in(file!()))
}

fn exported(dialect: Dialect, definition: &ToolDefinition) -> Exported {
    let exported = export(dialect, [definition]).unwrap();
    assert_eq!(check_tool(dialect, &exported.tools[0]), vec![], "{}", exported.tools[0]);
    exported
}

/// The tool's parameters in the dialect's wire form.
fn parameters(dialect: Dialect, exported: &Exported) -> &Value {
    let tool = &exported.tools[0];
    match dialect {
        Dialect::OpenAiChat { .. } => &tool["function"]["parameters"],
        Dialect::OpenAiResponses { .. } | Dialect::Gemini => &tool["parameters"],
        Dialect::Anthropic { .. } => &tool["input_schema"],
        Dialect::GeminiJsonSchema => &tool["parametersJsonSchema"],
        Dialect::Mcp => &tool["inputSchema"],
        Dialect::JsonSchema => &tool["schema"],
        other => panic!("no parameters known for {other:?}"),
    }
}

fn note(pointer: &str, keyword: &str, detail: &str) -> ConversionNote {
    ConversionNote {
        pointer: pointer.into(),
        keyword: keyword.into(),
        action: NoteAction::Rewritten,
        detail: detail.into(),
    }
}

fn warnings(record: &ExecutionRecord) -> Vec<(String, String, String, String)> {
    record
        .warnings()
        .iter()
        .map(|w| (w.pointer().to_owned(), w.rule().to_owned(), w.received().to_owned(), w.action().to_owned()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Item 3: free-form values.

const OPENAI_STRICT: Dialect = Dialect::OpenAiChat { strict: true };
const ANTHROPIC_STRICT: Dialect = Dialect::Anthropic { strict: true };

#[test]
fn a_value_of_any_type_and_a_free_form_map_go_as_json_text_in_strict_modes_and_gemini() {
    let text = |description: &str| json!({"type": "string", "description": description});
    for dialect in [OPENAI_STRICT, Dialect::OpenAiResponses { strict: true }, ANTHROPIC_STRICT, Dialect::Gemini] {
        let exported = exported(dialect, post_event::definition());
        let parameters = parameters(dialect, &exported);
        let properties = &parameters["properties"];
        assert_eq!(properties["body"], text("The event body, any JSON. (any JSON value, as JSON text)"));
        assert_eq!(
            properties["labels"],
            text("Free-form labels. (a JSON object as text, mapping names to any JSON values)")
        );
        assert_eq!(
            properties["counters"],
            text("Counters by name. (a JSON object as text, mapping names to any JSON values)")
        );
        assert_eq!(properties["extras"]["items"], text("Any JSON value, as JSON text"));
        let step =
            if dialect == Dialect::Gemini { &properties["steps"]["items"] } else { &parameters["$defs"]["Step"] };
        assert_eq!(step["properties"]["input"], text("Its input, of any shape. (any JSON value, as JSON text)"));
        let label = dialect.label();
        let value = format!("a value of any type sent as JSON text: {label} cannot declare one");
        let map = format!("a map sent as JSON text: {label} cannot declare one");
        let input = if dialect == Dialect::Gemini {
            "/properties/steps/items/properties/input"
        } else {
            "/$defs/Step/properties/input"
        };
        let mut expected = vec![
            note("/properties/body", "type", &value),
            note("/properties/labels", "additionalProperties", &map),
            note("/properties/counters", "additionalProperties", &map),
            note(input, "type", &value),
            note("/properties/extras/items", "type", &value),
        ];
        if dialect != Dialect::Gemini {
            // Definitions are walked after the parameters.
            expected.swap(3, 4);
        }
        assert_eq!(exported.report("events.post").unwrap().notes, expected, "{label}");
    }
}

#[test]
fn dialects_that_declare_any_value_keep_it_as_it_is() {
    for dialect in [Dialect::OpenAiChat { strict: false }, Dialect::Anthropic { strict: false }, Dialect::Mcp] {
        let exported = exported(dialect, post_event::definition());
        let properties = &parameters(dialect, &exported)["properties"];
        assert_eq!(properties["body"], json!({"description": "The event body, any JSON."}));
        assert_eq!(
            properties["labels"],
            json!({"type": "object", "additionalProperties": true, "description": "Free-form labels."})
        );
        assert!(exported.report("events.post").is_none());
        assert!(exported.names.arguments("events.post").is_none());
    }
}

fn v(rule: &'static str, pointer: &str, message: &str) -> Violation {
    Violation { rule, pointer: pointer.into(), message: message.into() }
}

#[test]
fn the_checker_refuses_what_the_exports_sent_for_free_form_values_before() {
    // OpenAI strict: a free-form map as an open object, and a value of any type.
    let openai = json!({"type": "function", "function": {"name": "f", "description": "d", "strict": true, "parameters": {
    "type": "object", "additionalProperties": false, "required": ["m", "v"], "properties": {
        "m": {"type": "object", "additionalProperties": true, "properties": {}, "required": []},
        "v": {"description": "Anything."},
    }}}});
    assert_eq!(
        check_tool(OPENAI_STRICT, &openai),
        vec![
            v("O4", "/function/parameters/properties/m/additionalProperties", "`additionalProperties` must be false"),
            v(
                "O6",
                "/function/parameters/properties/v",
                "a schema that declares no type takes a value of any type, which strict mode cannot say; send it as JSON text"
            ),
        ]
    );
    let anthropic = json!({"name": "f", "description": "d", "strict": true, "input_schema": {
        "type": "object", "additionalProperties": false, "properties": {"v": {}}}});
    assert_eq!(
        check_tool(ANTHROPIC_STRICT, &anthropic),
        vec![v(
            "A4",
            "/input_schema/properties/v",
            "a schema that declares no type takes a value of any type, which strict mode cannot say; send it as JSON text"
        )]
    );
    let gemini = json!({"name": "f", "description": "d", "parameters": {"type": "object", "properties": {
        "v": true, "d": {"description": "Anything."}, "m": {"type": "object"}}}});
    assert_eq!(
        check_tool(Dialect::Gemini, &gemini),
        vec![
            v("G3", "/parameters/properties/v", "`true` as a schema is not supported here"),
            v(
                "G3",
                "/parameters/properties/d",
                "a schema that declares no type takes a value of any type, which `parameters` cannot say; send it as JSON text"
            ),
            v(
                "G3",
                "/parameters/properties/m",
                "an object without properties (a map, a free-form object) cannot be declared in `parameters`; send it as JSON text"
            ),
        ]
    );
}

/// The arguments a model writes for `events.post` exported in a strict mode.
const EVENT_ARGUMENTS: &str = r#"{"body":"{\"kind\":\"click\",\"at\":[1,2]}","labels":"{\"team\":\"web\",\"n\":3}","counters":"{}","steps":[{"action":"go","input":"\"north\""},{"action":"wait","input":"5"}],"extras":["null","[true]"]}"#;
/// What the tool receives for them.
const EVENT_RECEIVED: &str = r#"{"body":{"kind":"click","at":[1,2]},"labels":{"team":"web","n":3},"counters":[],"steps":[{"action":"go","input":"north"},{"action":"wait","input":5}],"extras":[null,[true]]}"#;

async fn assert_event_record(record: ExecutionRecord, call_id: &str) {
    assert_eq!(record.status, CallStatus::Success, "{:?}", record.failure);
    assert_eq!(record.content.text, EVENT_RECEIVED);
    assert_eq!(record.request.tool_name, "events.post");
    assert_eq!(record.request.call_id, call_id);
    assert_eq!(record.request.raw_arguments, EVENT_ARGUMENTS);
    assert_eq!(
        record.request.arguments.as_ref().map(Value::to_string).as_deref(),
        Some(EVENT_RECEIVED.replace("\"counters\":[]", "\"counters\":{}").as_str())
    );
    assert_eq!(warnings(&record), vec![]);
}

#[tokio::test]
async fn json_text_reaches_the_tool_decoded_whether_parsed_whole_streamed_or_given_to_the_executor() {
    let names = exported(OPENAI_STRICT, post_event::definition()).names;
    let response = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "events_post", "arguments": EVENT_ARGUMENTS}}]}}]});
    let parsed = parse_response(Provider::OpenAiChat, &response, &names).unwrap();
    assert_event_record(executor().execute(parsed.calls[0].clone()).await, "call_1").await;

    // Streamed, the arguments cut in three.
    let (a, rest) = EVENT_ARGUMENTS.split_at(20);
    let (b, c) = rest.split_at(70);
    let chunk = |delta: Value| json!({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]});
    let mut stream = StreamAccumulator::new(Provider::OpenAiChat, names.clone());
    stream
        .push(&chunk(json!({"index": 0, "id": "call_2", "type": "function", "function": {"name": "events_post", "arguments": a}})))
        .unwrap();
    stream.push(&chunk(json!({"index": 0, "function": {"arguments": b}}))).unwrap();
    // While it streams, the partial arguments show in the declared form too.
    assert_eq!(
        stream.in_progress()[0].arguments,
        Some(json!({"body": {"kind": "click", "at": [1, 2]}, "labels": {"team": "web", "n": 3}}))
    );
    stream.push(&chunk(json!({"index": 0, "function": {"arguments": c}}))).unwrap();
    stream.push(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})).unwrap();
    let streamed = stream.finish();
    assert_event_record(executor().execute(streamed.calls[0].clone()).await, "call_2").await;

    // Given to the executor as the provider sent it, with the export's map.
    let request = ToolCallRequest::new("events_post", "call_3", EVENT_ARGUMENTS);
    assert_event_record(executor().execute_with_names(request, &names).await, "call_3").await;
    let batch = vec![ToolCallRequest::new("events_post", "call_4", EVENT_ARGUMENTS)];
    let records = executor().execute_batch_with_names(batch, &names).await;
    assert_event_record(records.into_iter().next().unwrap(), "call_4").await;
}

#[tokio::test]
async fn json_text_that_is_not_json_stays_a_string_with_a_warning() {
    let names = exported(ANTHROPIC_STRICT, post_event::definition()).names;
    let raw = r#"{"body":"hello there","labels":"{}","counters":"{}","steps":[],"extras":null}"#;
    let record = executor().execute_with_names(ToolCallRequest::new("events_post", "toolu_1", raw), &names).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, r#"{"body":"hello there","labels":{},"counters":[],"steps":[],"extras":null}"#);
    assert_eq!(
        warnings(&record),
        vec![(
            "/body".to_owned(),
            "json_text_undecoded".to_owned(),
            "\"hello there\"".to_owned(),
            "kept as a string: the value went out as JSON text, and this text is not JSON".to_owned()
        )]
    );
}

#[tokio::test]
async fn a_value_sent_as_the_structure_itself_is_taken_as_it_is() {
    let names = exported(Dialect::Gemini, post_event::definition()).names;
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "events.post",
        "args": {"body": {"kind": "click"}, "labels": {"a": 1}, "counters": {}, "steps": [{"action": "go", "input": [1]}]}}}]},
        "finishReason": "STOP"}]});
    let parsed = parse_response(Provider::Gemini, &response, &names).unwrap();
    let record = executor().execute(parsed.calls[0].clone()).await;
    assert_eq!(
        record.content.text,
        r#"{"body":{"kind":"click"},"labels":{"a":1},"counters":[],"steps":[{"action":"go","input":[1]}],"extras":null}"#
    );
    assert_eq!(warnings(&record), vec![]);
}

// ---------------------------------------------------------------------------------------------
// Item 4: property names.

#[test]
fn a_property_name_a_provider_refuses_goes_out_mapped_at_any_depth_with_a_note() {
    let anthropic = exported(Dialect::Anthropic { strict: false }, cotizar::definition());
    let schema = &anthropic.tools[0]["input_schema"];
    assert_eq!(schema["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["ano_vehiculo", "headers"]);
    assert_eq!(schema["required"], json!(["ano_vehiculo", "headers"]));
    // Anthropic takes `-` in property names.
    assert_eq!(schema["$defs"]["Headers"]["required"], json!(["Content-Type"]));
    assert_eq!(
        anthropic.report("seguro.cotizar").unwrap().notes,
        vec![note(
            "/properties/año_vehiculo",
            "properties",
            "the property name `año_vehiculo` sent as `ano_vehiculo`: Anthropic does not accept it; calls come back under `año_vehiculo`"
        )]
    );

    let gemini = exported(Dialect::Gemini, cotizar::definition());
    let schema = &gemini.tools[0]["parameters"];
    assert_eq!(
        schema["properties"]["headers"]["properties"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["Content_Type"]
    );
    assert_eq!(schema["properties"]["headers"]["required"], json!(["Content_Type"]));
    let notes: Vec<(String, String)> =
        gemini.report("seguro.cotizar").unwrap().notes.iter().map(|n| (n.pointer.clone(), n.detail.clone())).collect();
    assert_eq!(
        notes,
        vec![
            (
                "/properties/año_vehiculo".to_owned(),
                "the property name `año_vehiculo` sent as `ano_vehiculo`: Gemini `parameters` does not accept it; calls come back under `año_vehiculo`".to_owned()
            ),
            (
                "/properties/headers/properties/Content-Type".to_owned(),
                "the property name `Content-Type` sent as `Content_Type`: Gemini `parameters` does not accept it; calls come back under `Content-Type`".to_owned()
            ),
        ]
    );
    // `parametersJsonSchema` takes the same names as `parameters`.
    let json_schema = exported(Dialect::GeminiJsonSchema, cotizar::definition());
    assert_eq!(
        json_schema.tools[0]["parametersJsonSchema"]["properties"]["headers"]["required"],
        json!(["Content_Type"])
    );
    // OpenAI and MCP take any property name.
    let openai = exported(OPENAI_STRICT, cotizar::definition());
    assert_eq!(openai.tools[0]["function"]["parameters"]["required"], json!(["año_vehiculo", "headers"]));
}

const QUOTE_RECEIVED: &str = r#"{"año_vehiculo":2019,"headers":{"Content-Type":"application/json"}}"#;

async fn assert_quote_record(record: ExecutionRecord, raw: &str) {
    assert_eq!(record.status, CallStatus::Success, "{:?}", record.failure);
    assert_eq!(record.content.text, QUOTE_RECEIVED);
    assert_eq!(record.request.tool_name, "seguro.cotizar");
    assert_eq!(record.request.raw_arguments, raw);
    assert_eq!(warnings(&record), vec![]);
}

#[tokio::test]
async fn calls_under_mapped_property_names_reach_the_tool_under_the_declared_ones() {
    // Anthropic, whole.
    let names = exported(Dialect::Anthropic { strict: false }, cotizar::definition()).names;
    let input = json!({"ano_vehiculo": 2019, "headers": {"Content-Type": "application/json"}});
    let response = json!({"content": [{"type": "tool_use", "id": "toolu_1", "name": "seguro_cotizar", "input": input}],
        "stop_reason": "tool_use"});
    let parsed = parse_response(Provider::Anthropic, &response, &names).unwrap();
    assert_eq!(parsed.calls[0].arguments, Some(serde_json::from_str::<Value>(QUOTE_RECEIVED).unwrap()));
    let raw = r#"{"ano_vehiculo":2019,"headers":{"Content-Type":"application/json"}}"#;
    assert_quote_record(executor().execute(parsed.calls[0].clone()).await, raw).await;

    // Anthropic, streamed.
    let body = [
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_2","name":"seguro_cotizar","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"ano_vehi"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"culo\":2019,\"headers\":{\"Content-Type\":\"application/json\"}}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
    ]
    .map(|event| format!("data: {event}\n\n"))
    .concat();
    let mut stream = StreamAccumulator::new(Provider::Anthropic, names.clone());
    for data in sse_data(&body) {
        stream.push_data(&data).unwrap();
    }
    let streamed = stream.finish();
    assert_quote_record(executor().execute(streamed.calls[0].clone()).await, raw).await;

    // Gemini, whole: the nested name is mapped too.
    let gemini = exported(Dialect::Gemini, cotizar::definition()).names;
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "seguro.cotizar",
        "args": {"ano_vehiculo": 2019, "headers": {"Content_Type": "application/json"}}}}]}, "finishReason": "STOP"}]});
    let parsed = parse_response(Provider::Gemini, &response, &gemini).unwrap();
    let gemini_raw = r#"{"ano_vehiculo":2019,"headers":{"Content_Type":"application/json"}}"#;
    assert_quote_record(executor().execute(parsed.calls[0].clone()).await, gemini_raw).await;

    // Given to the executor directly.
    let request = ToolCallRequest::new("seguro.cotizar", "gemini_call_0", gemini_raw);
    assert_quote_record(executor().execute_with_names(request, &gemini).await, gemini_raw).await;

    // Without the map the wire names are unknown parameters: the map is what makes them right.
    let record = executor().execute(ToolCallRequest::new("seguro.cotizar", "c", gemini_raw)).await;
    assert_eq!(record.status, CallStatus::Failed);
}

#[tokio::test]
async fn names_and_json_text_are_mapped_inside_list_elements_at_depth() {
    let exported = exported(Dialect::Gemini, batch::definition());
    let header = &exported.tools[0]["parameters"]["properties"]["requests"]["items"]["properties"]["headers"]["items"];
    assert_eq!(header["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["Content_Type", "Ano_Fiscal"]);
    let raw = r#"{"requests":[{"url":"a","headers":[{"Content_Type":"x","Ano_Fiscal":2024},{"Content_Type":"y","Ano_Fiscal":null}],"meta_data":"{\"k\":[1]}"},{"url":"b","headers":[],"meta_data":"null"}]}"#;
    let record = executor().execute_with_names(ToolCallRequest::new("http.batch", "c", raw), &exported.names).await;
    assert_eq!(record.status, CallStatus::Success, "{:?}", record.failure);
    assert_eq!(
        record.content.text,
        r#"[{"url":"a","headers":[{"Content-Type":"x","Año-Fiscal":2024},{"Content-Type":"y","Año-Fiscal":null}],"meta-data":{"k":[1]}},{"url":"b","headers":[],"meta-data":null}]"#
    );
    assert_eq!(record.request.raw_arguments, raw);
    assert_eq!(warnings(&record), vec![]);
}

#[test]
fn two_properties_meeting_after_mapping_are_an_error_naming_both() {
    let tool = dynamic(
        "quote",
        "Quotes.",
        json!({"type": "object", "properties": {
            "año": {"type": "integer"}, "ano": {"type": "integer"},
            "h": {"type": "object", "properties": {"Content-Type": {"type": "string"}, "Content_Type": {"type": "string"}}},
        }}),
    );
    let error = export(Dialect::Gemini, [tool.definition()]).unwrap_err();
    assert_eq!(
        error.problems,
        vec![
            ExportProblem::PropertyCollision {
                tool: "quote".into(),
                pointer: String::new(),
                first: "año".into(),
                second: "ano".into(),
                wire: "ano".into(),
                dialect: "Gemini `parameters`",
            },
            ExportProblem::PropertyCollision {
                tool: "quote".into(),
                pointer: "/properties/h".into(),
                first: "Content-Type".into(),
                second: "Content_Type".into(),
                wire: "Content_Type".into(),
                dialect: "Gemini `parameters`",
            },
        ]
    );
    assert_eq!(
        error.to_string(),
        "the tools cannot be exported: tool `quote`: the properties `año` and `ano` at the top level would both be sent as `ano` to Gemini `parameters`; rename one; tool `quote`: the properties `Content-Type` and `Content_Type` in `/properties/h` would both be sent as `Content_Type` to Gemini `parameters`; rename one"
    );
    // Anthropic takes `Content-Type`: only the top level meets.
    let error = export(Dialect::Anthropic { strict: false }, [tool.definition()]).unwrap_err();
    assert_eq!(error.problems.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// Item 5: tool names that meet after mapping.

#[test]
fn tool_names_meeting_after_mapping_take_a_numbered_suffix_when_the_host_asks() {
    let empty = json!({"type": "object", "properties": {}});
    let tools = [
        dynamic("a.b.c", "One.", empty.clone()),
        dynamic("a_b.c", "Two.", empty.clone()),
        dynamic("a_b_c", "Three.", empty),
    ];
    let definitions: Vec<&ToolDefinition> = tools.iter().map(Tool::definition).collect();
    let dialect = Dialect::OpenAiChat { strict: false };
    let error = export(dialect, definitions.iter().copied()).unwrap_err();
    assert_eq!(error.problems.len(), 2);
    assert_eq!(
        error.problems[0].to_string(),
        "tools `a.b.c` and `a_b_c` would both be sent as `a_b_c` to OpenAI Chat Completions; rename one"
    );

    let options = ExportOptions::default().name_collisions(NameCollisions::NumberedSuffix);
    let exported = export_with(dialect, options, definitions.iter().copied()).unwrap();
    let wire: Vec<&Value> = exported.tools.iter().map(|t| &t["function"]["name"]).collect();
    assert_eq!(wire, [&json!("a_b_c_2"), &json!("a_b_c_3"), &json!("a_b_c")]);
    assert_eq!(exported.names.renamed().collect::<Vec<_>>(), [("a.b.c", "a_b_c_2"), ("a_b.c", "a_b_c_3")]);
    assert_eq!(exported.names.tool_name("a_b_c_3"), "a_b.c");
    assert_eq!(exported.names.tool_name("a_b_c"), "a_b_c");
    assert_eq!(
        exported.report("a.b.c").unwrap().notes,
        vec![ConversionNote {
            pointer: String::new(),
            keyword: "name".into(),
            action: NoteAction::Rewritten,
            detail: "sent as `a_b_c_2`: `a_b_c`, what OpenAI Chat Completions gets for `a.b.c`, is the tool `a_b_c`'s"
                .into(),
        }]
    );
    assert_eq!(exported.report("a_b_c"), None);
    let response = json!({"content": [{"type": "tool_use", "id": "toolu_1", "name": "a_b_c_3", "input": {}}]});
    let anthropic = export_with(Dialect::Anthropic { strict: false }, options, definitions.iter().copied()).unwrap();
    assert_eq!(parse_response(Provider::Anthropic, &response, &anthropic.names).unwrap().calls[0].tool_name, "a_b.c");
    // Gemini takes dots: nothing meets.
    assert!(export_with(Dialect::Gemini, options, definitions.iter().copied()).unwrap().names.is_empty());
}

#[test]
fn a_numbered_suffix_is_cut_to_fit_the_providers_length_and_the_same_name_twice_stays_an_error() {
    let empty = json!({"type": "object", "properties": {}});
    let base = "x".repeat(62);
    let tools =
        [dynamic(format!("{base}.y"), "One.", empty.clone()), dynamic(format!("{base}_y"), "Two.", empty.clone())];
    let options = ExportOptions::default().name_collisions(NameCollisions::NumberedSuffix);
    let exported =
        export_with(Dialect::Anthropic { strict: false }, options, tools.iter().map(Tool::definition)).unwrap();
    assert_eq!(exported.tools[0]["name"], json!(format!("{base}_2")));
    let twice = [dynamic("same", "One.", empty.clone()), dynamic("same", "Two.", empty)];
    let error =
        export_with(Dialect::Anthropic { strict: false }, options, twice.iter().map(Tool::definition)).unwrap_err();
    assert_eq!(
        error.problems,
        vec![ExportProblem::NameCollision {
            first: "same".into(),
            second: "same".into(),
            wire: "same".into(),
            dialect: "Anthropic"
        }]
    );
}

// ---------------------------------------------------------------------------------------------
// Generated: schemas with refused names and free-form values at random depths.

/// A declared schema and a value it takes.
#[derive(Debug, Clone)]
struct Case {
    schema: Value,
    value: Value,
}

/// Property names, some refused by Anthropic or Gemini; distinct once mapped by either.
const NAMES: [&str; 12] = [
    "año_vehiculo",
    "Content-Type",
    "naïve",
    "Straße",
    "x.y",
    "9lives",
    "plain",
    "München",
    "código-postal",
    "a b",
    "Œuvre",
    "名前",
];

fn small_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        "[a-z \"{}]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn case() -> impl proptest::strategy::Strategy<Value = Case> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        "[a-z]{0,5}".prop_map(|s| Case { schema: json!({"type": "string"}), value: json!(s) }),
        (-50i64..50).prop_map(|n| Case { schema: json!({"type": "integer"}), value: json!(n) }),
        small_json().prop_map(|value| Case { schema: json!({"description": "Anything."}), value }),
        proptest::collection::btree_map("[a-zA-Z-]{1,4}", small_json(), 0..3).prop_map(|m| Case {
            schema: json!({"type": "object", "additionalProperties": true}),
            value: Value::Object(m.into_iter().collect()),
        }),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 1..3).prop_map(|cases| {
                // A list of the first case's kind: its schema, every element its value.
                let schema = json!({"type": "array", "items": cases[0].schema});
                let values = cases.iter().filter(|c| c.schema == cases[0].schema).map(|c| c.value.clone()).collect();
                Case { schema, value: Value::Array(values) }
            }),
            (proptest::sample::subsequence(NAMES.to_vec(), 1..4), proptest::collection::vec(inner, 4))
                .prop_map(|(names, cases)| object(&names, &cases)),
        ]
    })
}

fn object(names: &[&str], cases: &[Case]) -> Case {
    let mut properties = Map::new();
    let mut value = Map::new();
    for (name, case) in names.iter().zip(cases) {
        properties.insert((*name).to_owned(), case.schema.clone());
        value.insert((*name).to_owned(), case.value.clone());
    }
    let required: Vec<&str> = names.to_vec();
    Case {
        schema: json!({"type": "object", "properties": properties, "required": required}),
        value: Value::Object(value),
    }
}

/// The value as a model writes it for the exported schema: under the exported property names
/// (matched by position: the export keeps the order) and as JSON text where the exported
/// schema says a string and the declared one does not.
fn as_sent(declared: &Value, exported: &Value, value: &Value) -> Value {
    if exported.get("type") == Some(&json!("string")) && declared.get("type") != Some(&json!("string")) {
        return Value::String(value.to_string());
    }
    if let (Some(Value::Object(ours)), Some(Value::Object(theirs)), Value::Object(object)) =
        (declared.get("properties"), exported.get("properties"), value)
    {
        let mut out = Map::new();
        for ((name, schema), (wire, wire_schema)) in ours.iter().zip(theirs) {
            out.insert(wire.clone(), as_sent(schema, wire_schema, &object[name]));
        }
        return Value::Object(out);
    }
    match (declared.get("items"), exported.get("items"), value) {
        (Some(ours), Some(theirs), Value::Array(elements)) => {
            Value::Array(elements.iter().map(|element| as_sent(ours, theirs, element)).collect())
        }
        _ => value.clone(),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    #[test]
    fn a_call_written_for_the_exported_schema_comes_back_as_the_declared_value(
        names in proptest::sample::subsequence(NAMES.to_vec(), 1..5),
        cases in proptest::collection::vec(case(), 5),
    ) {
        let root = object(&names, &cases);
        let tool = dynamic("gen.tool", "Generated.", root.schema.clone());
        for dialect in [OPENAI_STRICT, ANTHROPIC_STRICT, Dialect::Anthropic { strict: false }, Dialect::Gemini, Dialect::GeminiJsonSchema] {
            let exported = export(dialect, [tool.definition()]).unwrap();
            proptest::prop_assert_eq!(check_tool(dialect, &exported.tools[0]), vec![]);
            let sent = as_sent(&root.schema, parameters(dialect, &exported), &root.value);
            let raw = sent.to_string();
            let mut request = ToolCallRequest::new(exported.names.wire_name("gen.tool"), "c", raw.clone());
            exported.names.restore(&mut request);
            proptest::prop_assert_eq!(&request.tool_name, "gen.tool");
            proptest::prop_assert_eq!(&request.raw_arguments, &raw);
            proptest::prop_assert_eq!(request.parse_warnings.len(), 0);
            proptest::prop_assert_eq!(request.arguments.unwrap_or(sent), root.value.clone(), "{}", dialect.label());
        }
    }
}

#[test]
fn a_names_map_restores_nothing_twice() {
    let names: NameMap = exported(Dialect::Gemini, post_event::definition()).names;
    let mut request = ToolCallRequest::new("events.post", "c", r#"{"body":"\"\\\"x\\\"\""}"#);
    names.restore(&mut request);
    let once = request.arguments.clone();
    assert_eq!(once, Some(json!({"body": "\"x\""})));
    names.restore(&mut request);
    assert_eq!(request.arguments, once);
}

#[tokio::test]
async fn repairs_made_while_restoring_are_warned_and_the_strict_policy_refuses_them() {
    let names = exported(Dialect::Gemini, cotizar::definition()).names;
    let raw = r#"{"ano_vehiculo": 2019, "headers": {"Content_Type": "application/json"},}"#;
    let record = executor().execute_with_names(ToolCallRequest::new("seguro.cotizar", "c", raw), &names).await;
    assert_eq!(record.content.text, QUOTE_RECEIVED);
    assert_eq!(
        warnings(&record),
        vec![(
            String::new(),
            "trailing_comma_removed".to_owned(),
            raw.to_owned(),
            "removed the comma after the last element".to_owned()
        )]
    );
    let strict = ToolCatalog::builder().add_declared::<cotizar>().strict(true).build().unwrap();
    let record =
        Executor::new(strict).execute_with_names(ToolCallRequest::new("seguro.cotizar", "c", raw), &names).await;
    assert_eq!(record.status, CallStatus::Failed);
    let error = &record.request.parse_error.as_ref().unwrap().errors[0];
    assert_eq!((error.pointer.as_str(), error.rule.as_str()), ("", "trailing_comma_removed"));
    assert_eq!(
        error.detail,
        "refused by the strict policy; lenient extraction would have removed the comma after the last element"
    );
    assert_eq!(warnings(&record), vec![]);
}

#[tokio::test]
async fn the_replayed_assistant_turn_has_the_arguments_the_model_wrote_not_the_declared_form() {
    use tool_core::providers::results::assistant_turn;
    let names = exported(Dialect::Anthropic { strict: true }, cotizar::definition()).names;
    let raw = r#"{"ano_vehiculo":2019,"headers":{"Content-Type":"application/json"}}"#;
    let record = executor().execute_with_names(ToolCallRequest::new("seguro_cotizar", "toolu_1", raw), &names).await;
    assert_eq!(record.content.text, QUOTE_RECEIVED);
    assert_eq!(
        assistant_turn(Provider::Anthropic, &[record.request.as_ref()], &names),
        vec![json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "seguro_cotizar",
            "input": {"ano_vehiculo": 2019, "headers": {"Content-Type": "application/json"}}}]})]
    );
}

#[tokio::test]
async fn vertex_streamed_arguments_under_mapped_names_and_as_json_text_reach_the_tool_declared() {
    let names = exported(Dialect::Gemini, batch::definition()).names;
    let part = |call: Value| json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]});
    let events = [
        part(json!({"name": "http.batch", "willContinue": true})),
        part(json!({"partialArgs": [
            {"jsonPath": "$.requests[0].url", "stringValue": "a"},
            {"jsonPath": "$.requests[0].headers[0].Content_Type", "stringValue": "text/", "willContinue": true},
        ], "willContinue": true})),
        part(json!({"partialArgs": [
            {"jsonPath": "$.requests[0].headers[0].Content_Type", "stringValue": "csv"},
            {"jsonPath": "$.requests[0].headers[0].Ano_Fiscal", "numberValue": 2024},
            {"jsonPath": "$.requests[0].meta_data", "stringValue": "{\"k\":", "willContinue": true},
        ], "willContinue": true})),
        part(json!({"partialArgs": [{"jsonPath": "$.requests[0].meta_data", "stringValue": "true}"}]})),
    ];
    let mut stream = StreamAccumulator::new(Provider::Gemini, names);
    for event in &events {
        stream.push(event).unwrap();
    }
    let parsed = stream.finish();
    let record = executor().execute(parsed.calls[0].clone()).await;
    assert_eq!(record.status, CallStatus::Success, "{:?}", record.failure);
    assert_eq!(
        record.content.text,
        r#"[{"url":"a","headers":[{"Content-Type":"text/csv","Año-Fiscal":2024}],"meta-data":{"k":true}}]"#
    );
    assert_eq!(
        record.request.raw_arguments,
        r#"{"requests":[{"url":"a","headers":[{"Content_Type":"text/csv","Ano_Fiscal":2024}],"meta_data":"{\"k\":true}"}]}"#
    );
}
