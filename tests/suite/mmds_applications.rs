//! MMDS 3.8 (entity resolution, fingerprints), weighted MinHash and the
//! Alice/Bob Hamming example through the real binary (issue #20). Expected
//! values are the book's, closed forms, or computed here by definition, never
//! numbers the code under test produced. Citations follow the chapter text in
//! ../shared/seeds/003_332d40479ab44711.txt (docs/MMDS.md, "Edition").

use crate::util::{self, XorShift64, run, stderr, stdout};

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// CSV rows (header dropped) as strings.
fn rows(text: &str) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn number(text: &str) -> f64 {
    text.parse().unwrap_or_else(|_| panic!("{text:?}"))
}

/// Example 3.22: p = 0.2, q = 0.8, 1,024 functions OR-ed, two groups AND-ed.
#[test]
fn fingerprint_reproduces_example_3_22() {
    let table = rows(&ok(&["fingerprint"]));
    let (p, q, n) = (0.2f64, 0.8f64, 1024);
    let same = p.powi(3) * q.powi(3);
    let different = p.powi(6);
    let or_same = 1.0 - (1.0 - same).powi(n);
    let or_different = 1.0 - (1.0 - different).powi(n);
    let expected = [
        (p.powi(3), p.powi(3)),
        (q.powi(3), p.powi(3)),
        (same, different),
        (or_same, or_different),
        (or_same.powi(2), or_different.powi(2)),
    ];
    assert_eq!(table.len(), expected.len(), "{table:?}");
    for (row, (s, d)) in table.iter().zip(expected) {
        assert!((number(&row[1]) - s).abs() < 1e-7, "{row:?} {s}");
        assert!((number(&row[2]) - d).abs() < 1e-7, "{row:?} {d}");
    }
    // The text's rounded numbers: 0.008, 0.512, 0.004096, 0.000064, 0.985,
    // 0.063, 0.970; its 0.00397 is 0.063², not the exact 0.0040242.
    assert_eq!(table[2][1], "0.0040960");
    assert_eq!(table[2][2], "0.0000640");
    assert!((number(&table[3][1]) - 0.985).abs() < 5e-4);
    assert!((number(&table[3][2]) - 0.063).abs() < 5e-4);
    assert!((number(&table[4][1]) - 0.970).abs() < 5e-4);
    assert_eq!(table[4][2], "0.0040242");
    // One group: no AND row.
    let one = rows(&ok(&["fingerprint", "--groups", "1"]));
    assert_eq!(one.len(), 4);
    assert_eq!(one[3], table[3]);
}

fn choose3(m: usize) -> f64 {
    let m = m as f64;
    m * (m - 1.0) * (m - 2.0) / 6.0
}

/// Prints drawn by Example 3.22's model (a minutia in each of 1,000 squares
/// with p = 0.2; a second print of the same finger keeps each with q = 0.8 and
/// gains others with 0.05, so it too has p = 0.2 per square). Given the prints,
/// a pair sharing m squares is a candidate of 2 groups of 1,024 random
/// functions with probability (1 − (1 − C(m,3)/C(1000,3))^1024)²: the
/// candidates found must match the sum of those over the pairs. Pairs share
/// functions, so counts spread wider than binomial (about twice, simulated):
/// the margin is 6 binomial σ. Every printed Jaccard is checked by definition.
#[test]
fn fingerprint_scan_finds_the_models_pairs() {
    let grid = 1000usize;
    let fingers = 300;
    let mut rng = XorShift64(0x5eed_f1e6);
    let mut prints: Vec<Vec<bool>> = Vec::new();
    let mut file = String::new();
    for f in 0..fingers {
        let a: Vec<bool> = (0..grid).map(|_| rng.unit() < 0.2).collect();
        let b: Vec<bool> = a
            .iter()
            .map(|&x| {
                if x {
                    rng.unit() < 0.8
                } else {
                    rng.unit() < 0.05
                }
            })
            .collect();
        for (name, print) in [(format!("f{f}"), a), (format!("f{f}b"), b)] {
            let squares: Vec<String> = (0..grid)
                .filter(|&s| print[s])
                .map(|s| s.to_string())
                .collect();
            file.push_str(&format!("{name}\t{}\n", squares.join(" ")));
            prints.push(print);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = util::write(dir.path(), "prints.tsv", file.as_bytes());
    let out = run(&["fingerprint", path.to_str().unwrap(), "--grid", "1000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let found = rows(&stdout(&out));
    let index = |id: &str| -> usize {
        let f: usize = id
            .trim_start_matches('f')
            .trim_end_matches('b')
            .parse()
            .unwrap();
        2 * f + usize::from(id.ends_with('b'))
    };
    let shared = |i: usize, j: usize| (0..grid).filter(|&s| prints[i][s] && prints[j][s]).count();
    let (mut same_found, mut different_found) = (0.0, 0.0);
    for row in &found {
        let (i, j) = (index(&row[0]), index(&row[1]));
        assert!(i < j, "{row:?}");
        let m = shared(i, j);
        let union = (0..grid).filter(|&s| prints[i][s] || prints[j][s]).count();
        assert_eq!(row[2], m.to_string(), "{row:?}");
        assert!((number(&row[3]) - m as f64 / union as f64).abs() < 1e-6);
        if j == i + 1 && i % 2 == 0 {
            same_found += 1.0;
        } else {
            different_found += 1.0;
        }
    }
    let total = choose3(grid);
    let chance = |m: usize| (1.0 - (1.0 - choose3(m) / total).powi(1024)).powi(2);
    let (mut same_expected, mut same_var) = (0.0, 0.0);
    let (mut different_expected, mut different_var) = (0.0, 0.0);
    for i in 0..prints.len() {
        for j in i + 1..prints.len() {
            let p = chance(shared(i, j));
            if j == i + 1 && i % 2 == 0 {
                same_expected += p;
                same_var += p * (1.0 - p);
            } else {
                different_expected += p;
                different_var += p * (1.0 - p);
            }
        }
    }
    assert!(
        (same_found - same_expected).abs() <= 6.0 * same_var.sqrt().max(1.0),
        "same finger: {same_found} found, {same_expected} expected"
    );
    assert!(
        (different_found - different_expected).abs() <= 6.0 * different_var.sqrt(),
        "different fingers: {different_found} found, {different_expected} expected (σ {})",
        different_var.sqrt()
    );
    // The chapter's rates, for scale: about 3% false negatives, 0.4% false positives.
    let pairs = (prints.len() * (prints.len() - 1) / 2 - fingers) as f64;
    assert!(same_found / fingers as f64 > 0.9);
    assert!(different_found / pairs < 0.01);
}

#[test]
fn fingerprint_bad_lines_are_named_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = util::write(
        dir.path(),
        "prints.tsv",
        b"p1\t0 1 2 3 4 5\np2\t0 1 2 3 4 9\np3\t1 2 x\np4\t0 1 2 3 4 40\n",
    );
    let out = run(&["fingerprint", path.to_str().unwrap(), "--grid", "20"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("prints.tsv:3: \"p3\": square \"x\""), "{err}");
    assert!(err.contains("prints.tsv:4: \"p4\": square \"40\""), "{err}");
    // p1 and p2 share squares 0–4: C(5, 3) = 10 of the C(20, 3) = 1140 triples.
    assert_eq!(rows(&stdout(&out))[0][..2], ["p1", "p2"]);

    let out = run(&["fingerprint", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--grid"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}

/// ICWS: each sample agrees with probability exactly the weighted Jaccard
/// similarity, so with n = b × r = 10,000 samples the estimate lies within
/// 4.5 binomial σ of `compare`'s weighted_jaccard.
#[test]
fn icws_estimates_weighted_jaccard() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str); 3] = [
        ("a a a b", "a a b b c"),
        (
            "the cat sat on the mat the end",
            "the dog sat on the log the the end",
        ),
        ("x y z z z z", "x x x x y w"),
    ];
    for (k, (a, b)) in cases.iter().enumerate() {
        let pa = util::write(dir.path(), &format!("a{k}.txt"), a.as_bytes());
        let pb = util::write(dir.path(), &format!("b{k}.txt"), b.as_bytes());
        let (pa, pb) = (pa.to_str().unwrap(), pb.to_str().unwrap());
        let common = ["compare", pa, pb, "--shingle", "word", "-k", "1"];
        let plain = ok(&common);
        assert!(!plain.contains("icws"), "{plain}");
        let text = ok(&[&common[..], &["--icws", "-b", "1000", "-r", "10"][..]].concat());
        let table = rows(&text);
        let value = |name: &str| number(&table.iter().find(|r| r[0] == name).unwrap()[1]);
        assert_eq!(table.last().unwrap()[0], "icws_estimate");
        let truth = value("weighted_jaccard");
        let sigma = (truth * (1.0 - truth) / 10_000.0).sqrt();
        let estimate = value("icws_estimate");
        assert!(
            (estimate - truth).abs() <= 4.5 * sigma,
            "{a:?} {b:?}: {estimate} against {truth}"
        );
    }
    let out = run(&["compare", "--bits", "01", "--bits", "10", "--icws"]);
    assert_eq!(out.status.code(), Some(2));
}

/// MMDS 3.8.2: pairs sharing a field, 100 points a field less the square of
/// the edit distance (3.5.5). Bill/William: distance 5, 75 points;
/// 555-9876/555-9877: distance 2, 96; "4 Elm Rd"/"9 Cedar Ln": LCS 2, distance
/// 8 + 10 − 4 = 14, 0 points. b4 shares no field and is never scored.
#[test]
fn score_fields_as_the_text_does() {
    let text = ok(&[
        "score",
        "tests/data/mmds/er-a.csv",
        "tests/data/mmds/er-b.csv",
        "--fields",
        "name,address,phone",
    ]);
    assert_eq!(
        text,
        "a,b,score,name,address,phone\n\
         a1,b1,275,75,100,100\n\
         a2,b2,196,100,0,96\n\
         a3,b3,300,100,100,100\n"
    );
    let high = ok(&[
        "score",
        "tests/data/mmds/er-a.csv",
        "tests/data/mmds/er-b.csv",
        "--fields",
        "name,address,phone",
        "--min-score",
        "200",
        "-q",
    ]);
    assert_eq!(rows(&high).len(), 2);

    let out = run(&[
        "score",
        "tests/data/mmds/er-a.csv",
        "tests/data/mmds/er-b.csv",
        "--fields",
        "name,email",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("email"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}

/// MMDS 3.8.2's tables: with Bill,William in `--equivalents`, the names
/// differ by one edit (1² = 1 point off) instead of 5; the other pairs keep
/// their scores (Robert Smith is spelt alike in both). A line of one word is
/// refused by file and line before any work.
#[test]
fn score_counts_equivalent_words_as_one_edit() {
    let text = ok(&[
        "score",
        "tests/data/mmds/er-a.csv",
        "tests/data/mmds/er-b.csv",
        "--fields",
        "name,address,phone",
        "--equivalents",
        "tests/data/mmds/nicknames.csv",
        "-q",
    ]);
    assert_eq!(
        text,
        "a,b,score,name,address,phone\n\
         a1,b1,299,99,100,100\n\
         a2,b2,196,100,0,96\n\
         a3,b3,300,100,100,100\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "Bill,William
Bob
",
    )
    .unwrap();
    let out = run(&[
        "score",
        "tests/data/mmds/er-a.csv",
        "tests/data/mmds/er-b.csv",
        "--fields",
        "name",
        "--equivalents",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.csv:2: \"Bob\""),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

/// MMDS 3.8.3: x = 45 − 35f, i.e. f = (h1 − h)/(h1 − h0) with h0 = 10, h1 = 45.
#[test]
fn validate_solves_the_texts_formula() {
    let text = ok(&[
        "validate",
        "--perfect",
        "10",
        "--random",
        "45",
        "--observed",
        "10",
        "--observed",
        "27.5",
        "--observed",
        "45",
    ]);
    for row in rows(&text) {
        let (x, f) = (number(&row[0]), number(&row[1]));
        assert!((45.0 - 35.0 * f - x).abs() < 1e-5, "{row:?}");
    }
    // From pairs: h0 is the mean delay of the top score (8 and 12: 10).
    let text = ok(&[
        "validate",
        "tests/data/mmds/er-delays.csv",
        "--measure",
        "delay",
        "--random",
        "45",
    ]);
    let table = rows(&text);
    let fractions: Vec<(i64, f64)> = table
        .iter()
        .map(|r| (r[0].parse().unwrap(), number(&r[3])))
        .collect();
    let expected = [
        (300, 1.0),
        (275, (45.0 - 11.0) / 35.0),
        (196, 0.5),
        (100, 0.0),
    ];
    assert_eq!(fractions.len(), expected.len());
    for ((s, f), (es, ef)) in fractions.into_iter().zip(expected) {
        assert_eq!(s, es);
        assert!((f - ef).abs() < 1e-6, "{s}: {f} against {ef}");
    }
}

#[test]
fn validate_names_bad_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = util::write(
        dir.path(),
        "pairs.csv",
        b"a,b,score,delay\nx,y,300,10\nx,z,high,3\nx,w,200,soon\nu,v,200,27.5\n",
    );
    let out = run(&[
        "validate",
        path.to_str().unwrap(),
        "--measure",
        "delay",
        "--random",
        "45",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("pairs.csv:3:") && err.contains("pairs.csv:4:"),
        "{err}"
    );
    assert_eq!(
        stdout(&out),
        "score,pairs,mean,true_fraction\n300,1,10.000000,1.000000\n200,1,27.500000,0.500000\n"
    );
    let out = run(&[
        "validate",
        "--random",
        "45",
        "--perfect",
        "45",
        "--observed",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// Lecture notes §1.1: Alice and Bob each watched three titles the other did
/// not, so over the 8 titles their 0/1 vectors differ in 6 positions (the
/// notes say 3); their Jaccard similarity is 2/8.
#[test]
fn alice_and_bob_differ_in_six_positions() {
    let text = ok(&["compare", "--bits", "11111000", "--bits", "01001111"]);
    assert_eq!(text, "measure,value\nbits,8\nhamming,6\n");
    let text = ok(&[
        "scan",
        "--input",
        "sets",
        "tests/data/mmds/alice-bob.tsv",
        "-t",
        "0.2",
        "--method",
        "exact",
        "-q",
    ]);
    assert!(text.contains("alice,bob,0.250000,"), "{text}");
}
