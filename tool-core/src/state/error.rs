//! Why a store could not do what was asked.

/// A store's failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The store could not be reached, or did not answer in time: calls that need state fail
    /// with `state_unavailable` until it is back.
    #[error("the {store} state store is unavailable: {reason}")]
    Unavailable {
        /// The kind of store (`redis`).
        store: &'static str,
        /// What went wrong, without credentials.
        reason: String,
    },
    /// The store answered something this crate cannot read (another program wrote the key, or
    /// a version of this crate with another layout).
    #[error("the {store} state store holds something unreadable at {key}: {reason}")]
    Unreadable {
        /// The kind of store.
        store: &'static str,
        /// The key, as `tag:kind:name`.
        key: String,
        /// What was wrong.
        reason: String,
    },
}

impl StateError {
    /// The failure's code in records and errors: `state_unavailable` or `state_unreadable`.
    pub fn code(&self) -> &'static str {
        match self {
            StateError::Unavailable { .. } => "state_unavailable",
            StateError::Unreadable { .. } => "state_unreadable",
        }
    }
}

impl StateError {
    /// What the model reads when a call's state could not be reached: to try again later (the
    /// reason stays with the host, as the error's internal detail). Returned by a tool, a
    /// [`StateError::Unavailable`] makes the record's failure `state_unavailable`.
    pub fn into_tool_error(self) -> crate::model::ToolError {
        let error = self;
        let (message, store) = match &error {
            StateError::Unavailable { store, .. } => {
                ("The call could not run: the state it needs is unavailable right now. Try again in a moment.", *store)
            }
            StateError::Unreadable { store, .. } => {
                ("The call could not run: the state it needs could not be read.", *store)
            }
        };
        crate::model::ToolError::new(message)
            .with_code(error.code())
            .with_details(serde_json::json!({ "store": store }))
            .with_internal_detail(error.to_string())
    }
}
