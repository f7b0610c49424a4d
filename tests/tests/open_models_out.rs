//! Open models, out and back: the system message of the prompt-only forms (Llama 3.2's Python
//! calls, Llama 3.1's JSON, BFCL's prompt) word for word, and the results of executed calls
//! written as each family's chat template writes them, special tokens and all.

use serde_json::{json, Value};
use tool_core::open_models::{
    result_messages, tools_json, CallForm, OpenModelParser, OpenModelPrompt, PromptStyle, ResultFormat,
    BFCL_PYTHON_INSTRUCTIONS, LLAMA_JSON_INSTRUCTIONS, PYTHON_DEFAULT_SYSTEM, PYTHON_INSTRUCTIONS,
};
use tool_core::prelude::*;

/// Tell the weather in a city.
#[tool]
fn get_weather(
    /// The city.
    city: String,
    /// How many days ahead.
    days: Option<u32>,
) -> String {
    format!("{city}: 22C for {} days", days.unwrap_or(1))
}

/// Tell the time in a zone.
#[tool(name = "clock.now")]
fn clock_now(
    /// The zone, as `Europe/Paris`.
    tz: String,
) -> Json<Value> {
    Json(json!({"tz": tz, "time": "12:00"}))
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder().add_declared::<get_weather>().add_declared::<clock_now>().build().unwrap()
}

/// The tool list as Llama's templates write it (`tojson(indent=4)`, a blank line after each).
const TOOLS: &str = r#"{
    "type": "function",
    "function": {
        "name": "clock.now",
        "description": "Tell the time in a zone.",
        "parameters": {
            "type": "object",
            "properties": {
                "tz": {
                    "type": "string",
                    "description": "The zone, as `Europe/Paris`."
                }
            },
            "required": [
                "tz"
            ]
        }
    }
}

{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Tell the weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {
                    "type": "string",
                    "description": "The city."
                },
                "days": {
                    "type": [
                        "integer",
                        "null"
                    ],
                    "description": "How many days ahead.",
                    "minimum": 0
                }
            },
            "required": [
                "city"
            ]
        }
    }
}

"#;

#[test]
fn the_tool_list_is_each_tool_as_llamas_template_writes_it() {
    let catalog = catalog();
    assert_eq!(tools_json(catalog.definitions()).unwrap(), TOOLS);
    assert_eq!(tools_json(catalog.definitions()).unwrap(), tools_json(catalog.definitions()).unwrap());
    assert_eq!(tools_json([]).unwrap(), "");
}

#[test]
fn llama_3_2s_python_prompt_is_its_templates_system_message() {
    let catalog = catalog();
    let header = "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n";
    let prompt = OpenModelPrompt::new(&catalog, PromptStyle::LlamaPython).unwrap();
    assert_eq!(prompt.build(), format!("{header}{PYTHON_INSTRUCTIONS}\n\n{TOOLS}{PYTHON_DEFAULT_SYSTEM}"));
    assert_eq!(
        PYTHON_INSTRUCTIONS,
        "You have access to the following functions. To call functions, please respond with a python list of the \
         calls. Respond in the format [func_name1(params_name1=params_value1, params_name2=params_value2...), \
         func_name2(params)] Do not use variables."
    );
    let prompt = prompt.system("  You plan trips.\n").today("7 Jan 2025").build();
    assert_eq!(
        prompt,
        format!(
            "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 7 Jan 2025\n\n\
             {PYTHON_INSTRUCTIONS}\n\n{TOOLS}You plan trips."
        )
    );
}

#[test]
fn llama_3_1s_json_prompt_keeps_the_official_wording_quirks_included() {
    let catalog = catalog();
    assert_eq!(
        LLAMA_JSON_INSTRUCTIONS,
        "You have access to the following functions. To call a function, please respond with JSON for a function \
         call.Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its \
         value}.Do not use variables."
    );
    let prompt = OpenModelPrompt::new(&catalog, PromptStyle::LlamaJson).unwrap().build();
    assert_eq!(
        prompt,
        format!(
            "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n\
             {LLAMA_JSON_INSTRUCTIONS}\n\n{TOOLS}"
        )
    );
}

#[test]
fn bfcls_prompt_lists_the_tools_as_one_json_list_with_non_ascii_escaped() {
    let tool = DynamicTool::builder("meteo")
        .description("Le temps à Zürich 🌤.")
        .input_schema(json!({"type": "object", "properties": {}}))
        .handler(|_, _| async { ToolOutput::text("") })
        .build()
        .unwrap();
    let prompt = OpenModelPrompt::for_tools([tool.definition()], PromptStyle::BfclPython).unwrap();
    let list = "[\n    {\n        \"name\": \"meteo\",\n        \"description\": \"Le temps \\u00e0 \
                Z\\u00fcrich \\ud83c\\udf24.\",\n        \"parameters\": {\n            \"type\": \"object\",\n            \
                \"properties\": {}\n        }\n    }\n]";
    let expected = format!(
        "{BFCL_PYTHON_INSTRUCTIONS}\n\nHere is a list of functions in json format that you can invoke.\n{list}\n"
    );
    assert_eq!(prompt.build(), expected);
    assert_eq!(prompt.clone().system("Answer in French.").build(), format!("{expected}\n\nAnswer in French."));
    assert!(BFCL_PYTHON_INSTRUCTIONS.starts_with("You are an expert in composing functions.You are given a question"));
    assert!(BFCL_PYTHON_INSTRUCTIONS.contains("func_name2(params)].  You SHOULD NOT include any other text"));
}

/// Runs three calls: one that succeeds with text, one with a structured result, and one to a
/// tool that does not exist (its record is the message written for the model).
async fn records() -> Vec<ExecutionRecord> {
    let executor = Executor::new(catalog());
    let calls = vec![
        ToolCallRequest::new("get_weather", "a1B2c3D4e", r#"{"city": "Zürich", "days": 2}"#),
        ToolCallRequest::new("clock.now", "functions.clock.now:1", r#"{"tz": "Europe/Paris"}"#),
        ToolCallRequest::new("get_wether", "Zz9Yy8Xx7", r#"{"city": "Oslo"}"#),
    ];
    executor.execute_batch(calls).await
}

const FAILED: &str =
    "There is no tool named `get_wether`. The closest existing tools are: `get_weather`. Call one of them instead.";

#[tokio::test]
async fn the_records_are_what_the_results_are_rendered_from() {
    let records = records().await;
    assert_eq!(records[0].model_text(), "Zürich: 22C for 2 days");
    assert_eq!(records[1].model_text(), r#"{"tz":"Europe/Paris","time":"12:00"}"#);
    assert!(records[2].is_error());
    assert_eq!(records[2].model_text(), FAILED);
}

#[tokio::test]
async fn llama_results_are_ipython_turns() {
    let records = records().await;
    assert_eq!(
        ResultFormat::Llama32.render(&records),
        "<|start_header_id|>ipython<|end_header_id|>\n\n{\"output\": \"Zürich: 22C for 2 days\"}<|eot_id|>\
         <|start_header_id|>ipython<|end_header_id|>\n\n{\"output\": \"{\\\"tz\\\":\\\"Europe/Paris\\\",\\\"time\\\":\\\"12:00\\\"}\"}<|eot_id|>\
         <|start_header_id|>ipython<|end_header_id|>\n\n{\"output\": \"There is no tool named `get_wether`. The closest existing tools are: `get_weather`. Call one of them instead.\"}<|eot_id|>"
    );
    assert_eq!(
        ResultFormat::Llama31.render(&records[..1]),
        "<|start_header_id|>ipython<|end_header_id|>\n\n\"Zürich: 22C for 2 days\"<|eot_id|>"
    );
    assert_eq!(
        ResultFormat::Llama4.render(&records[2..]),
        "<|header_start|>ipython<|header_end|>\n\n\"There is no tool named `get_wether`. The closest existing tools are: `get_weather`. Call one of them instead.\"<|eot|>"
    );
}

#[tokio::test]
async fn mistral_results_in_each_tokenizer_generation() {
    let records = records().await;
    assert_eq!(
        ResultFormat::MistralV3.render(&records[..2]),
        "[TOOL_RESULTS] {\"content\": \"Zürich: 22C for 2 days\", \"call_id\": \"a1B2c3D4e\"}[/TOOL_RESULTS]\
         [TOOL_RESULTS] {\"content\": {\"tz\": \"Europe/Paris\", \"time\": \"12:00\"}, \"call_id\": \"functions.clock.now:1\"}[/TOOL_RESULTS]"
    );
    assert_eq!(
        ResultFormat::MistralV7.render(&records[2..]),
        format!("[TOOL_RESULTS]Zz9Yy8Xx7[TOOL_CONTENT]{FAILED}[/TOOL_RESULTS]")
    );
    assert_eq!(ResultFormat::MistralV13.render(&records[..1]), "[TOOL_RESULTS]Zürich: 22C for 2 days[/TOOL_RESULTS]");
}

#[tokio::test]
async fn deepseek_results_with_and_without_the_outer_tokens() {
    let records = records().await;
    assert_eq!(
        ResultFormat::DeepSeekV3.render(&records[1..]),
        format!(
            "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>{{\"tz\":\"Europe/Paris\",\"time\":\"12:00\"}}<｜tool▁output▁end｜>\
             \n<｜tool▁output▁begin｜>{FAILED}<｜tool▁output▁end｜><｜tool▁outputs▁end｜>"
        )
    );
    assert_eq!(
        ResultFormat::DeepSeekV31.render(&records[..1]),
        "<｜tool▁output▁begin｜>Zürich: 22C for 2 days<｜tool▁output▁end｜>"
    );
}

#[tokio::test]
async fn harmony_glm_kimi_and_hermes_results() {
    let records = records().await;
    assert_eq!(
        ResultFormat::Harmony.render(&records[..1]),
        "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>Zürich: 22C for 2 days<|end|>"
    );
    assert_eq!(
        ResultFormat::Glm.render(&records[..2]),
        "<|observation|>\n<tool_response>\nZürich: 22C for 2 days\n</tool_response>\
         \n<tool_response>\n{\"tz\":\"Europe/Paris\",\"time\":\"12:00\"}\n</tool_response>"
    );
    assert_eq!(
        ResultFormat::Kimi.render(&records[1..2]),
        "<|im_system|>tool<|im_middle|>## Return of functions.clock.now:1\n{\"tz\":\"Europe/Paris\",\"time\":\"12:00\"}<|im_end|>"
    );
    assert_eq!(
        ResultFormat::Hermes.render(&records[..1]),
        "<|im_start|>user\n<tool_response>\nZürich: 22C for 2 days\n</tool_response><|im_end|>\n"
    );
    assert_eq!(
        ResultFormat::Hermes.render(&records[1..]),
        format!(
            "<|im_start|>user\n<tool_response>\n{{\"tz\":\"Europe/Paris\",\"time\":\"12:00\"}}\n</tool_response>\
             \n<tool_response>\n{FAILED}\n</tool_response><|im_end|>\n"
        )
    );
}

#[tokio::test]
async fn no_records_no_text_in_any_format() {
    for format in ResultFormat::ALL {
        assert_eq!(format.render(&[]), "", "{format:?}");
    }
    assert!(result_messages(&[]).is_empty());
}

#[tokio::test]
async fn a_result_with_content_blocks_carries_their_text_after_its_own() {
    /// Read a note.
    #[tool]
    fn read_note() -> ToolOutput {
        ToolOutput::text("the note").with_image(b"\x89PNG", "image/png")
    }
    let executor = Executor::new(ToolCatalog::builder().add_declared::<read_note>().build().unwrap());
    let records = executor.execute_batch(vec![ToolCallRequest::new("read_note", "n1", "{}")]).await;
    let rendered = ResultFormat::MistralV13.render(&records);
    assert_eq!(
        rendered,
        "[TOOL_RESULTS]the note\n[image: image/png, 4 bytes, not shown: the model's prompt carries text only][/TOOL_RESULTS]"
    );
}

#[tokio::test]
async fn the_results_as_chat_messages_for_a_models_own_template() {
    let records = records().await;
    assert_eq!(
        result_messages(&records),
        vec![
            json!({"role": "tool", "tool_call_id": "a1B2c3D4e", "content": "Zürich: 22C for 2 days"}),
            json!({"role": "tool", "tool_call_id": "functions.clock.now:1", "content": "{\"tz\":\"Europe/Paris\",\"time\":\"12:00\"}"}),
            json!({"role": "tool", "tool_call_id": "Zz9Yy8Xx7", "content": FAILED}),
        ]
    );
}

#[tokio::test]
async fn a_kimi_answer_read_and_run_comes_back_in_kimis_form() {
    let executor = Executor::new(catalog());
    let answer = "Let me look.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0\
        <|tool_call_argument_begin|>{\"city\": \"Paris\", \"days\": \"3\"}<|tool_call_end|>\
        <|tool_call_begin|>functions.get_wether:1<|tool_call_argument_begin|>{\"city\": \"Oslo\"}<|tool_call_end|>\
        <|tool_calls_section_end|><|im_end|>";
    let turn = OpenModelParser::new(executor.catalog()).parse_and_execute(&executor, answer).await;
    assert_eq!(turn.form, Some(CallForm::Kimi));
    assert_eq!(turn.text, "Let me look.");
    assert_eq!(turn.result_format, Some(ResultFormat::Kimi));
    assert_eq!(turn.records.len(), 2);
    let warnings: Vec<(&str, &str)> = turn.records[0].warnings().iter().map(|w| (w.rule(), w.pointer())).collect();
    assert_eq!(warnings, vec![("string_to_integer", "/days")]);
    assert_eq!(
        turn.results,
        "<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nParis: 22C for 3 days<|im_end|>\
         <|im_system|>tool<|im_middle|>## Return of functions.get_wether:1\nThere is no tool named `get_wether`. The closest existing tools are: `get_weather`. Call one of them instead.<|im_end|>"
    );
    assert_eq!(turn.messages(), result_messages(&turn.records));
    assert!(turn.warnings.is_empty());
}

#[tokio::test]
async fn a_glm_answer_read_and_run_comes_back_as_an_observation() {
    let executor = Executor::new(catalog());
    let answer =
        "<think></think>\n<tool_call>clock.now\n<arg_key>tz</arg_key>\n<arg_value>Asia/Tokyo</arg_value>\n</tool_call>";
    let turn = OpenModelParser::new(executor.catalog()).parse_and_execute(&executor, answer).await;
    assert_eq!(turn.form, Some(CallForm::Glm));
    assert_eq!(turn.result_format, Some(ResultFormat::Glm));
    assert_eq!(
        turn.results,
        "<|observation|>\n<tool_response>\n{\"tz\":\"Asia/Tokyo\",\"time\":\"12:00\"}\n</tool_response>"
    );
}

#[tokio::test]
async fn a_cut_call_is_refused_and_its_refusal_goes_back_to_the_model() {
    let executor = Executor::new(catalog());
    let answer = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0\
        <|tool_call_argument_begin|>{\"city\": \"Par";
    let turn = OpenModelParser::new(executor.catalog()).parse_and_execute(&executor, answer).await;
    assert_eq!(turn.form, Some(CallForm::Kimi));
    assert_eq!(turn.records.len(), 1);
    assert!(turn.records[0].is_error());
    let refusal = turn.records[0].model_text().to_owned();
    assert!(refusal.contains("truncated_call") || refusal.contains("ended"), "{refusal}");
    assert_eq!(
        turn.results,
        format!("<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\n{refusal}<|im_end|>")
    );
}

#[tokio::test]
async fn an_answer_without_calls_has_no_results() {
    let executor = Executor::new(catalog());
    let turn = OpenModelParser::new(executor.catalog()).parse_and_execute(&executor, "It is sunny.<|eot_id|>").await;
    assert_eq!(turn.form, None);
    assert_eq!(turn.text, "It is sunny.");
    assert!(turn.records.is_empty());
    assert_eq!(turn.result_format, None);
    assert_eq!(turn.results, "");
}

#[test]
fn the_result_format_follows_the_form_and_the_answers_own_marks() {
    assert_eq!(ResultFormat::for_answer(CallForm::Kimi, ""), Some(ResultFormat::Kimi));
    assert_eq!(ResultFormat::for_answer(CallForm::Glm, ""), Some(ResultFormat::Glm));
    assert_eq!(ResultFormat::for_answer(CallForm::Hermes, ""), Some(ResultFormat::Hermes));
    // The forms other readers add, by name.
    let cases = [
        ("python", "[get_weather(city=\"Paris\")]<|eot_id|>", ResultFormat::Llama32),
        ("python", "<|python_start|>[get_weather(city=\"Paris\")]<|python_end|><|eot|>", ResultFormat::Llama4),
        (
            "llama_json",
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {}}<|eom_id|>",
            ResultFormat::Llama31,
        ),
        ("mistral", "[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {}}]</s>", ResultFormat::MistralV3),
        ("mistral", "[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{}</s>", ResultFormat::MistralV7),
        ("mistral", "[TOOL_CALLS]get_weather[ARGS]{}</s>", ResultFormat::MistralV13),
        (
            "deepseek",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{}\n```",
            ResultFormat::DeepSeekV3,
        ),
        (
            "deepseek",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{}",
            ResultFormat::DeepSeekV31,
        ),
        (
            "harmony",
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{}<|call|>",
            ResultFormat::Harmony,
        ),
    ];
    for (name, answer, format) in cases {
        if let Some(form) = CallForm::from_name(name) {
            assert_eq!(ResultFormat::for_answer(form, answer), Some(format), "{name}: {answer}");
        }
    }
}

#[test]
fn llamas_tools_can_go_in_the_first_user_message_instead() {
    let catalog = catalog();
    let header = "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n";
    let json = OpenModelPrompt::new(&catalog, PromptStyle::LlamaJson).unwrap();
    assert_eq!(
        json.user_message("  What is the weather in Paris?\n").unwrap(),
        format!(
            "Given the following functions, please respond with a JSON for a function call with its proper arguments \
             that best answers the given prompt.\n\nRespond in the format {{\"name\": function name, \"parameters\": \
             dictionary of argument name and its value}}.Do not use variables.\n\n{TOOLS}What is the weather in Paris?"
        )
    );
    assert_eq!(json.system_without_tools(), header);
    let python = OpenModelPrompt::new(&catalog, PromptStyle::LlamaPython).unwrap();
    assert_eq!(
        python.user_message("Weather in Oslo?").unwrap(),
        format!(
            "Given the following functions, please respond with a python list for function calls with their proper \
             arguments to best answer the given prompt.\n\nRespond in the format [func_name1(params_name1=\
             params_value1, params_name2=params_value2...), func_name2(params)] Do not use variables.\n\n{TOOLS}\
             Weather in Oslo?"
        )
    );
    assert_eq!(python.system_without_tools(), format!("{header}{PYTHON_DEFAULT_SYSTEM}"));
    assert_eq!(python.clone().system("Be brief.").system_without_tools(), format!("{header}Be brief."));
    let bfcl = OpenModelPrompt::new(&catalog, PromptStyle::BfclPython).unwrap();
    assert_eq!(bfcl.user_message("Weather in Oslo?"), None);
    assert_eq!(bfcl.system_without_tools(), bfcl.build());
}

#[tokio::test]
async fn a_python_answer_read_and_run_comes_back_as_llama_3_2s_ipython_turn() {
    let executor = Executor::new(catalog());
    // A small model's Python calls, a number in quotes, a dotted name.
    let answer = "<|python_tag|>[get_weather(city=\"Zürich\", days=\"2\"), clock.now(tz='Europe/Paris')]<|eot_id|>";
    let turn =
        OpenModelParser::new(executor.catalog()).form(CallForm::Python).parse_and_execute(&executor, answer).await;
    assert_eq!(turn.form, Some(CallForm::Python));
    assert_eq!(turn.result_format, Some(ResultFormat::Llama32));
    let warnings: Vec<(&str, &str)> = turn.records[0].warnings().iter().map(|w| (w.rule(), w.pointer())).collect();
    assert_eq!(warnings, vec![("string_to_integer", "/days")]);
    assert_eq!(
        turn.results,
        "<|start_header_id|>ipython<|end_header_id|>\n\n{\"output\": \"Zürich: 22C for 2 days\"}<|eot_id|>\
         <|start_header_id|>ipython<|end_header_id|>\n\n{\"output\": \"{\\\"tz\\\":\\\"Europe/Paris\\\",\\\"time\\\":\\\"12:00\\\"}\"}<|eot_id|>"
    );
    let llama4 = "<|python_start|>[clock.now(tz=\"UTC\")]<|python_end|><|eot|>";
    let turn = OpenModelParser::new(executor.catalog()).parse_and_execute(&executor, llama4).await;
    assert_eq!(turn.form, Some(CallForm::Python));
    assert_eq!(
        turn.results,
        "<|header_start|>ipython<|header_end|>\n\n\"{\\\"tz\\\":\\\"UTC\\\",\\\"time\\\":\\\"12:00\\\"}\"<|eot|>"
    );
}

/// Found by the `open_models` fuzz target: what waits at the end of a chunk (`{` may open
/// Llama's JSON) can be settled only by the answer's end, which then shows an XML form behind
/// it; the XML reader handed the rest must be ended too, or its call is lost read whole.
#[test]
fn an_xml_call_shown_only_at_the_answers_end_is_read_whole_as_streamed() {
    let parser = OpenModelParser::new(&catalog());
    for answer in ["{\"\"<function=get_weather>", "{\"\"<function_calls>"] {
        let whole = parser.parse(answer);
        for step in [1, 3, 100] {
            let mut stream = parser.stream();
            let mut events = Vec::new();
            for chunk in answer.as_bytes().chunks(step) {
                events.extend(stream.feed_bytes(chunk));
            }
            events.extend(stream.finish());
            assert_eq!(tool_core::open_models::OpenModelResponse::from_events(events), whole, "{answer:?} by {step}");
        }
        assert_eq!(whole.form, Some(CallForm::Hermes));
        assert_eq!(whole.text, "{\"\"");
    }
    let whole = parser.parse("{\"\"<function=get_weather>");
    assert_eq!(whole.calls.len(), 1);
    assert_eq!(whole.calls[0].tool_name, "get_weather");
    assert_eq!(whole.calls[0].parse_error.as_ref().unwrap().errors[0].rule, "truncated_call");
    let whole = parser.parse("{\"\"<function_calls>");
    let rules: Vec<&str> = whole.warnings.iter().map(|w| w.rule()).collect();
    assert_eq!(rules, ["xml_unclosed_block"]);
}
