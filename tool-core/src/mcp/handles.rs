//! Conversation handles (MCP 2026-07-28, SEP-2567): the conversation of a request outside any
//! session, minted by the server and passed back by the client as an argument.
//!
//! A request that belongs to no session (every request of protocol 2026-07-28 over HTTP, and
//! every request of a stateless server) has no conversation of its own. A tool that keeps state
//! per conversation gets an optional argument (`conversation` unless the host names another):
//! a call without it starts a conversation, and its result gives the handle, which the model
//! passes in the calls that go on with it. Handles are 128 random bits, kept in the executor's
//! store under the principal that was given them, for a lifetime renewed by each use: another
//! principal, an expired or a made-up handle reach nothing, and all get the same answer.

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::model::ToolError;
use crate::state::{random_id, Expect, Owner, SharedStore, StateKey, Write, Written};

/// How long a conversation handle lives without a call that uses it, unless the host says
/// otherwise.
pub const DEFAULT_HANDLE_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The argument that carries a handle, unless the host names another.
pub(super) const HANDLE_ARGUMENT: &str = "conversation";

/// What every handle starts with, so that a model (and a log reader) knows one when it sees it.
const PREFIX: &str = "conv_";

/// The store kind of the handles given.
const HANDLE_KIND: &str = "mcp_conversation";

/// How a server mints and checks handles.
#[derive(Debug, Clone)]
pub(super) struct Handles {
    pub(super) argument: String,
    pub(super) ttl: Duration,
    /// Whether every tool takes a handle, not only those that keep state.
    pub(super) every_tool: bool,
}

impl Default for Handles {
    fn default() -> Self {
        Handles { argument: HANDLE_ARGUMENT.to_owned(), ttl: DEFAULT_HANDLE_TTL, every_tool: false }
    }
}

/// A call's conversation by its handle.
pub(super) struct Resolved {
    pub(super) handle: String,
    /// Whether the handle was minted for this call (its result then gives it).
    pub(super) minted: bool,
}

/// Whether `text` has the shape of a handle this server gives: the prefix, then 32 lowercase
/// hexadecimal digits.
fn well_formed(text: &str) -> bool {
    text.strip_prefix(PREFIX)
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

impl Handles {
    fn key(principal: Option<&str>, handle: &str) -> StateKey {
        Owner::new(principal, None).key(HANDLE_KIND, handle)
    }

    /// The property a stateful tool's input schema gains for the handle. It is not mirrored
    /// into an `Mcp-Param-*` header (SEP-2243): the server must then refuse a call whose client
    /// did not send the header (one that called without listing the tools first), and with the
    /// conversation in the store no balancer needs to route by it.
    pub(super) fn property(&self) -> Value {
        json!({
            "type": "string",
            "description": "The handle of the conversation to continue, as an earlier call's result gave it. Leave it out to start a new conversation.",
            "pattern": "^conv_[0-9a-f]{32}$"
        })
    }

    /// Takes the handle out of `arguments` (a JSON object as the client sent it) and finds its
    /// conversation, or, when there is none, mints one if `mint` (a tool that keeps state);
    /// the error is the model's text.
    pub(super) async fn resolve(
        &self,
        store: &SharedStore,
        principal: Option<&str>,
        tool: &str,
        arguments: &mut String,
        mint: bool,
    ) -> Result<Option<Resolved>, ToolError> {
        // A key that is the argument's name is written out in the text, or spelled with a
        // `\u` escape: without either, the text is not parsed here (extraction reads it).
        let quoted = Value::from(self.argument.as_str()).to_string();
        let named = arguments.contains(&quoted) || arguments.contains("\\u");
        let read = named.then(|| serde_json::from_str::<Value>(arguments).ok()).flatten();
        let mut object: Map<String, Value> = match read {
            Some(Value::Object(object)) => object,
            // Arguments that do not read are left for extraction to repair or refuse.
            _ => Map::new(),
        };
        let given = object.remove(&self.argument);
        if given.is_some() {
            *arguments = Value::Object(object).to_string();
        }
        let unavailable = |error: crate::state::StateError| error.into_tool_error();
        match given {
            None | Some(Value::Null) if !mint => Ok(None),
            None | Some(Value::Null) => {
                let handle = format!("{PREFIX}{}", random_id());
                let write = Write::new(b"open".to_vec(), self.ttl).expect(Expect::Absent);
                match store.write(&Self::key(principal, &handle), write).await.map_err(unavailable)? {
                    Written::Done(_) => Ok(Some(Resolved { handle, minted: true })),
                    _ => Err(ToolError::new("A fresh conversation handle was already taken; call again.")
                        .with_code("handle_conflict")),
                }
            }
            Some(Value::String(handle)) => {
                let known = well_formed(&handle)
                    && store.touch(&Self::key(principal, &handle), self.ttl).await.map_err(unavailable)?;
                match known {
                    true => Ok(Some(Resolved { handle, minted: false })),
                    false => Err(self.unknown(tool, &handle)),
                }
            }
            Some(other) => Err(ToolError::new(format!(
                "`{}` of `{tool}` must be the text of a conversation handle, not {}. Leave it out to start a new conversation.",
                self.argument,
                crate::model::truncate(&other.to_string())
            ))
            .with_code("unknown_conversation")),
        }
    }

    fn unknown(&self, tool: &str, handle: &str) -> ToolError {
        ToolError::new(format!(
            "The conversation handle `{}` of this call of `{tool}` is unknown or has expired (a handle lasts {} after its last use). Leave `{}` out to start a new conversation.",
            crate::model::truncate(handle),
            crate::model::duration_words(self.ttl),
            self.argument
        ))
        .with_code("unknown_conversation")
    }

    /// What the result of a call that started a conversation says of its handle.
    pub(super) fn given(&self, handle: &str) -> String {
        format!(
            "This call started a conversation. To go on with it, pass \"{}\": \"{handle}\" in the arguments of later calls (the handle lasts {} after its last use).",
            self.argument,
            crate::model::duration_words(self.ttl)
        )
    }
}
