//! A remote `tools/call` result read back into the tool's output: its text, its structured
//! content and its content blocks.

use serde_json::Value;

use crate::model::{
    Audio, ContentBlock, EmbeddedResource, Image, ResourceContents, ResourceLink, ToolError, ToolOutput,
};
use crate::tool::ToolResult;

/// Turns a `tools/call` result into the tool's output, or its error when `isError` is set.
///
/// The text blocks before the first other block are the output's text, one a line; every
/// block after is a [`ContentBlock`] in order. A block this side cannot read (a kind it does
/// not know, an image whose data is not base64) becomes a text line saying so, and the whole
/// `content` is kept for the host in the output's metadata under `mcp_content`.
pub(super) fn read_result(result: Value) -> ToolResult {
    let content = result.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    let structured = result.get("structuredContent").cloned();
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let text = content
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        let mut error = ToolError::new(text).with_code("mcp_tool_error");
        if let Some(details) = structured {
            error = error.with_details(details);
        }
        return Err(error);
    }
    let mut leading = Vec::new();
    let mut blocks = Vec::new();
    let mut unread = false;
    for value in &content {
        let block = read_block(value).unwrap_or_else(|why| {
            unread = true;
            ContentBlock::text(format!("[a `{}` block of the server's result was not read: {why}]", kind_of(value)))
        });
        match block {
            ContentBlock::Text { text } if blocks.is_empty() => leading.push(text),
            block => blocks.push(block),
        }
    }
    let mut output = ToolOutput::text(leading.join("\n"));
    output.structured = structured;
    output.blocks = blocks;
    if unread {
        output = output.with_metadata("mcp_content", Value::Array(content));
    }
    Ok(output)
}

fn kind_of(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("untyped");
    crate::model::truncate(kind)
}

/// One MCP content block as ours, or why it cannot be.
fn read_block(block: &Value) -> Result<ContentBlock, String> {
    let field = |object: &Value, name: &str| -> Result<String, String> {
        object.get(name).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| format!("it has no `{name}` text"))
    };
    let optional = |object: &Value, name: &str| object.get(name).and_then(Value::as_str).map(str::to_owned);
    let read = match block.get("type").and_then(Value::as_str) {
        Some("text") => ContentBlock::text(field(block, "text")?),
        Some("image") => Image::from_base64(field(block, "data")?, field(block, "mimeType")?).into(),
        Some("audio") => Audio::from_base64(field(block, "data")?, field(block, "mimeType")?).into(),
        Some("resource") => {
            let resource = block.get("resource").ok_or("it has no `resource`")?;
            let uri = field(resource, "uri")?;
            let contents = match (optional(resource, "text"), optional(resource, "blob")) {
                (Some(text), _) => ResourceContents::Text(text),
                (None, Some(blob)) => ResourceContents::Blob(blob),
                (None, None) => return Err("its resource has neither `text` nor `blob`".to_owned()),
            };
            let mut embedded = EmbeddedResource::text(uri, "", "");
            embedded.mime_type = optional(resource, "mimeType");
            embedded.contents = contents;
            embedded.into()
        }
        Some("resource_link") => {
            let mut link = ResourceLink::new(field(block, "uri")?, field(block, "name")?);
            link.description = optional(block, "description");
            link.mime_type = optional(block, "mimeType");
            link.into()
        }
        _ => return Err("this side knows text, image, audio, resource and resource_link blocks".to_owned()),
    };
    match read.problem() {
        Some(problem) => Err(format!("it {problem}")),
        None => Ok(read),
    }
}
