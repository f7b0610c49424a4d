//! A tool asks whoever made its call: their model (`ToolContext::sample`) and their user
//! (`ToolContext::elicit`, a form made from a Rust type), answered here by the host's
//! handlers (`CallScope`, `ExecutorBuilder`); over MCP in `mcp_asking.rs`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tool_core::ask::{
    form_schema, Elicitation, ElicitationAnswer, ElicitationRequest, ModelPreferences, SamplingMessage,
    SamplingRequest, SamplingResponse,
};
use tool_core::prelude::*;
use tool_core::{CallFailure, CallScope, ExecutorBuilder};

/// Asks the model to name a colour.
#[tool(name = "colour.name")]
async fn name_colour(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = SamplingRequest::conversation(
        vec![
            SamplingMessage::user("Name a colour."),
            SamplingMessage::assistant("Red."),
            SamplingMessage::user("Another."),
        ],
        20,
    )
    .system_prompt("Answer in one word.")
    .temperature(0.5)
    .stop_sequence("\n")
    .model_preferences(ModelPreferences {
        hints: vec!["small".into()],
        speed_priority: Some(1.0),
        ..Default::default()
    });
    let response = ctx.sample(request).await?;
    Ok(format!("{} said {}", response.model, response.text_content()))
}

/// A person to greet.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Person {
    /// Their name.
    name: String,
    /// Their age in years.
    age: u8,
    /// Whether to greet them by their first name.
    #[serde(default)]
    informal: bool,
}

/// Asks the user who to greet.
#[tool(name = "greet")]
async fn greet(ctx: &ToolContext) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<Person>("Who should I greet?").await? {
        Elicitation::Accepted { value, warnings } => {
            let mut text = format!("Hello {} ({}, informal: {})", value.name, value.age, value.informal);
            for w in warnings {
                let (rule, place, expected, received, action) =
                    (w.rule(), w.pointer(), w.expected(), w.received(), w.action());
                text.push_str(&format!("\n{rule} at {place}: expected {expected}, got {received}, {action}"));
            }
            text
        }
        Elicitation::Declined => "declined".to_owned(),
        Elicitation::Cancelled => "cancelled".to_owned(),
    })
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Address {
    street: String,
}

/// A form no MCP client can show: one of its fields is an object.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Shipping {
    name: String,
    address: Address,
}

/// Asks for a form that cannot be asked.
#[tool(name = "ship")]
async fn ship(ctx: &ToolContext) -> Result<String, ToolError> {
    ctx.elicit::<Shipping>("Where to?").await.map(|_| "asked".to_owned())
}

fn executor() -> ExecutorBuilder {
    let catalog = ToolCatalog::builder()
        .add_declared::<name_colour>()
        .add_declared::<greet>()
        .add_declared::<ship>()
        .build()
        .unwrap();
    Executor::builder(catalog)
}

fn call(name: &str) -> ToolCallRequest {
    ToolCallRequest::new(name, "call_1", "{}")
}

fn answering(answer: ElicitationAnswer) -> CallScope {
    CallScope::new().on_elicit(move |_request| {
        let answer = answer.clone();
        async move { Ok(answer) }
    })
}

fn object(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else { panic!("an object") };
    map
}

#[tokio::test]
async fn sample_asks_the_hosts_model_with_the_whole_request() {
    let seen = Arc::new(Mutex::new(None));
    let kept = Arc::clone(&seen);
    let scope = CallScope::new().on_sample(move |request: SamplingRequest| {
        *kept.lock().unwrap() = Some(request);
        async { Ok(SamplingResponse::text("Blue.", "tiny-1").with_stop_reason("endTurn")) }
    });
    let record = executor().build().execute_in(call("colour.name"), scope).await;
    assert_eq!(record.model_text(), "tiny-1 said Blue.");
    let request = seen.lock().unwrap().take().unwrap();
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Name a colour."}},
                {"role": "assistant", "content": {"type": "text", "text": "Red."}},
                {"role": "user", "content": {"type": "text", "text": "Another."}}
            ],
            "system_prompt": "Answer in one word.",
            "max_tokens": 20,
            "temperature": 0.5,
            "stop_sequences": ["\n"],
            "model_preferences": {"hints": ["small"], "cost_priority": null, "speed_priority": 1.0, "intelligence_priority": null}
        })
    );
}

#[tokio::test]
async fn without_anyone_to_ask_the_tool_gets_an_error_it_can_handle() {
    let executor = executor().build();
    let record = executor.execute(call("colour.name")).await;
    assert_eq!(
        record.model_text(),
        "`colour.name` has no model to ask: over MCP the client that made the call must declare the `sampling` capability; otherwise the host answers with `CallScope::on_sample` or `ExecutorBuilder::on_sample`"
    );
    let Some(CallFailure::ToolError { error }) = record.failure else { panic!("a tool error") };
    assert_eq!(error.code(), Some("no_sampling"));

    let record = executor.execute(call("greet")).await;
    assert_eq!(
        record.model_text(),
        "`greet` has nobody to ask: over MCP the client that made the call must declare the `elicitation` capability; otherwise the host answers with `CallScope::on_elicit` or `ExecutorBuilder::on_elicit`"
    );
    let Some(CallFailure::ToolError { error }) = record.failure else { panic!("a tool error") };
    assert_eq!(error.code(), Some("no_elicitation"));
}

#[tokio::test]
async fn the_executors_handlers_answer_calls_whose_scope_gives_none() {
    let executor = executor()
        .on_sample(|_| async { Ok(SamplingResponse::text("Green.", "default-model")) })
        .on_elicit(|_| async { Ok(ElicitationAnswer::Accept(object(json!({"name": "Ada", "age": 36})))) })
        .build();
    assert_eq!(executor.execute(call("colour.name")).await.model_text(), "default-model said Green.");
    assert_eq!(executor.execute(call("greet")).await.model_text(), "Hello Ada (36, informal: false)");
    // The call's own handler comes first.
    let scope = CallScope::new().on_sample(|_| async { Ok(SamplingResponse::text("Grey.", "scoped")) });
    assert_eq!(executor.execute_in(call("colour.name"), scope).await.model_text(), "scoped said Grey.");
}

#[tokio::test]
async fn the_form_is_the_types_fields_and_the_answer_is_accepted_declined_or_cancelled() {
    let seen = Arc::new(Mutex::new(None));
    let kept = Arc::clone(&seen);
    let scope = CallScope::new().on_elicit(move |request: ElicitationRequest| {
        *kept.lock().unwrap() = Some(request);
        async { Ok(ElicitationAnswer::Accept(object(json!({"name": "Ada", "age": 36, "informal": true})))) }
    });
    let executor = executor().build();
    let record = executor.execute_in(call("greet"), scope).await;
    assert_eq!(record.model_text(), "Hello Ada (36, informal: true)");
    let request = seen.lock().unwrap().take().unwrap();
    assert_eq!(request.message, "Who should I greet?");
    assert_eq!(
        request.requested_schema,
        json!({
            "type": "object",
            "description": "A person to greet.",
            "properties": {
                "name": {"type": "string", "description": "Their name."},
                "age": {"type": "integer", "description": "Their age in years.", "minimum": 0, "maximum": 255},
                "informal": {"type": "boolean", "description": "Whether to greet them by their first name.", "default": false}
            },
            "required": ["name", "age"]
        })
    );
    let declined = executor.execute_in(call("greet"), answering(ElicitationAnswer::Decline)).await;
    assert_eq!(declined.model_text(), "declined");
    let cancelled = executor.execute_in(call("greet"), answering(ElicitationAnswer::Cancel)).await;
    assert_eq!(cancelled.model_text(), "cancelled");
}

#[tokio::test]
async fn an_answer_in_another_form_is_converted_with_a_warning_as_arguments_are() {
    let answer = ElicitationAnswer::Accept(object(json!({"name": "Ada", "age": "36", "informal": "true"})));
    let record = executor().build().execute_in(call("greet"), answering(answer)).await;
    assert_eq!(
        record.model_text(),
        "Hello Ada (36, informal: true)\nstring_to_integer at /age: expected an integer, got \"36\", converted to 36\nstring_to_boolean at /informal: expected a boolean, got \"true\", converted to true"
    );
    assert_eq!(record.status, CallStatus::Success);
}

#[tokio::test]
async fn an_answer_that_does_not_fit_names_each_field_what_it_expects_and_what_arrived() {
    let answer = ElicitationAnswer::Accept(object(json!({"age": "old"})));
    let record = executor().build().execute_in(call("greet"), answering(answer)).await;
    assert_eq!(
        record.model_text(),
        "The answer to the form `Person` does not fit it:\n- `name`: required, expected a string; it was missing.\n- `age`: expected an integer from 0 to 255; got \"old\"."
    );
    let Some(CallFailure::ToolError { error }) = record.failure else { panic!("a tool error") };
    assert_eq!(error.code(), Some("invalid_elicitation_answer"));
}

#[tokio::test]
async fn a_type_that_is_not_a_flat_form_is_refused_naming_the_field() {
    let record = executor().build().execute_in(call("ship"), answering(ElicitationAnswer::Decline)).await;
    assert_eq!(
        record.model_text(),
        "`Shipping` cannot be asked as a form: the field `address` is an object; a form's fields are texts, numbers, integers, booleans, a choice of texts (an enum of unit variants) or several choices of texts (a list of such an enum)"
    );
    let Some(CallFailure::ToolError { error }) = record.failure else { panic!("a tool error") };
    assert_eq!(error.code(), Some("invalid_form"));
    assert_eq!(
        form_schema::<String>().unwrap_err().message(),
        "`String` cannot be asked as a form: a form is an object of fields (a struct with named fields), and its schema is a text"
    );
}

/// Notes that the handler's future was dropped unanswered.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn a_handler_that_never_answers_is_stopped_by_the_calls_time_limit() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let scope = CallScope::new().on_elicit(move |_| {
        let guard = Dropped(Arc::clone(&flag));
        async move {
            std::future::pending::<()>().await;
            drop(guard);
            Ok(ElicitationAnswer::Cancel)
        }
    });
    let executor = executor().timeout(Duration::from_millis(100)).build();
    let started = std::time::Instant::now();
    let record = executor.execute_in(call("greet"), scope).await;
    assert_eq!(record.status, CallStatus::TimedOut);
    assert_eq!(record.model_text(), "The tool did not finish within 100 ms; it was stopped.");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert!(dropped.load(Ordering::SeqCst), "the wait was not dropped");
}

#[tokio::test]
async fn a_handler_that_never_answers_is_stopped_when_the_call_is_cancelled() {
    let scope_token = CancellationToken::new();
    let scope = CallScope::new()
        .cancel_on(&scope_token)
        .on_sample(|_| async { std::future::pending::<Result<SamplingResponse, ToolError>>().await });
    let executor = executor().build();
    let cancel = scope_token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let record = executor.execute_in(call("colour.name"), scope).await;
    assert_eq!(record.status, CallStatus::Cancelled);
}

/// A form with every kind of choice: titled by doc comments, single and several, optional.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Order {
    /// Size
    size: Size,
    /// Toppings
    #[schemars(length(max = 2))]
    toppings: Option<Vec<Topping>>,
    /// Crust
    #[serde(default)]
    crust: Crust,
    /// Contact email
    #[schemars(email)]
    email: Option<String>,
    /// Tip, in percent
    #[schemars(range(min = 0, max = 30))]
    tip: Option<f32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Size {
    Small,
    Large,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Topping {
    /// Mushrooms
    Mushroom,
    /// Olives
    Olive,
}

#[derive(Default, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Crust {
    /// Thin crust
    #[default]
    Thin,
    /// Deep dish
    Deep,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Tagged {
    tags: Vec<String>,
}

#[test]
fn schemars_forms_become_mcps_flat_forms() {
    assert_eq!(
        form_schema::<Order>().unwrap(),
        json!({
            "type": "object",
            "description": "A form with every kind of choice: titled by doc comments, single and several, optional.",
            "properties": {
                "size": {"type": "string", "description": "Size", "enum": ["small", "large"]},
                "toppings": {
                    "type": "array",
                    "description": "Toppings",
                    "maxItems": 2,
                    "items": {"anyOf": [{"const": "mushroom", "title": "Mushrooms"}, {"const": "olive", "title": "Olives"}]}
                },
                "crust": {
                    "type": "string",
                    "description": "Crust",
                    "oneOf": [{"const": "thin", "title": "Thin crust"}, {"const": "deep", "title": "Deep dish"}],
                    "default": "thin"
                },
                "email": {"type": "string", "description": "Contact email", "format": "email"},
                "tip": {"type": "number", "description": "Tip, in percent", "minimum": 0, "maximum": 30}
            },
            "required": ["size"]
        })
    );
    assert_eq!(
        form_schema::<Tagged>().unwrap_err().message(),
        "`Tagged` cannot be asked as a form: the field `tags` is a list whose items are not choices (each is a text); a form's fields are texts, numbers, integers, booleans, a choice of texts (an enum of unit variants) or several choices of texts (a list of such an enum)"
    );
}

#[tokio::test]
async fn a_batchs_calls_are_answered_by_its_scope_else_by_the_executor() {
    let executor = executor().on_sample(|_| async { Ok(SamplingResponse::text("Green.", "default-model")) }).build();
    let batch = vec![call("colour.name"), ToolCallRequest::new("colour.name", "call_2", "{}")];
    let records = executor.execute_batch(batch.clone()).await;
    let texts: Vec<&str> = records.iter().map(|r| r.model_text()).collect();
    assert_eq!(texts, ["default-model said Green.", "default-model said Green."]);

    let scope = CallScope::new().on_sample(|_| async { Ok(SamplingResponse::text("Grey.", "scoped")) });
    let records = executor.execute_batch_in(batch, scope).await;
    let texts: Vec<&str> = records.iter().map(|r| r.model_text()).collect();
    assert_eq!(texts, ["scoped said Grey.", "scoped said Grey."]);
}
