//! Asking the client: its model (sampling) and its user (elicitation). Each form is a Rust
//! type; its field docs, defaults and enums make the schema the suite checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::ask::{Elicitation, SamplingRequest};
use tool_core::prelude::*;

/// Asks the client's model to answer a prompt.
#[tool]
async fn test_sampling(
    ctx: &ToolContext,
    /// The prompt to send to the LLM.
    prompt: String,
) -> Result<String, ToolError> {
    let response = ctx.sample(SamplingRequest::new(prompt, 100)).await?;
    Ok(format!("LLM response: {}", response.text_content()))
}

/// Who the user is.
#[derive(Deserialize, Serialize, JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Asks the user for their name and email address.
#[tool]
async fn test_elicitation(
    ctx: &ToolContext,
    /// The message to show the user.
    message: String,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<UserInfo>(message).await?;
    Ok(format!("User response: {}", described(&answer)))
}

/// A user's details, each with a default the form shows filled in (SEP-1034).
#[derive(Deserialize, Serialize, JsonSchema)]
struct Details {
    /// User name
    #[serde(default = "default_name")]
    name: String,
    /// User age
    #[serde(default = "default_age")]
    age: i64,
    /// User score
    #[serde(default = "default_score")]
    score: f64,
    /// User status
    #[serde(default)]
    status: Status,
    /// Verification status
    #[serde(default = "default_verified")]
    verified: bool,
}

fn default_name() -> String {
    "John Doe".to_owned()
}

fn default_age() -> i64 {
    30
}

fn default_score() -> f64 {
    95.5
}

fn default_verified() -> bool {
    true
}

#[derive(Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

/// Asks the user to review a form whose fields have defaults.
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Details>("Please review and update the form fields with defaults").await?;
    Ok(format!("Elicitation completed: {}", described(&answer)))
}

/// Choices of every kind MCP forms have (SEP-1330).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Choices {
    /// Select one option
    untitled_single: Option<Plain>,
    /// Select one option with titles
    titled_single: Option<Titled>,
    /// Select one option (legacy)
    #[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
    legacy_enum: Option<Legacy>,
    /// Select multiple options
    #[schemars(length(min = 1, max = 3))]
    untitled_multi: Option<Vec<Plain>>,
    /// Select multiple options with titles
    #[schemars(length(min = 1, max = 3))]
    titled_multi: Option<Vec<TitledChoice>>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Plain {
    Option1,
    Option2,
    Option3,
}

/// Options whose doc comments are their titles.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Titled {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

/// Asks the user to choose from enums of every kind.
#[tool]
async fn test_elicitation_sep1330_enums(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Choices>("Please select options from the enum fields").await?;
    Ok(format!("Elicitation completed: {}", described(&answer)))
}

/// What the user did, as the suite's reference server says it.
fn described<T: Serialize>(answer: &Elicitation<T>) -> String {
    match answer {
        Elicitation::Accepted { value, .. } => {
            format!("action=accept, content={}", serde_json::to_string(value).unwrap_or_default())
        }
        Elicitation::Declined => "action=decline, content={}".to_owned(),
        Elicitation::Cancelled => "action=cancel, content={}".to_owned(),
    }
}
