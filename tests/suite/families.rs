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

/// The debian-docs documents as term-frequency vectors, generated
/// deterministically: words are maximal alphanumeric runs of the lowercased
/// text; the dimensions are the words ranked 51 to 306 by corpus frequency
/// (the 50 most frequent, function words, would make every page alike), ties
/// by the word. Files in path order; ids are the paths under `files/`.
fn debian_tf_vectors() -> (Vec<String>, Vec<Vec<f32>>) {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let root = util::shared_data("debian-docs").join("files");
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    let mut docs: Vec<HashMap<String, u32>> = Vec::new();
    let mut total: HashMap<String, u64> = HashMap::new();
    for p in &paths {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).to_lowercase();
        let mut counts: HashMap<String, u32> = HashMap::new();
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            *counts.entry(word.to_string()).or_default() += 1;
        }
        for (w, c) in &counts {
            *total.entry(w.clone()).or_default() += u64::from(*c);
        }
        docs.push(counts);
    }
    let mut ranked: Vec<(u64, String)> = total.into_iter().map(|(w, c)| (c, w)).collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let vocabulary: Vec<String> = ranked[50..306].iter().map(|(_, w)| w.clone()).collect();
    let ids = paths
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let vectors = docs
        .iter()
        .map(|counts| {
            vocabulary
                .iter()
                .map(|w| counts.get(w).copied().unwrap_or(0) as f32)
                .collect()
        })
        .collect();
    (ids, vectors)
}

/// Exact truth on real data: cosine ≥ 0.95 over debian-docs term-frequency
/// vectors, then Hamming ≤ 10 over their 128 sign bits (random hyperplanes the
/// test draws), each against a brute-force pass over every pair.
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn debian_docs_tf_vectors_and_sign_bits() {
    let (ids, vectors) = debian_tf_vectors();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tf.csv");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        for (id, v) in ids.iter().zip(&vectors) {
            let xs: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record([id.as_str()]).unwrap();
            let quoted = String::from_utf8(w.into_inner().unwrap()).unwrap();
            writeln!(f, "{},{}", quoted.trim_end(), xs.join(",")).unwrap();
        }
    }
    let norms: Vec<f64> = vectors
        .iter()
        .map(|v| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt())
        .collect();
    let (b, r, t) = (20usize, 8usize, 0.95);
    let mut truth = HashMap::new();
    for i in 0..vectors.len() {
        if norms[i] == 0.0 {
            continue;
        }
        for j in i + 1..vectors.len() {
            if norms[j] == 0.0 {
                continue;
            }
            let dot: f64 = vectors[i]
                .iter()
                .zip(&vectors[j])
                .map(|(x, y)| *x as f64 * *y as f64)
                .sum();
            let c = dot / (norms[i] * norms[j]);
            if c >= t {
                let p = 1.0 - c.min(1.0).acos().to_degrees() / 180.0;
                truth.insert((ids[i].clone(), ids[j].clone()), (c, s_curve(p, b, r)));
            }
        }
    }
    let out = run(&[
        "scan",
        "--input",
        "vectors",
        file.to_str().unwrap(),
        "-t",
        "0.95",
        "-b",
        "20",
        "-r",
        "8",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (found, expected) =
        check_against_truth(&reported(&out.stdout, "cosine", "similarity"), &truth, 1e-6);
    eprintln!(
        "cosine: {found} of {} true pairs found, {expected:.1} expected; {}",
        truth.len(),
        stderr(&out)
    );

    // Their sign sketches: 128 Gaussian hyperplanes of the test's own.
    let mut rng = SplitMix64(128);
    let planes: Vec<Vec<f64>> = (0..128)
        .map(|_| (0..vectors[0].len()).map(|_| rng.gauss()).collect())
        .collect();
    let signs: Vec<u128> = vectors
        .iter()
        .map(|v| {
            planes.iter().enumerate().fold(0u128, |acc, (k, n)| {
                let dot: f64 = v.iter().zip(n).map(|(x, y)| *x as f64 * y).sum();
                acc | (u128::from(dot > 0.0) << k)
            })
        })
        .collect();
    let bits_file = dir.path().join("signs.csv");
    let text: String = ids
        .iter()
        .zip(&signs)
        .map(|(id, w)| {
            let mut q = csv::Writer::from_writer(Vec::new());
            q.write_record([id.as_str()]).unwrap();
            let id = String::from_utf8(q.into_inner().unwrap()).unwrap();
            format!(
                "{},{}\n",
                id.trim_end(),
                (0..128)
                    .map(|k| if w >> k & 1 == 1 { '1' } else { '0' })
                    .collect::<String>()
            )
        })
        .collect();
    std::fs::write(&bits_file, text).unwrap();
    let (b, r, radius) = (16usize, 10usize, 10u32);
    let mut truth = HashMap::new();
    for i in 0..signs.len() {
        for j in i + 1..signs.len() {
            let h = (signs[i] ^ signs[j]).count_ones();
            if h <= radius {
                truth.insert(
                    (ids[i].clone(), ids[j].clone()),
                    (h as f64, s_curve(1.0 - h as f64 / 128.0, b, r)),
                );
            }
        }
    }
    let out = run(&[
        "scan",
        "--input",
        "bits",
        bits_file.to_str().unwrap(),
        "--radius",
        "10",
        "-b",
        "16",
        "-r",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (found, expected) =
        check_against_truth(&reported(&out.stdout, "hamming", "distance"), &truth, 0.0);
    eprintln!(
        "hamming: {found} of {} true pairs found, {expected:.1} expected; {}",
        truth.len(),
        stderr(&out)
    );
}

/// SimHash over debian-docs against an independent implementation of what
/// docs/FAMILIES.md defines: the data README's char5 shingles (lossy UTF-8,
/// lowercase, whitespace runs → one space, trimmed; XXH3-64 of each 5-character
/// window), weighted by their counts or each once (--simhash-weights); each hash scrambled with the seed by
/// SplitMix64's finaliser; bit i of the fingerprint is the sign of Σ ±weight.
/// The pigeonhole bands miss nothing, so the output is exactly the brute-force
/// set of pairs within 3 bits; and -j 1 = -j 2.
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn simhash_equals_brute_force_on_debian_docs() {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let root = Path::new("../shared/data/debian-docs/files");
    let mut paths = Vec::new();
    walk(&util::root().join(root), &mut paths);
    let seed = 42u64; // scan's default --seed
    let mix = |h: u64| {
        let mut z = h ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    // Each file's shingle counts once, with each hash already scrambled: the
    // two weightings below differ only in how they sum them.
    let mut bags: Vec<(String, Vec<(u64, i64)>)> = Vec::new();
    for p in &paths {
        let lowered = String::from_utf8_lossy(&std::fs::read(p).unwrap()).to_lowercase();
        let text = lowered.split_whitespace().collect::<Vec<_>>().join(" ");
        // A window of 5 characters is the bytes between the starts of
        // characters i and i + 5.
        let starts: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        if starts.len() < 6 {
            continue;
        }
        let mut counts: HashMap<u64, i64> = HashMap::new();
        for w in starts.windows(6) {
            let window = &text.as_bytes()[w[0]..w[5]];
            *counts
                .entry(xxhash_rust::xxh3::xxh3_64(window))
                .or_default() += 1;
        }
        let rel = p.strip_prefix(util::root().join(root)).unwrap();
        let name = root.join(rel).to_string_lossy().into_owned();
        bags.push((name, counts.into_iter().map(|(h, c)| (mix(h), c)).collect()));
    }
    // Weighted by counts, and (the default) each distinct shingle once.
    for weights in ["counts", "set"] {
        let mut prints: Vec<(String, u64)> = Vec::new();
        for (name, bag) in &bags {
            let mut sums = [0i64; 64];
            for &(h, c) in bag {
                let c = if weights == "set" { 1 } else { c };
                for (i, sum) in sums.iter_mut().enumerate() {
                    *sum += if h >> i & 1 == 1 { c } else { -c };
                }
            }
            let fp = sums
                .iter()
                .enumerate()
                .fold(0u64, |fp, (i, s)| fp | (u64::from(*s > 0) << i));
            prints.push((name.clone(), fp));
        }
        let mut truth = HashMap::new();
        for i in 0..prints.len() {
            for j in i + 1..prints.len() {
                let h = (prints[i].1 ^ prints[j].1).count_ones();
                if h <= 3 {
                    // simfind orders a pair by path bytes (its walk order).
                    let (a, b) = (prints[i].0.clone(), prints[j].0.clone());
                    let key = if a.as_bytes() < b.as_bytes() {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    truth.insert(key, f64::from(h));
                }
            }
        }
        let args = [
            "scan",
            root.to_str().unwrap(),
            "--sketch",
            "simhash",
            "-q",
            "--simhash-weights",
            weights,
        ];
        let one = scan_output(&args, "1");
        assert_eq!(one, scan_output(&args, "2"));
        let found = reported(&one, "hamming", "distance");
        let missed: Vec<_> = truth
            .iter()
            .filter(|(k, _)| !found.contains_key(*k))
            .take(3)
            .collect();
        let extra: Vec<_> = found
            .iter()
            .filter(|(k, _)| !truth.contains_key(*k))
            .take(3)
            .collect();
        let differ: Vec<_> = found
            .iter()
            .filter(|(k, v)| truth.get(*k).is_some_and(|t| t != *v))
            .take(3)
            .collect();
        assert!(
            missed.is_empty() && extra.is_empty() && differ.is_empty(),
            "missed {missed:?}, extra {extra:?}, differ {differ:?} of {} / {}",
            found.len(),
            truth.len()
        );
        assert!(truth.len() > 700, "{}", truth.len());
    }
}

/// Groups of the families: `--format clusters`, JSON Lines groups.
mod clusters;

/// Several input files, `--link`, and what is refused before any work.
mod inputs;

/// `--verify signature`: each family's estimate within its binomial margin.
mod signature;

/// `--method exact|lsh|auto` for points, and `--simhash-weights`.
mod exact;
