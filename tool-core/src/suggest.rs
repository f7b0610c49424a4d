//! Suggestions: the declared names closest to one a model sent (an unknown tool, an unknown key).
//!
//! Owns the measure and its bounds. Two names are compared ASCII-lowercased, by normalized
//! Damerau–Levenshtein similarity (`1 - distance / longer length`, in characters), raised to
//! 0.75 when one contains the other; the best come first, ties by name.
//!
//! The name compared comes from the model, so it may be hostile: the work must stay bounded
//! whatever it is. A name longer than [`MAX_COMPARED_CHARS`] gets no edit distance at all:
//! only the declared names it starts with, or that contain it, are suggested. Otherwise each
//! declared name first meets cheap lower bounds on the distance (lengths, the characters and
//! the character pairs each name has that the other lacks, the bag distance); only a name
//! whose bound could still beat the suggestions found so far gets a distance, computed in a
//! band that the same bound narrows, stopping as soon as it is out of reach, in buffers reused
//! across comparisons. A catalog of [`INDEXED`] names or more is indexed once (names by
//! length, character class counts by column), so that a suggestion reads a few bytes per name
//! and never looks at the names the index leaves out of reach. Where a great many names are
//! about equally unlike the sent one, a budget of matrix cells ends the search: the
//! suggestions are then good ones, not always the best. This module must not allocate per
//! comparison, nor hold on to the sent name.

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
        if limit == 0 {
            return Vec::new();
        }
        let mut best = Best::new(limit, min_similarity);
        if name.len() > 4 * MAX_COMPARED_CHARS || name.chars().count() > MAX_COMPARED_CHARS {
            self.containing(name, &mut best);
        } else if let Some(index) = &self.index {
            self.nearest_indexed(index, name, &mut best);
        } else {
            self.nearest(name, &mut best);
        }
        best.ranked.into_iter().map(|(_, index)| index).collect()
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
    fn nearest(&self, name: &str, best: &mut Best) {
        let query = name.to_ascii_lowercase();
        let sent = Sent::new(&query);
        let mut reachable: Vec<(f64, usize)> = Vec::with_capacity(self.entries.len());
        for (index, entry) in self.entries.iter().enumerate() {
            let (bound, may_contain) = sent.bound(entry);
            let bound = bound.max(bag_distance(&sent.counts, &self.counts[index]));
            let mut top = similarity(bound, sent.len.max(entry.len));
            if may_contain {
                top = top.max(CONTAINED);
            }
            if top >= best.min_similarity {
                reachable.push((top, index));
            }
        }
        // Best bound first; among equal bounds, in order (the sort is stable).
        reachable.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut scratch = Scratch::new(&query);
        for (top, index) in reachable {
            if top < best.threshold() || scratch.cells > DISTANCE_CELLS {
                break;
            }
            self.score(index, &sent, &mut scratch, best);
        }
    }

    /// For a name short enough to compare, on an indexed catalog: the edit distance, where
    /// the bag distance allows.
    ///
    /// The characters a declared name shares with the sent one (their bag intersection) come
    /// from the index's columns of the sent name's classes; with the lengths they bound the
    /// similarity from above (and say whether one name may contain the other). Names are then
    /// visited grade by grade from the best bound down, until the bounds fall below the
    /// suggestions found; the rest are never compared.
    fn nearest_indexed(&self, index: &Index, name: &str, best: &mut Best) {
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
        // The best grade of each block (its names have one length), so that a grade's visit
        // skips whole blocks.
        let block_best: Vec<u8> = shared
            .chunks(BLOCK)
            .zip(&index.block_lengths)
            .map(|(block, &length)| tables[length as usize][usize::from(block.iter().copied().max().unwrap_or(0))])
            .collect();
        let mut scratch = Scratch::new(&query);
        for grade in (0..=GRADES).rev() {
            // A name of this grade is at most this alike (below it, but at the top grade).
            let top = (f64::from(grade) + 1.0) / f64::from(GRADES);
            if top.min(1.0) < best.threshold() || scratch.cells > DISTANCE_CELLS {
                break;
            }
            for (b, _) in block_best.iter().enumerate().filter(|&(_, &most)| most >= grade) {
                let table = &tables[index.block_lengths[b] as usize];
                let range = b * BLOCK..(b + 1) * BLOCK;
                for (&common, &declared) in shared[range.clone()].iter().zip(&index.by_length[range]) {
                    if table[usize::from(common)] == grade && declared != NO_NAME {
                        self.score(declared as usize, &sent, &mut scratch, best);
                    }
                }
            }
        }
    }

    /// Scores one declared name against the sent one, and offers it.
    fn score(&self, index: usize, sent: &Sent<'_>, scratch: &mut Scratch, best: &mut Best) {
        let entry = &self.entries[index];
        let threshold = best.threshold();
        let longer = sent.len.max(entry.len);
        let (bound, may_contain) = sent.bound(entry);
        let bound = bound.max(bag_distance(&sent.counts, &self.counts[index]));
        let raw_bound = similarity(bound, longer);
        if raw_bound < threshold && !(may_contain && CONTAINED >= threshold) {
            return;
        }
        // A name that can only tie with the last suggestion, and comes after it, cannot enter.
        if raw_bound <= threshold && CONTAINED <= threshold && !best.could_enter(threshold, index, |i| self.name(i)) {
            return;
        }
        let declared = self.lowered(index);
        let contained = may_contain && (declared.contains(sent.text) || sent.text.contains(declared));
        let floor = if contained { CONTAINED } else { f64::NEG_INFINITY };
        // The distance matters only where it could say more than the floor and the threshold.
        let needed = threshold.max(floor);
        let distance = if raw_bound < needed || (contained && raw_bound <= CONTAINED) || scratch.cells > DISTANCE_CELLS
        {
            None
        } else {
            most_distance(needed, longer).and_then(|most| scratch.distance(declared, most))
        };
        let score = distance.map_or(floor, |d| similarity(d, longer).max(floor));
        if score >= threshold {
            best.offer(score, index, |i| self.name(i));
        }
    }
}

/// How many cells of distance matrices one suggestion may fill (about a hundred comparisons
/// of typical names). Names are visited from the best bound down, so the budget only ends a
/// search where a great many names are about equally unlike the sent one.
const DISTANCE_CELLS: usize = 1 << 16;

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

    /// A lower bound on the distance to a declared name, and whether one may contain the other.
    ///
    /// Each edit adds or removes at most one character, and changes at most three pairs of
    /// adjacent characters; a character class (or pair) one name has and the other lacks
    /// needs at least one of them.
    fn bound(&self, entry: &Entry) -> (u32, bool) {
        let bound = [
            self.len.abs_diff(entry.len),
            (self.chars & !entry.chars).count_ones(),
            (entry.chars & !self.chars).count_ones(),
            (self.pairs & !entry.pairs).count_ones().div_ceil(3),
            (entry.pairs & !self.pairs).count_ones().div_ceil(3),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        (bound, self.may_contain(entry))
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

/// The buffers of the distance, reused from one comparison to the next.
struct Scratch {
    /// The sent name's characters.
    query: Vec<char>,
    /// The declared name's characters.
    declared: Vec<char>,
    /// The distance matrix, with a border row and column of sentinels.
    rows: Vec<u32>,
    /// How many cells the distances have filled so far.
    cells: usize,
    /// For each ASCII character, the last row of the sent name holding it (0: none yet).
    last_row_ascii: [u32; 128],
    /// The same for the other characters.
    last_row_other: Vec<(char, u32)>,
}

impl Scratch {
    fn new(query: &str) -> Scratch {
        Scratch {
            query: query.chars().collect(),
            declared: Vec::new(),
            rows: Vec::new(),
            cells: 0,
            last_row_ascii: [0; 128],
            last_row_other: Vec::new(),
        }
    }

    fn last_row(&self, c: char) -> u32 {
        match self.last_row_ascii.get(c as usize) {
            Some(&row) => row,
            None => self.last_row_other.iter().find(|(o, _)| *o == c).map_or(0, |&(_, row)| row),
        }
    }

    fn set_last_row(&mut self, c: char, row: u32) {
        match self.last_row_ascii.get_mut(c as usize) {
            Some(slot) => *slot = row,
            None => match self.last_row_other.iter_mut().find(|(o, _)| *o == c) {
                Some(slot) => slot.1 = row,
                None => self.last_row_other.push((c, row)),
            },
        }
    }

    /// The Damerau–Levenshtein distance (adjacent transpositions, with no restriction on
    /// editing between them: Lowrance–Wagner) between the sent name and `declared`, if it is
    /// at most `most`.
    ///
    /// Every edit moves at most one diagonal per unit of cost, so only the cells within `most`
    /// of the diagonal can lie on a path that cheap; the others hold the ceiling `most + 1`,
    /// which every value is capped at (capping cannot change a result at most `most`). When a
    /// whole row is at the ceiling, no later cell can come back under it, transpositions
    /// included (a transposition that jumps over the row costs at least what the row holds).
    fn distance(&mut self, declared: &str, most: u32) -> Option<u32> {
        self.declared.clear();
        self.declared.extend(declared.chars());
        let (a_len, b_len) = (self.query.len(), self.declared.len());
        let ceiling = most + 1;
        let width = b_len + 2;
        self.rows.clear();
        self.rows.resize((a_len + 2) * width, ceiling);
        self.last_row_ascii = [0; 128];
        self.last_row_other.clear();
        let at = |i: usize, j: usize| i * width + j;
        for j in 0..=b_len {
            self.rows[at(1, j + 1)] = (j as u32).min(ceiling);
        }
        for i in 1..=a_len {
            self.rows[at(i + 1, 1)] = (i as u32).min(ceiling);
            let a = self.query[i - 1];
            let band = most as usize;
            let (first, last) = (i.saturating_sub(band).max(1), (i + band).min(b_len));
            let mut last_match = 0usize;
            let mut row_least = self.rows[at(i + 1, 1)];
            self.cells += (last + 1).saturating_sub(first);
            for j in first..=last {
                let b = self.declared[j - 1];
                let k = self.last_row(b) as usize;
                let l = last_match;
                let same = a == b;
                if same {
                    last_match = j;
                }
                let substitution = self.rows[at(i, j)] + u32::from(!same);
                let insertion = self.rows[at(i + 1, j)] + 1;
                let deletion = self.rows[at(i, j + 1)] + 1;
                let transposition = self.rows[at(k, l)] + (i - k - 1) as u32 + 1 + (j - l - 1) as u32;
                let value = substitution.min(insertion).min(deletion).min(transposition).min(ceiling);
                self.rows[at(i + 1, j + 1)] = value;
                row_least = row_least.min(value);
            }
            if row_least >= ceiling {
                return None;
            }
            self.set_last_row(a, i as u32);
        }
        let distance = self.rows[at(a_len + 1, b_len + 1)];
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
                let mut score = strsim::normalized_damerau_levenshtein(&lowered, &lc);
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
    fn the_distance_is_damerau_levenshtein_with_unrestricted_edits_between_transpositions() {
        let mut rng = Rng(0xD15_7A9C_E000_0002);
        let alphabet = ['a', 'b', 'c', 'd', 'ß'];
        for _ in 0..5000 {
            let word = |rng: &mut Rng| -> String { (0..rng.below(9)).map(|_| alphabet[rng.below(5)]).collect() };
            let (a, b) = (word(&mut rng), word(&mut rng));
            let exact = strsim::damerau_levenshtein(&a, &b) as u32;
            let mut scratch = Scratch::new(&a);
            for most in 0..10 {
                let expected = (exact <= most).then_some(exact);
                assert_eq!(scratch.distance(&b, most), expected, "{a:?} {b:?} at most {most}");
            }
        }
        assert_eq!(Scratch::new("ca").distance("abc", 5), Some(2));
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
