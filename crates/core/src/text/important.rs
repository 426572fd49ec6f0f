//! Important words by TF.IDF (MMDS 1.3.1), the "set of important words"
//! the chapter's simple approaches represent a document by (3.2.4).
//!
//! Over a corpus of N documents, word i's term frequency in document j is
//! TF_ij = f_ij / max_k f_kj (its count over the count of the document's most
//! frequent word) and its inverse document frequency IDF_i = log₂(N / n_i),
//! n_i the number of documents it is in. A document keeps the `n` words of
//! highest TF_ij × IDF_i; ties go to the word first in byte order, so the
//! choice never depends on the order documents are read in. A word in every
//! document has IDF 0 and is kept only when fewer than `n` others score above
//! 0. Words are those of the word shingles (runs of letters and digits) of
//! the text as given: callers normalise first. Pure.
//!
//! One ranking ([`select`]) serves records ([`top_tfidf`]: the corpus is in
//! memory) and files ([`Selection`]: the document frequencies counted by a
//! first pass over the files, [`DocumentFrequencies`], are handed in, and a
//! file's words are selected again, the same way, wherever its set is made:
//! signing and exact verification's reload). A word is known to the table by
//! its word-shingle hash ([`hash_shingle`]), which is also the value the
//! selected set holds: a file's important words are a subset of its
//! `--shingle word -k 1` set.

use std::hash::{BuildHasherDefault, Hasher};

use super::words::{find_words, hash_shingle};

/// Each document's words (in order, repeats kept), as the word shingler
/// finds them.
pub fn words(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    find_words(text, &mut spans);
    spans
        .into_iter()
        .map(|(s, e)| &text[s as usize..e as usize])
        .collect()
}

/// How many documents each word is in, by the word's hash: two sorted
/// columns, 12 bytes a distinct word ([`Self::BYTES_PER_WORD`]), looked up by
/// a search that starts where a uniform hash would lie.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentFrequencies {
    /// Word hashes, ascending, each once.
    hashes: Vec<u64>,
    /// `counts[i]`: the documents `hashes[i]` is in.
    counts: Vec<u32>,
    /// N: the documents counted.
    documents: u64,
}

impl DocumentFrequencies {
    /// Bytes held per distinct word: its hash and its count.
    pub const BYTES_PER_WORD: usize = std::mem::size_of::<u64>() + std::mem::size_of::<u32>();

    /// The table of `counts` (word hash, documents; a hash given twice has
    /// its counts added) over `documents` documents.
    pub fn new(counts: impl IntoIterator<Item = (u64, u32)>, documents: u64) -> Self {
        let mut pairs: Vec<(u64, u32)> = counts.into_iter().collect();
        pairs.sort_unstable_by_key(|&(h, _)| h);
        pairs.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = kept.1.saturating_add(later.1);
            }
            same
        });
        let mut hashes = Vec::with_capacity(pairs.len());
        let mut counts = Vec::with_capacity(pairs.len());
        for (h, c) in pairs {
            hashes.push(h);
            counts.push(c);
        }
        DocumentFrequencies {
            hashes,
            counts,
            documents,
        }
    }

    /// The documents the word of hash `hash` is in (0 if none).
    pub fn of(&self, hash: u64) -> u32 {
        let len = self.hashes.len();
        if len == 0 {
            return 0;
        }
        // Where a uniform hash lies, then outwards: a few steps, not log₂.
        let guess = ((u128::from(hash) * len as u128) >> 64) as usize;
        let found = if self.hashes[guess] <= hash {
            let mut step = 1;
            let mut low = guess;
            while low + step < len && self.hashes[low + step] <= hash {
                low += step;
                step *= 2;
            }
            let high = (low + step).min(len);
            low + self.hashes[low..high].partition_point(|&h| h <= hash) - 1
        } else {
            let mut step = 1;
            let mut high = guess;
            while high >= step && self.hashes[high - step] > hash {
                high -= step;
                step *= 2;
            }
            let low = high.saturating_sub(step);
            match low + self.hashes[low..high].partition_point(|&h| h <= hash) {
                0 => return 0,
                at => at - 1,
            }
        };
        if self.hashes[found] == hash {
            self.counts[found]
        } else {
            0
        }
    }

    /// N, the documents counted.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Distinct words.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Bytes the table holds.
    pub fn heap_bytes(&self) -> usize {
        self.hashes.capacity() * std::mem::size_of::<u64>()
            + self.counts.capacity() * std::mem::size_of::<u32>()
    }
}

/// A hasher for keys that are hashes already (word hashes are XXH3-64):
/// the key is its own hash.
#[derive(Default)]
pub struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A map keyed by word hash.
pub type ByHash<V> = hashbrown::HashMap<u64, V, BuildHasherDefault<Identity>>;

/// One distinct word of a document: its hash, the index of its first
/// occurrence among the document's words, and its count.
#[derive(Clone, Copy, Debug)]
struct Counted {
    hash: u64,
    first: u32,
    count: u32,
}

/// Per-thread buffers of [`Selection::for_each_hash`] and
/// [`distinct_word_hashes`].
#[derive(Default)]
pub struct Scratch {
    spans: Vec<(u32, u32)>,
    counts: ByHash<Counted>,
    ranked: Vec<(f64, Counted)>,
}

/// The distinct word hashes of `text` into `out` (cleared first, unordered):
/// what a first pass counts for the document frequencies.
pub fn distinct_word_hashes(text: &str, scratch: &mut Scratch, out: &mut Vec<u64>) {
    find_words(text, &mut scratch.spans);
    let bytes = text.as_bytes();
    let words = scratch
        .spans
        .iter()
        .map(|&(s, e)| &bytes[s as usize..e as usize]);
    count(words, &mut scratch.counts);
    out.clear();
    out.extend(scratch.counts.keys().copied());
}

/// Counts `words` into `counts` (cleared first).
fn count<'w>(words: impl Iterator<Item = &'w [u8]>, counts: &mut ByHash<Counted>) {
    counts.clear();
    for (i, word) in words.enumerate() {
        let hash = hash_shingle(word);
        counts
            .entry(hash)
            .and_modify(|c| c.count += 1)
            .or_insert(Counted {
                hash,
                first: i as u32,
                count: 1,
            });
    }
}

/// The ranking itself: of the words in `counts` (`word(i)`: the document's
/// i-th word), the `n` of highest TF × IDF under `df`, ties to the word
/// first in byte order, into `ranked` in that rank order. A word the table
/// does not know counts as in one document.
fn select<'w>(
    word: impl Fn(u32) -> &'w [u8],
    counts: &ByHash<Counted>,
    df: &DocumentFrequencies,
    n: usize,
    ranked: &mut Vec<(f64, Counted)>,
) {
    let most = counts.values().map(|c| c.count).max().unwrap_or(1) as f64;
    let total = df.documents() as f64;
    ranked.clear();
    ranked.extend(counts.values().map(|&c| {
        let idf = (total / f64::from(df.of(c.hash).max(1))).log2();
        (f64::from(c.count) / most * idf, c)
    }));
    let order = |x: &(f64, Counted), y: &(f64, Counted)| {
        y.0.total_cmp(&x.0)
            .then_with(|| word(x.1.first).cmp(word(y.1.first)))
    };
    if ranked.len() > n {
        ranked.select_nth_unstable_by(n, order);
        ranked.truncate(n);
    }
    ranked.sort_unstable_by(order);
}

/// What makes a file's set under `--important-words N`: the corpus's
/// document frequencies and N. Shared by every thread that makes a set
/// (signing, reload), so that they all select alike.
pub struct Selection {
    df: DocumentFrequencies,
    n: usize,
}

/// Sizes, not the table: a scan's configuration is printed with `{:?}`.
impl std::fmt::Debug for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selection")
            .field("n", &self.n)
            .field("words", &self.df.len())
            .field("documents", &self.df.documents())
            .finish()
    }
}

impl Selection {
    pub fn new(df: DocumentFrequencies, n: usize) -> Self {
        Selection { df, n }
    }

    pub fn frequencies(&self) -> &DocumentFrequencies {
        &self.df
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// Calls `emit` with the hash of each of `text`'s `n` words of highest
    /// TF.IDF (the word-shingle hash, k = 1), each once, best first.
    pub fn for_each_hash(&self, text: &str, scratch: &mut Scratch, mut emit: impl FnMut(u64)) {
        let Scratch {
            spans,
            counts,
            ranked,
        } = scratch;
        find_words(text, spans);
        let bytes = text.as_bytes();
        let word = |i: u32| {
            let (s, e) = spans[i as usize];
            &bytes[s as usize..e as usize]
        };
        count((0..spans.len() as u32).map(word), counts);
        select(word, counts, &self.df, self.n, ranked);
        for (_, c) in ranked.iter() {
            emit(c.hash);
        }
    }
}

/// The `n` words of highest TF.IDF of every document of `docs` (each a list
/// of words, repeats counted), in byte order.
pub fn top_tfidf<'a>(docs: &[Vec<&'a str>], n: usize) -> Vec<Vec<&'a str>> {
    let mut df: ByHash<u32> = ByHash::default();
    let mut counts = ByHash::default();
    for doc in docs {
        count(doc.iter().map(|w| w.as_bytes()), &mut counts);
        for &hash in counts.keys() {
            *df.entry(hash).or_default() += 1;
        }
    }
    let df = DocumentFrequencies::new(df, docs.len() as u64);
    let mut ranked = Vec::new();
    docs.iter()
        .map(|doc| {
            count(doc.iter().map(|w| w.as_bytes()), &mut counts);
            select(|i| doc[i as usize].as_bytes(), &counts, &df, n, &mut ranked);
            let mut kept: Vec<&'a str> =
                ranked.iter().map(|(_, c)| doc[c.first as usize]).collect();
            kept.sort_unstable();
            kept
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four documents, by hand (N = 4):
    /// - "the": in all four, IDF log₂(4/4) = 0;
    /// - "cat": in d1 and d2, IDF 1; "dog": in d1 only, IDF 2; "fish",
    ///   "bird", "cow": one document each, IDF 2.
    ///
    /// d1 = the the cat cat cat dog: max f = 3 (cat); TF.IDF: cat 3/3·1 = 1,
    /// dog 1/3·2 = 0.667, the 2/3·0 = 0: top 2 = {cat, dog}, top 1 = {cat}.
    /// d2 = the cat fish fish: max 2; fish 2/2·2 = 2, cat 1/2·1 = 0.5: top 1
    /// = {fish}. d3 = the bird, d4 = the cow: the one word of IDF 2.
    #[test]
    fn keeps_the_words_of_highest_tf_idf_by_hand() {
        let docs: Vec<Vec<&str>> = [
            "the the cat cat cat dog",
            "the cat fish fish",
            "the bird",
            "the cow",
        ]
        .iter()
        .map(|t| words(t))
        .collect();
        assert_eq!(
            top_tfidf(&docs, 2),
            vec![
                vec!["cat", "dog"],
                vec!["cat", "fish"],
                vec!["bird", "the"],
                vec!["cow", "the"]
            ]
        );
        assert_eq!(
            top_tfidf(&docs, 1),
            vec![vec!["cat"], vec!["fish"], vec!["bird"], vec!["cow"]]
        );
        // A tie (dog and fish at IDF 2, f = 1, max 1) goes to byte order.
        let tie: Vec<Vec<&str>> = vec![vec!["fish", "dog"], vec!["cat"]];
        assert_eq!(top_tfidf(&tie, 1), vec![vec!["dog"], vec!["cat"]]);
        assert_eq!(words("Buy Sudzo, now!"), vec!["Buy", "Sudzo", "now"]);
    }

    /// The selection files use, with the table handed in: the same four
    /// documents by hand (N = 4; the 4, cat 2, dog, fish, bird, cow 1), the
    /// selected words' hashes being their word-shingle hashes, best first.
    #[test]
    fn a_selection_keeps_the_words_of_highest_tf_idf_under_a_given_table() {
        let h = |w: &str| hash_shingle(w.as_bytes());
        let table = [
            ("the", 4),
            ("cat", 2),
            ("dog", 1),
            ("fish", 1),
            ("bird", 1),
            ("cow", 1),
        ];
        let df = DocumentFrequencies::new(table.iter().map(|&(w, c)| (h(w), c)), 4);
        let mut scratch = Scratch::default();
        let selected = |text: &str, n: usize, scratch: &mut Scratch| {
            let mut out = Vec::new();
            Selection::new(df.clone(), n).for_each_hash(text, scratch, |x| out.push(x));
            out
        };
        // cat 3/3 · 1 = 1 first, then dog 1/3 · 2; the (IDF 0) last.
        let d1 = "the the cat cat cat dog";
        assert_eq!(selected(d1, 2, &mut scratch), vec![h("cat"), h("dog")]);
        assert_eq!(
            selected(d1, 3, &mut scratch),
            vec![h("cat"), h("dog"), h("the")]
        );
        assert_eq!(selected(d1, 9, &mut scratch).len(), 3);
        // A tie (dog and fish: TF 1, IDF 2) goes to byte order.
        assert_eq!(selected("fish dog", 1, &mut scratch), vec![h("dog")]);
        // A word the table does not know counts as in one document.
        assert_eq!(selected("the zebra", 1, &mut scratch), vec![h("zebra")]);
        assert!(selected("", 3, &mut scratch).is_empty());
        let mut distinct = Vec::new();
        distinct_word_hashes(d1, &mut scratch, &mut distinct);
        distinct.sort_unstable();
        let mut expected = vec![h("the"), h("cat"), h("dog")];
        expected.sort_unstable();
        assert_eq!(distinct, expected);
    }

    /// The table's search finds every hash it holds and no other, wherever
    /// the hashes lie (uniform, clustered, at either end).
    #[test]
    fn document_frequencies_find_exactly_their_words() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for len in [0usize, 1, 2, 3, 10, 1000] {
            let mut hashes: Vec<u64> = (0..len).map(|_| next()).collect();
            hashes.extend([0, u64::MAX, 5, 6, 7].iter().take(len.min(5)));
            hashes.extend((0..len as u64).map(|i| (1 << 40) + i));
            let df = DocumentFrequencies::new(
                hashes.iter().map(|&h| (h, (h % 7 + 1) as u32)),
                len as u64,
            );
            let held: std::collections::HashSet<u64> = hashes.iter().copied().collect();
            assert_eq!(df.len(), held.len());
            for &h in &held {
                assert_eq!(df.of(h), (h % 7 + 1) as u32, "{h}");
            }
            for probe in (0..2000).map(|_| next()).chain([0, 1, 4, 8, u64::MAX - 1]) {
                if !held.contains(&probe) {
                    assert_eq!(df.of(probe), 0, "{probe}");
                }
            }
            assert_eq!(
                df.heap_bytes(),
                held.len() * DocumentFrequencies::BYTES_PER_WORD
            );
        }
    }
}
