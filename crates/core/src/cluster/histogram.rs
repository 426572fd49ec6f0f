//! Counts of pair similarities in buckets of 0.1, for the summary.

use super::Pair;

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

    /// The similarities of pairs held per content, each counted as often as
    /// it has pairs of documents (none listed).
    pub fn from_doc_pairs(pairs: &crate::model::DocPairs) -> Self {
        let mut h = Self::default();
        for (similarity, count) in pairs.weighted() {
            h.add_many(similarity, count);
        }
        h
    }

    /// Counts one similarity; NaN and negatives count in the lowest bucket.
    pub fn add(&mut self, similarity: f64) {
        self.add_many(similarity, 1);
    }

    /// Counts `count` pairs of the same similarity.
    pub fn add_many(&mut self, similarity: f64, count: u64) {
        let i = if similarity >= 1.0 {
            10
        } else {
            BUCKET_BOUNDS.iter().filter(|&&b| similarity >= b).count()
        };
        self.counts[i] += count;
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
