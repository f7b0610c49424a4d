//! Our provider output against the official Python SDKs, run by `tests/python/compare_sdks.py`
//! at the versions pinned in `tests/python/requirements.txt`:
//!
//! - OpenAI strict (Chat Completions and Responses): each well-formed tool equals what
//!   openai-python's `pydantic_function_tool` / `to_strict_json_schema` make of the equivalent
//!   pydantic model, once `title` and `default` are dropped from theirs (we never send them,
//!   O9). Every other difference is named, at its place, and pinned here exactly.
//! - Gemini: every tool's `parameters` validates as google-genai's `types.Schema` (unknown
//!   fields forbidden, which the script checks first) and the whole declaration as
//!   `types.FunctionDeclaration`, and both dump back to what we sent (`type` upper-cased by the
//!   SDK). `parametersJsonSchema` is typed `Any` there: only its declaration is checked. The
//!   SDK's `Schema` also takes `additionalProperties`, `$ref` and `defs`, which the Gemini API
//!   refuses (G3), so this is a floor under our own checker, not a substitute.
//! - Anthropic: every tool, strict or not, validates as the SDK's `ToolParam` and comes back
//!   unchanged (a TypedDict drops unknown keys, so an unchanged dump means all were known); one
//!   of them (`sdk_search`) carries whole-call examples as `input_examples`.
//! - The generated set (`tool_tests::generated`, 240 tools with maps, values of any type,
//!   recursive types and property names some providers refuse): every tool each dialect
//!   exports validates as above (Gemini, Anthropic), and in OpenAI strict mode round-trips
//!   through the SDK's request types, is left unchanged by openai-python's strict helper and
//!   keeps the documented strict rules the helper does not enforce.
//! - Responses: the SDKs' own response models read the recorded non-streamed responses
//!   (`tests/data/providers/`) as the calls, text and stop reasons pinned here, and our
//!   `providers::calls::parse_response` reads them the same, but for one named difference:
//!   `generated_call_id` (Gemini sent no call id; ours is generated, the SDK's is null).
//!
//! - Tool search: every mode's request `tools` (Anthropic's and the Responses API's) validate
//!   as the SDK's union of request tools and round-trip unchanged through each tool's own type
//!   (`ToolParam`, the regex and BM25 search tools; `FunctionToolParam`, `NamespaceToolParam`,
//!   `ToolSearchToolParam`), and so do our answers (`ToolResultBlockParam` with
//!   `tool_reference` blocks, `ResponseToolSearchOutputItemParamParam`). The documented
//!   tool-search responses (whole, and every event of their streams) are read by the SDKs'
//!   models, and `search::read_response` reads the same steps.
//!
//! Python: `TOOL_SDK_PYTHON` if set (CI), else `target/sdk-venv`, made on first use with
//! `python3 -m venv` and pip.
//!
//! The named differences (what openai-python's helper produces that we do not):
//! - `nullable_type_list`: an optional scalar is `"type": [T, "null"]` in ours (schemars) and
//!   `anyOf: [{"type": T}, {"type": "null"}]` in theirs (pydantic); the same values.
//! - `unreferenced_def_kept`: openai-python inlines a `$ref` that has siblings (a field's
//!   description) but keeps the definition in `$defs` with nothing referring to it; we drop it.
//! - `description_repeated_at_root`: pydantic repeats the model's docstring (the tool's
//!   description) as the description of the parameters' root; ours is on the tool only.
//! - `optional_with_default_nullable`: a field with a default is optional; strict mode needs
//!   every field required, so ours accepts null for it (O5) while theirs keeps it
//!   non-nullable, making the model invent a value.
//! - `default_in_description`: the default theirs carries as `default` (dropped) ours says in
//!   the description, `(default: 2)`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::{env, fs, process};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tool_core::prelude::*;
use tool_core::providers::calls::parse_response;
use tool_core::providers::export::export;
use tool_core::providers::names::NameMap;
use tool_core::providers::{Dialect, Provider};
use tool_core::search::{
    anthropic_tool_result, read_response, Discovered, Namespaces, SearchMode, SearchOutcome, SearchRequest,
    SearchResponse, SearchStream, SearchToolBuilder,
};
use tool_tests::generated::generated_tools;
use tool_tests::python::{run, sdk_python};

// --- Tools with a well-formed schema: compared with openai-python's strict helper. ---
// Their pydantic twins are in compare_sdks.py (`OPENAI_MODELS`).

/// Temperature scale.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    Celsius,
    Fahrenheit,
}

/// Forecast for a city.
#[tool(name = "sdk_weather")]
fn sdk_weather(
    /// City name.
    city: String,
    /// Days ahead.
    days: Option<u32>,
    /// Temperature scale to answer in.
    units: Units,
    /// Hour-by-hour detail.
    hourly: bool,
) -> String {
    let _ = (city, days, units, hourly);
    String::new()
}

/// A customer.
#[allow(dead_code)] // its schema is what the tests read
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Customer {
    /// Full name.
    pub name: String,
    /// Where to send the receipt.
    pub email: Option<String>,
}

/// One order line.
#[allow(dead_code)] // its schema is what the tests read
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Line {
    /// Stock-keeping unit.
    pub sku: String,
    /// How many.
    pub quantity: u32,
    /// Price of one, in euros.
    pub unit_price: f64,
}

/// How urgent.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    High,
}

/// Places an order.
#[tool(name = "sdk_order")]
fn sdk_order(
    /// Who orders.
    customer: Customer,
    /// What is ordered.
    lines: Vec<Line>,
    /// Who receives it as a gift.
    gift_for: Option<Customer>,
    /// Next-day delivery.
    express: bool,
    /// Discount rate, 0 to 1.
    discount: Option<f64>,
    /// How urgent, if it matters.
    priority: Option<Priority>,
) -> String {
    let _ = (customer, lines, gift_for, express, discount, priority);
    String::new()
}

/// Rounds a measurement.
#[tool(name = "sdk_round")]
fn sdk_round(
    /// The amount.
    value: f64,
    /// Decimal places.
    #[param(default = 2)]
    places: u32,
) -> String {
    let _ = (value, places);
    String::new()
}

/// The current time.
#[tool(name = "sdk.now")]
fn sdk_now() -> String {
    String::new()
}

const WELL_FORMED: [&str; 4] = ["sdk_weather", "sdk_order", "sdk_round", "sdk.now"];

// --- Tools the SDK helpers cannot take as they are (a map, a tuple, a tagged enum, string
// and number constraints, a recursive type): our export must still give each provider's
// types something they accept. ---

/// A label's outline.
#[allow(dead_code)] // its schema is what the tests read
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outline {
    /// A circle.
    Circle {
        /// Radius, in millimetres.
        radius: f64,
    },
    /// A rectangle.
    Rectangle {
        /// Width, in millimetres.
        width: f64,
        /// Height, in millimetres.
        height: f64,
    },
}

/// Prints a label for a parcel.
#[tool(name = "sdk_label")]
fn sdk_label(
    /// Free-form tags.
    tags: BTreeMap<String, String>,
    /// Where on the parcel: x and y.
    at: (i32, i32),
    /// The label's outline.
    outline: Outline,
    /// Tracking code.
    #[param(pattern = "^TR-[0-9]+$", length(min = 4, max = 12))]
    code: String,
    /// Copies to print.
    #[param(range(min = 1, max = 5))]
    copies: Option<u8>,
) -> String {
    let _ = (tags, at, outline, code, copies);
    String::new()
}

/// A folder and what is in it.
#[allow(dead_code)] // its schema is what the tests read
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Folder {
    /// Its name.
    pub name: String,
    /// The folders inside.
    pub children: Vec<Folder>,
}

/// Creates a tree of folders.
#[tool(name = "sdk_folders")]
fn sdk_folders(
    /// The top folder.
    root: Folder,
) -> String {
    let _ = root;
    String::new()
}

const ALL: [&str; 6] = ["sdk_weather", "sdk_order", "sdk_round", "sdk.now", "sdk_label", "sdk_folders"];

/// Searches the docs.
#[tool(name = "sdk_search", examples(r#"{"query": "rust"}"#, r#"{"query": "tokio", "limit": 5}"#))]
fn sdk_search(
    /// Words to look for.
    query: String,
    /// How many hits.
    limit: Option<u32>,
) -> String {
    let _ = (query, limit);
    String::new()
}

/// Anthropic's tools: every tool, and one with whole-call examples (`input_examples`).
const ANTHROPIC: [&str; 7] =
    ["sdk_weather", "sdk_order", "sdk_round", "sdk.now", "sdk_label", "sdk_folders", "sdk_search"];

/// The dialects written for the script, and the tools each gets.
const DIALECTS: [(&str, Dialect, &[&str]); 6] = [
    ("openai_chat_strict", Dialect::OpenAiChat { strict: true }, &WELL_FORMED),
    ("openai_responses_strict", Dialect::OpenAiResponses { strict: true }, &WELL_FORMED),
    ("gemini", Dialect::Gemini, &ALL),
    ("gemini_json_schema", Dialect::GeminiJsonSchema, &ALL),
    ("anthropic", Dialect::Anthropic { strict: false }, &ANTHROPIC),
    ("anthropic_strict", Dialect::Anthropic { strict: true }, &ANTHROPIC),
];

/// Per dialect, each tool (our name) in its wire form; the export errors apart.
fn exports() -> (Value, BTreeMap<String, String>) {
    let catalog = tool_tests::declared_in(file!());
    let mut out = Map::new();
    let mut errors = BTreeMap::new();
    for (label, dialect, tools) in DIALECTS {
        let mut wire = Map::new();
        for name in tools {
            match export(dialect, [catalog.definition(name).unwrap()]) {
                Ok(exported) => {
                    wire.insert((*name).to_owned(), exported.tools[0].clone());
                }
                Err(error) => {
                    errors.insert(format!("{label} {name}"), error.to_string());
                }
            }
        }
        out.insert(label.to_owned(), Value::Object(wire));
    }
    (Value::Object(out), errors)
}

// --- Running the script. ---

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/compare_sdks.py");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/providers");

/// Runs `compare_sdks.py <command> <args>` and reads its JSON report.
fn script(command: &str, args: &[&Path]) -> Result<Value, String> {
    let python = sdk_python(Path::new(env!("CARGO_TARGET_TMPDIR")))?;
    let stdout = run(Command::new(&python).arg(SCRIPT).arg(command).args(args), &format!("compare_sdks.py {command}"))?;
    serde_json::from_str(&stdout).map_err(|e| format!("compare_sdks.py {command}: not JSON ({e}):\n{stdout}"))
}

/// The schema report, made once for all the tests of this file.
fn schemas_report() -> &'static Value {
    static REPORT: OnceLock<Result<Value, String>> = OnceLock::new();
    let report = REPORT.get_or_init(|| {
        let (exports, _) = exports();
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sdk-exports-{}.json", process::id()));
        fs::write(&path, serde_json::to_string_pretty(&exports).unwrap()).map_err(|e| e.to_string())?;
        let report = script("schemas", &[&path]);
        let _ = fs::remove_file(&path);
        report
    });
    match report {
        Ok(report) => report,
        Err(error) => panic!("{error}"),
    }
}

fn pinned_versions() -> Value {
    let requirements = fs::read_to_string(tool_tests::python::REQUIREMENTS).unwrap();
    let pins: Map<String, Value> = requirements
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (name, version) = line.split_once("==").expect("exact pins");
            (name.trim().to_owned(), Value::String(version.trim().to_owned()))
        })
        .collect();
    Value::Object(pins)
}

#[test]
fn the_script_ran_the_pinned_sdk_versions() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::the_script_ran_the_pinned_sdk_versions",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    assert_eq!(schemas_report()["versions"], pinned_versions());
}

#[test]
fn openai_strict_equals_the_sdk_helper_on_the_pydantic_twins_but_for_the_named_differences() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::openai_strict_equals_the_sdk_helper_on_the_pydantic_twins_but_for_the_named_differences",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    // Per tool: how many `title`s and which `default`s were dropped from theirs, and every
    // other difference, named, at its place (the same for Chat Completions and Responses).
    let expected = |dialect: &str| {
        vec![
            json!({
                "tool": "sdk_weather",
                "dialect": dialect,
                "dropped_from_theirs": {"title": 6, "default": {}},
                "differences": [
                    ["nullable_type_list", "/properties/days"],
                    ["unreferenced_def_kept", "/$defs/Units"],
                    ["description_repeated_at_root", ""],
                ],
            }),
            json!({
                "tool": "sdk_order",
                "dialect": dialect,
                "dropped_from_theirs": {"title": 15, "default": {}},
                "differences": [
                    ["nullable_type_list", "/properties/customer/properties/email"],
                    ["nullable_type_list", "/properties/discount"],
                    ["nullable_type_list", "/$defs/Customer/properties/email"],
                    ["description_repeated_at_root", ""],
                ],
            }),
            json!({
                "tool": "sdk_round",
                "dialect": dialect,
                "dropped_from_theirs": {"title": 3, "default": {"/properties/places": 2}},
                "differences": [
                    ["optional_with_default_nullable", "/properties/places"],
                    ["default_in_description", "/properties/places"],
                    ["description_repeated_at_root", ""],
                ],
            }),
            json!({
                "tool": "sdk.now",
                "dialect": dialect,
                "dropped_from_theirs": {"title": 1, "default": {}},
                "differences": [["description_repeated_at_root", ""]],
            }),
        ]
    };
    let mut all = expected("openai_chat_strict");
    all.extend(expected("openai_responses_strict"));
    assert_eq!(schemas_report()["openai"], Value::Array(all));
}

#[test]
fn the_report_names_only_the_differences_documented_here() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::the_report_names_only_the_differences_documented_here",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let names: Vec<&str> =
        schemas_report()["named_differences"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "nullable_type_list",
            "unreferenced_def_kept",
            "description_repeated_at_root",
            "optional_with_default_nullable",
            "default_in_description"
        ]
    );
}

#[test]
fn every_gemini_declaration_validates_as_the_sdk_types_and_comes_back_unchanged() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::every_gemini_declaration_validates_as_the_sdk_types_and_comes_back_unchanged",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    // `schema_nodes`: the schema nodes google-genai's `Schema` read (so not a vacuous pass);
    // `parametersJsonSchema` is typed `Any` there, so only the declaration around it is checked.
    let gemini = [("sdk_weather", 5), ("sdk_order", 15), ("sdk_round", 3), ("sdk_label", 14), ("sdk_folders", 5)];
    let mut expected: Vec<Value> = Vec::new();
    for name in ALL {
        expected.push(match gemini.iter().find(|(tool, _)| *tool == name) {
            Some((_, nodes)) => json!({"tool": name, "dialect": "gemini", "schema_nodes": nodes}),
            // A tool without parameters sends none (Gemini refuses an empty OBJECT).
            None => json!({"tool": name, "dialect": "gemini"}),
        });
    }
    expected.extend(ALL.map(|name| json!({"tool": name, "dialect": "gemini_json_schema"})));
    assert_eq!(schemas_report()["gemini"], Value::Array(expected));
}

#[test]
fn every_anthropic_tool_round_trips_through_the_sdk_tool_param() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::every_anthropic_tool_round_trips_through_the_sdk_tool_param",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let mut expected: Vec<Value> =
        ANTHROPIC.map(|name| json!({"tool": name, "dialect": "anthropic", "strict": null})).into();
    // The recursive type is ours to refuse in strict mode; every other tool is sent.
    expected.extend(
        ANTHROPIC
            .iter()
            .filter(|name| **name != "sdk_folders")
            .map(|name| json!({"tool": name, "dialect": "anthropic_strict", "strict": true})),
    );
    assert_eq!(schemas_report()["anthropic"]["tools"], Value::Array(expected));
    let (_, errors) = exports();
    assert_eq!(
        errors,
        BTreeMap::from([(
            "anthropic_strict sdk_folders".to_owned(),
            "the tools cannot be exported: tool `sdk_folders`: the recursive type `Folder` at `/$defs/Folder` \
             cannot be expressed in Anthropic (strict)"
                .to_owned()
        )])
    );
}

#[test]
fn a_tool_with_input_examples_validates_as_the_sdk_tool_param_and_comes_back_unchanged() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::a_tool_with_input_examples_validates_as_the_sdk_tool_param_and_comes_back_unchanged",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let (exports, _) = exports();
    let examples = json!([{"query": "rust"}, {"query": "tokio", "limit": 5}]);
    assert_eq!(exports["anthropic"]["sdk_search"]["input_examples"], examples);
    assert_eq!(exports["anthropic_strict"]["sdk_search"]["input_examples"], examples);
    // `ToolParam` is a TypedDict: it drops keys it does not know, so coming back unchanged (what
    // the script checks for every entry it reports) means `input_examples` is one of its fields.
    let tools = schemas_report()["anthropic"]["tools"].as_array().unwrap();
    for dialect in ["anthropic", "anthropic_strict"] {
        let strict = if dialect == "anthropic" { Value::Null } else { Value::Bool(true) };
        assert!(tools.contains(&json!({"tool": "sdk_search", "dialect": dialect, "strict": strict})));
    }
}

#[test]
fn the_anthropic_sdk_types_strict_as_an_optional_bool_so_we_omit_it_rather_than_send_null() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::the_anthropic_sdk_types_strict_as_an_optional_bool_so_we_omit_it_rather_than_send_null",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    assert_eq!(
        schemas_report()["anthropic"]["strict_field"],
        json!({"annotation": "bool", "required": false, "null_rejected": true})
    );
}

/// The generated set (`tool_tests::generated`) per dialect in its wire form, and how many tools
/// each dialect exported (the others it refuses: Anthropic strict, recursive types).
fn generated_exports() -> (Value, BTreeMap<String, usize>) {
    let tools = generated_tools(240);
    let mut out = Map::new();
    let mut counts = BTreeMap::new();
    for (label, dialect, _) in DIALECTS {
        let mut wire = Map::new();
        for tool in &tools {
            if let Ok(exported) = export(dialect, [tool.definition()]) {
                wire.insert(tool.definition().name.clone(), exported.tools[0].clone());
            }
        }
        counts.insert(label.to_owned(), wire.len());
        out.insert(label.to_owned(), Value::Object(wire));
    }
    (Value::Object(out), counts)
}

#[test]
fn every_generated_tool_validates_with_the_sdks_in_every_dialect_it_exports_to() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::every_generated_tool_validates_with_the_sdks_in_every_dialect_it_exports_to",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let (exports, counts) = generated_exports();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sdk-generated-{}.json", process::id()));
    fs::write(&path, serde_json::to_string(&exports).unwrap()).unwrap();
    let report = script("generated", &[&path]);
    let _ = fs::remove_file(&path);
    let report = report.unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(report["versions"], pinned_versions());
    assert_eq!(report["validated"], json!(counts));
    assert_eq!(
        report["validated"],
        json!({
            "openai_chat_strict": 240,
            "openai_responses_strict": 240,
            "gemini": 240,
            "gemini_json_schema": 240,
            "anthropic": 240,
            "anthropic_strict": 164,
        })
    );
    // The schema nodes the strict rules and google-genai's `Schema` read: not a vacuous pass.
    assert_eq!(report["schema_nodes"], json!({"openai": 7796, "gemini": 2456}));
}

/// The recorded non-streamed responses, and whose they are.
const RESPONSES: [(&str, Provider); 5] = [
    ("openai_chat_tool_call.json", Provider::OpenAiChat),
    ("openai_chat_parallel_tool_calls.json", Provider::OpenAiChat),
    ("openai_responses_function_call.json", Provider::OpenAiResponses),
    ("anthropic_message_tool_use.json", Provider::Anthropic),
    ("gemini_google-tool-call.json", Provider::Gemini),
];

/// The SDKs' reading of [`RESPONSES`], made once for all the tests of this file.
fn calls_report() -> &'static Value {
    static REPORT: OnceLock<Result<Value, String>> = OnceLock::new();
    let report = REPORT.get_or_init(|| {
        let paths: Vec<PathBuf> = RESPONSES.iter().map(|(name, _)| Path::new(FIXTURES).join(name)).collect();
        let paths: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        script("calls", &paths)
    });
    match report {
        Ok(report) => report,
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn the_sdk_response_models_read_the_recorded_fixtures_as_these_calls() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::the_sdk_response_models_read_the_recorded_fixtures_as_these_calls",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    // Each SDK's own reading of the recorded responses, pinned: what our parser is compared with.
    let report = calls_report();
    assert_eq!(report["versions"], pinned_versions());
    assert_eq!(
        report["calls"],
        json!({
            "openai_chat_tool_call.json": {
                "calls": [
                    {"name": "GetWeatherArgs", "id": "call_Y6qJ7ofLgOrBnMD5WbVAeiRV",
                     "arguments": {"city": "Edinburgh", "country": "UK", "units": "c"}},
                ],
                "text": "",
                "stop_reason": "tool_calls",
            },
            "openai_chat_parallel_tool_calls.json": {
                "calls": [
                    {"name": "GetWeatherArgs", "id": "call_fdNz3vOBKYgOIpMdWotB9MjY",
                     "arguments": {"city": "Edinburgh", "country": "GB", "units": "c"}},
                    {"name": "get_stock_price", "id": "call_h1DWI1POMJLb0KwIyQHWXD4p",
                     "arguments": {"ticker": "AAPL", "exchange": "NASDAQ"}},
                ],
                "text": "",
                "stop_reason": "tool_calls",
            },
            // The result goes back under `call_id`; the item `id` is kept to send back too.
            "openai_responses_function_call.json": {
                "calls": [
                    {"name": "semantic_scholar_search", "id": "call_2mhz5FtwkZnzXQkTOMtYZpZH",
                     "arguments": {"query": "machine learning", "limit": 10, "offset": 0, "year": 0},
                     "provider_data": {"id": "fc_08c7eac45286fefb006a5f41bceb6081a3a366f3ae718bea5e"}},
                ],
                "text": "",
                "stop_reason": "completed",
            },
            "anthropic_message_tool_use.json": {
                "calls": [
                    {"name": "get_weather", "id": "toolu_01A9HHF5Ezy3oBrKmSgfASm9",
                     "arguments": {"location": "San Francisco, CA", "units": "f"}},
                ],
                "text": "",
                "stop_reason": "tool_use",
            },
            // The Gemini API sends no call id; the SDK decodes the signature, re-encoded here.
            "gemini_google-tool-call.json": {
                "calls": [
                    {"name": "weather", "id": null, "arguments": {"location": "San Francisco"},
                     "provider_data": {"thoughtSignature":
                        "EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5"}},
                ],
                "text": "",
                "stop_reason": "STOP",
            },
        })
    );
}

/// Our parser's reading of a recorded response in the shape the script prints the SDK's, and
/// where it differs by design, named: `generated_call_id` (Gemini sent no id; ours is
/// `gemini_call_{i}`, marked `generatedId` in `provider_data`, so the result can be matched
/// to its call; the SDK's is null).
fn our_reading(name: &str, provider: Provider) -> (Value, Vec<(String, String)>) {
    let path = Path::new(FIXTURES).join(name);
    let response: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let parsed = parse_response(provider, &response, &NameMap::identity()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut differences = Vec::new();
    let calls: Vec<Value> = parsed
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let arguments: Value = serde_json::from_str(&call.raw_arguments).unwrap();
            let mut id = Value::String(call.call_id.clone());
            let mut provider_data = call.provider_data.clone();
            if provider_data.get("generatedId") == Some(&Value::Bool(true)) {
                provider_data.remove("generatedId");
                id = Value::Null;
                differences.push(("generated_call_id".to_owned(), format!("/calls/{i}/id")));
            }
            let mut out = json!({"name": call.tool_name, "id": id, "arguments": arguments});
            if !provider_data.is_empty() {
                out["provider_data"] = Value::Object(provider_data);
            }
            out
        })
        .collect();
    (json!({"calls": calls, "text": parsed.text, "stop_reason": parsed.stop_reason}), differences)
}

#[test]
fn our_response_parser_reads_every_recorded_response_as_the_sdks_do_but_for_gemini_generated_ids() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::our_response_parser_reads_every_recorded_response_as_the_sdks_do_but_for_gemini_generated_ids",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let sdk = &calls_report()["calls"];
    let mut named = Vec::new();
    for (name, provider) in RESPONSES {
        let (ours, differences) = our_reading(name, provider);
        assert_eq!(ours, sdk[name], "{name}: ours, then the SDK's");
        named.extend(differences.into_iter().map(|(difference, at)| (name, difference, at)));
    }
    assert_eq!(named, vec![("gemini_google-tool-call.json", "generated_call_id".to_owned(), "/calls/0/id".to_owned())]);
}

// --- Tool search: the request tools of every mode and our answers, validated with the SDKs'
// own types; the documented tool-search responses read by the SDKs' models as we read them. ---

fn search_tool_of(name: &str, description: &str, parameter: &str, tags: &[&str]) -> DynamicTool {
    let mut builder = DynamicTool::builder(name).description(description).input_schema(json!({
        "type": "object",
        "properties": {parameter: {"type": "string"}},
        "required": [parameter],
    }));
    for tag in tags {
        builder = builder.tag(*tag);
    }
    builder.handler(|_, _| async { ToolOutput::text("done") }).build().unwrap()
}

/// One loaded tool and four deferred, two of them in `crm`; the names of the documented examples.
fn search_catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_tool(search_tool_of("clock_now", "The current time in a time zone.", "zone", &[]))
        .add_tool(search_tool_of(
            "crm.get_customer_profile",
            "Fetch a customer profile by customer ID.",
            "customer_id",
            &["crm"],
        ))
        .add_tool(search_tool_of(
            "crm.list_open_orders",
            "List open orders for a customer ID.",
            "customer_id",
            &["crm"],
        ))
        .add_tool(search_tool_of("get_weather", "Get the weather at a specific location", "location", &["weather"]))
        .add_tool(search_tool_of("shipping_eta", "Look up shipping ETA details for an order.", "order_id", &[]))
        .defer_all()
        .keep_loaded("clock_now")
        .build()
        .unwrap()
}

/// Every mode's request `tools` (Anthropic and Responses), our answers to a search in each
/// provider's shape, and the names of the hosted request with namespaces.
fn search_payload() -> (Value, NameMap) {
    let catalog = search_catalog();
    let search = SearchToolBuilder::new(catalog.deferred()).build().unwrap();
    let build = |dialect, mode, namespaces: Option<Namespaces>, cached: bool| {
        let mut builder =
            SearchRequest::builder(&catalog, search.definition(), dialect).mode(mode).cache_breakpoint(cached);
        if let Some(namespaces) = namespaces {
            builder = builder.namespaces(namespaces);
        }
        builder.build().unwrap()
    };
    let found = Discovered::new();
    let anthropic = Dialect::Anthropic { strict: false };
    let anthropic_strict = Dialect::Anthropic { strict: true };
    let responses = Dialect::OpenAiResponses { strict: false };
    let responses_strict = Dialect::OpenAiResponses { strict: true };
    let by_prefix =
        || Some(Namespaces::by_prefix().describe("crm", "CRM tools for customer lookup and order management."));
    let hosted_namespaces = build(responses_strict, SearchMode::OpenAiHosted, by_prefix(), false);
    let ours_responses = build(responses, SearchMode::Ours, None, false);
    let ours_anthropic = build(anthropic, SearchMode::Ours, None, false);
    let runner = SearchToolBuilder::new(catalog.deferred()).build().unwrap();
    let executor = Executor::new(catalog.to_builder().add_tool(runner).build().unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let run = |arguments: &str| {
        runtime.block_on(executor.execute(ToolCallRequest::new("search_tools", "toolu_search", arguments)))
    };
    let found_two = run(r#"{"query": "open orders of a customer", "limit": 2}"#);
    let found_none = run(r#"{"query": "zebra"}"#);
    let payload = json!({
        "anthropic": {
            "ours": ours_anthropic.tools(&found).tools,
            "regex": build(anthropic, SearchMode::AnthropicRegex, None, true).tools(&found).tools,
            "bm25_strict": build(anthropic_strict, SearchMode::AnthropicBm25, None, false).tools(&found).tools,
        },
        "openai_responses": {
            "hosted": build(responses, SearchMode::OpenAiHosted, None, false).tools(&found).tools,
            "hosted_namespaces": hosted_namespaces.tools(&found).tools,
            "hosted_by_tag": build(responses, SearchMode::OpenAiHosted, Some(Namespaces::by_tag()), false).tools(&found).tools,
            "ours": ours_responses.tools(&found).tools,
        },
        "anthropic_results": [
            anthropic_tool_result(&found_two, &ours_anthropic),
            anthropic_tool_result(&found_none, &ours_anthropic),
        ],
        "openai_outputs": [
            ours_responses.openai_tool_search_output("call_abc123", &["shipping_eta".to_owned(), "get_weather".to_owned()]).unwrap(),
            ours_responses.openai_tool_search_output("call_abc124", &[]).unwrap(),
        ],
    });
    (payload, hosted_namespaces.names().clone())
}

/// The documented tool-search responses (`tests/data/providers`), and whose they are.
const SEARCH_RESPONSES: [(&str, Provider); 3] = [
    ("anthropic_message_tool_search.json", Provider::Anthropic),
    ("anthropic_message_tool_search_error.json", Provider::Anthropic),
    ("openai_responses_tool_search_hosted.json", Provider::OpenAiResponses),
];
const SEARCH_STREAMS: [&str; 2] = ["anthropic_stream_tool_search.sse", "openai_responses_stream_tool_search.jsonl"];

fn search_report() -> &'static Value {
    static REPORT: OnceLock<Result<Value, String>> = OnceLock::new();
    let report = REPORT.get_or_init(|| {
        let (payload, _) = search_payload();
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sdk-search-{}.json", process::id()));
        fs::write(&path, serde_json::to_string_pretty(&payload).unwrap()).map_err(|e| e.to_string())?;
        let mut paths = vec![path.clone()];
        paths.extend(SEARCH_RESPONSES.iter().map(|(name, _)| Path::new(FIXTURES).join(name)));
        paths.extend(SEARCH_STREAMS.iter().map(|name| Path::new(FIXTURES).join(name)));
        let paths: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let report = script("search", &paths);
        let _ = fs::remove_file(&path);
        report
    });
    match report {
        Ok(report) => report,
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn every_tool_search_request_and_answer_validates_with_the_sdks_own_types() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::every_tool_search_request_and_answer_validates_with_the_sdks_own_types",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let report = search_report();
    assert_eq!(report["versions"], pinned_versions());
    let entries = |request: &str, types: &[&str]| -> Vec<Value> {
        types.iter().enumerate().map(|(i, kind)| json!({"request": request, "index": i, "type": kind})).collect()
    };
    let tool = "ToolParam";
    let mut anthropic = entries("ours", &[tool; 6]);
    anthropic.extend(entries("regex", &[tool, "ToolSearchToolRegex20251119Param", tool, tool, tool, tool]));
    anthropic.extend(entries("bm25_strict", &[tool, "ToolSearchToolBm25_20251119Param", tool, tool, tool, tool]));
    assert_eq!(report["anthropic"], Value::Array(anthropic));
    let (function, namespace, search) = ("FunctionToolParam", "NamespaceToolParam", "ToolSearchToolParam");
    let mut openai = entries("hosted", &[function, search, function, function, function, function]);
    openai.extend(entries("hosted_namespaces", &[function, search, namespace, function, function]));
    openai.extend(entries("hosted_by_tag", &[function, search, namespace, namespace, function]));
    openai.extend(entries("ours", &[function, search]));
    assert_eq!(report["openai_responses"], Value::Array(openai));
    assert_eq!(report["anthropic_results"], 2);
    assert_eq!(report["openai_outputs"], 2);
}

/// Our reading of a documented tool-search response, in the shape the script prints the SDK's.
fn our_search_steps(name: &str, provider: Provider, names: &NameMap) -> Value {
    let response: Value = serde_json::from_str(&fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap()).unwrap();
    let read = read_response(provider, &response, names).unwrap();
    steps_of(provider, &read, names)
}

fn steps_of(provider: Provider, read: &SearchResponse, names: &NameMap) -> Value {
    let mut steps = Vec::new();
    for search in &read.searches {
        match provider {
            Provider::Anthropic => {
                steps.push(json!({"type": "server_tool_use", "id": search.call_id, "name": search.tool, "input": search.arguments}));
                let mut result = json!({"type": "tool_search_tool_result", "tool_use_id": search.call_id});
                match &search.outcome {
                    SearchOutcome::Found { tools } => result["tools"] = json!(tools),
                    SearchOutcome::Failed { code, message } => {
                        result["error_code"] = json!(code);
                        result["error_message"] = json!(message);
                    }
                    other => panic!("{other:?}"),
                }
                steps.push(result);
            }
            _ => {
                let execution = serde_json::to_value(search.execution).unwrap();
                steps.push(json!({"type": "tool_search_call", "id": search.item_id, "call_id": search.call_id,
                                  "execution": execution, "arguments": search.arguments}));
                let tools: Vec<String> = search
                    .found()
                    .iter()
                    .map(|tool| match names.namespace_of(tool) {
                        Some((namespace, name)) => format!("{namespace}/{name}"),
                        None => names.wire_name(tool).to_owned(),
                    })
                    .collect();
                steps.push(json!({"type": "tool_search_output", "call_id": search.call_id, "execution": execution,
                                  "tools": tools}));
            }
        }
    }
    for call in &read.calls.calls {
        let arguments: Value = serde_json::from_str(&call.raw_arguments).unwrap();
        steps.push(match provider {
            Provider::Anthropic => {
                json!({"type": "tool_use", "id": call.call_id, "name": names.wire_name(&call.tool_name), "input": arguments})
            }
            _ => {
                let (namespace, name) = names.namespace_of(&call.tool_name).unwrap();
                json!({"type": "function_call", "name": name, "namespace": namespace, "call_id": call.call_id,
                       "arguments": arguments})
            }
        });
    }
    json!({"steps": steps})
}

#[test]
fn the_sdks_read_the_documented_tool_search_responses_whole_and_streamed_as_we_do() {
    let Some(_) = tool_tests::external::python(
        "provider_sdks::the_sdks_read_the_documented_tool_search_responses_whole_and_streamed_as_we_do",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let fixtures = &search_report()["fixtures"];
    let hosted = json!([
        {"type": "tool_search_call", "id": "tsc_01", "call_id": null, "execution": "server", "arguments": {"paths": ["crm"]}},
        {"type": "tool_search_output", "call_id": null, "execution": "server", "tools": ["crm/list_open_orders"]},
        {"type": "function_call", "name": "list_open_orders", "namespace": "crm", "call_id": "call_abc123",
         "arguments": {"customer_id": "CUST-12345"}},
    ]);
    assert_eq!(
        fixtures,
        &json!({
            "anthropic_message_tool_search.json": {"steps": [
                {"type": "server_tool_use", "id": "srvtoolu_01ABC123", "name": "tool_search_tool_regex", "input": {"pattern": "weather"}},
                {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01ABC123", "tools": ["get_weather"]},
                {"type": "tool_use", "id": "toolu_01XYZ789", "name": "get_weather",
                 "input": {"location": "San Francisco", "unit": "fahrenheit"}},
            ]},
            "anthropic_message_tool_search_error.json": {"steps": [
                {"type": "server_tool_use", "id": "srvtoolu_01ABC123", "name": "tool_search_tool_regex", "input": {"pattern": "("}},
                {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01ABC123", "error_code": "invalid_tool_input",
                 "error_message": "Invalid regular expression pattern: missing ) at position 1"},
            ]},
            "openai_responses_tool_search_hosted.json": {"steps": hosted},
            "anthropic_stream_tool_search.sse": {"events": 15, "blocks_started":
                ["text", "server_tool_use", "tool_search_tool_result", "tool_use"]},
            "openai_responses_stream_tool_search.jsonl": {"events": 11, "items_done":
                ["tool_search_call", "tool_search_output", "function_call"], "steps": hosted},
        })
    );
    let (_, names) = search_payload();
    for (name, provider) in SEARCH_RESPONSES {
        let names = if provider == Provider::Anthropic { NameMap::identity() } else { names.clone() };
        assert_eq!(our_search_steps(name, provider, &names), fixtures[name], "{name}: ours, then the SDK's");
    }
    // Streamed, ours reads as the whole response does (which is the SDK's reading above).
    let payloads: Vec<String> =
        fs::read_to_string(Path::new(FIXTURES).join(SEARCH_STREAMS[1])).unwrap().lines().map(str::to_owned).collect();
    let mut stream = SearchStream::new(Provider::OpenAiResponses, names.clone());
    for data in &payloads {
        stream.push_data(data).unwrap();
    }
    assert_eq!(steps_of(Provider::OpenAiResponses, &stream.finish(), &names)["steps"], hosted);
}
