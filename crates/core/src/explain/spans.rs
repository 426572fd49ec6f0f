//! Why two documents are similar: their shared passages as byte ranges of the
//! original bytes (`simfind explain A B`, and the HTML report's side-by-side
//! view).
//!
//! API: [`explain`]`(a, b, recipe)` → [`Explanation`]. Pure: bytes in, byte
//! ranges out, no I/O. It takes bytes, not files, so any source that has text
//! (files, one field of a JSONL/CSV record) can be explained; the caller
//! bounds the size (memory is about [`BYTES_PER_INPUT_BYTE`] per input byte).
//!
//! How:
//! 1. each document is normalised by the recipe with a map back to the
//!    original bytes ([`normalize_mapped`]: CRLF, tabs, case, collapsed
//!    whitespace and invalid UTF-8 shift nothing; offsets are byte-true);
//! 2. its shingles are listed in text order with the units (characters or
//!    words) each covers — the same hashes the recipe's set is made of, so
//!    [`Explanation::jaccard`] is `simfind compare`'s;
//! 3. a **shared passage** is a maximal run of consecutive shingles of A that
//!    occur consecutively, in the same order and spacing, in B (greedy
//!    longest match from the start of A, the earliest such place in B on a
//!    tie). Its units are then the same text in both (the same characters for
//!    char shingles, the same words for word and stop-word shingles; modulo
//!    64-bit hash collisions). Passages are disjoint and in order in A: where
//!    a run's first shingles overlap the previous passage (windows of k units
//!    overlap), the run starts after it, in A and in B alike. In B, passages
//!    may overlap and come in any order (A may repeat or reorder B's text);
//! 4. the units are mapped to normalised bytes, then to original bytes.
//!    Bytes in no passage are [`Explanation::only_a`] / `only_b`: edits,
//!    separators between passages, trimmed whitespace.
//!
//! **The similarity of a passage** ([`Span::share`]): the part of the Jaccard
//! similarity it accounts for, i.e. the distinct shared shingles first met
//! in it (in A order) over |A ∪ B|. Every shared shingle lies in some
//! passage, so the shares add up to [`Explanation::jaccard`]: the list says
//! which passages make two files similar. (The Jaccard similarity of a
//! passage's own two ranges is 1 by construction, so it would say nothing.)
//!
//! Cost: O(n + m) plus, per position of A, at most [`MAX_CANDIDATES`] places
//! of B tried, so repetitive text (one character a million times) stays
//! linear.

use std::ops::Range;

use crate::explain::occurrences::{Occurrences, occurrences};
use crate::recipe::Recipe;
use crate::similarity::measures;
use crate::sketch::Sketcher;
use crate::text::{Mapped, normalize_mapped};

pub use crate::text::MAX_MAPPED_LEN;

/// A shared passage.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Its bytes in the original A.
    pub a: Range<usize>,
    /// Its bytes in the original B.
    pub b: Range<usize>,
    /// Shingle occurrences in the run (a passage of `u` units holds
    /// `u − k + 1` shingles; a run trimmed at its start after the previous
    /// passage still counts all of its own).
    pub shingles: usize,
    /// Distinct shared shingles first met in this passage (A order).
    pub new_shingles: usize,
    /// `new_shingles / |A ∪ B|`: its part of the Jaccard similarity (all
    /// passages' shares add up to [`Explanation::jaccard`]).
    pub share: f64,
}

/// Why A and B are (not) similar under a recipe.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// Shared passages, disjoint and in order in A.
    pub shared: Vec<Span>,
    /// Byte ranges of A in no shared passage, in order, disjoint, non-empty;
    /// with the passages' `a` ranges they cover A exactly.
    pub only_a: Vec<Range<usize>>,
    /// Byte ranges of B in no shared passage's `b` range, in order.
    pub only_b: Vec<Range<usize>>,
    /// Exact Jaccard similarity of the shingle sets (as `compare` and `scan`
    /// report it); `None` when both are empty.
    pub jaccard: Option<f64>,
    /// The MinHash estimate of the recipe's sketch; `None` when a set is empty.
    pub estimate: Option<f64>,
    /// Distinct shingles of A, of B, and of both.
    pub shingles_a: usize,
    pub shingles_b: usize,
    pub shared_shingles: usize,
}

/// Places of B tried for one position of A. Real text has few repeats of a
/// k-shingle; this caps the cost of text that is one shingle repeated.
pub const MAX_CANDIDATES: usize = 32;

/// Peak memory of [`explain`] per input byte (both inputs together), for
/// callers that bound it: the input, the normalised text and its offset map,
/// the character table, the shingle hashes, B's sorted index and the sets, as
/// measured on char shingles, the costliest kind (docs/PERFORMANCE.md,
/// "explain: memory and time").
pub const BYTES_PER_INPUT_BYTE: usize = 26;

/// One document, normalised and shingled, with its maps.
struct Side {
    mapped: Mapped,
    occ: Occurrences,
    len: usize,
}

impl Side {
    fn new(bytes: &[u8], recipe: &Recipe) -> Side {
        let mapped = normalize_mapped(bytes, recipe.normalization);
        let occ = occurrences(&mapped.text, &recipe.shingler);
        Side {
            mapped,
            occ,
            len: bytes.len(),
        }
    }

    /// Original bytes of units `units`.
    fn source(&self, units: Range<usize>) -> Range<usize> {
        self.mapped.source(self.occ.bytes_of(units))
    }
}

/// Explains the similarity of `a` and `b` under `recipe` (its normalisation,
/// shingles and sketch; `include_binary` is not looked at: the caller chose
/// the bytes).
///
/// # Panics
/// If either input is longer than [`MAX_MAPPED_LEN`].
pub fn explain(a: &[u8], b: &[u8], recipe: &Recipe) -> Explanation {
    let sa = Side::new(a, recipe);
    let sb = Side::new(b, recipe);
    let set = |hashes: &[u64]| {
        let mut set = hashes.to_vec();
        set.sort_unstable();
        set.dedup();
        set
    };
    let set_a = set(&sa.occ.hashes);
    let set_b = set(&sb.occ.hashes);
    let shared_shingles = measures::intersection_size(&set_a, &set_b);
    let union = set_a.len() + set_b.len() - shared_shingles;
    let estimate = (!set_a.is_empty() && !set_b.is_empty()).then(|| {
        let sketcher = recipe.sketcher();
        let sign = |set: &[u64]| {
            let mut signature = vec![0; sketcher.signature_len()];
            sketcher.sign_into(set, &mut signature);
            signature
        };
        sketcher.estimate(&sign(&set_a), &sign(&set_b))
    });
    let jaccard = measures::jaccard(&set_a, &set_b);
    let shingles_b = set_b.len();
    drop(set_b);

    let runs = runs(&sa.occ, &sb.occ);
    // Distinct shared shingles already counted, as positions in `set_a`.
    let mut counted = vec![false; set_a.len()];
    let k = sa.occ.k;
    let mut tiles: Vec<Tile> = runs
        .iter()
        .map(|run| {
            let start = sa.occ.first_unit(run.a);
            Tile {
                start,
                end: sa.occ.first_unit(run.a + run.len - 1) + k,
                to_b: sb.occ.first_unit(run.b) as isize - start as isize,
                shingles: run.len,
                new_shingles: sa.occ.hashes[run.a..run.a + run.len]
                    .iter()
                    .filter(|h| {
                        let at = set_a.binary_search(h).expect("a hash of A is in A's set");
                        !std::mem::replace(&mut counted[at], true)
                    })
                    .count(),
            }
        })
        .collect();
    // Windows of k units overlap, so consecutive runs can share units: the
    // run of fewer shingles gives them up (the later one on a tie), in A and
    // B alike. A run of one or two coincidental shingles just before a long
    // passage then keeps only what precedes it, not the passage's start.
    // A run that gives up all its units drops out of the comparison, so the
    // next run is cut against the last one still holding units: comparing
    // only neighbours left two runs overlapping across an emptied one, and
    // the later one's A start was then cut in bytes while its B start was
    // not (a passage starting one byte early in B).
    let mut holding: Vec<usize> = Vec::with_capacity(tiles.len());
    for t in 0..tiles.len() {
        while let Some(&p) = holding.last() {
            let (before, after) = tiles.split_at_mut(t);
            let (prev, next) = (&mut before[p], &mut after[0]);
            if prev.end <= next.start {
                break;
            }
            if next.shingles > prev.shingles {
                prev.end = next.start;
                if prev.end <= prev.start {
                    holding.pop();
                    continue;
                }
            } else {
                next.start = prev.end;
            }
            break;
        }
        if tiles[t].start < tiles[t].end {
            holding.push(t);
        }
    }
    let mut shared: Vec<Span> = Vec::with_capacity(tiles.len());
    // Counts of tiles left with nothing, for the next passage.
    let mut carried = (0, 0);
    for tile in tiles {
        let mut span_a = if tile.start < tile.end {
            sa.source(tile.start..tile.end)
        } else {
            0..0
        };
        if let Some(prev) = shared.last() {
            // Two output characters of one source character (`İ` → `i` +
            // U+0307) can fall on both sides of a cut: the source character
            // goes to the earlier passage.
            span_a.start = span_a.start.max(prev.a.end);
        }
        if span_a.is_empty() {
            // Its units all lie in its neighbours: its counts go with them.
            match shared.last_mut() {
                Some(prev) => {
                    prev.shingles += tile.shingles;
                    prev.new_shingles += tile.new_shingles;
                }
                None => {
                    carried.0 += tile.shingles;
                    carried.1 += tile.new_shingles;
                }
            }
            continue;
        }
        let b_units =
            tile.start.strict_add_signed(tile.to_b)..tile.end.strict_add_signed(tile.to_b);
        shared.push(Span {
            a: span_a,
            b: sb.source(b_units),
            shingles: tile.shingles + std::mem::take(&mut carried.0),
            new_shingles: tile.new_shingles + std::mem::take(&mut carried.1),
            share: 0.0,
        });
    }
    for span in &mut shared {
        span.share = span.new_shingles as f64 / union as f64;
    }
    let only_a = gaps(shared.iter().map(|s| s.a.clone()).collect(), sa.len);
    let only_b = gaps(shared.iter().map(|s| s.b.clone()).collect(), sb.len);
    Explanation {
        shared,
        only_a,
        only_b,
        jaccard,
        estimate,
        shingles_a: set_a.len(),
        shingles_b,
        shared_shingles,
    }
}

/// A run as units of A (`start..end`; B's are `to_b` further).
struct Tile {
    start: usize,
    end: usize,
    to_b: isize,
    shingles: usize,
    new_shingles: usize,
}

/// A run of `len` consecutive occurrences, from `a` in A and `b` in B.
#[derive(Clone, Copy, Debug)]
struct Run {
    a: usize,
    b: usize,
    len: usize,
}

/// The greedy tiling of A's occurrences by runs that occur in B: at each
/// position of A with its shingle somewhere in B, the longest run from there
/// (of at most [`MAX_CANDIDATES`] places of B tried), then on after it.
fn runs(a: &Occurrences, b: &Occurrences) -> Vec<Run> {
    // B's occurrences sorted by hash (then position): the places of a hash
    // are one slice.
    let mut index: Vec<u32> = (0..b.len() as u32).collect();
    index.sort_unstable_by_key(|&j| (b.hashes[j as usize], j));
    let places = |h: u64| {
        let from = index.partition_point(|&j| b.hashes[j as usize] < h);
        let to = from + index[from..].partition_point(|&j| b.hashes[j as usize] == h);
        &index[from..to]
    };
    // Occurrence i + 1 continues a run from i when its shingle is the next in
    // B too, at the same distance in units, and the two windows overlap or
    // touch (so every unit of the passage is in one of its shingles).
    let continues = |i: usize, j: usize| {
        let (da, db) = (
            a.first_unit(i + 1) - a.first_unit(i),
            b.first_unit(j + 1) - b.first_unit(j),
        );
        a.hashes[i + 1] == b.hashes[j + 1] && da == db && da <= a.k
    };
    let mut runs = Vec::new();
    let mut i = 0;
    while i < a.len() {
        let mut best: Option<Run> = None;
        for &j in places(a.hashes[i]).iter().take(MAX_CANDIDATES) {
            let j = j as usize;
            let mut len = 1;
            while i + len < a.len() && j + len < b.len() && continues(i + len - 1, j + len - 1) {
                len += 1;
            }
            if best.is_none_or(|r| len > r.len) {
                best = Some(Run { a: i, b: j, len });
            }
        }
        match best {
            Some(run) => {
                runs.push(run);
                i += run.len;
            }
            None => i += 1,
        }
    }
    runs
}

/// The parts of `0..len` in none of `ranges`, in order.
fn gaps(mut ranges: Vec<Range<usize>>, len: usize) -> Vec<Range<usize>> {
    ranges.sort_unstable_by_key(|r| (r.start, r.end));
    let mut out = Vec::new();
    let mut at = 0;
    for r in ranges {
        if r.start > at {
            out.push(at..r.start);
        }
        at = at.max(r.end);
    }
    if at < len {
        out.push(at..len);
    }
    out
}

#[cfg(test)]
mod tests;
