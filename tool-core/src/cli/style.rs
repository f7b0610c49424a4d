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

/// Text the command line did not write (an imported tool's description, a schema from an
/// OpenAPI document, a tool's output), made safe for a terminal: control characters (line
/// breaks and tabs kept), the escape sequences they start, and bidirectional overrides that
/// reorder what is shown become visible escapes such as `\u{1b}`, so the text can neither
/// drive the terminal nor disguise itself.
pub(super) fn printable(text: &str) -> String {
    escape(text, |c| c == '\n' || c == '\t')
}

/// [`printable`] for one line (a table cell): line breaks and tabs become spaces.
pub(super) fn printable_line(text: &str) -> String {
    escape(&text.replace(['\n', '\t'], " "), |_| false)
}

fn escape(text: &str, keep: impl Fn(char) -> bool) -> String {
    let unsafe_char = |c: char| {
        (c.is_control() && !keep(c))
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
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
