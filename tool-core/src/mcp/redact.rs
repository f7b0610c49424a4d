//! Credentials kept out of what an import writes: a server's URL without its user, password,
//! query and fragment, and texts quoted from the transport or the server cleaned of them.

/// Where the parts of a URL that may hold credentials are, as written
/// (`scheme://userinfo@host/path?query#fragment`): byte offsets of `@`, `?` and `#`.
struct UrlParts {
    authority: usize,
    at: Option<usize>,
    question: Option<usize>,
    hash: Option<usize>,
}

impl UrlParts {
    fn of(url: &str) -> UrlParts {
        let authority = url.find("://").map_or(0, |i| i + 3);
        let authority_end = url[authority..].find(['/', '?', '#']).map_or(url.len(), |i| authority + i);
        let at = url[authority..authority_end].rfind('@').map(|i| authority + i);
        let hash = url[authority_end..].find('#').map(|i| authority_end + i);
        let question = url[authority_end..hash.unwrap_or(url.len())].find('?').map(|i| authority_end + i);
        UrlParts { authority, at, question, hash }
    }

    fn userinfo<'a>(&self, url: &'a str) -> Option<&'a str> {
        self.at.map(|at| &url[self.authority..at])
    }

    fn password<'a>(&self, url: &'a str) -> Option<&'a str> {
        self.userinfo(url).and_then(|userinfo| userinfo.split_once(':')).map(|(_, password)| password)
    }

    fn query<'a>(&self, url: &'a str) -> Option<&'a str> {
        self.question.map(|q| &url[q + 1..self.hash.unwrap_or(url.len())])
    }

    fn fragment<'a>(&self, url: &'a str) -> Option<&'a str> {
        self.hash.map(|h| &url[h + 1..])
    }
}

/// `https://user:secret@host/mcp?token=abc#x` as `https://***@host/mcp?***#***`.
pub(super) fn redact_url(url: &str) -> String {
    let parts = UrlParts::of(url);
    let mut out = String::with_capacity(url.len());
    let path_start = match parts.at {
        Some(at) => {
            out.push_str(&url[..parts.authority]);
            out.push_str("***");
            at
        }
        None => 0,
    };
    out.push_str(&url[path_start..parts.question.or(parts.hash).unwrap_or(url.len())]);
    if parts.question.is_some() {
        out.push_str("?***");
    }
    if parts.hash.is_some() {
        out.push_str("#***");
    }
    out
}

/// Removes the endpoint's secrets from a text written from what rmcp, reqwest or the server
/// said, which may quote the URL whole.
pub(super) struct Redactor {
    url: Option<String>,
    label: String,
    secrets: Vec<String>,
}

impl Redactor {
    /// For a server with no URL: nothing to clean.
    pub(super) fn none(label: String) -> Redactor {
        Redactor { url: None, label, secrets: Vec::new() }
    }

    /// For a server at `url`, with its bearer token: the URL is written redacted, and its
    /// credentials, query, fragment and the token are never written. Longest first, so a part
    /// inside another is not left half written.
    pub(super) fn for_url(url: &str, bearer: Option<&str>) -> Redactor {
        let parts = UrlParts::of(url);
        let mut secrets: Vec<String> =
            [parts.userinfo(url), parts.password(url), parts.query(url), parts.fragment(url)]
                .into_iter()
                .flatten()
                .chain(bearer)
                .filter(|secret| !secret.is_empty())
                .map(str::to_owned)
                .collect();
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        secrets.dedup();
        Redactor { url: Some(url.to_owned()), label: redact_url(url), secrets }
    }

    pub(super) fn clean(&self, text: &str) -> String {
        let mut text = match &self.url {
            Some(url) if text.contains(url.as_str()) => text.replace(url.as_str(), &self.label),
            _ => text.to_owned(),
        };
        for secret in &self.secrets {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), "***");
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn a_url_loses_its_userinfo_query_and_fragment() {
        let cases = [
            ("http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"),
            ("https://user:secret@host/mcp?token=abc", "https://***@host/mcp?***"),
            ("https://token@host:443/a/b#frag", "https://***@host:443/a/b#***"),
            ("https://host/mcp?key=1&b=2#x?y", "https://host/mcp?***#***"),
            ("https://host?key=1", "https://host?***"),
            ("https://a@b@host/p@q", "https://***@host/p@q"),
            ("http://[::1]:9/mcp", "http://[::1]:9/mcp"),
        ];
        for (url, redacted) in cases {
            assert_eq!(redact_url(url), redacted, "{url}");
        }
    }
}
