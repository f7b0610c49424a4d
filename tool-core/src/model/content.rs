//! Content blocks: what a result carries beside its text (images, audio, embedded resources,
//! links to resources), in the order the tool gave them.
//!
//! Media travels as base64 text, as MCP and every provider carry it. The constructors that take
//! bytes encode them; the `from_base64` ones take text already encoded. Nothing is checked
//! while a tool builds its result: the executor checks every block as the result leaves the
//! tool (a MIME type of the form `type/subtype`, base64 that decodes, a URI with a scheme) and
//! turns a broken one into an error naming it, so no provider or client is sent one.

use base64::Engine as _;
use serde::Serialize;

/// One block of a tool's result, after its text ([`ToolOutput::text`](super::ToolOutput)).
///
/// A record serialises a block as `{"type": "image", "mime_type", "data"}` and likewise for the
/// others (`text`, `audio`, `resource`, `resource_link`). The block itself is not `Serialize`,
/// so that a tool returning `Vec<ContentBlock>` returns the blocks, not their JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// More text, after the blocks before it.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image(Image),
    /// A sound.
    Audio(Audio),
    /// A resource's contents, embedded in the result.
    Resource(EmbeddedResource),
    /// A link to a resource the client may read itself.
    ResourceLink(ResourceLink),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> ContentBlock {
        ContentBlock::Text { text: text.into() }
    }

    /// The block's kind as MCP names it: `text`, `image`, `audio`, `resource`, `resource_link`.
    pub fn kind(&self) -> &'static str {
        match self {
            ContentBlock::Text { .. } => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            ContentBlock::Resource(_) => "resource",
            ContentBlock::ResourceLink(_) => "resource_link",
        }
    }

    /// The MIME type the block declares, if any.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { .. } => None,
            ContentBlock::Image(image) => Some(&image.mime_type),
            ContentBlock::Audio(audio) => Some(&audio.mime_type),
            ContentBlock::Resource(resource) => resource.mime_type.as_deref(),
            ContentBlock::ResourceLink(link) => link.mime_type.as_deref(),
        }
    }

    /// The bytes the block hands on, as the output limit counts them: its text, its base64
    /// data, its URI, name and MIME type.
    pub(crate) fn size(&self) -> usize {
        let optional = |text: &Option<String>| text.as_ref().map_or(0, String::len);
        match self {
            ContentBlock::Text { text } => text.len(),
            ContentBlock::Image(image) => image.data.len() + image.mime_type.len(),
            ContentBlock::Audio(audio) => audio.data.len() + audio.mime_type.len(),
            ContentBlock::Resource(resource) => {
                let contents = match &resource.contents {
                    ResourceContents::Text(text) => text.len(),
                    ResourceContents::Blob(blob) => blob.len(),
                };
                resource.uri.len() + optional(&resource.mime_type) + contents
            }
            ContentBlock::ResourceLink(link) => {
                link.uri.len() + link.name.len() + optional(&link.description) + optional(&link.mime_type)
            }
        }
    }

    /// What is wrong with the block, if anything, in words that complete "the block ...".
    pub(crate) fn problem(&self) -> Option<String> {
        match self {
            ContentBlock::Text { .. } => None,
            ContentBlock::Image(Image { data, mime_type }) | ContentBlock::Audio(Audio { data, mime_type }) => {
                mime_problem(mime_type).or_else(|| base64_problem("data", data))
            }
            ContentBlock::Resource(resource) => uri_problem(&resource.uri)
                .or_else(|| resource.mime_type.as_deref().and_then(mime_problem))
                .or_else(|| match &resource.contents {
                    ResourceContents::Text(_) => None,
                    ResourceContents::Blob(blob) => base64_problem("blob", blob),
                }),
            ContentBlock::ResourceLink(link) => uri_problem(&link.uri)
                .or_else(|| link.name.is_empty().then(|| "has an empty name".to_owned()))
                .or_else(|| link.mime_type.as_deref().and_then(mime_problem)),
        }
    }

    /// How many bytes the block's media or blob holds once decoded, if it has any.
    pub(crate) fn decoded_len(&self) -> Option<usize> {
        let base64 = match self {
            ContentBlock::Image(image) => &image.data,
            ContentBlock::Audio(audio) => &audio.data,
            ContentBlock::Resource(EmbeddedResource { contents: ResourceContents::Blob(blob), .. }) => blob,
            _ => return None,
        };
        let padding = base64.bytes().rev().take_while(|&b| b == b'=').count();
        Some((base64.len() / 4 * 3).saturating_sub(padding))
    }
}

/// A block as a record writes it.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockRecord<'a> {
    Text { text: &'a str },
    Image(&'a Image),
    Audio(&'a Audio),
    Resource(&'a EmbeddedResource),
    ResourceLink(&'a ResourceLink),
}

/// Serialises `blocks` as a record writes them (see [`ContentBlock`]).
pub(crate) fn serialize_blocks<S: serde::Serializer>(
    blocks: &[ContentBlock],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(blocks.iter().map(|block| match block {
        ContentBlock::Text { text } => BlockRecord::Text { text },
        ContentBlock::Image(image) => BlockRecord::Image(image),
        ContentBlock::Audio(audio) => BlockRecord::Audio(audio),
        ContentBlock::Resource(resource) => BlockRecord::Resource(resource),
        ContentBlock::ResourceLink(link) => BlockRecord::ResourceLink(link),
    }))
}

macro_rules! media {
    ($name:ident, $what:literal, $($shortcut:ident => $mime:literal),*) => {
        #[doc = concat!($what, ", as base64 data with its MIME type.")]
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[non_exhaustive]
        pub struct $name {
            /// The MIME type, `type/subtype`.
            pub mime_type: String,
            /// The bytes, base64-encoded (the standard alphabet, padded).
            pub data: String,
        }

        impl $name {
            #[doc = concat!($what, " from its raw bytes, which are base64-encoded here.")]
            pub fn new(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> $name {
                $name { mime_type: mime_type.into(), data: encode(bytes.as_ref()) }
            }

            #[doc = concat!($what, " from data already base64-encoded; the executor checks that it decodes.")]
            pub fn from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> $name {
                $name { mime_type: mime_type.into(), data: data.into() }
            }

            $(
                #[doc = concat!($what, " of type `", $mime, "` from its raw bytes.")]
                pub fn $shortcut(bytes: impl AsRef<[u8]>) -> $name {
                    $name::new(bytes, $mime)
                }
            )*
        }

        impl From<$name> for ContentBlock {
            fn from(value: $name) -> ContentBlock {
                ContentBlock::$name(value)
            }
        }
    };
}

media!(Image, "An image", png => "image/png", jpeg => "image/jpeg");
media!(Audio, "A sound", wav => "audio/wav", mp3 => "audio/mpeg");

/// A resource's contents embedded in a result: text, or bytes as a base64 blob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The resource's URI (`file:///notes.md`, `test://report`).
    pub uri: String,
    /// Its MIME type, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its contents.
    #[serde(flatten)]
    pub contents: ResourceContents,
}

/// What an embedded resource holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceContents {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded.
    Blob(String),
}

impl EmbeddedResource {
    /// A resource holding text.
    pub fn text(uri: impl Into<String>, mime_type: impl Into<String>, text: impl Into<String>) -> EmbeddedResource {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            contents: ResourceContents::Text(text.into()),
        }
    }

    /// A resource holding bytes, which are base64-encoded here.
    pub fn blob(uri: impl Into<String>, mime_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> EmbeddedResource {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            contents: ResourceContents::Blob(encode(bytes.as_ref())),
        }
    }

    /// A resource holding bytes already base64-encoded; the executor checks that they decode.
    pub fn blob_base64(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<String>,
    ) -> EmbeddedResource {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            contents: ResourceContents::Blob(data.into()),
        }
    }
}

impl From<String> for ContentBlock {
    fn from(text: String) -> ContentBlock {
        ContentBlock::Text { text }
    }
}

impl From<&str> for ContentBlock {
    fn from(text: &str) -> ContentBlock {
        ContentBlock::text(text)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(value: EmbeddedResource) -> ContentBlock {
        ContentBlock::Resource(value)
    }
}

/// A link to a resource, which the client may read itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl ResourceLink {
    /// A link to `uri`, named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> ResourceLink {
        ResourceLink { uri: uri.into(), name: name.into(), description: None, mime_type: None }
    }

    /// Adds what the resource is.
    pub fn with_description(mut self, description: impl Into<String>) -> ResourceLink {
        self.description = Some(description.into());
        self
    }

    /// Adds the resource's MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> ResourceLink {
        self.mime_type = Some(mime_type.into());
        self
    }
}

impl From<ResourceLink> for ContentBlock {
    fn from(value: ResourceLink) -> ContentBlock {
        ContentBlock::ResourceLink(value)
    }
}

fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Why `mime_type` is not `type/subtype` (parameters after `;` allowed), if it is not.
fn mime_problem(mime_type: &str) -> Option<String> {
    // RFC 6838's restricted names: letters, digits and `!#$&-^_.+`, starting with a letter or
    // digit.
    let name = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphanumeric())
            && part.chars().all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))
    };
    let essence = mime_type.split(';').next().unwrap_or_default().trim();
    match essence.split_once('/') {
        Some((kind, subtype)) if name(kind) && name(subtype) => None,
        _ => Some(format!("has the MIME type `{}`, which is not of the form `type/subtype`", shown(mime_type))),
    }
}

/// Why `data` is not standard padded base64, if it is not.
fn base64_problem(field: &str, data: &str) -> Option<String> {
    if data.is_empty() {
        return Some(format!("has no {field}"));
    }
    base64::engine::general_purpose::STANDARD.decode(data).err().map(|error| {
        let error = error.to_string();
        format!("has {field} that is not base64 (standard alphabet, padded): {}", error.trim_end_matches('.'))
    })
}

/// Why `uri` is not a URI with a scheme, if it is not.
fn uri_problem(uri: &str) -> Option<String> {
    let scheme = uri.split_once(':').map(|(scheme, _)| scheme).unwrap_or_default();
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    (!valid).then(|| format!("has the URI `{}`, which has no scheme (such as `file:` or `https:`)", shown(uri)))
}

/// At most 100 characters of what a tool wrote, for an error message.
fn shown(text: &str) -> String {
    match text.char_indices().nth(100) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_encoded_and_broken_blocks_are_named() {
        let image = Image::png([0x89, b'P', b'N', b'G']);
        assert_eq!(image.data, "iVBORw==");
        assert_eq!(ContentBlock::from(image.clone()).problem(), None);
        assert_eq!(ContentBlock::from(image).decoded_len(), Some(4));
        assert_eq!(
            ContentBlock::from(Image::from_base64("iVBORw==", "png")).problem().unwrap(),
            "has the MIME type `png`, which is not of the form `type/subtype`"
        );
        assert_eq!(
            ContentBlock::from(Audio::from_base64("not base64!", "audio/wav")).problem().unwrap(),
            "has data that is not base64 (standard alphabet, padded): Invalid symbol 32, offset 3"
        );
        assert_eq!(ContentBlock::from(Audio::from_base64("", "audio/wav")).problem().unwrap(), "has no data");
        assert_eq!(ContentBlock::from(Image::from_base64("AA==", "text/plain; charset=utf-8")).problem(), None);
        assert_eq!(
            ContentBlock::from(EmbeddedResource::text("notes.md", "text/markdown", "# Notes")).problem().unwrap(),
            "has the URI `notes.md`, which has no scheme (such as `file:` or `https:`)"
        );
        assert_eq!(ContentBlock::from(ResourceLink::new("file:///a.txt", "")).problem().unwrap(), "has an empty name");
    }

    #[test]
    fn blocks_serialise_for_records() {
        let record = |block: &ContentBlock| {
            serde_json::to_value(super::super::ToolOutput::from_blocks([block.clone()])).unwrap()["blocks"][0].clone()
        };
        let resource = ContentBlock::from(EmbeddedResource::text("test://r", "text/plain", "hi"));
        assert_eq!(
            record(&resource),
            serde_json::json!({"type": "resource", "uri": "test://r", "mime_type": "text/plain", "text": "hi"})
        );
        let link = ContentBlock::from(ResourceLink::new("file:///a.txt", "a").with_mime_type("text/plain"));
        assert_eq!(
            record(&link),
            serde_json::json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a", "mime_type": "text/plain"})
        );
        assert_eq!(link.size(), "file:///a.txt".len() + 1 + "text/plain".len());
    }
}
