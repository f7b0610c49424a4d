//! The command line and the call policy: `tools call` with `--require-approval` (approval
//! rules over the executor's own), a call that waits for approval printed with its reasons and
//! the commands that answer it, `--approve` and `--deny REASON`, and each record's policy
//! decisions, as text and as JSON. `tools_cli` (the provider-dialect tools) runs as a real
//! process; the host's own executor (a tool that declares approval, one that asks from its
//! body, the host's rules) runs in process.

use assert_cmd::Command;
use serde_json::{json, Map, Value};
use tool_core::cli::ToolsCli;
use tool_core::policy::ApprovalRule;
use tool_core::prelude::*;
use tool_core::{CatalogBuilder, DynamicTool, Executor};
use tool_tests::approval_tools::{pay, transfer};

#[path = "../src/tools_cli.rs"]
mod tools_cli;
use tools_cli::{json_out, stderr, stdout, tools, without_duration};

const FOLDERS: &str = r#"{"root":{"name":"a","children":[]}}"#;

/// A record as JSON without its duration.
fn record(args: &[&str]) -> Value {
    let mut record = json_out(args);
    assert!(record["duration_us"].is_u64(), "{record}");
    record.as_object_mut().unwrap().remove("duration_us");
    record
}

#[test]
fn a_call_that_waits_for_approval_says_why_and_how_to_answer_it() {
    let output = tools(&["call", "folders.create", "--args", FOLDERS, "--require-approval", "tool:folders.create"]);
    // It did not run: a failure for scripts.
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        without_duration(&stdout(&output)),
        format!(
            "status: pending in N ms\n\
             sent: {FOLDERS}\n\
             read as: {FOLDERS}\n\
             message for the model:\n\
             `folders.create` waits for a person's approval and has not run (rule tool:folders.create).\n\
             policy:\n  \
             approval by approval: pending: rule tool:folders.create\n\
             waits for: rule tool:folders.create\n\
             to run it: tools call folders.create --args '{FOLDERS}' --approve\n\
             to deny it: tools call folders.create --args '{FOLDERS}' --deny REASON"
        )
    );
    // Without the rule, the same call runs: no tool of this catalog declares approval.
    let output = tools(&["call", "folders.create", "--args", FOLDERS]);
    assert_eq!(
        (output.status.code(), without_duration(&stdout(&output))),
        (Some(0), format!("status: success in N ms\nsent: {FOLDERS}\nresult:\n{FOLDERS}"))
    );
}

#[test]
fn approve_runs_the_call_and_the_record_keeps_both_decisions() {
    let output =
        tools(&["call", "folders.create", "--args", FOLDERS, "--require-approval", "tool:folders.create", "--approve"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        without_duration(&stdout(&output)),
        format!(
            "status: success in N ms\nsent: {FOLDERS}\nresult:\n{FOLDERS}\npolicy:\n  \
             approval by approval: pending: rule tool:folders.create\n  approval by person: approved"
        )
    );
    // A call that needs no approval runs as it would: nothing was asked, nothing decided.
    let output = tools(&["call", "folders.create", "--args", FOLDERS, "--approve"]);
    assert_eq!(
        (output.status.code(), without_duration(&stdout(&output))),
        (Some(0), format!("status: success in N ms\nsent: {FOLDERS}\nresult:\n{FOLDERS}"))
    );
}

#[test]
fn deny_shows_the_text_the_model_reads() {
    let output = tools(&[
        "call",
        "shipment.create",
        "--args",
        r#"{"recipient": {"name": "Ada", "street": "1 Main St"}, "items": [], "service": "express", "metadata": {}, "account": 7, "reference": "PO-12"}"#,
        "--require-approval",
        "destructive",
        "--deny",
        "no shipments on Sundays",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = without_duration(&stdout(&output));
    assert!(text.starts_with("status: denied in N ms\n"), "{text}");
    assert!(
        text.ends_with(
            "message for the model:\nThis call of `shipment.create` was denied: no shipments on Sundays\n\
             policy:\n  approval by approval: pending: rule destructive\n  \
             approval by person: denied: no shipments on Sundays"
        ),
        "{text}"
    );
}

#[test]
fn the_json_record_has_the_pending_call_and_the_decisions() {
    let mut pending = record(&["call", "folders.create", "--args", FOLDERS, "--require-approval", "all", "--json"]);
    // The id the call waited under (in the process's own store, gone with it) and its expiry.
    let kept = pending["pending"].as_object_mut().unwrap();
    let id = kept.remove("id").unwrap();
    assert_eq!(id.as_str().map(|id| (id.len(), id.bytes().all(|b| b.is_ascii_hexdigit()))), Some((32, true)), "{id}");
    assert!(kept.remove("expires_at_ms").unwrap().is_u64());
    assert_eq!(
        pending,
        json!({
            "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS,
                "arguments": {"root": {"name": "a", "children": []}}},
            "status": "pending",
            "content": {"text": "`folders.create` waits for a person's approval and has not run (rule all)."},
            "pending": {
                "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS},
                "arguments": {"root": {"name": "a", "children": []}},
                "reasons": [{"kind": "rule", "rule": "all"}]
            },
            "decisions": [{"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule all"}]
        })
    );
    let denied = record(&[
        "call",
        "folders.create",
        "--args",
        FOLDERS,
        "--conversation",
        "c7",
        "--require-approval",
        "not_read_only",
        "--deny",
        "not now",
        "--json",
    ]);
    assert_eq!(
        denied,
        json!({
            "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS,
                "arguments": {"root": {"name": "a", "children": []}}, "conversation_id": "c7"},
            "status": "denied",
            "content": {"text": "This call of `folders.create` was denied: not now"},
            "failure": {"kind": "denied", "reason": "not now"},
            "decisions": [
                {"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule not_read_only"},
                {"stage": "approval", "by": "person", "outcome": "denied", "message": "not now"}
            ]
        })
    );
    // A read-only tool is not covered by `not_read_only`.
    let clock = record(&["call", "clock.now", "--args", "{}", "--require-approval", "not_read_only", "--json"]);
    assert_eq!(clock["status"], "success");
    assert_eq!(clock.get("decisions"), None);
}

#[test]
fn a_rule_by_tag_covers_only_the_tools_with_the_tag() {
    // No tool of this catalog has a tag.
    let clock = record(&["call", "clock.now", "--args", "{}", "--require-approval", "tagged:billing", "--json"]);
    assert_eq!(
        clock,
        json!({"request": {"tool_name": "clock.now", "call_id": "cli_call", "raw_arguments": "{}"},
            "status": "success", "content": {"text": ""}})
    );
}

#[test]
fn the_suggested_commands_quote_the_arguments_for_a_shell() {
    // A quote in the arguments, and pretty JSON from standard input: written compactly, quoted.
    let output = Command::cargo_bin("tools_cli")
        .unwrap()
        .args(["call", "folders.create", "--require-approval", "all", "--conversation", "it's mine"])
        .write_stdin("{\n  \"root\": {\"name\": \"Ada's\", \"children\": []}\n}")
        .output()
        .unwrap();
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().rev().take(2).collect();
    assert_eq!(
        lines,
        [
            r#"to deny it: tools call folders.create --args '{"root":{"name":"Ada'\''s","children":[]}}' --conversation 'it'\''s mine' --deny REASON"#,
            r#"to run it: tools call folders.create --args '{"root":{"name":"Ada'\''s","children":[]}}' --conversation 'it'\''s mine' --approve"#,
        ]
    );
    // What it suggests, run by a shell, runs the call with the same arguments and conversation.
    let run = lines[1].strip_prefix("to run it: tools ").unwrap();
    let binary = assert_cmd::cargo::cargo_bin("tools_cli");
    let output = std::process::Command::new("sh")
        .args(["-c", &format!("'{}' {run} --json", binary.display())])
        .output()
        .unwrap();
    let ran: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (ran["status"].clone(), ran["request"]["conversation_id"].clone(), ran["content"]["text"].clone()),
        (json!("success"), json!("it's mine"), json!(r#"{"root":{"name":"Ada's","children":[]}}"#))
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn rules_and_answers_are_checked_before_anything_runs() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--require-approval", "nope"],
            "error: --require-approval: `nope` is not a rule; give destructive, not_read_only, all, tagged:TAG or \
             tool:NAME\n",
        ),
        (&["--require-approval", "tagged:"], "error: --require-approval: `tagged:` is not a rule; give destructive, not_read_only, all, tagged:TAG or tool:NAME\n"),
        (
            &["--require-approval", "tool:folder.create"],
            "error: --require-approval: no tool named `folder.create`; did you mean `folders.create`, \
             `shipment.create`?\n",
        ),
        (&["--deny", " "], "error: --deny needs a reason: the model reads it\n"),
    ];
    for (more, expected) in cases {
        let mut args = vec!["call", "folders.create", "--args", FOLDERS];
        args.extend_from_slice(more);
        let output = tools(&args);
        assert_eq!((output.status.code(), stdout(&output), stderr(&output)), (Some(2), String::new(), expected.into()));
    }
    let both = tools(&["call", "folders.create", "--args", FOLDERS, "--approve", "--deny", "no"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(stderr(&both).starts_with("error: the argument '--approve' cannot be used with '--deny <REASON>'"));
    // The playground takes the same rules, checked before it listens.
    let refused = tools(&["playground", "--addr", "127.0.0.1:0", "--require-approval", "tool:nope"]);
    assert_eq!(
        (refused.status.code(), stderr(&refused)),
        (Some(2), "error: --require-approval: no tool named `nope`; `tools list` shows them\n".into())
    );
}

#[test]
fn call_help_names_the_approval_options() {
    let help = stdout(&tools(&["call", "--help"]));
    for line in [
        "      --require-approval <RULE>",
        "      --approve",
        "          If the call waits for a person's approval, approve it: it runs",
        "      --deny <REASON>",
        "          If the call waits for a person's approval, deny it: the model reads REASON",
    ] {
        assert!(help.contains(line), "{line}\n{help}");
    }
}

// ---- the host's own executor ---------------------------------------------------------------

/// `tools ARGS` in process over the host's executor: the exit status and standard output.
fn run(executor: Executor, args: &[&str]) -> (i32, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = ToolsCli::new(executor).run_with(
        std::iter::once("tools").chain(args.iter().copied()),
        &mut std::io::empty(),
        &mut out,
        &mut err,
        false,
    );
    assert_eq!(String::from_utf8(err).unwrap(), "");
    (code, without_duration(&String::from_utf8(out).unwrap()))
}

fn host_executor() -> Executor {
    let catalog = CatalogBuilder::new().add_tool(transfer()).add_tool(pay()).build().unwrap();
    // The host's own rule, beside what the tools declare.
    Executor::builder(catalog).require_approval(ApprovalRule::tagged("money")).build()
}

#[test]
fn a_tool_that_declares_approval_waits_and_approve_runs_it_approved() {
    let args = r#"{"amount": "5", "to": "bob"}"#;
    assert_eq!(
        run(host_executor(), &["call", "transfer", "--args", args]),
        (
            1,
            "status: pending in N ms\n\
             sent: {\"amount\": \"5\", \"to\": \"bob\"}\n\
             read as: {\"amount\":5,\"to\":\"bob\"}\n\
             warning: string_to_integer at `/amount`: converted to 5 (received \"5\")\n\
             message for the model:\n\
             `transfer` waits for a person's approval and has not run (the tool asks for approval of every call).\n\
             policy:\n  approval by approval: pending: the tool asks for approval of every call\n\
             waits for: the tool asks for approval of every call\n\
             to run it: tools call transfer --args '{\"amount\":\"5\",\"to\":\"bob\"}' --approve\n\
             to deny it: tools call transfer --args '{\"amount\":\"5\",\"to\":\"bob\"}' --deny REASON"
                .to_owned()
        )
    );
    let (code, text) = run(host_executor(), &["call", "transfer", "--args", args, "--approve"]);
    assert_eq!(code, 0);
    assert!(
        text.ends_with(
            "result:\nsent 5 to bob (approved: true)\npolicy:\n  \
             approval by approval: pending: the tool asks for approval of every call\n  approval by person: approved"
        ),
        "{text}"
    );
}

#[test]
fn a_tool_that_asks_from_its_body_is_answered_by_the_same_flags() {
    assert_eq!(
        run(host_executor(), &["call", "pay", "--args", r#"{"amount": 20}"#]),
        (0, "status: success in N ms\nsent: {\"amount\": 20}\nread as: {\"amount\":20}\nresult:\npaid 20".to_owned())
    );
    let (code, text) = run(host_executor(), &["call", "pay", "--args", r#"{"amount": 5000}"#]);
    assert_eq!(code, 1);
    assert!(text.contains("\nwaits for: a payment of 5000 is over 1000\n"), "{text}");
    let (code, text) = run(host_executor(), &["call", "pay", "--args", r#"{"amount": 5000}"#, "--approve"]);
    assert_eq!(code, 0);
    assert!(
        text.ends_with(
            "result:\npaid 5000\npolicy:\n  approval by approval: pending: a payment of 5000 is over 1000\n  \
             approval by person: approved"
        ),
        "{text}"
    );
    let (code, text) =
        run(host_executor(), &["call", "pay", "--args", r#"{"amount": 5000}"#, "--deny", "over this month's budget"]);
    assert_eq!(code, 1);
    assert!(
        text.contains("message for the model:\nThis call of `pay` was denied: over this month's budget\n"),
        "{text}"
    );
}

#[test]
fn the_flags_rules_add_to_the_hosts_own() {
    let catalog = CatalogBuilder::new().add_tool(pay()).add_tool(transfer()).build().unwrap();
    let tagged = DynamicTool::builder("refund")
        .description("Refund an order.")
        .input_schema(json!({"type": "object", "properties": {}}))
        .tag("money")
        .handler(|_: Map<String, Value>, _: ToolContext| async move { "refunded" })
        .build()
        .unwrap();
    let catalog = catalog.to_builder().add_tool(tagged).build().unwrap();
    let executor = Executor::builder(catalog).require_approval(ApprovalRule::tagged("money")).build();
    let (code, text) =
        run(executor.clone(), &["call", "refund", "--args", "{}", "--require-approval", "all", "--json"]);
    assert_eq!(code, 1);
    let record: Value = serde_json::from_str(&text).unwrap();
    // The host's rule first, then the flag's.
    assert_eq!(
        record["pending"]["reasons"],
        json!([{"kind": "rule", "rule": "tagged:money"}, {"kind": "rule", "rule": "all"}])
    );
    // The host's executor itself is not changed by the flag.
    let (_, text) = run(executor, &["call", "refund", "--args", "{}", "--json"]);
    let record: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(record["pending"]["reasons"], json!([{"kind": "rule", "rule": "tagged:money"}]));
}
