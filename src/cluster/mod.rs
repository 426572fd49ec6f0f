//! From verified similar pairs to groups of near-duplicates, and a keep decision
//! for every file in a group.
//!
//! Role: the `cluster` stage, after `verify` and before `write`. Pure: no file
//! system, no printing.
//!
//! Sources: MMDS ch. 3 stops at similar pairs. Connected components are what
//! text-dedup and datatrove do after MinHash LSH (union-find, Tarjan). The
//! center method is a variant of CENTER clustering (Haveliwala, Gionis, Indyk,
//! "Scalable techniques for clustering the web", 2000; compared for duplicate
//! detection by Hassanzadeh et al., PVLDB 2009): CENTER visits pairs by
//! decreasing similarity, here representatives are visited in keep order so
//! that the kept copy is the one the user's policy chose.
//!
//! Inputs: the documents as a slice indexed by [`DocId`] (path bytes, size,
//! modification time, whether the file lies under a `--reference` directory), the
//! verified pairs (`a < b`, similarity in `[0, 1]`; any type that implements
//! [`Pair`], so the pipeline's pairs are used in place), and [`Params`]: a threshold
//! `t`, a [`Method`] and a [`KeepPolicy`]. Pairs below `t` (or NaN) are ignored;
//! a pair given twice counts once, with its highest similarity; `a > b` is read as
//! `b < a` and `a == b` is ignored.
//!
//! Output: a [`Clustering`], groups of at least two documents, each with one
//! *representative*. Every member says its similarity to the representative and
//! whether it is *kept*: the representative and every reference file are kept,
//! every other member is removable.
//!
//! # Keep order
//!
//! All decisions use one total order on documents, "better first"
//! ([`KeepPolicy::compare`]):
//! 1. reference files before all others;
//! 2. the policy: `newest`/`oldest` by modification time (a file whose time is
//!    unknown comes after every file whose time is known), `largest`/`smallest`
//!    by size in bytes, `shortest-path` by the length of the path in bytes,
//!    `first` by nothing (falls straight through to 3);
//! 3. the document id, smaller first. simfind numbers documents in the bytewise
//!    order of their paths (see [`crate::input::walk`]), so every tie goes to
//!    the file `--keep first` would choose: the first path.
//!
//! Ids are unique, so there are never ties left: the output is a function of the
//! inputs alone, whatever the thread count or the order of the pairs.
//!
//! # Methods
//!
//! * [`Method::Connected`]: connected components of the graph whose edges are the
//!   pairs `≥ t` (union-find, as text-dedup and datatrove do). The representative
//!   is the component's best document in keep order. Chains are merged: with
//!   A~B, B~C and A≁C all three are one group, and a member need not be similar
//!   to the representative at all. A member's similarity is the pair's
//!   similarity when it was paired with the representative, and `None` when it
//!   was not (it is linked only through other members).
//! * [`Method::Center`] (greedy star clustering): go through the documents that
//!   have at least one pair in keep order; a document not yet in a group becomes
//!   a representative and claims every document not yet in a group that is at
//!   least `t`-similar to it. A representative that finds nothing left to claim
//!   forms no group (its partners already belong to better representatives) and
//!   is reported nowhere, which keeps it. Hence every member is directly
//!   `t`-similar to its representative and its similarity is that pair's; each
//!   document lies in the group of the best representative it is similar to; a
//!   chain A~B~C with A≁C gives {A, B} and leaves C alone when A is better than
//!   B, and {B, A, C} around B when B is the best. Reference files come first in
//!   keep order, so a group that contains a reference file has a reference file
//!   as representative.
//!
//! A representative's similarity to itself is reported as `1.0`.
//!
//! # Order and ids
//!
//! Groups are ordered by their representative's id; inside a group the
//! representative comes first, then the other members by id. A group's id is its
//! position in that order (the writer decides whether to show it from 0 or 1).
//!
//! # Cost
//!
//! With `V` documents that have a pair and `E` pairs: `O(E + V log V)` time
//! (sorting `V` by keep order and each adjacency list in parallel with rayon) and
//! `4·len(docs) + 16·E + O(V)` bytes: the pairs are never copied (they are read
//! through [`Pair`]); the graph is one CSR adjacency over the `V` documents that
//! have a pair, each edge stored in both directions as (neighbour, pair index).
//! The result holds one [`Member`] (24 bytes) per grouped document. Measured:
//! `examples/cluster_scale.rs`.
//!
//! Also here: [`SimilarityHistogram`] of pair similarities for the summary, and
//! [`Summary`] (groups, files in groups, bytes that removal would free).

use std::cmp::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;

/// Index of a document in the slice given to [`cluster`].
pub type DocId = u32;

/// What clustering needs to know about one document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Document<'a> {
    /// The path as bytes (need not be UTF-8).
    pub path: &'a [u8],
    /// Size in bytes: what removing the file would free.
    pub size: u64,
    /// Last modification time, when the file system reported one.
    pub modified: Option<SystemTime>,
    /// The file lies under a `--reference` directory: always kept, preferred as
    /// representative.
    pub reference: bool,
}

/// A verified pair: documents `a < b` with their similarity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimilarPair {
    pub a: DocId,
    pub b: DocId,
    pub similarity: f64,
}

/// What clustering reads from a pair, so that any pair type can be grouped
/// without copying millions of them into another shape.
pub trait Pair: Sync {
    /// The two documents (`a < b`; the other order is accepted too).
    fn ends(&self) -> (DocId, DocId);
    fn similarity(&self) -> f64;
}

impl Pair for SimilarPair {
    fn ends(&self) -> (DocId, DocId) {
        (self.a, self.b)
    }
    fn similarity(&self) -> f64 {
        self.similarity
    }
}

impl Pair for crate::model::SimilarPair {
    fn ends(&self) -> (DocId, DocId) {
        (self.a, self.b)
    }
    fn similarity(&self) -> f64 {
        self.similarity
    }
}

impl<P: Pair> Pair for &P {
    fn ends(&self) -> (DocId, DocId) {
        (**self).ends()
    }
    fn similarity(&self) -> f64 {
        (**self).similarity()
    }
}

/// How pairs become groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// Connected components: chains merge, members may be unrelated.
    Connected,
    /// Greedy centers: every member is `t`-similar to its representative.
    #[default]
    Center,
}

/// Which file of a group is kept (becomes its representative).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeepPolicy {
    /// Latest modification time.
    Newest,
    /// Earliest modification time.
    Oldest,
    /// Most bytes.
    Largest,
    /// Fewest bytes.
    Smallest,
    /// Shortest path, counted in bytes.
    ShortestPath,
    /// Smallest document id: the first file found.
    #[default]
    First,
}

impl KeepPolicy {
    /// The keep order of the module doc: `Less` means `x` is the better one to
    /// keep. A total order, consistent with equality of ids.
    pub fn compare(self, x: (DocId, &Document<'_>), y: (DocId, &Document<'_>)) -> Ordering {
        self.key(x.0, x.1).cmp(&self.key(y.0, y.1))
    }

    /// The keep order as one plain sort key, so that sorting millions of
    /// documents compares small keys in a row instead of chasing documents.
    /// `last` is the id, or anything ordered like it.
    fn key(self, last: u32, d: &Document<'_>) -> KeepKey {
        let mut key = KeepKey {
            class: if d.reference { 0 } else { 2 },
            primary: 0,
            secondary: 0,
            last,
        };
        let time = |descending: bool, key: &mut KeepKey| match d.modified {
            Some(t) => {
                let (secs, nanos) = signed_time(t);
                // Flipping the sign bit maps i64 order onto u64 order.
                let (p, s) = ((secs as u64) ^ (1 << 63), nanos);
                (key.primary, key.secondary) = if descending {
                    (!p, 999_999_999 - s)
                } else {
                    (p, s)
                };
            }
            None => key.class += 1,
        };
        match self {
            KeepPolicy::Newest => time(true, &mut key),
            KeepPolicy::Oldest => time(false, &mut key),
            KeepPolicy::Largest => key.primary = !d.size,
            KeepPolicy::Smallest => key.primary = d.size,
            KeepPolicy::ShortestPath => key.primary = d.path.len() as u64,
            KeepPolicy::First => {}
        }
        key
    }
}

/// Field order is comparison order; smaller is better to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct KeepKey {
    /// 0 reference, 2 other; +1 when the policy needs a time and there is none.
    class: u8,
    primary: u64,
    secondary: u32,
    last: u32,
}

/// Seconds and nanoseconds since the epoch, exact for times before it too
/// (`nanos` always counts forward from `secs`).
fn signed_time(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            match d.subsec_nanos() {
                0 => (-(d.as_secs() as i64), 0),
                n => (-(d.as_secs() as i64) - 1, 1_000_000_000 - n),
            }
        }
    }
}

/// Clustering parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Pairs with a lower similarity are ignored; under [`Method::Center`] every
    /// member is at least this similar to its representative.
    pub threshold: f64,
    pub method: Method,
    pub keep: KeepPolicy,
}

/// One document in a group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Member {
    pub doc: DocId,
    /// Similarity to the group's representative: `Some(1.0)` for the
    /// representative itself; `None` only under [`Method::Connected`] for a member
    /// that has no pair with the representative.
    pub similarity: Option<f64>,
    /// This member is the group's representative (the first member).
    pub representative: bool,
    /// Kept: the representative or a reference file. The others are removable.
    pub kept: bool,
}

/// Groups of near-duplicates, in the order of the module doc, stored flat:
/// group `i` is `members[starts[i]..starts[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clustering {
    members: Vec<Member>,
    starts: Vec<usize>,
}

impl Clustering {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Group `i`: representative first, then the others by id.
    pub fn group(&self, i: usize) -> &[Member] {
        &self.members[self.starts[i]..self.starts[i + 1]]
    }

    /// The groups in order; the index of a group is its id.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = &[Member]> + '_ {
        self.starts.windows(2).map(|w| &self.members[w[0]..w[1]])
    }

    /// Every grouped document, group after group.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The members that are not kept, in output order.
    pub fn removable(&self) -> impl Iterator<Item = &Member> + '_ {
        self.members.iter().filter(|m| !m.kept)
    }

    /// Counts for the summary; `docs` must be the slice given to [`cluster`].
    pub fn summary(&self, docs: &[Document<'_>]) -> Summary {
        let mut summary = Summary {
            groups: self.len(),
            files_in_groups: self.members.len(),
            ..Summary::default()
        };
        for m in self.removable() {
            summary.removable_files += 1;
            summary.removable_bytes += docs[m.doc as usize].size;
        }
        summary
    }
}

/// What the clustering decided, in numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub groups: usize,
    pub files_in_groups: usize,
    /// Members that are not kept.
    pub removable_files: usize,
    /// Sum of their sizes: what removing them would free. (The walk keeps a
    /// file reached through several hard links once, so no byte counts twice;
    /// a hard link to a file outside the scan would still free nothing.)
    pub removable_bytes: u64,
}

/// Marks "no local node" / "no group".
const NONE: u32 = u32::MAX;

/// Groups `docs` by the `pairs` (see the module doc for the exact rules).
///
/// # Panics
/// If a pair names an id outside `docs`, or `docs` has `u32::MAX` or more entries.
pub fn cluster<P: Pair>(docs: &[Document<'_>], pairs: &[P], params: &Params) -> Clustering {
    let graph = Graph::build(docs.len(), pairs, params.threshold);
    if graph.nodes.is_empty() {
        return Clustering::default();
    }
    let order = graph.keep_order(docs, params.keep);
    let (rep, similarity) = match params.method {
        Method::Center => graph.centers(&order),
        Method::Connected => graph.components(&order),
    };
    graph.assemble(docs, &rep, &similarity)
}

/// The pairs `≥ t` as an undirected graph in CSR form over the documents that
/// have at least one such pair ("nodes"). Local node indices follow document ids,
/// so comparing local indices compares ids.
struct Graph<'p, P> {
    pairs: &'p [P],
    /// Document id of each node, increasing.
    nodes: Vec<DocId>,
    /// Edges of node `i`: `adj[offsets[i]..offsets[i + 1]]`, sorted by
    /// neighbour, equal neighbours by decreasing similarity.
    offsets: Vec<usize>,
    adj: Vec<Edge>,
}

/// An edge names the pair it came from rather than copying its similarity:
/// 8 bytes instead of 16, and one cache line per write while filling.
#[derive(Clone, Copy, Debug)]
struct Edge {
    to: u32,
    pair: u32,
}

impl<'p, P: Pair> Graph<'p, P> {
    fn build(n_docs: usize, pairs: &'p [P], threshold: f64) -> Graph<'p, P> {
        assert!(n_docs < NONE as usize, "too many documents for 32-bit ids");
        assert!(
            pairs.len() < NONE as usize,
            "too many pairs for 32-bit indices"
        );
        let keep = |p: &P| {
            let (a, b) = p.ends();
            a != b && p.similarity() >= threshold
        };
        // Degrees per document, then the same array turns into the local index.
        let mut local = vec![0u32; n_docs];
        for p in pairs.iter().filter(|p| keep(p)) {
            let (a, b) = p.ends();
            for d in [a, b] {
                let slot = local
                    .get_mut(d as usize)
                    .unwrap_or_else(|| panic!("pair names document {d} of {n_docs}"));
                *slot += 1;
            }
        }
        let mut nodes = Vec::new();
        let mut offsets = vec![0usize];
        for (id, slot) in local.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = NONE;
            } else {
                offsets.push(offsets.last().unwrap() + *slot as usize);
                *slot = nodes.len() as u32;
                nodes.push(id as DocId);
            }
        }
        let mut adj = vec![Edge { to: 0, pair: 0 }; *offsets.last().unwrap()];
        let mut cursor = offsets[..nodes.len()].to_vec();
        for (i, p) in pairs.iter().enumerate().filter(|(_, p)| keep(p)) {
            let (a, b) = p.ends();
            let (x, y) = (local[a as usize], local[b as usize]);
            for (from, to) in [(x, y), (y, x)] {
                let c = &mut cursor[from as usize];
                adj[*c] = Edge { to, pair: i as u32 };
                *c += 1;
            }
        }
        drop(cursor);
        drop(local);
        // Sort each list so that lookups and tie-breaks do not depend on the
        // order of the pairs. Equal (neighbour, similarity) entries are
        // interchangeable, so an unstable sort is still deterministic.
        let mut lists: Vec<&mut [Edge]> = Vec::with_capacity(nodes.len());
        let mut rest = &mut adj[..];
        for w in offsets.windows(2) {
            let (list, r) = rest.split_at_mut(w[1] - w[0]);
            lists.push(list);
            rest = r;
        }
        lists.into_par_iter().for_each(|list| {
            list.sort_unstable_by(|x, y| {
                x.to.cmp(&y.to).then_with(|| {
                    let (sx, sy) = (
                        pairs[x.pair as usize].similarity(),
                        pairs[y.pair as usize].similarity(),
                    );
                    sy.total_cmp(&sx)
                })
            })
        });
        Graph {
            pairs,
            nodes,
            offsets,
            adj,
        }
    }

    fn neighbours(&self, node: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        let range = self.offsets[node as usize]..self.offsets[node as usize + 1];
        self.adj[range]
            .iter()
            .map(|e| (e.to, self.pairs[e.pair as usize].similarity()))
    }

    /// Local nodes, best to keep first. Local order is id order, so the local
    /// index can stand in for the id as the key's last field.
    fn keep_order(&self, docs: &[Document<'_>], keep: KeepPolicy) -> Vec<u32> {
        let mut keys: Vec<KeepKey> = self
            .nodes
            .par_iter()
            .enumerate()
            .map(|(x, &id)| keep.key(x as u32, &docs[id as usize]))
            .collect();
        keys.par_sort_unstable();
        keys.into_iter().map(|k| k.last).collect()
    }

    /// Greedy centers. Returns each node's representative (`NONE`: in no group)
    /// and its similarity to it.
    fn centers(&self, order: &[u32]) -> (Vec<u32>, Vec<f64>) {
        let mut rep = vec![NONE; self.nodes.len()];
        let mut similarity = vec![f64::NAN; self.nodes.len()];
        for &r in order {
            if rep[r as usize] != NONE {
                continue;
            }
            // A representative that claims nobody stays at NONE: no group.
            let mut claimed = false;
            for (n, s) in self.neighbours(r) {
                // The first entry for `n` carries its highest similarity.
                if rep[n as usize] == NONE {
                    rep[n as usize] = r;
                    similarity[n as usize] = s;
                    claimed = true;
                }
            }
            if claimed {
                rep[r as usize] = r;
                similarity[r as usize] = 1.0;
            }
        }
        (rep, similarity)
    }

    /// Connected components, each represented by its best node in `order`.
    /// Similarity is NaN for members not paired with the representative.
    fn components(&self, order: &[u32]) -> (Vec<u32>, Vec<f64>) {
        let n = self.nodes.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        for x in 0..n as u32 {
            for (y, _) in self.neighbours(x) {
                if x < y {
                    union(&mut parent, x, y);
                }
            }
        }
        // The first node of a component met in keep order is its representative.
        let mut root_rep = vec![NONE; n];
        for &x in order {
            let root = find(&mut parent, x) as usize;
            if root_rep[root] == NONE {
                root_rep[root] = x;
            }
        }
        let rep: Vec<u32> = (0..n as u32)
            .map(|x| root_rep[find(&mut parent, x) as usize])
            .collect();
        let mut similarity = vec![f64::NAN; n];
        for r in 0..n as u32 {
            if rep[r as usize] == r {
                similarity[r as usize] = 1.0;
                for (m, s) in self.neighbours(r) {
                    if similarity[m as usize].is_nan() {
                        similarity[m as usize] = s;
                    }
                }
            }
        }
        (rep, similarity)
    }

    /// Lays the groups out flat in output order.
    fn assemble(&self, docs: &[Document<'_>], rep: &[u32], similarity: &[f64]) -> Clustering {
        let n = self.nodes.len();
        // size[r] = members of the group represented by r (0 unless r is one).
        let mut size = vec![0usize; n];
        for &r in rep.iter().filter(|&&r| r != NONE) {
            size[r as usize] += 1;
        }
        // Groups follow their representative's id, which is local index order.
        // first[r]: the representative's slot, the group's first; cursor[r]: the
        // next free slot for the other members.
        let mut first = vec![0usize; n];
        let mut cursor = vec![0usize; n];
        let mut starts = vec![0usize];
        for r in 0..n {
            if size[r] >= 2 {
                first[r] = *starts.last().unwrap();
                cursor[r] = first[r] + 1;
                starts.push(starts.last().unwrap() + size[r]);
            }
        }
        let placeholder = Member {
            doc: 0,
            similarity: None,
            representative: false,
            kept: false,
        };
        let mut members = vec![placeholder; *starts.last().unwrap()];
        for x in 0..n {
            let r = rep[x];
            if r == NONE || size[r as usize] < 2 {
                continue;
            }
            let is_rep = r as usize == x;
            let slot = if is_rep {
                first[x]
            } else {
                let c = cursor[r as usize];
                cursor[r as usize] += 1;
                c
            };
            let doc = self.nodes[x];
            members[slot] = Member {
                doc,
                similarity: Some(similarity[x]).filter(|s| !s.is_nan()),
                representative: is_rep,
                kept: is_rep || docs[doc as usize].reference,
            };
        }
        Clustering { members, starts }
    }
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        // Path halving.
        let grand = parent[parent[x as usize] as usize];
        parent[x as usize] = grand;
        x = grand;
    }
    x
}

fn union(parent: &mut [u32], x: u32, y: u32) {
    let (rx, ry) = (find(parent, x), find(parent, y));
    // Link the larger root under the smaller: the result does not depend on it
    // (components are a set property), but it bounds depth well enough here.
    match rx.cmp(&ry) {
        Ordering::Less => parent[ry as usize] = rx,
        Ordering::Greater => parent[rx as usize] = ry,
        Ordering::Equal => {}
    }
}

/// Lower bounds of the histogram buckets: `[0, 0.1), [0.1, 0.2), …, [0.9, 1.0)`,
/// written as the same decimal literals a user filters with (`s >= 0.7`), so a
/// pair lands in the bucket that such a filter agrees with.
const BUCKET_BOUNDS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// Counts of pair similarities in buckets of width 0.1, plus exactly 1.0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimilarityHistogram {
    /// `counts[i]` for `i < 10`: similarity in `[i/10, (i+1)/10)`;
    /// `counts[10]`: similarity `>= 1.0` (identical shingle sets).
    counts: [u64; 11],
}

/// One bucket of a [`SimilarityHistogram`]: `lower <= s < upper`, or `s == 1.0`
/// when `lower == upper == 1.0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    pub lower: f64,
    pub upper: f64,
    pub count: u64,
}

impl SimilarityHistogram {
    pub fn from_pairs<P: Pair>(pairs: &[P]) -> Self {
        let mut h = Self::default();
        for p in pairs {
            h.add(p.similarity());
        }
        h
    }

    /// Counts one similarity; NaN and negatives count in the lowest bucket.
    pub fn add(&mut self, similarity: f64) {
        let i = if similarity >= 1.0 {
            10
        } else {
            BUCKET_BOUNDS.iter().filter(|&&b| similarity >= b).count()
        };
        self.counts[i] += 1;
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// All eleven buckets, lowest first.
    pub fn buckets(&self) -> impl Iterator<Item = Bucket> + '_ {
        const LOWER: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
        const UPPER: [f64; 11] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0];
        (0..11).map(|i| Bucket {
            lower: LOWER[i],
            upper: UPPER[i],
            count: self.counts[i],
        })
    }

    /// The buckets a summary shows: from `[0.5, 0.6)` up, or from the lowest
    /// non-empty bucket when pairs go below 0.5.
    pub fn shown_buckets(&self) -> impl Iterator<Item = Bucket> + '_ {
        let first = self.counts[..5].iter().position(|&c| c > 0).unwrap_or(5);
        self.buckets().skip(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::{Duration, UNIX_EPOCH};

    /// (path, size, modified in seconds since the epoch, reference)
    type Spec = (&'static str, u64, Option<u64>, bool);

    fn docs(specs: &[Spec]) -> Vec<Document<'static>> {
        specs
            .iter()
            .map(|&(path, size, modified, reference)| Document {
                path: path.as_bytes(),
                size,
                modified: modified.map(|s| UNIX_EPOCH + Duration::from_secs(s)),
                reference,
            })
            .collect()
    }

    fn plain(paths: &[&'static str]) -> Vec<Document<'static>> {
        docs(
            &paths
                .iter()
                .map(|&p| (p, 10, Some(0), false))
                .collect::<Vec<_>>(),
        )
    }

    fn pair(a: DocId, b: DocId, similarity: f64) -> SimilarPair {
        SimilarPair { a, b, similarity }
    }

    fn params(method: Method, keep: KeepPolicy) -> Params {
        Params {
            threshold: 0.5,
            method,
            keep,
        }
    }

    /// Groups as lists of (doc, similarity, kept), representative first.
    fn shape(c: &Clustering) -> Vec<Vec<(DocId, Option<f64>, bool)>> {
        c.groups()
            .map(|g| g.iter().map(|m| (m.doc, m.similarity, m.kept)).collect())
            .collect()
    }

    fn representatives(c: &Clustering) -> Vec<DocId> {
        c.groups().map(|g| g[0].doc).collect()
    }

    // A~B (0.8), B~C (0.7), A≁C: the case that makes connected components unsafe.
    fn chain() -> Vec<SimilarPair> {
        vec![pair(0, 1, 0.8), pair(1, 2, 0.7)]
    }

    #[test]
    fn chain_is_one_group_when_connected_and_c_only_linked_through_b() {
        let d = plain(&["a", "b", "c"]);
        let c = cluster(&d, &chain(), &params(Method::Connected, KeepPolicy::First));
        assert_eq!(
            shape(&c),
            vec![vec![
                (0, Some(1.0), true),
                (1, Some(0.8), false),
                (2, None, false)
            ]]
        );
    }

    #[test]
    fn chain_under_center_never_groups_a_with_c() {
        let d = plain(&["a", "b", "c"]);
        let c = cluster(&d, &chain(), &params(Method::Center, KeepPolicy::First));
        // A is best, claims B; C's only partner is taken, so C stays alone (kept).
        assert_eq!(
            shape(&c),
            vec![vec![(0, Some(1.0), true), (1, Some(0.8), false)]]
        );
        assert_eq!(c.removable().map(|m| m.doc).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn chain_under_center_with_the_middle_best_holds_all_three() {
        // B is largest, so it is the representative and similar to both ends.
        let d = docs(&[
            ("a", 1, None, false),
            ("b", 9, None, false),
            ("c", 1, None, false),
        ]);
        let c = cluster(&d, &chain(), &params(Method::Center, KeepPolicy::Largest));
        assert_eq!(
            shape(&c),
            vec![vec![
                (1, Some(1.0), true),
                (0, Some(0.8), false),
                (2, Some(0.7), false)
            ]]
        );
    }

    #[test]
    fn center_member_joins_the_best_representative_it_is_similar_to() {
        // 0~2 and 1~2; 0 and 1 unrelated but both claim 2: the better (0) wins,
        // and 1, left with nothing, forms no group.
        let d = plain(&["a", "b", "c"]);
        let p = [pair(0, 2, 0.6), pair(1, 2, 0.9)];
        let c = cluster(&d, &p, &params(Method::Center, KeepPolicy::First));
        assert_eq!(
            shape(&c),
            vec![vec![(0, Some(1.0), true), (2, Some(0.6), false)]]
        );
    }

    #[test]
    fn pairs_below_the_threshold_and_self_pairs_are_ignored() {
        let d = plain(&["a", "b", "c"]);
        let p = [
            pair(0, 1, 0.49),
            pair(1, 2, 0.5),
            pair(0, 0, 1.0),
            pair(2, 0, f64::NAN),
        ];
        for method in [Method::Center, Method::Connected] {
            let c = cluster(&d, &p, &params(method, KeepPolicy::First));
            assert_eq!(
                shape(&c),
                vec![vec![(1, Some(1.0), true), (2, Some(0.5), false)]]
            );
        }
    }

    #[test]
    fn duplicate_and_reversed_pairs_count_once_with_the_highest_similarity() {
        let d = plain(&["a", "b"]);
        let p = [pair(0, 1, 0.6), pair(1, 0, 0.9), pair(0, 1, 0.7)];
        for method in [Method::Center, Method::Connected] {
            let c = cluster(&d, &p, &params(method, KeepPolicy::First));
            assert_eq!(
                shape(&c),
                vec![vec![(0, Some(1.0), true), (1, Some(0.9), false)]]
            );
        }
    }

    #[test]
    fn no_pairs_no_groups() {
        let d = plain(&["a"]);
        let c = cluster::<SimilarPair>(&d, &[], &params(Method::Center, KeepPolicy::First));
        assert!(c.is_empty());
        assert_eq!(c.groups().count(), 0);
        assert_eq!(c.summary(&d), Summary::default());
    }

    #[test]
    #[should_panic(expected = "pair names document 5 of 2")]
    fn a_pair_outside_the_documents_is_a_bug() {
        cluster(
            &plain(&["a", "b"]),
            &[pair(0, 5, 0.9)],
            &params(Method::Center, KeepPolicy::First),
        );
    }

    #[test]
    fn groups_follow_representative_id_and_members_follow_id() {
        // Two groups; representatives chosen by largest are 4 and 1.
        let d = docs(&[
            ("g1/a", 1, None, false),
            ("g2/rep", 9, None, false),
            ("g1/b", 1, None, false),
            ("g2/x", 1, None, false),
            ("g1/rep", 5, None, false),
        ]);
        let p = [
            pair(0, 4, 0.9),
            pair(2, 4, 0.8),
            pair(0, 2, 0.8),
            pair(1, 3, 0.6),
        ];
        for method in [Method::Center, Method::Connected] {
            let c = cluster(&d, &p, &params(method, KeepPolicy::Largest));
            assert_eq!(
                shape(&c),
                vec![
                    vec![(1, Some(1.0), true), (3, Some(0.6), false)],
                    vec![
                        (4, Some(1.0), true),
                        (0, Some(0.9), false),
                        (2, Some(0.8), false)
                    ],
                ],
                "{method:?}"
            );
            assert_eq!(c.group(1)[0].doc, 4);
            assert!(
                c.groups()
                    .all(|g| g[0].representative && g[1..].iter().all(|m| !m.representative))
            );
        }
    }

    /// Keeps among a fully similar group of `specs` under `keep`.
    fn kept_under(specs: &[Spec], keep: KeepPolicy) -> DocId {
        let d = docs(specs);
        let n = d.len() as DocId;
        let p: Vec<_> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| pair(a, b, 0.9)))
            .collect();
        let mut reps = Vec::new();
        for method in [Method::Center, Method::Connected] {
            let c = cluster(&d, &p, &params(method, keep));
            assert_eq!(c.len(), 1);
            reps.push(c.group(0)[0].doc);
        }
        assert_eq!(
            reps[0], reps[1],
            "both methods pick the same representative"
        );
        reps[0]
    }

    #[test]
    fn newest_keeps_the_latest_time_and_never_an_unknown_one() {
        let specs = [
            ("a", 1, None, false),
            ("b", 1, Some(5), false),
            ("c", 1, Some(7), false),
        ];
        assert_eq!(kept_under(&specs, KeepPolicy::Newest), 2);
    }

    #[test]
    fn oldest_keeps_the_earliest_time_and_never_an_unknown_one() {
        let specs = [
            ("a", 1, None, false),
            ("b", 1, Some(7), false),
            ("c", 1, Some(5), false),
        ];
        assert_eq!(kept_under(&specs, KeepPolicy::Oldest), 2);
        // Only unknown times: falls through to the first.
        let unknown = [("a", 1, None, false), ("b", 1, None, false)];
        assert_eq!(kept_under(&unknown, KeepPolicy::Oldest), 0);
        assert_eq!(kept_under(&unknown, KeepPolicy::Newest), 0);
    }

    #[test]
    fn largest_and_smallest_compare_sizes() {
        let specs = [
            ("a", 5, None, false),
            ("b", 9, None, false),
            ("c", 2, None, false),
        ];
        assert_eq!(kept_under(&specs, KeepPolicy::Largest), 1);
        assert_eq!(kept_under(&specs, KeepPolicy::Smallest), 2);
    }

    #[test]
    fn shortest_path_counts_bytes_not_characters() {
        // "é" is two bytes: "xé" (3 bytes) is longer than "xy" (2 bytes).
        let specs = [
            ("long/path", 1, None, false),
            ("xé", 1, None, false),
            ("xy", 1, None, false),
        ];
        assert_eq!(kept_under(&specs, KeepPolicy::ShortestPath), 2);
    }

    #[test]
    fn first_keeps_the_smallest_id_whatever_else() {
        let specs = [("zzz/long", 1, Some(1), false), ("a", 9, Some(9), false)];
        assert_eq!(kept_under(&specs, KeepPolicy::First), 0);
    }

    #[test]
    fn every_policy_breaks_ties_by_id() {
        // All equal in every key: the first id wins whatever the policy, even
        // when the paths sort the other way.
        let specs = [
            ("q", 3, Some(3), false),
            ("b", 3, Some(3), false),
            ("a", 3, Some(3), false),
        ];
        for keep in ALL_POLICIES {
            assert_eq!(kept_under(&specs, keep), 0, "{keep:?}");
        }
        // Tie on the policy key between 1 and 2 only: 1 wins.
        let specs = [
            ("long-one", 1, Some(1), false),
            ("bb", 8, Some(8), false),
            ("cc", 8, Some(8), false),
        ];
        for keep in [
            KeepPolicy::Newest,
            KeepPolicy::Largest,
            KeepPolicy::ShortestPath,
        ] {
            assert_eq!(kept_under(&specs, keep), 1, "{keep:?}");
        }
    }

    const ALL_POLICIES: [KeepPolicy; 6] = [
        KeepPolicy::Newest,
        KeepPolicy::Oldest,
        KeepPolicy::Largest,
        KeepPolicy::Smallest,
        KeepPolicy::ShortestPath,
        KeepPolicy::First,
    ];

    #[test]
    fn a_reference_file_beats_every_policy() {
        // Doc 2 is a reference and loses on every policy key.
        let specs = [
            ("a", 9, Some(9), false),
            ("b", 1, Some(1), false),
            ("ref/archive/long/c", 5, None, true),
        ];
        for keep in ALL_POLICIES {
            assert_eq!(kept_under(&specs, keep), 2, "{keep:?}");
        }
    }

    #[test]
    fn reference_files_are_kept_and_never_removable() {
        // Two references and two new files, all similar; plus a reference chain.
        let d = docs(&[
            ("new/a", 1, Some(1), false),
            ("ref/x", 1, Some(1), true),
            ("new/b", 1, Some(1), false),
            ("ref/y", 1, Some(1), true),
        ]);
        let p = [
            pair(0, 1, 0.9),
            pair(0, 2, 0.9),
            pair(0, 3, 0.9),
            pair(1, 2, 0.9),
            pair(1, 3, 0.9),
            pair(2, 3, 0.9),
        ];
        for method in [Method::Center, Method::Connected] {
            for keep in ALL_POLICIES {
                let c = cluster(&d, &p, &params(method, keep));
                assert_eq!(representatives(&c), vec![1]);
                let kept: Vec<_> = c
                    .members()
                    .iter()
                    .filter(|m| m.kept)
                    .map(|m| m.doc)
                    .collect();
                assert_eq!(kept, vec![1, 3]);
                let removable: Vec<_> = c.removable().map(|m| m.doc).collect();
                assert_eq!(removable, vec![0, 2]);
            }
        }
    }

    #[test]
    fn a_group_of_only_references_removes_nothing() {
        let d = docs(&[("r/a", 4, None, true), ("r/b", 6, None, true)]);
        let c = cluster(
            &d,
            &[pair(0, 1, 1.0)],
            &params(Method::Center, KeepPolicy::First),
        );
        assert_eq!(c.len(), 1);
        assert_eq!(c.removable().count(), 0);
        assert_eq!(
            c.summary(&d),
            Summary {
                groups: 1,
                files_in_groups: 2,
                removable_files: 0,
                removable_bytes: 0
            }
        );
    }

    #[test]
    fn summary_counts_bytes_of_removable_members_only() {
        let d = docs(&[
            ("a", 100, None, false),
            ("b", 20, None, false),
            ("c", 3, None, true),
            ("d", 4000, None, false),
        ]);
        let p = [pair(0, 1, 0.9), pair(0, 2, 0.9), pair(1, 2, 0.9)];
        let c = cluster(&d, &p, &params(Method::Center, KeepPolicy::Largest));
        // Reference c is representative; a and b removable; d is in no group.
        assert_eq!(
            c.summary(&d),
            Summary {
                groups: 1,
                files_in_groups: 3,
                removable_files: 2,
                removable_bytes: 120
            }
        );
    }

    #[test]
    fn histogram_buckets_agree_with_decimal_filters() {
        let mut h = SimilarityHistogram::default();
        for s in [
            0.5,
            0.49999999999999994,
            0.7,
            0.7 - f64::EPSILON,
            0.9999999999999999,
            1.0,
            0.3,
            0.0,
        ] {
            h.add(s);
        }
        let counts: Vec<u64> = h.buckets().map(|b| b.count).collect();
        assert_eq!(counts, vec![1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1]);
        assert_eq!(h.total(), 8);
        let last = h.buckets().last().unwrap();
        assert_eq!((last.lower, last.upper), (1.0, 1.0));
    }

    #[test]
    fn histogram_shows_from_half_unless_pairs_go_lower() {
        let h = SimilarityHistogram::from_pairs(&[pair(0, 1, 0.95), pair(0, 2, 1.0)]);
        let lowers: Vec<f64> = h.shown_buckets().map(|b| b.lower).collect();
        assert_eq!(lowers, vec![0.5, 0.6, 0.7, 0.8, 0.9, 1.0]);
        let h = SimilarityHistogram::from_pairs(&[pair(0, 1, 0.35)]);
        assert_eq!(h.shown_buckets().next().unwrap().lower, 0.3);
    }

    /// A random graph: `n` documents with random sizes, times and reference
    /// flags, and random pairs with similarities around the threshold.
    fn random_input(seed: u64, n: u32, edges: usize) -> (Vec<Document<'static>>, Vec<SimilarPair>) {
        // SplitMix64: a fixed, dependency-free generator for a fixed seed.
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        const PATHS: [&str; 4] = ["a", "bb", "ccc", "dddd"];
        let d = (0..n)
            .map(|_| Document {
                path: PATHS[(next() % 4) as usize].as_bytes(),
                size: next() % 4,
                modified: (next() % 5 != 0).then(|| UNIX_EPOCH + Duration::from_secs(next() % 4)),
                reference: next() % 10 == 0,
            })
            .collect();
        let p = (0..edges)
            .map(|_| {
                let a = (next() % n as u64) as u32;
                let b = (next() % n as u64) as u32;
                let similarity = [0.4, 0.5, 0.6, 0.75, 0.9, 1.0][(next() % 6) as usize];
                pair(a.min(b), a.max(b), similarity)
            })
            .collect();
        (d, p)
    }

    #[test]
    fn same_result_whatever_the_threads_and_the_pair_order() {
        let (d, p) = random_input(7, 3000, 2000);
        let mut reversed = p.clone();
        reversed.reverse();
        let run = |threads: usize, pairs: &[SimilarPair], prm: &Params| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| cluster(&d, pairs, prm))
        };
        for method in [Method::Center, Method::Connected] {
            for keep in ALL_POLICIES {
                let prm = params(method, keep);
                let one = run(1, &p, &prm);
                assert!(one.len() > 100, "the test graph should have many groups");
                assert_eq!(one, run(4, &p, &prm), "{method:?} {keep:?}");
                assert_eq!(one, run(4, &reversed, &prm), "{method:?} {keep:?}");
            }
        }
    }

    /// The edges `≥ t` as a set of unordered pairs with their best similarity.
    fn edge_map(p: &[SimilarPair], t: f64) -> std::collections::BTreeMap<(u32, u32), f64> {
        let mut m = std::collections::BTreeMap::new();
        for q in p.iter().filter(|q| q.a != q.b && q.similarity >= t) {
            let e = m
                .entry((q.a.min(q.b), q.a.max(q.b)))
                .or_insert(q.similarity);
            *e = e.max(q.similarity);
        }
        m
    }

    fn best(d: &[Document<'_>], keep: KeepPolicy, ids: impl Iterator<Item = DocId>) -> DocId {
        ids.min_by(|&x, &y| keep.compare((x, &d[x as usize]), (y, &d[y as usize])))
            .unwrap()
    }

    fn policy() -> impl Strategy<Value = KeepPolicy> {
        prop::sample::select(ALL_POLICIES.to_vec())
    }

    /// The keep order written the plain way, as the oracle for the sort key.
    fn naive_compare(
        keep: KeepPolicy,
        x: (DocId, &Document<'_>),
        y: (DocId, &Document<'_>),
    ) -> Ordering {
        let (xd, yd) = (x.1, y.1);
        let known_first = |desc: bool| match (xd.modified, yd.modified) {
            (Some(a), Some(b)) if desc => b.cmp(&a),
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        yd.reference
            .cmp(&xd.reference)
            .then_with(|| match keep {
                KeepPolicy::Newest => known_first(true),
                KeepPolicy::Oldest => known_first(false),
                KeepPolicy::Largest => yd.size.cmp(&xd.size),
                KeepPolicy::Smallest => xd.size.cmp(&yd.size),
                KeepPolicy::ShortestPath => xd.path.len().cmp(&yd.path.len()),
                KeepPolicy::First => Ordering::Equal,
            })
            .then(x.0.cmp(&y.0))
    }

    #[test]
    fn times_before_the_epoch_and_within_a_second_order_correctly() {
        let at = |secs: i64, nanos: u32| {
            let t = if secs >= 0 {
                UNIX_EPOCH + Duration::from_secs(secs as u64)
            } else {
                UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
            };
            t + Duration::from_nanos(nanos as u64)
        };
        let times = [
            at(-5, 0),
            at(-5, 1),
            at(-1, 999_999_999),
            at(0, 0),
            at(0, 1),
            at(7, 3),
        ];
        let paths = ["p"; 6];
        let d: Vec<Document> = times
            .iter()
            .zip(paths)
            .map(|(&t, p)| Document {
                path: p.as_bytes(),
                size: 0,
                modified: Some(t),
                reference: false,
            })
            .collect();
        for (i, x) in d.iter().enumerate() {
            for (j, y) in d.iter().enumerate() {
                let (xi, yi) = (i as DocId, j as DocId);
                assert_eq!(KeepPolicy::Oldest.compare((xi, x), (yi, y)), i.cmp(&j));
                assert_eq!(KeepPolicy::Newest.compare((xi, x), (yi, y)), j.cmp(&i));
            }
        }
    }

    proptest! {
        #[test]
        fn keep_key_orders_like_the_plain_definition(
            raw in prop::collection::vec((any::<bool>(), 0u64..3, prop::option::of((-3i64..3, 0u32..3)), 0usize..3), 2..12),
        ) {
            const PATHS: [&str; 3] = ["a", "bb", "ccc"];
            let d: Vec<Document> = raw
                .iter()
                .map(|&(reference, size, t, p)| Document {
                    path: PATHS[p].as_bytes(),
                    size: if size == 2 { u64::MAX } else { size },
                    modified: t.map(|(s, n)| {
                        let base = if s >= 0 { UNIX_EPOCH + Duration::from_secs(s as u64) } else { UNIX_EPOCH - Duration::from_secs(s.unsigned_abs()) };
                        base + Duration::from_nanos(n as u64 * 400_000_000)
                    }),
                    reference,
                })
                .collect();
            for keep in ALL_POLICIES {
                for (i, x) in d.iter().enumerate() {
                    for (j, y) in d.iter().enumerate() {
                        let (x, y) = ((i as DocId, x), (j as DocId, y));
                        prop_assert_eq!(keep.compare(x, y), naive_compare(keep, x, y), "{:?}", keep);
                    }
                }
            }
        }

        #[test]
        fn connected_matches_a_search_oracle(seed in any::<u64>(), n in 2u32..40, e in 0usize..80, keep in policy()) {
            let (d, p) = random_input(seed, n, e);
            let c = cluster(&d, &p, &params(Method::Connected, keep));
            let edges = edge_map(&p, 0.5);
            // Oracle: depth-first search over the edge set.
            let mut seen = vec![false; n as usize];
            let mut expected = Vec::new();
            for start in 0..n {
                if seen[start as usize] { continue; }
                let mut comp = vec![start];
                seen[start as usize] = true;
                let mut i = 0;
                while i < comp.len() {
                    let x = comp[i];
                    for (&(a, b), _) in edges.iter().filter(|((a, b), _)| *a == x || *b == x) {
                        let y = if a == x { b } else { a };
                        if !seen[y as usize] { seen[y as usize] = true; comp.push(y); }
                    }
                    i += 1;
                }
                if comp.len() >= 2 {
                    let rep = best(&d, keep, comp.iter().copied());
                    comp.retain(|&x| x != rep);
                    comp.sort();
                    let mut group = vec![(rep, Some(1.0), true)];
                    for x in comp {
                        let s = edges.get(&(rep.min(x), rep.max(x))).copied();
                        group.push((x, s, d[x as usize].reference));
                    }
                    expected.push(group);
                }
            }
            expected.sort_by_key(|g| g[0].0);
            prop_assert_eq!(shape(&c), expected);
        }

        #[test]
        fn center_follows_its_definition(seed in any::<u64>(), n in 2u32..40, e in 0usize..80, keep in policy()) {
            let (d, p) = random_input(seed, n, e);
            let c = cluster(&d, &p, &params(Method::Center, keep));
            let edges = edge_map(&p, 0.5);
            let sim = |x: DocId, y: DocId| edges.get(&(x.min(y), x.max(y))).copied();
            let mut group_of = vec![None; n as usize];
            for (gi, g) in c.groups().enumerate() {
                prop_assert!(g.len() >= 2);
                let rep = g[0].doc;
                for m in g {
                    prop_assert!(group_of[m.doc as usize].is_none(), "groups are disjoint");
                    group_of[m.doc as usize] = Some(gi);
                    prop_assert_eq!(m.kept, m.doc == rep || d[m.doc as usize].reference);
                    if m.doc != rep {
                        // The invariant the method exists for.
                        prop_assert_eq!(m.similarity, sim(rep, m.doc));
                        prop_assert!(m.similarity.unwrap() >= 0.5);
                        // Not similar to any better representative.
                        for h in c.groups().take(c.len()).map(|h| h[0].doc) {
                            if h != rep && sim(h, m.doc).is_some() {
                                prop_assert_eq!(keep.compare((rep, &d[rep as usize]), (h, &d[h as usize])), Ordering::Less);
                            }
                        }
                    }
                }
            }
            // Greedy is maximal: an ungrouped document with partners has only
            // grouped partners, each in the group of a better representative.
            for x in 0..n {
                if group_of[x as usize].is_some() { continue; }
                for (&(a, b), _) in edges.iter().filter(|((a, b), _)| *a == x || *b == x) {
                    let y = if a == x { b } else { a };
                    let gy = group_of[y as usize];
                    prop_assert!(gy.is_some(), "{} and {} similar but both ungrouped", x, y);
                    let r = c.group(gy.unwrap())[0].doc;
                    prop_assert_eq!(keep.compare((r, &d[r as usize]), (x, &d[x as usize])), Ordering::Less);
                }
            }
        }
    }
}
