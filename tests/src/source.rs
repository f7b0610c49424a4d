//! Reading `tool-core`'s source as the tests that check its shape need: code without
//! comments and strings, tokens, and the paths a `use` names.

use std::path::{Path, PathBuf};

/// `tool-core/src`, or the source folder `TOOL_CORE_SRC` names (another checkout's, to
/// compare).
pub fn tool_core_src() -> PathBuf {
    match std::env::var_os("TOOL_CORE_SRC") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-core/src"),
    }
}

/// The text with comments and the insides of string and character literals replaced by
/// spaces (line breaks kept), so that only code is searched.
pub fn blank_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !is_ident(chars.get(i.wrapping_sub(1))) {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push_str(&" ".repeat(j + 1 - i));
            i = j + 1;
            while i < chars.len() {
                if chars[i] == '"' && (0..hashes).all(|h| chars.get(i + 1 + h) == Some(&'#')) {
                    out.push_str(&" ".repeat(1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal.
            while i < chars.len() {
                out.push(' ');
                i += 1;
                if chars.get(i) == Some(&'\'') {
                    out.push(' ');
                    i += 1;
                    break;
                }
            }
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

pub fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// The code before the first `#[cfg(test)]` (test modules sit at the end of their files).
pub fn without_tests(code: &str) -> String {
    match code.find("#[cfg(test)]") {
        Some(at) => code[..at].to_owned(),
        None => code.to_owned(),
    }
}

pub fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".to_owned());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

/// The path (or, for a `use` group, the paths) starting at `tokens[start]`, and where it ends.
pub fn path_at(tokens: &[String], start: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = vec![tokens[start].clone()];
    let mut i = start + 1;
    while tokens.get(i).is_some_and(|t| t == "::") {
        match tokens.get(i + 1).map(String::as_str) {
            Some("{") => {
                let (groups, end) = group_at(tokens, i + 2);
                let paths = groups.into_iter().map(|tail| prefix.iter().cloned().chain(tail).collect()).collect();
                return (paths, end);
            }
            Some(t) if t.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                prefix.push(t.to_owned());
                i += 2;
            }
            _ => break,
        }
    }
    (vec![prefix], i)
}

/// The paths of a `use` group whose `{` was just read, and the index past its `}`.
pub fn group_at(tokens: &[String], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut paths = Vec::new();
    while i < tokens.len() && tokens[i] != "}" {
        if tokens[i] == "," {
            i += 1;
            continue;
        }
        let (found, end) = path_at(tokens, i);
        paths.extend(found);
        i = end;
        // Skip `as name` and anything else up to the next item.
        while i < tokens.len() && tokens[i] != "," && tokens[i] != "}" {
            i += 1;
        }
    }
    (paths, i + 1)
}
