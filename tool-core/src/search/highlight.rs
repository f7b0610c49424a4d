//! Why a tool matched, shown in its own words: the texts of its search document with the
//! words a query matched marked, for a person reading a ranking (the playground).

use std::ops::Range;

use serde::Serialize;

use super::document::{texts, SearchField};
use super::index::{SearchHit, ToolSearch};
use crate::model::ToolDefinition;

/// One text of a tool's search document (its name, its description, a parameter's name or
/// description, a value, a tag) with the words a query matched in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Highlight {
    /// The field the text belongs to.
    pub field: SearchField,
    /// The text, as the definition has it (cut where the search document cuts it).
    pub text: String,
    /// Where the matched words are in `text`, in bytes, in order, overlapping ones joined.
    pub marks: Vec<Range<usize>>,
}

/// The texts of `definition` in which `hit` matched a word, each with the matched words marked,
/// in the order of the search document (name, tags, description, parameters, values).
/// A word is marked where the hit says its term was found: `booking` marks `Books` in a
/// description when the stems agree.
///
/// ```
/// use serde_json::json;
/// use tool_core::search::{highlight, SearchField, ToolSearch};
/// use tool_core::ToolDefinition;
///
/// let flights = ToolDefinition::new(
///     "flights.book",
///     "Books a flight between two airports.",
///     json!({"type": "object", "properties": {"from": {"type": "string"}}, "required": []}),
/// );
/// let search = ToolSearch::new([&flights]);
/// let hit = &search.search("booking a flight", 1)[0];
/// let marked = highlight(&search, &flights, hit);
/// assert_eq!(marked[0].field, SearchField::Name);
/// assert_eq!(&marked[0].text[marked[0].marks[0].clone()], "flights");
/// assert_eq!(marked[1].text, "Books a flight between two airports.");
/// assert_eq!(marked[1].marks, [0..5, 8..14]);
/// ```
pub fn highlight(search: &ToolSearch, definition: &ToolDefinition, hit: &SearchHit) -> Vec<Highlight> {
    let analyzer = search.analyzer();
    let mut out = Vec::new();
    texts(definition, |field, text| {
        let mut marks: Vec<Range<usize>> = Vec::new();
        analyzer.words_at(text, |range, surface| {
            let term = analyzer.term(&surface);
            if hit.matches.iter().any(|m| m.term == term && m.fields.contains(&field)) {
                // Pairs of ideographs overlap: one mark over both.
                match marks.last_mut() {
                    Some(last) if range.start < last.end => last.end = last.end.max(range.end),
                    _ => marks.push(range),
                }
            }
        });
        if !marks.is_empty() {
            out.push(Highlight { field, text: text.to_owned(), marks });
        }
    });
    out
}
