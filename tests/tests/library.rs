//! The library in process: each module was a test file of its own and keeps its name, so
//! `cargo test -p tool-tests --test library xml::` runs what `tests/xml.rs` holds.

mod asking;
mod content_blocks;
mod definition;
mod executor;
mod extraction;
mod extraction_properties;
mod hostile_arguments;
mod layers;
mod lint;
mod metrics;
mod nested_keys;
mod numbers;
mod open_models_harmony;
mod open_models_json_forms;
mod open_models_out;
mod open_models_python;
mod open_models_real;
mod open_models_stream;
mod open_models_tokens;
mod pending_store;
mod policy;
mod policy_macros;
mod policy_resume;
mod policy_store;
mod policy_tower;
mod provider_calls;
mod provider_check;
mod provider_export;
mod provider_generated;
mod provider_results;
mod provider_sdks;
mod provider_wire_forms;
mod public_api;
mod readme;
mod real_world_arguments;
mod rule_ids;
mod stateful;
mod stateful_end_all;
mod stateful_store;
mod strict;
mod tool_examples;
mod tool_icons;
mod tool_search;
mod tool_search_providers;
mod tool_search_recall;
mod validation;
mod wide;
mod xml;
mod xml_round_trip;

/// Every file of `tests/tests/` is compiled: a module of this binary or of `services.rs`, or a
/// binary of its own in `tests/Cargo.toml`. Cargo's own discovery of test files is off
/// (`autotests = false`), so a file in none of them would never run, silently.
#[test]
fn every_test_file_belongs_to_a_binary() {
    use std::collections::BTreeSet;
    use std::path::Path;

    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = package.join("tests");
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut compiled = BTreeSet::new();
    for root in ["library.rs", "services.rs"] {
        compiled.insert(root.to_owned());
        let modules = read(&dir.join(root));
        compiled.extend(
            modules.lines().filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';')).map(|m| format!("{m}.rs")),
        );
    }
    let manifest = read(&package.join("Cargo.toml"));
    compiled.extend(
        manifest.lines().filter_map(|line| line.strip_prefix("path = \"tests/")?.strip_suffix('"')).map(str::to_owned),
    );
    let files: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs"))
        .collect();
    let orphans: Vec<&String> = files.difference(&compiled).collect();
    assert!(
        orphans.is_empty(),
        "never compiled: {orphans:?}; add `mod NAME;` to tests/tests/library.rs or services.rs \
         (or, for a test that reads state of its whole process, a [[test]] in tests/Cargo.toml)"
    );
    let missing: Vec<&String> = compiled.difference(&files).collect();
    assert!(missing.is_empty(), "declared but not in tests/tests/: {missing:?}");
}
