//! The tool-call text open models write in the forms they were trained on, read by the
//! declared types: Python calls (`[get_weather(city="Paris")]`), Llama 3.1's JSON, Mistral's
//! `[TOOL_CALLS]` (both generations), DeepSeek's and Kimi K2's special tokens, gpt-oss's
//! harmony headers, GLM-4.5's `<arg_key>` pairs, and the Hermes/Qwen `<tool_call>` forms the
//! XML reader already knows.
//!
//! - In: [`OpenModelParser`] reads a whole answer ([`OpenModelParser::parse`]) or a streamed
//!   one ([`OpenModelParser::stream`]) in a form the host names ([`OpenModelParser::form`]) or
//!   in the first one the answer shows; [`detect`] names the forms an answer holds.
//! - Out: for the forms that live in the prompt alone (Python calls, Llama's JSON), the tool
//!   list and instructions of the system message ([`OpenModelPrompt`], [`tools_json`]).
//! - Results back: [`OpenModelParser::parse_and_execute`], and the records written as each
//!   family takes them ([`ResultFormat`]) or as chat messages ([`result_messages`]).
//!
//! Every form, the families that write it and what each warning means: `docs/open-models.md`.

mod form; // the forms
mod reader; // what a form's reader is given and gives back
mod request; // a call a reader found made into a `ToolCallRequest`
mod tokens; // the special tokens that are neither words nor calls
mod engine; // the parser and its stream: text, calls and warnings in the answer's order
mod detect; // which forms an answer holds
mod glm; // GLM-4.5 to 4.7: `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>`
mod harmony; // gpt-oss: `<|channel|>commentary to=functions.name <|constrain|>json<|message|>{..}<|call|>`
mod hermes; // the forms the XML reader reads (Hermes, Qwen, Qwen3-Coder), its reader
mod kimi; // Kimi K2: `<|tool_calls_section_begin|>` .. `<|tool_call_end|>`
mod json_extent; // where a JSON object the model wrote ends, scanned as it arrives
mod json; // the forms whose calls are JSON objects, one reader: Llama 3.1 to 4, Mistral
mod deepseek; // DeepSeek V3, R1, V3.1: `<｜tool▁call▁begin｜>` .. `<｜tool▁call▁end｜>`
mod python; // Python calls: `[get_weather(city="Paris", days=3)]`
mod prompt; // the system message of the prompt-only forms: instructions and tool list
mod results; // results back in each family's form; parse and execute

pub use detect::detect;
pub use engine::{OpenModelEvent, OpenModelParser, OpenModelResponse, OpenModelStream};
pub use form::CallForm;
pub use prompt::{
    tools_json, OpenModelPrompt, PromptStyle, BFCL_PYTHON_INSTRUCTIONS, LLAMA_JSON_INSTRUCTIONS, PYTHON_DEFAULT_SYSTEM,
    PYTHON_INSTRUCTIONS,
};
pub use results::{result_messages, OpenModelTurn, ResultFormat};
