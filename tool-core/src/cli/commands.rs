//! What each subcommand does. Each writes to the output it is given and returns the exit
//! status: 0 for success, 1 when the work found a failure (a failed call, a definition a
//! dialect refuses), 2 for a usage error (an unknown tool or format).

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::style::{printable, printable_line, table, Style};
use crate::catalog::ToolCatalog;
use crate::document::{
    deferral_report, definition_json, render, shorten_descriptions, size_report, tool_kind, DeferralReport,
    DeferredCost, Format, FORMATS,
};
use crate::executor::{CallScope, CallStatus, ExecutionRecord, Executor};
use crate::model::{Cardinality, ToolCallRequest, ToolDefinition};
use crate::policy::{ApprovalRule, Decision, PolicyDecision};
use crate::providers::check::check_tool;
use crate::providers::export::export;
use crate::providers::Dialect;
use crate::search::{SearchHit, ToolSearch};

pub(super) type Out<'a> = &'a mut dyn Write;

/// Writes JSON, pretty, with a final line break.
pub(super) fn write_json(out: Out<'_>, value: &Value) -> std::io::Result<()> {
    writeln!(out, "{}", serde_json::to_string_pretty(value).unwrap_or_default())
}

/// JSON for a person on a terminal: pretty, and inert (JSON escapes the C0 controls but lets
/// C1 controls and bidirectional overrides through).
fn write_printable_json(out: Out<'_>, value: &Value) -> std::io::Result<()> {
    writeln!(out, "{}", printable(&serde_json::to_string_pretty(value).unwrap_or_default()))
}

/// The tool named `name`, or a message naming the closest ones.
pub(super) fn find<'c>(catalog: &'c ToolCatalog, name: &str) -> Result<&'c ToolDefinition, String> {
    catalog.definition(name).ok_or_else(|| {
        let closest = catalog.closest_names(name, 3);
        let name = printable_line(name);
        if closest.is_empty() {
            format!("no tool named `{name}`; `tools list` shows them")
        } else {
            format!(
                "no tool named `{name}`; did you mean {}?",
                closest.iter().map(|n| format!("`{}`", printable_line(n))).collect::<Vec<_>>().join(", ")
            )
        }
    })
}

/// The parameters in a line: `query, limit?` (`?` marks the optional ones).
fn parameter_names(tool: &ToolDefinition) -> String {
    let names: Vec<String> = tool
        .parameters
        .iter()
        .map(|p| if p.required { printable_line(&p.name) } else { format!("{}?", printable_line(&p.name)) })
        .collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}

pub(super) fn list(
    catalog: &ToolCatalog,
    tag: Option<&str>,
    json: bool,
    style: Style,
    out: Out<'_>,
) -> std::io::Result<i32> {
    let tools: Vec<&ToolDefinition> = catalog.definitions().filter(|t| tag.is_none_or(|tag| t.has_tag(tag))).collect();
    if json {
        let rows: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({"name": t.name, "kind": tool_kind(t), "tags": t.tags, "description": t.description,
                    "parameters": t.parameters.iter().map(|p| json!({"name": p.name, "required": p.required})).collect::<Vec<_>>()})
            })
            .collect();
        write_json(out, &json!({ "tools": rows }))?;
        return Ok(0);
    }
    let rows: Vec<Vec<String>> = tools
        .iter()
        .map(|t| {
            vec![
                printable_line(&t.name),
                tool_kind(t).to_owned(),
                printable_line(&t.tags.join(", ")),
                parameter_names(t),
            ]
        })
        .collect();
    write!(out, "{}", table(style, &["NAME", "KIND", "TAGS", "PARAMETERS"], &rows))?;
    writeln!(out, "{}", style.dim(&format!("{} tools", tools.len())))?;
    Ok(0)
}

pub(super) fn show(tool: &ToolDefinition, json: bool, style: Style, out: Out<'_>) -> std::io::Result<i32> {
    if json {
        write_json(out, &definition_json(tool))?;
        return Ok(0);
    }
    // Names, descriptions, schemas and examples may come from an imported server or an
    // OpenAPI document: printed inert.
    let source = printable_line(&tool.source.to_string());
    writeln!(
        out,
        "{}  {}",
        style.bold(&printable_line(&tool.name)),
        style.dim(&format!("({}, {source})", tool_kind(tool)))
    )?;
    if !tool.description.is_empty() {
        writeln!(out, "{}", printable(tool.description.trim_end()))?;
    }
    if !tool.tags.is_empty() {
        writeln!(out, "tags: {}", printable_line(&tool.tags.join(", ")))?;
    }
    if let Some(timeout) = tool.timeout {
        writeln!(out, "time limit: {} ms", timeout.as_millis())?;
    }
    writeln!(out)?;
    if tool.parameters.is_empty() {
        writeln!(out, "No parameters.")?;
    } else {
        let rows: Vec<Vec<String>> = tool
            .parameters
            .iter()
            .map(|p| {
                let mut notes = Vec::new();
                if let Some(allowed) = &p.enum_constraint {
                    notes.push(format!("one of {}", allowed.allowed_values.join(", ")));
                }
                if let Some(default) = &p.default {
                    notes.push(format!("default {default}"));
                }
                if let Some(example) = &p.example {
                    notes.push(format!("e.g. {example}"));
                }
                let schema = tool.input_schema.get("properties").and_then(|props| props.get(&p.name));
                let limits = schema.map(crate::document::constraints).unwrap_or_default().replace('`', "");
                if !limits.is_empty() {
                    notes.push(limits);
                }
                let cardinality = match p.cardinality {
                    Cardinality::Single => "",
                    Cardinality::Optional => "optional",
                    Cardinality::List => "list of",
                    Cardinality::Map => "map of",
                };
                let kind = format!("{cardinality} {}", p.value_kind.name()).trim().to_owned();
                let mut description = p.description.clone();
                if !notes.is_empty() {
                    description = format!("{description} ({})", notes.join("; ")).trim().to_owned();
                }
                let required = if p.required { "required".into() } else { String::new() };
                vec![printable_line(&p.name), kind, required, printable_line(&description)]
            })
            .collect();
        write!(out, "{}", table(style, &["PARAMETER", "KIND", "", "DESCRIPTION"], &rows))?;
    }
    writeln!(out, "\n{}", style.bold("Input schema"))?;
    write_printable_json(out, &tool.input_schema)?;
    if let Some(output) = &tool.output_schema {
        writeln!(out, "\n{}", style.bold("Output schema"))?;
        write_printable_json(out, output)?;
    }
    if !tool.examples.is_empty() {
        writeln!(out, "\n{}", style.bold("Examples"))?;
        for example in &tool.examples {
            writeln!(out, "{}", printable(&example.to_string()))?;
        }
    }
    Ok(0)
}

/// The catalog's tools, their descriptions cut to `budget` tokens when one is given; prints
/// what was cut to `notes`.
fn tools_for_output(
    catalog: &ToolCatalog,
    budget: Option<usize>,
    notes: Out<'_>,
) -> std::io::Result<(Vec<ToolDefinition>, Vec<crate::document::Shortened>)> {
    let tools: Vec<ToolDefinition> = catalog.definitions().cloned().collect();
    let Some(budget) = budget else { return Ok((tools, Vec::new())) };
    let (tools, cut) = shorten_descriptions(&tools, budget);
    for c in &cut {
        let at = printable_line(&c.parameter.as_ref().map_or_else(|| c.tool.clone(), |p| format!("{}/{p}", c.tool)));
        writeln!(notes, "shortened {at}: {} -> {} tokens", c.tokens_before, c.tokens_after)?;
    }
    Ok((tools, cut))
}

pub(super) fn export_formats(
    catalog: &ToolCatalog,
    formats: &[Format],
    dir: Option<&Path>,
    budget: Option<usize>,
    json: bool,
    out: Out<'_>,
    err: Out<'_>,
) -> std::io::Result<i32> {
    let (tools, _) = tools_for_output(catalog, budget, err)?;
    let (mut written, mut failed) = (Vec::new(), false);
    for &format in formats {
        // A format that cannot express a tool is reported; the others are still written.
        let text = match render(format, &tools) {
            Ok(text) => text,
            Err(error) => {
                writeln!(err, "{format}: {}", printable(&error.to_string()))?;
                failed = true;
                continue;
            }
        };
        match dir {
            None => write!(out, "{text}")?,
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                let path = dir.join(format.file_name());
                std::fs::write(&path, text)?;
                written.push(path.display().to_string());
            }
        }
    }
    if dir.is_some() {
        if json {
            write_json(out, &json!({ "written": written }))?;
        } else {
            for path in &written {
                writeln!(out, "wrote {path}")?;
            }
        }
    }
    Ok(i32::from(failed))
}

pub(super) fn call_output(record: &ExecutionRecord, json: bool, style: Style, out: Out<'_>) -> std::io::Result<i32> {
    let code = i32::from(record.is_error());
    if json {
        write_json(out, &serde_json::to_value(record).unwrap_or(Value::Null))?;
        return Ok(code);
    }
    let request = &record.request;
    let status =
        serde_json::to_value(record.status).ok().and_then(|s| s.as_str().map(str::to_owned)).unwrap_or_default();
    let failure = record
        .failure
        .as_ref()
        .and_then(|f| serde_json::to_value(f).ok())
        .and_then(|f| f["kind"].as_str().map(str::to_owned));
    let status = match failure {
        // `denied (denied)` would say it twice.
        Some(kind) if kind == status => style.bad(&status),
        Some(kind) => style.bad(&format!("{status} ({kind})")),
        None if record.status == CallStatus::Pending => style.warn(&status),
        None => style.good(&status),
    };
    writeln!(out, "{} {status} in {:.1} ms", style.bold("status:"), record.duration.as_secs_f64() * 1000.0)?;
    writeln!(out, "{} {}", style.bold("sent:"), printable(request.raw_arguments.trim_end()))?;
    if let Some(arguments) = &request.arguments {
        writeln!(out, "{} {}", style.bold("read as:"), printable(&arguments.to_string()))?;
    }
    for w in &request.parse_warnings {
        let text = format!("{} at `{}`: {} (received {})", w.rule(), w.pointer(), w.action(), w.received());
        writeln!(out, "{} {}", style.warn("warning:"), printable(&text))?;
    }
    if let Some(errors) = &request.parse_error {
        for e in &errors.errors {
            writeln!(
                out,
                "{} {}",
                style.bad("error:"),
                printable(&format!("{} at `{}`: {}", e.rule, e.pointer, e.detail))
            )?;
        }
    }
    // The output of a tool, perhaps a remote one: printed inert.
    let label = if record.is_error() { "message for the model:" } else { "result:" };
    writeln!(out, "{}\n{}", style.bold(label), printable(&record.content.text))?;
    for block in &record.content.blocks {
        let line = match block {
            crate::ContentBlock::Text { text } => text.clone(),
            other => crate::providers::results::summary(other),
        };
        writeln!(out, "{}", printable(&line))?;
    }
    if !record.decisions.is_empty() {
        writeln!(out, "{}", style.bold("policy:"))?;
        for decision in &record.decisions {
            writeln!(out, "  {}", printable(&decision_line(decision)))?;
        }
    }
    if let Some(pending) = &record.pending {
        // What to type next: the same call, answered.
        let mut again = format!(
            "tools call {} --args {}",
            shell_word(pending.tool_name()),
            shell_arguments(&pending.request.raw_arguments)
        );
        if let Some(conversation) = pending.conversation_id() {
            again.push_str(&format!(" --conversation {}", shell_word(conversation)));
        }
        writeln!(out, "{} {}", style.bold("waits for:"), printable(&pending.reasons_text()))?;
        writeln!(out, "{} {again} --approve", style.bold("to run it:"))?;
        writeln!(out, "{} {again} --deny REASON", style.bold("to deny it:"))?;
    }
    Ok(code)
}

/// A policy decision in a line: `approval by person: denied: not this account`.
fn decision_line(decision: &PolicyDecision) -> String {
    let word = |value: Value| value.as_str().map(str::to_owned).unwrap_or_default();
    let stage = word(serde_json::to_value(decision.stage).unwrap_or(Value::Null));
    let outcome = word(serde_json::to_value(decision.outcome).unwrap_or(Value::Null));
    let mut line = format!("{stage} by {}: {outcome}", decision.by);
    if let Some(message) = &decision.message {
        line.push_str(": ");
        line.push_str(message);
    }
    line
}

/// `text` as one word for a POSIX shell: as it is when nothing in it is special, else in
/// single quotes (a quote inside written `'\''`).
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '@' | ',' | '+' | '='));
    if plain {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The raw arguments as one shell word on one line: JSON written compactly (a line break of
/// a pretty text would end the command), any other text as it came when it has no control
/// characters.
fn shell_arguments(raw: &str) -> String {
    match serde_json::from_str::<Value>(raw) {
        Ok(value) => shell_word(&value.to_string()),
        Err(_) if raw.chars().any(char::is_control) => shell_word(&printable_line(raw)),
        Err(_) => shell_word(raw),
    }
}

/// The approval rules `--require-approval` names, each by the name it has in records:
/// `destructive`, `not_read_only`, `all`, `tagged:TAG` or `tool:NAME`.
pub(super) fn approval_rules(catalog: &ToolCatalog, names: &[String]) -> Result<Vec<ApprovalRule>, String> {
    names
        .iter()
        .map(|name| match name.as_str() {
            "destructive" => Ok(ApprovalRule::destructive()),
            "not_read_only" => Ok(ApprovalRule::not_read_only()),
            "all" => Ok(ApprovalRule::all()),
            other => match other.split_once(':') {
                Some(("tagged", tag)) if !tag.is_empty() => Ok(ApprovalRule::tagged(tag)),
                Some(("tool", tool)) => {
                    find(catalog, tool).map_err(|message| format!("--require-approval: {message}"))?;
                    Ok(ApprovalRule::tool(tool))
                }
                _ => Err(format!(
                    "--require-approval: `{}` is not a rule; give destructive, not_read_only, all, tagged:TAG or \
                     tool:NAME",
                    printable_line(other)
                )),
            },
        })
        .collect()
}

pub(super) fn check(catalog: &ToolCatalog, json: bool, style: Style, out: Out<'_>) -> std::io::Result<i32> {
    let (mut problems, mut notes, mut rows) = (Vec::new(), Vec::new(), Vec::new());
    // Every dialect but the JSON Schema one, which is the definitions' own form.
    for dialect in Dialect::ALL.iter().copied().filter(|d| *d != Dialect::JsonSchema) {
        let format = Format::Dialect(dialect).name();
        let (mut refused, mut violated, mut noted) = (0, 0, 0);
        for tool in catalog.definitions() {
            match export(dialect, [tool]) {
                Err(error) => {
                    refused += 1;
                    for problem in error.problems {
                        problems.push(json!({"format": format, "tool": tool.name, "problem": problem.to_string()}));
                    }
                }
                Ok(exported) => {
                    for v in check_tool(dialect, &exported.tools[0]) {
                        violated += 1;
                        problems.push(json!({"format": format, "tool": tool.name, "rule": v.rule, "pointer": v.pointer, "problem": v.message}));
                    }
                    for note in exported.reports.iter().flat_map(|r| &r.notes) {
                        noted += 1;
                        notes.push(json!({"format": format, "tool": tool.name, "pointer": note.pointer, "keyword": note.keyword, "note": note.detail}));
                    }
                }
            }
        }
        let verdict = if refused + violated == 0 { style.good("ok") } else { style.bad("problems") };
        rows.push(vec![format.to_owned(), verdict, refused.to_string(), violated.to_string(), noted.to_string()]);
    }
    let code = i32::from(!problems.is_empty());
    if json {
        write_json(out, &json!({"ok": problems.is_empty(), "problems": problems, "notes": notes}))?;
        return Ok(code);
    }
    write!(out, "{}", table(style, &["FORMAT", "", "REFUSED", "VIOLATIONS", "NOTES"], &rows))?;
    for p in &problems {
        let text = format!(
            "{} {}: {}",
            p["format"].as_str().unwrap_or(""),
            p["tool"].as_str().unwrap_or(""),
            p["problem"].as_str().unwrap_or("")
        );
        writeln!(out, "{} {}", style.bad("problem:"), printable(&text))?;
    }
    if !notes.is_empty() {
        writeln!(out, "\n{}", style.bold("What each format cannot express, and how it is sent instead:"))?;
        for n in &notes {
            let line = format!(
                "{} {} {}: {}",
                n["format"].as_str().unwrap_or(""),
                n["tool"].as_str().unwrap_or(""),
                n["pointer"].as_str().unwrap_or(""),
                n["note"].as_str().unwrap_or("")
            );
            writeln!(out, "  {}", printable(line.trim_end()))?;
        }
    }
    Ok(code)
}

/// The catalog with the command line's deferral over its own: `--defer-all` defers every
/// tool, `--keep-loaded` keeps the tools it names.
pub(super) fn with_deferral(catalog: &ToolCatalog, defer_all: bool, keep: &[String]) -> Result<ToolCatalog, String> {
    if !defer_all && keep.is_empty() {
        return Ok(catalog.clone());
    }
    let mut builder = catalog.to_builder();
    if defer_all {
        builder = builder.defer_all();
    }
    for name in keep {
        find(catalog, name).map_err(|message| format!("--keep-loaded: {message}"))?;
        builder = builder.keep_loaded(name.clone());
    }
    builder.build().map_err(|error| error.to_string())
}

pub(super) fn size(
    catalog: &ToolCatalog,
    budget: Option<usize>,
    json: bool,
    style: Style,
    out: Out<'_>,
    err: Out<'_>,
) -> std::io::Result<i32> {
    let (tools, shortened) = tools_for_output(catalog, budget, err)?;
    let mut report = match size_report(&tools) {
        Ok(report) => report,
        Err(error) => {
            writeln!(err, "{error}")?;
            return Ok(1);
        }
    };
    report.shortened = shortened;
    // What deferral saves cannot be priced when the search tool cannot be sent beside the
    // loaded tools (one of them has its name): said, after the whole list, and a failure.
    let deferral = deferral_report(&tools, |t| catalog.is_deferred(&t.name)).map_err(|e| e.to_string());
    let code = i32::from(deferral.is_err());
    if json {
        let mut value = serde_json::to_value(&report).unwrap_or(Value::Null);
        match &deferral {
            Ok(deferral) => value["deferral"] = serde_json::to_value(deferral).unwrap_or(Value::Null),
            Err(error) => value["deferral_error"] = Value::from(error.as_str()),
        }
        write_json(out, &value)?;
        return Ok(code);
    }
    let totals: Vec<Vec<String>> = report
        .formats
        .iter()
        .map(|f| {
            let kind = if f.exact { "counted" } else { "estimated" };
            vec![f.format.to_owned(), f.total.chars.to_string(), f.total.tokens.to_string(), kind.to_owned()]
        })
        .collect();
    writeln!(out, "{}", style.bold(&format!("The whole list, per request ({} tokens):", report.tokenizer)))?;
    write!(out, "{}", table(style, &["FORMAT", "CHARS", "TOKENS", ""], &totals))?;
    for f in report.formats.iter().filter(|f| !f.over_limit.is_empty()) {
        let limits = f.over_limit.join("; ");
        writeln!(out, "{} {}: {limits}; the provider refuses this list", style.warn("over a limit:"), f.format)?;
    }
    match &deferral {
        Ok(deferral) => up_front(deferral, style, out)?,
        Err(error) => {
            writeln!(out, "\n{} {}", style.bold("Up front with tool search:"), style.bad(&printable_line(error)))?;
        }
    }
    let mut header = vec!["TOOL"];
    header.extend(report.formats.iter().map(|f| f.format));
    let rows: Vec<Vec<String>> = tools
        .iter()
        .map(|t| {
            let mut row = vec![printable_line(&t.name)];
            row.extend(
                report.formats.iter().map(|f| f.tool(&t.name).map_or_else(|| "-".to_owned(), |s| s.tokens.to_string())),
            );
            row
        })
        .collect();
    writeln!(out, "\n{}", style.bold("Tokens per tool:"))?;
    write!(out, "{}", table(style, &header, &rows))?;
    for f in report.formats.iter().filter(|f| !f.refused.is_empty()) {
        writeln!(
            out,
            "{} cannot express {} (`tools check` says why)",
            f.format,
            printable_line(&f.refused.join(", "))
        )?;
    }
    Ok(code)
}

/// The up-front part of a request with the deferred tools left to the search tool, per format.
fn up_front(report: &DeferralReport, style: Style, out: Out<'_>) -> std::io::Result<()> {
    let Some(search_tool) = &report.search_tool else {
        writeln!(
            out,
            "\n{} no tool is deferred (mark tools `#[tool(defer)]`, or try --defer-all and --keep-loaded NAME)",
            style.bold("Up front with tool search:")
        )?;
        return Ok(());
    };
    let total = report.loaded.len() + report.deferred.len();
    let heading = format!(
        "Up front with tool search ({} of {total} tools deferred, found by `{}`):",
        report.deferred.len(),
        printable_line(search_tool)
    );
    writeln!(out, "\n{}", style.bold(&heading))?;
    let rows: Vec<Vec<String>> = report
        .formats
        .iter()
        .map(|f| {
            vec![
                f.format.to_owned(),
                f.all_tools.tokens.to_string(),
                f.with_deferral.tokens.to_string(),
                f.saved_tokens.to_string(),
                format!("{:.1}%", f.saved_percent),
                deferred_cost(f.deferred_cost).to_owned(),
            ]
        })
        .collect();
    let header = ["FORMAT", "ALL TOOLS", "WITH SEARCH", "SAVED", "SAVED %", "DEFERRED TOOLS"];
    write!(out, "{}", table(style, &header, &rows))?;
    for f in report.formats.iter().filter(|f| !f.with_deferral_over_limit.is_empty()) {
        let limits = f.with_deferral_over_limit.join("; ");
        writeln!(out, "{} {} with search: {limits}", style.warn("over a limit:"), f.format)?;
    }
    // A catalog of thousands may keep hundreds loaded: the first few name the rest.
    const NAMED: usize = 10;
    let mut loaded = match report.loaded.len() {
        0 => "none".to_owned(),
        _ => printable_line(&report.loaded.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ")),
    };
    if report.loaded.len() > NAMED {
        loaded.push_str(&format!(" and {} more", report.loaded.len() - NAMED));
    }
    writeln!(out, "{}", style.dim(&format!("loaded: {loaded}; the search tool is sent with them")))?;
    Ok(())
}

/// What the deferred tools cost before a search finds them, in words.
fn deferred_cost(cost: DeferredCost) -> &'static str {
    match cost {
        DeferredCost::NotSent => "not sent until found",
        DeferredCost::OutOfContext => "sent, kept out of the context",
        DeferredCost::NameAndDescription => "name and description",
    }
}

/// The ranking for `query` over the catalog (or its deferred tools), with why each matched.
pub(super) fn search(
    catalog: &ToolCatalog,
    query: &str,
    limit: usize,
    deferred_only: bool,
    json: bool,
    style: Style,
    out: Out<'_>,
) -> std::io::Result<i32> {
    let index =
        if deferred_only { ToolSearch::new(catalog.deferred()) } else { ToolSearch::new(catalog.definitions()) };
    let hits = index.search(query, limit);
    if json {
        let tools: Vec<Value> = hits.iter().map(|hit| hit_json(hit, catalog.is_deferred(&hit.name))).collect();
        write_json(out, &json!({"query": query, "searched": index.len(), "tools": tools}))?;
        return Ok(0);
    }
    let rows: Vec<Vec<String>> = hits
        .iter()
        .enumerate()
        .map(|(rank, hit)| {
            let mut why: Vec<String> = Vec::new();
            if hit.exact_name {
                why.push("the tool's name".to_owned());
            }
            why.extend(hit.matches.iter().map(|m| {
                let fields: Vec<&str> = m.fields.iter().map(|f| f.name()).collect();
                format!("{} ({})", printable_line(&m.word), fields.join(", "))
            }));
            vec![(rank + 1).to_string(), printable_line(&hit.name), format!("{:.2}", hit.score), why.join("; ")]
        })
        .collect();
    write!(out, "{}", table(style, &["RANK", "TOOL", "SCORE", "MATCHED"], &rows))?;
    let among = if deferred_only { "deferred tools" } else { "tools" };
    let summary = format!("{} of {} {among} matched `{}`", hits.len(), index.len(), printable_line(query));
    writeln!(out, "{}", style.dim(&summary))?;
    Ok(0)
}

/// A hit as JSON: the library's hit, and whether the tool is deferred.
pub(super) fn hit_json(hit: &SearchHit, deferred: bool) -> Value {
    let matches: Vec<Value> = hit
        .matches
        .iter()
        .map(|m| json!({"word": m.word, "term": m.term, "fields": m.fields, "score": score(m.score)}))
        .collect();
    json!({"name": hit.name, "score": score(hit.score), "exact_name": hit.exact_name, "deferred": deferred, "matches": matches})
}

/// A score as the shortest decimal that reads back as the same `f32` (`1.037994`, not the
/// `1.0379940271377563` of its widening to `f64`).
fn score(score: f32) -> Value {
    score.to_string().parse::<f64>().map_or(Value::Null, Value::from)
}

/// The formats named on the command line; `all` is every one.
pub(super) fn formats(names: &[String]) -> Result<Vec<Format>, String> {
    if names.iter().any(|n| n == "all") {
        return Ok(FORMATS.iter().map(|(_, f)| *f).collect());
    }
    names.iter().map(|n| n.parse()).collect()
}

/// Runs one call and returns its record. With `answer`, a call that waits for approval is
/// answered at once, as a person at a terminal would; without, its record says pending.
pub(super) async fn call(
    executor: &Executor,
    name: &str,
    arguments: String,
    conversation: Option<String>,
    answer: Option<Decision>,
) -> ExecutionRecord {
    let mut request = ToolCallRequest::new(name, "cli_call", arguments);
    request.conversation_id = conversation;
    let mut scope = CallScope::new();
    if let Some(answer) = answer {
        scope = scope.on_approval(move |_| std::future::ready(answer.clone()));
    }
    executor.execute_in(request, scope).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::{ContentBlock, ToolCallRequest, ToolOutput};

    #[test]
    fn a_results_blocks_are_printed_after_its_text_one_a_line() {
        let content = ToolOutput::text("The week:")
            .with_image(b"\x89PNG", "image/png")
            .with_block(ContentBlock::text("More.\u{1b}[31m"));
        let request = Arc::new(ToolCallRequest::new("chart", "c1", "{}"));
        let record = ExecutionRecord::succeeded(request, content, Duration::ZERO);
        let mut out = Vec::new();
        call_output(&record, false, Style { colour: false }, &mut out).unwrap();
        let printed = String::from_utf8(out).unwrap();
        // A text block from a tool is printed inert, as the text is.
        assert!(printed.ends_with("result:\nThe week:\n[image: image/png, 4 bytes]\nMore.\\u{1b}[31m\n"), "{printed}");
    }
}
