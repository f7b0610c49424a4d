//! The prompt side of the forms that live in the prompt alone (Python calls, Llama 3.1's JSON):
//! the tool list and the instructions a host puts in the system message, word for word as the
//! families' chat templates and BFCL write them, so that a small model reads what it was
//! trained or measured on.

use std::io;

use serde_json::ser::{Formatter, PrettyFormatter, Serializer};
use serde_json::{json, Value};

use crate::catalog::ToolCatalog;
use crate::model::ToolDefinition;
use crate::providers::export::{export, ExportError};
use crate::providers::Dialect;

/// Llama 3.2's instructions for Python calls (Meta's pythonic template, as vLLM ships it), in
/// the system message: the tool list follows after a blank line.
pub const PYTHON_INSTRUCTIONS: &str = "You have access to the following functions. To call functions, please respond \
with a python list of the calls. Respond in the format [func_name1(params_name1=params_value1, \
params_name2=params_value2...), func_name2(params)] Do not use variables.";

/// Llama 3.1's instructions for its JSON calls (Meta's template, tools in the system message),
/// quirks kept: no space before `Respond` nor before `Do not`, as the model was trained.
pub const LLAMA_JSON_INSTRUCTIONS: &str = "You have access to the following functions. To call a function, please \
respond with JSON for a function call.Respond in the format {\"name\": function name, \"parameters\": dictionary \
of argument name and its value}.Do not use variables.";

/// The system message Llama 3.2's pythonic template puts after the tools when the host gives
/// none.
pub const PYTHON_DEFAULT_SYSTEM: &str = "You are a helpful assistant with tool calling capabilities. Only reply \
with a tool call if the function exists in the library provided by the user. If it doesn't exist, just reply \
directly in natural language. When you receive a tool call response, use the output to format an answer to the \
original user question.";

/// BFCL's default system prompt for Python calls (`bfcl-eval` 2026.3.23, the `classic` style
/// in plain text, no `<TOOLCALL>` tag), up to its tool list; its quirks kept: no space between
/// the first two sentences, two spaces before `You SHOULD NOT`.
pub const BFCL_PYTHON_INSTRUCTIONS: &str = "You are an expert in composing functions.You are given a question and a \
set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve \
the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters \
required by the function, also point it out.\n\nYou should only return the function calls in your response.\n\n\
If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=\
params_value1, params_name2=params_value2...), func_name2(params)].  You SHOULD NOT include any other text in the \
response.\n\nAt each turn, you should try your best to complete the tasks requested by the user within the current \
turn. Continue to output functions to call until you have fulfilled the user's request to the best of your \
ability. Once you have no more functions to call, the system will consider the current turn complete and proceed \
to the next turn or task.";

/// Whose words a prompt uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PromptStyle {
    /// Llama 3.2's pythonic system message (Llama 3.2 1B/3B, and the Python-call fine-tunes
    /// trained on it): `Environment: ipython`, the dates, [`PYTHON_INSTRUCTIONS`], the tools,
    /// then the host's system text ([`PYTHON_DEFAULT_SYSTEM`] when it gives none).
    LlamaPython,
    /// Llama 3.1 and 3.3's JSON calls: `Environment: ipython`, the dates,
    /// [`LLAMA_JSON_INSTRUCTIONS`], the tools, then the host's system text.
    LlamaJson,
    /// BFCL's prompt for Python calls, the one small models are measured with:
    /// [`BFCL_PYTHON_INSTRUCTIONS`], then the tools as one JSON list, then the host's system
    /// text after a blank line.
    BfclPython,
}

/// The tools as Llama's chat templates write them in the prompt: each
/// `{"type": "function", "function": {"name", "description", "parameters"}}` as JSON indented
/// by four spaces (Python's `json.dumps(indent=4)`, non-ASCII kept), followed by a blank line.
/// `parameters` is the tool's JSON Schema as the JSON Schema dialect exports it; the name is
/// the declared one, dots included, since the model writes it back as it reads it.
///
/// ```
/// use tool_core::prelude::*;
///
/// /// Tell the weather in a city.
/// #[tool]
/// fn get_weather(city: String) -> String {
///     city
/// }
///
/// let text = tool_core::open_models::tools_json([<get_weather as DeclaredTool>::definition()]).unwrap();
/// assert!(text.starts_with("{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"get_weather\",\n"));
/// assert!(text.ends_with("}\n\n"));
/// ```
pub fn tools_json<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Result<String, ExportError> {
    let mut text = String::new();
    for tool in tool_objects(tools)? {
        text.push_str(&python_json_indented(&json!({ "type": "function", "function": tool })));
        text.push_str("\n\n");
    }
    Ok(text)
}

/// `{"name", "description", "parameters"}` for each tool, in the order given.
fn tool_objects<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Result<Vec<Value>, ExportError> {
    let definitions: Vec<&ToolDefinition> = tools.into_iter().collect();
    let exported = export(Dialect::JsonSchema, definitions.iter().copied())?;
    Ok(definitions
        .iter()
        .zip(exported.tools)
        .map(|(definition, tool)| {
            json!({
                "name": definition.name,
                // The export's description: the declared one with the tool's examples appended.
                "description": tool.get("description").cloned().unwrap_or(Value::Null),
                "parameters": tool.get("schema").cloned().unwrap_or(Value::Null),
            })
        })
        .collect())
}

/// A system message that teaches a model the Python calls or Llama's JSON and lists the tools,
/// in the words of a [`PromptStyle`]. The same tools always give the same text, byte for byte.
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::open_models::{OpenModelPrompt, PromptStyle, PYTHON_INSTRUCTIONS};
///
/// let catalog = ToolCatalog::builder().build().unwrap();
/// let prompt = OpenModelPrompt::new(&catalog, PromptStyle::LlamaPython).unwrap().system("You book rooms.").build();
/// assert_eq!(
///     prompt,
///     format!("Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n{PYTHON_INSTRUCTIONS}\n\nYou book rooms.")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenModelPrompt {
    style: PromptStyle,
    tools: Vec<Value>,
    system: Option<String>,
    today: String,
}

impl OpenModelPrompt {
    /// A prompt offering every tool of `catalog`.
    pub fn new(catalog: &ToolCatalog, style: PromptStyle) -> Result<Self, ExportError> {
        Self::for_tools(catalog.definitions(), style)
    }

    /// A prompt offering `tools`, in the order given.
    pub fn for_tools<'a>(
        tools: impl IntoIterator<Item = &'a ToolDefinition>,
        style: PromptStyle,
    ) -> Result<Self, ExportError> {
        Ok(OpenModelPrompt { style, tools: tool_objects(tools)?, system: None, today: "26 Jul 2024".to_owned() })
    }

    /// The host's own system text (role and rules), after the tools; trimmed, as Llama's
    /// templates trim it.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.system = Some(text.into());
        self
    }

    /// The `Today Date:` line of Llama's prompts (`26 Jul 2024` unless set, the templates'
    /// own default), written as the templates write it: `7 Jan 2025`.
    pub fn today(mut self, date: impl Into<String>) -> Self {
        self.today = date.into();
        self
    }

    /// The system message.
    pub fn build(&self) -> String {
        let system = self.system.as_deref().map(str::trim);
        match self.style {
            PromptStyle::LlamaPython | PromptStyle::LlamaJson => {
                let (instructions, default) = match self.style {
                    PromptStyle::LlamaPython => (PYTHON_INSTRUCTIONS, PYTHON_DEFAULT_SYSTEM),
                    _ => (LLAMA_JSON_INSTRUCTIONS, ""),
                };
                let mut text = format!(
                    "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: {}\n\n{instructions}\n\n",
                    self.today
                );
                text.push_str(&self.tool_list());
                text.push_str(system.unwrap_or(default));
                text
            }
            PromptStyle::BfclPython => {
                // BFCL writes the list with `json.dumps(indent=4)`, which escapes non-ASCII.
                let list = ascii_only(&python_json_indented(&Value::Array(self.tools.clone())));
                let mut text = format!(
                    "{BFCL_PYTHON_INSTRUCTIONS}\n\nHere is a list of functions in json format that you can invoke.\n{list}\n"
                );
                if let Some(system) = self.system.as_deref() {
                    text.push_str("\n\n");
                    text.push_str(system);
                }
                text
            }
        }
    }
}

impl OpenModelPrompt {
    /// The first user message with the tools in it, as Llama's templates write it when
    /// `tools_in_user_message` is set (Llama 3.1's default): the instructions in their user
    /// wording, the tools, then the user's own message, trimmed. The system message is then
    /// [`OpenModelPrompt::system_without_tools`]. `None` for BFCL's prompt, which has no such
    /// variant.
    ///
    /// ```
    /// use tool_core::prelude::*;
    /// use tool_core::open_models::{OpenModelPrompt, PromptStyle};
    ///
    /// let catalog = ToolCatalog::builder().build().unwrap();
    /// let prompt = OpenModelPrompt::new(&catalog, PromptStyle::LlamaJson).unwrap();
    /// assert_eq!(
    ///     prompt.user_message(" Weather in Paris? ").unwrap(),
    ///     "Given the following functions, please respond with a JSON for a function call with its proper \
    ///      arguments that best answers the given prompt.\n\nRespond in the format {\"name\": function name, \
    ///      \"parameters\": dictionary of argument name and its value}.Do not use variables.\n\nWeather in Paris?"
    /// );
    /// assert_eq!(prompt.system_without_tools(), "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n");
    /// ```
    pub fn user_message(&self, first_user_message: &str) -> Option<String> {
        let instructions = match self.style {
            PromptStyle::LlamaPython => {
                "Given the following functions, please respond with a python list for function calls with their \
                 proper arguments to best answer the given prompt.\n\nRespond in the format [func_name1(\
                 params_name1=params_value1, params_name2=params_value2...), func_name2(params)] Do not use variables."
            }
            PromptStyle::LlamaJson => {
                "Given the following functions, please respond with a JSON for a function call with its proper \
                 arguments that best answers the given prompt.\n\nRespond in the format {\"name\": function name, \
                 \"parameters\": dictionary of argument name and its value}.Do not use variables."
            }
            PromptStyle::BfclPython => return None,
        };
        Some(format!("{instructions}\n\n{}{}", self.tool_list(), first_user_message.trim()))
    }

    /// The system message that goes with [`OpenModelPrompt::user_message`]: Llama's header
    /// lines and the host's system text, without the tools. For BFCL's prompt, which keeps the
    /// tools in the system message, [`OpenModelPrompt::build`].
    pub fn system_without_tools(&self) -> String {
        let system = self.system.as_deref().map(str::trim);
        let default = match self.style {
            PromptStyle::LlamaPython => PYTHON_DEFAULT_SYSTEM,
            PromptStyle::LlamaJson => "",
            PromptStyle::BfclPython => return self.build(),
        };
        format!(
            "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: {}\n\n{}",
            self.today,
            system.unwrap_or(default)
        )
    }

    /// Each tool as Llama's templates write it, a blank line after each.
    fn tool_list(&self) -> String {
        let mut text = String::new();
        for tool in &self.tools {
            text.push_str(&python_json_indented(&json!({ "type": "function", "function": tool })));
            text.push_str("\n\n");
        }
        text
    }
}

/// `value` as Python's `json.dumps(value, ensure_ascii=False)` writes it (Jinja's `tojson`):
/// `, ` between items and `: ` after keys.
pub(super) fn python_json(value: &Value) -> String {
    write_json(value, SpacedFormatter)
}

/// `value` as Python's `json.dumps(value, indent=4, ensure_ascii=False)` writes it.
fn python_json_indented(value: &Value) -> String {
    write_json(value, PrettyFormatter::with_indent(b"    "))
}

fn write_json<F: Formatter>(value: &Value, formatter: F) -> String {
    let mut out = Vec::new();
    let mut serializer = Serializer::with_formatter(&mut out, formatter);
    // Writing a `Value` to a vector cannot fail, and serde_json writes UTF-8.
    if serde::Serialize::serialize(value, &mut serializer).is_err() {
        return value.to_string();
    }
    String::from_utf8(out).unwrap_or_else(|_| value.to_string())
}

/// Compact JSON with Python's default separators.
struct SpacedFormatter;

impl Formatter for SpacedFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

/// JSON text with every non-ASCII character escaped (`\u00e9`, a surrogate pair beyond the
/// basic plane), as Python's `json.dumps` writes it by default. Outside strings JSON text is
/// ASCII, so only string contents change.
fn ascii_only(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}
