use tool_core::prelude::*;

#[doc = include_str!("include_str_doc.md")]
#[tool]
fn summarise(
    #[doc = "The document's text."]
    text: String,
) -> String {
    text
}

fn main() {
    let d = <summarise as DeclaredTool>::definition();
    assert_eq!(d.description, "Summarise a document.\n\nThe summary is at most three sentences long.");
    assert_eq!(d.parameters[0].description, "The document's text.");
}
