//! Gemini's stream: whole response chunks, and Vertex's arguments streamed by `jsonPath`.

use serde_json::{Map, Value};

use super::{End, GeminiArgs, Key, OpenCall, StreamAccumulator};
use crate::model::received_text;
use crate::providers::calls::{
    describe, gemini_block_reason, gemini_call, gemini_call_path, GeminiChunk, GeminiPart, Path, PathStep, Reader,
    ResponseError,
};

impl StreamAccumulator {
    pub(super) fn gemini(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let body = r.object(Some(event), &root)?;
        r.provider_error(body)?;
        let candidates_path = root.key("candidates");
        let candidates = r.opt_array(body.get("candidates"), &candidates_path)?;
        let Some(candidate) = candidates.first() else {
            // A chunk with usage only, or a blocked prompt.
            if let Some(reason) = gemini_block_reason(r, body, &root)? {
                self.cut_off_open();
                self.stop_reason = Some(reason);
            }
            return Ok(());
        };
        let GeminiChunk { text, finish_reason, calls } = GeminiChunk::read(r, candidate, &candidates_path.index(0))?;
        if !calls.is_empty() {
            let (open, finished, started) = self.gemini_calls(r, event, calls)?;
            self.started = started;
            self.open.clear();
            for call in finished {
                self.end_call(call, End::Finished);
            }
            self.open.extend(open);
        }
        self.text.push_str(&text);
        if let Some(reason) = finish_reason {
            self.cut_off_open();
            self.stop_reason = Some(reason);
        }
        Ok(())
    }

    /// The `functionCall` parts of one chunk applied to a copy of the open call, so that an
    /// error changes nothing: the call still open after them, the calls they finished, and the
    /// number of calls started.
    fn gemini_calls(
        &self,
        r: Reader,
        event: &Value,
        parts: Vec<GeminiPart>,
    ) -> Result<(Option<OpenCall>, Vec<OpenCall>, usize), ResponseError> {
        let mut open = self.open.first().cloned();
        let mut finished = Vec::new();
        let mut started = self.started;
        for part in parts {
            let GeminiPart { position, name, id, args, partial_args, will_continue, mut signature } = part;
            if let Some(name) = name {
                // A new call: Gemini streams one call at a time.
                finished.extend(open.take());
                let request = gemini_call(&self.names, &name, id, started, signature.take());
                open = Some(OpenCall {
                    key: Key::Unnamed,
                    seq: started,
                    request,
                    initial: None,
                    gemini: Some(GeminiArgs::default()),
                });
                started += 1;
            }
            let Some(call) = open.as_mut() else {
                let found = &event["candidates"][0]["content"]["parts"][position]["functionCall"];
                return Err(ResponseError::NoOpenCall {
                    provider: self.provider,
                    event: self.events,
                    path: gemini_call_path(position),
                    found: received_text(found),
                });
            };
            if let Some(signature) = signature {
                call.request.provider_data.entry("thoughtSignature").or_insert(Value::from(signature));
            }
            let gemini = call.gemini.get_or_insert_with(GeminiArgs::default);
            if let Some(args) = args {
                gemini.args.extend(args);
                gemini.continuing = None;
            }
            for entry in partial_args {
                let Some(value) = entry.value else { continue };
                let append = gemini.continuing.as_deref() == Some(entry.json_path.as_str());
                let continues = entry.will_continue && value.is_string();
                if !set_at(&mut gemini.args, &entry.steps, value, append) {
                    return Err(ResponseError::Shape {
                        provider: self.provider,
                        event: r.event,
                        path: format!("{}.partialArgs[{}].jsonPath", gemini_call_path(position), entry.position),
                        expected: "a path the arguments can hold (an array index at most the array's length)",
                        found: describe(Some(&Value::from(entry.json_path))),
                    });
                }
                gemini.continuing = continues.then_some(entry.json_path);
            }
            gemini.will_continue = will_continue;
            call.request.raw_arguments = serde_json::to_string(&gemini.args).unwrap_or_default();
            if !will_continue {
                finished.extend(open.take());
            }
        }
        Ok((open, finished, started))
    }
}

/// Sets `value` at `steps` below `root`, making the objects and arrays on the way; appends it
/// to the string there when `append`. `false` when a step does not fit what is there (a key
/// into an array, an index past an array's end).
fn set_at(root: &mut Map<String, Value>, steps: &[PathStep], value: Value, append: bool) -> bool {
    let Some((PathStep::Key(first), rest)) = steps.split_first() else {
        return false;
    };
    let slot = root.entry(first.clone()).or_insert(Value::Null);
    set_below(slot, rest, value, append)
}

fn set_below(slot: &mut Value, steps: &[PathStep], value: Value, append: bool) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        match (slot, value) {
            (Value::String(existing), Value::String(more)) if append => existing.push_str(&more),
            (slot, value) => *slot = value,
        }
        return true;
    };
    if slot.is_null() {
        *slot = match step {
            PathStep::Key(_) => Value::Object(Map::new()),
            PathStep::Index(_) => Value::Array(Vec::new()),
        };
    }
    match (step, slot) {
        (PathStep::Key(key), Value::Object(object)) => {
            set_below(object.entry(key.clone()).or_insert(Value::Null), rest, value, append)
        }
        (PathStep::Index(index), Value::Array(items)) => {
            if *index == items.len() {
                items.push(Value::Null);
            }
            match items.get_mut(*index) {
                Some(item) => set_below(item, rest, value, append),
                None => false,
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_at_builds_objects_and_arrays_and_refuses_what_does_not_fit() {
        let mut args = Map::new();
        let steps = |path: &str| crate::providers::calls::parse_json_path(path).unwrap();
        assert!(set_at(&mut args, &steps("$.r.items[0].name"), json!("Lasa"), false));
        assert!(set_at(&mut args, &steps("$.r.items[0].name"), json!("gna"), true));
        assert!(set_at(&mut args, &steps("$.r.items[1]"), json!(2), false));
        assert_eq!(Value::Object(args.clone()), json!({"r": {"items": [{"name": "Lasagna"}, 2]}}));
        assert!(!set_at(&mut args, &steps("$.r.items[5]"), json!(1), false));
        assert!(!set_at(&mut args, &steps("$.r.items.x"), json!(1), false));
        assert!(!set_at(&mut args, &steps("$[0]"), json!(1), false));
    }
}
