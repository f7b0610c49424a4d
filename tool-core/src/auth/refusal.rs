//! Why a request's access token was not accepted, and why a resource server cannot be built.

/// Why an access token was refused: the client gets `401` (`503` when the keys cannot be
/// fetched) with `WWW-Authenticate: Bearer error="invalid_token", error_description=".."`,
/// the description being this error's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenRefusal {
    /// No `Authorization: Bearer ..` header: the challenge names the metadata, no error.
    #[error("the request has no access token: send `Authorization: Bearer <token>`")]
    Missing,
    /// The `Authorization` header is not a bearer token.
    #[error("the Authorization header is not `Bearer <token>`")]
    NotBearer,
    /// Longer than the server reads.
    #[error("the access token is {bytes} bytes long; this server reads at most {max}")]
    TooLarge {
        /// Its length.
        bytes: usize,
        /// The most read.
        max: usize,
    },
    /// Not a JWT this server can read.
    #[error("the access token is not a JWT this server can read: {0}")]
    Malformed(String),
    /// Unsigned, signed with an algorithm this server does not accept, or with one its key is
    /// not for.
    #[error("{0}")]
    Algorithm(String),
    /// Signed with a key the authorization server does not publish (after a fetch of its keys).
    #[error("{0}")]
    UnknownKey(String),
    /// The signature does not verify.
    #[error("the access token's signature does not verify")]
    Signature,
    /// Past its `exp`.
    #[error("the access token has expired")]
    Expired,
    /// Before its `nbf`.
    #[error("the access token is not valid yet (its `nbf` is in the future)")]
    NotYetValid,
    /// Issued for another resource.
    #[error("the access token is for another resource: its `aud` does not name {0}")]
    Audience(String),
    /// Issued by another authorization server.
    #[error("the access token was issued by another authorization server: its `iss` is not {0}")]
    Issuer(String),
    /// The authorization server's introspection says the token is not active (revoked,
    /// expired, unknown).
    #[error("the access token is not active: the authorization server's introspection says so")]
    Inactive,
    /// A claim the server requires is missing.
    #[error("the access token has no `{0}` claim")]
    MissingClaim(String),
    /// The authorization server's keys (or its metadata, or its introspection endpoint) could
    /// not be reached: `503`.
    #[error("{0}")]
    AuthorizationServerUnavailable(String),
}

impl TokenRefusal {
    /// The HTTP status of the answer: `503` while the keys cannot be fetched, else `401`.
    pub fn status(&self) -> u16 {
        match self {
            TokenRefusal::AuthorizationServerUnavailable(_) => 503,
            _ => 401,
        }
    }

    /// The `error` of the challenge (RFC 6750): none for a request without a token.
    pub(super) fn error_code(&self) -> Option<&'static str> {
        match self {
            TokenRefusal::Missing | TokenRefusal::AuthorizationServerUnavailable(_) => None,
            TokenRefusal::NotBearer => Some("invalid_request"),
            _ => Some("invalid_token"),
        }
    }
}

/// Why a resource server cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A URL that is not one, or not `https` (plain `http` is accepted on loopback only).
    #[error("{what} `{url}` cannot be used: {why}")]
    Url {
        /// Which URL.
        what: &'static str,
        /// The URL.
        url: String,
        /// What is wrong.
        why: String,
    },
    /// A symmetric algorithm: a resource server verifies with the authorization server's
    /// public keys, and a shared secret would let anyone holding it mint tokens.
    #[error("{0:?} is a shared-secret algorithm; a resource server accepts only public-key algorithms (RS*, PS*, ES*, EdDSA)")]
    SymmetricAlgorithm(jsonwebtoken::Algorithm),
    /// No algorithm left to accept.
    #[error("no signing algorithm is accepted: give at least one")]
    NoAlgorithm,
    /// The HTTP client for the keys could not be made.
    #[error("the HTTP client that fetches the keys could not be made: {0}")]
    Client(String),
}
