//! The module tree of `tool-core` reads as layers: no module depends on one that depends
//! back on it, and each top-level module uses only the modules below it in `LAYERS` (the
//! order `tool-core/src/lib.rs` states).
//!
//! Reads the source: every `use` and path through `crate::`, `super::`, `self::` or a child
//! module, outside comments, strings and `#[cfg(test)]` modules; a name a module re-exports
//! (`pub use call::ParseWarning`) is followed to the module that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use tool_tests::source::{blank_comments_and_strings, path_at, tokenize, tool_core_src, without_tests};

/// The top-level modules, bottom layer first. A module may use the ones before it.
const LAYERS: &[&str] = &[
    "suggest",
    "otel",
    "model",
    "state",
    "schema",
    "extract",
    "wire",
    "ask",
    "context",
    "tool",
    "stateful",
    "declare",
    "catalog",
    "policy",
    "executor",
    "providers",
    "listen",
    "search",
    "auth",
    "mcp",
    "rest",
    "xml",
    "open_models",
    "document",
    "cli",
];

/// A module path below the crate root, as segments (`["extract", "scan"]`); the root is `[]`.
type Module = Vec<String>;

struct Source {
    /// The code with comments, strings and test modules blanked out.
    code: String,
    /// The child modules it declares (`mod scan;`).
    children: BTreeSet<String>,
}

fn module_of(relative: &Path) -> Module {
    let mut segments: Vec<String> =
        relative.iter().map(|s| s.to_string_lossy().trim_end_matches(".rs").to_owned()).collect();
    if matches!(segments.last().map(String::as_str), Some("mod" | "lib")) {
        segments.pop();
    }
    segments
}

fn read_sources() -> BTreeMap<Module, Source> {
    let mut sources = BTreeMap::new();
    let mut pending = vec![tool_core_src()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("tool-core/src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).expect("a source file");
                let code = without_tests(&blank_comments_and_strings(&text));
                let children = declared_children(&code);
                sources.insert(module_of(path.strip_prefix(tool_core_src()).unwrap()), Source { code, children });
            }
        }
    }
    sources
}

fn declared_children(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest =
                line.strip_prefix("pub(crate) mod ").or(line.strip_prefix("pub mod ")).or(line.strip_prefix("mod "))?;
            rest.strip_suffix(';').map(|name| name.trim().to_owned())
        })
        .collect()
}

/// The paths a piece of code names through `crate::`, `super::` or `self::`, or through one
/// of `children`, each as written (`crate::extract::scan::ObjectScan`), with `use` groups
/// expanded (`crate::{a::X, b}` gives `crate::a::X` and `crate::b`).
fn named_paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let tokens = tokenize(code);
    let mut paths = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let starts = matches!(tokens[i].as_str(), "crate" | "super" | "self") || children.contains(&tokens[i]);
        let follows_path = i > 0 && tokens[i - 1] == "::";
        if starts && !follows_path && tokens.get(i + 1).is_some_and(|t| t == "::") {
            let (mut found, end) = path_at(&tokens, i);
            paths.append(&mut found);
            i = end;
        } else {
            i += 1;
        }
    }
    paths
}

/// The names each module re-exports, with the path they come from.
fn reexports(sources: &BTreeMap<Module, Source>) -> BTreeMap<(Module, String), Vec<String>> {
    let mut table = BTreeMap::new();
    for (module, source) in sources {
        for statement in source.code.split(';') {
            let statement = statement.trim();
            let Some(rest) = ["pub use ", "pub(crate) use "].iter().find_map(|p| statement.strip_prefix(p)) else {
                continue;
            };
            let tokens = tokenize(rest);
            if tokens.is_empty() {
                continue;
            }
            let (paths, _) = path_at(&tokens, 0);
            for path in paths {
                // The first is kept: lib.rs's inline `prelude` names the crate root's own
                // re-exports again.
                if let Some(name) = path.last() {
                    table.entry((module.clone(), name.clone())).or_insert_with(|| path.clone());
                }
            }
        }
    }
    table
}

/// The module a path leads to: the longest prefix that is a module, followed through
/// re-exports of the name after it.
fn resolve(
    from: &Module,
    path: &[String],
    sources: &BTreeMap<Module, Source>,
    reexported: &BTreeMap<(Module, String), Vec<String>>,
    depth: usize,
) -> Option<Module> {
    let mut base: Module = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" => from.clone(),
        "super" => from[..from.len().checked_sub(1)?].to_vec(),
        child => {
            let mut m = from.clone();
            m.push(child.to_owned());
            m
        }
    };
    let mut rest = &path[1..];
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut module = base;
    let mut used = 0;
    for segment in rest {
        let mut deeper = module.clone();
        deeper.push(segment.clone());
        if sources.contains_key(&deeper) {
            module = deeper;
            used += 1;
        } else {
            break;
        }
    }
    // A name re-exported by that module leads on to where it comes from.
    if let Some(name) = rest.get(used) {
        if depth < 8 {
            if let Some(origin) = reexported.get(&(module.clone(), name.clone())) {
                if let Some(target) = resolve(&module, origin, sources, reexported, depth + 1) {
                    return Some(target);
                }
            }
        }
    }
    Some(module)
}

/// Every module's dependencies on other modules (not on itself, its ancestors' re-exports
/// followed through).
fn dependencies() -> BTreeMap<Module, BTreeSet<Module>> {
    let sources = read_sources();
    let reexported = reexports(&sources);
    let mut graph = BTreeMap::new();
    for (module, source) in &sources {
        let mut uses = BTreeSet::new();
        for path in named_paths(&source.code, &source.children) {
            if let Some(target) = resolve(module, &path, &sources, &reexported, 0) {
                // A module may use its own children; an empty target is the crate root.
                if &target != module && !target.is_empty() {
                    uses.insert(target);
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

fn name(module: &Module) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

#[test]
fn no_module_depends_on_a_module_that_depends_back_on_it() {
    let graph = dependencies();
    // Reachability from each module; a cycle is a module reaching itself.
    let mut cycles = BTreeSet::new();
    for start in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(Module, Vec<Module>)> = vec![(start.clone(), vec![start.clone()])];
        while let Some((module, trail)) = stack.pop() {
            for next in graph.get(&module).into_iter().flatten() {
                if next == start {
                    let mut cycle: Vec<String> = trail.iter().map(name).collect();
                    cycle.push(name(start));
                    cycles.insert(cycle.join(" -> "));
                } else if seen.insert(next.clone()) {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles between modules:\n{}", cycles.into_iter().collect::<Vec<_>>().join("\n"));
}

#[test]
fn each_top_level_module_uses_only_the_layers_below_it() {
    let graph = dependencies();
    let layer = |module: &Module| module.first().and_then(|top| LAYERS.iter().position(|l| l == top));
    let tops: BTreeSet<&str> = graph.keys().filter_map(|m| m.first()).map(String::as_str).collect();
    let unplaced: Vec<&str> = tops.iter().copied().filter(|top| !LAYERS.contains(top)).collect();
    assert!(unplaced.is_empty(), "top-level modules missing from LAYERS: {unplaced:?}");
    let mut upward = Vec::new();
    for (module, uses) in &graph {
        let Some(from) = layer(module) else { continue };
        for target in uses {
            if let Some(to) = layer(target) {
                if to > from {
                    upward.push(format!("{} uses {}", name(module), name(target)));
                }
            }
        }
    }
    assert!(upward.is_empty(), "modules using a layer above their own:\n{}", upward.join("\n"));
}

#[test]
fn the_reader_sees_uses_through_groups_children_and_reexports() {
    let graph = dependencies();
    let module = |path: &str| -> Module { path.split("::").map(str::to_owned).collect() };
    let uses = |from: &str, to: &str| graph.get(&module(from)).is_some_and(|set| set.contains(&module(to)));
    // `use crate::extract::keys::{parameter_named, Key};` in the object scan: both re-exported by
    // `keys`, defined in `keys::names`.
    assert!(uses("extract::scan", "extract::keys::names"));
    // `use crate::model::{pointer, ...}` leads to the pointer module itself.
    assert!(uses("extract::convert::walk", "model::pointer"));
    // `ToolDefinition`, re-exported by `model`, is defined in `model::definition`.
    assert!(uses("catalog", "model::definition"));
    // A parent using its child: `pub(crate) use tree::{tree_path, read_by_tree};`.
    assert!(uses("extract", "extract::tree"));
    assert!(!uses("model::definition", "extract::constraints"));
}
