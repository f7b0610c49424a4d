//! Output for people: aligned tables, and colour only when the output is a terminal (and
//! `NO_COLOR` is not set).

/// How text is styled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Style {
    pub colour: bool,
}

impl Style {
    /// Bold, for headings.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Green, for success.
    pub fn good(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Yellow, for warnings.
    pub fn warn(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Red, for failures.
    pub fn bad(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Dim, for what is secondary.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// Rows as a table: each column as wide as its widest cell (in characters), separated by two
/// spaces, the header in bold, no trailing spaces.
pub(super) fn table(style: Style, header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>, bold: bool| {
        let last = cells.len() - 1;
        let mut out = String::new();
        for (i, cell) in cells.into_iter().enumerate() {
            let pad = if i == last { 0 } else { widths[i] - cell.chars().count() + 2 };
            out.push_str(&if bold { style.bold(&cell) } else { cell });
            out.push_str(&" ".repeat(pad));
        }
        out.trim_end().to_owned()
    };
    let mut out = line(header.iter().map(|h| (*h).to_owned()).collect(), true);
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.clone(), false));
        out.push('\n');
    }
    out
}
