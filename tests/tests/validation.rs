//! Strict out: declared constraints (from `#[param]` and from schemars' own attributes) are
//! enforced after conversion, on the fast path and on the lenient path alike.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::prelude::*;

/// Who is invited.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Invite {
    /// Where the invitation goes.
    #[schemars(email)]
    email: String,
    /// The guest's name.
    #[schemars(length(min = 2))]
    name: String,
}

/// Book a room for a meeting.
#[tool]
fn schedule(
    /// How many guests.
    #[param(range(min = 1, max = 8))]
    guests: u32,
    /// The room code.
    #[param(pattern = "^[A-Z]{3}$")]
    room: String,
    /// The invitation.
    invite: Invite,
) -> String {
    format!("{guests} {room} {invite:?}")
}

fn summary(raw: &str) -> Vec<(String, String, String, Option<String>)> {
    let extraction = <schedule as DeclaredTool>::extract(raw);
    extraction.value.unwrap_err().errors.into_iter().map(|e| (e.pointer, e.rule, e.expected, e.received)).collect()
}

#[test]
fn valid_arguments_pass_with_no_warning() {
    let e = <schedule as DeclaredTool>::extract(
        r#"{"guests": 3, "room": "ABC", "invite": {"email": "a@b.io", "name": "Al"}}"#,
    );
    assert!(e.warnings.is_empty());
    assert_eq!(e.value.unwrap().0, 3);
}

#[test]
fn clean_json_that_breaks_declared_constraints_is_refused() {
    assert_eq!(
        summary(r#"{"guests": 9, "room": "abc", "invite": {"email": "nobody", "name": "A"}}"#),
        vec![
            ("/guests".into(), "maximum".into(), "a number ≤ 8".into(), Some("9".into())),
            ("/room".into(), "pattern".into(), "text matching the pattern `^[A-Z]{3}$`".into(), Some("\"abc\"".into())),
            ("/invite/email".into(), "format".into(), "an email address".into(), Some("\"nobody\"".into())),
            ("/invite/name".into(), "min_length".into(), "text of at least 2 characters".into(), Some("\"A\"".into())),
        ]
    );
}

#[test]
fn constraints_are_checked_after_conversion_on_the_lenient_path() {
    // "0" is converted to 0 (a warning), and 0 then breaks the declared minimum.
    let e = <schedule as DeclaredTool>::extract(
        r#"{"guests": "0", "room": "ABC", "invite": {"email": "a@b.io", "name": "Al"}}"#,
    );
    assert_eq!(e.warnings[0].rule(), "string_to_integer");
    let errors = e.value.unwrap_err();
    assert_eq!(errors.errors.len(), 1);
    assert_eq!((errors.errors[0].pointer.as_str(), errors.errors[0].rule.as_str()), ("/guests", "minimum"));
    assert_eq!(
        errors.model_message("schedule"),
        "The arguments for `schedule` were not accepted:\n- `guests`: expected a number ≥ 1; got 0.\nSend the corrected arguments to `schedule` again."
    );
}

#[tokio::test]
async fn the_executor_does_not_call_a_tool_whose_arguments_break_constraints() {
    let executor = Executor::new(tool_tests::declared_in(file!()));
    let record = executor
        .execute(ToolCallRequest::new(
            "schedule",
            "c1",
            r#"{"guests": 20, "room": "ABC", "invite": {"email": "a@b.io", "name": "Al"}}"#,
        ))
        .await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.failure, Some(tool_core::CallFailure::InvalidArguments));
    assert_eq!(record.request.arguments.as_ref().unwrap()["guests"], json!(20));
    assert!(record.content.text.contains("- `guests`: expected a number ≤ 8; got 20."), "{}", record.content.text);
}

#[tokio::test]
async fn a_dynamic_tools_arguments_are_checked_against_the_whole_schema_types_and_allowed_values_too() {
    // No Rust type reads a dynamic tool's arguments, so its schema is the only guard.
    let tool = DynamicTool::builder("dynamic.pick")
        .description("Picks.")
        .input_schema(serde_json::json!({"type": "object", "properties": {
            "n": {"type": "integer"},
            "mode": {"type": "string", "enum": ["a", "b"]},
        }, "required": ["n"]}))
        .handler(|args, _| async move { ToolOutput::text(serde_json::Value::Object(args).to_string()) })
        .build()
        .unwrap();
    let executor = Executor::new(ToolCatalog::builder().add_tool(tool).build().unwrap());
    let refused = executor.execute(ToolCallRequest::new("dynamic.pick", "c1", r#"{"n": "abc", "mode": "c"}"#)).await;
    assert_eq!(refused.status, CallStatus::Failed);
    assert_eq!(
        refused.content.text,
        "The arguments for `dynamic.pick` were not accepted:\n- `n`: expected an integer; got \"abc\".\n- `mode`: expected one of: `a`, `b`; got \"c\".\nSend the corrected arguments to `dynamic.pick` again."
    );
    let rules: Vec<&str> =
        refused.request.parse_error.as_ref().unwrap().errors.iter().map(|e| e.rule.as_str()).collect();
    assert_eq!(rules, ["invalid_type", "enum"]);
    // Converted by the declared types first, as for any tool.
    let converted = executor.execute(ToolCallRequest::new("dynamic.pick", "c2", r#"{"n": "4", "mode": "A"}"#)).await;
    assert_eq!(converted.status, CallStatus::Success);
    assert_eq!(converted.content.text, r#"{"n":4,"mode":"a"}"#);
}

/// A ticket's triage.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Triage {
    /// How urgent, as the tracker spells it.
    #[schemars(extend("enum" = ["low", "high"]))]
    urgency: String,
}

/// Triage a ticket.
#[tool]
fn triage(
    /// The triage (named like the function: the generated call must still reach the function).
    triage: Triage,
) -> String {
    triage.urgency
}

#[test]
fn allowed_values_written_on_a_string_field_are_enforced_on_clean_input_too() {
    // Clean JSON whose value no Rust type refuses: only the schema's `enum` stands guard.
    let refused = <triage as DeclaredTool>::extract(r#"{"triage": {"urgency": "medium"}}"#);
    let errors = refused.value.unwrap_err().errors;
    let summary: Vec<(&str, &str, &str)> =
        errors.iter().map(|e| (e.pointer.as_str(), e.rule.as_str(), e.expected.as_str())).collect();
    assert_eq!(summary, vec![("/triage/urgency", "enum", "one of: `low`, `high`")]);
    let accepted = <triage as DeclaredTool>::extract(r#"{"triage": {"urgency": "high"}}"#);
    assert_eq!(accepted.value.unwrap().0, Triage { urgency: "high".into() });
    assert!(accepted.warnings.is_empty());
}
