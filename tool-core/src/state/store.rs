//! The store's operations and what they take and give.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use super::error::StateError;
use super::key::{Owner, StateKey};

/// A future a store returns; boxed, so that stores are objects ([`SharedStore`]).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StateError>> + Send + 'a>>;

/// A store as an executor holds it.
pub type SharedStore = Arc<dyn StateStore>;

/// A value's version: an opaque token a store gives each write, never given twice to one key
/// (so a compare-and-set cannot succeed against a value that was replaced and written back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version(pub u64);

/// A value as stored, with its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioned {
    /// The bytes written.
    pub value: Vec<u8>,
    /// The version of this write.
    pub version: Version,
}

/// What a write expects to find before it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// No value: the write creates the key.
    Absent,
    /// The value of this version.
    Version(Version),
    /// Anything: the write replaces whatever is there.
    Any,
}

/// A compare-and-set: `value` written at `key` when the key holds what `expect` says (and, with
/// a fence, when the fence key holds its version), to expire after `ttl` without a new write or
/// a touch.
#[derive(Debug, Clone)]
pub struct Write {
    /// The bytes to write.
    pub value: Vec<u8>,
    /// What the key must hold.
    pub expect: Expect,
    /// Another key that must hold this version for the write to happen: a lease that a writer
    /// that lost it cannot write through.
    pub fence: Option<(StateKey, Version)>,
    /// How long the value lives without a write or a touch.
    pub ttl: Duration,
}

impl Write {
    /// A write of `value` at any version, living `ttl`.
    pub fn new(value: Vec<u8>, ttl: Duration) -> Write {
        Write { value, expect: Expect::Any, fence: None, ttl }
    }

    /// The same write, made only when the key holds what `expect` says.
    pub fn expect(mut self, expect: Expect) -> Write {
        self.expect = expect;
        self
    }

    /// The same write, made only while `key` holds `version`.
    pub fn fenced_by(mut self, key: StateKey, version: Version) -> Write {
        self.fence = Some((key, version));
        self
    }
}

/// What a compare-and-set did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The value was written; its new version.
    Done(Version),
    /// The key did not hold what the write expected: nothing was written. The version found,
    /// `None` when the key had no value.
    Conflict(Option<Version>),
    /// The fence key no longer held its version (the lease was lost): nothing was written.
    Fenced,
}

/// One step of a [`Counters`] batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Count {
    /// The counter's value, unchanged (0 when it has none).
    Read,
    /// The counter increased by this much; its new value.
    Add(i64),
    /// The counter removed; its value before.
    Reset,
    /// A place taken in a rate limit, by the generic cell rate algorithm: one call per
    /// `interval`, with `burst` calls' worth of tolerance ahead of the store's clock. Refused
    /// when full, with the time until there is room; a refusal takes no place in any limit and
    /// applies no step of the batch.
    Admit {
        /// The time one call takes of the limit (its period divided by its calls).
        interval: Duration,
        /// How far ahead of now the cell may run: the period less one interval.
        tolerance: Duration,
    },
}

/// Counters changed together, atomically: what the call policy keeps (failing tries in a row,
/// spent budgets, rate-limit cells).
#[derive(Debug, Clone, Default)]
pub struct Counters {
    /// The steps, in order; each names its counter.
    pub steps: Vec<(StateKey, Count)>,
    /// How long each counter the batch writes lives without another write.
    pub ttl: Duration,
}

/// What a [`Counters`] batch found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Counted {
    /// One value per step, in order: for [`Count::Admit`], 0.
    pub values: Vec<i64>,
    /// The first [`Count::Admit`] step that found its limit full, by index, and how long until
    /// it has room; when set, the batch changed nothing.
    pub refused: Option<(usize, Duration)>,
}

/// The few atomic operations every piece of state needs, on one store that one or many
/// processes share. Keys are [`StateKey`]s: who owns the value (the principal and the
/// conversation) and what it is. Every value expires after its time to live unless written or
/// touched again; nothing lives forever.
///
/// A store that cannot be reached answers [`StateError::Unavailable`]: the executor then fails
/// the calls that need state with the failure kind `state_unavailable`, and never falls back to
/// another store.
pub trait StateStore: Send + Sync + fmt::Debug + 'static {
    /// A short name of the kind of store, for records and errors: `memory`, `redis`.
    fn kind(&self) -> &'static str;

    /// The value at `key` and its version, if there is one.
    fn read<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Versioned>>;

    /// A compare-and-set (see [`Write`]).
    fn write<'a>(&'a self, key: &'a StateKey, write: Write) -> StoreFuture<'a, Written>;

    /// Removes the value at `key` when it has version `expected` (any version when `None`).
    /// Whether a value was removed.
    fn delete<'a>(&'a self, key: &'a StateKey, expected: Option<Version>) -> StoreFuture<'a, bool>;

    /// Gives the value at `key` a new time to live. Whether there was one.
    fn touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, bool>;

    /// Removes the value at `key` and returns it: of two takers, exactly one gets it.
    fn take<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// Applies a batch of counter steps atomically (see [`Counters`]).
    fn count<'a>(&'a self, counters: &'a Counters) -> StoreFuture<'a, Counted>;

    /// Removes every value of `owner` (of the kind `kind` only, when given). How many.
    fn clear<'a>(&'a self, owner: &'a Owner, kind: Option<&'a str>) -> StoreFuture<'a, usize>;

    /// A write (see [`Write`]) and then, when it was done, the value at `read` as it stands
    /// after it (`None` when the write was not done or `read` has no value): how a call takes a
    /// conversation's lease and reads the state it guards in one operation.
    ///
    /// `RedisStore` runs both in one script, atomically, when `read` has
    /// the owner of `key` (the keys of one owner share a Redis Cluster slot); an unreadable
    /// value at `read` then fails the whole before anything is written. The default runs
    /// [`write`](StateStore::write) and then [`read`](StateStore::read): enough for a store
    /// within one process, since a value that the write made (a lease) keeps out whoever else
    /// would write at `read`; there, an error of the read comes after the write was done.
    fn write_then_read<'a>(
        &'a self,
        key: &'a StateKey,
        write: Write,
        read: &'a StateKey,
    ) -> StoreFuture<'a, (Written, Option<Versioned>)> {
        Box::pin(write_then_read_in_turn(self, key, write, read))
    }

    /// A write (see [`Write`]) and then, when it was done, the removal of the value at
    /// `delete` if it still has version `expected`: how a call commits a state and gives up the
    /// lease that fenced it in one operation. When the write was not done, `delete` is left
    /// as it is.
    ///
    /// `RedisStore` runs both in one script, atomically, when `delete`
    /// has the owner of `key`. The default runs [`write`](StateStore::write) and then
    /// [`delete`](StateStore::delete): the removal only takes the expected version, so a value
    /// written there meanwhile by another is kept.
    fn write_then_delete<'a>(
        &'a self,
        key: &'a StateKey,
        write: Write,
        delete: &'a StateKey,
        expected: Version,
    ) -> StoreFuture<'a, Written> {
        Box::pin(write_then_delete_in_turn(self, key, write, delete, expected))
    }

    /// The value at `key` and its version, if there is one, which then lives `ttl` more (as
    /// [`touch`](StateStore::touch) gives it): how a call that only reads a state keeps it alive.
    ///
    /// `RedisStore` does both in one script. The default runs
    /// [`read`](StateStore::read) and then, when there was a value,
    /// [`touch`](StateStore::touch).
    fn read_and_touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, Option<Versioned>> {
        Box::pin(async move {
            let found = self.read(key).await?;
            if found.is_some() {
                self.touch(key, ttl).await?;
            }
            Ok(found)
        })
    }

    /// Whether values written here are seen by other processes (a shared store), so that what
    /// lives in one process's memory (a stateful type that is not serialized) must be refused.
    fn is_shared(&self) -> bool {
        false
    }
}

/// [`StateStore::write_then_read`] as two operations in turn.
pub(crate) async fn write_then_read_in_turn<S: StateStore + ?Sized>(
    store: &S,
    key: &StateKey,
    write: Write,
    read: &StateKey,
) -> Result<(Written, Option<Versioned>), StateError> {
    let written = store.write(key, write).await?;
    let found = match written {
        Written::Done(_) => store.read(read).await?,
        Written::Conflict(_) | Written::Fenced => None,
    };
    Ok((written, found))
}

/// [`StateStore::write_then_delete`] as two operations in turn.
pub(crate) async fn write_then_delete_in_turn<S: StateStore + ?Sized>(
    store: &S,
    key: &StateKey,
    write: Write,
    delete: &StateKey,
    expected: Version,
) -> Result<Written, StateError> {
    let written = store.write(key, write).await?;
    if let Written::Done(_) = written {
        store.delete(delete, Some(expected)).await?;
    }
    Ok(written)
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}
