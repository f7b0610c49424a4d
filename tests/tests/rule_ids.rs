//! The rule ids of warnings and errors are a public contract, defined once in
//! `tool-core/src/model/rules.rs` (`tool_core::rules`) and each documented in a table of
//! `docs/`. Reads both, and the rest of `tool-core`'s source, and fails naming every id that is
//! in one but not the other, and every literal that writes an id instead of naming its constant.
//!
//! A table documents rule ids in a column headed `rule` (its first column, as in `docs/xml.md`
//! and `docs/open-models.md`; the second column of `docs/providers.md`'s `| id | rule |` holds
//! the checkers' rules in words) or one of [`RULE_HEADERS`]: the ids are the backticked words
//! a cell starts with (`` `a`, `b` ``, `` `truncated_call` (error) ``).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use tool_tests::source::{tool_core_src, without_tests};

/// The headers of the columns that hold rule ids wherever they are.
const RULE_HEADERS: &[&str] = &["warning rule", "error rule", "warning"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is in the workspace").to_path_buf()
}

fn is_id(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The constants of the rules module: name → id.
fn constants() -> BTreeMap<String, String> {
    let path = tool_core_src().join("model/rules.rs");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut found = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("pub const ") else { continue };
        let (name, value) = rest.split_once(": &str = \"").unwrap_or_else(|| panic!("not a rule id: {line}"));
        let id = value.strip_suffix("\";").unwrap_or_else(|| panic!("not a rule id: {line}"));
        assert!(found.insert(name.to_owned(), id.to_owned()).is_none(), "{name} is defined twice");
    }
    found
}

/// A table row's cells, split at the `|` that are not escaped.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            '|' if !escaped => cells.push(String::new()),
            _ => cells.last_mut().unwrap().push(c),
        }
        escaped = c == '\\';
    }
    cells.into_iter().map(|cell| cell.trim().to_owned()).collect()
}

/// The backticked ids `cell` starts with.
fn leading_ids(cell: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut rest = cell;
    while let Some(after) = rest.strip_prefix('`') {
        let Some((word, tail)) = after.split_once('`') else { break };
        if !is_id(word) {
            break;
        }
        ids.push(word.to_owned());
        rest = tail.trim_start().trim_start_matches(',').trim_start();
    }
    ids
}

/// The ids in the rule columns of the tables of `docs/`, each with where it is (`file:line`).
fn documented() -> BTreeMap<String, String> {
    let docs = workspace().join("docs");
    let mut found = BTreeMap::new();
    let mut pages: Vec<PathBuf> = fs::read_dir(&docs)
        .expect("docs/ is readable")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let text = fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let lines: Vec<&str> = text.lines().collect();
        // The rule columns of the table being read.
        let mut columns: Vec<usize> = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            if !line.trim_start().starts_with('|') {
                columns.clear();
                continue;
            }
            let next_is_rule = lines.get(index + 1).is_some_and(|next| next.trim_start().starts_with("|---"));
            if next_is_rule {
                columns = cells(line)
                    .iter()
                    .enumerate()
                    .filter(|(at, header)| {
                        let header = header.to_lowercase();
                        (header == "rule" && *at == 0) || RULE_HEADERS.contains(&header.as_str())
                    })
                    .map(|(at, _)| at)
                    .collect();
                continue;
            }
            let row = cells(line);
            for &at in &columns {
                for id in leading_ids(row.get(at).map_or("", String::as_str)) {
                    found.entry(id).or_insert_with(|| format!("docs/{name}:{}", index + 1));
                }
            }
        }
    }
    found
}

#[test]
fn every_rule_id_is_a_constant_named_after_it_and_documented_in_a_table() {
    let constants = constants();
    assert!(constants.len() > 100, "the rules module was not read: {constants:?}");
    let misnamed: Vec<String> = constants
        .iter()
        .filter(|(name, id)| **name != id.to_uppercase())
        .map(|(name, id)| format!("{name} = {id:?}"))
        .collect();
    assert!(misnamed.is_empty(), "a rule's constant is its id in capitals: {misnamed:?}");
    let ids: BTreeSet<&String> = constants.values().collect();
    assert_eq!(ids.len(), constants.len(), "two constants hold the same id");

    let documented = documented();
    let undocumented: Vec<&&String> = ids.iter().filter(|id| !documented.contains_key(id.as_str())).collect();
    let unknown: Vec<String> =
        documented.iter().filter(|(id, _)| !ids.contains(id)).map(|(id, place)| format!("{id} ({place})")).collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "in tool_core::rules but in no table of docs/ (add a row where the rule is explained): {undocumented:?}; \
         in a table of docs/ but no constant of tool-core/src/model/rules.rs: {unknown:?}"
    );
}

#[test]
fn tool_core_names_rule_ids_by_their_constants() {
    let ids: BTreeSet<String> = constants().into_values().collect();
    let mut literals = Vec::new();
    let mut pending = vec![tool_core_src()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path.strip_prefix(tool_core_src()).unwrap();
            let skipped = relative == Path::new("model/rules.rs") || path.file_name().is_some_and(|n| n == "tests.rs");
            if skipped || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let code = without_tests(&fs::read_to_string(&path).unwrap());
            for (index, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for piece in line.split('"').skip(1).step_by(2) {
                    if ids.contains(piece) {
                        literals.push(format!("{}:{}: \"{piece}\"", relative.display(), index + 1));
                    }
                }
            }
        }
    }
    literals.sort();
    assert!(literals.is_empty(), "rule ids written as literals; name them `rules::ID` instead: {literals:#?}");
}
