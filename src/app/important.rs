//! `scan --important-words N`: each document reduced to its N words of
//! highest TF.IDF (MMDS 1.3.1, the "important words" of 3.2.4's simple
//! approaches), then compared as a set of words (`--shingle word -k 1`).
//! Records (`--input jsonl|csv|tsv`) are read whole before signing, so
//! their document frequencies are one pass over them ([`apply`]); files
//! are read twice, by [`simfind::pipeline::important`].

use anyhow::Result;
use simfind::input::records::Records;
use simfind::spec::{Beside, important_words_shingles, important_words_with};
use simfind::text::{Normalization, normalize};
use simfind::text::{top_tfidf, words};

use crate::app::args::{InputArgs, ShingleArg, ShingleArgs};
use crate::app::lower;

/// Refuses `--important-words` where there are no whole texts to rank, or
/// on files beside what it cannot combine with (`beside`: whether `--db`,
/// `--identical-by`, a vector or weighted family and `--format html` are
/// given): before any work. The rules are the library's
/// ([`important_words_with`]); the words, [`lower::important_error`]'s.
pub fn check(input: &InputArgs, beside: [bool; 4]) -> Result<()> {
    let [stored, identical_by, family, report] = beside;
    let beside = Beside {
        stored,
        identical_by,
        family,
        report,
    };
    important_words_with(input.important_words, input.input, input.per_field, beside)
        .map_err(lower::important_error)
}

/// With `--important-words`, makes the shingles single words (refusing
/// other shingles).
pub fn shingles(input: &InputArgs, shingles: &mut ShingleArgs) -> Result<()> {
    if input.important_words.is_none() {
        return Ok(());
    }
    let (_, k) = important_words_shingles(shingles.shingle.map(|s| s.kind()), shingles.k)
        .map_err(lower::important_error)?;
    shingles.shingle = Some(ShingleArg::Word);
    shingles.k = Some(k);
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
