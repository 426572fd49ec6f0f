//! [`cluster`](super::cluster) on pairs held per content ([`DocPairs`]):
//! the same groups, in `O(documents + pairs of contents)` memory.
//!
//! Every document of a content has the same partners with the same
//! similarities, so the graph of documents is a graph of contents: a content
//! whose identical pairs pass the threshold is a clique at 1.0, a pair of
//! contents joins every document of one to every document of the other.
//! Claiming (centers) and joining (components) are done per content; a group
//! of `n` copies costs `O(n)`, where the graph of documents had `n²/2` edges.
//! `cluster_contents(docs, p, params) == cluster(docs, &p.iter().collect::<Vec<_>>(), params)`
//! (tested on random inputs in `super::tests`).

use super::{
    ClusterMethod, ClusterParams, Clustering, DocId, FileFacts, NONE, assemble, keep_order,
};
use crate::model::{ContentId, DocPairs};
use crate::similarity::UnionFind;

/// Groups `docs` by the pairs of `pairs` (the rules of the module doc of
/// [`super`]).
///
/// # Panics
/// If a pair names an id outside `docs`.
pub fn cluster_contents(
    docs: &[FileFacts<'_>],
    pairs: &DocPairs,
    params: &ClusterParams,
) -> Clustering {
    let t = params.threshold;
    let n = pairs.contents();
    let clique: Vec<bool> = (0..n as ContentId)
        .map(|c| pairs.identical(c).is_some_and(|p| p.similarity >= t))
        .collect();
    let linked = |c: ContentId| pairs.neighbours(c).any(|(_, p)| p.similarity >= t);
    // Nodes: the documents that have a pair ≥ t, in id order (local index).
    let mut nodes: Vec<(DocId, ContentId)> = (0..n as ContentId)
        .filter(|&c| clique[c as usize] || linked(c))
        .flat_map(|c| pairs.members(c).iter().map(move |&d| (d, c)))
        .collect();
    nodes.sort_unstable();
    if nodes.is_empty() {
        return Clustering::default();
    }
    assert!(
        nodes.len() < NONE as usize,
        "too many documents for 32-bit ids"
    );
    let ids: Vec<DocId> = nodes.iter().map(|&(d, _)| d).collect();
    let content_of: Vec<ContentId> = nodes.iter().map(|&(_, c)| c).collect();
    drop(nodes);
    // The local nodes of each content, increasing.
    let mut locals: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (x, &c) in content_of.iter().enumerate() {
        locals[c as usize].push(x as u32);
    }
    let order = keep_order(&ids, docs, params.keep);
    let mut rep = vec![NONE; ids.len()];
    let mut similarity = vec![f64::NAN; ids.len()];
    match params.method {
        ClusterMethod::Center => {
            // Unclaimed nodes per content: a content once claimed is skipped.
            let mut left: Vec<usize> = locals.iter().map(Vec::len).collect();
            for &r in &order {
                if rep[r as usize] != NONE {
                    continue;
                }
                let c = content_of[r as usize];
                let mut claimed = false;
                let mut claim = |d: ContentId, s: f64, rep: &mut [u32], left: &mut [usize]| {
                    for &x in &locals[d as usize] {
                        if x != r && rep[x as usize] == NONE {
                            rep[x as usize] = r;
                            similarity[x as usize] = s;
                            left[d as usize] -= 1;
                            claimed = true;
                        }
                    }
                };
                if clique[c as usize] && left[c as usize] > 1 {
                    claim(c, 1.0, &mut rep, &mut left);
                }
                for (d, p) in pairs.neighbours(c) {
                    if p.similarity >= t && left[d as usize] > 0 {
                        claim(d, p.similarity, &mut rep, &mut left);
                    }
                }
                if claimed {
                    rep[r as usize] = r;
                    similarity[r as usize] = 1.0;
                    left[c as usize] -= 1;
                }
            }
        }
        ClusterMethod::Connected => {
            let mut sets = UnionFind::new(n);
            for c in 0..n as ContentId {
                for (d, p) in pairs.neighbours(c) {
                    if c < d && p.similarity >= t {
                        sets.union(c, d);
                    }
                }
            }
            let mut root_rep = vec![NONE; n];
            for &x in &order {
                let root = sets.find(content_of[x as usize]) as usize;
                if root_rep[root] == NONE {
                    root_rep[root] = x;
                }
            }
            for (x, r) in rep.iter_mut().enumerate() {
                *r = root_rep[sets.find(content_of[x]) as usize];
            }
            for r in 0..ids.len() {
                if rep[r] != r as u32 {
                    continue;
                }
                similarity[r] = 1.0;
                let c = content_of[r];
                let mut mark = |d: ContentId, s: f64| {
                    for &x in &locals[d as usize] {
                        if similarity[x as usize].is_nan() {
                            similarity[x as usize] = s;
                        }
                    }
                };
                if clique[c as usize] {
                    mark(c, 1.0);
                }
                for (d, p) in pairs.neighbours(c) {
                    if p.similarity >= t {
                        mark(d, p.similarity);
                    }
                }
            }
        }
    }
    assemble(&ids, docs, &rep, &similarity)
}
