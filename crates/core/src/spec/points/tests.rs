use super::*;
use crate::lsh::scurve;

fn vectors() -> PointSpecBuilder {
    PointSpecBuilder::new().input(InputKind::Vectors)
}

fn bits() -> PointSpecBuilder {
    PointSpecBuilder::new().input(InputKind::Bits)
}

#[test]
fn cosine_is_the_vectors_default_and_takes_a_threshold_or_an_angle() {
    let spec = vectors().threshold(Some(0.8)).build().unwrap();
    assert_eq!(spec.query, PointQuery::Cosine { min_cosine: 0.8 });
    assert_eq!(spec.query.measure(), Measure::Cosine);
    assert_eq!(spec.seed, DEFAULT_SEED);
    assert_eq!(spec.banding, None);
    assert_eq!(spec.min_recall, DEFAULT_MIN_RECALL);
    let by_angle = vectors().angle(Some(60.0)).build().unwrap();
    let PointQuery::Cosine { min_cosine } = by_angle.query else {
        panic!("{:?}", by_angle.query)
    };
    assert!((min_cosine - 0.5).abs() < 1e-12);
}

#[test]
fn each_query_value_out_of_range_is_refused_naming_its_field() {
    let refused = |builder: PointSpecBuilder| builder.build().unwrap_err();
    assert_eq!(
        refused(vectors().threshold(Some(1.5))),
        SpecError::PointValue {
            field: "threshold",
            given: 1.5,
            rule: PointRule::Cosine
        }
    );
    assert_eq!(
        refused(vectors().angle(Some(181.0))),
        SpecError::PointValue {
            field: "angle",
            given: 181.0,
            rule: PointRule::Angle
        }
    );
    let euclidean = || vectors().measure(Some(Measure::L2));
    assert_eq!(
        refused(euclidean().radius(Some(0.0))),
        SpecError::PointValue {
            field: "radius",
            given: 0.0,
            rule: PointRule::Distance
        }
    );
    assert_eq!(
        refused(
            euclidean()
                .radius(Some(1.0))
                .bucket_width(Some(f64::INFINITY))
        ),
        SpecError::PointValue {
            field: "bucket_width",
            given: f64::INFINITY,
            rule: PointRule::Width
        }
    );
    assert_eq!(
        refused(bits().radius(Some(2.5))),
        SpecError::PointValue {
            field: "radius",
            given: 2.5,
            rule: PointRule::WholeBits
        }
    );
    let simhash = || PointSpecBuilder::new().simhash(true);
    assert_eq!(
        refused(simhash().radius(Some(64.0))),
        SpecError::PointValue {
            field: "radius",
            given: 64.0,
            rule: PointRule::SimHashBits
        }
    );
    // The message names the field, never a face's flag.
    let message = refused(bits().radius(Some(-1.0))).to_string();
    assert!(message.starts_with("radius -1: "), "{message}");
    assert!(!message.contains("--"), "{message}");
}

#[test]
fn a_query_without_its_value_is_refused_by_measure() {
    for (builder, measure) in [
        (vectors(), Measure::Cosine),
        (vectors().measure(Some(Measure::L2)), Measure::L2),
        (bits(), Measure::Hamming),
    ] {
        assert_eq!(
            builder.build().unwrap_err(),
            SpecError::QueryMissing { measure }
        );
    }
}

#[test]
fn measures_of_other_inputs_and_mixed_values_are_refused() {
    assert_eq!(
        vectors()
            .measure(Some(Measure::Hamming))
            .build()
            .unwrap_err(),
        SpecError::MeasureOfOtherInput {
            measure: Measure::Hamming,
            input: InputKind::Vectors
        }
    );
    assert_eq!(
        bits()
            .measure(Some(Measure::Cosine))
            .radius(Some(3.0))
            .build()
            .unwrap_err(),
        SpecError::MeasureOfOtherInput {
            measure: Measure::Cosine,
            input: InputKind::Bits
        }
    );
    assert_eq!(
        vectors()
            .threshold(Some(0.5))
            .radius(Some(1.0))
            .build()
            .unwrap_err(),
        SpecError::Conflict {
            field: "radius",
            with: "measure"
        }
    );
    assert_eq!(
        vectors()
            .measure(Some(Measure::L2))
            .radius(Some(1.0))
            .threshold(Some(0.5))
            .build()
            .unwrap_err(),
        SpecError::Conflict {
            field: "threshold",
            with: "measure"
        }
    );
    assert_eq!(
        vectors()
            .measure(Some(Measure::L2))
            .radius(Some(1.0))
            .verification(Verification::Signature)
            .build()
            .unwrap_err(),
        SpecError::Conflict {
            field: "verification",
            with: "measure"
        }
    );
}

#[test]
fn simhash_signs_documents_by_hamming_with_its_own_bands() {
    let spec = PointSpecBuilder::new().simhash(true).build().unwrap();
    assert_eq!(
        spec.query,
        PointQuery::SimHash {
            radius: SIMHASH_RADIUS
        }
    );
    let simhash = || PointSpecBuilder::new().simhash(true);
    assert_eq!(
        simhash().input(InputKind::Bits).build().unwrap_err(),
        SpecError::NotForInput {
            field: "simhash",
            input: InputKind::Bits
        }
    );
    assert_eq!(
        simhash()
            .measure(Some(Measure::Cosine))
            .build()
            .unwrap_err(),
        SpecError::Conflict {
            field: "simhash",
            with: "measure"
        }
    );
    assert_eq!(
        simhash().bands(Some(4)).build().unwrap_err(),
        SpecError::Conflict {
            field: "simhash",
            with: "bands"
        }
    );
    assert_eq!(
        PointSpecBuilder::new()
            .input(InputKind::Bits)
            .radius(Some(1.0))
            .simhash_weights(Some(SimHashWeights::Counts))
            .build()
            .unwrap_err(),
        SpecError::Requires {
            field: "simhash_weights",
            needs: "simhash"
        }
    );
}

#[test]
fn one_of_bands_and_rows_takes_the_others_default_and_zero_is_refused() {
    let spec = bits().radius(Some(3.0)).bands(Some(7)).build().unwrap();
    assert_eq!(
        spec.banding,
        Some(Banding {
            bands: 7,
            rows: DEFAULT_ROWS
        })
    );
    assert!(matches!(
        bits().radius(Some(3.0)).rows(Some(0)).build(),
        Err(SpecError::Banding { rows: 0, .. })
    ));
}

#[test]
fn a_tuned_banding_reaches_the_recall_floor_and_a_given_one_is_kept() {
    let spec = bits().radius(Some(4.0)).min_recall(0.95).build().unwrap();
    let banding = tuned_banding(&spec, 64).unwrap();
    assert!(banding.bands * banding.rows <= FAMILY_HASHES);
    let p = Metric::Hamming { bits: 64 }.collision_probability(4.0);
    let recall = scurve::candidate_probability(p, banding.bands, banding.rows);
    assert!(
        recall >= 0.95,
        "{banding:?} finds pairs at 4 bits with {recall}"
    );

    let given = bits().radius(Some(4.0)).bands(Some(3)).rows(Some(2));
    assert_eq!(
        tuned_banding(&given.build().unwrap(), 64).unwrap(),
        Banding { bands: 3, rows: 2 }
    );
    assert_eq!(
        tuned_banding(&spec, 4).unwrap_err(),
        TuneError::RadiusNotBelowWidth { radius: 4, bits: 4 }
    );
}
