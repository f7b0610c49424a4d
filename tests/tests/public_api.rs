//! The public API of `tool-core` is the checked-in list `tests/public-api.txt`: every path a
//! user can name (the crate root's re-exports, the prelude, and each public module's items),
//! read from the source. A change to the API shows as a diff of that file: rerun with
//! `UPDATE_PUBLIC_API=1` to accept it. The hidden `__private` module is not listed.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use tool_tests::source::{blank_comments_and_strings, path_at, tokenize, tool_core_src, without_tests};

/// What one file makes public, at the depth of its own items (not inside inline modules).
struct Public {
    /// Names re-exported with `pub use`.
    reexports: Vec<String>,
    /// Items defined with `pub fn|struct|enum|trait|type|const|static|macro`, with their kind.
    items: Vec<(String, &'static str)>,
    /// `pub mod name;` (a file) or `pub mod name { .. }` (inline, with its code).
    modules: Vec<(String, Option<String>)>,
}

fn public_of(code: &str) -> Public {
    let mut public = Public { reexports: Vec::new(), items: Vec::new(), modules: Vec::new() };
    let tokens = tokenize(code);
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            "pub" if depth == 0 && tokens.get(i + 1).is_none_or(|t| t != "(") && !doctest_only(&tokens[..i]) => {
                let keyword = tokens.get(i + 1).map(String::as_str).unwrap_or_default();
                let name = tokens.get(i + 2).cloned().unwrap_or_default();
                match keyword {
                    "use" => {
                        let (paths, end) = path_at(&tokens, i + 2);
                        for path in paths {
                            public.reexports.extend(path.last().cloned());
                        }
                        i = end;
                        continue;
                    }
                    "mod" => {
                        if tokens.get(i + 3).is_some_and(|t| t == "{") {
                            // An inline module: its code is the text up to the matching brace.
                            let body = inline_body(&tokens, i + 3);
                            public.modules.push((name, Some(body.0)));
                            i = body.1;
                            continue;
                        }
                        public.modules.push((name, None));
                    }
                    "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" => {
                        let kind = match keyword {
                            "fn" => "fn",
                            "struct" => "struct",
                            "enum" => "enum",
                            "trait" => "trait",
                            "type" => "type",
                            "const" => "const",
                            _ => "static",
                        };
                        public.items.push((name, kind));
                    }
                    "async" if name == "fn" => {
                        public.items.push((tokens.get(i + 3).cloned().unwrap_or_default(), "fn"));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    public
}

/// Whether the item starting after `before` is compiled for doc tests only
/// (`#[cfg(doctest)]`): the README's examples, not API.
fn doctest_only(before: &[String]) -> bool {
    let start = before.iter().rposition(|t| t == ";" || t == "}").map_or(0, |at| at + 1);
    before[start..].windows(3).any(|w| w[0] == "cfg" && w[1] == "(" && w[2] == "doctest")
}

/// The tokens of an inline module's body, joined, and the index past its closing brace.
fn inline_body(tokens: &[String], open: usize) -> (String, usize) {
    let mut depth = 0;
    let mut i = open;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return (tokens[open + 1..i].join(" "), i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (tokens[open + 1..].join(" "), tokens.len())
}

fn file_of(dir: &Path, module: &str) -> Option<std::path::PathBuf> {
    [dir.join(format!("{module}.rs")), dir.join(module).join("mod.rs")].into_iter().find(|p| p.exists())
}

fn collect(code: &str, prefix: &str, dir: &Path, out: &mut BTreeSet<String>) {
    let public = public_of(code);
    for name in public.reexports {
        out.insert(format!("{prefix}{name}"));
    }
    for (name, kind) in public.items {
        out.insert(format!("{prefix}{name} ({kind})"));
    }
    for (name, inline) in public.modules {
        if name == "__private" {
            continue;
        }
        out.insert(format!("{prefix}{name} (mod)"));
        let inner = format!("{prefix}{name}::");
        match inline {
            Some(body) => collect(&body, &inner, dir, out),
            None => {
                let file = file_of(dir, &name).expect("a public module's file");
                let text = without_tests(&blank_comments_and_strings(&fs::read_to_string(&file).unwrap()));
                let child_dir =
                    if file.ends_with("mod.rs") { file.parent().unwrap().to_owned() } else { dir.join(&name) };
                collect(&text, &inner, &child_dir, out);
            }
        }
    }
}

fn public_api() -> String {
    let src = tool_core_src();
    let lib = without_tests(&blank_comments_and_strings(&fs::read_to_string(src.join("lib.rs")).unwrap()));
    let mut out = BTreeSet::new();
    collect(&lib, "tool_core::", &src, &mut out);
    out.into_iter().map(|line| line + "\n").collect()
}

#[test]
fn the_public_api_is_the_checked_in_list() {
    let listed = Path::new(env!("CARGO_MANIFEST_DIR")).join("public-api.txt");
    let actual = public_api();
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        fs::write(&listed, &actual).unwrap();
    }
    let expected = fs::read_to_string(&listed).unwrap_or_default();
    if actual != expected {
        let (old, new): (BTreeSet<&str>, BTreeSet<&str>) = (expected.lines().collect(), actual.lines().collect());
        let removed: Vec<&&str> = old.difference(&new).collect();
        let added: Vec<&&str> = new.difference(&old).collect();
        panic!(
            "the public API changed (rerun with UPDATE_PUBLIC_API=1 to accept):\nremoved: {removed:#?}\nadded: {added:#?}"
        );
    }
}

#[test]
fn the_list_holds_what_users_name_and_not_the_macro_contract() {
    let api = public_api();
    let has = |line: &str| api.lines().any(|l| l == line);
    assert!(has("tool_core::ToolDefinition"));
    assert!(has("tool_core::prelude::ToolCatalog"));
    assert!(has("tool_core::providers::export::export (fn)"));
    assert!(has("tool_core::providers::calls::parse_response (fn)"));
    // What `DeclaredTool::extract` returns is named in `extract`, not at the root.
    assert!(has("tool_core::extract::WireArgs"));
    assert!(!has("tool_core::WireArgs"));
    for hidden in ["Pass", "Stop", "joined_warnings", "validate", "parameters_of"] {
        assert!(
            !api.lines().any(|l| l.trim_end_matches(" (fn)").ends_with(&format!("::{hidden}"))),
            "{hidden} is public"
        );
    }
}
