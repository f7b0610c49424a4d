//! What the policy remembers between calls: failing tries in a row and rate-limit cells, per
//! conversation, with a bound on how many conversations it keeps.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::budget::RetryBudget;
use super::rate::{RateLimit, RateScope};
use crate::model::ToolDefinition;

/// The default of how many conversations the policy remembers; the least recently used is
/// forgotten first.
pub(crate) const DEFAULT_MAX_CONVERSATIONS: usize = 10_000;

#[derive(Debug)]
pub(crate) struct PolicyState {
    inner: Mutex<Inner>,
    max_conversations: usize,
}

#[derive(Debug, Default)]
struct Inner {
    conversations: HashMap<String, Conversation>,
    /// Conversations by last use, oldest first.
    order: BTreeMap<u64, String>,
    tick: u64,
    /// The calls without a conversation, counted as one of their own for rate limits.
    none: Conversation,
    /// `RateScope::Tool` cells: per tool (the catalog's, so bounded) and limit.
    tool_cells: HashMap<String, HashMap<usize, Instant>>,
}

#[derive(Debug, Default)]
struct Conversation {
    used: u64,
    in_a_row: u32,
    tools: HashMap<String, u32>,
    spent: HashSet<String>,
    all_spent: bool,
    /// `RateScope::Conversation` cells, per limit.
    cells: HashMap<usize, Instant>,
    /// `RateScope::ToolInConversation` cells, per tool and limit.
    tool_cells: HashMap<String, HashMap<usize, Instant>>,
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

/// A budget a failure spent, or that was spent before a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spent {
    Tool(u32),
    Conversation(u32),
}

impl PolicyState {
    pub(crate) fn new(max_conversations: usize) -> Self {
        PolicyState { inner: Mutex::new(Inner::default()), max_conversations: max_conversations.max(1) }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut inner)
    }

    /// Whether a budget of `conversation` is spent for `tool` (`None`: an unknown tool).
    pub(crate) fn spent(&self, conversation: Option<&str>, tool: Option<&str>, budget: &RetryBudget) -> Option<Spent> {
        let conversation = &*key(conversation?);
        self.with(|inner| {
            let entry = inner.conversations.get(conversation)?;
            if entry.all_spent {
                return Some(Spent::Conversation(budget.per_conversation));
            }
            tool.filter(|tool| entry.spent.contains(*tool)).map(|_| Spent::Tool(budget.per_tool))
        })
    }

    /// Counts a try: the tool's failing tries in a row so far (after a failure), and the
    /// budget this one spent, if it spent one. Nothing for a call without a conversation.
    pub(crate) fn count(
        &self,
        conversation: Option<&str>,
        tool: Option<&str>,
        outcome: Try,
        budget: &RetryBudget,
    ) -> Option<(u32, Option<Spent>)> {
        let conversation = conversation?;
        if outcome == Try::Other {
            return None;
        }
        let conversation = &*key(conversation);
        let max = self.max_conversations;
        self.with(|inner| {
            if outcome == Try::Succeeded {
                // A conversation with nothing counted has nothing to start again.
                if let Some(entry) = inner.conversations.get_mut(conversation) {
                    entry.in_a_row = 0;
                    if let Some(tool) = tool {
                        entry.tools.remove(tool);
                    }
                }
                return None;
            }
            let entry = inner.entry(conversation, max);
            entry.in_a_row = entry.in_a_row.saturating_add(1);
            let tool_count = tool.map_or(0, |tool| {
                let count = match entry.tools.get_mut(tool) {
                    Some(count) => count,
                    None => entry.tools.entry(tool.to_owned()).or_default(),
                };
                *count = count.saturating_add(1);
                *count
            });
            if entry.in_a_row >= budget.per_conversation {
                entry.all_spent = true;
                return Some((tool_count, Some(Spent::Conversation(budget.per_conversation))));
            }
            match tool {
                Some(tool) if tool_count >= budget.per_tool => {
                    entry.spent.insert(tool.to_owned());
                    Some((tool_count, Some(Spent::Tool(budget.per_tool))))
                }
                _ => Some((tool_count, None)),
            }
        })
    }

    /// Takes a place for a call of `definition` in every limit that covers it; when one is full,
    /// takes none and says which and how long until it has room.
    pub(crate) fn admit(
        &self,
        limits: &[RateLimit],
        conversation: Option<&str>,
        definition: &ToolDefinition,
        now: Instant,
    ) -> Result<(), (usize, Duration)> {
        let covers = |i: &usize| limits[*i].tools.covers(definition);
        if !(0..limits.len()).any(|i| covers(&i)) {
            return Ok(());
        }
        let kept = conversation.map(key);
        let conversation = kept.as_deref();
        let max = self.max_conversations;
        let tool = definition.name.as_str();
        self.with(|inner| {
            // Each cell holds its theoretical arrival time; a call fits while that is at most
            // `per - interval` ahead of now. Every limit is checked before any place is taken.
            for i in (0..limits.len()).filter(covers) {
                let limit = &limits[i];
                let arrival = inner.cell(i, limit.scope, conversation, tool).map_or(now, |at| at.max(now));
                let tolerance = limit.per - limit.interval();
                if arrival > now + tolerance {
                    return Err((i, arrival - tolerance - now));
                }
            }
            for i in (0..limits.len()).filter(covers) {
                let limit = &limits[i];
                let arrival = inner.cell(i, limit.scope, conversation, tool).map_or(now, |at| at.max(now));
                inner.set_cell(i, limit.scope, conversation, tool, arrival + limit.interval(), max);
            }
            Ok(())
        })
    }

    /// Forgets a conversation's counts and cells.
    pub(crate) fn forget(&self, conversation: Option<&str>) {
        self.with(|inner| match conversation {
            None => inner.none = Conversation::default(),
            Some(conversation) => {
                if let Some(entry) = inner.conversations.remove(&*key(conversation)) {
                    inner.order.remove(&entry.used);
                }
            }
        });
    }

    /// How many conversations are remembered.
    #[cfg(test)]
    pub(crate) fn conversations(&self) -> usize {
        self.with(|inner| inner.conversations.len())
    }
}

/// Conversation ids longer than this are kept as a digest: the host's ids are short, and a
/// client that chooses its own (an MCP conversation header) cannot make the policy keep long
/// texts for 10,000 conversations.
const LONGEST_KEPT_ID: usize = 128;

/// The key a conversation is remembered by: its id, or a 128-bit digest of a long one (keyed
/// per process, so that ids cannot be chosen to share one).
fn key(conversation: &str) -> Cow<'_, str> {
    if conversation.len() <= LONGEST_KEPT_ID {
        return Cow::Borrowed(conversation);
    }
    static KEYS: OnceLock<(RandomState, RandomState)> = OnceLock::new();
    let (first, second) = KEYS.get_or_init(|| (RandomState::new(), RandomState::new()));
    Cow::Owned(format!("#{:016x}{:016x}", first.hash_one(conversation), second.hash_one(conversation)))
}

impl Inner {
    /// The conversation's entry, made when new (forgetting the least recently used one at
    /// the bound), marked as the most recently used.
    fn entry(&mut self, conversation: &str, max: usize) -> &mut Conversation {
        self.tick += 1;
        let tick = self.tick;
        let key = match self.conversations.get(conversation) {
            Some(entry) => self.order.remove(&entry.used).unwrap_or_else(|| conversation.to_owned()),
            None => {
                if self.conversations.len() >= max
                    && let Some((_, oldest)) = self.order.pop_first()
                {
                    self.conversations.remove(&oldest);
                }
                self.conversations.insert(conversation.to_owned(), Conversation::default());
                conversation.to_owned()
            }
        };
        self.order.insert(tick, key);
        let entry = self.conversations.get_mut(conversation).unwrap_or_else(|| unreachable!("inserted above"));
        entry.used = tick;
        entry
    }

    fn cell(&self, i: usize, scope: RateScope, conversation: Option<&str>, tool: &str) -> Option<Instant> {
        let cells = match scope {
            RateScope::Tool => return self.tool_cells.get(tool)?.get(&i).copied(),
            _ => match conversation {
                None => &self.none,
                Some(conversation) => self.conversations.get(conversation)?,
            },
        };
        match scope {
            RateScope::ToolInConversation => cells.tool_cells.get(tool)?.get(&i).copied(),
            _ => cells.cells.get(&i).copied(),
        }
    }

    fn set_cell(
        &mut self,
        i: usize,
        scope: RateScope,
        conversation: Option<&str>,
        tool: &str,
        at: Instant,
        max: usize,
    ) {
        let per_tool = |cells: &mut HashMap<String, HashMap<usize, Instant>>| {
            match cells.get_mut(tool) {
                Some(cells) => cells,
                None => cells.entry(tool.to_owned()).or_default(),
            }
            .insert(i, at);
        };
        if scope == RateScope::Tool {
            per_tool(&mut self.tool_cells);
            return;
        }
        let entry = match conversation {
            None => &mut self.none,
            Some(conversation) => self.entry(conversation, max),
        };
        match scope {
            RateScope::ToolInConversation => per_tool(&mut entry.tool_cells),
            _ => {
                entry.cells.insert(i, at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_conversation_is_forgotten_first_at_the_bound() {
        let state = PolicyState::new(2);
        let budget = RetryBudget::new(2, 10);
        assert_eq!(state.count(Some("a"), Some("t"), Try::Fixable, &budget), Some((1, None)));
        assert_eq!(state.count(Some("b"), Some("t"), Try::Fixable, &budget), Some((1, None)));
        // `a` is used again, so `b` is the oldest when `c` arrives.
        assert_eq!(state.count(Some("a"), Some("t"), Try::Fixable, &budget), Some((2, Some(Spent::Tool(2)))));
        assert_eq!(state.count(Some("c"), Some("t"), Try::Fixable, &budget), Some((1, None)));
        assert_eq!(state.conversations(), 2);
        assert_eq!(state.spent(Some("a"), Some("t"), &budget), Some(Spent::Tool(2)));
        // `b` was forgotten: its count starts again.
        assert_eq!(state.count(Some("b"), Some("t"), Try::Fixable, &budget), Some((1, None)));
        assert_eq!(state.conversations(), 2);
        assert_eq!(state.spent(Some("a"), Some("t"), &budget), None, "a was the oldest when b came back");
    }

    #[test]
    fn a_long_conversation_id_is_kept_as_a_digest_and_still_tells_conversations_apart() {
        let state = PolicyState::new(10);
        let budget = RetryBudget::new(1, 10);
        let (long_a, long_b) = ("a".repeat(10_000), "b".repeat(10_000));
        assert_eq!(state.count(Some(&long_a), Some("t"), Try::Fixable, &budget), Some((1, Some(Spent::Tool(1)))));
        assert_eq!(state.spent(Some(&long_a), Some("t"), &budget), Some(Spent::Tool(1)));
        assert_eq!(state.spent(Some(&long_b), Some("t"), &budget), None);
        let kept: Vec<usize> = state.with(|inner| inner.conversations.keys().map(String::len).collect());
        assert_eq!(kept, [33]);
        state.forget(Some(&long_a));
        assert_eq!(state.spent(Some(&long_a), Some("t"), &budget), None);
    }

    #[test]
    fn a_success_in_a_conversation_with_nothing_counted_keeps_nothing() {
        let state = PolicyState::new(10);
        assert_eq!(state.count(Some("c"), Some("t"), Try::Succeeded, &RetryBudget::default()), None);
        assert_eq!(state.conversations(), 0);
    }

    #[test]
    fn calls_without_a_conversation_are_not_counted() {
        let state = PolicyState::new(10);
        let budget = RetryBudget::new(1, 1);
        assert_eq!(state.count(None, Some("t"), Try::Fixable, &budget), None);
        assert_eq!(state.spent(None, Some("t"), &budget), None);
        assert_eq!(state.conversations(), 0);
    }
}
