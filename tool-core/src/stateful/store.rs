//! The live instances of each stateful type, by conversation, and the calls' turns on them.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Poll;
use std::time::Instant;

use tokio::sync::{OnceCell, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

use super::queue::Queue;
use super::state::ConversationState;
use crate::context::ToolContext;
use crate::model::{ToolCallRequest, ToolError};
use crate::tool::{BoxFuture, ToolResult};

/// What every slot has, whatever its type: its conversation, its queue, its use.
struct Core {
    conversation: String,
    queue: Queue,
    /// Set once, by whoever cleans the instance up.
    ended: AtomicBool,
    /// Calls that took a turn and have not finished.
    active: AtomicUsize,
    last_used: Mutex<Instant>,
}

impl Core {
    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn idle_since(&self) -> Instant {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One conversation's instance of `T`, made on its first call.
struct Slot<T> {
    core: Arc<Core>,
    instance: OnceCell<Arc<RwLock<T>>>,
}

impl<T: ConversationState> Slot<T> {
    async fn instance(&self, ctx: &ToolContext) -> Result<Arc<RwLock<T>>, ToolError> {
        let made = self.instance.get_or_try_init(|| async { T::create(ctx).await.map(|v| Arc::new(RwLock::new(v))) });
        made.await.cloned()
    }

    /// Cleans the instance up, once, after the calls holding it finish. Whether there was one.
    async fn finish(&self) -> bool {
        if self.core.ended.swap(true, Ordering::SeqCst) {
            return false;
        }
        let Some(instance) = self.instance.get() else { return false };
        let mut instance = Arc::clone(instance).write_owned().await;
        instance.cleanup().await;
        true
    }
}

/// The slots of one type.
struct Store<T> {
    slots: Mutex<HashMap<String, Arc<Slot<T>>>>,
    last_sweep: Mutex<Instant>,
}

impl<T: ConversationState> Store<T> {
    /// The slot of `conversation`, made if new (evicting under the cap).
    fn slot(&self, conversation: &str, tool: &str) -> Result<Arc<Slot<T>>, ToolError> {
        self.sweep_if_due();
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = slots.get(conversation) {
            return Ok(Arc::clone(slot));
        }
        if let Some(max) = T::limits().max_instances {
            while slots.len() >= max.max(1) {
                let idle = slots
                    .values()
                    .filter(|slot| slot.core.active.load(Ordering::SeqCst) == 0)
                    .min_by_key(|slot| slot.core.idle_since())
                    .map(|slot| slot.core.conversation.clone());
                let Some(evicted) = idle.and_then(|conversation| slots.remove(&conversation)) else {
                    return Err(ToolError::new(format!(
                        "The tool `{tool}` cannot start a state for another conversation: all {max} live instances of `{}` are in use. Try again when one of them finishes.",
                        short_type_name::<T>()
                    ))
                    .with_code("conversation_limit"));
                };
                finish_later(evicted);
            }
        }
        let core = Core {
            conversation: conversation.to_owned(),
            queue: Queue::default(),
            ended: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            last_used: Mutex::new(Instant::now()),
        };
        let slot = Arc::new(Slot { core: Arc::new(core), instance: OnceCell::new() });
        slots.insert(conversation.to_owned(), Arc::clone(&slot));
        Ok(slot)
    }

    /// Removes the slots idle longer than the type's idle time; returns them.
    fn take_idle(&self) -> Vec<Arc<Slot<T>>> {
        let Some(idle) = T::limits().idle_timeout else { return Vec::new() };
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let expired: Vec<String> = slots
            .values()
            .filter(|slot| {
                slot.core.active.load(Ordering::SeqCst) == 0 && now.duration_since(slot.core.idle_since()) >= idle
            })
            .map(|slot| slot.core.conversation.clone())
            .collect();
        expired.iter().filter_map(|conversation| slots.remove(conversation)).collect()
    }

    /// Cleans up idle instances when a quarter of the idle time has passed since the last look.
    fn sweep_if_due(&self) {
        let Some(idle) = T::limits().idle_timeout else { return };
        {
            let mut last = self.last_sweep.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() < idle / 4 {
                return;
            }
            *last = Instant::now();
        }
        for slot in self.take_idle() {
            finish_later(slot);
        }
    }

    fn take(&self, conversation: Option<&str>) -> Vec<Arc<Slot<T>>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        match conversation {
            Some(conversation) => slots.remove(conversation).into_iter().collect(),
            None => slots.drain().map(|(_, slot)| slot).collect(),
        }
    }
}

/// Cleans a removed slot up on the runtime, when there is one (else it is only dropped).
fn finish_later<T: ConversationState>(slot: Arc<Slot<T>>) {
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move {
            slot.finish().await;
        });
    }
}

async fn finish_all<T: ConversationState>(slots: Vec<Arc<Slot<T>>>) -> usize {
    let mut finished = 0;
    for slot in slots {
        finished += usize::from(slot.finish().await);
    }
    finished
}

/// Runs `each` on every store, one after the other; the sum of what they return.
async fn across_stores(each: impl Fn(&dyn AnyStore) -> BoxFuture<'static, usize>) -> usize {
    let runs: Vec<_> = stores().iter().map(|store| each(store.as_ref())).collect();
    let mut total = 0;
    for run in runs {
        total += run.await;
    }
    total
}

/// A store seen without its type, for [`Conversations`].
trait AnyStore: Send + Sync {
    fn end(&self, conversation: Option<&str>) -> BoxFuture<'static, usize>;
    fn evict_idle(&self) -> BoxFuture<'static, usize>;
    fn live(&self) -> usize;
}

impl<T: ConversationState> AnyStore for Store<T> {
    fn end(&self, conversation: Option<&str>) -> BoxFuture<'static, usize> {
        Box::pin(finish_all(self.take(conversation)))
    }

    fn evict_idle(&self) -> BoxFuture<'static, usize> {
        Box::pin(finish_all(self.take_idle()))
    }

    fn live(&self) -> usize {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.values().filter(|slot| slot.instance.initialized()).count()
    }
}

type Registered = (Arc<dyn Any + Send + Sync>, Arc<dyn AnyStore>);

fn registry() -> &'static Mutex<HashMap<TypeId, Registered>> {
    static REGISTRY: OnceLock<Mutex<HashMap<TypeId, Registered>>> = OnceLock::new();
    REGISTRY.get_or_init(Mutex::default)
}

fn store<T: ConversationState>() -> Arc<Store<T>> {
    let mut registry = registry().lock().unwrap_or_else(|e| e.into_inner());
    let (typed, _) = registry.entry(TypeId::of::<T>()).or_insert_with(|| {
        let store = Arc::new(Store::<T> { slots: Mutex::default(), last_sweep: Mutex::new(Instant::now()) });
        (Arc::clone(&store) as Arc<dyn Any + Send + Sync>, store as Arc<dyn AnyStore>)
    });
    Arc::clone(typed).downcast::<Store<T>>().unwrap_or_else(|_| unreachable!("the registry is keyed by type"))
}

fn stores() -> Vec<Arc<dyn AnyStore>> {
    registry().lock().unwrap_or_else(|e| e.into_inner()).values().map(|(_, store)| Arc::clone(store)).collect()
}

/// The host's handle on the instances of stateful tools, across all their types.
///
/// ```
/// # async fn host() {
/// use tool_core::Conversations;
///
/// // The user closed the chat: its instances are cleaned up and dropped.
/// Conversations::end("chat-42").await;
/// # }
/// ```
#[derive(Debug)]
pub struct Conversations;

impl Conversations {
    /// Ends `conversation`: each of its instances is cleaned up (after the calls holding it
    /// finish) and dropped. Returns how many there were.
    pub async fn end(conversation: &str) -> usize {
        across_stores(|store| store.end(Some(conversation))).await
    }

    /// Ends every conversation. Returns how many instances were cleaned up.
    pub async fn end_all() -> usize {
        across_stores(|store| store.end(None)).await
    }

    /// Cleans up every instance unused for longer than its type's idle time, now. Returns how
    /// many.
    pub async fn evict_idle() -> usize {
        across_stores(|store| store.evict_idle()).await
    }

    /// How many instances are alive, across all types and conversations.
    pub fn live() -> usize {
        stores().iter().map(|store| store.live()).sum()
    }
}

/// A call's place in its conversation's queue, taken when its arguments are bound (so a
/// batch's calls keep their order). Dropped unused, it gives its place up.
#[doc(hidden)]
pub struct Turn(TurnState);

enum TurnState {
    /// A tool without state.
    Stateless,
    /// The call cannot have a turn; this is why.
    Refused(ToolError),
    Reserved {
        slot: Arc<dyn Any + Send + Sync>,
        core: Arc<Core>,
        ticket: u64,
        /// Whether the ticket was passed on (the call took its place in the instance's lock).
        passed: bool,
    },
}

impl Turn {
    /// The turn of a tool without state.
    pub fn stateless() -> Turn {
        Turn(TurnState::Stateless)
    }

    /// Lets the next ticket go.
    fn pass(&mut self) {
        if let TurnState::Reserved { core, ticket, passed, .. } = &mut self.0 {
            if !*passed {
                *passed = true;
                core.queue.release(*ticket);
            }
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.pass();
        if let TurnState::Reserved { core, .. } = &self.0 {
            core.touch();
            core.active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Takes `request`'s turn on its conversation's instance of `T`.
pub fn reserve<T: ConversationState>(request: &ToolCallRequest) -> Turn {
    let Some(conversation) = request.conversation_id.as_deref() else {
        return Turn(TurnState::Refused(
            ToolError::new(format!(
                "The tool `{}` keeps state for each conversation, and this call names no conversation: the host must set the request's `conversation_id`.",
                request.tool_name
            ))
            .with_code("missing_conversation"),
        ));
    };
    match store::<T>().slot(conversation, &request.tool_name) {
        Err(refused) => Turn(TurnState::Refused(refused)),
        Ok(slot) => {
            let core = Arc::clone(&slot.core);
            core.active.fetch_add(1, Ordering::SeqCst);
            let ticket = core.queue.take();
            Turn(TurnState::Reserved { slot, core, ticket, passed: false })
        }
    }
}

/// A reserved turn's slot, its core and its ticket.
type Reserved<T> = (Arc<Slot<T>>, Arc<Core>, u64);

/// The slot and core of a reserved turn, or why the call cannot run.
fn reserved<T: ConversationState>(turn: &Turn) -> Result<Reserved<T>, ToolError> {
    match &turn.0 {
        TurnState::Stateless => Err(ToolError::new("a stateful tool was called without a turn")),
        TurnState::Refused(error) => Err(error.clone()),
        TurnState::Reserved { slot, core, ticket, .. } => {
            let slot = Arc::clone(slot)
                .downcast::<Slot<T>>()
                .map_err(|_| ToolError::new("a stateful tool was called with another type's turn"))?;
            Ok((slot, Arc::clone(core), *ticket))
        }
    }
}

/// Waits for `turn`, then for the lock `acquire` asks for; the next ticket goes as soon as
/// this call has its place in the lock's first-come queue.
async fn in_turn<T: ConversationState, G>(
    turn: &mut Turn,
    ctx: &ToolContext,
    acquire: fn(Arc<RwLock<T>>) -> BoxFuture<'static, G>,
) -> Result<G, ToolError> {
    let (slot, core, ticket) = reserved::<T>(turn)?;
    let instance = slot.instance(ctx).await?;
    core.queue.wait(ticket).await;
    let mut acquiring = acquire(instance);
    let first = std::future::poll_fn(|cx| Poll::Ready(acquiring.as_mut().poll(cx))).await;
    turn.pass();
    let guard = match first {
        Poll::Ready(guard) => guard,
        Poll::Pending => acquiring.await,
    };
    if core.ended.load(Ordering::SeqCst) {
        return Err(ToolError::new(format!(
            "The conversation `{}` was ended while this call waited; the call did not run.",
            core.conversation
        ))
        .with_code("conversation_ended"));
    }
    Ok(guard)
}

/// Runs `body` with the lock guard `acquire` gets, in `turn`.
fn run_locked<T, G, F>(
    ctx: ToolContext,
    mut turn: Turn,
    acquire: fn(Arc<RwLock<T>>) -> BoxFuture<'static, G>,
    body: F,
) -> BoxFuture<'static, ToolResult>
where
    T: ConversationState,
    G: Send + 'static,
    F: FnOnce(ToolContext, G) -> BoxFuture<'static, ToolResult> + Send + 'static,
{
    Box::pin(async move {
        let guard = in_turn(&mut turn, &ctx, acquire).await?;
        let result = body(ctx, guard).await;
        drop(turn);
        result
    })
}

/// Runs a `&mut self` method of `T` in `turn`: one at a time per conversation, in turn order.
pub fn run_exclusive<T, F>(ctx: ToolContext, turn: Turn, body: F) -> BoxFuture<'static, ToolResult>
where
    T: ConversationState,
    F: FnOnce(ToolContext, OwnedRwLockWriteGuard<T>) -> BoxFuture<'static, ToolResult> + Send + 'static,
{
    run_locked(ctx, turn, |lock| Box::pin(lock.write_owned()), body)
}

/// Runs a `&self` method of `T` in `turn`: alongside other `&self` calls, after the `&mut self`
/// calls before it.
pub fn run_shared<T, F>(ctx: ToolContext, turn: Turn, body: F) -> BoxFuture<'static, ToolResult>
where
    T: ConversationState,
    F: FnOnce(ToolContext, OwnedRwLockReadGuard<T>) -> BoxFuture<'static, ToolResult> + Send + 'static,
{
    run_locked(ctx, turn, |lock| Box::pin(lock.read_owned()), body)
}

fn short_type_name<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    name.rsplit("::").next().unwrap_or(name)
}
