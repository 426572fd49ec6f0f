//! The records scan of the common case — whole records (not `--per-field`),
//! text (not `sets`), LSH — without holding every record's set.
//!
//! A record's shingle set costs ~8 bytes a character of its text; held for
//! every record beside the signature matrix, the sets, the records as read
//! and a copy of the matrix for banding took 1.6 GB at a million short
//! records, 2.7 × the scan's memory bound (docs/PERFORMANCE.md, "Issue #22").
//! Here the records become columns as soon as they are read (texts in chunks
//! of records, ids in one arena), each set is made, signed and dropped, the
//! matrix is banded in place, and verification makes the two sets of each
//! candidate again from the texts (short: cheaper than holding them). When
//! the inputs can be read again ([`Reread`]: JSON Lines files), each chunk of
//! texts is freed once signed, and the candidates' records are read again at
//! their offsets once the matrix is freed: then no text is held beside the
//! matrix (at ten million records the texts were as much as 1/6 of it). The
//! outcome is the one [`super::scan_records`] gives by holding the sets: the
//! same signatures, candidates, similarities, counts and notes; a record
//! that changed before it was read again is a warning naming its file and
//! line, and its pairs are dropped and counted as errors.

use rayon::prelude::*;

use super::{RecordOutcome, Verification};
use crate::input::records::{Records, Reread};
use crate::lsh;
use crate::model::{DocPairs, DocStatus, Document, SimilarPair};
use crate::pipeline::pairs::release_free_pages;
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

/// Records per chunk of texts (2^SHIFT): what is freed at once after
/// signing, a few MB of short texts; each freeing returns its pages.
const SHIFT: usize = 18;

/// The records' texts, in chunks of 2^[`SHIFT`] records.
#[derive(Default)]
struct Texts {
    chunks: Vec<Arena>,
}

impl Texts {
    fn push(&mut self, parts: &[String], count: usize) {
        let records = self.chunks.len() << SHIFT;
        if self
            .chunks
            .last()
            .is_none_or(|c| c.ends.len() == 1 << SHIFT)
        {
            let mut chunk = Arena::default();
            chunk.ends.reserve_exact((count - records).min(1 << SHIFT));
            self.chunks.push(chunk);
        }
        let last = self.chunks.last_mut().expect("a chunk was pushed");
        last.push(parts);
        if last.ends.len() == 1 << SHIFT {
            last.bytes.shrink_to_fit();
        }
    }

    fn get(&self, i: usize) -> &[u8] {
        self.chunks[i >> SHIFT].get(i & ((1 << SHIFT) - 1))
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
    let reread = records.reread;
    // Columns, each record's strings freed as it is moved in.
    let count = records.records.len();
    let mut texts = Texts::default();
    let mut ids = Arena::default();
    // A record's size (its fields' bytes), 32 bits with the few wider listed.
    let mut sizes: Vec<u32> = Vec::with_capacity(count);
    let mut wide_sizes: Vec<(u32, u64)> = Vec::new();
    // Records come in input order: each input's first record.
    let mut input_starts: Vec<(u32, u32)> = Vec::new();
    let mut offsets: Vec<u64> = Vec::with_capacity(if reread.is_some() { count } else { 0 });
    ids.ends.reserve_exact(count);
    for (i, r) in records.records.into_iter().enumerate() {
        texts.push(&r.fields, count);
        let size = r.len();
        sizes.push(u32::try_from(size).unwrap_or_else(|_| {
            wide_sizes.push((i as u32, size));
            u32::MAX
        }));
        ids.push(std::slice::from_ref(&r.id));
        if input_starts
            .last()
            .is_none_or(|&(input, _)| input != r.origin.input)
        {
            input_starts.push((r.origin.input, i as u32));
        }
        if reread.is_some() {
            offsets.push(r.origin.offset);
        }
    }
    ids.bytes.shrink_to_fit();
    // The records' strings are freed, but their pages stay resident between
    // the columns' (glibc returns only a heap's top) under the matrix to come.
    release_free_pages();

    let size = |i: usize| match wide_sizes.binary_search_by_key(&(i as u32), |&(i, _)| i) {
        Ok(at) => wide_sizes[at].1,
        Err(_) => u64::from(sizes[i]),
    };
    let input_of = |i: u32| {
        let at = input_starts.partition_point(|&(_, first)| first <= i);
        input_starts[at - 1].0
    };
    let recipe = &config.recipe;
    let n = recipe.banding.signature_len();
    let sketcher = recipe.sketcher();
    reporter.begin(Stage::Sign, Some(count as u64));
    // Zeroed pages are not resident until a row is written: the matrix
    // grows into memory as the texts signed are freed.
    let mut matrix = vec![0u32; count * n];
    let mut shingles = vec![0u32; count];
    for c in 0..texts.chunks.len() {
        let first = c << SHIFT;
        let chunk = &texts.chunks[c];
        let len = chunk.ends.len();
        matrix[first * n..(first + len) * n]
            .par_chunks_mut(CHUNK * n)
            .zip(shingles[first..first + len].par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(t, (rows, counts))| {
                let done = counts.len() as u64;
                for (k, (row, len)) in rows.chunks_exact_mut(n).zip(counts).enumerate() {
                    let set = recipe.set_of(chunk.get(t * CHUNK + k));
                    if !set.is_empty() {
                        sketcher.sign_into(&set, row);
                    }
                    *len = u32::try_from(set.len()).unwrap_or(u32::MAX);
                }
                reporter.advance(done);
            });
        if reread.is_some() {
            texts.chunks[c] = Arena::default();
            release_free_pages();
        }
    }
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
    let cross = |a: u32, b: u32| !link || input_of(a) != input_of(b);
    let candidates: Vec<(u32, u32)> = if items.is_empty() {
        Vec::new()
    } else {
        lsh::candidate_pairs(&matrix, recipe.banding)
    };
    reporter.end(Stage::Band);
    // Candidates as records, with their signatures' estimate: the matrix is
    // not needed after this.
    let candidates: Vec<(u32, u32, f64)> = candidates
        .into_par_iter()
        .map(|(x, y)| {
            let (ra, rb) = (
                &matrix[x as usize * n..][..n],
                &matrix[y as usize * n..][..n],
            );
            let estimate = ra.iter().zip(rb).filter(|(p, q)| p == q).count() as f64 / n as f64;
            (items[x as usize], items[y as usize], estimate)
        })
        .filter(|&(a, b, _)| cross(a, b))
        .collect();
    drop(matrix);
    drop(items);
    stats.candidates = candidates.len() as u64;
    stats.signatures = stats.unique_contents;

    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let by_signature = config.verification == Verification::Signature;
    // With the texts freed: the candidates' records read again.
    let again = match &reread {
        Some(reread) if !by_signature => Some(read_again(
            reread,
            &candidates,
            &offsets,
            &input_of,
            &ids,
            &size,
        )),
        _ => None,
    };
    let text = |i: u32| match &again {
        Some(again) => again.text(i),
        None => Some(texts.get(i as usize)),
    };
    let scored: Vec<Result<Option<SimilarPair>, [Option<u32>; 2]>> = candidates
        .par_iter()
        .map(|&(a, b, estimate)| {
            let (similarity, shared) = if by_signature {
                (estimate, None)
            } else {
                let set = |i: u32| {
                    let set = recipe.set_of(text(i).ok_or(i)?);
                    // A record whose text changed since it was signed.
                    if set.len() != shingles[i as usize] as usize {
                        return Err(i);
                    }
                    Ok(set)
                };
                let (sa, sb) = match (set(a), set(b)) {
                    (Ok(sa), Ok(sb)) => (sa, sb),
                    (sa, sb) => return Err([sa.err(), sb.err()]),
                };
                let common = sets::intersection_size(&sa, &sb);
                (
                    sets::ratio(common, sa.len() + sb.len() - common),
                    Some(common),
                )
            };
            reporter.advance(1);
            Ok((similarity >= config.threshold).then_some(SimilarPair {
                a,
                b,
                similarity,
                estimate: Some(estimate),
                shared,
            }))
        })
        .collect();
    reporter.end(Stage::Verify);
    drop(texts);
    let mut changed: Vec<u32> = scored
        .iter()
        .filter_map(|r| r.err())
        .flatten()
        .flatten()
        .collect();
    changed.extend(again.iter().flat_map(|again| again.changed.iter().copied()));
    changed.sort_unstable();
    changed.dedup();
    if let (Some(reread), Some(again)) = (&reread, &again) {
        for &i in &changed {
            let input = input_of(i);
            let offset = offsets[i as usize];
            let line = reread.line_of(input, offset);
            let place = format!("{}:{line}", reread.name(input));
            let id = String::from_utf8_lossy(ids.get(i as usize));
            let why = again.why(i).unwrap_or("its text is another");
            reporter.warn(
                std::path::Path::new(&place),
                &format!(
                    "record '{id}' changed while the scan ran ({why}); its candidate pairs \
                     are not verified"
                ),
            );
        }
        stats.errors += changed.len() as u64;
    }
    let between: Vec<SimilarPair> = scored
        .into_iter()
        .filter_map(Result::ok)
        .flatten()
        .filter(|p| changed.binary_search(&p.a).is_err() && changed.binary_search(&p.b).is_err())
        .collect();
    stats.pairs = between.len() as u64;

    let documents: Vec<Document> = (0..count)
        .map(|i| Document {
            size: size(i),
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

/// The texts of the candidates' records, read again at their offsets.
struct Again {
    /// The records read, ascending.
    records: Vec<u32>,
    /// Their texts, in that order.
    texts: Arena,
    /// Records whose id or size is not the one first read, or that could
    /// not be read, ascending, with why.
    changed: Vec<u32>,
    why: Vec<String>,
}

impl Again {
    fn text(&self, i: u32) -> Option<&[u8]> {
        let at = self.records.binary_search(&i).ok()?;
        (self.changed.binary_search(&i).is_err()).then(|| self.texts.get(at))
    }

    fn why(&self, i: u32) -> Option<&str> {
        let at = self.changed.binary_search(&i).ok()?;
        Some(&self.why[at])
    }
}

/// Reads the records of `candidates` again (see [`Again`]).
fn read_again(
    reread: &Reread,
    candidates: &[(u32, u32, f64)],
    offsets: &[u64],
    input_of: &dyn Fn(u32) -> u32,
    ids: &Arena,
    size: &dyn Fn(usize) -> u64,
) -> Again {
    let mut records: Vec<u32> = candidates.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    records.sort_unstable();
    records.dedup();
    let at: Vec<(u32, u64)> = records
        .iter()
        .map(|&i| (input_of(i), offsets[i as usize]))
        .collect();
    let mut again = Again {
        texts: Arena::default(),
        changed: Vec::new(),
        why: Vec::new(),
        records: Vec::new(),
    };
    again.texts.ends.reserve_exact(records.len());
    reread.read_at(&at, &mut |k, found| {
        let i = records[k];
        let problem = match found {
            Err(err) => Some(err.reason),
            Ok(r) if r.id.as_bytes() != ids.get(i as usize) => {
                Some(format!("record '{}' is there now", r.id))
            }
            Ok(r) if r.len() != size(i as usize) => Some("its text is another".into()),
            Ok(r) => {
                again.texts.push(&r.fields);
                None
            }
        };
        if let Some(problem) = problem {
            again.texts.push(&[]);
            again.changed.push(i);
            again.why.push(problem);
        }
    });
    again.records = records;
    again
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
            reread: None,
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
