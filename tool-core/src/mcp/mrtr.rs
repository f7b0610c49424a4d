//! Multi-round-trip requests (MCP 2026-07-28, SEP-2322): a served tool's questions
//! ([`ToolContext::elicit`](crate::ToolContext::elicit),
//! [`ToolContext::sample`](crate::ToolContext::sample), approval by the client's user) asked
//! of a client that takes no server-to-client requests.
//!
//! A call that asks something it has no answer for ends its round: the client gets an
//! `InputRequiredResult` with the questions and a sealed `requestState`, and calls again with
//! the answers. The call then runs again from the top, and each question it asks in the same
//! place with the same content gets its answer at once. Re-running rather than keeping the
//! suspended call is what lets any replica serve any round: nothing of the call stays in a
//! process between rounds. It asks of tools what MCP asks of them anyway (a round may land on
//! another server): ask before acting.
//!
//! The `requestState` carries the answers so far and the questions still open, sealed with an
//! HMAC (rmcp's `RequestStateCodec`, with key ids so the key can be rotated without downtime),
//! bound to the principal, the tool and the arguments of the call, with an expiry. Each state
//! opens once: its nonce is kept in the executor's store from the round that sealed it to the
//! round that redeems it, so a replayed state is refused on every replica that shares the
//! store.

// Sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but part of it, and
// asked in rounds like forms; rmcp marks their items deprecated.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ElicitRequest,
    ElicitResult, InputRequest, InputRequests, InputRequiredResult, InputResponses, ListRootsRequest,
    RequestStateCodec, SealOptions,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Notify;

use crate::ask::{ElicitationAnswer, SamplingResponse};
use crate::executor::{CallScope, Executor};
use crate::model::ToolError;
use crate::policy::{Decision, PendingCall};
use crate::state::{digest, random_id, Expect, Owner, SharedStore, StateKey, Write, Written};

/// How long a client has to answer one round's questions, unless the host says otherwise.
pub const DEFAULT_INPUT_STATE_TTL: Duration = Duration::from_secs(600);

/// How many rounds one call may take, unless the host says otherwise: a tool that asks more
/// is told it cannot.
pub const DEFAULT_MAX_INPUT_ROUNDS: u32 = 10;

/// The store kind of the nonces of states given and not yet redeemed.
const NONCE_KIND: &str = "mcp_input_state";

/// How the server seals and bounds its multi-round-trip requests.
#[derive(Clone)]
pub(super) struct InputRounds {
    codec: RequestStateCodec,
    ttl: Duration,
    max_rounds: u32,
}

impl std::fmt::Debug for InputRounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputRounds").field("ttl", &self.ttl).field("max_rounds", &self.max_rounds).finish()
    }
}

/// The keys that seal `requestState`: the one that seals, and the others that still open.
#[derive(Clone)]
pub(super) struct StateKeys {
    active: String,
    keys: Vec<(String, Vec<u8>)>,
}

impl StateKeys {
    /// A key made for this process alone: rounds of a call must reach this process again.
    fn random() -> StateKeys {
        let key = format!("{}{}", random_id(), random_id()).into_bytes();
        StateKeys { active: "process".to_owned(), keys: vec![("process".to_owned(), key)] }
    }
}

impl InputRounds {
    /// Rounds sealed with `keys` (a random key of this process when none).
    pub(super) fn new(keys: Option<StateKeys>, ttl: Duration, max_rounds: u32) -> Result<InputRounds, String> {
        let keys = keys.unwrap_or_else(StateKeys::random);
        let codec = RequestStateCodec::new_with_keyring(keys.active, keys.keys).map_err(|e| e.to_string())?;
        Ok(InputRounds { codec, ttl, max_rounds })
    }

    /// The keyring `active` seals with and `keys` open (it must hold `active`); each key at
    /// least [`RequestStateCodec::MIN_KEY_LENGTH`] bytes.
    pub(super) fn keys(active: &str, keys: Vec<(String, Vec<u8>)>) -> StateKeys {
        StateKeys { active: active.to_owned(), keys }
    }
}

/// One question asked in a round, as it is kept in the sealed state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Asked {
    /// A digest of the question as sent: an answer is given only to the same question.
    question: String,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub(super) enum Kind {
    Elicitation,
    Sampling,
    Roots,
}

impl Kind {
    /// The kind of a question by its request as sent (`{"method": "elicitation/create", ..}`).
    pub(super) fn of_request(request: &Value) -> Option<Kind> {
        match request.get("method")?.as_str()? {
            "elicitation/create" => Some(Kind::Elicitation),
            "sampling/createMessage" => Some(Kind::Sampling),
            "roots/list" => Some(Kind::Roots),
            _ => None,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Kind::Elicitation => "elicitation",
            Kind::Sampling => "sampling",
            Kind::Roots => "roots",
        }
    }
}

/// An answered question: the digest of the question as asked (empty for an answer given
/// without a state, to a question the tool named), and the client's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Answered {
    pub(super) question: String,
    pub(super) answer: Value,
}

impl Answered {
    /// Whether this is the answer to `question` (a digest) asked at `key`, named `named` by
    /// the tool: an answer given without a state fits whatever its named question asks.
    pub(super) fn fits(&self, key: &str, question: &str, named: Option<&str>) -> bool {
        self.question == question || (self.question.is_empty() && named == Some(key))
    }
}

/// The digest of a question as sent: an answer is given only to the same question.
pub(super) fn question_digest(request: &InputRequest) -> String {
    digest(serde_json::to_string(request).unwrap_or_default().as_bytes())
}

/// What `requestState` carries from one round to the next.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Carried {
    nonce: String,
    round: u32,
    answers: BTreeMap<String, Answered>,
    open: BTreeMap<String, Asked>,
}

/// One round of one call: the answers it starts with and the questions it asks.
pub(super) struct Round {
    answers: BTreeMap<String, Answered>,
    round: u32,
    keys: QuestionKeys,
    asked: Mutex<Vec<(String, Asked, InputRequest)>>,
    asking: Notify,
    exhausted: bool,
}

/// Why a call's answers were refused: a JSON-RPC error (invalid params) for the client.
fn refused(why: impl std::fmt::Display) -> ErrorData {
    ErrorData::invalid_params(format!("the requestState of this call cannot be used: {why}"), None)
}

impl InputRounds {
    /// What binds a state to its call: the principal, the tool and the arguments.
    fn bound_to(principal: Option<&str>, tool: &str, arguments: &str) -> Vec<u8> {
        format!("{}\u{0}{tool}\u{0}{}", principal.unwrap_or(""), digest(arguments.as_bytes())).into_bytes()
    }

    fn nonce_key(principal: Option<&str>, nonce: &str) -> StateKey {
        Owner::new(principal, None).key(NONCE_KIND, nonce)
    }

    /// The round a call starts with: the first, or the next after the state the client echoed
    /// (verified, unexpired, its call's, and redeemed once) with its answers.
    pub(super) async fn begin(
        &self,
        store: &SharedStore,
        principal: Option<&str>,
        tool: &str,
        arguments: &str,
        state: Option<&str>,
        responses: Option<&InputResponses>,
    ) -> Result<Round, ErrorData> {
        let Some(state) = state else {
            // Without a state, answers can only be to questions a tool named (a client that
            // knows the tool may answer them unasked), each read as the kind of result it
            // turns out to be asked as; approval's questions are never named, so they are
            // answered only through a state this server sealed.
            let mut answers = BTreeMap::new();
            for (key, answer) in responses.into_iter().flatten() {
                if ![Kind::Elicitation, Kind::Sampling, Kind::Roots]
                    .iter()
                    .any(|&kind| check_answer(key, kind, answer).is_ok())
                {
                    return Err(ErrorData::invalid_params(
                        format!(
                            "inputResponses.{key} is not the result of an elicitation, a sampling or a roots request"
                        ),
                        None,
                    ));
                }
                answers.insert(key.clone(), Answered { question: String::new(), answer: answer.clone() });
            }
            return Ok(Round::new(answers, 0, false));
        };
        let bound = Self::bound_to(principal, tool, arguments);
        let carried: Carried = self.codec.open_json_with(state, &bound).map_err(|e| match e {
            rmcp::model::RequestStateError::Expired => refused(format!(
                "it expired (a round's questions must be answered within {})",
                crate::model::duration_words(self.ttl)
            )),
            _ => refused("it is not one this server gave for this call (its integrity check failed)"),
        })?;
        let key = Self::nonce_key(principal, &carried.nonce);
        match store.take(&key).await {
            Ok(Some(_)) => {}
            Ok(None) => return Err(refused("it was already used, or it expired")),
            Err(error) => return Err(ErrorData::internal_error(error.to_string(), None)),
        }
        let mut answers = carried.answers;
        let responses = responses.cloned().unwrap_or_default();
        for (key, asked) in carried.open {
            let Some(answer) = responses.get(&key) else { continue };
            check_answer(&key, asked.kind, answer)?;
            answers.insert(key, Answered { question: asked.question, answer: answer.clone() });
        }
        let round = carried.round + 1;
        Ok(Round::new(answers, round, round >= self.max_rounds))
    }

    /// The `InputRequiredResult` of a round that ended asking: its questions, and the state of
    /// the next round sealed (its nonce kept in `store` until it is redeemed).
    pub(super) async fn end(
        &self,
        round: &Round,
        store: &SharedStore,
        principal: Option<&str>,
        tool: &str,
        arguments: &str,
    ) -> Result<InputRequiredResult, ErrorData> {
        let asked = std::mem::take(&mut *round.asked.lock().unwrap_or_else(|e| e.into_inner()));
        let mut requests = InputRequests::new();
        let mut open = BTreeMap::new();
        for (key, question, request) in asked {
            requests.insert(key.clone(), request);
            open.insert(key, question);
        }
        let carried = Carried { nonce: random_id(), round: round.round, answers: round.answers.clone(), open };
        let write = Write::new(b"given".to_vec(), self.ttl).expect(Expect::Absent);
        match store.write(&Self::nonce_key(principal, &carried.nonce), write).await {
            Ok(Written::Done(_)) => {}
            Ok(_) => return Err(ErrorData::internal_error("a fresh nonce was already in the store", None)),
            Err(error) => return Err(ErrorData::internal_error(error.to_string(), None)),
        }
        let bound = Self::bound_to(principal, tool, arguments);
        let options = SealOptions::new().associated_data(&bound).ttl(self.ttl);
        let sealed = self
            .codec
            .seal_json_with(&carried, &options)
            .map_err(|e| ErrorData::internal_error(format!("the requestState could not be sealed: {e}"), None))?;
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)))
    }
}

/// Refuses an answer that is not the result its question asks for, naming its key.
pub(super) fn check_answer(key: &str, kind: Kind, answer: &Value) -> Result<(), ErrorData> {
    let read = match kind {
        Kind::Elicitation => serde_json::from_value::<ElicitResult>(answer.clone()).map(drop),
        Kind::Sampling => serde_json::from_value::<CreateMessageResult>(answer.clone()).map(drop),
        Kind::Roots => serde_json::from_value::<rmcp::model::ListRootsResult>(answer.clone()).map(drop),
    };
    read.map_err(|e| {
        ErrorData::invalid_params(
            format!("inputResponses.{key} is not the {} result its request asked for: {e}", kind.key()),
            None,
        )
    })
}

impl Round {
    fn new(answers: BTreeMap<String, Answered>, round: u32, exhausted: bool) -> Round {
        Round {
            answers,
            round,
            keys: QuestionKeys::default(),
            asked: Mutex::default(),
            asking: Notify::new(),
            exhausted,
        }
    }

    /// Whether this round goes on with a call an earlier round of it began: its state proves
    /// (sealed by this server, for this call, once) that the call's rate limits admitted it.
    pub(super) fn continues(&self) -> bool {
        self.round > 0
    }

    /// The answers this round started with, by key.
    pub(super) fn answers(&self) -> &BTreeMap<String, Answered> {
        &self.answers
    }

    /// Resolves once the call asked a question this round has no answer for.
    pub(super) async fn asking(&self) {
        self.asking.notified().await;
    }
}

/// The keys of one call's questions, each used once: a tool's name for its question, unless it
/// named two questions of one call alike, else the kind and the question's place in the call.
#[derive(Default)]
pub(super) struct QuestionKeys {
    next: AtomicUsize,
    used: Mutex<std::collections::HashSet<String>>,
}

impl QuestionKeys {
    pub(super) fn key(&self, kind: Kind, named: Option<&str>) -> String {
        let place = self.next.fetch_add(1, Ordering::SeqCst);
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let key = match named.filter(|key| !key.is_empty() && !used.contains(*key)) {
            Some(key) => key.to_owned(),
            None => format!("{}_{place}", kind.key()),
        };
        used.insert(key.clone());
        key
    }
}

/// Where a call's questions go: the rounds of its request, or its task (`tasks.rs`).
pub(super) trait Asker: Send + Sync + 'static {
    /// The client's answer to `request` (of `kind`, named `named` by the tool).
    fn ask(
        &self,
        kind: Kind,
        named: Option<&str>,
        request: InputRequest,
    ) -> impl std::future::Future<Output = Result<Value, ToolError>> + Send;
}

impl Asker for Round {
    /// The answer to `request`, asked in its place in the call; a question without one ends
    /// the round (this never resolves then: the call is dropped and asked again).
    async fn ask(&self, kind: Kind, named: Option<&str>, request: InputRequest) -> Result<Value, ToolError> {
        let key = self.keys.key(kind, named);
        let question = question_digest(&request);
        if let Some(answered) = self.answers.get(&key).filter(|answered| answered.fits(&key, &question, named)) {
            return Ok(answered.answer.clone());
        }
        if self.exhausted {
            return Err(ToolError::new(format!(
                "The call asked the MCP client in more rounds than the server allows ({}).",
                self.round
            ))
            .with_code("input_rounds_exhausted"));
        }
        self.asked.lock().unwrap_or_else(|e| e.into_inner()).push((key, Asked { question, kind }, request));
        self.asking.notify_one();
        std::future::pending().await
    }
}

/// Asks `request` of the client through `asker`.
pub(super) async fn elicit(
    asker: &impl Asker,
    request: crate::ask::ElicitationRequest,
) -> Result<ElicitationAnswer, ToolError> {
    let params = super::ask::elicitation_params(&request)?;
    let asked = InputRequest::Elicitation(ElicitRequest::new(params));
    let answer = asker.ask(Kind::Elicitation, request.key.as_deref(), asked).await?;
    let result: ElicitResult = serde_json::from_value(answer).map_err(|e| {
        ToolError::new(format!("The MCP client's answer is not a form's: {e}.")).with_code("elicitation_failed")
    })?;
    super::ask::elicitation_answer(result)
}

/// Asks the client's model `request` through `asker`.
async fn sample(asker: &impl Asker, request: crate::ask::SamplingRequest) -> Result<SamplingResponse, ToolError> {
    let params: CreateMessageRequestParams =
        serde_json::from_value(super::ask::sampling_params(&request)).map_err(|e| {
            ToolError::new(format!("The sampling request is not valid for MCP: {e}.")).with_code("sampling_failed")
        })?;
    let asked = InputRequest::CreateMessage(CreateMessageRequest::new(params));
    let answer = asker.ask(Kind::Sampling, request.key.as_deref(), asked).await?;
    Ok(super::ask::sampling_response(&answer))
}

/// Asks the client's roots (`roots/list`) through `asker`.
async fn roots(asker: &impl Asker) -> Result<Vec<crate::ask::Root>, ToolError> {
    let answer = asker.ask(Kind::Roots, None, InputRequest::ListRoots(ListRootsRequest::default())).await?;
    super::ask::read_roots(&answer)
}

/// `scope` with the questions of a call of `context` asked through `round`: forms and approval
/// when the request declared form elicitation, sampling when it declared sampling, roots when it
/// declared roots.
pub(super) fn scope_asking_in_rounds(
    context: &RequestContext<RoleServer>,
    round: &Arc<Round>,
    executor: &Executor,
    approval_by_elicitation: bool,
    mut scope: CallScope,
) -> CallScope {
    let capabilities = context.client_capabilities().unwrap_or_default();
    // A call's rate limits count it once, in its first round.
    scope.admitted = round.continues();
    scope_asking(round, &capabilities, executor, approval_by_elicitation, scope)
}

/// `scope` with the questions of a call asked through `asker`, as far as `capabilities` (the
/// client's) allow: forms and approval when it declared form elicitation, sampling when it
/// declared sampling.
pub(super) fn scope_asking(
    asker: &Arc<impl Asker>,
    capabilities: &ClientCapabilities,
    executor: &Executor,
    approval_by_elicitation: bool,
    mut scope: CallScope,
) -> CallScope {
    if capabilities.sampling.is_some() {
        let asker = Arc::clone(asker);
        scope = scope.on_sample(move |request| {
            let asker = Arc::clone(&asker);
            async move { sample(&*asker, request).await }
        });
    }
    if capabilities.roots.is_some() {
        let asker = Arc::clone(asker);
        scope = scope.on_roots(move || {
            let asker = Arc::clone(&asker);
            async move { roots(&*asker).await }
        });
    }
    if super::ask::takes_forms(capabilities) {
        let asking = Arc::clone(asker);
        scope = scope.on_elicit(move |request| {
            let asker = Arc::clone(&asking);
            async move { elicit(&*asker, request).await }
        });
        if approval_by_elicitation && !executor.has_approver() {
            let asker = Arc::clone(asker);
            scope = scope.on_approval(move |pending: PendingCall| {
                let asker = Arc::clone(&asker);
                async move {
                    match elicit(&*asker, super::approve::approval_request(&pending)).await {
                        Ok(answer) => super::approve::decision(answer),
                        Err(error) => Decision::deny(format!("approval could not be asked: {}", error.message())),
                    }
                }
            });
        }
    }
    scope
}

/// Whether `context`'s request speaks a protocol with multi-round-trip requests.
pub(super) fn in_rounds(context: &RequestContext<RoleServer>) -> bool {
    !super::ask::takes_requests(context)
}
