//! The live instances of each stateful type, by conversation, in a store an executor owns,
//! and the calls' turns on them.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use tokio::sync::{OnceCell, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

use super::queue::Queue;
use super::state::{ConversationState, StateLimits};
use crate::context::ToolContext;
use crate::model::{ToolCallRequest, ToolError};
use crate::state::{Owner, SharedStore};
use crate::tool::{BoxFuture, ToolResult};

/// What every slot has, whatever its type: its conversation, its queue, its use.
pub(super) struct Core {
    conversation: String,
    /// The type's idle time: a stored state's time to live.
    pub(super) idle: Duration,
    /// Whether the slot holds an instance in this process (not a type whose state lives in
    /// the store, whose slot only orders its calls).
    local: bool,
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

/// The slots of one type, in one store of instances.
struct Store<T> {
    slots: Mutex<Slots<T>>,
    last_sweep: Mutex<Instant>,
    /// The type's idle time and cap, resolved against the store's defaults.
    idle: Duration,
    max: usize,
    /// Whether its instances live in this process (see [`Core::local`]).
    local: bool,
}

/// The slots by conversation, and their order of last use, so that evicting the least recently
/// used one does not look at every slot.
struct Slots<T> {
    by_conversation: HashMap<String, (Arc<Slot<T>>, u64)>,
    /// Conversations by the tick of their last reservation, oldest first.
    order: BTreeMap<u64, String>,
    next_tick: u64,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots { by_conversation: HashMap::new(), order: BTreeMap::new(), next_tick: 0 }
    }
}

impl<T> Slots<T> {
    fn tick(&mut self) -> u64 {
        self.next_tick += 1;
        self.next_tick
    }

    fn remove(&mut self, conversation: &str) -> Option<Arc<Slot<T>>> {
        let (slot, tick) = self.by_conversation.remove(conversation)?;
        self.order.remove(&tick);
        Some(slot)
    }

    /// The least recently reserved slot no call holds.
    fn least_recent_idle(&self) -> Option<String> {
        self.order
            .values()
            .find(|conversation| {
                self.by_conversation
                    .get(conversation.as_str())
                    .is_some_and(|(slot, _)| slot.core.active.load(Ordering::SeqCst) == 0)
            })
            .cloned()
    }
}

impl<T: ConversationState> Store<T> {
    fn new(defaults: StateLimits, local: bool) -> Store<T> {
        let limits = T::limits().or(defaults);
        Store {
            slots: Mutex::default(),
            last_sweep: Mutex::new(Instant::now()),
            idle: limits.idle_timeout.unwrap_or(StateLimits::DEFAULT_IDLE_TIMEOUT),
            max: limits.max_instances.unwrap_or(StateLimits::DEFAULT_MAX_INSTANCES).max(1),
            local,
        }
    }

    /// The slot of `conversation`, made if new (evicting under the cap).
    fn slot(&self, conversation: &str, tool: &str) -> Result<Arc<Slot<T>>, ToolError> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let tick = slots.tick();
        if let Some((slot, last)) = slots.by_conversation.get_mut(conversation) {
            let (slot, last) = (Arc::clone(slot), std::mem::replace(last, tick));
            slots.order.remove(&last);
            slots.order.insert(tick, conversation.to_owned());
            return Ok(slot);
        }
        while slots.by_conversation.len() >= self.max {
            let Some(evicted) = slots.least_recent_idle().and_then(|conversation| slots.remove(&conversation)) else {
                return Err(ToolError::new(format!(
                    "The tool `{tool}` cannot start a state for another conversation: all {} live instances of `{}` are in use. Try again when one of them finishes.",
                    self.max,
                    short_type_name::<T>()
                ))
                .with_code("conversation_limit"));
            };
            finish_later(evicted);
        }
        let core = Core {
            conversation: conversation.to_owned(),
            idle: self.idle,
            local: self.local,
            queue: Queue::default(),
            ended: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            last_used: Mutex::new(Instant::now()),
        };
        let slot = Arc::new(Slot { core: Arc::new(core), instance: OnceCell::new() });
        slots.by_conversation.insert(conversation.to_owned(), (Arc::clone(&slot), tick));
        slots.order.insert(tick, conversation.to_owned());
        Ok(slot)
    }

    /// Removes the slots idle longer than the type's idle time; returns them.
    fn take_idle(&self) -> Vec<Arc<Slot<T>>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let expired: Vec<String> = slots
            .by_conversation
            .values()
            .filter(|(slot, _)| {
                slot.core.active.load(Ordering::SeqCst) == 0 && now.duration_since(slot.core.idle_since()) >= self.idle
            })
            .map(|(slot, _)| slot.core.conversation.clone())
            .collect();
        expired.iter().filter_map(|conversation| slots.remove(conversation)).collect()
    }

    fn take(&self, conversation: Option<&str>) -> Vec<Arc<Slot<T>>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        match conversation {
            Some(conversation) => slots.remove(conversation).into_iter().collect(),
            None => {
                let all = std::mem::take(&mut *slots);
                all.by_conversation.into_values().map(|(slot, _)| slot).collect()
            }
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

/// Cleans the slots up; how many held an instance of this process (a stored state's slot
/// only ordered its calls: its state is ended in the store).
async fn finish_all<T: ConversationState>(slots: Vec<Arc<Slot<T>>>) -> usize {
    let mut finished = 0;
    for slot in slots {
        let local = slot.core.local;
        finished += usize::from(slot.finish().await && local);
    }
    finished
}

/// A store seen without its type, for [`Conversations`].
trait AnyStore: Send + Sync {
    fn end(&self, conversation: Option<&str>) -> BoxFuture<'static, usize>;
    fn evict_idle(&self) -> BoxFuture<'static, usize>;
    /// Cleans up idle instances in the background when a quarter of the idle time has passed
    /// since the last look.
    fn sweep_if_due(&self);
    fn live(&self) -> usize;
}

impl<T: ConversationState> AnyStore for Store<T> {
    fn end(&self, conversation: Option<&str>) -> BoxFuture<'static, usize> {
        Box::pin(finish_all(self.take(conversation)))
    }

    fn evict_idle(&self) -> BoxFuture<'static, usize> {
        Box::pin(finish_all(self.take_idle()))
    }

    fn sweep_if_due(&self) {
        {
            let mut last = self.last_sweep.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() < self.idle / 4 {
                return;
            }
            *last = Instant::now();
        }
        for slot in self.take_idle() {
            finish_later(slot);
        }
    }

    fn live(&self) -> usize {
        if !self.local {
            return 0;
        }
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.by_conversation.values().filter(|(slot, _)| slot.instance.initialized()).count()
    }
}

type Registered = (Arc<dyn Any + Send + Sync>, Arc<dyn AnyStore>);

/// The stores of one [`Conversations`], by type.
struct Registry {
    stores: Mutex<HashMap<TypeId, Registered>>,
    /// The bounds of the types that set none.
    defaults: StateLimits,
    /// The state stores of the executors built with these conversations, where the types with
    /// `shared_state` keep theirs: ending a conversation ends it there too.
    backends: Mutex<Vec<SharedStore>>,
}

/// The instances of stateful tools, across all their types and conversations: one store,
/// owned by an [`Executor`](crate::Executor) (each executor has its own unless the host gives
/// several the same one with
/// [`ExecutorBuilder::conversations`](crate::ExecutorBuilder::conversations)). Two executors
/// with separate stores never share an instance, whatever their conversation ids.
///
/// Clones are handles on the same store. Each type's live instances are bounded: by its
/// `#[tool]` keys `idle_timeout_ms` and `max_instances`, else by the store's limits
/// ([`Conversations::with_limits`]), else by [`StateLimits::DEFAULT_IDLE_TIMEOUT`] (30 minutes)
/// and [`StateLimits::DEFAULT_MAX_INSTANCES`] (10,000).
///
/// ```
/// # async fn host(executor: tool_core::Executor) {
/// // The user closed the chat: its instances are cleaned up and dropped.
/// executor.conversations().end("chat-42").await;
/// # }
/// ```
#[derive(Clone)]
pub struct Conversations(Arc<Registry>);

impl Default for Conversations {
    fn default() -> Self {
        Conversations::with_limits(StateLimits::default())
    }
}

impl fmt::Debug for Conversations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conversations").field("defaults", &self.0.defaults).field("live", &self.live()).finish()
    }
}

thread_local! {
    /// The store the executor binding a call on this thread reserves turns in.
    static BINDING: RefCell<Option<Conversations>> = const { RefCell::new(None) };
}

/// Puts the store that was in place back when a binding ends, even by a panic.
struct Restore(Option<Conversations>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        BINDING.with(|binding| *binding.borrow_mut() = previous);
    }
}

impl Conversations {
    /// An empty store, with the default bounds for types that set none.
    pub fn new() -> Conversations {
        Conversations::default()
    }

    /// An empty store whose bounds, for the types whose `#[tool]` sets none, are `limits`; a
    /// bound left `None` is the default ([`StateLimits::DEFAULT_IDLE_TIMEOUT`],
    /// [`StateLimits::DEFAULT_MAX_INSTANCES`]). A host that wants no practical bound says so
    /// with `Duration::MAX` or `usize::MAX`.
    pub fn with_limits(limits: StateLimits) -> Conversations {
        Conversations(Arc::new(Registry { stores: Mutex::default(), defaults: limits, backends: Mutex::default() }))
    }

    /// Ends `conversation`: each of its instances is cleaned up (after the calls holding it
    /// finish) and dropped. Returns how many there were.
    ///
    /// The state of the types with `shared_state` is ended in the store of each executor built
    /// with these conversations, for the conversation without a principal: after the call
    /// holding its lease commits (or the lease's wait runs out), the state is taken from the
    /// store, so that of two replicas ending one conversation exactly one runs its cleanup.
    pub async fn end(&self, conversation: &str) -> usize {
        let local = self.across_stores(|store| store.end(Some(conversation))).await;
        local + super::registry::end_everywhere(&self.backends(), &Owner::new(None, Some(conversation))).await
    }

    /// Ends every conversation whose instances live in this process. Returns how many instances
    /// were cleaned up. The state of the types with `shared_state` stays in the store: it
    /// outlives this process, other replicas may be serving it, and its time to live ends it.
    pub async fn end_all(&self) -> usize {
        self.across_stores(|store| store.end(None)).await
    }

    /// Cleans up every instance unused for longer than its type's idle time, now. Returns how
    /// many.
    pub async fn evict_idle(&self) -> usize {
        self.across_stores(|store| store.evict_idle()).await
    }

    /// How many instances are alive, across all types and conversations.
    pub fn live(&self) -> usize {
        self.stores().iter().map(|store| store.live()).sum()
    }

    /// Whether `self` and `other` are handles on the same store.
    #[cfg(feature = "mcp")]
    pub(crate) fn same_store(&self, other: &Conversations) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Notes that an executor keeps its state in `store`, so that ending a conversation ends
    /// its stored state there.
    pub(crate) fn attach(&self, store: &SharedStore) {
        let mut backends = self.0.backends.lock().unwrap_or_else(|e| e.into_inner());
        if !backends.iter().any(|known| Arc::ptr_eq(known, store)) {
            backends.push(Arc::clone(store));
        }
    }

    fn backends(&self) -> Vec<SharedStore> {
        self.0.backends.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Runs `bind` with this store as the one the stateful tools it binds take their turns in.
    pub(crate) fn binding<R>(&self, bind: impl FnOnce() -> R) -> R {
        let previous = BINDING.with(|binding| binding.borrow_mut().replace(self.clone()));
        let _restore = Restore(previous);
        bind()
    }

    fn store<T: ConversationState>(&self, local: bool) -> Arc<Store<T>> {
        let mut stores = self.0.stores.lock().unwrap_or_else(|e| e.into_inner());
        let (typed, _) = stores.entry(TypeId::of::<T>()).or_insert_with(|| {
            let store = Arc::new(Store::<T>::new(self.0.defaults, local));
            (Arc::clone(&store) as Arc<dyn Any + Send + Sync>, store as Arc<dyn AnyStore>)
        });
        Arc::clone(typed).downcast::<Store<T>>().unwrap_or_else(|_| unreachable!("the stores are keyed by type"))
    }

    fn stores(&self) -> Vec<Arc<dyn AnyStore>> {
        let stores = self.0.stores.lock().unwrap_or_else(|e| e.into_inner());
        stores.values().map(|(_, store)| Arc::clone(store)).collect()
    }

    /// Runs `each` on every type's store, one after the other; the sum of what they return.
    async fn across_stores(&self, each: impl Fn(&dyn AnyStore) -> BoxFuture<'static, usize>) -> usize {
        let runs: Vec<_> = self.stores().iter().map(|store| each(store.as_ref())).collect();
        let mut total = 0;
        for run in runs {
            total += run.await;
        }
        total
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
        if let TurnState::Reserved { core, ticket, passed, .. } = &mut self.0
            && !*passed
        {
            *passed = true;
            core.queue.release(*ticket);
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
    reserve_in::<T>(request, true)
}

/// Takes `request`'s turn on its conversation's slot of `T`, whose instance lives in this
/// process when `local` (else the slot only orders the calls of a stored state).
pub(super) fn reserve_in<T: ConversationState>(request: &ToolCallRequest, local: bool) -> Turn {
    let Some(conversation) = request.conversation_id.as_deref() else {
        return Turn(TurnState::Refused(
            ToolError::new(format!(
                "The tool `{}` keeps state for each conversation, and this call names no conversation: the host must set the request's `conversation_id`.",
                request.tool_name
            ))
            .with_code("missing_conversation"),
        ));
    };
    let Some(conversations) = BINDING.with(|binding| binding.borrow().clone()) else {
        return Turn(TurnState::Refused(
            ToolError::new(format!(
                "The tool `{}` keeps state for each conversation, and only an executor holds conversations: run the call with `Executor::execute`.",
                request.tool_name
            ))
            .with_code("no_conversation_store"),
        ));
    };
    for store in conversations.stores() {
        store.sweep_if_due();
    }
    match conversations.store::<T>(local).slot(conversation, &request.tool_name) {
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
/// this call has its place in the lock's first-come queue. With the lock, the type's idle time.
pub(super) async fn in_turn<T: ConversationState, G>(
    turn: &mut Turn,
    ctx: &ToolContext,
    acquire: fn(Arc<RwLock<T>>) -> BoxFuture<'static, G>,
) -> Result<(G, Duration), ToolError> {
    let (slot, core, ticket) = reserved::<T>(turn)?;
    if core.local && ctx.store().is_some_and(|store| store.is_shared()) && !ctx.environment().local_state {
        return Err(not_shared::<T>(ctx));
    }
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
    Ok((guard, core.idle))
}

/// Why a type whose instance lives in this process cannot run on a shared store.
#[cold]
fn not_shared<T>(ctx: &ToolContext) -> ToolError {
    let store = ctx.store().map_or("shared", |store| store.kind());
    ToolError::new(format!(
        "The tool `{}` keeps its state in this process's memory, and this executor's {store} state store is shared with other processes: each of them would keep a state of its own for the conversation. Add `shared_state` to `#[tool(..)]` on the impl block of `{}` to keep its state in the store, or allow state in this process with `ExecutorBuilder::allow_local_state(true)`.",
        crate::model::truncate(&ctx.request().tool_name),
        short_type_name::<T>()
    ))
    .with_code("state_not_shared")
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
        let (guard, _) = in_turn(&mut turn, &ctx, acquire).await?;
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

pub(super) fn short_type_name<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    name.rsplit("::").next().unwrap_or(name)
}
