//! `scan --metric containment`: every pair one inside the other at ≥ t, by
//! the exact join (against a brute force over generated sets, and against
//! `compare` on testdata and debian-docs) and by LSH Ensemble (its recall
//! floor, nothing false); the refusals name what to do instead.

use super::*;

/// `(a, b) → (a_in_b, b_in_a, contained)` of a containment scan's CSV.
type Rows = BTreeMap<(String, String), (String, String, String)>;

fn scan_rows(out: &std::process::Output) -> Rows {
    assert!(out.status.success(), "{}", stderr(out));
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    assert_eq!(
        reader.headers().unwrap(),
        vec![
            "a",
            "b",
            "a_in_b",
            "b_in_a",
            "contained",
            "size_a",
            "size_b",
            "shared"
        ]
    );
    reader
        .records()
        .map(|row| {
            let f = row.unwrap();
            (
                (f[0].to_owned(), f[1].to_owned()),
                (f[2].to_owned(), f[3].to_owned(), f[4].to_owned()),
            )
        })
        .collect()
}

#[test]
fn scan_finds_the_snippet_inside_its_host_and_claims_no_reverse() {
    let dir = tempfile::tempdir().unwrap();
    let (host, snippet) = lighthouse();
    write(dir.path(), "d/host.txt", host.as_bytes());
    write(dir.path(), "d/snippet.txt", snippet.as_bytes());
    let bakery = std::fs::read(root().join("testdata/news/bakery.txt")).unwrap();
    write(dir.path(), "d/bakery.txt", &bakery);
    write(dir.path(), "d/empty.txt", b"");
    let out = sim_in(
        dir.path(),
        &["scan", "d", "--metric", "containment", "-t", "0.9"],
    );
    let rows = scan_rows(&out);
    let keys: Vec<_> = rows.keys().cloned().collect();
    assert_eq!(keys, [("d/host.txt".into(), "d/snippet.txt".into())]);
    let (a_in_b, b_in_a, contained) = &rows[&keys[0]];
    assert_eq!(contained, "b", "the snippet (b) is inside the host (a)");
    assert_eq!(b_in_a, "1.000000");
    assert!(a_in_b.parse::<f64>().unwrap() < 0.9, "{a_in_b}");
    assert!(
        stderr(&out).contains("1 pair with containment ≥ 0.900"),
        "{}",
        stderr(&out)
    );
    // The same pair in TSV and JSON Lines.
    let tsv = sim_in(
        dir.path(),
        &[
            "scan",
            "d",
            "--metric",
            "containment",
            "-t",
            "0.9",
            "--format",
            "tsv",
            "-q",
        ],
    );
    assert_eq!(
        stdout(&tsv),
        stdout(&out).replace(',', "\t"),
        "TSV is the CSV tab-separated"
    );
    let jsonl = sim_in(
        dir.path(),
        &[
            "scan",
            "d",
            "--metric",
            "containment",
            "-t",
            "0.9",
            "--format",
            "jsonl",
            "-q",
        ],
    );
    let line: serde_json::Value = serde_json::from_str(stdout(&jsonl).trim()).unwrap();
    assert_eq!(line["metric"], "containment");
    assert_eq!(line["contained"], "b");
    assert_eq!(line["b_in_a"], 1.0);
    // --exit-code: 3 when nothing is contained at the threshold.
    let none = sim_in(
        dir.path(),
        &[
            "scan",
            "d/bakery.txt",
            "d/host.txt",
            "--metric",
            "containment",
            "-t",
            "0.9",
            "--exit-code",
            "-q",
        ],
    );
    assert_eq!(code(&none), 3, "{}", stderr(&none));
}

/// `n` sets of tokens from a vocabulary of `vocab`: hosts, pieces cut from
/// them with a few foreign tokens, and empty sets, so that containments
/// fall on both sides of every threshold tried.
fn generated_sets(seed: u64, n: usize, vocab: u64) -> Vec<(String, BTreeSet<String>)> {
    let mut rng = SplitMix64(seed);
    let mut sets = Vec::new();
    while sets.len() < n {
        let len = 1 + rng.next() % 40;
        let host: Vec<String> = (0..len)
            .map(|_| format!("w{}", rng.next() % vocab))
            .collect();
        let cut = 1 + (rng.next() % len) as usize;
        let start = (rng.next() % (len - cut as u64 + 1)) as usize;
        let mut piece: BTreeSet<String> = host[start..start + cut].iter().cloned().collect();
        for _ in 0..rng.next() % 3 {
            piece.insert(format!("w{}", rng.next() % vocab));
        }
        let i = sets.len();
        sets.push((format!("h{i}"), host.into_iter().collect()));
        sets.push((format!("p{i}"), piece));
        if i % 25 == 0 {
            sets.push((format!("e{i}"), BTreeSet::new()));
        }
    }
    sets
}

fn containment(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    a.intersection(b).count() as f64 / a.len() as f64
}

/// Every pair of the brute force over all pairs, at several thresholds, is
/// exactly what the exact join reports (precision and recall 1.0), with
/// both directions' values and the contained side.
#[test]
fn scan_of_sets_equals_the_brute_force() {
    let sets = generated_sets(2016, 300, 300);
    let mut file = String::new();
    for (id, set) in &sets {
        file += &format!(
            "{id}\t{}\n",
            set.iter().cloned().collect::<Vec<_>>().join(" ")
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sets.tsv", file.as_bytes());
    for t in [0.3, 0.5, 0.8, 1.0] {
        let mut want = Rows::new();
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                let (a, b) = (&sets[i].1, &sets[j].1);
                let (ab, ba) = (containment(a, b), containment(b, a));
                if ab >= t || ba >= t {
                    let contained = match (ab >= t, ba >= t) {
                        (true, true) => "both",
                        (true, false) => "a",
                        _ => "b",
                    };
                    want.insert(
                        (sets[i].0.clone(), sets[j].0.clone()),
                        (format!("{ab:.6}"), format!("{ba:.6}"), contained.into()),
                    );
                }
            }
        }
        assert!(want.len() > 20, "t = {t}: {} pairs", want.len());
        let out = run_os(crate::util::args![
            "scan",
            "--input",
            "sets",
            path,
            "--metric",
            "containment",
            "-t",
            t.to_string(),
            "-q"
        ]);
        let got = scan_rows(&out);
        assert_eq!(got.len(), want.len(), "t = {t}");
        assert_eq!(got, want, "t = {t}");
        assert!(
            !got.keys()
                .any(|(a, b)| a.starts_with('e') || b.starts_with('e')),
            "an empty set is never in a pair"
        );
    }
}

/// `--method lsh` (LSH Ensemble): every pair it reports is a brute-force
/// pair with the brute force's values (precision 1.0), and it finds at
/// least the recall floor less a 4σ binomial margin of them, at a fixed
/// seed. Hosts of 20–400 tokens and pieces of them of varied sizes put the
/// pairs in many size partitions.
#[test]
fn scan_by_lsh_ensemble_keeps_the_recall_floor_and_reports_nothing_false() {
    let mut rng = SplitMix64(37);
    let mut file = String::new();
    let mut next = 0u64;
    for i in 0..250 {
        let len = 20 + rng.next() % 380;
        let host: Vec<u64> = (next..next + len).collect();
        next += len;
        let cut = 5 + rng.next() % (len / 2);
        let start = rng.next() % (len - cut);
        let mut piece: Vec<String> = host[start as usize..(start + cut) as usize]
            .iter()
            .map(|x| format!("w{x}"))
            .collect();
        for k in 0..rng.next() % (cut / 4 + 1) {
            piece.push(format!("f{i}x{k}"));
        }
        let host: Vec<String> = host.iter().map(|x| format!("w{x}")).collect();
        file += &format!("h{i}\t{}\np{i}\t{}\n", host.join(" "), piece.join(" "));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sets.tsv", file.as_bytes());
    let scan = |method: &str| {
        scan_rows(&run_os(crate::util::args![
            "scan",
            "--input",
            "sets",
            path,
            "--metric",
            "containment",
            "-t",
            "0.7",
            "--method",
            method,
            "--min-recall",
            "0.9",
            "-q"
        ]))
    };
    let exact = scan("exact");
    let lsh = scan("lsh");
    assert!(exact.len() >= 250, "{}", exact.len());
    for (pair, values) in &lsh {
        assert_eq!(exact.get(pair), Some(values), "{pair:?} is a true pair");
    }
    let n = exact.len() as f64;
    let recall = lsh.len() as f64 / n;
    assert!(
        recall >= 0.9 - 4.0 * (0.9 * 0.1 / n).sqrt(),
        "recall {recall} of {n} pairs"
    );
}

/// On testdata (binary files included, so both sides read the same bytes),
/// the scan's pairs are exactly those `compare --metric containment` finds
/// ≥ t among all pairs of files, with the same values.
#[test]
fn scan_of_testdata_equals_compare_on_every_pair() {
    let mut files: Vec<String> = Vec::new();
    for sub in ["misc", "news", "web"] {
        let mut names: Vec<String> = std::fs::read_dir(root().join("testdata").join(sub))
            .unwrap()
            .map(|e| {
                format!(
                    "testdata/{sub}/{}",
                    e.unwrap().file_name().to_string_lossy()
                )
            })
            .collect();
        names.sort();
        files.extend(names);
    }
    let t = 0.6;
    let out = run(&[
        "scan",
        "testdata",
        "--metric",
        "containment",
        "-t",
        "0.6",
        "--binary",
        "-q",
    ]);
    let got = scan_rows(&out);
    let mut want = Rows::new();
    for i in 0..files.len() {
        for j in i + 1..files.len() {
            let m = measures(&run(&[
                "compare",
                &files[i],
                &files[j],
                "--metric",
                "containment",
                "-q",
            ]));
            let ab: f64 = m["containment_a_in_b"].parse().unwrap();
            let ba: f64 = m["containment_b_in_a"].parse().unwrap();
            if ab >= t || ba >= t {
                let contained = match (ab >= t, ba >= t) {
                    (true, true) => "both",
                    (true, false) => "a",
                    _ => "b",
                };
                let (a, b) = (files[i].clone(), files[j].clone());
                let key = if got.contains_key(&(b.clone(), a.clone())) {
                    // The walk's order, not this sort's, decides a and b.
                    let flipped = match contained {
                        "a" => "b",
                        "b" => "a",
                        other => other,
                    };
                    want.insert(
                        (b, a),
                        (
                            m["containment_b_in_a"].clone(),
                            m["containment_a_in_b"].clone(),
                            flipped.into(),
                        ),
                    );
                    continue;
                } else {
                    (a, b)
                };
                want.insert(
                    key,
                    (
                        m["containment_a_in_b"].clone(),
                        m["containment_b_in_a"].clone(),
                        contained.into(),
                    ),
                );
            }
        }
    }
    assert!(want.len() >= 3, "{want:?}");
    assert_eq!(got, want);
}

#[test]
fn scan_of_jsonl_texts_finds_a_quoted_record() {
    let dir = tempfile::tempdir().unwrap();
    let (host, snippet) = lighthouse();
    let record =
        |id: &str, text: &str| serde_json::json!({ "id": id, "text": text }).to_string() + "\n";
    let lines = record("article", &host) + &record("quote", &snippet) + &record("blank", "");
    write(dir.path(), "docs.jsonl", lines.as_bytes());
    let out = sim_in(
        dir.path(),
        &[
            "scan",
            "--input",
            "jsonl",
            "docs.jsonl",
            "--metric",
            "containment",
            "-t",
            "0.95",
            "-q",
        ],
    );
    let rows = scan_rows(&out);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let ((a, b), (_, b_in_a, contained)) = rows.into_iter().next().unwrap();
    assert_eq!((a.as_str(), b.as_str()), ("article", "quote"));
    assert_eq!((b_in_a.as_str(), contained.as_str()), ("1.000000", "b"));
}

/// Each refusal of a containment scan, exit 2, naming what to do.
#[test]
fn scan_refusals_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "v.csv", b"id,x,y\na,1,2\nb,2,1\n");
    write(dir.path(), "bits.csv", b"id,bits\na,0101\nb,0111\n");
    write(dir.path(), "d/a.txt", b"some text to shingle");
    let refused = |args: &[&str], words: &str| {
        let out = sim_in(dir.path(), args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(words), "{args:?}: {}", stderr(&out));
    };
    refused(
        &[
            "scan",
            "--input",
            "vectors",
            "v.csv",
            "--metric",
            "containment",
            "-t",
            "0.5",
        ],
        "--metric containment compares sets of shingles or tokens: it does not apply to --input vectors",
    );
    refused(
        &[
            "scan",
            "--input",
            "bits",
            "bits.csv",
            "--metric",
            "containment",
            "-t",
            "0.5",
        ],
        "it does not apply to --input bits",
    );
    refused(
        &["scan", "d", "--metric", "containment"],
        "--metric containment needs -t T",
    );
    refused(
        &[
            "scan",
            "d",
            "--metric",
            "containment",
            "-t",
            "0.5",
            "--method",
            "lsh",
            "-b",
            "10",
        ],
        "leave out --bands and --rows",
    );
    refused(
        &[
            "scan",
            "d",
            "--metric",
            "containment",
            "-t",
            "0.5",
            "--db",
            "x.db",
        ],
        "drop --db",
    );
    refused(
        &[
            "scan",
            "d",
            "--metric",
            "containment",
            "-t",
            "0.5",
            "--verify",
            "signature",
        ],
        "containment is verified exactly",
    );
    refused(
        &["scan", "d", "--metric", "containment", "-t", "1.5"],
        "--threshold must be in (0, 1]",
    );
    refused(
        &[
            "scan",
            "d",
            "--metric",
            "containment",
            "-t",
            "0.5",
            "--format",
            "clusters",
        ],
        "--format clusters|html does not apply to --metric containment",
    );
    refused(
        &["tune", "--metric", "containment", "-t", "0.5"],
        "which bands nothing",
    );
    refused(
        &["curve", "--metric", "containment", "-b", "20", "-r", "5"],
        "which bands nothing",
    );
    assert!(
        !Path::new(&dir.path().join("x.db")).exists(),
        "nothing made"
    );
}

/// On the shared debian-docs corpus: containment is never below Jaccard
/// (`|A ∩ B| / min(|A|, |B|) ≥ |A ∩ B| / |A ∪ B|`), so every pair of its
/// Jaccard truth at ≥ 0.9 is a containment pair at 0.9; and a sample of the
/// reported pairs carries the values `compare` computes for them.
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn scan_of_debian_docs_holds_every_jaccard_pair_and_agrees_with_compare() {
    let files = crate::util::shared_data("debian-docs").join("files");
    let prefix = format!("{}/", files.display());
    let out = run(&[
        "scan",
        files.to_str().unwrap(),
        "--metric",
        "containment",
        "-t",
        "0.9",
        "-q",
    ]);
    let rows = scan_rows(&out);
    assert!(rows.len() > 1000, "{} pairs", rows.len());
    let truth = crate::util::shared_data("debian-docs").join("truth_char5.csv");
    let mut reader = csv::Reader::from_path(truth).unwrap();
    let mut checked = 0;
    for row in reader.records() {
        let row = row.unwrap();
        if row[2].parse::<f64>().unwrap() < 0.9 {
            continue;
        }
        let (a, b) = (
            format!("{prefix}{}", &row[0]),
            format!("{prefix}{}", &row[1]),
        );
        assert!(
            rows.contains_key(&(a.clone(), b.clone())) || rows.contains_key(&(b, a)),
            "the Jaccard pair {} {} at {}",
            &row[0],
            &row[1],
            &row[2]
        );
        checked += 1;
    }
    assert!(checked > 500, "{checked} truth pairs");
    for ((a, b), (a_in_b, b_in_a, _)) in rows.iter().step_by(rows.len() / 25) {
        let m = measures(&run(&["compare", a, b, "--metric", "containment", "-q"]));
        assert_eq!(
            (&m["containment_a_in_b"], &m["containment_b_in_a"]),
            (a_in_b, b_in_a),
            "{a} {b}"
        );
    }
}
