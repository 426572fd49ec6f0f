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
//! [`Pair`], so the pipeline's pairs are used in place), and [`ClusterParams`]: a threshold
//! `t`, a [`ClusterMethod`] and a [`KeepPolicy`]. Pairs below `t` (or NaN) are ignored;
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
//!    `first` by nothing (falls straight through to 3); `original` (the
//!    default) by a name without a copy marker ([`copy_marker`]), then the
//!    shortest path, then the oldest modification time (why the time comes
//!    last: [`KeepPolicy::Original`]);
//! 3. the document id, smaller first. simfind numbers documents in the bytewise
//!    order of their paths (see [`crate::input::walk`]), so every tie goes to
//!    the file `--keep first` would choose: the first path.
//!
//! Ids are unique, so there are never ties left: the output is a function of the
//! inputs alone, whatever the thread count or the order of the pairs.
//!
//! # Methods
//!
//! * [`ClusterMethod::Connected`]: connected components of the graph whose edges are the
//!   pairs `≥ t` (union-find, as text-dedup and datatrove do). The representative
//!   is the component's best document in keep order. Chains are merged: with
//!   A~B, B~C and A≁C all three are one group, and a member need not be similar
//!   to the representative at all. A member's similarity is the pair's
//!   similarity when it was paired with the representative, and `None` when it
//!   was not (it is linked only through other members).
//! * [`ClusterMethod::Center`] (greedy star clustering): go through the documents that
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

use std::time::SystemTime;

use std::collections::HashMap;

use rayon::prelude::*;

use crate::similarity::UnionFind;

mod contents;
mod histogram;
mod keep;
pub mod removal;

pub use contents::cluster_contents;
pub use histogram::{Bucket, SimilarityHistogram};
use keep::KeepKey;
pub use keep::{KeepPolicy, copy_marker};

/// Index of a document in the slice given to [`cluster`].
pub type DocId = u32;

/// What clustering needs to know about one document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileFacts<'a> {
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
pub struct ScoredPair {
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

impl Pair for ScoredPair {
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
pub enum ClusterMethod {
    /// Connected components: chains merge, members may be unrelated.
    Connected,
    /// Greedy centers: every member is `t`-similar to its representative.
    #[default]
    Center,
}

/// Clustering parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterParams {
    /// Pairs with a lower similarity are ignored; under [`ClusterMethod::Center`] every
    /// member is at least this similar to its representative.
    pub threshold: f64,
    pub method: ClusterMethod,
    pub keep: KeepPolicy,
}

/// One document in a group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Member {
    pub doc: DocId,
    /// Similarity to the group's representative: `Some(1.0)` for the
    /// representative itself; `None` only under [`ClusterMethod::Connected`] for a member
    /// that has no pair with the representative.
    pub similarity: Option<f64>,
    /// This member is the group's representative (the first member).
    pub representative: bool,
    /// Kept: the representative, a reference file, or a member held back
    /// ([`Clustering::hold_back`]). The others are removable.
    pub kept: bool,
    /// Kept only because too much of it is missing from the representative
    /// (see [`removal::MAX_UNIQUE`]).
    pub held_back: bool,
}

/// Groups of near-duplicates, in the order of the module doc, stored flat:
/// group `i` is `members[starts[i]..starts[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clustering {
    members: Vec<Member>,
    starts: Vec<usize>,
    /// What each member that was a removal candidate lacks in its
    /// representative, once measured ([`Clustering::hold_back`]); `None`
    /// before, or for groups of records, which have no file to measure.
    only_in: Option<HashMap<DocId, Option<removal::OnlyIn>>>,
}

/// A member held back: a removal candidate that is kept because more of it
/// than the cap is missing from its representative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeldBack {
    pub doc: DocId,
    pub representative: DocId,
    /// The figure, or `None` when the two could not be read again to
    /// measure it (held back: nothing proves the file is contained).
    pub only_in: Option<removal::OnlyIn>,
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
    pub fn summary(&self, docs: &[FileFacts<'_>]) -> Summary {
        let mut summary = Summary {
            groups: self.len(),
            files_in_groups: self.members.len(),
            held_back_files: self.members.iter().filter(|m| m.held_back).count(),
            ..Summary::default()
        };
        for m in self.removable() {
            summary.removable_files += 1;
            summary.removable_bytes += docs[m.doc as usize].size;
        }
        summary
    }

    /// Each removable member with its group's representative: the pairs
    /// whose containment [`Clustering::hold_back`] wants measured.
    pub fn removal_pairs(&self) -> impl Iterator<Item = (DocId, DocId)> + '_ {
        self.groups().flat_map(|group| {
            let rep = group[0].doc;
            group.iter().filter(|m| !m.kept).map(move |m| (m.doc, rep))
        })
    }

    /// Records what each removable member lacks in its representative
    /// (`figures`, by member; `None`: could not be measured) and keeps every
    /// member that lacks more than `cap` of its shingles, or that could not
    /// be measured: a file is removable when its kept copy contains it, not
    /// merely resembles it ([`removal::MAX_UNIQUE`]). A member absent from
    /// `figures` is left as it is. Returns the members held back, in output
    /// order.
    pub fn hold_back(
        &mut self,
        figures: impl IntoIterator<Item = (DocId, Option<removal::OnlyIn>)>,
        cap: f64,
    ) -> Vec<HeldBack> {
        let figures: HashMap<DocId, Option<removal::OnlyIn>> = figures.into_iter().collect();
        let mut held = Vec::new();
        for g in 0..self.len() {
            let rep = self.members[self.starts[g]].doc;
            for m in &mut self.members[self.starts[g]..self.starts[g + 1]] {
                let Some(&only_in) = figures.get(&m.doc) else {
                    continue;
                };
                if m.kept || only_in.is_some_and(|f| !f.holds_back(cap)) {
                    continue;
                }
                m.kept = true;
                m.held_back = true;
                held.push(HeldBack {
                    doc: m.doc,
                    representative: rep,
                    only_in,
                });
            }
        }
        self.only_in = Some(figures);
        held
    }

    /// What `doc` lacks in its representative, when it was a removal
    /// candidate and [`Clustering::hold_back`] measured it: `Some(None)`
    /// when it could not be measured.
    pub fn only_in(&self, doc: DocId) -> Option<Option<removal::OnlyIn>> {
        self.only_in.as_ref()?.get(&doc).copied()
    }

    /// Whether the removal candidates were measured against their kept
    /// copies (files; groups of records are not).
    pub fn measured(&self) -> bool {
        self.only_in.is_some()
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
    /// Members kept because their kept copy lacks too much of them.
    pub held_back_files: usize,
}

/// Marks "no local node" / "no group".
const NONE: u32 = u32::MAX;

/// Groups `docs` by the `pairs` (see the module doc for the exact rules).
///
/// # Panics
/// If a pair names an id outside `docs`, or `docs` has `u32::MAX` or more entries.
pub fn cluster<P: Pair>(docs: &[FileFacts<'_>], pairs: &[P], params: &ClusterParams) -> Clustering {
    let graph = PairGraph::build(docs.len(), pairs, params.threshold);
    if graph.nodes.is_empty() {
        return Clustering::default();
    }
    let order = keep_order(&graph.nodes, docs, params.keep);
    let (rep, similarity) = match params.method {
        ClusterMethod::Center => graph.centers(&order),
        ClusterMethod::Connected => graph.components(&order),
    };
    assemble(&graph.nodes, docs, &rep, &similarity)
}

/// The pairs `≥ t` as an undirected graph in CSR form over the documents that
/// have at least one such pair ("nodes"). Local node indices follow document ids,
/// so comparing local indices compares ids.
struct PairGraph<'p, P> {
    pairs: &'p [P],
    /// FileFacts id of each node, increasing.
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

impl<'p, P: Pair> PairGraph<'p, P> {
    fn build(n_docs: usize, pairs: &'p [P], threshold: f64) -> PairGraph<'p, P> {
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
        PairGraph {
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
        let mut sets = UnionFind::new(n);
        for x in 0..n as u32 {
            for (y, _) in self.neighbours(x) {
                if x < y {
                    sets.union(x, y);
                }
            }
        }
        // The first node of a component met in keep order is its representative.
        let mut root_rep = vec![NONE; n];
        for &x in order {
            let root = sets.find(x) as usize;
            if root_rep[root] == NONE {
                root_rep[root] = x;
            }
        }
        let rep: Vec<u32> = (0..n as u32)
            .map(|x| root_rep[sets.find(x) as usize])
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
}

/// Local nodes (`nodes[x]` is node `x`'s document, increasing), best to keep
/// first. Local order is id order, so the local index can stand in for the
/// id as the key's last field.
fn keep_order(nodes: &[DocId], docs: &[FileFacts<'_>], keep: KeepPolicy) -> Vec<u32> {
    let mut keys: Vec<KeepKey> = nodes
        .par_iter()
        .enumerate()
        .map(|(x, &id)| keep.key(x as u32, &docs[id as usize]))
        .collect();
    keys.par_sort_unstable();
    keys.into_iter().map(|k| k.last).collect()
}

/// Lays the groups out flat in output order: `rep[x]` is the local node
/// representing node `x` ([`NONE`]: in no group), `similarity[x]` its
/// similarity to it (NaN: not paired with it).
fn assemble(
    nodes: &[DocId],
    docs: &[FileFacts<'_>],
    rep: &[u32],
    similarity: &[f64],
) -> Clustering {
    let n = nodes.len();
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
        held_back: false,
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
        let doc = nodes[x];
        members[slot] = Member {
            doc,
            similarity: Some(similarity[x]).filter(|s| !s.is_nan()),
            representative: is_rep,
            kept: is_rep || docs[doc as usize].reference,
            held_back: false,
        };
    }
    Clustering {
        members,
        starts,
        only_in: None,
    }
}

#[cfg(test)]
mod tests;
