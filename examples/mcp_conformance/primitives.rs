//! The resources, resource templates, prompts and completions the suite reads by name.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::mcp::{McpPrimitives, Prompt, PromptMessage, Resource, ResourceContent, ResourceTemplate};
use tool_core::{EmbeddedResource, Image};

/// A 1x1 red pixel, as PNG.
const RED_PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1,
    0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The watched resource's URI: its subscribers are told of an update every 3 seconds.
const WATCHED: &str = "test://watched-resource";

/// The arguments of `test_prompt_with_arguments`.
#[derive(Deserialize, JsonSchema)]
struct TwoArguments {
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
}

/// The argument of `test_prompt_with_embedded_resource`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ResourceArgument {
    /// URI of the resource to embed
    resource_uri: String,
}

/// Candidates for `arg1`, those starting with what was typed.
/// What the prompt `test_input_required_result_prompt` is about.
#[derive(Deserialize, JsonSchema)]
struct Context {
    /// The context the prompt uses.
    context: String,
}

fn cities(partial: &str) -> Vec<String> {
    ["paris", "park", "party", "test", "testing"]
        .into_iter()
        .filter(|city| city.starts_with(partial))
        .map(str::to_owned)
        .collect()
}

/// Everything the suite reads besides tools; announces an update of the watched resource
/// every 3 seconds to the sessions subscribed to it.
pub fn all() -> Result<McpPrimitives, Box<dyn std::error::Error>> {
    let primitives = McpPrimitives::new()
        .resource(
            Resource::new("test://static-text", "static-text", |_| {
                Ok(ResourceContent::text("This is the content of the static text resource."))
            })
            .title("Static Text Resource")
            .description("A static text resource for testing")
            .mime_type("text/plain"),
        )
        .resource(
            Resource::new("test://static-binary", "static-binary", |_| Ok(ResourceContent::binary(RED_PIXEL_PNG)))
                .title("Static Binary Resource")
                .description("A static binary resource (image) for testing")
                .mime_type("image/png"),
        )
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template", |request| {
                let id = request.variable("id").unwrap_or_default();
                let data = serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Ok(ResourceContent::text(data.to_string()))
            })?
            .title("Resource Template")
            .description("A resource template with parameter substitution")
            .mime_type("application/json")
            .complete("id", |partial, _| {
                ["123", "456"].into_iter().filter(|id| id.starts_with(partial)).map(str::to_owned).collect()
            }),
        )
        .resource(
            Resource::new(WATCHED, "watched-resource", |_| Ok(ResourceContent::text("Watched resource content")))
                .title("Watched Resource")
                .description("A resource that auto-updates every 3 seconds")
                .mime_type("text/plain"),
        )
        .prompt(
            Prompt::new("test_simple_prompt", || Ok(vec![PromptMessage::user("This is a simple prompt for testing.")]))
                .title("Simple Test Prompt")
                .description("A simple prompt without arguments"),
        )
        .prompt(
            Prompt::with_arguments("test_prompt_with_arguments", |args: TwoArguments| {
                let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", args.arg1, args.arg2);
                Ok(vec![PromptMessage::user(text)])
            })
            .title("Prompt With Arguments")
            .description("A prompt with required arguments")
            .complete("arg1", |partial, _| cities(partial)),
        )
        .prompt(
            Prompt::with_arguments("test_prompt_with_embedded_resource", |args: ResourceArgument| {
                let text = "Embedded resource content for testing.";
                Ok(vec![
                    PromptMessage::user(EmbeddedResource::text(args.resource_uri, "text/plain", text)),
                    PromptMessage::user("Please process the embedded resource above."),
                ])
            })
            .title("Prompt With Embedded Resource")
            .description("A prompt that includes an embedded resource"),
        )
        .prompt(
            Prompt::new("test_prompt_with_image", || {
                Ok(vec![
                    PromptMessage::user(Image::png(RED_PIXEL_PNG)),
                    PromptMessage::user("Please analyze the image above."),
                ])
            })
            .title("Prompt With Image")
            .description("A prompt that includes image content"),
        )
        .prompt(
            Prompt::with_arguments("test_input_required_result_prompt", |args: Context| {
                Ok(vec![PromptMessage::user(format!("Use this context: {}", args.context))])
            })
            .description("A prompt that asks the user for its context when the client gives none")
            .asks::<Context>("user_context", "What context should the prompt use?")?,
        );
    let watcher = primitives.clone();
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_secs(3));
        ticks.tick().await;
        loop {
            ticks.tick().await;
            watcher.resource_updated(WATCHED).await;
        }
    });
    Ok(primitives)
}
