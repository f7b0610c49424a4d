//! What a host function's panic said, for the server's log: a panic in a reader, a prompt or
//! a completer becomes a JSON-RPC error for the client, and its message stays here.

/// What a panicked task said, for the server's log.
pub(crate) fn panic_text(error: tokio::task::JoinError) -> String {
    match error.try_into_panic() {
        Ok(payload) => payload_text(payload.as_ref()),
        Err(error) => error.to_string(),
    }
}

/// The text of a panic's payload.
pub(crate) fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    crate::model::panic_words(payload)
}
