//! A call written as a JSON object, `{"name": "get_weather", "parameters": {..}}` (Llama) or
//! `{"name": .., "arguments": {..}, "id": ..}` (Mistral before v11): the name and id read, the
//! arguments kept as the text the model wrote for extraction to read.

use crate::model::{pointer, truncate, ParseWarning};
use crate::open_models::json_extent::{key_name, string_value, Extent, Member};
use crate::open_models::reader::RawCall;

/// The keys a call object may hold besides its name and arguments.
const KNOWN: &[&str] = &["name", "parameters", "arguments", "id", "type"];

/// Whether an object holding `key` at the top can still be a call (checked before its name and
/// arguments are seen, so that JSON in prose is not held back waiting).
pub(super) fn call_key(key: &str) -> bool {
    KNOWN.contains(&key)
}

/// The rule ids of the warnings about a call object ([`read_object`]).
#[derive(Debug)]
pub(super) struct ObjectRules {
    /// The name is no string.
    pub name_not_string: &'static str,
    /// Keys or the name in single quotes.
    pub single_quotes: &'static str,
    /// The arguments as a JSON string.
    pub arguments_string: &'static str,
    /// A key a call does not have, beside the arguments.
    pub unknown_key: &'static str,
    /// No `parameters` or `arguments` beside the name.
    pub no_arguments_key: &'static str,
}

/// The call in the object `extent` scanned in `buf` up to `end`, the object's end, or, when
/// `None`, to the answer's end, which cut it. Its warnings have the form's `rules`.
pub(super) fn read_object(buf: &str, extent: &Extent, end: Option<usize>, rules: &ObjectRules) -> RawCall {
    let cut = end.is_none();
    let end = end.unwrap_or(buf.len());
    let mut call = RawCall::default();
    let members = extent.members();
    let mut single_quotes = None;
    let mut arguments: Option<&Member> = None;
    let mut others: Vec<&Member> = Vec::new();
    for member in &members {
        let key_text = &buf[member.key.clone()];
        if key_text.trim_start().starts_with('\'') {
            single_quotes.get_or_insert_with(|| key_text.to_owned());
        }
        let key = key_name(key_text);
        let value = buf[member.value.clone()].trim();
        match key.as_str() {
            "name" => {
                if value.starts_with('\'') {
                    single_quotes.get_or_insert_with(|| value.to_owned());
                }
                call.name = match string_value(value) {
                    Some(name) => name,
                    None if !member.complete => value.trim_start_matches(['"', '\'']).to_owned(),
                    None => {
                        call.warnings.push(ParseWarning::new(
                            "",
                            rules.name_not_string,
                            "the tool's name as a string",
                            &truncate(value),
                            "read the text as the name",
                        ));
                        value.to_owned()
                    }
                };
            }
            "parameters" | "arguments" if arguments.is_none() => arguments = Some(member),
            "id" => call.id = string_value(value).filter(|id| !id.is_empty()),
            "type" => {}
            _ => others.push(member),
        }
    }
    if let Some(text) = single_quotes {
        call.warnings.push(ParseWarning::new(
            "",
            rules.single_quotes,
            "JSON strings in double quotes",
            &truncate(&text),
            "read the single-quoted strings",
        ));
    }
    match arguments {
        Some(member) => {
            let value = buf[member.value.clone()].trim();
            call.raw = match value.starts_with(['"', '\'']).then(|| string_value(value)).flatten() {
                Some(inner) => {
                    call.warnings.push(ParseWarning::new(
                        "",
                        rules.arguments_string,
                        "the arguments as a JSON object",
                        &truncate(value),
                        "read the JSON text inside the string",
                    ));
                    inner
                }
                None => value.to_owned(),
            };
            for other in others {
                let key = key_name(&buf[other.key.clone()]);
                call.warnings.push(ParseWarning::new(
                    &pointer::child("", &key),
                    rules.unknown_key,
                    "`name`, `parameters` or `arguments`, `id`, `type`",
                    &truncate(buf[other.value.clone()].trim()),
                    "ignored the key",
                ));
            }
        }
        None if !cut => {
            // `{"name": "get_weather", "city": "Paris"}`: the other keys are the arguments.
            let pairs: Vec<String> = others
                .iter()
                .map(|m| format!("{}: {}", buf[m.key.clone()].trim(), buf[m.value.clone()].trim()))
                .collect();
            call.raw = format!("{{{}}}", pairs.join(", "));
            let action = if others.is_empty() {
                "read the call without arguments"
            } else {
                "read the object's other keys as the arguments"
            };
            call.warnings.push(ParseWarning::new(
                "",
                rules.no_arguments_key,
                "`parameters` or `arguments` beside `name`",
                &truncate(buf[extent.start()..end].trim()),
                action,
            ));
        }
        // Cut before its arguments: what arrived of the object is kept.
        None => call.raw = buf[extent.start()..end].trim().to_owned(),
    }
    call
}

/// What comes next inside a JSON list of calls (`[{..}, {..}]`), from `pos`.
pub(super) enum ListItem {
    /// Blanks, up to the end given.
    Blank(usize),
    /// The text so far ends here: nothing tells yet.
    More,
    /// A `,` between calls, ending at the end given.
    Comma(usize),
    /// A call object, beginning at `pos`.
    Object,
    /// The list's `]`, ending at the end given.
    Close(usize),
    /// Anything else (words, or the end of a finished answer): the list was left open.
    Other,
}

/// The next piece of a list of calls at `pos`.
pub(super) fn list_item(buf: &str, pos: usize, finished: bool) -> ListItem {
    let text = &buf[pos..];
    let blank = text.len() - text.trim_start().len();
    if blank > 0 {
        return ListItem::Blank(pos + blank);
    }
    match text.as_bytes().first() {
        None if !finished => ListItem::More,
        Some(b',') => ListItem::Comma(pos + 1),
        Some(b'{') => ListItem::Object,
        Some(b']') => ListItem::Close(pos + 1),
        _ => ListItem::Other,
    }
}
