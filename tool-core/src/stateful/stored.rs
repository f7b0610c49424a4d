//! The state of types with `shared_state`: kept in the executor's store rather than in this
//! process, so that every process sharing the store serves a conversation alike. It is
//! serialized as `{"schema_version": N, "data": ..}` under the kind `stateful` and the type's
//! name, read at each call, and written back by a `&mut self` call under the conversation's
//! lease, with a compare-and-set that the lease fences.

use std::cmp::Ordering;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

use super::lease::{Lease, Leased, LEASE_WAIT};
use super::registry::{duplicate_names, StoredType};
use super::state::{ConversationState, StateLimits};
use super::store::{in_turn, reserve_in, Turn};
use crate::context::ToolContext;
use crate::model::{truncate, ToolCallRequest, ToolError};
use crate::state::{Expect, Owner, SharedStore, StateError, StateKey, Version, Versioned, Write, Written};
use crate::tool::{BoxFuture, ToolResult};

/// The kind of key a stored state lives under (its name is the type's [`SharedState::NAME`]).
pub const STATE_KIND: &str = "stateful";

/// A type whose state can be kept in a store: it serializes and deserializes (serde).
#[diagnostic::on_unimplemented(
    message = "`{Self}` keeps its state in the store (`shared_state`), and it cannot be serialized",
    label = "`shared_state` needs `{Self}` to implement `Serialize` and `Deserialize`",
    note = "derive `serde::Serialize` and `serde::Deserialize` for `{Self}`; what cannot be serialized (a client, a socket, a pool) does not belong in the state: give it to the executor with `ExecutorBuilder::state(..)` and take it as a `&State<T>` parameter (or from `ToolContext::state`)"
)]
pub trait Storable: Sized {
    /// The state as JSON text (serialized directly, so that its fields keep their order
    /// whatever `serde_json`'s features).
    fn to_json(&self) -> Result<Vec<u8>, serde_json::Error>;
    /// The state from JSON.
    fn from_json(data: Value) -> Result<Self, serde_json::Error>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> Storable for T {
    fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(self)
    }

    fn from_json(data: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(data)
    }
}

/// A type with `#[tool(shared_state)]` on its impl block: its state lives in the executor's
/// store. The macro implements it.
pub trait SharedState: ConversationState + Storable {
    /// The name its state is stored under: the type's name as written on its impl block, which
    /// stays the same when the type moves to another module or the compiler changes (renaming
    /// the type starts every conversation's state anew).
    const NAME: &'static str;

    /// The version of the state's shape (`schema_version = N`, 1 by default).
    const SCHEMA_VERSION: u32;

    /// Makes the state from data stored by an older schema version (`migrate = "fn"`); `None`
    /// when the type has no migration.
    fn migrate(from_version: u32, data: Value) -> Option<Result<Self, ToolError>> {
        let _ = (from_version, data);
        None
    }
}

/// What orders one conversation's calls of a stored type in this process: its slot holds no
/// state, only the turns and the lock that keep `&mut self` calls one at a time.
struct Calls<T>(PhantomData<fn() -> T>);

impl<T: SharedState> ConversationState for Calls<T> {
    fn create(_: &ToolContext) -> impl Future<Output = Result<Self, ToolError>> + Send {
        std::future::ready(Ok(Calls(PhantomData)))
    }

    fn limits() -> StateLimits {
        T::limits()
    }
}

/// Takes `request`'s turn among its conversation's calls of `T` in this process.
pub fn reserve_stored<T: SharedState>(request: &ToolCallRequest) -> Turn {
    reserve_in::<Calls<T>>(request, false)
}

/// Runs a `&mut self` method of a stored `T`: in turn in this process, under the
/// conversation's lease across processes; the state is read, the method runs, and the state is
/// written back only if the lease still holds and nobody wrote since the read.
pub fn run_stored_exclusive<T, F>(ctx: ToolContext, mut turn: Turn, body: F) -> BoxFuture<'static, ToolResult>
where
    T: SharedState,
    F: FnOnce(ToolContext, OwnedRwLockWriteGuard<T>) -> BoxFuture<'static, ToolResult> + Send + 'static,
{
    Box::pin(async move {
        let (order, idle) = in_turn::<Calls<T>, _>(&mut turn, &ctx, |lock| Box::pin(lock.write_owned())).await?;
        let at = At::<T>::of(&ctx, idle)?;
        let lease_key = at.owner.key(super::lease::LEASE_KIND, T::NAME);
        // The lease is taken and the state read in one operation.
        let (lease, found) = match Lease::acquire(&at.store, lease_key, LEASE_WAIT, Some(&at.key)).await {
            Leased::Held(lease, found) => (lease, found),
            Leased::Busy => return Err(busy(&ctx)),
            Leased::Failed(error) => return Err(error.into_tool_error()),
        };
        let result = at.update(&ctx, lease, found, body).await;
        drop(order);
        drop(turn);
        result
    })
}

/// Runs a `&self` method of a stored `T`: after the `&mut self` calls before it in this
/// process, on the state as last written; nothing is written back.
pub fn run_stored_shared<T, F>(ctx: ToolContext, mut turn: Turn, body: F) -> BoxFuture<'static, ToolResult>
where
    T: SharedState,
    F: FnOnce(ToolContext, OwnedRwLockReadGuard<T>) -> BoxFuture<'static, ToolResult> + Send + 'static,
{
    Box::pin(async move {
        let (order, idle) = in_turn::<Calls<T>, _>(&mut turn, &ctx, |lock| Box::pin(lock.read_owned())).await?;
        let at = At::<T>::of(&ctx, idle)?;
        // One operation: the read renews the state's time to live.
        let found = at.store.read_and_touch(&at.key, at.ttl).await.map_err(StateError::into_tool_error)?;
        let (state, _) = at.state(&ctx, found).await?;
        let guard = Arc::new(RwLock::new(state)).read_owned().await;
        let result = body(ctx, guard).await;
        drop(order);
        drop(turn);
        result
    })
}

/// Where one conversation's state of `T` lives.
struct At<T> {
    store: SharedStore,
    owner: Owner,
    key: StateKey,
    /// The type's idle time: a state unused this long expires.
    ttl: Duration,
    state: PhantomData<fn() -> T>,
}

impl<T: SharedState> At<T> {
    fn of(ctx: &ToolContext, ttl: Duration) -> Result<At<T>, ToolError> {
        if duplicate_names().contains(T::NAME) {
            return Err(ToolError::new(format!(
                "The tool `{}` keeps its state in the store under the name `{}`, and another type with `shared_state` has that name too: their states would be mixed up, so neither runs. Rename one of the types.",
                truncate(&ctx.request().tool_name),
                T::NAME
            ))
            .with_code("state_name_taken"));
        }
        let Some(store) = ctx.store() else {
            return Err(ToolError::new(format!(
                "The tool `{}` keeps its state in the executor's store, and this call has none: run it with `Executor::execute`.",
                truncate(&ctx.request().tool_name)
            ))
            .with_code("no_conversation_store"));
        };
        let owner = ctx.owner();
        let key = owner.key(STATE_KIND, T::NAME);
        Ok(At { store: Arc::clone(store), owner, key, ttl, state: PhantomData })
    }

    /// The state `found` in the store and its version, or a new one (`create`) when there is
    /// none.
    async fn state(&self, ctx: &ToolContext, found: Option<Versioned>) -> Result<(T, Option<Version>), ToolError> {
        match found {
            None => Ok((T::create(ctx).await?, None)),
            Some(Versioned { value, version }) => match decode::<T>(&value) {
                Ok(state) => Ok((state, Some(version))),
                Err(unreadable) => Err(unreadable.error::<T>(ctx)),
            },
        }
    }

    /// Runs `body` on the state `found` (read with the lease) while the lease is renewed, and
    /// writes it back fenced by the lease, giving the lease up in the same operation: a call
    /// that lost its lease, or whose state was written by another meanwhile, fails and its
    /// changes are dropped.
    async fn update<F>(&self, ctx: &ToolContext, lease: Lease, found: Option<Versioned>, body: F) -> ToolResult
    where
        F: FnOnce(ToolContext, OwnedRwLockWriteGuard<T>) -> BoxFuture<'static, ToolResult>,
    {
        let (state, version) = match self.state(ctx, found).await {
            Ok(loaded) => loaded,
            Err(error) => {
                lease.release().await;
                return Err(error);
            }
        };
        let state = Arc::new(RwLock::new(state));
        let guard = Arc::clone(&state).write_owned().await;
        let result = lease.hold(body(ctx.clone(), guard)).await;
        // The body's guard is gone once it returned: this waits for nothing.
        let value = match encode(&*state.read().await) {
            Ok(value) => value,
            Err(error) => {
                lease.release().await;
                return Err(unwritable::<T>(ctx, &error));
            }
        };
        let max = ctx.environment().max_state_bytes.unwrap_or(DEFAULT_MAX_STATE_BYTES);
        if value.len() > max {
            lease.release().await;
            return Err(too_large::<T>(ctx, value.len(), max));
        }
        let expect = version.map_or(Expect::Absent, Expect::Version);
        let write = Write::new(value, self.ttl).expect(expect);
        match lease.commit(&self.key, write).await.map_err(StateError::into_tool_error)? {
            Written::Done(_) => result,
            Written::Conflict(_) | Written::Fenced => Err(conflict(ctx, result.err())),
        }
    }
}

/// The state as stored: `{"schema_version":N,"data":..}`, the same bytes in every build.
fn encode<T: SharedState>(state: &T) -> Result<Vec<u8>, serde_json::Error> {
    let data = state.to_json()?;
    let mut out = format!(r#"{{"schema_version":{},"data":"#, T::SCHEMA_VERSION).into_bytes();
    out.reserve(data.len() + 1);
    out.extend_from_slice(&data);
    out.push(b'}');
    Ok(out)
}

/// Why stored bytes are not a state of this type.
enum Unreadable {
    NotJson(serde_json::Error),
    Shape,
    Data(serde_json::Error),
    Newer(u32),
    Older(u32),
    Migration(u32, ToolError),
}

/// The state stored as `bytes`, read as this build's schema version (or migrated to it).
fn decode<T: SharedState>(bytes: &[u8]) -> Result<T, Unreadable> {
    let value: Value = serde_json::from_slice(bytes).map_err(Unreadable::NotJson)?;
    let Value::Object(mut envelope) = value else { return Err(Unreadable::Shape) };
    let version = envelope.get("schema_version").and_then(Value::as_u64).and_then(|v| u32::try_from(v).ok());
    let data = envelope.remove("data");
    let (Some(version), Some(data), 1) = (version, data, envelope.len()) else { return Err(Unreadable::Shape) };
    match version.cmp(&T::SCHEMA_VERSION) {
        Ordering::Equal => T::from_json(data).map_err(Unreadable::Data),
        Ordering::Greater => Err(Unreadable::Newer(version)),
        Ordering::Less => match T::migrate(version, data) {
            None => Err(Unreadable::Older(version)),
            Some(migrated) => migrated.map_err(|error| Unreadable::Migration(version, error)),
        },
    }
}

impl Unreadable {
    /// The call's error: what was wrong, naming the tool and the conversation; the state stays
    /// as it was.
    fn error<T: SharedState>(self, ctx: &ToolContext) -> ToolError {
        let current = T::SCHEMA_VERSION;
        let (reason, fix) = match &self {
            Unreadable::NotJson(_) => ("it is not JSON".to_owned(), String::new()),
            Unreadable::Shape => (
                "it is not a state as this crate stores it (`{\"schema_version\": N, \"data\": ..}`)".to_owned(),
                String::new(),
            ),
            Unreadable::Data(_) => (format!("its data is not a `{}` of schema version {current}", T::NAME), String::new()),
            Unreadable::Newer(found) => (
                format!("it was written by a newer version of the tool (schema version {found}; this one reads version {current})"),
                " Serve the conversation with the newer version.".to_owned(),
            ),
            Unreadable::Older(found) => (
                format!("it was written by an older version of the tool (schema version {found}; this one reads version {current} and has no migration)"),
                format!(" Give the impl block of `{}` a migration: `#[tool(shared_state, schema_version = {current}, migrate = \"migrate\")]` with `fn migrate(from_version: u32, data: serde_json::Value) -> Result<Self, ToolError>`.", T::NAME),
            ),
            Unreadable::Migration(found, error) => {
                (format!("its migration from schema version {found} failed: {}", error.message()), String::new())
            }
        };
        let cause = match &self {
            Unreadable::NotJson(error) | Unreadable::Data(error) => format!(" ({error})"),
            _ => String::new(),
        };
        let request = ctx.request();
        let message = format!(
            "The stored state of `{}` for the conversation `{}` could not be read: {reason}. It was kept as it is, and the call did not run.",
            truncate(&request.tool_name),
            truncate(request.conversation_id.as_deref().unwrap_or_default()),
        );
        ToolError::new(message)
            .with_code("state_unreadable")
            .with_details(serde_json::json!({ "state": T::NAME, "schema_version": current }))
            .with_internal_detail(format!("{}{cause}{fix}", T::NAME))
    }
}

/// A state that did not serialize (a map with keys that are not strings): nothing was written.
fn unwritable<T: SharedState>(ctx: &ToolContext, error: &serde_json::Error) -> ToolError {
    ToolError::new(format!(
        "The call of `{}` ran, and its changes to the conversation's state were not kept: the state did not serialize ({error}).",
        truncate(&ctx.request().tool_name)
    ))
    .with_code("state_unwritable")
    .with_details(serde_json::json!({ "state": T::NAME }))
}

/// The bound on one `shared_state` value when the host sets none
/// ([`ExecutorBuilder::max_state_bytes`](crate::ExecutorBuilder::max_state_bytes)): 1 MiB.
pub const DEFAULT_MAX_STATE_BYTES: usize = 1 << 20;

/// A state that grew past the bound: nothing was written, the stored state is as it was.
fn too_large<T: SharedState>(ctx: &ToolContext, bytes: usize, max: usize) -> ToolError {
    ToolError::new(format!(
        "The call of `{}` ran, and its changes to the conversation's state were not kept: the state would take {}, more than the {} it may take. Remove something from it before adding more.",
        truncate(&ctx.request().tool_name),
        crate::model::human_bytes(bytes),
        crate::model::human_bytes(max)
    ))
    .with_code("state_too_large")
    .with_details(serde_json::json!({ "state": T::NAME, "bytes": bytes, "max_bytes": max }))
    .with_internal_detail(format!(
        "raise ExecutorBuilder::max_state_bytes ({max} bytes now) if `{}` may rightly hold more",
        T::NAME
    ))
}

/// A `&mut self` call whose write was refused: its lease was lost (it expired, or was taken)
/// and another call may have written the state.
fn conflict(ctx: &ToolContext, failed: Option<ToolError>) -> ToolError {
    let request = ctx.request();
    let error = ToolError::new(format!(
        "The call of `{}` ran, and its changes to the state of the conversation `{}` were not kept: another call held the conversation's state meanwhile. Its result was dropped; call it again to apply it to the state as it is now.",
        truncate(&request.tool_name),
        truncate(request.conversation_id.as_deref().unwrap_or_default()),
    ))
    .with_code("state_conflict");
    match failed {
        Some(failed) => error.with_internal_detail(format!("the call had failed too: {}", failed.message())),
        None => error,
    }
}

/// A `&mut self` call that waited for the conversation's lease all the time allowed.
fn busy(ctx: &ToolContext) -> ToolError {
    let request = ctx.request();
    ToolError::new(format!(
        "The call of `{}` waited {} for the state of the conversation `{}`, which another call held all that time; it did not run. Try again in a moment.",
        truncate(&request.tool_name),
        crate::model::duration_words(LEASE_WAIT),
        truncate(request.conversation_id.as_deref().unwrap_or_default()),
    ))
    .with_code("state_busy")
}

/// The registration of `T`, which `#[tool(shared_state)]` submits.
pub const fn stored_type<T: SharedState>() -> StoredType {
    StoredType::new(T::NAME, end_stored::<T>)
}

/// Takes `owner`'s state of `T` from `store` and cleans it up: after the call holding the
/// lease commits, and once across processes (the state is taken once).
fn end_stored<'a, T: SharedState>(store: &'a SharedStore, owner: &'a Owner) -> BoxFuture<'a, Result<bool, StateError>> {
    Box::pin(async move {
        let lease = match Lease::acquire(store, owner.key(super::lease::LEASE_KIND, T::NAME), LEASE_WAIT, None).await {
            Leased::Held(lease, _) => Some(lease),
            // A call that holds it still cannot commit: the state it read is gone.
            Leased::Busy => None,
            Leased::Failed(error) => return Err(error),
        };
        let taken = store.take(&owner.key(STATE_KIND, T::NAME)).await;
        if let Some(lease) = lease {
            lease.release().await;
        }
        let Some(bytes) = taken? else { return Ok(false) };
        match decode::<T>(&bytes) {
            Ok(mut state) => state.cleanup().await,
            Err(_) => tracing::warn!(
                state = T::NAME,
                "an ended conversation's stored state did not read; removed without its cleanup"
            ),
        }
        Ok(true)
    })
}
