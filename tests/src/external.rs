//! Tests that need a program outside cargo: Python with the official SDKs, Chromium and
//! chromedriver. Where one is missing, such a test skips with one line on the terminal that
//! says what was skipped and how to get it; with `TOOL_TESTS_REQUIRE_EXTERNAL=1` (CI) a
//! missing program fails the test instead, so CI runs them all.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Set (to anything but `0` or empty) by CI: a missing program fails the test.
pub const REQUIRE: &str = "TOOL_TESTS_REQUIRE_EXTERNAL";

fn required() -> bool {
    std::env::var(REQUIRE).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// What was found, or `None` after one line on the terminal (written past the test harness's
/// capture, so it shows in a passing run) saying that `test` was skipped and why.
pub fn or_skip<T>(test: &str, found: Result<T, String>) -> Option<T> {
    match found {
        Ok(found) => Some(found),
        Err(why) if required() => panic!("{test}: {why} ({REQUIRE} is set, so this fails instead of skipping)"),
        Err(why) => {
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
            None
        }
    }
}

/// The Python with the official SDKs (see [`crate::python::sdk_python`]; `target_tmp` is the
/// test's `CARGO_TARGET_TMPDIR`), once it runs.
pub fn python(test: &str, target_tmp: &Path) -> Option<PathBuf> {
    let found = crate::python::sdk_python(target_tmp).and_then(|python| {
        let runs =
            Command::new(&python).args(["-c", "import sys"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
        match runs {
            Ok(status) if status.success() => Ok(python),
            _ => Err(format!("{} does not run", python.display())),
        }
    });
    or_skip(
        test,
        found.map_err(|e| {
            format!(
                "no Python with the official SDKs ({e}); it needs python3 with venv and pip reaching PyPI \
                 (the test makes target/sdk-venv), or TOOL_SDK_PYTHON naming a Python that has \
                 tests/python/requirements.txt installed"
            )
        }),
    )
}

/// A program at `$variable`, else the first of `names` found on `PATH`.
fn program(variable: &str, names: &[&str]) -> Result<String, String> {
    if let Some(path) = std::env::var_os(variable) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path.display().to_string())
        } else {
            Err(format!("{} not found (set {variable} to another path)", path.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .map(|found| found.display().to_string())
        .ok_or_else(|| format!("no {} on PATH (or set {variable} to its path)", names.join(" or ")))
}

/// Chromium and chromedriver: `TOOL_CHROMIUM` and `TOOL_CHROMEDRIVER`, else found on `PATH`
/// under the names distributions give them.
pub fn chromium(test: &str) -> Option<(String, String)> {
    let found = program("TOOL_CHROMIUM", &["chromium", "chromium-browser", "google-chrome"])
        .and_then(|chromium| program("TOOL_CHROMEDRIVER", &["chromedriver"]).map(|driver| (chromium, driver)));
    or_skip(
        test,
        found.map_err(|e| {
            format!("{e}; install Debian's chromium and chromium-driver (`apt-get install chromium chromium-driver`)")
        }),
    )
}
