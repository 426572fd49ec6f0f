//! `scan --input jsonl|csv|tsv --important-words N`: each record reduced to
//! its N words of highest TF.IDF over the records read (MMDS 1.3.1, the
//! "important words" of 3.2.4's simple approaches), then compared as a set
//! of words (`--shingle word -k 1`). Records are read whole before signing,
//! so the document frequencies are one pass over them; files are streamed
//! and are refused.

use anyhow::{Result, bail};
use simfind::input::kind::InputKind;
use simfind::input::records::Records;
use simfind::text::important::{top_tfidf, words};
use simfind::text::normalize::{Normalization, normalize};

use crate::app::args::{InputArgs, ShingleArg, ShingleArgs};

/// Refuses `--important-words` where there are no text records to rank
/// (before any work).
pub fn check(input: &InputArgs) -> Result<()> {
    if input.important_words.is_some()
        && (!matches!(
            input.input,
            InputKind::Jsonl | InputKind::Csv | InputKind::Tsv
        ) || input.per_field)
    {
        bail!(
            "--important-words ranks the words of whole text records: give --input jsonl, csv \
             or tsv, without --per-field"
        );
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
