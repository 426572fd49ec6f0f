//! `--verify signature` for the families with an estimate: cosine from the
//! hyperplanes' sign agreement (θ ≈ 180°·(1 − agree/n)), Hamming from the
//! sampled bits (h ≈ bits·(1 − agree/n)), SimHash exact on its fingerprints.
//! Every reported estimate lies within 5σ of the true value, σ from the
//! binomial agreement count of the run's own n = b·r values; `--verify exact`
//! is the default; euclidean has no estimate and says so.

use std::collections::HashMap;

use super::{bits_text, clustered, clustered_bits, cosine, reported, scan_output, write_vectors};
use crate::util::{SplitMix64, run, stderr};

#[test]
fn cosine_estimates_lie_within_the_binomial_margin() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    let points = clustered(400, 12, 0.4, 13);
    write_vectors(&file, &points);
    let f = file.to_str().unwrap();
    let (b, r) = (25usize, 8usize);
    let n = (b * r) as f64;
    let base = [
        "scan", "--input", "vectors", f, "-t", "0.85", "-b", "25", "-r", "8", "-q",
    ];
    let with = |extra: &[&'static str]| {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    let exact = scan_output(&base, "2");
    assert_eq!(scan_output(&with(&["--verify", "exact"]), "2"), exact);
    let signature = with(&["--verify", "signature"]);
    let out = scan_output(&signature, "1");
    assert_eq!(out, scan_output(&signature, "2"), "-j 1 and -j 2 differ");
    assert_ne!(out, exact);
    let found = reported(&out, "cosine", "similarity");
    assert!(found.len() > 300, "{}", found.len());
    let index = |id: &str| id[1..].parse::<usize>().unwrap();
    for ((a, b), estimate) in &found {
        assert!(*estimate >= 0.85, "{a},{b}: {estimate}");
        let truth = cosine(&points[index(a)], &points[index(b)])
            .clamp(-1.0, 1.0)
            .acos();
        let p = 1.0 - truth / std::f64::consts::PI;
        let sigma = std::f64::consts::PI * (p * (1.0 - p) / n).sqrt();
        let angle = estimate.clamp(-1.0, 1.0).acos();
        // The estimate takes n + 1 values: one step (π/n) is its resolution.
        assert!(
            (angle - truth).abs() <= 5.0 * sigma + std::f64::consts::PI / n,
            "{a},{b}: estimated {}° for {}°",
            angle.to_degrees(),
            truth.to_degrees()
        );
    }
}

#[test]
fn hamming_estimates_lie_within_the_binomial_margin() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.csv");
    let strings = clustered_bits(23, 30, 300, 0.04);
    std::fs::write(&file, bits_text(&strings)).unwrap();
    let f = file.to_str().unwrap();
    let base = [
        "scan", "--input", "bits", f, "--radius", "14", "-b", "20", "-r", "10", "-q",
    ];
    let n = 200.0;
    let mut args = base.to_vec();
    args.extend_from_slice(&["--verify", "signature"]);
    let out = scan_output(&args, "1");
    assert_eq!(out, scan_output(&args, "2"));
    let found = reported(&out, "hamming", "distance");
    assert!(found.len() > 300, "{}", found.len());
    let index = |id: &str| id[1..].parse::<usize>().unwrap();
    let mut off = 0;
    for ((a, b), estimate) in &found {
        assert!(*estimate <= 14.0);
        let h = (strings[index(a)] ^ strings[index(b)]).count_ones() as f64;
        let p = 1.0 - h / 128.0;
        let sigma = 128.0 * (p * (1.0 - p) / n).sqrt();
        // Rounded to whole bits: half a bit more.
        assert!(
            (estimate - h).abs() <= 5.0 * sigma + 0.5,
            "{a},{b}: {estimate} for {h}"
        );
        off += usize::from(*estimate != h);
    }
    assert!(off > 0, "estimates, not distances");
}

#[test]
fn simhash_signature_is_its_exact_fingerprint_distance_and_euclidean_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64(2);
    for t in 0..20 {
        let words: Vec<String> = (0..200).map(|_| format!("w{}", rng.next() % 300)).collect();
        for v in 0..3 {
            let mut w = words.clone();
            for _ in 0..v {
                w[(rng.next() % 200) as usize] = "changed".into();
            }
            std::fs::write(dir.path().join(format!("{t}-{v}.txt")), w.join(" ")).unwrap();
        }
    }
    let root = dir.path().to_str().unwrap();
    let args = ["scan", root, "--sketch", "simhash", "--radius", "5", "-q"];
    let exact = scan_output(&args, "2");
    let pairs: HashMap<_, _> = reported(&exact, "hamming", "distance");
    assert!(pairs.len() > 20, "{}", pairs.len());
    let mut signature = args.to_vec();
    signature.extend_from_slice(&["--verify", "signature"]);
    assert_eq!(scan_output(&signature, "1"), exact);

    let file = dir.path().join("v.csv");
    write_vectors(&file, &clustered(20, 3, 0.1, 1));
    let out = run(&[
        "scan",
        "--input",
        "vectors",
        file.to_str().unwrap(),
        "--metric",
        "euclidean",
        "--radius",
        "1",
        "--verify",
        "signature",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--verify signature: p-stable buckets give no distance estimate"),
        "{}",
        stderr(&out)
    );
}
