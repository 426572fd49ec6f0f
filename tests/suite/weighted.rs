//! `scan --sketch icws`: weighted sets (`--input sets` with `token:weight`,
//! or `--pairs` with a weight column) and files as bags of shingles, paired
//! by weighted Jaccard Σ min / Σ max, checked against a brute-force
//! computation written here.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{run, simfind, stderr, stdout, write};

/// A fixed-seed generator (64-bit LCG, high bits), independent of simfind's.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

type Bag = BTreeMap<String, f64>;

/// Σ min / Σ max by the definition.
fn weighted_jaccard(a: &Bag, b: &Bag) -> f64 {
    let (mut min, mut max) = (0.0, 0.0);
    for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
        let (x, y) = (
            a.get(k).copied().unwrap_or(0.0),
            b.get(k).copied().unwrap_or(0.0),
        );
        min += x.min(y);
        max += x.max(y);
    }
    min / max
}

/// 60 base bags of 20 tokens (weights 1–10 in quarters) from 3,000 words,
/// each with a copy whose weights move by at most a quarter and one token
/// changed in a third of them; the rest of the pairs are unrelated.
fn corpus() -> Vec<(String, Bag)> {
    let mut rng = Lcg(20);
    let mut bags = Vec::new();
    for base in 0..60 {
        let mut bag = Bag::new();
        while bag.len() < 20 {
            let word = format!("w{}", rng.next() % 3000);
            bag.insert(word, 1.0 + (rng.next() % 37) as f64 / 4.0);
        }
        let mut copy = bag.clone();
        for w in copy.values_mut() {
            *w += (rng.next() % 2) as f64 / 4.0;
        }
        if base % 3 == 0 {
            let first = copy.keys().next().unwrap().clone();
            copy.remove(&first);
            copy.insert(format!("extra{base}"), 1.0);
        }
        bags.push((format!("s{base}"), bag));
        bags.push((format!("s{base}-copy"), copy));
    }
    bags
}

/// `id<TAB>token:weight …`, or with `pairs` `id<TAB>token<TAB>weight`.
fn file_text(bags: &[(String, Bag)], pairs: bool) -> String {
    let mut text = String::new();
    for (id, bag) in bags {
        if pairs {
            for (token, w) in bag {
                text += &format!("{id}\t{token}\t{w}\n");
            }
        } else {
            let tokens: Vec<String> = bag.iter().map(|(t, w)| format!("{t}:{w}")).collect();
            text += &format!("{id}\t{}\n", tokens.join(" "));
        }
    }
    text
}

/// (a, b, weighted Jaccard) rows of a CSV output.
fn rows(out: &[u8]) -> Vec<(String, String, f64)> {
    let text = String::from_utf8(out.to_vec()).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("a,b,metric,similarity"));
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f[2], "weighted_jaccard", "{line}");
            (f[0].to_owned(), f[1].to_owned(), f[3].parse().unwrap())
        })
        .collect()
}

fn scan(path: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["scan", "--input", "sets", "--sketch", "icws", "-q"];
    args.extend_from_slice(extra);
    let out = simfind().args(&args).arg(path).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// At 25 bands × 4 rows, with every true pair at ≥ 0.8, the chance that
/// any is missed is below 10⁻⁶ (checked first): so the output is exactly
/// the brute-force pairs ≥ 0.5, with their values, in both input formats,
/// and the same bytes at -j 1 and -j 2.
#[test]
fn scan_finds_exactly_the_brute_force_pairs() {
    let bags = corpus();
    let mut want = Vec::new();
    let mut miss_bound = 0.0;
    for i in 0..bags.len() {
        for j in i + 1..bags.len() {
            let s = weighted_jaccard(&bags[i].1, &bags[j].1);
            assert!(!(0.3..0.8).contains(&s), "{} {}: {s}", bags[i].0, bags[j].0);
            if s >= 0.5 {
                miss_bound += (1.0 - s.powi(4)).powi(25);
                want.push((bags[i].0.clone(), bags[j].0.clone(), s));
            }
        }
    }
    assert_eq!(want.len(), 60);
    assert!(miss_bound < 1e-6, "{miss_bound}");

    let dir = tempfile::tempdir().unwrap();
    let lines = write(dir.path(), "bags.tsv", file_text(&bags, false).as_bytes());
    let pairs = write(dir.path(), "pairs.tsv", file_text(&bags, true).as_bytes());
    let args = ["-t", "0.5", "-b", "25", "-r", "4"];
    let one = scan(&lines, &[&args[..], &["-j", "1"]].concat());
    let got = rows(&one.stdout);
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((a, b, s), (x, y, t)) in got.iter().zip(&want) {
        assert_eq!((a, b), (x, y));
        assert!((s - t).abs() <= 5e-7, "{a} {b}: {s} against {t}");
    }
    let two = scan(&lines, &[&args[..], &["-j", "2"]].concat());
    assert_eq!(one.stdout, two.stdout);
    let by_pairs = scan(&pairs, &[&args[..], &["--pairs"]].concat());
    assert_eq!(one.stdout, by_pairs.stdout);
}

/// `--verify signature` reports the fraction of equal samples: each is
/// equal with probability J, so over 100 samples the estimate lies within
/// 4.5 σ = 4.5 √(J(1−J)/100) of the true value (plus 0.01 for a sample's
/// granularity).
#[test]
fn signature_verification_estimates_within_binomial_margins() {
    let bags = corpus();
    let truth: BTreeMap<(String, String), f64> = (0..bags.len())
        .flat_map(|i| (i + 1..bags.len()).map(move |j| (i, j)))
        .map(|(i, j)| {
            (
                (bags[i].0.clone(), bags[j].0.clone()),
                weighted_jaccard(&bags[i].1, &bags[j].1),
            )
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let lines = write(dir.path(), "bags.tsv", file_text(&bags, false).as_bytes());
    let out = scan(
        &lines,
        &["-t", "0.5", "-b", "25", "-r", "4", "--verify", "signature"],
    );
    let got = rows(&out.stdout);
    assert!(got.len() >= 55, "{got:?}");
    for (a, b, estimate) in got {
        let j = truth[&(a.clone(), b.clone())];
        let margin = 4.5 * (j * (1.0 - j) / 100.0).sqrt() + 0.01;
        assert!(
            (estimate - j).abs() <= margin,
            "{a} {b}: {estimate} against {j}"
        );
    }
}

/// MMDS's bags {a, a, a, b} and {a, a, b, b, c} as files of words: the
/// counts are the weights, Σ min / Σ max = (2 + 1) / (3 + 2 + 1) = 1/2.
#[test]
fn files_are_bags_of_shingle_counts() {
    let out = run(&[
        "scan",
        "--sketch",
        "icws",
        "tests/data/mmds/bag1.txt",
        "tests/data/mmds/bag2.txt",
        "--shingle",
        "word",
        "-k",
        "1",
        "-t",
        "0.4",
        "-q",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "a,b,metric,similarity\ntests/data/mmds/bag1.txt,tests/data/mmds/bag2.txt,weighted_jaccard,0.500000\n"
    );
}

/// Repeated tokens add up, a token without a weight weighs 1: `x x y:2`
/// is {x: 2, y: 2}, equal to `x:2 y:2`.
#[test]
fn repeated_tokens_add_their_weights() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.tsv", b"a\tx x y:2\nb\tx:2 y:2\nc\tx:1 y:3\n");
    let out = scan(&path, &["-t", "0.5", "-b", "50", "-r", "2"]);
    // a and c: (1 + 2) / (2 + 3) = 0.6.
    assert_eq!(
        stdout(&out),
        "a,b,metric,similarity\na,b,weighted_jaccard,1.000000\na,c,weighted_jaccard,0.600000\n\
         b,c,weighted_jaccard,0.600000\n"
    );
}

#[test]
fn a_bad_weight_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.tsv", b"a\tx:1 y:2\nb\tx:1 y:0\nc\tx:1 y:2\n");
    let out = run(&[
        "scan",
        "--input",
        "sets",
        "--sketch",
        "icws",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("s.tsv:2: weight '0' of token 'y' is not a number > 0"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
    let out = run(&[
        "scan",
        "--input",
        "sets",
        "--sketch",
        "icws",
        "--skip-bad-rows",
        "-t",
        "0.5",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("s.tsv:2: weight '0'"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        stdout(&out),
        "a,b,metric,similarity\na,c,weighted_jaccard,1.000000\n"
    );
    let pairs = write(dir.path(), "p.tsv", b"a\tx\t1\nb\tx\tmany\n");
    let out = run(&[
        "scan",
        "--input",
        "sets",
        "--pairs",
        "--sketch",
        "icws",
        pairs.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("p.tsv:2: weight 'many' of token 'x' is not a number > 0"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn options_that_do_not_apply_are_refused_before_any_work() {
    for (args, says) in [
        (&["--input", "jsonl"][..], "not --input jsonl"),
        (
            &["--input", "sets", "--method", "exact"][..],
            "--method exact",
        ),
        (
            &["--input", "sets", "--metric", "cosine"][..],
            "leave out --metric",
        ),
        (
            &["--input", "sets", "-k", "3"][..],
            "--shingle and -k do not apply",
        ),
        (
            &["--input", "sets", "--format", "html"][..],
            "--format html",
        ),
    ] {
        let mut all = vec!["scan", "--sketch", "icws"];
        all.extend_from_slice(args);
        all.push("tests/data/mmds/alice-bob.tsv");
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}
