//! A word diff of two texts, for people: what `git diff --word-diff` shows,
//! with identical runs left for the writer to fold and a block that moved
//! (deleted in one place, inserted whole in another) paired up so it is
//! shown once, as moved, rather than as two edits.
//!
//! Inputs: two texts' bytes (as read or extracted, before normalisation) and
//! the recipe's [`Normalization`]. A word is a maximal run of bytes that are
//! not ASCII whitespace; two words are equal when their normalised forms are
//! (so a case or CRLF change is no edit under the default normalisation),
//! and each is shown as it is in its own text.
//!
//! Algorithm: the patience diff of the `similar` crate over the words
//! (hashes of their normalised forms), with Myers underneath between the
//! unique anchors. Patience keeps a changed word where it is rather than
//! matching common words ("the", "a") far apart, which is what made the
//! shingle passages unreadable. Bounded: after [`DEADLINE`] the algorithm
//! stops refining and reports what is left as one changed block
//! ([`WordDiff::complete`] says so); memory is a few words of state per word.
//!
//! Output: [`WordDiff`], a list of [`Piece`]s in order (word index ranges of
//! each text), and counts. Pure: no I/O, no printing.

use std::ops::Range;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};

use crate::text::PAGE_BREAK;
use crate::text::xxh3_64;
use crate::text::{Normalization, normalize};

/// How long the diff refines before it reports the rest as one block.
pub const DEADLINE: Duration = Duration::from_secs(2);

/// The fewest words a deleted and an inserted run must have to be paired as
/// one moved block: shorter runs ("the", "of the") recur by chance.
pub const MIN_MOVED_WORDS: usize = 5;

/// One word of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The word's bytes in the text.
    pub range: Range<usize>,
    /// Whether a newline follows it (before the next word): the writer keeps
    /// the text's lines.
    pub newline_after: bool,
    /// The page it is on, from 1: one more than the form feeds before it.
    /// Extraction separates a PDF's pages with a form feed; in a text
    /// without one every word is on page 1.
    pub page: u32,
    /// The hash of its normalised form: what is compared.
    pub key: u64,
}

/// The words of `text`, each with the hash of its normalised form.
pub fn words(text: &[u8], normalization: Normalization) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut page = 1;
    let mut i = 0;
    while i < text.len() {
        if text[i].is_ascii_whitespace() {
            if text[i] == b'\n'
                && let Some(last) = out.last_mut()
            {
                last.newline_after = true;
            }
            if text[i] == PAGE_BREAK {
                page += 1;
            }
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && !text[i].is_ascii_whitespace() {
            i += 1;
        }
        let normalised = normalize(&text[start..i], normalization);
        out.push(Word {
            range: start..i,
            newline_after: false,
            page,
            key: xxh3_64(normalised.as_bytes()),
        });
    }
    out
}

/// A stretch of the diff, in word indexes of a's and b's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// The same words in both.
    Same { a: Range<usize>, b: Range<usize> },
    /// Words only in a, here.
    Removed { a: Range<usize> },
    /// Words only in b, here.
    Added { b: Range<usize> },
    /// Words of a that b has elsewhere: shown at the [`Piece::MovedTo`] of
    /// the same `block`, only marked here.
    MovedFrom { a: Range<usize>, block: usize },
    /// Words of a (`a`) that b has here (`b`): the moved block, shown once.
    MovedTo {
        a: Range<usize>,
        b: Range<usize>,
        block: usize,
    },
}

/// The word diff of two texts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordDiff {
    pub pieces: Vec<Piece>,
    /// Places where the texts differ other than by a moved block: a run of
    /// removed and added words with nothing the same between them is one.
    pub edits: usize,
    /// Blocks that moved.
    pub moved: usize,
    /// Words in both, in place.
    pub same_words: usize,
    /// False when [`DEADLINE`] cut the refinement short: some edits are then
    /// reported as one larger block.
    pub complete: bool,
}

/// The word diff of `a` and `b` (their words, from [`words`]).
pub fn diff(a: &[Word], b: &[Word]) -> WordDiff {
    diff_by(a, b, Some(Instant::now() + DEADLINE))
}

/// [`diff`] with the deadline given (`None`: none).
pub fn diff_by(a: &[Word], b: &[Word], deadline: Option<Instant>) -> WordDiff {
    let ka: Vec<u64> = a.iter().map(|w| w.key).collect();
    let kb: Vec<u64> = b.iter().map(|w| w.key).collect();
    let ops = capture_diff_slices_deadline(Algorithm::Patience, &ka, &kb, deadline);
    let complete = deadline.is_none_or(|d| Instant::now() < d);
    let mut pieces = Vec::with_capacity(ops.len());
    for op in ops {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => pieces.push(Piece::Same {
                a: old_index..old_index + len,
                b: new_index..new_index + len,
            }),
            DiffOp::Delete {
                old_index, old_len, ..
            } => pieces.push(Piece::Removed {
                a: old_index..old_index + old_len,
            }),
            DiffOp::Insert {
                new_index, new_len, ..
            } => pieces.push(Piece::Added {
                b: new_index..new_index + new_len,
            }),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                pieces.push(Piece::Removed {
                    a: old_index..old_index + old_len,
                });
                pieces.push(Piece::Added {
                    b: new_index..new_index + new_len,
                });
            }
        }
    }
    let moved = pair_moves(&mut pieces, &ka, &kb);
    let mut edits = 0;
    let mut in_edit = false;
    let mut same_words = 0;
    for p in &pieces {
        match p {
            Piece::Removed { .. } | Piece::Added { .. } => {
                if !in_edit {
                    edits += 1;
                }
                in_edit = true;
            }
            Piece::Same { a, .. } => {
                same_words += a.len();
                in_edit = false;
            }
            Piece::MovedFrom { .. } | Piece::MovedTo { .. } => in_edit = false,
        }
    }
    WordDiff {
        pieces,
        edits,
        moved,
        same_words,
        complete,
    }
}

/// Pairs each removed run with an added run elsewhere of the same words (at
/// least [`MIN_MOVED_WORDS`]), first come first paired, and marks both as one
/// moved block. Returns the number of blocks.
fn pair_moves(pieces: &mut [Piece], ka: &[u64], kb: &[u64]) -> usize {
    use std::collections::HashMap;
    let run_key = |keys: &[u64]| {
        xxh3_64(
            &keys
                .iter()
                .flat_map(|k| k.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    };
    // Removed runs by the hash of their words, in order.
    let mut removed: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, p) in pieces.iter().enumerate() {
        if let Piece::Removed { a } = p
            && a.len() >= MIN_MOVED_WORDS
        {
            removed.entry(run_key(&ka[a.clone()])).or_default().push(i);
        }
    }
    if removed.is_empty() {
        return 0;
    }
    let mut blocks = 0;
    for j in 0..pieces.len() {
        let Piece::Added { b } = &pieces[j] else {
            continue;
        };
        if b.len() < MIN_MOVED_WORDS {
            continue;
        }
        let b = b.clone();
        let Some(candidates) = removed.get_mut(&run_key(&kb[b.clone()])) else {
            continue;
        };
        // Not the removal right beside it: that is a replacement by the same
        // words, which the diff never makes, or an edit, not a move.
        let found = candidates.iter().position(|&i| {
            i + 1 != j
                && matches!(&pieces[i], Piece::Removed { a } if ka[a.clone()] == kb[b.clone()])
        });
        let Some(at) = found else {
            continue;
        };
        let i = candidates.remove(at);
        let Piece::Removed { a } = pieces[i].clone() else {
            unreachable!("only removals are candidates")
        };
        pieces[i] = Piece::MovedFrom {
            a: a.clone(),
            block: blocks,
        };
        pieces[j] = Piece::MovedTo {
            a,
            b,
            block: blocks,
        };
        blocks += 1;
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm() -> Normalization {
        Normalization::default()
    }

    fn run(a: &str, b: &str) -> (Vec<Word>, Vec<Word>, WordDiff) {
        let (wa, wb) = (words(a.as_bytes(), norm()), words(b.as_bytes(), norm()));
        let d = diff_by(&wa, &wb, None);
        (wa, wb, d)
    }

    #[test]
    fn words_keep_their_bytes_and_lines() {
        let w = words(b"  Hello world\r\nagain ", norm());
        assert_eq!(w.len(), 3);
        assert_eq!(w[0].range, 2..7);
        assert!(w[1].newline_after && !w[0].newline_after);
        // Compared as normalised: case does not count.
        assert_eq!(words(b"HELLO", norm())[0].key, w[0].key);
    }

    #[test]
    fn a_word_is_on_the_page_its_form_feeds_say() {
        let w = words(b"one two\x0cthree\n\x0c\x0c four", norm());
        let pages: Vec<u32> = w.iter().map(|w| w.page).collect();
        assert_eq!(pages, [1, 1, 2, 4]);
        // Form feeds are not part of words, and a text without one is page 1.
        assert_eq!(w[2].range, 8..13);
        assert!(words(b"a b c", norm()).iter().all(|w| w.page == 1));
    }

    #[test]
    fn ten_word_edits_are_ten_edits() {
        let base: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
        let mut edited = base.clone();
        for k in 0..10 {
            edited[20 + 35 * k] = format!("changed{k}");
        }
        let (_, _, d) = run(&base.join(" "), &edited.join(" "));
        assert_eq!(d.edits, 10);
        assert_eq!(d.moved, 0);
        assert_eq!(d.same_words, 390);
        assert!(d.complete);
    }

    #[test]
    fn a_moved_block_is_one_block_not_two_edits() {
        let base: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
        let block: Vec<String> = base[50..70].to_vec();
        let mut moved: Vec<String> = base[..50].to_vec();
        moved.extend_from_slice(&base[70..150]);
        moved.extend(block);
        moved.extend_from_slice(&base[150..]);
        let (_, _, d) = run(&base.join(" "), &moved.join(" "));
        assert_eq!(d.moved, 1, "{:?}", d.pieces);
        assert_eq!(d.edits, 0, "{:?}", d.pieces);
        assert!(
            d.pieces
                .iter()
                .any(|p| matches!(p, Piece::MovedTo { a, .. } if *a == (50..70)))
        );
    }

    #[test]
    fn identical_and_empty_texts() {
        let (_, _, d) = run("one two three", "one  two\nthree");
        assert_eq!((d.edits, d.same_words), (0, 3));
        let (_, _, d) = run("", "new words");
        assert_eq!(d.edits, 1);
        assert_eq!(d.pieces, vec![Piece::Added { b: 0..2 }]);
    }
}
