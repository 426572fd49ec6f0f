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
    // A record's size is its text's length less the spaces joining its
    // fields, which is one fewer than the number of fields for every record
    // of a uniform input: only the others are listed (8 bytes a record less).
    let joints = records.fields.len().saturating_sub(1) as u64;
    let mut other_sizes: Vec<(u32, u64)> = Vec::new();
    let mut input_of: Vec<u32> = Vec::with_capacity(if link { count } else { 0 });
    texts.ends.reserve_exact(count);
    ids.ends.reserve_exact(count);
    for (i, r) in records.records.into_iter().enumerate() {
        texts.push(&r.fields);
        if r.len() + joints != texts.get(i).len() as u64 {
            other_sizes.push((i as u32, r.len()));
        }
        ids.push(std::slice::from_ref(&r.id));
        if link {
            input_of.push(r.origin.input);
        }
    }
    texts.bytes.shrink_to_fit();
    ids.bytes.shrink_to_fit();
    // The records' strings are freed, but their pages stay resident between
    // the columns' (glibc returns only a heap's top) under the matrix to come.
    crate::pipeline::pairs::release_free_pages();

    let size = |i: usize| match other_sizes.binary_search_by_key(&(i as u32), |&(i, _)| i) {
        Ok(at) => other_sizes[at].1,
        Err(_) => texts.get(i).len() as u64 - joints,
    };
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
        stats.bytes += size(i);
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
    let sizes: Vec<u64> = (0..count).map(size).collect();
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
    use super::super::{RecordConfig, scan_held};
    use super::*;
    use crate::input::kind::InputKind;
    use crate::input::read::ReadOptions;
    use crate::input::records::{Origin, Record};
    use crate::input::walk::WalkOptions;
    use crate::lsh::Banding;
    use crate::pipeline::plan::MethodChoice;
    use crate::progress::Silent;
    use crate::recipe::Recipe;
    use crate::sketch::SketchKind;
    use crate::text::normalize::Normalization;
    use crate::text::shingle::{ShingleKind, Shingler, StopWords};

    /// Two inputs of two-field records: near-copies (one word changed, some
    /// across the inputs), exact copies, empty and one-shingle records, and
    /// records with fewer fields than the others.
    fn records() -> Records {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];
        let mut records = Vec::new();
        for i in 0..120usize {
            let mut fields: Vec<String> = (0..2)
                .map(|f| {
                    (0..4 + (i * 7 + f) % 5)
                        .map(|w| words[(i * 31 + f * 11 + w * 5) % words.len()])
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            match i % 10 {
                1 => fields.clone_from(&records.last().map_or(fields.clone(), |r: &Record| {
                    let mut near = r.fields.clone();
                    near[1].push_str(" theta");
                    near
                })),
                2 => fields = vec![String::new(), String::new()],
                3 => fields = vec!["ab".into(), String::new()],
                4 => fields.truncate(1),
                _ => {}
            }
            records.push(Record {
                id: format!("r{i}"),
                fields,
                origin: Origin {
                    input: u32::from(i >= 60),
                    line: i as u64 + 1,
                    offset: 0,
                },
            });
        }
        Records {
            fields: vec!["title".into(), "body".into()],
            records,
            skipped: 3,
        }
    }

    fn config(verification: Verification, sketch: SketchKind) -> ScanConfig {
        ScanConfig {
            roots: Vec::new(),
            walk: WalkOptions::default(),
            read: ReadOptions::default(),
            recipe: Recipe {
                include_binary: false,
                normalization: Normalization::default(),
                shingler: Shingler::new(ShingleKind::Char, 3, StopWords::default()),
                banding: Banding { bands: 8, rows: 2 },
                seed: 11,
                sketch,
            },
            threshold: 0.3,
            verification,
            verify_memory: 1 << 30,
            exact_index: None,
            method: MethodChoice::Auto,
        }
    }

    #[test]
    fn columns_give_what_held_sets_give() {
        for link in [false, true] {
            for verification in [Verification::Exact, Verification::Signature] {
                for sketch in [SketchKind::Classic, SketchKind::Oph] {
                    let config = config(verification, sketch);
                    let record = RecordConfig {
                        kind: InputKind::Jsonl,
                        per_field: false,
                        weights: Vec::new(),
                        link,
                        candidate_fields: Vec::new(),
                    };
                    let reason = "why".to_string();
                    let held = scan_held(
                        records(),
                        &config,
                        &record,
                        Method::Lsh,
                        reason.clone(),
                        &Silent,
                    );
                    let compact = scan(records(), &config, link, reason, &Silent);
                    let (held, compact) = (held.outcome, compact.outcome);
                    let what = format!("link {link}, {verification:?}, {sketch:?}");
                    assert!(held.pairs.len() > 3, "{what}: the corpus has pairs");
                    assert_eq!(
                        held.pairs.iter().collect::<Vec<_>>(),
                        compact.pairs.iter().collect::<Vec<_>>(),
                        "{what}"
                    );
                    assert_eq!(
                        format!("{:?}", held.documents),
                        format!("{:?}", compact.documents),
                        "{what}"
                    );
                    assert_eq!(
                        format!("{:?}", held.stats),
                        format!("{:?}", compact.stats),
                        "{what}"
                    );
                    assert!(held.stats.no_shingles > 0 && held.stats.candidates > 0);
                }
            }
        }
    }

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
