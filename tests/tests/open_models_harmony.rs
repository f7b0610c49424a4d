//! gpt-oss's harmony messages, by exact value: the calls (recipient in the channel or the role
//! part, built-in tools, bare names, calls on other channels, content types), the other
//! messages' text as the model's words, their headers and end tokens dropped, a call cut by the
//! end refused. Every answer is read whole and streamed a byte at a time, and both must agree.

use tool_core::open_models::{CallForm, OpenModelParser};
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

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<get_weather>()
        .add_declared::<get_time>()
        .add_declared::<book_room>()
        .build()
        .unwrap()
}

fn parser() -> OpenModelParser {
    OpenModelParser::new(&catalog())
}

const CALL: &str = "<|channel|>analysis<|message|>Need to use function get_weather.<|end|><|start|>assistant\
    <|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\":\"San Francisco\"}<|call|>";

#[test]
fn analysis_then_a_call() {
    let response = read(&parser(), CALL);
    assert_eq!(response.form, Some(CallForm::Harmony));
    // The analysis channel's text is kept as the model's words; its header and end token dropped.
    assert_eq!(response.text, "Need to use function get_weather.");
    assert_eq!(calls(&response), [["get_weather", "call_0", r#"{"location":"San Francisco"}"#]]);
    let call = &response.calls[0];
    assert!(call.parse_warnings.is_empty() && call.parse_error.is_none() && call.arguments.is_none());
    assert!(response.warnings.is_empty());
}

#[test]
fn recipient_in_the_role_part() {
    let answer = "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>\
        {\"location\": \"Oslo\", \"days\": 2}<|call|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "call_0", r#"{"location": "Oslo", "days": 2}"#]]);
    assert!(response.calls[0].parse_warnings.is_empty());
    assert_eq!(response.text, "");
}

#[test]
fn no_content_type_is_standard_and_one_written_without_the_token_is_warned() {
    let answer = "<|channel|>commentary to=functions.get_time<|message|>{}<|call|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_time", "call_0", "{}"]]);
    assert!(response.calls[0].parse_warnings.is_empty());

    let answer = "<|channel|>commentary to=functions.get_time json<|message|>{}<|call|>";
    let response = read(&parser(), answer);
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [[
            "",
            "harmony_content_type",
            "`<|constrain|>json` before `<|message|>`",
            "json",
            "read the arguments as JSON"
        ]]
    );
}

#[test]
fn call_on_the_analysis_channel_with_code_content_type() {
    let answer = "<|channel|>analysis to=functions.get_weather code<|message|>{\"location\": \"Lima\"}<|call|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "call_0", r#"{"location": "Lima"}"#]]);
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [
            [
                "",
                "harmony_call_channel",
                "the call on the `commentary` channel",
                "the `analysis` channel",
                "read the call"
            ],
            [
                "",
                "harmony_content_type",
                "`<|constrain|>json` before `<|message|>`",
                "code",
                "read the arguments as JSON"
            ]
        ]
    );
}

#[test]
fn bare_recipient_names_the_tool_with_a_warning() {
    let answer = "<|start|>assistant<|channel|>commentary to=get_weather <|constrain|>json<|message|>{\"location\": \"Kyiv\"}<|call|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "call_0", r#"{"location": "Kyiv"}"#]]);
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [["", "harmony_bare_recipient", "`to=functions.{name}`", "to=get_weather", "called the tool `get_weather`"]]
    );
}

#[test]
fn built_in_tools_are_calls_to_the_name_as_written() {
    let answer = "<|channel|>analysis to=browser.search code<|message|>{\"query\": \"weather Paris\"}<|call|>\
        <|start|>assistant<|channel|>analysis to=python code<|message|>print(2 + 2)<|call|>";
    let response = read(&parser(), answer);
    assert_eq!(
        calls(&response),
        [["browser.search", "call_0", r#"{"query": "weather Paris"}"#], ["python", "call_1", "print(2 + 2)"]]
    );
    assert!(response.calls.iter().all(|c| c.parse_warnings.is_empty()));
}

#[test]
fn preamble_and_final_messages_are_words() {
    let answer = "<|channel|>analysis<|message|>User wants weather.<|end|><|start|>assistant<|channel|>commentary\
        <|message|>**Plan**: look it up.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather \
        <|constrain|>json<|message|>{\"location\": \"Paris\"}<|call|>";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "User wants weather.**Plan**: look it up.");
    assert_eq!(response.calls.len(), 1);

    let answer = "<|channel|>final<|message|>It is sunny in Zürich ☀️.<|return|>";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "It is sunny in Zürich ☀️.");
    assert!(response.calls.is_empty());
    assert_eq!(response.form, Some(CallForm::Harmony));
}

#[test]
fn several_turns_concatenated_all_read_and_results_left_out() {
    let answer = format!(
        "{CALL}<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{{\"sunny\": true}}<|end|>\
         <|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{{}}<|call|>\
         <|start|>assistant<|channel|>final<|message|>Sunny, noon.<|return|>"
    );
    let response = read(&parser(), &answer);
    assert_eq!(
        calls(&response),
        [["get_weather", "call_0", r#"{"location":"San Francisco"}"#], ["get_time", "call_1", "{}"]]
    );
    assert_eq!(response.text, "Need to use function get_weather.Sunny, noon.");
    assert_eq!(
        warnings(&response.warnings),
        [[
            "",
            "harmony_other_role",
            "a message of the `assistant`",
            "a message of `functions.get_weather`",
            "left the message out"
        ]]
    );
}

#[test]
fn call_ended_by_end_or_return_is_read_with_a_warning() {
    for end in ["<|end|>", "<|return|>"] {
        let answer = format!("<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{{}}{end}after");
        let response = read(&parser(), &answer);
        assert_eq!(calls(&response), [["get_time", "call_0", "{}"]]);
        assert_eq!(
            warnings(&response.calls[0].parse_warnings),
            [["", "harmony_call_end", "`<|call|>` at the call's end", end, "read the call"]]
        );
        assert!(response.calls[0].parse_error.is_none());
        assert_eq!(response.text, "after");
    }
}

#[test]
fn call_left_open_before_the_next_message() {
    let answer = "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}\
        <|start|>assistant<|channel|>final<|message|>Done<|return|>";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_time", "call_0", "{}"]]);
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [[
            "",
            "harmony_unclosed_message",
            "`<|end|>` or `<|call|>` at the message's end",
            "<|start|>",
            "ended the message before it"
        ]]
    );
    assert_eq!(response.text, "Done");

    let answer = "<|channel|>analysis<|message|>Thinking<|channel|>final<|message|>Done";
    let response = read(&parser(), answer);
    assert_eq!(response.text, "ThinkingDone");
    assert_eq!(
        warnings(&response.warnings),
        [[
            "",
            "harmony_unclosed_message",
            "`<|end|>` or `<|call|>` at the message's end",
            "<|channel|>",
            "ended the message before it"
        ]]
    );
}

#[test]
fn call_cut_by_the_end_is_refused_and_whole_arguments_without_the_stop_token_read() {
    let answer = "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"San Fr";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "call_0", r#"{"location": "San Fr"#]]);
    assert_eq!(errors(&response.calls[0]), [truncated("`<|call|>`")]);

    let answer = "<|channel|>commentary to=functions.get_weather <|constrain|>json";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "call_0", ""]]);
    assert_eq!(errors(&response.calls[0]), [truncated("`<|message|>`, the arguments and `<|call|>`")]);

    // Whole arguments without the stop token (engines leave stop tokens out of the text): read.
    let answer = "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"Oslo\"}";
    let response = read(&parser(), answer);
    assert_eq!(calls(&response), [["get_weather", "call_0", r#"{"location": "Oslo"}"#]]);
    assert!(response.calls[0].parse_error.is_none());
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        [[
            "",
            "harmony_no_call_token",
            "`<|call|>` after the arguments",
            "the end of the answer",
            "read the call: its arguments are whole"
        ]]
    );

    // A final answer the end cut is words: nothing is run from it.
    let response = read(&parser(), "<|channel|>final<|message|>It is sun");
    assert_eq!(response.text, "It is sun");
    assert!(response.calls.is_empty() && response.warnings.is_empty());
}

#[test]
fn header_without_message_is_text_after_its_opening_token() {
    let answer = "Use <|channel|> like this\n<|channel|>final<|message|>ok<|end|>";
    let response = read(&parser().form(CallForm::Harmony), answer);
    assert_eq!(response.text, "Use  like this\nok");
    assert_eq!(
        warnings(&response.warnings),
        [[
            "",
            "harmony_no_message",
            "`<|message|>` after the message's header",
            "a line break",
            "dropped the header's opening token and read what follows as text"
        ]]
    );
}

#[test]
fn other_forms_are_words_once_harmony_is_seen_and_named_forms_ignore_harmony() {
    let answer = format!("{CALL}<tool_call>get_time</tool_call>");
    let response = read(&parser(), &answer);
    assert_eq!(response.calls.len(), 1);
    assert_eq!(response.text, "Need to use function get_weather.<tool_call>get_time</tool_call>");

    let response = read(&parser().form(CallForm::Kimi), CALL);
    assert!(response.calls.is_empty());
    // `<|end|>` and `<|call|>` are dropped special tokens for every form.
    assert_eq!(
        response.text,
        "<|channel|>analysis<|message|>Need to use function get_weather.<|start|>assistant<|channel|>commentary \
         to=functions.get_weather <|constrain|>json<|message|>{\"location\":\"San Francisco\"}"
    );
}

#[tokio::test]
async fn the_executor_runs_a_whole_call_and_refuses_a_cut_one() {
    let response = parser().parse(CALL);
    let record = Executor::new(catalog()).execute(response.calls[0].clone()).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "San Francisco: sunny for None days");

    let cut = "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"San Fr";
    let response = parser().parse(cut);
    let record = Executor::new(catalog()).execute(response.calls[0].clone()).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert!(matches!(record.failure, Some(tool_core::CallFailure::InvalidArguments)));
    assert_eq!(
        record.content.text,
        "The arguments for `get_weather` were not accepted:\n- arguments: expected the whole call, with `<|call|>`; \
         got the end of the answer (the answer ended inside the call, so its values may be cut short; it was not \
         run).\nSend the corrected arguments to `get_weather` again."
    );
}
