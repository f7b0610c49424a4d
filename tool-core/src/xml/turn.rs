//! One turn of the protocol: an answer parsed and its calls executed, and the records rendered back for the next prompt,
//! as a `tool_result` event or as a `<function_results>` block.

use std::time::SystemTime;

use serde::Serialize;
use serde_json::{json, Value};

use super::parse::XmlParser;
use crate::executor::{ExecutionRecord, Executor};
use crate::model::ParseWarning;

/// An answer read and its calls run.
#[derive(Debug, Clone, Serialize)]
pub struct XmlTurn {
    /// The model's own words (see [`XmlResponse::text`](super::XmlResponse::text)).
    pub text: String,
    /// One record per call, in the answer's order.
    pub records: Vec<ExecutionRecord>,
    /// What concerns the answer's structure rather than one call.
    pub warnings: Vec<ParseWarning>,
}

impl XmlTurn {
    /// The records as a `tool_result` event, stamped now.
    pub fn event(&self) -> Value {
        tool_result_event(&self.records, SystemTime::now())
    }

    /// The records as a `<function_results>` block.
    pub fn function_results(&self) -> String {
        function_results(&self.records)
    }
}

impl XmlParser {
    /// Reads `answer` and runs its calls on `executor` (in parallel, up to its concurrency),
    /// returning the records in the answer's order. A call that could not be read well enough
    /// to run (an unknown tool, arguments its tool refuses) is a failed record whose text tells
    /// the model what to fix.
    pub async fn parse_and_execute(&self, executor: &Executor, answer: &str) -> XmlTurn {
        let response = self.parse(answer);
        let records = executor.execute_batch(response.calls).await;
        XmlTurn { text: response.text, records, warnings: response.warnings }
    }
}

/// Reads `answer` with a parser for `executor`'s catalog and runs its calls; see
/// [`XmlParser::parse_and_execute`].
pub async fn parse_and_execute(executor: &Executor, answer: &str) -> XmlTurn {
    XmlParser::new(executor.catalog()).parse_and_execute(executor, answer).await
}

/// The `tool_result` event for `records`:
/// `{"type":"tool_result","timestamp":..,"data":{"results":[{"tool_name","success","result"}]}}`.
///
/// `timestamp` is RFC 3339 in UTC, to the second. `result` is the structured output when the
/// tool gave one, else its text; for a failed call it is the message written for the model.
pub fn tool_result_event(records: &[ExecutionRecord], at: SystemTime) -> Value {
    let results: Vec<Value> = records
        .iter()
        .map(|record| {
            let result = match (&record.content.structured, record.is_error()) {
                (Some(structured), false) => structured.clone(),
                _ => Value::String(crate::providers::results::text_with_blocks(&record.content)),
            };
            json!({ "tool_name": record.request.tool_name, "success": !record.is_error(), "result": result })
        })
        .collect();
    json!({
        "type": "tool_result",
        "timestamp": humantime::format_rfc3339_seconds(at).to_string(),
        "data": { "results": results },
    })
}

/// The records as a `<function_results>` block, one `<result>` (or `<error>`) per call:
/// `<tool_name>` and `<stdout>` holding the text the model reads. Text with `<` or `&` in it
/// goes in a CDATA section, so the model reads it as written. The protocol carries text
/// alone: a result's content blocks follow its text, one a line, a resource's text under a
/// line naming it and an image or a sound as a placeholder (`[image: image/png, 12 KB, not
/// shown: the XML call protocol carries text only]`).
///
/// ```
/// use tool_core::prelude::*;
///
/// /// Search the notes.
/// #[tool]
/// fn search(query: String) -> String {
///     format!("{query} < 3 hits")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let executor = Executor::new(ToolCatalog::builder().add_declared::<search>().build().unwrap());
/// let answer = r#"<function_calls><invoke name="search"><parameter name="query">rust</parameter></invoke></function_calls>"#;
/// let turn = tool_core::xml::parse_and_execute(&executor, answer).await;
/// assert_eq!(
///     turn.function_results(),
///     "<function_results>\n<result>\n<tool_name>search</tool_name>\n\
///      <stdout><![CDATA[rust < 3 hits]]></stdout>\n</result>\n</function_results>"
/// );
/// # }
/// ```
pub fn function_results(records: &[ExecutionRecord]) -> String {
    let mut block = String::from("<function_results>\n");
    for record in records {
        let tag = if record.is_error() { "error" } else { "result" };
        block.push_str(&format!(
            "<{tag}>\n<tool_name>{}</tool_name>\n<stdout>{}</stdout>\n</{tag}>\n",
            quick_xml::escape::escape(record.request.tool_name.as_str()),
            as_xml_text(&crate::providers::results::text_with_blocks(&record.content))
        ));
    }
    block.push_str("</function_results>");
    block
}

/// `text` as XML character data: itself, or a CDATA section (split where it holds `]]>`).
fn as_xml_text(text: &str) -> String {
    if !text.contains(['<', '&']) && !text.contains("]]>") {
        return text.to_owned();
    }
    format!("<![CDATA[{}]]>", text.replace("]]>", "]]]]><![CDATA[>"))
}
