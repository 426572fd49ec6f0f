use super::*;

fn gaussian_points(n: usize, dim: usize, seed: u64) -> Vectors {
    let mut g = crate::sketch::Gaussian::new(seed);
    Vectors {
        ids: (0..n).map(|i| format!("p{i}")).collect(),
        lines: (1..=n as u64).collect(),
        dim,
        values: (0..n * dim).map(|_| g.next() as f32).collect(),
    }
}

fn auto() -> Given {
    Given {
        asked: Asked::Auto,
        banding: None,
        link: None,
        min_recall: 0.999,
        by_signature: false,
    }
}

#[test]
fn auto_measures_small_sets_and_bands_large_ones() {
    let cos = VectorQuery::Cosine { min_cosine: 0.97 };
    let l2 = VectorQuery::Euclidean {
        radius: 2.0,
        width: 4.0,
    };
    let small = gaussian_points(2000, 64, 1);
    for q in [cos, l2] {
        let c = choose_vectors(&small, q, false, auto()).unwrap();
        assert_eq!(c.method, Method::Exact, "{c:?}");
    }
    let large = gaussian_points(100_000, 64, 2);
    for q in [cos, l2] {
        let c = choose_vectors(&large, q, false, auto()).unwrap();
        assert!(matches!(c.method, Method::Lsh { .. }), "{c:?}");
        assert!(c.lsh_cost.unwrap() < c.exact_cost);
        // Counts only: the same choice again.
        assert_eq!(c, choose_vectors(&large, q, false, auto()).unwrap());
    }
}

#[test]
fn what_is_asked_or_given_wins() {
    let large = gaussian_points(20_000, 16, 3);
    let q = VectorQuery::Cosine { min_cosine: 0.9 };
    let exact = Given {
        asked: Asked::Exact,
        ..auto()
    };
    assert_eq!(
        choose_vectors(&large, q, false, exact).unwrap().method,
        Method::Exact
    );
    let small = gaussian_points(300, 16, 4);
    let banding = Banding { bands: 5, rows: 4 };
    let given = Given {
        banding: Some(banding),
        ..auto()
    };
    let c = choose_vectors(&small, q, false, given).unwrap();
    assert_eq!(
        c.method,
        Method::Lsh {
            banding,
            width: 0.0
        }
    );
    let lsh = Given {
        asked: Asked::Lsh,
        ..auto()
    };
    assert!(matches!(
        choose_vectors(&small, q, false, lsh).unwrap().method,
        Method::Lsh { .. }
    ));
    let signature = Given {
        by_signature: true,
        ..auto()
    };
    assert!(matches!(
        choose_vectors(&small, q, false, signature).unwrap().method,
        Method::Lsh { .. }
    ));
    let both = Given {
        asked: Asked::Exact,
        by_signature: true,
        ..auto()
    };
    assert!(choose_vectors(&small, q, false, both).is_err());
}

#[test]
fn samples_are_fixed_and_cross_the_link() {
    let a = sample_distances(1000, None, |a, b| (a * 1000 + b) as f64);
    assert_eq!(a.len(), SAMPLE_PAIRS);
    assert_eq!(
        a,
        sample_distances(1000, None, |a, b| (a * 1000 + b) as f64)
    );
    let across = sample_distances(10, Some(3), |a, b| {
        assert!(a < 3 && b >= 3);
        0.0
    });
    assert_eq!(across.len(), SAMPLE_PAIRS);
    assert!(sample_distances(1, None, |_, _| 0.0).is_empty());
}
