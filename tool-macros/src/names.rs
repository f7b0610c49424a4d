//! Names and texts: the suggestion for a mistyped key, tool names, JSON literals.

use syn::{Expr, ExprLit, ExprUnary, Lit, UnOp};

/// The known key closest to `name`, if it is close enough to be a typo.
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, k)| *d <= (k.len().max(name.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Edit distance counting a swap of two neighbours as one edit (`nmae` → `name`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// `CheckAvailability` → `check_availability`, `HTTPServer` → `http_server`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                Some('_') => false,
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(|n| n.is_lowercase()),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Why `name` does not match `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`.
pub fn name_problem(name: &str) -> Option<String> {
    let Some(first) = name.chars().next() else { return Some("it is empty".to_owned()) };
    if !(first.is_ascii_alphabetic() || first == '_') {
        return Some("it must start with an ASCII letter or `_`".to_owned());
    }
    if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))) {
        let bad = if bad.is_whitespace() { "spaces are".to_owned() } else { format!("`{bad}` is") };
        return Some(format!("{bad} not allowed; use ASCII letters, digits, `_`, `.` and `-`"));
    }
    if name.len() > 64 {
        return Some(format!("it is {} characters long; the limit is 64", name.len()));
    }
    None
}

/// The JSON text of a number literal (negative too, unless `whole`).
pub fn number_json(expr: &Expr, whole: bool) -> Option<String> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => Some(i.base10_digits().to_owned()),
        Expr::Lit(ExprLit { lit: Lit::Float(f), .. }) if !whole => {
            let digits = f.base10_digits();
            Some(if digits.ends_with('.') { format!("{digits}0") } else { digits.to_owned() })
        }
        Expr::Unary(ExprUnary { op: UnOp::Neg(_), expr, .. }) if !whole => {
            number_json(expr, false).map(|n| format!("-{n}"))
        }
        _ => None,
    }
}

/// The JSON text of a literal expression: strings, numbers (also negative), booleans.
pub fn literal_json(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(json_string(&s.value())),
        Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => Some(b.value.to_string()),
        Expr::Lit(ExprLit { lit: Lit::Int(_) | Lit::Float(_), .. }) | Expr::Unary(_) => number_json(expr, false),
        _ => None,
    }
}

/// A JSON string literal for `text`.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_the_closest_key() {
        let known = ["name", "tags", "timeout_ms"];
        assert_eq!(closest("nmae", &known), Some("name"));
        assert_eq!(closest("tag", &known), Some("tags"));
        assert_eq!(closest("timeout", &known), Some("timeout_ms"));
        assert_eq!(closest("zzzzzzzz", &known), None);
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }

    #[test]
    fn struct_names_become_snake_case() {
        assert_eq!(snake_case("CheckAvailability"), "check_availability");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("Parse2Json"), "parse2_json");
        assert_eq!(snake_case("memory_search"), "memory_search");
        assert_eq!(snake_case("A"), "a");
    }

    #[test]
    fn names_are_checked_against_the_pattern() {
        assert_eq!(name_problem("memory.search"), None);
        assert_eq!(name_problem("9lives").as_deref(), Some("it must start with an ASCII letter or `_`"));
        assert_eq!(
            name_problem("a b").as_deref(),
            Some("spaces are not allowed; use ASCII letters, digits, `_`, `.` and `-`")
        );
        assert_eq!(
            name_problem("a!").as_deref(),
            Some("`!` is not allowed; use ASCII letters, digits, `_`, `.` and `-`")
        );
        assert_eq!(name_problem(&"a".repeat(65)).as_deref(), Some("it is 65 characters long; the limit is 64"));
        assert_eq!(name_problem("").as_deref(), Some("it is empty"));
    }
}
