//! Shingle occurrences with their place in the text: what
//! [`Shingler::for_each_hash`] emits (the same hashes, in the same order),
//! plus, for each, the units (characters or words) its window covers, so that
//! a shingle can be traced back to bytes.
//!
//! A plain loop from the definitions of `text::shingle` (char windows, words
//! as maximal runs of alphanumeric characters joined by one space, stop-word
//! windows starting at a stop word), without its ASCII-run and bit-mask fast
//! paths; the tests check it emits exactly what the shingler does.

use std::collections::HashSet;
use std::ops::Range;

use crate::text::{ShingleKind, Shingler, hash_shingle};

/// The shingles of one normalised text, in text order (duplicates included).
#[derive(Clone, Debug, Default)]
pub(crate) struct Occurrences {
    /// Each occurrence's shingle hash.
    pub hashes: Vec<u64>,
    /// Each occurrence's first unit: its window is units `first..first + k`.
    /// `None` when occurrence `i` starts at unit `i` (char and word shingles),
    /// which saves a word of memory per character of a large file.
    pub first: Option<Vec<u32>>,
    /// Units, as byte offsets into the normalised text: for characters every
    /// character's start and then the text's length (unit `u` is
    /// `bounds[u]..bounds[u + 1]`); for words each word's start and end
    /// (unit `u` is `bounds[2u]..bounds[2u + 1]`).
    bounds: Vec<u32>,
    words: bool,
    /// Units per shingle.
    pub k: usize,
}

impl Occurrences {
    /// The first unit of occurrence `i`.
    pub(super) fn first_unit(&self, i: usize) -> usize {
        match &self.first {
            Some(first) => first[i] as usize,
            None => i,
        }
    }

    /// The normalised byte range of units `units` (non-empty): from the
    /// first one's start to the last one's end, separators between words
    /// included.
    pub(super) fn bytes_of(&self, units: Range<usize>) -> Range<usize> {
        debug_assert!(!units.is_empty());
        if self.words {
            self.bounds[2 * units.start] as usize..self.bounds[2 * units.end - 1] as usize
        } else {
            self.bounds[units.start] as usize..self.bounds[units.end] as usize
        }
    }

    pub(super) fn len(&self) -> usize {
        self.hashes.len()
    }
}

/// Every shingle occurrence of `text` (normalised) under `shingler`.
pub(crate) fn occurrences(text: &str, shingler: &Shingler) -> Occurrences {
    let k = shingler.k();
    match shingler.kind() {
        ShingleKind::Char => {
            let mut bounds: Vec<u32> = text.char_indices().map(|(i, _)| i as u32).collect();
            bounds.push(text.len() as u32);
            let chars = bounds.len() - 1;
            let hashes = if chars < k {
                Vec::new()
            } else {
                (0..=chars - k)
                    .map(|u| {
                        hash_shingle(&text.as_bytes()[bounds[u] as usize..bounds[u + k] as usize])
                    })
                    .collect()
            };
            Occurrences {
                hashes,
                first: None,
                bounds,
                words: false,
                k,
            }
        }
        kind => {
            let mut bounds = Vec::new();
            let mut start = None;
            for (i, c) in text.char_indices() {
                match (c.is_alphanumeric(), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        bounds.extend([s as u32, i as u32]);
                        start = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = start {
                bounds.extend([s as u32, text.len() as u32]);
            }
            if kind == ShingleKind::Important {
                // The units are the important words only: a shingle covers
                // the stop words between its words, not its own units.
                let stop: HashSet<&str> = shingler.stop_words().sorted().into_iter().collect();
                let kept: Vec<u32> = bounds
                    .chunks(2)
                    .filter(|w| {
                        !stop.contains(text[w[0] as usize..w[1] as usize].to_lowercase().as_str())
                    })
                    .flatten()
                    .copied()
                    .collect();
                bounds = kept;
            }
            let word = |u: usize| &text[bounds[2 * u] as usize..bounds[2 * u + 1] as usize];
            let words = bounds.len() / 2;
            let stop_words: Option<HashSet<&str>> = (kind == ShingleKind::StopWord)
                .then(|| shingler.stop_words().sorted().into_iter().collect());
            let mut hashes = Vec::new();
            let mut first = Vec::new();
            let mut joined = String::new();
            for u in 0..(words + 1).saturating_sub(k) {
                if let Some(stop) = &stop_words
                    && !stop.contains(word(u).to_lowercase().as_str())
                {
                    continue;
                }
                joined.clear();
                for w in u..u + k {
                    if w > u {
                        joined.push(' ');
                    }
                    joined.push_str(word(w));
                }
                hashes.push(hash_shingle(joined.as_bytes()));
                first.push(u as u32);
            }
            Occurrences {
                hashes,
                first: stop_words.is_some().then_some(first),
                bounds,
                words: true,
                k,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{Scratch, StopWords};
    use proptest::prelude::*;

    fn shinglers(k: usize) -> [Shingler; 3] {
        [
            Shingler::new(ShingleKind::Char, k, StopWords::default()),
            Shingler::new(ShingleKind::Word, k, StopWords::default()),
            Shingler::new(ShingleKind::StopWord, k, StopWords::english()),
        ]
    }

    fn check(text: &str, k: usize) -> Result<(), TestCaseError> {
        for shingler in shinglers(k) {
            let mut expected = Vec::new();
            shingler.for_each_hash(text, &mut Scratch::default(), |h| expected.push(h));
            let found = occurrences(text, &shingler);
            prop_assert_eq!(&found.hashes, &expected, "{:?} k={}", shingler.kind(), k);
            // Each window's units, joined as the definition joins them, hash
            // to the occurrence's hash.
            for i in 0..found.len() {
                let first = found.first_unit(i);
                let bytes = &text[found.bytes_of(first..first + k)];
                let shingle = if shingler.kind() == ShingleKind::Char {
                    bytes.to_string()
                } else {
                    bytes
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                prop_assert_eq!(hash_shingle(shingle.as_bytes()), found.hashes[i]);
            }
        }
        Ok(())
    }

    #[test]
    fn samples() {
        for text in [
            "",
            "a",
            "the cat and the dog of the house",
            "ünïcode wörds, and İ the — end",
            "The Cat",
            "a  b\tc",
        ] {
            for k in 1..=4 {
                check(text, k).unwrap();
            }
        }
    }

    proptest! {
        // A fixed seed and no regression file: a failure reproduces on any clone.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x0CC0_5EED),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        #[test]
        fn the_same_hashes_as_the_shingler(
            words in prop::collection::vec(prop::sample::select(vec![
                "the", "The", "of", "and", "cat", "dög", "İs", "a", "x1", "—", ",", " ", "  ", "😀",
            ]), 0..30),
            k in 1usize..=5,
        ) {
            check(&words.join(" "), k)?;
            check(&words.concat(), k)?;
        }
    }
}
