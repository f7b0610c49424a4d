//! Questions asked in rounds (MCP 2026-07-28, SEP-2322): on that protocol a tool's `elicit` and
//! `sample` end the request's round with an `InputRequiredResult`, and the client's next
//! request carries the answers. The tools are ordinary tools: the same code asks a client of
//! 2025-11-25 with server-to-client requests.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::ask::{Elicitation, SamplingRequest};
use tool_core::prelude::*;

#[derive(Deserialize, Serialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Color {
    color: String,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Confirm {
    ok: bool,
}

/// What the user's answer says, or what the user did instead.
fn answered<T>(answer: Elicitation<T>, read: impl FnOnce(T) -> String) -> String {
    match answer {
        Elicitation::Accepted { value, .. } => read(value),
        Elicitation::Declined => "declined".to_owned(),
        Elicitation::Cancelled => "cancelled".to_owned(),
    }
}

/// Greets the user by the name they give.
#[tool]
async fn test_input_required_result_elicitation(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = ctx.elicit_keyed::<Name>("user_name", "What is your name?").await?;
    Ok(format!("Hello, {}!", answered(name, |n| n.name)))
}

/// Asks the client's model a question.
#[tool]
async fn test_input_required_result_sampling(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = SamplingRequest::new("What is the capital of France?", 100).keyed("capital_question");
    Ok(format!("The model says: {}", ctx.sample(request).await?.text_content()))
}

/// Asks for a confirmation; its answer comes back through the sealed `requestState`.
#[tool]
async fn test_input_required_result_request_state(ctx: &ToolContext) -> Result<String, ToolError> {
    let confirmed = ctx.elicit_keyed::<Confirm>("confirm", "Please confirm").await?;
    Ok(format!("state-ok: confirmed {}", answered(confirmed, |c| c.ok.to_string())))
}

/// Asks two questions, one per round.
#[tool]
async fn test_input_required_result_multi_round(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = ctx.elicit_keyed::<Name>("step1", "Step 1: What is your name?").await?;
    let name = answered(name, |n| n.name);
    let color = ctx.elicit_keyed::<Color>("step2", "Step 2: What is your favorite color?").await?;
    Ok(format!("{name} likes {}", answered(color, |c| c.color)))
}

/// Asks for a confirmation, for a client to echo a tampered `requestState`.
#[tool]
async fn test_input_required_result_tampered_state(ctx: &ToolContext) -> Result<String, ToolError> {
    let confirmed = ctx.elicit_keyed::<Confirm>("confirm", "Please confirm").await?;
    Ok(format!("confirmed {}", answered(confirmed, |c| c.ok.to_string())))
}

/// Asks the client's model and its user together: a client that declared only one of the
/// capabilities is asked only that one.
#[tool]
async fn test_input_required_result_capabilities(ctx: &ToolContext) -> Result<String, ToolError> {
    let sampled = ctx.sample(SamplingRequest::new("Say hello.", 50).keyed("greeting"));
    let named = ctx.elicit_keyed::<Name>("user_name", "What is your name?");
    let (sampled, named) = tokio::join!(sampled, named);
    let said = sampled.map_or_else(|e| format!("no sampling ({})", e.message()), |r| r.text_content());
    let name = named.map_or_else(|e| format!("no form ({})", e.message()), |a| answered(a, |n| n.name));
    Ok(format!("{said}; {name}"))
}

/// Lists the places the client lets tools work in.
#[tool]
async fn test_input_required_result_list_roots(ctx: &ToolContext) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("roots: {}", uris.join(", ")))
}

/// Asks the user, the model and the client's roots at once: one round with three questions.
#[tool]
async fn test_input_required_result_multiple_inputs(ctx: &ToolContext) -> Result<String, ToolError> {
    let (name, said, roots) = tokio::join!(
        ctx.elicit_keyed::<Name>("user_name", "What is your name?"),
        ctx.sample(SamplingRequest::new("Say hello.", 50).keyed("greeting")),
        ctx.roots(),
    );
    let name = answered(name?, |n| n.name);
    Ok(format!("{name}; {}; {} roots", said?.text_content(), roots?.len()))
}
