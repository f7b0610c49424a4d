//! The store in this process's memory: the default, for one process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use foldhash::fast::RandomState;
use tokio::time::Instant;

use super::key::Name;
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

/// The end of the list of use.
const NONE: usize = usize::MAX;

/// An owner's values are searched in a list while they are this few (a conversation's policy
/// values and states), and indexed by kind and name beyond, so that an owner of many values (the
/// tool-wide rate limits of a large catalog) costs no more per lookup.
const FEW: usize = 8;

#[derive(Debug)]
struct Inner {
    /// Where each owner's values are. Seeded at random: owners' ids come from clients (an MCP
    /// conversation header), and with a fixed seed a client could choose ids that collide.
    owners: HashMap<Owner, Values, RandomState>,
    /// The values, in places reused once freed, each linked to the values used just before and
    /// after it: a use moves one value to the front, with no search and no allocation.
    slots: Vec<Option<Entry>>,
    /// The places freed, for the next values.
    free: Vec<usize>,
    /// The most and the least recently used values.
    newest: usize,
    oldest: usize,
    next_version: u64,
    len: usize,
    /// The store's clock starts here: rate-limit cells hold microseconds since.
    base: Instant,
}

#[derive(Debug)]
struct Entry {
    owner: Owner,
    kind: &'static str,
    name: Name,
    data: Data,
    version: Version,
    expires: Instant,
    /// The value used just after this one (`NONE`: the newest), and just before.
    newer: usize,
    older: usize,
}

#[derive(Debug)]
enum Data {
    Bytes(Vec<u8>),
    Counter(i64),
}

/// The places of one owner's values.
#[derive(Debug)]
enum Values {
    Few(Vec<usize>),
    Many(HashMap<Place, usize, RandomState>),
}

/// A value's kind and name, among its owner's many.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Place {
    kind: &'static str,
    name: Name,
}

impl Place {
    fn of(key: &StateKey) -> Place {
        Place { kind: key.kind(), name: key.shared_name().clone() }
    }
}

impl Entry {
    fn is(&self, key: &StateKey) -> bool {
        self.kind == key.kind() && self.name.as_bytes() == key.name_bytes()
    }
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
            owners: HashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            newest: NONE,
            oldest: NONE,
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

impl Values {
    /// The place of the value at `key` among these, live or not.
    fn find(&self, key: &StateKey, slots: &[Option<Entry>]) -> Option<usize> {
        match self {
            Values::Few(places) => places
                .iter()
                .copied()
                .find(|&i| slots.get(i).and_then(Option::as_ref).is_some_and(|entry| entry.is(key))),
            Values::Many(places) => places.get(&Place::of(key)).copied(),
        }
    }

    /// Adds the value at place `i`, of `key`.
    fn insert(&mut self, i: usize, key: &StateKey, slots: &[Option<Entry>]) {
        match self {
            Values::Few(places) if places.len() < FEW => places.push(i),
            Values::Few(places) => {
                let mut many = HashMap::with_capacity_and_hasher(places.len() * 2, RandomState::default());
                for &j in places.iter() {
                    if let Some(Some(entry)) = slots.get(j) {
                        many.insert(Place { kind: entry.kind, name: entry.name.clone() }, j);
                    }
                }
                many.insert(Place::of(key), i);
                *self = Values::Many(many);
            }
            Values::Many(places) => {
                places.insert(Place::of(key), i);
            }
        }
    }

    /// Removes the value at place `i`, `entry`; whether none is left.
    fn remove(&mut self, i: usize, entry: &Entry) -> bool {
        match self {
            Values::Few(places) => {
                if let Some(at) = places.iter().position(|&j| j == i) {
                    places.swap_remove(at);
                }
                places.is_empty()
            }
            Values::Many(places) => {
                places.remove(&Place { kind: entry.kind, name: entry.name.clone() });
                places.is_empty()
            }
        }
    }

    /// The places of the values of kind `kind` (of every kind when `None`).
    fn of_kind(&self, kind: Option<&str>, slots: &[Option<Entry>]) -> Vec<usize> {
        let matches = |i: usize| {
            kind.is_none_or(|kind| slots.get(i).and_then(Option::as_ref).is_some_and(|entry| entry.kind == kind))
        };
        match self {
            Values::Few(places) => places.iter().copied().filter(|&i| matches(i)).collect(),
            Values::Many(places) => places.values().copied().filter(|&i| matches(i)).collect(),
        }
    }
}

impl Inner {
    /// The place of the value at `key`, live or not.
    fn find(&self, key: &StateKey) -> Option<usize> {
        self.owners.get(key.owner())?.find(key, &self.slots)
    }

    fn entry(&mut self, i: usize) -> Option<&mut Entry> {
        self.slots.get_mut(i).and_then(Option::as_mut)
    }

    /// The live entry at `key`, marked used; an expired one is forgotten.
    fn live(&mut self, key: &StateKey, now: Instant) -> Option<&mut Entry> {
        let i = self.find(key)?;
        if self.entry(i)?.expires <= now {
            self.remove_at(i);
            return None;
        }
        self.use_at(i);
        self.entry(i)
    }

    fn counter(&mut self, key: &StateKey, now: Instant) -> i64 {
        match self.live(key, now) {
            Some(Entry { data: Data::Counter(value), .. }) => *value,
            _ => 0,
        }
    }

    /// Makes the value at `i` the most recently used.
    fn use_at(&mut self, i: usize) {
        if self.newest != i {
            self.unlink(i);
            self.link_newest(i);
        }
    }

    fn unlink(&mut self, i: usize) {
        let Some(entry) = self.entry(i) else { return };
        let (newer, older) = (entry.newer, entry.older);
        match self.entry(newer) {
            Some(entry) => entry.older = older,
            None => self.newest = older,
        }
        match self.entry(older) {
            Some(entry) => entry.newer = newer,
            None => self.oldest = newer,
        }
    }

    fn link_newest(&mut self, i: usize) {
        let older = self.newest;
        let Some(entry) = self.entry(i) else { return };
        (entry.newer, entry.older) = (NONE, older);
        match self.entry(older) {
            Some(entry) => entry.newer = i,
            None => self.oldest = i,
        }
        self.newest = i;
    }

    fn remove(&mut self, key: &StateKey) -> Option<Entry> {
        let i = self.find(key)?;
        self.remove_at(i)
    }

    fn remove_at(&mut self, i: usize) -> Option<Entry> {
        self.unlink(i);
        let entry = self.slots.get_mut(i)?.take()?;
        if let Some(values) = self.owners.get_mut(&entry.owner)
            && values.remove(i, &entry)
        {
            self.owners.remove(&entry.owner);
        }
        self.free.push(i);
        self.len -= 1;
        Some(entry)
    }

    /// Writes `data` at `key` with a new version, forgetting the least recently used value at
    /// the bound.
    fn put(&mut self, key: &StateKey, data: Data, expires: Instant, max: usize) -> Version {
        self.next_version += 1;
        let version = Version(self.next_version);
        // A key written again keeps its place, with no copy of its names.
        if let Some(i) = self.find(key) {
            if let Some(entry) = self.entry(i) {
                (entry.data, entry.version, entry.expires) = (data, version, expires);
            }
            self.use_at(i);
            return version;
        }
        while self.len >= max {
            if self.remove_at(self.oldest).is_none() {
                break;
            }
        }
        let entry = Entry {
            owner: key.owner().clone(),
            kind: key.kind(),
            name: key.shared_name().clone(),
            data,
            version,
            expires,
            newer: NONE,
            older: NONE,
        };
        let i = match self.free.pop() {
            Some(i) if i < self.slots.len() => {
                self.slots[i] = Some(entry);
                i
            }
            _ => {
                self.slots.push(Some(entry));
                self.slots.len() - 1
            }
        };
        self.link_newest(i);
        match self.owners.get_mut(key.owner()) {
            Some(values) => values.insert(i, key, &self.slots),
            None => {
                self.owners.insert(key.owner().clone(), Values::Few(vec![i]));
            }
        }
        self.len += 1;
        version
    }

    fn version(&mut self, key: &StateKey, now: Instant) -> Option<Version> {
        self.live(key, now).map(|entry| entry.version)
    }
}

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
            let places = match inner.owners.get(owner) {
                None => Vec::new(),
                Some(values) => values.of_kind(kind, &inner.slots),
            };
            places.into_iter().filter(|&i| inner.remove_at(i).is_some()).count()
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Poll, Waker};

    use super::*;

    const LIFE: Duration = Duration::from_secs(60);

    /// The memory store's futures are ready when made.
    fn now<T>(mut future: StoreFuture<'_, T>) -> T {
        match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(result) => result.expect("the memory store never fails"),
            Poll::Pending => panic!("a memory store's future waited"),
        }
    }

    fn owner(conversation: &str) -> Owner {
        Owner::new(Some("p"), Some(conversation))
    }

    fn put(store: &MemoryStore, key: &StateKey, value: &str) {
        let written = now(store.write(key, Write::new(value.as_bytes().to_vec(), LIFE)));
        assert!(matches!(written, Written::Done(_)), "{written:?}");
    }

    fn get(store: &MemoryStore, key: &StateKey) -> Option<String> {
        now(store.read(key)).map(|found| String::from_utf8(found.value).expect("UTF-8 as written"))
    }

    /// Whether each key has a value, without using any (a read would make it recent).
    fn kept(store: &MemoryStore, keys: &[&StateKey]) -> Vec<bool> {
        store.with(|inner| keys.iter().map(|key| inner.find(key).is_some()).collect())
    }

    #[test]
    fn at_the_bound_the_least_recently_used_value_is_forgotten_whoever_owns_it() {
        let store = MemoryStore::with_max_keys(3);
        let (x, y, z) = (owner("x"), owner("y"), owner("z"));
        let (a, b, c, d) = (x.key("k", "a"), y.key("k", "b"), x.key("k", "c"), z.key("k", "d"));
        put(&store, &a, "a");
        put(&store, &b, "b");
        put(&store, &c, "c");
        assert_eq!(store.len(), 3);
        // `a` is the oldest value although its owner was used last: values are forgotten in the
        // order of their own use, not their owner's.
        put(&store, &d, "d");
        assert_eq!(kept(&store, &[&a, &b, &c, &d]), [false, true, true, true]);
        assert_eq!(store.len(), 3);
        // A read, a touch, a version check and a counter's read each make a value recent.
        assert_eq!(get(&store, &b).as_deref(), Some("b"));
        put(&store, &a, "a again");
        assert_eq!(kept(&store, &[&a, &b, &c, &d]), [true, true, false, true]);
        assert!(now(store.touch(&b, LIFE)));
        let deleted = now(store.delete(&d, Some(Version(u64::MAX))));
        assert!(!deleted, "a delete of another version deletes nothing, and uses the value");
        put(&store, &c, "c again");
        assert_eq!(kept(&store, &[&a, &b, &c, &d]), [false, true, true, true]);
        let counter = z.key("n", "count");
        let read = Counters { steps: vec![(b.clone(), Count::Read)], ttl: LIFE };
        assert_eq!(now(store.count(&read)).values, [0], "bytes read as a counter are 0");
        now(store.count(&Counters { steps: vec![(counter.clone(), Count::Add(5))], ttl: LIFE }));
        assert_eq!(kept(&store, &[&b, &c, &d, &counter]), [true, true, false, true]);
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn a_value_written_again_takes_no_more_room_and_a_removed_one_frees_its_place() {
        let store = MemoryStore::with_max_keys(2);
        let (a, b) = (owner("x").key("k", "a"), owner("x").key("k", "b"));
        put(&store, &a, "1");
        put(&store, &b, "1");
        for round in 2..10 {
            put(&store, &a, &round.to_string());
            put(&store, &b, &round.to_string());
        }
        assert_eq!((get(&store, &a).as_deref(), get(&store, &b).as_deref()), (Some("9"), Some("9")));
        assert_eq!(now(store.take(&a)).as_deref(), Some(&b"9"[..]));
        let c = owner("y").key("k", "c");
        put(&store, &c, "c");
        assert_eq!(kept(&store, &[&a, &b, &c]), [false, true, true]);
        assert!(now(store.delete(&b, None)));
        assert_eq!(now(store.clear(&owner("y"), None)), 1);
        assert!(store.is_empty());
    }

    #[test]
    fn a_bound_of_zero_keeps_one_value() {
        let store = MemoryStore::with_max_keys(0);
        let (a, b) = (owner("x").key("k", "a"), owner("x").key("k", "b"));
        put(&store, &a, "a");
        put(&store, &b, "b");
        assert_eq!((get(&store, &a), get(&store, &b).as_deref(), store.len()), (None, Some("b"), 1));
    }

    #[test]
    fn an_owner_of_many_values_finds_each_and_clears_them_by_kind() {
        let store = MemoryStore::new();
        let (x, y) = (owner("x"), owner("y"));
        for i in 0..100 {
            put(&store, &x.key(if i % 2 == 0 { "even" } else { "odd" }, format!("v{i}")), &i.to_string());
        }
        put(&store, &y.key("even", "v0"), "y's");
        assert_eq!(store.len(), 101);
        for i in 0..100 {
            let kind = if i % 2 == 0 { "even" } else { "odd" };
            assert_eq!(get(&store, &x.key(kind, format!("v{i}"))), Some(i.to_string()), "v{i}");
            assert_eq!(get(&store, &x.key(if i % 2 == 0 { "odd" } else { "even" }, format!("v{i}"))), None);
        }
        assert_eq!(now(store.take(&x.key("odd", "v99"))).as_deref(), Some(&b"99"[..]));
        assert_eq!(now(store.clear(&x, Some("odd"))), 49);
        assert_eq!(get(&store, &x.key("even", "v98")).as_deref(), Some("98"));
        assert_eq!(now(store.clear(&x, None)), 50);
        assert_eq!(get(&store, &y.key("even", "v0")).as_deref(), Some("y's"));
        assert_eq!(store.len(), 1);
        // Written again after the clear, from the first value on.
        put(&store, &x.key("odd", "v1"), "back");
        assert_eq!(get(&store, &x.key("odd", "v1")).as_deref(), Some("back"));
    }

    #[test]
    fn one_batch_may_name_a_key_twice_and_sees_its_own_steps() {
        let store = MemoryStore::new();
        let (x, y) = (owner("x"), owner("y"));
        let (a, b) = (x.key("n", "a"), y.key("n", "b"));
        let steps = vec![
            (a.clone(), Count::Add(2)),
            (b.clone(), Count::Add(1)),
            (a.clone(), Count::Add(3)),
            (a.clone(), Count::Reset),
            (a.clone(), Count::Read),
            (b.clone(), Count::Add(-4)),
            (a.clone(), Count::Add(1)),
        ];
        let counted = now(store.count(&Counters { steps, ttl: LIFE }));
        assert_eq!(counted, Counted { values: vec![2, 1, 5, 5, 0, -3, 1], refused: None });
        assert_eq!(store.len(), 2);
        let reset = vec![(a.clone(), Count::Reset), (b.clone(), Count::Reset), (b.clone(), Count::Reset)];
        assert_eq!(now(store.count(&Counters { steps: reset, ttl: LIFE })).values, [1, -3, 0]);
        assert!(store.is_empty());
    }

    #[test]
    fn an_expired_value_is_forgotten_when_met_and_frees_its_place() {
        let store = MemoryStore::with_max_keys(2);
        let (a, b, c) = (owner("x").key("k", "a"), owner("x").key("k", "b"), owner("y").key("k", "c"));
        now(store.write(&a, Write::new(b"a".to_vec(), Duration::ZERO)));
        put(&store, &b, "b");
        assert_eq!(store.len(), 2, "kept until met");
        assert_eq!(get(&store, &a), None);
        assert_eq!(store.len(), 1);
        put(&store, &c, "c");
        assert_eq!(kept(&store, &[&a, &b, &c]), [false, true, true]);
        let gone = Counters { steps: vec![(c.clone(), Count::Add(1))], ttl: Duration::ZERO };
        assert_eq!(now(store.count(&gone)).values, [1]);
        assert_eq!(now(store.count(&Counters { steps: vec![(c.clone(), Count::Read)], ttl: LIFE })).values, [0]);
        assert_eq!(store.len(), 1);
    }
}
