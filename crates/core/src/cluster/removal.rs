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

#[cfg(test)]
mod tests {
    use super::*;

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
