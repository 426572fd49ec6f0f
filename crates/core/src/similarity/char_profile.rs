//! A value's characters counted in 64 classes: a bound on the characters
//! two values can match, in a few vector instructions, so that the close
//! level ([`fellegi_sunter::close`]) of two unrelated values is decided
//! without counting their characters again at every comparison.
//!
//! A class holds one letter of either case, a digit or the space; every
//! other character shares the last class. What two values share per class
//! is at least what they share per character (the least of two sums is at
//! least the sum of the leasts), so the bound never falls below the
//! matches: it only rejects pairs that cannot be close, and the same pairs
//! are close with it as without it.

use super::fellegi_sunter::{self, CLOSE_JARO_WINKLER};

/// Classes a character may fall in.
const CLASSES: usize = 64;

/// Longest value profiled: its counts fit a byte.
const MAX_CHARS: usize = u8::MAX as usize;

/// The count of a value's characters per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CharProfile([u8; CLASSES]);

fn class_of(c: char) -> usize {
    match c {
        'a'..='z' => c as usize - 'a' as usize,
        'A'..='Z' => 26 + c as usize - 'A' as usize,
        '0'..='9' => 52 + c as usize - '0' as usize,
        ' ' => 62,
        _ => 63,
    }
}

impl CharProfile {
    /// The profile of `value`, or `None` past [`MAX_CHARS`] characters.
    pub fn of(value: &[char]) -> Option<Self> {
        if value.len() > MAX_CHARS {
            return None;
        }
        let mut counts = [0u8; CLASSES];
        for &c in value {
            counts[class_of(c)] += 1;
        }
        Some(CharProfile(counts))
    }

    /// At least the characters the two values have in common (counted with
    /// their multiplicity).
    pub fn shared(&self, other: &CharProfile) -> usize {
        self.0
            .iter()
            .zip(&other.0)
            .map(|(&x, &y)| u16::from(x.min(y)))
            .sum::<u16>() as usize
    }
}

/// [`fellegi_sunter::close`] of `a` and `b` given their profiles (`None`
/// where a value was too long to profile): the same answer, most unrelated
/// pairs decided by the profiles alone.
pub fn close_profiled(
    a: &[char],
    pa: Option<&CharProfile>,
    b: &[char],
    pb: Option<&CharProfile>,
) -> bool {
    match (pa, pb) {
        (Some(pa), Some(pb)) if !a.is_empty() && !b.is_empty() => {
            fellegi_sunter::may_be_close(pa.shared(pb), a, b)
                && fellegi_sunter::jaro_winkler(a, b) >= CLOSE_JARO_WINKLER
        }
        _ => fellegi_sunter::close(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::SplitMix64;

    #[test]
    fn profiled_close_is_close() {
        let mut rng = SplitMix64(61);
        // Short words over a few characters (many pairs near the
        // threshold), with capitals, digits, punctuation and accents,
        // which share classes or the last one.
        let alphabet: Vec<char> = "abcAB1 .é-ß".chars().collect();
        let mut words: Vec<Vec<char>> = Vec::new();
        for _ in 0..400 {
            let len = 1 + (rng.next_u64() % 9) as usize;
            let w: Vec<char> = (0..len)
                .map(|_| alphabet[(rng.next_u64() % alphabet.len() as u64) as usize])
                .collect();
            let mut v = w.clone();
            v[(rng.next_u64() as usize) % len] = 'z';
            words.push(w);
            words.push(v);
        }
        words.push(vec!['a'; 300]);
        words.push(vec!['a'; 255]);
        words.push(Vec::new());
        let profiles: Vec<Option<CharProfile>> = words.iter().map(|w| CharProfile::of(w)).collect();
        let mut close = 0;
        for (a, pa) in words.iter().zip(&profiles) {
            for (b, pb) in words.iter().zip(&profiles) {
                let want = fellegi_sunter::close(a, b);
                close += usize::from(want);
                assert_eq!(
                    close_profiled(a, pa.as_ref(), b, pb.as_ref()),
                    want,
                    "{a:?} {b:?}"
                );
            }
        }
        assert!(close > 2000, "{close}");
        assert!(CharProfile::of(&['a'; 256]).is_none());
    }

    #[test]
    fn shared_bounds_the_common_characters() {
        let p = |s: &str| CharProfile::of(&s.chars().collect::<Vec<_>>()).unwrap();
        assert_eq!(p("smith").shared(&p("smyth")), 4);
        assert_eq!(p("aab").shared(&p("abb")), 2);
        // é and ß share the last class: counted as common.
        assert_eq!(p("é").shared(&p("ß")), 1);
    }
}
