//! Markdown documentation of a catalog: an index, then one section per tool with its
//! description, facts, parameter table and examples as calls.

use std::fmt::Write;

use serde_json::Value;

use super::kind::tool_kind;
use crate::model::{Approval, TaskSupport, ToolDefinition, ToolParameter};

/// The schema keywords a parameter table lists as constraints, in this order.
const CONSTRAINTS: [&str; 11] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
];

/// `tools` as Markdown: a table of contents, then a section per tool with its description,
/// kind, tags, annotations and limits, a parameter table (name, kind, cardinality, required,
/// allowed values, default, example, constraints, description), its examples as calls and its
/// output schema.
pub fn markdown<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> String {
    let tools: Vec<&ToolDefinition> = tools.into_iter().collect();
    let mut out = String::from("# Tools\n\n| tool | what it does |\n|---|---|\n");
    for tool in &tools {
        let _ =
            writeln!(out, "| [`{}`](#{}) | {} |", tool.name, anchor(&tool.name), cell(first_line(&tool.description)));
    }
    for tool in &tools {
        section(&mut out, tool);
    }
    out
}

fn section(out: &mut String, tool: &ToolDefinition) {
    let _ = write!(out, "\n## `{}`\n\n", tool.name);
    if !tool.description.is_empty() {
        let _ = write!(out, "{}\n\n", tool.description.trim_end());
    }
    let mut facts = vec![format!("kind: {}", tool_kind(tool))];
    if let Some(title) = &tool.annotations.title {
        facts.push(format!("title: {title}"));
    }
    if !tool.tags.is_empty() {
        facts.push(format!("tags: {}", tool.tags.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")));
    }
    if let Some(category) = &tool.category {
        facts.push(format!("category: {category}"));
    }
    if let Some(version) = &tool.version {
        facts.push(format!("version: {version}"));
    }
    let a = &tool.annotations;
    let hints: Vec<&str> = [
        (a.read_only, "read-only"),
        (a.destructive, "destructive"),
        (a.idempotent, "idempotent"),
        (a.open_world, "open world"),
    ]
    .iter()
    .filter(|(set, _)| *set == Some(true))
    .map(|(_, hint)| *hint)
    .collect();
    if !hints.is_empty() {
        facts.push(hints.join(", "));
    }
    if let Some(timeout) = tool.timeout {
        facts.push(format!("time limit: {} ms", timeout.as_millis()));
    }
    if tool.strict {
        facts.push("strict arguments".to_owned());
    }
    match tool.approval {
        Approval::Always => facts.push("every call needs a person's approval".to_owned()),
        Approval::ByArguments => facts.push("some calls need a person's approval".to_owned()),
        _ => {}
    }
    if tool.sequential {
        facts.push("runs alone in its batch".to_owned());
    }
    match tool.task {
        TaskSupport::Optional => facts.push("answered over MCP with a task".to_owned()),
        TaskSupport::Required => facts.push("called over MCP only as a task".to_owned()),
        _ => {}
    }
    let _ = write!(out, "{}\n\n", facts.join(" · "));

    if tool.parameters.is_empty() {
        out.push_str("No parameters.\n");
    } else {
        out.push_str(
            "| parameter | kind | cardinality | required | allowed values | default | example | constraints | description |\n\
             |---|---|---|---|---|---|---|---|---|\n",
        );
        for p in &tool.parameters {
            let schema = tool.input_schema.get("properties").and_then(|props| props.get(&p.name));
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                p.name,
                p.value_kind.name(),
                p.cardinality.name(),
                if p.required { "yes" } else { "no" },
                allowed(p),
                p.default.as_ref().map(code).unwrap_or_default(),
                p.example.as_ref().map(code).unwrap_or_default(),
                schema.map(constraints).unwrap_or_default(),
                cell(&p.description),
            );
        }
    }
    // As an export sends them: whole argument objects, at most `MAX_EXAMPLES` (a catalog
    // refuses the others; a definition documented without one has them left out here too).
    let examples: Vec<&Value> =
        tool.examples.iter().filter(|e| e.is_object()).take(ToolDefinition::MAX_EXAMPLES).collect();
    if !examples.is_empty() {
        out.push_str("\nExamples:\n\n```json\n");
        for example in examples {
            let call = serde_json::json!({ "name": tool.name, "arguments": example });
            let _ = writeln!(out, "{call}");
        }
        out.push_str("```\n");
    }
    if let Some(output) = &tool.output_schema {
        let _ = write!(out, "\nOutput schema:\n\n```json\n{output}\n```\n");
    }
}

/// The allowed values of an enum parameter, as code.
fn allowed(p: &ToolParameter) -> String {
    p.enum_constraint
        .as_ref()
        .map(|e| e.allowed_values.iter().map(|v| format!("`{}`", cell(v))).collect::<Vec<_>>().join(", "))
        .unwrap_or_default()
}

/// The constraint keywords a parameter's schema states: `minimum 1, maximum 50`.
pub(crate) fn constraints(schema: &Value) -> String {
    let found: Vec<String> = CONSTRAINTS
        .iter()
        .filter_map(|keyword| schema.get(*keyword).map(|value| format!("{keyword} {}", code(value))))
        .collect();
    found.join(", ")
}

/// A JSON value as inline code, safe in a table cell.
fn code(value: &Value) -> String {
    format!("`{}`", cell(&value.to_string()))
}

/// Text safe in one table cell: pipes escaped, line breaks as spaces.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The anchor GitHub gives a `## \`name\`` heading: lowercase, without dots and backticks.
fn anchor(name: &str) -> String {
    name.chars()
        .filter_map(|c| match c {
            'a'..='z' | '0'..='9' | '_' | '-' => Some(c),
            'A'..='Z' => Some(c.to_ascii_lowercase()),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}
