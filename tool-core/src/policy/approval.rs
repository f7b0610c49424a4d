//! Approval by a person: which calls wait for one, the call kept while it waits, and the
//! person's answer.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{ParseWarning, ToolCallRequest, ToolDefinition};
use crate::tool::BoxFuture;

/// A catalog-wide rule naming the tools whose calls wait for approval, beside what each tool
/// declares (`#[tool(requires_approval)]`).
#[derive(Clone)]
pub struct ApprovalRule {
    name: String,
    applies: Arc<dyn Fn(&ToolDefinition) -> bool + Send + Sync>,
}

impl ApprovalRule {
    /// A rule named `name` (it names the rule in records) over the tool's definition.
    pub fn when(name: impl Into<String>, applies: impl Fn(&ToolDefinition) -> bool + Send + Sync + 'static) -> Self {
        ApprovalRule { name: name.into(), applies: Arc::new(applies) }
    }

    /// Every tool annotated destructive (`annotations(destructive = true)`).
    pub fn destructive() -> Self {
        Self::when("destructive", |d| d.annotations.destructive == Some(true))
    }

    /// Every tool not annotated read-only: the cautious rule, for tools whose annotations
    /// nobody checked (an imported MCP server's).
    pub fn not_read_only() -> Self {
        Self::when("not_read_only", |d| d.annotations.read_only != Some(true))
    }

    /// Every tool with this tag.
    pub fn tagged(tag: impl Into<String>) -> Self {
        let tag = tag.into();
        Self::when(format!("tagged:{tag}"), move |d| d.has_tag(&tag))
    }

    /// The tool with this name.
    pub fn tool(name: impl Into<String>) -> Self {
        let name = name.into();
        Self::when(format!("tool:{name}"), move |d| d.name == name)
    }

    /// Every tool.
    pub fn all() -> Self {
        Self::when("all", |_| true)
    }

    /// The rule's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the rule asks for approval of `definition`'s calls.
    pub fn applies(&self, definition: &ToolDefinition) -> bool {
        (self.applies)(definition)
    }
}

impl fmt::Debug for ApprovalRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ApprovalRule").field(&self.name).finish()
    }
}

/// Why a call waits for approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovalReason {
    /// The tool declares that every call needs approval (`#[tool(requires_approval)]`).
    Declared,
    /// A catalog-wide rule of the executor applies ([`ApprovalRule`]).
    Rule {
        /// The rule's name.
        rule: String,
    },
    /// The tool decided from this call's arguments (`#[tool(approval = "fn")]`, or its body
    /// returned [`ToolError::approval_required`](crate::ToolError::approval_required)).
    Asked {
        /// What the tool said, for the person.
        message: String,
    },
}

/// A call that waits for a person's approval: everything needed to show it and to run it
/// later, in this process or another that shares the executor's store (it serializes with
/// serde).
///
/// A call that ends pending is kept in the executor's [store](crate::ExecutorBuilder::store)
/// under its [`id`](Self::id), bound to its principal and conversation and to a digest of what
/// it would run, for [`ExecutorBuilder::pending_ttl`](crate::ExecutorBuilder::pending_ttl)
/// (24 hours by default). Resume it with [`Executor::resume`](crate::Executor::resume) and a
/// [`Decision`]: the executor takes the stored call once and runs that one, so of two replicas
/// resuming the same call only one runs it. An approved call is read again from the request
/// as it arrived, so the tool sees the same values; edited arguments are read as a model's
/// would be, and checked again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// The id the call waits under in the executor's store: 128 random bits in 32 hexadecimal
    /// characters. A call shown to an approver that answers at once
    /// ([`ExecutorBuilder::on_approval`](crate::ExecutorBuilder::on_approval)) has one too, but
    /// is never stored.
    #[serde(default)]
    pub id: String,
    /// When the stored call expires, in milliseconds since the Unix epoch: resumed later, it is
    /// refused as expired. `None` for a call that was never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
    /// The call as it arrived, before extraction: the tool's name, the call id, the raw
    /// arguments verbatim and the conversation.
    pub request: ToolCallRequest,
    /// The arguments as extraction read them: what the tool would be given.
    pub arguments: Value,
    /// What extraction changed on the way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<ParseWarning>,
    /// Why the call waits.
    pub reasons: Vec<ApprovalReason>,
}

impl PendingCall {
    pub(crate) fn new(
        request: ToolCallRequest,
        arguments: Value,
        warnings: Vec<ParseWarning>,
        reasons: Vec<ApprovalReason>,
    ) -> Self {
        PendingCall { id: crate::state::random_id(), expires_at_ms: None, request, arguments, warnings, reasons }
    }

    /// The tool asked for.
    pub fn tool_name(&self) -> &str {
        &self.request.tool_name
    }

    /// The provider's id of the call.
    pub fn call_id(&self) -> &str {
        &self.request.call_id
    }

    /// The conversation the call belongs to.
    pub fn conversation_id(&self) -> Option<&str> {
        self.request.conversation_id.as_deref()
    }

    /// The reasons in a few words, for a person: `the tool asks for approval of every call;
    /// rule destructive`.
    pub fn reasons_text(&self) -> String {
        let words: Vec<String> = self
            .reasons
            .iter()
            .map(|reason| match reason {
                ApprovalReason::Declared => "the tool asks for approval of every call".to_owned(),
                ApprovalReason::Rule { rule } => format!("rule {rule}"),
                ApprovalReason::Asked { message } => message.clone(),
            })
            .collect();
        words.join("; ")
    }
}

/// A person's answer to a [`PendingCall`]. Serializes as `{"decision": "approve"}`,
/// `{"decision": "approve_with", "arguments": {..}}` or `{"decision": "deny", "reason": ".."}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// Run the call as the model asked.
    Approve,
    /// Run the call with these arguments instead (an arguments object): they are read and
    /// checked as the model's were, and the record keeps the call as the model sent it.
    ApproveWith {
        /// The edited arguments object.
        arguments: Value,
    },
    /// Do not run the call; the model reads the reason as the call's result.
    Deny {
        /// Why, for the model.
        reason: String,
    },
}

impl Decision {
    /// Run the call with edited arguments.
    pub fn approve_with(arguments: Value) -> Self {
        Decision::ApproveWith { arguments }
    }

    /// Do not run the call, telling the model why.
    pub fn deny(reason: impl Into<String>) -> Self {
        Decision::Deny { reason: reason.into() }
    }
}

/// Who answers pending calls at once, when the host has someone to ask (a terminal prompt,
/// an MCP client's user through elicitation).
pub(crate) type ApprovalHandler = Arc<dyn Fn(PendingCall) -> BoxFuture<'static, Decision> + Send + Sync>;

pub(crate) fn approval_handler<F, Fut>(handler: F) -> ApprovalHandler
where
    F: Fn(PendingCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Decision> + Send + 'static,
{
    Arc::new(move |pending| Box::pin(handler(pending)))
}
