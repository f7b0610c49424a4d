//! The lexical ranker: BM25F over the fields of each tool's search document.
//!
//! Each field's term counts are normalised by that field's length against its average over
//! the catalog and weighted by the field's weight, then summed before the saturation, so a
//! word in a tool's name counts more than the same word in a long description, and a word
//! repeated down a description does not outweigh one in the name. The per-tool part of the
//! score depends only on the catalog, so it is computed once at build; a query adds up
//! precomputed weights along the postings of its terms.

use std::collections::HashMap;

use serde::Serialize;

use super::document::{texts, SearchField};
use super::text::Analyzer;
use crate::model::ToolDefinition;

const FIELDS: usize = SearchField::ALL.len();

/// The terms' tables are hashed with foldhash, seeded at random per process: a tool's words
/// may come from a remote server, so the hash must not be one an attacker can collide at will,
/// and every word of every tool is hashed, so it must be quick.
type Hasher = foldhash::fast::RandomState;

/// How a [`ToolSearch`] weighs what it finds. The defaults suit tool catalogs: names count
/// most, then tags, parameter names, the description, parameter descriptions and values.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    weights: [f32; FIELDS],
    length_normalisation: [f32; FIELDS],
    saturation: f32,
    coverage: f32,
    stemming: bool,
    synonyms: Vec<Vec<String>>,
    synonym_weight: f32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        let mut weights = [0.0; FIELDS];
        let mut length_normalisation = [0.0; FIELDS];
        for (field, weight, b) in [
            (SearchField::Name, 3.0, 0.3),
            (SearchField::Description, 1.0, 0.75),
            (SearchField::Parameters, 1.5, 0.5),
            (SearchField::ParameterDescriptions, 0.6, 0.75),
            (SearchField::Values, 0.5, 0.5),
            (SearchField::Tags, 2.0, 0.3),
        ] {
            weights[field.index()] = weight;
            length_normalisation[field.index()] = b;
        }
        SearchOptions {
            weights,
            length_normalisation,
            saturation: 1.2,
            coverage: 0.5,
            stemming: true,
            synonyms: Vec::new(),
            synonym_weight: 0.5,
        }
    }
}

impl SearchOptions {
    /// The weight of a field (0 leaves it out of the ranking).
    pub fn weight(mut self, field: SearchField, weight: f32) -> Self {
        self.weights[field.index()] = weight.max(0.0);
        self
    }

    /// How much a field's length lowers the weight of a word in it, from 0 (not at all) to 1
    /// (in proportion to its length over the average): BM25's `b`.
    pub fn length_normalisation(mut self, field: SearchField, b: f32) -> Self {
        self.length_normalisation[field.index()] = b.clamp(0.0, 1.0);
        self
    }

    /// How quickly repeating a word stops adding to a tool's score: BM25's `k1` (1.2).
    pub fn saturation(mut self, k1: f32) -> Self {
        self.saturation = k1.max(0.01);
        self
    }

    /// Groups of words that mean the same in the host's domain (`film movie`, `taxi cab
    /// ride`): a query's word also finds the others of its group, at
    /// [`synonym_weight`](SearchOptions::synonym_weight). None by default: general synonym
    /// lists find as many wrong tools as right ones.
    pub fn synonyms<G, W>(mut self, groups: impl IntoIterator<Item = G>) -> Self
    where
        G: IntoIterator<Item = W>,
        W: Into<String>,
    {
        self.synonyms = groups.into_iter().map(|g| g.into_iter().map(Into::into).collect()).collect();
        self
    }

    /// How much a synonym counts against the word the query wrote (0.5).
    pub fn synonym_weight(mut self, weight: f32) -> Self {
        self.synonym_weight = weight.clamp(0.0, 1.0);
        self
    }

    /// How much a tool that matches more of the query's words ranks above one that matches
    /// fewer with the same score: the score is multiplied by the share of the query's words
    /// it matched, to this power (0.5; 0 turns it off).
    pub fn coverage(mut self, power: f32) -> Self {
        self.coverage = power.clamp(0.0, 4.0);
        self
    }

    /// Whether English words are searched by their stem (`booking` finds `book`), on by default.
    pub fn stemming(mut self, stemming: bool) -> Self {
        self.stemming = stemming;
        self
    }
}

/// A tool a query found, with its score and why it matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    /// The tool's name.
    pub name: String,
    /// Its score: higher is better; comparable only within one query.
    pub score: f32,
    /// Whether the query was the tool's name itself (these come first).
    pub exact_name: bool,
    /// The query's words this tool matched, in the query's order.
    pub matches: Vec<TermMatch>,
    /// The cosine similarity of the query to the tool's text, when a
    /// [`HybridSearch`](super::HybridSearch) ranked it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
}

/// One word of a query found in a tool's search document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermMatch {
    /// The word as the query wrote it (lower case).
    pub word: String,
    /// The term it was searched by: its stem, or the word.
    pub term: String,
    /// The fields it was found in.
    pub fields: Vec<SearchField>,
    /// What it added to the score.
    pub score: f32,
}

/// A tool search over a set of tool definitions: deterministic, in memory, no network.
///
/// ```
/// use serde_json::json;
/// use tool_core::search::ToolSearch;
/// use tool_core::ToolDefinition;
///
/// let weather = ToolDefinition::new(
///     "weather.forecast",
///     "The forecast for a city: temperature, rain and wind.",
///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// );
/// let flights = ToolDefinition::new(
///     "flights.book",
///     "Books a flight between two airports.",
///     json!({"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": []}),
/// );
/// let search = ToolSearch::new([&weather, &flights]);
/// let hits = search.search("Will it rain in Lyon tomorrow?", 5);
/// assert_eq!(hits[0].name, "weather.forecast");
/// assert_eq!(hits[0].matches[0].word, "rain");
/// assert_eq!(search.search("booking a flight", 1)[0].name, "flights.book");
/// ```
pub struct ToolSearch {
    analyzer: Analyzer,
    names: Vec<String>,
    /// Lower-case names, for the query that is a tool's name.
    folded_names: HashMap<String, u32, Hasher>,
    terms: HashMap<String, u32, Hasher>,
    /// Per term, the tools that hold it, in the order of `names`.
    postings: Vec<Vec<Posting>>,
    idf: Vec<f32>,
    /// Per term of a synonym group, the other terms of its groups that some tool holds, with
    /// their ids.
    synonyms: HashMap<String, Vec<(String, u32)>>,
    options: SearchOptions,
}

/// A term of a query, and the word that gave it.
struct QueryTerm {
    word: String,
    term: String,
    id: u32,
    /// 1 for a word of the query, less for a synonym of one.
    weight: f32,
}

/// One tool holding one term.
#[derive(Debug, Clone, Copy)]
struct Posting {
    tool: u32,
    /// The saturated, length-normalised, field-weighted count: the score is `idf * weight`.
    weight: f32,
    /// The fields it is in, one bit each (in the order of [`SearchField::ALL`]).
    fields: u8,
}

impl ToolSearch {
    /// An index of `definitions` with the default [`SearchOptions`].
    pub fn new<'a>(definitions: impl IntoIterator<Item = &'a ToolDefinition>) -> ToolSearch {
        ToolSearch::with_options(definitions, SearchOptions::default())
    }

    /// An index of `definitions` weighed by `options`. Definitions that share a name (one
    /// tool from two sources, versions of one API) are each indexed, and found as one tool:
    /// the name ranks by its best definition.
    pub fn with_options<'a>(
        definitions: impl IntoIterator<Item = &'a ToolDefinition>,
        options: SearchOptions,
    ) -> ToolSearch {
        let analyzer = Analyzer::new(options.stemming);
        let definitions: Vec<&ToolDefinition> = definitions.into_iter().collect();
        let mut names = Vec::with_capacity(definitions.len());
        let mut folded_names: HashMap<String, u32, Hasher> = HashMap::default();
        for definition in &definitions {
            folded_names.entry(fold_name(&definition.name)).or_insert(names.len() as u32);
            names.push(definition.name.clone());
        }
        // The words of large catalogs are read on several threads, each part of the tools with
        // its own table of words; the parts are then put together in order, so the index is
        // the same whatever the number of threads.
        let threads = if definitions.len() < PARALLEL_FROM {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS)
        };
        let size = definitions.len().div_ceil(threads).max(1);
        let parts: Vec<Part> = if threads == 1 {
            vec![Part::read(&analyzer, &definitions)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = definitions
                    .chunks(size)
                    .map(|chunk| {
                        let analyzer = &analyzer;
                        scope.spawn(move || Part::read(analyzer, chunk))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                    .collect()
            })
        };
        let mut terms: HashMap<String, u32, Hasher> = HashMap::default();
        // A word as written maps to its term once: stemming each occurrence would dominate.
        let mut known: HashMap<&str, u32, Hasher> = HashMap::default();
        let total: usize = parts.iter().map(|p| p.occurrences.len()).sum();
        // Every tool's (term, field) occurrences, one after the other, packed as
        // `term << 8 | field` so that sorting a tool's occurrences sorts integers; where each
        // tool's start; each tool's fields' lengths.
        let mut occurrences: Vec<u64> = Vec::with_capacity(total);
        let mut starts: Vec<usize> = Vec::with_capacity(names.len() + 1);
        let mut lengths: Vec<[u32; FIELDS]> = Vec::with_capacity(names.len());
        for part in &parts {
            let ids: Vec<u32> = part
                .words
                .iter()
                .map(|surface| match known.get(surface.as_str()) {
                    Some(id) => *id,
                    None => {
                        let next = terms.len() as u32;
                        let id = *terms.entry(analyzer.term(surface)).or_insert(next);
                        known.insert(surface, id);
                        id
                    }
                })
                .collect();
            let base = occurrences.len();
            starts.extend(part.starts.iter().map(|start| base + start));
            lengths.extend_from_slice(&part.lengths);
            occurrences.extend(part.occurrences.iter().map(|o| u64::from(ids[(o >> 8) as usize]) << 8 | (o & 0xff)));
        }
        starts.push(occurrences.len());
        let tools = names.len().max(1) as f32;
        let mut average = [0f32; FIELDS];
        for length in &lengths {
            for (sum, l) in average.iter_mut().zip(length) {
                *sum += *l as f32;
            }
        }
        for sum in &mut average {
            *sum = (*sum / tools).max(1.0);
        }
        let mut postings: Vec<Vec<Posting>> = vec![Vec::new(); terms.len()];
        for tool in 0..names.len() {
            let mine = &mut occurrences[starts[tool]..starts[tool + 1]];
            mine.sort_unstable();
            let norm: [f32; FIELDS] = std::array::from_fn(|f| {
                let b = options.length_normalisation[f];
                1.0 - b + b * lengths[tool][f] as f32 / average[f]
            });
            for group in mine.chunk_by(|a, b| a >> 8 == b >> 8) {
                let mut count = [0u32; FIELDS];
                for occurrence in group {
                    count[(occurrence & 0xff) as usize] += 1;
                }
                let mut tf = 0.0;
                let mut fields = 0u8;
                for f in 0..FIELDS {
                    if count[f] > 0 {
                        tf += options.weights[f] * count[f] as f32 / norm[f];
                        fields |= 1 << f;
                    }
                }
                if tf > 0.0 {
                    let weight = tf / (options.saturation + tf);
                    postings[(group[0] >> 8) as usize].push(Posting { tool: tool as u32, weight, fields });
                }
            }
        }
        let idf = postings
            .iter()
            .map(|p| {
                let df = p.len() as f32;
                (1.0 + (tools - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let mut synonyms: HashMap<String, Vec<(String, u32)>> = HashMap::new();
        for group in &options.synonyms {
            let group: Vec<String> = group.iter().map(|word| analyzer.term(&word.to_lowercase())).collect();
            for term in &group {
                let others = synonyms.entry(term.clone()).or_default();
                for other in group.iter().filter(|other| *other != term) {
                    if let Some(&id) = terms.get(other)
                        && !others.iter().any(|(_, known)| *known == id)
                    {
                        others.push((other.clone(), id));
                    }
                }
            }
        }
        ToolSearch { analyzer, names, folded_names, terms, postings, idf, synonyms, options }
    }

    /// The number of tools indexed.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names of the tools indexed, in the order given.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// The analyzer its terms were made with.
    pub(crate) fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The options it was built with.
    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// The best `limit` tools for `query`, best first; ties in name order. A query that is a
    /// tool's name (any case) puts that tool first. A tool that matches no word of the query
    /// is not a hit.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_where(query, limit, |_| true)
    }

    /// As [`search`](ToolSearch::search), among the tools `keep` accepts (by name).
    pub fn search_where(&self, query: &str, limit: usize, mut keep: impl FnMut(&str) -> bool) -> Vec<SearchHit> {
        if limit == 0 || self.names.is_empty() {
            return Vec::new();
        }
        let words = self.query_terms(query);
        let mut scores = vec![0f32; self.names.len()];
        let mut counts = vec![0u16; self.names.len()];
        for query in &words {
            let idf = self.idf[query.id as usize] * query.weight;
            for posting in &self.postings[query.id as usize] {
                scores[posting.tool as usize] += idf * posting.weight;
                counts[posting.tool as usize] += u16::from(query.weight == 1.0);
            }
        }
        let written = words.iter().filter(|q| q.weight == 1.0).count();
        if self.options.coverage > 0.0 && written > 0 {
            for (score, count) in scores.iter_mut().zip(&counts) {
                *score *= (f32::from(*count) / written as f32).powf(self.options.coverage);
            }
        }
        let exact = self.folded_names.get(fold_name(query.trim()).as_str()).map(|&t| &self.names[t as usize]);
        let is_exact = |tool: u32| exact.is_some_and(|name| *name == self.names[tool as usize]);
        let mut found: Vec<(u32, f32)> = scores
            .iter()
            .enumerate()
            .filter(|&(tool, &score)| (score > 0.0 || is_exact(tool as u32)) && keep(&self.names[tool]))
            .map(|(tool, &score)| (tool as u32, score))
            .collect();
        let order = |a: &(u32, f32), b: &(u32, f32)| {
            is_exact(b.0)
                .cmp(&is_exact(a.0))
                .then(b.1.total_cmp(&a.1))
                .then_with(|| self.names[a.0 as usize].cmp(&self.names[b.0 as usize]))
                .then(a.0.cmp(&b.0))
        };
        // Enough candidates that, after a name's weaker definitions go, `limit` names remain.
        let mut hits: Vec<SearchHit> = Vec::with_capacity(limit);
        let mut take = limit;
        loop {
            if found.len() > take {
                found.select_nth_unstable_by(take - 1, order);
            }
            let mut best = found[..take.min(found.len())].to_vec();
            best.sort_unstable_by(order);
            hits.clear();
            for (tool, score) in best {
                let name = &self.names[tool as usize];
                if hits.len() < limit && !hits.iter().any(|hit| hit.name == *name) {
                    let matches = self.matches(tool, &words);
                    hits.push(SearchHit {
                        name: name.clone(),
                        score,
                        exact_name: is_exact(tool),
                        matches,
                        similarity: None,
                    });
                }
            }
            if hits.len() == limit || take >= found.len() {
                return hits;
            }
            take = (take * 2).min(found.len());
        }
    }

    /// The query's distinct known terms, each with the first word that gave it.
    fn query_terms(&self, query: &str) -> Vec<QueryTerm> {
        let mut out: Vec<QueryTerm> = Vec::new();
        let words = self.analyzer.terms(query);
        for word in &words {
            if let Some(&id) = self.terms.get(&word.term)
                && !out.iter().any(|q| q.id == id)
            {
                out.push(QueryTerm { word: word.surface.clone(), term: word.term.clone(), id, weight: 1.0 });
            }
        }
        for word in &words {
            for (term, id) in self.synonyms.get(&word.term).into_iter().flatten() {
                if !out.iter().any(|q| q.id == *id) {
                    let (word, term, id) = (word.surface.clone(), term.clone(), *id);
                    out.push(QueryTerm { word, term, id, weight: self.options.synonym_weight });
                }
            }
        }
        out
    }

    /// Why `tool` matched: each query term it holds, where, and for how much.
    fn matches(&self, tool: u32, words: &[QueryTerm]) -> Vec<TermMatch> {
        let mut out = Vec::new();
        for query in words {
            let postings = &self.postings[query.id as usize];
            if let Ok(i) = postings.binary_search_by_key(&tool, |p| p.tool) {
                let posting = postings[i];
                out.push(TermMatch {
                    word: query.word.clone(),
                    term: query.term.clone(),
                    fields: SearchField::ALL.into_iter().filter(|f| posting.fields & (1 << f.index()) != 0).collect(),
                    score: self.idf[query.id as usize] * query.weight * posting.weight,
                });
            }
        }
        out
    }

    /// The heap the index holds, in bytes (the tables' capacities and the strings in them).
    pub fn heap_bytes(&self) -> usize {
        let strings = |s: &String| s.capacity();
        let table = |len: usize| len * (std::mem::size_of::<(String, u32)>() + 8);
        self.names.capacity() * std::mem::size_of::<String>()
            + self.names.iter().map(strings).sum::<usize>()
            + table(self.folded_names.capacity())
            + self.folded_names.keys().map(strings).sum::<usize>()
            + table(self.terms.capacity())
            + self.terms.keys().map(strings).sum::<usize>()
            + self.postings.capacity() * std::mem::size_of::<Vec<Posting>>()
            + self.postings.iter().map(|p| p.capacity() * std::mem::size_of::<Posting>()).sum::<usize>()
            + self.idf.capacity() * 4
    }
}

impl std::fmt::Debug for ToolSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSearch").field("tools", &self.names.len()).field("terms", &self.terms.len()).finish()
    }
}

/// Catalogs with fewer tools are read on one thread: starting others would cost more.
const PARALLEL_FROM: usize = 2048;

/// The most threads reading one catalog.
const MAX_THREADS: usize = 8;

/// A run of tools' words, read on one thread: each word as written once, in the order first
/// met, and the tools' occurrences by that order.
struct Part {
    words: Vec<String>,
    /// `word << 8 | field`, where `word` indexes `words`.
    occurrences: Vec<u64>,
    /// Where each tool's occurrences start in `occurrences`.
    starts: Vec<usize>,
    lengths: Vec<[u32; FIELDS]>,
}

impl Part {
    fn read(analyzer: &Analyzer, definitions: &[&ToolDefinition]) -> Part {
        let mut known: HashMap<String, u32, Hasher> = HashMap::default();
        let mut part = Part { words: Vec::new(), occurrences: Vec::new(), starts: Vec::new(), lengths: Vec::new() };
        let mut folded = String::new();
        for definition in definitions {
            part.starts.push(part.occurrences.len());
            let mut length = [0u32; FIELDS];
            texts(definition, |field, text| {
                analyzer.words_in(text, &mut folded, |_, surface| {
                    let id = match known.get(surface) {
                        Some(id) => *id,
                        None => {
                            let id = part.words.len() as u32;
                            part.words.push(surface.to_owned());
                            known.insert(surface.to_owned(), id);
                            id
                        }
                    };
                    part.occurrences.push(u64::from(id) << 8 | field.index() as u64);
                    length[field.index()] += 1;
                });
            });
            part.lengths.push(length);
        }
        part
    }
}

/// A name in lower case, for the query that is a tool's name: names are ASCII, so most are
/// folded without Unicode's tables.
fn fold_name(name: &str) -> String {
    if name.is_ascii() {
        name.to_ascii_lowercase()
    } else {
        name.to_lowercase()
    }
}
