//! The open-model reader's shared core and its first readers, by exact value: Kimi K2's
//! sections, GLM's text pairs typed by the declared parameters, the Hermes/Qwen forms handed to
//! the XML reader, the engine (words, special tokens, a named form, locking on the first form,
//! ids, chunks cut inside characters) and `detect`. Every answer is read whole and streamed a
//! byte at a time, and both must agree.

use serde_json::{json, Value};
use tool_core::open_models::{detect, CallForm, OpenModelEvent, OpenModelParser, OpenModelResponse};
use tool_core::prelude::*;
use tool_tests::open_models::{calls, errors, read, truncated, warnings};

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
) -> String {
    format!("{code} {hours} {notify} {floors:?}")
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

// ---- Kimi K2 ----

#[test]
fn kimi_section_with_two_calls_keeps_the_model_ids() {
    let answer = "Let me check both.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0\
        <|tool_call_argument_begin|>{\"location\": \"Paris\"}<|tool_call_end|>\
        <|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|>\
        <|tool_calls_section_end|><|im_end|>";
    let response = read(&parser(), answer);
    assert_eq!(response.form, Some(CallForm::Kimi));
    assert_eq!(response.text, "Let me check both.");
    assert_eq!(
        calls(&response),
        [
            ["get_weather", "functions.get_weather:0", r#"{"location": "Paris"}"#],
            ["get_time", "functions.get_time:1", "{}"]
        ]
    );
    assert!(response.calls.iter().all(|c| c.parse_warnings.is_empty() && c.parse_error.is_none()));
    assert!(response.calls.iter().all(|c| c.arguments.is_none()), "JSON is read by extraction");
    assert!(response.warnings.is_empty());
}

#[test]
fn kimi_dotted_name_keeps_every_dot_but_the_prefix() {
    let answer = "<|tool_calls_section_begin|> <|tool_call_begin|> functions.a.b:3 <|tool_call_argument_begin|> \
        {\"x\": 1} <|tool_call_end|> <|tool_calls_section_end|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["a.b", "functions.a.b:3", r#"{"x": 1}"#]]);
    assert_eq!(response.text, "");
}

#[test]
fn kimi_singular_section_token_is_read_with_a_warning() {
    let answer = "<|tool_call_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{}\
        <|tool_call_end|><|tool_call_section_end|>Done.";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_time", "functions.get_time:0", "{}"]]);
    assert_eq!(
        warnings(&response.warnings),
        [[
            "",
            "kimi_section_token",
            "`<|tool_calls_section_begin|>`",
            "<|tool_call_section_begin|>",
            "read the section"
        ]]
    );
    assert_eq!(response.text, "Done.");
}

#[test]
fn kimi_bare_id_names_the_tool_with_a_warning() {
    let answer = "<|tool_calls_section_begin|><|tool_call_begin|>get_weather:0<|tool_call_argument_begin|>\
        {\"location\": \"Oslo\"}<|tool_call_end|><|tool_calls_section_end|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "get_weather:0", r#"{"location": "Oslo"}"#]]);
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [["", "kimi_id_form", "`functions.{name}:{index}`", "get_weather:0", "read the name from the id"]]
    );
}

#[test]
fn kimi_call_id_without_name_is_kept_as_written_and_names_no_declared_tool() {
    // vLLM saw `call_abc123` ids: the name is not in the answer; the call names what the id says
    // (the executor then refuses the unknown tool, naming the declared ones).
    let answer = "<|tool_calls_section_begin|><|tool_call_begin|>call_abc<|tool_call_argument_begin|>{}\
        <|tool_call_end|><|tool_calls_section_end|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["call_abc", "call_abc", "{}"]]);
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [["", "kimi_id_form", "`functions.{name}:{index}`", "call_abc", "read the name from the id"]]
    );
}

#[test]
fn kimi_call_without_its_end_token_ends_at_the_next_call() {
    let answer = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>\
        {\"location\": \"Rome\"}<|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}\
        <|tool_call_end|><|tool_calls_section_end|>";
    let response = read(&parser(), answer);
    assert_eq!(
        calls(&response),
        [
            ["get_weather", "functions.get_weather:0", r#"{"location": "Rome"}"#],
            ["get_time", "functions.get_time:1", "{}"]
        ]
    );
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [["", "kimi_unclosed_call", "`<|tool_call_end|>`", "<|tool_call_begin|>", "ended the call before it"]]
    );
    assert!(response.calls[1].parse_warnings.is_empty());
}

#[test]
fn kimi_call_cut_by_the_end_is_refused() {
    let answer = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>\
        {\"location\": \"Ber";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "functions.get_weather:0", r#"{"location": "Ber"#]]);
    assert_eq!(errors(&response.calls[0]), [truncated("`<|tool_call_end|>`")]);
    // The end-of-turn token the end left in a cut call is not its arguments.
    let response = read(&parser(), &format!("{answer}lin\"}}<|im_end|>"));
    assert_eq!(response.calls[0].raw_arguments, r#"{"location": "Berlin"}"#);
    assert_eq!(errors(&response.calls[0]), [truncated("`<|tool_call_end|>`")]);
}

#[test]
fn kimi_text_inside_the_section_is_the_model_words_and_think_before_is_kept() {
    let answer = "<think>The user wants Paris.</think><|tool_calls_section_begin|> one moment <|tool_call_begin|>\
        functions.get_weather:0<|tool_call_argument_begin|>{\"location\": \"Paris\"}<|tool_call_end|>\
        <|tool_calls_section_end|>";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "<think>The user wants Paris.</think>one moment ");
    assert_eq!(calls(&response), [["get_weather", "functions.get_weather:0", r#"{"location": "Paris"}"#]]);
}

#[test]
fn kimi_call_without_section_is_read_with_a_warning() {
    let answer = "<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{}<|tool_call_end|> after";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_time", "functions.get_time:0", "{}"]]);
    assert_eq!(
        warnings(&response.warnings),
        [[
            "",
            "kimi_no_section",
            "`<|tool_calls_section_begin|>` before the call",
            "<|tool_call_begin|>",
            "read the call without its section"
        ]]
    );
    assert_eq!(response.text, " after");
}

// ---- GLM-4.5 to 4.7 ----

fn arguments(call: &ToolCallRequest) -> &Value {
    call.arguments.as_ref().expect("GLM's pairs are read into an object")
}

#[test]
fn glm45_with_line_breaks_types_each_value_by_its_parameter() {
    let answer = "<think></think>Booking.\n<tool_call>book_room\n<arg_key>code</arg_key>\n<arg_value>007</arg_value>\n\
        <arg_key>hours</arg_key>\n<arg_value>3</arg_value>\n<arg_key>notify</arg_key>\n<arg_value>true</arg_value>\n\
        <arg_key>floors</arg_key>\n<arg_value>[1, 2]</arg_value>\n</tool_call><|user|>";
    let response = read(&parser(), answer);
    assert_eq!(response.form, Some(CallForm::Glm));
    assert_eq!(response.text, "<think></think>Booking.\n");
    let call = &response.calls[0];
    assert_eq!(call.tool_name, "book_room");
    assert_eq!(call.call_id, "call_0");
    assert_eq!(*arguments(call), json!({"code": "007", "hours": 3, "notify": true, "floors": [1, 2]}));
    assert!(call.parse_warnings.is_empty(), "{:?}", call.parse_warnings);
    assert!(call.parse_error.is_none());
    assert!(call.raw_arguments.starts_with("<arg_key>code</arg_key>"));
    assert!(call.raw_arguments.ends_with("<arg_value>[1, 2]</arg_value>"));
}

#[test]
fn glm47_without_line_breaks_and_a_call_without_arguments() {
    let answer = "<tool_call>get_weather<arg_key>location</arg_key><arg_value>Lyon</arg_value><arg_key>days</arg_key>\
        <arg_value>2</arg_value></tool_call><tool_call>get_time</tool_call>";
    let response = read(&parser(), answer);
    assert_eq!(response.calls.len(), 2);
    assert_eq!(*arguments(&response.calls[0]), json!({"location": "Lyon", "days": 2}));
    assert_eq!(response.calls[1].tool_name, "get_time");
    assert_eq!(response.calls[1].call_id, "call_1");
    assert_eq!(*arguments(&response.calls[1]), json!({}));
    assert_eq!(response.calls[1].raw_arguments, "");
    assert_eq!(response.text, "");
}

#[test]
fn glm_string_parameter_keeps_its_text_as_written() {
    let answer = "<tool_call>get_weather<arg_key>location</arg_key><arg_value>  New York\n</arg_value></tool_call>";
    let response = read(&parser(), answer);
    assert_eq!(*arguments(&response.calls[0]), json!({"location": "  New York\n"}));
}

#[test]
fn glm_key_given_twice() {
    let same = "<tool_call>get_weather<arg_key>location</arg_key><arg_value>Nice</arg_value><arg_key>days</arg_key>\
        <arg_value>3</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call>";
    let response = read(&parser(), same);
    let call = &response.calls[0];
    assert_eq!(*arguments(call), json!({"location": "Nice", "days": 3}));
    assert_eq!(
        warnings(&call.parse_warnings),
        [["/days", "duplicate_argument", "each argument once", "`days` twice, with the same value", "kept the value"]]
    );
    assert!(call.parse_error.is_none());

    let different = same.replacen("<arg_value>3</arg_value></tool_call>", "<arg_value>4</arg_value></tool_call>", 1);
    let response = read(&parser(), &different);
    assert_eq!(
        errors(&response.calls[0]),
        [[
            "/days".to_owned(),
            "conflicting_argument".to_owned(),
            "each argument once".to_owned(),
            "`3` and `4`".to_owned(),
            "`days` was given twice with different values; give it once".to_owned()
        ]]
    );
}

#[test]
fn glm_unclosed_value_and_key() {
    let answer = "<tool_call>get_weather<arg_key>location</arg_key><arg_value>Nice<arg_key>days</arg_key>\
        <arg_value>3</arg_value></tool_call>";
    let response = read(&parser(), answer);
    assert_eq!(*arguments(&response.calls[0]), json!({"location": "Nice", "days": 3}));
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [["/location", "glm_unclosed_value", "`</arg_value>`", "<arg_key>", "ended the value before it"]]
    );

    let answer = "<tool_call>get_weather<arg_key>location<arg_value>Nice</arg_value></tool_call>";
    let response = read(&parser(), answer);
    assert_eq!(*arguments(&response.calls[0]), json!({"location": "Nice"}));
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [["/location", "glm_unclosed_key", "`</arg_key>`", "<arg_value>", "ended the key"]]
    );
}

#[test]
fn glm_stray_text_and_key_without_value() {
    let answer = "<tool_call>get_weather\nsee below\n<arg_key>location</arg_key><arg_value>Nice</arg_value>\
        <arg_key>days</arg_key></tool_call>";
    let response = read(&parser(), answer);
    let call = &response.calls[0];
    assert_eq!(call.tool_name, "get_weather\nsee below");
    assert_eq!(*arguments(call), json!({"location": "Nice"}));
    assert_eq!(
        warnings(&call.parse_warnings),
        [["/days", "glm_missing_value", "`<arg_value>` after the key", "", "left the key out of the arguments"]]
    );

    let answer = "<tool_call>get_weather<arg_key>location</arg_key><arg_value>Nice</arg_value> and then \
        <arg_key>days</arg_key><arg_value>1</arg_value></tool_call>";
    let response = read(&parser(), answer);
    let call = &response.calls[0];
    assert_eq!(*arguments(call), json!({"location": "Nice", "days": 1}));
    assert_eq!(
        warnings(&call.parse_warnings),
        [[
            "",
            "glm_stray_text",
            "`<arg_key>..</arg_key><arg_value>..</arg_value>` pairs",
            "and then ",
            "ignored the text"
        ]]
    );
}

#[test]
fn glm_call_cut_by_the_end_is_refused_and_an_unclosed_call_ends_at_the_next() {
    let answer = "<tool_call>get_weather<arg_key>location</arg_key><arg_value>San Fran";
    let response = read(&parser(), answer);
    let call = &response.calls[0];
    assert_eq!(call.tool_name, "get_weather");
    assert_eq!(errors(call), [truncated("`</tool_call>`")]);

    let answer =
        "<tool_call>get_time<tool_call>get_weather<arg_key>location</arg_key><arg_value>Nice</arg_value></tool_call>";
    let response = read(&parser(), answer);
    assert_eq!(response.calls.len(), 2);
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [["", "glm_unclosed_call", "`</tool_call>`", "<tool_call>", "ended the call before it"]]
    );
    assert_eq!(*arguments(&response.calls[1]), json!({"location": "Nice"}));
}

// ---- Hermes / Qwen, read by the XML reader ----

#[test]
fn hermes_and_qwen_are_handed_to_the_xml_reader_without_their_special_tokens() {
    let answer = "<think>\nWeather.\n</think>\n\nChecking.<|eot_id|>\n<tool_call>\n{\"name\": \"get_weather\", \
        \"arguments\": {\"location\": \"Paris\"}}\n</tool_call><|im_end|>";
    let response = read(&parser(), answer);
    assert_eq!(response.form, Some(CallForm::Hermes));
    assert_eq!(response.calls.len(), 1);
    assert_eq!(response.calls[0].tool_name, "get_weather");
    assert_eq!(response.calls[0].call_id, "call_0");
    assert!(!response.text.contains("<|im_end|>") && !response.text.contains("<|eot_id|>"), "{:?}", response.text);
    assert!(response.text.starts_with("<think>\nWeather.\n</think>\n\nChecking."), "{:?}", response.text);

    let coder = "<tool_call>\n<function=book_room>\n<parameter=code>\n007\n</parameter>\n<parameter=hours>\n2\n\
        </parameter>\n</function>\n</tool_call><|im_end|>";
    let response = read(&parser().call_id_prefix("q"), coder);
    assert_eq!(response.form, Some(CallForm::Hermes));
    assert_eq!(response.calls[0].tool_name, "book_room");
    assert_eq!(response.calls[0].call_id, "q0");
    assert_eq!(response.calls[0].arguments.as_ref().unwrap()["code"], json!("007"));
    assert_eq!(response.calls[0].arguments.as_ref().unwrap()["hours"], json!(2));
    // Each is the form its family was trained on: no warning says otherwise.
    assert!(response.calls[0].parse_warnings.is_empty(), "{:?}", response.calls[0].parse_warnings);
    let response = read(&parser(), answer);
    assert!(response.calls[0].parse_warnings.is_empty(), "{:?}", response.calls[0].parse_warnings);
    // This crate's own `<function_calls>` block, read by the same reader.
    let own = "<function_calls>\n<invoke name=\"get_time\">\n</invoke>\n</function_calls>";
    let response = read(&parser(), own);
    assert_eq!(response.form, Some(CallForm::Hermes));
    assert_eq!(calls(&response), [["get_time", "call_0", "<invoke name=\"get_time\">\n</invoke>"]]);
}

// ---- The engine ----

#[test]
fn text_before_and_after_calls_without_special_tokens() {
    let answer = "Sure.<|eot_id|> Here:\n<tool_call>get_time</tool_call>\nDone, ☀️ <｜end▁of▁sentence｜></s>";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "Sure. Here:\n\nDone, ☀️ ");
    assert_eq!(response.calls.len(), 1);
    assert!(response.warnings.is_empty());
}

#[test]
fn special_tokens_alone_and_text_that_only_looks_like_them() {
    let response = read(&parser(), "<eos>a < b <|eot_id <end_of_turn>");
    assert_eq!(response.text, "a < b <|eot_id ");
    assert_eq!(response.form, None);
    assert!(response.calls.is_empty());
}

#[test]
fn a_named_form_reads_the_others_as_words() {
    let kimi = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{}\
        <|tool_call_end|><|tool_calls_section_end|>";
    let response = read(&parser().form(CallForm::Glm), kimi);
    assert!(response.calls.is_empty());
    assert_eq!(response.form, None);
    assert_eq!(response.text, kimi);

    let glm = "<tool_call>get_time</tool_call>";
    let response = read(&parser().form(CallForm::Kimi), glm);
    assert_eq!(response.text, glm);
    let response = read(&parser().form(CallForm::Glm), glm);
    assert_eq!(response.form, Some(CallForm::Glm));
    assert_eq!(response.calls.len(), 1);
}

#[test]
fn auto_mode_locks_on_the_first_form_seen() {
    let answer = "<tool_call>get_time</tool_call> then <|tool_calls_section_begin|>";
    let response = read(&parser(), answer);
    assert_eq!(response.form, Some(CallForm::Glm));
    assert_eq!(response.calls.len(), 1);
    assert_eq!(response.text, " then <|tool_calls_section_begin|>");

    let mut stream = parser().stream();
    assert_eq!(stream.form(), None);
    let events = stream.feed("Hi <|tool_calls_section_begin|>");
    assert_eq!(events, [OpenModelEvent::Text("Hi ".to_owned()), OpenModelEvent::Form(CallForm::Kimi)]);
    assert_eq!(stream.form(), Some(CallForm::Kimi));
}

#[test]
fn conversation_and_call_id_prefix() {
    let answer = "<tool_call>get_time</tool_call><tool_call>get_time</tool_call>";
    let response = read(&parser().in_conversation("conv-7").call_id_prefix("glm_"), answer);
    assert_eq!(response.calls.iter().map(|c| c.call_id.as_str()).collect::<Vec<_>>(), ["glm_0", "glm_1"]);
    assert!(response.calls.iter().all(|c| c.conversation_id.as_deref() == Some("conv-7")));
    let response =
        read(&parser().in_conversation("conv-8"), "<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>");
    assert_eq!(response.calls[0].conversation_id.as_deref(), Some("conv-8"));
}

#[test]
fn feed_bytes_cut_inside_characters() {
    let answer =
        "Прогноз ☀️ → <tool_call>get_weather<arg_key>location</arg_key><arg_value>Zürich 🏔</arg_value></tool_call>\
        <｜end▁of▁sentence｜>ok";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "Прогноз ☀️ → ok");
    assert_eq!(*arguments(&response.calls[0]), json!({"location": "Zürich 🏔"}));
    // Every cut into two chunks.
    for cut in 0..=answer.len() {
        let mut stream = parser().stream();
        let mut events = stream.feed_bytes(&answer.as_bytes()[..cut]);
        events.extend(stream.feed_bytes(&answer.as_bytes()[cut..]));
        events.extend(stream.finish());
        assert_eq!(OpenModelResponse::from_events(events), response, "cut at {cut}");
    }
}

#[test]
fn feed_bytes_cut_inside_a_character_right_after_a_hermes_opening() {
    let answer = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Zürich\"}}</tool_call> ✓";
    let whole = parser().parse(answer);
    assert_eq!(whole.text, " ✓");
    for cut in 0..=answer.len() {
        let mut stream = parser().stream();
        let mut events = stream.feed_bytes(&answer.as_bytes()[..cut]);
        events.extend(stream.feed_bytes(&answer.as_bytes()[cut..]));
        events.extend(stream.finish());
        assert_eq!(OpenModelResponse::from_events(events), whole, "cut at {cut}");
    }
}

// ---- detect ----

#[test]
fn detect_names_the_forms_an_answer_holds() {
    let kimi = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{}\
        <|tool_call_end|><|tool_calls_section_end|>";
    assert_eq!(detect(kimi), [CallForm::Kimi]);
    assert_eq!(detect("<tool_call>get_time</tool_call>"), [CallForm::Glm]);
    assert_eq!(detect("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>"), [CallForm::Hermes]);
    assert_eq!(
        detect("<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>"),
        [CallForm::Harmony]
    );
    // A call cut by the end counts.
    assert_eq!(detect("<tool_call>get_weather<arg_key>location"), [CallForm::Glm]);
    // Each form is looked for on its own: an answer holding two names both.
    assert_eq!(detect(&format!("{kimi} <tool_call>get_time</tool_call>")), [CallForm::Kimi, CallForm::Glm]);
    // Harmony messages without a recipient hold no call.
    assert!(detect("<|channel|>final<|message|>Hello<|return|>").is_empty());
    assert!(detect("I would use <tool_call> here.").is_empty());
    assert!(detect("").is_empty());
}

#[test]
fn form_names_round_trip() {
    for &form in CallForm::ALL {
        assert_eq!(CallForm::from_name(form.name()), Some(form));
        assert_eq!(form.to_string(), form.name());
    }
    assert_eq!(CallForm::from_name("harmony"), Some(CallForm::Harmony));
    assert_eq!(CallForm::from_name("nope"), None);
}

#[test]
fn hermes_json_call_cut_by_the_end_is_refused() {
    let answer = "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Mont";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "Sure.\n");
    assert_eq!(calls(&response), [["get_weather", "call_0", r#"{"location": "Mont"#]]);
    let mut expected = truncated("`<|tool_call_end|>`");
    expected[2] = "the whole call, closed by `</tool_call>`".to_owned();
    assert_eq!(errors(&response.calls[0]), [expected]);
    assert_eq!(
        warnings(&response.warnings),
        [["", "xml_unclosed_block", "`</tool_call>`", "the end of the answer", "read the calls the block holds"]]
    );
    // Cut inside the name: a call that names no tool, refused all the same.
    let response = read(&parser(), "<tool_call>{\"name\": \"get_wea");
    assert_eq!(calls(&response), [["", "call_0", ""]]);
    assert_eq!(errors(&response.calls[0])[0][1], "truncated_call");
    // Whole JSON without `</tool_call>`: read, with the block's warning.
    let response = read(&parser(), "<tool_call>{\"name\": \"get_time\", \"arguments\": {}}");
    assert_eq!(calls(&response), [["get_time", "call_0", "{}"]]);
    assert!(response.calls[0].parse_error.is_none());
}

#[test]
fn kimi_singular_opening_repeated_inside_a_section_is_markup_in_any_chunks() {
    let answer = "<|tool_calls_section_begin|><|tool_call_section_begin|><|tool_call_begin|>functions.get_time:0\
        <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "");
    assert_eq!(calls(&response), [["get_time", "functions.get_time:0", "{}"]]);
}
