//! The store in this process's memory: the default, for one process.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::{
    Count, Counted, Counters, Expect, Owner, StateKey, StateStore, StoreFuture, Version, Versioned, Write, Written,
};

/// State in this process's memory: what one process needs, with nothing to run beside it.
/// Bounded: at most [`MemoryStore::DEFAULT_MAX_KEYS`] values (or the host's bound), the least
/// recently used forgotten first, and each value forgotten once its time to live has passed.
/// Another process sees none of it; replicas share a store such as `RedisStore`.
#[derive(Debug)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    max_keys: usize,
}

#[derive(Debug)]
struct Inner {
    owners: HashMap<Owner, HashMap<(&'static str, String), Entry>>,
    /// Keys by the tick of their last use, oldest first.
    order: BTreeMap<u64, StateKey>,
    tick: u64,
    next_version: u64,
    len: usize,
    /// The store's clock starts here: rate-limit cells hold microseconds since.
    base: Instant,
}

#[derive(Debug)]
struct Entry {
    data: Data,
    version: Version,
    expires: Instant,
    used: u64,
}

#[derive(Debug)]
enum Data {
    Bytes(Vec<u8>),
    Counter(i64),
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    /// The bound on values kept when the host sets none: 1,000,000.
    pub const DEFAULT_MAX_KEYS: usize = 1_000_000;

    /// An empty store, bounded by [`MemoryStore::DEFAULT_MAX_KEYS`].
    pub fn new() -> MemoryStore {
        MemoryStore::with_max_keys(Self::DEFAULT_MAX_KEYS)
    }

    /// An empty store that keeps at most `max_keys` values (at least one), forgetting the least
    /// recently used first.
    pub fn with_max_keys(max_keys: usize) -> MemoryStore {
        let inner = Inner {
            owners: HashMap::new(),
            order: BTreeMap::new(),
            tick: 0,
            next_version: 0,
            len: 0,
            base: Instant::now(),
        };
        MemoryStore { inner: Mutex::new(inner), max_keys: max_keys.max(1) }
    }

    /// How many values are kept now (expired ones not yet forgotten included).
    pub fn len(&self) -> usize {
        self.with(|inner| inner.len)
    }

    /// Whether no value is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut inner)
    }

    /// What a batch of counter steps does, on the store's own clock.
    fn count_now(&self, counters: &Counters) -> Counted {
        let now = Instant::now();
        let max = self.max_keys;
        self.with(|inner| {
            let clock = micros(now.saturating_duration_since(inner.base));
            // Every limit is checked before any place is taken or any counter changes.
            for (i, (key, step)) in counters.steps.iter().enumerate() {
                if let Count::Admit { tolerance, .. } = step {
                    let arrival = inner.counter(key, now).max(clock);
                    let tolerance = micros(*tolerance);
                    if arrival > clock.saturating_add(tolerance) {
                        let wait = arrival - tolerance - clock;
                        return Counted { values: Vec::new(), refused: Some((i, Duration::from_micros(wait as u64))) };
                    }
                }
            }
            let expires = until(now, counters.ttl);
            let values = counters
                .steps
                .iter()
                .map(|(key, step)| match step {
                    Count::Read => inner.counter(key, now),
                    Count::Add(n) => {
                        let value = inner.counter(key, now).saturating_add(*n);
                        inner.put(key, Data::Counter(value), expires, max);
                        value
                    }
                    Count::Reset => {
                        let value = inner.counter(key, now);
                        inner.remove(key);
                        value
                    }
                    Count::Admit { interval, .. } => {
                        let arrival = inner.counter(key, now).max(clock).saturating_add(micros(*interval));
                        inner.put(key, Data::Counter(arrival), expires.max(until(now, *interval)), max);
                        0
                    }
                })
                .collect();
            Counted { values, refused: None }
        })
    }
}

/// When a value written `now` to live `ttl` expires: a life too long for the clock (a host's
/// `Duration::MAX`) is a century, not an overflow.
fn until(now: Instant, ttl: Duration) -> Instant {
    now.checked_add(ttl).unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 60 * 60))
}

fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

impl Inner {
    /// The live entry at `key`, marked used; an expired one is forgotten.
    fn live(&mut self, key: &StateKey, now: Instant) -> Option<&mut Entry> {
        let place = (key.kind, key.name.as_str());
        let expired = self.owners.get(&key.owner)?.get(&place as &dyn Place)?.expires <= now;
        if expired {
            self.remove(key);
            return None;
        }
        self.tick += 1;
        let tick = self.tick;
        let entry = self.owners.get_mut(&key.owner)?.get_mut(&place as &dyn Place)?;
        let last = std::mem::replace(&mut entry.used, tick);
        if let Some(key) = self.order.remove(&last) {
            self.order.insert(tick, key);
        }
        Some(entry)
    }

    fn counter(&mut self, key: &StateKey, now: Instant) -> i64 {
        match self.live(key, now) {
            Some(Entry { data: Data::Counter(value), .. }) => *value,
            _ => 0,
        }
    }

    fn remove(&mut self, key: &StateKey) -> Option<Entry> {
        let values = self.owners.get_mut(&key.owner)?;
        let entry = values.remove(&(key.kind, key.name.as_str()) as &dyn Place)?;
        if values.is_empty() {
            self.owners.remove(&key.owner);
        }
        self.order.remove(&entry.used);
        self.len -= 1;
        Some(entry)
    }

    /// Writes `data` at `key` with a new version, forgetting the least recently used value at
    /// the bound.
    fn put(&mut self, key: &StateKey, data: Data, expires: Instant, max: usize) -> Version {
        self.next_version += 1;
        let version = Version(self.next_version);
        self.tick += 1;
        let used = self.tick;
        let place = (key.kind, key.name.as_str());
        // A key written again keeps its place in the maps, with no copy of its names.
        if let Some(entry) = self.owners.get_mut(&key.owner).and_then(|values| values.get_mut(&place as &dyn Place)) {
            let last = std::mem::replace(entry, Entry { data, version, expires, used }).used;
            if let Some(key) = self.order.remove(&last) {
                self.order.insert(used, key);
            }
            return version;
        }
        while self.len >= max {
            let Some((_, oldest)) = self.order.pop_first() else { break };
            self.remove(&oldest);
        }
        self.order.insert(used, key.clone());
        if !self.owners.contains_key(&key.owner) {
            self.owners.insert(key.owner.clone(), HashMap::new());
        }
        if let Some(values) = self.owners.get_mut(&key.owner) {
            values.insert((key.kind, key.name.clone()), Entry { data, version, expires, used });
        }
        self.len += 1;
        version
    }

    fn version(&mut self, key: &StateKey, now: Instant) -> Option<Version> {
        self.live(key, now).map(|entry| entry.version)
    }
}

/// A value's place among its owner's: its kind and name, so that a lookup borrows the name of
/// the key it is given rather than copying it.
trait Place {
    fn place(&self) -> (&str, &str);
}

impl Place for (&'static str, String) {
    fn place(&self) -> (&str, &str) {
        (self.0, &self.1)
    }
}

impl Place for (&'static str, &str) {
    fn place(&self) -> (&str, &str) {
        (self.0, self.1)
    }
}

impl<'a> std::borrow::Borrow<dyn Place + 'a> for (&'static str, String) {
    fn borrow(&self) -> &(dyn Place + 'a) {
        self
    }
}

// Hashed and compared as the tuple of the owned key is: a `String` hashes as its `str`.
impl std::hash::Hash for dyn Place + '_ {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.place().hash(state);
    }
}

impl PartialEq for dyn Place + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.place() == other.place()
    }
}

impl Eq for dyn Place + '_ {}

fn ready<'a, T: Send + 'a>(value: T) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}

impl StateStore for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn read<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Versioned>> {
        let now = Instant::now();
        ready(self.with(|inner| match inner.live(key, now) {
            Some(Entry { data: Data::Bytes(value), version, .. }) => {
                Some(Versioned { value: value.clone(), version: *version })
            }
            Some(Entry { data: Data::Counter(value), version, .. }) => {
                Some(Versioned { value: value.to_string().into_bytes(), version: *version })
            }
            None => None,
        }))
    }

    fn write<'a>(&'a self, key: &'a StateKey, write: Write) -> StoreFuture<'a, Written> {
        let now = Instant::now();
        let max = self.max_keys;
        ready(self.with(|inner| {
            if let Some((fence, version)) = &write.fence
                && inner.version(fence, now) != Some(*version)
            {
                return Written::Fenced;
            }
            let found = inner.version(key, now);
            let matches = match write.expect {
                Expect::Any => true,
                Expect::Absent => found.is_none(),
                Expect::Version(version) => found == Some(version),
            };
            if !matches {
                return Written::Conflict(found);
            }
            Written::Done(inner.put(key, Data::Bytes(write.value), until(now, write.ttl), max))
        }))
    }

    fn delete<'a>(&'a self, key: &'a StateKey, expected: Option<Version>) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        ready(self.with(|inner| match (inner.version(key, now), expected) {
            (None, _) => false,
            (Some(found), Some(expected)) if found != expected => false,
            _ => inner.remove(key).is_some(),
        }))
    }

    fn touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        ready(self.with(|inner| match inner.live(key, now) {
            Some(entry) => {
                entry.expires = until(now, ttl);
                true
            }
            None => false,
        }))
    }

    fn take<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Vec<u8>>> {
        let now = Instant::now();
        ready(self.with(|inner| {
            inner.live(key, now)?;
            match inner.remove(key)?.data {
                Data::Bytes(value) => Some(value),
                Data::Counter(value) => Some(value.to_string().into_bytes()),
            }
        }))
    }

    fn count<'a>(&'a self, counters: &'a Counters) -> StoreFuture<'a, Counted> {
        ready(self.count_now(counters))
    }

    fn clear<'a>(&'a self, owner: &'a Owner, kind: Option<&'a str>) -> StoreFuture<'a, usize> {
        ready(self.with(|inner| {
            let keys: Vec<StateKey> = match inner.owners.get(owner) {
                None => Vec::new(),
                Some(values) => values
                    .keys()
                    .filter(|(k, _)| kind.is_none_or(|kind| *k == kind))
                    .map(|(kind, name)| owner.key(kind, name.clone()))
                    .collect(),
            };
            keys.iter().filter(|key| inner.remove(key).is_some()).count()
        }))
    }
}
