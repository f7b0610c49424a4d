//! Building REST tools from registries and specs.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::call::RestCall;
use super::error::RestError;
use super::openapi::{openapi_specs, OpenApiOptions};
use super::spec::{RegistryFile, RestToolSpec};
use crate::tool::DynamicTool;

/// Builds REST tools from specs, sharing one HTTP client (its connection pool).
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tool_core::prelude::*;
/// use tool_core::rest::RestTools;
///
/// let tools = RestTools::new().load_file("tools.toml")?;
/// let mut catalog = ToolCatalog::builder().with_global();
/// for tool in tools {
///     catalog = catalog.add_tool(tool);
/// }
/// let executor = Executor::new(catalog.build()?);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct RestTools {
    client: reqwest::Client,
}

impl RestTools {
    /// A builder with a default HTTP client.
    pub fn new() -> RestTools {
        RestTools::default()
    }

    /// A builder whose tools send with `client` (proxies, TLS roots, default headers).
    pub fn with_client(client: reqwest::Client) -> RestTools {
        RestTools { client }
    }

    /// The tools of a registry file: TOML (`[[tool]]` tables) unless its name ends in `.json`.
    pub fn load_file(&self, path: impl AsRef<Path>) -> Result<Vec<DynamicTool>, RestError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| RestError::Read { path: path.display().to_string(), reason: e.to_string() })?;
        let specs = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
            parse_json(&text)?
        } else {
            parse_toml(&text)?
        };
        self.build_all(&specs, &path.display().to_string())
    }

    /// The tools of a TOML registry (`[[tool]]` tables).
    pub fn load_toml(&self, text: &str) -> Result<Vec<DynamicTool>, RestError> {
        self.build_all(&parse_toml(text)?, "(toml)")
    }

    /// The tools of a JSON registry (`{"tools": [..]}`).
    pub fn load_json(&self, text: &str) -> Result<Vec<DynamicTool>, RestError> {
        self.build_all(&parse_json(text)?, "(json)")
    }

    /// One tool per operation of an OpenAPI 3.0 or 3.1 document (JSON or YAML) that `options`
    /// select: `operationId` as the name, summary and description, path, query and header
    /// parameters and the JSON request body as parameters, `$ref`s resolved.
    pub fn load_openapi(&self, document: &str, options: &OpenApiOptions) -> Result<Vec<DynamicTool>, RestError> {
        self.build_all(&openapi_specs(document, options)?, "(openapi)")
    }

    /// One tool from its spec.
    pub fn build(&self, spec: &RestToolSpec) -> Result<DynamicTool, RestError> {
        self.build_from(spec, "(code)")
    }

    fn build_all(&self, specs: &[RestToolSpec], source: &str) -> Result<Vec<DynamicTool>, RestError> {
        specs.iter().map(|spec| self.build_from(spec, source)).collect()
    }

    fn build_from(&self, spec: &RestToolSpec, source: &str) -> Result<DynamicTool, RestError> {
        let call = Arc::new(RestCall::new(spec, self.client.clone())?);
        let mut builder = DynamicTool::builder(&spec.name)
            .description(&spec.description)
            .input_schema(spec.parameters.clone())
            .source(source, 0)
            .handler(move |arguments, _ctx| {
                let call = Arc::clone(&call);
                async move { call.call(arguments).await }
            });
        if let Some(limit) = spec.timeout_ms {
            builder = builder.timeout(Duration::from_millis(limit));
        }
        for tag in &spec.tags {
            builder = builder.tag(tag);
        }
        Ok(builder.build()?)
    }
}

fn parse_toml(text: &str) -> Result<Vec<RestToolSpec>, RestError> {
    let file: RegistryFile =
        toml::from_str(text).map_err(|e| RestError::Parse { format: "TOML", reason: e.to_string() })?;
    Ok(file.tools)
}

fn parse_json(text: &str) -> Result<Vec<RestToolSpec>, RestError> {
    let file: RegistryFile =
        serde_json::from_str(text).map_err(|e| RestError::Parse { format: "JSON", reason: e.to_string() })?;
    Ok(file.tools)
}
