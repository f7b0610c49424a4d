//! Results back: execution records written as each family's chat template writes tool results,
//! special tokens and all, for hosts that build the prompt themselves; the same results as chat
//! messages for hosts that let the model's template do it; and an answer read and run in one
//! call.

use serde::Serialize;
use serde_json::{json, Value};

use super::engine::OpenModelParser;
use super::form::CallForm;
use super::prompt::python_json;
use crate::executor::{ExecutionRecord, Executor};
use crate::model::ParseWarning;
use crate::providers::results::text_alone;

/// How a family's chat template writes the results of its tool calls back into the prompt.
///
/// Each result is the text the model reads ([`ExecutionRecord::model_text`], its content
/// blocks after it, one a line): the tool's output, or for a failed call the message written
/// for the model (what went wrong, what to send instead). [`ResultFormat::render`] gives exactly
/// what the family's template renders from the messages of [`result_messages`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResultFormat {
    /// Llama 3.1 and 3.3 (Meta's template): one `ipython` turn per result, the text as a JSON
    /// string: `<|start_header_id|>ipython<|end_header_id|>\n\n"22C"<|eot_id|>`.
    Llama31,
    /// Llama 3.2's pythonic template: one `ipython` turn per result, the text under `output`:
    /// `<|start_header_id|>ipython<|end_header_id|>\n\n{"output": "22C"}<|eot_id|>`.
    Llama32,
    /// Llama 4: one `ipython` turn per result, the text as a JSON string:
    /// `<|header_start|>ipython<|header_end|>\n\n"22C"<|eot|>`.
    Llama4,
    /// Mistral's tokenizer v3 (Mistral 7B v0.3, Mixtral 8x22B, Nemo):
    /// `[TOOL_RESULTS] {"content": .., "call_id": "a1B2c3D4e"}[/TOOL_RESULTS]`, the content the
    /// JSON the text holds, else the text.
    MistralV3,
    /// Mistral's tokenizers v7 and v11 (Large 2411, Small 3.x, Magistral, Devstral):
    /// `[TOOL_RESULTS]a1B2c3D4e[TOOL_CONTENT]22C[/TOOL_RESULTS]`.
    MistralV7,
    /// Mistral's tokenizer v13, without call ids (results in the calls' order):
    /// `[TOOL_RESULTS]22C[/TOOL_RESULTS]`.
    MistralV13,
    /// DeepSeek V3 and R1: `<｜tool▁outputs▁begin｜>`, each result in
    /// `<｜tool▁output▁begin｜>..<｜tool▁output▁end｜>` (a newline between two), then
    /// `<｜tool▁outputs▁end｜>`.
    DeepSeekV3,
    /// DeepSeek V3.1: each result in `<｜tool▁output▁begin｜>..<｜tool▁output▁end｜>`, nothing
    /// around them.
    DeepSeekV31,
    /// gpt-oss (harmony): one message per result, from the tool to the assistant:
    /// `<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>22C<|end|>`.
    Harmony,
    /// GLM-4.5 to 4.7: `<|observation|>` once, then each result as
    /// `\n<tool_response>\n22C\n</tool_response>`.
    Glm,
    /// Kimi K2: one `tool` message per result, naming the call's id:
    /// `<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\n22C<|im_end|>`.
    Kimi,
    /// Hermes and Qwen (ChatML): one user turn holding every result as
    /// `\n<tool_response>\n22C\n</tool_response>`:
    /// `<|im_start|>user\n<tool_response>\n22C\n</tool_response><|im_end|>\n`.
    Hermes,
}

impl ResultFormat {
    /// Every format.
    pub const ALL: &'static [ResultFormat] = &[
        ResultFormat::Llama31,
        ResultFormat::Llama32,
        ResultFormat::Llama4,
        ResultFormat::MistralV3,
        ResultFormat::MistralV7,
        ResultFormat::MistralV13,
        ResultFormat::DeepSeekV3,
        ResultFormat::DeepSeekV31,
        ResultFormat::Harmony,
        ResultFormat::Glm,
        ResultFormat::Kimi,
        ResultFormat::Hermes,
    ];

    /// The format of the family that wrote `answer` in `form`: the form names the family, and
    /// the answer tells its generation where the form alone cannot (Llama 4's `<|eot|>` or
    /// `<|python_start|>`; Mistral's JSON list after `[TOOL_CALLS]` for v3, `[CALL_ID]` for
    /// v7/v11, neither for v13; DeepSeek V3's `function<｜tool▁sep｜>`).
    ///
    /// ```
    /// use tool_core::open_models::{CallForm, ResultFormat};
    ///
    /// let answer = "<tool_call>get_time\n</tool_call>";
    /// assert_eq!(ResultFormat::for_answer(CallForm::Glm, answer), Some(ResultFormat::Glm));
    /// ```
    pub fn for_answer(form: CallForm, answer: &str) -> Option<ResultFormat> {
        let llama4 = answer.contains("<|eot|>") || answer.contains("<|python_start|>") || answer.contains("<|eom|>");
        let format = match form.name() {
            "python" if llama4 => ResultFormat::Llama4,
            "python" => ResultFormat::Llama32,
            "llama_json" if llama4 => ResultFormat::Llama4,
            "llama_json" => ResultFormat::Llama31,
            "mistral" => {
                let list =
                    answer.split("[TOOL_CALLS]").nth(1).is_some_and(|after| after.trim_start().starts_with(['[', '{']));
                if list {
                    ResultFormat::MistralV3
                } else if answer.contains("[CALL_ID]") {
                    ResultFormat::MistralV7
                } else {
                    ResultFormat::MistralV13
                }
            }
            "deepseek" if answer.contains("function<｜tool▁sep｜>") => ResultFormat::DeepSeekV3,
            "deepseek" => ResultFormat::DeepSeekV31,
            "harmony" => ResultFormat::Harmony,
            "glm" => ResultFormat::Glm,
            "kimi" => ResultFormat::Kimi,
            "hermes" => ResultFormat::Hermes,
            _ => return None,
        };
        Some(format)
    }

    /// The results of `records`, in their order, as the prompt text that follows the
    /// assistant's calls (special tokens written out). No records, no text.
    ///
    /// ```
    /// use tool_core::prelude::*;
    /// use tool_core::open_models::{OpenModelParser, ResultFormat};
    ///
    /// /// Tell the weather in a city.
    /// #[tool]
    /// fn get_weather(city: String) -> String {
    ///     format!("{city}: 22C")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let executor = Executor::new(ToolCatalog::builder().add_declared::<get_weather>().build().unwrap());
    /// let answer = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0\
    ///     <|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>";
    /// let turn = OpenModelParser::new(executor.catalog()).parse_and_execute(&executor, answer).await;
    /// assert_eq!(
    ///     ResultFormat::Kimi.render(&turn.records),
    ///     "<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nParis: 22C<|im_end|>"
    /// );
    /// # }
    /// ```
    pub fn render(self, records: &[ExecutionRecord]) -> String {
        if records.is_empty() {
            return String::new();
        }
        let mut out = String::new();
        match self {
            ResultFormat::DeepSeekV3 => out.push_str("<｜tool▁outputs▁begin｜>"),
            ResultFormat::Glm => out.push_str("<|observation|>"),
            ResultFormat::Hermes => out.push_str("<|im_start|>user"),
            _ => {}
        }
        for (index, record) in records.iter().enumerate() {
            let text = model_reads(record);
            let id = record.request.call_id.as_str();
            let piece = match self {
                ResultFormat::Llama31 => {
                    format!("<|start_header_id|>ipython<|end_header_id|>\n\n{}<|eot_id|>", json_string(&text))
                }
                ResultFormat::Llama32 => format!(
                    "<|start_header_id|>ipython<|end_header_id|>\n\n{}<|eot_id|>",
                    python_json(&json!({ "output": text }))
                ),
                ResultFormat::Llama4 => {
                    format!("<|header_start|>ipython<|header_end|>\n\n{}<|eot|>", json_string(&text))
                }
                ResultFormat::MistralV3 => {
                    // mistral-common sends the JSON a result holds as JSON, other text as a string.
                    let content = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
                    format!(
                        "[TOOL_RESULTS] {}[/TOOL_RESULTS]",
                        python_json(&json!({ "content": content, "call_id": id }))
                    )
                }
                ResultFormat::MistralV7 => format!("[TOOL_RESULTS]{id}[TOOL_CONTENT]{text}[/TOOL_RESULTS]"),
                ResultFormat::MistralV13 => format!("[TOOL_RESULTS]{text}[/TOOL_RESULTS]"),
                ResultFormat::DeepSeekV3 => {
                    let newline = if index == 0 { "" } else { "\n" };
                    format!("{newline}<｜tool▁output▁begin｜>{text}<｜tool▁output▁end｜>")
                }
                ResultFormat::DeepSeekV31 => format!("<｜tool▁output▁begin｜>{text}<｜tool▁output▁end｜>"),
                ResultFormat::Harmony => format!(
                    "<|start|>functions.{} to=assistant<|channel|>commentary<|message|>{text}<|end|>",
                    record.request.tool_name
                ),
                ResultFormat::Glm | ResultFormat::Hermes => format!("\n<tool_response>\n{text}\n</tool_response>"),
                ResultFormat::Kimi => format!("<|im_system|>tool<|im_middle|>## Return of {id}\n{text}<|im_end|>"),
            };
            out.push_str(&piece);
        }
        match self {
            ResultFormat::DeepSeekV3 => out.push_str("<｜tool▁outputs▁end｜>"),
            ResultFormat::Hermes => out.push_str("<|im_end|>\n"),
            _ => {}
        }
        out
    }
}

/// What the model reads of `record`: its text, then its content blocks' text, one a line, a
/// picture or a sound as a placeholder, since these prompts carry text alone.
fn model_reads(record: &ExecutionRecord) -> String {
    text_alone(&record.content, "the model's prompt carries text only")
}

/// `text` as a JSON string, as Jinja's `tojson` writes it (non-ASCII kept).
fn json_string(text: &str) -> String {
    python_json(&Value::String(text.to_owned()))
}

/// The results of `records` as chat messages, one per record:
/// `{"role": "tool", "tool_call_id": .., "content": ..}`, the content the text the model reads
/// (for a failed call, the message written for it). Every family's chat template takes these
/// (Llama's reads `tool` as `ipython`) and writes them as [`ResultFormat::render`] does.
pub fn result_messages(records: &[ExecutionRecord]) -> Vec<Value> {
    records
        .iter()
        .map(|record| {
            json!({
                "role": "tool",
                "tool_call_id": record.request.call_id,
                "content": model_reads(record),
            })
        })
        .collect()
}

/// An open model's answer read and its calls run.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct OpenModelTurn {
    /// The answer's form (see [`OpenModelResponse::form`](super::OpenModelResponse::form)).
    pub form: Option<CallForm>,
    /// The model's own words (see [`OpenModelResponse::text`](super::OpenModelResponse::text)).
    pub text: String,
    /// One record per call, in the answer's order.
    pub records: Vec<ExecutionRecord>,
    /// What concerns the answer's structure rather than one call.
    pub warnings: Vec<ParseWarning>,
    /// How the family that wrote the answer takes its results
    /// ([`ResultFormat::for_answer`]); `None` when the answer shows no form.
    pub result_format: Option<ResultFormat>,
    /// The records in that format, ready to append to the prompt (empty without calls).
    pub results: String,
}

impl OpenModelTurn {
    /// The records as chat messages ([`result_messages`]).
    pub fn messages(&self) -> Vec<Value> {
        result_messages(&self.records)
    }
}

impl OpenModelParser {
    /// Reads `answer` and runs its calls on `executor` (in parallel, up to its concurrency),
    /// returning the records in the answer's order and their results written for the family
    /// that wrote the answer. A call that could not be read well enough to run (an unknown
    /// tool, arguments its tool refuses, a call the end of the answer cut) is a failed record
    /// whose text tells the model what to fix.
    pub async fn parse_and_execute(&self, executor: &Executor, answer: &str) -> OpenModelTurn {
        let response = self.parse(answer);
        let records = executor.execute_batch(response.calls).await;
        let result_format = response.form.and_then(|form| ResultFormat::for_answer(form, answer));
        let results = result_format.map(|format| format.render(&records)).unwrap_or_default();
        OpenModelTurn {
            form: response.form,
            text: response.text,
            records,
            warnings: response.warnings,
            result_format,
            results,
        }
    }
}
