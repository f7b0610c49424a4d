//! What a stored value is keyed by: who owns it (the principal and the conversation) and what
//! it is.

use std::fmt;

use sha2::{Digest, Sha256};

/// Who a stored value belongs to: the principal that called (who authentication says made the
/// call, when the front end knows) and the conversation. Two principals with the same
/// conversation id own different values; a value of neither (a tool-wide rate limit) is owned
/// by [`Owner::everyone`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Owner {
    /// Who made the call, as the front end authenticated them.
    pub principal: Option<String>,
    /// The conversation.
    pub conversation: Option<String>,
}

impl Owner {
    /// The owner of values that belong to no conversation and no principal.
    pub fn everyone() -> Owner {
        Owner::default()
    }

    /// `conversation`'s values, for `principal` when there is one.
    pub fn new(principal: Option<&str>, conversation: Option<&str>) -> Owner {
        Owner { principal: principal.map(str::to_owned), conversation: conversation.map(str::to_owned) }
    }

    /// A key of this owner.
    pub fn key(&self, kind: &'static str, name: impl Into<String>) -> StateKey {
        StateKey { owner: self.clone(), kind, name: name.into() }
    }

    /// 128 bits of SHA-256 over the principal and the conversation, in hexadecimal: the same in
    /// every process, and the same for every key of one owner (a Redis Cluster hash tag keeps
    /// them on one slot). Ids of any length or bytes give 32 characters.
    pub fn tag(&self) -> String {
        let mut hash = Sha256::new();
        for part in [&self.principal, &self.conversation] {
            match part {
                None => hash.update([0u8]),
                Some(text) => {
                    hash.update([1u8]);
                    hash.update((text.len() as u64).to_le_bytes());
                    hash.update(text.as_bytes());
                }
            }
        }
        hex(&hash.finalize()[..16])
    }
}

/// A stored value's key: its owner, its kind (`stateful`, `pending`, `budget`, `rate`,
/// `discovered`, `lease`...) and its name within the kind (a type, a tool, an id).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StateKey {
    /// Who the value belongs to.
    pub owner: Owner,
    /// What kind of state it is.
    pub kind: &'static str,
    /// Which one of its kind.
    pub name: String,
}

impl fmt::Display for StateKey {
    /// `kind:name` of the owner's tag: what errors and logs show, without the ids themselves.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.owner.tag(), self.kind, self.name)
    }
}

/// 128 bits of SHA-256 over `bytes`, in hexadecimal: a digest that is the same in every
/// process (pending calls are bound to their arguments' digest).
pub fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes)[..16])
}

/// An id of 128 random bits from the operating system, in hexadecimal: pending calls, leases
/// and handles, which nobody can guess.
pub fn random_id() -> String {
    let mut bytes = [0u8; 16];
    // Without the operating system's randomness no id is safe to give; that is a broken
    // machine, not a model's input.
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    hex(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_tells_principals_and_conversations_apart_and_is_stable() {
        let a = Owner::new(Some("alice"), Some("c1"));
        assert_eq!(a.tag(), Owner::new(Some("alice"), Some("c1")).tag());
        assert_eq!(a.tag().len(), 32);
        assert_ne!(a.tag(), Owner::new(Some("bob"), Some("c1")).tag());
        assert_ne!(a.tag(), Owner::new(None, Some("c1")).tag());
        // The parts are length-prefixed: moving a byte from one to the other is another owner.
        assert_ne!(Owner::new(Some("ab"), Some("c")).tag(), Owner::new(Some("a"), Some("bc")).tag());
        assert_eq!(digest(b"{}"), "44136fa355b3678a1146ad16f7e8649e");
    }
}
