//! Where [`Pass::locate`](super::pass::Pass) writes a value's JSON pointer: a warning's
//! string, capped, or nowhere.

use crate::model::pointer;

/// Where [`Pass::locate`] writes a value's JSON pointer.
pub(super) trait PointerSink {
    fn push_str(&mut self, text: &str);
    fn push_segment(&mut self, segment: &str);
}

/// A warning's pointer is written up to [`pointer::WARNING_POINTER_MAX`] bytes, then `…` (as
/// [`pointer::cut`] cuts it): what is written past the bound is not even read, so that many
/// warnings below a long key do not each copy it.
impl PointerSink for String {
    fn push_str(&mut self, text: &str) {
        push_capped(self, text);
    }

    fn push_segment(&mut self, segment: &str) {
        let room = pointer::WARNING_POINTER_MAX.saturating_sub(self.len());
        // Escaping doubles a byte at most: the segment's beginning that can fit is enough.
        let head = &segment[..floor_boundary(segment, room.saturating_add(1))];
        push_capped(self, "/");
        push_capped(self, &pointer::escape(head));
        if head.len() < segment.len() {
            push_capped(self, "…");
        }
    }
}

/// Appends `text` to a pointer being written, up to [`pointer::WARNING_POINTER_MAX`] bytes,
/// then `…` once.
fn push_capped(out: &mut String, text: &str) {
    let room = pointer::WARNING_POINTER_MAX.saturating_sub(out.len());
    if text.len() <= room {
        out.push_str(text);
    } else if !out.ends_with('…') {
        out.push_str(&text[..floor_boundary(text, room)]);
        out.push('…');
    }
}

/// The largest character boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut end = at.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// For [`Pass::locate`] when only the node is asked for: no pointer is written.
pub(super) struct NoPointer;

impl PointerSink for NoPointer {
    fn push_str(&mut self, _: &str) {}

    fn push_segment(&mut self, _: &str) {}
}
