//! Quantities and panics said in words, the one way every message of the crate says them.

use std::any::Any;
use std::time::Duration;

/// `bytes` in words for a person or a model: `67 bytes`, `12 KB`, `3.4 MB`.
pub(crate) fn human_bytes(bytes: usize) -> String {
    const KB: usize = 1024;
    match bytes {
        0..KB => format!("{bytes} bytes"),
        _ if bytes < KB * KB => format!("{} KB", bytes.div_ceil(KB)),
        _ => format!("{:.1} MB", bytes as f64 / (KB * KB) as f64),
    }
}

/// A duration in words for a person or a model: `250 ms`, `12 s`, `3 min`, rounded up to the
/// unit (a wait said shorter than it is would be tried too early).
pub(crate) fn duration_words(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms < 1_000 {
        format!("{} ms", ms.max(1))
    } else if ms < 120_000 {
        format!("{} s", ms.div_ceil(1_000))
    } else {
        format!("{} min", ms.div_ceil(60_000))
    }
}

/// What a panic said: its message when it has one.
pub(crate) fn panic_words(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::duration_words;

    #[test]
    fn a_duration_is_said_in_the_largest_unit_under_its_size_rounded_up() {
        let said: Vec<String> = [0, 1, 250, 999, 1_000, 1_001, 30_000, 119_999, 120_000, 150_000, 3_600_000]
            .into_iter()
            .map(|ms| duration_words(Duration::from_millis(ms)))
            .collect();
        assert_eq!(
            said,
            ["1 ms", "1 ms", "250 ms", "999 ms", "1 s", "2 s", "30 s", "120 s", "2 min", "3 min", "60 min"]
        );
    }
}
