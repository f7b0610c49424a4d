//! Issue 27's real-data check of the Python-call reader: thousands of answers real small open
//! models wrote for the BFCL benchmark (AIREV-Agent-0.8B, a Gemma 4 E4B fine-tune, the AYA
//! pipeline; `tests/data/open_models/bfcl/NOTICE`), and some of them wrapped in the special
//! tokens and fences of raw output or cut short (labelled synthetic), each read with
//! `OpenModelParser::form(CallForm::Python)` by the functions the benchmark declared, against
//! what Python's own parser reads from it (`tests/python/open_models_reference.py`, checked
//! in as `reference.jsonl`):
//!
//! - an answer Python reads gives the same calls, in order, with the same values (a tuple is a
//!   list; a difference only with a warning at its place);
//! - of an answer Python cannot read, each call is refused, or is the call Python reads from
//!   its own text with every difference explained by a warning at its place; never a call
//!   with no warning whose values differ from what the model wrote.
//!
//! Each answer is also read streamed (7-byte chunks, cut inside characters and tokens) and
//! with no form named (the reader finds it), and must give the same events both ways, unless
//! with no form named the answer's calls are read in another form, each with a warning or
//! refused (one answer written as a JSON list of calls).
//!
//! A sample also runs through the executor, whose extraction types the values by the BFCL
//! schemas. Run: `cargo test -p tool-tests --test library open_models_real:: -- --nocapture` (the table).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value};
use tool_core::open_models::{CallForm, OpenModelParser, OpenModelResponse};
use tool_core::prelude::*;
use tool_core::{ArgumentErrors, CallFailure, ParseWarning};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/open_models/bfcl");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/open_models_reference.py");

fn lines(name: &str) -> Vec<Value> {
    let path = Path::new(DATA).join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: {e}: {line}"))).collect()
}

fn python3() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("python3"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| "no python3 on PATH (the reference reader needs Python's own `ast`, nothing else)".to_owned())
}

/// The checked-in reference is what the script writes today: Python's reading, not a copy of
/// ours.
#[test]
fn the_reference_is_what_python_reads() {
    let Some(python) = tool_tests::external::or_skip("open_models_real::the_reference_is_what_python_reads", python3())
    else {
        return;
    };
    let output = Command::new(python).arg(SCRIPT).arg(DATA).output().expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let fresh = String::from_utf8(output.stdout).expect("UTF-8");
    let checked_in = std::fs::read_to_string(Path::new(DATA).join("reference.jsonl")).unwrap();
    assert!(
        fresh == checked_in,
        "reference.jsonl is stale: run `python3 tests/python/open_models_reference.py {DATA} > {DATA}/reference.jsonl`"
    );
}

/// BFCL's type names (`dict`, `float`, `tuple`, `any`) as JSON Schema.
fn json_schema(bfcl: &Value) -> Value {
    match bfcl {
        Value::Object(object) => {
            let mut out = Map::new();
            for (key, value) in object {
                match (key.as_str(), value) {
                    ("type", Value::String(kind)) => match kind.as_str() {
                        "dict" => _ = out.insert(key.clone(), "object".into()),
                        "float" => _ = out.insert(key.clone(), "number".into()),
                        "tuple" => _ = out.insert(key.clone(), "array".into()),
                        "any" => {}
                        _ => _ = out.insert(key.clone(), value.clone()),
                    },
                    ("properties", Value::Object(properties)) => {
                        let properties = properties.iter().map(|(k, v)| (k.clone(), json_schema(v))).collect();
                        out.insert(key.clone(), Value::Object(properties));
                    }
                    ("items" | "additionalProperties", _) => _ = out.insert(key.clone(), json_schema(value)),
                    _ => _ = out.insert(key.clone(), value.clone()),
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn definitions(functions: &Value) -> Vec<ToolDefinition> {
    functions
        .as_array()
        .expect("a list of functions")
        .iter()
        .map(|f| {
            let name = f["name"].as_str().expect("a name");
            ToolDefinition::new(name, "", json_schema(&f["parameters"]))
        })
        .collect()
}

/// A call as Python reads it (see the script's docstring).
#[derive(Debug)]
struct PyCall {
    name: String,
    arguments: Value,
    /// Where Python could not read a value (or the call's shape, at ``), and why.
    problems: Vec<(String, String)>,
    json_literals: Vec<String>,
}

#[derive(Debug)]
struct Reference {
    readable: bool,
    reason: String,
    calls: Vec<PyCall>,
}

fn pointers(value: &Value) -> Vec<String> {
    value.as_array().map(|a| a.iter().map(|p| p.as_str().unwrap().to_owned()).collect()).unwrap_or_default()
}

fn reference(row: &Value) -> Reference {
    let calls = row["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| PyCall {
            name: call["name"].as_str().unwrap().to_owned(),
            arguments: call["arguments"].clone(),
            problems: call["problems"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|p| (p["pointer"].as_str().unwrap().to_owned(), p["reason"].as_str().unwrap().to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
            json_literals: pointers(&call["json_literals"]),
        })
        .collect();
    Reference {
        readable: row["python"] == "calls",
        reason: row["reason"].as_str().unwrap_or_default().to_owned(),
        calls,
    }
}

/// Where `ours` and `python`'s values differ (numbers by value: `5` and `5.0` are one number).
fn differences(ours: &Value, python: &Value, at: &str, out: &mut Vec<String>) {
    match (ours, python) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let child = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differences(x, y, &child, out),
                    _ => out.push(child),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{at}/{i}"), out);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            if !same {
                out.push(at.to_owned());
            }
        }
        _ if ours == python => {}
        _ => out.push(at.to_owned()),
    }
}

/// Whether a warning at `warning` speaks of the place `at`: the same place, one inside it, or
/// one that holds it other than the whole call (a warning about the call's shape, such as its
/// missing brackets, explains no value).
fn explains(warning: &str, at: &str) -> bool {
    warning == at
        || (!warning.is_empty() && at.strip_prefix(warning).is_some_and(|rest| rest.starts_with('/')))
        || warning.strip_prefix(at).is_some_and(|rest| rest.starts_with('/'))
}

fn arguments_of(call: &ToolCallRequest) -> Option<Value> {
    call.arguments.clone().or_else(|| serde_json::from_str(&call.raw_arguments).ok())
}

/// The places of `call` where it differs from Python's `python` that no warning of its own
/// explains.
fn unexplained(call: &ToolCallRequest, python: &PyCall) -> Vec<String> {
    let ours = arguments_of(call).unwrap_or(Value::Null);
    let mut places = Vec::new();
    differences(&ours, &python.arguments, "", &mut places);
    // Where Python read no value, ours is free; a warning must still say what was done.
    places.retain(|p| !python.problems.iter().any(|(at, _)| explains(at, p) && !at.is_empty()));
    places.extend(python.problems.iter().map(|(at, _)| at.clone()));
    places.extend(python.json_literals.iter().cloned());
    places.retain(|p| !call.parse_warnings.iter().any(|w| explains(w.pointer(), p)));
    places.sort();
    places.dedup();
    places
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Python reads it; ours is the same, with no warning.
    Identical,
    /// Python reads it; ours is the same, with warnings.
    IdenticalWithWarnings,
    /// A call refused, or (Python cannot read the answer) no call read.
    Refused,
    /// Python cannot read the answer; each call read is the call Python reads from its own
    /// text, with no difference.
    SameAsItsCalls,
    /// Different from Python's reading, every difference at a place a warning speaks of.
    Explained,
    /// Python reads calls; the reader read none (a bare call to an undeclared tool is the
    /// model's words): nothing runs.
    AsWords,
    /// Different from Python's reading with no warning saying so: a silently wrong call.
    Silent,
}

fn outcome(response: &OpenModelResponse, python: &Reference) -> (Outcome, String) {
    let warned = |call: &ToolCallRequest| !call.parse_warnings.is_empty();
    if python.readable {
        let names: Vec<&str> = response.calls.iter().map(|c| c.tool_name.as_str()).collect();
        let expected: Vec<&str> = python.calls.iter().map(|c| c.name.as_str()).collect();
        if response.calls.iter().any(|c| c.parse_error.is_some()) {
            return (Outcome::Refused, String::new());
        }
        if names.is_empty() && !expected.is_empty() {
            return (Outcome::AsWords, format!("Python reads {expected:?}"));
        }
        if names != expected {
            let said = !response.warnings.is_empty() || response.calls.iter().any(warned);
            let detail = format!("calls {names:?}, Python reads {expected:?}");
            return (if said { Outcome::Explained } else { Outcome::Silent }, detail);
        }
        let mut any_difference = false;
        for (call, py) in response.calls.iter().zip(&python.calls) {
            let mut places = Vec::new();
            differences(&arguments_of(call).unwrap_or(Value::Null), &py.arguments, "", &mut places);
            any_difference |= !places.is_empty();
            let left = unexplained(call, py);
            if !left.is_empty() {
                return (Outcome::Silent, format!("{} at {left:?}: ours {:?}", call.tool_name, arguments_of(call)));
            }
        }
        let outcome = match (any_difference, response.calls.iter().any(warned) || !response.warnings.is_empty()) {
            (true, _) => Outcome::Explained,
            (false, false) => Outcome::Identical,
            (false, true) => Outcome::IdenticalWithWarnings,
        };
        return (outcome, String::new());
    }
    let read: Vec<&ToolCallRequest> = response.calls.iter().filter(|c| c.parse_error.is_none()).collect();
    if read.is_empty() {
        return (Outcome::Refused, String::new());
    }
    // Each call read is matched, in order, with the next call of that name Python reads from
    // the answer's text.
    let mut next = 0;
    let mut explained = false;
    for call in read {
        let found = python.calls[next..].iter().position(|py| py.name == call.tool_name);
        let Some(offset) = found else {
            if warned(call) || !response.warnings.is_empty() {
                explained = true;
                continue;
            }
            return (
                Outcome::Silent,
                format!("{} read, Python reads no such call ({})", call.tool_name, python.reason),
            );
        };
        let py = &python.calls[next + offset];
        next += offset + 1;
        let left = unexplained(call, py);
        if !left.is_empty() {
            return (
                Outcome::Silent,
                format!("{} at {left:?} ({}): ours {:?}", call.tool_name, python.reason, arguments_of(call)),
            );
        }
        let mut places = Vec::new();
        differences(&arguments_of(call).unwrap_or(Value::Null), &py.arguments, "", &mut places);
        explained |= !places.is_empty() || !py.problems.is_empty() || !py.json_literals.is_empty();
    }
    (if explained { Outcome::Explained } else { Outcome::SameAsItsCalls }, String::new())
}

/// The group an answer is counted in: `real` or `synthetic`, Python reads it or not.
fn group(key: &str, readable: bool) -> &'static str {
    match (key.starts_with("synthetic/"), readable) {
        (false, true) => "real, Python reads",
        (false, false) => "real, Python cannot read",
        (true, true) => "synthetic, Python reads",
        (true, false) => "synthetic, Python cannot read",
    }
}

/// The model an answer is from, or the kind of synthetic answer it is.
fn source(key: &str) -> &str {
    let mut parts = key.splitn(3, '/');
    match (parts.next(), parts.next()) {
        (Some("synthetic"), Some(kind)) => kind,
        (Some(model), _) => model,
        _ => key,
    }
}

const OUTCOMES: [Outcome; 7] = [
    Outcome::Identical,
    Outcome::IdenticalWithWarnings,
    Outcome::Refused,
    Outcome::SameAsItsCalls,
    Outcome::Explained,
    Outcome::AsWords,
    Outcome::Silent,
];

struct Corpus {
    functions: HashMap<String, Value>,
    answers: Vec<Value>,
    references: HashMap<String, Reference>,
}

fn corpus() -> Corpus {
    let functions = lines("functions.jsonl")
        .into_iter()
        .map(|row| (row["ref"].as_str().unwrap().to_owned(), row["functions"].clone()))
        .collect();
    let mut answers = lines("answers.jsonl");
    answers.extend(lines("synthetic.jsonl"));
    let references =
        lines("reference.jsonl").iter().map(|row| (row["key"].as_str().unwrap().to_owned(), reference(row))).collect();
    Corpus { functions, answers, references }
}

fn parser(functions: &Value) -> OpenModelParser {
    OpenModelParser::for_tools(&definitions(functions)).form(CallForm::Python)
}

#[test]
fn real_answers_read_as_python_reads_them() {
    let corpus = corpus();
    // Per set of functions: the parser told the form, and one that finds it (a host that does
    // not know what its model writes).
    let mut parsers: HashMap<&str, (OpenModelParser, OpenModelParser)> = HashMap::new();
    let mut table: BTreeMap<&str, BTreeMap<Outcome, usize>> = BTreeMap::new();
    let mut by_source: BTreeMap<&str, BTreeMap<Outcome, usize>> = BTreeMap::new();
    let mut silent = Vec::new();
    let mut explained = Vec::new();
    let mut unstreamed = Vec::new();
    let mut unfound = Vec::new();
    let mut in_other_forms = Vec::new();
    let mut as_words = Vec::new();
    for answer in &corpus.answers {
        let key = answer["key"].as_str().unwrap();
        let functions = answer["functions"].as_str().unwrap();
        let (parser, unnamed) = parsers.entry(functions).or_insert_with(|| {
            let definitions = definitions(&corpus.functions[functions]);
            (OpenModelParser::for_tools(&definitions).form(CallForm::Python), OpenModelParser::for_tools(&definitions))
        });
        let python = &corpus.references[key];
        let text = answer["text"].as_str().unwrap();
        let response = parser.parse(text);
        // Streamed in 7-byte chunks (cut inside characters and tokens), the same reading.
        let mut stream = parser.stream();
        let mut events: Vec<_> = text.as_bytes().chunks(7).flat_map(|chunk| stream.feed_bytes(chunk)).collect();
        events.extend(stream.finish());
        let streamed = OpenModelResponse::from_events(events);
        let found = unnamed.parse(text);
        // With no form named, an answer whose calls are in another form (JSON written instead
        // of Python) may be read in that form: each call it gives must say what it repaired or
        // be refused, never run as if the model wrote it in its own form.
        let other_form = found.form.is_some_and(|form| form != CallForm::Python)
            && found.calls.iter().all(|call| call.parse_error.is_some() || !call.parse_warnings.is_empty());
        if other_form {
            in_other_forms.push(format!("{key}: {:?}", found.form));
        } else if found != response {
            unfound.push(format!("{key}:\n  named    {response:?}\n  found    {found:?}"));
        }
        if streamed != response {
            unstreamed.push(format!("{key}:\n  whole    {response:?}\n  streamed {streamed:?}"));
        }
        let (outcome, detail) = outcome(&response, python);
        *table.entry(group(key, python.readable)).or_default().entry(outcome).or_default() += 1;
        *by_source.entry(source(key)).or_default().entry(outcome).or_default() += 1;
        match outcome {
            Outcome::Silent => silent.push(format!("{key}: {detail}\n    {:?}", answer["text"])),
            Outcome::Explained if python.readable => explained.push(format!("{key}: {detail}")),
            Outcome::AsWords => as_words.push(format!("{key}: {detail}")),
            _ => {}
        }
    }
    let mut printed = format!(
        "\n{:<30} {:>7} {:>9} {:>10} {:>7} {:>9} {:>9} {:>8} {:>6}\n",
        "answers", "count", "identical", "+warnings", "refused", "its calls", "explained", "as words", "silent"
    );
    let mut counts = BTreeMap::new();
    for (group, outcomes) in &table {
        let row: [usize; 7] = OUTCOMES.map(|o| outcomes.get(&o).copied().unwrap_or(0));
        let total: usize = row.iter().sum();
        printed.push_str(&format!(
            "{group:<30} {total:>7} {:>9} {:>10} {:>7} {:>9} {:>9} {:>8} {:>6}\n",
            row[0], row[1], row[2], row[3], row[4], row[5], row[6]
        ));
        counts.insert(*group, row);
    }
    println!("{printed}");
    // The same by model (and kind of synthetic answer), for the record; not pinned.
    for (source, outcomes) in &by_source {
        let row = OUTCOMES.map(|o| outcomes.get(&o).copied().unwrap_or(0));
        let total: usize = row.iter().sum();
        println!(
            "{source:<30} {total:>7} {:>9} {:>10} {:>7} {:>9} {:>9} {:>8} {:>6}",
            row[0], row[1], row[2], row[3], row[4], row[5], row[6]
        );
    }
    for line in explained.iter().take(20) {
        println!("explained: {line}");
    }
    for line in &as_words {
        println!("as words: {line}");
    }
    println!("silent: {}, read otherwise streamed: {}", silent.len(), unstreamed.len());
    assert!(silent.is_empty(), "{} silently different calls:\n{}", silent.len(), silent.join("\n"));
    assert!(unstreamed.is_empty(), "{} read otherwise streamed:\n{}", unstreamed.len(), unstreamed.join("\n"));
    assert!(unfound.is_empty(), "{} read otherwise with no form named:\n{}", unfound.len(), unfound.join("\n"));
    // The one answer written as a JSON list (`[{"name": "search_web_tool", "params": {..}}]`)
    // is read as Llama's JSON with a warning when no form is named.
    assert_eq!(in_other_forms, ["gemma4/live_multiple_241-107-2: Some(LlamaJson)"]);
    let pinned: BTreeMap<&str, [usize; 7]> = BTreeMap::from(PINNED);
    assert_eq!(counts, pinned, "{printed}");
}

/// The counts of the table (identical, with warnings, refused, same as its calls, explained,
/// as words, silent), pinned: a change in the reader that changes them is seen.
const PINNED: [(&str, [usize; 7]); 4] = [
    ("real, Python cannot read", [0, 0, 393, 90, 759, 0, 0]),
    ("real, Python reads", [5072, 39, 0, 0, 0, 0, 0]),
    ("synthetic, Python cannot read", [0, 0, 351, 554, 106, 0, 0]),
    ("synthetic, Python reads", [82, 105, 0, 0, 0, 2, 0]),
];

/// A sample of the answers Python reads, run through the executor: extraction types each
/// value by the BFCL schema, and a value it changes carries a warning at its place.
#[test]
fn a_sample_runs_typed_by_the_bfcl_schemas() {
    let corpus = corpus();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut ran = 0;
    let mut refused = 0;
    for answer in corpus.answers.iter().filter(|a| !a["key"].as_str().unwrap().starts_with("synthetic/")).step_by(25) {
        let key = answer["key"].as_str().unwrap();
        let python = &corpus.references[key];
        if !python.readable {
            continue;
        }
        let functions = &corpus.functions[answer["functions"].as_str().unwrap()];
        let definitions = definitions(functions);
        if definitions.iter().any(|d| !tool_core::is_valid_tool_name(&d.name)) {
            continue;
        }
        let mut catalog = ToolCatalog::builder();
        for d in &definitions {
            let tool = DynamicTool::builder(d.name.clone())
                .description("A function the BFCL benchmark declares.")
                .input_schema(d.input_schema.clone())
                .handler(|args, _| async move { Value::Object(args) })
                .build()
                .unwrap();
            catalog = catalog.add_tool(tool);
        }
        let catalog = match catalog.build() {
            Ok(catalog) => catalog,
            Err(e) => panic!("{key}: {e}"),
        };
        let executor = Executor::new(catalog);
        let response = parser(functions).parse(answer["text"].as_str().unwrap());
        for (call, py) in response.calls.into_iter().zip(&python.calls) {
            let read = call.arguments.clone();
            let record = runtime.block_on(executor.execute(call));
            if let Some(CallFailure::UnknownTool { .. }) = record.failure {
                // The record keeps what the reader read, for the model to be told.
                assert_eq!(record.request.arguments, read, "{key}: an unknown tool's arguments");
            }
            if record.status != CallStatus::Success {
                refused += 1;
                let rules: Vec<&str> =
                    record.request.parse_error.iter().flat_map(|e| e.errors.iter().map(|e| e.rule.as_str())).collect();
                assert!(!rules.is_empty() || record.failure.is_some(), "{key}: {record:?}");
                println!("refused: {key} {} {rules:?} {:?}", py.name, record.failure);
                continue;
            }
            ran += 1;
            let got = record.content.structured.clone().unwrap_or(Value::Null);
            let definition = definitions.iter().find(|d| d.name == py.name).unwrap();
            for (name, value) in got.as_object().unwrap() {
                let declared = definition.input_schema["properties"][name]["type"].as_str();
                let fits = match declared {
                    Some("string") => value.is_string(),
                    Some("integer") => value.is_i64() || value.is_u64(),
                    Some("number") => value.is_number(),
                    Some("boolean") => value.is_boolean(),
                    Some("array") => value.is_array(),
                    Some("object") => value.is_object(),
                    _ => true,
                };
                assert!(fits || value.is_null(), "{key}: `{name}` is {value}, declared {declared:?}");
            }
            let mut places = Vec::new();
            let sent: Map<String, Value> = py
                .arguments
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| definition.parameter(k).is_some())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            differences(&got, &Value::Object(sent), "", &mut places);
            let warnings = record.warnings();
            let left: Vec<&String> =
                places.iter().filter(|p| !warnings.iter().any(|w| explains(w.pointer(), p))).collect();
            assert!(
                left.is_empty(),
                "{key}: the tool got {got} where Python read {}, no warning at {left:?}",
                py.arguments
            );
        }
    }
    println!("executor sample: {ran} calls ran, {refused} refused");
    assert_eq!((ran, refused), PINNED_SAMPLE);
}

/// Calls of the executor sample that ran, and that were refused.
const PINNED_SAMPLE: (usize, usize) = (291, 9);

/// The check itself: a changed value with no warning is a silent difference; with a warning at
/// its place it is explained; a warning elsewhere explains nothing; a refused call is refused.
#[test]
fn the_check_sees_a_silently_wrong_call() {
    let python = Reference {
        readable: true,
        reason: String::new(),
        calls: vec![PyCall {
            name: "get_weather".into(),
            arguments: serde_json::json!({"city": "Paris", "days": 3, "when": {"from": 1.0}}),
            problems: Vec::new(),
            json_literals: Vec::new(),
        }],
    };
    let call = |arguments: Value, warnings: &[&str]| {
        let mut call = ToolCallRequest::new("get_weather", "call_0", arguments.to_string());
        call.arguments = Some(arguments);
        call.parse_warnings = warnings.iter().map(|at| ParseWarning::new(at, "python_test", "a", "b", "c")).collect();
        OpenModelResponse { calls: vec![call], ..Default::default() }
    };
    let same = serde_json::json!({"city": "Paris", "days": 3, "when": {"from": 1}});
    assert_eq!(outcome(&call(same.clone(), &[]), &python).0, Outcome::Identical);
    assert_eq!(outcome(&call(same, &["/city"]), &python).0, Outcome::IdenticalWithWarnings);
    let changed = serde_json::json!({"city": "Paris", "days": 4, "when": {"from": 1}});
    let (silent, detail) = outcome(&call(changed.clone(), &["/city"]), &python);
    assert_eq!((silent, detail.contains(r#"["/days"]"#)), (Outcome::Silent, true), "{detail}");
    assert_eq!(outcome(&call(changed, &["/days"]), &python).0, Outcome::Explained);
    let deeper = serde_json::json!({"city": "Paris", "days": 3, "when": {"from": 2}});
    assert_eq!(outcome(&call(deeper.clone(), &[]), &python).0, Outcome::Silent);
    assert_eq!(outcome(&call(deeper.clone(), &[""]), &python).0, Outcome::Silent);
    assert_eq!(outcome(&call(deeper, &["/when"]), &python).0, Outcome::Explained);
    let mut refused = call(serde_json::json!({}), &[]);
    refused.calls[0].parse_error = Some(ArgumentErrors { errors: Vec::new().into() });
    assert_eq!(outcome(&refused, &python).0, Outcome::Refused);

    // Python cannot read `days=true`: ours must say what it made of it.
    let python = Reference {
        readable: false,
        reason: "a JSON literal".into(),
        calls: vec![PyCall {
            name: "get_weather".into(),
            arguments: serde_json::json!({"city": "Paris", "days": true}),
            problems: Vec::new(),
            json_literals: vec!["/days".into()],
        }],
    };
    let read = serde_json::json!({"city": "Paris", "days": true});
    assert_eq!(outcome(&call(read.clone(), &[]), &python).0, Outcome::Silent);
    assert_eq!(outcome(&call(read, &["/days"]), &python).0, Outcome::Explained);
    let other =
        OpenModelResponse { calls: vec![ToolCallRequest::new("get_time", "call_0", "{}")], ..Default::default() };
    assert_eq!(outcome(&other, &python).0, Outcome::Silent);
    assert_eq!(outcome(&OpenModelResponse::default(), &python).0, Outcome::Refused);
}
