//! `scan --important-words N`: each document reduced to its N words of
//! highest TF.IDF (MMDS 1.3.1, the "important words" of 3.2.4's simple
//! approaches), then compared as a set of words (`--shingle word -k 1`).
//! Records (`--input jsonl|csv|tsv`) are read whole before signing, so
//! their document frequencies are one pass over them ([`apply`]); files
//! are read twice, by [`simfind::pipeline::important`].

use anyhow::{Result, bail};
use simfind::input::kind::InputKind;
use simfind::input::records::Records;
use simfind::text::important::{top_tfidf, words};
use simfind::text::normalize::{Normalization, normalize};

use crate::app::args::{InputArgs, ShingleArg, ShingleArgs};

/// What a file scan's `--important-words` cannot combine with, and why: in
/// the order [`check`]'s `beside` gives them.
const REFUSED: [(&str, &str); 4] = [
    (
        "--db",
        "an index keeps each file's signature, and a file's TF.IDF words change with every \
         file added (their document frequencies are the whole corpus's)",
    ),
    (
        "--identical-by",
        "it finds byte-identical files and ranks no word",
    ),
    (
        "--sketch simhash|icws or --metric",
        "the important words are a set for MinHash and Jaccard similarity",
    ),
    (
        "--format html",
        "its explanations show shared passages, which a set of selected words has not",
    ),
];

/// Refuses `--important-words` where there are no whole texts to rank, or
/// on files beside what it cannot combine with (`beside`: whether `--db`,
/// `--identical-by`, a vector or weighted family and `--format html` are
/// given): before any work.
pub fn check(input: &InputArgs, beside: [bool; 4]) -> Result<()> {
    if input.important_words.is_none() {
        return Ok(());
    }
    if !matches!(
        input.input,
        InputKind::Files | InputKind::Jsonl | InputKind::Csv | InputKind::Tsv
    ) || input.per_field
    {
        bail!(
            "--important-words ranks the words of whole texts: give directories (or files), or \
             --input jsonl, csv or tsv, without --per-field"
        );
    }
    if input.input == InputKind::Files
        && let Some((_, (flag, why))) = beside.iter().zip(REFUSED).find(|(given, _)| **given)
    {
        bail!("{flag} does not combine with --important-words: {why}");
    }
    Ok(())
}

/// With `--important-words`, makes the shingles single words (refusing
/// other shingles).
pub fn shingles(input: &InputArgs, shingles: &mut ShingleArgs) -> Result<()> {
    if input.important_words.is_none() {
        return Ok(());
    }
    if !matches!(shingles.shingle, None | Some(ShingleArg::Word))
        || !matches!(shingles.k, None | Some(1))
    {
        bail!(
            "--important-words compares sets of words: leave out --shingle and -k (or give \
             --shingle word -k 1)"
        );
    }
    shingles.shingle = Some(ShingleArg::Word);
    shingles.k = Some(1);
    Ok(())
}

/// Replaces each record's text by its important words (normalised as the
/// scan normalises, joined by spaces, in byte order).
pub fn apply(records: &mut Records, n: Option<usize>, normalization: Normalization) {
    let Some(n) = n else { return };
    // What is signed is no longer the inputs' text: read again, a record
    // would look changed.
    records.reread = None;
    let texts: Vec<String> = records
        .records
        .iter()
        .map(|r| normalize(r.fields.join(" ").as_bytes(), normalization))
        .collect();
    let docs: Vec<Vec<&str>> = texts.iter().map(|t| words(t)).collect();
    for (record, kept) in records.records.iter_mut().zip(top_tfidf(&docs, n)) {
        let width = record.fields.len();
        record.fields = std::iter::once(kept.join(" "))
            .chain(std::iter::repeat_n(String::new(), width.saturating_sub(1)))
            .collect();
    }
}
