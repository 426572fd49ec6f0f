//! The records scan of the common case — whole records (not `--per-field`),
//! text (not `sets`), LSH — without holding every record's set.
//!
//! A record's shingle set costs ~8 bytes a character of its text; held for
//! every record beside the signature matrix, the sets, the records as read
//! and a copy of the matrix for banding took 1.6 GB at a million short
//! records, 2.7 × the scan's memory bound (docs/PERFORMANCE.md, "Issue #22").
//! Here the records become columns as soon as they are read (texts in chunks
//! of records, ids in one arena), each text is signed as the files scan
//! signs a file (`sign::sign_windows`: its windows through a repeat filter
//! to the kernel, no set made) and identical texts only once, the matrix is
//! banded in place, and verification makes the set of each candidate's
//! record (of each group of identical records, once) from its text, held
//! within the verify budget until its last candidate is verified
//! (`verify::verify_exact`, the files scan's verifier; short texts: cheaper
//! than holding every set). A record's exact shingle count is then known
//! for the records of every pair, the only ones whose count is printed. When
//! the inputs can be read again ([`Reread`]: JSON Lines, CSV, TSV files), each chunk of
//! texts is freed once signed, and the candidates' records are read again at
//! their offsets once the matrix is freed: then no text is held beside the
//! matrix (at ten million records the texts were as much as 1/6 of it). The
//! outcome is the one [`super::scan_records`] gives by holding the sets: the
//! same signatures, candidates, similarities, counts (of the records in
//! pairs; `--verify signature`: of all) and notes; a record
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
use crate::pipeline::shingles::{Buffers, filtered_windows_into, sorted_shingles_into};
use crate::pipeline::sign::sign_windows;
use crate::pipeline::{ScanConfig, ScanOutcome};
use crate::progress::{Reporter, Stage};
use crate::recipe::Recipe;
use crate::similarity::{sets, verify};
use crate::sketch::Sketcher;

/// Byte strings one after the other, by index.
#[derive(Default)]
struct Arena {
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

impl Arena {
    fn push(&mut self, parts: &[impl AsRef<str>]) {
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                self.bytes.push(b' ');
            }
            self.bytes.extend_from_slice(part.as_ref().as_bytes());
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
    fn push(&mut self, parts: &[impl AsRef<str>], count: usize) {
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
    let stats = super::stats_of(&records);
    let reread = records.reread;
    let count = records.records.len();
    // Each record's strings freed as it is moved in.
    let mut columns = Columns::new(count, reread.is_some());
    for r in records.records {
        columns.push(r.id.as_bytes(), &r.fields, r.origin.input, r.origin.offset);
    }
    scan_columns(
        columns,
        reread,
        stats,
        config,
        link,
        (reason, presigned),
        reporter,
    )
}

/// [`scan`] for texts given in memory, record `i` being `texts[i]` with the
/// id `i`: what [`scan`] gives for them as records of one field, without
/// making the records first (each text is copied once, into the columns).
pub(super) fn scan_texts(
    texts: &[impl AsRef<str>],
    config: &ScanConfig,
    reason: Reason,
    reporter: &dyn Reporter,
) -> RecordOutcome {
    let stats = super::ScanStats {
        files: texts.len() as u64,
        ..super::ScanStats::default()
    };
    let mut columns = Columns::new(texts.len(), false);
    let mut id = String::new();
    for (i, text) in texts.iter().enumerate() {
        id.clear();
        std::fmt::Write::write_fmt(&mut id, format_args!("{i}")).expect("a String takes it");
        columns.push(id.as_bytes(), std::slice::from_ref(text), 0, 0);
    }
    scan_columns(
        columns,
        None,
        stats,
        config,
        false,
        (reason, None),
        reporter,
    )
}

/// The records as columns: what [`scan_columns`] works on.
struct Columns {
    count: usize,
    texts: Texts,
    ids: Ids,
    /// A record's size (its fields' bytes), 32 bits with the few wider listed.
    sizes: Vec<u32>,
    wide_sizes: Vec<(u32, u64)>,
    /// Records come in input order: each input's first record.
    input_starts: Vec<(u32, u32)>,
    /// When the inputs can be read again: each record's offset, and a hash
    /// of its text, to tell a record changed before it is read again (its
    /// id and size could stay).
    offsets: Vec<u64>,
    hashes: Vec<u32>,
    reread: bool,
}

impl Columns {
    fn new(count: usize, reread: bool) -> Columns {
        Columns {
            count,
            texts: Texts::default(),
            ids: Ids::with_capacity(count),
            sizes: Vec::with_capacity(count),
            wide_sizes: Vec::new(),
            input_starts: Vec::new(),
            offsets: Vec::with_capacity(if reread { count } else { 0 }),
            hashes: Vec::with_capacity(if reread { count } else { 0 }),
            reread,
        }
    }

    fn push(&mut self, id: &[u8], fields: &[impl AsRef<str>], input: u32, offset: u64) {
        let i = self.sizes.len();
        self.texts.push(fields, self.count);
        let size: u64 = fields.iter().map(|f| f.as_ref().len() as u64).sum();
        self.sizes.push(u32::try_from(size).unwrap_or_else(|_| {
            self.wide_sizes.push((i as u32, size));
            u32::MAX
        }));
        self.ids.push(id);
        if self
            .input_starts
            .last()
            .is_none_or(|&(last, _)| last != input)
        {
            self.input_starts.push((input, i as u32));
        }
        if self.reread {
            self.offsets.push(offset);
            self.hashes.push(text_hash(self.texts.get(i)));
        }
    }
}

/// The scan of [`scan`] and [`scan_texts`], from the records' columns.
fn scan_columns(
    columns: Columns,
    reread: Option<Reread>,
    mut stats: super::ScanStats,
    config: &ScanConfig,
    link: bool,
    (reason, presigned): (Reason, Option<super::Presigned>),
    reporter: &dyn Reporter,
) -> RecordOutcome {
    let Columns {
        count,
        mut texts,
        mut ids,
        sizes,
        wide_sizes,
        input_starts,
        offsets,
        hashes,
        ..
    } = columns;
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
    let by_signature = config.verification == Verification::Signature;
    reporter.begin(Stage::Sign, Some(count as u64));
    // Identical texts are signed once, by the first record that has them;
    // every other record's row is a copy of its original's.
    let original = originals(&texts, count);
    let original_of = |i: u32| original.as_ref().map_or(i, |o| o[i as usize]);
    // Signed before the scan (an index's signatures, with their sets' exact
    // sizes): nothing to sign, and the texts can go at once when they can
    // be read again.
    let signed = presigned.is_some();
    // Per record, what signing counted: with `--verify signature` (or an
    // index's signatures) the exact size of its set; else, as the files
    // scan signs, the windows it signed without making the set (an upper
    // bound, 0 exactly when it has no shingle), the exact size being made
    // at verification for the records it pairs.
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
                    let i = first + t * CHUNK + k;
                    if original_of(i as u32) as usize != i {
                        continue;
                    }
                    let text = chunk.get(t * CHUNK + k);
                    let signed = if by_signature {
                        let set = set_into(text, recipe, &mut buffers);
                        if !set.is_empty() {
                            sketcher.sign_into(set, row);
                        }
                        set.len()
                    } else {
                        sign_windows(text, config, &sketcher, &mut buffers, row)
                    };
                    *len = u32::try_from(signed).unwrap_or(u32::MAX);
                }
                reporter.advance(done);
            });
        if reread.is_some() {
            texts.chunks[c] = Arena::default();
            release_free_pages();
        }
    }
    if let Some(original) = &original {
        for (i, &o) in original.iter().enumerate() {
            let o = o as usize;
            if o != i {
                matrix.copy_within(o * n..(o + 1) * n, i * n);
                shingles[i] = shingles[o];
            }
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
    // Only the pairs and the records found changed are kept: at CSV's
    // default `-k 2` nearly every record is a candidate of many, and an
    // outcome kept for each candidate was most of the scan's peak.
    let mut stale: Vec<u32> = Vec::new();
    // The exact set size of each original verification made, ascending.
    let mut counted: Vec<(u32, u32)> = Vec::new();
    let between: Vec<SimilarPair> = if by_signature {
        candidates
            .par_iter()
            .filter_map(|&(a, b, estimate)| {
                if reporter.cancelled() {
                    return None;
                }
                reporter.advance(1);
                (estimate >= config.threshold).then_some(SimilarPair {
                    a,
                    b,
                    similarity: estimate,
                    estimate: Some(estimate),
                    shared: None,
                })
            })
            .collect()
    } else {
        let verified = verify_originals(
            &candidates,
            &original_of,
            original.is_some() && again.is_some(),
            &|i| text(i),
            (&shingles, by_signature || signed),
            config,
            reporter,
        );
        reporter.advance(candidates.len() as u64);
        (stale, counted) = (verified.stale, verified.counted);
        verified.pairs
    };
    reporter.end(Stage::Verify);
    drop(texts);
    let mut changed = stale;
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
    let between: Vec<SimilarPair> = between
        .into_iter()
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
            // Exact for every record verification made a set for (so for
            // every record of a pair, whose count the output prints).
            shingles: counted
                .binary_search_by_key(&original_of(i as u32), |&(o, _)| o)
                .map_or(shingles[i], |at| counted[at].1),
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

/// Per record, the first record with the same text (itself when none is
/// before it); None when no two texts are the same. Texts are grouped by a
/// 64-bit hash and compared byte for byte within a group, so a collision
/// never makes two texts one.
fn originals(texts: &Texts, count: usize) -> Option<Vec<u32>> {
    let mut keyed: Vec<(u64, u32)> = (0..count as u32)
        .into_par_iter()
        .map(|i| (xxhash_rust::xxh3::xxh3_64(texts.get(i as usize)), i))
        .collect();
    keyed.par_sort_unstable();
    let mut original: Option<Vec<u32>> = None;
    let mut firsts: Vec<u32> = Vec::new();
    for group in keyed.chunk_by(|x, y| x.0 == y.0).filter(|g| g.len() > 1) {
        // Ascending record ids: each record's original is the first of the
        // group with its bytes.
        firsts.clear();
        for &(_, i) in group {
            let text = texts.get(i as usize);
            match firsts.iter().find(|&&f| texts.get(f as usize) == text) {
                Some(&f) => {
                    original.get_or_insert_with(|| (0..count as u32).collect())[i as usize] = f;
                }
                None => firsts.push(i),
            }
        }
    }
    original
}

/// What [`verify_originals`] found.
struct Verified {
    /// The candidates whose similarity reaches the threshold, in `(a, b)`
    /// order, with their estimates.
    pairs: Vec<SimilarPair>,
    /// Records read again whose text is not the one signed (what signing
    /// counted differs), ascending.
    stale: Vec<u32>,
    /// The exact set size of each original whose set was made, ascending.
    counted: Vec<(u32, u32)>,
}

/// The sorted set of `text` in a vector of its own, and what signing
/// counted for it (see `shingles` in [`scan`]): the windows, or what the
/// repeat filter passed, or (`exact`) the set's size.
fn set_and_signed_count(
    text: &[u8],
    recipe: &Recipe,
    takes_repeats: bool,
    exact: bool,
    buffers: &mut Buffers,
) -> (Vec<u64>, usize) {
    let windows = filtered_windows_into(text, recipe, buffers);
    let passed = buffers.set.len();
    let set = buffers.sorter.sorted_distinct(&mut buffers.set);
    let signed = match (exact, takes_repeats) {
        (true, _) => set.len(),
        (false, true) => windows,
        (false, false) => passed,
    };
    (set, signed)
}

/// Exact verification of `candidates` (record pairs with their signatures'
/// estimate, in `(a, b)` order), each group of identical records verified
/// once, as its original: a record and a copy of it are a pair of
/// similarity 1 (their sets are one), a candidate of two records is what
/// their originals' pair is. An original's set is made once, however many
/// candidates it is in (the near-copies of one text in many releases:
/// 44,039 candidates among django-docs' 5,988 records made 88,078 sets,
/// two a candidate, and took 17 s against the files scan's 0.8 s), by the
/// verifier the files scan uses: sets held within `verify_memory`, each
/// dropped after its last candidate.
///
/// `text(i)` is record `i`'s text, None when it was read again and is not
/// the one signed; a set made again must also count what signing counted
/// (`shingles`: the exact sizes of the sets when `exact_counts`, else the
/// windows signed), or the record is stale. With `copies_read_again`, an
/// original's set is made from the first of its records among the
/// candidates whose text is still the one signed, so that a changed record
/// takes only its own pairs away.
fn verify_originals<'t>(
    candidates: &[(u32, u32, f64)],
    original_of: &(dyn Fn(u32) -> u32 + Sync),
    copies_read_again: bool,
    text: &(dyn Fn(u32) -> Option<&'t [u8]> + Sync),
    (shingles, exact_counts): (&[u32], bool),
    config: &ScanConfig,
    reporter: &dyn Reporter,
) -> Verified {
    let recipe = &config.recipe;
    let takes_repeats = recipe.sketcher().takes_repeats();
    // The candidates as pairs of originals, the copies' pairs aside.
    let mut pairs: Vec<(u32, u32)> = candidates
        .iter()
        .map(|&(a, b, _)| (original_of(a), original_of(b)))
        .filter(|(x, y)| x != y)
        .map(|(x, y)| (x.min(y), x.max(y)))
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    // The records an original's set may be made from.
    let mut members: Vec<(u32, u32)> = if copies_read_again {
        candidates
            .iter()
            .flat_map(|&(a, b, _)| [(original_of(a), a), (original_of(b), b)])
            .collect()
    } else {
        Vec::new()
    };
    members.par_sort_unstable();
    members.dedup();
    let stale = std::sync::Mutex::new(Vec::new());
    let counted = std::sync::Mutex::new(Vec::new());
    let load = |x: u32| -> Result<Vec<u64>, ()> {
        if reporter.cancelled() {
            return Err(());
        }
        let from = members.partition_point(|&(o, _)| o < x);
        let tried = members[from..]
            .iter()
            .take_while(|&&(o, _)| o == x)
            .map(|&(_, m)| m);
        for m in std::iter::once(x)
            .filter(|_| !copies_read_again)
            .chain(tried)
        {
            let Some(text) = text(m) else {
                // Changed, and named as such by the reading.
                continue;
            };
            let (set, signed) = BUFFERS.with_borrow_mut(|buffers| {
                set_and_signed_count(text, recipe, takes_repeats, exact_counts, buffers)
            });
            if signed != shingles[m as usize] as usize {
                crate::pipeline::locks::lock(&stale).push(m);
                continue;
            }
            let count = u32::try_from(set.len()).unwrap_or(u32::MAX);
            crate::pipeline::locks::lock(&counted).push((x, count));
            return Ok(set);
        }
        Err(())
    };
    let verified = verify::verify_exact(
        &pairs,
        config.threshold,
        verify::Budget::capped(config.verify_memory),
        |i| shingles[i as usize] as usize * std::mem::size_of::<u64>(),
        load,
    );
    drop(verified.failures);
    // The count of an original whose set was not made, paired with its
    // copies only: what their pairs print.
    let mut alone: Vec<u32> = {
        let mut done = crate::pipeline::locks::lock(&counted);
        done.par_sort_unstable();
        done.dedup();
        candidates
            .iter()
            .map(|&(a, b, _)| (original_of(a), original_of(b)))
            .filter(|&(x, y)| x == y && done.binary_search_by_key(&x, |&(o, _)| o).is_err())
            .map(|(x, _)| x)
            .collect()
    };
    alone.par_sort_unstable();
    alone.dedup();
    alone.par_iter().for_each(|&x| {
        let _ = load(x);
    });
    let mut counted = crate::pipeline::locks::into_inner(counted);
    counted.par_sort_unstable();
    counted.dedup();
    let mut stale = crate::pipeline::locks::into_inner(stale);
    stale.sort_unstable();
    stale.dedup();
    let count_of = |x: u32| {
        counted
            .binary_search_by_key(&x, |&(o, _)| o)
            .ok()
            .map(|at| counted[at].1 as usize)
    };
    let pairs = candidates
        .iter()
        .filter_map(|&(a, b, estimate)| {
            let (x, y) = (original_of(a), original_of(b));
            let (similarity, shared) = if x == y {
                let count = count_of(x)?;
                (sets::ratio(count, count), count)
            } else {
                let at = verified
                    .pairs
                    .binary_search_by_key(&(x.min(y), x.max(y)), |p| (p.a, p.b))
                    .ok()?;
                let p = &verified.pairs[at];
                (p.similarity, p.shared)
            };
            Some(SimilarPair {
                a,
                b,
                similarity,
                estimate: Some(estimate),
                shared: Some(shared),
            })
        })
        .collect();
    Verified {
        pairs,
        stale,
        counted,
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
                again.texts.push(&[] as &[&str]);
            }
            again.changed.push(i);
            again.why.push(problem);
        }
    });
    again
}
