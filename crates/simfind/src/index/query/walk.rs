//! Lookups that rank every stored document by its signature instead of by
//! its band keys: `query --top K` (the K most similar, walked in the order
//! of the signature estimate, as LSH Forest walks its prefix trees) and
//! `query --metric containment` (each stored document kept unless its
//! signature rules it out at the Jaccard its size needs, as LSH Ensemble
//! partitions by size). Both verify exactly what they keep, so every
//! similarity they answer is exact; what they may miss is bounded by
//! [`MISS`] per document (docs/SEARCH.md, "Top-k" and "Containment").
//!
//! Why signatures and not the band keys: a band key is shared only by
//! documents whose `rows` positions all agree, which a pair at the
//! similarities top-k reaches down to (0.05–0.3) almost never does; the
//! count of agreeing positions is an estimate for every pair, with a
//! binomial tail ([`crate::similarity::verify::ruled_out`]).
//!
//! Inputs: the query's set, signature and own hash ([`Own`]); the index's
//! signatures ([`Index::signatures`](crate::index::Index::signatures)).
//! Outputs: matches, verified exactly as the exact lookup verifies them.

use super::{EXACT_BATCH, Match, Own, Query, StoredDoc, Tally};
use crate::index::{IndexError, RowId};
use crate::progress::Reporter;
use crate::similarity::{sets, verify};
use crate::sketch::Sketcher;

/// The probability with which a lookup may skip one stored document that
/// belongs in its answer: a document more similar than the K-th answered
/// (top-k), or containing or contained at the threshold (containment). It
/// is the Chernoff bound on the count of agreeing positions (conservative
/// next to the exact binomial tail), per document, whatever the index's
/// bands and rows.
pub const MISS: f64 = 1e-3;

impl Query<'_> {
    /// The `top` most similar stored documents at `t` or above: every
    /// document whose size can reach `t` (the length filter) and whose
    /// signature is not ruled out at `t`, verified exactly in descending
    /// order of agreeing positions (ties by id), until the next one is
    /// ruled out at the `top`-th similarity found. A document more similar
    /// than that is ruled out only with probability ≤ [`MISS`]; documents
    /// whose signatures cannot be bounded so (densified one-permutation
    /// positions) are all verified first.
    pub(super) fn ask_top(
        &mut self,
        own: Own<'_>,
        signature: &[u32],
        top: usize,
        t: f64,
        reporter: &dyn Reporter,
    ) -> Result<(usize, Vec<Match>, u64), IndexError> {
        let set = own.set;
        let width = signature.len();
        let mut scratch = Vec::new();
        let bounded = self.sketcher.positions_independent(signature, &mut scratch);
        let (always, ranked) = {
            let stored = self.index.signatures(width, &self.sketcher)?;
            let mut always = Vec::new();
            let mut ranked: Vec<(usize, RowId)> = Vec::new();
            for i in 0..stored.len() {
                let (id, count, independent) = stored.doc(i);
                let count = usize::try_from(count).unwrap_or(usize::MAX);
                if sets::ratio(count.min(set.len()), count.max(set.len())) < t {
                    continue;
                }
                if !(bounded && independent) {
                    always.push(id);
                    continue;
                }
                let agree = stored.agreements(i, signature);
                if !verify::ruled_out(agree, width, t, MISS) {
                    ranked.push((agree, id));
                }
            }
            ranked.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
            (always, ranked)
        };
        let mut tally = Tally::default();
        for ids in always.chunks(EXACT_BATCH) {
            let batch = self.stored(ids.iter().copied())?;
            self.verify_batch(batch, own, signature, t, &mut tally, reporter)?;
        }
        // Small batches: the first `top` in estimate order usually hold the
        // answer, and the walk stops as soon as the rest are ruled out.
        let step = top.clamp(8, EXACT_BATCH);
        let mut next = 0;
        while next < ranked.len() {
            if tally.matches.len() >= top {
                super::rank(&mut tally.matches);
                tally.matches.truncate(top);
                let kth = tally.matches[top - 1].similarity;
                if verify::ruled_out(ranked[next].0, width, kth, MISS) {
                    break;
                }
            }
            let end = ranked.len().min(next + step);
            let batch = self.stored(ranked[next..end].iter().map(|&(_, id)| id))?;
            next = end;
            self.verify_batch(batch, own, signature, t, &mut tally, reporter)?;
        }
        Ok(tally.finish(Some(top)))
    }

    /// The stored documents of `ids` still indexed, their paths located.
    pub(super) fn stored(
        &self,
        ids: impl Iterator<Item = RowId>,
    ) -> Result<Vec<StoredDoc>, IndexError> {
        let mut docs = Vec::new();
        for id in ids {
            docs.extend(self.index.document(id)?.map(|d| self.located(d)));
        }
        Ok(docs)
    }

    /// The stored documents that may contain the query's `set` or be
    /// contained in it at `t` (`C(q, d) ≥ t` or `C(d, q) ≥ t`), by size and
    /// signature: `C(q, d) ≥ t` needs `|d| ≥ t·|q|` and, the overlap being
    /// at least `t·|q|`, a Jaccard of at least `t·|q| / (|q| + |d| − t·|q|)`;
    /// `C(d, q) ≥ t` the same with the two swapped. A document is dropped
    /// when neither direction's size allows it, or when its signature rules
    /// out the Jaccard each allowed direction needs (probability ≤ [`MISS`]
    /// of dropping one that reaches `t`). The Jaccard needed falls as the
    /// sizes part, so a document much larger than a small query is rarely
    /// ruled out: that is the lookup's slow case. In id order.
    pub(super) fn containment_candidates(
        &self,
        set: &[u64],
        signature: &[u32],
        t: f64,
    ) -> Result<Vec<RowId>, IndexError> {
        let width = signature.len();
        let mut scratch = Vec::new();
        let bounded = self.sketcher.positions_independent(signature, &mut scratch);
        let stored = self.index.signatures(width, &self.sketcher)?;
        let q = set.len() as f64;
        // Room for the float error of the ratio the exact check computes:
        // a size this close to the bound is kept.
        let slack = 1e-9;
        let mut kept = Vec::new();
        for i in 0..stored.len() {
            let (id, count, independent) = stored.doc(i);
            let d = count as f64;
            let inside = d >= t * q * (1.0 - slack);
            let holds = q >= t * d * (1.0 - slack);
            if !inside && !holds {
                continue;
            }
            if !(bounded && independent) {
                kept.push(id);
                continue;
            }
            let agree = stored.agreements(i, signature);
            let needs = |part: f64| part / (q + d - part);
            if (inside && !verify::ruled_out(agree, width, needs(t * q), MISS))
                || (holds && !verify::ruled_out(agree, width, needs(t * d), MISS))
            {
                kept.push(id);
            }
        }
        Ok(kept)
    }
}
