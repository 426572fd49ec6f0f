//! The side-by-side explanations of the HTML report, computed when the
//! report is written: for each removable-or-kept member of a group and its
//! group's kept copy, [`simfind::explain::spans::explain`] over the two
//! files' bytes, re-read through [`simfind::input::read`], and the word
//! diff `explain` prints ([`simfind::explain::diff`]) for a pair that is
//! not byte-identical, which the page shows side by side.
//!
//! Budget: a file's text is embedded once (a kept copy serves every pair of
//! its group; byte-identical files share one text), only if it is at most [`FILE_CAP`] bytes, and only while the
//! report's text stays within the budget (`--html-budget`); pairs are taken
//! in group order. A pair left out carries the reason, which the page shows.
//!
//! Offsets: the explanation's byte ranges are turned into UTF-16 offsets of
//! the text as the page holds it (lossy UTF-8: each invalid sequence is one
//! U+FFFD), since that is what JavaScript strings index.

use std::collections::HashMap;
use std::ops::Range;

use rayon::prelude::*;
use serde_json::{Value, json};
use simfind::cluster::Clustering;
use simfind::explain::spans;
use simfind::input::ReadOptions;
use simfind::pipeline::Document;
use simfind::recipe::Recipe;
use simfind::source::{self, Reopen};

/// Largest file whose text the report embeds for an explanation.
pub const FILE_CAP: u64 = 256 * 1024;

/// The explanations' part of the data blob.
pub struct Explained {
    /// Texts of the files, lossily decoded, each once.
    pub texts: Vec<String>,
    /// Per member (in output order): the index of its pair in `pairs`, or the
    /// reason it has none (`null` for a kept copy itself).
    pub per_member: Vec<Value>,
    pub pairs: Vec<Value>,
    /// Files that could not be read again.
    pub failures: Vec<(String, String)>,
}

/// Explains every (kept copy, member) pair of the first `limit` groups
/// within `budget` bytes of embedded text; none, each saying `unexplained`,
/// when that is given.
pub fn explain_groups(
    documents: &[Document],
    clustering: &Clustering,
    limit: usize,
    recipe: &Recipe,
    read_options: &ReadOptions,
    budget: u64,
    unexplained: Option<&str>,
) -> Explained {
    // Which pairs fit, decided in order from the sizes the scan saw.
    enum Plan {
        Kept,
        Pair(u32, u32),
        Left(String),
    }
    let mut text_of: HashMap<u32, usize> = HashMap::new();
    let mut order: Vec<u32> = Vec::new();
    let mut used = 0u64;
    let mut plans = Vec::new();
    let mut over_budget = false;
    for group in clustering.groups().take(limit) {
        let kept = group[0].doc;
        for m in group {
            if m.representative {
                plans.push(Plan::Kept);
                continue;
            }
            if let Some(reason) = unexplained {
                plans.push(Plan::Left(reason.to_string()));
                continue;
            }
            let (ka, kb) = (&documents[kept as usize], &documents[m.doc as usize]);
            if ka.size > FILE_CAP || kb.size > FILE_CAP {
                plans.push(Plan::Left(format!(
                    "not embedded: a file is larger than {} KiB",
                    FILE_CAP / 1024
                )));
                continue;
            }
            let extra: u64 = [kept, m.doc]
                .iter()
                .filter(|d| !text_of.contains_key(d))
                .map(|&d| documents[d as usize].size)
                .sum();
            if over_budget || used + extra > budget {
                over_budget = true;
                plans.push(Plan::Left(format!(
                    "not embedded: the report's text budget ({budget} bytes, --html-budget) was used up by earlier groups"
                )));
                continue;
            }
            used += extra;
            for d in [kept, m.doc] {
                text_of.entry(d).or_insert_with(|| {
                    order.push(d);
                    order.len() - 1
                });
            }
            plans.push(Plan::Pair(kept, m.doc));
        }
    }

    // Read each embedded file once, in parallel; order is kept by index.
    let bytes: Vec<Result<Vec<u8>, String>> = order
        .par_iter()
        .map(|&d| {
            let path = &documents[d as usize].path;
            match source::reopen_path(path, Reopen::NoFollow, read_options) {
                Ok(c) if c.len() as u64 > FILE_CAP => Err(format!(
                    "now larger than {} KiB (changed since the scan)",
                    FILE_CAP / 1024
                )),
                Ok(c) => Ok(c.to_vec()),
                Err(err) => Err(err.to_string()),
            }
        })
        .collect();
    let mut failures = Vec::new();
    for (&d, b) in order.iter().zip(&bytes) {
        if let Err(reason) = b {
            failures.push((
                documents[d as usize].path.display().to_string(),
                reason.clone(),
            ));
        }
    }
    let decoded: Vec<Option<(String, Vec<u32>)>> = bytes
        .par_iter()
        .map(|b| b.as_ref().ok().map(|b| utf16_text(b)))
        .collect();
    // Byte-identical files (most groups hold copies) share one embedded text.
    let mut first_of: HashMap<&[u8], usize> = HashMap::new();
    let mut unique_index = vec![0usize; bytes.len()];
    let mut texts = Vec::new();
    for (i, b) in bytes.iter().enumerate() {
        let key: &[u8] = match b {
            Ok(b) => b,
            Err(_) => &[],
        };
        unique_index[i] = *first_of.entry(key).or_insert_with(|| {
            texts.push(i);
            texts.len() - 1
        });
    }

    let pairs: Vec<(u32, u32)> = plans
        .iter()
        .filter_map(|p| match p {
            Plan::Pair(a, b) => Some((*a, *b)),
            _ => None,
        })
        .collect();
    let explained: Vec<Option<Value>> = pairs
        .par_iter()
        .map(|&(a, b)| {
            let (ia, ib) = (text_of[&a], text_of[&b]);
            let (Ok(ba), Ok(bb)) = (&bytes[ia], &bytes[ib]) else {
                return None;
            };
            let (Some((_, ua)), Some((_, ub))) = (&decoded[ia], &decoded[ib]) else {
                return None;
            };
            if ba == bb {
                // Byte-identical: one passage, the whole text, without the
                // cost of explaining (most pairs of a deduplication are copies).
                let (n, len) = (documents[a as usize].shingles, *ua.last().unwrap_or(&0));
                return Some(json!({
                    "a": unique_index[ia],
                    "b": unique_index[ib],
                    "s": [[0, len, 0, len, 1.0]],
                    "j": 1.0,
                    "m": 1.0,
                    "k": [n, n, n],
                    "same": true,
                }));
            }
            let e = spans::explain(ba, bb, recipe);
            let at = |map: &[u32], r: &Range<usize>| (map[r.start], map[r.end]);
            let shared: Vec<Value> = e
                .shared
                .iter()
                .map(|s| {
                    let (a0, a1) = at(ua, &s.a);
                    let (b0, b1) = at(ub, &s.b);
                    json!([a0, a1, b0, b1, round6(s.share)])
                })
                .collect();
            Some(json!({
                "a": unique_index[ia],
                "b": unique_index[ib],
                "s": shared,
                "j": e.jaccard.map(round6),
                "m": e.estimate.map(round6),
                "k": [e.shingles_a, e.shingles_b, e.shared_shingles],
                "d": word_diff(ba, bb, (ua, ub), recipe),
            }))
        })
        .collect();

    let mut out_pairs = Vec::new();
    let mut per_member = Vec::with_capacity(plans.len());
    let mut next = explained.into_iter();
    for plan in plans {
        per_member.push(match plan {
            Plan::Kept => Value::Null,
            Plan::Left(reason) => Value::String(reason),
            Plan::Pair(_, _) => match next.next().flatten() {
                Some(pair) => {
                    out_pairs.push(pair);
                    json!(out_pairs.len() - 1)
                }
                None => Value::String("not embedded: a file could not be read again".into()),
            },
        });
    }
    Explained {
        texts: texts
            .iter()
            .map(|&i| {
                decoded[i]
                    .as_ref()
                    .map(|(text, _)| text.clone())
                    .unwrap_or_default()
            })
            .collect(),
        per_member,
        pairs: out_pairs,
        failures,
    }
}

/// Identical words shown on each side of an edit in the word diff; a
/// longer identical run is folded (`explain`'s default `--context`).
const CONTEXT: usize = 6;

/// The fewest identical words worth a fold (as `explain`'s).
const FOLD_MIN: usize = 3;

/// `explain`'s word diff of the two texts ([`simfind::explain::diff`]),
/// for the page's side-by-side view: its counts, and its pieces in order,
/// each with its text's UTF-16 ranges on the side(s) it has (`ua`, `ub`:
/// byte offset → UTF-16 offset):
///
/// - `["=", [a0, a1], [b0, b1], fold]`, the same words; `fold` is `null`, or
///   `[a_head_end, a_tail_start, b_head_end, b_tail_start, words]` when the
///   run is folded to [`CONTEXT`] words at each end (none before the first
///   piece, none after the last);
/// - `["-", [a0, a1]]` only in a; `["+", [b0, b1]]` only in b;
/// - `["<", [a0, a1], block, words]` a block of a that b has elsewhere,
///   `[">", [b0, b1], block]` where b has it.
fn word_diff(a: &[u8], b: &[u8], (ua, ub): (&[u32], &[u32]), recipe: &Recipe) -> Value {
    use simfind::explain::diff::{self, Piece, Word};
    let norm = recipe.normalization;
    let (wa, wb) = (diff::words(a, norm), diff::words(b, norm));
    let d = diff::diff(&wa, &wb);
    // The UTF-16 range from the first word's start to the last word's end.
    let span = |words: &[Word], map: &[u32], r: &Range<usize>| -> Value {
        if r.is_empty() {
            return json!([0, 0]);
        }
        json!([
            map[words[r.start].range.start],
            map[words[r.end - 1].range.end]
        ])
    };
    let last = d.pieces.len().saturating_sub(1);
    let pieces: Vec<Value> = d
        .pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| match piece {
            Piece::Same { a: ra, b: rb } => {
                let n = ra.len();
                let head = if i == 0 { 0 } else { CONTEXT.min(n) };
                let tail = if i == last { 0 } else { CONTEXT.min(n - head) };
                let folded = n - head - tail;
                let fold = if folded >= FOLD_MIN {
                    // Where the head ends and the tail starts: the end of
                    // the head's last word (or the run's start) and the
                    // start of the tail's first word (or the run's end).
                    let cut = |words: &[Word], map: &[u32], r: &Range<usize>| {
                        let head_end = if head == 0 {
                            map[words[r.start].range.start]
                        } else {
                            map[words[r.start + head - 1].range.end]
                        };
                        let tail_start = if tail == 0 {
                            map[words[r.end - 1].range.end]
                        } else {
                            map[words[r.end - tail].range.start]
                        };
                        (head_end, tail_start)
                    };
                    let (ah, at) = cut(&wa, ua, ra);
                    let (bh, bt) = cut(&wb, ub, rb);
                    json!([ah, at, bh, bt, folded])
                } else {
                    Value::Null
                };
                json!(["=", span(&wa, ua, ra), span(&wb, ub, rb), fold])
            }
            Piece::Removed { a: ra } => json!(["-", span(&wa, ua, ra)]),
            Piece::Added { b: rb } => json!(["+", span(&wb, ub, rb)]),
            Piece::MovedFrom { a: ra, block } => {
                json!(["<", span(&wa, ua, ra), block + 1, ra.len()])
            }
            Piece::MovedTo { b: rb, block, .. } => json!([">", span(&wb, ub, rb), block + 1]),
        })
        .collect();
    json!({
        "p": pieces,
        "edits": d.edits,
        "moved": d.moved,
        "same": d.same_words,
        "words": [wa.len(), wb.len()],
        "complete": d.complete,
    })
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// `bytes` decoded lossily (each invalid sequence one U+FFFD, as
/// `String::from_utf8_lossy`), and for every byte offset `0..=len` the UTF-16
/// offset of the character it falls in (its start).
pub fn utf16_text(bytes: &[u8]) -> (String, Vec<u32>) {
    let mut text = String::with_capacity(bytes.len());
    let mut map = Vec::with_capacity(bytes.len() + 1);
    let mut units = 0u32;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            map.extend(std::iter::repeat_n(units, c.len_utf8()));
            units += c.len_utf16() as u32;
            text.push(c);
        }
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            map.extend(std::iter::repeat_n(units, invalid.len()));
            units += 1;
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    map.push(units);
    (text, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The UTF-16 offset of every byte, against JavaScript's indexing as the
    /// Rust standard library encodes it.
    #[test]
    fn byte_offsets_map_to_utf16_offsets_of_the_lossy_text() {
        let bytes = "a€😀b"
            .as_bytes()
            .iter()
            .copied()
            .chain(*b"\xff\xfe c\xe9")
            .collect::<Vec<_>>();
        let (text, map) = utf16_text(&bytes);
        assert_eq!(text, String::from_utf8_lossy(&bytes));
        assert_eq!(map.len(), bytes.len() + 1);
        let utf16: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(*map.last().unwrap() as usize, utf16.len());
        // Every character's first byte maps to where that character starts.
        for (i, _) in std::str::from_utf8(&bytes[..9]).unwrap().char_indices() {
            let prefix: usize = std::str::from_utf8(&bytes[..i])
                .unwrap()
                .encode_utf16()
                .count();
            assert_eq!(map[i] as usize, prefix);
        }
        // "a€😀b" is 1+3+4+1 bytes, 1+1+2+1 units.
        assert_eq!(&map[..10], &[0, 1, 1, 1, 2, 2, 2, 2, 4, 5]);
        // Two invalid bytes: \xff and \xfe are one sequence each.
        assert_eq!(&map[10..], &[6, 7, 8, 9, 10]);
    }
}
