//! OAuth 2.1 for the servers of this crate, as resource servers (the MCP authorization
//! specification): a request's access token is checked as a JWT against the keys the
//! authorization server publishes (RFC 7517, fetched, cached, refreshed on an unknown key id,
//! bounded in time and size), for its issuer, its audience (this server's URL, RFC 8707), its
//! times and its algorithm; the protected resource metadata (RFC 9728) tells a client where to
//! get a token, and the challenge of a refusal points at it.

mod introspect;
mod jwks;
mod principal;
mod refusal;
mod resource;

pub use crate::model::Principal;
pub use jsonwebtoken::Algorithm;
pub use refusal::{AuthError, TokenRefusal};
pub use resource::{ResourceServer, ResourceServerBuilder, MAX_LEEWAY};
