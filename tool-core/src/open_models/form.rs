//! The forms open models write their calls in.

use serde::Serialize;

/// A form of tool-call text, named for the families trained on it.
///
/// [`CallForm::ALL`] is in the order [`OpenModelParser`](super::OpenModelParser) tries the forms when none is named:
/// the forms marked by special tokens first, then the tag forms, then the two that are plain
/// text (Python calls and Llama's JSON), which need more evidence before they claim a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallForm {
    /// Hermes, Qwen 2.5 and Qwen3: `<tool_call>{"name": .., "arguments": {..}}</tool_call>`;
    /// Qwen3-Coder's `<tool_call><function=name><parameter=key>..`; and this crate's
    /// `<function_calls>`. Read by the XML reader ([`crate::xml::XmlParser`]).
    Hermes,
    /// Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.name:0`
    /// `<|tool_call_argument_begin|>{..}<|tool_call_end|><|tool_calls_section_end|>`.
    Kimi,
    /// GLM-4.5 to 4.7: `<tool_call>name<arg_key>key</arg_key><arg_value>value</arg_value></tool_call>`,
    /// each value text, typed by its declared parameter.
    Glm,
    /// DeepSeek V3 and R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name`
    /// and the arguments in a `` ```json `` fence; V3.1: `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{..}`.
    DeepSeek,
    /// Mistral: `[TOOL_CALLS] [{"name": .., "arguments": {..}, "id": ..}]` before v11,
    /// `[TOOL_CALLS]name[CALL_ID]id[ARGS]{..}` from v11 on.
    Mistral,
    /// Llama 3.1, 3.3 and 4: `{"name": .., "parameters": {..}}`, after `<|python_tag|>` or
    /// alone, several separated by `;`.
    LlamaJson,
    /// gpt-oss's harmony messages: `<|start|>assistant<|channel|>commentary to=functions.name`
    /// ` <|constrain|>json<|message|>{..}<|call|>`; the other messages' text is the model's words.
    Harmony,
    /// Python calls ("pythonic": Llama 3.2 and 4, BFCL's prompts, many fine-tunes):
    /// `[get_weather(city="Paris", days=3), get_time(tz='CET')]`, the values Python literals.
    Python,
}

impl CallForm {
    /// Every form, in the order they are tried when none is named.
    pub const ALL: &'static [CallForm] = &[
        CallForm::Kimi,
        CallForm::Harmony,
        CallForm::DeepSeek,
        CallForm::Mistral,
        CallForm::Glm,
        CallForm::Hermes,
        CallForm::Python,
        CallForm::LlamaJson,
    ];

    /// Whether the form is written in plain text, without special tokens or tags of its own
    /// (Python calls, Llama's JSON).
    pub fn is_plain_text(self) -> bool {
        matches!(self, CallForm::Python | CallForm::LlamaJson)
    }

    /// The form's stable name (`python`, `llama_json`, `kimi`...), as in `docs/open-models.md`.
    pub fn name(self) -> &'static str {
        match self {
            CallForm::Kimi => "kimi",
            CallForm::Hermes => "hermes",
            CallForm::Glm => "glm",
            CallForm::DeepSeek => "deepseek",
            CallForm::Mistral => "mistral",
            CallForm::LlamaJson => "llama_json",
            CallForm::Harmony => "harmony",
            CallForm::Python => "python",
        }
    }

    /// The form named `name` (see [`CallForm::name`]).
    pub fn from_name(name: &str) -> Option<CallForm> {
        CallForm::ALL.iter().copied().find(|form| form.name() == name)
    }
}

impl std::fmt::Display for CallForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
