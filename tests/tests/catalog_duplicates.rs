//! Two `#[tool]`s with one name: the global catalog refuses to build and names both places.

use tool_core::prelude::*;
use tool_core::CatalogProblem;

mod first {
    use super::*;

    /// Search notes.
    #[tool(name = "search")]
    pub fn search_notes(query: String) -> String {
        query
    }
}

mod second {
    use super::*;

    /// Search mail.
    #[tool(name = "search")]
    pub fn search_mail(query: String) -> String {
        query
    }
}

#[test]
fn duplicate_names_are_reported_with_both_locations() {
    let error = ToolCatalog::global().unwrap_err();
    let [CatalogProblem::DuplicateName { name, locations }] = error.problems.as_slice() else {
        panic!("expected one duplicate, got {error}");
    };
    assert_eq!(name, "search");
    // The two attribute lines, found in this very file so the test survives reformatting.
    let expected: Vec<u32> = include_str!("catalog_duplicates.rs")
        .lines()
        .zip(1..)
        .filter(|(line, _)| line.trim() == concat!("#[tool(name = ", "\"search\")]"))
        .map(|(_, number)| number)
        .collect();
    assert_eq!(expected.len(), 2);
    let lines: Vec<u32> = locations.iter().map(|l| l.line).collect();
    assert_eq!(lines, expected);
    assert!(locations.iter().all(|l| l.file.ends_with("catalog_duplicates.rs")));
    assert_eq!(
        error.to_string(),
        format!(
            "the tool catalog is invalid:\n- the tool name `search` is declared 2 times: at {0}:{1} and at {0}:{2}; rename all but one (`#[tool(name = \"...\")]`)",
            locations[0].file, expected[0], expected[1]
        )
    );
}
