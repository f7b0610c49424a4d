//! Rate limits per tool and per conversation, and their cells in the executor's store (every
//! limit that covers a call admitted in one batch).

use std::time::Duration;

use super::guard::GuardScope;
use super::keys;
use crate::model::ToolDefinition;
use crate::state::{Count, Counters, Owner};

/// What one rate limit counts separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RateScope {
    /// Each tool's calls, across every conversation.
    Tool,
    /// Each conversation's calls, of every tool in the limit's scope together.
    Conversation,
    /// Each tool's calls in each conversation.
    ToolInConversation,
}

/// At most `calls` calls per `per`, counted as [`RateScope`] says, for the tools
/// [`only`](Self::only) names (every tool unless narrowed). A burst of `calls` is allowed,
/// then one call per `per / calls` (a generic cell rate: no list of past calls is kept). A
/// call over the limit is not run, and the model reads when it may try again.
///
/// Calls without a conversation count as one conversation of their own (per principal). The
/// cells live in the executor's [store](crate::ExecutorBuilder::store): replicas sharing a
/// store share the limit, which admits exactly `calls` calls per `per` across them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimit {
    /// What is counted separately.
    pub scope: RateScope,
    /// Which calls count.
    pub tools: GuardScope,
    /// How many calls.
    pub calls: u32,
    /// In how long.
    pub per: Duration,
}

impl RateLimit {
    /// `calls` per `per` for each tool.
    pub fn per_tool(calls: u32, per: Duration) -> Self {
        Self::new(RateScope::Tool, calls, per)
    }

    /// `calls` per `per` for each conversation.
    pub fn per_conversation(calls: u32, per: Duration) -> Self {
        Self::new(RateScope::Conversation, calls, per)
    }

    /// `calls` per `per` for each tool in each conversation.
    pub fn per_tool_in_conversation(calls: u32, per: Duration) -> Self {
        Self::new(RateScope::ToolInConversation, calls, per)
    }

    fn new(scope: RateScope, calls: u32, per: Duration) -> Self {
        RateLimit { scope, tools: GuardScope::All, calls: calls.max(1), per: per.max(Duration::from_millis(1)) }
    }

    /// The same limit, only for the calls `tools` covers.
    pub fn only(mut self, tools: GuardScope) -> Self {
        self.tools = tools;
        self
    }

    /// The limit in words: `5 calls per minute per tool in a conversation`.
    pub fn describe(&self) -> String {
        let calls = match self.calls {
            1 => "1 call".to_owned(),
            n => format!("{n} calls"),
        };
        let scope = match self.scope {
            RateScope::Tool => "per tool",
            RateScope::Conversation => "per conversation",
            RateScope::ToolInConversation => "per tool in a conversation",
        };
        format!("{calls} per {} {scope}", period(self.per))
    }

    /// The spacing of calls at the steady rate.
    pub(crate) fn interval(&self) -> Duration {
        self.per / self.calls
    }
}

/// The batch that takes a place for a call of `definition` in every limit of `limits` that
/// covers it (in the cells of the conversation of `owner`, or of the tool across
/// conversations); `None` when none covers it. A refusal's step is the limit's place among
/// those covering the call ([`covering`]).
pub(crate) fn admission(limits: &[RateLimit], owner: &Owner, definition: &ToolDefinition) -> Option<Counters> {
    let tool = definition.name.as_str();
    let mut ttl = Duration::ZERO;
    let steps: Vec<_> = covering(limits, definition)
        .map(|i| {
            let limit = &limits[i];
            // A cell matters until its theoretical arrival, at most one period ahead of now.
            ttl = ttl.max(limit.per);
            let mut digits = itoa::Buffer::new();
            let index = digits.format(i);
            let key = match limit.scope {
                RateScope::Tool => Owner::everyone().key_of(keys::TOOL_RATE, &[index, ":", tool]),
                RateScope::Conversation => owner.key_of(keys::RATE, &[index]),
                RateScope::ToolInConversation => owner.key_of(keys::RATE, &[index, ":", tool]),
            };
            let interval = limit.interval();
            (key, Count::Admit { interval, tolerance: limit.per.saturating_sub(interval) })
        })
        .collect();
    (!steps.is_empty()).then_some(Counters { steps, ttl })
}

/// The indices of the limits of `limits` that cover a call of `definition`, in order.
pub(crate) fn covering<'a>(
    limits: &'a [RateLimit],
    definition: &'a ToolDefinition,
) -> impl Iterator<Item = usize> + 'a {
    (0..limits.len()).filter(move |&i| limits[i].tools.covers(definition))
}

/// `minute`, `hour`, `second`, `day`, else `30 s` or `250 ms`.
fn period(per: Duration) -> String {
    match per.as_millis() {
        1_000 => "second".to_owned(),
        60_000 => "minute".to_owned(),
        3_600_000 => "hour".to_owned(),
        86_400_000 => "day".to_owned(),
        _ => crate::model::duration_words(per),
    }
}
