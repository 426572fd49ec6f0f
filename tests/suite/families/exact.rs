//! `--method exact|lsh|auto` for the point families: the exact method's pairs
//! are the brute-force pairs (values to the printed decimals), the same bytes
//! for -j 1 and -j 2, a superset of LSH's rows; auto measures small sets and
//! bands 100,000 points; and `--simhash-weights`.

use std::collections::HashMap;
use std::io::Write;

use super::{
    bits_text, clustered, clustered_bits, cosine, l2, reported, scan_output, write_vectors,
};
use crate::util::{SplitMix64, prose, run, stderr};

type Pairs = HashMap<(String, String), f64>;

fn brute(n: usize, keep: impl Fn(usize, usize) -> Option<f64>) -> Pairs {
    let mut out = HashMap::new();
    for i in 0..n {
        for j in i + 1..n {
            if let Some(v) = keep(i, j) {
                out.insert((format!("p{i}"), format!("p{j}")), v);
            }
        }
    }
    out
}

fn assert_same(found: &Pairs, truth: &Pairs, tolerance: f64) {
    let missed: Vec<_> = truth
        .keys()
        .filter(|k| !found.contains_key(*k))
        .take(3)
        .collect();
    let extra: Vec<_> = found
        .keys()
        .filter(|k| !truth.contains_key(*k))
        .take(3)
        .collect();
    assert!(
        missed.is_empty() && extra.is_empty(),
        "missed {missed:?} extra {extra:?}"
    );
    for (k, v) in found {
        assert!(
            (v - truth[k]).abs() <= tolerance,
            "{k:?}: {v} vs {}",
            truth[k]
        );
    }
}

/// Rows of `part` (header aside) all appear, byte for byte, in `whole`.
fn rows_within(part: &[u8], whole: &[u8]) {
    let whole: std::collections::HashSet<&[u8]> = whole.split(|&b| b == b'\n').collect();
    for row in part.split(|&b| b == b'\n') {
        assert!(whole.contains(row), "{}", String::from_utf8_lossy(row));
    }
}

#[test]
fn exact_cosine_and_euclidean_are_the_brute_force_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    // Zero rows and opposite rows among clustered points of both signs.
    let mut points = clustered(700, 16, 0.35, 21);
    points[5] = vec![0.0; 16];
    points[6] = vec![0.0; 16];
    points[7] = points[8].iter().map(|x| -x).collect();
    write_vectors(&file, &points);
    let f = file.to_str().unwrap();
    let n = points.len();

    let cos = [
        "scan", "--input", "vectors", f, "-t", "0.9", "--method", "exact", "-q",
    ];
    let one = scan_output(&cos, "1");
    assert_eq!(one, scan_output(&cos, "2"), "-j 1 and -j 2 differ");
    let truth = brute(n, |i, j| {
        let zero = |p: &[f32]| p.iter().all(|&x| x == 0.0);
        if zero(&points[i]) || zero(&points[j]) {
            return None;
        }
        Some(cosine(&points[i], &points[j])).filter(|&c| c >= 0.9)
    });
    assert!(truth.len() > 1000, "{}", truth.len());
    assert_same(&reported(&one, "cosine", "similarity"), &truth, 1e-6);
    // LSH's rows (its pairs are found by the same f64 measure) are rows of
    // the exact output, byte for byte.
    let lsh = [
        "scan", "--input", "vectors", f, "-t", "0.9", "-b", "6", "-r", "5", "-q",
    ];
    rows_within(&scan_output(&lsh, "2"), &one);

    let l2_args = [
        "scan",
        "--input",
        "vectors",
        f,
        "--metric",
        "euclidean",
        "--radius",
        "2.2",
        "--method",
        "exact",
        "-q",
    ];
    let one = scan_output(&l2_args, "1");
    assert_eq!(one, scan_output(&l2_args, "2"), "-j 1 and -j 2 differ");
    let truth = brute(n, |i, j| {
        Some(l2(&points[i], &points[j])).filter(|&d| d <= 2.2)
    });
    assert!(truth.len() > 1000, "{}", truth.len());
    assert_same(&reported(&one, "euclidean", "distance"), &truth, 1e-6);
}

/// A threshold equal to a pair's own cosine, printed to 17 digits: the
/// f32 screen must not drop it.
#[test]
fn a_pair_exactly_at_the_threshold_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    let points = clustered(300, 200, 0.2, 22);
    write_vectors(&file, &points);
    let c = cosine(&points[3], &points[3 + 30]);
    let t = format!("{c:.17}");
    assert_eq!(t.parse::<f64>().unwrap(), c);
    let f = file.to_str().unwrap();
    let out = scan_output(
        &[
            "scan", "--input", "vectors", f, "-t", &t, "--method", "exact", "-q",
        ],
        "2",
    );
    let found = reported(&out, "cosine", "similarity");
    assert!(
        found.contains_key(&("p3".to_string(), "p33".to_string())),
        "{} pairs",
        found.len()
    );
}

#[test]
fn exact_hamming_is_the_brute_force_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.csv");
    let strings = clustered_bits(23, 40, 600, 0.05);
    std::fs::write(&file, bits_text(&strings)).unwrap();
    let f = file.to_str().unwrap();
    let args = [
        "scan", "--input", "bits", f, "--radius", "14", "--method", "exact", "-q",
    ];
    let one = scan_output(&args, "1");
    assert_eq!(one, scan_output(&args, "2"));
    let mut truth = HashMap::new();
    for i in 0..strings.len() {
        for j in i + 1..strings.len() {
            let h = (strings[i] ^ strings[j]).count_ones();
            if h <= 14 {
                truth.insert((format!("s{i}"), format!("s{j}")), f64::from(h));
            }
        }
    }
    assert!(truth.len() > 500, "{}", truth.len());
    assert_same(&reported(&one, "hamming", "distance"), &truth, 0.0);
}

fn summary(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn auto_measures_small_sets_and_what_is_asked_wins() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    write_vectors(&file, &clustered(500, 16, 0.35, 24));
    let f = file.to_str().unwrap();
    let err = summary(&["scan", "--input", "vectors", f, "-t", "0.9"]);
    assert!(err.contains("every pair: 124750 scored"), "{err}");
    assert!(err.contains("method exact (predicted cheaper)"), "{err}");
    let err = summary(&[
        "scan", "--input", "vectors", f, "-t", "0.9", "--method", "lsh",
    ]);
    assert!(
        err.contains("method lsh (asked)") && err.contains("candidates"),
        "{err}"
    );
    let err = summary(&[
        "scan", "--input", "vectors", f, "-t", "0.9", "-b", "5", "-r", "5",
    ]);
    assert!(
        err.contains("5 bands × 5 rows") && err.contains("lsh (--bands/--rows given)"),
        "{err}"
    );
    let out = run(&[
        "scan",
        "--input",
        "vectors",
        f,
        "-t",
        "0.9",
        "--method",
        "exact",
        "--verify",
        "signature",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--method exact measures every pair"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

/// 100,000 points: measuring 5·10⁹ pairs is predicted dearer than banding,
/// so auto bands, and the plan printed says so.
#[test]
fn auto_bands_a_hundred_thousand_points() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    let mut rng = SplitMix64(25);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    for i in 0..100_000 {
        let xs: Vec<String> = (0..8).map(|_| format!("{:.4}", rng.gauss())).collect();
        writeln!(w, "p{i},{}", xs.join(",")).unwrap();
    }
    drop(w);
    let f = file.to_str().unwrap();
    let err = summary(&["scan", "--input", "vectors", f, "-t", "0.99"]);
    assert!(err.contains("100000 vectors of 8 components"), "{err}");
    assert!(err.contains("method lsh (predicted cheaper)"), "{err}");
    let err = summary(&[
        "scan",
        "--input",
        "vectors",
        f,
        "--metric",
        "euclidean",
        "--radius",
        "0.3",
    ]);
    assert!(
        err.contains("bucket width") && err.contains("method lsh (predicted cheaper)"),
        "{err}"
    );
}

/// Two documents with the same shingle set but one passage repeated twenty
/// times in the second: the set fingerprints are equal, the counted ones far.
#[test]
fn simhash_weights_by_set_or_by_counts() {
    let dir = tempfile::tempdir().unwrap();
    // Words in P, numbers in Q: no shingle in common but at their junction.
    let p = prose(31, 300);
    let q: Vec<String> = (0..400u64)
        .map(|i| (i * 7919 % 10007).to_string())
        .collect();
    // Q eight times in both: heavy enough that B's twentyfold P turns it away.
    let q = vec![q.join(" "); 8].join(" ");
    std::fs::write(dir.path().join("a.txt"), format!("{p} {p} {q}")).unwrap();
    let many = vec![p.as_str(); 20].join(" ");
    std::fs::write(dir.path().join("b.txt"), format!("{many} {q}")).unwrap();
    let d = dir.path().to_str().unwrap();
    let pairs = |extra: &[&str]| {
        let mut args = vec!["scan", d, "--sketch", "simhash", "-q"];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let set = pairs(&["--radius", "0"]);
    assert_eq!(set.lines().count(), 2, "{set}");
    assert!(set.lines().nth(1).unwrap().ends_with(",hamming,0"), "{set}");
    assert_eq!(pairs(&["--radius", "0", "--simhash-weights", "set"]), set);
    let counts = pairs(&["--simhash-weights", "counts"]);
    assert_eq!(
        counts.lines().count(),
        1,
        "the counted fingerprints are within 3 bits: {counts}"
    );
    let out = run(&["scan", d, "--simhash-weights", "counts"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("add --sketch simhash"),
        "{}",
        stderr(&out)
    );
}
