use super::*;
use crate::lsh::{scurve, tune};

fn ok(builder: SpecBuilder) -> Spec {
    builder.build().expect("a valid spec")
}

fn err(builder: SpecBuilder) -> SpecError {
    builder.build().expect_err("an invalid spec")
}

fn index_recipe() -> Recipe {
    ok(SpecBuilder::new()
        .shingle_kind(Some(ShingleKind::StopWord))
        .k(Some(4))
        .stop_words(Some(vec!["of".into(), "and".into()]))
        .keep_case(true)
        .bands(Some(10))
        .rows(Some(4))
        .seed(Some(7))
        .sketch(Some(SketchKind::Oph))
        .include_binary(true))
    .recipe()
}

#[test]
fn defaults_are_char_5_grams_20_by_5_seed_42_and_the_s_curve() {
    let spec = ok(SpecBuilder::new());
    assert_eq!(spec.features.shingle_kind, ShingleKind::Char);
    assert_eq!(spec.features.k, 5);
    assert!(spec.features.stop_words.is_empty());
    assert_eq!(
        spec.features.normalization,
        Normalization {
            lowercase: true,
            collapse_whitespace: true,
            drop_whitespace: false,
            fold_accents: false,
            fold_punct: false,
        }
    );
    assert_eq!(spec.banding, Banding { bands: 20, rows: 5 });
    assert_eq!(spec.seed, DEFAULT_SEED);
    assert_eq!(spec.sketch, SketchKind::Classic);
    assert_eq!(spec.threshold, scurve::threshold(20, 5));
    assert_eq!(spec.threshold_source, ThresholdSource::SCurve);
    assert_eq!(spec.min_recall, DEFAULT_MIN_RECALL);
    assert_eq!(spec.method, Method::Auto);
    assert_eq!(spec.verification, Verification::Exact);
    assert_eq!(spec.exact_index, None);
    assert!(!spec.include_binary);
}

#[test]
fn each_kind_has_its_default_k_and_stop_words() {
    for kind in ShingleKind::ALL {
        let spec = ok(SpecBuilder::new().shingle_kind(Some(kind)));
        assert_eq!(spec.features.k, kind.default_k());
        assert_eq!(spec.features.stop_words, kind.default_stop_words());
    }
}

#[test]
fn k_is_between_1_and_max_k() {
    assert_eq!(
        err(SpecBuilder::new().k(Some(0))),
        SpecError::ShingleLength {
            given: 0,
            max: MAX_K
        }
    );
    assert_eq!(
        err(SpecBuilder::new().k(Some(MAX_K + 1))),
        SpecError::ShingleLength {
            given: MAX_K + 1,
            max: MAX_K
        }
    );
    assert_eq!(ok(SpecBuilder::new().k(Some(MAX_K))).features.k, MAX_K);
    assert_eq!(ok(SpecBuilder::new().k(Some(1))).features.k, 1);
}

#[test]
fn stop_words_are_read_by_stop_word_and_important_shingles_only() {
    let words = Some(vec!["the".to_owned(), " A ".to_owned()]);
    for kind in [ShingleKind::StopWord, ShingleKind::Important] {
        let spec = ok(SpecBuilder::new()
            .shingle_kind(Some(kind))
            .stop_words(words.clone()));
        assert_eq!(
            spec.features.stop_words,
            StopWords::from_words(["the", "a"])
        );
    }
    for kind in [ShingleKind::Char, ShingleKind::Word] {
        assert_eq!(
            err(SpecBuilder::new()
                .shingle_kind(Some(kind))
                .stop_words(words.clone())),
            SpecError::StopWordsUnused { kind: kind.name() }
        );
    }
    assert_eq!(
        err(SpecBuilder::new()
            .shingle_kind(Some(ShingleKind::StopWord))
            .stop_words(Some(vec!["  ".into(), String::new()]))),
        SpecError::StopWordsEmpty
    );
}

#[test]
fn whitespace_is_dropped_for_character_shingles_only() {
    let spec = ok(SpecBuilder::new().drop_whitespace(true));
    assert!(spec.features.normalization.drop_whitespace);
    assert!(!spec.features.normalization.collapse_whitespace);
    assert_eq!(
        err(SpecBuilder::new()
            .shingle_kind(Some(ShingleKind::Word))
            .drop_whitespace(true)),
        SpecError::Conflict {
            field: "drop_whitespace",
            with: "shingle_kind"
        }
    );
    let kept = ok(SpecBuilder::new().keep_case(true).keep_whitespace(true));
    assert!(!kept.features.normalization.lowercase);
    assert!(!kept.features.normalization.collapse_whitespace);
}

#[test]
fn the_threshold_is_in_0_exclusive_to_1() {
    for t in [0.0, -0.5, 1.01, f64::NAN] {
        let e = err(SpecBuilder::new().threshold(Some(t)));
        assert!(matches!(e, SpecError::Threshold { .. }), "{t}: {e:?}");
    }
    let spec = ok(SpecBuilder::new().threshold(Some(1.0)).bands(Some(20)));
    assert_eq!(spec.threshold, 1.0);
    assert_eq!(spec.threshold_source, ThresholdSource::Given);
}

#[test]
fn a_threshold_alone_is_tuned() {
    let spec = ok(SpecBuilder::new().threshold(Some(0.8)));
    assert_eq!(spec.threshold_source, ThresholdSource::Tuned);
    let shape = tune::scan_shape(None, None, Some(0.8), DEFAULT_MIN_RECALL, (20, 5)).unwrap();
    assert_eq!(
        spec.banding,
        Banding {
            bands: shape.bands,
            rows: shape.rows
        }
    );
}

#[test]
fn a_recall_floor_out_of_reach_is_refused() {
    let e = err(SpecBuilder::new().threshold(Some(0.05)).min_recall(1.0));
    assert!(matches!(e, SpecError::OutOfReach(_)), "{e:?}");
}

#[test]
fn the_exact_method_is_not_stopped_by_a_recall_floor_no_banding_reaches() {
    // Low thresholds are out of LSH's reach within 100 hashes: refused for
    // the methods that band, built for the exact join, which bands nothing.
    let e = err(SpecBuilder::new().threshold(Some(0.05)));
    assert!(matches!(e, SpecError::OutOfReach(_)), "{e:?}");
    let spec = ok(SpecBuilder::new()
        .threshold(Some(0.05))
        .method(Method::Exact));
    assert_eq!(spec.method, Method::Exact);
    assert_eq!(spec.threshold, 0.05);
}

#[test]
fn bands_and_rows_are_at_least_1_and_their_product_bounded() {
    for (b, r) in [(0, 5), (20, 0), (MAX_SIGNATURE_LEN + 1, 1), (usize::MAX, 2)] {
        assert_eq!(
            err(SpecBuilder::new().bands(Some(b)).rows(Some(r))),
            SpecError::Banding {
                bands: b,
                rows: r,
                max: MAX_SIGNATURE_LEN
            }
        );
    }
    let spec = ok(SpecBuilder::new().bands(Some(7)));
    assert_eq!(spec.banding, Banding { bands: 7, rows: 5 });
}

#[test]
fn an_adopted_index_fills_what_is_not_given() {
    let recipe = index_recipe();
    let spec = ok(SpecBuilder::new().adopted(Some(recipe.clone())));
    assert_eq!(spec.features.shingle_kind, ShingleKind::StopWord);
    assert_eq!(spec.features.k, 4);
    assert_eq!(
        spec.features.stop_words,
        StopWords::from_words(["of", "and"])
    );
    assert!(!spec.features.normalization.lowercase);
    assert_eq!(spec.banding, Banding { bands: 10, rows: 4 });
    assert_eq!((spec.seed, spec.sketch), (7, SketchKind::Oph));
    assert!(spec.include_binary);
    // Another kind: its own defaults, not the index's k or list.
    let word = ok(SpecBuilder::new()
        .adopted(Some(recipe.clone()))
        .shingle_kind(Some(ShingleKind::Word)));
    assert_eq!(word.features.k, 3);
    // A threshold alone keeps the index's shape.
    let t = ok(SpecBuilder::new()
        .adopted(Some(recipe.clone()))
        .threshold(Some(0.7)));
    assert_eq!(t.banding, Banding { bands: 10, rows: 4 });
    assert_eq!(t.threshold_source, ThresholdSource::IndexShape);
    let given = ok(SpecBuilder::new()
        .adopted(Some(recipe))
        .threshold(Some(0.7))
        .rows(Some(2)));
    assert_eq!(given.threshold_source, ThresholdSource::Given);
    assert_eq!(given.banding, Banding { bands: 10, rows: 2 });
}

#[test]
fn method_conflicts_name_their_fields() {
    let exact = || SpecBuilder::new().method(Method::Exact);
    assert_eq!(
        err(exact().stored(true)),
        SpecError::Conflict {
            field: "stored",
            with: "method"
        }
    );
    assert_eq!(
        err(SpecBuilder::new().exact_index(Some(ExactIndex::default()))),
        SpecError::Conflict {
            field: "exact_index",
            with: "method"
        }
    );
    assert_eq!(
        err(exact().verification(Verification::Signature)),
        SpecError::Conflict {
            field: "verification",
            with: "method"
        }
    );
    let spec = ok(exact().exact_index(Some(ExactIndex::default())));
    assert_eq!(spec.method, Method::Exact);
    assert_eq!(
        ok(SpecBuilder::new().method(Method::Lsh).stored(true)).method,
        Method::Lsh
    );
}

#[test]
fn auto_with_a_given_banding_is_banded_unless_below_the_recall_floor() {
    let banded = ok(SpecBuilder::new().bands(Some(20)).threshold(Some(0.9)));
    assert_eq!(banded.method, Method::Banded);
    // 20 × 5 at 0.5 misses far more than the default floor allows.
    let floor = ok(SpecBuilder::new().bands(Some(20)).threshold(Some(0.5)));
    assert_eq!(floor.method, Method::Auto);
    assert_eq!(ok(SpecBuilder::new()).method, Method::Auto);
}

#[test]
fn rules_are_checked_in_one_order() {
    // k before stop words before whitespace before threshold before
    // banding before method.
    let all = SpecBuilder::new()
        .k(Some(0))
        .stop_words(Some(vec!["a".into()]))
        .drop_whitespace(true)
        .shingle_kind(Some(ShingleKind::Word))
        .threshold(Some(2.0))
        .bands(Some(0))
        .method(Method::Exact)
        .stored(true);
    let e1 = err(all.clone());
    assert!(matches!(e1, SpecError::ShingleLength { .. }));
    let e2 = err(all.clone().k(None));
    assert!(matches!(e2, SpecError::StopWordsUnused { .. }));
    let e3 = err(all.clone().k(None).stop_words(None));
    assert!(matches!(
        e3,
        SpecError::Conflict {
            field: "drop_whitespace",
            ..
        }
    ));
    let rest = all.k(None).stop_words(None).drop_whitespace(false);
    assert!(matches!(err(rest.clone()), SpecError::Threshold { .. }));
    let rest = rest.threshold(None);
    assert!(matches!(err(rest.clone()), SpecError::Banding { .. }));
    let rest = rest.bands(None);
    assert!(matches!(
        err(rest),
        SpecError::Conflict {
            field: "stored",
            ..
        }
    ));
}

#[test]
fn errors_name_fields_not_flags() {
    let errors = [
        SpecError::ShingleLength {
            given: 0,
            max: MAX_K,
        },
        SpecError::StopWordsUnused { kind: "char" },
        SpecError::StopWordsEmpty,
        SpecError::Threshold { given: 2.0 },
        SpecError::Banding {
            bands: 0,
            rows: 1,
            max: 4,
        },
        SpecError::Conflict {
            field: "stored",
            with: "method",
        },
    ];
    for e in errors {
        assert!(!e.to_string().contains("--"), "{e}");
    }
}

#[test]
fn the_recipe_is_the_specs() {
    let spec = ok(SpecBuilder::new()
        .shingle_kind(Some(ShingleKind::Word))
        .seed(Some(9)));
    let recipe = spec.recipe();
    assert_eq!(recipe.shingler.kind(), ShingleKind::Word);
    assert_eq!(recipe.shingler.k(), 3);
    assert_eq!(recipe.seed, 9);
    assert_eq!(recipe.banding, spec.banding);
    assert_eq!(recipe.normalization, spec.features.normalization);
}

#[test]
fn containment_is_for_sets_with_a_threshold_by_the_exact_join() {
    use crate::measure::Measure;
    use crate::spec::InputKind;
    let containment = || {
        SpecBuilder::new()
            .measure(Some(Measure::Containment))
            .threshold(Some(0.8))
    };
    for input in [
        InputKind::Files,
        InputKind::Jsonl,
        InputKind::Csv,
        InputKind::Sets,
    ] {
        let spec = ok(containment().input(input));
        assert_eq!(spec.measure, Measure::Containment);
        assert_eq!(spec.method, Method::Exact, "auto is exact for containment");
    }
    for input in [InputKind::Vectors, InputKind::Bits] {
        assert_eq!(
            err(containment().input(input)),
            SpecError::MeasureNotForInput {
                measure: Measure::Containment,
                input
            }
        );
    }
    assert_eq!(
        err(containment().input(InputKind::Bits)).to_string(),
        "containment compares sets of shingles or tokens: it does not apply to bits inputs"
    );
    assert_eq!(
        err(SpecBuilder::new().measure(Some(Measure::Containment))),
        SpecError::Requires {
            field: "measure",
            needs: "threshold"
        }
    );
    assert_eq!(ok(containment().method(Method::Lsh)).method, Method::Lsh);
    assert_eq!(
        err(containment().method(Method::Lsh).bands(Some(10))),
        SpecError::Conflict {
            field: "measure",
            with: "bands"
        }
    );
    // A recall floor no Jaccard banding reaches does not stop it either.
    assert_eq!(
        ok(containment().method(Method::Lsh).min_recall(0.999_999_999)).method,
        Method::Lsh
    );
    assert_eq!(
        err(containment().stored(true)),
        SpecError::Conflict {
            field: "measure",
            with: "stored"
        }
    );
    assert_eq!(
        err(containment().verification(Verification::Signature)),
        SpecError::Conflict {
            field: "measure",
            with: "verification"
        }
    );
    // Unset, the measure is Jaccard's, as every run before it.
    assert_eq!(ok(SpecBuilder::new()).measure, Measure::Jaccard);
}

#[test]
fn the_tokens_of_sets_are_not_shingled() {
    for (kind, k) in [(Some(ShingleKind::Word), None), (None, Some(3))] {
        let refused = SpecBuilder::new()
            .input(InputKind::Sets)
            .shingle_kind(kind)
            .k(k)
            .build()
            .unwrap_err();
        let field = if kind.is_some() { "shingle_kind" } else { "k" };
        assert_eq!(
            refused,
            SpecError::NotForInput {
                field,
                input: InputKind::Sets
            }
        );
    }
    assert!(
        SpecBuilder::new()
            .input(InputKind::Jsonl)
            .shingle_kind(Some(ShingleKind::Word))
            .k(Some(3))
            .build()
            .is_ok()
    );
    assert!(SpecBuilder::new().input(InputKind::Sets).build().is_ok());
}
