//! The retry budget: how many failing tries in a row a model has before a failure is final.

/// How many tries in a row may fail in ways the model is asked to fix (arguments refused, a
/// tool's [`ToolError::retry`](crate::ToolError::retry), an unknown tool) before the failure
/// is final: per tool and per conversation, each counting since the last call that
/// succeeded. The failure that spends a budget says so to the model, and later calls of that
/// tool (or, for the conversation's budget, of any tool) in that conversation are refused
/// without running until the host [resets](crate::Executor::reset_policy) it.
///
/// Calls are counted per conversation
/// ([`ToolCallRequest::conversation_id`](crate::ToolCallRequest::conversation_id)); calls
/// without one are not counted, since nothing tells their conversations apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryBudget {
    /// Failing tries in a row of one tool in a conversation.
    pub per_tool: u32,
    /// Failing tries in a row of any tools in a conversation.
    pub per_conversation: u32,
}

impl Default for RetryBudget {
    /// Three tries per tool, ten per conversation.
    fn default() -> Self {
        RetryBudget { per_tool: 3, per_conversation: 10 }
    }
}

impl RetryBudget {
    /// `per_tool` tries per tool and `per_conversation` per conversation (each at least 1).
    pub fn new(per_tool: u32, per_conversation: u32) -> Self {
        RetryBudget { per_tool: per_tool.max(1), per_conversation: per_conversation.max(1) }
    }

    /// No budget: a model may fail for ever.
    pub fn unlimited() -> Self {
        RetryBudget { per_tool: u32::MAX, per_conversation: u32::MAX }
    }
}
