//! JSON pointers (RFC 6901): where in the arguments, or in a schema, something is.
//!
//! The one place that escapes and unescapes pointer segments (`~` as `~0`, `/` as `~1`).

use std::borrow::Cow;

/// Appends one segment, escaped, to `pointer`.
pub(crate) fn push(pointer: &mut String, segment: &str) {
    pointer.push('/');
    if !segment.bytes().any(|b| b == b'~' || b == b'/') {
        pointer.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The longest pointer a warning keeps whole, in bytes.
pub(crate) const WARNING_POINTER_MAX: usize = 1024;

/// `pointer` as a warning keeps it: whole up to [`WARNING_POINTER_MAX`] bytes, else its
/// beginning and `…`. Keys are the model's text, of any length: without the cut, each of many
/// warnings below a long key would copy the key, and a small text would fill the memory. Takes
/// the same time whatever the pointer's length.
pub(crate) fn cut(pointer: &str) -> Cow<'_, str> {
    if pointer.len() <= WARNING_POINTER_MAX {
        return Cow::Borrowed(pointer);
    }
    let mut end = WARNING_POINTER_MAX;
    while !pointer.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &pointer[..end]))
}

/// One segment, escaped.
pub(crate) fn escape(segment: &str) -> Cow<'_, str> {
    if segment.bytes().any(|b| b == b'~' || b == b'/') {
        Cow::Owned(segment.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(segment)
    }
}

/// The pointer to `segment` inside `parent`: `parent/segment`, escaped.
pub(crate) fn child(parent: &str, segment: &str) -> String {
    let mut pointer = String::with_capacity(parent.len() + segment.len() + 1);
    pointer.push_str(parent);
    push(&mut pointer, segment);
    pointer
}

/// One segment as it was before escaping.
pub(crate) fn unescape(segment: &str) -> Cow<'_, str> {
    if segment.contains('~') {
        Cow::Owned(segment.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(segment)
    }
}

/// The segments of `pointer`, unescaped (none for the root, `""`).
pub(crate) fn segments(pointer: &str) -> impl Iterator<Item = Cow<'_, str>> {
    pointer.split('/').skip(1).map(unescape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_escaped_on_the_way_in_and_unescaped_on_the_way_out() {
        assert_eq!(child("/a", "b/c~d"), "/a/b~1c~0d");
        assert_eq!(child("", "plain"), "/plain");
        let mut pointer = String::new();
        push(&mut pointer, "x");
        push(&mut pointer, "~1");
        assert_eq!(pointer, "/x/~01");
        assert_eq!(segments(&pointer).collect::<Vec<_>>(), ["x", "~1"]);
        assert_eq!(segments("").count(), 0);
        assert_eq!(segments("/a~1b/0").collect::<Vec<_>>(), ["a/b", "0"]);
    }
}
