//! A key matched to the declared names: exactly (the common case, compared inline), but for
//! case and separators (`max_bytes` for `maxBytes`), or by likeness, for the "did you mean" of
//! the warning about a key no parameter or field declares.

use crate::model::rules;
use crate::model::{pointer, truncate, ParseWarning, ToolParameter};
use crate::suggest::Names;

/// The position of the declared parameter a key names, or [`UNKNOWN_KEY`]. A `usize`, so that a
/// tool may have any number of parameters; reading a key still returns in registers, as serde's
/// derived field identifiers do.
#[doc(hidden)]
pub type Key = usize;

/// The [`Key`] of a name no parameter declares (its warning goes to the single pass).
#[doc(hidden)]
pub const UNKNOWN_KEY: Key = Key::MAX;

/// The position among `names` of the parameter `key` names, trying `expected` first: models
/// mostly send the parameters in declaration order (wire names are unique, `#[tool]` refuses
/// duplicates, so this finds what the search would). Inlined into each key reader, as the
/// comparison it makes is.
#[inline(always)]
pub(crate) fn parameter_named(names: &[&str], key: &[u8], expected: Key) -> Option<Key> {
    if names.get(expected).is_some_and(|name| same_name(name.as_bytes(), key)) {
        return Some(expected);
    }
    names.iter().position(|name| same_name(name.as_bytes(), key))
}

/// Whether `key` is `name`, compared inline: parameter names are short, and a `memcmp` call per
/// candidate costs more than the comparison itself.
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two overlapping loads cover every byte of a name of 1 to 16 bytes.
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// `N` bytes of `bytes` from `at`, as one comparable value.
#[inline]
fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut word = [0; N];
    word.copy_from_slice(&bytes[at..at + N]);
    word
}

/// A parameter name without case and separators: `max_bytes`, `MaxBytes` and `max-bytes` all
/// fold to `maxbytes`.
fn fold_name(name: &str) -> impl Iterator<Item = char> + '_ {
    name.chars().filter(|c| !matches!(c, '_' | '-' | ' ' | '.')).flat_map(char::to_lowercase)
}

/// The one of `names` that `key` names but for case and separators, if exactly one does.
pub(crate) fn folded_name<'n>(key: &str, names: impl IntoIterator<Item = &'n str>) -> Option<&'n str> {
    // Compared as they fold, so a key sent a megabyte long stops at the first difference.
    let mut matching = names.into_iter().filter(|name| fold_name(name).eq(fold_name(key)));
    match (matching.next(), matching.next()) {
        (Some(name), None) => Some(name),
        _ => None,
    }
}

/// The declared name an unknown key most likely meant, if any is at least half alike.
/// (Public, hidden, for the benchmarks: it is what an unknown key costs.)
pub fn closest_key<'a>(key: &str, declared: &[&'a str]) -> Option<&'a str> {
    thread_local! {
        // The names last prepared on this thread: the keys of one call, and of the calls to
        // one tool, are compared with the same declared names again and again.
        static PREPARED: std::cell::RefCell<Option<Names>> = const { std::cell::RefCell::new(None) };
    }
    PREPARED.with_borrow_mut(|prepared| {
        let names = match prepared {
            Some(names) if names.are(declared) => names,
            _ => prepared.insert(Names::new(declared.iter().copied())),
        };
        names.closest(key, 1, 0.5).first().map(|&best| declared[best])
    })
}

/// The warning for the key `key` at `pointer` that none of `declared` names, naming the closest
/// one; `what` says what the declared names are (`parameters` at the top level, `fields` below).
pub(crate) fn unknown_key(pointer: &str, key: &str, declared: &[&str], what: &str) -> ParseWarning {
    let action = match closest_key(key, declared) {
        Some(best) => format!("ignored; did you mean `{best}`?"),
        None => "ignored".to_owned(),
    };
    let expected = if declared.is_empty() {
        format!("no {what}")
    } else {
        format!("one of the declared {what}: {}", declared.join(", "))
    };
    ParseWarning::new(pointer, rules::UNKNOWN_PARAMETER, expected, &truncate(key), &action)
}

/// The warning for a key no parameter declares, naming the closest declared one.
pub(crate) fn unknown_parameter(key: &str, parameters: &[ToolParameter]) -> ParseWarning {
    let declared: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
    unknown_key(&pointer::child("", key), key, &declared, "parameters")
}

#[cfg(test)]
mod tests {
    use super::{closest_key, same_name};

    #[test]
    fn same_name_agrees_with_string_equality_at_every_length_and_position() {
        for n in 0..=40usize {
            let name: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let same = |a: &str, b: &str| same_name(a.as_bytes(), b.as_bytes());
            assert!(same(&name, &name), "{name}");
            assert!(!same(&name, &format!("{name}x")), "{name}");
            assert!(n == 0 || !same(&name, &name[..n - 1]), "{name}");
            // One byte different, at each position.
            for at in 0..n {
                let mut other = name.clone().into_bytes();
                other[at] = b'_';
                let other = String::from_utf8(other).unwrap();
                assert!(!same(&name, &other), "{name} vs {other}");
            }
        }
    }

    #[test]
    fn the_closest_key_is_taken_from_the_declared_names_given_not_from_those_prepared_before() {
        assert_eq!(closest_key("lnaguage", &["query", "language", "limit"]), Some("language"));
        assert_eq!(closest_key("lnaguage", &["query", "language", "limit"]), Some("language"));
        assert_eq!(closest_key("lnaguage", &["query", "languages", "limit"]), Some("languages"));
        assert_eq!(closest_key("lnaguage", &["query", "limit"]), None);
        assert_eq!(closest_key("qurey", &["query", "limit"]), Some("query"));
        assert_eq!(closest_key("qurey", &[]), None);
    }
}
