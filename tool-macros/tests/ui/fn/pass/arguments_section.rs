use tool_core::prelude::*;

/// Book a meeting room.
///
/// # Arguments
///
/// * `room` - The room's name.
/// * `minutes` - How long, in
///   minutes.
/// * `note` - Ignored: the parameter's own doc comment wins.
#[tool]
fn book_room(
    room: String,
    minutes: u32,
    /// What the meeting is about.
    note: Option<String>,
) -> String {
    format!("{room} {minutes} {note:?}")
}

fn main() {
    let d = <book_room as DeclaredTool>::definition();
    assert_eq!(d.description, "Book a meeting room.");
    assert_eq!(d.parameter("room").unwrap().description, "The room's name.");
    assert_eq!(d.parameter("minutes").unwrap().description, "How long, in minutes.");
    assert_eq!(d.parameter("note").unwrap().description, "What the meeting is about.");
    assert_eq!(d.input_schema["properties"]["room"]["description"], "The room's name.");
}
