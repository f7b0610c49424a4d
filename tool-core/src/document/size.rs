//! What a tool list costs on every request: characters, and tokens counted with tiktoken's
//! `o200k_base` (the OpenAI family's tokenizer; for the other providers, whose tokenizers are
//! not published, the same count is an estimate). And descriptions cut to a token budget, for
//! hosts whose list costs too much.

use serde::Serialize;
use serde_json::Value;

use super::format::{Format, FORMATS};
use crate::model::ToolDefinition;
use crate::providers::export::{export, ExportError};
use crate::providers::Dialect;

/// The tokenizer counts are made with.
pub const TOKENIZER: &str = "o200k_base";

/// One tool's (or the whole list's) size in one format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolSize {
    /// The tool's name; `(catalog)` for the whole list.
    pub name: String,
    /// Characters of its text in the format (compact JSON, or the `<function>` line).
    pub chars: usize,
    /// Tokens of that text, by tiktoken's `o200k_base`.
    pub tokens: usize,
}

/// The sizes in one format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DialectSize {
    /// The format's name (`openai-strict`, `xml`).
    pub format: &'static str,
    /// Whether the token counts are the provider's own tokenizer's (the OpenAI formats), or an
    /// estimate.
    pub exact: bool,
    /// Each tool the format can express, in the order given.
    pub tools: Vec<ToolSize>,
    /// The tools it cannot express (`anthropic-strict` and a recursive type), left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// The list of the tools it can express, as sent: the request fragment, or the
    /// `<functions>` block.
    pub total: ToolSize,
}

impl DialectSize {
    /// The size of the tool named `name`, if the format can express it.
    pub fn tool(&self, name: &str) -> Option<&ToolSize> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// A description cut to the budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shortened {
    /// The tool.
    pub tool: String,
    /// The parameter, when it was a parameter's description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// Tokens before and after.
    pub tokens_before: usize,
    /// Tokens after.
    pub tokens_after: usize,
}

/// Sizes in every provider format and the XML block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeReport {
    /// The tokenizer: `o200k_base`.
    pub tokenizer: &'static str,
    /// One entry per format, in [`FORMATS`] order (the JSON document and Markdown left out:
    /// they are not sent to models).
    pub formats: Vec<DialectSize>,
    /// The descriptions [`shorten_descriptions`] cut before the sizes were taken, when it ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shortened: Vec<Shortened>,
}

/// Tokens of `text` by `o200k_base`.
pub(crate) fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

fn size(name: &str, text: &str) -> ToolSize {
    ToolSize { name: name.to_owned(), chars: text.chars().count(), tokens: tokens(text) }
}

/// The size of `tools` in every format a model is sent. A tool a format cannot express is
/// listed as refused there, and left out of its total.
pub fn size_report(tools: &[ToolDefinition]) -> Result<SizeReport, ExportError> {
    let mut formats = Vec::new();
    for &(name, format) in FORMATS {
        let (mut sizes, mut refused, mut kept) = (Vec::new(), Vec::new(), Vec::new());
        for tool in tools {
            let text = match format {
                Format::Json | Format::Markdown => break,
                Format::Dialect(dialect) => export(dialect, [tool]).map(|e| e.tools[0].to_string()),
                #[cfg(feature = "xml")]
                Format::Xml => crate::xml::functions_block([tool]).map(|b| b.lines().nth(1).unwrap_or("").to_owned()),
            };
            match text {
                Ok(text) => {
                    sizes.push(size(&tool.name, &text));
                    kept.push(tool);
                }
                Err(_) => refused.push(tool.name.clone()),
            }
        }
        let total = match format {
            Format::Json | Format::Markdown => continue,
            Format::Dialect(dialect) => export(dialect, kept)?.request_fragment().to_string(),
            #[cfg(feature = "xml")]
            Format::Xml => crate::xml::functions_block(kept)?,
        };
        let exact = matches!(format, Format::Dialect(Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. }));
        formats.push(DialectSize { format: name, exact, tools: sizes, refused, total: size("(catalog)", &total) });
    }
    Ok(SizeReport { tokenizer: TOKENIZER, formats, shortened: Vec::new() })
}

/// `tools` with every description (the tool's and each parameter's, in the parameter list and
/// in the schema) longer than `budget` tokens cut to fit: at the last sentence that fits, else
/// at the last word that fits, with `…`. Returns the tools and what was cut.
pub fn shorten_descriptions(tools: &[ToolDefinition], budget: usize) -> (Vec<ToolDefinition>, Vec<Shortened>) {
    let mut cut = Vec::new();
    let tools = tools
        .iter()
        .map(|tool| {
            let mut tool = tool.clone();
            if let Some((text, before, after)) = shortened(&tool.description, budget) {
                cut.push(Shortened {
                    tool: tool.name.clone(),
                    parameter: None,
                    tokens_before: before,
                    tokens_after: after,
                });
                tool.description = text;
            }
            for p in &mut tool.parameters {
                if let Some((text, before, after)) = shortened(&p.description, budget) {
                    let schema = tool.input_schema.get_mut("properties").and_then(|props| props.get_mut(&p.name));
                    if let Some(Value::Object(schema)) = schema {
                        schema.insert("description".into(), Value::String(text.clone()));
                    }
                    cut.push(Shortened {
                        tool: tool.name.clone(),
                        parameter: Some(p.name.clone()),
                        tokens_before: before,
                        tokens_after: after,
                    });
                    p.description = text;
                }
            }
            tool
        })
        .collect();
    (tools, cut)
}

/// `text` cut to `budget` tokens, with its token counts before and after; `None` when it fits.
fn shortened(text: &str, budget: usize) -> Option<(String, usize, usize)> {
    let before = tokens(text);
    if before <= budget {
        return None;
    }
    // Whole sentences first: the longest run of them that fits.
    let ends: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| {
            matches!(c, '.' | '!' | '?' | '。' | '！' | '？') && text[i + c.len_utf8()..].starts_with([' ', '\n'])
                || c == '\n'
        })
        .map(|(i, c)| i + c.len_utf8())
        .collect();
    if let Some(&end) = ends.iter().rev().find(|&&end| tokens(text[..end].trim_end()) <= budget) {
        let kept = text[..end].trim_end().to_owned();
        let after = tokens(&kept);
        return Some((kept, before, after));
    }
    // Else words, with an ellipsis: the longest prefix ending at a space that fits.
    let spaces: Vec<usize> = text.char_indices().filter(|&(_, c)| c == ' ').map(|(i, _)| i).collect();
    let fits = |end: usize| tokens(&format!("{}…", &text[..end])) <= budget;
    let end = spaces.iter().rev().copied().find(|&end| end > 0 && fits(end)).or_else(|| {
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
        boundaries.iter().rev().copied().find(|&end| fits(end))
    })?;
    let kept = format!("{}…", text[..end].trim_end());
    let after = tokens(&kept);
    Some((kept, before, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_cut_at_the_last_sentence_that_fits_else_at_a_word() {
        let text = "Search the notes. Returns at most ten summaries, best first, with their sources.";
        assert_eq!(tokens("Search the notes."), 4);
        assert_eq!(shortened(text, 6), Some(("Search the notes.".to_owned(), 17, 4)));
        assert_eq!(shortened(text, 3), Some(("Search the…".to_owned(), 17, 3)));
        assert_eq!(shortened(text, 17), None);
        assert_eq!(shortened("观星阁是一个会议室", 2).map(|(t, ..)| t.chars().count() <= 9), Some(true));
    }
}
