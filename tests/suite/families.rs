//! The vector families through the binary (`docs/FAMILIES.md`): brute-force
//! oracles on seeded random data (no reported pair is false; recall at least
//! what the S-curve promises, within 5σ of its binomial sum), `-j 1` = `-j 2`,
//! bad rows, `compare` on vectors and bit strings, and exact truth on the
//! debian-docs corpus as term-frequency vectors and their sign bits.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use crate::util::{self, SplitMix64, run, simfind, stderr, stdout};

/// `n` points in `d` dimensions around `n / 10` Gaussian centres (noise σ), so
/// that many pairs are close and most are not; components of both signs.
fn clustered(n: usize, d: usize, sigma: f64, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = SplitMix64(seed);
    let centres: Vec<Vec<f64>> = (0..n / 10)
        .map(|_| (0..d).map(|_| rng.gauss()).collect())
        .collect();
    (0..n)
        .map(|i| {
            centres[i % centres.len()]
                .iter()
                .map(|c| (c + sigma * rng.gauss()) as f32)
                .collect()
        })
        .collect()
}

fn write_vectors(path: &Path, points: &[Vec<f32>]) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(
        f,
        "id,{}",
        (1..=points[0].len())
            .map(|k| format!("x{k}"))
            .collect::<Vec<_>>()
            .join(",")
    )
    .unwrap();
    for (i, p) in points.iter().enumerate() {
        let xs: Vec<String> = p.iter().map(|x| x.to_string()).collect();
        writeln!(f, "p{i},{}", xs.join(",")).unwrap();
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot = |x: &[f32], y: &[f32]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| *p as f64 * *q as f64)
            .sum::<f64>()
    };
    dot(a, b) / (dot(a, a).sqrt() * dot(b, b).sqrt())
}

fn l2(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (*p as f64 - *q as f64).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// P(one Gaussian projection with a random offset keeps two points `c` bucket
/// widths apart together) = ∫₀¹ (2/c)·φ(t/c)·(1 − t) dt, by Simpson's rule: an
/// integral, not simfind's closed form.
fn pstable_p(c: f64) -> f64 {
    if c == 0.0 {
        return 1.0;
    }
    let phi = |x: f64| (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let f = |t: f64| 2.0 / c * phi(t / c) * (1.0 - t);
    let n = 2000;
    let h = 1.0 / n as f64;
    let mut sum = f(0.0) + f(1.0);
    for k in 1..n {
        sum += f(k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
    }
    sum * h / 3.0
}

fn s_curve(p: f64, b: usize, r: usize) -> f64 {
    1.0 - (1.0 - p.powi(r as i32)).powi(b as i32)
}

/// Reported pairs `(a, b) → value` from a family CSV, header checked.
fn reported(out: &[u8], metric: &str, column: &str) -> HashMap<(String, String), f64> {
    let mut reader = csv::Reader::from_reader(out);
    assert_eq!(reader.headers().unwrap(), vec!["a", "b", "metric", column]);
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(&r[2], metric);
            ((r[0].to_string(), r[1].to_string()), r[3].parse().unwrap())
        })
        .collect()
}

/// The oracle check: every reported pair is a true pair with the value the
/// test computes (to the 6 printed decimals), and the true pairs found are at
/// least their expected number (Σ P) less 5σ (σ² = Σ P(1 − P)).
fn check_against_truth(
    found: &HashMap<(String, String), f64>,
    truth: &HashMap<(String, String), (f64, f64)>,
    tolerance: f64,
) -> (usize, f64) {
    for (pair, value) in found {
        let (want, _) = truth
            .get(pair)
            .unwrap_or_else(|| panic!("false pair {pair:?} {value}"));
        assert!(
            (value - want).abs() <= tolerance,
            "{pair:?}: {value} vs {want}"
        );
    }
    let expected: f64 = truth.values().map(|(_, p)| p).sum();
    let sigma = truth
        .values()
        .map(|(_, p)| p * (1.0 - p))
        .sum::<f64>()
        .sqrt();
    assert!(
        found.len() as f64 >= expected - 5.0 * sigma - 1.0,
        "found {} of {} true pairs, expected {expected:.1} (σ {sigma:.2})",
        found.len(),
        truth.len()
    );
    (found.len(), expected)
}

fn scan_output(args: &[&str], threads: &str) -> Vec<u8> {
    let mut all = vec!["-j", threads];
    all.extend_from_slice(args);
    let out = run(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out.stdout
}

#[test]
fn cosine_oracle_on_random_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    let points = clustered(600, 16, 0.35, 1);
    write_vectors(&file, &points);
    let (b, r, t) = (8usize, 6usize, 0.9);
    let mut truth = HashMap::new();
    for i in 0..points.len() {
        for j in i + 1..points.len() {
            let c = cosine(&points[i], &points[j]);
            if c >= t {
                let p = 1.0 - c.clamp(-1.0, 1.0).acos().to_degrees() / 180.0;
                truth.insert((format!("p{i}"), format!("p{j}")), (c, s_curve(p, b, r)));
            }
        }
    }
    assert!(
        truth.len() > 500,
        "{} true pairs: the data must have some",
        truth.len()
    );
    let args = [
        "scan",
        "--input",
        "vectors",
        file.to_str().unwrap(),
        "-t",
        "0.9",
        "-b",
        "8",
        "-r",
        "6",
        "-q",
    ];
    let one = scan_output(&args, "1");
    assert_eq!(one, scan_output(&args, "2"), "-j 1 and -j 2 differ");
    let found = reported(&one, "cosine", "similarity");
    check_against_truth(&found, &truth, 1e-6);
}

#[test]
fn euclidean_oracle_on_random_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.tsv");
    // TSV this time, same reader.
    let points = clustered(500, 8, 0.3, 2);
    let text: String = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "p{i}\t{}\n",
                p.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join("\t")
            )
        })
        .collect();
    std::fs::write(&file, text).unwrap();
    let (b, r, radius, width) = (10usize, 4usize, 1.0, 2.0);
    let mut truth = HashMap::new();
    for i in 0..points.len() {
        for j in i + 1..points.len() {
            let d = l2(&points[i], &points[j]);
            if d <= radius {
                truth.insert(
                    (format!("p{i}"), format!("p{j}")),
                    (d, s_curve(pstable_p(d / width), b, r)),
                );
            }
        }
    }
    assert!(truth.len() > 300, "{}", truth.len());
    let args = [
        "scan",
        "--input",
        "vectors",
        file.to_str().unwrap(),
        "--metric",
        "euclidean",
        "--radius",
        "1",
        "--bucket-width",
        "2",
        "-b",
        "10",
        "-r",
        "4",
        "-q",
    ];
    let one = scan_output(&args, "1");
    assert_eq!(one, scan_output(&args, "2"));
    check_against_truth(&reported(&one, "euclidean", "distance"), &truth, 1e-6);
}

/// `count` 128-bit strings around `centres` random centres (string `i`
/// around centre `i % centres`), each bit flipped with probability `flip`,
/// from a fixed seed.
fn clustered_bits(seed: u64, centres: usize, count: usize, flip: f64) -> Vec<u128> {
    let mut rng = SplitMix64(seed);
    let centres: Vec<u128> = (0..centres)
        .map(|_| (rng.next() as u128) << 64 | rng.next() as u128)
        .collect();
    (0..count)
        .map(|i| {
            let mut w = centres[i % centres.len()];
            for k in 0..128 {
                if rng.uniform() < flip {
                    w ^= 1 << k;
                }
            }
            w
        })
        .collect()
}

fn bits_text(words: &[u128]) -> String {
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            format!(
                "s{i},{}\n",
                (0..128)
                    .map(|k| if w >> k & 1 == 1 { '1' } else { '0' })
                    .collect::<String>()
            )
        })
        .collect()
}

#[test]
fn hamming_oracle_on_random_bit_strings() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.csv");
    let strings = clustered_bits(3, 50, 500, 0.04);
    std::fs::write(&file, bits_text(&strings)).unwrap();
    let (b, r, radius) = (12usize, 8usize, 12u32);
    let mut truth = HashMap::new();
    for i in 0..strings.len() {
        for j in i + 1..strings.len() {
            let h = (strings[i] ^ strings[j]).count_ones();
            if h <= radius {
                let p = 1.0 - h as f64 / 128.0;
                truth.insert(
                    (format!("s{i}"), format!("s{j}")),
                    (h as f64, s_curve(p, b, r)),
                );
            }
        }
    }
    assert!(truth.len() > 300, "{}", truth.len());
    let args = [
        "scan",
        "--input",
        "bits",
        file.to_str().unwrap(),
        "--radius",
        "12",
        "-b",
        "12",
        "-r",
        "8",
        "-q",
    ];
    let one = scan_output(&args, "1");
    assert_eq!(one, scan_output(&args, "2"));
    check_against_truth(&reported(&one, "hamming", "distance"), &truth, 0.0);
}

#[test]
fn bad_rows_stop_the_run_or_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.csv");
    std::fs::write(&file, "a,1,2\nb,3\nc,1,NaN\nd,1,2.5\n").unwrap();
    let out_file = dir.path().join("pairs.csv");
    let f = file.to_str().unwrap();
    let out = run(&[
        "scan",
        "--input",
        "vectors",
        f,
        "-t",
        "0.9",
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "simfind: error: {f}: line 2: 1 components where the rows before have 2 (--skip-bad-rows leaves such rows out)\n"
        )
    );
    assert!(!out_file.exists(), "no partial output");
    let out = run(&[
        "scan",
        "--input",
        "vectors",
        f,
        "-t",
        "0.9",
        "--skip-bad-rows",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("warning: {f}: line 2: 1 components")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "warning: {f}: line 3: component 2: \"NaN\" is not a finite number"
        )),
        "{err}"
    );
    // a and d remain: cos([1,2],[1,2.5]) = 6 / (√5·√7.25).
    let want = 6.0 / (5f64.sqrt() * 7.25f64.sqrt());
    assert_eq!(
        stdout(&out),
        format!("a,b,metric,similarity\na,d,cosine,{want:.6}\n")
    );
}

#[test]
fn stdin_bits_and_argument_errors() {
    let mut child = simfind()
        .args([
            "scan", "--input", "bits", "-", "--radius", "1", "-q", "--format", "jsonl",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"id,bits\nx,10101\ny,11110\nz,10100\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "{\"a\":\"x\",\"b\":\"z\",\"metric\":\"hamming\",\"distance\":1}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.csv");
    // 0x15 is eight bits (0001 0101), not five.
    std::fs::write(&file, "x,10101\nz,0x15\n").unwrap();
    let out = run(&[
        "scan",
        "--input",
        "bits",
        file.to_str().unwrap(),
        "--radius",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 2: 8 bits where the rows before have 5"),
        "{}",
        stderr(&out)
    );
    for (args, message) in [
        (&["scan", "--input", "vectors", "x.csv"][..], "needs -t T"),
        (
            &["scan", "--input", "vectors", "x.csv", "-t", "2"][..],
            "in [-1, 1]",
        ),
        (
            &[
                "scan",
                "--input",
                "vectors",
                "x.csv",
                "--metric",
                "euclidean",
            ][..],
            "needs --radius",
        ),
        (&["scan", "--input", "bits", "x.csv"][..], "needs --radius"),
        (
            &["scan", "testdata", "--metric", "cosine", "-t", "0.5"][..],
            "needs --input vectors",
        ),
        (
            &["scan", "testdata", "--sketch", "simhash", "-b", "4"][..],
            "leave out --bands",
        ),
        (
            &["scan", "testdata", "--sketch", "simhash", "--radius", "64"][..],
            "64 bits",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "");
    }
}

/// `compare --input sets`: tokens are whole strings (`item-42` is one element,
/// as MMDS 3.8's sets are), a repeated token counts once, and the `--pairs`
/// form of the same sets gives the same measures. {item-42, item-7} and
/// {item-42, item-9}: one shared of three, so J = 1/3, two in exactly one,
/// cosine of the 0/1 vectors 1/√(2·2) = 1/2, an angle of 60°.
#[test]
fn compare_two_sets_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("sets.tsv");
    std::fs::write(
        &lines,
        "u\titem-42 item-7 item-7\nv\titem-42 item-9\nw\tz\n",
    )
    .unwrap();
    let pairs = dir.path().join("pairs.tsv");
    std::fs::write(
        &pairs,
        "u\titem-42\nv\titem-9\nu\titem-7\nv\titem-42\nw\tz\n",
    )
    .unwrap();
    let expected = format!(
        "measure,value\nsize_a,2\nsize_b,2\nshared,1\njaccard,{:.6}\njaccard_distance,{:.6}\nhamming,2\ncosine,{:.6}\nangle_degrees,{:.6}\n",
        1.0 / 3.0,
        2.0 / 3.0,
        0.5,
        0.5f64.acos().to_degrees()
    );
    let out = run(&[
        "compare",
        "--input",
        "sets",
        lines.to_str().unwrap(),
        "u",
        "v",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), expected);
    let out = run(&[
        "compare",
        "--input",
        "sets",
        "--pairs",
        pairs.to_str().unwrap(),
        "u",
        "v",
    ]);
    assert_eq!(stdout(&out), expected);
    // Disjoint sets: J = 0, every element in exactly one.
    let out = run(&[
        "compare",
        "--input",
        "sets",
        lines.to_str().unwrap(),
        "u",
        "w",
    ]);
    assert!(
        stdout(&out).contains(
            "\nshared,0\njaccard,0.000000\njaccard_distance,1.000000\nhamming,3\ncosine,0.000000\n"
        ),
        "{}",
        stdout(&out)
    );
    let out = run(&[
        "compare",
        "--input",
        "sets",
        lines.to_str().unwrap(),
        "u",
        "nobody",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no set with id \"nobody\""),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
    let out = run(&[
        "compare",
        "--input",
        "vectors",
        "--pairs",
        lines.to_str().unwrap(),
        "u",
        "v",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--pairs is for --input sets"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn compare_vectors_and_bit_strings() {
    let out = run(&["compare", "--bits", "10101", "--bits", "11110"]);
    assert_eq!(stdout(&out), "measure,value\nbits,5\nhamming,3\n");
    let out = run(&["compare", "--bits", "0xf0", "--bits", "0x0f"]);
    assert_eq!(stdout(&out), "measure,value\nbits,8\nhamming,8\n");
    // [1, −2, 3]·[2, 0, −1] = −1; norms √14, √5; L1 7, L2 √21, L∞ 4, L3 (1 + 8 + 64)^(1/3).
    let out = run(&[
        "compare", "--vector", "1,-2,3", "--vector", "2,0,-1", "--p", "3",
    ]);
    let c = -1.0 / (14f64.sqrt() * 5f64.sqrt());
    assert_eq!(
        stdout(&out),
        format!(
            "measure,value\ndimensions,3\ncosine,{c:.6}\nangle_degrees,{:.6}\neuclidean,{:.6}\nmanhattan,7.000000\nlinf,4.000000\nl3,{:.6}\n",
            c.acos().to_degrees(),
            21f64.sqrt(),
            73f64.powf(1.0 / 3.0)
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    std::fs::write(&file, "u,1,-2,3\nv,2,0,-1\n").unwrap();
    let from_file = run(&[
        "compare",
        "--input",
        "vectors",
        file.to_str().unwrap(),
        "u",
        "v",
        "--p",
        "3",
    ]);
    assert_eq!(from_file.stdout, out.stdout);
    let missing = run(&[
        "compare",
        "--input",
        "vectors",
        file.to_str().unwrap(),
        "u",
        "w",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no row with id \"w\""));
    let unequal = run(&["compare", "--bits", "101", "--bits", "1010"]);
    assert_eq!(unequal.status.code(), Some(2));
}

/// Groups of the families: `--format clusters`, JSON Lines groups.
mod clusters;

/// Several input files, `--link`, and what is refused before any work.
mod inputs;

/// `--verify signature`: each family's estimate within its binomial margin.
mod signature;

/// `--method exact|lsh|auto` for points, and `--simhash-weights`.
mod exact;

/// Every rule of a run over points, as the flags' words.
mod refusals;

/// `scan --top K` of vectors and bit strings against a brute force.
mod top;

/// On debian-docs: term-frequency vectors against their exact measures, and
/// SimHash against a brute force over every pair.
mod debian;
