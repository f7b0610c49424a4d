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
            let term = analyzer.term(surface);
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
    // By field, in the order fields are listed; within a field, in the tool's own order.
    out.sort_by_key(|highlight| highlight.field);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn marked(h: &Highlight) -> Vec<&str> {
        h.marks.iter().map(|m| &h.text[m.clone()]).collect()
    }

    #[test]
    fn words_are_marked_only_in_the_fields_the_hit_found_them_in() {
        let tool = ToolDefinition::new(
            "memory.search",
            "Searches the notes by their words.",
            json!({"type": "object", "properties": {"words": {"type": "string", "description": "The search words."}}, "required": ["words"]}),
        );
        let search = ToolSearch::new([&tool]);
        let hit = &search.search("searching words", 1)[0];
        let found = highlight(&search, &tool, hit);
        let marks: Vec<(SearchField, Vec<&str>)> = found.iter().map(|h| (h.field, marked(h))).collect();
        assert_eq!(
            marks,
            [
                (SearchField::Name, vec!["search"]),
                (SearchField::Description, vec!["Searches", "words"]),
                (SearchField::Parameters, vec!["words"]),
                (SearchField::ParameterDescriptions, vec!["search", "words"]),
            ]
        );
    }

    #[test]
    fn overlapping_pairs_of_ideographs_make_one_mark() {
        let tool = ToolDefinition::new("weather", "查询天气预报", json!({"type": "object", "properties": {}}));
        let search = ToolSearch::new([&tool]);
        let hit = &search.search("天气预报", 1)[0];
        let marks = highlight(&search, &tool, hit);
        assert_eq!(marks.len(), 1);
        assert_eq!((marks[0].field, marked(&marks[0])), (SearchField::Description, vec!["天气预报"]));
        assert_eq!(marks[0].marks, vec![Range { start: 6, end: 18 }]);
    }
}
