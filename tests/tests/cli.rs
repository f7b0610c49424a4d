//! The `tools` command line, run as a real process (`tests/src/bin/tools_cli.rs`, the
//! provider-dialect tools): every subcommand's exact output, its `--json` form, its exit
//! status, and `--help`.

use assert_cmd::Command;

use serde_json::{json, Value};
use tool_core::document::{render, Format};
use tool_tests::dialect_tools::catalog;

#[path = "../src/tools_cli.rs"]
mod tools_cli;
use tools_cli::{json_out, stderr, stdout, tools, without_duration};

#[test]
fn list_prints_an_aligned_table_and_json() {
    let output = tools(&["list"]);
    assert!(output.status.success());
    assert_eq!(
        stdout(&output),
        "NAME             KIND      TAGS  PARAMETERS\n\
         canvas_draw      declared        shape, at, opacity?, layer?\n\
         clock.now        declared        -\n\
         folders.create   declared        root\n\
         shipment.create  declared        recipient, return_to?, items, service, upgrade?, metadata, insured_value?, account, reference, parcels?\n\
         4 tools\n"
    );
    let listed = json_out(&["list", "--json"]);
    assert_eq!(
        listed["tools"][1],
        json!({"name": "clock.now", "kind": "declared", "tags": [], "description": "The current time.", "parameters": []})
    );
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(4));
    assert_eq!(stdout(&tools(&["list", "--tag", "none"])), "NAME  KIND  TAGS  PARAMETERS\n0 tools\n");
}

#[test]
fn colour_is_used_only_when_asked_or_on_a_terminal() {
    assert!(!stdout(&tools(&["list"])).contains('\x1b'));
    assert!(stdout(&tools(&["--color", "always", "list"])).starts_with("\x1b[1mNAME\x1b[0m"));
}

#[test]
fn show_prints_the_parameter_list_schema_and_refuses_an_unknown_name() {
    let output = tools(&["show", "shipment.create"]);
    let text = stdout(&output);
    let head: Vec<&str> = text.lines().take(15).collect();
    assert_eq!(
        head,
        [
            "shipment.create  (declared, tests/src/dialect_tools.rs:47)",
            "Books a shipment.",
            "",
            "PARAMETER      KIND                       DESCRIPTION",
            "recipient      object           required  Who receives it.",
            "return_to      optional object            Where to send it back if undeliverable.",
            "items          list of object   required  What is in the parcel.",
            "service        enum             required  How fast. (one of standard, express)",
            "upgrade        optional enum              A faster service if available. (one of standard, express)",
            "metadata       map of string    required  Free-form labels.",
            "insured_value  optional number            Declared value, for insurance. (format \"double\")",
            "account        integer          required  Sender's account. (format \"int64\")",
            "reference      string           required  The sender's reference. (minLength 4, maxLength 12, pattern \"^PO-[0-9]+$\")",
            "parcels        integer                    Parcels in the shipment. (default 1; minimum 1, maximum 20, format \"uint32\")",
            "",
        ]
    );
    assert!(text.contains("\nInput schema\n{\n  \"type\": \"object\",\n"));
    let shown = json_out(&["show", "clock.now", "--json"]);
    assert_eq!((shown["name"].clone(), shown["kind"].clone()), (json!("clock.now"), json!("declared")));

    let unknown = tools(&["show", "canvas"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(stderr(&unknown), "error: no tool named `canvas`; did you mean `canvas_draw`?\n");
}

#[test]
fn export_writes_each_format_as_the_library_renders_it_into_files_or_to_standard_output() {
    let definitions: Vec<_> = catalog().definitions().collect();
    for format in ["json", "markdown", "openai-strict", "gemini", "mcp", "xml"] {
        let expected = render(format.parse::<Format>().unwrap(), definitions.iter().copied()).unwrap();
        assert_eq!(stdout(&tools(&["export", "--format", format])), expected, "{format}");
    }
    let dir = std::env::temp_dir().join(format!("tools-cli-export-{}", std::process::id()));
    // Every format is written but anthropic-strict, which refuses the recursive type: the
    // command says so and fails.
    let all = tools(&["export", "--format", "all", "--out", dir.to_str().unwrap(), "--json"]);
    assert_eq!(all.status.code(), Some(1));
    let written: Value = serde_json::from_slice(&all.stdout).unwrap();
    let names: Vec<String> = written["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| std::path::Path::new(p.as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "tools.json",
            "tools.md",
            "openai.json",
            "openai-strict.json",
            "responses.json",
            "responses-strict.json",
            "anthropic.json",
            "gemini.json",
            "gemini-json-schema.json",
            "mcp.json",
            "functions.xml"
        ]
    );
    let failed = tools(&["export", "--format", "anthropic-strict"]);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(
        stderr(&failed),
        "anthropic-strict: the tools cannot be exported: tool `folders.create`: the recursive type `Folder` at \
         `/$defs/Folder` cannot be expressed in Anthropic (strict)\n"
    );
    let markdown = std::fs::read_to_string(dir.join("tools.md")).unwrap();
    assert!(markdown.contains(
        "| `reference` | string | single | yes |  |  |  | minLength `4`, maxLength `12`, pattern `\"^PO-[0-9]+$\"` | The sender's reference. |\n"
    ));
    assert!(markdown.contains(
        "## `shipment.create`\n\nBooks a shipment.\n\nkind: declared · title: Create shipment · destructive\n"
    ));
    let bad = tools(&["export", "--format", "yaml"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).starts_with("error: no format named `yaml`; the formats: json, markdown, openai,"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn call_prints_the_record_and_fails_with_the_call() {
    let args = r#"{"shape":{"kind":"circle","radius":"2"},"at":[1,2],}"#;
    let output = tools(&["call", "canvas_draw", "--args", args]);
    assert!(output.status.success());
    assert_eq!(
        without_duration(&stdout(&output)),
        format!(
            "status: success in N ms\nsent: {args}\nread as: {{\"shape\":{{\"kind\":\"circle\",\"radius\":2}},\"at\":[1,2]}}\n\
             warning: trailing_comma_removed at ``: removed the comma after the last element (received {args})\n\
             warning: string_to_number at `/shape/radius`: converted to 2 (received \"2\")\n\
             result:\n{{\"shape\":{{\"kind\":\"circle\",\"radius\":2.0}},\"at\":[1,2],\"opacity\":null,\"layer\":null}}"
        )
    );

    let refused = Command::cargo_bin("tools_cli")
        .unwrap()
        .args(["call", "canvas_draw"])
        .write_stdin(r#"{"shape": {"kind": "circle", "radius": 1}, "at": [1]}"#)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let text = without_duration(&stdout(&refused));
    assert!(text.starts_with("status: failed (invalid_arguments) in N ms\n"), "{text}");
    assert!(
        text.ends_with(
            "error: invalid_length at `/at`: invalid length 1, expected a tuple of size 2\nmessage for the model:\n\
         The arguments for `canvas_draw` were not accepted:\n- `at`: expected a tuple of size 2; got [1].\n\
         Send the corrected arguments to `canvas_draw` again."
        ),
        "{text}"
    );

    let record = json_out(&["call", "clock.now", "--args", "{}", "--json"]);
    assert_eq!((record["status"].clone(), record["request"]["call_id"].clone()), (json!("success"), json!("cli_call")));
    let unknown = tools(&["call", "clock", "--args", "{}"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(stdout(&unknown).contains("There is no tool named `clock`."));
}

#[test]
fn check_lists_what_each_dialect_refuses_and_cannot_express_and_fails_on_a_problem() {
    let output = tools(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let head: Vec<&str> = text.lines().take(12).collect();
    assert_eq!(
        head,
        [
            "FORMAT                        REFUSED  VIOLATIONS  NOTES",
            "openai              ok        0        0           1",
            "openai-strict       ok        0        0           4",
            "responses           ok        0        0           1",
            "responses-strict    ok        0        0           4",
            "anthropic           ok        0        0           0",
            "anthropic-strict    problems  1        0           14",
            "gemini              ok        0        0           2",
            "gemini-json-schema  ok        0        0           4",
            "mcp                 ok        0        0           0",
            "problem: anthropic-strict folders.create: tool `folders.create`: the recursive type `Folder` at `/$defs/Folder` cannot be expressed in Anthropic (strict)",
            "",
        ]
    );
    assert!(text.contains("\n  openai-strict shipment.create /properties/metadata: a map sent as JSON text: OpenAI Chat Completions (strict) cannot declare one\n"));
    let checked = json_out(&["check", "--json"]);
    assert_eq!(checked["ok"], false);
    assert_eq!(checked["problems"].as_array().map(Vec::len), Some(1));
    assert_eq!(checked["notes"].as_array().map(Vec::len), Some(30));
}

#[test]
fn size_counts_each_format_and_leaves_out_what_a_format_refuses() {
    let report = json_out(&["size", "--json"]);
    assert_eq!(report["tokenizer"], "o200k_base");
    let formats: Vec<(&str, bool)> = report["formats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["format"].as_str().unwrap(), f["exact"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        formats,
        [
            ("openai", true),
            ("openai-strict", true),
            ("responses", true),
            ("responses-strict", true),
            ("anthropic", false),
            ("anthropic-strict", false),
            ("gemini", false),
            ("gemini-json-schema", false),
            ("mcp", false),
            ("xml", false)
        ]
    );
    // The characters are those of the tool's entry as exported; the tokens are o200k's.
    let openai = &report["formats"][0];
    let exported = tool_core::providers::export::export(
        tool_core::providers::Dialect::OpenAiChat { strict: false },
        catalog().definitions(),
    )
    .unwrap();
    assert_eq!(
        openai["tools"][1],
        json!({"name": "clock.now", "chars": exported.tools[1].to_string().chars().count(), "tokens": 33})
    );
    assert_eq!(openai["total"]["chars"], exported.request_fragment().to_string().chars().count());
    assert_eq!(report["formats"][5]["refused"], json!(["folders.create"]));

    let cut = tools(&["size", "--max-description-tokens", "3", "--json"]);
    let shortened: Value = serde_json::from_slice(&cut.stdout).unwrap();
    assert_eq!(shortened["shortened"][0], json!({"tool": "canvas_draw", "tokens_before": 8, "tokens_after": 3}));
    assert!(
        stderr(&cut).starts_with("shortened canvas_draw: 8 -> 3 tokens\nshortened canvas_draw/shape: 4 -> 3 tokens\n")
    );
    assert!(shortened["formats"][0]["total"]["tokens"].as_u64() < report["formats"][0]["total"]["tokens"].as_u64());
}

#[test]
fn every_subcommand_has_help() {
    let help = stdout(&tools(&["--help"]));
    for (command, about) in [
        ("list", "List the tools"),
        ("show", "Show one tool"),
        ("export", "Write the catalog in one or more formats"),
        ("call", "Run a tool through the executor"),
        ("check", "Check every definition against every provider dialect's rules"),
        ("size", "What the tool list costs on every request"),
        ("search", "Search the tools as the search tool does"),
        ("serve-mcp", "Serve the tools over MCP"),
        ("playground", "Serve the playground page"),
    ] {
        assert!(help.contains(&format!("  {command}")), "{command} in {help}");
        let output = tools(&[command, "--help"]);
        assert!(output.status.success(), "{command}");
        assert!(stdout(&output).starts_with(about), "{command}: {}", stdout(&output));
    }
    let wrong = tools(&["lsit"]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(stderr(&wrong).contains("unrecognized subcommand 'lsit'"));
}

#[tokio::test]
async fn serve_mcp_serves_the_catalog_over_http_to_an_mcp_client() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tools_cli"))
        .args(["serve-mcp", "--http", "127.0.0.1:0", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // One line of JSON with the endpoint, once it listens.
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    let url = serde_json::from_str::<Value>(&line).unwrap()["url"].as_str().unwrap().to_owned();
    let import = tool_core::mcp::McpImport::http(&url).connect().await.unwrap();
    use tool_core::Tool;
    let names: Vec<String> = import.tools().iter().map(|t| Tool::definition(t.as_ref()).name.clone()).collect();
    assert_eq!(names, ["canvas_draw", "clock.now", "folders.create", "shipment.create"]);
    import.close().await;
    child.kill().unwrap();
    let _ = child.wait();
}

/// `tools_cli` started with `args` (and `env`), and the one line of JSON it prints once it
/// listens; killed when dropped.
struct Served(std::process::Child, Value);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn served(args: &[&str], env: &[(&str, &str)]) -> Served {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tools_cli"))
        .args(args)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    let printed = serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{args:?}: {e}: {line:?}"));
    Served(child, printed)
}

#[test]
fn serving_beyond_loopback_needs_a_token_or_an_explicit_opt_in() {
    let refused = tools(&["serve-mcp", "--http", "0.0.0.0:0"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "error: refusing to serve MCP on 0.0.0.0:0 without a bearer token: anyone who can reach it could call every \
         tool. Give a token with --token-env VAR or --token-file PATH, or pass --allow-unauthenticated-remote to \
         serve without one\n"
    );
    let refused = tools(&["playground", "--addr", "0.0.0.0:0"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "error: refusing to serve the playground on 0.0.0.0:0: it has no authentication, so anyone who can reach it \
         could call every tool. Use a loopback address such as 127.0.0.1:8787, or pass --allow-unauthenticated-remote\n"
    );
    // With a token from the environment, or the explicit opt-in, it listens.
    let with_token =
        served(&["serve-mcp", "--http", "0.0.0.0:0", "--token-env", "MCP_TOKEN", "--json"], &[("MCP_TOKEN", "s3cret")]);
    assert!(with_token.1["url"].as_str().unwrap().starts_with("http://0.0.0.0:"), "{}", with_token.1);
    let opted_in = served(&["serve-mcp", "--http", "0.0.0.0:0", "--allow-unauthenticated-remote", "--json"], &[]);
    assert!(opted_in.1["url"].as_str().unwrap().starts_with("http://0.0.0.0:"));
    let playground = served(&["playground", "--addr", "0.0.0.0:0", "--allow-unauthenticated-remote", "--json"], &[]);
    assert!(playground.1["url"].as_str().unwrap().starts_with("http://0.0.0.0:"));

    let unset = tools(&["serve-mcp", "--http", "127.0.0.1:0", "--token-env", "TOOLS_TEST_UNSET_VARIABLE"]);
    assert_eq!(unset.status.code(), Some(2));
    assert_eq!(
        stderr(&unset),
        "error: --token-env TOOLS_TEST_UNSET_VARIABLE: the environment variable `TOOLS_TEST_UNSET_VARIABLE` is not set \
         (or not text)\n"
    );
    let two = tools(&["serve-mcp", "--http", "127.0.0.1:0", "--token", "a", "--token-file", "b"]);
    assert_eq!(two.status.code(), Some(2));
    assert!(stderr(&two).starts_with("error: the argument '--token <TOKEN>' cannot be used with '--token-file <PATH>'"));
}

#[tokio::test]
async fn serve_mcp_reads_its_token_from_a_file_and_refuses_clients_without_it() {
    let file = std::env::temp_dir().join(format!("tools-cli-token-{}", std::process::id()));
    std::fs::write(&file, "from-a-file\n").unwrap();
    let server = served(&["serve-mcp", "--http", "127.0.0.1:0", "--token-file", file.to_str().unwrap(), "--json"], &[]);
    let url = server.1["url"].as_str().unwrap();
    let refused = tool_core::mcp::McpImport::http(url).connect().await.expect_err("refused without the token");
    assert_eq!(
        refused.to_string(),
        format!(
            "cannot connect to the MCP server `{url}`: the server answered 401: it wants authorization \
             (`WWW-Authenticate: Bearer`); without `McpImportBuilder::oauth`, the import sends only the \
             token given to `McpImportBuilder::bearer_token`"
        )
    );
    let import = tool_core::mcp::McpImport::http(url).bearer_token("from-a-file").connect().await.unwrap();
    assert_eq!(import.tools().len(), 4);
    import.close().await;
    std::fs::write(&file, " \n").unwrap();
    let empty = tools(&["serve-mcp", "--http", "127.0.0.1:0", "--token-file", file.to_str().unwrap()]);
    assert_eq!(
        (empty.status.code(), stderr(&empty)),
        (Some(2), "error: the bearer token is empty; give a secret\n".into())
    );
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn the_playground_forbids_framing_limits_its_page_and_refuses_calls_from_other_pages() {
    let server = served(&["playground", "--addr", "127.0.0.1:0", "--json"], &[]);
    let url = server.1["url"].as_str().unwrap().to_owned();
    let client = reqwest::Client::new();
    let page = client.get(&url).send().await.unwrap();
    let header = |name: &str| page.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(
        header("content-security-policy").as_deref(),
        Some(
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri \
             'none'; form-action 'none'; frame-ancestors 'none'"
        )
    );
    assert_eq!(header("x-frame-options").as_deref(), Some("DENY"));
    assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));

    let call = |origin: Option<String>| {
        let mut request = client
            .post(format!("{url}api/call"))
            .header("content-type", "application/json")
            .body(r#"{"tool": "clock.now", "arguments": "{}"}"#);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    };
    assert_eq!(
        call(Some("http://evil.example".into())).await,
        (403, "the playground accepts calls only from its own page".to_owned())
    );
    assert_eq!(call(Some("null".into())).await.0, 403);
    let own = url.trim_end_matches('/').to_owned();
    let (status, body) = call(Some(own)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["status"], "success");
    // Not a browser: no Origin.
    assert_eq!(call(None).await.0, 200);
}

#[test]
fn descriptions_from_elsewhere_cannot_drive_the_terminal() {
    use tool_core::{Executor, ToolCatalog};
    // As an OpenAPI document or a remote MCP server could describe a tool.
    let tool = tool_core::DynamicTool::builder("files.read")
        .description("Reads a file.\x1b[2J\x1b]0;owned\x07\nSecond line\u{202e}txt.exe\u{9b}31m")
        .input_schema(json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "Which\tfile\r\x1b[1A; \u{2066}hidden\u{2069}"}
        }, "required": ["path"]}))
        .tag("io\x1b[5m")
        .source("openapi:api.yaml\x1b[8m", 0)
        .handler(|_, _| async { "\x1b[31mred\x1b[0m\ncontent" })
        .build()
        .unwrap();
    let catalog = ToolCatalog::builder().add_tool(tool).build().unwrap();
    let run = |args: &[&str]| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let cli = tool_core::cli::ToolsCli::new(Executor::new(catalog.clone()));
        let code = cli.run_with(
            std::iter::once("tools").chain(args.iter().copied()),
            &mut std::io::empty(),
            &mut out,
            &mut err,
            false,
        );
        (code, String::from_utf8(out).unwrap())
    };
    let (code, listed) = run(&["list"]);
    assert_eq!(code, 0);
    assert_eq!(listed, "NAME        KIND  TAGS         PARAMETERS\nfiles.read  rest  io\\u{1b}[5m  path\n1 tools\n");
    let (_, shown) = run(&["show", "files.read"]);
    let head: Vec<&str> = shown.lines().take(6).collect();
    assert_eq!(
        head,
        [
            "files.read  (rest, openapi:api.yaml\\u{1b}[8m:0)",
            "Reads a file.\\u{1b}[2J\\u{1b}]0;owned\\u{7}",
            "Second line\\u{202e}txt.exe\\u{9b}31m",
            "tags: io\\u{1b}[5m",
            "",
            "PARAMETER  KIND              DESCRIPTION",
        ]
    );
    assert!(
        shown.contains("\npath       string  required  Which file\\u{d}\\u{1b}[1A; \\u{2066}hidden\\u{2069}\n"),
        "{shown}"
    );
    assert!(!shown.contains(['\x1b', '\u{9b}', '\u{202e}', '\r', '\x07']), "{shown:?}");
    let (_, called) = run(&["call", "files.read", "--args", r#"{"path": "a"}"#]);
    assert!(called.ends_with("result:\n\\u{1b}[31mred\\u{1b}[0m\ncontent\n"), "{called}");
    // JSON output is for programs: the text as it is, escaped by JSON.
    let (_, json) = run(&["show", "files.read", "--json"]);
    assert!(json.contains(r#""description": "Reads a file.\u001b[2J\u001b]0;owned\u0007\nSecond line"#), "{json}");
}
