//! Locality-sensitive hashing by banding (MMDS 3.4): signatures in, candidate
//! pairs out.
//!
//! Each signature of `n = bands × rows` values is cut into `bands` bands of
//! `rows` consecutive values; each band is hashed to a 64-bit bucket key
//! (XXH3 of the band's little-endian bytes, seeded with the band number so equal
//! rows in different bands land in different buckets). Two documents that share
//! a bucket in at least one band become a candidate pair, reported once. With
//! similarity `s` that happens with probability `1 - (1 - s^r)^b`
//! ([`crate::lsh::scurve`]).

pub mod cover;
pub mod ensemble;
pub mod family;
pub mod fingerprint;
pub mod scurve;
pub mod tune;

pub use cover::{Choice, Pair, Sample};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::memory;

/// How a signature is cut: `bands` bands of `rows` rows each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Banding {
    pub bands: usize,
    pub rows: usize,
}

impl Banding {
    /// Signature length `n = bands × rows`.
    pub fn signature_len(&self) -> usize {
        self.bands * self.rows
    }
}

/// The bucket key of band `band` of one signature (`rows` values).
#[cfg(target_endian = "little")]
#[inline]
pub fn band_key(band: usize, rows: &[u32]) -> u64 {
    // The rows' little-endian bytes are their memory here: hashed in place.
    // Copying them into a buffer first (a zeroed stack array and a `memcpy`
    // of 20 bytes per band) was most of the banding's cost on short texts
    // (docs/PERFORMANCE.md, "Banding without copies").
    // SAFETY: `rows` is `rows.len() * 4` initialised bytes, and u8 has
    // alignment 1.
    let bytes =
        unsafe { std::slice::from_raw_parts(rows.as_ptr().cast::<u8>(), size_of_val(rows)) };
    xxh3_64_with_seed(bytes, band as u64)
}

/// The bucket key of band `band` of one signature (`rows` values): XXH3 of
/// the rows' little-endian bytes, whatever the machine's byte order.
#[cfg(not(target_endian = "little"))]
pub fn band_key(band: usize, rows: &[u32]) -> u64 {
    let bytes: Vec<u8> = rows.iter().flat_map(|v| v.to_le_bytes()).collect();
    xxh3_64_with_seed(&bytes, band as u64)
}

/// All bucket keys of one signature, band by band.
pub fn band_keys(signature: &[u32], banding: Banding) -> impl Iterator<Item = u64> + '_ {
    signature
        .chunks_exact(banding.rows)
        .take(banding.bands)
        .enumerate()
        .map(|(band, rows)| band_key(band, rows))
}

/// Candidate pairs `(i, j)`, `i < j`, among the signatures stored row-major in
/// `signatures` (`signatures.len() / n` documents of `n = banding.signature_len()`
/// values). Sorted and free of duplicates.
///
/// Memory: each band keeps only the buckets of two or more documents (members
/// sorted by id, 20 bytes per member) and nothing per document alone in its
/// bucket (most documents, in a corpus of distinct files); pairs are then
/// generated document by document — for `a`, the members after it in each of its
/// buckets, merged over the bands and deduplicated — so no bucket's all-pairs list
/// and no per-band duplicate of a pair is ever built. Only the final, distinct
/// candidates are held (8 bytes each).
pub fn candidate_pairs(signatures: &[u32], banding: Banding) -> Vec<(u32, u32)> {
    let n = banding.signature_len();
    assert!(
        n > 0 && signatures.len().is_multiple_of(n),
        "signature matrix shape"
    );
    let docs = signatures.len() / n;
    // One band at a time, each built in parallel: a band's table of keys is
    // 8 bytes a document (8 MB at a million), and two at once sat on top
    // of the signature matrix at the scan's peak.
    let bands: Vec<BandBuckets> = (0..banding.bands)
        .map(|band| BandBuckets::build(signatures, banding, band, docs))
        .collect();
    // Chunks of documents in parallel; each chunk's pairs come out sorted, and
    // chunks are concatenated in order.
    const CHUNK: usize = 1024;
    let chunks: Vec<Vec<(u32, u32)>> = (0..docs.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut out = Vec::new();
            let mut partners: Vec<u32> = Vec::new();
            // Per band, the first shared member at or after `a`: documents are
            // visited in ascending order, so each cursor only moves forward.
            let mut cursors: Vec<usize> = bands.iter().map(|b| b.first_at(c * CHUNK)).collect();
            for a in c * CHUNK..((c + 1) * CHUNK).min(docs) {
                partners.clear();
                for (band, cursor) in bands.iter().zip(&mut cursors) {
                    partners.extend_from_slice(band.later_members(a, cursor));
                }
                partners.sort_unstable();
                partners.dedup();
                out.extend(partners.iter().map(|&b| (a as u32, b)));
            }
            out
        })
        .collect();
    let mut candidates = Vec::new();
    let total = chunks.iter().map(Vec::len).sum();
    memory::reserve(
        &mut candidates,
        total,
        "the candidate pairs",
        memory::Lower::Candidates,
    );
    for chunk in chunks {
        candidates.extend_from_slice(&chunk);
    }
    candidates
}

/// The buckets of two or more of documents `0..docs` under `key`: their
/// members, bucket after bucket in ascending key order and ascending ids
/// inside one, and per member its bucket's end.
fn shared_buckets(docs: usize, key: &(dyn Fn(usize) -> u64 + Sync)) -> (Vec<u32>, Vec<u32>) {
    // Each document as the high half of its key and its id in one u64:
    // 8 bytes a document, not the 16 of a (key, id) pair (the table sits
    // on the signature matrix at a scan's peak). Sorted, a bucket of
    // equal keys is a run of equal high halves; a run of two or more is
    // split by the whole keys, made again for its members only, so the
    // buckets, and their order, are those of the whole keys.
    let mut keyed: Vec<u64> = Vec::new();
    let what = "a band's table of keys";
    memory::reserve(&mut keyed, docs, what, memory::Lower::Signatures);
    keyed.par_extend(
        (0..docs)
            .into_par_iter()
            .map(|d| key(d) & !u64::from(u32::MAX) | d as u64),
    );
    // Every entry differs (one per document): the order is the same
    // whatever the thread count.
    sort_keyed(&mut keyed);
    let mut members = Vec::new();
    let mut bucket_end = Vec::new();
    let mut whole: Vec<(u64, u32)> = Vec::new();
    for run in keyed.chunk_by(|x, y| x >> 32 == y >> 32) {
        if run.len() < 2 {
            continue;
        }
        whole.clear();
        whole.extend(run.iter().map(|&e| (key(e as u32 as usize), e as u32)));
        whole.sort_unstable();
        for bucket in whole.chunk_by(|x, y| x.0 == y.0) {
            if bucket.len() < 2 {
                continue;
            }
            let end = (members.len() + bucket.len()) as u32;
            for &(_, d) in bucket {
                members.push(d);
                bucket_end.push(end);
            }
        }
    }
    (members, bucket_end)
}

/// Sorts a band's table ascending: scattered by its top [`TOP_BITS`] bits
/// (hash bits, uniformly distributed) into that many runs, then each run
/// sorted on its own, the runs in parallel. The result is `sort_unstable`'s
/// (every entry differs), and a run of many equal top bits costs what any
/// sort of it costs, never more. On 200,000 short texts `par_sort_unstable`
/// of the whole table was a tenth of the scan (docs/PERFORMANCE.md, "Banding
/// without copies").
fn sort_keyed(keyed: &mut Vec<u64>) {
    const TOP_BITS: u32 = 11;
    const RUNS: usize = 1 << TOP_BITS;
    if keyed.len() < 4 * RUNS {
        keyed.sort_unstable();
        return;
    }
    let run_of = |k: u64| (k >> (u64::BITS - TOP_BITS)) as usize;
    let mut ends = vec![0usize; RUNS];
    for &k in keyed.iter() {
        ends[run_of(k)] += 1;
    }
    let mut next = Vec::with_capacity(RUNS);
    let mut start = 0;
    for end in &mut ends {
        next.push(start);
        start += *end;
        *end = start;
    }
    let mut sorted = Vec::new();
    let what = "a band's table of keys";
    memory::resize(&mut sorted, keyed.len(), 0, what, memory::Lower::Signatures);
    for &k in keyed.iter() {
        let run = run_of(k);
        sorted[next[run]] = k;
        next[run] += 1;
    }
    let mut runs = Vec::with_capacity(RUNS);
    let mut rest = sorted.as_mut_slice();
    let mut start = 0;
    for &end in &ends {
        let (run, tail) = rest.split_at_mut(end - start);
        runs.push(run);
        rest = tail;
        start = end;
    }
    runs.into_par_iter().for_each(|run| run.sort_unstable());
    *keyed = sorted;
}

/// One band's buckets that hold at least two documents.
struct BandBuckets {
    /// Documents of shared buckets, bucket by bucket, ascending ids inside one.
    members: Vec<u32>,
    /// Per position in `members`: the end of that position's bucket.
    bucket_end: Vec<u32>,
    /// `(document, its position in members)` for every shared member, by
    /// document: a document alone in its bucket costs nothing (a per-document
    /// table was 4 bytes × documents × bands, 48 MB for a million files).
    by_doc: Vec<(u32, u32)>,
}

impl BandBuckets {
    fn build(signatures: &[u32], banding: Banding, band: usize, docs: usize) -> Self {
        let n = banding.signature_len();
        let key = |d: usize| {
            band_key(
                band,
                &signatures[d * n + band * banding.rows..][..banding.rows],
            )
        };
        let (members, bucket_end) = shared_buckets(docs, &key);
        let mut by_doc: Vec<(u32, u32)> = members
            .iter()
            .enumerate()
            .map(|(p, &d)| (d, p as u32))
            .collect();
        by_doc.sort_unstable();
        BandBuckets {
            members,
            bucket_end,
            by_doc,
        }
    }

    /// Index in `by_doc` of the first shared member with id `d` or more.
    fn first_at(&self, d: usize) -> usize {
        self.by_doc.partition_point(|&(doc, _)| (doc as usize) < d)
    }

    /// Documents after `d` in `d`'s bucket (all have larger ids). `cursor` is
    /// [`BandBuckets::first_at`] of a document ≤ `d`, and is moved past `d`.
    fn later_members(&self, d: usize, cursor: &mut usize) -> &[u32] {
        while self
            .by_doc
            .get(*cursor)
            .is_some_and(|&(doc, _)| (doc as usize) < d)
        {
            *cursor += 1;
        }
        match self.by_doc.get(*cursor) {
            Some(&(doc, p)) if doc as usize == d => {
                *cursor += 1;
                &self.members[p as usize + 1..self.bucket_end[p as usize] as usize]
            }
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::scurve::candidate_probability;
    use crate::sketch::{MinHasher, SplitMix64};

    #[test]
    fn documents_sharing_one_band_become_candidates_once() {
        let banding = Banding { bands: 3, rows: 2 };
        #[rustfmt::skip]
        let sigs = [
            1, 2,  3, 4,  5, 6,   // doc 0
            1, 2,  9, 9,  5, 6,   // doc 1: shares bands 0 and 2 with doc 0
            7, 7,  3, 4,  8, 8,   // doc 2: shares band 1 with doc 0
            0, 0,  0, 0,  0, 0,   // doc 3: shares nothing
        ];
        assert_eq!(candidate_pairs(&sigs, banding), vec![(0, 1), (0, 2)]);
    }

    /// Brute force over every pair and band: the oracle for `candidate_pairs`.
    fn oracle(sigs: &[u32], banding: Banding) -> Vec<(u32, u32)> {
        let n = banding.signature_len();
        let docs = sigs.len() / n;
        let mut out = Vec::new();
        for a in 0..docs {
            for b in a + 1..docs {
                let shared = (0..banding.bands).any(|band| {
                    let r = band * banding.rows..(band + 1) * banding.rows;
                    sigs[a * n..][r.clone()] == sigs[b * n..][r]
                });
                if shared {
                    out.push((a as u32, b as u32));
                }
            }
        }
        out
    }

    #[test]
    fn equals_brute_force_with_large_shared_buckets() {
        // 3,000 documents over a tiny alphabet: buckets of hundreds of documents,
        // shared across several bands, spread over several chunks.
        let banding = Banding { bands: 4, rows: 2 };
        let mut rng = SplitMix64(17);
        let sigs: Vec<u32> = (0..3000 * banding.signature_len())
            .map(|_| (rng.next_u64() % 6) as u32)
            .collect();
        assert_eq!(candidate_pairs(&sigs, banding), oracle(&sigs, banding));
    }

    /// Shared buckets as `(key, id)` pairs sorted and grouped: what the
    /// packed table must give.
    fn buckets_by_whole_keys(docs: usize, key: &dyn Fn(usize) -> u64) -> (Vec<u32>, Vec<u32>) {
        let mut keyed: Vec<(u64, u32)> = (0..docs).map(|d| (key(d), d as u32)).collect();
        keyed.sort_unstable();
        let (mut members, mut ends) = (Vec::new(), Vec::new());
        for bucket in keyed.chunk_by(|x, y| x.0 == y.0).filter(|b| b.len() > 1) {
            let end = (members.len() + bucket.len()) as u32;
            members.extend(bucket.iter().map(|&(_, d)| d));
            ends.extend(bucket.iter().map(|_| end));
        }
        (members, ends)
    }

    #[test]
    fn keys_alike_in_their_high_half_are_told_apart_by_the_whole() {
        // High halves from 7 values, low halves from 3 (many documents share
        // a high half, not all of them a key), a run of one key, and keys
        // that differ only in their lowest bit.
        let keys: [&(dyn Fn(usize) -> u64 + Sync); 3] = [
            &|d| ((d % 7) as u64) << 32 | ((d * 13) % 3) as u64,
            &|d| u64::from(d % 2 == 0) << 63 | (d % 5 == 0) as u64,
            &|d| ((d / 4) as u64) << 40 | (d % 2) as u64,
        ];
        for (k, key) in keys.iter().enumerate() {
            let got = shared_buckets(1000, key);
            assert_eq!(got, buckets_by_whole_keys(1000, key), "keys {k}");
            assert!(!got.0.is_empty(), "keys {k} share buckets");
        }
    }

    #[test]
    fn same_rows_in_different_bands_do_not_collide() {
        let banding = Banding { bands: 2, rows: 1 };
        assert!(candidate_pairs(&[5, 6, 6, 5], banding).is_empty());
    }

    #[test]
    fn band_key_depends_on_every_row() {
        assert_ne!(band_key(0, &[1, 2, 3]), band_key(0, &[1, 2, 4]));
        assert_eq!(band_key(0, &[1, 2, 3]), band_key(0, &[1, 2, 3]));
        let long: Vec<u32> = (0..100).collect();
        let mut other = long.clone();
        other[99] = 0;
        assert_ne!(band_key(1, &long), band_key(1, &other));
    }

    /// The keys are stored in indexes and exchange files: XXH3 of the rows'
    /// little-endian bytes, seeded with the band, on every machine.
    #[test]
    fn band_key_is_xxh3_of_the_rows_little_endian_bytes() {
        let mut rng = SplitMix64(11);
        for rows in [0usize, 1, 5, 16, 64, 65, 200] {
            let values: Vec<u32> = (0..rows).map(|_| rng.next_u64() as u32).collect();
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            for band in [0usize, 3, 19] {
                assert_eq!(
                    band_key(band, &values),
                    xxh3_64_with_seed(&bytes, band as u64),
                    "{rows} rows, band {band}"
                );
            }
        }
    }

    /// The scatter-then-sort of a band's table against `sort_unstable`:
    /// below and above the size where it starts, on uniform top bits, on
    /// few distinct top bits (large runs) and on one for all.
    #[test]
    fn sort_keyed_sorts_as_sort_unstable() {
        let mut rng = SplitMix64(3);
        for len in [0usize, 1, 100, 8191, 8192, 50_000] {
            for top in [u64::MAX, 0xF000_0000_0000_0000, 0] {
                let keys: Vec<u64> = (0..len)
                    .map(|d| rng.next_u64() & top & !u64::from(u32::MAX) | d as u64)
                    .collect();
                let mut want = keys.clone();
                want.sort_unstable();
                let mut got = keys;
                sort_keyed(&mut got);
                assert!(got == want, "{len} keys, top mask {top:x}");
            }
        }
    }

    /// Empirical candidate rate against the S-curve: 400 independent pairs at
    /// each similarity; the count is Binomial(400, P(s)), so a 5σ band around
    /// 400·P(s) holds except with negligible probability.
    #[test]
    fn candidate_rate_follows_the_s_curve() {
        let banding = Banding { bands: 10, rows: 4 };
        let trials = 400;
        let mut rng = SplitMix64(5);
        for &(shared, only) in &[(300usize, 100usize), (200, 200), (100, 300)] {
            // Each set has `shared` common and `only` own elements:
            // J = shared / (shared + 2·only).
            let s = shared as f64 / (shared + 2 * only) as f64;
            let hasher = MinHasher::new(banding.signature_len(), rng.next_u64());
            let mut sigs = Vec::new();
            for _ in 0..trials {
                let common: Vec<u64> = (0..shared).map(|_| rng.next_u64()).collect();
                for _ in 0..2 {
                    let mut set = common.clone();
                    set.extend((0..only).map(|_| rng.next_u64()));
                    sigs.extend(hasher.sign(&set));
                }
            }
            let hits = candidate_pairs(&sigs, banding)
                .into_iter()
                .filter(|&(a, b)| a % 2 == 0 && b == a + 1)
                .count() as f64;
            let p = candidate_probability(s, banding.bands, banding.rows);
            let sigma = (trials as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (hits - trials as f64 * p).abs() <= 5.0 * sigma + 1.0,
                "s={s} hits={hits} p={p}"
            );
        }
    }
}
