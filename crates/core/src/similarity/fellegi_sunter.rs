//! The Fellegi–Sunter model of record linkage (Fellegi and Sunter, 1969), as
//! Splink users know it: each field of a record pair falls in a comparison
//! level, each level has an `m` (its probability among matches) and a `u`
//! (among non-matches), and a pair's match weight is the sum of its fields'
//! `log2(m / u)` plus the prior's `log2(λ / (1 − λ))`.
//!
//! ```text
//! levels   field values a, b → null (either empty: weight 0, as in Splink)
//!                              exact (equal) | one edit (Damerau ≤ 1)
//!                              | close (Jaro–Winkler ≥ 0.88) | else
//! u        random pairs' levels, counted ([`Tally`], [`u_of`])
//! m, λ     EM over the candidates' levels, u fixed, λ among all pairs
//!          ([`estimate`])
//! weight   Σ log2(m/u) + log2(λ/(1−λ)); an exact level's u is the value's
//!          frequency among records (term frequency, [`Model::breakdown`])
//! p        2^w / (1 + 2^w)
//! ```
//!
//! EM runs on the distinct comparison vectors and their counts, visited in
//! key order: the estimates depend on the pairs, not on their order or the
//! number of threads that made them.
//!
//! Why the levels are these: the damage real duplicates carry is a typo, a
//! transposition, a doubled or dropped character (one edit), or more of
//! them in one value (Jaro–Winkler, which forgives them in longer strings
//! and weighs a common start); a nickname or an emptied value is a
//! disagreement or a null. 0.88 is one of the Jaro–Winkler thresholds of
//! Splink's name comparisons.

use std::collections::BTreeMap;

/// The comparison levels of a field, best first; a pair with either value
/// empty has none (null).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Exact = 0,
    OneEdit = 1,
    Close = 2,
    Else = 3,
}

/// Levels per field besides null.
pub const LEVELS: usize = 4;

/// The levels in order, for tables.
pub const ALL_LEVELS: [Level; LEVELS] = [Level::Exact, Level::OneEdit, Level::Close, Level::Else];

/// The smallest Jaro–Winkler similarity of the close level.
pub const CLOSE_JARO_WINKLER: f64 = 0.88;

/// Values longer than this (in characters) are never at the close level:
/// Jaro–Winkler takes time quadratic in the length, and a field of a record
/// may be megabytes; names and addresses are far shorter.
pub const CLOSE_MAX_CHARS: usize = 256;

/// A level's code in a comparison vector; null is [`NULL`].
pub const NULL: u8 = LEVELS as u8;

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Exact => "exact",
            Level::OneEdit => "one edit",
            Level::Close => "jaro-winkler ≥ 0.88",
            Level::Else => "else",
        }
    }

    /// The level of a code of a comparison vector; `None` for null.
    pub fn of_code(code: u8) -> Option<Level> {
        ALL_LEVELS.get(code as usize).copied()
    }
}

/// The level of two (normalised) values of a field; `None` when either is
/// empty (unknown, not a disagreement).
pub fn level_of(a: &str, b: &str) -> Option<Level> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    if a == b {
        return Some(Level::Exact);
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    Some(if within_one_edit(&a, &b) {
        Level::OneEdit
    } else if close(&a, &b) {
        Level::Close
    } else {
        Level::Else
    })
}

/// Whether `a` becomes `b` by at most one insertion, deletion, substitution
/// or transposition of adjacent characters (Damerau–Levenshtein ≤ 1), in
/// linear time: the pairs scored are many, their values short.
pub fn within_one_edit(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let start = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if start == short.len() {
        return true; // equal, or one character appended
    }
    if short.len() == long.len() {
        // A substitution at `start`, or a transposition of start and start + 1.
        let rest = start + 1;
        if short[rest..] == long[rest..] {
            return true;
        }
        rest < short.len()
            && short[start] == long[rest]
            && short[rest] == long[start]
            && short[rest + 1..] == long[rest + 1..]
    } else {
        // One character of `long` inserted at `start`.
        short[start..] == long[start + 1..]
    }
}

/// The Jaro–Winkler similarity of two strings (Winkler 1990): Jaro's
/// matching characters within half the longer length, less half their
/// transpositions, raised for a common prefix of up to 4 characters with
/// scale 0.1. 1 for equal strings, 0 when one is empty.
pub fn jaro_winkler(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return if a == b { 1.0 } else { 0.0 };
    }
    if a.len() <= 64 && b.len() <= 64 {
        return jaro_winkler_short(a, b);
    }
    jaro_winkler_general(a, b)
}

/// [`jaro_winkler`] of non-empty strings of any length.
fn jaro_winkler_general(a: &[char], b: &[char]) -> f64 {
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut b_used = vec![false; b.len()];
    let mut a_matched = Vec::with_capacity(a.len());
    for (i, &c) in a.iter().enumerate() {
        let lo = i.saturating_sub(window);
        let hi = (i + window + 1).min(b.len());
        for j in lo..hi {
            if !b_used[j] && b[j] == c {
                b_used[j] = true;
                a_matched.push(c);
                break;
            }
        }
    }
    let matches = a_matched.len();
    if matches == 0 {
        return 0.0;
    }
    let b_matched = b
        .iter()
        .zip(&b_used)
        .filter(|(_, used)| **used)
        .map(|(c, _)| c);
    let half_transpositions = a_matched
        .iter()
        .zip(b_matched)
        .filter(|(x, y)| x != y)
        .count();
    let m = matches as f64;
    let jaro =
        (m / a.len() as f64 + m / b.len() as f64 + (m - half_transpositions as f64 / 2.0) / m)
            / 3.0;
    let prefix = a.iter().zip(b).take(4).take_while(|(x, y)| x == y).count();
    jaro + prefix as f64 * 0.1 * (1.0 - jaro)
}

/// Whether `jaro_winkler(a, b) ≥ CLOSE_JARO_WINKLER` for values of at most
/// [`CLOSE_MAX_CHARS`] (false past it), most pairs decided without it: the characters two ASCII strings share, counted with their
/// multiplicity, bound the matches m, so Jaro is at most
/// `(m/|a| + m/|b| + 1) / 3` and Jaro–Winkler at most that raised for the
/// common prefix. Two unrelated names share few characters; the million
/// random pairs u is counted on are mostly such.
pub fn close(a: &[char], b: &[char]) -> bool {
    if a.is_empty() || b.is_empty() || a.len() > CLOSE_MAX_CHARS || b.len() > CLOSE_MAX_CHARS {
        return false;
    }
    if a.iter().chain(b).all(char::is_ascii) {
        let mut counts = [0u16; 128];
        for &c in a {
            counts[c as usize] += 1;
        }
        let mut shared = 0usize;
        for &c in b {
            let count = &mut counts[c as usize];
            if *count > 0 {
                *count -= 1;
                shared += 1;
            }
        }
        if !may_be_close(shared, a, b) {
            return false;
        }
    }
    jaro_winkler(a, b) >= CLOSE_JARO_WINKLER
}

/// Whether non-empty `a` and `b`, of which at most `shared` characters can
/// be matched (any bound on Jaro's matches will do), may reach
/// [`CLOSE_JARO_WINKLER`]: false only when they cannot. Jaro is at most
/// `(m/|a| + m/|b| + 1) / 3` with m matches, Jaro–Winkler that raised for
/// the common prefix.
pub fn may_be_close(shared: usize, a: &[char], b: &[char]) -> bool {
    let m = shared as f64;
    let jaro = (m / a.len() as f64 + m / b.len() as f64 + 1.0) / 3.0;
    let prefix = a.iter().zip(b).take(4).take_while(|(x, y)| x == y).count();
    // A hair of slack: the bound and the value round differently.
    shared > 0 && jaro + prefix as f64 * 0.1 * (1.0 - jaro) >= CLOSE_JARO_WINKLER - 1e-12
}

/// [`jaro_winkler`] of strings of at most 64 characters, the matched
/// characters of each side kept as bits: the same steps without an
/// allocation, for the million random pairs u is counted on.
fn jaro_winkler_short(a: &[char], b: &[char]) -> f64 {
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let (mut a_used, mut b_used) = (0u64, 0u64);
    for (i, &c) in a.iter().enumerate() {
        let lo = i.saturating_sub(window);
        let hi = (i + window + 1).min(b.len());
        for (j, &d) in b.iter().enumerate().take(hi).skip(lo) {
            if b_used & (1 << j) == 0 && d == c {
                b_used |= 1 << j;
                a_used |= 1 << i;
                break;
            }
        }
    }
    let matches = a_used.count_ones() as usize;
    if matches == 0 {
        return 0.0;
    }
    // The matched characters of each side in order, compared pairwise.
    let (mut x, mut y, mut half_transpositions) = (a_used, b_used, 0usize);
    while x != 0 {
        let (i, j) = (x.trailing_zeros() as usize, y.trailing_zeros() as usize);
        half_transpositions += usize::from(a[i] != b[j]);
        x &= x - 1;
        y &= y - 1;
    }
    let m = matches as f64;
    let jaro =
        (m / a.len() as f64 + m / b.len() as f64 + (m - half_transpositions as f64 / 2.0) / m)
            / 3.0;
    let prefix = a.iter().zip(b).take(4).take_while(|(x, y)| x == y).count();
    jaro + prefix as f64 * 0.1 * (1.0 - jaro)
}

/// The comparison vector of a pair: per field, a level's code (`NULL` for
/// none).
pub fn codes<'a>(
    a: impl IntoIterator<Item = &'a str>,
    b: impl IntoIterator<Item = &'a str>,
) -> Vec<u8> {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| level_of(x, y).map_or(NULL, |l| l as u8))
        .collect()
}

/// Comparison vectors and how many pairs have each, in key order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub fields: usize,
    pub counts: BTreeMap<Vec<u8>, u64>,
}

impl Tally {
    pub fn new(fields: usize) -> Self {
        Tally {
            fields,
            counts: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, codes: Vec<u8>, n: u64) {
        debug_assert_eq!(codes.len(), self.fields);
        *self.counts.entry(codes).or_insert(0) += n;
    }

    /// The number of pairs tallied.
    pub fn pairs(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Per field and level, the pairs at it (nulls not counted).
    pub fn level_counts(&self) -> Vec<[u64; LEVELS]> {
        let mut out = vec![[0u64; LEVELS]; self.fields];
        for (codes, &n) in &self.counts {
            for (f, &c) in codes.iter().enumerate() {
                if let Some(level) = Level::of_code(c) {
                    out[f][level as usize] += n;
                }
            }
        }
        out
    }
}

/// Per field, each level's share of the pairs in `random` not null there: the
/// u probabilities. A level no random pair reached gets the share of half a
/// pair, so that its weight is large but finite (a value seen in a
/// candidate only is not proof of a match).
pub fn u_of(random: &Tally) -> Vec<[f64; LEVELS]> {
    u_of_counts(random.level_counts())
}

/// [`u_of`] from the random pairs' counts per field and level (what
/// [`Tally::level_counts`] gives): u needs no more of them, so a caller
/// may count them without keeping each pair's vector.
pub fn u_of_counts(counts: Vec<[u64; LEVELS]>) -> Vec<[f64; LEVELS]> {
    counts
        .into_iter()
        .map(|counts| {
            let total: u64 = counts.iter().sum();
            let mut u = [0.0; LEVELS];
            for (slot, &c) in u.iter_mut().zip(&counts) {
                *slot = if total == 0 {
                    1.0 / LEVELS as f64
                } else {
                    (c as f64).max(0.5) / total as f64
                };
            }
            u
        })
        .collect()
}

/// When EM stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmOptions {
    /// Stop when no m and not λ moved by more than this in an iteration.
    pub tolerance: f64,
    /// Stop after this many iterations whatever the change.
    pub max_iterations: usize,
}

impl Default for EmOptions {
    fn default() -> Self {
        EmOptions {
            tolerance: 1e-6,
            max_iterations: 200,
        }
    }
}

/// A trained model: the prior λ (the probability that two records drawn at
/// random match), and m and u per field and level.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub lambda: f64,
    pub m: Vec<[f64; LEVELS]>,
    pub u: Vec<[f64; LEVELS]>,
    /// EM's iterations, and whether it converged before the cap.
    pub iterations: usize,
    pub converged: bool,
}

/// Smallest probability an m is kept at: a level no match reached in the
/// training pairs keeps a finite (very negative) weight.
const FLOOR: f64 = 1e-6;

/// Estimates λ and m by expectation–maximisation over the comparison
/// vectors of `pairs`, the candidates among `population` pairs (every pair
/// of records), with `u` fixed (from random pairs, [`u_of`]): each
/// iteration gives every vector its probability of being a match under the
/// current λ, m, u (a null field contributes 1 to both sides), then sets λ
/// to their sum over the population and each m to the match-weighted share
/// of its level among the pairs not null in that field.
///
/// Why λ is over the population: the candidates are not a random sample
/// of the pairs but those that agree somewhere (they share a band or a
/// key), so their non-matches agree far more often than u says. Fitting λ
/// among the candidates would make the mixture explain that agreement by
/// matches (λ and the m of agreeing levels too high). The pairs left out are
/// taken as non-matches, which they nearly all are; then the posterior of a
/// candidate, `λ·Πm / (λ·Πm + (1−λ)·Πu)` with the population's λ, m, u, is
/// its probability of matching whatever made it a candidate, as long as
/// that depended on its fields' agreement. The matches that were not
/// candidates are missing from m's counts: m leans towards agreement by
/// their share (the candidates' pair completeness, 0.99 and more).
pub fn estimate(pairs: &Tally, population: u64, u: &[[f64; LEVELS]], options: EmOptions) -> Model {
    let fields = pairs.fields;
    // The start: most matches agree exactly, the rest spread down the levels.
    let mut m = vec![[0.85, 0.07, 0.05, 0.03]; fields];
    let total = pairs.pairs() as f64;
    let population = (population as f64).max(total);
    // A tenth of the candidates matching, a start EM moves from either way.
    let mut lambda = (0.1 * total / population.max(1.0)).clamp(FLOOR, 0.5);
    let mut iterations = 0;
    let mut converged = false;
    if total == 0.0 {
        return Model {
            lambda,
            m,
            u: u.to_vec(),
            iterations,
            converged: true,
        };
    }
    while iterations < options.max_iterations {
        iterations += 1;
        let mut matched = 0.0;
        let mut at = vec![[0.0; LEVELS]; fields];
        for (codes, &n) in &pairs.counts {
            let mut pm = lambda;
            let mut pu = 1.0 - lambda;
            for (f, &c) in codes.iter().enumerate() {
                if let Some(level) = Level::of_code(c) {
                    pm *= m[f][level as usize];
                    pu *= u[f][level as usize];
                }
            }
            let p = if pm + pu > 0.0 { pm / (pm + pu) } else { 0.0 };
            let weight = p * n as f64;
            matched += weight;
            for (f, &c) in codes.iter().enumerate() {
                if let Some(level) = Level::of_code(c) {
                    at[f][level as usize] += weight;
                }
            }
        }
        let new_lambda = (matched / population).clamp(f64::MIN_POSITIVE, 1.0 - FLOOR);
        let mut change = (new_lambda - lambda).abs();
        lambda = new_lambda;
        for (mf, af) in m.iter_mut().zip(&at) {
            let sum: f64 = af.iter().sum();
            if sum <= 0.0 {
                continue; // no match had this field: keep the start
            }
            let mut new = [0.0; LEVELS];
            for (slot, &a) in new.iter_mut().zip(af) {
                *slot = (a / sum).max(FLOOR);
            }
            let norm: f64 = new.iter().sum();
            for (old, slot) in mf.iter_mut().zip(new) {
                let slot = slot / norm;
                change = change.max((slot - *old).abs());
                *old = slot;
            }
        }
        if change < options.tolerance {
            converged = true;
            break;
        }
    }
    Model {
        lambda,
        m,
        u: u.to_vec(),
        iterations,
        converged,
    }
}

/// One field's part of a pair's match weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldWeight {
    /// `None`: null (either value empty), weight 0.
    pub level: Option<Level>,
    pub m: f64,
    /// The u used: the level's, or for an exact level with a term
    /// frequency, the value's frequency among records.
    pub u: f64,
    /// Whether `u` is the value's term frequency.
    pub term_frequency: bool,
    /// `log2(m / u)`, 0 for null.
    pub weight: f64,
}

/// A pair's match weight, field by field.
#[derive(Clone, Debug, PartialEq)]
pub struct Breakdown {
    /// `log2(λ / (1 − λ))`.
    pub prior: f64,
    pub fields: Vec<FieldWeight>,
    /// The prior plus every field's weight.
    pub total: f64,
    /// `2^total / (1 + 2^total)`.
    pub probability: f64,
}

/// The match probability of a match weight, computed so that large weights
/// of either sign neither overflow nor lose the other end.
pub fn probability_of(weight: f64) -> f64 {
    if weight >= 0.0 {
        1.0 / (1.0 + (-weight).exp2())
    } else {
        let odds = weight.exp2();
        odds / (1.0 + odds)
    }
}

impl Model {
    pub fn fields(&self) -> usize {
        self.m.len()
    }

    /// `log2(m / u)` of a field's level.
    pub fn weight(&self, field: usize, level: Level) -> f64 {
        (self.m[field][level as usize] / self.u[field][level as usize]).log2()
    }

    /// The weights of a pair with comparison vector `codes`; `term_u(f)`
    /// gives, for a field at the exact level, the frequency of its value
    /// among records (`None`: no adjustment), which replaces the level's u.
    pub fn breakdown(&self, codes: &[u8], term_u: impl Fn(usize) -> Option<f64>) -> Breakdown {
        let prior = (self.lambda / (1.0 - self.lambda)).log2();
        let mut total = prior;
        let fields: Vec<FieldWeight> = codes
            .iter()
            .enumerate()
            .map(|(f, &c)| match Level::of_code(c) {
                None => FieldWeight {
                    level: None,
                    m: 1.0,
                    u: 1.0,
                    term_frequency: false,
                    weight: 0.0,
                },
                Some(level) => {
                    let m = self.m[f][level as usize];
                    let tf = (level == Level::Exact)
                        .then(|| term_u(f))
                        .flatten()
                        .filter(|u| *u > 0.0);
                    let u = tf.unwrap_or(self.u[f][level as usize]);
                    let weight = (m / u).log2();
                    total += weight;
                    FieldWeight {
                        level: Some(level),
                        m,
                        u,
                        term_frequency: tf.is_some(),
                        weight,
                    }
                }
            })
            .collect();
        Breakdown {
            prior,
            fields,
            total,
            probability: probability_of(total),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::SplitMix64;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn jw(a: &str, b: &str) -> f64 {
        jaro_winkler(&chars(a), &chars(b))
    }

    #[test]
    fn jaro_winkler_matches_the_published_examples() {
        // Winkler's (1990) table and the usual textbook pairs.
        assert!(
            (jw("martha", "marhta") - 0.961).abs() < 5e-4,
            "{}",
            jw("martha", "marhta")
        );
        assert!(
            (jw("dwayne", "duane") - 0.84).abs() < 5e-4,
            "{}",
            jw("dwayne", "duane")
        );
        assert!(
            (jw("dixon", "dicksonx") - 0.813).abs() < 5e-4,
            "{}",
            jw("dixon", "dicksonx")
        );
        assert_eq!(jw("abc", "abc"), 1.0);
        assert_eq!(jw("abc", "xyz"), 0.0);
        assert_eq!(jw("", "a"), 0.0);
        assert_eq!(jw("ab", "ba"), jw("ba", "ab"));
    }

    #[test]
    fn the_short_jaro_winkler_is_the_general_one() {
        let words = [
            "martha", "marhta", "dwayne", "duane", "dixon", "dicksonx", "abcab", "bacba", "a", "aa",
        ];
        for a in words {
            for b in words {
                let (ca, cb) = (chars(a), chars(b));
                assert_eq!(
                    jaro_winkler_short(&ca, &cb),
                    jaro_winkler_general(&ca, &cb),
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn close_is_jaro_winkler_at_the_threshold() {
        let mut rng = SplitMix64(88);
        // Random short words over a few letters (so that many pairs are
        // near the threshold), and their one- and two-letter variants.
        let mut words: Vec<Vec<char>> = Vec::new();
        for _ in 0..300 {
            let len = 3 + (rng.next_u64() % 8) as usize;
            let w: Vec<char> = (0..len)
                .map(|_| (b'a' + (rng.next_u64() % 5) as u8) as char)
                .collect();
            let mut v = w.clone();
            let at = (rng.next_u64() as usize) % len;
            v[at] = 'z';
            words.push(w);
            words.push(v);
        }
        words.push(chars("josé"));
        words.push(chars("jose"));
        let mut near = 0;
        for a in &words {
            for b in &words {
                let exact = jaro_winkler(a, b) >= CLOSE_JARO_WINKLER;
                near += usize::from(exact);
                assert_eq!(close(a, b), exact, "{a:?} {b:?}");
            }
        }
        assert!(near > 1000, "{near}");
        // Past the cap, never close, in bounded time.
        let long: Vec<char> = (0..CLOSE_MAX_CHARS + 1)
            .map(|_| (b'a' + (rng.next_u64() % 26) as u8) as char)
            .collect();
        let mut other = long.clone();
        other.swap(7, 8);
        assert!(jaro_winkler(&long, &other) >= CLOSE_JARO_WINKLER);
        assert!(!close(&long, &other));
        assert_eq!(
            level_of(&"ab".repeat(500_000), &"ba".repeat(500_000)),
            Some(Level::Else)
        );
    }

    #[test]
    fn one_edit_agrees_with_the_damerau_distance() {
        use crate::similarity::measures::damerau_distance;
        let words = [
            "smith", "smyth", "smiht", "mith", "smithe", "simth", "jones", "", "s", "ab", "ba",
            "abc", "acb", "bac", "abcd",
        ];
        for a in words {
            for b in words {
                let d = damerau_distance(&chars(a), &chars(b), u64::MAX).unwrap();
                assert_eq!(
                    within_one_edit(&chars(a), &chars(b)),
                    d <= 1,
                    "{a:?} {b:?} d={d}"
                );
            }
        }
    }

    #[test]
    fn levels_go_from_exact_to_else_and_empty_is_null() {
        assert_eq!(level_of("smith", "smith"), Some(Level::Exact));
        assert_eq!(level_of("smith", "smiht"), Some(Level::OneEdit));
        assert_eq!(level_of("martha", "marhtta"), Some(Level::Close));
        assert_eq!(level_of("william", "bill"), Some(Level::Else));
        assert_eq!(level_of("", "bill"), None);
        assert_eq!(codes(["a", "", "xyz"], ["a", "b", "abc"]), vec![0, NULL, 3]);
    }

    #[test]
    fn weights_are_log_ratios_and_term_frequency_replaces_exact_u() {
        let model = Model {
            lambda: 0.2,
            m: vec![[0.8, 0.1, 0.05, 0.05]; 2],
            u: vec![[0.05, 0.01, 0.04, 0.9]; 2],
            iterations: 1,
            converged: true,
        };
        let b = model.breakdown(&[0, NULL], |_| None);
        assert!((b.prior - (0.25f64).log2()).abs() < 1e-12);
        assert!((b.fields[0].weight - 4.0).abs() < 1e-12); // log2(0.8 / 0.05)
        assert_eq!(b.fields[1].weight, 0.0);
        assert!((b.total - 2.0).abs() < 1e-12);
        assert!((b.probability - 0.8).abs() < 1e-12);
        // A rare value (1 in 800) weighs more than the level's average.
        let rare = model.breakdown(&[0, 3], |_| Some(1.0 / 800.0));
        assert!(rare.fields[0].term_frequency);
        assert!((rare.fields[0].weight - 640f64.log2()).abs() < 1e-9);
        assert!(rare.fields[1].weight < 0.0);
        assert!(!rare.fields[1].term_frequency);
        assert_eq!(probability_of(2000.0), 1.0);
        assert_eq!(probability_of(-2000.0), 0.0);
        assert!((probability_of(0.0) - 0.5).abs() < 1e-15);
    }

    /// A draw of a level from a distribution over the levels.
    fn draw(rng: &mut SplitMix64, p: &[f64; LEVELS]) -> u8 {
        let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut acc = 0.0;
        for (i, &pi) in p.iter().enumerate() {
            acc += pi;
            if x < acc {
                return i as u8;
            }
        }
        (LEVELS - 1) as u8
    }

    /// EM recovers the m and λ of comparison vectors drawn from a known
    /// model, with u from a separate sample of non-matches, within margins
    /// of the sampling error: a share estimated from n draws has standard
    /// error sqrt(p(1−p)/n); 4 of them (plus a little for EM's own mixing
    /// error) are exceeded with probability under 1e-4 per value, and the
    /// seed is fixed.
    #[test]
    fn em_recovers_known_m_u_and_lambda() {
        let true_m = [
            [0.90, 0.05, 0.03, 0.02],
            [0.80, 0.10, 0.05, 0.05],
            [0.95, 0.02, 0.01, 0.02],
            [0.70, 0.15, 0.10, 0.05],
        ];
        let true_u = [
            [0.01, 0.002, 0.02, 0.968],
            [0.05, 0.01, 0.04, 0.90],
            [0.002, 0.001, 0.005, 0.992],
            [0.10, 0.05, 0.10, 0.75],
        ];
        let (matches, non_matches, randoms) = (3_000u64, 3_000_000u64, 200_000u64);
        let mut rng = SplitMix64(39);
        // The candidates: the pairs with some field better than else, as
        // blocking or banding would find them (a match has every field at
        // else with probability 10⁻⁶).
        let mut pairs = Tally::new(4);
        let mut add = |codes: Vec<u8>| {
            if codes.iter().any(|&c| c < Level::Else as u8) {
                pairs.add(codes, 1);
            }
        };
        for _ in 0..matches {
            add(true_m.iter().map(|m| draw(&mut rng, m)).collect());
        }
        for _ in 0..non_matches {
            add(true_u.iter().map(|u| draw(&mut rng, u)).collect());
        }
        assert!(
            pairs.pairs() < non_matches / 2,
            "{} candidates",
            pairs.pairs()
        );
        let mut random = Tally::new(4);
        for _ in 0..randoms {
            random.add(true_u.iter().map(|u| draw(&mut rng, u)).collect(), 1);
        }
        let u = u_of(&random);
        for (f, (est, truth)) in u.iter().zip(&true_u).enumerate() {
            for l in 0..LEVELS {
                let se = (truth[l] * (1.0 - truth[l]) / randoms as f64).sqrt();
                assert!(
                    (est[l] - truth[l]).abs() <= 4.0 * se + 1e-5,
                    "u[{f}][{l}] {} vs {}",
                    est[l],
                    truth[l]
                );
            }
        }
        let population = matches + non_matches;
        let model = estimate(&pairs, population, &u, EmOptions::default());
        assert!(model.converged, "{} iterations", model.iterations);
        // λ's error is that of the matches' count, a binomial's.
        let lambda = matches as f64 / population as f64;
        let se = (lambda * (1.0 - lambda) / population as f64).sqrt();
        assert!(
            (model.lambda - lambda).abs() <= 4.0 * se,
            "λ {} vs {lambda}",
            model.lambda
        );
        for (f, (est, truth)) in model.m.iter().zip(&true_m).enumerate() {
            for l in 0..LEVELS {
                let se = (truth[l] * (1.0 - truth[l]) / matches as f64).sqrt();
                assert!(
                    (est[l] - truth[l]).abs() <= 4.0 * se + 0.005,
                    "m[{f}][{l}] {} vs {}",
                    est[l],
                    truth[l]
                );
            }
        }
    }

    #[test]
    fn no_pairs_is_the_start_not_a_division_by_zero() {
        let model = estimate(
            &Tally::new(2),
            0,
            &[[0.25; LEVELS]; 2],
            EmOptions::default(),
        );
        assert!(model.lambda > 0.0 && model.m.iter().flatten().all(|m| m.is_finite()));
    }
}
