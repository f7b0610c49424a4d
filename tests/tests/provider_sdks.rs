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
//!   unchanged (a TypedDict drops unknown keys, so an unchanged dump means all were known).
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
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Customer {
    /// Full name.
    pub name: String,
    /// Where to send the receipt.
    pub email: Option<String>,
}

/// One order line.
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

/// The dialects written for the script, and the tools each gets.
const DIALECTS: [(&str, Dialect, &[&str]); 6] = [
    ("openai_chat_strict", Dialect::OpenAiChat { strict: true }, &WELL_FORMED),
    ("openai_responses_strict", Dialect::OpenAiResponses { strict: true }, &WELL_FORMED),
    ("gemini", Dialect::Gemini, &ALL),
    ("gemini_json_schema", Dialect::GeminiJsonSchema, &ALL),
    ("anthropic", Dialect::Anthropic { strict: false }, &ALL),
    ("anthropic_strict", Dialect::Anthropic { strict: true }, &ALL),
];

/// Per dialect, each tool (our name) in its wire form; the export errors apart.
fn exports() -> (Value, BTreeMap<String, String>) {
    let catalog = ToolCatalog::global().unwrap();
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
    let mut expected: Vec<Value> = ALL.map(|name| json!({"tool": name, "dialect": "anthropic", "strict": null})).into();
    // The recursive type is ours to refuse in strict mode; every other tool is sent.
    expected.extend(
        ALL.iter()
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
