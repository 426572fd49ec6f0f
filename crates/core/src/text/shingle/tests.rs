//! Tests of shingling: each shingle kind against its oracle, the ASCII and
//! non-ASCII paths against each other, and property tests over random text.

use super::*;
use crate::text::words::{class_masks, class_masks_partial};
use proptest::prelude::*;

fn char_shingles_oracle(text: &str, k: usize) -> Vec<u64> {
    let mut out = Vec::new();
    char_shingles_reference(text, k, |h| out.push(h));
    out
}

/// The word-shingle loop before the byte-level classification of ASCII
/// (`char_indices` and `char::is_alphanumeric` on every character): the
/// oracle of `word_shingles`.
fn word_shingles_oracle(
    text: &str,
    k: usize,
    stop_words: Option<&StopWords>,
    scratch: &mut Scratch,
    emit: &mut impl FnMut(u64),
) {
    let bytes = text.as_bytes();
    let words = &mut scratch.words;
    words.clear();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s as u32, i as u32));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s as u32, bytes.len() as u32));
    }
    // The windows over the words are the production code's: only the
    // word finding changed.
    word_windows(text, k, stop_words, scratch, emit);
}

/// `for_each_hash_block`'s blocks, concatenated.
fn blocks_vec(shingler: &Shingler, text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    shingler.for_each_hash_block(text, &mut Scratch::default(), |b| {
        assert!(!b.is_empty());
        out.extend_from_slice(b)
    });
    out
}

fn char_shingles_vec(text: &str, k: usize) -> Vec<u64> {
    let mut out = Vec::new();
    char_shingles(text, k, &mut |h| out.push(h));
    out
}

/// Non-ASCII characters of every UTF-8 length: 2 bytes (é, ß, я), 3 bytes
/// (€, —, 中), 4 bytes (😀, 𝄞).
const WIDE: &[char] = &['é', 'ß', 'я', '€', '—', '中', '😀', '𝄞'];

fn assert_like_oracle(text: &str, k: usize) {
    let want = char_shingles_oracle(text, k);
    assert_eq!(char_shingles_vec(text, k), want, "k = {k}, text {text:?}");
    let shingler = Shingler::new(ShingleKind::Char, k, StopWords::default());
    assert_eq!(
        blocks_vec(&shingler, text),
        want,
        "blocks, k = {k}, text {text:?}"
    );
}

#[test]
fn ascii_run_split_equals_oracle_on_placed_characters() {
    // Every non-ASCII character at the start, at the end, adjacent to
    // another, alone, one per window and in every window, for every k.
    for k in 1..=20 {
        for &c in WIDE {
            for &d in WIDE {
                let texts = [
                    format!("{c}"),
                    format!("{c}{d}"),
                    format!("{c}abcdefghijklmnopqrstuvwxyz"),
                    format!("abcdefghijklmnopqrstuvwxyz{c}"),
                    format!("{c}abcdefghijklmnopqrstuvwxyz{d}"),
                    format!("abcdefghij{c}{d}klmnopqrstuvwxyz"),
                    format!("abcdefghij{c}klmnopqrst{d}uvwxyz"),
                    format!("a{c}b{d}c{c}d{d}e{c}f{d}g{c}h{d}i"),
                    format!("ab{c}cd{d}"),
                    "x".repeat(k - 1) + &c.to_string() + &"y".repeat(k - 1),
                    "x".repeat(k) + &c.to_string() + &"y".repeat(k) + &d.to_string(),
                    format!("{c}") + &"x".repeat(k + 1) + &d.to_string(),
                    (0..3 * k)
                        .map(|i| if i % k == 0 { c } else { 'q' })
                        .collect(),
                    (0..3 * k)
                        .map(|i| if i % 2 == 0 { d } else { ' ' })
                        .collect(),
                ];
                for text in &texts {
                    assert_like_oracle(text, k);
                }
            }
        }
    }
}

/// ASCII runs of random length (often ≥ k, often shorter) separated by
/// groups of non-ASCII characters.
fn runs_and_wide() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::collection::vec(prop::sample::select(WIDE.to_vec()), 0..=3),
            "[ -~]{0,30}",
        ),
        0..8,
    )
    .prop_map(|parts| {
        let mut s = String::new();
        for (wide, ascii) in parts {
            s.extend(wide);
            s.push_str(&ascii);
        }
        s
    })
}

/// Characters drawn one by one, mostly ASCII.
fn mixed_chars() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            6 => prop::char::range(' ', '~'),
            1 => prop::char::range('\u{80}', '\u{7FF}'),
            1 => prop::char::range('\u{800}', '\u{FFFF}'),
            1 => prop::char::range('\u{10000}', '\u{10FFFF}'),
        ],
        0..60,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    // A fixed seed and no regression file: a failure reproduces on any clone.
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5A1E_0001),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]
    #[test]
    fn ascii_run_split_equals_oracle_on_runs(text in runs_and_wide(), k in 1usize..=20) {
        prop_assert_eq!(char_shingles_vec(&text, k), char_shingles_oracle(&text, k));
    }

    #[test]
    fn ascii_run_split_equals_oracle_on_mixed_chars(text in mixed_chars(), k in 1usize..=20) {
        prop_assert_eq!(char_shingles_vec(&text, k), char_shingles_oracle(&text, k));
    }

    #[test]
    fn blocks_equal_single_hashes_for_every_kind(
        text in prop_oneof![runs_and_wide(), mixed_chars(), "[ -~]{0,300}"],
        k in 1usize..=20,
    ) {
        for kind in [ShingleKind::Char, ShingleKind::Word, ShingleKind::StopWord] {
            let shingler = Shingler::new(kind, k, StopWords::default());
            let mut want = Vec::new();
            shingler.for_each_hash(&text, &mut Scratch::default(), |h| want.push(h));
            prop_assert_eq!(blocks_vec(&shingler, &text), want, "{:?}", kind);
        }
    }

    #[test]
    fn byte_scans_find_the_next_byte_of_their_class(
        bytes in prop::collection::vec(prop_oneof![3 => 0u8..0x80, 1 => 0x80u8..=0xFF], 0..100),
        from in 0usize..100,
    ) {
        let from = from.min(bytes.len());
        let want_non_ascii = (from..bytes.len()).find(|&i| bytes[i] >= 0x80).unwrap_or(bytes.len());
        let want_ascii = (from..bytes.len()).find(|&i| bytes[i] < 0x80).unwrap_or(bytes.len());
        prop_assert_eq!(next_non_ascii(&bytes, from), want_non_ascii);
        prop_assert_eq!(next_ascii(&bytes, from), want_ascii);
    }
}

proptest! {
    // A fixed seed and no regression file: a failure reproduces on any clone.
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5A1E_0002),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]
    #[test]
    fn class_masks_classify_every_byte(bytes in prop::collection::vec(any::<u8>(), 0..=64)) {
        let (alnum, high) = class_masks_partial(&bytes);
        for (j, &b) in bytes.iter().enumerate() {
            prop_assert_eq!(high >> j & 1 == 1, b >= 0x80, "byte {} = {:#x}", j, b);
            if b < 0x80 {
                prop_assert_eq!(alnum >> j & 1 == 1, b.is_ascii_alphanumeric(), "byte {} = {:#x}", j, b);
            }
        }
        prop_assert_eq!(high.checked_shr(bytes.len() as u32).unwrap_or(0), 0);
    }
}

#[test]
fn class_masks_classify_every_ascii_byte() {
    let bytes: Vec<u8> = (0..128).collect();
    for half in bytes.chunks(64) {
        let (alnum, high) = class_masks(half.try_into().unwrap());
        assert_eq!(high, 0);
        for (j, &b) in half.iter().enumerate() {
            assert_eq!(alnum >> j & 1 == 1, b.is_ascii_alphanumeric(), "{b:#x}");
        }
    }
}

fn word_shingles_vec(text: &str, k: usize, stop_words: Option<&StopWords>) -> Vec<u64> {
    let mut out = Vec::new();
    word_shingles(text, k, stop_words, &mut Scratch::default(), &mut |h| {
        out.push(h)
    });
    out
}

fn word_shingles_oracle_vec(text: &str, k: usize, stop_words: Option<&StopWords>) -> Vec<u64> {
    let mut out = Vec::new();
    word_shingles_oracle(text, k, stop_words, &mut Scratch::default(), &mut |h| {
        out.push(h)
    });
    out
}

/// Text for word shingles: ASCII letters (both cases), digits,
/// punctuation and spaces, stop words, and non-ASCII characters that are
/// alphanumeric (é, É, я, Я, 中, the numerics ² and ٣, titlecase ǅ) or not
/// (—, €, 😀, no-break space, combining acute accent).
fn word_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => "[a-zA-Z0-9]{1,8}",
            3 => prop::sample::select(vec![" ", "  ", ", ", "-", "_", "\n", "'", "."])
                .prop_map(str::to_owned),
            2 => prop::sample::select(vec!["the", "The", "a", "of", "über", "Über", "été"])
                .prop_map(str::to_owned),
            2 => prop::sample::select(vec![
                'é', 'É', 'я', 'Я', '中', '²', '٣', 'ǅ', '—', '€', '😀', '\u{A0}', '\u{301}',
            ])
            .prop_map(String::from),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// The definition of word and stop-word shingles spelled out with strings:
/// the words (maximal runs of alphanumeric characters), every `k` of them
/// joined by one space, kept when there is no stop-word list or the first is
/// a stop word (compared lowercased when it has an uppercase character), and
/// hashed. Shares no code with `word_windows`, whose contiguous-slice and
/// sliding-buffer paths it checks.
fn word_shingles_by_strings(text: &str, k: usize, stop_words: Option<&StopWords>) -> Vec<u64> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            current.push(c);
        } else if !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    if words.len() < k {
        return Vec::new();
    }
    (0..=words.len() - k)
        .filter(|&i| {
            stop_words.is_none_or(|stop| {
                let first = &words[i];
                if first.chars().any(char::is_uppercase) {
                    stop.contains(
                        &first
                            .chars()
                            .flat_map(char::to_lowercase)
                            .collect::<String>(),
                    )
                } else {
                    stop.contains(first)
                }
            })
        })
        .map(|i| hash_shingle(words[i..i + k].join(" ").as_bytes()))
        .collect()
}

/// Text whose words are mostly separated by one space, sometimes by
/// something else, so that long windows mix the slice path and the
/// sliding-buffer path and move between them.
fn mostly_spaced_words() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop_oneof![
                3 => "[a-z]{1,6}",
                1 => prop::sample::select(vec!["the", "The", "of", "a", "été", "Über", "中"])
                    .prop_map(str::to_owned),
            ],
            prop_oneof![
                8 => Just(" ".to_owned()),
                1 => prop::sample::select(vec!["  ", ", ", "-", "\n", "—", " . "])
                    .prop_map(str::to_owned),
            ],
        ),
        0..80,
    )
    .prop_map(|parts| parts.into_iter().map(|(w, gap)| w + &gap).collect())
}

proptest! {
    // A fixed seed and no regression file: a failure reproduces on any clone.
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5A1E_0003),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]
    #[test]
    fn word_shingles_equal_oracle(text in word_text(), k in 1usize..=8) {
        prop_assert_eq!(
            word_shingles_vec(&text, k, None),
            word_shingles_oracle_vec(&text, k, None)
        );
    }

    #[test]
    fn stop_word_shingles_equal_oracle(text in word_text(), k in 1usize..=8) {
        let stop_words = StopWords::from_words(
            ENGLISH_STOP_WORDS.iter().copied().chain(["über", "été", "я"]),
        );
        prop_assert_eq!(
            word_shingles_vec(&text, k, Some(&stop_words)),
            word_shingles_oracle_vec(&text, k, Some(&stop_words))
        );
    }

    #[test]
    fn word_windows_equal_joined_strings(
        text in mostly_spaced_words(),
        k in 1usize..=24,
        stop in any::<bool>(),
    ) {
        let stop_words = StopWords::from_words(["the", "of", "a", "été", "über"]);
        let stop_words = stop.then_some(&stop_words);
        prop_assert_eq!(
            word_shingles_vec(&text, k, stop_words),
            word_shingles_by_strings(&text, k, stop_words)
        );
    }

    #[test]
    fn word_shingles_equal_oracle_on_any_text(text in "\\PC{0,60}", k in 1usize..=4) {
        prop_assert_eq!(
            word_shingles_vec(&text, k, None),
            word_shingles_oracle_vec(&text, k, None)
        );
    }
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn shingles_equal_oracles_on_debian_docs() {
    // Real mostly-ASCII text: every 8th file of the corpus, normalised as
    // a scan does (a few MB; well under a second in release).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/debian-docs/files");
    let mut paths = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let (mut files, mut mixed) = (0, 0);
    for path in paths.iter().step_by(8) {
        let raw = std::fs::read(path).expect("readable corpus file");
        let text = crate::text::normalize(&raw, Default::default());
        if !text.is_ascii() {
            mixed += 1;
        }
        files += 1;
        for k in [1, 3, 5, 9, 17] {
            assert_eq!(
                char_shingles_vec(&text, k),
                char_shingles_oracle(&text, k),
                "k = {k}, {}",
                path.display()
            );
        }
        let stop_words = StopWords::english();
        for k in [1, 3] {
            assert_eq!(
                word_shingles_vec(&text, k, None),
                word_shingles_oracle_vec(&text, k, None),
                "word k = {k}, {}",
                path.display()
            );
            assert_eq!(
                word_shingles_vec(&text, k, Some(&stop_words)),
                word_shingles_oracle_vec(&text, k, Some(&stop_words)),
                "stopword k = {k}, {}",
                path.display()
            );
        }
    }
    assert!(
        files > 100 && mixed > 10,
        "{files} files, {mixed} not ASCII"
    );
}

fn hashes_of(strings: &[&str]) -> Vec<u64> {
    let mut v: Vec<u64> = strings.iter().map(|s| hash_shingle(s.as_bytes())).collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn mmds_two_shingles_of_abcdabd() {
    // The lecture notes' toy document (seed `000_…`, "Shingling"): {ab, bc, cd,
    // da, bd}; "ab" occurs twice but once in the set.
    let s = Shingler::new(ShingleKind::Char, 2, StopWords::default());
    assert_eq!(
        s.shingle_set("abcdabd"),
        hashes_of(&["ab", "bc", "cd", "da", "bd"])
    );
}

#[test]
fn char_shingles_count_characters_not_bytes() {
    let s = Shingler::new(ShingleKind::Char, 2, StopWords::default());
    assert_eq!(s.shingle_set("äöü"), hashes_of(&["äö", "öü"]));
}

#[test]
fn text_shorter_than_one_shingle_has_empty_set() {
    let c = Shingler::new(ShingleKind::Char, 5, StopWords::default());
    assert!(c.shingle_set("abcd").is_empty());
    assert!(c.shingle_set("äöüß").is_empty());
    assert_eq!(c.shingle_set("abcde").len(), 1);
    let w = Shingler::new(ShingleKind::Word, 3, StopWords::default());
    assert!(w.shingle_set("two words").is_empty());
}

#[test]
fn word_shingles_split_on_non_alphanumerics_and_join_with_one_space() {
    let w = Shingler::new(ShingleKind::Word, 3, StopWords::default());
    // '_' and '-' split words; the shingle is joined by one space.
    assert_eq!(
        w.shingle_set("snake_case-word, and more"),
        hashes_of(&["snake case word", "case word and", "word and more"])
    );
}

#[test]
fn contiguous_and_assembled_word_shingles_hash_alike() {
    let w = Shingler::new(ShingleKind::Word, 2, StopWords::default());
    assert_eq!(w.shingle_set("alpha beta"), w.shingle_set("alpha -- beta"));
}

#[test]
fn stop_word_shingles_follow_mmds_3_2_4() {
    // MMDS: "A spokesperson for the Sudzo Corporation revealed today that
    // studies have shown it is good for people to buy Sudzo products."
    let s = Shingler::new(ShingleKind::StopWord, 3, StopWords::english());
    let text = "a spokesperson for the sudzo corporation revealed today that studies \
                have shown it is good for people to buy sudzo products.";
    let expected = hashes_of(&[
        "a spokesperson for",
        "for the sudzo",
        "the sudzo corporation",
        "that studies have",
        "have shown it",
        "it is good",
        "is good for",
        "for people to",
        "to buy sudzo",
    ]);
    assert_eq!(s.shingle_set(text), expected);
}

#[test]
fn stop_words_match_case_insensitively() {
    let s = Shingler::new(ShingleKind::StopWord, 2, StopWords::from_words(["The"]));
    assert_eq!(s.shingle_set("The cat"), hashes_of(&["The cat"]));
}

/// Found by the `shingle` fuzz target: with `--keep-case`, a word with a
/// titlecase letter (`ǅ`, not uppercase, lowercasing to `ǆ`) or a final
/// capital sigma was compared unlowered or lowercased per character (`σ`
/// where the stop-word list holds `ς`), so it never matched its stop word.
#[test]
fn stop_words_match_titlecase_and_final_sigma_words() {
    let s = Shingler::new(ShingleKind::StopWord, 2, StopWords::from_words(["ǅ", "ΟΣ"]));
    assert_eq!(s.shingle_set("ǅ cat"), hashes_of(&["ǅ cat"]));
    assert_eq!(s.shingle_set("ΟΣ cat"), hashes_of(&["ΟΣ cat"]));
    assert_eq!(s.shingle_set("ος cat"), hashes_of(&["ος cat"]));
}

#[test]
fn unicode_words() {
    let w = Shingler::new(ShingleKind::Word, 1, StopWords::default());
    assert_eq!(w.shingle_set("naïve café"), hashes_of(&["naïve", "café"]));
}

/// The lecture's "document = set of important words": with the English stop
/// words, MMDS 3.2.4's sentence keeps its content words (k = 1), and k = 2
/// pairs them across the stop words between.
#[test]
fn important_words_drop_the_stop_words() {
    let text = "a spokesperson for the sudzo corporation revealed today that studies \
                have shown it is good for people to buy sudzo products.";
    let one = Shingler::new(ShingleKind::Important, 1, StopWords::english());
    assert_eq!(
        one.shingle_set(text),
        hashes_of(&[
            "spokesperson",
            "sudzo",
            "corporation",
            "revealed",
            "today",
            "studies",
            "shown",
            "good",
            "people",
            "buy",
            "products",
        ])
    );
    let two = Shingler::new(ShingleKind::Important, 2, StopWords::english());
    assert_eq!(
        two.shingle_set("The cat and THE hat, of course."),
        hashes_of(&["cat hat", "hat course"])
    );
    assert_eq!(ShingleKind::Important.default_k(), 1);
}

/// Important-word shingles by strings: the words that are not stop words
/// (compared lowercased), `k` at a time, joined by one space.
fn important_by_strings(text: &str, k: usize, stop_words: &StopWords) -> Vec<u64> {
    let listed = stop_words.sorted();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && listed.binary_search(&w.to_lowercase().as_str()).is_err())
        .collect();
    (0..(words.len() + 1).saturating_sub(k))
        .map(|i| xxhash_rust::xxh3::xxh3_64(words[i..i + k].join(" ").as_bytes()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x1A9_0A47),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn important_shingles_equal_strings(text in word_text(), k in 1usize..=6) {
        let stop_words = StopWords::from_words(
            ENGLISH_STOP_WORDS.iter().copied().chain(["über", "été", "я", "ǅ", "ος"]),
        );
        let shingler = Shingler::new(ShingleKind::Important, k, stop_words.clone());
        let mut each = Vec::new();
        shingler.for_each_hash(&text, &mut Scratch::default(), |h| each.push(h));
        prop_assert_eq!(&each, &important_by_strings(&text, k, &stop_words));
        prop_assert_eq!(blocks_vec(&shingler, &text), each);
    }
}
