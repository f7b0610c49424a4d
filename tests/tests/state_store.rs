//! The state store's conformance: every check runs against `MemoryStore` and against a
//! `RedisStore` on a real `redis-server` of its own (`tool_tests::redis_server`), with the same
//! exact assertions, so that the two stores keep one semantics: compare-and-set, fenced writes,
//! deletes, touches, expiry, take-once under a race, counters and rate-limit cells, clearing by
//! owner and kind, owners kept apart, versions never given twice.
//!
//! Then what only Redis has: a server that stops, or is paused and answers nothing (every
//! operation `Unavailable` within the timeout, the URL's password in no text), and comes back
//! (the same store works again); a URL or prefix that cannot work; the keys as Redis holds them
//! (the prefix, the owner's hash tag, the index); values another program wrote (`Unreadable`,
//! never a panic).
//!
//! Without `redis-server` the Redis half of each check skips with one `SKIPPED` line.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tool_core::state::{
    Count, Counted, Counters, Expect, MemoryStore, Owner, RedisStore, SharedStore, StateError, StateKey, Version,
    Write, Written,
};
use tool_tests::redis_server::RedisServer;

/// Each check, against both stores: `name::in_memory` and `name::in_redis`.
macro_rules! conformance {
    ($($check:ident),* $(,)?) => {$(
        mod $check {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn in_memory() {
                super::$check(std::sync::Arc::new(super::MemoryStore::new())).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn in_redis() {
                let test = concat!("state_store::", stringify!($check), "::in_redis");
                let Some(server) = super::RedisServer::start(test) else { return };
                super::$check(super::redis(&server).await).await;
            }
        }
    )*};
}

conformance!(
    compare_and_set,
    fenced_writes,
    delete_with_an_expected_version,
    touch_gives_a_new_life,
    values_expire,
    take_once_under_a_race,
    counters_read_add_reset,
    admit_refuses_with_the_wait_and_changes_nothing,
    clear_by_owner_and_by_kind,
    owners_never_see_each_other,
    versions_are_never_given_twice,
    write_then_read_sees_the_write_only_when_done,
    write_then_delete_removes_the_expected_version_only_when_done,
    read_and_touch_reads_and_gives_a_new_life,
);

const LIFE: Duration = Duration::from_secs(60);

async fn redis(server: &RedisServer) -> SharedStore {
    Arc::new(RedisStore::builder(server.url()).connect().await.expect("the test's redis-server"))
}

fn alice() -> Owner {
    Owner::new(Some("alice"), Some("c1"))
}

fn write(value: &str) -> Write {
    Write::new(value.as_bytes().to_vec(), LIFE)
}

fn done(written: Written) -> Version {
    match written {
        Written::Done(version) => version,
        other => panic!("expected a write, got {other:?}"),
    }
}

async fn value(store: &SharedStore, key: &StateKey) -> Option<(String, Version)> {
    store
        .read(key)
        .await
        .unwrap()
        .map(|found| (String::from_utf8(found.value).expect("UTF-8 as written"), found.version))
}

async fn compare_and_set(store: SharedStore) {
    let key = alice().key("stateful", "Cart");
    assert_eq!(value(&store, &key).await, None);
    assert_eq!(
        store.write(&key, write("x").expect(Expect::Version(Version(7)))).await.unwrap(),
        Written::Conflict(None)
    );
    let first = done(store.write(&key, write("one").expect(Expect::Absent)).await.unwrap());
    assert_eq!(value(&store, &key).await, Some(("one".to_owned(), first)));
    assert_eq!(store.write(&key, write("x").expect(Expect::Absent)).await.unwrap(), Written::Conflict(Some(first)));
    let second = done(store.write(&key, write("two").expect(Expect::Version(first))).await.unwrap());
    assert_ne!(second, first);
    // A writer that read the first version lost the race: told the version it must read.
    assert_eq!(
        store.write(&key, write("stale").expect(Expect::Version(first))).await.unwrap(),
        Written::Conflict(Some(second))
    );
    assert_eq!(value(&store, &key).await, Some(("two".to_owned(), second)));
    let third = done(store.write(&key, write("three").expect(Expect::Any)).await.unwrap());
    assert!(third != first && third != second);
    assert_eq!(value(&store, &key).await, Some(("three".to_owned(), third)));
    // Bytes go back as they came, empty and not UTF-8 included.
    let raw = alice().key("stateful", "Raw");
    done(store.write(&raw, Write::new(vec![0, 255, 10, 13], LIFE)).await.unwrap());
    assert_eq!(store.read(&raw).await.unwrap().unwrap().value, vec![0, 255, 10, 13]);
    done(store.write(&raw, Write::new(Vec::new(), LIFE)).await.unwrap());
    assert_eq!(store.read(&raw).await.unwrap().unwrap().value, Vec::<u8>::new());
}

async fn fenced_writes(store: SharedStore) {
    let lease = alice().key("lease", "turn");
    let key = alice().key("stateful", "Cart");
    let held = done(store.write(&lease, write("replica-a")).await.unwrap());
    let kept = done(store.write(&key, write("a1").fenced_by(lease.clone(), held)).await.unwrap());
    // The lease passes to another holder: the first can no longer write through it.
    let taken = done(store.write(&lease, write("replica-b")).await.unwrap());
    assert_eq!(store.write(&key, write("a2").fenced_by(lease.clone(), held)).await.unwrap(), Written::Fenced);
    // Fenced comes before the key's own check, and nothing was written.
    assert_eq!(
        store
            .write(&key, write("a2").expect(Expect::Version(Version(1))).fenced_by(lease.clone(), held))
            .await
            .unwrap(),
        Written::Fenced
    );
    assert_eq!(value(&store, &key).await, Some(("a1".to_owned(), kept)));
    let by_b = done(
        store.write(&key, write("b1").expect(Expect::Version(kept)).fenced_by(lease.clone(), taken)).await.unwrap(),
    );
    assert_eq!(value(&store, &key).await, Some(("b1".to_owned(), by_b)));
    // A lease that is gone fences every write.
    assert!(store.delete(&lease, None).await.unwrap());
    assert_eq!(store.write(&key, write("b2").fenced_by(lease.clone(), taken)).await.unwrap(), Written::Fenced);
    assert_eq!(value(&store, &key).await, Some(("b1".to_owned(), by_b)));
}

async fn delete_with_an_expected_version(store: SharedStore) {
    let key = alice().key("pending", "p1");
    assert!(!store.delete(&key, None).await.unwrap());
    let version = done(store.write(&key, write("call")).await.unwrap());
    let other = Version(version.0.wrapping_add(1));
    assert!(!store.delete(&key, Some(other)).await.unwrap());
    assert_eq!(value(&store, &key).await, Some(("call".to_owned(), version)));
    assert!(store.delete(&key, Some(version)).await.unwrap());
    assert_eq!(value(&store, &key).await, None);
    assert!(!store.delete(&key, Some(version)).await.unwrap());
    done(store.write(&key, write("again")).await.unwrap());
    assert!(store.delete(&key, None).await.unwrap());
    assert_eq!(value(&store, &key).await, None);
}

async fn touch_gives_a_new_life(store: SharedStore) {
    let key = alice().key("lease", "turn");
    assert!(!store.touch(&key, LIFE).await.unwrap());
    let version = done(store.write(&key, Write::new(b"held".to_vec(), Duration::from_secs(1))).await.unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(store.touch(&key, Duration::from_secs(5)).await.unwrap());
    // Past the first life: the touch kept it, at the same version.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(value(&store, &key).await, Some(("held".to_owned(), version)));
    assert!(store.touch(&key, Duration::from_millis(100)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(value(&store, &key).await, None);
    assert!(!store.touch(&key, LIFE).await.unwrap());
}

async fn values_expire(store: SharedStore) {
    let short = Duration::from_millis(600);
    let key = alice().key("pending", "p1");
    let counter = alice().key("budget", "tool");
    done(store.write(&key, Write::new(b"call".to_vec(), short)).await.unwrap());
    let counted = store.count(&Counters { steps: vec![(counter.clone(), Count::Add(3))], ttl: short }).await.unwrap();
    assert_eq!(counted, Counted { values: vec![3], refused: None });
    assert!(value(&store, &key).await.is_some());
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(value(&store, &key).await, None);
    assert_eq!(store.take(&key).await.unwrap(), None);
    let read = store.count(&Counters { steps: vec![(counter.clone(), Count::Read)], ttl: short }).await.unwrap();
    assert_eq!(read.values, vec![0]);
    // An expired value is absent to a compare-and-set too.
    done(store.write(&key, write("new").expect(Expect::Absent)).await.unwrap());
}

async fn take_once_under_a_race(store: SharedStore) {
    for round in 0..5 {
        let key = alice().key("pending", format!("call-{round}"));
        done(store.write(&key, write(&format!("arguments {round}"))).await.unwrap());
        let takers: Vec<_> = (0..32)
            .map(|_| {
                let store = store.clone();
                let key = key.clone();
                tokio::spawn(async move { store.take(&key).await.unwrap() })
            })
            .collect();
        let mut got = Vec::new();
        for taker in takers {
            if let Some(bytes) = taker.await.unwrap() {
                got.push(bytes);
            }
        }
        assert_eq!(got, vec![format!("arguments {round}").into_bytes()], "round {round}: exactly one taker");
        assert_eq!(value(&store, &key).await, None);
    }
}

async fn counters_read_add_reset(store: SharedStore) {
    let a = alice().key("budget", "a");
    let b = alice().key("budget", "b");
    let count = |steps: Vec<(StateKey, Count)>| {
        let store = store.clone();
        async move { store.count(&Counters { steps, ttl: LIFE }).await.unwrap() }
    };
    assert_eq!(count(vec![(a.clone(), Count::Read)]).await, Counted { values: vec![0], refused: None });
    assert_eq!(count(vec![(a.clone(), Count::Add(5))]).await.values, vec![5]);
    assert_eq!(count(vec![(a.clone(), Count::Add(-2))]).await.values, vec![3]);
    // In order, in one batch: each step sees the steps before it.
    let batch = vec![
        (a.clone(), Count::Add(1)),
        (a.clone(), Count::Read),
        (b.clone(), Count::Add(10)),
        (a.clone(), Count::Add(1)),
    ];
    assert_eq!(count(batch).await, Counted { values: vec![4, 4, 10, 5], refused: None });
    // A counter reads as its decimal value, with a version that changes at each write.
    let before = store.read(&b).await.unwrap().unwrap();
    assert_eq!(before.value, b"10");
    assert_eq!(count(vec![(b.clone(), Count::Add(0))]).await.values, vec![10]);
    assert_ne!(store.read(&b).await.unwrap().unwrap().version, before.version);
    assert_eq!(count(vec![(a.clone(), Count::Reset), (a.clone(), Count::Read)]).await.values, vec![5, 0]);
    assert_eq!(store.read(&a).await.unwrap(), None);
    assert_eq!(count(vec![(a.clone(), Count::Reset)]).await.values, vec![0]);
    // Saturating at the ends of 64 bits, exactly.
    assert_eq!(
        count(vec![(a.clone(), Count::Add(i64::MAX - 1)), (a.clone(), Count::Add(1))]).await.values,
        vec![i64::MAX - 1, i64::MAX]
    );
    assert_eq!(count(vec![(a.clone(), Count::Add(5))]).await.values, vec![i64::MAX]);
    assert_eq!(
        count(vec![(a.clone(), Count::Reset), (a.clone(), Count::Add(i64::MIN)), (a.clone(), Count::Add(-1))])
            .await
            .values,
        vec![i64::MAX, i64::MIN, i64::MIN]
    );
    // Bytes count as 0, and an added counter replaces them.
    let bytes = alice().key("budget", "bytes");
    done(store.write(&bytes, write("not a number")).await.unwrap());
    assert_eq!(count(vec![(bytes.clone(), Count::Read), (bytes.clone(), Count::Add(2))]).await.values, vec![0, 2]);
    assert_eq!(store.read(&bytes).await.unwrap().unwrap().value, b"2");
    assert_eq!(store.count(&Counters::default()).await.unwrap(), Counted::default());
    // A life of thousands of years is taken as given, by counters, cells, writes and touches.
    let long = Duration::from_secs(100_000_000_000);
    let cell = Count::Admit { interval: Duration::from_secs(1), tolerance: Duration::ZERO };
    let steps = vec![(alice().key("budget", "long"), Count::Add(1)), (alice().key("rate", "long"), cell)];
    assert_eq!(
        store.count(&Counters { steps, ttl: long }).await.unwrap(),
        Counted { values: vec![1, 0], refused: None }
    );
    done(store.write(&alice().key("stateful", "long"), Write::new(b"x".to_vec(), long)).await.unwrap());
    assert!(store.touch(&alice().key("stateful", "long"), long).await.unwrap());
    // `Duration::MAX`, a host's "forever", is a life like any other: no overflow, no panic.
    let forever = alice().key("stateful", "forever");
    done(store.write(&forever, Write::new(b"y".to_vec(), Duration::MAX)).await.unwrap());
    assert!(store.touch(&forever, Duration::MAX).await.unwrap());
    let steps = vec![(alice().key("budget", "forever"), Count::Add(1))];
    assert_eq!(store.count(&Counters { steps, ttl: Duration::MAX }).await.unwrap().values, vec![1]);
    assert_eq!(store.read(&forever).await.unwrap().unwrap().value, b"y");
}

async fn admit_refuses_with_the_wait_and_changes_nothing(store: SharedStore) {
    // Two calls per 20 seconds: one per 10 s, with one call's worth of tolerance ahead.
    let admit = Count::Admit { interval: Duration::from_secs(10), tolerance: Duration::from_secs(10) };
    let cell = alice().key("rate", "search");
    let spent = alice().key("budget", "search");
    let fresh = alice().key("rate", "fresh");
    let batch = |steps: Vec<(StateKey, Count)>| {
        let store = store.clone();
        async move { store.count(&Counters { steps, ttl: LIFE }).await.unwrap() }
    };
    let started = Instant::now();
    for _ in 0..2 {
        let counted = batch(vec![(spent.clone(), Count::Add(1)), (cell.clone(), admit.clone())]).await;
        assert_eq!(counted.refused, None);
        assert_eq!(counted.values[1], 0);
    }
    let cell_before = store.read(&cell).await.unwrap().unwrap();
    // The third is refused at the cell's index, with the time until the first place frees.
    let refused =
        batch(vec![(spent.clone(), Count::Add(1)), (fresh.clone(), admit.clone()), (cell.clone(), admit.clone())])
            .await;
    let elapsed = started.elapsed();
    let Some((index, wait)) = refused.refused else { panic!("the third call in the window was admitted: {refused:?}") };
    assert_eq!(index, 2);
    assert!(refused.values.is_empty());
    assert!(wait <= Duration::from_secs(10), "{wait:?}");
    assert!(wait >= Duration::from_secs(10) - elapsed - Duration::from_millis(50), "{wait:?} after {elapsed:?}");
    // Nothing of the batch happened: not the counter, not the fresh cell, not the full one.
    assert_eq!(batch(vec![(spent.clone(), Count::Read)]).await.values, vec![2]);
    assert_eq!(store.read(&fresh).await.unwrap(), None);
    assert_eq!(store.read(&cell).await.unwrap().unwrap(), cell_before);
    // A cell with room admits within the same batch as a read of the full one.
    let counted = batch(vec![(fresh.clone(), admit.clone()), (cell.clone(), Count::Read)]).await;
    assert_eq!(counted.refused, None);
    assert_eq!(counted.values[0], 0);
    // A cell is a counter whose value is the time its next place frees, on the store's clock.
    assert!(counted.values[1] > 0);
    // A limit of zero tolerance refuses the second call for about one interval.
    let interval = Duration::from_secs(1);
    let strict = Count::Admit { interval, tolerance: Duration::ZERO };
    let tight = alice().key("rate", "tight");
    let started = Instant::now();
    assert_eq!(batch(vec![(tight.clone(), strict.clone())]).await.refused, None);
    let (index, wait) = batch(vec![(tight.clone(), strict.clone())]).await.refused.expect("refused at once");
    let elapsed = started.elapsed();
    assert_eq!(index, 0);
    assert!(wait <= interval && wait + elapsed + Duration::from_millis(1) >= interval, "{wait:?} after {elapsed:?}");
    tokio::time::sleep(wait + Duration::from_millis(20)).await;
    assert_eq!(batch(vec![(tight.clone(), strict.clone())]).await.refused, None);
}

async fn clear_by_owner_and_by_kind(store: SharedStore) {
    let bob = Owner::new(Some("bob"), Some("c1"));
    for (kind, name) in [("lease", "turn"), ("lease", "other"), ("pending", "p1"), ("a", "b:x"), ("a:b", "x")] {
        done(store.write(&alice().key(kind, name), write("alice's")).await.unwrap());
        done(store.write(&bob.key(kind, name), write("bob's")).await.unwrap());
    }
    let counted = store.count(&Counters { steps: vec![(alice().key("rate", "r"), Count::Add(1))], ttl: LIFE }).await;
    assert_eq!(counted.unwrap().values, vec![1]);
    assert_eq!(store.clear(&alice(), Some("lease")).await.unwrap(), 2);
    assert_eq!(value(&store, &alice().key("lease", "turn")).await, None);
    assert!(value(&store, &alice().key("pending", "p1")).await.is_some());
    // A kind is matched whole: `a` is not the start of `a:b`, whatever the names hold.
    assert_eq!(store.clear(&alice(), Some("a")).await.unwrap(), 1);
    assert_eq!(value(&store, &alice().key("a", "b:x")).await, None);
    assert_eq!(value(&store, &alice().key("a:b", "x")).await.map(|(v, _)| v), Some("alice's".to_owned()));
    assert_eq!(store.clear(&alice(), Some("nothing")).await.unwrap(), 0);
    // The rest of alice's values: the pending call, the other kind, the counter.
    assert_eq!(store.clear(&alice(), None).await.unwrap(), 3);
    assert_eq!(store.read(&alice().key("rate", "r")).await.unwrap(), None);
    assert_eq!(store.clear(&alice(), None).await.unwrap(), 0);
    // Bob's are all there.
    for (kind, name) in [("lease", "turn"), ("lease", "other"), ("pending", "p1"), ("a", "b:x"), ("a:b", "x")] {
        assert_eq!(value(&store, &bob.key(kind, name)).await.map(|(v, _)| v), Some("bob's".to_owned()));
    }
    assert_eq!(store.clear(&bob, None).await.unwrap(), 5);
    // What is taken or deleted is no longer counted.
    done(store.write(&alice().key("pending", "p2"), write("x")).await.unwrap());
    done(store.write(&alice().key("pending", "p3"), write("y")).await.unwrap());
    assert!(store.take(&alice().key("pending", "p2")).await.unwrap().is_some());
    assert_eq!(store.clear(&alice(), Some("pending")).await.unwrap(), 1);
}

async fn owners_never_see_each_other(store: SharedStore) {
    // The same conversation id, three principals (none is one of them).
    let owners = [alice(), Owner::new(Some("bob"), Some("c1")), Owner::new(None, Some("c1")), Owner::everyone()];
    for (i, owner) in owners.iter().enumerate() {
        done(
            store
                .write(&owner.key("stateful", "Cart"), write(&format!("cart {i}")).expect(Expect::Absent))
                .await
                .unwrap(),
        );
        let add = Counters { steps: vec![(owner.key("budget", "t"), Count::Add(i as i64 + 1))], ttl: LIFE };
        assert_eq!(store.count(&add).await.unwrap().values, vec![i as i64 + 1]);
    }
    for (i, owner) in owners.iter().enumerate() {
        assert_eq!(value(&store, &owner.key("stateful", "Cart")).await.map(|(v, _)| v), Some(format!("cart {i}")));
        let read = Counters { steps: vec![(owner.key("budget", "t"), Count::Read)], ttl: LIFE };
        assert_eq!(store.count(&read).await.unwrap().values, vec![i as i64 + 1]);
    }
    assert_eq!(store.take(&owners[1].key("stateful", "Cart")).await.unwrap(), Some(b"cart 1".to_vec()));
    assert_eq!(store.clear(&owners[0], None).await.unwrap(), 2);
    assert_eq!(value(&store, &owners[0].key("stateful", "Cart")).await, None);
    assert_eq!(value(&store, &owners[1].key("stateful", "Cart")).await, None);
    assert_eq!(value(&store, &owners[2].key("stateful", "Cart")).await.map(|(v, _)| v), Some("cart 2".to_owned()));
    assert_eq!(value(&store, &owners[3].key("stateful", "Cart")).await.map(|(v, _)| v), Some("cart 3".to_owned()));
}

async fn versions_are_never_given_twice(store: SharedStore) {
    let key = alice().key("stateful", "Cart");
    let mut seen = HashSet::new();
    let mut last = None;
    for round in 0..50 {
        let version = done(store.write(&key, write("same bytes")).await.unwrap());
        assert!(seen.insert(version), "round {round}: {version} given again");
        assert!(store.delete(&key, Some(version)).await.unwrap());
        last = Some(version);
    }
    // The value written back after a delete is not the one a writer read before it.
    let old = last.unwrap();
    let new = done(store.write(&key, write("same bytes")).await.unwrap());
    assert!(!seen.contains(&new));
    assert_eq!(
        store.write(&key, write("lost update").expect(Expect::Version(old))).await.unwrap(),
        Written::Conflict(Some(new))
    );
    assert!(!store.delete(&key, Some(old)).await.unwrap());
}

/// A lease taken and the state it guards read in one operation: the read only when the write
/// was done, and as it stands after the write.
async fn write_then_read_sees_the_write_only_when_done(store: SharedStore) {
    let lease = alice().key("lease", "Cart");
    let key = alice().key("stateful", "Cart");
    // Taken, with no state yet.
    let (written, found) = store.write_then_read(&lease, write("a").expect(Expect::Absent), &key).await.unwrap();
    let held = done(written);
    assert_eq!(found, None);
    assert_eq!(value(&store, &lease).await, Some(("a".to_owned(), held)));
    let state = done(store.write(&key, write("s1")).await.unwrap());
    // Held by another: nothing written, nothing read.
    assert_eq!(
        store.write_then_read(&lease, write("b").expect(Expect::Absent), &key).await.unwrap(),
        (Written::Conflict(Some(held)), None)
    );
    assert_eq!(value(&store, &lease).await, Some(("a".to_owned(), held)));
    // Released, then taken with the state.
    assert!(store.delete(&lease, Some(held)).await.unwrap());
    let (written, found) = store.write_then_read(&lease, write("b").expect(Expect::Absent), &key).await.unwrap();
    let taken = done(written);
    assert_ne!(taken, held);
    let found = found.expect("the state written before");
    assert_eq!((found.value.as_slice(), found.version), (&b"s1"[..], state));
    // Fenced: nothing written, nothing read.
    assert_eq!(
        store.write_then_read(&key, write("s2").fenced_by(lease.clone(), held), &key).await.unwrap(),
        (Written::Fenced, None)
    );
    assert_eq!(value(&store, &key).await, Some(("s1".to_owned(), state)));
    // The read sees the write when it is of the written key.
    let (written, found) = store
        .write_then_read(&key, write("s2").expect(Expect::Version(state)).fenced_by(lease.clone(), taken), &key)
        .await
        .unwrap();
    let second = done(written);
    let found = found.expect("the value just written");
    assert_eq!((found.value.as_slice(), found.version), (&b"s2"[..], second));
    assert_eq!(value(&store, &key).await, Some(("s2".to_owned(), second)));
}

/// A state committed and its lease given up in one operation: the lease removed only when the
/// write was done, and only at the version given.
async fn write_then_delete_removes_the_expected_version_only_when_done(store: SharedStore) {
    let lease = alice().key("lease", "Cart");
    let key = alice().key("stateful", "Cart");
    let held = done(store.write(&lease, write("a").expect(Expect::Absent)).await.unwrap());
    let first = done(store.write(&key, write("s1")).await.unwrap());
    // A conflict: nothing written, the lease kept.
    assert_eq!(
        store
            .write_then_delete(&key, write("x").expect(Expect::Absent).fenced_by(lease.clone(), held), &lease, held)
            .await
            .unwrap(),
        Written::Conflict(Some(first))
    );
    assert_eq!(value(&store, &key).await, Some(("s1".to_owned(), first)));
    assert_eq!(value(&store, &lease).await, Some(("a".to_owned(), held)));
    // Fenced (the lease is another's version): nothing written, the lease kept.
    let other = Version(held.0.wrapping_add(1));
    assert_eq!(
        store.write_then_delete(&key, write("x").fenced_by(lease.clone(), other), &lease, other).await.unwrap(),
        Written::Fenced
    );
    assert_eq!(value(&store, &key).await, Some(("s1".to_owned(), first)));
    assert_eq!(value(&store, &lease).await, Some(("a".to_owned(), held)));
    // Done, but the lease has another version than the one to remove: written, the lease kept.
    let second =
        done(store.write_then_delete(&key, write("s2").expect(Expect::Version(first)), &lease, other).await.unwrap());
    assert_eq!(value(&store, &key).await, Some(("s2".to_owned(), second)));
    assert_eq!(value(&store, &lease).await, Some(("a".to_owned(), held)));
    // Done, fenced by the lease it removes.
    let third = done(
        store
            .write_then_delete(
                &key,
                write("s3").expect(Expect::Version(second)).fenced_by(lease.clone(), held),
                &lease,
                held,
            )
            .await
            .unwrap(),
    );
    assert_eq!(value(&store, &key).await, Some(("s3".to_owned(), third)));
    assert_eq!(value(&store, &lease).await, None);
    // The lease is free again, and gone from the owner's keys.
    done(store.write(&lease, write("b").expect(Expect::Absent)).await.unwrap());
    assert_eq!(store.clear(&alice(), Some("lease")).await.unwrap(), 1);
}

/// A `&self` call's read: the value and its version, then a new life.
async fn read_and_touch_reads_and_gives_a_new_life(store: SharedStore) {
    let key = alice().key("stateful", "Cart");
    assert_eq!(store.read_and_touch(&key, LIFE).await.unwrap(), None);
    assert_eq!(value(&store, &key).await, None);
    let version = done(store.write(&key, Write::new(b"s".to_vec(), Duration::from_secs(1))).await.unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let found = store.read_and_touch(&key, Duration::from_secs(5)).await.unwrap().expect("the value written");
    assert_eq!((found.value.as_slice(), found.version), (&b"s"[..], version));
    // Past the first life: the touch kept it, at the same version.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(value(&store, &key).await, Some(("s".to_owned(), version)));
    assert!(store.read_and_touch(&key, Duration::from_millis(100)).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(store.read_and_touch(&key, LIFE).await.unwrap(), None);
}

/// What an operation gave, its success as text: one type for the checks of every operation.
fn shown<T: std::fmt::Debug>(result: Result<T, StateError>) -> Result<String, StateError> {
    result.map(|found| format!("{found:?}"))
}

/// Every operation of `store` fails with `Unavailable` within `timeout` and a second, and
/// `secret` is in none of their texts.
async fn every_operation_is_unavailable(store: &SharedStore, timeout: Duration, when: &str, secret: &str) {
    let key = alice().key("pending", "p1");
    let counters = Counters { steps: vec![(alice().key("budget", "t"), Count::Add(1))], ttl: LIFE };
    let mut texts = Vec::new();
    macro_rules! unavailable {
        ($op:expr) => {{
            let started = Instant::now();
            let result = shown($op.await);
            let elapsed = started.elapsed();
            let op = stringify!($op);
            match &result {
                Err(error @ StateError::Unavailable { store: "redis", .. }) => texts.push(format!("{error} {error:?}")),
                other => panic!("{when}: {op} gave {other:?}"),
            }
            assert!(elapsed < timeout + Duration::from_secs(1), "{when}: {op} took {elapsed:?}");
        }};
    }
    unavailable!(store.read(&key));
    unavailable!(store.write(&key, write("during")));
    unavailable!(store.delete(&key, None));
    unavailable!(store.touch(&key, LIFE));
    unavailable!(store.take(&key));
    unavailable!(store.count(&counters));
    unavailable!(store.clear(&alice(), None));
    let lease = alice().key("lease", "p1");
    unavailable!(store.write_then_read(&lease, write("during"), &key));
    unavailable!(store.write_then_delete(&key, write("during"), &lease, Version(1)));
    unavailable!(store.read_and_touch(&key, LIFE));
    for text in &texts {
        assert!(!text.contains(secret), "{when}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_stopped_fails_closed_without_the_password_then_recovers() {
    const PASSWORD: &str = "hunter2-Sw0rdf1sh";
    let test = "state_store::redis_stopped_fails_closed_without_the_password_then_recovers";
    let Some(mut server) = RedisServer::start_with(test, &["--requirepass", PASSWORD]) else { return };
    let url = format!("redis://:{PASSWORD}@127.0.0.1:{}", server.port());
    let timeout = Duration::from_millis(800);

    // A wrong password is refused, and neither password is told.
    let wrong = RedisStore::builder(format!("redis://:not-{PASSWORD}@127.0.0.1:{}", server.port()))
        .timeout(timeout)
        .connect()
        .await;
    let error = wrong.expect_err("a wrong password");
    assert!(matches!(error, StateError::Unavailable { store: "redis", .. }), "{error:?}");
    assert!(!format!("{error} {error:?}").contains(PASSWORD), "{error:?}");

    let store = RedisStore::builder(url.as_str()).timeout(timeout).connect().await.expect("the right password");
    let shown = format!("{store:?}");
    assert!(!shown.contains(PASSWORD), "{shown}");
    assert!(shown.contains(&format!("redis://:***@127.0.0.1:{}", server.port())), "{shown}");
    let builder = format!("{:?}", RedisStore::builder(url.as_str()));
    assert!(!builder.contains(PASSWORD) && builder.contains(":***@"), "{builder}");
    let store: SharedStore = Arc::new(store);
    let key = alice().key("pending", "p1");
    done(store.write(&key, write("before")).await.unwrap());

    server.stop();
    for round in 0..2 {
        every_operation_is_unavailable(&store, timeout, &format!("stopped, round {round}"), PASSWORD).await;
    }
    // It says what it is, to whoever reads the record.
    let error = store.read(&key).await.unwrap_err();
    assert_eq!(error.code(), "state_unavailable");
    assert!(error.to_string().starts_with("the redis state store is unavailable: "), "{error}");

    // Back (empty, as it keeps nothing): the same store works again.
    server.start_again();
    let started = Instant::now();
    let version = loop {
        match store.write(&key, write("after").expect(Expect::Absent)).await {
            Ok(written) => break done(written),
            Err(error) => {
                assert!(started.elapsed() < Duration::from_secs(15), "not back after 15 s: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    assert_eq!(value(&store, &key).await, Some(("after".to_owned(), version)));
    assert!(store.touch(&key, LIFE).await.unwrap());
    let counters = Counters { steps: vec![(alice().key("budget", "t"), Count::Add(1))], ttl: LIFE };
    assert_eq!(store.count(&counters).await.unwrap().values, vec![1]);
    assert_eq!(store.take(&key).await.unwrap(), Some(b"after".to_vec()));
    assert_eq!(store.clear(&alice(), None).await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_that_stops_answering_is_unavailable_within_the_timeout_then_answers_again() {
    let test = "state_store::redis_that_stops_answering_is_unavailable_within_the_timeout_then_answers_again";
    let Some(server) = RedisServer::start(test) else { return };
    let timeout = Duration::from_millis(500);
    let store: SharedStore = Arc::new(RedisStore::builder(server.url()).timeout(timeout).connect().await.unwrap());
    let key = alice().key("pending", "p1");
    done(store.write(&key, write("kept")).await.unwrap());
    let pid = rustix::process::Pid::from_raw(server.pid().unwrap() as i32).unwrap();
    // Paused, it keeps its connections and accepts new ones, and answers nothing.
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();
    let started = Instant::now();
    let late = store.read(&key).await;
    let elapsed = started.elapsed();
    assert!(matches!(late, Err(StateError::Unavailable { .. })), "{late:?}");
    assert!(elapsed >= timeout && elapsed < timeout + Duration::from_secs(1), "{elapsed:?}");
    every_operation_is_unavailable(&store, timeout, "paused", "no secret here").await;
    rustix::process::kill_process(pid, rustix::process::Signal::CONT).unwrap();
    // Going on, it runs what it was sent meanwhile (an operation that timed out may have
    // happened): then the same store works again.
    let started = Instant::now();
    let version = loop {
        match store.write(&key, write("after")).await {
            Ok(written) => break done(written),
            Err(error) => {
                assert!(started.elapsed() < Duration::from_secs(15), "not back after 15 s: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    assert_eq!(value(&store, &key).await, Some(("after".to_owned(), version)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_keys_carry_the_prefix_and_the_owners_hash_tag() {
    let Some(server) = RedisServer::start("state_store::redis_keys_carry_the_prefix_and_the_owners_hash_tag") else {
        return;
    };
    let store = RedisStore::builder(server.url()).prefix("conformance").connect().await.unwrap();
    assert_eq!(tool_core::state::StateStore::kind(&store), "redis");
    assert!(tool_core::state::StateStore::is_shared(&store));
    let store: SharedStore = Arc::new(store);
    // A name with braces cannot move the hash tag: the first {...} is the owner's.
    done(store.write(&alice().key("stateful", "Cart{x}"), write("cart")).await.unwrap());
    store.count(&Counters { steps: vec![(alice().key("rate", "t"), Count::Add(1))], ttl: LIFE }).await.unwrap();
    let tag = alice().tag();

    let client = redis::Client::open(server.url()).unwrap();
    let mut raw = client.get_multiplexed_async_connection().await.unwrap();
    let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query_async(&mut raw).await.unwrap();
    keys.sort();
    let expected = [
        format!("conformance:{{{tag}}}#index"),
        format!("conformance:{{{tag}}}:rate:t"),
        format!("conformance:{{{tag}}}:stateful:Cart{{x}}"),
    ];
    assert_eq!(keys, expected);
    let cart = &expected[2];
    let data: Vec<u8> = redis::cmd("HGET").arg(cart).arg("d").query_async(&mut raw).await.unwrap();
    assert_eq!(data, b"cart");
    let version: String = redis::cmd("HGET").arg(cart).arg("v").query_async(&mut raw).await.unwrap();
    assert_eq!(
        Version(version.parse().unwrap()),
        store.read(&alice().key("stateful", "Cart{x}")).await.unwrap().unwrap().version
    );
    let members: HashSet<String> = redis::cmd("SMEMBERS").arg(&expected[0]).query_async(&mut raw).await.unwrap();
    assert_eq!(members, HashSet::from([expected[1].clone(), expected[2].clone()]));
    // Everything expires: the values with their time to live, the index with the longest.
    for key in &expected {
        let left: i64 = redis::cmd("PTTL").arg(key).query_async(&mut raw).await.unwrap();
        assert!(left > 50_000 && left <= 60_000, "{key}: {left} ms");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_values_it_did_not_write_are_unreadable_and_left_alone() {
    let Some(server) = RedisServer::start("state_store::redis_values_it_did_not_write_are_unreadable_and_left_alone")
    else {
        return;
    };
    let store: SharedStore = Arc::new(RedisStore::builder(server.url()).prefix("p").connect().await.unwrap());
    let client = redis::Client::open(server.url()).unwrap();
    let mut raw = client.get_multiplexed_async_connection().await.unwrap();
    let tag = alice().tag();
    let string = alice().key("stateful", "String");
    let no_version = alice().key("stateful", "Hash");
    let not_a_number = alice().key("budget", "n");
    let () = redis::pipe()
        .cmd("SET")
        .arg(format!("p:{{{tag}}}:stateful:String"))
        .arg("by another program")
        .ignore()
        .cmd("HSET")
        .arg(format!("p:{{{tag}}}:stateful:Hash"))
        .arg(&["d", "x"][..])
        .ignore()
        .cmd("HSET")
        .arg(format!("p:{{{tag}}}:budget:n"))
        .arg(&["v", "1", "n", "ten"][..])
        .ignore()
        .query_async(&mut raw)
        .await
        .unwrap();

    let unreadable = |result: Result<String, StateError>, key: &StateKey, why: &str| match result {
        Err(StateError::Unreadable { store: "redis", key: found, reason }) => {
            assert_eq!(found, key.to_string());
            assert_eq!(reason, why);
        }
        other => panic!("{key}: expected unreadable, got {other:?}"),
    };
    unreadable(shown(store.read(&string).await), &string, "a string, not a hash");
    unreadable(shown(store.write(&string, write("x")).await), &string, "a string, not a hash");
    unreadable(shown(store.take(&string).await), &string, "a string, not a hash");
    unreadable(shown(store.delete(&string, None).await), &string, "a string, not a hash");
    unreadable(shown(store.touch(&string, LIFE).await), &string, "a string, not a hash");
    unreadable(shown(store.read(&no_version).await), &no_version, "a hash without a version");
    unreadable(shown(store.read_and_touch(&string, LIFE).await), &string, "a string, not a hash");
    // A lease is not taken over a state that does not read, nor a state written beside a
    // lease that does not read.
    let lease = alice().key("lease", "String");
    unreadable(
        shown(store.write_then_read(&lease, write("l").expect(Expect::Absent), &string).await),
        &string,
        "a string, not a hash",
    );
    assert_eq!(store.read(&lease).await.unwrap(), None);
    let state = alice().key("stateful", "Fine");
    unreadable(
        shown(store.write_then_delete(&state, write("s"), &string, Version(1)).await),
        &string,
        "a string, not a hash",
    );
    assert_eq!(store.read(&state).await.unwrap(), None);
    let ok = alice().key("budget", "ok");
    let counters =
        Counters { steps: vec![(ok.clone(), Count::Add(1)), (not_a_number.clone(), Count::Read)], ttl: LIFE };
    unreadable(shown(store.count(&counters).await), &not_a_number, "a counter that is not an integer");
    // Nothing of that batch was written, and what was there is as it was.
    assert_eq!(store.read(&ok).await.unwrap(), None);
    let kept: String =
        redis::cmd("GET").arg(format!("p:{{{tag}}}:stateful:String")).query_async(&mut raw).await.unwrap();
    assert_eq!(kept, "by another program");
    let error = store.read(&string).await.unwrap_err();
    assert_eq!(error.code(), "state_unreadable");
}

#[tokio::test]
async fn redis_urls_and_prefixes_that_cannot_work_are_refused() {
    let refused = |result: Result<RedisStore, StateError>| match result {
        Err(StateError::Unavailable { store: "redis", reason }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    };
    let reason = refused(RedisStore::builder("http://user:Secret-99@example.com").connect().await);
    assert!(reason.contains("not a Redis URL") && !reason.contains("Secret-99"), "{reason}");
    let reason = refused(RedisStore::builder("not a url at all").connect().await);
    assert!(reason.contains("RedisStore::builder"), "{reason}");
    let reason = refused(RedisStore::builder("redis://127.0.0.1:1").prefix("a{b}").connect().await);
    assert!(reason.contains("RedisStoreBuilder::prefix") && reason.contains("\"a{b}\""), "{reason}");
    assert_eq!(
        format!("{:?}", RedisStore::builder("not a url, Secret-99")),
        "RedisStoreBuilder { url: \"(not a Redis URL)\", prefix: \"tool-core\", timeout: 2s }"
    );
    // The password of a Unix socket's URL is in its query.
    let shown = format!("{:?}", RedisStore::builder("redis+unix:///run/redis.sock?db=2&pass=Secret-99"));
    assert!(shown.contains("pass=***") && !shown.contains("Secret-99"), "{shown}");
}

#[tokio::test]
async fn redis_that_never_answers_is_unavailable_within_the_timeout() {
    // A listener that accepts and never says a word.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(8) {
            held.push(stream);
        }
        held
    });
    let timeout = Duration::from_millis(300);
    let started = Instant::now();
    let result = RedisStore::builder(format!("redis://:Secret-99@127.0.0.1:{port}")).timeout(timeout).connect().await;
    let elapsed = started.elapsed();
    match result {
        Err(StateError::Unavailable { store: "redis", reason }) => {
            assert!(!reason.contains("Secret-99"), "{reason}");
            assert!(reason.contains(&format!("redis://:***@127.0.0.1:{port}")), "{reason}");
        }
        other => panic!("expected unavailable, got {other:?}"),
    }
    assert!(elapsed >= timeout && elapsed < timeout + Duration::from_secs(1), "{elapsed:?}");
    drop(held);
}
