//! The XML call protocol with the quickstart's tools: the prompt a model without native tool
//! calling gets (the `<functions>` block and the output instructions), a recorded answer
//! streamed in as a model would send it, with the variants models write, and the turn run:
//! the records, the `<function_results>` block and the seed's `tool_result` event.

use std::time::Duration;

use tool_core::prelude::*;
use tool_core::xml::{XmlEvent, XmlParser, XmlPrompt, XmlResponse};

#[path = "tools.rs"]
mod tools;

/// An answer as a model wrote it: words, then a block whose values are text (typed by the
/// declared parameters), one of them in CDATA, and a call in Qwen's form.
const ANSWER: &str = r#"I'll search the notes and set a reminder.
<function_calls>
<invoke name="memory.search">
<parameter name="query">agent state</parameter>
<parameter name="limit">2</parameter>
</invoke>
<invoke name="set_reminder">
<parameter name="text">
<![CDATA[check "a < b" before stand-up]]>
</parameter>
<parameter name="minutes">15</parameter>
<parameter name="priority">High</parameter>
</invoke>
</function_calls>
<tool_call>
<function=check_availability>
<parameter=room>Atlas</parameter>
<parameter=time>15:00-16:00</parameter>
</function>
</tool_call>
Done."#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let catalog = ToolCatalog::global()?;
    let prompt = XmlPrompt::new(catalog)?.system("You are a helpful assistant with tools.").build();
    println!("== The prompt ==\n{prompt}");

    // The answer arrives in pieces; the text goes out as it comes, each call once it is whole.
    let parser = XmlParser::new(catalog).in_conversation("demo");
    let mut stream = parser.stream();
    let mut events = Vec::new();
    println!("\n== Streamed (11-byte chunks) ==");
    for chunk in ANSWER.as_bytes().chunks(11) {
        for event in stream.feed_bytes(chunk) {
            match &event {
                XmlEvent::Text(text) => println!("text:    {text:?}"),
                XmlEvent::Call(call) => {
                    println!("call:    {} {}", call.tool_name, call.arguments.clone().unwrap_or_default())
                }
                XmlEvent::Warning(warning) => println!("warning: {warning}"),
            }
            events.push(event);
        }
    }
    events.extend(stream.finish());
    let response = XmlResponse::from_events(events);
    assert_eq!(response, parser.parse(ANSWER), "streamed or whole, the same calls");

    // One call runs the whole turn: parse, then execute (records in the answer's order).
    let executor =
        Executor::builder(catalog.clone()).timeout(Duration::from_secs(5)).state(tools::sample_store()).build();
    let turn = parser.parse_and_execute(&executor, ANSWER).await;
    println!("\n== The model's words ==\n{}", turn.text);
    println!("\n== Execution records ==");
    for record in &turn.records {
        println!("{}", serde_json::to_string_pretty(record)?);
    }
    println!("\n== Back to the model: <function_results> ==\n{}", turn.function_results());
    println!("\n== Or as the seed's event ==\n{}", serde_json::to_string_pretty(&turn.event())?);
    Ok(())
}
