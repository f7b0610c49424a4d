//! The special tokens that end a turn or wrap a call (`<|eot_id|>`, `<end_of_turn>`,
//! `<|python_tag|>`...): when a host decodes with special tokens kept, they are in the text,
//! yet they are neither the model's words nor part of a call, so the reader drops them
//! wherever it meets them outside a call. The tokens that open a form's calls are that form's.

use super::reader::{starts, Opens};

/// The tokens dropped, by family: Llama 3 and 4, Qwen and ChatML, Gemma, Mistral and Llama 2,
/// gpt-oss, DeepSeek, GLM.
const DROPPED: &[&str] = &[
    "<|eot_id|>",
    "<|eom_id|>",
    "<|eot|>",
    "<|python_tag|>",
    "<|python_start|>",
    "<|python_end|>",
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<end_of_turn>",
    "<eos>",
    "</s>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<｜end▁of▁sentence｜>",
    "<|user|>",
    "<|observation|>",
];

/// Whether a dropped token begins at the start of `text`: `Yes` with its length, `More` when
/// `text` ends inside one.
pub(super) fn dropped(text: &str, finished: bool) -> (Opens, usize) {
    if !text.starts_with('<') {
        return (Opens::No, 0);
    }
    let mut more = false;
    for token in DROPPED {
        match starts(text, token, finished) {
            Opens::Yes => return (Opens::Yes, token.len()),
            Opens::More => more = true,
            Opens::No => {}
        }
    }
    (if more { Opens::More } else { Opens::No }, 0)
}

/// `raw` without the dropped tokens (and blanks) at its end: what the end of the answer left
/// in a call it cut.
pub(super) fn trim_end(raw: &str) -> &str {
    let mut raw = raw.trim_end();
    while let Some(token) = DROPPED.iter().find(|token| raw.ends_with(*token)) {
        raw = raw[..raw.len() - token.len()].trim_end();
    }
    raw
}

/// Drops the dropped tokens from text given out in pieces (the XML reader's words): a piece's
/// end that could begin a token waits for the next piece.
#[derive(Debug, Default)]
pub(super) struct TextFilter {
    pending: String,
}

impl TextFilter {
    /// Takes a piece; returns what can be given out.
    pub fn push(&mut self, piece: &str) -> String {
        self.pending.push_str(piece);
        self.take(false)
    }

    /// Gives out what waited: the text ended (a call or the answer's end follows).
    pub fn flush(&mut self) -> String {
        self.take(true)
    }

    fn take(&mut self, finished: bool) -> String {
        let text = std::mem::take(&mut self.pending);
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find('<') {
            out.push_str(&rest[..at]);
            match dropped(&rest[at..], finished) {
                (Opens::Yes, len) => rest = &rest[at + len..],
                (Opens::More, _) => {
                    self.pending = rest[at..].to_owned();
                    return out;
                }
                (Opens::No, _) => {
                    out.push('<');
                    rest = &rest[at + 1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}
