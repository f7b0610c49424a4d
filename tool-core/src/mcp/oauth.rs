//! The streamable HTTP server as an OAuth 2.1 resource server (feature `oauth`): every request
//! to the endpoint needs an access token the [`ResourceServer`] accepts, whose principal the
//! request carries on; the protected resource metadata is served to anyone.

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;

use super::guard::CalledTool;
use super::McpServer;
use crate::auth::{Principal, ResourceServer};

/// `router` behind `auth`, with the metadata at its well-known paths (RFC 9728: the resource's
/// path after the well-known prefix, and the prefix alone, which clients also try).
pub(super) fn protect(router: Router, auth: ResourceServer) -> Router {
    let router = router.layer(middleware::from_fn_with_state(auth.clone(), require_access_token));
    let metadata = auth.metadata().to_string();
    let mut paths = vec![auth.metadata_path()];
    paths.push("/.well-known/oauth-protected-resource".to_owned());
    paths.dedup();
    let mut documents = Router::new();
    for path in paths {
        let metadata = metadata.clone();
        documents = documents.route(
            &path,
            // Public, and read by clients running in browsers from other origins.
            axum::routing::get(move || async move {
                ([(header::CONTENT_TYPE, "application/json"), (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")], metadata)
            }),
        );
    }
    router.merge(documents)
}

/// `router` refusing with `403` a `tools/call` whose access token lacks a scope the tool needs,
/// with the challenge that names the scopes, so that the client can ask for them (step-up).
/// Placed inside the request guard, which has read the body and noted the tool it calls.
pub(super) fn check_scopes(router: Router, auth: ResourceServer, server: McpServer) -> Router {
    router.layer(middleware::from_fn_with_state((auth, server), require_scopes))
}

async fn require_scopes(
    State((auth, server)): State<(ResourceServer, McpServer)>,
    request: Request,
    next: Next,
) -> Response {
    let (Some(principal), Some(CalledTool(name))) =
        (request.extensions().get::<Principal>(), request.extensions().get::<CalledTool>())
    else {
        return next.run(request).await;
    };
    let missing = McpServer::missing(&server.scopes_needed(name), &principal.scopes);
    if missing.is_empty() {
        return next.run(request).await;
    }
    let message = format!(
        "the access token lacks the scope {}, which the tool `{}` needs",
        missing.join(" "),
        crate::model::truncate(name)
    );
    let mut response = (StatusCode::FORBIDDEN, message).into_response();
    if let Ok(challenge) = HeaderValue::from_str(&auth.insufficient_scope(&missing)) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// Lets through a request whose access token `auth` accepts, its principal in the request's
/// extensions (where the MCP server reads it); refuses any other with the challenge that names
/// the metadata and says why.
async fn require_access_token(State(auth): State<ResourceServer>, mut request: Request, next: Next) -> Response {
    let authorization = request.headers().get(header::AUTHORIZATION).and_then(|value| value.to_str().ok());
    match auth.authenticate(authorization).await {
        Ok(principal) => {
            request.extensions_mut().insert(principal);
            next.run(request).await
        }
        Err(refusal) => {
            let status = StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::UNAUTHORIZED);
            let mut response = (status, refusal.to_string()).into_response();
            if let Ok(challenge) = HeaderValue::from_str(&auth.challenge(&refusal)) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
            }
            response
        }
    }
}
