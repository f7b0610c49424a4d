//! A served `tools/call`: the call made a request, its scopes and conversation checked, then
//! run (in rounds, as a task, or at once) through the executor.

#[allow(clippy::wildcard_imports)] // the body of `call_tool`, moved out of the parent whole
use super::*;

impl McpServer {
    /// Serves one `tools/call` (in the span of the request, which `call_tool` made).
    pub(super) async fn serve_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let received = std::time::Instant::now();
        let called = request.name.to_string();
        let raw = request.arguments.map_or_else(|| "{}".to_owned(), |arguments| Value::Object(arguments).to_string());
        let served = self.current();
        // Protocol 2026-07-28 asks in rounds, each bound to the arguments as the client sent
        // them; other calls need no copy.
        let in_rounds = super::super::mrtr::in_rounds(&context);
        let sent = if in_rounds { raw.clone() } else { String::new() };
        let mut call = ToolCallRequest::new(request.name.to_string(), context.id.to_string(), raw);
        call.principal = self.principal_of(&context);
        call.identity = Self::identity_of(&context).cloned();
        // The HTTP layer refuses a call without its scopes with 403 first; this holds for any
        // other way a call could arrive with a token.
        if let Some(granted) = Self::granted(&context) {
            let missing = Self::missing(&self.scopes_needed(&called), granted);
            if !missing.is_empty() {
                let message =
                    format!("The access token lacks the scope {}, which the tool `{called}` needs.", missing.join(" "));
                return self.refused_with(call, ToolError::new(message).with_code("insufficient_scope"));
            }
        }
        served.names.restore(&mut call);
        let stateful = served.executor.catalog().get(&call.tool_name).is_some_and(|tool| tool.keeps_state());
        let mut minted = None;
        match self.conversation_of(&context) {
            CallConversation::Handle if stateful || self.handles.every_tool => {
                let store = served.executor.store();
                let principal = call.principal.clone();
                let (tool, arguments) = (call.tool_name.clone(), &mut call.raw_arguments);
                match self.handles.resolve(store, principal.as_deref(), &tool, arguments, stateful).await {
                    Ok(None) => {}
                    Ok(Some(resolved)) => {
                        // Names restored before may have read the arguments already.
                        if let Some(Value::Object(arguments)) = &mut call.arguments {
                            arguments.remove(&self.handles.argument);
                        }
                        minted = resolved.minted.then(|| resolved.handle.clone());
                        call.conversation_id = Some(resolved.handle);
                    }
                    Err(error) => return self.refused_with(call, error),
                }
            }
            CallConversation::Handle => {}
            CallConversation::Named(conversation) => {
                if let (true, None, Some(session)) = (stateful, &self.conversation_header, &self.session) {
                    session.uses(served.executor.conversations());
                }
                call.conversation_id = Some(conversation);
            }
            CallConversation::None(why) if stateful => return self.refused(call, &why),
            CallConversation::None(_) => {}
        }
        // MCP tasks (tasks.rs): a long call answered with a task, run apart from this request;
        // one that asks first runs in this request's rounds until it calls `continue_as_task`.
        let mut becomes_task = None;
        if let Some(task) = self.task_of(&served, &call, &context, &called, minted.as_ref())? {
            let asks_first = served.executor.catalog().definition(&call.tool_name).is_some_and(|d| d.task_asks_first);
            if !(asks_first && in_rounds) {
                return Ok(CallToolResponse::Task(self.tasks.start(task).await?));
            }
            becomes_task = Some(task);
        }
        let least =
            self.session.as_ref().and_then(|session| *session.log_level.lock().unwrap_or_else(|e| e.into_inner()));
        let mut scope = CallScope::new().cancel_on(&context.ct);
        // Protocol 2026-07-28: the call's questions go out as the rounds of its request.
        let round = match in_rounds {
            true => {
                let (principal, tool, arguments) = (call.principal.as_deref(), &call.tool_name, &sent);
                let store = served.executor.store();
                let (state, answers) = (request.request_state.as_deref(), request.input_responses.as_ref());
                Some(Arc::new(self.rounds.begin(store, principal, tool, arguments, state, answers).await?))
            }
            false => None,
        };
        let switched = Arc::new(tokio::sync::Notify::new());
        if becomes_task.is_some() {
            let switched = Arc::clone(&switched);
            scope.task_switch = Some(Arc::new(move || switched.notify_one()));
        }
        if let Some(round) = &round {
            let ask = self.approval_by_elicitation;
            scope = super::super::mrtr::scope_asking_in_rounds(&context, round, &served.executor, ask, scope);
        } else {
            scope = super::super::ask::scope_asking_client(&context, scope);
            if self.approval_by_elicitation {
                scope = super::super::approve::scope_approving_by_client(&context, &served.executor, received, scope);
            }
        }
        let (scope, forwarding) = scope_for_client(&context, least, scope);
        let (principal, tool) = (call.principal.clone(), call.tool_name.clone());
        let run = served.executor.execute_in(call, scope);
        let mut record = match &round {
            None => run.await,
            Some(round) => {
                let mut run = Box::pin(run);
                tokio::select! {
                    biased;
                    record = &mut run => record,
                    () = round.asking() => {
                        // The call is dropped where it asked; the next round runs it again.
                        drop(run);
                        let store = served.executor.store();
                        let asked = self.rounds.end(round, store, principal.as_deref(), &tool, &sent).await?;
                        return Ok(CallToolResponse::InputRequired(asked));
                    }
                    () = switched.notified() => {
                        // The call is dropped where it became a task, which runs it again from
                        // the top with this round's answers (its places taken in its first).
                        drop(run);
                        // Only a call that may become a task is told where it does.
                        let Some(mut task) = becomes_task else {
                            return Err(ErrorData::internal_error("a call became a task it could not be", None));
                        };
                        task.answers = round.answers().clone();
                        task.admitted = true;
                        return Ok(CallToolResponse::Task(self.tasks.start(task).await?));
                    }
                }
            }
        };
        // A tool that handed its context to a task still running could hold the sender.
        let _ = tokio::time::timeout(PROGRESS_FLUSH, forwarding).await;
        let session = self.session_search(&context);
        served.search.settle(&self.search, &mut record, &served.tools, session, &context).await;
        if let Some(observer) = &self.observer {
            observer(&record);
        }
        if let Some(error) = super::super::capability::missing_client_capability(&context, &record) {
            return Err(error);
        }
        // Structured content is wrapped exactly as the exported output schema is.
        let catalog = served.executor.catalog();
        let output_schema = catalog.definition(&record.request.tool_name).and_then(|d| d.output_schema.as_ref());
        // A client checks `structuredContent` against the tool's output schema, which a
        // pending call's shape does not follow: only a tool without one carries it.
        let pending =
            output_schema.is_none().then(|| super::super::approve::pending_content(&record, &called)).flatten();
        let result = call_result(&record, output_schema, pending)?;
        let minted = minted.map(|handle| {
            let given = self.handles.given(&handle);
            (handle, given)
        });
        Ok(with_handle(result, minted).into())
    }
}
