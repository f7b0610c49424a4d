//! Reading a model's answer in the XML call protocol: a megabyte with 1,000 invokes, read
//! whole and streamed in 16-byte chunks (as tokens arrive), against the limit: quick-xml's raw
//! event reading of the same text, which finds the same tags but neither decodes, types nor
//! builds calls. Throughput in bytes per second.
//!
//!     cargo bench -p tool-benches --bench xml -- --warm-up-time 2 --measurement-time 5

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use quick_xml::events::Event;
use quick_xml::Reader;
use tool_core::prelude::*;
use tool_core::xml::XmlParser;

/// Book a room.
#[tool]
fn book_room(
    /// The room.
    room: String,
    /// Who comes.
    attendees: Vec<String>,
    /// For how many hours.
    hours: u32,
    /// Tell them.
    notify: bool,
    /// What the meeting is about.
    agenda: String,
) -> String {
    let _ = (attendees, hours, notify, agenda);
    room
}

/// An answer of about a megabyte: some words, then one block of 1,000 invokes of about a
/// kilobyte each, with a multi-line agenda (entities in it), a JSON list and scalars.
fn answer() -> String {
    let agenda = "Review the plan for Q3 &amp; the budget; 观星阁 is booked &lt;until 5&gt;. ".repeat(10);
    let mut text = String::from("I will book the rooms now.\n<function_calls>\n");
    for i in 0..1000 {
        text.push_str(&format!(
            "<invoke name=\"book_room\">\n<parameter name=\"room\">Room {i}</parameter>\n\
             <parameter name=\"attendees\">[\"ann\", \"bob\", \"cy\", \"dee\"]</parameter>\n\
             <parameter name=\"hours\">{}</parameter>\n<parameter name=\"notify\">true</parameter>\n\
             <parameter name=\"agenda\">\n{agenda}\n</parameter>\n</invoke>\n",
            i % 8
        ));
    }
    text.push_str("</function_calls>\nAll booked.");
    text
}

fn xml(c: &mut Criterion) {
    let catalog = ToolCatalog::builder().add_declared::<book_room>().build().expect("a catalog");
    let parser = XmlParser::new(&catalog);
    let text = answer();
    assert_eq!(parser.parse(&text).calls.len(), 1000);
    let mut group = c.benchmark_group("xml_1mb_1000_invokes");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("limit: quick-xml raw events", |b| {
        b.iter(|| {
            let mut reader = Reader::from_str(&text);
            let mut events = 0usize;
            loop {
                match reader.read_event() {
                    Ok(Event::Eof) => break events,
                    Ok(_) => events += 1,
                    Err(error) => panic!("the text is well formed: {error}"),
                }
            }
        })
    });
    group.bench_function("parse whole", |b| b.iter(|| parser.parse(&text).calls.len()));
    for chunk in [16, 256] {
        group.bench_function(format!("stream, {chunk}-byte chunks"), |b| {
            b.iter(|| {
                let mut stream = parser.stream();
                let mut events = 0;
                for piece in text.as_bytes().chunks(chunk) {
                    events += stream.feed_bytes(piece).len();
                }
                events + stream.finish().len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, xml);
criterion_main!(benches);
