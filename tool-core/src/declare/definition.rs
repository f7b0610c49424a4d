//! Builds a [`ToolDefinition`] from what the `#[tool]` macro declared: doc text, per-parameter
//! schemas (schemars), constraints and metadata.
//!
//! Everything here runs once per tool (the result is cached by the catalog entry) and is not
//! generic, so it is compiled once, not once per tool.

use std::time::Duration;

use schemars::Schema;
use serde_json::{Map, Value};

use crate::model::{
    Approval, EnumConstraint, SourceLocation, TaskSupport, ToolAnnotations, ToolDefinition, ToolParameter,
};
use crate::schema::shape::shape_of;

/// The static part of a declaration, written by the `#[tool]` macro.
#[doc(hidden)]
#[derive(Debug)]
pub struct Declaration {
    pub name: &'static str,
    /// Doc-comment text (to be trimmed) or an explicit description.
    pub description: &'static str,
    /// Whether `description` is raw doc text (trim it, read `# Arguments` from it).
    pub description_from_docs: bool,
    pub parameters: &'static [ParamDeclaration],
    /// The wire names, in order (the same as `parameters`' names, for the extraction hot path).
    pub param_names: &'static [&'static str],
    pub tags: &'static [&'static str],
    pub category: Option<&'static str>,
    pub version: Option<&'static str>,
    /// Example argument objects, as JSON text.
    pub examples: &'static [&'static str],
    pub annotations: AnnotationsDeclaration,
    pub timeout_ms: Option<u64>,
    /// `#[tool(strict)]`: no conversions or repairs for this tool.
    pub strict: bool,
    /// `#[tool(defer)]`: left out of requests until a tool search finds it.
    pub defer: bool,
    /// `#[tool(requires_approval)]` (`Always`) or `#[tool(approval = "fn")]` (`ByArguments`).
    pub approval: Approval,
    /// `#[tool(sequential)]`: a call runs alone in its batch.
    pub sequential: bool,
    /// `#[tool(task)]` (`Optional`) or `#[tool(task = "required")]`: answered over MCP with a task.
    pub task: TaskSupport,
    /// `#[tool(task(asks_first))]`: the call asks in its request's rounds before it is a task.
    pub task_asks_first: bool,
    /// `#[tool(icons(".."))]`: where the tool's icons are.
    pub icons: &'static [&'static str],
    /// `#[tool(scopes(..))]`: the OAuth scopes a call needs.
    pub scopes: &'static [&'static str],
    pub file: &'static str,
    pub line: u32,
}

/// MCP-style hints as declared.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct AnnotationsDeclaration {
    pub title: Option<&'static str>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// One wire parameter as declared.
#[doc(hidden)]
#[derive(Debug)]
pub struct ParamDeclaration {
    /// The wire name.
    pub name: &'static str,
    /// Doc-comment text (to be trimmed) or an explicit description.
    pub description: &'static str,
    /// The example, as JSON text.
    pub example: Option<&'static str>,
    /// The default, as JSON text, when it was written as a literal.
    pub default: Option<&'static str>,
    /// Schema keywords with JSON-text values (`minimum`, `pattern`, ...).
    pub constraints: &'static [(&'static str, &'static str)],
    /// Whether enum tokens are matched case-sensitively.
    pub case_sensitive: bool,
    /// `#[param(strict)]`: no conversions for this parameter.
    pub strict: bool,
}

/// The per-type facts `WireArgs` computed, handed to [`build_definition`].
#[doc(hidden)]
pub struct TypeFacts {
    pub schemas: Vec<Schema>,
    pub definitions: Map<String, Value>,
    pub accepts_missing: Vec<bool>,
    pub has_default: Vec<bool>,
    pub output_schema: Option<Schema>,
}

/// Assembles the definition.
#[doc(hidden)]
pub fn build_definition(decl: &Declaration, facts: TypeFacts) -> ToolDefinition {
    let (description, argument_docs) = if decl.description_from_docs {
        split_arguments_section(&trim_doc(decl.description))
    } else {
        (decl.description.trim().to_owned(), Vec::new())
    };

    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut parameters = Vec::with_capacity(decl.parameters.len());
    for (i, (param, schema)) in decl.parameters.iter().zip(facts.schemas).enumerate() {
        let mut param_description = trim_doc(param.description);
        if param_description.is_empty()
            && let Some((_, text)) = argument_docs.iter().find(|(name, _)| name == param.name)
        {
            param_description = text.clone();
        }
        let shape = shape_of(schema.as_value(), &facts.definitions);
        let is_required = !facts.has_default[i] && !facts.accepts_missing[i];
        let example = param.example.and_then(|text| serde_json::from_str::<Value>(text).ok());
        let default = param.default.and_then(|text| serde_json::from_str::<Value>(text).ok());

        let mut property = schema.to_value();
        let annotated =
            !param_description.is_empty() || !param.constraints.is_empty() || default.is_some() || example.is_some();
        if property == Value::Bool(true) && annotated {
            // A value of any type (`serde_json::Value`): `{}` says the same and has room for
            // the description.
            property = Value::Object(Map::new());
        }
        if let Value::Object(object) = &mut property {
            if !param_description.is_empty() {
                object.insert("description".into(), Value::String(param_description.clone()));
            }
            for (keyword, text) in param.constraints {
                if let Ok(value) = serde_json::from_str::<Value>(text) {
                    object.insert((*keyword).into(), value);
                }
            }
            if let Some(default) = &default {
                object.insert("default".into(), default.clone());
            }
            if let Some(example) = &example {
                object.insert("examples".into(), Value::Array(vec![example.clone()]));
            }
        }
        properties.insert(param.name.to_owned(), property);
        if is_required {
            required.push(Value::String(param.name.to_owned()));
        }
        parameters.push(ToolParameter {
            name: param.name.to_owned(),
            value_kind: shape.kind,
            cardinality: shape.cardinality,
            required: is_required,
            description: param_description,
            enum_constraint: shape
                .allowed_values
                .map(|allowed_values| EnumConstraint { allowed_values, case_sensitive: param.case_sensitive }),
            example,
            default,
            strict: param.strict,
        });
    }

    let mut input_schema = Map::new();
    input_schema.insert("type".into(), "object".into());
    input_schema.insert("properties".into(), Value::Object(properties));
    input_schema.insert("required".into(), Value::Array(required));
    if !facts.definitions.is_empty() {
        input_schema.insert("$defs".into(), Value::Object(facts.definitions));
    }

    let a = &decl.annotations;
    ToolDefinition {
        name: decl.name.to_owned(),
        description,
        parameters,
        input_schema: Value::Object(input_schema),
        output_schema: facts.output_schema.map(Schema::to_value),
        tags: decl.tags.iter().map(|t| (*t).to_owned()).collect(),
        category: decl.category.map(str::to_owned),
        version: decl.version.map(str::to_owned),
        examples: decl
            .examples
            .iter()
            .map(|text| serde_json::from_str(text).unwrap_or_else(|_| Value::String((*text).to_owned())))
            .collect(),
        annotations: ToolAnnotations {
            title: a.title.map(str::to_owned),
            read_only: a.read_only,
            destructive: a.destructive,
            idempotent: a.idempotent,
            open_world: a.open_world,
        },
        timeout: decl.timeout_ms.map(Duration::from_millis),
        strict: decl.strict,
        defer: decl.defer,
        approval: decl.approval,
        sequential: decl.sequential,
        task: decl.task,
        task_asks_first: decl.task_asks_first,
        icons: decl.icons.iter().map(|src| crate::model::ToolIcon::new(*src)).collect(),
        scopes: decl.scopes.iter().map(|scope| (*scope).to_owned()).collect(),
        source: SourceLocation { file: decl.file.to_owned(), line: decl.line },
    }
}

/// Trims rustdoc text: drops the common indentation, trailing spaces and surrounding blank
/// lines, keeping paragraphs.
pub fn trim_doc(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let indent =
        lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let lines: Vec<&str> =
        lines.iter().map(|l| if l.len() >= indent { &l[indent..] } else { l.trim_start() }).collect();
    let start = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !l.is_empty()).map_or(start, |i| i + 1);
    lines[start..end].join("\n")
}

/// Splits a rustdoc `# Arguments` (or `# Parameters`) section off a description, returning the
/// rest of the description and each listed parameter's text.
///
/// Items look like ``* `query` - Keywords to look for.`` (also `-` bullets and `:` separators);
/// indented lines continue the item above.
pub fn split_arguments_section(doc: &str) -> (String, Vec<(String, String)>) {
    let mut kept: Vec<&str> = Vec::new();
    let mut items: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    for line in doc.lines() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            let title = heading.trim_start_matches('#').trim().to_ascii_lowercase();
            in_section = matches!(title.as_str(), "arguments" | "parameters" | "args");
            if in_section {
                continue;
            }
        }
        if !in_section {
            kept.push(line);
            continue;
        }
        if let Some(item) = trimmed.strip_prefix("* ").or_else(|| trimmed.strip_prefix("- "))
            && let Some((name, text)) = parse_argument_item(item)
        {
            items.push((name, text));
            continue;
        }
        if let (Some(last), false) = (items.last_mut(), trimmed.is_empty()) {
            last.1.push(' ');
            last.1.push_str(trimmed);
        }
    }
    (trim_doc(&kept.join("\n")), items)
}

fn parse_argument_item(item: &str) -> Option<(String, String)> {
    let (name, rest) = if let Some(rest) = item.strip_prefix('`') {
        let end = rest.find('`')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let end = item.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
        (&item[..end], &item[end..])
    };
    let text = rest.trim_start().trim_start_matches(['-', ':', '—', '–']).trim();
    (!name.is_empty()).then(|| (name.to_owned(), text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_text_loses_rustdoc_indentation_but_keeps_paragraphs() {
        assert_eq!(
            trim_doc(" Search the store.\n\n Returns at most `limit`.\n"),
            "Search the store.\n\nReturns at most `limit`."
        );
        assert_eq!(trim_doc("\n\n   x\n"), "x");
        assert_eq!(trim_doc(""), "");
    }

    #[test]
    fn arguments_section_is_split_off_and_parsed() {
        let doc = "Search the store.\n\n# Arguments\n\n* `query` - Keywords to look for.\n* `limit` - Maximum number\n  of fragments.\n\n# Errors\nNever.";
        let (description, items) = split_arguments_section(doc);
        assert_eq!(description, "Search the store.\n\n# Errors\nNever.");
        assert_eq!(
            items,
            vec![
                ("query".to_owned(), "Keywords to look for.".to_owned()),
                ("limit".to_owned(), "Maximum number of fragments.".to_owned())
            ]
        );
    }

    #[test]
    fn argument_items_accept_plain_names_and_colons() {
        let (_, items) = split_arguments_section("x\n## Parameters\n- path: Where to write.");
        assert_eq!(items, vec![("path".to_owned(), "Where to write.".to_owned())]);
    }
}
