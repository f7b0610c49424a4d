//! Anthropic's stream: content blocks started, their JSON fragments, stopped.

use serde_json::Value;

use super::{End, Key, StreamAccumulator};
use crate::model::ToolCallRequest;
use crate::providers::calls::{Path, Reader, ResponseError};

impl StreamAccumulator {
    pub(super) fn anthropic(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let body = r.object(Some(event), &root)?;
        let kind = r.string(body.get("type"), &root.key("type"))?;
        let index_path = root.key("index");
        match kind {
            "content_block_start" => {
                let index = r.index(body.get("index"), &index_path)?;
                let path = root.key("content_block");
                let block = r.object(body.get("content_block"), &path)?;
                let block_kind = r.string(block.get("type"), &path.key("type"))?;
                let key = Key::Index(index);
                if self.is_open(&key) || self.is_completed(&key) || self.other_blocks.contains(&index) {
                    return Err(r.shape(
                        &index_path,
                        "the index of a content block not started before",
                        body.get("index"),
                    ));
                }
                match block_kind {
                    "tool_use" => {
                        let id = r.string(block.get("id"), &path.key("id"))?;
                        let name = r.string(block.get("name"), &path.key("name"))?;
                        let input = r.opt_object(block.get("input"), &path.key("input"))?;
                        let initial = match input {
                            Some(input) if !input.is_empty() => serde_json::to_string(input).ok(),
                            _ => None,
                        };
                        let request = ToolCallRequest::new(self.names.tool_name(name), id, "");
                        self.start(key, request).initial = initial;
                    }
                    "text" => {
                        let text = r.opt_string(block.get("text"), &path.key("text"))?.unwrap_or_default();
                        self.text.push_str(text);
                        self.other_blocks.push(index);
                    }
                    _ => self.other_blocks.push(index),
                }
            }
            "content_block_delta" => {
                let index = r.index(body.get("index"), &index_path)?;
                let path = root.key("delta");
                let delta = r.object(body.get("delta"), &path)?;
                match r.string(delta.get("type"), &path.key("type"))? {
                    "input_json_delta" => {
                        let fragment = r.string(delta.get("partial_json"), &path.key("partial_json"))?;
                        let key = Key::Index(index);
                        if let Some(call) = self.open_call(&key) {
                            call.request.raw_arguments.push_str(fragment);
                        } else if !self.other_blocks.contains(&index) {
                            // Server tool blocks stream their input too; others name no call.
                            return Err(self.no_open_call(&index_path, body.get("index")));
                        }
                    }
                    "text_delta" => self.text.push_str(r.string(delta.get("text"), &path.key("text"))?),
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = r.index(body.get("index"), &index_path)?;
                let key = Key::Index(index);
                if self.is_open(&key) {
                    self.end(&key, End::Finished);
                } else if !self.is_completed(&key) && !self.other_blocks.contains(&index) {
                    return Err(self.no_open_call(&index_path, body.get("index")));
                }
            }
            "message_delta" => {
                let path = root.key("delta");
                let delta = r.object(body.get("delta"), &path)?;
                if let Some(reason) = r.opt_string(delta.get("stop_reason"), &path.key("stop_reason"))? {
                    self.stop_reason = Some(reason.to_owned());
                }
            }
            "message_stop" => self.cut_off_open(),
            "error" => {
                let error = r.object(body.get("error"), &root.key("error"))?;
                return Err(r.reported(error));
            }
            _ => {}
        }
        Ok(())
    }
}
