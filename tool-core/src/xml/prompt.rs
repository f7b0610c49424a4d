//! The prompt side of the protocol: the `<functions>` block that lists the tools, the output
//! instructions that teach the call format, and a builder that puts them together with the
//! host's own parts.

use serde_json::{Map, Value};

use crate::catalog::ToolCatalog;
use crate::model::ToolDefinition;
use crate::providers::export::{export, ExportError};
use crate::providers::Dialect;

/// How to call tools, in English: the format, several invokes in one block, exact names,
/// required parameters, and how values are written.
pub const OUTPUT_INSTRUCTIONS: &str = r#"<output_instructions>
To call tools, answer in this format:
<function_calls>
<invoke name="TOOL_NAME">
<parameter name="PARAMETER_NAME">VALUE</parameter>
<parameter name="ANOTHER_PARAMETER_NAME">VALUE</parameter>
</invoke>
</function_calls>
To call several tools, put several invoke blocks in one function_calls block.
If no tool is needed, answer the user directly.
Notes:
- Tool names must match a name in <functions> exactly.
- Parameter names must match the tool's definition exactly.
- Required parameters cannot be left out.
- Write strings as they are, and lists and objects as JSON.
</output_instructions>"#;

/// The same output instructions, in Chinese.
pub const OUTPUT_INSTRUCTIONS_ZH: &str = r#"<output_instructions>
如果需要调用工具，请使用以下格式：
<function_calls>
<invoke name="工具名称">
<parameter name="参数名">参数值</parameter>
<parameter name="另一个参数名">另一个参数值</parameter>
</invoke>
</function_calls>
如果需要调用多个工具，可以在 function_calls 中包含多个 invoke 块。
如果不需要调用工具，直接回复用户即可。
注意：
- 工具名称必须精确匹配 functions 中定义的名称
- 参数名必须精确匹配工具定义中的参数名
- 必需的参数不能省略
</output_instructions>"#;

/// The `<functions>` block for `tools`, in the order given: one
/// `<function>{"description","name","parameters"}</function>` line per tool, where
/// `parameters` is the tool's JSON Schema as the JSON Schema dialect exports it. The same
/// tools always give the same text, byte for byte.
///
/// A `</` inside the JSON (a description that mentions `</function>`) is written `<\/`, which
/// JSON reads as the same text and which cannot close the block.
///
/// ```
/// use tool_core::prelude::*;
///
/// /// Check whether a room is free.
/// #[tool]
/// fn check_availability(
///     /// The room's name.
///     room: String,
/// ) -> bool {
///     room.is_empty()
/// }
///
/// let block = tool_core::xml::functions_block([<check_availability as DeclaredTool>::definition()]).unwrap();
/// assert!(block.starts_with("<functions>\n<function>{\"description\":\"Check whether a room is free.\",\"name\":\"check_availability\",\"parameters\":{"));
/// assert!(block.ends_with("}</function>\n</functions>"));
/// ```
pub fn functions_block<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Result<String, ExportError> {
    let definitions: Vec<&ToolDefinition> = tools.into_iter().collect();
    let exported = export(Dialect::JsonSchema, definitions.iter().copied())?;
    let mut block = String::from("<functions>\n");
    for (definition, tool) in definitions.iter().zip(exported.tools) {
        let mut function = Map::new();
        // The export's description: the declared one with the tool's examples appended.
        function.insert("description".into(), tool.get("description").cloned().unwrap_or(Value::Null));
        function.insert("name".into(), definition.name.clone().into());
        function.insert("parameters".into(), tool.get("schema").cloned().unwrap_or(Value::Null));
        block.push_str("<function>");
        block.push_str(&embedded_json(&Value::Object(function)));
        block.push_str("</function>\n");
    }
    block.push_str("</functions>");
    Ok(block)
}

/// `value` as compact JSON that cannot close the tag it sits in.
pub(super) fn embedded_json(value: &Value) -> String {
    value.to_string().replace("</", "<\\/")
}

/// A whole prompt in this order: the system instructions, the `<functions>` block, the
/// history's events (one JSON line each), and the output instructions, separated by blank
/// lines. Every part can be replaced, and each is also available on its own
/// ([`functions_block`], [`OUTPUT_INSTRUCTIONS`], [`tool_result_event`](super::tool_result_event)).
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::xml::{XmlPrompt, OUTPUT_INSTRUCTIONS};
///
/// let catalog = ToolCatalog::builder().build().unwrap();
/// let prompt = XmlPrompt::new(&catalog).unwrap().system("You book meeting rooms.").build();
/// assert_eq!(prompt, format!("You book meeting rooms.\n\n<functions>\n</functions>\n\n{OUTPUT_INSTRUCTIONS}"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlPrompt {
    system: String,
    functions: String,
    events: Vec<String>,
    output: String,
}

impl XmlPrompt {
    /// A prompt offering every tool of `catalog`, with [`OUTPUT_INSTRUCTIONS`].
    pub fn new(catalog: &ToolCatalog) -> Result<Self, ExportError> {
        Self::for_tools(catalog.definitions())
    }

    /// A prompt offering `tools`, in the order given, with [`OUTPUT_INSTRUCTIONS`].
    pub fn for_tools<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Result<Self, ExportError> {
        Ok(XmlPrompt {
            system: String::new(),
            functions: functions_block(tools)?,
            events: Vec::new(),
            output: OUTPUT_INSTRUCTIONS.to_owned(),
        })
    }

    /// The system instructions (role and rules), first.
    pub fn system(mut self, instructions: impl Into<String>) -> Self {
        self.system = instructions.into();
        self
    }

    /// Adds one event of the history (a user message, a tool result event), written as one
    /// line of JSON.
    pub fn event(mut self, event: &Value) -> Self {
        self.events.push(embedded_json(event));
        self
    }

    /// Adds the events of the history, in order.
    pub fn events<'a>(self, events: impl IntoIterator<Item = &'a Value>) -> Self {
        events.into_iter().fold(self, Self::event)
    }

    /// Replaces the output instructions ([`OUTPUT_INSTRUCTIONS_ZH`], or the host's own).
    pub fn output_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.output = instructions.into();
        self
    }

    /// The prompt: the parts that are not empty, separated by blank lines.
    pub fn build(&self) -> String {
        let events = self.events.join("\n");
        let parts = [self.system.as_str(), self.functions.as_str(), events.as_str(), self.output.as_str()];
        parts.iter().filter(|part| !part.is_empty()).copied().collect::<Vec<_>>().join("\n\n")
    }
}
