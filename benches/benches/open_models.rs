//! Reading open models' own tool-call text: for each form the parser knows, an answer of about a
//! megabyte holding 1,000 calls with the same arguments (a room, a list of names, an integer, a
//! float, a boolean, an optional nested object and a long agenda with non-ASCII text), read
//! whole and streamed in 16-byte chunks (as tokens arrive), against the limit: `serde_json`
//! reading the same arguments written as one JSON array. Then pathological answers (a megabyte
//! of `[a(`, of `<|`, a string never closed) at two sizes, to show the time grows with the
//! length and no faster.
//!
//!     cargo bench -p tool-benches --bench open_models -- --warm-up-time 1 --measurement-time 3

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::{json, Value};
use tool_core::open_models::{CallForm, OpenModelParser};
use tool_core::prelude::*;

/// Book a room.
#[tool]
fn book_room(
    /// The room.
    room: String,
    /// Who comes.
    attendees: Vec<String>,
    /// For how many hours.
    hours: u32,
    /// The budget, in euros.
    budget: f64,
    /// Tell them.
    notify: bool,
    /// Where, when it is not the usual building.
    place: Option<Value>,
    /// What the meeting is about.
    agenda: String,
) -> String {
    let _ = (attendees, hours, budget, notify, place, agenda);
    room
}

const CALLS: usize = 1000;

/// The arguments of call `i`, about 900 bytes of JSON.
fn arguments(i: usize) -> Value {
    let agenda =
        format!("Call {i}: review the plan for Q3, the budget and the hiring; 观星阁 is booked until five. ").repeat(8);
    json!({
        "room": format!("Room {i}"),
        "attendees": ["ann", "bob", "cy", "dee"],
        "hours": i % 8,
        "budget": 1250.5 + i as f64,
        "notify": i.is_multiple_of(2),
        "place": {"building": "B", "floor": (i % 5) as i64 - 1},
        "agenda": agenda,
    })
}

/// `value` as a Python literal (`True`, `None`, strings in double quotes).
fn python(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(_) | Value::String(_) => value.to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let pairs: Vec<String> =
                map.iter().map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), python(v))).collect();
            format!("{{{}}}", pairs.join(", "))
        }
    }
}

/// The answer holding `args` as calls in the form named `form`, as its family writes it.
fn answer(form: &str, args: &[Value]) -> Option<String> {
    let json = |a: &Value| serde_json::to_string(a).unwrap_or_default();
    let each = |f: &dyn Fn(usize, &Value) -> String| args.iter().enumerate().map(|(i, a)| f(i, a)).collect::<Vec<_>>();
    let text = match form {
        "python" => {
            let calls = each(&|_, a| {
                let keywords: Vec<String> =
                    a.as_object().into_iter().flatten().map(|(k, v)| format!("{k}={}", python(v))).collect();
                format!("book_room({})", keywords.join(", "))
            });
            format!("<|python_tag|>[{}]<|eot_id|>", calls.join(", "))
        }
        "llama_json" => {
            let calls = each(&|_, a| format!("{{\"name\": \"book_room\", \"parameters\": {}}}", json(a)));
            format!("<|python_tag|>{}<|eom_id|>", calls.join("; "))
        }
        "mistral" => each(&|_, a| format!("[TOOL_CALLS]book_room[ARGS]{}", json(a))).concat() + "</s>",
        "deepseek" => {
            let calls = each(&|_, a| {
                format!(
                    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>book_room\n```json\n{}\n```<｜tool▁call▁end｜>",
                    json(a)
                )
            });
            format!("<｜tool▁calls▁begin｜>{}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>", calls.join("\n"))
        }
        "harmony" => each(&|_, a| {
            format!(
                "<|start|>assistant<|channel|>commentary to=functions.book_room <|constrain|>json<|message|>{}<|call|>",
                json(a)
            )
        })
        .concat(),
        "glm" => {
            let calls = each(&|_, a| {
                let pairs: String = a
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| {
                        let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                        format!("<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n")
                    })
                    .collect();
                format!("\n<tool_call>book_room\n{pairs}</tool_call>")
            });
            calls.concat()
        }
        "kimi" => {
            let calls = each(&|i, a| {
                format!(
                    "<|tool_call_begin|>functions.book_room:{i}<|tool_call_argument_begin|>{}<|tool_call_end|>",
                    json(a)
                )
            });
            format!("<|tool_calls_section_begin|>{}<|tool_calls_section_end|><|im_end|>", calls.concat())
        }
        "hermes" => {
            each(&|_, a| {
                format!("<tool_call>\n{{\"name\": \"book_room\", \"arguments\": {}}}\n</tool_call>\n", json(a))
            })
            .concat()
                + "<|im_end|>"
        }
        _ => return None,
    };
    Some(format!("I will book the rooms now.\n{text}"))
}

fn read(parser: &OpenModelParser, text: &str, chunk: usize) -> usize {
    let mut stream = parser.stream();
    let mut events = 0;
    for piece in text.as_bytes().chunks(chunk) {
        events += stream.feed_bytes(piece).len();
    }
    events + stream.finish().len()
}

fn forms(c: &mut Criterion) {
    let catalog = ToolCatalog::builder().add_declared::<book_room>().build().expect("a catalog");
    let args: Vec<Value> = (0..CALLS).map(arguments).collect();
    let array = serde_json::to_string(&args).expect("JSON");
    let mut group = c.benchmark_group("open_models_1mb_1000_calls");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(array.len() as u64));
    group.bench_function("limit: serde_json, the arguments as one array", |b| {
        b.iter(|| serde_json::from_str::<Vec<Value>>(&array).map(|v| v.len()).unwrap_or(0))
    });
    for &form in CallForm::ALL {
        let Some(text) = answer(form.name(), &args) else {
            eprintln!("{form}: no generator for this form");
            continue;
        };
        let parser = OpenModelParser::new(&catalog).form(form);
        let read_whole = parser.parse(&text);
        eprintln!(
            "{form}: {} bytes, {} calls read, {} refused",
            text.len(),
            read_whole.calls.len(),
            read_whole.calls.iter().filter(|call| call.parse_error.is_some()).count()
        );
        if read_whole.calls.len() != CALLS {
            eprintln!("{form}: the reader did not read the {CALLS} calls; its figures are not comparable");
        }
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(BenchmarkId::new("parse whole", form.name()), |b| {
            b.iter(|| parser.parse(&text).calls.len())
        });
        group.bench_function(BenchmarkId::new("stream, 16-byte chunks", form.name()), |b| {
            b.iter(|| read(&parser, &text, 16))
        });
    }
    group.finish();
}

/// Answers no model should write, that a reader must still get through in time that grows with
/// their length alone: an opening repeated (`[a(`, `<|`), and a string never closed.
fn pathological(c: &mut Criterion) {
    let catalog = ToolCatalog::builder().add_declared::<book_room>().build().expect("a catalog");
    let parser = OpenModelParser::new(&catalog);
    let mut group = c.benchmark_group("open_models_pathological");
    group.sample_size(10);
    type Make = fn(usize) -> String;
    let cases: [(&str, Make); 3] = [
        ("[a( repeated", |n| "[a(".repeat(n / 3)),
        ("<| repeated", |n| "<|".repeat(n / 2)),
        ("an unclosed string", |n| format!("[book_room(room=\"{}", "x".repeat(n))),
    ];
    for (name, make) in cases {
        for size in [256 * 1024, 1024 * 1024] {
            let text = make(size);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(BenchmarkId::new(format!("{name}, whole"), size), |b| {
                b.iter(|| parser.parse(&text).calls.len())
            });
            group.bench_function(BenchmarkId::new(format!("{name}, 16-byte chunks"), size), |b| {
                b.iter(|| read(&parser, &text, 16))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, forms, pathological);
criterion_main!(benches);
