//! The public API of `tool-core`, with every signature, is the checked-in list
//! `tests/public-api.txt`: each public module, type, field, variant, function, method, trait
//! item and impl, one a line, sorted. It is rendered by the `public-api` crate from rustdoc's
//! JSON for `tool-core` with all features. A change to the API, a changed method signature
//! included, shows as a diff of that file: rerun with `UPDATE_PUBLIC_API=1` to accept it.
//!
//! Rustdoc writes JSON only when asked with an unstable flag, which stable rustdoc accepts under
//! `RUSTC_BOOTSTRAP=1`. That variable is given to rustdoc alone, through a wrapper: cargo and
//! the build scripts never see it, so the dependencies built for the other tests are reused
//! (proc-macro2's build script reruns when it changes, and with it half the tree). The hidden
//! `__private` module, blanket impls (`impl<T> From<T> for T`) and auto trait impls (`Send`,
//! `Sync`, ...) are not listed.
//!
//! Rustdoc needs the crates under `tool-core` checked with `tool-core`'s features alone, which a
//! fresh target directory does not have yet: the first run takes tens of seconds, later ones
//! only rustdoc's own time.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use tool_tests::external::or_skip;

/// The rustdoc JSON format that `public-api` 0.52.1 reads (rustdoc of Rust 1.95 writes it).
const FORMAT_VERSION: u64 = 57;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the tests package is inside the workspace")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace().join("target"), PathBuf::from)
}

/// Runs `cargo rustdoc` for `tool-core` with all features and JSON output, once for the tests
/// of this file; returns the path of the JSON (`target/doc/tool_core.json`).
fn rustdoc_json() -> &'static Path {
    static JSON: OnceLock<PathBuf> = OnceLock::new();
    JSON.get_or_init(run_rustdoc)
}

fn run_rustdoc() -> PathBuf {
    let target = target_dir();
    let dir = target.join("public-api");
    fs::create_dir_all(&dir).unwrap();
    let rustdoc = std::env::var("RUSTDOC").unwrap_or_else(|_| "rustdoc".to_owned());
    let wrapper = dir.join("rustdoc");
    let script = format!("#!/bin/sh\nRUSTC_BOOTSTRAP=1 exec '{}' \"$@\"\n", rustdoc.replace('\'', "'\\''"));
    // Rewritten only when it changes: another test run may be executing it.
    if fs::read_to_string(&wrapper).ok().as_deref() != Some(script.as_str()) {
        fs::write(&wrapper, script).unwrap();
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(workspace())
        .args(["rustdoc", "-q", "-p", "tool-core", "--all-features", "--target-dir"])
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .env("RUSTDOC", &wrapper)
        .env_remove("RUSTC_BOOTSTRAP")
        .output()
        .expect("`cargo rustdoc` could not be started");
    assert!(output.status.success(), "`cargo rustdoc` failed:\n{}", String::from_utf8_lossy(&output.stderr));
    target.join("doc").join("tool_core.json")
}

/// The format version the JSON at `path` is written in.
fn format_version(path: &Path) -> u64 {
    #[derive(serde::Deserialize)]
    struct Header {
        format_version: u64,
    }
    let text = fs::read_to_string(path).unwrap();
    serde_json::from_str::<Header>(&text).expect("rustdoc's JSON has a format_version").format_version
}

/// The public API, one item a line, sorted; `None` (after a `SKIPPED` line) when this
/// toolchain's rustdoc writes a JSON format that `public-api` 0.52.1 does not read.
fn public_api(test: &str) -> Option<String> {
    let json = rustdoc_json();
    let version = format_version(json);
    let readable = if version == FORMAT_VERSION {
        Ok(())
    } else {
        Err(format!(
            "this toolchain's rustdoc writes JSON format {version}, and the pinned `public-api` reads format \
             {FORMAT_VERSION} (the rustdoc of Rust 1.95); use that toolchain (`rustup run 1.95 cargo test`), \
             or move the pin in tests/Cargo.toml to the `public-api` release that reads format {version}"
        ))
    };
    or_skip(test, readable)?;
    let api = public_api::Builder::from_rustdoc_json(json)
        .omit_blanket_impls(true)
        .omit_auto_trait_impls(true)
        .include_function_parameter_names(true)
        .sorted(true)
        .build()
        .expect("public-api reads rustdoc's JSON");
    let lines: BTreeSet<String> = api.items().map(ToString::to_string).collect();
    Some(lines.into_iter().map(|line| line + "\n").collect())
}

/// The item a line declares: its path, without the signature around it
/// (`pub fn tool_core::Executor::new(catalog: ...) -> ...` gives `tool_core::Executor::new`).
fn item_path(line: &str) -> &str {
    let start = line.find("tool_core").unwrap_or(0);
    let rest = &line[start..];
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
    rest[..end].trim_end_matches(':')
}

#[test]
fn the_public_api_is_the_checked_in_list() {
    let Some(actual) = public_api("public_api::the_public_api_is_the_checked_in_list") else { return };
    let listed = workspace().join("tests").join("public-api.txt");
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
fn the_list_holds_signatures_and_not_the_macro_contract() {
    let Some(api) = public_api("public_api::the_list_holds_signatures_and_not_the_macro_contract") else { return };
    let has = |line: &str| api.lines().any(|l| l == line);
    assert!(has("#[non_exhaustive] pub struct tool_core::ToolDefinition"));
    assert!(has("pub mod tool_core::prelude"));
    assert!(has("pub use tool_core::prelude::tool"));
    assert!(has("pub tool_core::ToolDefinition::name: alloc::string::String"));
    assert!(has("pub fn tool_core::ToolCatalog::definition(&self, name: &str) -> core::option::Option<&tool_core::ToolDefinition>"));
    assert!(has("pub tool_core::CallStatus::Success"));
    let paths: BTreeSet<&str> = api.lines().map(item_path).collect();
    assert!(paths.contains("tool_core::providers::calls::parse_response"));
    assert!(paths.contains("tool_core::providers::export::export"));
    // What `DeclaredTool::extract` returns is named in `extract`, not at the root.
    assert!(paths.contains("tool_core::extract::WireArgs"));
    assert!(!paths.contains("tool_core::WireArgs"));
    for hidden in ["__private", "Pass", "Stop", "joined_warnings", "validate", "parameters_of"] {
        assert!(
            !paths.iter().any(|path| path.split("::").any(|part| part == hidden)),
            "{hidden} is public: {:?}",
            paths.iter().filter(|path| path.contains(hidden)).collect::<Vec<_>>()
        );
    }
}
