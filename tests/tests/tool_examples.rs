//! Whole-call examples (`ToolDefinition::examples`) from the catalog to every place a model or a
//! person sees them: the catalog's checks (a JSON object, valid against the input schema, bound
//! strictly without a warning, at most 16 of at most 4 KiB), Anthropic's `input_examples`, the
//! description elsewhere (`ExportOptions::examples`), mapped as a dialect maps the arguments,
//! within OpenAI's limit on a description, and the Markdown export.

use std::collections::HashMap;

use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::providers::check::check_tool;
use tool_core::providers::export::{export, export_with, ExamplePlacement, ExportOptions, Exported};
use tool_core::providers::Dialect;
use tool_core::ExtractionPolicy;
use tool_core::{ArgumentErrors, CatalogError, Invocation, ParseWarning};

/// Search the docs.
#[tool(examples(r#"{"query": "rust"}"#, r#"{"query": "tokio", "limit": 5}"#))]
fn search(
    /// Words to look for.
    query: String,
    /// How many hits.
    limit: Option<u32>,
) -> String {
    let _ = (query, limit);
    String::new()
}

/// Tag a user.
#[tool(examples(r#"{"tags": {"team": "core"}, "user name": "ada"}"#))]
fn tag_user(
    /// Tags to set.
    tags: HashMap<String, String>,
    /// Whom to tag.
    #[param(rename = "user name")]
    user: String,
) -> String {
    let _ = (tags, user);
    String::new()
}

/// Count to a number.
#[tool(examples(r#"{"n": 5.0}"#, r#"{"n": "5"}"#, r#"{"n": 5, "extra": 1}"#, r#"{"N": 5}"#, "[5]", r#"{"n": 5}"#))]
fn count_to(n: u32) -> u32 {
    n
}

/// Who orders.
#[allow(dead_code)] // its schema is what the tests read
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Customer {
    /// Full name.
    pub name: String,
    /// Where to send the receipt.
    pub email: Option<String>,
}

/// Place an order.
#[tool(examples(r#"{"customer": {"name": "Ada"}, "lines": [{"name": "Bob", "email": "b@x.org"}, {"name": "Cy"}]}"#))]
fn place_order(
    /// Who orders.
    customer: Customer,
    /// Who else is told.
    lines: Vec<Customer>,
    /// A note.
    note: Option<String>,
) -> String {
    let _ = (customer, lines, note);
    String::new()
}

fn searched() -> ToolCatalog {
    ToolCatalog::builder().add_declared::<search>().build().unwrap()
}

fn exported(dialect: Dialect, placement: ExamplePlacement, catalog: &ToolCatalog) -> Exported {
    export_with(dialect, ExportOptions::default().examples(placement), catalog.definitions()).unwrap()
}

fn reports(exported: &Exported) -> Value {
    serde_json::to_value(&exported.reports).unwrap()
}

const SEARCH_SCHEMA: fn() -> Value = || {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for."},
            "limit": {"type": ["integer", "null"], "description": "How many hits.", "minimum": 0},
        },
        "required": ["query"],
    })
};

const FOLDED: &str = "Search the docs.\n\nExamples: {\"query\":\"rust\"}; {\"query\":\"tokio\",\"limit\":5}";

fn folded_note(label: &str) -> Value {
    json!([{"tool": "search", "wire_name": "search", "notes": [{
        "pointer": "", "keyword": "examples", "action": "moved_to_description",
        "detail": format!("{label} has no field for examples: examples 0 and 1 written into the description"),
    }]}])
}

// --- Sent natively: Anthropic. ---

#[test]
fn anthropic_gets_the_examples_as_input_examples_and_the_description_stays_as_declared() {
    let exported = export(Dialect::Anthropic { strict: false }, searched().definitions()).unwrap();
    assert_eq!(
        exported.tools,
        vec![json!({
            "name": "search",
            "description": "Search the docs.",
            "input_schema": SEARCH_SCHEMA(),
            "input_examples": [{"query": "rust"}, {"query": "tokio", "limit": 5}],
        })]
    );
    assert_eq!(exported.reports, vec![]);
    assert_eq!(check_tool(Dialect::Anthropic { strict: false }, &exported.tools[0]), vec![]);
}

#[test]
fn anthropic_strict_gets_them_beside_strict() {
    let exported = export(Dialect::Anthropic { strict: true }, searched().definitions()).unwrap();
    assert_eq!(exported.tools[0]["input_examples"], json!([{"query": "rust"}, {"query": "tokio", "limit": 5}]));
    assert_eq!(exported.tools[0]["strict"], json!(true));
    assert_eq!(check_tool(Dialect::Anthropic { strict: true }, &exported.tools[0]), vec![]);
}

// --- Folded into the description everywhere else. ---

#[test]
fn openai_chat_gets_them_in_the_description() {
    let exported = export(Dialect::OpenAiChat { strict: false }, searched().definitions()).unwrap();
    assert_eq!(
        exported.tools,
        vec![json!({
            "type": "function",
            "function": {"name": "search", "description": FOLDED, "parameters": SEARCH_SCHEMA(), "strict": false},
        })]
    );
    assert_eq!(reports(&exported), folded_note("OpenAI Chat Completions"));
}

#[test]
fn openai_strict_writes_each_optional_argument_left_out_as_null_as_the_model_must() {
    let exported = export(Dialect::OpenAiResponses { strict: true }, searched().definitions()).unwrap();
    assert_eq!(
        exported.tools,
        vec![json!({
            "type": "function",
            "name": "search",
            "description": "Search the docs.\n\nExamples: {\"query\":\"rust\",\"limit\":null}; {\"query\":\"tokio\",\"limit\":5}",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to look for."},
                    "limit": {"type": ["integer", "null"], "description": "How many hits.", "minimum": 0},
                },
                "required": ["query", "limit"],
                "additionalProperties": false,
            },
            "strict": true,
        })]
    );
    let label = "the OpenAI Responses API (strict)";
    assert_eq!(
        reports(&exported),
        json!([{"tool": "search", "wire_name": "search", "notes": [
            {"pointer": "", "keyword": "examples", "action": "rewritten",
             "detail": format!("example 0 written as {label} takes the arguments: with the property names and JSON text this report says, and null for each optional argument left out")},
            {"pointer": "", "keyword": "examples", "action": "moved_to_description",
             "detail": format!("{label} has no field for examples: examples 0 and 1 written into the description")},
        ]}])
    );
}

#[test]
fn openai_strict_fills_null_at_every_depth_through_definitions_and_lists() {
    let catalog = ToolCatalog::builder().add_declared::<place_order>().build().unwrap();
    let exported = export(Dialect::OpenAiChat { strict: true }, catalog.definitions()).unwrap();
    let description = exported.tools[0]["function"]["description"].as_str().unwrap();
    let (_, line) = description.split_once("Examples: ").unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(line).unwrap(),
        json!({
            "customer": {"name": "Ada", "email": null},
            "lines": [{"name": "Bob", "email": "b@x.org"}, {"name": "Cy", "email": null}],
            "note": null,
        })
    );
    // Not strict: as declared.
    let plain = export(Dialect::OpenAiChat { strict: false }, catalog.definitions()).unwrap();
    let description = plain.tools[0]["function"]["description"].as_str().unwrap();
    assert!(description.ends_with(
        r#"Examples: {"customer":{"name":"Ada"},"lines":[{"name":"Bob","email":"b@x.org"},{"name":"Cy"}]}"#
    ));
}

#[test]
fn gemini_mcp_and_json_schema_get_them_in_the_description() {
    let catalog = searched();
    let gemini = export(Dialect::Gemini, catalog.definitions()).unwrap();
    assert_eq!(
        gemini.tools,
        vec![json!({
            "name": "search",
            "description": FOLDED,
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to look for."},
                    "limit": {"type": "integer", "description": "How many hits.", "minimum": 0, "nullable": true},
                },
                "required": ["query"],
            },
        })]
    );
    assert_eq!(reports(&gemini), folded_note("Gemini `parameters`"));
    let mcp = export(Dialect::Mcp, catalog.definitions()).unwrap();
    assert_eq!(mcp.tools, vec![json!({"name": "search", "description": FOLDED, "inputSchema": SEARCH_SCHEMA()})]);
    assert_eq!(reports(&mcp), folded_note("MCP"));
    let schema = export(Dialect::JsonSchema, catalog.definitions()).unwrap();
    assert_eq!(schema.tools, vec![json!({"name": "search", "description": FOLDED, "schema": SEARCH_SCHEMA()})]);
}

#[test]
fn the_xml_functions_block_shows_the_folded_description() {
    let block = tool_core::xml::functions_block(searched().definitions()).unwrap();
    let function = json!({"description": FOLDED, "name": "search", "parameters": SEARCH_SCHEMA()});
    assert_eq!(block, format!("<functions>\n<function>{function}</function>\n</functions>"));
}

#[test]
fn the_open_models_tool_list_shows_the_folded_description() {
    let text = tool_core::open_models::tools_json(searched().definitions()).unwrap();
    let description = serde_json::to_string(FOLDED).unwrap();
    assert!(text.contains(&format!("\"description\": {description}")), "{text}");
}

// --- The setting's three values. ---

#[test]
fn the_default_is_native_where_possible() {
    assert_eq!(ExportOptions::default().examples, ExamplePlacement::NativeWherePossible);
    assert_eq!(ExamplePlacement::default(), ExamplePlacement::NativeWherePossible);
    let catalog = searched();
    for dialect in [Dialect::Anthropic { strict: false }, Dialect::OpenAiChat { strict: false }, Dialect::Mcp] {
        let default = export(dialect, catalog.definitions()).unwrap();
        assert_eq!(default, exported(dialect, ExamplePlacement::NativeWherePossible, &catalog));
    }
}

#[test]
fn in_description_folds_them_for_anthropic_too() {
    let exported = exported(Dialect::Anthropic { strict: false }, ExamplePlacement::InDescription, &searched());
    assert_eq!(exported.tools, vec![json!({"name": "search", "description": FOLDED, "input_schema": SEARCH_SCHEMA()})]);
    assert_eq!(reports(&exported), folded_note("Anthropic"));
    let openai = export(Dialect::OpenAiChat { strict: false }, searched().definitions()).unwrap();
    assert_eq!(
        openai,
        self::exported(Dialect::OpenAiChat { strict: false }, ExamplePlacement::InDescription, &searched())
    );
}

#[test]
fn never_sends_them_anywhere_and_notes_nothing() {
    let catalog = searched();
    let anthropic = exported(Dialect::Anthropic { strict: false }, ExamplePlacement::Never, &catalog);
    assert_eq!(
        anthropic.tools,
        vec![json!({"name": "search", "description": "Search the docs.", "input_schema": SEARCH_SCHEMA()})]
    );
    assert_eq!(anthropic.reports, vec![]);
    let mcp = exported(Dialect::Mcp, ExamplePlacement::Never, &catalog);
    assert_eq!(
        mcp.tools,
        vec![json!({"name": "search", "description": "Search the docs.", "inputSchema": SEARCH_SCHEMA()})]
    );
    assert_eq!(mcp.reports, vec![]);
}

// --- A dialect that renames arguments or sends them as JSON text. ---

#[test]
fn examples_go_out_renamed_and_as_json_text_as_the_arguments_do_and_come_back_declared() {
    let catalog = ToolCatalog::builder().add_declared::<tag_user>().build().unwrap();
    let declared = json!({"tags": {"team": "core"}, "user name": "ada"});
    let anthropic = export(Dialect::Anthropic { strict: false }, catalog.definitions()).unwrap();
    assert_eq!(anthropic.tools[0]["input_examples"], json!([{"tags": {"team": "core"}, "user_name": "ada"}]));
    let strict = export(Dialect::Anthropic { strict: true }, catalog.definitions()).unwrap();
    assert_eq!(strict.tools[0]["input_examples"], json!([{"tags": "{\"team\":\"core\"}", "user_name": "ada"}]));
    assert_eq!(check_tool(Dialect::Anthropic { strict: true }, &strict.tools[0]), vec![]);
    assert_eq!(
        serde_json::to_value(&strict.reports[0].notes[2]).unwrap(),
        json!({"pointer": "", "keyword": "examples", "action": "rewritten",
               "detail": "example 0 written as Anthropic (strict) takes the arguments: with the property names and JSON text this report says"})
    );
    let gemini = export(Dialect::Gemini, catalog.definitions()).unwrap();
    assert_eq!(
        gemini.tools[0]["description"],
        json!("Tag a user.\n\nExamples: {\"tags\":\"{\\\"team\\\":\\\"core\\\"}\",\"user_name\":\"ada\"}")
    );
    // A call written as the example is read back as the declared example.
    for exported in [&anthropic, &strict] {
        let wire = exported.tools[0]["input_examples"][0].to_string();
        let mut request = ToolCallRequest::new("tag_user", "1", wire);
        exported.names.restore(&mut request);
        assert_eq!(request.arguments, Some(declared.clone()));
    }
}

// --- What the catalog refuses. ---

fn problems(result: Result<ToolCatalog, CatalogError>) -> Vec<String> {
    result.unwrap_err().problems.iter().map(ToString::to_string).collect()
}

fn line_of(needle: &str) -> usize {
    include_str!("tool_examples.rs").lines().position(|l| l.starts_with(needle)).unwrap() + 1
}

#[test]
fn the_catalog_says_what_is_wrong_with_each_example_of_a_declared_tool() {
    let at = format!("tests/tests/tool_examples.rs:{}", line_of("#[tool(examples(r#\"{\"n\": 5.0}\"#"));
    assert_eq!(
        problems(ToolCatalog::builder().add_declared::<count_to>().build()),
        vec![
            format!("the tool `count_to` (at {at}) has example 0 that its own arguments refuse under the strict policy: float_to_integer at `n`: expected an integer, got 5.0"),
            format!("the tool `count_to` (at {at}) has example 1 that its input schema refuses: at `/n`: \"5\" is not of type \"integer\""),
            format!("the tool `count_to` (at {at}) has example 2 that its own arguments refuse under the strict policy: unknown_parameter at `extra`: expected one of the declared parameters: n, got extra"),
            format!("the tool `count_to` (at {at}) has example 3 that its input schema refuses: at `(arguments)`: \"n\" is a required property"),
            format!("the tool `count_to` (at {at}) has example 4 that is not a JSON object ([5]): an example is the arguments object of one call"),
        ]
    );
}

fn dynamic(schema: Value, examples: Vec<Value>) -> DynamicTool {
    let mut builder = DynamicTool::builder("lookup")
        .description("Look a word up.")
        .input_schema(schema)
        .source("lookup.json", 3)
        .handler(|_, _| async { ToolOutput::text("") });
    for example in examples {
        builder = builder.example(example);
    }
    builder.build().unwrap()
}

fn lookup_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"word": {"type": "string", "minLength": 2}, "limit": {"type": "integer", "maximum": 100}},
        "required": ["word"],
    })
}

#[test]
fn the_schema_validators_pointer_and_message_name_each_place_it_refuses() {
    let tool = dynamic(lookup_schema(), vec![json!({"word": "a", "limit": 500}), json!({"word": "ok", "limit": 5})]);
    assert_eq!(
        problems(ToolCatalog::builder().add_tool(tool).build()),
        vec![
            "the tool `lookup` (at lookup.json:3) has example 0 that its input schema refuses: at `/word`: \"a\" is shorter than 2 characters; at `/limit`: 500 is greater than the maximum of 100"
                .to_owned()
        ]
    );
}

#[test]
fn more_than_sixteen_examples_or_one_over_four_kib_is_refused() {
    let mut examples: Vec<Value> = (0..18).map(|i| json!({"word": format!("w{i}")})).collect();
    examples[2] = json!({"word": "x".repeat(5000)});
    let tool = dynamic(lookup_schema(), examples);
    assert_eq!(
        problems(ToolCatalog::builder().add_tool(tool).build()),
        vec![
            "the tool `lookup` (at lookup.json:3) has 18 examples: keep at most 16 (a few examples teach the form; more only cost the model's context)".to_owned(),
            "the tool `lookup` (at lookup.json:3) has example 2 of 5011 bytes of JSON: an example may have at most 4096 bytes".to_owned(),
        ]
    );
}

/// A host's own tool whose reader accepts a date written in words, with a warning: the form a
/// model should not learn from an example.
struct Dated(DynamicTool);

impl Tool for Dated {
    fn definition(&self) -> &ToolDefinition {
        self.0.definition()
    }

    fn bind(&self, request: &mut ToolCallRequest, policy: ExtractionPolicy) -> Result<Invocation, ArgumentErrors> {
        let invocation = self.0.bind(request, policy)?;
        let when = request.arguments.as_ref().and_then(|a| a.get("when")).and_then(Value::as_str).map(str::to_owned);
        if let Some(when) = when.filter(|w| w.contains(' ')) {
            let received = Value::String(when).to_string();
            request.parse_warnings.push(ParseWarning::new(
                "/when",
                "date_in_words",
                "a date as YYYY-MM-DD",
                &received,
                "read as a date",
            ));
        }
        Ok(invocation)
    }
}

#[test]
fn an_example_its_tool_takes_only_with_a_warning_is_refused_with_the_warning() {
    let schema = json!({"type": "object", "properties": {"when": {"type": "string"}}, "required": ["when"]});
    let inner = DynamicTool::builder("remind")
        .description("Set a reminder.")
        .input_schema(schema)
        .source("remind.json", 1)
        .example(json!({"when": "2026-05-05"}))
        .example(json!({"when": "5 May"}))
        .handler(|_, _| async { ToolOutput::text("") })
        .build()
        .unwrap();
    assert_eq!(
        problems(ToolCatalog::builder().add_tool(Dated(inner)).build()),
        vec![
            "the tool `remind` (at remind.json:1) has example 1 that its own arguments take only with a warning: date_in_words at `when`: read as a date; write the value as the tool declares it"
                .to_owned()
        ]
    );
}

#[test]
fn good_examples_build() {
    let catalog = ToolCatalog::builder().add_declared::<search>().add_declared::<tag_user>().build().unwrap();
    assert_eq!(
        catalog.definition("search").unwrap().examples,
        vec![json!({"query": "rust"}), json!({"query": "tokio", "limit": 5})]
    );
}

// --- The export's own bounds, for definitions exported without a catalog. ---

#[test]
fn an_export_sends_at_most_sixteen_objects_of_at_most_four_kib_and_says_which_it_left_out() {
    let mut examples: Vec<Value> = (0..18).map(|i| json!({"word": format!("w{i}")})).collect();
    examples[1] = json!("w1");
    examples[2] = json!({"word": "x".repeat(5000)});
    let tool = dynamic(lookup_schema(), examples);
    let exported = export(Dialect::Anthropic { strict: false }, [tool.definition()]).unwrap();
    let sent: Vec<Value> = (0..16).filter(|i| *i != 1 && *i != 2).map(|i| json!({"word": format!("w{i}")})).collect();
    assert_eq!(exported.tools[0]["input_examples"], Value::Array(sent));
    assert_eq!(
        serde_json::to_value(&exported.reports[0].notes).unwrap(),
        json!([
            {"pointer": "", "keyword": "examples", "action": "dropped", "detail": "example 1 left out: it is not a JSON object"},
            {"pointer": "", "keyword": "examples", "action": "dropped", "detail": "example 2 left out: 5011 bytes of JSON, more than the 4096 an example may have"},
            {"pointer": "", "keyword": "examples", "action": "dropped", "detail": "examples 16 to 17 left out: at most 16 examples are sent"},
        ])
    );
}

#[test]
fn a_folded_example_never_takes_an_openai_description_past_1024_characters() {
    let description = "d".repeat(980);
    let tool = DynamicTool::builder("lookup")
        .description(description.clone())
        .input_schema(lookup_schema())
        .example(json!({"word": "go"}))
        .example(json!({"word": "a much longer word than fits"}))
        .example(json!({"word": "ok"}))
        .handler(|_, _| async { ToolOutput::text("") })
        .build()
        .unwrap();
    let openai = export(Dialect::OpenAiChat { strict: false }, [tool.definition()]).unwrap();
    let sent = format!("{description}\n\nExamples: {{\"word\":\"go\"}}; {{\"word\":\"ok\"}}");
    assert_eq!(sent.chars().count(), 1020);
    assert_eq!(openai.tools[0]["function"]["description"], json!(sent));
    assert_eq!(
        serde_json::to_value(&openai.reports[0].notes).unwrap(),
        json!([
            {"pointer": "", "keyword": "examples", "action": "moved_to_description",
             "detail": "OpenAI Chat Completions has no field for examples: examples 0 and 2 written into the description"},
            {"pointer": "", "keyword": "examples", "action": "dropped",
             "detail": "example 1 left out: with it the description would have 1046 characters, more than the 1024 OpenAI Chat Completions takes"},
        ])
    );
    // MCP publishes no limit: all three go.
    let mcp = export(Dialect::Mcp, [tool.definition()]).unwrap();
    assert!(mcp.tools[0]["description"].as_str().unwrap().ends_with("; {\"word\":\"ok\"}"));
    assert_eq!(mcp.tools[0]["description"].as_str().unwrap().chars().count(), 1061);
}

// --- The checker and the Markdown export. ---

#[test]
fn the_anthropic_checker_takes_input_examples_and_refuses_one_its_schema_refuses() {
    let tool = json!({
        "name": "lookup",
        "description": "Look a word up.",
        "input_schema": lookup_schema(),
        "input_examples": [{"word": "ok"}, {"word": "a"}, "word"],
    });
    let violations: Vec<String> =
        check_tool(Dialect::Anthropic { strict: false }, &tool).iter().map(ToString::to_string).collect();
    assert_eq!(
        violations,
        vec![
            "A1 at `/input_examples/1/word`: the example does not match `input_schema`: \"a\" is shorter than 2 characters".to_owned(),
            "A1 at `/input_examples/2`: an example must be an object of arguments".to_owned(),
        ]
    );
    let not_a_list = json!({"name": "lookup", "input_schema": lookup_schema(), "input_examples": {"word": "ok"}});
    let violations: Vec<String> =
        check_tool(Dialect::Anthropic { strict: false }, &not_a_list).iter().map(ToString::to_string).collect();
    assert_eq!(
        violations,
        vec!["A1 at `/input_examples`: `input_examples` must be a list of argument objects".to_owned()]
    );
}

#[test]
fn the_markdown_export_shows_each_example_as_a_call() {
    let markdown = tool_core::document::markdown(searched().definitions());
    assert!(markdown.ends_with(
        "\nExamples:\n\n```json\n{\"name\":\"search\",\"arguments\":{\"query\":\"rust\"}}\n{\"name\":\"search\",\"arguments\":{\"query\":\"tokio\",\"limit\":5}}\n```\n"
    ), "{markdown}");
}
