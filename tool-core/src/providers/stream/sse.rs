//! Server-sent events: a body split into the data payloads to push.

/// Splits a server-sent-events body into its `data` payloads, one per event: the lines of an
/// event's `data` fields joined with `\n`; comments (`:`), other fields (`event`, `id`,
/// `retry`) and blank lines skipped. A body that ends without the blank line still gives its
/// last event (the body is whole when handed over).
pub fn sse_data(text: &str) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut payloads = Vec::new();
    let mut data: Option<String> = None;
    for line in sse_lines(text) {
        if line.is_empty() {
            payloads.extend(data.take());
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(joined) => {
                    joined.push('\n');
                    joined.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    payloads.extend(data);
    payloads
}

/// The lines of an SSE body: ended by `\r\n`, `\n` or `\r`.
fn sse_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.find(['\r', '\n']).unwrap_or(rest.len());
        let line = &rest[..end];
        let after = &rest[end..];
        rest = after.strip_prefix("\r\n").or_else(|| after.get(1..)).unwrap_or("");
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_join_their_data_lines_and_skip_everything_else() {
        let body = "\u{feff}: comment\nevent: a\ndata: {\"a\":\ndata:1}\nid: 7\n\nretry: 10\ndata: [DONE]\r\n\r\ndata\n\ndata: last";
        assert_eq!(
            sse_data(body),
            vec!["{\"a\":\n1}".to_owned(), "[DONE]".to_owned(), String::new(), "last".to_owned()]
        );
        assert_eq!(sse_data("data: x\rdata: y\r\r"), vec!["x\ny".to_owned()]);
        assert_eq!(sse_data(""), Vec::<String>::new());
    }
}
