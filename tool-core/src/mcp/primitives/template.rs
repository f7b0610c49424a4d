//! RFC 6570 level-1 URI templates (`test://items/{id}/data`): checked when a host declares one,
//! and matched against the URIs clients ask for, giving each variable's value.

use std::collections::BTreeMap;

/// Why a URI template was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// A `{` without its `}`, or a `}` without its `{`.
    #[error("the URI template `{template}` has an unmatched `{brace}`")]
    Unmatched {
        /// The template.
        template: String,
        /// The brace without its pair.
        brace: char,
    },
    /// An expression that is not a plain variable name (`{+path}`, `{?q}`, `{a,b}`, `{id:3}`).
    #[error("the URI template `{template}` has the expression `{{{expression}}}`; only level-1 expressions are served, a plain variable name such as `{{id}}` (letters, digits, `_`, `.`)")]
    NotLevelOne {
        /// The template.
        template: String,
        /// What stands between the braces.
        expression: String,
    },
    /// Two variables with nothing between them, which no URI can tell apart.
    #[error("the URI template `{template}` has the variables `{first}` and `{second}` side by side; put a literal such as `/` between them")]
    Adjacent {
        /// The template.
        template: String,
        /// The first variable.
        first: String,
        /// The variable right after it.
        second: String,
    },
    /// A variable named twice.
    #[error("the URI template `{template}` names the variable `{name}` twice")]
    Repeated {
        /// The template.
        template: String,
        /// The variable.
        name: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// A parsed level-1 template.
#[derive(Debug, Clone)]
pub(crate) struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    pub(crate) fn parse(text: &str) -> Result<UriTemplate, UriTemplateError> {
        let template = || text.to_owned();
        let mut parts = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let open = rest.find('{');
            let close = rest.find('}');
            match (open, close) {
                (None, Some(_)) => return Err(UriTemplateError::Unmatched { template: template(), brace: '}' }),
                (Some(open), Some(close)) if close < open => {
                    return Err(UriTemplateError::Unmatched { template: template(), brace: '}' });
                }
                (None, None) => {
                    parts.push(Part::Literal(rest.to_owned()));
                    break;
                }
                (Some(_), None) => return Err(UriTemplateError::Unmatched { template: template(), brace: '{' }),
                (Some(open), Some(close)) => {
                    if open > 0 {
                        parts.push(Part::Literal(rest[..open].to_owned()));
                    }
                    let name = &rest[open + 1..close];
                    if !is_variable_name(name) {
                        return Err(UriTemplateError::NotLevelOne {
                            template: template(),
                            expression: name.to_owned(),
                        });
                    }
                    if let Some(Part::Variable(first)) = parts.last() {
                        return Err(UriTemplateError::Adjacent {
                            template: template(),
                            first: first.clone(),
                            second: name.to_owned(),
                        });
                    }
                    if parts.contains(&Part::Variable(name.to_owned())) {
                        return Err(UriTemplateError::Repeated { template: template(), name: name.to_owned() });
                    }
                    parts.push(Part::Variable(name.to_owned()));
                    rest = &rest[close + 1..];
                }
            }
        }
        Ok(UriTemplate { text: text.to_owned(), parts })
    }

    /// The template as the host wrote it.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The variable names, in order.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables' values when `uri` is an expansion of the template. A value is one or more
    /// characters other than `/`, `?` and `#` (an expansion escapes those, and a client that
    /// sent them meant another path, query or fragment), with percent-escapes decoded; when a
    /// URI can be split more than one way, each variable takes the shortest value that lets
    /// the rest match.
    ///
    /// Whether the parts from each one on match from each position on is settled once, from
    /// the end, so the work is the parts times the URI's length, whatever the URI.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let bytes = uri.as_bytes();
        let width = bytes.len() + 1;
        // Where each position's run of characters a value may hold ends.
        let mut run_end = vec![bytes.len(); width];
        for at in (0..bytes.len()).rev() {
            run_end[at] = if matches!(bytes[at], b'/' | b'?' | b'#') { at } else { run_end[at + 1] };
        }
        let boundary = |at: usize| at == bytes.len() || (bytes[at] & 0xC0) != 0x80;
        // `rest[at]`: the parts after the current one match `uri[at..]`.
        let mut rest = vec![false; width];
        rest[bytes.len()] = true;
        let mut tables = vec![rest.clone()];
        for part in self.parts.iter().rev() {
            let mut here = vec![false; width];
            match part {
                Part::Literal(literal) => {
                    for (at, slot) in here.iter_mut().enumerate() {
                        let end = at + literal.len();
                        *slot = end <= bytes.len() && bytes[at..].starts_with(literal.as_bytes()) && rest[end];
                    }
                }
                Part::Variable(_) => {
                    // `after[at]`: how many positions from `at` on end a value the rest matches.
                    let mut after = vec![0usize; width + 1];
                    for at in (0..width).rev() {
                        after[at] = after[at + 1] + usize::from(rest[at] && boundary(at));
                    }
                    for (at, slot) in here.iter_mut().enumerate() {
                        let last = run_end[at];
                        *slot = last > at && after[at + 1] > after[last + 1];
                    }
                }
            }
            tables.push(here.clone());
            rest = here;
        }
        if !rest[0] {
            return None;
        }
        // `tables[k]`: the last `k` parts match from a position; walk forward choosing ends.
        let mut values = BTreeMap::new();
        let mut at = 0;
        for (index, part) in self.parts.iter().enumerate() {
            let next = &tables[self.parts.len() - index - 1];
            match part {
                Part::Literal(literal) => at += literal.len(),
                Part::Variable(name) => {
                    let end = (at + 1..=run_end[at]).find(|&end| next[end] && boundary(end))?;
                    values.insert(name.clone(), decode(&uri[at..end])?);
                    at = end;
                }
            }
        }
        Some(values)
    }
}

/// RFC 6570's varname: letters, digits, `_`, percent-escapes, with single dots between.
fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'%'))
}

/// `text` with its percent-escapes decoded; `None` when an escape is malformed or the result is
/// not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).unwrap().matches(uri).map(|v| v.into_iter().collect())
    }

    fn pairs(items: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(items.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    #[test]
    fn a_variable_takes_what_lies_between_the_literals() {
        assert_eq!(values("test://template/{id}/data", "test://template/123/data"), pairs(&[("id", "123")]));
        assert_eq!(values("test://template/{id}/data", "test://template//data"), None);
        assert_eq!(values("test://template/{id}/data", "test://template/1/2/data"), None);
        assert_eq!(values("test://template/{id}/data", "test://template/1/data/x"), None);
        assert_eq!(values("file:///{dir}/{name}.txt", "file:///a/b.c.txt"), pairs(&[("dir", "a"), ("name", "b.c")]));
        assert_eq!(values("x://{a}-{b}", "x://1-2-3"), pairs(&[("a", "1"), ("b", "2-3")]));
        assert_eq!(values("x://{name}", "x://caf%C3%A9%20au%20lait"), pairs(&[("name", "café au lait")]));
        assert_eq!(values("x://{name}", "x://%ZZ"), None);
        assert_eq!(values("x://{name}", "x://né"), pairs(&[("name", "né")]));
        assert_eq!(values("x://static", "x://static"), pairs(&[]));
    }

    #[test]
    fn only_level_one_templates_are_taken() {
        let refused = |template: &str| UriTemplate::parse(template).unwrap_err().to_string();
        assert_eq!(
            refused("x://{+path}"),
            "the URI template `x://{+path}` has the expression `{+path}`; only level-1 expressions are served, a plain variable name such as `{id}` (letters, digits, `_`, `.`)"
        );
        assert_eq!(refused("x://{a"), "the URI template `x://{a` has an unmatched `{`");
        assert_eq!(refused("x://a}"), "the URI template `x://a}` has an unmatched `}`");
        assert_eq!(
            refused("x://{a}{b}"),
            "the URI template `x://{a}{b}` has the variables `a` and `b` side by side; put a literal such as `/` between them"
        );
        assert_eq!(refused("x://{a}/{a}"), "the URI template `x://{a}/{a}` names the variable `a` twice");
        let template = UriTemplate::parse("x://{a}/{b.c}").unwrap();
        assert_eq!(template.variables().collect::<Vec<_>>(), ["a", "b.c"]);
    }

    #[test]
    fn a_hostile_uri_costs_bounded_work() {
        let template = UriTemplate::parse("x://{a}a{b}a{c}a{d}b").unwrap();
        let uri = format!("x://{}", "a".repeat(100_000));
        assert_eq!(template.matches(&uri), None);
    }
}
