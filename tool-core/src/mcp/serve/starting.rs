//! What a task of a call needs to run (here, or on the replica that takes it over), and a
//! prompt's question asked in the rounds of its `prompts/get`.

use std::sync::Arc;

use rmcp::model::{GetPromptRequestParams, InputRequiredResult};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData;
use serde_json::Value;

use super::{call_result, with_handle, McpServer, Served};
use crate::executor::ExecutionRecord;
use crate::model::ToolCallRequest;

impl McpServer {
    /// Asks the user for the arguments the client left out of `request`, for a prompt that
    /// asks (`Prompt::asks`), and fills them in; the round that asks, when the request is of
    /// protocol 2026-07-28 and does not answer it yet.
    pub(super) async fn ask_for_prompt(
        &self,
        request: &mut GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<InputRequiredResult>, ErrorData> {
        let Some(question) = self.primitives.prompt_question(request)? else { return Ok(None) };
        let answer = match crate::mcp::mrtr::in_rounds(context) {
            true => match self.ask_in_rounds(request, context, question.clone()).await? {
                Ok(answer) => Some(answer),
                Err(asked) => return Ok(Some(asked)),
            },
            false if crate::mcp::ask::client_takes_forms(context) => {
                let peer = &context.peer;
                crate::mcp::ask::elicit_client(peer, context.id.clone(), question.clone(), None).await.ok()
            }
            false => None,
        };
        // Declined, dismissed or not asked: a required field left out is refused when the
        // prompt is made.
        if let Some(crate::ask::ElicitationAnswer::Accept(content)) = answer {
            let given = request.arguments.get_or_insert_with(Default::default);
            for (field, value) in question.with_defaults(content) {
                given.entry(field).or_insert(value);
            }
        }
        Ok(None)
    }

    /// What a task of `call` needs, when the call is answered with one (see `tasks.rs`); a
    /// tool that runs only as a task refuses a client without the extension.
    pub(super) fn task_of(
        &self,
        served: &Served,
        call: &ToolCallRequest,
        context: &RequestContext<RoleServer>,
        called: &str,
        minted: Option<&String>,
    ) -> Result<Option<crate::mcp::tasks::Start>, ErrorData> {
        let definition = served.executor.catalog().definition(&call.tool_name);
        let capabilities = context.client_capabilities();
        if let crate::mcp::tasks::Answer::Now = self.tasks.answer(definition, capabilities.as_ref())? {
            return Ok(None);
        }
        let resume = crate::mcp::tasks::Resume {
            call: call.clone(),
            capabilities: capabilities.unwrap_or_default(),
            called: called.to_owned(),
            minted: minted.cloned(),
            idempotent: definition.is_some_and(|d| d.annotations.idempotent == Some(true)),
        };
        Ok(self.task_start(served, resume))
    }

    /// What the task of a call (`resume`) needs to run here; `None` when this server does not
    /// serve its tool.
    pub(super) fn task_start(
        &self,
        served: &Served,
        resume: crate::mcp::tasks::Resume,
    ) -> Option<crate::mcp::tasks::Start> {
        let definition = served.executor.catalog().definition(&resume.call.tool_name)?;
        let output_schema = definition.output_schema.clone();
        let (called, handle) = (resume.called.clone(), resume.minted.clone());
        let given = handle.as_ref().map(|handle| self.handles.given(handle));
        // As the result of a call answered at once (see the end of `call_tool`).
        let result = move |record: &ExecutionRecord| {
            let pending =
                output_schema.is_none().then(|| crate::mcp::approve::pending_content(record, &called)).flatten();
            let result = call_result(record, output_schema.as_ref(), pending)?;
            Ok(with_handle(result, handle.zip(given)))
        };
        Some(crate::mcp::tasks::Start {
            executor: served.executor.clone(),
            resume,
            approval_by_elicitation: self.approval_by_elicitation,
            result: Box::new(result),
            observer: self.observer.clone(),
            answers: Default::default(),
            admitted: false,
        })
    }

    /// The user's answer to `question`, asked in the rounds of the `prompts/get` `request`; or
    /// the round that asks it, when the request does not answer it.
    pub(super) async fn ask_in_rounds(
        &self,
        request: &GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
        question: crate::ask::ElicitationRequest,
    ) -> Result<Result<crate::ask::ElicitationAnswer, InputRequiredResult>, ErrorData> {
        let store = Arc::clone(self.current().executor.store());
        let principal = self.principal_of(context);
        // Bound as a tool's call is, apart from every tool by the method's name.
        let (asked_of, arguments) = (format!("prompts/get {}", request.name), Value::from(request.arguments.clone()));
        let arguments = arguments.to_string();
        let (state, answers) = (request.request_state.as_deref(), request.input_responses.as_ref());
        let round = self.rounds.begin(&store, principal.as_deref(), &asked_of, &arguments, state, answers).await?;
        tokio::select! {
            biased;
            answer = crate::mcp::mrtr::elicit(&round, question) => {
                answer.map(Ok).map_err(|e| ErrorData::internal_error(e.message().to_owned(), None))
            }
            () = round.asking() => {
                Ok(Err(self.rounds.end(&round, &store, principal.as_deref(), &asked_of, &arguments).await?))
            }
        }
    }
}
