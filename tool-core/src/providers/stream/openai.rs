//! OpenAI's streams: Chat Completions chunks (calls keyed by `index`) and the Responses API's
//! events (calls keyed by item id).

use serde_json::Value;

use super::{End, Key, StreamAccumulator};
use crate::model::ToolCallRequest;
use crate::providers::calls::{chat_content, responses_call, responses_stop_reason, Path, Reader, ResponseError};

impl StreamAccumulator {
    // -----------------------------------------------------------------------------------------
    // OpenAI Chat Completions.

    pub(super) fn openai_chat(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let chunk = r.object(Some(event), &root)?;
        r.provider_error(chunk)?;
        // Read the whole chunk first, so that an error changes nothing.
        let mut text = String::new();
        let mut finish_reason = None;
        let mut deltas = Vec::new();
        let choices_path = root.key("choices");
        for (i, choice) in r.opt_array(chunk.get("choices"), &choices_path)?.iter().enumerate() {
            let path = choices_path.index(i);
            let choice = r.object(Some(choice), &path)?;
            if r.opt_index(choice.get("index"), &path.key("index"))?.unwrap_or(0) != 0 {
                continue;
            }
            if let Some(reason) = r.opt_string(choice.get("finish_reason"), &path.key("finish_reason"))? {
                finish_reason = Some(reason.to_owned());
            }
            let delta_path = path.key("delta");
            let Some(delta) = r.opt_object(choice.get("delta"), &delta_path)? else {
                continue;
            };
            text.push_str(&chat_content(r, delta.get("content"), &delta_path.key("content"))?);
            let calls_path = delta_path.key("tool_calls");
            for (j, call) in r.opt_array(delta.get("tool_calls"), &calls_path)?.iter().enumerate() {
                let path = calls_path.index(j);
                let call = r.object(Some(call), &path)?;
                let index = r.opt_index(call.get("index"), &path.key("index"))?.unwrap_or(j as u64);
                let id = r.opt_string(call.get("id"), &path.key("id"))?;
                let function_path = path.key("function");
                let function = r.opt_object(call.get("function"), &function_path)?;
                let (name, fragment) = match function {
                    Some(function) => (
                        r.opt_string(function.get("name"), &function_path.key("name"))?,
                        r.opt_string(function.get("arguments"), &function_path.key("arguments"))?,
                    ),
                    None => (None, None),
                };
                deltas.push(ChatDelta { index, id, name, fragment, choice: i, position: j });
            }
        }
        // Every delta must continue a call, or start one with its id and name.
        let mut actions = Vec::with_capacity(deltas.len());
        let mut started_here: Vec<(u64, &str)> = Vec::new();
        for delta in &deltas {
            let key = Key::Index(delta.index);
            let current = started_here
                .iter()
                .rev()
                .find(|(index, _)| *index == delta.index)
                .map(|(_, id)| *id)
                .or_else(|| self.open_call_id(&key))
                .or_else(|| self.completed_call_id(&key));
            let starts = match (current, delta.id) {
                (None, _) => true,
                (Some(current), Some(id)) => id != current,
                (Some(_), None) => false,
            };
            if !starts {
                actions.push(None);
                continue;
            }
            match (delta.id, delta.name) {
                (Some(id), Some(name)) => {
                    started_here.push((delta.index, id));
                    actions.push(Some((id, name)));
                }
                (None, Some(_)) => return Err(chat_missing(r, &delta.path(), "id")),
                (Some(_), None) if current.is_some() => return Err(chat_missing(r, &delta.path(), "function.name")),
                (_, None) => {
                    return Err(ResponseError::NoOpenCall {
                        provider: self.provider,
                        event: self.events,
                        path: format!("{}.index", delta.path()),
                        found: delta.index.to_string(),
                    })
                }
            }
        }
        self.text.push_str(&text);
        for (delta, action) in deltas.iter().zip(actions) {
            let key = Key::Index(delta.index);
            if let Some((id, name)) = action {
                // OpenAI streams calls one after another: a new call finishes those before it.
                let earlier: Vec<Key> = self
                    .open
                    .iter()
                    .filter(|call| matches!(call.key, Key::Index(index) if index <= delta.index))
                    .map(|call| call.key.clone())
                    .collect();
                for key in earlier {
                    self.end(&key, End::Finished);
                }
                let request = ToolCallRequest::new(self.names.tool_name(name), id, delta.fragment.unwrap_or_default());
                self.start(key, request);
                continue;
            }
            let Some(fragment) = delta.fragment else { continue };
            if let Some(call) = self.open_call(&key) {
                call.request.raw_arguments.push_str(fragment);
            } else if let Some(at) = self.completed_keys.iter().rposition(|(_, k)| k == &key) {
                // A late fragment of a call counted as finished when the next one started.
                self.completed[at].raw_arguments.push_str(fragment);
            }
        }
        if let Some(reason) = finish_reason {
            let end = if matches!(reason.as_str(), "tool_calls" | "stop" | "function_call") {
                End::Finished
            } else {
                End::CutOff
            };
            for call in std::mem::take(&mut self.open) {
                self.end_call(call, end);
            }
            self.stop_reason = Some(reason);
        }
        Ok(())
    }

    fn open_call_id(&self, key: &Key) -> Option<&str> {
        self.open.iter().find(|call| &call.key == key).map(|call| call.request.call_id.as_str())
    }

    /// The id of the latest finished call named `key`.
    fn completed_call_id(&self, key: &Key) -> Option<&str> {
        let at = self.completed_keys.iter().rposition(|(_, k)| k == key)?;
        Some(self.completed[at].call_id.as_str())
    }

    // -----------------------------------------------------------------------------------------
    // OpenAI Responses API.

    pub(super) fn openai_responses(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let body = r.object(Some(event), &root)?;
        let kind = r.string(body.get("type"), &root.key("type"))?;
        match kind {
            "response.output_item.added" => {
                let path = root.key("item");
                let item = r.object(body.get("item"), &path)?;
                if r.string(item.get("type"), &path.key("type"))? != "function_call" {
                    return Ok(());
                }
                let item_id = r.string(item.get("id"), &path.key("id"))?;
                let call_id = r.string(item.get("call_id"), &path.key("call_id"))?;
                let name = r.string(item.get("name"), &path.key("name"))?;
                let arguments = r.opt_string(item.get("arguments"), &path.key("arguments"))?.unwrap_or_default();
                let namespace = r.opt_string(item.get("namespace"), &path.key("namespace"))?;
                let key = Key::Item(item_id.to_owned());
                if self.is_open(&key) || self.is_completed(&key) {
                    return Ok(());
                }
                let tool = self.names.namespaced_tool_name(namespace, name);
                let mut request = ToolCallRequest::new(tool, call_id, arguments);
                request.provider_data.insert("id".to_owned(), Value::from(item_id));
                if let Some(namespace) = namespace {
                    request.provider_data.insert("namespace".to_owned(), Value::from(namespace));
                }
                self.start(key, request);
            }
            "response.function_call_arguments.delta" => {
                let item_id = r.string(body.get("item_id"), &root.key("item_id"))?;
                let delta = r.string(body.get("delta"), &root.key("delta"))?;
                let key = Key::Item(item_id.to_owned());
                match self.open_call(&key) {
                    Some(call) => call.request.raw_arguments.push_str(delta),
                    None => return Err(self.no_open_call(&root.key("item_id"), body.get("item_id"))),
                }
            }
            "response.function_call_arguments.done" => {
                let item_id = r.string(body.get("item_id"), &root.key("item_id"))?;
                let arguments = r.opt_string(body.get("arguments"), &root.key("arguments"))?;
                let key = Key::Item(item_id.to_owned());
                if self.is_completed(&key) {
                    return Ok(());
                }
                let Some(call) = self.open_call(&key) else {
                    return Err(self.no_open_call(&root.key("item_id"), body.get("item_id")));
                };
                if let Some(arguments) = arguments {
                    // The whole text, as the provider counts it; equal to the fragments joined.
                    call.request.raw_arguments = arguments.to_owned();
                }
                self.end(&key, End::Finished);
            }
            "response.output_item.done" => {
                let path = root.key("item");
                let item = r.object(body.get("item"), &path)?;
                if r.string(item.get("type"), &path.key("type"))? != "function_call" {
                    return Ok(());
                }
                let whole = responses_call(r, item, &path, &self.names)?;
                let key = Key::Item(r.string(item.get("id"), &path.key("id"))?.to_owned());
                if self.is_completed(&key) {
                    return Ok(());
                }
                if let Some(call) = self.open_call(&key) {
                    call.request.raw_arguments = whole.raw_arguments;
                    self.end(&key, End::Finished);
                } else {
                    // Its `added` event was not pushed: the item is whole here.
                    let seq = self.next_seq();
                    self.insert_completed(seq, key, whole);
                }
            }
            "response.output_text.delta" => {
                self.text.push_str(r.string(body.get("delta"), &root.key("delta"))?);
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let path = root.key("response");
                let response = r.object(body.get("response"), &path)?;
                if let Some(error) = r.opt_object(response.get("error"), &path.key("error"))? {
                    return Err(r.reported(error));
                }
                let reason = responses_stop_reason(r, response, &path)?;
                self.cut_off_open();
                self.stop_reason = reason;
            }
            "error" => return Err(r.reported(body)),
            _ => {}
        }
        Ok(())
    }
}

/// One OpenAI Chat tool-call delta, read and checked.
struct ChatDelta<'v> {
    index: u64,
    id: Option<&'v str>,
    name: Option<&'v str>,
    fragment: Option<&'v str>,
    /// Its choice's position in `choices`.
    choice: usize,
    /// Its position in `tool_calls`.
    position: usize,
}

impl ChatDelta<'_> {
    fn path(&self) -> String {
        format!("$.choices[{}].delta.tool_calls[{}]", self.choice, self.position)
    }
}

/// A Chat tool-call delta that starts a call without its `id` or name.
fn chat_missing(r: Reader, path: &str, field: &str) -> ResponseError {
    ResponseError::Shape {
        provider: r.provider,
        event: r.event,
        path: format!("{path}.{field}"),
        expected: "a string",
        found: "nothing".to_owned(),
    }
}
