//! `scan DIR --important-words N`: files compared as the sets of their N
//! words of highest TF.IDF (MMDS 1.3.1). Orchestration only; the ranking is
//! [`crate::text::important`]'s.
//!
//! TF.IDF needs the corpus before any file can be ranked, so the files are
//! read twice:
//! 1. **count** ([`count_frequencies`]): every walked file is read,
//!    normalised as the recipe says, and each distinct content's distinct
//!    words (their word-shingle hashes) are counted into the document
//!    frequencies. Identical contents count once, as one document: a copy is
//!    the same document again, not more evidence that its words are common,
//!    so adding or removing a copy changes no other file's selection (and a
//!    copy is only hashed, as signing treats it).
//! 2. **sign**: the scan's own signing ([`super::sign_files`]) with a
//!    shingler that keeps only the selected words
//!    ([`crate::text::Shingler::selecting`]), then its pair finding
//!    ([`super::find_pairs`]), whose exact verification reloads each
//!    candidate through the same shingler: signing and reload select with one
//!    function and one table, so they compare the same sets.
//!
//! A file that failed the first pass is not read again: it is reported as
//! failed. A file whose content hash in the second pass is not the first
//! pass's (it changed between the passes) is reported as failed too, and
//! pairs nothing. Files are read whole (never the chunked path): a file's
//! word counts need all its text.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128;

use super::locks::lock;
use super::plan::{self, Decision};
use super::{ScanConfig, ScanOutcome, ScanStats, SignOutcome, find_pairs, sign_files, walk_files};
use crate::input::read::ReadError;
use crate::input::walk::FileEntry;
use crate::progress::{Reporter, Stage};
use crate::source::{Admit, FileSource, Source};
use crate::text::normalize_into;
use crate::text::{ByHash, DocumentFrequencies, Selection, important};

/// What the first pass made of one file.
enum Seen {
    /// Text with this XXH3-128.
    Text(u128),
    Binary,
    Failed(ReadError),
}

/// The first pass's counts, per thread, then merged.
#[derive(Default)]
struct Tally {
    /// Documents each word (by hash) is in.
    df: ByHash<u32>,
    /// Distinct text contents counted.
    documents: u64,
    /// Σ min(N, distinct words) over them: the selected words, the size of
    /// what the exact join would hold.
    selected: u64,
}

impl Tally {
    fn merge(mut self, mut other: Tally) -> Tally {
        if self.df.len() < other.df.len() {
            std::mem::swap(&mut self, &mut other);
        }
        for (hash, count) in other.df {
            *self.df.entry(hash).or_default() += count;
        }
        self.documents += other.documents;
        self.selected += other.selected;
        self
    }
}

/// Walks, counts the document frequencies, signs each file as its N words
/// of highest TF.IDF and finds the pairs: a [`super::scan`] in every respect
/// but the sets.
pub fn scan(config: &ScanConfig, n: usize, reporter: &dyn Reporter) -> ScanOutcome {
    let mut stats = ScanStats::default();
    let files = walk_files(config, reporter, &mut stats);
    let (tally, seen) = count_frequencies(&files, config, n, reporter);
    let selected = tally.selected;
    let df = DocumentFrequencies::new(tally.df, tally.documents);
    let config = selecting(config, Selection::new(df, n));
    let mut workload = plan::workload(&config, files.len() as u64, selected);
    // The sets are known to the word: "bytes" are the selected words.
    workload.tokens_per_byte = 1.0;
    let decision: Decision = plan::choose(config.method, &workload);
    let (outcomes, matrix) = sign_checked(&files, seen, &config, &decision, reporter);
    find_pairs(&config, files, outcomes, matrix, decision, stats, reporter)
}

/// `config` with its shingler keeping only `selection`'s words, and every
/// file read whole.
pub fn selecting(config: &ScanConfig, selection: Selection) -> ScanConfig {
    let mut config = config.clone();
    config.recipe.shingler = config
        .recipe
        .shingler
        .clone()
        .selecting(Arc::new(selection));
    config.read.chunked_min_size = u64::MAX;
    config
}

/// Pass 1: each file read, and each distinct text content's distinct words
/// counted once (whichever of its files is read first: the counts are the
/// same whatever the thread count). Returns the counts and what each file was.
fn count_frequencies(
    files: &[FileEntry],
    config: &ScanConfig,
    n: usize,
    reporter: &dyn Reporter,
) -> (Tally, Vec<Seen>) {
    reporter.begin(Stage::Count, Some(files.len() as u64));
    let counted: Mutex<HashSet<u128>> = Mutex::default();
    let mut seen: Vec<Seen> = (0..files.len()).map(|_| Seen::Binary).collect();
    let tally = seen
        .par_iter_mut()
        .zip(files)
        .fold(
            || (Tally::default(), Buffers::default()),
            |(mut tally, mut buffers), (slot, file)| {
                let (outcome, first) = count_one(file, config, &counted, &mut buffers);
                *slot = outcome;
                if first {
                    tally.documents += 1;
                    tally.selected += buffers.words.len().min(n) as u64;
                    for &hash in &buffers.words {
                        *tally.df.entry(hash).or_default() += 1;
                    }
                }
                reporter.advance(1);
                (tally, buffers)
            },
        )
        .map(|(tally, _)| tally)
        .reduce(Tally::default, Tally::merge);
    reporter.end(Stage::Count);
    (tally, seen)
}

/// A counting thread's buffers, reused from one file to the next.
#[derive(Default)]
struct Buffers {
    text: String,
    scratch: important::Scratch,
    /// The last file's distinct word hashes.
    words: Vec<u64>,
}

/// Reads one file for pass 1. True beside [`Seen::Text`] when this file is
/// the first of its content to be counted: its distinct words are then in
/// `buffers.words`.
fn count_one(
    file: &FileEntry,
    config: &ScanConfig,
    counted: &Mutex<HashSet<u128>>,
    buffers: &mut Buffers,
) -> (Seen, bool) {
    let source = FileSource::new(
        std::slice::from_ref(file),
        config.walk.follow_links,
        &config.read,
    );
    let contents = match source.open(0) {
        Ok(contents) => contents,
        Err(err) => return (Seen::Failed(err), false),
    };
    let unchanged = |seen: Seen| match contents.verify_unchanged() {
        Ok(()) => seen,
        Err(err) => Seen::Failed(err),
    };
    match contents.admit(config.recipe.include_binary) {
        Admit::Text => {}
        Admit::Binary | Admit::NotExtracted(_) => return (Seen::Binary, false),
        Admit::Changed(err) => return (Seen::Failed(err), false),
    }
    let hash = xxh3_128(contents.raw());
    if lock(counted).contains(&hash) {
        // A copy of a content counted already: only hashed.
        return (unchanged(Seen::Text(hash)), false);
    }
    normalize_into(&contents, config.recipe.normalization, &mut buffers.text);
    important::distinct_word_hashes(&buffers.text, &mut buffers.scratch, &mut buffers.words);
    match unchanged(Seen::Text(hash)) {
        // Counted only once read whole and unchanged, by the first file of
        // that content to get here.
        Seen::Text(hash) => {
            let first = lock(counted).insert(hash);
            (Seen::Text(hash), first)
        }
        other => (other, false),
    }
}

/// The reason a file that changed between the passes is dropped for.
fn changed_between_passes() -> ReadError {
    ReadError::ChangedBetweenPasses
}

/// Pass 2: signs the files the first pass read (a file it could not read is
/// failed with that reason, not read again), then fails each file whose
/// content is not the one the first pass counted.
fn sign_checked(
    files: &[FileEntry],
    seen: Vec<Seen>,
    config: &ScanConfig,
    decision: &Decision,
    reporter: &dyn Reporter,
) -> (Vec<SignOutcome>, Vec<u32>) {
    let method = decision.method;
    let readable: Vec<usize> = (0..files.len())
        .filter(|&i| !matches!(seen[i], Seen::Failed(_)))
        .collect();
    let (mut outcomes, mut matrix) = if readable.len() == files.len() {
        sign_files(files, config, method, reporter)
    } else {
        let subset: Vec<FileEntry> = readable.iter().map(|&i| files[i].clone()).collect();
        let (signed, rows) = sign_files(&subset, config, method, reporter);
        let width = rows.len() / subset.len().max(1);
        let mut matrix = vec![u32::MAX; files.len() * width];
        let mut outcomes: Vec<Option<SignOutcome>> = (0..files.len()).map(|_| None).collect();
        for (k, (&i, outcome)) in readable.iter().zip(signed).enumerate() {
            matrix[i * width..(i + 1) * width].copy_from_slice(&rows[k * width..(k + 1) * width]);
            outcomes[i] = Some(outcome);
        }
        // A file the first pass could not read gets that reason just below.
        let outcomes = outcomes
            .into_iter()
            .map(|outcome| outcome.unwrap_or(SignOutcome::Binary))
            .collect();
        (outcomes, matrix)
    };
    let width = matrix.len() / files.len().max(1);
    let changed: Vec<bool> = seen
        .iter()
        .zip(&outcomes)
        .map(|(seen, outcome)| {
            let signed = match outcome {
                SignOutcome::Unique(content) => Some(content.hash),
                SignOutcome::SameAs(hash) => Some(*hash),
                _ => None,
            };
            match (seen, signed) {
                (Seen::Text(counted), Some(signed)) => *counted != signed,
                (Seen::Binary, Some(_)) => true,
                _ => false,
            }
        })
        .collect();
    for (i, seen) in seen.into_iter().enumerate() {
        if let Seen::Failed(err) = seen {
            outcomes[i] = SignOutcome::Failed(err);
            continue;
        }
        if !changed[i] {
            continue;
        }
        let failed = std::mem::replace(
            &mut outcomes[i],
            SignOutcome::Failed(changed_between_passes()),
        );
        // The content this file was signed with stays with an unchanged file
        // of the same bytes, if there is one: its pairs are not lost.
        if let SignOutcome::Unique(content) = failed {
            let heir = (0..outcomes.len()).find(|&j| {
                !changed[j] && matches!(outcomes[j], SignOutcome::SameAs(h) if h == content.hash)
            });
            if let Some(j) = heir {
                matrix.copy_within(i * width..(i + 1) * width, j * width);
                outcomes[j] = SignOutcome::Unique(content);
            }
        }
    }
    (outcomes, matrix)
}
