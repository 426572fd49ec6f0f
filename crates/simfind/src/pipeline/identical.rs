//! Identical files (MMDS 3.9.1): `scan --identical-by`. Only files of the same
//! size can be identical; among those, a cheap hash — of the first `N` bytes,
//! or of the bytes at `N` fixed random positions — puts files into buckets,
//! and only files sharing a bucket are hashed in full (XXH3-128, the content
//! hash of the scan). A file alone in its size or its bucket is never read in
//! full: the chapter's point. The full hash decides, so the cheap hash can
//! only cost reads, never report a false pair; the result is the same as
//! hashing every file in full (`full`), which the tests check.
//!
//! Empty files pair nothing (as in the scan: an empty set is not "identical").

use std::collections::HashMap;

use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

pub use super::config::IdenticalBy;
use super::plan::{Decision, Method, Reason};
use super::{ScanConfig, ScanOutcome, ScanStats, walk_files};
use crate::input::read;
use crate::input::walk::FileEntry;
use crate::model::{DocPairs, DocStatus, SimilarPair};
use crate::progress::{Reporter, Stage};
use crate::source::{FileSource, Source};

/// The positions sampled in a file of `size` bytes: `n` fractions of the
/// length drawn from a fixed seed (splitmix64), sorted, duplicates kept.
fn positions(n: u64, size: u64) -> Vec<u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ 3_091;
    let mut out: Vec<u64> = (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            // A fraction of the length: ((z / 2^64) · size), exactly.
            ((z as u128 * size as u128) >> 64) as u64
        })
        .collect();
    out.sort_unstable();
    out
}

/// The cheap key of `bytes` (the whole file; only the bytes `by` names are
/// looked at, so a mapped file's other pages are never read).
fn cheap_key(bytes: &[u8], by: IdenticalBy) -> u64 {
    match by {
        IdenticalBy::Full => 0,
        IdenticalBy::Prefix(n) => xxh3_64(&bytes[..bytes.len().min(n as usize)]),
        IdenticalBy::Positions(n) => {
            let len = bytes.len() as u64;
            let sampled: Vec<u8> = positions(n.min(len), len)
                .into_iter()
                .map(|p| bytes[p as usize])
                .collect();
            xxh3_64(&sampled)
        }
    }
}

/// What `--identical-by` did, beside the scan's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdenticalStats {
    /// Files whose size no other file has: not read at all.
    pub unique_size: u64,
    /// Files read for the cheap key only (alone in their bucket).
    pub cheap_only: u64,
    /// Files hashed in full.
    pub full: u64,
    /// Bytes the cheap keys and full hashes looked at.
    pub bytes_examined: u64,
}

/// Groups of `members` (file ids) by `key`, each group of two or more, in
/// the order of their first member.
fn groups<K: std::hash::Hash + Eq>(keyed: Vec<(u32, K)>) -> Vec<Vec<u32>> {
    let mut by: HashMap<K, Vec<u32>> = HashMap::new();
    for (id, key) in keyed {
        by.entry(key).or_default().push(id);
    }
    let mut out: Vec<Vec<u32>> = by.into_values().filter(|g| g.len() > 1).collect();
    for g in &mut out {
        g.sort_unstable();
    }
    out.sort_unstable_by_key(|g| g[0]);
    out
}

/// What [`identical_sets`] found among the files it was given.
pub(crate) struct IdenticalSets {
    /// Each set of two or more byte-identical files (ids as given),
    /// increasing, the sets in the order of their first member.
    pub sets: Vec<Vec<u32>>,
    /// Files that could not be read, in id order, with the reason.
    pub failed: Vec<(u32, read::ReadError)>,
    pub stats: IdenticalStats,
}

/// The sets of byte-identical files among `ids` (indices into `files`,
/// increasing): size first, then the cheap key `by` names, then the full
/// XXH3-128 of the files still sharing a bucket, each pass in parallel
/// (`open(id)` reads file `id`). A
/// file whose size no other file among `ids` has is never opened. Empty
/// files pair nothing. Shared by `--identical-by` and the scan's pairing of
/// identical binary files (`pairs.rs`), so both decide identity alike.
pub(crate) fn identical_sets(
    files: &[FileEntry],
    ids: &[u32],
    by: IdenticalBy,
    open: &(dyn Fn(usize) -> Result<crate::source::Document, read::ReadError> + Sync),
) -> IdenticalSets {
    let mut extra = IdenticalStats::default();
    let by_size = groups(
        ids.iter()
            .filter(|&&i| files[i as usize].size > 0)
            .map(|&i| (i, files[i as usize].size))
            .collect(),
    );
    let sized: u64 = by_size.iter().map(|g| g.len() as u64).sum();
    extra.unique_size = ids.iter().filter(|&&i| files[i as usize].size > 0).count() as u64 - sized;

    // One pass of reads: `key(bytes)` of each file of `ids`, or the error.
    let pass = |ids: &[u32], key: &(dyn Fn(&[u8]) -> (u64, u128) + Sync)| {
        ids.par_iter()
            .map(|&id| (id, open(id as usize).map(|c| key(c.raw()))))
            .collect::<Vec<_>>()
    };
    let mut failed = Vec::new();
    type Keyed = Vec<(u32, Result<(u64, u128), read::ReadError>)>;
    let keep = |results: Keyed, failed: &mut Vec<(u32, read::ReadError)>| {
        let mut ok = Vec::new();
        for (id, result) in results {
            match result {
                Ok(key) => ok.push((id, key)),
                Err(err) => failed.push((id, err)),
            }
        }
        ok
    };

    let candidates: Vec<u32> = by_size.iter().flatten().copied().collect();
    let buckets: Vec<Vec<u32>> = if by == IdenticalBy::Full {
        by_size
    } else {
        let cheap = pass(&candidates, &|bytes| (cheap_key(bytes, by), 0));
        let keyed = keep(cheap, &mut failed);
        extra.bytes_examined += keyed
            .iter()
            .map(|(id, _)| {
                let size = files[*id as usize].size;
                match by {
                    IdenticalBy::Prefix(n) => size.min(n),
                    IdenticalBy::Positions(n) => n.min(size),
                    IdenticalBy::Full => size,
                }
            })
            .sum::<u64>();
        groups(
            keyed
                .into_iter()
                .map(|(id, (key, _))| (id, (files[id as usize].size, key)))
                .collect(),
        )
    };
    let in_buckets: Vec<u32> = buckets.iter().flatten().copied().collect();
    let full = pass(&in_buckets, &|bytes| (0, xxh3_128(bytes)));
    let keyed = keep(full, &mut failed);
    extra.full = keyed.len() as u64;
    extra.cheap_only = (candidates.len() - in_buckets.len()) as u64;
    extra.bytes_examined += keyed
        .iter()
        .map(|(id, _)| files[*id as usize].size)
        .sum::<u64>();
    let sets = groups(
        keyed
            .into_iter()
            .map(|(id, (_, hash))| (id, (files[id as usize].size, hash)))
            .collect(),
    );
    failed.sort_unstable_by_key(|(id, _)| *id);
    IdenticalSets {
        sets,
        failed,
        stats: extra,
    }
}

/// Finds every set of byte-identical files under the roots; see the module
/// documentation. Unreadable files are warned about and counted as errors.
pub fn find_identical(
    config: &ScanConfig,
    by: IdenticalBy,
    reporter: &dyn Reporter,
) -> (ScanOutcome, IdenticalStats) {
    let mut stats = ScanStats::default();
    let files = walk_files(config, reporter, &mut stats);
    let mut documents: Vec<_> = files.iter().cloned().map(document_of).collect();
    let sized = {
        let mut sizes: HashMap<u64, u32> = HashMap::new();
        for f in files.iter().filter(|f| f.size > 0) {
            *sizes.entry(f.size).or_default() += 1;
        }
        sizes.values().filter(|&&n| n > 1).map(|&n| n as u64).sum()
    };

    reporter.begin(Stage::Sign, Some(sized));
    // Identical means byte-identical: the files are hashed as they are.
    let raw = crate::input::read::ReadOptions {
        extract: crate::input::extract::Extract::NONE,
        ..config.read.clone()
    };
    let source = FileSource::new(&files, config.walk.follow_links, &raw);
    let all: Vec<u32> = (0..files.len() as u32).collect();
    let found = identical_sets(&files, &all, by, &|id| source.open(id));
    reporter.advance(sized);
    reporter.end(Stage::Sign);
    let extra = found.stats;
    let same = found.sets;

    for (id, err) in &found.failed {
        err.warn(reporter, &files[*id as usize].path);
        documents[*id as usize].status = DocStatus::Failed;
    }
    stats.errors += found.failed.len() as u64;
    stats.bytes = extra.bytes_examined;
    stats.identical_files = same.iter().map(|g| g.len() as u64 - 1).sum();
    stats.unique_contents = same.len() as u64;
    stats.candidates = extra.full;
    let pairs = DocPairs::new(
        same.iter().map(|g| (&g[..], Some(SimilarPair::IDENTICAL))),
        Vec::new(),
    );
    stats.pairs = pairs.len();
    let outcome = ScanOutcome {
        documents,
        pairs,
        stats,
        decision: Decision {
            method: Method::Exact,
            reason: Reason::Identical(by),
        },
    };
    (outcome, extra)
}

/// The document of a walked file, before it is read.
fn document_of(file: crate::input::walk::FileEntry) -> crate::model::Document {
    crate::model::Document {
        path: file.path.into_boxed_path(),
        size: file.size,
        modified: file.modified,
        shingles: 0,
        status: crate::model::DocStatus::Read,
    }
}
