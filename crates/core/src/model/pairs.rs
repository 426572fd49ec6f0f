//! The similar pairs of a scan, kept the way they were found: per pair of
//! *contents*, not per pair of documents.
//!
//! A content shared by `n` identical files gives `n(n−1)/2` pairs of
//! documents, and a pair of contents with `m` and `n` copies gives `m·n`. Kept
//! as rows that is 48 bytes each: 10,000 copies of one file made 2.4 GB
//! before anything was written (docs/RELIABILITY.md, "Memory and cost
//! bounds"). [`DocPairs`] holds each content's documents once and each pair
//! of contents once, counts and filters pairs at that level, and
//! [`DocPairs::iter`] produces the pairs of documents one by one, sorted by
//! `(a, b)`, for a writer to stream. Clustering works on the same structure
//! (`crate::cluster::cluster_contents`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::SimilarPair;

/// Index of a content in a [`DocPairs`].
pub type ContentId = u32;

/// Similar pairs of documents, as pairs of contents (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct DocPairs {
    /// Documents of content `c`: `members[starts[c]..starts[c + 1]]`, increasing.
    members: Vec<u32>,
    starts: Vec<usize>,
    /// Per content, the pair any two of its documents form (`a`, `b` unused),
    /// when they are reported.
    identical: Vec<Option<SimilarPair>>,
    /// Pairs of contents (`a < b` are content ids).
    between: Vec<SimilarPair>,
    /// Pairs of `between` per content: `adjacent[adj_starts[c]..adj_starts[c + 1]]`
    /// holds (other content, index in `between`).
    adj_starts: Vec<usize>,
    adjacent: Vec<(ContentId, u32)>,
    /// Every document with its content, by document id.
    by_doc: Vec<(u32, ContentId)>,
    /// Per content, which bytes its documents have: contents with one class
    /// are byte-identical (the parts of one content split by `--isolate`),
    /// contents with two are not, whatever their similarity.
    class: Vec<u32>,
}

impl DocPairs {
    /// `contents` gives each content's documents (increasing) and, when two of
    /// its documents are to be reported as a pair, that pair's fields; `between`
    /// pairs contents by their index in `contents`. Contents without any pair
    /// are dropped.
    ///
    /// # Panics
    /// If a pair names a content outside `contents`.
    pub fn new<'m>(
        contents: impl IntoIterator<Item = (&'m [u32], Option<SimilarPair>)>,
        between: Vec<SimilarPair>,
    ) -> DocPairs {
        DocPairs::new_classed(
            contents
                .into_iter()
                .enumerate()
                .map(|(c, (members, same))| (members, same, c as u32)),
            between,
        )
    }

    /// [`DocPairs::new`] with, per content, the class of its bytes: contents
    /// of one class are byte-identical to each other (one content split into
    /// parts that are not paired among themselves), of two classes are not.
    pub fn new_classed<'m>(
        contents: impl IntoIterator<Item = (&'m [u32], Option<SimilarPair>, u32)>,
        mut between: Vec<SimilarPair>,
    ) -> DocPairs {
        let contents: Vec<(&[u32], Option<SimilarPair>, u32)> = contents.into_iter().collect();
        // A content without documents pairs nothing (and would join its
        // partners to each other when grouping).
        between.retain(|p| {
            !contents[p.a as usize].0.is_empty() && !contents[p.b as usize].0.is_empty()
        });
        let mut paired: Vec<bool> = contents
            .iter()
            .map(|(m, same, _)| m.len() > 1 && same.is_some())
            .collect();
        for p in &between {
            paired[p.a as usize] = true;
            paired[p.b as usize] = true;
        }
        let mut new_id = vec![u32::MAX; contents.len()];
        let mut set = DocPairs {
            starts: vec![0],
            ..DocPairs::default()
        };
        for (c, (members, same, class)) in contents.into_iter().enumerate() {
            if !paired[c] {
                continue;
            }
            new_id[c] = set.identical.len() as u32;
            debug_assert!(members.windows(2).all(|w| w[0] < w[1]));
            set.members.extend_from_slice(members);
            set.starts.push(set.members.len());
            set.identical.push(same.filter(|_| members.len() > 1));
            set.class.push(class);
        }
        set.between = between
            .into_iter()
            .map(|p| {
                let (a, b) = (new_id[p.a as usize], new_id[p.b as usize]);
                SimilarPair {
                    a: a.min(b),
                    b: a.max(b),
                    ..p
                }
            })
            .collect();
        set.index();
        set
    }

    /// These pairs and, for each of `sets` (documents in none of these
    /// contents, increasing), a content whose documents pair with each other
    /// with `fields`: identical files found apart from the rest (binary
    /// copies, whose similarity was never measured).
    pub fn with_identical<'m>(
        mut self,
        sets: impl IntoIterator<Item = &'m [u32]>,
        fields: SimilarPair,
    ) -> DocPairs {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        // Classes of their own: these files share no bytes with the rest.
        let first = self.class.iter().max().map_or(0, |&c| c + 1);
        for (class, members) in (first..).zip(sets.into_iter().filter(|m| m.len() > 1)) {
            debug_assert!(members.windows(2).all(|w| w[0] < w[1]));
            self.members.extend_from_slice(members);
            self.starts.push(self.members.len());
            self.identical.push(Some(fields));
            self.class.push(class);
        }
        self.index();
        self
    }

    /// Whether documents `a` and `b` are byte-identical: of one content (as
    /// the scan grouped them by content hash) or of two parts of one.
    pub fn same_content(&self, a: u32, b: u32) -> bool {
        let class = |d: u32| {
            self.by_doc
                .binary_search_by_key(&d, |&(doc, _)| doc)
                .ok()
                .map(|i| self.class[self.by_doc[i].1 as usize])
        };
        matches!((class(a), class(b)), (Some(x), Some(y)) if x == y)
    }

    /// Rebuilds the adjacency of contents and the document map.
    fn index(&mut self) {
        let n = self.identical.len();
        let mut degree = vec![0usize; n + 1];
        for p in &self.between {
            degree[p.a as usize] += 1;
            degree[p.b as usize] += 1;
        }
        let mut starts = vec![0usize; n + 1];
        for c in 0..n {
            starts[c + 1] = starts[c] + degree[c];
        }
        let mut cursor = starts.clone();
        let mut adjacent = vec![(0, 0); starts[n]];
        for (i, p) in self.between.iter().enumerate() {
            for (from, to) in [(p.a, p.b), (p.b, p.a)] {
                adjacent[cursor[from as usize]] = (to, i as u32);
                cursor[from as usize] += 1;
            }
        }
        self.adj_starts = starts;
        self.adjacent = adjacent;
        self.by_doc = (0..n as u32)
            .flat_map(|c| self.members(c).iter().map(move |&d| (d, c)))
            .collect();
        self.by_doc.sort_unstable();
    }

    /// Number of contents.
    pub fn contents(&self) -> usize {
        self.identical.len()
    }

    /// The documents of content `c`, increasing.
    pub fn members(&self, c: ContentId) -> &[u32] {
        &self.members[self.starts[c as usize]..self.starts[c as usize + 1]]
    }

    /// Whether content `c` still has a pair (after [`DocPairs::retain`]).
    pub fn has_pairs(&self, c: ContentId) -> bool {
        self.identical(c).is_some() || self.neighbours(c).next().is_some()
    }

    /// The pair any two documents of content `c` form, when reported.
    pub fn identical(&self, c: ContentId) -> Option<&SimilarPair> {
        self.identical[c as usize].as_ref()
    }

    /// The pairs between content `c` and others: (other content, pair), where
    /// the pair's `a` and `b` are content ids.
    pub fn neighbours(&self, c: ContentId) -> impl Iterator<Item = (ContentId, &SimilarPair)> + '_ {
        self.adjacent[self.adj_starts[c as usize]..self.adj_starts[c as usize + 1]]
            .iter()
            .map(|&(d, i)| (d, &self.between[i as usize]))
    }

    /// Every pair of documents with the similarity of each, as (similarity,
    /// how many pairs of documents have it), one entry per pair of contents
    /// and per group of identical documents.
    pub fn weighted(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        let same = (0..self.contents() as u32).filter_map(|c| {
            let n = self.members(c).len() as u64;
            self.identical(c).map(|p| (p.similarity, n * (n - 1) / 2))
        });
        let between = self.between.iter().map(|p| {
            let (m, n) = (self.members(p.a).len(), self.members(p.b).len());
            (p.similarity, m as u64 * n as u64)
        });
        same.chain(between)
    }

    /// Number of pairs of documents.
    pub fn len(&self) -> u64 {
        self.weighted().map(|(_, n)| n).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps only the pairs whose similarity passes `keep`.
    pub fn retain(&mut self, keep: impl Fn(f64) -> bool) {
        for same in &mut self.identical {
            if same.is_some_and(|p| !keep(p.similarity)) {
                *same = None;
            }
        }
        self.between.retain(|p| keep(p.similarity));
        self.index();
    }

    /// Keeps only the pairs of documents of one content (byte-identical
    /// files): `-t 1` read as "identical", not "equal once normalised".
    pub fn retain_identical(&mut self) {
        let class = &self.class;
        self.between
            .retain(|p| class[p.a as usize] == class[p.b as usize]);
        self.index();
    }

    /// The pairs of documents, sorted by `(a, b)`, made one at a time: memory
    /// is per content, never per pair.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            set: self,
            next_doc: 0,
            a: 0,
            sources: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }
}

impl PartialEq for DocPairs {
    /// Equal when they list the same pairs of documents.
    fn eq(&self, other: &DocPairs) -> bool {
        self.iter().eq(other.iter())
    }
}

/// A run of partners of the current document `a`: the documents of one
/// content after `a`, all paired with `a` with the same fields.
struct Source<'a> {
    members: &'a [u32],
    next: usize,
    fields: &'a SimilarPair,
}

/// [`DocPairs::iter`]: for each document `a` in id order, a merge of the runs
/// of its partners (its own content's later documents, and each paired
/// content's documents after `a`) by id. A document has one content, so no
/// partner comes twice.
pub struct Iter<'a> {
    set: &'a DocPairs,
    next_doc: usize,
    a: u32,
    sources: Vec<Source<'a>>,
    heap: BinaryHeap<Reverse<(u32, usize)>>,
}

impl Iter<'_> {
    /// Moves to the next document that has a partner after it; false at the end.
    fn advance(&mut self) -> bool {
        let set = self.set;
        while self.heap.is_empty() {
            let Some(&(a, c)) = set.by_doc.get(self.next_doc) else {
                return false;
            };
            self.next_doc += 1;
            self.a = a;
            self.sources.clear();
            let after = |members: &[u32]| members.partition_point(|&d| d <= a);
            if let Some(fields) = set.identical(c) {
                let members = set.members(c);
                self.sources.push(Source {
                    members,
                    next: after(members),
                    fields,
                });
            }
            for (d, fields) in set.neighbours(c) {
                let members = set.members(d);
                self.sources.push(Source {
                    members,
                    next: after(members),
                    fields,
                });
            }
            for (s, source) in self.sources.iter().enumerate() {
                if let Some(&b) = source.members.get(source.next) {
                    self.heap.push(Reverse((b, s)));
                }
            }
        }
        true
    }
}

impl Iterator for Iter<'_> {
    type Item = SimilarPair;

    fn next(&mut self) -> Option<SimilarPair> {
        if !self.advance() {
            return None;
        }
        let Reverse((b, s)) = self.heap.pop()?;
        let source = &mut self.sources[s];
        source.next += 1;
        let fields = *source.fields;
        if let Some(&next) = source.members.get(source.next) {
            self.heap.push(Reverse((next, s)));
        }
        Some(SimilarPair {
            a: self.a,
            b,
            ..fields
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(similarity: f64) -> SimilarPair {
        SimilarPair {
            a: 0,
            b: 0,
            similarity,
            estimate: Some(similarity),
            shared: Some(3),
        }
    }

    fn between(a: u32, b: u32, similarity: f64) -> SimilarPair {
        SimilarPair {
            a,
            b,
            ..fields(similarity)
        }
    }

    /// The expansion the pipeline made before: every pair as a row, sorted.
    fn expanded(
        contents: &[(Vec<u32>, Option<SimilarPair>)],
        pairs: &[SimilarPair],
    ) -> Vec<SimilarPair> {
        let mut out = Vec::new();
        for (members, same) in contents {
            if let Some(same) = same {
                for (i, &a) in members.iter().enumerate() {
                    for &b in &members[i + 1..] {
                        out.push(SimilarPair { a, b, ..*same });
                    }
                }
            }
        }
        for p in pairs {
            for &x in &contents[p.a as usize].0 {
                for &y in &contents[p.b as usize].0 {
                    out.push(SimilarPair {
                        a: x.min(y),
                        b: x.max(y),
                        ..*p
                    });
                }
            }
        }
        out.sort_by_key(|p| (p.a, p.b));
        out
    }

    /// Interleaved contents with and without identical pairs, a content
    /// paired with several, and contents with no pair at all.
    type Contents = Vec<(Vec<u32>, Option<SimilarPair>)>;

    fn sample() -> (Contents, Vec<SimilarPair>) {
        let contents = vec![
            (vec![0, 4, 9], Some(fields(1.0))),
            (vec![1], None),
            (vec![2, 3, 7], Some(fields(1.0))),
            (vec![5, 8], None),
            (vec![6], None),
            (vec![10, 11], Some(fields(1.0))),
        ];
        let pairs = vec![between(0, 1, 0.9), between(1, 2, 0.8), between(0, 3, 0.85)];
        (contents, pairs)
    }

    fn build(contents: &[(Vec<u32>, Option<SimilarPair>)], pairs: &[SimilarPair]) -> DocPairs {
        DocPairs::new(
            contents.iter().map(|(m, s)| (m.as_slice(), *s)),
            pairs.to_vec(),
        )
    }

    #[test]
    fn streams_what_the_expansion_listed_in_the_same_order() {
        let (contents, pairs) = sample();
        let set = build(&contents, &pairs);
        let want = expanded(&contents, &pairs);
        assert_eq!(set.iter().collect::<Vec<_>>(), want);
        assert_eq!(set.len(), want.len() as u64);
        // Content 4 ({6}) has no pair and is dropped.
        assert_eq!(set.contents(), 5);
    }

    #[test]
    fn filters_by_similarity_like_the_rows() {
        let (contents, pairs) = sample();
        let mut set = build(&contents, &pairs);
        set.retain(|s| (0.85..1.0).contains(&s));
        let mut want = expanded(&contents, &pairs);
        want.retain(|p| p.similarity < 1.0 && p.similarity >= 0.85);
        assert_eq!(set.iter().collect::<Vec<_>>(), want);
        assert_eq!(set.len(), want.len() as u64);
    }

    #[test]
    fn many_copies_are_counted_without_being_listed() {
        let members: Vec<u32> = (0..100_000).collect();
        let set = DocPairs::new([(members.as_slice(), Some(fields(1.0)))], Vec::new());
        assert_eq!(set.len(), 100_000 * 99_999 / 2);
        let first: Vec<(u32, u32)> = set.iter().take(3).map(|p| (p.a, p.b)).collect();
        assert_eq!(first, vec![(0, 1), (0, 2), (0, 3)]);
    }

    #[test]
    fn identity_follows_the_class_of_the_bytes_not_the_similarity() {
        // Parts 0 and 1 are of one content (one class, as --isolate splits
        // it); part 2 is equal to them once normalised only; documents 4 and
        // 5 are copies found apart (binary files).
        let parts: [(&[u32], Option<SimilarPair>, u32); 3] =
            [(&[0, 1], None, 7), (&[2], None, 7), (&[3], None, 9)];
        let mut set = DocPairs::new_classed(
            parts,
            vec![between(0, 1, 1.0), between(0, 2, 1.0), between(1, 2, 1.0)],
        )
        .with_identical([&[4u32, 5][..]], fields(1.0));
        assert!(set.same_content(0, 2) && set.same_content(4, 5));
        assert!(!set.same_content(0, 3) && !set.same_content(2, 4));
        assert!(set.same_content(0, 1), "one part of one content");
        set.retain_identical();
        let left: Vec<(u32, u32)> = set.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(left, vec![(0, 2), (1, 2), (4, 5)]);
    }
}
