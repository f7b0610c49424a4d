//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) in both directions,
//! and the MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`) as a second client:
//!
//! - the suite's server scenarios against `examples/mcp_conformance` over streamable HTTP;
//! - the suite's client scenarios run `examples/mcp_conformance_client`, a host importing tools
//!   with `McpImport`;
//! - the Inspector lists and calls the tools of `examples/mcp_server` over stdio and HTTP.
//!
//! Each suite run passes `--expected-failures` with its baseline
//! (`tests/mcp-conformance/{server,client}-baseline.yml`): the suite fails on a scenario that
//! fails and is not listed, and on a listed scenario that passes. The npm packages are pinned in
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
    let server = baseline("server-baseline.yml", "server");
    let client = baseline("client-baseline.yml", "client");
    assert!(server.iter().chain(&client).all(|name| !name.is_empty() && !name.contains(' ')), "{server:?} {client:?}");
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

/// The scenarios `conformance list` names for one direction (`--server` or `--client`).
fn listed_scenarios(tools: &McpNodeTools, which: &str) -> BTreeSet<String> {
    let mut list = tools.command(&tools.conformance);
    list.args(["list", which]);
    let listed = run(list, SUITE_DEADLINE);
    assert!(listed.status.success(), "conformance list {which} failed:\n{}{}", listed.stdout, listed.stderr);
    listed
        .stdout
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|entry| entry.split_whitespace().next().unwrap_or_default().to_owned())
        .collect()
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

/// The failed and warned checks of each scenario, as the suite saved them in `results`
/// (`<prefix><scenario>-<time>/checks.json`).
fn failed_checks(results: &Path, prefix: &str, scenarios: &[String]) -> String {
    let mut out = String::new();
    for scenario in scenarios {
        let name = format!("{prefix}{scenario}-");
        let (dir, file) = match name.rsplit_once('/') {
            Some((dir, file)) => (results.join(dir), file.to_owned()),
            None => (results.to_path_buf(), name.clone()),
        };
        let saved = std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|entry| entry.path()).find(|path| {
            let found = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            found.strip_prefix(&file).is_some_and(|time| time.starts_with(|c: char| c.is_ascii_digit()))
        });
        let checks: Vec<Value> = saved
            .and_then(|dir| std::fs::read_to_string(dir.join("checks.json")).ok())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
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

/// Checks a suite run against its baseline: the run succeeded, and if not, says which scenarios
/// regressed (with their failed checks) and which baseline entries are stale.
fn assert_suite(direction: &str, run: Finished, summary: &str, results: &Path, prefix: &str) {
    let stdout = without_colours(&run.stdout);
    if run.status.success() {
        assert!(stdout.contains("Baseline check passed"), "the suite said nothing of its baseline:\n{stdout}");
        return;
    }
    let unexpected = reported(&stdout, "Unexpected failures");
    let stale = reported(&stdout, "Stale baseline entries");
    let from = stdout.find(summary).unwrap_or(0);
    panic!(
        "the conformance suite's {direction} run differs from tests/mcp-conformance/{direction}-baseline.yml \
         ({}):\n{}\n{}\nscenarios that fail and are not in the baseline: {unexpected:?}{}\n\
         baseline entries that pass now (remove them): {stale:?}",
        run.status,
        &stdout[from..],
        run.stderr,
        failed_checks(results, prefix, &unexpected),
    );
}

#[test]
fn the_example_server_fails_only_the_scenarios_of_its_baseline() {
    let Some((tools, _turn)) = tools() else { return };
    let expected = baseline("server-baseline.yml", "server");
    let scenarios = listed_scenarios(&tools, "--server");
    let unknown: Vec<&String> = expected.iter().filter(|name| !scenarios.contains(*name)).collect();
    assert!(unknown.is_empty(), "server-baseline.yml lists scenarios the suite does not have: {unknown:?}");

    let server = Served::start(env!("CARGO_BIN_EXE_example_mcp_conformance"), &["127.0.0.1:0"]);
    let results = results_dir("server");
    let mut suite = tools.command(&tools.conformance);
    suite
        .args(["server", "--url", &server.url, "--suite", "all", "--expected-failures"])
        .arg(Path::new(BASELINES).join("server-baseline.yml"))
        .arg("-o")
        .arg(&results);
    let finished = run(suite, SUITE_DEADLINE);
    if !finished.status.success() {
        eprintln!("the example server wrote:\n{}", server.stderr());
    }
    let stdout = without_colours(&finished.stdout);
    assert_suite("server", finished, "=== SUMMARY ===", &results, "server-");
    assert_summarized(&stdout, &scenarios);
}

#[test]
fn the_import_client_fails_only_the_scenarios_of_its_baseline() {
    let Some((tools, _turn)) = tools() else { return };
    let expected = baseline("client-baseline.yml", "client");
    let scenarios = listed_scenarios(&tools, "--client");
    let unknown: Vec<&String> = expected.iter().filter(|name| !scenarios.contains(*name)).collect();
    assert!(unknown.is_empty(), "client-baseline.yml lists scenarios the suite does not have: {unknown:?}");

    let results = results_dir("client");
    let mut suite = tools.command(&tools.conformance);
    suite
        .args(["client", "--command", env!("CARGO_BIN_EXE_example_mcp_conformance_client"), "--suite", "all"])
        .arg("--expected-failures")
        .arg(Path::new(BASELINES).join("client-baseline.yml"))
        .arg("-o")
        .arg(&results);
    let finished = run(suite, SUITE_DEADLINE);
    let stdout = without_colours(&finished.stdout);
    assert_suite("client", finished, "=== SUITE SUMMARY ===", &results, "");
    assert_summarized(&stdout, &scenarios);
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
