//! Text cut into search terms: identifiers split into words, case folded, stop words left out,
//! English words stemmed, and Chinese, Japanese and Korean text cut into overlapping pairs of
//! characters (those scripts do not separate words with spaces).

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};

/// Cuts text into terms. One per index: the stemmer is made once.
pub(crate) struct Analyzer {
    stemmer: Option<Stemmer>,
}

/// A word of the text as written (case folded, split), and the term it is searched by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word<'a> {
    /// The word, lower case, before stemming.
    pub surface: Cow<'a, str>,
    /// The term: the stem, or the surface when not stemmed.
    pub term: String,
}

impl Analyzer {
    pub(crate) fn new(stemming: bool) -> Analyzer {
        Analyzer { stemmer: stemming.then(|| Stemmer::create(Algorithm::English)) }
    }

    /// Calls `each` with every word of `text` that is searched by, case folded: words of
    /// identifiers and prose, and pairs of ideographs; stop words and bare numbers left out.
    /// [`term`](Analyzer::term) gives the term each is searched by.
    pub(crate) fn words<'a>(&self, text: &'a str, mut each: impl FnMut(Cow<'a, str>)) {
        pieces(text, |piece| match piece {
            Piece::Word(word) => {
                let surface = fold(word);
                if keep(&surface) {
                    each(surface);
                }
            }
            Piece::Ideographs(run) => ideograph_pairs(run, |pair| each(Cow::Borrowed(pair))),
        });
    }

    /// As [`words`](Analyzer::words), with where each word is in `text` (bytes): the search's
    /// words found again in a tool's text, to mark them.
    pub(crate) fn words_at<'a>(&self, text: &'a str, mut each: impl FnMut(std::ops::Range<usize>, Cow<'a, str>)) {
        // Every piece is a slice of `text`: its place is its offset from the start.
        let at = |piece: &str| {
            let start = piece.as_ptr() as usize - text.as_ptr() as usize;
            start..start + piece.len()
        };
        pieces(text, |piece| match piece {
            Piece::Word(word) => {
                let surface = fold(word);
                if keep(&surface) {
                    each(at(word), surface);
                }
            }
            Piece::Ideographs(run) => ideograph_pairs(run, |pair| each(at(pair), Cow::Borrowed(pair))),
        });
    }

    /// The words of `text` with their terms.
    pub(crate) fn terms<'a>(&self, text: &'a str) -> Vec<Word<'a>> {
        let mut out = Vec::new();
        self.words(text, |surface| {
            let term = self.term(&surface);
            out.push(Word { surface, term });
        });
        out
    }

    /// The term a folded word is searched by.
    pub(crate) fn term(&self, surface: &str) -> String {
        match &self.stemmer {
            // Stemming English suffixes off words of other scripts would cut them wrongly.
            Some(stemmer) if surface.len() > 3 && surface.chars().all(|c| c.is_ascii_alphabetic()) => {
                stemmer.stem(surface).into_owned()
            }
            _ => surface.to_owned(),
        }
    }
}

/// A run of text between separators.
enum Piece<'a> {
    /// Letters and digits, one word of an identifier or of prose (`camelCase` already split).
    Word(&'a str),
    /// Chinese, Japanese or Korean characters in a row.
    Ideographs(&'a str),
}

/// Whether a character belongs to a script written without spaces between words, whose text
/// is searched by pairs of characters.
fn is_ideographic(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF // Hiragana, Katakana
        | 0x3400..=0x4DBF // CJK Extension A
        | 0x4E00..=0x9FFF // CJK Unified Ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF // CJK Extensions B and later
    )
}

/// Cuts `text` at everything that is neither a letter nor a digit (`_`, `.`, `-`, spaces,
/// punctuation), then each run at its case changes: `getWeather` is `get` and `Weather`,
/// `HTMLParser` is `HTML` and `Parser`, `v2Items` is `v2` and `Items`.
fn pieces<'a>(text: &'a str, mut each: impl FnMut(Piece<'a>)) {
    let mut start: Option<(usize, bool)> = None;
    for (i, c) in text.char_indices() {
        let ideographic = is_ideographic(c);
        let word = !ideographic && c.is_alphanumeric();
        match start {
            Some((s, true)) if !ideographic => {
                each(Piece::Ideographs(&text[s..i]));
                start = word.then_some((i, false));
            }
            Some((s, false)) if !word => {
                split_case(&text[s..i], &mut each);
                start = ideographic.then_some((i, true));
            }
            None if ideographic || word => start = Some((i, ideographic)),
            _ => {}
        }
    }
    match start {
        Some((s, true)) => each(Piece::Ideographs(&text[s..])),
        Some((s, false)) => split_case(&text[s..], &mut each),
        None => {}
    }
}

/// Splits one run of letters and digits at its case changes.
fn split_case<'a>(run: &'a str, each: &mut impl FnMut(Piece<'a>)) {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut from = 0;
    for k in 1..chars.len() {
        let (prev, c) = (chars[k - 1].1, chars[k].1);
        let next_lower = chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
            || (c.is_uppercase() && prev.is_uppercase() && next_lower);
        if boundary {
            each(Piece::Word(&run[from..chars[k].0]));
            from = chars[k].0;
        }
    }
    each(Piece::Word(&run[from..]));
}

/// Lower case, without copying text that already is.
fn fold(word: &str) -> Cow<'_, str> {
    if word.chars().any(char::is_uppercase) {
        Cow::Owned(word.to_lowercase())
    } else {
        Cow::Borrowed(word)
    }
}

/// Whether a folded word is searched by: not a stop word, not a bare number.
fn keep(word: &str) -> bool {
    !word.bytes().all(|b| b.is_ascii_digit()) && STOP_WORDS.binary_search(&word).is_err()
}

/// Overlapping pairs of characters; a lone character is its own term.
fn ideograph_pairs<'a>(run: &'a str, mut each: impl FnMut(&'a str)) {
    let bounds: Vec<usize> = run.char_indices().map(|(i, _)| i).chain([run.len()]).collect();
    if bounds.len() == 2 {
        each(run);
        return;
    }
    for w in bounds.windows(3) {
        each(&run[w[0]..w[2]]);
    }
}

/// English words too common in requests and descriptions to tell tools apart, sorted for a
/// binary search. Words that name what a tool does (`get`, `find`, `list`) are not here:
/// they are what a request and a tool name share.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
    "both", "but", "by", "can", "could", "did", "do", "does", "doing", "each", "either", "etc", "for", "from", "had",
    "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it",
    "its", "itself", "just", "let", "like", "may", "me", "might", "more", "most", "much", "must", "my", "myself",
    "need", "needs", "no", "nor", "of", "on", "once", "only", "or", "other", "our", "ours", "please", "shall", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they",
    "this", "those", "to", "too", "us", "use", "used", "very", "want", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(analyzer: &Analyzer, text: &str) -> Vec<String> {
        analyzer.terms(text).into_iter().map(|w| w.term).collect()
    }

    #[test]
    fn stop_words_are_sorted_and_lower_case() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| w.chars().all(|c| c.is_ascii_lowercase())));
    }

    #[test]
    fn identifiers_split_at_separators_and_case_changes() {
        let plain = Analyzer::new(false);
        assert_eq!(terms(&plain, "memory.search_by-tagV2"), ["memory", "search", "tag", "v2"]);
        assert_eq!(terms(&plain, "getHTMLParser"), ["get", "html", "parser"]);
        assert_eq!(terms(&plain, "ipv4Address 2024 base64"), ["ipv4", "address", "base64"]);
    }

    #[test]
    fn english_words_are_stemmed_and_stop_words_left_out() {
        let stemming = Analyzer::new(true);
        assert_eq!(terms(&stemming, "Books the flights for you"), ["book", "flight"]);
        assert_eq!(terms(&stemming, "booking searched"), ["book", "search"]);
        // Not ASCII: left as written.
        assert_eq!(terms(&stemming, "Réservations"), ["réservations"]);
    }

    #[test]
    fn ideographic_text_is_cut_into_pairs() {
        let plain = Analyzer::new(false);
        assert_eq!(terms(&plain, "查询天气"), ["查询", "询天", "天气"]);
        assert_eq!(terms(&plain, "天 weather予報"), ["天", "weather", "予報"]);
    }
}
