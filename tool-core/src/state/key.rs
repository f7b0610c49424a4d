//! What a stored value is keyed by: who owns it (the principal and the conversation) and what
//! it is.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use sha2::{Digest, Sha256};

/// Who a stored value belongs to: the principal that called (who authentication says made the
/// call, when the front end knows) and the conversation. Two principals with the same
/// conversation id own different values; a value of neither (a tool-wide rate limit) is owned
/// by [`Owner::everyone`]. Its keys share its ids rather than copy them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Owner {
    principal: Option<Arc<str>>,
    conversation: Option<Arc<str>>,
}

impl Owner {
    /// The owner of values that belong to no conversation and no principal.
    pub fn everyone() -> Owner {
        Owner::default()
    }

    /// `conversation`'s values, for `principal` when there is one.
    pub fn new(principal: Option<&str>, conversation: Option<&str>) -> Owner {
        Owner { principal: principal.map(Arc::from), conversation: conversation.map(Arc::from) }
    }

    /// Who made the call, as the front end authenticated them.
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The conversation.
    pub fn conversation(&self) -> Option<&str> {
        self.conversation.as_deref()
    }

    /// A key of this owner.
    pub fn key(&self, kind: &'static str, name: impl AsRef<str>) -> StateKey {
        self.key_of(kind, &[name.as_ref()])
    }

    /// A key of this owner whose name is `parts` one after the other (`tries:` and a tool's
    /// name), with no string made for the name in between.
    pub(crate) fn key_of(&self, kind: &'static str, parts: &[&str]) -> StateKey {
        StateKey { owner: self.clone(), kind, name: Name::joined(parts) }
    }

    /// 128 bits of SHA-256 over the principal and the conversation, in hexadecimal: the same in
    /// every process, and the same for every key of one owner (a Redis Cluster hash tag keeps
    /// them on one slot). Ids of any length or bytes give 32 characters.
    pub fn tag(&self) -> String {
        let mut hash = Sha256::new();
        for part in [self.principal(), self.conversation()] {
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
    owner: Owner,
    kind: &'static str,
    name: Name,
}

impl StateKey {
    /// Who the value belongs to.
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// What kind of state it is.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// Which one of its kind.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }

    /// The name as bytes, for the memory store's comparisons.
    pub(crate) fn name_bytes(&self) -> &[u8] {
        self.name.as_bytes()
    }

    /// The name as the key holds it, for a store that keeps it.
    pub(crate) fn shared_name(&self) -> &Name {
        &self.name
    }
}

impl fmt::Display for StateKey {
    /// `kind:name` of the owner's tag: what errors and logs show, without the ids themselves.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.owner.tag(), self.kind, self.name())
    }
}

/// The longest name held in the key itself: the policy's names (`tries:` and a tool's name),
/// the ids of pending calls and leases (32 characters). Keys are built for every call that
/// keeps state; a longer name is allocated once and shared by the key's clones.
const INLINE: usize = 46;

/// A key's name: in the key when short, else shared.
#[derive(Clone)]
pub(crate) enum Name {
    /// The first `len` bytes, copied whole from `str`s.
    Inline {
        len: u8,
        bytes: [u8; INLINE],
    },
    Shared(Arc<str>),
}

impl Name {
    /// `parts` one after the other.
    fn joined(parts: &[&str]) -> Name {
        let len: usize = parts.iter().map(|part| part.len()).sum();
        match u8::try_from(len) {
            Ok(short) if len <= INLINE => {
                let mut bytes = [0; INLINE];
                let mut at = 0;
                for part in parts {
                    bytes[at..at + part.len()].copy_from_slice(part.as_bytes());
                    at += part.len();
                }
                Name::Inline { len: short, bytes }
            }
            _ => Name::Shared(Arc::from(parts.concat())),
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Name::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Name::Shared(name) => name.as_bytes(),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            // Whole `str`s were copied in: the bytes are UTF-8, and the empty name is never
            // given for them.
            Name::Inline { .. } => std::str::from_utf8(self.as_bytes()).unwrap_or_default(),
            Name::Shared(name) => name,
        }
    }
}

// Compared and hashed as its text, whichever way it is held.
impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
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
