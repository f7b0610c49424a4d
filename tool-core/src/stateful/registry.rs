//! The types with `shared_state` in this program, registered by `#[tool(shared_state)]`: ending
//! a conversation ends their stored state even in a process that never called them, and two
//! of one name are found.

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::state::{Owner, SharedStore, StateError};
use crate::tool::BoxFuture;

/// Ends an owner's state of one stored type in a store; whether there was one.
type End = for<'a> fn(&'a SharedStore, &'a Owner) -> BoxFuture<'a, Result<bool, StateError>>;

/// A stored type, as registered.
#[doc(hidden)]
pub struct StoredType {
    name: &'static str,
    end: End,
}

impl StoredType {
    pub(super) const fn new(name: &'static str, end: End) -> StoredType {
        StoredType { name, end }
    }
}

inventory::collect!(StoredType);

/// The names two stored types of this program share.
pub(super) fn duplicate_names() -> &'static HashSet<&'static str> {
    static DUPLICATES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    DUPLICATES.get_or_init(|| {
        let mut seen = HashSet::new();
        inventory::iter::<StoredType>.into_iter().filter(|stored| !seen.insert(stored.name)).map(|s| s.name).collect()
    })
}

/// Ends `owner`'s state of every stored type in each of `stores`. How many states there were.
pub(super) async fn end_everywhere(stores: &[SharedStore], owner: &Owner) -> usize {
    let mut ended = 0;
    for store in stores {
        for stored in inventory::iter::<StoredType> {
            match (stored.end)(store, owner).await {
                Ok(found) => ended += usize::from(found),
                Err(error) => {
                    tracing::warn!(%error, state = stored.name, "a conversation's stored state was not ended")
                }
            }
        }
    }
    ended
}
