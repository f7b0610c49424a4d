//! Suggestions: the declared names closest to one a model sent (an unknown tool, an unknown key).
//!
//! Owns the measure and its bounds. Two names are compared ASCII-lowercased, by normalized
//! optimal string alignment similarity (`1 - distance / longer length`, in characters: the
//! Damerau–Levenshtein distance where no part is edited twice), raised to 0.75 when one
//! contains the other; the best come first, ties by name.
//!
//! The name compared comes from the model, so it may be hostile: the work must stay bounded
//! whatever it is. A name longer than [`MAX_COMPARED_CHARS`] gets no edit distance at all:
//! only the declared names it starts with, or that contain it, are suggested. A shorter one
//! fits a machine word, one bit per character, so its distances are computed a column of
//! the matrix at a time (Hyyrö's bit-vector algorithm). Each declared name first meets cheap
//! lower bounds on the distance (the bag distance, the character pairs one name has that the
//! other lacks), then the bound of their longest common subsequence, read four names side by
//! side; only a name whose bounds could still beat the suggestions found so far gets a
//! distance, which stops as soon as it is out of reach. A catalog of [`INDEXED`] names or
//! more is indexed once (names by length, character class counts by column), so that a
//! suggestion reads a few bytes per name, visits the names best bound first, and never looks
//! at the names the index leaves out of reach. Where a great many names are about equally
//! unlike the sent one, a budget of characters read ends the search: the suggestions are
//! then good ones, not always the best. This module must not allocate per comparison, nor
//! hold on to the sent name.

use std::cmp::Ordering;

/// The longest name, in characters, that gets an edit distance. Valid tool names have at
/// most 64 characters, so any longer name is not a typing slip of one.
pub(crate) const MAX_COMPARED_CHARS: usize = 64;

/// The similarity of two names one of which contains the other, when their edit distance
/// says less.
const CONTAINED: f64 = 0.75;

/// Declared names, prepared for comparison: lowercased once, with their signatures.
pub(crate) struct Names {
    /// The names as declared, one after the other.
    original: String,
    /// The same, ASCII-lowercased: the byte offsets are the same.
    lowered: String,
    entries: Vec<Entry>,
    /// Each name's character class counts, beside `entries`.
    counts: Vec<[u8; 64]>,
    /// The longest name's length in characters.
    longest: u32,
    /// Built for catalogs of [`INDEXED`] names or more, when the last name is in.
    index: Option<Index>,
}

/// From how many names on a catalog is indexed; fewer are cheaper to visit one by one.
const INDEXED: usize = 256;

/// The declared names by length, with each character class's counts as a column, so that
/// one suggestion reads a few bytes per name for the classes the sent name has, and
/// compares only the names those counts leave in reach.
struct Index {
    /// The names' indices, by length then index, each length padded with [`NO_NAME`] to
    /// whole blocks of [`BLOCK`], so that a block holds names of one length.
    by_length: Vec<u32>,
    /// The length of the names of each block.
    block_lengths: Vec<u32>,
    /// Per character class, the count of each name in `by_length`'s order (at most 255).
    columns: Vec<Vec<u8>>,
}

/// The padding of [`Index::by_length`].
const NO_NAME: u32 = u32::MAX;

impl Index {
    fn new(entries: &[Entry], counts: &[[u8; 64]]) -> Index {
        let mut sorted: Vec<u32> = (0..entries.len()).map(|i| i as u32).collect();
        sorted.sort_by_key(|&i| (entries[i as usize].len, i));
        let (mut by_length, mut block_lengths) = (Vec::new(), Vec::new());
        for (length, names) in sorted
            .chunk_by(|&a, &b| entries[a as usize].len == entries[b as usize].len)
            .map(|names| (entries[names[0] as usize].len, names))
        {
            for block in names.chunks(BLOCK) {
                by_length.extend_from_slice(block);
                by_length.resize(by_length.len() + BLOCK - block.len(), NO_NAME);
                block_lengths.push(length);
            }
        }
        let columns = (0..64)
            .map(|class| by_length.iter().map(|&i| if i == NO_NAME { 0 } else { counts[i as usize][class] }).collect())
            .collect();
        Index { by_length, block_lengths, columns }
    }
}

/// Names per block of the grade visit.
const BLOCK: usize = 64;

/// Grades of similarity per unit, for visiting indexed names best bound first.
const GRADES: u8 = 32;

/// One declared name's place in [`Names`] and its signature.
#[derive(Clone, Copy)]
struct Entry {
    /// Which characters the name has (a bit per class, see [`class`]).
    chars: u64,
    /// Which pairs of adjacent characters it has (a bit per hashed pair).
    pairs: u64,
    start: u32,
    end: u32,
    /// Its length in characters.
    len: u32,
}

impl Entry {
    fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The signature of a lowercased name: its length in characters, its character classes and
/// its character pairs; and how many characters of each class it has (at most 255 counted).
fn signature(lowered: &str) -> (u32, u64, u64, [u8; 64]) {
    let (mut len, mut chars, mut pairs, mut counts) = (0u32, 0u64, 0u64, [0u8; 64]);
    let mut previous = None;
    for c in lowered.chars() {
        len = len.saturating_add(1);
        let class = ASCII_CLASSES.get(c as usize).map_or_else(|| class(c), |&class| u32::from(class));
        chars |= 1 << class;
        let slot = &mut counts[class as usize];
        *slot = slot.saturating_add(1);
        if let Some(p) = previous {
            pairs |= 1 << pair(p, c);
        }
        previous = Some(c);
    }
    (len, chars, pairs, counts)
}

/// [`class`] of each ASCII character, looked up rather than matched: names are mostly ASCII.
const ASCII_CLASSES: [u8; 128] = {
    let mut classes = [0u8; 128];
    let mut c = 0;
    while c < 128 {
        classes[c] = class(c as u8 as char) as u8;
        c += 1;
    }
    classes
};

/// A character's class, 0 to 63: the characters of tool and parameter names each have their
/// own; the rest share the remaining classes.
const fn class(c: char) -> u32 {
    match c {
        'a'..='z' => c as u32 - 'a' as u32,
        '0'..='9' => 26 + (c as u32 - '0' as u32),
        '_' => 36,
        '.' => 37,
        '-' => 38,
        ' ' => 39,
        _ => 40 + (c as u32 % 24),
    }
}

/// A pair of adjacent characters, hashed to 0 to 63.
fn pair(a: char, b: char) -> u32 {
    ((a as u32).wrapping_mul(0x9E37_79B1) ^ (b as u32).wrapping_mul(0x85EB_CA77)).wrapping_mul(0xC2B2_AE3D) >> 26
}

impl Names {
    /// Prepares `names` for comparison.
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Names {
        let names: Vec<&str> = names.into_iter().collect();
        let bytes = names.iter().map(|n| n.len()).sum();
        let mut prepared = Names {
            original: String::with_capacity(bytes),
            lowered: String::with_capacity(bytes),
            entries: Vec::with_capacity(names.len()),
            counts: Vec::with_capacity(names.len()),
            longest: 0,
            index: None,
        };
        for name in names {
            prepared.push(name);
        }
        if prepared.entries.len() >= INDEXED {
            prepared.index = Some(Index::new(&prepared.entries, &prepared.counts));
        }
        prepared
    }

    fn push(&mut self, name: &str) {
        let start = self.original.len();
        self.original.push_str(name);
        self.lowered.push_str(name);
        self.lowered[start..].make_ascii_lowercase();
        let end = self.original.len();
        let (len, chars, pairs, counts) = signature(&self.lowered[start..end]);
        // Offsets past 4 GiB of names would not fit; no catalog comes near.
        let offset = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        self.entries.push(Entry { chars, pairs, start: offset(start), end: offset(end), len });
        self.counts.push(counts);
        self.longest = self.longest.max(len);
    }

    /// Whether these are `names`, in that order.
    pub(crate) fn are(&self, names: &[&str]) -> bool {
        self.entries.len() == names.len() && names.iter().enumerate().all(|(i, name)| self.name(i) == *name)
    }

    /// The declared name at `index` (in the order given to [`Names::new`]).
    pub(crate) fn name(&self, index: usize) -> &str {
        &self.original[self.entries[index].range()]
    }

    fn lowered(&self, index: usize) -> &str {
        &self.lowered[self.entries[index].range()]
    }

    /// The indices of up to `limit` names at least `min_similarity` alike to `name` (0 to 1),
    /// best first, ties by name.
    pub(crate) fn closest(&self, name: &str, limit: usize, min_similarity: f64) -> Vec<usize> {
        self.closest_reading(name, limit, min_similarity).0
    }

    /// [`Names::closest`], and how many characters of declared names its distances read.
    fn closest_reading(&self, name: &str, limit: usize, min_similarity: f64) -> (Vec<usize>, usize) {
        if limit == 0 {
            return (Vec::new(), 0);
        }
        let mut best = Best::new(limit, min_similarity);
        let read = if name.len() > 4 * MAX_COMPARED_CHARS || name.chars().count() > MAX_COMPARED_CHARS {
            self.containing(name, &mut best);
            0
        } else if let Some(index) = &self.index {
            self.nearest_indexed(index, name, &mut best)
        } else {
            self.nearest(name, &mut best)
        };
        (best.ranked.into_iter().map(|(_, index)| index).collect(), read)
    }

    /// For a name too long to compare: the declared names it starts with, or that contain it,
    /// all alike at [`CONTAINED`]. Reads at most as many bytes of `name` as a declared name has.
    fn containing(&self, name: &str, best: &mut Best) {
        let mut lowered: Option<String> = None;
        for index in 0..self.entries.len() {
            let declared = self.lowered(index);
            let found = if declared.len() < name.len() {
                name.as_bytes()[..declared.len()].eq_ignore_ascii_case(declared.as_bytes())
            } else {
                declared.contains(lowered.get_or_insert_with(|| name.to_ascii_lowercase()).as_str())
            };
            if found && CONTAINED >= best.threshold() {
                best.offer(CONTAINED, index, |i| self.name(i));
            }
        }
    }

    /// For a name short enough to compare, on a small catalog: the edit distance, where the
    /// bounds allow.
    ///
    /// First every declared name gets its cheap bound; then the names are visited from the
    /// best bound down, so the suggestions found first are good ones and the threshold they
    /// set rules the rest out early; the visit ends where the bounds fall below it.
    fn nearest(&self, name: &str, best: &mut Best) -> usize {
        let query = name.to_ascii_lowercase();
        let sent = Sent::new(&query);
        let mut reachable: Vec<(f64, usize)> = Vec::with_capacity(self.entries.len());
        for (index, entry) in self.entries.iter().enumerate() {
            let bag = bag_distance(&sent.counts, &self.counts[index]);
            let bound = sent.pairs_bound(entry).max(bag);
            let mut top = similarity(bound, sent.len.max(entry.len));
            if sent.may_contain(entry) {
                top = top.max(CONTAINED);
            }
            if top >= best.min_similarity {
                reachable.push((top, index));
            }
        }
        // Best bound first; among equal bounds, in order (the sort is stable).
        reachable.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut visit = Visit::new(&query);
        for (top, index) in reachable {
            if top < best.threshold() || visit.pattern.steps > DISTANCE_STEPS {
                break;
            }
            let bag = bag_distance(&sent.counts, &self.counts[index]);
            if let Some(reach) = self.in_reach(index, &sent, bag, best.threshold(), &mut visit) {
                self.score(index, &sent, reach, None, &mut visit, best);
            }
        }
        visit.pattern.steps
    }

    /// For a name short enough to compare, on an indexed catalog: the edit distance, where
    /// the bounds allow.
    ///
    /// The characters a declared name shares with the sent one (their bag intersection) come
    /// from the index's columns of the sent name's classes; with the lengths they bound the
    /// similarity from above (and say whether one name may contain the other), as a grade.
    /// Names are then visited grade by grade from the best down, until the grades fall below
    /// the suggestions found; the rest are never compared.
    fn nearest_indexed(&self, index: &Index, name: &str, best: &mut Best) -> usize {
        let query = name.to_ascii_lowercase();
        let sent = Sent::new(&query);
        let mut shared = vec![0u8; index.by_length.len()];
        for (class, &count) in sent.counts.iter().enumerate() {
            if count > 0 {
                for (s, &c) in shared.iter_mut().zip(&index.columns[class]) {
                    // At most 64 characters are sent, so the sum fits.
                    *s += c.min(count);
                }
            }
        }
        // Per length, the grade of each count of shared characters.
        let longest = self.longest.max(sent.len) as usize;
        let tables: Vec<[u8; 65]> = (0..=longest as u32)
            .map(|length| {
                let (shorter, longer) = (sent.len.min(length), sent.len.max(length));
                let mut table = [0u8; 65];
                for (common, grade) in table.iter_mut().enumerate().take(shorter as usize + 1) {
                    let mut bound = similarity(longer - common as u32, longer);
                    if sent.len > 0 && common as u32 == shorter {
                        bound = bound.max(CONTAINED);
                    }
                    *grade = (bound * f64::from(GRADES)).floor() as u8;
                }
                table
            })
            .collect();
        // The blocks by their best grade, best first: the names of the first blocks set the
        // suggestions' threshold, which then rules out the later blocks whole.
        let mut blocks: Vec<(u8, usize)> = shared
            .chunks(BLOCK)
            .zip(&index.block_lengths)
            .map(|(block, &length)| tables[length as usize][usize::from(block.iter().copied().max().unwrap_or(0))])
            .enumerate()
            .map(|(b, grade)| (grade, b))
            .collect();
        blocks.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // A name of a grade is at most this alike (below it, but at the top grade).
        let top = |grade: u8| ((f64::from(grade) + 1.0) / f64::from(GRADES)).min(1.0);
        let mut visit = Visit::new(&query);
        let mut in_reach: Vec<(u32, Reach)> = Vec::with_capacity(BLOCK);
        for (block_grade, b) in blocks {
            if top(block_grade) < best.threshold() || visit.pattern.steps > DISTANCE_STEPS {
                break;
            }
            let table = &tables[index.block_lengths[b] as usize];
            let range = b * BLOCK..(b + 1) * BLOCK;
            in_reach.clear();
            for (&common, &declared) in shared[range.clone()].iter().zip(&index.by_length[range]) {
                if declared == NO_NAME || top(table[usize::from(common)]) < best.threshold() {
                    continue;
                }
                let longer = sent.len.max(self.entries[declared as usize].len);
                let bag = longer - u32::from(common);
                if let Some(reach) = self.in_reach(declared as usize, &sent, bag, best.threshold(), &mut visit) {
                    in_reach.push((declared, reach));
                }
            }
            // The names in reach by fours: their common subsequences with the sent name are
            // read side by side, which rules most of them out before anything else.
            for four in in_reach.chunks(4) {
                let mut lowered = [("", 0); 4];
                for (slot, &(declared, _)) in lowered.iter_mut().zip(four) {
                    *slot = (self.lowered(declared as usize), self.entries[declared as usize].len);
                }
                let commons = visit.pattern.commons(lowered);
                for (&(declared, reach), common) in four.iter().zip(commons) {
                    let entry = &self.entries[declared as usize];
                    let bound = reach.bound.max(unmatched(sent.len, entry.len, common));
                    let longer = sent.len.max(entry.len);
                    if reach.may_contain || visit.most(best.threshold(), longer).is_some_and(|most| bound <= most) {
                        self.score(declared as usize, &sent, reach, Some(common), &mut visit, best);
                    }
                }
            }
        }
        visit.pattern.steps
    }

    /// Whether a declared name could still reach `threshold`, by its lower bounds: `bag` (its
    /// bag distance to the sent one) first, then the pairs of characters. Most names are
    /// ruled out here, by whole numbers: the threshold's largest distance at each length is
    /// worked out once per threshold.
    fn in_reach(&self, index: usize, sent: &Sent<'_>, bag: u32, threshold: f64, visit: &mut Visit) -> Option<Reach> {
        let entry = &self.entries[index];
        let longer = sent.len.max(entry.len);
        let may_contain = sent.may_contain(entry) && CONTAINED >= threshold;
        let most = visit.most(threshold, longer);
        if !(most.is_some_and(|most| bag <= most) || may_contain) {
            return None;
        }
        let bound = bag.max(sent.pairs_bound(entry));
        (most.is_some_and(|most| bound <= most) || may_contain).then_some(Reach { bound, may_contain })
    }

    /// Scores one declared name in reach against the sent one, and offers it. `common` is the
    /// length of their longest common subsequence, where known.
    fn score(
        &self,
        index: usize,
        sent: &Sent<'_>,
        reach: Reach,
        common: Option<u32>,
        visit: &mut Visit,
        best: &mut Best,
    ) {
        let entry = &self.entries[index];
        let longer = sent.len.max(entry.len);
        let threshold = best.threshold();
        let bound = reach.bound.max(common.map_or(0, |common| unmatched(sent.len, entry.len, common)));
        let raw_bound = similarity(bound, longer);
        if raw_bound < threshold && !(reach.may_contain && CONTAINED >= threshold) {
            return;
        }
        // A name that can only tie with the last suggestion, and comes after it, cannot enter.
        if raw_bound <= threshold && CONTAINED <= threshold && !best.could_enter(threshold, index, |i| self.name(i)) {
            return;
        }
        let declared = self.lowered(index);
        let contained = reach.may_contain && (declared.contains(sent.text) || sent.text.contains(declared));
        let floor = if contained { CONTAINED } else { f64::NEG_INFINITY };
        // The distance matters only where it could say more than the floor and the threshold.
        let needed = threshold.max(floor);
        let distance =
            if raw_bound < needed || (contained && raw_bound <= CONTAINED) || visit.pattern.steps > DISTANCE_STEPS {
                None
            } else {
                visit.most(needed, longer).and_then(|most| {
                    // The common subsequence first, where not known yet: far cheaper than the
                    // distance, and enough to rule most names out.
                    let common = common.unwrap_or_else(|| visit.pattern.common(declared, entry.len));
                    if unmatched(sent.len, entry.len, common) > most {
                        None
                    } else {
                        visit.pattern.distance(declared, entry.len, most)
                    }
                })
            };
        let score = distance.map_or(floor, |d| similarity(d, longer).max(floor));
        if score >= threshold {
            best.offer(score, index, |i| self.name(i));
        }
    }
}

/// The lower bound on the distance of two names of `a` and `b` characters that their longest
/// common subsequence of `common` characters gives: each edit removes or adds at most two of
/// the characters outside it (a substitution or a transposition is a deletion and an
/// insertion).
fn unmatched(a: u32, b: u32, common: u32) -> u32 {
    (a + b - 2 * common).div_ceil(2)
}

/// A declared name's lower bound on its distance to the sent one, once it is known to be in
/// reach of the suggestions' threshold.
#[derive(Clone, Copy)]
struct Reach {
    bound: u32,
    /// Whether one name may contain the other, and that would be enough.
    may_contain: bool,
}

/// What one suggestion's visit of the declared names keeps from name to name: the sent
/// name's pattern, and the largest distance that reaches a similarity at each length.
struct Visit {
    pattern: Pattern,
    /// The similarity `most` was worked out for.
    threshold: f64,
    /// Per length, the largest distance at least `threshold` alike, once worked out.
    most: [Option<Option<u32>>; 129],
}

impl Visit {
    fn new(query: &str) -> Visit {
        Visit { pattern: Pattern::new(query), threshold: f64::NAN, most: [None; 129] }
    }

    /// [`most_distance`], remembered per length (up to 128 characters) for the last
    /// similarity asked: it changes only when a suggestion is found.
    fn most(&mut self, threshold: f64, longer: u32) -> Option<u32> {
        if threshold.to_bits() != self.threshold.to_bits() {
            self.threshold = threshold;
            self.most = [None; 129];
        }
        match self.most.get_mut(longer as usize) {
            Some(slot) => *slot.get_or_insert_with(|| most_distance(threshold, longer)),
            None => most_distance(threshold, longer),
        }
    }
}

/// How many characters of declared names the distances of one suggestion may read (about a
/// thousand names' common subsequences). Names are visited from the best bound down, so the
/// budget only ends a search where a great many names are about equally unlike the sent one.
const DISTANCE_STEPS: usize = 1 << 14;

/// The sent name, lowercased, with its signature.
struct Sent<'a> {
    text: &'a str,
    len: u32,
    chars: u64,
    pairs: u64,
    counts: [u8; 64],
}

impl<'a> Sent<'a> {
    fn new(text: &'a str) -> Self {
        let (len, chars, pairs, counts) = signature(text);
        Sent { text, len, chars, pairs, counts }
    }

    /// A lower bound on the distance to a declared name, from the pairs of adjacent
    /// characters: each edit changes at most three of them, and a pair one name has and the
    /// other lacks needs at least one edit. (The characters' own bound is the bag distance.)
    fn pairs_bound(&self, entry: &Entry) -> u32 {
        let missing = (self.pairs & !entry.pairs).count_ones().max((entry.pairs & !self.pairs).count_ones());
        missing.div_ceil(3)
    }

    /// Whether one name may contain the other: every character class and pair of the shorter
    /// must be in the longer.
    fn may_contain(&self, entry: &Entry) -> bool {
        self.len > 0
            && if self.len <= entry.len {
                self.chars & !entry.chars == 0 && self.pairs & !entry.pairs == 0
            } else {
                entry.chars & !self.chars == 0 && entry.pairs & !self.pairs == 0
            }
    }
}

/// The bag distance of two names' class counts: the characters one has beyond the other, the
/// larger side. Each edit adds or removes at most one character, so it bounds the distance.
fn bag_distance(a: &[u8; 64], b: &[u8; 64]) -> u32 {
    let (mut more, mut fewer) = (0u32, 0u32);
    for (x, y) in a.iter().zip(b) {
        more += u32::from(x.saturating_sub(*y));
        fewer += u32::from(y.saturating_sub(*x));
    }
    more.max(fewer)
}

/// `1 - distance / longer`, as the suggestions have always been scored; two empty names are
/// alike.
fn similarity(distance: u32, longer: u32) -> f64 {
    if longer == 0 {
        1.0
    } else {
        1.0 - f64::from(distance) / f64::from(longer)
    }
}

/// The largest distance whose similarity is at least `threshold`, if any.
fn most_distance(threshold: f64, longer: u32) -> Option<u32> {
    let guess = ((1.0 - threshold) * f64::from(longer)).floor().clamp(0.0, f64::from(longer)) as u32;
    let mut most = guess;
    while most < longer && similarity(most + 1, longer) >= threshold {
        most += 1;
    }
    while similarity(most, longer) < threshold {
        most = most.checked_sub(1)?;
    }
    Some(most)
}

/// The suggestions so far, best first.
struct Best {
    ranked: Vec<(f64, usize)>,
    limit: usize,
    min_similarity: f64,
}

impl Best {
    fn new(limit: usize, min_similarity: f64) -> Best {
        Best { ranked: Vec::with_capacity(limit.min(16) + 1), limit, min_similarity }
    }

    /// The similarity a name needs to be ranked: the minimum, or the last one's once full.
    fn threshold(&self) -> f64 {
        match self.ranked.get(self.limit - 1) {
            Some(&(score, _)) => score.max(self.min_similarity),
            None => self.min_similarity,
        }
    }

    /// Whether a name scoring `score` (the threshold) would be ranked.
    fn could_enter<'n>(&self, score: f64, index: usize, name: impl Fn(usize) -> &'n str) -> bool {
        match self.ranked.get(self.limit - 1) {
            Some(last) => b_then(last, score, index, &name) != Ordering::Less,
            None => true,
        }
    }

    fn offer<'n>(&mut self, score: f64, index: usize, name: impl Fn(usize) -> &'n str) {
        if score < self.min_similarity {
            return;
        }
        let order = |a: &(f64, usize)| b_then(a, score, index, &name);
        let at = self.ranked.partition_point(|entry| order(entry) == Ordering::Less);
        if at < self.limit {
            self.ranked.insert(at, (score, index));
            self.ranked.truncate(self.limit);
        }
    }
}

/// How a ranked entry orders against a new one: higher similarity first, then by name.
fn b_then<'n>(entry: &(f64, usize), score: f64, index: usize, name: &impl Fn(usize) -> &'n str) -> Ordering {
    score.total_cmp(&entry.0).then_with(|| name(entry.1).cmp(name(index)))
}

/// A byte no name has (outside ASCII), read past the end of a name read side by side.
const PADDING: u8 = 0xFF;

/// The sent name as a bit-parallel pattern (it has at most [`MAX_COMPARED_CHARS`] characters,
/// one bit each): for each character, the positions that hold it.
struct Pattern {
    /// The masks of the ASCII characters, by byte (the other bytes match nothing).
    bytes: [u64; 256],
    /// The masks of the other characters the sent name has.
    other: Vec<(char, u64)>,
    /// The sent name's length in characters.
    len: u32,
    /// How many characters of declared names the distances have read so far.
    steps: usize,
}

impl Pattern {
    /// `query` has at most [`MAX_COMPARED_CHARS`] characters.
    fn new(query: &str) -> Pattern {
        let mut pattern = Pattern { bytes: [0; 256], other: Vec::new(), len: 0, steps: 0 };
        for (position, c) in query.chars().take(MAX_COMPARED_CHARS).enumerate() {
            let bit = 1u64 << position;
            match pattern.bytes[..128].get_mut(c as usize) {
                Some(mask) => *mask |= bit,
                None => match pattern.other.iter_mut().find(|(o, _)| *o == c) {
                    Some((_, mask)) => *mask |= bit,
                    None => pattern.other.push((c, bit)),
                },
            }
            pattern.len += 1;
        }
        pattern
    }

    fn mask(&self, c: char) -> u64 {
        match self.bytes[..128].get(c as usize) {
            Some(&mask) => mask,
            None => self.other.iter().find(|(o, _)| *o == c).map_or(0, |&(_, mask)| mask),
        }
    }

    /// The optimal string alignment distance (Damerau–Levenshtein where no substring is
    /// edited twice: adjacent transpositions, insertions, deletions, substitutions) between
    /// the sent name and `declared` (`declared_len` characters), if it is at most `most`.
    ///
    /// Hyyrö's bit-vector form of the matrix (2003): one column of the sent name's rows is a
    /// few words, its cells encoded as their differences with the cell above, so each of the
    /// declared name's characters costs a few word operations whatever the sent name's
    /// length. The last row's value is kept; each remaining character can lower it by one
    /// at most, so the comparison ends as soon as it cannot come back under `most`.
    fn distance(&mut self, declared: &str, declared_len: u32, most: u32) -> Option<u32> {
        if declared.len() == declared_len as usize {
            self.distance_of(declared.bytes().map(char::from), declared_len, most)
        } else {
            self.distance_of(declared.chars(), declared_len, most)
        }
    }

    /// The length of the longest common subsequence of the sent name and `declared`
    /// (`declared_len` characters), in the bit-vector form of Allison and Dix (1986): a few
    /// word operations per character. Each edit of the distance removes or adds at most two
    /// characters of the common subsequence's complement (a substitution or a transposition
    /// is a deletion and an insertion), so it bounds the distance from below.
    fn common(&mut self, declared: &str, declared_len: u32) -> u32 {
        if declared.len() == declared_len as usize {
            self.common_of(declared.bytes().map(char::from))
        } else {
            self.common_of(declared.chars())
        }
    }

    /// [`Pattern::common`] of four declared names at once. Names of ASCII characters that
    /// fit a word are read side by side, their steps independent so that the processor
    /// overlaps them; a position past a name's end reads a byte that matches nothing, which
    /// leaves its subsequence as it is. Any other name is read on its own.
    fn commons(&mut self, declared: [(&str, u32); 4]) -> [u32; 4] {
        let mut commons = [0; 4];
        let mut side_by_side = [[PADDING; 64]; 4];
        let mut longest = 0;
        for (lane, &(name, len)) in declared.iter().enumerate() {
            if name.len() == len as usize && name.len() <= 64 {
                side_by_side[lane][..name.len()].copy_from_slice(name.as_bytes());
                longest = longest.max(name.len());
                self.steps += name.len();
            } else {
                commons[lane] = self.common(name, len);
            }
        }
        let mut rows = [u64::MAX; 4];
        for at in 0..longest {
            for (row, name) in rows.iter_mut().zip(&side_by_side) {
                let matches = self.bytes[usize::from(name[at])];
                *row = row.wrapping_add(*row & matches) | (*row & !matches);
            }
        }
        let in_pattern = u64::MAX >> (64 - self.len.max(1));
        for (lane, &(name, len)) in declared.iter().enumerate() {
            if name.len() == len as usize && name.len() <= 64 {
                commons[lane] = (!rows[lane] & in_pattern).count_ones();
            }
        }
        commons
    }

    fn common_of(&mut self, declared: impl Iterator<Item = char>) -> u32 {
        // A zero bit is a row where the common subsequence grew.
        let mut rows = u64::MAX;
        for c in declared {
            self.steps += 1;
            let matches = self.mask(c);
            let grown = rows & matches;
            rows = rows.wrapping_add(grown) | (rows & !matches);
        }
        (!rows & (u64::MAX >> (64 - self.len.max(1)))).count_ones()
    }

    fn distance_of(&mut self, declared: impl Iterator<Item = char>, declared_len: u32, most: u32) -> Option<u32> {
        let m = self.len;
        if m == 0 {
            return (declared_len <= most).then_some(declared_len);
        }
        let last = 1u64 << (m - 1);
        // Every row of the first column is one more than the row above.
        let mut positive = u64::MAX >> (64 - m);
        let (mut negative, mut diagonal, mut previous) = (0u64, 0u64, 0u64);
        let mut distance = m;
        let mut remaining = declared_len;
        for c in declared {
            self.steps += 1;
            remaining = remaining.saturating_sub(1);
            let matches = self.mask(c);
            let transposed = ((!diagonal & matches) << 1) & previous;
            diagonal = (((matches & positive).wrapping_add(positive)) ^ positive) | matches | negative | transposed;
            let horizontal_up = negative | !(diagonal | positive);
            let horizontal_down = diagonal & positive;
            distance = (distance + u32::from(horizontal_up & last != 0))
                .saturating_sub(u32::from(horizontal_down & last != 0));
            // The first row counts the declared name's characters: one more each column.
            let horizontal_up = (horizontal_up << 1) | 1;
            let horizontal_down = horizontal_down << 1;
            positive = horizontal_down | !(diagonal | horizontal_up);
            negative = horizontal_up & diagonal;
            previous = matches;
            if distance > most.saturating_add(remaining) {
                return None;
            }
        }
        (distance <= most).then_some(distance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The measure as it was before the bounds: every name, full matrix.
    fn reference<'a>(name: &str, candidates: &[&'a str], limit: usize, min_similarity: f64) -> Vec<&'a str> {
        let lowered = name.to_ascii_lowercase();
        let mut scored: Vec<(f64, &str)> = candidates
            .iter()
            .map(|&c| {
                let lc = c.to_ascii_lowercase();
                let longer = lowered.chars().count().max(lc.chars().count());
                let mut score = 1.0 - strsim::osa_distance(&lowered, &lc) as f64 / longer.max(1) as f64;
                if !lowered.is_empty() && (lc.contains(&lowered) || lowered.contains(&lc)) {
                    score = score.max(0.75);
                }
                (score, c)
            })
            .filter(|(score, _)| *score >= min_similarity)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored.into_iter().take(limit).map(|(_, c)| c).collect()
    }

    fn closest<'a>(name: &str, candidates: &[&'a str], limit: usize, min_similarity: f64) -> Vec<&'a str> {
        let names = Names::new(candidates.iter().copied());
        names.closest(name, limit, min_similarity).into_iter().map(|i| candidates[i]).collect()
    }

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const WORDS: &[&str] = &[
        "get", "list", "search", "create", "update", "delete", "user", "users", "flight", "book", "weather",
        "forecast", "calendar", "event", "memory", "file", "read", "write", "id", "query", "limit", "max", "año",
        "Über", "x",
    ];
    const SEPARATORS: &[&str] = &["_", ".", "-", "", "__"];

    fn word_name(rng: &mut Rng) -> String {
        let words = 1 + rng.below(3);
        let mut name = String::new();
        for w in 0..words {
            if w > 0 {
                name.push_str(SEPARATORS[rng.below(SEPARATORS.len())]);
            }
            let word = WORDS[rng.below(WORDS.len())];
            if rng.below(4) == 0 {
                name.push_str(&word.to_uppercase());
            } else {
                name.push_str(word);
            }
        }
        name
    }

    /// A name a model might send for `name`: letters dropped, doubled, swapped, replaced,
    /// cased differently, or moved around.
    fn slip(rng: &mut Rng, name: &str) -> String {
        let mut chars: Vec<char> = name.chars().collect();
        for _ in 0..rng.below(4) {
            let at = rng.below(chars.len() + 1);
            match rng.below(6) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 => chars.insert(at, ['a', 'e', '_', 's', 'ü', 'X'][rng.below(6)]),
                2 if at + 1 < chars.len() => chars.swap(at, at + 1),
                3 if at < chars.len() => chars[at] = ['o', 'i', '.', 'R'][rng.below(4)],
                4 if at < chars.len() => {
                    let c = chars.remove(at);
                    let to = rng.below(chars.len() + 1);
                    chars.insert(to, c);
                }
                _ if at < chars.len() => chars[at] = chars[at].to_ascii_uppercase(),
                _ => {}
            }
        }
        chars.into_iter().collect()
    }

    #[test]
    fn the_bounded_measure_ranks_as_the_full_matrix_on_generated_names() {
        let mut rng = Rng(0x5EED_1234_ABCD_0001);
        for round in 0..1000 {
            let count = 1 + rng.below(40);
            let catalog: Vec<String> = (0..count).map(|_| word_name(&mut rng)).collect();
            let candidates: Vec<&str> = catalog.iter().map(String::as_str).collect();
            let query = match rng.below(4) {
                0 => word_name(&mut rng),
                1 => String::new(),
                _ => {
                    let slipped = candidates[rng.below(count)];
                    slip(&mut rng, slipped)
                }
            };
            for (limit, min_similarity) in [(3, 0.34), (1, 0.5), (5, 0.0), (2, 0.9)] {
                assert_eq!(
                    closest(&query, &candidates, limit, min_similarity),
                    reference(&query, &candidates, limit, min_similarity),
                    "round {round}: {query:?} in {candidates:?}, limit {limit}, at least {min_similarity}"
                );
            }
        }
    }

    #[test]
    fn the_indexed_measure_ranks_as_the_full_matrix_on_catalogs_of_thousands_of_names() {
        let mut rng = Rng(0x1DE4_ED00_5EED_0003);
        for round in 0..8 {
            let count = INDEXED + rng.below(3000);
            let catalog: Vec<String> = (0..count).map(|_| word_name(&mut rng)).collect();
            let candidates: Vec<&str> = catalog.iter().map(String::as_str).collect();
            let names = Names::new(candidates.iter().copied());
            assert!(names.index.is_some());
            for _ in 0..20 {
                let query = match rng.below(4) {
                    0 => word_name(&mut rng),
                    1 => word_name(&mut rng) + "_" + &word_name(&mut rng),
                    _ => {
                        let slipped = candidates[rng.below(count)];
                        slip(&mut rng, slipped)
                    }
                };
                for (limit, min_similarity) in [(3, 0.34), (1, 0.5)] {
                    let found: Vec<&str> =
                        names.closest(&query, limit, min_similarity).into_iter().map(|i| candidates[i]).collect();
                    assert_eq!(
                        found,
                        reference(&query, &candidates, limit, min_similarity),
                        "round {round}: {query:?} in {count} names, limit {limit}, at least {min_similarity}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_distance_is_the_optimal_string_alignment_distance_at_every_length_up_to_64() {
        let mut rng = Rng(0xD15_7A9C_E000_0002);
        let alphabet = ['a', 'b', 'c', 'd', 'ß'];
        for round in 0..20_000 {
            // Short words over few letters make transpositions and repeats common; some rounds
            // reach the 64 characters of the pattern's word.
            let longest = if round % 10 == 0 { 65 } else { 10 };
            let word = |rng: &mut Rng| -> String { (0..rng.below(longest)).map(|_| alphabet[rng.below(5)]).collect() };
            let (a, b) = (word(&mut rng), word(&mut rng));
            let exact = strsim::osa_distance(&a, &b) as u32;
            let mut pattern = Pattern::new(&a);
            let b_len = b.chars().count() as u32;
            for most in [0, 1, 2, 3, 5, 8, exact.saturating_sub(1), exact, exact + 1, 100] {
                let expected = (exact <= most).then_some(exact);
                assert_eq!(pattern.distance(&b, b_len, most), expected, "{a:?} {b:?} at most {most}");
            }
        }
        // An edit between two transposed characters is not one transposition here.
        assert_eq!(Pattern::new("ca").distance("abc", 3, 5), Some(3));
        assert_eq!(Pattern::new("ab").distance("ba", 2, 5), Some(1));
        assert_eq!(Pattern::new("").distance("abc", 3, 5), Some(3));
        assert_eq!(Pattern::new("abc").distance("", 0, 5), Some(3));
    }

    /// `count` names `domain.verb_object`, as in real catalogs: many share their words.
    fn catalog_names(count: usize) -> Vec<String> {
        let domains = ["travel", "flights", "finance", "weather", "calendar", "email", "music", "maps", "github"];
        let verbs = ["get", "list", "search", "create", "update", "delete", "book", "cancel", "find", "send"];
        let objects = ["user", "users", "item", "order", "booking", "event", "events", "message", "track", "route"];
        let mut names = Vec::with_capacity(count);
        for n in 0.. {
            let (d, v, o) = (n % domains.len(), n / domains.len() % verbs.len(), n / 90 % objects.len());
            names.push(format!("{}{}.{}_{}", domains[d], n / 900, verbs[v], objects[o]));
            if names.len() == count {
                break;
            }
        }
        names
    }

    #[test]
    fn a_name_about_as_unlike_thousands_of_names_ends_on_a_budget_of_characters_read() {
        let catalog = catalog_names(10_000);
        let candidates: Vec<&str> = catalog.iter().map(String::as_str).collect();
        let names = Names::new(candidates.iter().copied());
        let query = "translate_text_to_french";
        let (found, read) = names.closest_reading(query, 3, 0.34);
        // The budget is checked before each block of names: one block may finish past it.
        assert!(read <= DISTANCE_STEPS + BLOCK * MAX_COMPARED_CHARS, "read {read} characters");
        let found: Vec<&str> = found.into_iter().map(|i| candidates[i]).collect();
        // Thousands of names are about as unlike it (0.375 to 0.42); the full matrix finds
        // `travel0.get_track`, `travel1.get_track`, `travel10.get_track` (0.417 each).
        assert_eq!(found, ["travel3.create_events", "travel3.delete_events", "travel7.create_events"]);
        assert_eq!(
            reference(query, &candidates, 3, 0.34),
            ["travel0.get_track", "travel1.get_track", "travel10.get_track"]
        );
        // A slip of one of them is still found exactly.
        let (found, read) = names.closest_reading("finance7.serch_order", 1, 0.34);
        assert_eq!(found.into_iter().map(|i| candidates[i]).collect::<Vec<_>>(), ["finance7.search_order"]);
        assert!(read < DISTANCE_STEPS);
    }

    #[test]
    fn a_name_too_long_to_compare_is_matched_only_by_the_names_it_starts_with_or_that_contain_it() {
        let long = format!("Memory.Search{}", "x".repeat(1 << 20));
        let candidates = ["memory.search", "memory.searc", "memory", "web.search", "other"];
        assert_eq!(closest(&long, &candidates, 3, 0.34), ["memory", "memory.searc", "memory.search"]);
        let sixty_five = "a".repeat(65);
        let longer = format!("b{sixty_five}c");
        assert_eq!(closest(&sixty_five, &[longer.as_str(), "aaa", "b"], 3, 0.34), ["aaa", longer.as_str()]);
        assert!(closest(&"é".repeat(1 << 18), &candidates, 3, 0.0).is_empty());
    }

    #[test]
    fn ties_go_to_the_first_name_in_order_and_a_zero_limit_suggests_nothing() {
        assert_eq!(closest("ab", &["zb", "ax", "ay"], 2, 0.34), ["ax", "ay"]);
        assert!(closest("ab", &["ab"], 0, 0.0).is_empty());
        assert_eq!(closest("", &["", "a"], 3, 0.0), ["", "a"]);
    }
}
