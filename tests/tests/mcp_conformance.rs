//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) in both directions,
//! and the MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`) as a second client:
//!
//! - the suite's server scenarios against `examples/mcp_conformance` over streamable HTTP;
//! - the suite's client scenarios run `examples/mcp_conformance_client`, a host importing tools
//!   with `McpImport`;
//! - the Inspector lists and calls the tools of `examples/mcp_server` over stdio and HTTP.
//!
//! Each direction runs at each revision of [`REVISIONS`], against the baseline of that revision
//! (`tests/mcp-conformance/{server,client}-baseline-<revision>.yml`, passed as
//! `--expected-failures`): the suite fails on a scenario (or a `scenario:check` entry) that fails
//! and is not listed, and on a listed one that passes. The npm packages are pinned in
//! `tests/mcp-conformance/package.json`; where they are not installed, the tests skip with one
//! `SKIPPED` line (`tool_tests::external::mcp_node_tools`).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tool_tests::external::{mcp_node_tools, McpNodeTools};

const SKIP_NAME: &str = "mcp_conformance (the official MCP conformance suite and the MCP Inspector CLI)";
const BASELINES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/mcp-conformance");
/// A whole suite run takes seconds; this is for a run that hangs.
const SUITE_DEADLINE: Duration = Duration::from_secs(300);
/// The Inspector takes under a second a run.
const INSPECTOR_DEADLINE: Duration = Duration::from_secs(60);

/// The protocol revisions each direction is checked at: 2025-11-25, whose scenarios include
/// those of 2025-06-18 (the suite's versions are cumulative), for the clients with sessions and
/// `initialize`; and 2026-07-28, stateless MCP.
const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The revision whose wire the extension scenarios run on: the suite's own default for them.
const EXTENSIONS_AT: &str = "2026-07-28";

/// A direction of the suite: it tests our server, or our client.
#[derive(Clone, Copy)]
enum Direction {
    Server,
    Client,
}

impl Direction {
    /// The suite's command, and the section of a baseline.
    fn name(self) -> &'static str {
        match self {
            Direction::Server => "server",
            Direction::Client => "client",
        }
    }

    /// The baseline file of `revision`, in `tests/mcp-conformance`.
    fn baseline(self, revision: &str) -> String {
        format!("{}-baseline-{revision}.yml", self.name())
    }

    /// The option naming what is tested: the server's URL, or the command starting the client.
    fn target_option(self) -> &'static str {
        match self {
            Direction::Server => "--url",
            Direction::Client => "--command",
        }
    }

    /// How the suite names a scenario's results folder: `server-<scenario>-<time>` for the
    /// server scenarios, `<scenario>-<time>` for the client ones.
    fn results_prefix(self) -> &'static str {
        match self {
            Direction::Server => "server-",
            Direction::Client => "",
        }
    }

    /// The heading above the per-scenario lines of a whole suite's summary.
    fn summary(self) -> &'static str {
        match self {
            Direction::Server => "=== SUMMARY ===",
            Direction::Client => "=== SUITE SUMMARY ===",
        }
    }
}

/// One test of these at a time: the suite's `sse-retry` scenario times the client's
/// reconnection to within a fifth of a second, which Node processes starting beside it could
/// upset on a small machine.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The npm commands and the turn to use them, or `None` when the test skips.
fn tools() -> Option<(McpNodeTools, MutexGuard<'static, ()>)> {
    let tools = mcp_node_tools(SKIP_NAME, Path::new(env!("CARGO_TARGET_TMPDIR")))?;
    Some((tools, ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())))
}

/// The scenario names a baseline lists, in order.
fn baseline(file: &str, section: &str) -> Vec<String> {
    let path = Path::new(BASELINES).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_baseline(file, &text, section).unwrap_or_else(|e| panic!("{e}"))
}

/// The scenario names under `section:` of a baseline, after checking that each is under a
/// comment giving its reason: a comment line above it, or above the entries it follows, with
/// no blank line between.
fn parse_baseline(file: &str, text: &str, section: &str) -> Result<Vec<String>, String> {
    let mut in_section = false;
    let mut reason_given = false;
    let mut names = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            reason_given = false;
        } else if trimmed.starts_with('#') {
            reason_given = in_section;
        } else if let Some(key) = line.strip_suffix(':').filter(|_| !line.starts_with(' ')) {
            in_section = key == section;
            reason_given = false;
        } else if let Some(key) = line.strip_suffix(": []").filter(|_| !line.starts_with(' ')) {
            // A section that lists nothing: every scenario passes.
            in_section = key == section;
            reason_given = false;
        } else if let Some(name) = trimmed.strip_prefix("- ") {
            let name = name.trim();
            if !in_section {
                return Err(format!("{file}:{}: `{name}` is outside the `{section}:` list", number + 1));
            }
            if !reason_given {
                return Err(format!("{file}:{}: `{name}` has no comment above it saying why it fails", number + 1));
            }
            if names.iter().any(|listed| listed == name) {
                return Err(format!("{file}:{}: `{name}` is listed twice", number + 1));
            }
            names.push(name.to_owned());
        } else {
            return Err(format!(
                "{file}:{}: expected `{section}:`, a `- scenario` entry or a comment: {line}",
                number + 1
            ));
        }
    }
    Ok(names)
}

#[test]
fn a_baseline_entry_needs_a_reason_and_its_section() {
    let good = "# about the file\nserver:\n  # why a and b fail\n  - a\n  - b\n\n  # why c fails\n  - c\n";
    assert_eq!(parse_baseline("b.yml", good, "server"), Ok(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]));
    assert_eq!(parse_baseline("b.yml", "# all pass\nserver: []\n", "server"), Ok(vec![]));
    assert_eq!(
        parse_baseline("b.yml", "server:\n  # why\n  - a\n\n  - b\n", "server"),
        Err("b.yml:5: `b` has no comment above it saying why it fails".to_owned())
    );
    assert_eq!(
        parse_baseline("b.yml", "# why\n- a\n", "server"),
        Err("b.yml:2: `a` is outside the `server:` list".to_owned())
    );
    assert_eq!(
        parse_baseline("b.yml", "client:\n  # why\n  - a\n", "server"),
        Err("b.yml:3: `a` is outside the `server:` list".to_owned())
    );
    assert_eq!(
        parse_baseline("b.yml", "server:\n  # why\n  - a\n  - a\n", "server"),
        Err("b.yml:4: `a` is listed twice".to_owned())
    );
    assert_eq!(
        parse_baseline("b.yml", "server:\n  # why\n  a\n", "server"),
        Err("b.yml:3: expected `server:`, a `- scenario` entry or a comment:   a".to_owned())
    );
}

#[test]
fn the_baselines_give_a_reason_for_every_scenario_they_list() {
    // Read without the suite: these files must stay well formed where Node is missing too.
    for revision in REVISIONS {
        for direction in [Direction::Server, Direction::Client] {
            let listed = baseline(&direction.baseline(revision), direction.name());
            assert!(listed.iter().all(|name| !name.is_empty() && !name.contains(' ')), "{listed:?}");
        }
    }
}

/// What a finished process wrote.
struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `command` to its end, or kills it after `deadline`.
fn run(mut command: Command, deadline: Duration) -> Finished {
    let described = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{described} does not start: {e}"));
    let stdout = drain(child.stdout.take().expect("piped"));
    let stderr = drain(child.stderr.take().expect("piped"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{described} did not finish within {deadline:?}\nstdout:\n{}\nstderr:\n{}",
                stdout.join().expect("reader"),
                stderr.join().expect("reader")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Finished { status, stdout: stdout.join().expect("reader"), stderr: stderr.join().expect("reader") }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The suite colours its summary for a terminal.
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// An example server running as a child process, killed when dropped.
struct Served {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Served {
    /// Starts `binary` with `args` (which make it listen on a free port of 127.0.0.1) and
    /// waits until it says where it serves, the line it writes once it listens.
    fn start(binary: &str, args: &[&str]) -> Served {
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{binary} does not start: {e}"));
        let stderr = Arc::new(Mutex::new(String::new()));
        let (url_tx, url_rx) = std::sync::mpsc::channel();
        let lines = BufReader::new(child.stderr.take().expect("piped"));
        let kept = Arc::clone(&stderr);
        // Read to the end, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if let Some(at) = line.find("http://") {
                    let _ = url_tx.send(line[at..].split_whitespace().next().unwrap_or_default().to_owned());
                }
                kept.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        match url_rx.recv_timeout(Duration::from_secs(60)) {
            Ok(url) => Served { child, url, stderr },
            Err(_) => {
                let _ = child.kill();
                panic!("{binary} {args:?} said no URL within 60 s; it wrote:\n{}", stderr.lock().unwrap());
            }
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The scenarios `conformance list` names for `direction`: at `revision` (those of the spec's
/// timeline that apply there), or, without one, every scenario with its tags
/// (`[2025-06-18,2025-11-25]`, `[extension]`).
fn listed_scenarios(tools: &McpNodeTools, direction: Direction, revision: Option<&str>) -> Vec<(String, String)> {
    let mut list = tools.command(&tools.conformance);
    list.args(["list", &format!("--{}", direction.name())]);
    if let Some(revision) = revision {
        list.args(["--spec-version", revision]);
    }
    let described = format!("{list:?}");
    let listed = run(list, SUITE_DEADLINE);
    assert!(listed.status.success(), "{described} failed:\n{}{}", listed.stdout, listed.stderr);
    listed
        .stdout
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|entry| {
            let (name, tags) = entry.split_once(' ').unwrap_or((entry, ""));
            (name.to_owned(), tags.trim().to_owned())
        })
        .collect()
}

/// What one revision's check runs.
///
/// `--suite all --spec-version R` runs every scenario of the spec's timeline that applies at R,
/// the pending ones included (`json-schema-2020-12`, the SEP-2243 header scenarios,
/// `server-sse-polling`), each judged by the baseline; the default suite (`active`) would leave
/// the pending ones out. The filter by spec version also leaves out the extension scenarios
/// (`tasks-*`, the skills ones `sep-2640-*`, the OAuth extensions), which are on no revision's
/// timeline: they run one at a time at 2026-07-28 (`--scenario X --spec-version 2026-07-28
/// --force`), against that revision's baseline. `--requirements R` is not used: it runs what R
/// requires and reports the pending and extension scenarios, but judges only the required ones
/// by the baseline and its exit code, so a regression in the others would pass unseen, and it
/// leaves the skills extension out.
struct Planned {
    /// On the timeline at the revision: one `--suite all` run.
    timeline: BTreeSet<String>,
    /// Extension scenarios, each run on its own.
    extensions: BTreeSet<String>,
}

fn planned(tools: &McpNodeTools, direction: Direction, revision: &str) -> Planned {
    let timeline = listed_scenarios(tools, direction, Some(revision)).into_iter().map(|(name, _)| name).collect();
    let extensions = match revision {
        EXTENSIONS_AT => listed_scenarios(tools, direction, None)
            .into_iter()
            .filter(|(_, tags)| tags == "[extension]")
            .map(|(name, _)| name)
            .collect(),
        _ => BTreeSet::new(),
    };
    Planned { timeline, extensions }
}

/// A clean directory for one run's results, under `target/tmp`.
fn results_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-conformance").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("target/tmp is writable");
    dir
}

/// The scenarios listed under a heading of the suite's baseline report (`Unexpected failures`,
/// `Stale baseline entries`), each on a line of its own below it.
fn reported(output: &str, heading: &str) -> Vec<String> {
    let mut lines = output.lines().skip_while(|line| !line.starts_with(heading)).skip(1);
    let mut names = Vec::new();
    while let Some(entry) = lines.next().and_then(|line| line.strip_prefix("  ")) {
        names.push(entry.split_whitespace().last().unwrap_or_default().to_owned());
    }
    names
}

/// The checks the suite saved for `scenario` in `results` (`<prefix><scenario>-<time>/checks.json`),
/// if it saved them.
fn saved_checks(results: &Path, prefix: &str, scenario: &str) -> Option<Vec<Value>> {
    // A per-check baseline entry (`scenario:check`) is reported under its scenario.
    let scenario = scenario.split_once(':').map_or(scenario, |(scenario, _)| scenario);
    let name = format!("{prefix}{scenario}-");
    let (dir, file) = match name.rsplit_once('/') {
        Some((dir, file)) => (results.join(dir), file.to_owned()),
        None => (results.to_path_buf(), name.clone()),
    };
    let saved = std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|entry| entry.path()).find(|path| {
        let found = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        found.strip_prefix(&file).is_some_and(|time| time.starts_with(|c: char| c.is_ascii_digit()))
    })?;
    serde_json::from_str(&std::fs::read_to_string(saved.join("checks.json")).ok()?).ok()
}

/// The failed and warned checks of each scenario, as the suite saved them in `results`.
fn failed_checks(results: &Path, prefix: &str, scenarios: &[String]) -> String {
    let mut out = String::new();
    for scenario in scenarios {
        let checks = saved_checks(results, prefix, scenario).unwrap_or_default();
        out.push_str(&format!("\n{scenario}:\n"));
        for check in checks.iter().filter(|c| matches!(c["status"].as_str(), Some("FAILURE" | "WARNING"))) {
            out.push_str(&format!(
                "  {} {}: {}\n",
                check["status"].as_str().unwrap_or_default(),
                check["id"].as_str().unwrap_or_default(),
                check["errorMessage"].as_str().or(check["description"].as_str()).unwrap_or_default()
            ));
        }
    }
    out
}

/// Every scenario ran: the suite's summary has a line `✓ name: ..` or `✗ name: ..` for each.
fn assert_summarized(stdout: &str, scenarios: &BTreeSet<String>) {
    let summarized: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("✓ ").or_else(|| line.strip_prefix("✗ ")))
        .filter_map(|line| line.split_once(": ").map(|(name, _)| name))
        .collect();
    let missing: Vec<&String> = scenarios.iter().filter(|name| !summarized.contains(name.as_str())).collect();
    assert!(missing.is_empty(), "the suite's summary has no line for {missing:?}:\n{stdout}");
}

/// How a run differs from its baseline `file`, if it does: which scenarios regressed (with their
/// failed checks) and which baseline entries are stale.
fn differs(direction: Direction, file: &str, run: Finished, summary: &str, results: &Path) -> Option<String> {
    let stdout = without_colours(&run.stdout);
    if run.status.success() {
        return match stdout.contains("Baseline check passed") {
            true => None,
            false => Some(format!("the suite said nothing of its baseline:\n{stdout}")),
        };
    }
    let unexpected = reported(&stdout, "Unexpected failures");
    let stale = reported(&stdout, "Stale baseline entries");
    let from = stdout.find(summary).unwrap_or(0);
    Some(format!(
        "the conformance suite's {} run differs from tests/mcp-conformance/{file} ({}):\n{}\n{}\n\
         scenarios that fail and are not in the baseline: {unexpected:?}{}\n\
         baseline entries that pass now (remove them): {stale:?}",
        direction.name(),
        run.status,
        &stdout[from..],
        run.stderr,
        failed_checks(results, direction.results_prefix(), &unexpected),
    ))
}

/// Runs the suite in `direction` against `target` (the server's URL, or the client's command)
/// at `revision`, as [`Planned`] says, and checks every run against the revision's baseline;
/// a failure shows every run that differs, and `context()` (what the tested server wrote).
fn check_revision(
    tools: &McpNodeTools,
    direction: Direction,
    target: &str,
    revision: &str,
    context: &dyn Fn() -> String,
) {
    let file = direction.baseline(revision);
    let expected = baseline(&file, direction.name());
    let Planned { timeline, extensions } = planned(tools, direction, revision);
    let unknown: Vec<&String> = expected
        .iter()
        .filter(|entry| {
            let scenario = entry.split_once(':').map_or(entry.as_str(), |(scenario, _)| scenario);
            !timeline.contains(scenario) && !extensions.contains(scenario)
        })
        .collect();
    assert!(unknown.is_empty(), "{file} lists scenarios that do not run at {revision}: {unknown:?}");

    let path = Path::new(BASELINES).join(&file);
    let results = results_dir(&format!("{}-{revision}", direction.name()));
    let command = |scenario: &[&str]| {
        let mut suite = tools.command(&tools.conformance);
        suite
            .args([direction.name(), direction.target_option(), target])
            .args(scenario)
            .args(["--spec-version", revision, "--expected-failures"])
            .arg(&path)
            .arg("-o")
            .arg(&results);
        suite
    };
    let finished = run(command(&["--suite", "all"]), SUITE_DEADLINE);
    let stdout = without_colours(&finished.stdout);
    let mut differences: Vec<String> =
        differs(direction, &file, finished, direction.summary(), &results).into_iter().collect();
    assert_summarized(&stdout, &timeline);
    for scenario in &extensions {
        let finished = run(command(&["--scenario", scenario, "--force"]), SUITE_DEADLINE);
        differences.extend(differs(direction, &file, finished, "", &results));
        assert!(
            saved_checks(&results, direction.results_prefix(), scenario).is_some(),
            "the extension scenario {scenario} saved no checks in {}",
            results.display()
        );
    }
    assert!(differences.is_empty(), "{}\n{}", differences.join("\n\n"), context());
}

/// The example server against the server scenarios of `revision`.
fn check_server(revision: &str) {
    let Some((tools, _turn)) = tools() else { return };
    let server = Served::start(env!("CARGO_BIN_EXE_example_mcp_conformance"), &["127.0.0.1:0"]);
    let context = || format!("the example server wrote:\n{}", server.stderr());
    check_revision(&tools, Direction::Server, &server.url, revision, &context);
}

/// The import client against the client scenarios of `revision`.
fn check_client(revision: &str) {
    let Some((tools, _turn)) = tools() else { return };
    let client = env!("CARGO_BIN_EXE_example_mcp_conformance_client");
    check_revision(&tools, Direction::Client, client, revision, &String::new);
}

#[test]
fn the_example_server_fails_only_the_scenarios_of_its_2025_11_25_baseline() {
    check_server("2025-11-25");
}

#[test]
fn the_example_server_fails_only_the_scenarios_of_its_2026_07_28_baseline() {
    check_server("2026-07-28");
}

#[test]
fn the_import_client_fails_only_the_scenarios_of_its_2025_11_25_baseline() {
    check_client("2025-11-25");
}

#[test]
fn the_import_client_fails_only_the_scenarios_of_its_2026_07_28_baseline() {
    check_client("2026-07-28");
}

/// The Inspector's CLI with these arguments; its JSON answer.
fn inspector(tools: &McpNodeTools, args: &[&str]) -> Value {
    let mut command = tools.command(&tools.inspector);
    command.arg("--cli").args(args);
    // The CLI (1.0.3) looks for its own package.json at `../package.json` from the working
    // directory: run it from its `build` folder, where that is true.
    let package = tools.inspector.canonicalize().expect("the Inspector's CLI resolves");
    command.current_dir(package.parent().expect("build/cli.js is in a folder"));
    let finished = run(command, INSPECTOR_DEADLINE);
    assert!(
        finished.status.success(),
        "the Inspector {args:?} failed ({}):\n{}{}",
        finished.status,
        finished.stdout,
        finished.stderr
    );
    serde_json::from_str(&finished.stdout)
        .unwrap_or_else(|e| panic!("the Inspector {args:?} wrote no JSON ({e}):\n{}", finished.stdout))
}

/// `examples/mcp_server`'s tools as `tools/list` gives them.
fn example_tools() -> Value {
    json!({"tools": [
        {
            "name": "check_availability",
            "description": "Check whether a meeting room is free.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "room": {"type": "string", "description": "Room name."},
                    "time": {"type": "string", "description": "Time range such as \"15:00-16:00\"."}
                },
                "required": ["room", "time"]
            }
        },
        {
            "name": "memory.search",
            "description": "Search the memory store for fragments matching a query.\n\nReturns at most `limit` summaries, best first.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Keywords to look for.", "examples": ["agent state consistency"]},
                    "limit": {"type": ["integer", "null"], "maximum": 50, "minimum": 1, "description": "Maximum number of fragments to return."}
                },
                "required": ["query"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"type": "string"}}},
                "required": ["result"]
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "set_reminder",
            "description": "Set a reminder.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "What to be reminded of."},
                    "minutes": {"type": "integer", "description": "In how many minutes.", "minimum": 0},
                    "priority": {"$ref": "#/$defs/Priority", "description": "How urgent it is."}
                },
                "required": ["text", "minutes", "priority"],
                "$defs": {"Priority": {
                    "oneOf": [
                        {"type": "string", "const": "low", "description": "Whenever."},
                        {"type": "string", "const": "high", "description": "Today."}
                    ],
                    "description": "How urgent a reminder is."
                }}
            },
            "annotations": {"destructiveHint": false, "idempotentHint": true}
        },
        {
            "name": "slow_task",
            "description": "Wait for a while, watching for cancellation.",
            "inputSchema": {
                "type": "object",
                "properties": {"seconds": {"type": "integer", "description": "Seconds to wait.", "minimum": 0}},
                "required": ["seconds"]
            }
        }
    ]})
}

#[test]
fn the_inspector_lists_the_example_servers_tools_with_their_schemas_over_stdio_and_http() {
    let Some((tools, _turn)) = tools() else { return };
    let stdio = inspector(&tools, &[env!("CARGO_BIN_EXE_example_mcp_server"), "--method", "tools/list"]);
    assert_eq!(stdio, example_tools());

    let server = Served::start(env!("CARGO_BIN_EXE_example_mcp_server"), &["--http", "127.0.0.1:0"]);
    let http = inspector(&tools, &[&server.url, "--transport", "http", "--method", "tools/list"]);
    assert_eq!(http, example_tools());
}

#[test]
fn the_inspector_calls_the_example_servers_tools_over_stdio_and_http() {
    let Some((tools, _turn)) = tools() else { return };
    // A model's sloppy enum case: converted, with the warning in `_meta`.
    let reminder = [
        "--method",
        "tools/call",
        "--tool-name",
        "set_reminder",
        "--tool-arg",
        "text=stand up",
        "minutes=20",
        "priority=HIGH",
    ];
    let expected = json!({
        "_meta": {"tool-core/parse_warnings": [{
            "pointer": "/priority",
            "rule": "enum_case_normalized",
            "expected": "one of: `low`, `high`",
            "received": "\"HIGH\"",
            "action": "read as \"high\""
        }]},
        "content": [{"type": "text", "text": "reminder in 20 min (High): stand up"}],
        "isError": false
    });
    let stdio = inspector(&tools, &[&[env!("CARGO_BIN_EXE_example_mcp_server")][..], &reminder].concat());
    assert_eq!(stdio, expected);

    let server = Served::start(env!("CARGO_BIN_EXE_example_mcp_server"), &["--http", "127.0.0.1:0"]);
    let http = inspector(&tools, &[&[server.url.as_str(), "--transport", "http"][..], &reminder].concat());
    assert_eq!(http, expected);

    // A tool's error is a result the client reads, with the message written for the model.
    let refused = inspector(
        &tools,
        &[
            &server.url,
            "--transport",
            "http",
            "--method",
            "tools/call",
            "--tool-name",
            "check_availability",
            "--tool-arg",
            "room=Orion",
            "time=15:00-16:00",
        ],
    );
    assert_eq!(
        refused,
        json!({
            "content": [{"type": "text", "text": "there is no room named `Orion`; rooms: Atlas"}],
            "isError": true
        })
    );
}
