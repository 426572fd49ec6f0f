use super::*;
use crate::lsh::Banding;
use crate::sketch::SketchKind;
use crate::text::Normalization;
use crate::text::{ShingleKind, Shingler, StopWords};

fn recipe(kind: ShingleKind, k: usize) -> Recipe {
    Recipe {
        normalization: Normalization::default(),
        shingler: Shingler::new(kind, k, StopWords::english()),
        sketch: SketchKind::Classic,
        seed: 42,
        banding: Banding { bands: 16, rows: 8 },
        include_binary: true,
    }
}

#[test]
fn an_edit_in_the_middle() {
    let a = b"The quick brown fox jumps over the lazy dog. It barked.";
    let b = b"the  quick\r\nbrown fox JUMPS over the sleepy dog. It barked.";
    let e = explain(a, b, &recipe(ShingleKind::Char, 5));
    assert_eq!(e.shared.len(), 2, "{e:?}");
    assert_eq!(
        &a[e.shared[0].a.clone()],
        b"The quick brown fox jumps over the "
    );
    assert_eq!(
        &b[e.shared[0].b.clone()],
        b"the  quick\r\nbrown fox JUMPS over the "
    );
    assert_eq!(&a[e.shared[1].a.clone()], b"y dog. It barked.");
    assert_eq!(&b[e.shared[1].b.clone()], b"y dog. It barked.");
    assert_eq!(e.only_a, vec![35..38]);
    assert_eq!(&a[35..38], b"laz");
    assert_eq!(&b[e.only_b[0].clone()], b"sleep");
    let total: f64 = e.shared.iter().map(|s| s.share).sum();
    assert!((total - e.jaccard.unwrap()).abs() < 1e-12);
    assert_eq!(
        e.jaccard,
        measures::jaccard(
            &recipe(ShingleKind::Char, 5).set_of(a),
            &recipe(ShingleKind::Char, 5).set_of(b)
        )
    );
}

#[test]
fn identical_documents_are_one_passage() {
    let a = &["  Ünïcode\tTEXT, ".as_bytes(), b"\xFF with\r\nCRLF  "].concat();
    let e = explain(a, a, &recipe(ShingleKind::Char, 4));
    assert_eq!(e.shared.len(), 1);
    assert_eq!(e.shared[0].a, 2..a.len() - 2);
    assert_eq!(e.shared[0].b, e.shared[0].a);
    assert_eq!(e.only_a, vec![0..2, a.len() - 2..a.len()]);
    assert_eq!(e.jaccard, Some(1.0));
    assert_eq!(e.estimate, Some(1.0));
}

#[test]
fn moved_paragraphs_map_out_of_order_in_b() {
    let first = "one paragraph about the weather and the sea.";
    let second = "another paragraph about trains, stations and time.";
    let a = format!("{first}\n\n{second}");
    let b = format!("{second}\n\n{first}");
    let e = explain(a.as_bytes(), b.as_bytes(), &recipe(ShingleKind::Word, 2));
    assert_eq!(e.shared.len(), 2, "{e:?}");
    assert_eq!(&b[e.shared[0].b.clone()], first.trim_end_matches('.'));
    assert_eq!(&b[e.shared[1].b.clone()], second.trim_end_matches('.'));
    assert!(e.shared[0].b.start > e.shared[1].b.start);
}

#[test]
fn nothing_shared_and_empty_documents() {
    let r = recipe(ShingleKind::Char, 3);
    let e = explain(b"abcdef", b"uvwxyz", &r);
    assert!(e.shared.is_empty());
    assert_eq!(e.only_a, vec![0..6]);
    assert_eq!(e.only_b, vec![0..6]);
    assert_eq!(e.jaccard, Some(0.0));
    let e = explain(b"", b"  ", &r);
    assert_eq!(e.jaccard, None);
    assert_eq!(e.estimate, None);
    assert!(e.only_a.is_empty());
    assert_eq!(e.only_b, vec![0..2]);
}

/// A text whose one shingle repeats: the candidate cap keeps it linear,
/// and the answer is still one passage.
#[test]
fn repetitive_text_is_one_passage() {
    let a = vec![b'a'; 20_000];
    let e = explain(&a, &a, &recipe(ShingleKind::Char, 5));
    assert_eq!(e.shared.len(), 1);
    assert_eq!(e.shared[0].a, 0..a.len());
}

use proptest::prelude::*;

/// Words and separators people's files have (case, CRLF, tabs, no-break
/// space, multi-byte letters, invalid UTF-8), none whose lowercase is
/// several characters or depends on context (`İ`, `Σ`): over these a
/// passage's two ranges normalise to the same text.
fn plain_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => prop::sample::select(vec![
            "the", "The", "of", "and", "CAT", "dög", "Ärger", "é", "x1", "a", "to", "sea",
            "😀", "-", ",", ".",
        ]).prop_map(|s| s.as_bytes().to_vec()),
        4 => prop::sample::select(vec![" ", " ", "  ", "\t", "\r\n", "\n\n", "\u{A0}"])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::sample::select(vec![vec![0xFFu8], vec![0xE2, 0x82], vec![0xF0, 0x9F]]),
    ]
}

/// Every piece, with those too.
fn any_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => plain_piece(),
        1 => prop::sample::select(vec!["İ", "Σ", "ΟΔΟΣ", "ﬀ", "\u{301}"])
            .prop_map(|s| s.as_bytes().to_vec()),
    ]
}

/// A base text, then A and B as edits of it: a passage inserted into one,
/// a stretch deleted from the other.
fn edited_pair(piece: BoxedStrategy<Vec<u8>>) -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
    (
        prop::collection::vec(piece.clone(), 0..80),
        prop::collection::vec(piece, 1..12),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        0usize..15,
    )
        .prop_map(|(base, inserted, at, del, del_len)| {
            let mut a = base.clone();
            let at = at.index(a.len() + 1);
            a.splice(at..at, inserted);
            let mut b = base;
            let from = del.index(b.len() + 1);
            b.drain(from..(from + del_len).min(b.len()));
            (a.concat(), b.concat())
        })
}

fn recipes() -> impl Strategy<Value = Recipe> {
    (
        prop::sample::select(vec![
            (ShingleKind::Char, 1),
            (ShingleKind::Char, 3),
            (ShingleKind::Char, 6),
            (ShingleKind::Word, 1),
            (ShingleKind::Word, 3),
            (ShingleKind::StopWord, 2),
        ]),
        prop::sample::select(Normalization::ALL.to_vec()),
    )
        .prop_map(|((kind, k), normalization)| Recipe {
            normalization,
            ..recipe(kind, k)
        })
}

/// The structure every explanation has, checked against brute force:
/// passages non-empty, disjoint and in order in A; with only-A they tile A;
/// only-B is what no passage covers in B; the counts are the recipe's sets'.
fn check_structure(a: &[u8], b: &[u8], r: &Recipe, e: &Explanation) -> Result<(), TestCaseError> {
    let mut tiles: Vec<Range<usize>> = e.shared.iter().map(|s| s.a.clone()).collect();
    for w in tiles.windows(2) {
        prop_assert!(
            w[0].end <= w[1].start,
            "passages overlap or are out of order: {:?}",
            e
        );
    }
    tiles.extend(e.only_a.iter().cloned());
    tiles.sort_by_key(|t| t.start);
    let mut at = 0;
    for t in &tiles {
        prop_assert!(!t.is_empty(), "{:?}", e);
        prop_assert_eq!(t.start, at, "A is not tiled: {:?}", e);
        at = t.end;
    }
    prop_assert_eq!(at, a.len());
    let mut in_b = vec![false; b.len()];
    for s in &e.shared {
        prop_assert!(!s.b.is_empty() && s.b.end <= b.len());
        in_b[s.b.clone()].iter_mut().for_each(|x| *x = true);
    }
    let only_b: Vec<usize> = e.only_b.iter().flat_map(|r| r.clone()).collect();
    let uncovered: Vec<usize> = (0..b.len()).filter(|&i| !in_b[i]).collect();
    prop_assert_eq!(only_b, uncovered);
    prop_assert!(e.only_b.windows(2).all(|w| w[0].end < w[1].start));

    let (set_a, set_b) = (r.set_of(a), r.set_of(b));
    prop_assert_eq!(e.jaccard, measures::jaccard(&set_a, &set_b));
    prop_assert_eq!(e.shingles_a, set_a.len());
    prop_assert_eq!(e.shingles_b, set_b.len());
    prop_assert_eq!(
        e.shared_shingles,
        measures::intersection_size(&set_a, &set_b)
    );
    let counted: usize = e.shared.iter().map(|s| s.new_shingles).sum();
    prop_assert_eq!(counted, e.shared_shingles);
    let shares: f64 = e.shared.iter().map(|s| s.share).sum();
    prop_assert!((shares - e.jaccard.unwrap_or(0.0)).abs() < 1e-9);
    Ok(())
}

/// Found by `passages_occur_in_both_at_their_offsets` under another seed (a CI
/// dry run): with whitespace kept (`collapse_whitespace: false`) and char
/// 3-shingles, a passage that starts inside a run of spaces gets a B range
/// that starts one space earlier than A's (`"  the…"` against `" the…"`):
/// the passage's B start was trimmed differently from its A start. The cause:
/// overlapping runs were only cut against their neighbour, and a run emptied
/// by the cut left its two neighbours overlapping.
#[test]
fn a_passage_starting_in_kept_spaces_starts_at_the_same_text_in_both() {
    let a = b"thethethe   thethethethethethetheof   \xffthethethethethethethethethethethethe";
    let b = b"thethe  thethethethethethetheof   \xffthethethethethethethethethethethethe";
    let mut r = recipe(ShingleKind::Char, 3);
    r.normalization = Normalization {
        lowercase: true,
        collapse_whitespace: false,
        drop_whitespace: false,
        fold_accents: false,
        fold_punct: false,
    };
    let e = explain(a, b, &r);
    let norm = |bytes: &[u8]| crate::text::normalize(bytes, r.normalization);
    for s in &e.shared {
        assert_eq!(norm(&a[s.a.clone()]), norm(&b[s.b.clone()]), "{s:?}");
    }
}

/// The words (maximal alphanumeric runs) of a text.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

proptest! {
    // A fixed seed, as every randomised test here: a failure found by another
    // seed becomes a fixed regression test below instead of a flaky CI run.
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5EA5_0E18),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Each passage really occurs in both originals at its offsets: the two
    /// ranges normalise to the same text (char shingles) or the same words
    /// (word shingles), so they share the passage's shingles.
    #[test]
    fn passages_occur_in_both_at_their_offsets(
        (a, b) in edited_pair(plain_piece().boxed()),
        r in recipes(),
    ) {
        let e = explain(&a, &b, &r);
        check_structure(&a, &b, &r, &e)?;
        let norm = |bytes: &[u8]| crate::text::normalize(bytes, r.normalization);
        for s in &e.shared {
            let (ta, tb) = (norm(&a[s.a.clone()]), norm(&b[s.b.clone()]));
            if r.shingler.kind() == ShingleKind::Char {
                // A passage trimmed after the previous one may start on what
                // was a collapsed space; alone, it trims in both.
                prop_assert_eq!(&ta, &tb, "{:?}", s);
            } else {
                prop_assert_eq!(words(&ta), words(&tb), "{:?}", s);
                prop_assert!(!words(&ta).is_empty());
            }
            // So both ranges have the same shingles.
            let (sa, sb) = (r.set_of(&a[s.a.clone()]), r.set_of(&b[s.b.clone()]));
            prop_assert_eq!(sa, sb);
        }
    }

    /// Identical documents: one passage, and what is outside it holds no
    /// shingle's text (trimmed whitespace, separators before the first word).
    #[test]
    fn a_document_against_itself(
        a in prop::collection::vec(plain_piece(), 0..60).prop_map(|p| p.concat()),
        r in recipes(),
    ) {
        let e = explain(&a, &a, &r);
        check_structure(&a, &a, &r, &e)?;
        if e.shingles_a > 0 && r.shingler.kind() != ShingleKind::StopWord {
            prop_assert_eq!(e.shared.len(), 1);
            prop_assert_eq!(&e.shared[0].a, &e.shared[0].b);
            for gap in &e.only_a {
                let text = crate::text::normalize(&a[gap.clone()], r.normalization);
                prop_assert!(words(&text).is_empty(), "{:?}", text);
                if r.shingler.kind() == ShingleKind::Char {
                    prop_assert_eq!(text.trim(), "");
                }
            }
        }
    }

    /// Every character, contextual lowercasing and invalid bytes included:
    /// the structure holds.
    #[test]
    fn structure_holds_on_any_text(
        (a, b) in edited_pair(any_piece().boxed()),
        r in recipes(),
    ) {
        let e = explain(&a, &b, &r);
        check_structure(&a, &b, &r, &e)?;
    }

    #[test]
    fn structure_holds_on_arbitrary_bytes(
        a in prop::collection::vec(any::<u8>(), 0..200),
        b in prop::collection::vec(any::<u8>(), 0..200),
        r in recipes(),
    ) {
        let e = explain(&a, &b, &r);
        check_structure(&a, &b, &r, &e)?;
    }
}
