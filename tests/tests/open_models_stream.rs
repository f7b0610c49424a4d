//! Streaming gives what reading the whole answer gives, for every answer under
//! `tests/data/open_models/<form name>/*.txt`: cut anywhere (inside special tokens, inside UTF-8
//! characters through `feed_bytes`), a byte at a time, sixteen bytes at a time, with the form
//! named (the folder's name) and found by the parser itself.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value;
use tool_core::open_models::{CallForm, OpenModelParser, OpenModelResponse};
use tool_core::prelude::*;

/// Tell the weather in a place.
#[tool]
fn get_weather(
    /// The city.
    location: String,
    /// For how many days.
    days: Option<u32>,
) -> String {
    format!("{location}: sunny for {days:?} days")
}

/// The time now.
#[tool]
fn get_time() -> String {
    "noon".to_owned()
}

/// Book a room.
#[tool]
fn book_room(
    /// The room's code.
    code: String,
    /// For how many hours.
    hours: u32,
    /// Tell the attendees.
    notify: bool,
    /// The floors it may be on.
    floors: Vec<u32>,
    /// Anything else.
    note: Option<Value>,
) -> String {
    format!("{code} {hours} {notify} {floors:?} {note:?}")
}

fn parser() -> OpenModelParser {
    let catalog = ToolCatalog::builder()
        .add_declared::<get_weather>()
        .add_declared::<get_time>()
        .add_declared::<book_room>()
        .build()
        .unwrap();
    OpenModelParser::new(&catalog)
}

/// Every answer file (`*.txt`), with the form its folder names.
fn answers() -> Vec<(CallForm, PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/open_models");
    let mut answers = Vec::new();
    for folder in std::fs::read_dir(&root).unwrap() {
        let folder = folder.unwrap().path();
        let name = folder.file_name().unwrap().to_str().unwrap().to_owned();
        // `bfcl/` holds the real-data check's answers (JSON Lines, read by open_models_real).
        if name == "bfcl" {
            continue;
        }
        let form = CallForm::from_name(&name).unwrap_or_else(|| panic!("{name}: no form has this name"));
        for file in std::fs::read_dir(&folder).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "txt") {
                let text = std::fs::read_to_string(&path).unwrap();
                answers.push((form, path, text));
            }
        }
    }
    answers.sort_by(|a, b| a.1.cmp(&b.1));
    answers
}

/// `answer` fed in the byte chunks that `cuts` (sorted places) make.
fn streamed(parser: &OpenModelParser, answer: &[u8], cuts: &[usize]) -> OpenModelResponse {
    let mut stream = parser.stream();
    let mut events = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain([&answer.len()]) {
        events.extend(stream.feed_bytes(&answer[from..cut]));
        from = cut;
    }
    events.extend(stream.finish());
    OpenModelResponse::from_events(events)
}

#[test]
fn every_answer_file_is_read_alike_whole_and_streamed() {
    let answers = answers();
    for form in ["harmony", "kimi", "glm", "hermes"] {
        assert!(answers.iter().any(|(f, _, _)| f.name() == form), "no answer file for {form}");
    }
    for (form, path, text) in &answers {
        let named = parser().form(*form);
        let auto = parser();
        let whole_named = named.parse(text);
        let whole_auto = auto.parse(text);
        // Each file holds a call of its form (a cut one counts), whichever way it is read.
        assert!(!whole_named.calls.is_empty(), "{}: no call read", path.display());
        assert_eq!(whole_named.form, Some(*form), "{}", path.display());
        assert_eq!(whole_auto.form, Some(*form), "{}: found by the parser", path.display());
        let bytes = text.as_bytes();
        let every = |step: usize| (step..bytes.len()).step_by(step).collect::<Vec<_>>();
        for step in [1, 16] {
            assert_eq!(streamed(&named, bytes, &every(step)), whole_named, "{}: {step}-byte chunks", path.display());
            assert_eq!(
                streamed(&auto, bytes, &every(step)),
                whole_auto,
                "{}: {step}-byte chunks, auto",
                path.display()
            );
        }
        let mut runner = TestRunner::new(Config { cases: 256, failure_persistence: None, ..Config::default() });
        let cuts = proptest::collection::vec(0..=bytes.len(), 0..12).prop_map(|mut cuts| {
            cuts.sort_unstable();
            cuts
        });
        runner
            .run(&cuts, |cuts| {
                let name = path.display();
                let streamed_named = streamed(&named, bytes, &cuts);
                prop_assert_eq!(&streamed_named, &whole_named, "{}: named, cut at {:?}", name, cuts);
                let streamed_auto = streamed(&auto, bytes, &cuts);
                prop_assert_eq!(&streamed_auto, &whole_auto, "{}: auto, cut at {:?}", name, cuts);
                Ok::<(), TestCaseError>(())
            })
            .unwrap_or_else(|failure| panic!("{failure}"));
    }
}

/// Pieces of every form's markup, words and blanks, to put together at random.
const PIECES: &[&str] = &[
    "<|start|>",
    "assistant",
    "<|channel|>",
    "analysis",
    "commentary",
    "final",
    " to=functions.get_weather",
    " to=python",
    " <|constrain|>json",
    " json",
    "<|message|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_begin|>",
    "functions.get_weather:0",
    "get_time:1",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<tool_call>",
    "</tool_call>",
    "get_weather",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "location",
    "<function=get_time>",
    "</function>",
    "<parameter=location>",
    "</parameter>",
    "<function_calls>",
    "<invoke name=\"get_time\">",
    "</invoke>",
    "</function_calls>",
    "<think>",
    "</think>",
    "<|python_tag|>",
    "<|user|>",
    "<end_of_turn>",
    "<|eot_id|>",
    "<|im_end|>",
    "<｜end▁of▁sentence｜>",
    "</s>",
    "{\"location\": \"Zürich\"}",
    "{\"name\": \"get_time\", \"arguments\": {}}",
    "{",
    "\"",
    "<",
    "|",
    ">",
    " ",
    "\n",
    "Été ☀️ 東京",
    "word",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    /// Answers put together from every form's pieces: never a panic, and streamed (cut
    /// anywhere, through `feed_bytes`) they give what the whole gives, in every form and in
    /// auto mode.
    #[test]
    fn pieces_of_every_form_read_alike_whole_and_streamed(
        pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..24),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
    ) {
        let answer = pieces.concat();
        let bytes = answer.as_bytes();
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let parsers = std::iter::once(parser()).chain(CallForm::ALL.iter().map(|&form| parser().form(form)));
        for parser in parsers {
            let whole = parser.parse(&answer);
            prop_assert_eq!(&streamed(&parser, bytes, &cuts), &whole, "{:?} cut at {:?}", answer, cuts);
            let every = (1..bytes.len()).collect::<Vec<_>>();
            prop_assert_eq!(&streamed(&parser, bytes, &every), &whole, "{:?} a byte at a time", answer);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// Bytes that are not all UTF-8, among the forms' pieces: never a panic, and streamed they
    /// read as the whole does, invalid sequences as U+FFFD (as `String::from_utf8_lossy`).
    #[test]
    fn invalid_utf8_reads_as_the_whole(
        parts in proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(PIECES).prop_map(|piece| piece.as_bytes().to_vec()),
                proptest::collection::vec(any::<u8>(), 1..4),
            ],
            0..16,
        ),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
    ) {
        let bytes = parts.concat();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let parsers = std::iter::once(parser()).chain(CallForm::ALL.iter().map(|&form| parser().form(form)));
        for parser in parsers {
            let whole = parser.parse(&text);
            prop_assert_eq!(&streamed(&parser, &bytes, &cuts), &whole, "{:?} cut at {:?}", bytes, cuts);
        }
    }
}
