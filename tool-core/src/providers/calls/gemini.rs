//! Gemini: `functionCall` parts, and the JSON paths of Vertex's streamed `partialArgs`.

use serde_json::{Map, Value};

use super::read::{describe, restored, ParsedCalls, Path, Reader, ResponseError};
use crate::model::ToolCallRequest;
use crate::providers::dialect::Provider;
use crate::providers::names::NameMap;

/// Gemini (Gemini API and Vertex AI): the `functionCall` parts of `candidates[0].content.parts`
/// (several parts are parallel calls), the text of the text parts that are not thoughts, the
/// stop reason from `finishReason`.
///
/// A call's `args` object is written as JSON text (`{}` when absent). A part's
/// `thoughtSignature` goes to `provider_data["thoughtSignature"]`. A call without `id` gets
/// `gemini_call_{i}`, `i` its position among the response's calls (from 0), and
/// `provider_data["generatedId"] = true`. A response without candidates whose prompt was
/// blocked has no calls and the `blockReason` as its stop reason.
pub fn gemini(response: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    let r = Reader::response(Provider::Gemini);
    let root = Path::Root;
    let body = r.object(Some(response), &root)?;
    r.provider_error(body)?;
    let candidates_path = root.key("candidates");
    let candidates = r.opt_array(body.get("candidates"), &candidates_path)?;
    let Some(candidate) = candidates.first() else {
        return match gemini_block_reason(r, body, &root)? {
            Some(reason) => Ok(ParsedCalls { stop_reason: Some(reason), ..ParsedCalls::default() }),
            None => Err(r.shape(&candidates_path, "an array of candidates", body.get("candidates"))),
        };
    };
    let chunk = GeminiChunk::read(r, candidate, &candidates_path.index(0))?;
    let mut parsed = ParsedCalls { text: chunk.text, stop_reason: chunk.finish_reason, ..ParsedCalls::default() };
    for part in chunk.calls {
        let Some(name) = part.name else {
            return Err(ResponseError::Shape {
                provider: r.provider,
                event: None,
                path: format!("{}.name", gemini_call_path(part.position)),
                expected: "a string",
                found: describe(None),
            });
        };
        let mut call = gemini_call(names, &name, part.id, parsed.calls.len(), part.signature);
        if let Some(args) = part.args {
            call.raw_arguments = Value::Object(args).to_string();
        }
        parsed.calls.push(call);
    }
    Ok(restored(parsed, names))
}

/// A Gemini call as it starts: the id given or generated, the thought signature kept.
pub(in crate::providers) fn gemini_call(
    names: &NameMap,
    name: &str,
    id: Option<String>,
    position: usize,
    signature: Option<String>,
) -> ToolCallRequest {
    let generated = id.is_none();
    let id = id.unwrap_or_else(|| format!("gemini_call_{position}"));
    let mut call = ToolCallRequest::new(names.tool_name(name), id, "{}");
    if let Some(signature) = signature {
        call.provider_data.insert("thoughtSignature".to_owned(), Value::from(signature));
    }
    if generated {
        call.provider_data.insert("generatedId".to_owned(), Value::Bool(true));
    }
    call
}

/// `promptFeedback.blockReason`, when the prompt was blocked.
pub(in crate::providers) fn gemini_block_reason(
    r: Reader,
    body: &Map<String, Value>,
    root: &Path<'_>,
) -> Result<Option<String>, ResponseError> {
    let feedback_path = root.key("promptFeedback");
    let Some(feedback) = r.opt_object(body.get("promptFeedback"), &feedback_path)? else {
        return Ok(None);
    };
    Ok(r.opt_string(feedback.get("blockReason"), &feedback_path.key("blockReason"))?.map(str::to_owned))
}

/// What one Gemini candidate (a whole response's, or one streamed chunk's) holds.
#[derive(Debug)]
pub(in crate::providers) struct GeminiChunk {
    /// The text of the text parts that are not thoughts.
    pub text: String,
    /// `finishReason`.
    pub finish_reason: Option<String>,
    /// The `functionCall` parts, in order.
    pub calls: Vec<GeminiPart>,
}

/// The path of the `functionCall` of part `position` of the first candidate.
pub(in crate::providers) fn gemini_call_path(position: usize) -> String {
    format!("$.candidates[0].content.parts[{position}].functionCall")
}

/// One `functionCall` part, read and checked.
#[derive(Debug)]
pub(in crate::providers) struct GeminiPart {
    /// The part's position among the candidate's parts.
    pub position: usize,
    /// `name` (absent on Vertex's continuation parts).
    pub name: Option<String>,
    /// `id`.
    pub id: Option<String>,
    /// `args`.
    pub args: Option<Map<String, Value>>,
    /// Vertex's `partialArgs`.
    pub partial_args: Vec<PartialArg>,
    /// Vertex's `willContinue`: more of this call follows.
    pub will_continue: bool,
    /// The part's `thoughtSignature`.
    pub signature: Option<String>,
}

/// One of Vertex's `partialArgs`: a value at a JSON path of the arguments.
#[derive(Debug)]
pub(in crate::providers) struct PartialArg {
    /// The JSON path as sent (`$.recipe.steps[0]`).
    pub json_path: String,
    /// The path's steps.
    pub steps: Vec<PathStep>,
    /// The value: from `stringValue`, `numberValue`, `boolValue` or `nullValue`; `None` when
    /// the entry holds none of them.
    pub value: Option<Value>,
    /// `willContinue`: a string value continues in the next entry for the same path.
    pub will_continue: bool,
    /// The entry's position in `partialArgs`.
    pub position: usize,
}

/// One step of a Vertex `jsonPath`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::providers) enum PathStep {
    /// `.key` or `['key']`.
    Key(String),
    /// `[index]`.
    Index(usize),
}

impl GeminiChunk {
    /// Reads one candidate at `path`.
    pub(in crate::providers) fn read(r: Reader, candidate: &Value, path: &Path<'_>) -> Result<Self, ResponseError> {
        let candidate = r.object(Some(candidate), path)?;
        let finish_reason = r.opt_string(candidate.get("finishReason"), &path.key("finishReason"))?.map(str::to_owned);
        let content_path = path.key("content");
        let mut chunk = GeminiChunk { text: String::new(), finish_reason, calls: Vec::new() };
        let Some(content) = r.opt_object(candidate.get("content"), &content_path)? else {
            return Ok(chunk);
        };
        let parts_path = content_path.key("parts");
        for (i, part) in r.opt_array(content.get("parts"), &parts_path)?.iter().enumerate() {
            let part_path = parts_path.index(i);
            let part = r.object(Some(part), &part_path)?;
            let thought = r.opt_bool(part.get("thought"), &part_path.key("thought"))?.unwrap_or(false);
            if let Some(text) = r.opt_string(part.get("text"), &part_path.key("text"))?
                && !thought
            {
                chunk.text.push_str(text);
            }
            let call_path = part_path.key("functionCall");
            let Some(function_call) = r.opt_object(part.get("functionCall"), &call_path)? else {
                continue;
            };
            let signature = r.opt_string(part.get("thoughtSignature"), &part_path.key("thoughtSignature"))?;
            chunk.calls.push(GeminiPart::read(r, function_call, &call_path, i, signature)?);
        }
        Ok(chunk)
    }
}

impl GeminiPart {
    fn read(
        r: Reader,
        call: &Map<String, Value>,
        path: &Path<'_>,
        position: usize,
        signature: Option<&str>,
    ) -> Result<Self, ResponseError> {
        let name = r.opt_string(call.get("name"), &path.key("name"))?.map(str::to_owned);
        let id = r.opt_string(call.get("id"), &path.key("id"))?.map(str::to_owned);
        let args = r.opt_object(call.get("args"), &path.key("args"))?.cloned();
        let will_continue = r.opt_bool(call.get("willContinue"), &path.key("willContinue"))?.unwrap_or(false);
        let partial_path = path.key("partialArgs");
        let mut partial_args = Vec::new();
        for (i, entry) in r.opt_array(call.get("partialArgs"), &partial_path)?.iter().enumerate() {
            partial_args.push(PartialArg::read(r, entry, &partial_path.index(i), i)?);
        }
        Ok(GeminiPart {
            position,
            name,
            id,
            args,
            partial_args,
            will_continue,
            signature: signature.map(str::to_owned),
        })
    }
}

impl PartialArg {
    fn read(r: Reader, entry: &Value, path: &Path<'_>, position: usize) -> Result<Self, ResponseError> {
        let entry = r.object(Some(entry), path)?;
        let json_path_path = path.key("jsonPath");
        let json_path = r.string(entry.get("jsonPath"), &json_path_path)?;
        let steps = parse_json_path(json_path)
            .ok_or_else(|| r.shape(&json_path_path, "a JSON path like `$.a.b[0]`", entry.get("jsonPath")))?;
        let will_continue = r.opt_bool(entry.get("willContinue"), &path.key("willContinue"))?.unwrap_or(false);
        let value = if let Some(text) = r.opt_string(entry.get("stringValue"), &path.key("stringValue"))? {
            Some(Value::from(text))
        } else if let Some(number) = entry.get("numberValue").filter(|v| !v.is_null()) {
            if !number.is_number() {
                return Err(r.shape(&path.key("numberValue"), "a number", Some(number)));
            }
            Some(number.clone())
        } else if let Some(flag) = r.opt_bool(entry.get("boolValue"), &path.key("boolValue"))? {
            Some(Value::Bool(flag))
        } else if entry.contains_key("nullValue") {
            Some(Value::Null)
        } else {
            None
        };
        Ok(PartialArg { json_path: json_path.to_owned(), steps, value, will_continue, position })
    }
}

/// The deepest `jsonPath` read: as deep as `serde_json` parses.
const MAX_PATH_STEPS: usize = 128;

/// The steps of a Vertex `jsonPath` below `$`: `.key`, `['key']`, `["key"]`, `[index]`.
/// `None` when it is not such a path, is `$` itself, or is deeper than [`MAX_PATH_STEPS`].
pub(in crate::providers) fn parse_json_path(text: &str) -> Option<Vec<PathStep>> {
    let mut rest = text.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if steps.len() == MAX_PATH_STEPS {
            return None;
        }
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(PathStep::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            if let Some(quote) = after.chars().next().filter(|c| *c == '\'' || *c == '"') {
                let inner = &after[1..];
                let end = inner.find(quote)?;
                steps.push(PathStep::Key(inner[..end].to_owned()));
                rest = inner[end + 1..].strip_prefix(']')?;
            } else {
                let end = after.find(']')?;
                let digits = &after[..end];
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                steps.push(PathStep::Index(digits.parse().ok()?));
                rest = &after[end + 1..];
            }
        } else {
            return None;
        }
    }
    (!steps.is_empty()).then_some(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_read_keys_indexes_and_quoted_keys() {
        assert_eq!(
            parse_json_path("$.recipe.ingredients[0].name"),
            Some(vec![
                PathStep::Key("recipe".into()),
                PathStep::Key("ingredients".into()),
                PathStep::Index(0),
                PathStep::Key("name".into())
            ])
        );
        assert_eq!(parse_json_path("$['a.b'][12]"), Some(vec![PathStep::Key("a.b".into()), PathStep::Index(12)]));
        assert_eq!(parse_json_path(&format!("${}", ".a".repeat(128))).map(|steps| steps.len()), Some(128));
        assert_eq!(parse_json_path(&format!("${}", ".a".repeat(129))), None);
        for bad in
            ["", "$", "location", "$.", "$..a", "$[x]", "$[1", "$['a'", "$[-1]", "$.a[]", "$[99999999999999999999999]"]
        {
            assert_eq!(parse_json_path(bad), None, "{bad}");
        }
    }
}
