//! The XML call protocol: each malformed form models write, read with its exact warning; the
//! values typed by the declared parameters; the prompt parts; the results rendered back; a
//! strict tool; and streaming, which must give what reading the whole answer gives wherever
//! the chunks are cut.

use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::xml::{
    function_results, functions_block, parse_and_execute, tool_result_event, XmlEvent, XmlParser, XmlPrompt,
    XmlResponse, OUTPUT_INSTRUCTIONS,
};

/// Check whether a room is free.
#[tool]
fn check_availability(
    /// The room's name.
    room: String,
    /// For how many hours.
    hours: u32,
) -> Json<Value> {
    Json(json!({"available": hours < 4, "room": room}))
}

/// Book a room.
#[tool]
fn book_room(
    /// The room's name.
    room: String,
    /// Who comes.
    attendees: Vec<String>,
    /// Tell them.
    notify: Option<bool>,
) -> String {
    format!("{room} for {} (notify: {notify:?})", attendees.join(", "))
}

/// Tell the user something.
#[tool]
fn tell_user(
    /// What to say.
    message: String,
) -> String {
    message
}

/// Move money; every value must be exact.
#[tool(strict)]
fn transfer(cents: u64, to: String) -> String {
    format!("{cents} to {to}")
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<check_availability>()
        .add_declared::<book_room>()
        .add_declared::<tell_user>()
        .add_declared::<transfer>()
        .build()
        .unwrap()
}

fn parse(answer: &str) -> XmlResponse {
    XmlParser::new(&catalog()).parse(answer)
}

type Warning = (String, String, String, String, String);

fn w(pointer: &str, rule: &str, expected: &str, received: &str, action: &str) -> Warning {
    (pointer.into(), rule.into(), expected.into(), received.into(), action.into())
}

fn warnings<'a>(list: impl IntoIterator<Item = &'a tool_core::ParseWarning>) -> Vec<Warning> {
    list.into_iter().map(|x| w(x.pointer(), x.rule(), x.expected(), x.received(), x.action())).collect()
}

/// Each call as (tool, arguments, warnings).
fn calls(response: &XmlResponse) -> Vec<(&str, Value, Vec<Warning>)> {
    response
        .calls
        .iter()
        .map(|c| (c.tool_name.as_str(), c.arguments.clone().unwrap_or(Value::Null), warnings(&c.parse_warnings)))
        .collect()
}

const SEED_ANSWER: &str = "好的，我来查一下。\n<function_calls>\n<invoke name=\"check_availability\">\n\
<parameter name=\"room\">观星阁</parameter>\n<parameter name=\"hours\">1</parameter>\n</invoke>\n\
<invoke name=\"tell_user\">\n<parameter name=\"message\">正在为您检查会议室可用性...</parameter>\n</invoke>\n\
</function_calls>\n";

#[tokio::test]
async fn the_seeds_answer_runs_and_comes_back_as_its_event_and_as_function_results() {
    let executor = Executor::new(catalog());
    let turn = parse_and_execute(&executor, SEED_ANSWER).await;
    assert_eq!(turn.text, "好的，我来查一下。\n\n");
    assert!(turn.warnings.is_empty());
    let ids: Vec<&str> = turn.records.iter().map(|r| r.request.call_id.as_str()).collect();
    assert_eq!(ids, ["xml_call_0", "xml_call_1"]);
    assert!(turn.records.iter().all(|r| r.status == CallStatus::Success && r.warnings().is_empty()));
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_704_110_400);
    assert_eq!(
        tool_result_event(&turn.records, at),
        json!({"type": "tool_result", "timestamp": "2024-01-01T12:00:00Z", "data": {"results": [
            {"tool_name": "check_availability", "success": true, "result": {"available": true, "room": "观星阁"}},
            {"tool_name": "tell_user", "success": true, "result": "正在为您检查会议室可用性..."},
        ]}})
    );
    assert_eq!(
        function_results(&turn.records),
        "<function_results>\n<result>\n<tool_name>check_availability</tool_name>\n\
         <stdout>{\"available\":true,\"room\":\"观星阁\"}</stdout>\n</result>\n<result>\n<tool_name>tell_user</tool_name>\n\
         <stdout>正在为您检查会议室可用性...</stdout>\n</result>\n</function_results>"
    );
}

#[tokio::test]
async fn a_failed_call_goes_back_as_an_error_with_the_message_for_the_model() {
    let executor = Executor::new(catalog());
    let answer =
        "<function_calls>\n<invoke name=\"check_availabilty\">\n<parameter name=\"room\">A</parameter>\n</invoke>\n\
        <invoke name=\"book_room\">\n<parameter name=\"room\">A</parameter>\n</invoke>\n</function_calls>";
    let turn = parse_and_execute(&executor, answer).await;
    let unknown = "There is no tool named `check_availabilty`. The closest existing tools are: \
        `check_availability`. Call one of them instead.";
    assert_eq!(turn.records[0].content.text, unknown);
    let refused = "The arguments for `book_room` were not accepted:\n- `attendees`: required, expected a list of \
        strings; it was missing.\nSend the corrected arguments to `book_room` again.";
    assert_eq!(turn.records[1].content.text, refused);
    let event = tool_result_event(&turn.records, SystemTime::UNIX_EPOCH);
    assert_eq!(
        event["data"]["results"],
        json!([
            {"tool_name": "check_availabilty", "success": false, "result": unknown},
            {"tool_name": "book_room", "success": false, "result": refused},
        ])
    );
    assert_eq!(event["timestamp"], "1970-01-01T00:00:00Z");
    assert_eq!(
        turn.function_results(),
        format!(
            "<function_results>\n<error>\n<tool_name>check_availabilty</tool_name>\n<stdout>{unknown}</stdout>\n</error>\n\
             <error>\n<tool_name>book_room</tool_name>\n<stdout>{refused}</stdout>\n</error>\n</function_results>"
        )
    );
}

#[test]
fn values_are_typed_by_the_declared_parameter_without_warnings() {
    let answer = "<function_calls>\n<invoke name=\"book_room\">\n<parameter name=\"room\">42</parameter>\n\
        <parameter name=\"attendees\">[\"ann\", \"bob\"]</parameter>\n<parameter name=\"notify\">false</parameter>\n\
        </invoke>\n<invoke name=\"check_availability\">\n<parameter name=\"room\">true</parameter>\n\
        <parameter name=\"hours\">\n3\n</parameter>\n</invoke>\n</function_calls>";
    assert_eq!(
        calls(&parse(answer)),
        vec![
            ("book_room", json!({"room": "42", "attendees": ["ann", "bob"], "notify": false}), vec![]),
            ("check_availability", json!({"room": "true", "hours": 3}), vec![]),
        ]
    );
}

#[tokio::test]
async fn text_that_is_not_its_parameters_type_is_converted_or_refused_by_extraction() {
    // A stringified list is still a repair; `yes` is no boolean; `2 hours` no integer.
    let answer = "<function_calls>\n<invoke name=\"book_room\">\n<parameter name=\"room\">A</parameter>\n\
        <parameter name=\"attendees\">\"[\\\"ann\\\"]\"</parameter>\n</invoke>\n<invoke name=\"book_room\">\n\
        <parameter name=\"room\">A</parameter>\n<parameter name=\"attendees\">ann</parameter>\n\
        <parameter name=\"notify\">yes</parameter>\n</invoke>\n</function_calls>";
    let turn = parse_and_execute(&Executor::new(catalog()), answer).await;
    assert_eq!(turn.records[0].status, CallStatus::Success);
    assert_eq!(
        warnings(turn.records[0].warnings()),
        vec![w(
            "/attendees",
            "json_string_decoded",
            "an array",
            "\"[\\\"ann\\\"]\"",
            "decoded the JSON text inside the string"
        )]
    );
    assert_eq!(turn.records[1].status, CallStatus::Failed);
    assert_eq!(
        turn.records[1].content.text,
        "The arguments for `book_room` were not accepted:\n- `notify`: expected a boolean, or null; got \"yes\".\n\
         Send the corrected arguments to `book_room` again."
    );
}

#[test]
fn an_invoke_without_its_block_is_read_with_a_warning() {
    let answer = "Checking.\n<invoke name=\"check_availability\"><parameter name=\"room\">A</parameter>\
        <parameter name=\"hours\">2</parameter></invoke>\nDone.";
    let response = parse(answer);
    assert_eq!(response.text, "Checking.\n\nDone.");
    assert_eq!(
        calls(&response),
        vec![(
            "check_availability",
            json!({"room": "A", "hours": 2}),
            vec![w(
                "",
                "xml_no_wrapper",
                "`<invoke>` inside a `<function_calls>` block",
                "<invoke name=\"check_availability\">",
                "read the call without its block"
            )]
        )]
    );
    assert_eq!(
        response.calls[0].raw_arguments,
        "<invoke name=\"check_availability\"><parameter name=\"room\">A</parameter><parameter name=\"hours\">2</parameter></invoke>"
    );
}

#[test]
fn names_in_single_quotes_or_none_are_read_with_a_warning() {
    let answer = "<function_calls><invoke name='check_availability'><parameter name=room>A</parameter>\
        <parameter name = \"hours\">2</parameter></invoke></function_calls>";
    let expected = "`name=\"..\"`, in double quotes";
    assert_eq!(
        calls(&parse(answer)),
        vec![(
            "check_availability",
            json!({"room": "A", "hours": 2}),
            vec![
                w(
                    "",
                    "xml_attribute_quotes",
                    expected,
                    "<invoke name='check_availability'>",
                    "read the name in single quotes"
                ),
                w("/room", "xml_attribute_quotes", expected, "<parameter name=room>", "read the unquoted name"),
            ]
        )]
    );
}

#[test]
fn qwens_form_is_read_with_a_warning_and_its_values_lose_their_framing_line_breaks() {
    let answer = "<tool_call>\n<function=check_availability>\n<parameter=room>\n观星阁\n</parameter>\n\
        <parameter=hours>\n3\n</parameter>\n</function>\n</tool_call>";
    let response = parse(answer);
    assert_eq!(response.text, "");
    assert_eq!(
        calls(&response),
        vec![(
            "check_availability",
            json!({"room": "观星阁", "hours": 3}),
            vec![w(
                "",
                "xml_qwen_form",
                "`<invoke name=\"..\">` and `<parameter name=\"..\">`",
                "<function=check_availability>",
                "read Qwen's `<function=..>` form"
            )]
        )]
    );
}

#[tokio::test]
async fn a_json_call_in_tool_call_is_read_as_the_json_it_is() {
    let call = "{\"name\": \"check_availability\", \"arguments\": {\"room\": \"A\", \"hours\": \"2\"}}";
    let response = parse(&format!("<tool_call>\n{call}\n</tool_call>"));
    let request = &response.calls[0];
    assert_eq!(
        (request.tool_name.as_str(), request.raw_arguments.as_str()),
        ("check_availability", "{\"room\":\"A\",\"hours\":\"2\"}")
    );
    assert_eq!(
        warnings(&request.parse_warnings),
        vec![w("", "xml_json_tool_call", "`<function=..>` inside `<tool_call>`", call, "read the JSON call")]
    );
    // JSON arguments follow the JSON rules: the string "2" for an integer is a conversion.
    let record = Executor::new(catalog()).execute(request.clone()).await;
    assert_eq!(record.content.text, "{\"available\":true,\"room\":\"A\"}");
    assert_eq!(record.warnings()[1].rule(), "string_to_integer");
}

#[test]
fn a_value_without_its_close_ends_at_the_next_tag_and_its_line_break_is_layout() {
    let answer = "<function_calls>\n<invoke name=\"check_availability\">\n<parameter name=\"room\">A\n\
        <parameter name=\"hours\">2</parameter>\n</invoke>\n<invoke name=\"book_room\">\n<parameter name=\"room\">R1\n\
        </invoke>\n</function_calls>\nafter";
    let response = parse(answer);
    assert_eq!(response.text, "\nafter");
    let unclosed =
        |at, received| w(at, "xml_unclosed_parameter", "`</parameter>`", received, "ended the value before it");
    assert_eq!(
        calls(&response),
        vec![
            (
                "check_availability",
                json!({"room": "A", "hours": 2}),
                vec![unclosed("/room", "<parameter name=\"hours\">")]
            ),
            ("book_room", json!({"room": "R1"}), vec![unclosed("/room", "</invoke>")]),
        ]
    );
}

#[test]
fn a_call_without_its_close_ends_at_the_next_call_or_the_blocks_end() {
    let answer = "<function_calls>\n<invoke name=\"check_availability\">\n<parameter name=\"room\">A</parameter>\n\
        <parameter name=\"hours\">2</parameter>\n<invoke name=\"tell_user\">\n<parameter name=\"message\">hi</parameter>\n\
        </function_calls>";
    let response = parse(answer);
    let unclosed = |received| w("", "xml_unclosed_invoke", "`</invoke>`", received, "ended the call before it");
    assert_eq!(
        calls(&response),
        vec![
            ("check_availability", json!({"room": "A", "hours": 2}), vec![unclosed("<invoke name=\"tell_user\">")]),
            ("tell_user", json!({"message": "hi"}), vec![unclosed("</function_calls>")]),
        ]
    );
    // The raw text of a call cut short ends where the call was taken to end.
    assert_eq!(
        response.calls[0].raw_arguments,
        "<invoke name=\"check_availability\">\n<parameter name=\"room\">A</parameter>\n<parameter name=\"hours\">2</parameter>"
    );
}

#[test]
fn a_close_tag_written_inside_a_value_stays_in_the_value() {
    let answer = "<function_calls>\n<invoke name=\"tell_user\">\n<parameter name=\"message\">print(\"</parameter>\")</parameter>\n\
        </invoke>\n<invoke name=\"tell_user\">\n<parameter name=\"message\">x = \"</invoke>\" end</parameter>\n</invoke>\n\
        </function_calls>";
    let inside = |received| {
        w(
            "/message",
            "xml_close_tag_in_value",
            "one `</parameter>`, after the value",
            received,
            "kept the tag and the text after it in the value",
        )
    };
    assert_eq!(
        calls(&parse(answer)),
        vec![
            ("tell_user", json!({"message": "print(\"</parameter>\")"}), vec![inside("</parameter>")]),
            ("tell_user", json!({"message": "x = \"</invoke>\" end"}), vec![inside("</invoke>")]),
        ]
    );
}

#[tokio::test]
async fn a_repeated_parameter_keeps_its_last_value_or_joins_a_list_and_unknown_ones_are_reported() {
    let answer = "<function_calls>\n<invoke name=\"book_room\">\n<parameter name=\"room\">R1</parameter>\n\
        <parameter name=\"room\">R2</parameter>\n<parameter name=\"attendees\">ann</parameter>\n\
        <parameter name=\"attendees\">[\"bob\", \"cy\"]</parameter>\n<parameter name=\"colour\">red</parameter>\n\
        </invoke>\n</function_calls>";
    let response = parse(answer);
    assert_eq!(
        calls(&response),
        vec![(
            "book_room",
            json!({"room": "R2", "attendees": ["ann", "bob", "cy"], "colour": "red"}),
            vec![
                w(
                    "/room",
                    "duplicate_parameter",
                    "each parameter once",
                    "`room` more than once",
                    "kept the last value"
                ),
                w(
                    "/attendees",
                    "duplicate_parameter",
                    "each parameter once",
                    "`attendees` more than once",
                    "joined the values into one list"
                ),
            ]
        )]
    );
    let record = Executor::new(catalog()).execute(response.calls[0].clone()).await;
    assert_eq!(record.content.text, "R2 for ann, bob, cy (notify: None)");
    assert_eq!(
        warnings(&record.warnings()[2..]),
        vec![w(
            "/colour",
            "unknown_parameter",
            "one of the declared parameters: room, attendees, notify",
            "colour",
            "ignored"
        )]
    );
}

#[test]
fn text_and_stray_tags_are_kept_with_warnings() {
    let answer =
        "<function_calls>\n<invoke name=\"tell_user\">\nI will say hi.\n<parameter name=\"message\">hi</parameter>\n\
        </parameter>\n<parameter>orphan</parameter>\n</invoke>\nNow booking.\n<parameter name=\"x\">y</parameter>\n\
        <function_calls>\n</function_calls>\n</function_calls>\nBye.";
    let response = parse(answer);
    assert_eq!(response.text, "Now booking.\n<parameter name=\"x\">y</parameter>\n\nBye.");
    assert_eq!(
        warnings(&response.warnings),
        vec![
            w(
                "",
                "xml_unexpected_tag",
                "`<invoke name=\"..\">` or the block's closing tag",
                "<parameter name=\"x\">",
                "kept the tag as text"
            ),
            w(
                "",
                "xml_unexpected_tag",
                "`<invoke name=\"..\">` or the block's closing tag",
                "</parameter>",
                "kept the tag as text"
            ),
            w("", "xml_nested_block", "one block at a time", "<function_calls>", "ignored the inner opening tag"),
            w(
                "",
                "xml_unexpected_tag",
                "a block's closing tag after its opening tag",
                "</function_calls>",
                "ignored the tag"
            ),
        ]
    );
    assert_eq!(
        calls(&response),
        vec![(
            "tell_user",
            json!({"message": "hi"}),
            vec![
                w(
                    "",
                    "xml_text_in_invoke",
                    "only parameters inside `<invoke>`",
                    "I will say hi.",
                    "left the text out of the arguments"
                ),
                w(
                    "",
                    "xml_unexpected_tag",
                    "`<parameter name=\"..\">` or `</invoke>`",
                    "</parameter>",
                    "ignored the tag"
                ),
                w("", "xml_missing_name", "`<parameter name=\"..\">`", "orphan", "left the value out of the arguments"),
            ]
        )]
    );
}

#[tokio::test]
async fn a_block_never_closed_gives_its_calls_and_a_call_without_a_name_is_refused_by_name() {
    let answer = "Sure.\n<function_calls>\n<invoke>\n<parameter name=\"message\">hi</parameter>\n</invoke>";
    let response = parse(answer);
    assert_eq!(
        warnings(&response.warnings),
        vec![w(
            "",
            "xml_unclosed_block",
            "`</function_calls>`",
            "the end of the answer",
            "read the calls the block holds"
        )]
    );
    assert_eq!(
        calls(&response),
        vec![(
            "",
            json!({"message": "hi"}),
            vec![w("", "xml_missing_name", "`<invoke name=\"..\">`", "<invoke>", "the call names no tool")]
        )]
    );
    let record = Executor::new(catalog()).execute(response.calls[0].clone()).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.content.text, "There is no tool named ``, and no tool has a name like it.");
}

#[test]
fn cdata_and_entities_are_decoded_and_a_cdata_never_closed_is_text() {
    let answer = "<function_calls>\n<invoke name=\"book_room\">\n<parameter name=\"room\"><![CDATA[a </parameter> & b]]> &amp; &lt;c&gt; AT&T</parameter>\n\
        <parameter name=\"attendees\">[\"&#x41;nn\"]</parameter>\n<parameter name=\"notify\"><![CDATA[never closed\n</invoke>\n</function_calls>";
    assert_eq!(
        calls(&parse(answer)),
        vec![(
            "book_room",
            json!({"room": "a </parameter> & b & <c> AT&T", "attendees": ["Ann"], "notify": "<![CDATA[never closed"}),
            vec![
                w("/notify", "xml_unclosed_parameter", "`</parameter>`", "</invoke>", "ended the value before it"),
                w(
                    "/notify",
                    "xml_unclosed_cdata",
                    "`]]>` after `<![CDATA[`",
                    "`<![CDATA[` without `]]>`",
                    "read the section as text"
                ),
            ]
        )]
    );
}

#[tokio::test]
async fn a_strict_tool_refuses_a_call_that_needed_a_repair_naming_the_repair() {
    let executor = Executor::new(catalog());
    let good = "<function_calls><invoke name=\"transfer\"><parameter name=\"cents\">250</parameter>\
        <parameter name=\"to\">ann</parameter></invoke></function_calls>";
    let turn = parse_and_execute(&executor, good).await;
    assert_eq!(turn.records[0].content.text, "250 to ann");
    let unwrapped = "<invoke name=\"transfer\"><parameter name=\"cents\">250</parameter><parameter name=\"to\">ann</parameter></invoke>";
    let turn = parse_and_execute(&executor, unwrapped).await;
    assert_eq!(
        turn.records[0].content.text,
        "The arguments for `transfer` were not accepted:\n- arguments: expected `<invoke>` inside a `<function_calls>` \
         block; got <invoke name=\"transfer\"> (refused by the strict policy; lenient extraction would have read the \
         call without its block).\nSend the corrected arguments to `transfer` again."
    );
}

#[test]
fn calls_carry_the_parsers_conversation_and_id_prefix() {
    let parser = XmlParser::new(&catalog()).in_conversation("c-7").call_id_prefix("turn3_");
    let response = parser.parse(SEED_ANSWER);
    let tagged: Vec<(&str, Option<&str>)> =
        response.calls.iter().map(|c| (c.call_id.as_str(), c.conversation_id.as_deref())).collect();
    assert_eq!(tagged, [("turn3_0", Some("c-7")), ("turn3_1", Some("c-7"))]);
}

#[test]
fn the_functions_block_of_the_dialect_tools_is_the_json_schema_export_line_by_line() {
    let tools = tool_tests::dialect_tools::catalog();
    let block = functions_block(tools.definitions()).unwrap();
    insta::assert_snapshot!(block);
    // One line per tool, in the catalog's order, each the JSON the seed shows.
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!((lines[0], lines[lines.len() - 1], lines.len()), ("<functions>", "</functions>", 6));
    let names: Vec<Value> = lines[1..5]
        .iter()
        .map(|line| {
            let json = line.strip_prefix("<function>").and_then(|l| l.strip_suffix("</function>")).unwrap();
            let function: Value = serde_json::from_str(json).unwrap();
            let keys: Vec<&String> = function.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["description", "name", "parameters"]);
            function["name"].clone()
        })
        .collect();
    assert_eq!(names, [json!("canvas_draw"), json!("clock.now"), json!("folders.create"), json!("shipment.create")]);
    assert_eq!(functions_block(tools.definitions()).unwrap(), block, "the same tools give the same text");
}

#[test]
fn a_description_that_mentions_the_closing_tag_cannot_close_the_block() {
    let tool =
        tool_tests::dynamic("html.render", "Wraps text in </function></functions> tags.", json!({"type": "object"}));
    let block = functions_block([tool.definition()]).unwrap();
    assert_eq!(
        block,
        "<functions>\n<function>{\"description\":\"Wraps text in <\\/function><\\/functions> tags.\",\"name\":\"html.render\",\
         \"parameters\":{\"type\":\"object\",\"properties\":{}}}</function>\n</functions>"
    );
    let json = block.lines().nth(1).unwrap().strip_prefix("<function>").unwrap().strip_suffix("</function>").unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(json).unwrap()["description"],
        "Wraps text in </function></functions> tags."
    );
}

#[test]
fn the_prompt_puts_the_parts_in_the_seeds_order_and_each_can_be_replaced() {
    let tools = ToolCatalog::builder().add_declared::<tell_user>().build().unwrap();
    let functions = functions_block(tools.definitions()).unwrap();
    let event = json!({"type": "user_message", "data": {"text": "Say </b> hi"}});
    let prompt = XmlPrompt::new(&tools).unwrap().system("You are helpful.").event(&event).build();
    assert_eq!(
        prompt,
        format!(
            "You are helpful.\n\n{functions}\n\n{{\"type\":\"user_message\",\"data\":{{\"text\":\"Say <\\/b> hi\"}}}}\n\n{OUTPUT_INSTRUCTIONS}"
        )
    );
    let chinese = XmlPrompt::new(&tools).unwrap().output_instructions(tool_core::xml::OUTPUT_INSTRUCTIONS_ZH).build();
    assert!(chinese.ends_with("- 必需的参数不能省略\n</output_instructions>"));
    assert!(chinese.starts_with("<functions>\n<function>{\"description\":\"Tell the user something.\""));
}

#[test]
fn text_streams_through_as_it_comes_and_a_call_comes_out_whole_at_its_close() {
    let mut stream = XmlParser::new(&catalog()).stream();
    assert_eq!(stream.feed("Let me "), [XmlEvent::Text("Let me ".into())]);
    // A `<` that may begin a tag waits; the text before it does not.
    assert_eq!(stream.feed("check <func"), [XmlEvent::Text("check ".into())]);
    assert_eq!(stream.feed("tion_calls>\n<invoke name=\"tell_user\"><parameter name=\"message\">hi"), []);
    assert_eq!(stream.feed("</parameter></inv"), []);
    let events = stream.feed("oke>\n</function_calls> done");
    assert_eq!(events.len(), 2);
    let XmlEvent::Call(call) = &events[0] else { panic!("{events:?}") };
    assert_eq!((call.tool_name.as_str(), call.arguments.clone()), ("tell_user", Some(json!({"message": "hi"}))));
    assert_eq!(events[1], XmlEvent::Text(" done".into()));
    // A `<` that begins no tag is text at once.
    let mut stream = XmlParser::new(&catalog()).stream();
    assert_eq!(stream.feed("a <b"), [XmlEvent::Text("a <b".into())]);
    assert_eq!(stream.finish(), []);
}

/// Malformed answers of every kind above, and a long one, for the streaming check.
const CORPUS: [&str; 12] = [
    SEED_ANSWER,
    "<invoke name='check_availability'><parameter name=room>A</parameter><parameter name=\"hours\">2</parameter></invoke>",
    "<tool_call>\n<function=check_availability>\n<parameter=room>\n观星阁\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>\n{\"name\": \"tell_user\", \"arguments\": {\"message\": \"😀\"}}\n</tool_call> after",
    "<function_calls>\n<invoke name=\"check_availability\">\n<parameter name=\"room\">A\n<parameter name=\"hours\">2</parameter>\n<invoke name=\"tell_user\">",
    "<function_calls>\n<invoke name=\"tell_user\">\n<parameter name=\"message\">p(\"</parameter>\")</parameter>\n</invoke>\n</function_calls>",
    "<function_calls>\n<invoke name=\"tell_user\">\n<parameter name=\"message\">x = \"</invoke>\" é</parameter>\n</invoke>\n</function_calls>",
    "<function_calls>\n<invoke name=\"tell_user\">\n<parameter name=\"message\">R1\n</invoke>\nmid\n</function_calls>\nafter",
    "<function_calls>\n<invoke name=\"tell_user\">\ntext\n<parameter name=\"message\">hi</parameter>\n</parameter>\n<parameter>o</parameter>\n</invoke>\n<parameter name=\"x\">y</parameter>\n<function_calls>\n</function_calls>\n</function_calls>",
    "<function_calls>\n<invoke name=\"book_room\">\n<parameter name=\"room\"><![CDATA[a </parameter> b]]> &amp; AT&T</parameter>\n<parameter name=\"notify\"><![CDATA[never\n</invoke>",
    "<invoke name=\"check_availability\"/>\n<invoke name=\"book_room\"><parameter name=\"room\"/></invoke>\n</function_calls>",
    "a < b <b>bold</b> <functionx> <invoke_not> <parameterz> </function_callsx> & <![CDATA[ not a value ]]>",
];

fn streamed(parser: &XmlParser, bytes: &[u8], cuts: &[usize]) -> XmlResponse {
    let mut stream = parser.stream();
    let mut events = Vec::new();
    let mut last = 0;
    for &cut in cuts.iter().chain([bytes.len()].iter()) {
        events.extend(stream.feed_bytes(&bytes[last..cut]));
        last = cut;
    }
    events.extend(stream.finish());
    XmlResponse::from_events(events)
}

/// Text made of the protocol's pieces, well formed or not.
fn tag_soup() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "<function_calls>",
        "</function_calls>",
        "<invoke name=\"tell_user\">",
        "<invoke name='book_room'>",
        "<invoke>",
        "</invoke>",
        "<parameter name=\"message\">",
        "<parameter name=room>",
        "<parameter>",
        "</parameter>",
        "<tool_call>",
        "</tool_call>",
        "<function=tell_user>",
        "<parameter=message>",
        "</function>",
        "<![CDATA[",
        "]]>",
        "<invoke name=\"x\"/>",
        "<parameter name=\"a\"/>",
        "{\"name\": \"tell_user\", \"arguments\": {}}",
        "hi",
        "\n",
        " ",
        "<",
        ">",
        "&",
        "&lt;",
        "é",
        "😀",
        "<b>",
        "[1, 2]",
        "42",
        "</",
    ]);
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn streaming_a_malformed_answer_cut_anywhere_gives_what_reading_it_whole_gives(
        index in 0..CORPUS.len(),
        cuts in prop::collection::btree_set(0usize..400, 0..30),
    ) {
        let parser = XmlParser::new(&catalog());
        let text = CORPUS[index];
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= text.len()).collect();
        prop_assert_eq!(streamed(&parser, text.as_bytes(), &cuts), parser.parse(text));
    }

    #[test]
    fn any_tag_soup_is_read_without_panicking_and_the_same_whole_or_streamed(
        text in tag_soup(),
        cuts in prop::collection::btree_set(0usize..600, 0..30),
    ) {
        let parser = XmlParser::new(&catalog());
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= text.len()).collect();
        let whole = parser.parse(&text);
        prop_assert_eq!(streamed(&parser, text.as_bytes(), &cuts), whole.clone());
        // Nothing is lost: each call keeps its raw text, which is in the answer.
        for call in &whole.calls {
            prop_assert!(text.contains(call.raw_arguments.as_str()) || call.parse_warnings.iter().any(|w| w.rule() == "xml_json_tool_call"));
        }
    }
}

#[test]
fn a_tag_is_a_tag_whether_it_arrives_whole_or_cut_after_its_name() {
    // Any ASCII whitespace may follow a tag's name (here a form feed); other whitespace may not.
    let parser = XmlParser::new(&catalog());
    for answer in [
        "<function_calls\x0c><invoke\x0cname=\"tell_user\"><parameter\x0cname=\"message\">hi</parameter></invoke></function_calls>",
        "<function_calls\u{3000}><invoke\u{3000}name=\"tell_user\"></invoke>",
    ] {
        let whole = parser.parse(answer);
        for cut in (0..=answer.len()).filter(|&c| answer.is_char_boundary(c)) {
            assert_eq!(streamed(&parser, answer.as_bytes(), &[cut]), whole, "{answer:?} cut at {cut}");
        }
    }
    let calls: Vec<usize> = ["<invoke\x0cname=\"a\"/>", "<invoke\u{3000}name=\"a\"/>"]
        .iter()
        .map(|a| parser.parse(a).calls.len())
        .collect();
    assert_eq!(calls, [1, 0]);
}

#[test]
fn invalid_utf8_is_read_as_replacement_characters_wherever_the_chunks_are_cut() {
    let parser = XmlParser::new(&catalog());
    let mut bytes = b"<function_calls><invoke name=\"tell_user\"><parameter name=\"message\">a".to_vec();
    bytes.extend_from_slice(&[0xff, 0xe6, 0x98]);
    bytes.extend_from_slice("\u{00e9}</parameter></invoke></function_calls>".as_bytes());
    let whole = parser.parse(&String::from_utf8_lossy(&bytes));
    assert_eq!(whole.calls[0].arguments, Some(json!({"message": "a\u{fffd}\u{fffd}é"})));
    for cut in 0..=bytes.len() {
        assert_eq!(streamed(&parser, &bytes, &[cut]), whole, "cut at {cut}");
    }
}

#[tokio::test]
async fn a_call_cut_by_the_end_of_the_answer_is_refused_with_what_arrived_kept() {
    let answer =
        "Booking now.\n<function_calls>\n<invoke name=\"book_room\">\n<parameter name=\"room\">R1</parameter>\n\
        <parameter name=\"attendees\">[\"ann\", \"bo";
    let response = parse(answer);
    assert_eq!(response.calls.len(), 1);
    let call = &response.calls[0];
    assert_eq!(call.raw_arguments, answer.split_once("<function_calls>\n").unwrap().1);
    assert_eq!(
        calls(&response),
        vec![(
            "book_room",
            json!({"room": "R1", "attendees": "[\"ann\", \"bo"}),
            vec![w(
                "/attendees",
                "xml_unclosed_parameter",
                "`</parameter>`",
                "the end of the answer",
                "ended the value before it"
            )]
        )]
    );
    let error = &call.parse_error.as_ref().unwrap().errors[0];
    assert_eq!((error.rule.as_str(), error.received.as_deref()), ("truncated_call", Some("the end of the answer")));
    // Read chunk by chunk, the same call comes out, refused the same way.
    let bytes = answer.as_bytes();
    assert_eq!(streamed(&XmlParser::new(&catalog()), bytes, &[10, 40, 97]).calls, response.calls);

    let record = Executor::new(catalog()).execute(call.clone()).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert!(matches!(record.failure, Some(tool_core::CallFailure::InvalidArguments)));
    assert_eq!(
        record.content.text,
        "The arguments for `book_room` were not accepted:\n- arguments: expected the whole call, closed by \
         `</invoke>`; got the end of the answer (the answer ended inside the call, so its values may be cut short; \
         it was not run).\nSend the corrected arguments to `book_room` again."
    );
    assert_eq!(record.request.arguments, call.arguments);
}
