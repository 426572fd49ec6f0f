//! `scan --top K` of points: each vector's or bit string's K nearest
//! neighbours within the query (cosine ≥ T, L2 or Hamming ≤ R), against a
//! brute force over every pair of seeded random points. `--method exact`
//! measures every pair, so its rows equal the brute force's; through LSH
//! every row is a true neighbour at its exact value, ranked.

use std::fmt::Write as _;

use crate::util::{SplitMix64, run, stderr, stdout};

/// The brute force's rows: for each item in input order, its neighbours
/// within the query, nearest first (`closer`: +1 ranks the largest value
/// first, −1 the smallest), ties by the neighbour's input order, the first
/// `k`; each row `(a, b, rank, value)`.
fn brute_top(
    n: usize,
    k: usize,
    value: impl Fn(usize, usize) -> Option<f64>,
    closer: f64,
) -> Vec<(usize, usize, usize, f64)> {
    let mut rows = Vec::new();
    for a in 0..n {
        let mut near: Vec<(usize, f64)> = (0..n)
            .filter(|&b| b != a)
            .filter_map(|b| value(a, b).map(|v| (b, v)))
            .collect();
        near.sort_by(|x, y| {
            (closer * y.1)
                .total_cmp(&(closer * x.1))
                .then(x.0.cmp(&y.0))
        });
        for (rank, (b, v)) in near.into_iter().take(k).enumerate() {
            rows.push((a, b, rank + 1, v));
        }
    }
    rows
}

/// The rows of a `--top` CSV: `(a, b, rank, value)` with `p<i>` ids.
fn top_rows(csv: &str, metric: &str) -> Vec<(usize, usize, usize, f64)> {
    let mut lines = csv.lines();
    assert!(
        lines.next().unwrap().starts_with("a,b,rank,metric,"),
        "{csv}"
    );
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f[3], metric, "{line}");
            let id = |s: &str| s.trim_start_matches('p').parse::<usize>().unwrap();
            (
                id(f[0]),
                id(f[1]),
                f[2].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

fn assert_same(got: &[(usize, usize, usize, f64)], want: &[(usize, usize, usize, f64)]) {
    assert_eq!(got.len(), want.len(), "rows: {got:?}\nwant: {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0, g.1, g.2), (w.0, w.1, w.2), "{g:?} against {w:?}");
        assert!((g.3 - w.3).abs() < 1e-6, "{g:?} against {w:?}");
    }
}

#[test]
fn top_of_vectors_is_the_brute_forces_nearest_by_cosine() {
    let (n, dim, k, t) = (60, 8, 3, 0.3);
    let mut rng = SplitMix64(33);
    let vectors: Vec<Vec<f32>> = (0..n)
        .map(|_| (0..dim).map(|_| rng.signed() as f32).collect())
        .collect();
    let mut text = String::new();
    for (i, v) in vectors.iter().enumerate() {
        write!(text, "p{i:03}").unwrap();
        for x in v {
            write!(text, ",{x}").unwrap();
        }
        text.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    std::fs::write(&file, text).unwrap();
    let cosine = |a: usize, b: usize| {
        let (x, y) = (&vectors[a], &vectors[b]);
        let dot: f64 = x
            .iter()
            .zip(y)
            .map(|(p, q)| f64::from(*p) * f64::from(*q))
            .sum();
        let norm = |v: &[f32]| v.iter().map(|p| f64::from(*p).powi(2)).sum::<f64>().sqrt();
        let c = dot / (norm(x) * norm(y));
        (c >= t).then_some(c)
    };
    let want = brute_top(n, k, cosine, 1.0);
    assert!(want.len() > n, "too few neighbours to test: {}", want.len());
    let file = file.to_str().unwrap();
    let exact = run(&[
        "scan", "--input", "vectors", file, "-t", "0.3", "--top", "3", "--method", "exact",
    ]);
    assert_eq!(exact.status.code(), Some(0), "{}", stderr(&exact));
    assert_same(&top_rows(&stdout(&exact), "cosine"), &want);

    // Through the hyperplanes' bands: every row a true neighbour at its
    // exact cosine, each item's rows ranked 1, 2, … in order of value.
    let lsh = run(&[
        "scan", "--input", "vectors", file, "-t", "0.3", "--top", "3", "--method", "lsh",
    ]);
    assert_eq!(lsh.status.code(), Some(0), "{}", stderr(&lsh));
    let rows = top_rows(&stdout(&lsh), "cosine");
    assert!(!rows.is_empty());
    for window in rows.windows(2) {
        let (x, y) = (window[0], window[1]);
        if x.0 == y.0 {
            assert_eq!(y.2, x.2 + 1, "{x:?} {y:?}");
            assert!(y.3 <= x.3 + 1e-12, "{x:?} {y:?}");
        } else {
            assert!(y.0 > x.0 && y.2 == 1, "{x:?} {y:?}");
        }
    }
    for &(a, b, rank, value) in &rows {
        let exact = cosine(a, b).expect("a row within the threshold");
        assert!(
            (exact - value).abs() < 1e-6 && rank <= k,
            "{a} {b} {rank} {value}"
        );
    }
}

#[test]
fn top_of_bit_strings_ranks_ties_by_input_order() {
    let (n, bits, k, radius) = (80, 32, 2, 12);
    let mut rng = SplitMix64(34);
    let strings: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let text: String = strings
        .iter()
        .enumerate()
        .map(|(i, s)| format!("p{i:03},{s:0bits$b}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.csv");
    std::fs::write(&file, text).unwrap();
    let hamming = |a: usize, b: usize| {
        let d = (strings[a] ^ strings[b]).count_ones();
        (d <= radius).then_some(f64::from(d))
    };
    let want = brute_top(n, k, hamming, -1.0);
    // Whole-bit distances tie often: the rule is what is tested.
    let ties = want
        .windows(2)
        .filter(|w| w[0].0 == w[1].0 && w[0].3 == w[1].3)
        .count();
    assert!(
        ties > 0 && want.len() > n / 2,
        "{ties} ties in {} rows",
        want.len()
    );
    let out = run(&[
        "scan",
        "--input",
        "bits",
        file.to_str().unwrap(),
        "--radius",
        &radius.to_string(),
        "--top",
        &k.to_string(),
        "--method",
        "exact",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_same(&top_rows(&stdout(&out), "hamming"), &want);
}

#[test]
fn top_of_points_writes_csv_or_tsv_pairs_only() {
    for (extra, message) in [
        (
            &["--format", "jsonl"][..],
            "--top writes CSV or TSV: --format jsonl does not apply",
        ),
        (
            &["--format", "clusters"][..],
            "--top writes each item's nearest neighbours, not groups",
        ),
    ] {
        let mut argv = vec![
            "scan",
            "--input",
            "bits",
            "no-such.csv",
            "--radius",
            "2",
            "--top",
            "2",
        ];
        argv.extend_from_slice(extra);
        let out = run(&argv);
        assert_eq!(out.status.code(), Some(2), "{argv:?}");
        assert!(stderr(&out).contains(message), "{argv:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "");
    }
}

/// SimHash fingerprints of documents are ranked by Hamming distance too.
#[test]
fn top_of_simhash_fingerprints_has_the_rank_column() {
    let out = run(&[
        "scan", "testdata", "--sketch", "simhash", "--radius", "20", "--top", "1", "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("a,b,rank,metric,distance"));
    let rows: Vec<&str> = lines.collect();
    assert!(!rows.is_empty(), "no neighbour within 20 bits in testdata");
    for row in rows {
        // Paths may be quoted and hold commas: the last three fields.
        let f: Vec<&str> = row.rsplitn(4, ',').collect();
        assert_eq!((f[2], f[1]), ("1", "hamming"), "{row}");
        assert!(f[0].parse::<u32>().unwrap() <= 20, "{row}");
    }
}
