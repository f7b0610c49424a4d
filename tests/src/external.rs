//! Tests that need a program outside cargo: Python with the official SDKs, Chromium and
//! chromedriver, Node with the official MCP conformance suite and the MCP Inspector. Where one
//! is missing, such a test skips with one line on the terminal that says what was skipped and
//! how to get it; with `TOOL_TESTS_REQUIRE_EXTERNAL=1` (CI) a missing program fails the test
//! instead, so CI runs them all.

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
pub fn program(variable: &str, names: &[&str]) -> Result<String, String> {
    if let Some(path) = std::env::var_os(variable) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path.display().to_string())
        } else {
            Err(format!("{} not found (set {variable} to another path)", path.display()))
        };
    }
    on_path(names)
        .map(|found| found.display().to_string())
        .ok_or_else(|| format!("no {} on PATH (or set {variable} to its path)", names.join(" or ")))
}

/// The first of `names` found on `PATH`.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
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

/// The official MCP conformance suite and the MCP Inspector's CLI, as `npm ci` installs
/// `tests/mcp-conformance/package.json`, and a Node 22 or newer to run them.
#[derive(Clone, Debug)]
pub struct McpNodeTools {
    /// The suite's `conformance` command.
    pub conformance: PathBuf,
    /// The Inspector's `mcp-inspector-cli` command.
    pub inspector: PathBuf,
    /// The directory of the `node` that runs them.
    node_dir: PathBuf,
}

impl McpNodeTools {
    /// A command running `program` (one of the npm commands above, whose first line asks for
    /// `node` on `PATH`) with this Node first on `PATH`, for it and what it starts.
    pub fn command(&self, program: &Path) -> Command {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(std::iter::once(self.node_dir.clone()).chain(std::env::split_paths(&path)))
            .expect("PATH entries join");
        let mut command = Command::new(program);
        command.env("PATH", path);
        command
    }
}

/// The prefix `tests/mcp-conformance/package.json` is installed in by CI.
const MCP_NODE_PREFIX: &str = "target/mcp-conformance";

/// The conformance suite, the Inspector's CLI and Node 22+ (see [`McpNodeTools`]):
/// `TOOL_MCP_CONFORMANCE` names the `conformance` command or the npm prefix they are installed
/// in, else `target/mcp-conformance` (`target_tmp` is the test's `CARGO_TARGET_TMPDIR`). Missing,
/// the first test to ask writes one `SKIPPED` line for all of them (they share the reason) and
/// each gets `None`; under `TOOL_TESTS_REQUIRE_EXTERNAL=1` each fails.
pub fn mcp_node_tools(test: &str, target_tmp: &Path) -> Option<McpNodeTools> {
    static FOUND: std::sync::OnceLock<Result<McpNodeTools, String>> = std::sync::OnceLock::new();
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let found = FOUND.get_or_init(|| find_mcp_node_tools(target_tmp)).clone();
    match found {
        Err(_) if !required() && SAID.swap(true, std::sync::atomic::Ordering::SeqCst) => None,
        found => or_skip(test, found),
    }
}

fn find_mcp_node_tools(target_tmp: &Path) -> Result<McpNodeTools, String> {
    let install = format!(
        "copy tests/mcp-conformance/package.json and package-lock.json into {MCP_NODE_PREFIX} and run \
         `npm ci --prefix {MCP_NODE_PREFIX}` (as .ci/run does; the pinned `node` package brings Node 22), or set \
         TOOL_MCP_CONFORMANCE to the npm prefix they are installed in"
    );
    let conformance = match std::env::var_os("TOOL_MCP_CONFORMANCE") {
        Some(named) => {
            let named = PathBuf::from(named);
            if named.is_dir() {
                named.join("node_modules/.bin/conformance")
            } else {
                named
            }
        }
        None => target_tmp
            .parent()
            .expect("CARGO_TARGET_TMPDIR is target/tmp")
            .join("mcp-conformance/node_modules/.bin/conformance"),
    };
    if !conformance.is_file() {
        return Err(format!("no MCP conformance suite at {}; {install}", conformance.display()));
    }
    let bin = conformance.parent().expect("a file has a directory");
    let inspector = bin.join("mcp-inspector-cli");
    if !inspector.is_file() {
        return Err(format!("no MCP Inspector CLI at {} beside the conformance suite; {install}", inspector.display()));
    }
    // npm's `node` package puts a Node beside the commands; else the system's must do.
    let node = match bin.join("node") {
        beside if beside.is_file() => beside,
        _ => on_path(&["node"])
            .ok_or_else(|| format!("no node beside {} nor on PATH; {install}", conformance.display()))?,
    };
    let version =
        Command::new(&node).arg("--version").output().map_err(|e| format!("{} does not run: {e}", node.display()))?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    let major: u32 = version.trim_start_matches('v').split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
    if major < 22 {
        return Err(format!(
            "the MCP conformance suite needs Node 22 or newer, and {} is {version:?}; {install}",
            node.display()
        ));
    }
    let node_dir = node.parent().expect("a file has a directory").to_path_buf();
    Ok(McpNodeTools { conformance, inspector, node_dir })
}
