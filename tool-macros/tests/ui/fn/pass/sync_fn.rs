use tool_core::prelude::*;

/// Set a reminder.
#[tool]
fn set_reminder(
    /// What to be reminded of.
    text: String,
    /// In how many minutes.
    minutes: u32,
) -> String {
    format!("{text} in {minutes}")
}

fn main() {
    let definition = <set_reminder as DeclaredTool>::definition();
    assert_eq!(definition.name, "set_reminder");
    assert_eq!(definition.description, "Set a reminder.");
    let names: Vec<&str> = definition.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["text", "minutes"]);
    assert!(definition.parameters.iter().all(|p| p.required));
    assert_eq!(definition.parameters[0].description, "What to be reminded of.");
}
