//! The removal policy: which similarity a run that decides what can be removed
//! uses when the user gave none.
//!
//! Role: one rule for every face and every input kind (files, records, a
//! verification of an engine's pairs, an action on files). Without it each
//! face kept its own copy, and the copies drifted apart: the same request made
//! of records and of files was answered at two different thresholds.
//!
//! The rule: a run that decides removals — it lists what can go, writes groups
//! (every group names a kept copy and marks the other members not kept,
//! whether a policy, a reference or the default order chose it), shows a
//! review page that proposes a removal, or acts on files — uses
//! [`SAFE_THRESHOLD`] unless a threshold is given. Any other run uses its banding's S-curve threshold,
//! which is right for finding pairs and wrong for calling a file a copy.
//!
//! Pure: no flags, no printing; a face says in its own words which of its
//! options make up a [`RemovalRun`].

/// The similarity below which nothing is called a removable copy unless the
/// user asks for another threshold. At J ≥ 0.9 two documents share nine
/// tenths of their shingles: the same document with a few lines edited. The
/// S-curve threshold of the default banding also pairs different documents
/// that share boilerplate (one licence listed as a copy of another).
pub const SAFE_THRESHOLD: f64 = 0.9;

/// What a run writes or does, as far as removals are concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemovalRun {
    /// The run writes only the documents that are not kept.
    pub lists_removable: bool,
    /// The run writes groups of near-duplicates: each marks one kept copy
    /// and calls the others removable, so it decides removals as a list does.
    pub groups: bool,
    /// The run writes a review page that proposes a removal.
    pub review: bool,
    /// The run acts on the removable documents (moves, links, deletes).
    pub acts: bool,
}

impl RemovalRun {
    /// Whether this run decides what can be removed: then, without a given
    /// threshold, it uses [`SAFE_THRESHOLD`].
    pub fn decides_removal(&self) -> bool {
        self.lists_removable || self.groups || self.review || self.acts
    }

    /// The threshold the run uses when none is given: `Some(SAFE_THRESHOLD)`
    /// for a run that decides removals, `None` (the banding's S-curve
    /// threshold) for any other.
    pub fn default_threshold(&self) -> Option<f64> {
        self.decides_removal().then_some(SAFE_THRESHOLD)
    }

    /// `given`, or the default of this run when none is given.
    pub fn threshold(&self, given: Option<f64>) -> Option<f64> {
        given.or(self.default_threshold())
    }
}

/// Why [`SAFE_THRESHOLD`] was used, in words a face can put in its summary.
pub const REASON: &str = "the default when deciding what can go";

/// The largest share of a removable file's shingles that may be missing from
/// its kept copy, unless the user asks for another cap. Similarity alone
/// does not make a file redundant: at J = 0.9 a file may still hold a
/// paragraph the kept copy lacks (a licence file with its own header), and
/// removing it loses that paragraph. A file is removable when the kept copy
/// *contains* it, up to this tolerance for an edited word or two.
pub const MAX_UNIQUE: f64 = 0.01;

/// How much of a removable file is not in its kept copy: `share` =
/// 1 − C(removed, kept), the containment of the file's shingle set in the
/// kept copy's (exact, [`crate::similarity::containment`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnlyIn {
    /// The share of the file's distinct shingles that the kept copy lacks,
    /// in `[0, 1]`.
    pub share: f64,
    /// Those shingles, counted.
    pub shingles: u64,
    /// An estimate of the file's bytes they stand for: `share` × the file's
    /// size, rounded (shingles overlap, so no byte count is exact).
    pub bytes: u64,
}

impl OnlyIn {
    /// A byte-identical copy: nothing of it is missing from the kept copy,
    /// by definition (nothing is read to say so).
    pub const IDENTICAL: OnlyIn = OnlyIn {
        share: 0.0,
        shingles: 0,
        bytes: 0,
    };

    /// The figure of a file of `size` bytes whose shingle set is `removed`,
    /// against its kept copy's set `kept` (both strictly increasing). An
    /// empty set lies in nothing (containment 0), so its share is 1: a file
    /// too short to be shingled is never proven redundant by its text.
    pub fn of_sets(removed: &[u64], kept: &[u64], size: u64) -> OnlyIn {
        use crate::similarity::{containment, sets};
        // The one intersection and division `containment` makes, kept apart
        // so the count of missing shingles comes from the same intersection.
        let shared = sets::intersection_size(removed, kept);
        let share = (1.0 - containment::of_counts(shared, removed.len())).clamp(0.0, 1.0);
        OnlyIn {
            share,
            shingles: (removed.len() - shared) as u64,
            bytes: (share * size as f64).round() as u64,
        }
    }

    /// Whether the file is held back (kept) under `cap`: more of it than
    /// `cap` is missing from its kept copy. A cap of 1 holds nothing back.
    pub fn holds_back(&self, cap: f64) -> bool {
        self.share > cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_in_is_what_containment_leaves_out() {
        let kept = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        let subset = OnlyIn::of_sets(&[2, 3, 4], &kept, 300);
        assert_eq!(subset, OnlyIn::IDENTICAL);
        assert!(!subset.holds_back(MAX_UNIQUE));
        let one_new = OnlyIn::of_sets(&[1, 2, 3, 11], &kept, 400);
        assert_eq!(one_new.share, 0.25);
        assert_eq!(one_new.shingles, 1);
        assert_eq!(one_new.bytes, 100);
        assert!(one_new.holds_back(MAX_UNIQUE));
        assert!(!one_new.holds_back(1.0));
        // Too short to be shingled: nothing proves it is in the kept copy.
        assert_eq!(OnlyIn::of_sets(&[], &kept, 3).share, 1.0);
    }

    /// The truth table every face shares: only runs that decide removals
    /// default to the safe threshold.
    #[test]
    fn only_runs_that_decide_removals_default_to_the_safe_threshold() {
        let pairs = RemovalRun::default();
        assert!(!pairs.decides_removal());
        assert_eq!(pairs.threshold(None), None);
        for run in [
            RemovalRun {
                lists_removable: true,
                ..RemovalRun::default()
            },
            // Plain groups mark kept=false too (issue 36, point 4).
            RemovalRun {
                groups: true,
                ..RemovalRun::default()
            },
            RemovalRun {
                review: true,
                ..RemovalRun::default()
            },
            RemovalRun {
                acts: true,
                ..RemovalRun::default()
            },
        ] {
            assert!(run.decides_removal(), "{run:?}");
            assert_eq!(run.threshold(None), Some(SAFE_THRESHOLD));
            assert_eq!(run.threshold(Some(0.7)), Some(0.7));
        }
    }
}
