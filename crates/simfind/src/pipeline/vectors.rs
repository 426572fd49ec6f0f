//! The vector families' runs (`scan --input vectors|bits`, `scan --sketch
//! simhash`): orchestration only. Points are held in memory (`n × d × 4`
//! bytes for vectors, `n × ⌈bits/64⌉ × 8` for bit strings), signed in
//! parallel by a [`Family`] into an `n × (b·r)` matrix of `u32`
//! (`4·b·r` bytes a point), banded by [`lsh::candidate_pairs`], and every
//! candidate is verified by the true measure
//! ([`crate::similarity::vectors`]), so no reported pair is false.
//!
//! Output is deterministic: candidates come out sorted and verification keeps
//! their order, whatever the number of threads.

use rayon::prelude::*;

pub mod choose;
mod run;

pub use run::{IndexedSignatures, PointRunError, nearest_points, run_bits, run_vectors};

use super::{ScanConfig, Verification};
use crate::input::vectors::{BitStrings, Vectors};
use crate::input::walk::FileEntry;
use crate::lsh::family::pigeonhole;
use crate::lsh::{self, Banding};
use crate::progress::{Reporter, Stage};
use crate::similarity::vectors;
use crate::similarity::vectors::all_pairs;
use crate::sketch::BitSampling;
use crate::sketch::Hyperplanes;
use crate::sketch::PStable;
use crate::sketch::{AnyFamily, Family, Features, simhash};
use crate::source::{FileSource, Source};
use crate::text::Scratch;
use crate::text::normalize;

/// A verified pair: point ids `a < b` and the measure of the query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    pub a: u32,
    pub b: u32,
    /// Cosine similarity, L2 distance or Hamming distance.
    pub value: f64,
}

/// What a run found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FamilyOutcome {
    pub pairs: Vec<Found>,
    /// Candidate pairs from banding (each verified); for the exact method,
    /// the pairs its screen kept and measured in `f64`.
    pub candidates: u64,
    /// The exact method: every pair scored (0 for LSH).
    pub scored: u64,
}

/// Which pairs of vectors to report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VectorQuery {
    /// Cosine similarity ≥ `min_cosine` (zero vectors have no angle: never paired).
    Cosine { min_cosine: f64 },
    /// L2 distance ≤ `radius`, hashed into buckets of `width`.
    Euclidean { radius: f64, width: f64 },
}

/// What a run does with its candidates besides the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// `--link`: only pairs with `a < split ≤ b` (the first input's points are
    /// those below `split`).
    pub link: Option<u32>,
    /// [`Verification::Signature`]: a candidate's value is the family's
    /// estimate from the agreement of its two rows (cosine:
    /// [`crate::sketch::estimate_cosine`]; Hamming:
    /// [`crate::sketch::estimate_distance`]), nothing is measured. Euclidean
    /// has none and is always measured exactly.
    pub verification: Verification,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            link: None,
            verification: Verification::Exact,
        }
    }
}

/// Row `i` of a row-major matrix of rows of `len` values.
fn row_of(rows: &[u32], len: usize, i: u32) -> &[u32] {
    &rows[i as usize * len..(i as usize + 1) * len]
}

/// Signs `n` points in parallel into a row-major `n × signature_len` matrix.
pub fn sign_rows<'a, S, F>(family: &S, n: usize, point: F) -> Vec<u32>
where
    S: Family + Sync + ?Sized,
    F: Fn(usize) -> Features<'a> + Sync,
{
    let len = family.signature_len();
    let mut rows = vec![0u32; n * len];
    if len > 0 {
        rows.par_chunks_mut(len)
            .enumerate()
            .for_each(|(i, row)| family.sign_into(point(i), row));
    }
    rows
}

/// Bands `rows` and keeps the candidates `verify` accepts, in order.
/// Candidates across `link`'s split only, when given.
pub fn band_and_verify(
    rows: &[u32],
    banding: Banding,
    link: Option<u32>,
    verify: impl Fn(u32, u32) -> Option<f64> + Sync,
    reporter: &dyn Reporter,
) -> FamilyOutcome {
    reporter.begin(Stage::Band, None);
    let mut candidates = lsh::candidate_pairs(rows, banding);
    if let Some(split) = link {
        candidates.retain(|&(a, b)| a < split && split <= b);
    }
    reporter.end(Stage::Band);
    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let pairs: Vec<Found> = candidates
        .par_iter()
        .filter_map(|&(a, b)| verify(a, b).map(|value| Found { a, b, value }))
        .collect();
    reporter.advance(candidates.len() as u64);
    reporter.end(Stage::Verify);
    FamilyOutcome {
        pairs,
        candidates: candidates.len() as u64,
        scored: 0,
    }
}

fn from_all_pairs(found: all_pairs::AllPairs) -> FamilyOutcome {
    FamilyOutcome {
        pairs: found
            .pairs
            .into_iter()
            .map(|(a, b, value)| Found { a, b, value })
            .collect(),
        candidates: found.rechecked,
        scored: found.scored,
    }
}

/// Every pair of `points` within the query, measured
/// ([`all_pairs`]): the pairs LSH reports, with the same values, and those it
/// misses.
pub fn exact_vectors(
    points: &Vectors,
    query: VectorQuery,
    link: Option<u32>,
    reporter: &dyn Reporter,
) -> FamilyOutcome {
    let n = points.len();
    let split = link.map(|s| s as usize);
    reporter.begin(Stage::Verify, Some(all_pairs::pair_count(n, split)));
    let found = match query {
        VectorQuery::Cosine { min_cosine } => {
            all_pairs::cosine_pairs(&points.values, points.dim, n, min_cosine, split)
        }
        VectorQuery::Euclidean { radius, .. } => {
            all_pairs::euclidean_pairs(&points.values, points.dim, n, radius, split)
        }
    };
    reporter.advance(found.scored);
    reporter.end(Stage::Verify);
    from_all_pairs(found)
}

/// Every pair of bit strings within `radius` bits, by popcount.
pub fn exact_bits(
    strings: &BitStrings,
    radius: u32,
    link: Option<u32>,
    reporter: &dyn Reporter,
) -> FamilyOutcome {
    let n = strings.len();
    let split = link.map(|s| s as usize);
    reporter.begin(Stage::Verify, Some(all_pairs::pair_count(n, split)));
    let found =
        all_pairs::hamming_pairs(&strings.words, strings.words_per_string(), n, radius, split);
    reporter.advance(found.scored);
    reporter.end(Stage::Verify);
    from_all_pairs(found)
}

/// Pairs of `points` within the query, found by hyperplanes (cosine) or
/// p-stable buckets (Euclidean) of `banding`'s shape drawn from `seed`.
/// `presigned`: the points' signatures by that family, made before (an
/// index's, `scan --db`; one row per point), which are banded as they are.
pub fn scan_vectors(
    points: &Vectors,
    query: VectorQuery,
    (banding, seed, presigned): (Banding, u64, Option<Vec<u32>>),
    options: RunOptions,
    reporter: &dyn Reporter,
) -> FamilyOutcome {
    let n = banding.signature_len();
    reporter.begin(Stage::Sign, Some(points.len() as u64));
    let family: AnyFamily = match query {
        VectorQuery::Cosine { .. } => Hyperplanes::new(points.dim, n, seed).into(),
        VectorQuery::Euclidean { width, .. } => PStable::new(points.dim, n, width, seed).into(),
    };
    let rows = match presigned {
        Some(rows) => {
            assert_eq!(rows.len(), points.len() * n, "one signature per point");
            rows
        }
        None => sign_rows(&family, points.len(), |i| Features::Vector(points.row(i))),
    };
    reporter.advance(points.len() as u64);
    reporter.end(Stage::Sign);
    let row = |i: u32| points.row(i as usize);
    // Each point's norm once, not once per candidate (the same f64 value).
    let norms = match query {
        VectorQuery::Cosine { .. } => {
            all_pairs::squared_norms(&points.values, points.dim, points.len())
        }
        VectorQuery::Euclidean { .. } => Vec::new(),
    };
    let by_signature = options.verification == Verification::Signature;
    band_and_verify(
        &rows,
        banding,
        options.link,
        |x, y| match query {
            VectorQuery::Cosine { min_cosine } if by_signature => {
                Some(family.estimate(row_of(&rows, n, x), row_of(&rows, n, y)))
                    .filter(|&c| c >= min_cosine)
            }
            VectorQuery::Cosine { min_cosine } => {
                vectors::cosine_with_norms(row(x), row(y), norms[x as usize], norms[y as usize])
                    .filter(|&c| c >= min_cosine)
            }
            VectorQuery::Euclidean { radius, .. } => {
                Some(vectors::euclidean(row(x), row(y))).filter(|&d| d <= radius)
            }
        },
        reporter,
    )
}

/// Pairs of bit strings within `radius` bits, found by `sampling` banded as
/// `banding` (its signature length is `banding`'s); `presigned`: every
/// string's signature under `sampling` already made (an index's), else they
/// are signed here.
pub fn scan_bits(
    strings: &BitStrings,
    radius: u32,
    (sampling, banding, presigned): (&BitSampling, Banding, Option<Vec<u32>>),
    options: RunOptions,
    reporter: &dyn Reporter,
) -> FamilyOutcome {
    reporter.begin(Stage::Sign, Some(strings.len() as u64));
    let rows = presigned
        .unwrap_or_else(|| sign_rows(sampling, strings.len(), |i| Features::Bits(strings.row(i))));
    reporter.advance(strings.len() as u64);
    reporter.end(Stage::Sign);
    let n = sampling.signature_len();
    band_and_verify(
        &rows,
        banding,
        options.link,
        |x, y| {
            if options.verification == Verification::Signature {
                let h = sampling
                    .estimate(row_of(&rows, n, x), row_of(&rows, n, y))
                    .round();
                return (h <= f64::from(radius)).then_some(h);
            }
            let h = vectors::hamming_bits(strings.row(x as usize), strings.row(y as usize));
            (h <= radius).then_some(f64::from(h))
        },
        reporter,
    )
}

/// A file's SimHash: its fingerprint, or why it has none.
#[derive(Clone, Debug, PartialEq)]
pub enum Fingerprint {
    Of(u64),
    /// Shorter than one shingle, or binary: never paired.
    Skipped(&'static str),
    /// Could not be read (already reported as a warning).
    Failed,
}

/// What one file read for a whole-file family gives: its shingle hashes in
/// text order (repeats kept), or why it has none.
pub(super) enum FileShingles {
    Failed,
    Skipped(&'static str),
    Hashes(Vec<u64>),
}

/// Reads, normalises and shingles every file with the recipe, in parallel,
/// and makes each into a `T` by `make`, in the files' order. Read errors are
/// reported as warnings. Shared by SimHash's fingerprints and ICWS's bags.
///
/// Files are opened as the MinHash path opens them ([`FileSource`]):
/// the file read is the one the walk saw, a link swapped in after the walk is
/// not followed (unless links are followed), and a file that changed while
/// it was read is a warning, not a fingerprint of bytes it never held.
pub(super) fn each_file_shingled<T: Send>(
    files: &[FileEntry],
    config: &ScanConfig,
    reporter: &dyn Reporter,
    make: impl Fn(FileShingles) -> T + Sync,
) -> Vec<T> {
    reporter.begin(Stage::Sign, Some(files.len() as u64));
    let recipe = &config.recipe;
    let out = files
        .par_iter()
        .map_init(Scratch::default, |scratch, file| {
            let source = FileSource::new(
                std::slice::from_ref(file),
                config.walk.follow_links,
                &config.read,
            );
            let shingles = match source.open(0) {
                Err(err) => Err(err),
                Ok(contents) => {
                    let shingles = if !matches!(
                        contents.admit(recipe.include_binary),
                        crate::source::Admit::Text
                    ) {
                        FileShingles::Skipped("binary")
                    } else {
                        let text = normalize(&contents, recipe.normalization);
                        let mut hashes = Vec::new();
                        recipe
                            .shingler
                            .for_each_hash(&text, scratch, |h| hashes.push(h));
                        if hashes.is_empty() {
                            FileShingles::Skipped("shorter than one shingle")
                        } else {
                            FileShingles::Hashes(hashes)
                        }
                    };
                    // Pages of a mapping truncated under us read as zeros:
                    // only bytes of an unchanged file are the file's.
                    contents.verify_unchanged().map(|()| shingles)
                }
            };
            let shingles = shingles.unwrap_or_else(|err| {
                reporter.warn(&file.path, &err);
                FileShingles::Failed
            });
            let made = make(shingles);
            reporter.advance(1);
            made
        })
        .collect();
    reporter.end(Stage::Sign);
    out
}

/// The SimHash fingerprint of every file, in parallel, in the files' order:
/// the recipe's normalisation and shingles, weighted by `weights`
/// ([`simhash`]). Read errors are reported as warnings.
pub fn fingerprint_files(
    files: &[FileEntry],
    config: &ScanConfig,
    weights: simhash::Weights,
    reporter: &dyn Reporter,
) -> Vec<Fingerprint> {
    each_file_shingled(files, config, reporter, |shingles| match shingles {
        FileShingles::Failed => Fingerprint::Failed,
        FileShingles::Skipped(why) => Fingerprint::Skipped(why),
        FileShingles::Hashes(hashes) => {
            let features = simhash::features(hashes, weights);
            Fingerprint::Of(simhash::fingerprint(&features, config.recipe.seed))
        }
    })
}

/// Pairs of 64-bit fingerprints within `radius` bits (`radius < 64`), found
/// by the pigeonhole bands, so none is missed.
pub fn scan_fingerprints(
    fingerprints: &[u64],
    radius: u32,
    reporter: &dyn Reporter,
) -> FamilyOutcome {
    let strings = BitStrings {
        bits: 64,
        words: fingerprints.to_vec(),
        ..BitStrings::default()
    };
    let (sampling, banding) = pigeonhole(64, radius as usize);
    let rows = sign_rows(&sampling, fingerprints.len(), |i| {
        Features::Bits(strings.row(i))
    });
    band_and_verify(
        &rows,
        banding,
        None,
        |x, y| {
            let h = (fingerprints[x as usize] ^ fingerprints[y as usize]).count_ones();
            (h <= radius).then_some(f64::from(h))
        },
        reporter,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::sketch::SplitMix64;

    /// Fingerprints near 40 random centres (0–4 bits flipped): the pigeonhole
    /// run reports exactly the brute-force pairs within 3 bits, in order.
    #[test]
    fn fingerprints_equal_brute_force() {
        let mut rng = SplitMix64(8);
        let centres: Vec<u64> = (0..40).map(|_| rng.next_u64()).collect();
        let prints: Vec<u64> = (0..400)
            .map(|i| {
                let mut fp = centres[i % 40];
                for _ in 0..rng.next_u64() % 5 {
                    fp ^= 1 << (rng.next_u64() % 64);
                }
                fp
            })
            .collect();
        let mut want = Vec::new();
        for a in 0..prints.len() {
            for b in a + 1..prints.len() {
                let h = (prints[a] ^ prints[b]).count_ones();
                if h <= 3 {
                    want.push(Found {
                        a: a as u32,
                        b: b as u32,
                        value: f64::from(h),
                    });
                }
            }
        }
        assert!(want.len() > 100);
        assert_eq!(scan_fingerprints(&prints, 3, &Silent).pairs, want);
    }
}
