//! Prompts that ask (`Prompt::asks`): the fields of a form the client leaves out of
//! `prompts/get` are asked of the user, in the request's rounds on protocol 2026-07-28
//! (`InputRequiredResult` on a request that is not a tool call, SEP-2322) and with
//! `elicitation/create` on 2025-11-25; a client that takes no forms gets the missing argument's
//! error.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    ElicitResult, ElicitationAction, GetPromptRequestParams, GetPromptResponse, GetPromptResult, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use serde_json::{json, Value};
use tool_core::mcp::{McpPrimitives, McpServer, Prompt, PromptMessage};
use tool_core::prelude::*;
use tool_core::state::MemoryStore;

use crate::mcp_asking::Answering;
use crate::mcp_rounds::refusal;

/// What a brief is about: the form asked (its answers fill the prompt's arguments).
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Topic {
    /// The topic of the brief.
    topic: String,
}

/// The brief's arguments: its topic (asked of the user when left out) and a length.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Brief {
    /// The topic of the brief.
    topic: String,
    /// How many words at most.
    words: Option<u32>,
}

fn server() -> McpServer {
    let brief = Prompt::with_arguments("brief", |args: Brief| {
        Ok(vec![PromptMessage::user(format!("Write {} words on {}.", args.words.unwrap_or(100), args.topic))])
    })
    .asks::<Topic>("topic", "What should the brief be about?")
    .unwrap();
    let executor =
        Executor::builder(ToolCatalog::builder().build().unwrap()).store(Arc::new(MemoryStore::new())).build();
    McpServer::builder(executor).primitives(McpPrimitives::new().prompt(brief)).build().unwrap()
}

async fn client<C: rmcp::ClientHandler>(handler: C, version: ProtocolVersion) -> RunningService<RoleClient, C> {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let server = server();
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![version] };
    handler.serve_with_lifecycle(theirs, lifecycle).await.unwrap()
}

fn brief(arguments: Value) -> GetPromptRequestParams {
    let mut params = GetPromptRequestParams::new("brief");
    params.arguments = arguments.as_object().cloned();
    params
}

fn text(result: &GetPromptResult) -> String {
    serde_json::to_value(&result.messages).unwrap()[0]["content"]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn on_2026_07_28_a_prompt_asks_for_what_the_client_left_out_in_rounds() {
    let client = client((), ProtocolVersion::V_2026_07_28).await;
    // The list shows the asked field as optional: the server gets it itself.
    let listed = serde_json::to_value(client.list_all_prompts().await.unwrap()).unwrap();
    assert_eq!(
        listed[0]["arguments"][0],
        json!({"name": "topic", "description": "The topic of the brief.", "required": false})
    );

    let GetPromptResponse::InputRequired(asked) = client.get_prompt_once(brief(json!({"words": "50"}))).await.unwrap()
    else {
        panic!("expected the question in a round")
    };
    let asked = serde_json::to_value(&asked).unwrap();
    assert_eq!(asked["resultType"], "input_required");
    let question = &asked["inputRequests"]["topic"];
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "What should the brief be about?");
    assert_eq!(question["params"]["requestedSchema"]["required"], json!(["topic"]));
    let state = asked["requestState"].as_str().unwrap().to_owned();

    let answers = BTreeMap::from([("topic".to_owned(), json!({"action": "accept", "content": {"topic": "tides"}}))]);
    let retry = brief(json!({"words": "50"})).with_input_responses(answers.clone()).with_request_state(state.clone());
    let GetPromptResponse::Complete(result) = client.get_prompt_once(retry).await.unwrap() else {
        panic!("expected the prompt")
    };
    assert_eq!(text(&result), "Write 50 words on tides.");

    // The state opens once, and only for the same arguments.
    let replay = brief(json!({"words": "50"})).with_input_responses(answers).with_request_state(state);
    let (code, message) = refusal(client.get_prompt_once(replay).await.unwrap_err());
    assert_eq!(
        (code, message.as_str()),
        (-32602, "the requestState of this call cannot be used: it was already used, or it expired")
    );

    // A topic the client gives is not asked for.
    let GetPromptResponse::Complete(result) = client.get_prompt_once(brief(json!({"topic": "rain"}))).await.unwrap()
    else {
        panic!("expected the prompt at once")
    };
    assert_eq!(text(&result), "Write 100 words on rain.");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn on_2025_11_25_a_prompt_asks_the_user_with_elicitation() {
    let answer = ElicitResult::new(ElicitationAction::Accept).with_content(json!({"topic": "glaciers"}));
    let answering = Answering::new(Some(answer));
    let asked = Arc::clone(&answering.asked);
    let client = client(answering, ProtocolVersion::V_2025_11_25).await;
    let GetPromptResponse::Complete(result) = client.get_prompt_once(brief(json!({}))).await.unwrap() else {
        panic!("expected the prompt")
    };
    assert_eq!(text(&result), "Write 100 words on glaciers.");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["message"], "What should the brief be about?");
    client.cancel().await.unwrap();
}

const MISSING: &str = "the prompt `brief` needs the argument `topic`, which the request left out";

#[tokio::test]
async fn a_user_who_declines_or_a_client_without_forms_leaves_the_argument_missing() {
    let declining = Answering::new(Some(ElicitResult::new(ElicitationAction::Decline)));
    for client in [client(declining, ProtocolVersion::V_2025_11_25).await] {
        let (code, message) = refusal(client.get_prompt_once(brief(json!({}))).await.unwrap_err());
        assert_eq!((code, message.as_str()), (-32602, MISSING));
        client.cancel().await.unwrap();
    }
    let formless = client((), ProtocolVersion::V_2025_11_25).await;
    let (code, message) = refusal(formless.get_prompt_once(brief(json!({}))).await.unwrap_err());
    assert_eq!((code, message.as_str()), (-32602, MISSING));
    formless.cancel().await.unwrap();
}
