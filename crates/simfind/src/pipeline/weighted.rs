//! Weighted sets under weighted MinHash (`scan --sketch icws`):
//! orchestration only. Each set (element, weight) is signed in parallel by
//! [`Icws`] into a row of `b·r` values (a sample (k, t) hashed to a `u32`),
//! the rows are banded by [`crate::lsh::candidate_pairs`], and every candidate is
//! verified by the exact weighted Jaccard similarity Σ min / Σ max
//! ([`measures::weighted_jaccard_of`]) — or, with
//! [`Verification::Signature`], by the fraction of equal samples.
//!
//! A sample is equal for two sets with probability exactly their weighted
//! Jaccard similarity, so a pair at similarity s becomes a candidate with
//! the probability 1 − (1 − s^r)^b of MinHash's S-curve. A hashed sample
//! adds a false agreement with probability 2⁻³² a value: more candidates at
//! most, never a false pair under exact verification.
//!
//! Sets come from `--input sets` with weights (`token:weight`) or from files
//! as bags of shingles, each shingle weighted by its count
//! ([`bags_of_files`]). Output is deterministic: candidates come out sorted
//! and verification keeps their order, whatever the number of threads.

use rayon::prelude::*;

use super::vectors::{
    FamilyOutcome, FileShingles, RunOptions, band_and_verify, each_file_shingled,
};
use super::{ScanConfig, Verification};
use crate::input::walk::FileEntry;
use crate::lsh::Banding;
use crate::progress::{Reporter, Stage};
use crate::similarity::measures;
use crate::sketch::Family;
use crate::sketch::{DRAW_CACHE_BYTES, DrawCache, Icws};
use crate::text::xxh3_64;

/// A weighted set of `(token, weight)` pairs as a sorted `(element, weight)`
/// list: each token hashed (XXH3-64), equal elements merged by summing their
/// weights. Weights that are not finite and > 0 are left out.
pub fn weighted_set<'a>(tokens: impl IntoIterator<Item = (&'a str, f64)>) -> Vec<(u64, f64)> {
    let mut set: Vec<(u64, f64)> = tokens
        .into_iter()
        .filter(|&(_, w)| w.is_finite() && w > 0.0)
        .map(|(token, w)| (xxh3_64(token.as_bytes()), w))
        .collect();
    // Stable: equal elements keep their reading order, so their sum is the
    // same on every run.
    set.sort_by_key(|&(k, _)| k);
    set.dedup_by(|later, kept| {
        if later.0 == kept.0 {
            kept.1 += later.1;
            true
        } else {
            false
        }
    });
    set
}

/// Pairs of `sets` with weighted Jaccard similarity ≥ `threshold`, found by
/// ICWS rows of `banding`'s length from `seed`. Empty sets are never
/// paired. Pairs name the sets by their index in `sets`.
pub fn scan_weighted(
    sets: &[Vec<(u64, f64)>],
    threshold: f64,
    banding: Banding,
    seed: u64,
    options: RunOptions,
    reporter: &dyn Reporter,
) -> FamilyOutcome {
    let kept: Vec<u32> = (0..sets.len() as u32)
        .filter(|&i| !sets[i as usize].is_empty())
        .collect();
    let n = banding.signature_len();
    let icws = Icws::new(n, seed);
    reporter.begin(Stage::Sign, Some(kept.len() as u64));
    let cache = shared_draws(&icws, sets);
    let mut rows = vec![0u32; kept.len() * n];
    if n > 0 {
        rows.par_chunks_mut(n).zip(&kept).for_each(|(row, &i)| {
            if let Some(samples) = icws.sign_cached(&sets[i as usize], &cache) {
                for (value, sample) in row.iter_mut().zip(&samples) {
                    *value = Icws::band_value(sample);
                }
            }
            reporter.advance(1);
        });
    }
    reporter.end(Stage::Sign);
    // Band over kept rows; `link` splits by original index, so it is
    // translated to the first kept row at or after it.
    let link = options
        .link
        .map(|split| kept.partition_point(|&i| i < split) as u32);
    let row = |x: u32| &rows[x as usize * n..(x as usize + 1) * n];
    let mut outcome = band_and_verify(
        &rows,
        banding,
        link,
        |x, y| {
            let value = match options.verification {
                Verification::Signature => Some(icws.estimate(row(x), row(y))),
                _ => measures::weighted_jaccard_of(
                    &sets[kept[x as usize] as usize],
                    &sets[kept[y as usize] as usize],
                ),
            };
            value.filter(|&s| s >= threshold)
        },
        reporter,
    );
    for pair in &mut outcome.pairs {
        pair.a = kept[pair.a as usize];
        pair.b = kept[pair.b as usize];
    }
    outcome
}

/// The draws of the elements in three sets or more, the most shared first
/// (ties by element), within [`DRAW_CACHE_BYTES`]: each is drawn once
/// instead of once a set. Which elements are cached changes the time only,
/// never a sample. Not those of two sets: drawing them twice was as fast
/// as caching them (`compare --icws`'s two bags, docs/PERFORMANCE.md).
pub fn shared_draws(icws: &Icws, sets: &[Vec<(u64, f64)>]) -> DrawCache {
    let room = DRAW_CACHE_BYTES / icws.draw_bytes().max(1);
    if room == 0 {
        return DrawCache::default();
    }
    let mut sets_with: hashbrown::HashMap<u64, u32> = hashbrown::HashMap::new();
    for set in sets {
        for &(k, _) in set {
            *sets_with.entry(k).or_insert(0) += 1;
        }
    }
    let mut shared: Vec<(u32, u64)> = sets_with
        .into_iter()
        .filter(|&(_, count)| count > 2)
        .map(|(k, count)| (count, k))
        .collect();
    shared.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    shared.truncate(room);
    DrawCache::from_draws(
        shared
            .par_iter()
            .map(|&(_, k)| (k, icws.token_draws(k)))
            .collect::<Vec<_>>(),
    )
}

/// What a file gives: its bag of shingles, or why it has none.
#[derive(Clone, Debug, PartialEq)]
pub enum Bag {
    Of(Vec<(u64, f64)>),
    /// Shorter than one shingle, or binary: never paired.
    Skipped(&'static str),
    /// Could not be read (already reported as a warning).
    Failed,
}

/// Every file's shingles with their counts as weights (the recipe's
/// normalisation and shingles), in parallel, in the files' order. Read
/// errors are reported as warnings.
pub fn bags_of_files(
    files: &[FileEntry],
    config: &ScanConfig,
    reporter: &dyn Reporter,
) -> Vec<Bag> {
    each_file_shingled(files, config, reporter, |shingles| match shingles {
        FileShingles::Failed => Bag::Failed,
        FileShingles::Skipped(why) => Bag::Skipped(why),
        FileShingles::Hashes(hashes) => Bag::Of(
            measures::count_vector(hashes)
                .into_iter()
                .map(|(h, c)| (h, f64::from(c)))
                .collect(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::sketch::SplitMix64;

    /// Σ min / Σ max by the definition, over maps of token → weight.
    fn brute(a: &[(u64, f64)], b: &[(u64, f64)]) -> f64 {
        let get =
            |s: &[(u64, f64)], k: u64| s.iter().find(|&&(x, _)| x == k).map_or(0.0, |&(_, w)| w);
        let mut keys: Vec<u64> = a.iter().chain(b).map(|&(k, _)| k).collect();
        keys.sort_unstable();
        keys.dedup();
        let (mut min, mut max) = (0.0, 0.0);
        for k in keys {
            min += get(a, k).min(get(b, k));
            max += get(a, k).max(get(b, k));
        }
        min / max
    }

    /// 60 base bags of 30 tokens with random weights, each with a copy whose
    /// weights are perturbed by at most 5 % (weighted Jaccard ≥ 0.9), among
    /// unrelated bags. At 25 bands × 4 rows a pair at 0.9 is missed with
    /// probability (1 − 0.9⁴)²⁵ < 10⁻¹¹, so every brute-force pair ≥ 0.5
    /// must be found, with its exact value, and no other.
    #[test]
    fn finds_exactly_the_brute_force_pairs() {
        let mut rng = SplitMix64(11);
        let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut sets = Vec::new();
        for base in 0..60u64 {
            // 25 tokens of its own (weights 1–10) and 5 of a pool of 10
            // that every bag draws from (weights 0.1–0.5): unrelated bags
            // share at most 2.5 of a Σmax ≥ 50, under 0.05.
            let mut bag: Vec<(String, f64)> = (0..25)
                .map(|t| (format!("b{base}t{t}"), 1.0 + 9.0 * unit()))
                .collect();
            for t in 0..5 {
                bag.push((format!("c{}", (base + 2 * t) % 10), 0.1 + 0.4 * unit()));
            }
            let copy: Vec<(String, f64)> = bag
                .iter()
                .map(|(t, w)| (t.clone(), w * (0.95 + 0.05 * unit())))
                .collect();
            sets.push(weighted_set(bag.iter().map(|(t, w)| (t.as_str(), *w))));
            sets.push(weighted_set(copy.iter().map(|(t, w)| (t.as_str(), *w))));
        }
        let mut want = Vec::new();
        for a in 0..sets.len() {
            for b in a + 1..sets.len() {
                let s = brute(&sets[a], &sets[b]);
                if s >= 0.5 {
                    assert!(s >= 0.9, "the construction has no pair in [0.5, 0.9): {s}");
                    want.push((a as u32, b as u32, s));
                }
            }
        }
        assert_eq!(want.len(), 60);
        let banding = Banding { bands: 25, rows: 4 };
        let got = scan_weighted(&sets, 0.5, banding, 3, RunOptions::default(), &Silent);
        let got: Vec<(u32, u32, f64)> = got.pairs.iter().map(|p| (p.a, p.b, p.value)).collect();
        assert_eq!(got.len(), want.len());
        for ((a, b, s), (x, y, t)) in got.iter().zip(&want) {
            assert_eq!((a, b), (x, y));
            assert!((s - t).abs() < 1e-12, "{s} against {t}");
        }
    }

    #[test]
    fn a_set_is_its_tokens_merged_and_empty_sets_never_pair() {
        let a = weighted_set([("x", 2.0), ("y", 1.0), ("x", 0.5), ("z", 0.0)]);
        assert_eq!(a.len(), 2);
        let x = a.iter().find(|&&(k, _)| k == xxh3_64(b"x")).unwrap();
        assert_eq!(x.1, 2.5);
        let sets = vec![Vec::new(), a.clone(), Vec::new(), a];
        let out = scan_weighted(
            &sets,
            0.1,
            Banding { bands: 4, rows: 2 },
            1,
            RunOptions::default(),
            &Silent,
        );
        let pairs: Vec<(u32, u32, f64)> = out.pairs.iter().map(|p| (p.a, p.b, p.value)).collect();
        assert_eq!(pairs, vec![(1, 3, 1.0)]);
    }
}
