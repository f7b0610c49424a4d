//! Where state lives: one store for every piece of state the crate keeps between calls (the
//! instances of stateful tools, pending approvals, retry budgets, rate limits, what a
//! conversation's searches discovered, the playground's pending calls), so that two or more
//! processes sharing a store serve one conversation interchangeably.
//!
//! [`StateStore`] is the few atomic operations that state needs: a read with a version, a
//! compare-and-set (optionally fenced by another key's version: a lease), a delete, an expiry
//! touch, a take-once, and atomic counters over a window. [`MemoryStore`] keeps them in this
//! process (the default); `RedisStore` (feature `redis`) keeps them in Redis, where every
//! read-modify-write is one Lua script.

mod error;
mod key;
mod memory;
#[cfg(feature = "redis")]
mod redis;
mod store;

pub use error::StateError;
pub use key::{digest, random_id, Owner, StateKey};
pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis::{RedisStore, RedisStoreBuilder};
pub use store::{
    Count, Counted, Counters, Expect, SharedStore, StateStore, StoreFuture, Version, Versioned, Write, Written,
};
