//! The OAuth arguments of `serve-mcp` (feature `oauth`): the endpoint as an OAuth 2.1 resource
//! server, from the command line.

use crate::auth::ResourceServer;

/// `serve-mcp --oauth-*`.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct OAuthArgs {
    /// With --http: protect the endpoint with OAuth 2.1, accepting access tokens this
    /// authorization server issues (its issuer URL; its keys are found from its metadata).
    /// Needs --oauth-resource.
    #[arg(long, value_name = "URL", requires = "oauth_resource", conflicts_with = "secret")]
    oauth_issuer: Option<String>,
    /// With --oauth-issuer: this server's public URL (for example https://tools.example.com/mcp),
    /// which tokens must name as their audience.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    oauth_resource: Option<String>,
    /// With --oauth-issuer: fetch the keys from this URL instead of the one the issuer's
    /// metadata names.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    oauth_jwks_uri: Option<String>,
    /// With --oauth-issuer: accept tokens naming this audience too (an identity provider that
    /// puts its API's identifier in `aud`); repeat for more.
    #[arg(long, value_name = "AUDIENCE", requires = "oauth_issuer")]
    oauth_audience: Vec<String>,
    /// With --oauth-issuer: the scopes the protected resource metadata lists (space-separated),
    /// so clients know what to ask for.
    #[arg(long, value_name = "SCOPES", requires = "oauth_issuer")]
    oauth_scopes_supported: Option<String>,
    /// With --oauth-issuer: check tokens at this introspection endpoint (RFC 7662) instead of as
    /// JWTs, for opaque tokens; needs --oauth-client-id and --oauth-client-secret-env.
    #[arg(long, value_name = "URL", requires_all = ["oauth_issuer", "oauth_client_id", "oauth_client_secret_env"])]
    oauth_introspection: Option<String>,
    /// With --oauth-introspection: this server's client id at the authorization server.
    #[arg(long, value_name = "ID", requires = "oauth_introspection")]
    oauth_client_id: Option<String>,
    /// With --oauth-introspection: the environment variable holding this server's client
    /// secret (kept out of `ps`).
    #[arg(long, value_name = "VAR", requires = "oauth_introspection")]
    oauth_client_secret_env: Option<String>,
}

impl OAuthArgs {
    /// The resource server the arguments describe, if they describe one; `Err` says which
    /// argument is wrong, without the secret.
    pub(super) fn resource_server(self) -> Result<Option<ResourceServer>, String> {
        let Some((issuer, resource)) = self.oauth_issuer.zip(self.oauth_resource) else { return Ok(None) };
        let mut builder = ResourceServer::builder(issuer, resource);
        if let Some(uri) = self.oauth_jwks_uri {
            builder = builder.jwks_uri(uri);
        }
        for audience in self.oauth_audience {
            builder = builder.audience(audience);
        }
        if let Some(scopes) = self.oauth_scopes_supported {
            builder = builder.scopes_supported(scopes.split_whitespace());
        }
        if let Some(endpoint) = self.oauth_introspection {
            let id = self.oauth_client_id.unwrap_or_default();
            let variable = self.oauth_client_secret_env.unwrap_or_default();
            let secret = std::env::var(&variable).map_err(|_| {
                format!("--oauth-client-secret-env: the environment variable `{variable}` is not set (or not UTF-8)")
            })?;
            builder = builder.introspection(endpoint, id, secret);
        }
        builder.build().map(Some).map_err(|error| format!("--oauth-issuer: {error}"))
    }
}
