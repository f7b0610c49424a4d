//! Pending calls in the executor's store: a call that waits for a person is kept under an id of
//! 128 random bits, owned by its principal and conversation, beside a digest of what it would
//! run; resuming it takes it once, so that of two replicas answering the same call only one
//! runs it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::policy::PendingCall;
use crate::state::{digest, Expect, Owner, StateError, StateKey, Write, Written};

use super::{CallFailure, Executor, NotPendingReason};

/// The kind of a pending call's key in the store.
pub(crate) const KIND: &str = "pending";

/// Nesting deeper than this in a presented call's arguments is not compared: no call the
/// executor kept is that deep (JSON is read at most 128 levels deep), so such a call differs.
const MAX_DEPTH: usize = 256;

/// What the store holds under a pending call's id.
// Made once per write or read of a pending call and moved out at once: boxing would cost an
// allocation to save bytes nobody copies.
#[allow(clippy::large_enum_variant)]
#[derive(Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Stored {
    /// The call, waiting for its answer, and the digest of what it would run.
    Waiting { digest: String, call: PendingCall },
    /// Taken by a resume: kept until the call would have expired, so that a second resume (a
    /// racing replica, a replay) is told the call was resumed already.
    Resumed,
}

/// Why a presented pending call is not run.
pub(super) enum Refusal {
    /// Nothing waits under its id for its owner (any more).
    NotPending(NotPendingReason),
    /// Something waits under its id, but not this call: the stored one still waits.
    Altered {
        /// The tool of the stored call.
        tool: String,
    },
    /// The store could not be reached or read.
    Store(StateError),
}

/// Who a pending call belongs to: the principal and the conversation of its request.
pub(crate) fn owner(call: &PendingCall) -> Owner {
    Owner::new(call.request.principal.as_deref(), call.request.conversation_id.as_deref())
}

fn key(owner: &Owner, id: &str) -> StateKey {
    owner.key(KIND, id)
}

fn now_ms() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

/// Keeps `pending` in the executor's store for its time to live, under its id (a fresh one,
/// should the id be taken), and sets when it expires.
pub(super) async fn keep(executor: &Executor, pending: &mut PendingCall) -> Result<(), StateError> {
    let ttl = executor.pending_ttl;
    let owner = owner(pending);
    // 128 random bits never repeat in practice; a taken id is never overwritten all the same.
    for _ in 0..3 {
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        pending.expires_at_ms = Some(now_ms().saturating_add(ttl_ms));
        let stored = Stored::Waiting { digest: digest_of(pending).unwrap_or_default(), call: pending.clone() };
        let bytes = serde_json::to_vec(&stored).map_err(|error| unreadable(executor, &owner, pending, &error))?;
        let write = Write::new(bytes, ttl).expect(Expect::Absent);
        match executor.store.write(&key(&owner, &pending.id), write).await? {
            Written::Done(_) => return Ok(()),
            Written::Conflict(_) | Written::Fenced => pending.id = crate::state::random_id(),
        }
    }
    Err(StateError::Unavailable {
        store: executor.store.kind(),
        reason: "three fresh pending-call ids in a row were taken".to_owned(),
    })
}

fn unreadable(executor: &Executor, owner: &Owner, pending: &PendingCall, error: &serde_json::Error) -> StateError {
    StateError::Unreadable {
        store: executor.store.kind(),
        key: key(owner, &pending.id).to_string(),
        reason: error.to_string(),
    }
}

/// The stored call under `presented`'s id and owner, if it is the one presented, without
/// taking it.
pub(super) async fn read(executor: &Executor, id: &str, owner: &Owner) -> Result<Option<PendingCall>, StateError> {
    let key = key(owner, id);
    let Some(found) = executor.store.read(&key).await? else { return Ok(None) };
    match serde_json::from_slice::<Stored>(&found.value) {
        Ok(Stored::Waiting { call, .. }) => Ok(Some(call)),
        Ok(Stored::Resumed) => Ok(None),
        Err(error) => Err(StateError::Unreadable {
            store: executor.store.kind(),
            key: key.to_string(),
            reason: error.to_string(),
        }),
    }
}

/// Takes the stored call `presented` stands for, once: the stored call when it waits under
/// `presented`'s id for its principal and conversation and is the call presented; else why
/// not. Of two takers of one call, exactly one gets it: the stored value is replaced by a mark
/// that it was resumed, by a compare-and-set on the version read, which a store never gives
/// twice to one key.
pub(super) async fn take(executor: &Executor, presented: &PendingCall) -> Result<PendingCall, Refusal> {
    let store = &executor.store;
    let key = key(&owner(presented), &presented.id);
    let Some(found) = store.read(&key).await.map_err(Refusal::Store)? else {
        return Err(Refusal::NotPending(gone(presented)));
    };
    let call = match serde_json::from_slice::<Stored>(&found.value) {
        Ok(Stored::Waiting { digest, call }) => {
            if digest_of(presented).as_deref() != Some(digest.as_str()) && !same_call(presented, &call) {
                return Err(Refusal::Altered { tool: call.request.tool_name });
            }
            call
        }
        Ok(Stored::Resumed) => return Err(Refusal::NotPending(NotPendingReason::Resumed)),
        Err(error) => {
            let reason = error.to_string();
            return Err(Refusal::Store(StateError::Unreadable { store: store.kind(), key: key.to_string(), reason }));
        }
    };
    let left = call.expires_at_ms.map_or(executor.pending_ttl, |at| Duration::from_millis(at.saturating_sub(now_ms())));
    let mark = serde_json::to_vec(&Stored::Resumed).unwrap_or_default();
    let write = Write::new(mark, left.max(Duration::from_millis(1))).expect(Expect::Version(found.version));
    match store.write(&key, write).await.map_err(Refusal::Store)? {
        Written::Done(_) => Ok(call),
        // Gone since it was read: it expired meanwhile.
        Written::Conflict(None) => Err(Refusal::NotPending(gone(presented))),
        // Replaced since it was read: only a resume replaces a pending call.
        Written::Conflict(Some(_)) | Written::Fenced => Err(Refusal::NotPending(NotPendingReason::Resumed)),
    }
}

/// Why nothing waits under a presented call's id: it expired, by the time it carries, or it was
/// never kept for its principal and conversation.
fn gone(presented: &PendingCall) -> NotPendingReason {
    match presented.expires_at_ms {
        Some(at) if now_ms() >= at => NotPendingReason::Expired,
        _ => NotPendingReason::Unknown,
    }
}

/// The failure and the message of a resume refused for `refusal`.
pub(super) fn refused(presented: &PendingCall, refusal: Refusal) -> (CallFailure, String) {
    let (id, tool) = (&presented.id, &presented.request.tool_name);
    match refusal {
        Refusal::NotPending(reason) => {
            let message = match reason {
                NotPendingReason::Resumed => {
                    format!("The call of `{tool}` that waited under the id `{id}` was resumed already; it runs once, and nothing ran now.")
                }
                NotPendingReason::Expired => format!(
                    "The call of `{tool}` that waited under the id `{id}` expired before it was resumed, and did not run. Make the call again to ask for approval anew."
                ),
                NotPendingReason::Unknown => format!(
                    "No call of `{tool}` waits under the id `{id}` for this principal and conversation, and nothing ran. Resume a pending call as the executor gave it, for the principal and the conversation that made it."
                ),
            };
            (CallFailure::NotPending { id: id.clone(), reason }, message)
        }
        Refusal::Altered { tool } => {
            let message = format!(
                "The pending call under the id `{id}` differs from the call of `{tool}` that waits under it (its tool, call id or arguments were changed), and nothing ran; the stored call still waits. Resume it as the executor gave it, or approve it with edited arguments."
            );
            (CallFailure::PendingAltered { id: id.clone() }, message)
        }
        Refusal::Store(error) => {
            let message = format!(
                "`{tool}` was not resumed: the store its pending call waits in could not be reached or read. Try again in a moment."
            );
            let (StateError::Unavailable { store, .. } | StateError::Unreadable { store, .. }) = error;
            (CallFailure::StateUnavailable { store: store.to_owned() }, message)
        }
    }
}

/// 128 bits of SHA-256 over what a pending call would run and what a person is shown of it:
/// the tool, the call id, the raw arguments (what an approved call is read again from) and
/// the arguments as read, written canonically (object keys sorted). `None` for arguments
/// nested deeper than any call the executor keeps.
fn digest_of(call: &PendingCall) -> Option<String> {
    let request = &call.request;
    let mut text = String::new();
    for part in [&request.tool_name, &request.call_id, &request.raw_arguments] {
        text.push_str(&part.len().to_string());
        text.push(':');
        text.push_str(part);
    }
    canonical(&call.arguments, &mut text, 0)?;
    Some(digest(text.as_bytes()))
}

/// `value` as JSON text with its object keys sorted, so that a store or a database that
/// reorders keys (PostgreSQL's `jsonb`) keeps its digest.
fn canonical(value: &Value, out: &mut String, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out, depth + 1)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                canonical(&map[key], out, depth + 1)?;
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
    Some(())
}

/// Whether `presented` is `stored` but for the last bits of its floating-point arguments: a
/// JSON round trip (a host keeping the call as text) may move a float by a unit in its last
/// place, which its digest sees.
fn same_call(presented: &PendingCall, stored: &PendingCall) -> bool {
    let (a, b) = (&presented.request, &stored.request);
    a.tool_name == b.tool_name
        && a.call_id == b.call_id
        && a.raw_arguments == b.raw_arguments
        && close(&presented.arguments, &stored.arguments, 0)
}

fn close(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || (x - y).abs() <= x.abs().max(y.abs()) * f64::EPSILON * 8.0,
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| close(x, y, depth + 1))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, x)| y.get(key).is_some_and(|y| close(x, y, depth + 1)))
        }
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{close, digest_of};
    use crate::model::ToolCallRequest;
    use crate::policy::PendingCall;

    fn call(arguments: serde_json::Value) -> PendingCall {
        PendingCall::new(ToolCallRequest::new("t", "c1", "{}"), arguments, Vec::new(), Vec::new())
    }

    #[test]
    fn the_digest_ignores_key_order_and_sees_every_value() {
        let a = digest_of(&call(json!({"a": 1, "b": [1, {"x": "y", "w": null}]})));
        let b = digest_of(&call(json!({"b": [1, {"w": null, "x": "y"}], "a": 1})));
        assert_eq!(a, b);
        assert_ne!(a, digest_of(&call(json!({"a": 2, "b": [1, {"w": null, "x": "y"}]}))));
        assert_ne!(a, digest_of(&call(json!({"a": 1, "b": [{"w": null, "x": "y"}, 1]}))));
        assert_eq!(a.map(|digest| digest.len()), Some(32));
    }

    #[test]
    fn a_float_moved_by_a_round_trip_is_the_same_but_another_value_is_not() {
        let x: f64 = 1.727_558_004_960_178_6e-9;
        let moved = f64::from_bits(x.to_bits() + 1);
        assert!(close(&json!({"a": [x]}), &json!({"a": [moved]}), 0));
        assert!(!close(&json!({"a": [x]}), &json!({"a": [0.3001]}), 0));
        assert!(!close(&json!({"a": 1}), &json!({"a": 1, "b": 2}), 0));
        assert!(!close(&json!(1), &json!(2), 0));
        let mut deep = json!(1);
        for _ in 0..300 {
            deep = json!([deep]);
        }
        assert!(!close(&deep, &deep, 0));
        assert_eq!(digest_of(&call(deep)), None);
    }
}
