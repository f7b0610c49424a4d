//! What `#[tool]` generates must be lint-clean in the crates that use it: `tests/lint-crate`
//! declares tools of every form under `#![deny(warnings, clippy::pedantic, missing_docs)]`, and
//! this test runs Clippy on it.
//!
//! In a fresh target directory it checks every crate under `tool-core` first (the lint crate is
//! a workspace of its own, with its own features and lock file, in `target/lint-crate`), which
//! takes tens of seconds; afterwards only what changed.

use std::path::Path;
use std::process::Command;

#[test]
fn generated_code_is_clean_under_deny_warnings_and_clippy_pedantic() {
    let tests_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = tests_dir.parent().expect("the tests package is inside the workspace");
    let manifest = tests_dir.join("lint-crate").join("Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .arg("clippy")
        .arg("--manifest-path")
        .arg(&manifest)
        .args(["--all-targets", "--", "-D", "warnings", "-D", "clippy::pedantic"])
        .env("CARGO_TARGET_DIR", workspace.join("target").join("lint-crate"))
        .output()
        .expect("`cargo clippy` could not be started");
    assert!(
        output.status.success(),
        "`cargo clippy` found problems in {} (is Clippy installed?):\n{}",
        manifest.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}
