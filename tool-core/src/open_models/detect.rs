//! Which forms an answer holds, for a host serving a model it does not know.

use super::engine::OpenModelParser;
use super::form::CallForm;

/// The forms whose calls `text` holds, in the order of [`CallForm::ALL`]: a form is named when
/// its reader, knowing no tools, finds a call in the text (a call cut by the text's end counts).
/// Forms written in plain text need their own shape to be named: a Python call needs its
/// brackets or a keyword argument, Llama's JSON a `"name"` beside `"parameters"` or `"arguments"`;
/// and they are named only when no form with markup is, since the calls of those forms hold
/// text of the same shape (the JSON inside Hermes's `<tool_call>` is Llama's).
///
/// ```
/// use tool_core::open_models::{detect, CallForm};
///
/// let answer = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0\
///     <|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>";
/// assert_eq!(detect(answer), vec![CallForm::Kimi]);
/// assert!(detect("No call here.").is_empty());
/// ```
pub fn detect(text: &str) -> Vec<CallForm> {
    let holds = |form: CallForm| !OpenModelParser::for_tools([]).form(form).parse(text).calls.is_empty();
    let (plain, marked): (Vec<CallForm>, Vec<CallForm>) =
        CallForm::ALL.iter().copied().partition(|form| form.is_plain_text());
    let found: Vec<CallForm> = marked.into_iter().filter(|&form| holds(form)).collect();
    if !found.is_empty() {
        return found;
    }
    plain.into_iter().filter(|&form| holds(form)).collect()
}
