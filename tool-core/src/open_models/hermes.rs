//! The forms the XML reader reads ([`crate::xml`]): Hermes's and Qwen's `<tool_call>` JSON,
//! Qwen3-Coder's `<tool_call><function=..><parameter=..>`, and this crate's `<function_calls>`.
//! Once an answer shows one of them, the XML reader reads the rest of it.

use super::reader::{starts, starts_any, Opens};

/// Whether one of the XML reader's forms opens at the start of `text`. `<tool_call>` alone is
/// not enough: GLM writes it too, with the tool's name after it.
pub(super) fn opens(text: &str, finished: bool) -> Opens {
    match starts_any(text, &["<function_calls>", "<invoke", "<function="], finished) {
        Opens::No => {}
        found => return found,
    }
    if starts(text, "<tool_call>", finished) != Opens::Yes {
        return starts(text, "<tool_call>", finished);
    }
    let after = text["<tool_call>".len()..].trim_start();
    if after.starts_with('{') || after.starts_with("<function=") {
        Opens::Yes
    } else if !finished && (after.is_empty() || "<function=".starts_with(after)) {
        Opens::More
    } else {
        Opens::No
    }
}
