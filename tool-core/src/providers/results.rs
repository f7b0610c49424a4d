//! Execution records rendered as each provider's tool-result messages, and the assistant's
//! tool-call turn rendered back into the conversation history.
//!
//! A failed call (unknown tool, refused arguments, a tool error, a panic, a timeout, a
//! cancellation) is an ordinary result carrying the provider's error flag and the record's
//! model-facing text, so the model can read what went wrong and try again. Nothing here sends
//! anything or fails: every record has a rendering in every provider's shape.
//!
//! Tool names go out under the provider's name for them ([`NameMap::wire_name`]); call ids
//! and what the provider attached to a call ([`ToolCallRequest::provider_data`]) go back
//! unchanged.

use std::borrow::Borrow;

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::dialect::Provider;
use super::export::mcp_wraps_output;
use super::names::NameMap;
use crate::executor::ExecutionRecord;
use crate::model::{human_bytes, ContentBlock, EmbeddedResource, ResourceContents, ToolCallRequest};

/// `provider_data` key of the Responses API's output item id (`fc_...`).
const RESPONSES_ITEM_ID: &str = "id";
/// `provider_data` key of the namespace a Responses `function_call` named.
const RESPONSES_NAMESPACE: &str = "namespace";
/// `provider_data` key of Gemini's thought signature, as Gemini names it on the part.
const THOUGHT_SIGNATURE: &str = "thoughtSignature";
/// `provider_data` key set to `true` when Gemini sent no call id and the parser made one up.
const GENERATED_ID: &str = "generatedId";

/// One result item for `record`, in `provider`'s shape.
///
/// - OpenAI Chat: the message `{"role":"tool","tool_call_id","content"}`.
/// - OpenAI Responses: the input item `{"type":"function_call_output","call_id","output"}`.
/// - Anthropic: the content block `{"type":"tool_result","tool_use_id","content"}`, with
///   `"is_error":true` on failure (left out on success, as the recorded requests of
///   Anthropic's own SDK do).
/// - Gemini: the part `{"functionResponse":{"name","id"?,"response"}}`; `response` is the
///   structured output when it is an object, else `{"output": text}`, and `{"error": text}`
///   on failure. The `id` is left out when Gemini sent none.
/// - MCP: the `tools/call` result `{"content":[{"type":"text","text"}, blocks..],
///   "structuredContent"?, "isError"}`. A structured output that is not an object goes out as `{"result": value}`
///   (MCP 2025-11-25 wants an object), and the text block then carries the JSON of
///   `structuredContent`. A failure carries no `structuredContent`: a client checks it against
///   the tool's output schema, which an error does not follow.
///
/// On failure every provider gets the record's text, which is already the message written for
/// the model.
///
/// A result with content blocks ([`ToolOutput::blocks`](crate::ToolOutput::blocks)) goes out
/// as its text followed by the blocks, in order, each in the provider's form for it where it
/// has one:
///
/// | block | MCP | Anthropic | OpenAI Responses | Gemini | OpenAI Chat |
/// |---|---|---|---|---|---|
/// | image | `image` | `image` (JPEG, PNG, GIF, WEBP) | `input_image` (PNG, JPEG, WEBP, GIF) | `parts[].inlineData` (PNG, JPEG, WEBP) | text |
/// | audio | `audio` | text | text | text | text |
/// | embedded resource, text | `resource` | text | text | text | text |
/// | embedded resource, bytes | `resource` | `document` (PDF), `image` | `input_file` (PDF), `input_image` | `parts[].inlineData` (PDF, plain text, the images) | text |
/// | resource link | `resource_link` | text | text | text | text |
///
/// "text" is a text part the model reads: a resource's text under a line naming it, a link
/// as its name, URI and description, and a block the provider cannot carry as a short
/// placeholder (`[image: image/png, 12 KB, not shown: this API takes no images in tool
/// results]`), which [`replaced_blocks`] lists for the host. OpenAI Chat gets the text parts
/// joined into one string; Anthropic and the Responses API get an array of parts in place of
/// the string; Gemini gets the text as `{"output": text}` and the media as the
/// `functionResponse`'s `parts`. A result without blocks goes out exactly as described above.
pub fn result_message(provider: Provider, record: &ExecutionRecord, names: &NameMap) -> Value {
    let request = &*record.request;
    let text = record.content.text.as_str();
    let blocks = &record.content.blocks;
    let rendered = || render(Some(provider), text, blocks);
    match provider {
        Provider::OpenAiChat if blocks.is_empty() => {
            json!({ "role": "tool", "tool_call_id": request.call_id, "content": text })
        }
        Provider::OpenAiChat => {
            json!({ "role": "tool", "tool_call_id": request.call_id, "content": rendered().joined() })
        }
        Provider::OpenAiResponses => {
            let output = match blocks.is_empty() {
                true => Value::String(text.to_owned()),
                false => rendered().parts(|text| json!({ "type": "input_text", "text": text })),
            };
            json!({ "type": "function_call_output", "call_id": request.call_id, "output": output })
        }
        Provider::Anthropic => {
            let content = match blocks.is_empty() {
                true => Value::String(text.to_owned()),
                false => rendered().parts(|text| json!({ "type": "text", "text": text })),
            };
            let mut block = json!({ "type": "tool_result", "tool_use_id": request.call_id, "content": content });
            if record.is_error() {
                block["is_error"] = Value::Bool(true);
            }
            block
        }
        Provider::Gemini => {
            let rendered = rendered();
            let response = match &record.content.structured {
                _ if record.is_error() => json!({ "error": text }),
                Some(object @ Value::Object(_)) if blocks.is_empty() => object.clone(),
                _ if blocks.is_empty() => json!({ "output": text }),
                _ => json!({ "output": rendered.joined() }),
            };
            let mut function_response = Map::new();
            function_response.insert("name".into(), names.wire_name(&request.tool_name).into());
            if let Some(id) = gemini_call_id(request) {
                function_response.insert("id".into(), id.into());
            }
            function_response.insert("response".into(), response);
            let media = rendered.native();
            if !media.is_empty() {
                function_response.insert("parts".into(), Value::Array(media));
            }
            // The thought signature stays on the functionCall part it came with (see
            // `assistant_turn`); Gemini's docs show the function response parts without one.
            json!({ "functionResponse": function_response })
        }
        Provider::Mcp => mcp_result(record, None),
    }
}

/// What to append to the conversation after running one assistant turn's calls: the results of
/// `records`, in their order.
///
/// OpenAI Chat gets one `tool` message per record and the Responses API one
/// `function_call_output` item per record. Anthropic gets one `user` message holding every
/// `tool_result` block, and Gemini one `user` content holding every `functionResponse` part
/// (both providers want all the results of a turn together). MCP has no conversation: each
/// record is the result of its own `tools/call`, one per record. No records, no messages.
pub fn results_turn(provider: Provider, records: &[ExecutionRecord], names: &NameMap) -> Vec<Value> {
    let items = records.iter().map(|record| result_message(provider, record, names));
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Mcp => items.collect(),
        Provider::Anthropic | Provider::Gemini if records.is_empty() => Vec::new(),
        Provider::Anthropic => vec![json!({ "role": "user", "content": items.collect::<Vec<_>>() })],
        Provider::Gemini => vec![json!({ "role": "user", "parts": items.collect::<Vec<_>>() })],
    }
}

/// The assistant's tool-call turn as it goes back into the conversation history, for
/// providers whose history the host keeps itself.
///
/// - OpenAI Chat: one `{"role":"assistant","content":null,"tool_calls":[...]}` message, the
///   arguments as the raw text the model sent.
/// - OpenAI Responses: one `function_call` item per call, with the item's `id` when the
///   provider gave one, and the raw arguments text; a tool sent inside a namespace by its
///   name there and its `namespace` ([`NameMap::namespace_of`]), another call with the
///   `namespace` it came with, if any.
/// - Anthropic: one `{"role":"assistant","content":[{"type":"tool_use",...}]}` message.
/// - Gemini: one `{"role":"model","parts":[{"functionCall":...}]}` content; each part gets
///   back the `thoughtSignature` it came with, unchanged.
/// - MCP: there is no assistant turn; one `tools/call` request's `params` (`{"name",
///   "arguments"}`) per call, for a host that forwards the calls to an MCP server.
///
/// Anthropic, Gemini and MCP take the arguments as an object: the request's `arguments` (what
/// extraction read the values from) when it has them and they are in the form the provider saw
/// (not a tool whose arguments `names` restored to the declared form), else the raw text
/// parsed, else the raw
/// text repaired as [`extract::untyped`](crate::extract::untyped) repairs it. Raw text that not
/// even the repair reads as an object becomes `{}`, because these providers refuse anything
/// but an object; the text itself is still in the call's record. No calls, no turn.
pub fn assistant_turn<C: Borrow<ToolCallRequest>>(provider: Provider, calls: &[C], names: &NameMap) -> Vec<Value> {
    if calls.is_empty() {
        return Vec::new();
    }
    let calls = calls.iter().map(Borrow::borrow);
    match provider {
        Provider::OpenAiChat => {
            let tool_calls: Vec<Value> = calls
                .map(|call| {
                    json!({
                        "id": call.call_id,
                        "type": "function",
                        "function": { "name": names.wire_name(&call.tool_name), "arguments": call.raw_arguments },
                    })
                })
                .collect();
            vec![json!({ "role": "assistant", "content": null, "tool_calls": tool_calls })]
        }
        Provider::OpenAiResponses => calls
            .map(|call| {
                let mut item = Map::new();
                item.insert("type".into(), "function_call".into());
                if let Some(id) = call.provider_data.get(RESPONSES_ITEM_ID) {
                    item.insert("id".into(), id.clone());
                }
                item.insert("call_id".into(), call.call_id.clone().into());
                // A tool sent inside a namespace is called by the name inside it, beside the
                // namespace; a namespace the call came with goes back with it.
                match names.namespace_of(&call.tool_name) {
                    Some((namespace, name)) => {
                        item.insert("name".into(), name.into());
                        item.insert("namespace".into(), namespace.into());
                    }
                    None => {
                        item.insert("name".into(), names.wire_name(&call.tool_name).into());
                        if let Some(namespace) = call.provider_data.get(RESPONSES_NAMESPACE) {
                            item.insert("namespace".into(), namespace.clone());
                        }
                    }
                }
                item.insert("arguments".into(), call.raw_arguments.clone().into());
                Value::Object(item)
            })
            .collect(),
        Provider::Anthropic => {
            let content: Vec<Value> = calls
                .map(|call| {
                    json!({
                        "type": "tool_use",
                        "id": call.call_id,
                        "name": names.wire_name(&call.tool_name),
                        "input": arguments_object(call, names),
                    })
                })
                .collect();
            vec![json!({ "role": "assistant", "content": content })]
        }
        Provider::Gemini => {
            let parts: Vec<Value> = calls
                .map(|call| {
                    let mut function_call = Map::new();
                    function_call.insert("name".into(), names.wire_name(&call.tool_name).into());
                    function_call.insert("args".into(), Value::Object(arguments_object(call, names)));
                    if let Some(id) = gemini_call_id(call) {
                        function_call.insert("id".into(), id.into());
                    }
                    let mut part = Map::new();
                    part.insert("functionCall".into(), Value::Object(function_call));
                    // "You must return this signature in the exact part where it was received":
                    // https://ai.google.dev/gemini-api/docs/thought-signatures (a part-level
                    // sibling of `functionCall`; with parallel calls only the first part has one).
                    if let Some(signature) = call.provider_data.get(THOUGHT_SIGNATURE) {
                        part.insert(THOUGHT_SIGNATURE.into(), signature.clone());
                    }
                    Value::Object(part)
                })
                .collect();
            vec![json!({ "role": "model", "parts": parts })]
        }
        Provider::Mcp => calls
            .map(|call| json!({ "name": names.wire_name(&call.tool_name), "arguments": arguments_object(call, names) }))
            .collect(),
    }
}

/// The call id to send Gemini, unless Gemini sent none and the parser made this one up.
fn gemini_call_id(request: &ToolCallRequest) -> Option<&str> {
    let generated = request.provider_data.get(GENERATED_ID) == Some(&Value::Bool(true));
    (!generated).then_some(request.call_id.as_str())
}

/// The call's arguments as an object, losing as little as possible (see [`assistant_turn`]).
/// For a tool whose arguments went out other than declared, `arguments` hold the declared form
/// (`NameMap::restore`), not what the model wrote: its own text is replayed.
fn arguments_object(request: &ToolCallRequest, names: &NameMap) -> Map<String, Value> {
    if let (Some(Value::Object(arguments)), None) = (&request.arguments, names.arguments(&request.tool_name)) {
        return arguments.clone();
    }
    if let Ok(Value::Object(parsed)) = serde_json::from_str::<Value>(&request.raw_arguments) {
        return parsed;
    }
    crate::extract::untyped(&request.raw_arguments).value.unwrap_or_default()
}

/// The MCP `tools/call` result of `record`, for a tool whose exported output schema is
/// `output_schema`: its structured content is wrapped as `{"result": ..}` exactly when the
/// export wrapped the schema, so that a client checking one against the other agrees. Without
/// the schema, a value that is not an object is wrapped. The call's parse warnings, if any, are
/// in `_meta` under [`MCP_WARNINGS_META`], so a client sees what was repaired.
pub fn mcp_result(record: &ExecutionRecord, output_schema: Option<&Value>) -> Value {
    let McpParts { parts, structured, is_error } = mcp_parts(record, output_schema);
    let content: Vec<Value> = parts
        .into_iter()
        .map(|part| match part {
            Piece::Text(text) => json!({ "type": "text", "text": text }),
            Piece::Native(block) => block,
        })
        .collect();
    let mut result = match structured {
        Some(structured) => json!({ "content": content, "structuredContent": structured, "isError": false }),
        None => json!({ "content": content, "isError": is_error }),
    };
    if let Some(meta) = mcp_warnings_meta(record) {
        result["_meta"] = meta;
    }
    result
}

/// The `_meta` key of an MCP result that lists the call's parse warnings.
pub const MCP_WARNINGS_META: &str = "tool-core/parse_warnings";

/// The `_meta` of an MCP result: the call's parse warnings, when it has any.
pub(crate) fn mcp_warnings_meta(record: &ExecutionRecord) -> Option<Value> {
    (!record.warnings().is_empty()).then(|| json!({ MCP_WARNINGS_META: record.warnings() }))
}

/// An MCP result's parts, for a server that builds its own result type from them.
pub(crate) struct McpParts {
    /// The content: text parts, and blocks in MCP's own form.
    pub(crate) parts: Vec<Piece>,
    /// The structured content, wrapped as the output schema says (none for an error).
    pub(crate) structured: Option<Value>,
    /// Whether the result is an error.
    pub(crate) is_error: bool,
}

/// `record` as an MCP result's parts: structured content wrapped exactly as the exported output
/// schema is (`{"result": ..}` for a value that is not an object), and the text the structured
/// content's JSON when there is one.
pub(crate) fn mcp_parts(record: &ExecutionRecord, output_schema: Option<&Value>) -> McpParts {
    let wrapped = |value: &Value| output_schema.map_or(!value.is_object(), mcp_wraps_output);
    let structured = match &record.content.structured {
        Some(_) if record.is_error() => None,
        Some(value) if wrapped(value) => Some(json!({ "result": value })),
        Some(value) => Some(value.clone()),
        None => None,
    };
    let text = structured.as_ref().map_or_else(|| record.content.text.clone(), Value::to_string);
    let parts = render(Some(Provider::Mcp), &text, &record.content.blocks).pieces;
    McpParts { is_error: structured.is_none() && record.is_error(), parts, structured }
}

/// A content block a provider's result could not carry: the model read a short text in its
/// place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReplacedBlock {
    /// The call's id.
    pub call_id: String,
    /// Our name of the tool.
    pub tool: String,
    /// The block's place among the result's blocks
    /// ([`ToolOutput::blocks`](crate::ToolOutput::blocks)), from 0.
    pub index: usize,
    /// The block's kind: `image`, `audio`, `resource`.
    pub kind: &'static str,
    /// The text the model read in its place.
    pub placeholder: String,
}

/// The content blocks of `records`' results that `provider` has no form for, in order: what
/// [`result_message`] and [`results_turn`] sent the model in their place. Empty for MCP, which
/// carries every block, and for results without blocks.
pub fn replaced_blocks(provider: Provider, records: &[ExecutionRecord]) -> Vec<ReplacedBlock> {
    records
        .iter()
        .flat_map(|record| {
            let rendered = render(Some(provider), "", &record.content.blocks);
            rendered.replaced.into_iter().map(|(index, placeholder)| ReplacedBlock {
                call_id: record.request.call_id.clone(),
                tool: record.request.tool_name.clone(),
                index,
                kind: record.content.blocks[index].kind(),
                placeholder,
            })
        })
        .collect()
}

/// One part of a result as a dialect carries it.
pub(crate) enum Piece {
    Text(String),
    Native(Value),
}

/// A result's text and blocks in a dialect's parts, and the blocks it replaced with text.
struct Rendered {
    pieces: Vec<Piece>,
    replaced: Vec<(usize, String)>,
}

impl Rendered {
    /// The text parts joined, one a line; for a dialect that takes one string.
    fn joined(&self) -> String {
        let texts: Vec<&str> = self
            .pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Text(text) => Some(text.as_str()),
                Piece::Native(_) => None,
            })
            .collect();
        texts.join("\n")
    }

    /// The parts in order, text made by `text`.
    fn parts(self, text: impl Fn(String) -> Value) -> Value {
        let parts = self.pieces.into_iter().map(|piece| match piece {
            Piece::Text(t) => text(t),
            Piece::Native(value) => value,
        });
        Value::Array(parts.collect())
    }

    /// The parts in the dialect's own form, in order.
    fn native(&self) -> Vec<Value> {
        let native = self.pieces.iter().filter_map(|piece| match piece {
            Piece::Native(value) => Some(value.clone()),
            Piece::Text(_) => None,
        });
        native.collect()
    }
}

/// `text` and `blocks` as `provider` carries them (`None`: text alone, as the XML protocol).
/// The text leads unless it is empty and blocks follow; an empty text block is left out, as
/// Anthropic refuses one.
fn render(provider: Option<Provider>, text: &str, blocks: &[ContentBlock]) -> Rendered {
    let mut rendered = Rendered { pieces: Vec::new(), replaced: Vec::new() };
    if !text.is_empty() || blocks.is_empty() {
        rendered.pieces.push(Piece::Text(text.to_owned()));
    }
    for (index, block) in blocks.iter().enumerate() {
        if let Some(value) = provider.and_then(|provider| native_block(provider, block)) {
            rendered.pieces.push(Piece::Native(value));
        } else if let Some(text) = block_text(block) {
            if !text.is_empty() {
                rendered.pieces.push(Piece::Text(text));
            }
        } else {
            let placeholder = placeholder(block, not_shown(provider, block));
            rendered.pieces.push(Piece::Text(placeholder.clone()));
            rendered.replaced.push((index, placeholder));
        }
    }
    rendered
}

/// The text a dialect without blocks gets for `output`: its text, then each block's text or
/// placeholder, one a line (the XML call protocol).
#[cfg_attr(not(feature = "xml"), allow(dead_code))]
pub(crate) fn text_with_blocks(output: &crate::ToolOutput) -> String {
    render(None, &output.text, &output.blocks).joined()
}

/// The text a prompt that carries text alone gets for `output`, as [`text_with_blocks`] gives
/// it, a block with no text standing as a placeholder that says why: `reason`.
#[cfg_attr(not(feature = "open-models"), allow(dead_code))]
pub(crate) fn text_alone(output: &crate::ToolOutput, reason: &str) -> String {
    let mut parts = Vec::new();
    if !output.text.is_empty() || output.blocks.is_empty() {
        parts.push(output.text.clone());
    }
    for block in &output.blocks {
        match block_text(block) {
            Some(text) if text.is_empty() => {}
            Some(text) => parts.push(text),
            None => parts.push(placeholder(block, reason)),
        }
    }
    parts.join("\n")
}

/// A block in `provider`'s own form, if it has one.
fn native_block(provider: Provider, block: &ContentBlock) -> Option<Value> {
    // What each provider takes in a tool's result, from its API reference.
    const ANTHROPIC_IMAGES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];
    const OPENAI_IMAGES: &[&str] = &["image/png", "image/jpeg", "image/webp", "image/gif"];
    const GEMINI_MEDIA: &[&str] = &["image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"];
    const PDF: &str = "application/pdf";
    if provider == Provider::Mcp {
        return Some(mcp_block(block));
    }
    let (mime, data) = match block {
        ContentBlock::Image(image) => (essence(&image.mime_type), image.data.as_str()),
        ContentBlock::Resource(EmbeddedResource {
            mime_type: Some(mime),
            contents: ResourceContents::Blob(blob),
            ..
        }) => (essence(mime), blob.as_str()),
        _ => return None,
    };
    let is_image = matches!(block, ContentBlock::Image(_)) || mime.starts_with("image/");
    match provider {
        Provider::Anthropic if is_image && ANTHROPIC_IMAGES.contains(&mime.as_str()) => Some(json!({
            "type": "image", "source": { "type": "base64", "media_type": mime, "data": data },
        })),
        Provider::Anthropic if mime == PDF => Some(json!({
            "type": "document", "source": { "type": "base64", "media_type": mime, "data": data },
        })),
        Provider::OpenAiResponses if is_image && OPENAI_IMAGES.contains(&mime.as_str()) => Some(json!({
            "type": "input_image", "image_url": format!("data:{mime};base64,{data}"), "detail": "auto",
        })),
        Provider::OpenAiResponses if mime == PDF => {
            let ContentBlock::Resource(resource) = block else { return None };
            let name = resource.uri.rsplit(['/', ':']).next().filter(|name| !name.is_empty()).unwrap_or("document.pdf");
            Some(json!({ "type": "input_file", "filename": name, "file_data": format!("data:{mime};base64,{data}") }))
        }
        Provider::Gemini if GEMINI_MEDIA.contains(&mime.as_str()) => {
            Some(json!({ "inlineData": { "mimeType": mime, "data": data } }))
        }
        _ => None,
    }
}

/// A block exactly as MCP's `tools/call` result (or a prompt message) carries it.
pub(crate) fn mcp_block(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Text { text } => json!({ "type": "text", "text": text }),
        ContentBlock::Image(image) => json!({ "type": "image", "data": image.data, "mimeType": image.mime_type }),
        ContentBlock::Audio(audio) => json!({ "type": "audio", "data": audio.data, "mimeType": audio.mime_type }),
        ContentBlock::Resource(resource) => {
            let mut inner = Map::new();
            inner.insert("uri".into(), resource.uri.clone().into());
            if let Some(mime) = &resource.mime_type {
                inner.insert("mimeType".into(), mime.clone().into());
            }
            match &resource.contents {
                ResourceContents::Text(text) => inner.insert("text".into(), text.clone().into()),
                ResourceContents::Blob(blob) => inner.insert("blob".into(), blob.clone().into()),
            };
            json!({ "type": "resource", "resource": inner })
        }
        ContentBlock::ResourceLink(link) => {
            let mut value = Map::new();
            value.insert("type".into(), "resource_link".into());
            value.insert("uri".into(), link.uri.clone().into());
            value.insert("name".into(), link.name.clone().into());
            if let Some(description) = &link.description {
                value.insert("description".into(), description.clone().into());
            }
            if let Some(mime) = &link.mime_type {
                value.insert("mimeType".into(), mime.clone().into());
            }
            Value::Object(value)
        }
    }
}

/// A block the model reads as text in every dialect: text, a resource's text under a line
/// naming it, a link. `None` for media and bytes.
fn block_text(block: &ContentBlock) -> Option<String> {
    match block {
        ContentBlock::Text { text } => Some(text.clone()),
        ContentBlock::Resource(EmbeddedResource { uri, mime_type, contents: ResourceContents::Text(text), .. }) => {
            let mime = mime_type.as_ref().map(|mime| format!(", {mime}")).unwrap_or_default();
            Some(format!("[resource: {uri}{mime}]\n{text}"))
        }
        ContentBlock::ResourceLink(link) => {
            let mut line = format!("[resource link: {} <{}>", link.name, link.uri);
            if let Some(mime) = &link.mime_type {
                line.push_str(&format!(", {mime}"));
            }
            if let Some(description) = &link.description {
                line.push_str(&format!(": {description}"));
            }
            line.push(']');
            Some(line)
        }
        _ => None,
    }
}

/// What a person reads of a block in one line: `[image: image/png, 67 bytes]`.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn summary(block: &ContentBlock) -> String {
    let inner = summary_fields(block);
    format!("[{inner}]")
}

fn summary_fields(block: &ContentBlock) -> String {
    let mut fields = vec![match block {
        ContentBlock::Resource(resource) => format!("resource: {}", resource.uri),
        ContentBlock::ResourceLink(link) => format!("resource link: {} <{}>", link.name, link.uri),
        other => format!("{}:", other.kind()),
    }];
    if let Some(mime) = block.mime_type() {
        fields.push(mime.to_owned());
    }
    let bytes = block.decoded_len().unwrap_or_else(|| block.size());
    fields.push(human_bytes(bytes));
    let first = fields.remove(0);
    match first.ends_with(':') {
        true => format!("{first} {}", fields.join(", ")),
        false => format!("{first}, {}", fields.join(", ")),
    }
}

/// The text a model reads in place of a block its dialect cannot carry.
fn placeholder(block: &ContentBlock, why: &str) -> String {
    format!("[{}, not shown: {why}]", summary_fields(block))
}

/// Why `provider` (`None`: the XML protocol) does not show `block`.
fn not_shown(provider: Option<Provider>, block: &ContentBlock) -> &'static str {
    let audio = matches!(block, ContentBlock::Audio(_));
    let image = matches!(block, ContentBlock::Image(_));
    match provider {
        None => "the XML call protocol carries text only",
        Some(Provider::OpenAiChat) if image => "this API takes no images in tool results",
        Some(Provider::OpenAiChat) if audio => "this API takes no audio in tool results",
        Some(Provider::OpenAiChat) => "this API takes no files in tool results",
        Some(_) if audio => "this API takes no audio in tool results",
        Some(Provider::Anthropic) => "this API takes JPEG, PNG, GIF and WEBP images and PDF documents in tool results",
        Some(Provider::OpenAiResponses) => {
            "this API takes PNG, JPEG, WEBP and GIF images and PDF files in tool results"
        }
        Some(Provider::Gemini) => "this API takes PNG, JPEG and WEBP images, PDF and plain text in function responses",
        Some(Provider::Mcp) => "MCP has no form for it",
    }
}

/// A MIME type without its parameters, in lower case: `image/png`.
fn essence(mime_type: &str) -> String {
    mime_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}
