//! The texts of a conversion's warning, written as serde_json writes values and cut as
//! `received_text` cuts them, straight into the warning's one string.

use std::fmt::Write as _;

use serde_json::Number;

use crate::model::{truncate, RECEIVED_MAX_CHARS};

/// Cuts what was appended after `start` when it is long, as `received_text` cuts it.
#[inline]
pub(super) fn cut_after(out: &mut String, start: usize) {
    if out.len() - start > RECEIVED_MAX_CHARS {
        cut_long(out, start);
    }
}

#[cold]
#[inline(never)]
fn cut_long(out: &mut String, start: usize) {
    let cut = truncate(&out[start..]);
    out.truncate(start);
    out.push_str(&cut);
}

/// Appends a number as serde_json writes it.
pub(super) fn push_number(out: &mut String, n: &Number) {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => push_integer(out, u, false),
        (None, Some(i)) => push_integer(out, i.unsigned_abs(), i < 0),
        _ => {
            let _ = write!(out, "{n}");
        }
    }
}

/// Appends an integer's decimal digits, as `Display` (and serde_json) writes them.
fn push_integer(out: &mut String, magnitude: u64, negative: bool) {
    if negative {
        out.push('-');
    }
    out.push_str(itoa::Buffer::new().format(magnitude));
}

/// `str::trim`, with the common case (nothing to trim) decided from the two end bytes.
pub(super) fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// Appends `text` as a JSON string literal, escaped as serde_json escapes it.
pub(super) fn push_json_string(out: &mut String, text: &str) {
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        push_serialized(out, text);
        return;
    }
    out.reserve(text.len() + 2);
    out.push('"');
    out.push_str(text);
    out.push('"');
}

/// A value as serde_json writes it, straight after the text so far (no second buffer): lists,
/// objects, and strings that need escapes.
#[cold]
#[inline(never)]
pub(super) fn push_serialized<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    let mut bytes = std::mem::take(out).into_bytes();
    let _ = serde_json::to_writer(&mut bytes, value);
    // serde_json writes UTF-8, and the text before it was a `String`.
    *out = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// Appends a warning's received text (written by `received`, which cuts it when long) and its
/// action (written by `action`) to `out`, which holds its pointer; returns where each starts.
pub(super) fn write_texts(
    out: &mut String,
    received: impl FnOnce(&mut String),
    action: impl FnOnce(&mut String),
) -> [usize; 2] {
    let start = out.len();
    received(out);
    let split = out.len();
    action(out);
    [start, split]
}

/// Room for a warning's texts after its pointer, so that writing them never grows the string:
/// what arrived as JSON (a text's quotes and some escapes: JSON sent as text escapes every
/// quote), and the action, a verb of up to 41 bytes and the new value, about as long as what
/// arrived. `text` is what arrived when it is a string.
pub(super) fn texts_capacity(text: Option<&str>) -> usize {
    let received = text.map_or(24, |text| text.len() + text.len() / 4 + 2);
    received + 41 + received.max(16)
}
