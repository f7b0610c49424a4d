//! What a tool list costs on every request: characters, and tokens counted with tiktoken's
//! `o200k_base` (the OpenAI family's tokenizer; for the other providers, whose tokenizers are
//! not published, the same count is an estimate). And descriptions cut to a token budget, for
//! hosts whose list costs too much.

use serde::Serialize;
use serde_json::{json, Value};

use super::format::{Format, FORMATS};
use crate::model::ToolDefinition;
use crate::providers::export::{export, ExportError, ExportProblem};
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
    /// The per-request limits that list exceeds (Anthropic strict takes at most 20 strict
    /// tools): the provider would refuse it, and `total` is what it would have cost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub over_limit: Vec<String>,
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
        if matches!(format, Format::Json | Format::Markdown) {
            continue;
        }
        let (total, over_limit) = list(format, &kept, &[])?;
        let exact = matches!(format, Format::Dialect(Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. }));
        let total = size("(catalog)", &total);
        formats.push(DialectSize { format: name, exact, tools: sizes, refused, total, over_limit });
    }
    Ok(SizeReport { tokenizer: TOKENIZER, formats, shortened: Vec::new() })
}

/// What the tools a search finds cost before it, in a format, and how they are sent.
#[cfg(feature = "search")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeferredCost {
    /// Not sent until a search finds them; the next request adds their definitions (OpenAI
    /// Chat Completions, Gemini, MCP, the XML block): nothing up front.
    NotSent,
    /// Sent with `defer_loading: true` but kept out of the model's context until a search
    /// finds them (Anthropic, with its search tools or ours): nothing up front.
    OutOfContext,
    /// Sent with `defer_loading: true`: the model still sees each one's name and description
    /// up front, and only the parameters wait for a search (OpenAI Responses).
    NameAndDescription,
}

#[cfg(feature = "search")]
impl DeferredCost {
    /// What a format does with deferred tools.
    pub(crate) fn of(format: Format) -> DeferredCost {
        match format {
            Format::Dialect(Dialect::Anthropic { .. }) => DeferredCost::OutOfContext,
            Format::Dialect(Dialect::OpenAiResponses { .. }) => DeferredCost::NameAndDescription,
            _ => DeferredCost::NotSent,
        }
    }
}

/// What one format sends up front with every tool, and with the deferred ones left to a search.
#[cfg(feature = "search")]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpFront {
    /// The format's name (`responses`, `anthropic`).
    pub format: &'static str,
    /// Whether the counts are the provider's own tokenizer's (the OpenAI formats).
    pub exact: bool,
    /// What the deferred tools cost before a search finds them.
    pub deferred_cost: DeferredCost,
    /// Every tool the format can express, sent up front: the whole list of [`SizeReport`].
    pub all_tools: ToolSize,
    /// The tools not deferred and the search tool, plus what [`deferred_cost`](UpFront::deferred_cost)
    /// says the deferred ones still cost. The whole list when nothing is deferred.
    pub with_deferral: ToolSize,
    /// Tokens saved up front: `all_tools` less `with_deferral` (below zero when the search tool
    /// costs more than the few tools it defers).
    pub saved_tokens: i64,
    /// The saving in percent of `all_tools`, to one decimal.
    pub saved_percent: f64,
    /// The tools the format cannot express, left out of both.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// The per-request limits the whole list exceeds (the provider would refuse it; priced
    /// all the same).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub over_limit: Vec<String>,
    /// The per-request limits the list with deferral still exceeds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub with_deferral_over_limit: Vec<String>,
}

/// What requests send up front with tool search and without, per format.
#[cfg(feature = "search")]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeferralReport {
    /// The tokenizer: `o200k_base`.
    pub tokenizer: &'static str,
    /// The search tool priced (`search_tools`, [`SearchToolBuilder`](crate::search::SearchToolBuilder)'s
    /// default), when a tool is deferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_tool: Option<String>,
    /// The tools sent up front, in the order given.
    pub loaded: Vec<String>,
    /// The tools left for the search to find, in the order given.
    pub deferred: Vec<String>,
    /// One entry per format, in [`FORMATS`] order.
    pub formats: Vec<UpFront>,
}

/// What `tools` cost up front in every format a model is sent, with every tool sent and with
/// those `is_deferred` accepts left to a search: the others plus the search tool
/// ([`SearchToolBuilder`](crate::search::SearchToolBuilder) over the deferred ones), plus each
/// deferred tool's name and description where the provider still shows them (OpenAI
/// Responses). Anthropic's own search tools are priced as ours: the text Anthropic adds for them
/// is not published.
///
/// ```
/// use serde_json::json;
/// use tool_core::document::deferral_report;
/// use tool_core::ToolDefinition;
///
/// let schema = json!({"type": "object", "properties": {"city": {"type": "string", "description": "The city."}}, "required": ["city"]});
/// let tools: Vec<ToolDefinition> = ["weather", "flights", "hotels", "trains", "taxis", "museums"]
///     .iter()
///     .map(|name| ToolDefinition::new(*name, format!("Finds {name} in a city, with what each costs and when."), schema.clone()))
///     .collect();
/// let report = deferral_report(&tools, |tool| tool.name != "weather").unwrap();
/// assert_eq!(report.deferred.len(), 5);
/// let openai = &report.formats[0];
/// assert_eq!(openai.format, "openai");
/// assert!(openai.with_deferral.tokens < openai.all_tools.tokens);
/// ```
#[cfg(feature = "search")]
pub fn deferral_report(
    tools: &[ToolDefinition],
    is_deferred: impl Fn(&ToolDefinition) -> bool,
) -> Result<DeferralReport, ExportError> {
    let (deferred, loaded): (Vec<&ToolDefinition>, Vec<&ToolDefinition>) = tools.iter().partition(|t| is_deferred(t));
    let search = if deferred.is_empty() {
        None
    } else {
        let tool = crate::search::SearchToolBuilder::new(deferred.iter().copied())
            .build()
            .expect("the search tool's own name and schema are valid");
        Some(crate::tool::Tool::definition(&tool).clone())
    };
    let mut formats = Vec::new();
    for &(name, format) in FORMATS {
        if matches!(format, Format::Json | Format::Markdown) {
            continue;
        }
        let (mut kept, mut refused) = (Vec::new(), Vec::new());
        for tool in tools {
            match one(format, tool) {
                Ok(_) => kept.push(tool),
                Err(_) => refused.push(tool.name.clone()),
            }
        }
        let (all_tools, over_limit) = list(format, &kept, &[])?;
        let all_tools = size("(catalog)", &all_tools);
        let cost = DeferredCost::of(format);
        let mut with_deferral_over_limit = Vec::new();
        let with_deferral = match &search {
            Some(search) => {
                let mut sent: Vec<&ToolDefinition> = kept.iter().copied().filter(|t| !is_deferred(t)).collect();
                sent.push(search);
                let mut stubs = Vec::new();
                if cost == DeferredCost::NameAndDescription {
                    for tool in kept.iter().filter(|t| is_deferred(t)) {
                        let entry = one(format, tool)?;
                        stubs.push(serde_json::json!({"type": "function", "name": entry["name"], "description": entry["description"]}));
                    }
                }
                let (text, over) = list(format, &sent, &stubs)?;
                with_deferral_over_limit = over;
                size("(up front)", &text)
            }
            None => {
                with_deferral_over_limit.clone_from(&over_limit);
                all_tools.clone()
            }
        };
        let saved_tokens = all_tools.tokens as i64 - with_deferral.tokens as i64;
        let saved_percent = if all_tools.tokens == 0 {
            0.0
        } else {
            (saved_tokens as f64 * 1000.0 / all_tools.tokens as f64).round() / 10.0
        };
        let exact = matches!(format, Format::Dialect(Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. }));
        formats.push(UpFront {
            format: name,
            exact,
            deferred_cost: cost,
            all_tools,
            with_deferral,
            saved_tokens,
            saved_percent,
            refused,
            over_limit,
            with_deferral_over_limit,
        });
    }
    Ok(DeferralReport {
        tokenizer: TOKENIZER,
        search_tool: search.map(|s| s.name),
        loaded: loaded.iter().map(|t| t.name.clone()).collect(),
        deferred: deferred.iter().map(|t| t.name.clone()).collect(),
        formats,
    })
}

/// One tool in a format: its dialect entry (for the XML block, its `<function>` line as a string).
#[cfg(feature = "search")]
fn one(format: Format, tool: &ToolDefinition) -> Result<Value, ExportError> {
    match format {
        Format::Dialect(dialect) => export(dialect, [tool]).map(|mut e| e.tools.swap_remove(0)),
        #[cfg(feature = "xml")]
        Format::Xml => crate::xml::functions_block([tool]).map(Value::String),
        Format::Json | Format::Markdown => Ok(Value::Null),
    }
}

/// A list as sent: the request fragment with `extra` entries after the tools, or the
/// `<functions>` block; and the per-request limits it exceeds. Over a limit the list is still
/// priced, from each tool's entry: a catalog of thousands is what a size report is for.
fn list(format: Format, tools: &[&ToolDefinition], extra: &[Value]) -> Result<(String, Vec<String>), ExportError> {
    match format {
        Format::Dialect(dialect) => {
            let (mut fragment, over_limit) = match export(dialect, tools.iter().copied()) {
                Ok(exported) => (exported.request_fragment(), Vec::new()),
                Err(error) if error.problems.iter().all(|p| matches!(p, ExportProblem::RequestLimit { .. })) => {
                    let mut entries = Vec::with_capacity(tools.len());
                    for tool in tools {
                        entries.extend(export(dialect, [*tool])?.tools);
                    }
                    // The shape of `ExportedTools::request_fragment`.
                    let fragment = match dialect {
                        Dialect::Gemini | Dialect::GeminiJsonSchema => {
                            json!({"tools": [{"functionDeclarations": entries}]})
                        }
                        _ => json!({"tools": entries}),
                    };
                    (fragment, error.problems.iter().map(ToString::to_string).collect())
                }
                Err(error) => return Err(error),
            };
            if let Some(Value::Array(list)) = fragment.get_mut("tools") {
                list.extend(extra.iter().cloned());
            }
            Ok((fragment.to_string(), over_limit))
        }
        #[cfg(feature = "xml")]
        Format::Xml => Ok((crate::xml::functions_block(tools.iter().copied())?, Vec::new())),
        Format::Json | Format::Markdown => Ok((String::new(), Vec::new())),
    }
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
