//! Text cut into search terms: identifiers split into words, case folded, stop words left out,
//! English words stemmed, and Chinese, Japanese and Korean text cut into overlapping pairs of
//! characters (those scripts do not separate words with spaces).

use rust_stemmers::{Algorithm, Stemmer};

/// Cuts text into terms. One per index: the stemmer is made once.
pub(crate) struct Analyzer {
    stemmer: Option<Stemmer>,
}

/// A word of the text as written (case folded, split), and the term it is searched by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word, lower case, before stemming.
    pub surface: String,
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
    pub(crate) fn words(&self, text: &str, mut each: impl FnMut(&str)) {
        self.words_in(text, &mut String::new(), |_, surface| each(surface));
    }

    /// As [`words`](Analyzer::words), with where each word is in `text` (bytes): the search's
    /// words found again in a tool's text, to mark them.
    pub(crate) fn words_at(&self, text: &str, each: impl FnMut(std::ops::Range<usize>, &str)) {
        self.words_in(text, &mut String::new(), each);
    }

    /// As [`words_at`](Analyzer::words_at), folding words with capitals into `folded`: an index
    /// gives one buffer for all its texts.
    pub(crate) fn words_in(&self, text: &str, folded: &mut String, mut each: impl FnMut(std::ops::Range<usize>, &str)) {
        // Every piece is a slice of `text`: its place is its offset from the start.
        let at = |piece: &str| {
            let start = piece.as_ptr() as usize - text.as_ptr() as usize;
            start..start + piece.len()
        };
        pieces(text, |piece| match piece {
            Piece::Word(word, lower) => {
                let surface = if !lower && word.chars().any(char::is_uppercase) {
                    folded.clear();
                    if word.is_ascii() {
                        folded.push_str(word);
                        folded.make_ascii_lowercase();
                    } else {
                        folded.extend(word.chars().flat_map(char::to_lowercase));
                    }
                    folded.as_str()
                } else {
                    word
                };
                if keep(surface) {
                    each(at(word), surface);
                }
            }
            Piece::Ideographs(run) => ideograph_pairs(run, &mut |pair| each(at(pair), pair)),
        });
    }

    /// The words of `text` with their terms.
    pub(crate) fn terms(&self, text: &str) -> Vec<Word> {
        let mut out = Vec::new();
        self.words(text, |surface| out.push(Word { surface: surface.to_owned(), term: self.term(surface) }));
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
    /// Letters and digits, one word of an identifier or of prose (`camelCase` already split),
    /// and whether it is known to have no capital letter.
    Word(&'a str, bool),
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
    // The run being read: where it starts, whether it is ideographs, whether it has a capital.
    let mut start: Option<(usize, bool)> = None;
    let mut upper = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Most text of tool definitions is ASCII: its bytes are classified without decoding.
        let (ideographic, word, width) = if bytes[i].is_ascii() {
            upper |= bytes[i].is_ascii_uppercase();
            (false, bytes[i].is_ascii_alphanumeric(), 1)
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            let ideographic = is_ideographic(c);
            upper |= !c.is_lowercase();
            (ideographic, !ideographic && c.is_alphanumeric(), c.len_utf8())
        };
        match start {
            Some((s, true)) if !ideographic => {
                each(Piece::Ideographs(&text[s..i]));
                start = word.then_some((i, false));
                upper = word && (!bytes[i].is_ascii() || bytes[i].is_ascii_uppercase());
            }
            Some((s, false)) if !word => {
                split_case(&text[s..i], upper, &mut each);
                start = ideographic.then_some((i, true));
            }
            None if ideographic || word => {
                start = Some((i, ideographic));
                upper = word && (!bytes[i].is_ascii() || bytes[i].is_ascii_uppercase());
            }
            _ => {}
        }
        i += width;
    }
    match start {
        Some((s, true)) => each(Piece::Ideographs(&text[s..])),
        Some((s, false)) => split_case(&text[s..], upper, &mut each),
        None => {}
    }
}

/// Splits one run of letters and digits at its case changes.
fn split_case<'a>(run: &'a str, upper: bool, each: &mut impl FnMut(Piece<'a>)) {
    if !upper {
        each(Piece::Word(run, true));
        return;
    }
    let mut from = 0;
    let mut chars = run.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        if let Some(p) = prev {
            let next_lower = chars.peek().is_some_and(|(_, n)| n.is_lowercase());
            let boundary =
                c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit() || (p.is_uppercase() && next_lower));
            if boundary {
                each(Piece::Word(&run[from..i], false));
                from = i;
            }
        }
        prev = Some(c);
    }
    each(Piece::Word(&run[from..], false));
}

/// Whether a folded word is searched by: not a stop word, not a bare number.
fn keep(word: &str) -> bool {
    !word.bytes().all(|b| b.is_ascii_digit()) && (word.len() > LONGEST_STOP_WORD || !is_stop_word(word))
}

/// The length of the longest stop word: longer words need no look-up.
const LONGEST_STOP_WORD: usize = 6;

/// Overlapping pairs of characters; a lone character is its own term.
fn ideograph_pairs(run: &str, each: &mut impl FnMut(&str)) {
    let bounds: Vec<usize> = run.char_indices().map(|(i, _)| i).chain([run.len()]).collect();
    if bounds.len() == 2 {
        each(run);
        return;
    }
    for w in bounds.windows(3) {
        each(&run[w[0]..w[2]]);
    }
}

/// English words too common in requests and descriptions to tell tools apart. Words that name
/// what a tool does (`get`, `find`, `list`) are not here: they are what a request and a tool
/// name share.
const STOP_WORDS: [&str; 117] = [
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
    "both", "but", "by", "can", "could", "did", "do", "does", "doing", "each", "either", "etc", "for", "from", "had",
    "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it",
    "its", "itself", "just", "let", "like", "may", "me", "might", "more", "most", "much", "must", "my", "myself",
    "need", "needs", "no", "nor", "of", "on", "once", "only", "or", "other", "our", "ours", "please", "shall", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they",
    "this", "those", "to", "too", "us", "use", "used", "very", "want", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours",
];

/// Whether a word of at most [`LONGEST_STOP_WORD`] bytes is a stop word: each is looked up as
/// the integer its bytes make, among the stop words' integers, sorted once.
fn is_stop_word(word: &str) -> bool {
    static PACKED: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    let packed = PACKED.get_or_init(|| {
        let mut packed: Vec<u64> = STOP_WORDS.iter().map(|w| pack(w)).collect();
        packed.sort_unstable();
        packed
    });
    word.len() <= 8 && packed.binary_search(&pack(word)).is_ok()
}

/// Up to eight bytes as one integer (longer words are never stop words).
fn pack(word: &str) -> u64 {
    word.bytes().take(8).fold(0, |packed, b| packed << 8 | u64::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(analyzer: &Analyzer, text: &str) -> Vec<String> {
        analyzer.terms(text).into_iter().map(|w| w.term).collect()
    }

    #[test]
    fn no_stop_word_is_longer_than_the_bound() {
        assert!(STOP_WORDS.iter().all(|w| w.len() <= LONGEST_STOP_WORD && w.bytes().all(|b| b.is_ascii_lowercase())));
        for word in ["yourself", "ourselves", "because", "between", "without"] {
            assert!(!is_stop_word(word), "{word}");
        }
        assert!(is_stop_word("theirs") && is_stop_word("the"));
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
        assert_eq!(terms(&plain, "天気Émile über—Ärger"), ["天気", "émile", "über", "ärger"]);
    }
}
