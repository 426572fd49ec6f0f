//! The records scan of the common case — whole records (not `--per-field`),
//! text (not `sets`), LSH — without holding every record's set.
//!
//! A record's shingle set costs ~8 bytes a character of its text; held for
//! every record beside the signature matrix, the sets, the records as read
//! and a copy of the matrix for banding took 1.6 GB at a million short
//! records, 2.7 × the scan's memory bound (docs/PERFORMANCE.md, "Issue #22").
//! Here the records become columns as soon as they are read (one arena of
//! texts, one of ids), each set is made, signed and dropped, the matrix is
//! banded in place, and verification makes the two sets of each candidate
//! again from the texts (short: cheaper than holding them). The outcome is
//! the one [`super::scan_records`] gives by holding the sets: the same
//! signatures, candidates, similarities, counts and notes.

use rayon::prelude::*;

use super::{RecordOutcome, Verification};
use crate::input::records::Records;
use crate::lsh;
use crate::model::{DocPairs, DocStatus, Document, SimilarPair};
use crate::pipeline::plan::{Decision, Method};
use crate::pipeline::{ScanConfig, ScanOutcome, ScanStats};
use crate::progress::{Reporter, Stage};
use crate::similarity::sets;
use crate::sketch::Sketcher;

/// Byte strings one after the other, by index.
#[derive(Default)]
struct Arena {
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

impl Arena {
    fn push(&mut self, parts: &[String]) {
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                self.bytes.push(b' ');
            }
            self.bytes.extend_from_slice(part.as_bytes());
        }
        self.ends.push(self.bytes.len() as u64);
    }

    fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
}

/// Records per parallel task while signing: enough to make a task's
/// bookkeeping negligible, few enough to balance.
const CHUNK: usize = 4096;

/// [`super::scan_records`] for whole text records under LSH (see the module
/// doc). `reason` is the decision's, `link` as [`super::RecordConfig::link`].
pub(super) fn scan(
    records: Records,
    config: &ScanConfig,
    link: bool,
    reason: String,
    reporter: &dyn Reporter,
) -> RecordOutcome {
    let mut stats = ScanStats {
        files: records.records.len() as u64,
        errors: records.skipped,
        ..ScanStats::default()
    };
    // Columns, each record's strings freed as it is moved in.
    let count = records.records.len();
    let mut texts = Arena::default();
    let mut ids = Arena::default();
    let mut sizes: Vec<u64> = Vec::with_capacity(count);
    let mut input_of: Vec<u32> = Vec::with_capacity(if link { count } else { 0 });
    texts.ends.reserve_exact(count);
    ids.ends.reserve_exact(count);
    for r in records.records {
        sizes.push(r.len());
        texts.push(&r.fields);
        ids.push(std::slice::from_ref(&r.id));
        if link {
            input_of.push(r.origin.input);
        }
    }
    texts.bytes.shrink_to_fit();
    ids.bytes.shrink_to_fit();

    let recipe = &config.recipe;
    let n = recipe.banding.signature_len();
    let sketcher = recipe.sketcher();
    reporter.begin(Stage::Sign, Some(count as u64));
    let mut matrix = vec![0u32; count * n];
    let mut shingles = vec![0u32; count];
    matrix
        .par_chunks_mut(CHUNK * n)
        .zip(shingles.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (rows, counts))| {
            let done = counts.len() as u64;
            for (k, (row, len)) in rows.chunks_exact_mut(n).zip(counts).enumerate() {
                let set = recipe.set_of(texts.get(c * CHUNK + k));
                if !set.is_empty() {
                    sketcher.sign_into(&set, row);
                }
                *len = u32::try_from(set.len()).unwrap_or(u32::MAX);
            }
            reporter.advance(done);
        });
    reporter.end(Stage::Sign);
    for (i, &len) in shingles.iter().enumerate() {
        stats.bytes += sizes[i];
        if len == 0 {
            stats.no_shingles += 1;
            reporter.note(
                std::path::Path::new(std::ffi::OsStr::new(
                    std::str::from_utf8(ids.get(i)).expect("ids are strings"),
                )),
                &"record with no shingle (empty or shorter than one shingle): never paired",
            );
        }
    }
    stats.unique_contents = shingles.iter().filter(|&&len| len > 0).count() as u64;

    // The rows of the non-empty records, moved up in place (item order is
    // record order).
    reporter.begin(Stage::Band, None);
    let items: Vec<u32> = (0..count as u32)
        .filter(|&i| shingles[i as usize] > 0)
        .collect();
    if items.len() < count {
        for (k, &i) in items.iter().enumerate() {
            let i = i as usize;
            if i != k {
                matrix.copy_within(i * n..(i + 1) * n, k * n);
            }
        }
        matrix.truncate(items.len() * n);
        matrix.shrink_to_fit();
    }
    let cross = |a: u32, b: u32| !link || input_of[a as usize] != input_of[b as usize];
    let candidates: Vec<(u32, u32)> = if items.is_empty() {
        Vec::new()
    } else {
        lsh::candidate_pairs(&matrix, recipe.banding)
    };
    reporter.end(Stage::Band);
    let candidates: Vec<(u32, u32)> = candidates
        .into_iter()
        .filter(|&(a, b)| cross(items[a as usize], items[b as usize]))
        .collect();
    stats.candidates = candidates.len() as u64;
    stats.signatures = stats.unique_contents;

    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let by_signature = config.verification == Verification::Signature;
    let scored: Vec<Option<SimilarPair>> = candidates
        .par_iter()
        .map(|&(x, y)| {
            let (ra, rb) = (
                &matrix[x as usize * n..][..n],
                &matrix[y as usize * n..][..n],
            );
            let estimate = ra.iter().zip(rb).filter(|(p, q)| p == q).count() as f64 / n as f64;
            let (a, b) = (items[x as usize], items[y as usize]);
            let (similarity, shared) = if by_signature {
                (estimate, None)
            } else {
                let sa = recipe.set_of(texts.get(a as usize));
                let sb = recipe.set_of(texts.get(b as usize));
                let common = sets::intersection_size(&sa, &sb);
                (
                    sets::ratio(common, sa.len() + sb.len() - common),
                    Some(common),
                )
            };
            reporter.advance(1);
            (similarity >= config.threshold).then_some(SimilarPair {
                a,
                b,
                similarity,
                estimate: Some(estimate),
                shared,
            })
        })
        .collect();
    reporter.end(Stage::Verify);
    drop(matrix);
    drop(texts);
    let between: Vec<SimilarPair> = scored.into_iter().flatten().collect();
    stats.pairs = between.len() as u64;

    let documents: Vec<Document> = (0..count)
        .map(|i| Document {
            size: sizes[i],
            path: std::path::PathBuf::from(std::ffi::OsStr::new(
                std::str::from_utf8(ids.get(i)).expect("ids are strings"),
            ))
            .into_boxed_path(),
            modified: None,
            shingles: shingles[i],
            status: DocStatus::Read,
        })
        .collect();
    drop(ids);
    let record_ids: Vec<u32> = (0..count as u32).collect();
    let contents = record_ids.iter().map(|i| (std::slice::from_ref(i), None));
    let pairs = DocPairs::new(contents, between);
    RecordOutcome {
        outcome: ScanOutcome {
            documents,
            pairs,
            stats,
            decision: Decision {
                method: Method::Lsh,
                reason,
            },
        },
        fields: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arena_gives_back_each_record_joined_by_spaces() {
        let mut arena = Arena::default();
        arena.push(&["a".into(), "bc".into()]);
        arena.push(&[]);
        arena.push(&["".into(), "".into()]);
        arena.push(&["\u{e9}t\u{e9}".into()]);
        assert_eq!(arena.ends.len(), 4);
        assert_eq!(arena.get(0), b"a bc");
        assert_eq!(arena.get(1), b"");
        assert_eq!(arena.get(2), b" ");
        assert_eq!(arena.get(3), "\u{e9}t\u{e9}".as_bytes());
    }
}
