//! The worked examples of MMDS ch. 3 through the real binary (issue #20).
//! Expected values are the book's (or the closed forms beside them), never
//! numbers the code under test produced. Citations follow the numbering of
//! the chapter text in ../shared/seeds/003_332d40479ab44711.txt, as
//! docs/MMDS.md states.

use crate::util::{self, run, stderr, stdout};

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn field(text: &str, prefix: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.contains(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in {text}"));
    let rest = &line[line.find(prefix).unwrap() + prefix.len()..];
    let number: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number.parse().unwrap_or_else(|_| panic!("{line}"))
}

/// MMDS 3.4.2: the 20 × 5 curve is 1/2 at (1 - 2^(-1/20))^(1/5) and steepest
/// at ((r-1)/(br-1))^(1/r), not at the (1/b)^(1/r) = 0.5493 approximation.
#[test]
fn curve_prints_the_exact_half_point_and_the_steepest_point() {
    let text = ok(&["curve", "--bands", "20", "--rows", "5"]);
    let half = (1.0 - 0.5f64.powf(1.0 / 20.0)).powf(0.2);
    let steep = (4.0f64 / 99.0).powf(0.2);
    let slope = 100.0 * steep.powi(4) * (1.0 - steep.powi(5)).powi(19);
    assert!(
        (field(&text, "P = 1/2 at s =") - half).abs() < 5e-5,
        "{text}"
    );
    assert!(
        (field(&text, "steepest at s =") - steep).abs() < 5e-5,
        "{text}"
    );
    assert!((field(&text, "(slope") - slope).abs() < 5e-4, "{text}");
    assert!((half - 0.5087).abs() < 5e-5 && (steep - 0.5264).abs() < 5e-5);
    // A cascade's half point: AND 4 then OR 4 is 1/2 where (1 - s^4)^4 = 1/2.
    let text = ok(&["curve", "--and", "4", "--or", "4"]);
    let half = (1.0 - 0.5f64.powf(0.25)).powf(0.25);
    assert!(
        (field(&text, "P = 1/2 at s =") - half).abs() < 5e-5,
        "{text}"
    );
}

/// The signature matrix's lines (after the `signature` header) as cells.
fn signature_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with("signature"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// `(jaccard, estimate)` of one pair line, as the fractions printed.
fn pair(text: &str, a: &str, b: &str) -> (String, String) {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{a} {b} ")))
        .unwrap_or_else(|| panic!("no pair {a} {b} in {text}"));
    let cells: Vec<&str> = line.split_whitespace().collect();
    (cells[2].to_string(), cells[5].to_string())
}

/// MMDS Example 3.8: h1(x) = x+1 mod 5, h2(x) = 3x+1 mod 5 on Fig. 3.2's
/// sets give [[1,3,0,1],[0,2,0,0]], estimates SIM(S1,S4) = 1 and
/// SIM(S1,S3) = 1/2 against truths 2/3 and 1/4.
#[test]
fn example_3_8_signature_matrix_from_the_command_line() {
    for input in [
        vec!["--matrix", "tests/data/mmds/fig3-2.txt"],
        vec![
            "--set", "S1=0,3", "--set", "S2=2", "--set", "S3=1,3,4", "--set", "S4=0,2,3",
        ],
    ] {
        let mut args = vec!["minhash"];
        args.extend(input);
        args.extend(["--hash", "x+1 mod 5", "--hash", "3x+1 mod 5"]);
        let text = ok(&args);
        let rows = signature_rows(&text);
        assert_eq!(rows[0], ["h1", "1", "3", "0", "1"], "{text}");
        assert_eq!(rows[1], ["h2", "0", "2", "0", "0"], "{text}");
        assert_eq!(pair(&text, "S1", "S4"), ("2/3".into(), "1".into()));
        assert_eq!(pair(&text, "S1", "S3"), ("1/4".into(), "1/2".into()));
    }
}

/// MMDS Example 3.7: the permutation b, e, a, d, c gives h(S1) = a,
/// h(S2) = c, h(S3) = b, h(S4) = a.
#[test]
fn example_3_7_permutation_by_order() {
    let text = ok(&[
        "minhash",
        "--matrix",
        "tests/data/mmds/fig3-2.txt",
        "--order",
        "b,e,a,d,c",
    ]);
    assert_eq!(
        signature_rows(&text)[0],
        ["h1", "a", "c", "b", "a"],
        "{text}"
    );
}

/// CS5344 slides: h(x) = x mod 5 + 1 and g(x) = (2x+1) mod 5 + 1 over rows
/// numbered from 1 give Sig1 = [2, 3], Sig2 = [1, 1]; their three explicit
/// permutations give Sig/Sig 0.67, 1.00 and 0 for columns 1-3, 2-4 and 1-2.
#[test]
fn slides_hash_and_permutation_examples() {
    let text = ok(&[
        "minhash",
        "--matrix",
        "tests/data/mmds/hg.txt",
        "--first-row",
        "1",
        "--hash",
        "x mod 5 + 1",
        "--hash",
        "(2x+1) mod 5 + 1",
    ]);
    let rows = signature_rows(&text);
    assert_eq!(rows[0], ["h1", "2", "1"], "{text}");
    assert_eq!(rows[1], ["h2", "3", "1"], "{text}");
    let text = ok(&[
        "minhash",
        "--matrix",
        "tests/data/mmds/slides-perm.txt",
        "--first-row",
        "1",
        "--permutation",
        "3,4,7,6,1,2,5",
        "--permutation",
        "4,2,1,3,6,7,5",
        "--permutation",
        "1,3,7,6,2,5,4",
    ]);
    assert_eq!(
        signature_rows(&text)[0],
        ["h1", "2", "1", "2", "1"],
        "{text}"
    );
    assert_eq!(pair(&text, "C1", "C3"), ("3/4".into(), "2/3".into()));
    assert_eq!(pair(&text, "C2", "C4"), ("3/4".into(), "1".into()));
    assert_eq!(pair(&text, "C1", "C2"), ("0".into(), "0".into()));
}

/// The lecture notes' row-block example: m = 8, m̄ = 4, expected estimates
/// 1/3 and 1/6 against truths 1/2 and 1/5; S1's first block is ∞.
#[test]
fn lecture_block_example_expected_estimates() {
    let text = ok(&[
        "minhash",
        "--matrix",
        "tests/data/mmds/block.txt",
        "--block-rows",
        "4",
        "--expected",
    ]);
    assert_eq!(
        pair(&text, "S1", "S2"),
        ("1/2".into(), "1/3".into()),
        "{text}"
    );
    assert_eq!(
        pair(&text, "S1", "S3"),
        ("1/5".into(), "1/6".into()),
        "{text}"
    );
    let text = ok(&[
        "minhash",
        "--matrix",
        "tests/data/mmds/block.txt",
        "--block-rows",
        "4",
        "--permutation",
        "0,1,2,3",
    ]);
    let rows = signature_rows(&text);
    assert_eq!(rows[0], ["h1", "block", "1", "∞", "3", "2"], "{text}");
    assert_eq!(rows[1], ["h1", "block", "2", "0", "0", "0"], "{text}");
}

/// Bad expressions, matrices and permutations stop before any output with
/// the reason (and the file and line), exit 2.
#[test]
fn teaching_input_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let bad = util::write(dir.path(), "bad.txt", b"A B\nr1 1 0\nr2 1 2\n");
    let bad = bad.to_str().unwrap();
    for (args, message) in [
        (
            vec!["--matrix", "tests/data/mmds/fig3-2.txt", "--hash", "3x+1"],
            "no `mod p`",
        ),
        (
            vec![
                "--matrix",
                "tests/data/mmds/fig3-2.txt",
                "--hash",
                "3y mod 5",
            ],
            "not a non-negative integer",
        ),
        (
            vec![
                "--matrix",
                "tests/data/mmds/fig3-2.txt",
                "--permutation",
                "1,2,2,3,4",
            ],
            "not a permutation",
        ),
        (
            vec![
                "--matrix",
                "tests/data/mmds/fig3-2.txt",
                "--permutation",
                "1,2",
            ],
            "has 2 values",
        ),
        (
            vec![
                "--matrix",
                "tests/data/mmds/fig3-2.txt",
                "--order",
                "a,b,z,d,e",
            ],
            "no row labelled \"z\"",
        ),
        (
            vec!["--matrix", "tests/data/mmds/fig3-2.txt"],
            "no functions",
        ),
        (
            vec!["--matrix", bad, "--hash", "x mod 2"],
            "bad.txt:3: \"2\" is not 0 or 1",
        ),
        (
            vec!["--set", "A=1,x", "--set", "B=2", "--hash", "x mod 2"],
            "row \"x\" is not a number",
        ),
    ] {
        let mut all = vec!["minhash"];
        all.extend(args.iter().copied());
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(out.stdout.is_empty(), "{all:?}");
        assert!(stderr(&out).contains(message), "{all:?}: {}", stderr(&out));
    }
}

/// `--minhash block` signs through the whole pipeline: an LSH scan finds the
/// news corpus's three pairs with the same exact similarities as classic
/// MinHash, byte-identical over thread counts, and `compare` prints its
/// a/(a+d) estimate beside the exact Jaccard.
#[test]
fn block_minhash_scans_and_compares() {
    let scan = |kind: &str, threads: &str| {
        ok(&[
            "scan",
            "testdata/news",
            "--method",
            "lsh",
            "--minhash",
            kind,
            "-t",
            "0.6",
            "-j",
            threads,
            "-q",
        ])
    };
    let block = scan("block", "1");
    assert_eq!(block, scan("block", "2"));
    // The estimate column differs (other signatures); the pairs and exact similarities do not.
    let exact = |csv: &str| -> Vec<String> {
        csv.lines()
            .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(exact(&block), exact(&scan("classic", "1")));
    assert_eq!(block.lines().count(), 4, "{block}");
    let text = ok(&[
        "compare",
        "testdata/news/lighthouse.txt",
        "testdata/news/lighthouse-edited.txt",
        "--minhash",
        "block",
        "--bands",
        "100",
        "--rows",
        "5",
    ]);
    let value = |name: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name},")))
            .unwrap();
        line.split(',').nth(1).unwrap().parse().unwrap()
    };
    // 500 blocks of 1,300 shingles: the estimate's standard error is below
    // sqrt(J(1-J)/500) = 0.013; 4 of them is the margin.
    assert!(
        (value("minhash_estimate") - value("jaccard")).abs() < 0.052,
        "{text}"
    );
}

/// MMDS Exercise 3.5.8: a transposition counts 1 (Levenshtein counts 2), and
/// the bag similarity of {a,a,a,b} and {a,a,b,b,c} is 3/9 (weighted: 3/6).
#[test]
fn compare_prints_damerau_and_bag_measures() {
    let dir = tempfile::tempdir().unwrap();
    let x = util::write(dir.path(), "x.txt", b"abcde");
    let y = util::write(dir.path(), "y.txt", b"abdce");
    let text = ok(&[
        "compare",
        x.to_str().unwrap(),
        y.to_str().unwrap(),
        "-k",
        "1",
    ]);
    assert!(
        text.contains("\nlevenshtein,2\n") && text.contains("\ndamerau,1\n"),
        "{text}"
    );
    let a = util::write(dir.path(), "a.txt", b"a a a b");
    let b = util::write(dir.path(), "b.txt", b"a a b b c");
    let text = ok(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--shingle",
        "word",
        "-k",
        "1",
    ]);
    assert!(text.contains("\nbag_jaccard,0.333333\n"), "{text}");
    assert!(text.contains("\nweighted_jaccard,0.500000\n"), "{text}");
}
