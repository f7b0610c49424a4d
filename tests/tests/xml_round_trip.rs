//! The XML protocol end to end on the tools of the provider-dialect tests (plus one with text,
//! list, boolean and free-form parameters): random valid arguments written as invokes the way
//! models write them (values inline or on their own lines, escaped or in CDATA, lists and
//! objects as JSON), parsed back, extracted and run. The values must come back equal with no
//! warning, and streaming the same answer cut anywhere (inside tags, inside UTF-8 characters)
//! must give the same calls as reading it whole, each call given out by the chunk that closes
//! its `</invoke>`.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tool_core::prelude::*;
use tool_core::xml::{XmlEvent, XmlParser, XmlResponse};
use tool_tests::dialect_tools;

/// Write a note.
#[tool(name = "notes.write")]
fn write_note(
    /// Its title.
    title: String,
    /// Its text.
    body: String,
    /// Labels.
    tags: Vec<String>,
    /// Keep it on top.
    pinned: bool,
    /// From -5 to 5.
    priority: Option<i8>,
    /// Anything else.
    extra: Option<Value>,
) -> String {
    json!({"title": title, "body": body, "tags": tags, "pinned": pinned, "priority": priority, "extra": extra})
        .to_string()
}

fn catalog() -> ToolCatalog {
    dialect_tools::catalog().to_builder().add_declared::<write_note>().build().unwrap()
}

/// Text a model might put in a value: letters, CJK, spaces, line breaks, markup characters,
/// entity look-alikes, and the protocol's own closing tags.
fn text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a",
        "Zz",
        " ",
        "\n",
        "\r\n",
        "\t",
        "观星阁",
        "é",
        "😀",
        "<",
        ">",
        "&",
        "&amp;",
        "&lt;",
        "\"",
        "'",
        "]]",
        "]]>",
        "</parameter>",
        "</invoke>",
        "<parameter name=\"x\">",
        "<b>",
        "{\"k\": 1}",
        "42",
        "true",
    ]);
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn address() -> impl Strategy<Value = Value> {
    (text(), text(), prop::option::of(text()), prop::option::of(any::<u32>())).prop_map(
        |(name, street, line2, code)| json!({"name": name, "street": street, "line2": line2, "postcode": code}),
    )
}

fn service() -> impl Strategy<Value = Value> {
    prop::sample::select(vec!["standard", "express"]).prop_map(|s| json!(s))
}

/// Arguments for `shipment.create`; optional parameters are left out or given.
fn shipment() -> impl Strategy<Value = Value> {
    let item = (text(), any::<u32>(), 0.0f64..1000.0)
        .prop_map(|(sku, quantity, weight)| json!({"sku": sku, "quantity": quantity, "weight_kg": weight}));
    (
        address(),
        prop::option::of(address()),
        prop::collection::vec(item, 0..3),
        service(),
        prop::option::of(service()),
        prop::collection::btree_map("[a-z]{1,5}", text(), 0..3),
        prop::option::of(0.0f64..1e9),
        any::<i64>(),
        "PO-[0-9]{1,9}",
        prop::option::of(1u32..=20),
    )
        .prop_map(
            |(recipient, return_to, items, service, upgrade, metadata, insured, account, reference, parcels)| {
                let mut args = Map::new();
                args.insert("recipient".into(), recipient);
                if let Some(r) = return_to {
                    args.insert("return_to".into(), r);
                }
                args.insert("items".into(), json!(items));
                args.insert("service".into(), service);
                if let Some(u) = upgrade {
                    args.insert("upgrade".into(), u);
                }
                args.insert("metadata".into(), json!(metadata));
                if let Some(v) = insured {
                    args.insert("insured_value".into(), json!(v));
                }
                args.insert("account".into(), json!(account));
                args.insert("reference".into(), json!(reference));
                if let Some(p) = parcels {
                    args.insert("parcels".into(), json!(p));
                }
                Value::Object(args)
            },
        )
}

fn canvas() -> impl Strategy<Value = Value> {
    let shape = prop_oneof![
        (0.0f64..100.0).prop_map(|r| json!({"kind": "circle", "radius": r})),
        (0.0f64..100.0).prop_map(|s| json!({"kind": "square", "side": s})),
    ];
    (shape, any::<(i32, i32)>(), prop::option::of(0.0f32..=1.0), prop::option::of(any::<u8>())).prop_map(
        |(shape, at, opacity, layer)| {
            let mut args = Map::new();
            args.insert("shape".into(), shape);
            args.insert("at".into(), json!([at.0, at.1]));
            if let Some(o) = opacity {
                args.insert("opacity".into(), json!(o));
            }
            if let Some(l) = layer {
                args.insert("layer".into(), json!(l));
            }
            Value::Object(args)
        },
    )
}

fn folder() -> impl Strategy<Value = Value> {
    let leaf = text().prop_map(|name| json!({"name": name, "children": []}));
    leaf.prop_recursive(3, 12, 3, |inner| {
        (text(), prop::collection::vec(inner, 0..3))
            .prop_map(|(name, children)| json!({"name": name, "children": children}))
    })
}

fn note() -> impl Strategy<Value = Value> {
    (
        text(),
        text(),
        prop::collection::vec(text(), 0..4),
        any::<bool>(),
        prop::option::of(-5i8..=5),
        prop::option::of(json_value()),
    )
        .prop_map(|(title, body, tags, pinned, priority, extra)| {
            let mut args = Map::new();
            args.insert("title".into(), json!(title));
            args.insert("body".into(), json!(body));
            args.insert("tags".into(), json!(tags));
            args.insert("pinned".into(), json!(pinned));
            if let Some(p) = priority {
                args.insert("priority".into(), json!(p));
            }
            // `null` for a free-form value is a value; leave it out instead, as absent.
            if let Some(extra) = extra.filter(|e| !e.is_null()) {
                args.insert("extra".into(), extra);
            }
            Value::Object(args)
        })
}

/// One call: a tool and its arguments.
fn call() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        shipment().prop_map(|a| ("shipment.create", a)),
        canvas().prop_map(|a| ("canvas_draw", a)),
        folder().prop_map(|root| ("folders.create", json!({ "root": root }))),
        Just(("clock.now", json!({}))),
        note().prop_map(|a| ("notes.write", a)),
    ]
}

/// How one value is written: (on its own lines, escaping: 0 entities, 1 CDATA, 2 pretty JSON).
type Style = (bool, u8);

/// Text parameters are written as they are; every other kind as JSON.
fn is_text(tool: &str, parameter: &str) -> bool {
    matches!(
        (tool, parameter),
        ("shipment.create", "service" | "upgrade" | "reference") | ("notes.write", "title" | "body")
    )
}

fn write_value(out: &mut String, tool: &str, name: &str, value: &Value, (own_lines, escaping): Style) {
    let text = match value {
        Value::String(s) if is_text(tool, name) => s.clone(),
        other if escaping == 2 => serde_json::to_string_pretty(other).unwrap(),
        other => other.to_string(),
    };
    let needs_escape = text.contains(['<', '&']);
    let written = match (needs_escape, escaping) {
        (false, _) => text.clone(),
        (true, 1) if !text.contains("]]>") => format!("<![CDATA[{text}]]>"),
        (true, _) => quick_xml::escape::escape(text.as_str()).into_owned(),
    };
    // A value that begins and ends with a line break must be written on its own lines, or its
    // framing line breaks would be taken for the layout.
    let framed = (text.starts_with('\n') || text.starts_with("\r\n")) && text.ends_with('\n');
    if own_lines || framed {
        out.push_str(&format!("<parameter name=\"{name}\">\n{written}\n</parameter>\n"));
    } else {
        out.push_str(&format!("<parameter name=\"{name}\">{written}</parameter>\n"));
    }
}

/// An answer: text, then one block with the calls, then text. Returns it and the offset just
/// after each `</invoke>`.
fn answer(before: &str, calls: &[(&str, Value)], styles: &[Style], after: &str) -> (String, Vec<usize>) {
    let mut out = format!("{before}\n<function_calls>\n");
    let mut ends = Vec::new();
    let mut style = styles.iter().cycle();
    for (tool, args) in calls {
        out.push_str(&format!("<invoke name=\"{tool}\">\n"));
        for (name, value) in args.as_object().unwrap() {
            write_value(&mut out, tool, name, value, *style.next().unwrap());
        }
        out.push_str("</invoke>");
        ends.push(out.len());
        out.push('\n');
    }
    out.push_str("</function_calls>\n");
    out.push_str(after);
    (out, ends)
}

/// Plain text around the block: no `<`, so it is the model's words.
fn words() -> impl Strategy<Value = String> {
    "[a-zA-Z ,.观星阁😀\n]{0,40}"
}

fn cuts(len: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=len, 0..24).prop_map(|mut cuts| {
        cuts.sort_unstable();
        cuts
    })
}

/// The answer's bytes fed in chunks cut at `cuts` (anywhere, even inside a character): the
/// events, and for each call the number of bytes fed when it came out.
fn streamed(parser: &XmlParser, bytes: &[u8], cuts: &[usize]) -> (XmlResponse, Vec<usize>) {
    let mut stream = parser.stream();
    let mut events = Vec::new();
    let mut fed_when = Vec::new();
    let mut last = 0;
    for &cut in cuts.iter().chain([bytes.len()].iter()) {
        let chunk = stream.feed_bytes(&bytes[last..cut]);
        fed_when.extend(chunk.iter().filter(|e| matches!(e, XmlEvent::Call(_))).map(|_| cut));
        events.extend(chunk);
        last = cut;
    }
    let rest = stream.finish();
    fed_when.extend(rest.iter().filter(|e| matches!(e, XmlEvent::Call(_))).map(|_| usize::MAX));
    events.extend(rest);
    (XmlResponse::from_events(events), fed_when)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_valid_calls_come_back_equal_without_warnings_whole_or_streamed(
        before in words(),
        calls in prop::collection::vec(call(), 1..4),
        styles in prop::collection::vec((any::<bool>(), 0u8..3), 1..8),
        after in words(),
        cut_seed in cuts(4096),
    ) {
        let catalog = catalog();
        let parser = XmlParser::new(&catalog);
        let (text, ends) = answer(&before, &calls, &styles, &after);
        let whole = parser.parse(&text);
        prop_assert_eq!(&whole.text, &format!("{before}\n\n{after}"));
        prop_assert!(whole.warnings.is_empty(), "{:?}", whole.warnings);
        prop_assert_eq!(whole.calls.len(), calls.len());
        for (i, (call, (tool, args))) in whole.calls.iter().zip(&calls).enumerate() {
            prop_assert_eq!(&call.tool_name, tool);
            prop_assert_eq!(&call.call_id, &format!("xml_call_{i}"));
            prop_assert!(call.parse_warnings.is_empty(), "{:?}\n{}", call.parse_warnings, text);
            prop_assert_eq!(call.arguments.as_ref(), Some(args), "{}", text);
        }

        // Extraction: the tool reads the same values as from the arguments sent as JSON.
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let executor = Executor::new(catalog.clone());
        for (call, (tool, args)) in whole.calls.iter().zip(&calls) {
            let from_xml = runtime.block_on(executor.execute(call.clone()));
            let from_json = runtime.block_on(executor.execute(ToolCallRequest::new(*tool, "json", args.to_string())));
            prop_assert_eq!(from_xml.status, CallStatus::Success, "{}", from_xml.content.text);
            prop_assert!(from_xml.warnings().is_empty(), "{:?}", from_xml.warnings());
            prop_assert_eq!(&from_xml.content.text, &from_json.content.text);
        }

        // Streamed, cut anywhere: the same response, each call out with its `</invoke>`.
        let bytes = text.as_bytes();
        let cuts: Vec<usize> = cut_seed.into_iter().map(|c| c % (bytes.len() + 1)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        let (streamed, fed_when) = streamed(&parser, bytes, &cuts);
        prop_assert_eq!(&streamed, &whole);
        for (end, fed) in ends.iter().zip(&fed_when) {
            let chunk_end = cuts.iter().copied().chain([bytes.len()]).find(|&c| c >= *end).unwrap();
            prop_assert_eq!(*fed, chunk_end, "a call came out before or after the chunk that closed it");
        }
    }
}
