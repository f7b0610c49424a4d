//! The retry budget: how many failing tries in a row a model has before a failure is final,
//! and how its counts are kept in the executor's store (one batch to check a call, one to
//! count it).

use std::time::Duration;

use super::keys;
use crate::state::{Count, Counted as StoreCounted, Counters, Owner, StateKey};

/// How many tries in a row may fail in ways the model is asked to fix (arguments refused, a
/// tool's [`ToolError::retry`](crate::ToolError::retry), an unknown tool) before the failure
/// is final: per tool and per conversation, each counting since the last call that
/// succeeded. The failure that spends a budget says so to the model, and later calls of that
/// tool (or, for the conversation's budget, of any tool) in that conversation are refused
/// without running until the host [resets](crate::Executor::reset_policy) it or the policy's
/// time to live passes without a counted try
/// ([`ExecutorBuilder::policy_ttl`](crate::ExecutorBuilder::policy_ttl)).
///
/// Calls are counted per conversation and principal
/// ([`ToolCallRequest::conversation_id`](crate::ToolCallRequest::conversation_id),
/// [`ToolCallRequest::principal`](crate::ToolCallRequest::principal)), in the executor's
/// [store](crate::ExecutorBuilder::store): replicas sharing a store share the counts. Calls
/// without a conversation are not counted, since nothing tells their conversations apart; an
/// [unlimited](RetryBudget::unlimited) budget counts nothing.
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

/// What the budget's check read of a call's conversation before it ran: its failing tries in
/// a row, and its tool's. Kept with the call, so that a success with nothing counted needs no
/// second trip to the store, and a failure knows which spent flag it will likely set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Tally {
    pub(crate) in_a_row: u32,
    pub(crate) tool: u32,
}

/// A budget a failure spent, or that was spent before a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spent {
    Tool(u32),
    Conversation(u32),
}

/// How a call ended, for the retry budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Try {
    /// It succeeded: the counts start again.
    Succeeded,
    /// It failed in a way the model is asked to fix.
    Fixable,
    /// It failed otherwise (a timeout, a panic, a plain error): not counted.
    Other,
}

/// A try's counting: the batch, and for a failure what it counts.
#[derive(Debug)]
pub(crate) struct Counting {
    pub(crate) counters: Counters,
    failure: Option<Failure>,
}

/// A failure's counting: its tool (`None`: no tool of the call's name), and the spent flag its
/// batch sets because the check's tally said this failure would spend a budget.
#[derive(Debug)]
struct Failure {
    tool: Option<String>,
    flagged: Option<Spent>,
}

/// What a failure's count found.
#[derive(Debug)]
pub(crate) struct Counted {
    /// The tool's failing tries in a row, this one included.
    pub(crate) tries: u32,
    /// The budget this failure spent.
    pub(crate) spent: Option<Spent>,
    /// The spent flags to put right when the tally guessed wrong (another call of the
    /// conversation counted between the check and this count).
    pub(crate) correction: Option<Counters>,
}

/// The names of the budget's values; a tool's hold a colon, the conversation's do not.
const IN_A_ROW: &str = "in_a_row";
const SPENT: &str = "spent";

fn tries_key(owner: &Owner, tool: &str) -> StateKey {
    owner.key_of(keys::BUDGET, &["tries:", tool])
}

fn flag_key(owner: &Owner, spent: Spent, tool: Option<&str>) -> StateKey {
    match (spent, tool) {
        (Spent::Tool(_), Some(tool)) => owner.key_of(keys::BUDGET, &["spent:", tool]),
        _ => owner.key(keys::BUDGET, SPENT),
    }
}

fn tries(value: i64) -> u32 {
    u32::try_from(value.max(0)).unwrap_or(u32::MAX)
}

impl RetryBudget {
    /// Whether the budget may ever refuse a call: an unlimited one keeps nothing.
    pub(crate) fn in_play(&self) -> bool {
        *self != RetryBudget::unlimited()
    }

    /// The check before a call of `tool` (`None`: no tool of the call's name) in `owner`'s
    /// conversation: the spent flags and the counts, read in one batch.
    pub(crate) fn check(&self, owner: &Owner, tool: Option<&str>) -> Counters {
        let mut steps = Vec::with_capacity(4);
        steps.push((owner.key(keys::BUDGET, SPENT), Count::Read));
        steps.push((owner.key(keys::BUDGET, IN_A_ROW), Count::Read));
        if let Some(tool) = tool {
            steps.push((flag_key(owner, Spent::Tool(0), Some(tool)), Count::Read));
            steps.push((tries_key(owner, tool), Count::Read));
        }
        Counters { steps, ttl: Duration::ZERO }
    }

    /// What the check found: the conversation's counts, or the budget it spent; `None` when
    /// the store answered another number of values than the batch had steps.
    pub(crate) fn checked(&self, check: &Counters, found: &StoreCounted) -> Option<Result<Tally, Spent>> {
        let values = &found.values;
        if values.len() != check.steps.len() {
            return None;
        }
        if values[0] > 0 {
            return Some(Err(Spent::Conversation(self.per_conversation)));
        }
        if values.len() == 4 && values[2] > 0 {
            return Some(Err(Spent::Tool(self.per_tool)));
        }
        Some(Ok(Tally { in_a_row: tries(values[1]), tool: values.get(3).map_or(0, |&value| tries(value)) }))
    }

    /// The batch that counts a try of `tool` in `owner`'s conversation, given what the check
    /// read before it (`None`: it read nothing, a resumed call); `None` when there is nothing
    /// to change (a failure not counted, a success with nothing counted before it).
    pub(crate) fn count(
        &self,
        owner: &Owner,
        tool: Option<&str>,
        outcome: Try,
        tally: Option<Tally>,
        ttl: Duration,
    ) -> Option<Counting> {
        let steps = |count: &dyn Fn() -> Count| {
            let mut steps = vec![(owner.key(keys::BUDGET, IN_A_ROW), count())];
            steps.extend(tool.map(|tool| (tries_key(owner, tool), count())));
            steps
        };
        match outcome {
            Try::Other => None,
            Try::Succeeded if tally == Some(Tally::default()) => None,
            Try::Succeeded => {
                Some(Counting { counters: Counters { steps: steps(&|| Count::Reset), ttl }, failure: None })
            }
            Try::Fixable => {
                let mut steps = steps(&|| Count::Add(1));
                let flagged =
                    tally.and_then(|tally| self.spends(i64::from(tally.in_a_row) + 1, i64::from(tally.tool) + 1, tool));
                steps.extend(flagged.map(|spent| (flag_key(owner, spent, tool), Count::Add(1))));
                let failure = Failure { tool: tool.map(str::to_owned), flagged };
                Some(Counting { counters: Counters { steps, ttl }, failure: Some(failure) })
            }
        }
    }

    /// What a failure's count found (`None` after a success, or when the store answered
    /// another number of values than the batch had steps).
    pub(crate) fn counted(&self, owner: &Owner, counting: &Counting, found: &StoreCounted) -> Option<Counted> {
        let failure = counting.failure.as_ref()?;
        let values = &found.values;
        if values.len() != counting.counters.steps.len() {
            return None;
        }
        let tool = failure.tool.as_deref();
        let tool_tries = if tool.is_some() { values[1] } else { 0 };
        let spent = self.spends(values[0], tool_tries, tool);
        let correction = (spent != failure.flagged).then(|| {
            let undo = failure.flagged.map(|wrong| (flag_key(owner, wrong, tool), Count::Add(-1)));
            let set = spent.map(|right| (flag_key(owner, right, tool), Count::Add(1)));
            Counters { steps: undo.into_iter().chain(set).collect(), ttl: counting.counters.ttl }
        });
        Some(Counted { tries: tries(tool_tries), spent, correction })
    }

    /// The budget spent at `in_a_row` failing tries of the conversation and `tool_tries` of
    /// `tool`: the conversation's first.
    fn spends(&self, in_a_row: i64, tool_tries: i64, tool: Option<&str>) -> Option<Spent> {
        if tries(in_a_row) >= self.per_conversation {
            return Some(Spent::Conversation(self.per_conversation));
        }
        (tool.is_some() && tries(tool_tries) >= self.per_tool).then_some(Spent::Tool(self.per_tool))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(values: &[i64]) -> StoreCounted {
        StoreCounted { values: values.to_vec(), refused: None }
    }

    fn verbs(counters: &Counters) -> Vec<(String, Count)> {
        counters.steps.iter().map(|(key, count)| (key.name().to_owned(), count.clone())).collect()
    }

    #[test]
    fn a_check_reads_the_flags_and_counts_and_a_spent_flag_refuses() {
        let budget = RetryBudget::new(2, 5);
        let owner = Owner::new(Some("p"), Some("c"));
        let check = budget.check(&owner, Some("t"));
        let names: Vec<_> = verbs(&check).into_iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["spent", "in_a_row", "spent:t", "tries:t"]);
        assert_eq!(budget.checked(&check, &found(&[0, 3, 0, 1])), Some(Ok(Tally { in_a_row: 3, tool: 1 })));
        assert_eq!(budget.checked(&check, &found(&[0, 3, 1, 2])), Some(Err(Spent::Tool(2))));
        assert_eq!(budget.checked(&check, &found(&[1, 5, 1, 2])), Some(Err(Spent::Conversation(5))));
        assert_eq!(budget.checked(&check, &found(&[0, 3])), None, "a short answer is no answer");
        let unknown = budget.check(&owner, None);
        assert_eq!(budget.checked(&unknown, &found(&[0, 4])), Some(Ok(Tally { in_a_row: 4, tool: 0 })));
    }

    #[test]
    fn a_success_with_nothing_counted_changes_nothing_and_other_failures_are_not_counted() {
        let budget = RetryBudget::default();
        let owner = Owner::new(None, Some("c"));
        let ttl = Duration::from_secs(60);
        assert!(budget.count(&owner, Some("t"), Try::Succeeded, Some(Tally::default()), ttl).is_none());
        assert!(budget.count(&owner, Some("t"), Try::Other, Some(Tally { in_a_row: 2, tool: 2 }), ttl).is_none());
        // A resumed call read nothing: its success starts the counts again.
        let reset = budget.count(&owner, Some("t"), Try::Succeeded, None, ttl).unwrap();
        assert_eq!(verbs(&reset.counters), [("in_a_row".into(), Count::Reset), ("tries:t".into(), Count::Reset)]);
        assert!(budget.counted(&owner, &reset, &found(&[2, 1])).is_none());
    }

    #[test]
    fn the_flag_a_failure_sets_follows_the_counts_the_store_gave_not_the_tally() {
        let budget = RetryBudget::new(2, 3);
        let owner = Owner::new(None, Some("c"));
        let ttl = Duration::from_secs(60);
        // The tally says this failure spends the tool's budget: its flag is set in the batch.
        let counting =
            budget.count(&owner, Some("t"), Try::Fixable, Some(Tally { in_a_row: 1, tool: 1 }), ttl).unwrap();
        assert_eq!(
            verbs(&counting.counters),
            [("in_a_row".into(), Count::Add(1)), ("tries:t".into(), Count::Add(1)), ("spent:t".into(), Count::Add(1))]
        );
        let counted = budget.counted(&owner, &counting, &found(&[2, 2, 1])).unwrap();
        assert_eq!((counted.tries, counted.spent), (2, Some(Spent::Tool(2))));
        assert!(counted.correction.is_none());
        // Another call of the conversation failed in between: the conversation's budget is
        // spent instead, and the tool's flag taken back.
        let counted = budget.counted(&owner, &counting, &found(&[3, 2, 1])).unwrap();
        assert_eq!(counted.spent, Some(Spent::Conversation(3)));
        let correction = verbs(&counted.correction.unwrap());
        assert_eq!(correction, [("spent:t".into(), Count::Add(-1)), ("spent".into(), Count::Add(1))]);
        // A success in between started the counts again: nothing is spent.
        let counted = budget.counted(&owner, &counting, &found(&[1, 1, 1])).unwrap();
        assert_eq!((counted.tries, counted.spent), (1, None));
        assert_eq!(verbs(&counted.correction.unwrap()), [("spent:t".into(), Count::Add(-1))]);
        // Without a tally (a resumed call) nothing is guessed: the flag comes second.
        let counting = budget.count(&owner, Some("t"), Try::Fixable, None, ttl).unwrap();
        let counted = budget.counted(&owner, &counting, &found(&[1, 2])).unwrap();
        assert_eq!(verbs(&counted.correction.unwrap()), [("spent:t".into(), Count::Add(1))]);
    }
}
