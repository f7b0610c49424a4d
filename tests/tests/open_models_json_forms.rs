//! The open-model forms whose arguments are JSON text: Llama 3.1 to 4's JSON, Mistral's
//! `[TOOL_CALLS]` (before and from v11) and DeepSeek V3/R1/V3.1. Each variant read with its
//! exact warning, whole and streamed (cut at every byte, and as bytes that split characters);
//! JSON in prose never taken for a call; a call cut by the end refused; and the executor typing
//! the values by the declared parameters (`"n": "10"` for a `u32`).

use std::path::Path;

use proptest::prelude::*;

use tool_core::open_models::{CallForm, OpenModelEvent, OpenModelParser, OpenModelResponse};
use tool_core::prelude::*;

/// Tell the weather in a city.
#[tool]
fn get_weather(
    /// The city.
    city: String,
    /// For how many days.
    days: Option<u32>,
) -> String {
    format!("{city}: sunny for {} days", days.unwrap_or(1))
}

/// The probability of `k` successes in `n` trials.
#[tool]
fn calc_binomial_probability(n: u32, k: u32, p: f64) -> String {
    format!("n={n} k={k} p={p}")
}

/// The time in a time zone.
#[tool]
fn get_time(
    /// The time zone.
    tz: String,
) -> String {
    format!("12:00 {tz}")
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<get_weather>()
        .add_declared::<calc_binomial_probability>()
        .add_declared::<get_time>()
        .build()
        .unwrap()
}

type Warning = (String, String, String, String, String);

fn w(pointer: &str, rule: &str, expected: &str, received: &str, action: &str) -> Warning {
    (pointer.into(), rule.into(), expected.into(), received.into(), action.into())
}

fn warnings<'a>(list: impl IntoIterator<Item = &'a tool_core::ParseWarning>) -> Vec<Warning> {
    list.into_iter().map(|x| w(x.pointer(), x.rule(), x.expected(), x.received(), x.action())).collect()
}

/// Each call as (tool, id, raw arguments, warnings).
fn calls(response: &OpenModelResponse) -> Vec<(&str, &str, &str, Vec<Warning>)> {
    response
        .calls
        .iter()
        .map(|c| (c.tool_name.as_str(), c.call_id.as_str(), c.raw_arguments.as_str(), warnings(&c.parse_warnings)))
        .collect()
}

/// The answer read whole, after checking that reading it streamed gives the same: cut once at
/// every place, in chunks of 1 and 7 bytes, and as bytes cut inside characters.
fn read_as(parser: &OpenModelParser, answer: &str) -> OpenModelResponse {
    let whole = parser.parse(answer);
    let bytes = answer.as_bytes();
    for cut in 1..bytes.len() {
        let mut stream = parser.stream();
        let mut events = stream.feed_bytes(&bytes[..cut]);
        events.extend(stream.feed_bytes(&bytes[cut..]));
        events.extend(stream.finish());
        assert_eq!(OpenModelResponse::from_events(events), whole, "cut at byte {cut} of {answer:?}");
    }
    for size in [1, 7] {
        let mut stream = parser.stream();
        let mut events = Vec::new();
        for chunk in bytes.chunks(size) {
            events.extend(stream.feed_bytes(chunk));
        }
        events.extend(stream.finish());
        assert_eq!(OpenModelResponse::from_events(events), whole, "chunks of {size} of {answer:?}");
    }
    whole
}

fn read(answer: &str) -> OpenModelResponse {
    read_as(&OpenModelParser::new(&catalog()), answer)
}

/// A `truncated_call` refusal's (expected, received).
fn refusal(response: &OpenModelResponse, index: usize) -> (String, String, Option<String>) {
    let error = &response.calls[index].parse_error.as_ref().expect("refused").errors[0];
    (error.rule.clone(), error.expected.clone(), error.received.clone())
}

fn cut_by_end(expected: &str) -> (String, String, Option<String>) {
    ("truncated_call".into(), format!("the whole call, with {expected}"), Some("the end of the answer".into()))
}

// --------------------------------------------------------------------------------------------
// Llama 3.1 / 3.3 / 4 JSON

#[test]
fn llamas_json_call_is_read_with_its_arguments_as_written() {
    let response = read("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"days\": 3}}<|eot_id|>");
    assert_eq!(response.form, Some(CallForm::LlamaJson));
    assert_eq!(response.text, "");
    assert_eq!(calls(&response), vec![("get_weather", "call_0", r#"{"city": "Paris", "days": 3}"#, vec![])]);
    assert!(response.warnings.is_empty());
}

#[tokio::test]
async fn llamas_calls_after_the_python_tag_separated_by_semicolons_are_typed_by_the_executor() {
    // A real Llama 3.1 answer (BFCL's `llama_3_1.py`), numbers written as strings.
    let answer = "<|python_tag|>{\"name\": \"calc_binomial_probability\", \"parameters\": {\"n\": \"10\", \"k\": \"3\", \"p\": \"0\"}}; \
        {\"name\": \"calc_binomial_probability\", \"parameters\": {\"n\": \"15\", \"k\": \"5\", \"p\": \"0.5\"}}<|eom_id|>";
    let response = read(answer);
    assert_eq!(response.text, "");
    assert_eq!(
        calls(&response),
        vec![
            ("calc_binomial_probability", "call_0", r#"{"n": "10", "k": "3", "p": "0"}"#, vec![]),
            ("calc_binomial_probability", "call_1", r#"{"n": "15", "k": "5", "p": "0.5"}"#, vec![]),
        ]
    );
    let record = Executor::new(catalog()).execute(response.calls[0].clone()).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "n=10 k=3 p=0");
    assert_eq!(
        warnings(record.warnings()),
        vec![
            w("/n", "string_to_integer", "an integer", "\"10\"", "converted to 10"),
            w("/k", "string_to_integer", "an integer", "\"3\"", "converted to 3"),
            w("/p", "string_to_number", "a number", "\"0\"", "converted to 0"),
        ]
    );
}

#[test]
fn llamas_arguments_key_and_type_field_are_read_without_a_warning() {
    let response = read(
        "{\"type\": \"function\", \"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}\n\
         {\"name\": \"get_time\", \"arguments\": {\"tz\": \"UTC\"}}",
    );
    assert_eq!(
        calls(&response),
        vec![("get_time", "call_0", r#"{"tz": "CET"}"#, vec![]), ("get_time", "call_1", r#"{"tz": "UTC"}"#, vec![])]
    );
    assert_eq!(response.text, "\n");
}

#[test]
fn llamas_name_after_its_parameters_is_found_within_the_look_ahead() {
    let response = read(r#"{"parameters": {"tz": "CET"}, "name": "get_time"}"#);
    assert_eq!(calls(&response), vec![("get_time", "call_0", r#"{"tz": "CET"}"#, vec![])]);
}

#[test]
fn llamas_parameters_given_as_a_json_string_are_read_with_a_warning() {
    let response = read(r#"{"name": "get_weather", "parameters": "{\"city\": \"Paris\"}"}"#);
    assert_eq!(
        calls(&response),
        vec![(
            "get_weather",
            "call_0",
            r#"{"city": "Paris"}"#,
            vec![w(
                "",
                "llama_arguments_string",
                "the arguments as a JSON object",
                r#""{\"city\": \"Paris\"}""#,
                "read the JSON text inside the string"
            )]
        )]
    );
}

#[test]
fn llamas_calls_separated_by_commas_or_in_a_list_are_read_with_a_warning() {
    let response =
        read(r#"{"name": "get_time", "parameters": {"tz": "CET"}}, {"name": "get_time", "parameters": {"tz": "UTC"}}"#);
    assert_eq!(
        calls(&response),
        vec![("get_time", "call_0", r#"{"tz": "CET"}"#, vec![]), ("get_time", "call_1", r#"{"tz": "UTC"}"#, vec![])]
    );
    assert_eq!(
        warnings(&response.warnings),
        vec![w("", "llama_comma_separator", "`;` between calls", ",", "read the next call")]
    );

    let response = read(
        "[\n    {\"name\": \"get_time\", \"parameters\": {\"tz\": \"CET\"}},\n    {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}\n]",
    );
    assert_eq!(
        calls(&response),
        vec![
            ("get_time", "call_0", r#"{"tz": "CET"}"#, vec![]),
            ("get_weather", "call_1", r#"{"city": "Oslo"}"#, vec![])
        ]
    );
    assert_eq!(
        warnings(&response.warnings),
        vec![w(
            "",
            "llama_json_list",
            "one call object, or calls separated by `;`",
            "a JSON list of calls",
            "read each call in the list"
        )]
    );
    assert_eq!(response.text, "");
}

#[test]
fn llamas_prose_before_the_call_is_the_models_words() {
    let response = read("東京の天気を調べます。 {\"name\": \"get_weather\", \"parameters\": {\"city\": \"東京\"}}");
    assert_eq!(response.text, "東京の天気を調べます。 ");
    assert_eq!(calls(&response), vec![("get_weather", "call_0", r#"{"city": "東京"}"#, vec![])]);
}

#[test]
fn llamas_calls_in_a_code_fence_are_read_without_the_fence_with_a_warning() {
    let fence = w(
        "",
        "llama_code_fence",
        "the calls' JSON alone",
        "```json",
        "removed the markdown code fence around the calls",
    );
    let response = read("Sure:\n```json\n{\"name\": \"get_time\", \"parameters\": {\"tz\": \"CET\"}}\n```\nDone.");
    assert_eq!(response.text, "Sure:\n\nDone.");
    assert_eq!(calls(&response), vec![("get_time", "call_0", r#"{"tz": "CET"}"#, vec![])]);
    assert_eq!(warnings(&response.warnings), vec![fence.clone()]);

    // A list in the fence; a fence the end of the answer left open.
    let response = read("```json\n[{\"name\": \"get_time\", \"parameters\": {\"tz\": \"CET\"}}]\n```");
    assert_eq!((response.text.as_str(), response.calls.len()), ("", 1));
    let response = read("```json\n{\"name\": \"get_time\", \"parameters\": {\"tz\": \"CET\"}}\n");
    assert_eq!((response.text.as_str(), response.calls.len()), ("\n", 1));
    assert_eq!(warnings(&response.warnings), vec![fence]);

    // A fence around JSON that is no call is the model's words.
    let prose = "```json\n{\"name\": \"Alice\", \"age\": 3}\n```";
    assert_eq!(read(prose).text, prose);
}

#[test]
fn json_in_prose_without_a_calls_shape_is_text() {
    for answer in [
        r#"Her record: {"name": "Alice", "age": 3}."#,
        r#"{"name": "Alice"}"#,
        r#"{"user": "x", "name": "get_weather", "parameters": {}}"#,
        r#"{"name": 3, "parameters": {}}"#,
        "int main() { return 0; } and [1, 2] and { \"a\": [ {\"b\": 1} ] }",
        "{\"name\": \"Alice\", \"age\": 3",
    ] {
        let response = read(answer);
        assert!(response.calls.is_empty(), "{answer}");
        assert_eq!(response.form, None);
        assert_eq!(response.text, answer);
    }
}

#[test]
fn the_look_ahead_bound_falls_between_characters_wherever_it_lands() {
    // Multi-byte characters across the reader's 512-byte look-ahead, at each byte offset.
    for pad in 0..4 {
        for name in
            [format!("{}{}", "x".repeat(pad), "é".repeat(300)), format!("{}{}", "x".repeat(pad), "東".repeat(200))]
        {
            let answer = format!("{{\"name\": \"{name}\", \"parameters\": {{}}}} and {{\"{name}\": 1}}");
            let response = read_as(&OpenModelParser::new(&catalog()), &answer);
            assert!(response.calls.is_empty());
            assert_eq!(response.text, answer);
        }
    }
}

#[test]
fn a_declared_name_without_a_parameters_key_takes_the_other_keys_as_its_arguments() {
    let response = read(r#"{"name": "get_time", "tz": "CET"}"#);
    assert_eq!(
        calls(&response),
        vec![(
            "get_time",
            "call_0",
            r#"{"tz": "CET"}"#,
            vec![w(
                "",
                "llama_no_arguments_key",
                "`parameters` or `arguments` beside `name`",
                r#"{"name": "get_time", "tz": "CET"}"#,
                "read the object's other keys as the arguments"
            )]
        )]
    );
}

#[test]
fn llamas_keys_a_call_does_not_have_are_reported() {
    let response = read(r#"{"name": "get_time", "parameters": {"tz": "CET"}, "reason": "asked"}"#);
    assert_eq!(
        calls(&response),
        vec![(
            "get_time",
            "call_0",
            r#"{"tz": "CET"}"#,
            vec![w(
                "/reason",
                "llama_unknown_key",
                "`name`, `parameters` or `arguments`, `id`, `type`",
                "\"asked\"",
                "ignored the key"
            )]
        )]
    );
}

#[tokio::test]
async fn a_llama_call_cut_by_the_end_is_refused_with_what_arrived() {
    let response = read("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Par");
    assert_eq!(response.calls[0].tool_name, "get_weather");
    assert_eq!(response.calls[0].raw_arguments, r#"{"city": "Par"#);
    assert_eq!(refusal(&response, 0), cut_by_end("the rest of the call object and its closing `}`"));
    let record = Executor::new(catalog()).execute(response.calls[0].clone()).await;
    assert_eq!(record.status, CallStatus::Failed);
}

#[test]
fn a_long_json_document_in_prose_is_text_and_read_in_one_pass() {
    // 1 MB of JSON in prose, streamed in 16-byte chunks: every `{` is settled within the
    // reader's look-ahead, so the document comes out as words without being held back.
    let mut document = String::from("Here is the data: {\"rows\": [");
    while document.len() < 1 << 20 {
        document.push_str("{\"name\": \"row\", \"values\": {\"a\": 1, \"b\": [1, 2, {\"c\": \"}\"}]}}, ");
    }
    document.push_str("{}]} ");
    let big_parameters =
        format!("{{\"parameters\": {{\"blob\": \"{}\"}}, \"name\": \"get_time\"}}", "x".repeat(1 << 20));
    let parser = OpenModelParser::new(&catalog());
    for answer in [document, big_parameters] {
        let mut stream = parser.stream();
        let mut events = Vec::new();
        for chunk in answer.as_bytes().chunks(16) {
            events.extend(stream.feed_bytes(chunk));
        }
        events.extend(stream.finish());
        let response = OpenModelResponse::from_events(events);
        assert!(response.calls.is_empty());
        assert_eq!(response.text, answer);
    }
}

// --------------------------------------------------------------------------------------------
// Mistral

#[test]
fn mistrals_list_before_v11_is_read_with_the_models_ids() {
    for token in ["[TOOL_CALLS] ", "[TOOL_CALLS]"] {
        let answer = format!(
            "{token}[{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"Paris\", \"days\": 3}}, \"id\": \"a1B2c3D4e\"}}, \
             {{\"name\": \"get_time\", \"arguments\": {{\"tz\": \"CET\"}}, \"id\": \"Zx9Yw8Vu7\"}}]</s>"
        );
        let response = read(&answer);
        assert_eq!(response.form, Some(CallForm::Mistral));
        assert_eq!(response.text, "");
        assert_eq!(
            calls(&response),
            vec![
                ("get_weather", "a1B2c3D4e", r#"{"city": "Paris", "days": 3}"#, vec![]),
                ("get_time", "Zx9Yw8Vu7", r#"{"tz": "CET"}"#, vec![]),
            ]
        );
    }
}

#[test]
fn mistrals_v11_calls_follow_its_words_one_token_each() {
    let response = read(
        "Je regarde la météo.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]get_time[ARGS]{\"tz\": \"CET\"}</s>",
    );
    assert_eq!(response.text, "Je regarde la météo.");
    assert_eq!(
        calls(&response),
        vec![
            ("get_weather", "call_0", r#"{"city": "Paris"}"#, vec![]),
            ("get_time", "call_1", r#"{"tz": "CET"}"#, vec![])
        ]
    );
}

#[test]
fn mistrals_call_id_is_kept_as_the_calls_id() {
    let response = read("[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{\"city\": \"Paris\"}</s>");
    assert_eq!(calls(&response), vec![("get_weather", "a1B2c3D4e", r#"{"city": "Paris"}"#, vec![])]);
}

#[test]
fn mistrals_name_then_json_without_args_is_read_with_a_warning() {
    let response = read("[TOOL_CALLS]get_weather{\"city\": \"Paris\"}");
    assert_eq!(calls(&response), vec![("get_weather", "call_0", r#"{"city": "Paris"}"#, vec![])]);
    assert_eq!(
        warnings(&response.warnings),
        vec![w(
            "",
            "mistral_no_args_token",
            "`[ARGS]` between the name and the arguments",
            "`get_weather` then `{`",
            "read the arguments after the name"
        )]
    );
}

#[tokio::test]
async fn mistrals_single_quoted_pseudo_json_is_read_with_warnings() {
    let response = read("[TOOL_CALLS] [{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '2'}}]</s>");
    assert_eq!(
        calls(&response),
        vec![(
            "get_weather",
            "call_0",
            "{'city': 'Paris', 'days': '2'}",
            vec![w(
                "",
                "mistral_single_quotes",
                "JSON strings in double quotes",
                "'name'",
                "read the single-quoted strings"
            )]
        )]
    );
    let record = Executor::new(catalog()).execute(response.calls[0].clone()).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "Paris: sunny for 2 days");
    // The arguments' own quotes are extraction's repair, with its warning.
    assert_eq!(
        warnings(&record.warnings()[1..]),
        vec![
            w(
                "",
                "python_literal",
                "a JSON object",
                "{'city': 'Paris', 'days': '2'}",
                "read single-quoted strings as JSON strings"
            ),
            w("/days", "string_to_integer", "an integer", "\"2\"", "converted to 2"),
        ]
    );
}

#[test]
fn mistrals_single_object_without_its_list_is_read_with_a_warning() {
    let response = read("[TOOL_CALLS] {\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}");
    assert_eq!(calls(&response), vec![("get_time", "call_0", r#"{"tz": "CET"}"#, vec![])]);
    assert_eq!(
        warnings(&response.warnings),
        vec![w(
            "",
            "mistral_no_list",
            "a list of calls `[{..}]` after `[TOOL_CALLS]`",
            "one call object",
            "read the call"
        )]
    );
}

#[test]
fn mistrals_name_without_arguments_before_the_next_call_is_read_without_arguments() {
    let response = read("[TOOL_CALLS]get_time[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Oslo\"}");
    assert_eq!(
        calls(&response),
        vec![
            (
                "get_time",
                "call_0",
                "{}",
                vec![w(
                    "",
                    "mistral_no_arguments",
                    "`[ARGS]` and the arguments after the name",
                    "[TOOL_CALLS]",
                    "read the call without arguments"
                )]
            ),
            ("get_weather", "call_1", r#"{"city": "Oslo"}"#, vec![]),
        ]
    );
}

#[test]
fn mistrals_arguments_that_are_no_object_and_a_nameless_call_are_left_to_the_executor() {
    let response = read("[TOOL_CALLS]get_time[ARGS] \"CET\" [TOOL_CALLS][ARGS]{\"tz\": \"UTC\"}</s>");
    assert_eq!(
        calls(&response),
        vec![("get_time", "call_0", "\"CET\"", vec![]), ("", "call_1", r#"{"tz": "UTC"}"#, vec![])]
    );
    assert_eq!(response.text, "");
}

#[test]
fn mistrals_parameters_key_and_arguments_string_are_read_as_llamas_are() {
    let response = read(r#"[TOOL_CALLS] [{"name": "get_time", "parameters": "{\"tz\": \"CET\"}", "id": "Ab3dE5gH7"}]"#);
    assert_eq!(
        calls(&response),
        vec![(
            "get_time",
            "Ab3dE5gH7",
            r#"{"tz": "CET"}"#,
            vec![w(
                "",
                "mistral_arguments_string",
                "the arguments as a JSON object",
                r#""{\"tz\": \"CET\"}""#,
                "read the JSON text inside the string"
            )]
        )]
    );
}

#[test]
fn a_second_call_id_ends_a_call_without_arguments() {
    let response = read("[TOOL_CALLS]get_time[CALL_ID]a1B2c3D4e[CALL_ID]x");
    assert_eq!(response.calls[0].call_id, "a1B2c3D4e");
    assert_eq!(response.calls[0].raw_arguments, "{}");
    assert_eq!(
        warnings(&response.calls[0].parse_warnings),
        vec![w(
            "",
            "mistral_no_arguments",
            "`[ARGS]` and the arguments after the name",
            "[CALL_ID]",
            "read the call without arguments"
        )]
    );
    assert_eq!(response.text, "[CALL_ID]x");
}

#[test]
fn mistral_calls_cut_by_the_end_are_refused() {
    for answer in ["[TOOL_CALLS]get_weather[ARGS]", "[TOOL_CALLS]get_weather[ARGS] </s>"] {
        let response = read(answer);
        assert_eq!(response.calls[0].tool_name, "get_weather");
        assert_eq!(refusal(&response, 0), cut_by_end("the arguments after `[ARGS]`"));
        assert_eq!(response.text, "");
    }

    let response = read("[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Pa");
    assert_eq!(response.calls[0].raw_arguments, r#"{"city": "Pa"#);
    assert_eq!(refusal(&response, 0), cut_by_end("the rest of the arguments and their closing `}`"));

    let response = read(
        "[TOOL_CALLS] [{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}, {\"name\": \"get_weather\", \"argu",
    );
    assert_eq!(calls(&response)[0], ("get_time", "call_0", r#"{"tz": "CET"}"#, vec![]));
    assert!(response.calls[0].parse_error.is_none());
    assert_eq!(response.calls[1].tool_name, "get_weather");
    assert_eq!(refusal(&response, 1), cut_by_end("the rest of the call object and its closing `}`"));

    let response = read("[TOOL_CALLS]get_weather</s>");
    assert_eq!(response.calls[0].tool_name, "get_weather");
    assert_eq!(refusal(&response, 0), cut_by_end("`[ARGS]` and the arguments"));
}

// --------------------------------------------------------------------------------------------
// DeepSeek

const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";
const EOS: &str = "<｜end▁of▁sentence｜>";

#[test]
fn deepseek_v3_calls_with_pretty_printed_json_and_the_words_around_them() {
    let answer = format!(
        "<think>\nThe user wants the weather.\n</think>\n\n{CALLS_BEGIN}{CALL_BEGIN}function{SEP}get_weather\n```json\n\
         {{\n  \"city\": \"北京\",\n  \"days\": 2\n}}\n```{CALL_END}\n{CALL_BEGIN}function{SEP}get_time\n```json\n\
         {{\"tz\": \"CST\"}}\n```{CALL_END}{CALLS_END}Done.{EOS}"
    );
    let response = read(&answer);
    assert_eq!(response.form, Some(CallForm::DeepSeek));
    assert_eq!(response.text, "<think>\nThe user wants the weather.\n</think>\n\nDone.");
    assert_eq!(
        calls(&response),
        vec![
            ("get_weather", "call_0", "{\n  \"city\": \"北京\",\n  \"days\": 2\n}", vec![]),
            ("get_time", "call_1", r#"{"tz": "CST"}"#, vec![]),
        ]
    );
}

#[test]
fn deepseek_v31_calls_have_no_type_and_no_fence() {
    let answer = format!(
        "{CALLS_BEGIN}{CALL_BEGIN}get_weather{SEP}{{\"city\": \"Paris\"}}{CALL_END}{CALL_BEGIN}get_time{SEP}{{\"tz\": \"CET\"}}{CALL_END}{CALLS_END}{EOS}"
    );
    let response = read(&answer);
    assert_eq!(response.text, "");
    assert_eq!(
        calls(&response),
        vec![
            ("get_weather", "call_0", r#"{"city": "Paris"}"#, vec![]),
            ("get_time", "call_1", r#"{"tz": "CET"}"#, vec![])
        ]
    );
}

#[test]
fn deepseeks_repairs_each_come_with_their_warning() {
    // A call without its section, its arguments without the fence V3 writes.
    let response = read(&format!("{CALL_BEGIN}function{SEP}get_time\n{{\"tz\": \"CET\"}}{CALL_END} ok"));
    assert_eq!(response.text, " ok");
    assert_eq!(
        calls(&response),
        vec![(
            "get_time",
            "call_0",
            r#"{"tz": "CET"}"#,
            vec![w(
                "",
                "deepseek_no_fence",
                "the arguments in a ```json fence",
                r#"{"tz": "CET"}"#,
                "read the arguments as they are"
            )]
        )]
    );
    assert_eq!(
        warnings(&response.warnings),
        vec![w(
            "",
            "deepseek_no_section",
            "`<｜tool▁calls▁begin｜>` before the call",
            CALL_BEGIN,
            "read the call without its section"
        )]
    );

    // A call left open before the next one; a call without its separator.
    let response = read(&format!(
        "{CALLS_BEGIN}{CALL_BEGIN}get_time{SEP}{{\"tz\": \"CET\"}}{CALL_BEGIN}get_weather{{\"city\": \"Oslo\"}}{CALL_END}{CALLS_END}"
    ));
    assert_eq!(
        calls(&response),
        vec![
            (
                "get_time",
                "call_0",
                r#"{"tz": "CET"}"#,
                vec![w("", "deepseek_unclosed_call", "`<｜tool▁call▁end｜>`", CALL_BEGIN, "ended the call before it")]
            ),
            (
                "get_weather",
                "call_1",
                r#"{"city": "Oslo"}"#,
                vec![w(
                    "",
                    "deepseek_no_sep",
                    "`<｜tool▁sep｜>` after the call's type or name",
                    r#"get_weather{"city": "Oslo"}"#,
                    "read the name up to the arguments"
                )]
            ),
        ]
    );
}

#[test]
fn deepseeks_words_inside_the_section_are_kept_and_its_layout_is_not() {
    let answer =
        format!("{CALLS_BEGIN}\n  Checking both.\n{CALL_BEGIN}get_time{SEP}{{\"tz\": \"CET\"}}{CALL_END}\n{CALLS_END}");
    let response = read(&answer);
    assert_eq!(response.text, "Checking both.\n");
    assert_eq!(calls(&response), vec![("get_time", "call_0", r#"{"tz": "CET"}"#, vec![])]);
}

#[test]
fn a_deepseek_call_cut_by_the_end_is_refused() {
    let response = read(&format!("{CALLS_BEGIN}{CALL_BEGIN}function{SEP}get_weather\n```json\n{{\"city\": \"Par"));
    assert_eq!(calls(&response)[0].0, "get_weather");
    assert_eq!(response.calls[0].raw_arguments, r#"{"city": "Par"#);
    assert_eq!(refusal(&response, 0), cut_by_end("`<｜tool▁call▁end｜>`"));

    // Whole arguments, yet no end token: still refused (the end may have cut more).
    let response = read(&format!("{CALLS_BEGIN}{CALL_BEGIN}get_time{SEP}{{\"tz\": \"CET\"}}{EOS}"));
    assert_eq!(response.calls[0].raw_arguments, r#"{"tz": "CET"}"#);
    assert_eq!(refusal(&response, 0), cut_by_end("`<｜tool▁call▁end｜>`"));
}

// --------------------------------------------------------------------------------------------
// Every form, named or found

#[test]
fn a_named_form_reads_its_own_calls_alone() {
    let llama = r#"[TOOL_CALLS]get_time[ARGS]{"tz": "CET"} {"name": "get_time", "parameters": {"tz": "UTC"}}"#;
    let response = read_as(&OpenModelParser::new(&catalog()).form(CallForm::LlamaJson), llama);
    assert_eq!(calls(&response), vec![("get_time", "call_0", r#"{"tz": "UTC"}"#, vec![])]);
    assert_eq!(response.text, r#"[TOOL_CALLS]get_time[ARGS]{"tz": "CET"} "#);
    let response = read(llama);
    assert_eq!(response.form, Some(CallForm::Mistral));
    assert_eq!(calls(&response)[0].2, r#"{"tz": "CET"}"#);
}

/// The answers under `data/open_models/{form}/`: each read whole and streamed alike, holding
/// the calls listed here (tool, raw arguments, refused).
#[test]
fn the_recorded_answers_give_their_calls() {
    /// (tool, raw arguments, refused)
    type Call = (&'static str, &'static str, bool);
    let expected: &[(&str, &str, &[Call])] = &[
        (
            "llama_json",
            "bfcl_semicolons.txt",
            &[
                ("calc_binomial_probability", r#"{"n": "10", "k": "3", "p": "0"}"#, false),
                ("calc_binomial_probability", r#"{"n": "15", "k": "5", "p": "0"}"#, false),
            ],
        ),
        (
            "llama_json",
            "prose_then_call.txt",
            &[("get_weather", "{\n        \"city\": \"München\",\n        \"days\": \"3\"\n    }", false)],
        ),
        ("llama_json", "cut.txt", &[("get_weather", "{\"city\": \"São Pa", true)]),
        (
            "mistral",
            "pre_v11_ids.txt",
            &[
                ("get_weather", r#"{"city": "Paris", "days": 3}"#, false),
                ("get_time", r#"{"tz": "Europe/Paris"}"#, false),
            ],
        ),
        (
            "mistral",
            "v11_call_ids.txt",
            &[("get_weather", r#"{"city": "Zürich", "days": 2}"#, false), ("get_time", r#"{"tz": "CET"}"#, false)],
        ),
        ("mistral", "cut.txt", &[("get_weather", r#"{"city": "Lyon", "days"#, true)]),
        (
            "deepseek",
            "r1_think_v3.txt",
            &[
                ("get_weather", "{\n  \"city\": \"上海\",\n  \"days\": 3\n}", false),
                ("get_time", r#"{"tz": "Asia/Shanghai"}"#, false),
            ],
        ),
        ("deepseek", "v31.txt", &[("get_weather", r#"{"city": "東京", "days": 1}"#, false)]),
        ("deepseek", "cut.txt", &[("get_weather", "{\"city\": \"Seoul\",\n  \"da", true)]),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/open_models");
    for (form, file, want) in expected {
        let answer = std::fs::read_to_string(root.join(form).join(file)).unwrap();
        let form = CallForm::from_name(form).unwrap();
        for parser in [OpenModelParser::new(&catalog()), OpenModelParser::new(&catalog()).form(form)] {
            let response = read_as(&parser, &answer);
            assert_eq!(response.form, Some(form), "{file}");
            let got: Vec<_> = response
                .calls
                .iter()
                .map(|c| (c.tool_name.as_str(), c.raw_arguments.as_str(), c.parse_error.is_some()))
                .collect();
            assert_eq!(&got, want, "{file}");
        }
    }
}

#[test]
fn the_stream_gives_the_form_before_the_first_call_and_the_words_as_they_come() {
    let parser = OpenModelParser::new(&catalog());
    let mut stream = parser.stream();
    assert_eq!(stream.feed("Checking. {\"na"), vec![OpenModelEvent::Text("Checking. ".into())]);
    assert_eq!(
        stream.feed("me\": \"get_time\", \"parameters\": {\"tz\": "),
        vec![OpenModelEvent::Form(CallForm::LlamaJson)]
    );
    let events = stream.feed("\"CET\"}}");
    assert!(matches!(&events[..], [OpenModelEvent::Call(call)] if call.raw_arguments == r#"{"tz": "CET"}"#));
    assert!(stream.finish().is_empty());
}

#[test]
fn a_megabyte_of_arguments_streamed_in_small_chunks_is_read_whole_in_every_form() {
    let city = "Zürich ".repeat(150_000);
    let arguments = format!("{{\"city\": \"{city}\", \"nested\": {{\"a\": [\"}}\", {{\"b\": \"]\"}}]}}}}");
    let answers = [
        format!("{{\"name\": \"get_weather\", \"parameters\": {arguments}}}"),
        format!("[TOOL_CALLS]get_weather[ARGS]{arguments}</s>"),
        format!("[TOOL_CALLS] [{{\"name\": \"get_weather\", \"arguments\": {arguments}}}]</s>"),
        format!("{CALLS_BEGIN}{CALL_BEGIN}function{SEP}get_weather\n```json\n{arguments}\n```{CALL_END}{CALLS_END}"),
    ];
    let parser = OpenModelParser::new(&catalog());
    for answer in answers {
        let response =
            streamed(&parser, answer.as_bytes(), &(1..answer.len() / 16).map(|i| i * 16).collect::<Vec<_>>());
        assert_eq!(response.calls.len(), 1);
        assert_eq!(response.calls[0].raw_arguments, arguments);
        assert!(response.calls[0].parse_error.is_none());
        assert_eq!(response.text, "");
    }
}

// --------------------------------------------------------------------------------------------
// Any mix of the forms' pieces

fn streamed(parser: &OpenModelParser, bytes: &[u8], cuts: &[usize]) -> OpenModelResponse {
    let mut stream = parser.stream();
    let mut events = Vec::new();
    let mut last = 0;
    for &cut in cuts.iter().chain([bytes.len()].iter()) {
        events.extend(stream.feed_bytes(&bytes[last..cut]));
        last = cut;
    }
    events.extend(stream.finish());
    OpenModelResponse::from_events(events)
}

/// Text made of the three forms' pieces, well formed or not.
fn json_soup() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        "\"name\"",
        "'name'",
        ": ",
        "\"get_time\"",
        "\"Alice\"",
        "\"parameters\"",
        "\"arguments\"",
        "\"id\"",
        "\"a1B2c3D4e\"",
        "{\"tz\": \"CET\"}",
        ", ",
        "; ",
        "\"",
        "'",
        "\\",
        "\n",
        " ",
        "[TOOL_CALLS]",
        "[ARGS]",
        "[CALL_ID]",
        "get_time",
        "</s>",
        "<|python_tag|>",
        "<|eot_id|>",
        CALLS_BEGIN,
        CALLS_END,
        CALL_BEGIN,
        CALL_END,
        SEP,
        EOS,
        "function",
        "```json\n",
        "```",
        "<think>",
        "é",
        "東",
        "😀",
        "hi",
        "42",
        "<",
        "[TOOL_",
        "<｜tool",
    ]);
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_mix_of_the_forms_pieces_is_read_without_panicking_and_the_same_whole_or_streamed(
        text in json_soup(),
        cuts in prop::collection::btree_set(0usize..800, 0..30),
        form in prop::sample::select(vec![None, Some(CallForm::LlamaJson), Some(CallForm::Mistral), Some(CallForm::DeepSeek)]),
    ) {
        let parser = OpenModelParser::new(&catalog());
        let parser = match form {
            Some(form) => parser.form(form),
            None => parser,
        };
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= text.len()).collect();
        let whole = parser.parse(&text);
        prop_assert_eq!(streamed(&parser, text.as_bytes(), &cuts), whole);
    }
}
