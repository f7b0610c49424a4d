//! Tool icons (MCP 2025-11-25 `icons`): declared with `#[tool(icons(..))]` or
//! `DynamicToolBuilder::icon`, checked by the catalog (an `https://` URL or a `data:image/..`
//! URI, a MIME type that is an image's, sizes `WxH` or `any`, bounded in number and bytes),
//! and exported in MCP's dialect only.

use serde_json::json;
use tool_core::prelude::*;
use tool_core::providers::export::export;
use tool_core::providers::Dialect;
use tool_core::{IconTheme, ToolIcon};

/// Search the notes.
#[tool(name = "notes.find", icons("https://example.com/find.svg", "data:image/png;base64,iVBORw0KGgo="))]
fn find(query: String) -> String {
    query
}

#[test]
fn declared_icons_reach_the_definition_and_only_the_mcp_export() {
    let definition = <find as DeclaredTool>::definition();
    assert_eq!(
        definition.icons,
        vec![ToolIcon::new("https://example.com/find.svg"), ToolIcon::new("data:image/png;base64,iVBORw0KGgo=")]
    );
    let mcp = export(Dialect::Mcp, [definition]).unwrap();
    assert_eq!(
        mcp.tools[0]["icons"],
        json!([{"src": "https://example.com/find.svg"}, {"src": "data:image/png;base64,iVBORw0KGgo="}])
    );
    for dialect in [Dialect::OpenAiChat { strict: false }, Dialect::Anthropic { strict: false }, Dialect::Gemini] {
        let exported = export(dialect, [definition]).unwrap();
        assert!(!exported.tools[0].to_string().contains("find.svg"), "{dialect:?}: {}", exported.tools[0]);
    }
}

fn with_icons(icons: Vec<ToolIcon>) -> DynamicTool {
    let mut builder = DynamicTool::builder("draw")
        .description("Draw a shape.")
        .handler(|_, _| async { Ok::<_, ToolError>(json!(1)) });
    for icon in icons {
        builder = builder.icon(icon);
    }
    builder.build().unwrap()
}

fn problems(icons: Vec<ToolIcon>) -> Vec<String> {
    match ToolCatalog::builder().add_tool(with_icons(icons)).build() {
        Ok(_) => Vec::new(),
        Err(error) => error.problems.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn a_full_icon_is_exported_with_its_type_sizes_and_theme() {
    let icon = ToolIcon::new("https://example.com/draw-dark.png").mime_type("image/png").size("48x48").size("any");
    let icon = icon.theme(IconTheme::Dark);
    assert_eq!(problems(vec![icon.clone()]), Vec::<String>::new());
    let exported = export(Dialect::Mcp, [with_icons(vec![icon]).definition()]).unwrap();
    assert_eq!(
        exported.tools[0]["icons"],
        json!([{"src": "https://example.com/draw-dark.png", "mimeType": "image/png", "sizes": ["48x48", "any"], "theme": "dark"}])
    );
}

#[test]
fn the_catalog_refuses_icons_a_client_should_not_load() {
    let at = "the tool `draw` (at (runtime):0)";
    for (icon, why) in [
        (ToolIcon::new("javascript:alert(1)"), "has an icon `javascript:alert(1)` that is neither an `https://` URL nor a `data:image/..` URI, the two a client may load"),
        (ToolIcon::new("file:///etc/passwd"), "has an icon `file:///etc/passwd` that is neither an `https://` URL nor a `data:image/..` URI, the two a client may load"),
        (ToolIcon::new("http://example.com/a.png"), "has an icon `http://example.com/a.png` that is neither an `https://` URL nor a `data:image/..` URI, the two a client may load"),
        (ToolIcon::new("data:text/html;base64,PGgxPg=="), "has an icon `data:text/html;base64,PGgxPg==` that is no image: a `data:` icon is `data:image/<type>;base64,<data>`"),
        (ToolIcon::new("https://"), "has an icon `https://` that is no URL: give an `https://` URL without spaces"),
        (ToolIcon::new("https://example.com/a.png").mime_type("text/html"), "has an icon `https://example.com/a.png` of MIME type `text/html`: give an image type such as `image/png`"),
        (ToolIcon::new("https://example.com/a.png").size("big"), "has an icon `https://example.com/a.png` of size `big`: give `WxH` (such as `48x48`) or `any`"),
    ] {
        assert_eq!(problems(vec![icon]), vec![format!("{at} {why}")]);
    }
    let large = format!("data:image/png;base64,{}", "A".repeat(ToolIcon::MAX_SRC_BYTES));
    assert_eq!(
        problems(vec![ToolIcon::new(large)]),
        vec![format!("{at} has an icon of 32790 bytes: an icon's `src` may have at most 32768 (link a larger image by an `https://` URL)")]
    );
    let many = (0..9).map(|i| ToolIcon::new(format!("https://example.com/{i}.png"))).collect();
    assert_eq!(problems(many), vec![format!("{at} has 9 icons: keep at most 8")]);
}
