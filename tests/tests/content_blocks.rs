//! Results with content blocks (images, audio, embedded resources, resource links): what each
//! provider dialect receives, exactly; the output limit counting every block; a broken block
//! refused; the XML protocol and the record carrying them as text.

use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::providers::names::NameMap;
use tool_core::providers::results::{replaced_blocks, result_message, results_turn, ReplacedBlock};
use tool_core::providers::Provider;
use tool_core::{Audio, CallFailure, ContentBlock, EmbeddedResource, Image, ResourceLink};

/// The first bytes of a PNG, a WAV and a PDF: enough to tell the encoding, not real files.
const PNG: &[u8] = b"\x89PNG";
const WAV: &[u8] = b"RIFF";
const PDF: &[u8] = b"%PDF-1.7";

/// The week's highs as a chart, a recording, the data and a link to the year.
#[tool]
fn week() -> ToolOutput {
    ToolOutput::text("The week:")
        .with_image(PNG, "image/png")
        .with_audio(WAV, "audio/wav")
        .with_block(EmbeddedResource::text("file:///week.csv", "text/csv", "day,high\nmon,21"))
        .with_block(EmbeddedResource::blob("file:///week.pdf", "application/pdf", PDF))
        .with_block(
            ResourceLink::new("file:///year.csv", "year.csv")
                .with_description("The whole year")
                .with_mime_type("text/csv"),
        )
}

/// A chart alone.
#[tool]
fn chart() -> Image {
    Image::png(PNG)
}

/// A chart whose MIME type is a file extension.
#[tool]
fn bad_chart() -> Image {
    Image::from_base64("iVBORw==", "png")
}

/// A recording whose data is not base64.
#[tool]
fn bad_recording() -> ToolOutput {
    ToolOutput::text("Listen:").with_block(Audio::from_base64("RIFF data", "audio/wav"))
}

/// A caption, then a large image, then a small one.
#[tool]
fn album() -> Vec<ContentBlock> {
    vec![ContentBlock::text("Two pictures:"), Image::png(vec![0u8; 3000]).into(), Image::png(PNG).into()]
}

async fn run(executor: &Executor, tool: &str) -> ExecutionRecord {
    executor.execute(ToolCallRequest::new(tool, "call_1", "{}")).await
}

fn executor() -> Executor {
    Executor::new(tool_tests::declared_in(file!()))
}

#[tokio::test]
async fn mcp_gets_every_block_in_the_specifications_shapes() {
    let record = run(&executor(), "week").await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(
        result_message(Provider::Mcp, &record, &NameMap::identity()),
        json!({
            "content": [
                {"type": "text", "text": "The week:"},
                {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///week.csv", "mimeType": "text/csv", "text": "day,high\nmon,21"}},
                {"type": "resource", "resource": {"uri": "file:///week.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjc="}},
                {"type": "resource_link", "uri": "file:///year.csv", "name": "year.csv", "description": "The whole year", "mimeType": "text/csv"},
            ],
            "isError": false,
        })
    );
    assert_eq!(replaced_blocks(Provider::Mcp, &[record]), Vec::<ReplacedBlock>::new());

    // A result of one block has no empty text before it.
    let record = run(&executor(), "chart").await;
    assert_eq!(
        result_message(Provider::Mcp, &record, &NameMap::identity()),
        json!({"content": [{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}], "isError": false})
    );
}

const CSV_TEXT: &str = "[resource: file:///week.csv, text/csv]\nday,high\nmon,21";
const LINK_TEXT: &str = "[resource link: year.csv <file:///year.csv>, text/csv: The whole year]";

#[tokio::test]
async fn anthropic_gets_image_and_document_blocks_and_text_for_the_rest() {
    let record = run(&executor(), "week").await;
    assert_eq!(
        results_turn(Provider::Anthropic, std::slice::from_ref(&record), &NameMap::identity()),
        vec![json!({"role": "user", "content": [{
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": [
                {"type": "text", "text": "The week:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}},
                {"type": "text", "text": "[audio: audio/wav, 4 bytes, not shown: this API takes no audio in tool results]"},
                {"type": "text", "text": CSV_TEXT},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjc="}},
                {"type": "text", "text": LINK_TEXT},
            ],
        }]})]
    );
    assert_eq!(
        serde_json::to_value(replaced_blocks(Provider::Anthropic, &[record])).unwrap(),
        json!([{
            "call_id": "call_1",
            "tool": "week",
            "index": 1,
            "kind": "audio",
            "placeholder": "[audio: audio/wav, 4 bytes, not shown: this API takes no audio in tool results]",
        }])
    );
}

#[tokio::test]
async fn the_responses_api_gets_input_image_and_input_file_parts() {
    let record = run(&executor(), "week").await;
    assert_eq!(
        result_message(Provider::OpenAiResponses, &record, &NameMap::identity()),
        json!({
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "The week:"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw==", "detail": "auto"},
                {"type": "input_text", "text": "[audio: audio/wav, 4 bytes, not shown: this API takes no audio in tool results]"},
                {"type": "input_text", "text": CSV_TEXT},
                {"type": "input_file", "filename": "week.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjc="},
                {"type": "input_text", "text": LINK_TEXT},
            ],
        })
    );
    let replaced = replaced_blocks(Provider::OpenAiResponses, &[record]);
    assert_eq!(replaced.iter().map(|r| (r.index, r.kind)).collect::<Vec<_>>(), [(1, "audio")]);
}

#[tokio::test]
async fn openai_chat_gets_one_text_with_placeholders() {
    let record = run(&executor(), "week").await;
    let text = [
        "The week:",
        "[image: image/png, 4 bytes, not shown: this API takes no images in tool results]",
        "[audio: audio/wav, 4 bytes, not shown: this API takes no audio in tool results]",
        CSV_TEXT,
        "[resource: file:///week.pdf, application/pdf, 8 bytes, not shown: this API takes no files in tool results]",
        LINK_TEXT,
    ]
    .join("\n");
    assert_eq!(
        result_message(Provider::OpenAiChat, &record, &NameMap::identity()),
        json!({"role": "tool", "tool_call_id": "call_1", "content": text})
    );
    let replaced = replaced_blocks(Provider::OpenAiChat, &[record]);
    assert_eq!(
        replaced.iter().map(|r| (r.index, r.kind)).collect::<Vec<_>>(),
        [(0, "image"), (1, "audio"), (3, "resource")]
    );
}

#[tokio::test]
async fn gemini_gets_the_media_as_the_function_responses_parts() {
    let record = run(&executor(), "week").await;
    let output = [
        "The week:",
        "[audio: audio/wav, 4 bytes, not shown: this API takes no audio in tool results]",
        CSV_TEXT,
        LINK_TEXT,
    ]
    .join("\n");
    assert_eq!(
        result_message(Provider::Gemini, &record, &NameMap::identity()),
        json!({"functionResponse": {
            "name": "week",
            "id": "call_1",
            "response": {"output": output},
            "parts": [
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
                {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0xLjc="}},
            ],
        }})
    );
}

#[tokio::test]
async fn a_text_result_goes_out_as_before_in_every_dialect() {
    /// Says hello.
    #[tool]
    fn hello() -> String {
        "Hello".to_owned()
    }
    let executor = Executor::new(ToolCatalog::builder().add_declared::<hello>().build().unwrap());
    let record = run(&executor, "hello").await;
    let names = NameMap::identity();
    assert_eq!(
        result_message(Provider::Mcp, &record, &names),
        json!({"content": [{"type": "text", "text": "Hello"}], "isError": false})
    );
    assert_eq!(
        result_message(Provider::Anthropic, &record, &names),
        json!({"type": "tool_result", "tool_use_id": "call_1", "content": "Hello"})
    );
    assert_eq!(
        result_message(Provider::OpenAiResponses, &record, &names),
        json!({"type": "function_call_output", "call_id": "call_1", "output": "Hello"})
    );
    assert_eq!(
        result_message(Provider::Gemini, &record, &names),
        json!({"functionResponse": {"name": "hello", "id": "call_1", "response": {"output": "Hello"}}})
    );
    assert!(serde_json::to_value(&record).unwrap()["content"].get("blocks").is_none());
}

#[tokio::test]
async fn a_broken_block_fails_the_call_with_an_error_naming_it() {
    let record = run(&executor(), "bad_chart").await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        "The tool's result could not be sent: its content block 0 (image) has the MIME type `png`, which is not of \
         the form `type/subtype`."
    );
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("invalid_content"));

    let record = run(&executor(), "bad_recording").await;
    assert_eq!(
        record.content.text,
        "The tool's result could not be sent: its content block 0 (audio) has data that is not base64 (standard \
         alphabet, padded): Invalid symbol 32, offset 4."
    );
}

#[tokio::test]
async fn blocks_count_toward_the_output_limit_and_those_that_do_not_fit_are_dropped() {
    let executor = Executor::builder(tool_tests::declared_in(file!())).max_output_bytes(1024).build();
    let record = run(&executor, "album").await;
    assert_eq!(record.status, CallStatus::Success);
    // The 3,000-byte image is 4,000 bytes of base64: dropped; the small one after it fits.
    assert_eq!(record.content.text, "Two pictures:\n[1 block dropped (image/png, 3 KB): over 1024 bytes]");
    assert_eq!(record.content.blocks, vec![ContentBlock::Image(Image::png(PNG))]);
    let cut = record.output_cut.clone().unwrap();
    assert_eq!((cut.blocks_dropped, cut.text_bytes, cut.structured_dropped), (1, 13, false));
    assert_eq!(serde_json::to_value(&record).unwrap()["output_cut"]["blocks_dropped"], 1);

    // Under the limit every block passes; the leading text block is the text.
    let record = run(&tool_core::Executor::new(tool_tests::declared_in(file!())), "album").await;
    assert_eq!(
        (record.content.text.as_str(), record.content.blocks.len(), record.output_cut),
        ("Two pictures:", 2, None)
    );
}

#[tokio::test]
async fn the_record_and_the_xml_protocol_carry_the_blocks_readably() {
    let record = run(&executor(), "week").await;
    let json: Value = serde_json::to_value(&record).unwrap();
    assert_eq!(json["content"]["text"], "The week:");
    assert_eq!(json["content"]["blocks"][0], json!({"type": "image", "mime_type": "image/png", "data": "iVBORw=="}));
    assert_eq!(
        json["content"]["blocks"][4],
        json!({"type": "resource_link", "uri": "file:///year.csv", "name": "year.csv", "description": "The whole year", "mime_type": "text/csv"})
    );
    let results = tool_core::xml::function_results(&[record]);
    let stdout = [
        "The week:",
        "[image: image/png, 4 bytes, not shown: the XML call protocol carries text only]",
        "[audio: audio/wav, 4 bytes, not shown: the XML call protocol carries text only]",
        CSV_TEXT,
        "[resource: file:///week.pdf, application/pdf, 8 bytes, not shown: the XML call protocol carries text only]",
        LINK_TEXT,
    ]
    .join("\n");
    assert_eq!(
        results,
        format!("<function_results>\n<result>\n<tool_name>week</tool_name>\n<stdout><![CDATA[{stdout}]]></stdout>\n</result>\n</function_results>")
    );
}
