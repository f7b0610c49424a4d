//! Results with images, audio and embedded resources.

use tool_core::prelude::*;
use tool_core::{Audio, EmbeddedResource, Image};

/// A 1x1 PNG, base64-encoded, as the suite's reference server sends it.
const TEST_IMAGE_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file of one silent sample, base64-encoded, as the suite's reference server sends it.
const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Tests image content response
#[tool]
async fn test_image_content() -> Image {
    Image::from_base64(TEST_IMAGE_BASE64, "image/png")
}

/// Tests audio content response
#[tool]
async fn test_audio_content() -> Audio {
    Audio::from_base64(TEST_AUDIO_BASE64, "audio/wav")
}

/// Tests embedded resource content response
#[tool]
async fn test_embedded_resource() -> EmbeddedResource {
    EmbeddedResource::text("test://embedded-resource", "text/plain", "This is an embedded resource content.")
}

/// Tests response with multiple content types (text, image, resource)
#[tool]
async fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::text("Multiple content types test:")
        .with_block(Image::from_base64(TEST_IMAGE_BASE64, "image/png"))
        .with_block(EmbeddedResource::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
}
