//! Where the policy's values live in the executor's store: whose they are and of what kind.
//! Nothing of the policy is kept in the executor itself, so that replicas sharing one store
//! count one conversation's tries and one tool's calls together.

use crate::state::{digest, Owner};

/// The retry budget's values: failing tries in a row, and the spent flags.
pub(crate) const BUDGET: &str = "budget";

/// The rate-limit cells of a conversation (or of the calls without one).
pub(crate) const RATE: &str = "rate";

/// The rate-limit cells of a tool across every conversation, owned by [`Owner::everyone`]: a
/// kind of their own, so that resetting the calls without a conversation leaves them alone.
pub(crate) const TOOL_RATE: &str = "tool_rate";

/// Conversation ids longer than this are kept as a digest: the host's ids are short, and a
/// client that chooses its own (an MCP conversation header) cannot make the store keep long
/// texts.
const LONGEST_KEPT_ID: usize = 128;

/// Who owns the policy's values of a call of `principal` in `conversation` (the calls without
/// a conversation are one conversation of their own per principal). A long conversation id is
/// kept as a digest that is the same in every process, so that replicas find one another's
/// values.
pub(crate) fn owner(principal: Option<&str>, conversation: Option<&str>) -> Owner {
    match conversation {
        Some(id) if id.len() > LONGEST_KEPT_ID => Owner::new(principal, Some(&format!("#{}", digest(id.as_bytes())))),
        _ => Owner::new(principal, conversation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_conversation_id_is_kept_as_a_stable_digest_and_still_tells_conversations_apart() {
        let (long_a, long_b) = ("a".repeat(10_000), "b".repeat(10_000));
        let a = owner(Some("p"), Some(&long_a));
        assert_eq!(a, owner(Some("p"), Some(&long_a)));
        assert_eq!(a.conversation().map(str::len), Some(33));
        assert_ne!(a, owner(Some("p"), Some(&long_b)));
        assert_ne!(a, owner(Some("q"), Some(&long_a)));
        let short = "c".repeat(LONGEST_KEPT_ID);
        assert_eq!(owner(None, Some(&short)), Owner::new(None, Some(&short)));
    }
}
