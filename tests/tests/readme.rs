//! The README's code is real: every ```rust block of README.md is an excerpt, line for line, of
//! a file under examples/, which cargo builds (and CI runs the tour, `examples/tour.rs`).
//! The README shows no doc-test lines hidden with `# `, so a code host renders it as written.

use std::fs;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is in the workspace").to_path_buf()
}

/// A fenced block: the line its fence opens on (1-based), and its lines.
struct Block {
    line: usize,
    lines: Vec<String>,
}

/// The blocks of `markdown` whose info string is `rust` or starts with `rust,`.
fn rust_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    // Inside a fence: the Rust block being read, or `None` inside another language's block.
    let mut open: Option<Option<Block>> = None;
    for (index, line) in markdown.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match (&mut open, fence) {
            (None, true) => {
                let info = line.trim_start().trim_start_matches('`').trim();
                let rust = info == "rust" || info.starts_with("rust,");
                open = Some(rust.then(|| Block { line: index + 1, lines: Vec::new() }));
            }
            (Some(_), true) => blocks.extend(open.take().flatten()),
            (Some(Some(block)), false) => block.lines.push(line.to_string()),
            (Some(None), false) | (None, false) => {}
        }
    }
    blocks
}

/// Whether `needle`'s lines appear in `haystack` as consecutive lines, leading whitespace aside.
fn contains_excerpt(haystack: &str, needle: &[String]) -> bool {
    let lines: Vec<&str> = haystack.lines().map(str::trim_start).collect();
    let wanted: Vec<&str> = needle.iter().map(|l| l.trim_start()).collect();
    !wanted.is_empty() && lines.windows(wanted.len()).any(|window| window == wanted.as_slice())
}

/// Every Rust block of `markdown` found in one of `sources` (name, text), or the blocks that are not.
fn check(markdown: &str, sources: &[(String, String)]) -> Result<usize, String> {
    let blocks = rust_blocks(markdown);
    let mut problems = Vec::new();
    for block in &blocks {
        let first = block.lines.iter().find(|l| !l.trim().is_empty()).map_or("", |l| l.trim());
        if let Some(hidden) = block.lines.iter().find(|l| l.trim_start().starts_with("# ") || l.trim() == "#") {
            problems.push(format!(
                "the Rust block at README.md:{} (`{first}`) hides a line from readers: `{}`",
                block.line,
                hidden.trim()
            ));
        } else if !sources.iter().any(|(_, text)| contains_excerpt(text, &block.lines)) {
            problems.push(format!(
                "the Rust block at README.md:{} (`{first}`) is not an excerpt of any file under examples/; \
                 copy it from the example it shows, or change both",
                block.line
            ));
        }
    }
    if problems.is_empty() {
        Ok(blocks.len())
    } else {
        Err(problems.join("\n"))
    }
}

fn examples() -> Vec<(String, String)> {
    let dir = workspace().join("examples");
    let mut sources: Vec<(String, String)> = fs::read_dir(&dir)
        .expect("examples/ is readable")
        .map(|entry| entry.expect("an entry of examples/").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let text = fs::read_to_string(&path).expect("an example is readable");
            (path.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    sources.sort();
    sources
}

#[test]
fn every_rust_block_of_the_readme_is_an_excerpt_of_an_example() {
    let readme = fs::read_to_string(workspace().join("README.md")).expect("README.md is readable");
    match check(&readme, &examples()) {
        Ok(count) => {
            assert_eq!(
                count, 7,
                "the tour's seven blocks: declare, execute, approval, a small open model, export, search, serve"
            )
        }
        Err(problems) => panic!("{problems}"),
    }
}

#[test]
fn the_readme_stays_a_guide() {
    let readme = fs::read_to_string(workspace().join("README.md")).expect("README.md is readable");
    let lines = readme.lines().count();
    assert!(
        lines < 250,
        "README.md has {lines} lines; reference material belongs in docs/ (the README stays under 250)"
    );
}

#[test]
fn a_block_that_drifted_from_its_example_is_named() {
    let sources = vec![("tour.rs".to_string(), "fn main() {\n    let a = 1;\n    let b = 2;\n}\n".to_string())];
    let readme = "# Title\n\n```rust\nlet a = 1;\nlet b = 2;\n```\n\n```sh\nlet c = 3;\n```\n\n```rust\nlet a = 1;\nlet c = 3;\n```\n";
    assert_eq!(
        check(readme, &sources),
        Err("the Rust block at README.md:12 (`let a = 1;`) is not an excerpt of any file under examples/; \
             copy it from the example it shows, or change both"
            .to_string())
    );
    let hidden = "```rust,no_run\n# fn main() {\nlet a = 1;\n# }\n```\n";
    assert_eq!(
        check(hidden, &sources),
        Err("the Rust block at README.md:1 (`# fn main() {`) hides a line from readers: `# fn main() {`".to_string())
    );
    assert_eq!(check(&readme[..readme.find("```rust\nlet a = 1;\nlet c").unwrap()], &sources), Ok(1));
}
