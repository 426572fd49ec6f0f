//! The records scan of the common case — whole records (not `--per-field`),
//! text (not `sets`), LSH — without holding every record's set.
//!
//! A record's shingle set costs ~8 bytes a character of its text; held for
//! every record beside the signature matrix, the sets, the records as read
//! and a copy of the matrix for banding took 1.6 GB at a million short
//! records, 2.7 × the scan's memory bound (docs/PERFORMANCE.md, "Issue #22").
//! Here the records become columns as soon as they are read (texts in chunks
//! of records, ids in one arena), each set is made, signed and dropped, the
//! matrix is banded in place, and verification makes the set of each
//! candidate's record again from its text, once, held within the verify
//! budget until its last candidate is verified (`verify::verify_exact`, the
//! files scan's verifier; short texts: cheaper than holding every set). When
//! the inputs can be read again ([`Reread`]: JSON Lines, CSV, TSV files), each chunk of
//! texts is freed once signed, and the candidates' records are read again at
//! their offsets once the matrix is freed: then no text is held beside the
//! matrix (at ten million records the texts were as much as 1/6 of it). The
//! outcome is the one [`super::scan_records`] gives by holding the sets: the
//! same signatures, candidates, similarities, counts and notes; a record
//! that changed before it was read again is a warning naming its file and
//! line, and its pairs are dropped and counted as errors.

use rayon::prelude::*;

mod ids;
#[cfg(test)]
mod tests;

use self::ids::Ids;
use super::{RecordOutcome, Verification};
use crate::input::records::{Records, Reread};
use crate::lsh;
use crate::model::{DocPairs, DocStatus, Document, SimilarPair};
use crate::pipeline::pairs::release_free_pages;
use crate::pipeline::plan::{Decision, Method, Reason};
use crate::pipeline::shingles::{Buffers, sorted_shingles_into};
use crate::pipeline::{ScanConfig, ScanOutcome};
use crate::progress::{Reporter, Stage};
use crate::recipe::Recipe;
use crate::similarity::verify;
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
/// signing, a few MB of short texts; each freeing returns its pages. (Tests
/// use chunks of 16, so that their hundred records span several.)
const SHIFT: usize = if cfg!(test) { 4 } else { 18 };

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

/// The sorted shingle set of `text` in `buffers`, made as the files scan
/// makes it (a repeat filter, then a sort of what passes: a third of the
/// sorting of every window, which was half of a records scan's time); the
/// set [`Recipe::set_of`] gives.
fn set_into<'b>(text: &[u8], recipe: &Recipe, buffers: &'b mut Buffers) -> &'b [u64] {
    sorted_shingles_into(text, recipe, buffers);
    &buffers.set
}

thread_local! {
    /// Verification's buffers, one per worker thread (its loads are calls
    /// of a shared closure).
    static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::default();
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
    (reason, presigned): (Reason, Option<super::Presigned>),
    reporter: &dyn Reporter,
) -> RecordOutcome {
    let mut stats = super::stats_of(&records);
    let reread = records.reread;
    // Columns, each record's strings freed as it is moved in.
    let count = records.records.len();
    let mut texts = Texts::default();
    let mut ids = Ids::with_capacity(count);
    // A record's size (its fields' bytes), 32 bits with the few wider listed.
    let mut sizes: Vec<u32> = Vec::with_capacity(count);
    let mut wide_sizes: Vec<(u32, u64)> = Vec::new();
    // Records come in input order: each input's first record.
    let mut input_starts: Vec<(u32, u32)> = Vec::new();
    let mut offsets: Vec<u64> = Vec::with_capacity(if reread.is_some() { count } else { 0 });
    // And a hash of each text, to tell a record changed before it is read
    // again (its id and size could stay).
    let mut hashes: Vec<u32> = Vec::with_capacity(if reread.is_some() { count } else { 0 });
    for (i, r) in records.records.into_iter().enumerate() {
        texts.push(&r.fields, count);
        let size = r.len();
        sizes.push(u32::try_from(size).unwrap_or_else(|_| {
            wide_sizes.push((i as u32, size));
            u32::MAX
        }));
        ids.push(r.id.as_bytes());
        if input_starts
            .last()
            .is_none_or(|&(input, _)| input != r.origin.input)
        {
            input_starts.push((r.origin.input, i as u32));
        }
        if reread.is_some() {
            offsets.push(r.origin.offset);
            hashes.push(text_hash(texts.get(i)));
        }
    }
    ids.shrink_to_fit();
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
    // Signed before the scan (an index's signatures): nothing to sign, and
    // the texts can go at once when they can be read again.
    let signed = presigned.is_some();
    let (mut matrix, mut shingles) = match presigned {
        Some(p) => (p.matrix, p.shingles),
        // Zeroed pages are not resident until a row is written: the matrix
        // grows into memory as the texts signed are freed.
        None => (vec![0u32; count * n], vec![0u32; count]),
    };
    for c in 0..texts.chunks.len() {
        if signed {
            if reread.is_some() {
                texts.chunks[c] = Arena::default();
            }
            continue;
        }
        let first = c << SHIFT;
        let chunk = &texts.chunks[c];
        let len = chunk.ends.len();
        matrix[first * n..(first + len) * n]
            .par_chunks_mut(CHUNK * n)
            .zip(shingles[first..first + len].par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(t, (rows, counts))| {
                let done = counts.len() as u64;
                let mut buffers = Buffers::default();
                for (k, (row, len)) in rows.chunks_exact_mut(n).zip(counts).enumerate() {
                    if reporter.cancelled() {
                        return;
                    }
                    let set = set_into(chunk.get(t * CHUNK + k), recipe, &mut buffers);
                    if !set.is_empty() {
                        sketcher.sign_into(set, row);
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
                    std::str::from_utf8(&ids.get(i)).expect("ids are strings"),
                )),
                &"record with no shingle (empty or shorter than one shingle): never paired",
            );
        }
    }
    stats.unique_contents = shingles.iter().filter(|&&len| len > 0).count() as u64;

    reporter.begin(Stage::Band, None);
    // The rows of the non-empty records, moved up in place (item order is
    // record order); none moved, no list, when every record has shingles.
    let items: Option<Vec<u32>> = shingles.contains(&0).then(|| {
        let items: Vec<u32> = (0..count as u32)
            .filter(|&i| shingles[i as usize] > 0)
            .collect();
        for (k, &i) in items.iter().enumerate() {
            let i = i as usize;
            if i != k {
                matrix.copy_within(i * n..(i + 1) * n, k * n);
            }
        }
        matrix.truncate(items.len() * n);
        matrix.shrink_to_fit();
        items
    });
    let record = |x: u32| items.as_ref().map_or(x, |items| items[x as usize]);
    let cross = |a: u32, b: u32| !link || input_of(a) != input_of(b);
    let candidates: Vec<(u32, u32)> = if matrix.is_empty() || reporter.cancelled() {
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
            (record(x), record(y), estimate)
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
            &hashes,
        )),
        _ => None,
    };
    let text = |i: u32| match &again {
        Some(again) => again.text(i),
        None => Some(texts.get(i as usize)),
    };
    // A record's set is made once, however many candidates it is in (the
    // near-copies of one text in many releases: 44,039 candidates among
    // django-docs' 5,988 records made 88,078 sets, two a candidate, and
    // took 17 s against the files scan's 0.8 s), by the verifier the files
    // scan uses: sets held within `verify_memory`, each dropped after its
    // last candidate. Only the pairs and the failures are kept: at CSV's
    // default `-k 2` nearly every record is a candidate of many, and an
    // outcome kept for each candidate was most of the scan's peak.
    let scored: Vec<Result<SimilarPair, [Option<u32>; 2]>> = if by_signature {
        candidates
            .par_iter()
            .filter_map(|&(a, b, estimate)| {
                if reporter.cancelled() {
                    return None;
                }
                reporter.advance(1);
                (estimate >= config.threshold).then_some(Ok(SimilarPair {
                    a,
                    b,
                    similarity: estimate,
                    estimate: Some(estimate),
                    shared: None,
                }))
            })
            .collect()
    } else {
        let pairs: Vec<(u32, u32)> = candidates.iter().map(|&(a, b, _)| (a, b)).collect();
        // The set of record `i`, or why not: `Some(i)` when its text changed
        // since it was signed or could not be read again, `None` when the
        // scan was cancelled (nothing to report: the outcome is discarded).
        let load = |i: u32| -> Result<Vec<u64>, Option<u32>> {
            if reporter.cancelled() {
                return Err(None);
            }
            let text = text(i).ok_or(Some(i))?;
            let set = BUFFERS.with_borrow_mut(|buffers| set_into(text, recipe, buffers).to_vec());
            if set.len() != shingles[i as usize] as usize {
                return Err(Some(i));
            }
            Ok(set)
        };
        let verified = verify::verify_exact(
            &pairs,
            config.threshold,
            verify::Budget::capped(config.verify_memory),
            |i| shingles[i as usize] as usize * std::mem::size_of::<u64>(),
            load,
        );
        drop(pairs);
        reporter.advance(candidates.len() as u64);
        // The estimate of each pair kept, from its candidate: the
        // candidates are in (a, b) order, as `lsh::candidate_pairs` makes
        // them and `record` (ascending) keeps them.
        let estimate = |a: u32, b: u32| {
            candidates
                .binary_search_by_key(&(a, b), |&(x, y, _)| (x, y))
                .ok()
                .map(|at| candidates[at].2)
        };
        let failed = verified
            .failures
            .into_iter()
            .filter_map(|(_, why)| why.map(|i| Err([Some(i), None])));
        verified
            .pairs
            .into_iter()
            .map(|p| {
                Ok(SimilarPair {
                    a: p.a,
                    b: p.b,
                    similarity: p.similarity,
                    estimate: estimate(p.a, p.b),
                    shared: Some(p.shared),
                })
            })
            .chain(failed)
            .collect()
    };
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
        // Their lines, counted in one pass over each input (records come in
        // input order, so each input's are ascending).
        let mut lines: Vec<u64> = Vec::with_capacity(changed.len());
        for group in changed.chunk_by(|&x, &y| input_of(x) == input_of(y)) {
            let at: Vec<u64> = group.iter().map(|&i| offsets[i as usize]).collect();
            lines.extend(reread.lines_of(input_of(group[0]), &at));
        }
        for (&i, line) in changed.iter().zip(lines) {
            let place = format!("{}:{line}", reread.name(input_of(i)));
            let id = String::from_utf8(ids.get(i as usize)).expect("ids are strings");
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
        .filter(|p| changed.binary_search(&p.a).is_err() && changed.binary_search(&p.b).is_err())
        .collect();
    stats.pairs = between.len() as u64;

    let mut id = Vec::new();
    let documents: Vec<Document> = (0..count)
        .map(|i| Document {
            size: size(i),
            path: {
                ids.get_into(i, &mut id);
                std::path::PathBuf::from(std::ffi::OsStr::new(
                    std::str::from_utf8(&id).expect("ids are strings"),
                ))
                .into_boxed_path()
            },
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
        candidates: None,
        model: None,
    }
}

/// The texts of the candidates' records, read again at their offsets.
struct Again {
    /// The records read.
    records: Marked,
    /// Their texts, in record order.
    texts: Arena,
    /// Records whose id or text is not the one first read, or that could
    /// not be read, ascending, with why.
    changed: Vec<u32>,
    why: Vec<String>,
}

impl Again {
    fn text(&self, i: u32) -> Option<&[u8]> {
        let at = self.records.rank(i)?;
        (self.changed.is_empty() || self.changed.binary_search(&i).is_err())
            .then(|| self.texts.get(at))
    }

    fn why(&self, i: u32) -> Option<&str> {
        let at = self.changed.binary_search(&i).ok()?;
        Some(&self.why[at])
    }
}

/// A set of records, one bit each, and each one's rank among them (the
/// index of its text when read again): a rank is two look-ups in tables of
/// 1.5 bits a record, which stay in cache. (A sorted list of the records,
/// searched twice a candidate, was a fifth of the CPU at `-k 2`, where
/// there are fifteen candidates a record; and it was made from both records
/// of every candidate, 8 bytes a candidate, sorted.)
struct Marked {
    bits: Vec<u64>,
    /// Records marked before each word of `bits`.
    before: Vec<u32>,
}

impl Marked {
    /// The records of `candidates`, among `count`.
    fn of(count: usize, candidates: &[(u32, u32, f64)]) -> Marked {
        let mut bits = vec![0u64; count.div_ceil(64)];
        for &(a, b, _) in candidates {
            bits[a as usize / 64] |= 1 << (a % 64);
            bits[b as usize / 64] |= 1 << (b % 64);
        }
        let mut total = 0;
        let before = bits
            .iter()
            .map(|word| {
                let here = total;
                total += word.count_ones();
                here
            })
            .collect();
        Marked { bits, before }
    }

    /// How many records are marked.
    fn len(&self) -> usize {
        self.before.last().map_or(0, |&b| b as usize)
            + self.bits.last().map_or(0, |w| w.count_ones() as usize)
    }

    /// The marked records, ascending.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    (w * 64) as u32 + bit
                })
            })
        })
    }

    /// Record `i`'s place among the marked ones, if it is marked.
    fn rank(&self, i: u32) -> Option<usize> {
        let (word, bit) = (i as usize / 64, i % 64);
        let w = *self.bits.get(word)?;
        (w >> bit & 1 == 1)
            .then(|| self.before[word] as usize + (w & ((1 << bit) - 1)).count_ones() as usize)
    }
}

/// The hash a text is recognised by when read again.
fn text_hash(text: &[u8]) -> u32 {
    xxhash_rust::xxh3::xxh3_64(text) as u32
}

/// Reads the records of `candidates` again (see [`Again`]).
fn read_again(
    reread: &Reread,
    candidates: &[(u32, u32, f64)],
    offsets: &[u64],
    input_of: &dyn Fn(u32) -> u32,
    ids: &Ids,
    hashes: &[u32],
) -> Again {
    let marked = Marked::of(offsets.len(), candidates);
    let mut records: Vec<u32> = Vec::with_capacity(marked.len());
    records.extend(marked.iter());
    let at: Vec<(u32, u64)> = records
        .iter()
        .map(|&i| (input_of(i), offsets[i as usize]))
        .collect();
    let mut again = Again {
        texts: Arena::default(),
        changed: Vec::new(),
        why: Vec::new(),
        records: marked,
    };
    again.texts.ends.reserve_exact(records.len());
    reread.read_at(&at, &mut |k, found| {
        let i = records[k];
        let problem = match found {
            Err(err) => Some(err.reason),
            Ok(r) if ids.get(i as usize) != r.id.as_bytes() => {
                Some(format!("record '{}' is there now", r.id))
            }
            Ok(r) => {
                again.texts.push(&r.fields);
                let last = again.texts.ends.len() - 1;
                (text_hash(again.texts.get(last)) != hashes[i as usize])
                    .then(|| "its text is another".into())
            }
        };
        if let Some(problem) = problem {
            // Its place in the texts, kept (empty) when it was not read.
            if again.texts.ends.len() == k {
                again.texts.push(&[]);
            }
            again.changed.push(i);
            again.why.push(problem);
        }
    });
    again
}
