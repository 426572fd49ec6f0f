//! `scan --model fellegi-sunter` through the binary: EM recovers the m and u
//! of records generated with known ones, the model's recall and precision
//! on the generated benchmark (`tests/records-data`), `explain
//! --load-model` of a pair, and the combinations refused before any work.

use std::collections::{HashMap, HashSet};
use std::process::Output;

use serde_json::Value;

use crate::util::*;

/// The `(a, b)` of every row of a pairs CSV (with any columns after).
fn pair_ids(bytes: &[u8]) -> Vec<(String, String)> {
    csv::Reader::from_reader(bytes)
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), r[1].to_owned())
        })
        .collect()
}

/// The pairs of a pairs CSV, each `(min, max)` of its ids.
fn found(out: &Output) -> HashSet<(String, String)> {
    pair_ids(&out.stdout)
        .into_iter()
        .map(|(a, b)| (a.clone().min(b.clone()), a.max(b)))
        .collect()
}

fn truth(path: &str) -> HashSet<(String, String)> {
    csv::Reader::from_path(root().join(path))
        .unwrap()
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[0].to_owned().min(r[1].to_owned()),
                r[0].to_owned().max(r[1].to_owned()),
            )
        })
        .collect()
}

/// Recall, precision and F1 of `found` against `truth`.
fn quality(
    found: &HashSet<(String, String)>,
    truth: &HashSet<(String, String)>,
) -> (f64, f64, f64) {
    let right = found.intersection(truth).count() as f64;
    let (recall, precision) = (
        right / truth.len() as f64,
        right / found.len().max(1) as f64,
    );
    (
        recall,
        precision,
        2.0 * recall * precision / (recall + precision),
    )
}

/// The `model` object of a run's `--summary-json`.
fn model_of(summary: &std::path::Path) -> Value {
    let doc: Value = serde_json::from_slice(&std::fs::read(summary).unwrap()).unwrap();
    doc["model"].clone()
}

/// A field's level's (m, u) in a model object.
fn m_u(model: &Value, field: &str, level: &str) -> (f64, f64) {
    let field = model["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == field)
        .unwrap_or_else(|| panic!("no field {field}: {model}"));
    let level = field["levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["level"] == level)
        .unwrap();
    (level["m"].as_f64().unwrap(), level["u"].as_f64().unwrap())
}

/// A random word of 8 letters: two of them share almost no character
/// 2-shingles, are never one edit apart and almost never Jaro–Winkler
/// close, so a disagreement is the else level.
fn word(rng: &mut SplitMix64) -> String {
    (0..8)
        .map(|_| (b'a' + (rng.next() % 26) as u8) as char)
        .collect()
}

/// Records with known m and u: four fields, each drawn from a pool of K
/// words (u of the exact level ≈ 1/K, from 1/20, a city's, to 1/3000); half the people get a copy whose
/// field is kept (exact) with probability 0.85, gets one substituted letter
/// (one edit) with 0.08, or another word of the pool (else) with 0.07. EM's
/// m and the random pairs' u are compared with what the generated data
/// holds: m with the share of the true pairs at each level (counted from
/// what was done to them), u with the share of all pairs of records that
/// agree (from the values' counts). Margins: 4 standard errors of a share
/// over the true pairs, sqrt(m(1 − m)/pairs) (what a count over labelled
/// pairs would vary by), plus 0.01 for the matches that are no candidate;
/// for u, 4 standard errors over the 10⁶ random pairs plus a tenth of u
/// (random pairs share records, so they are not independent draws).
#[test]
fn em_recovers_known_m_and_u_of_generated_records() {
    const POOLS: [usize; 4] = [20, 300, 1000, 3000];
    const NAMES: [&str; 4] = ["alpha", "beta", "gamma", "delta"];
    let mut rng = SplitMix64(3900);
    let pools: Vec<Vec<String>> = POOLS
        .iter()
        .map(|&k| {
            let mut pool = HashSet::new();
            while pool.len() < k {
                pool.insert(word(&mut rng));
            }
            let mut pool: Vec<String> = pool.into_iter().collect();
            pool.sort();
            pool
        })
        .collect();
    let people = 3000;
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    // Per field, the true pairs at exact, one edit, else.
    let mut levels = [[0u64; 3]; 4];
    let mut true_pairs = 0u64;
    // The true pairs with no field at else: the model's clear matches.
    let mut clean = 0u64;
    for p in 0..people {
        let original: Vec<String> = pools
            .iter()
            .map(|pool| pool[(rng.next() % pool.len() as u64) as usize].clone())
            .collect();
        rows.push((format!("p{p}"), original.clone()));
        if rng.next().is_multiple_of(2) {
            continue;
        }
        true_pairs += 1;
        let mut any_else = false;
        let copy: Vec<String> = original
            .iter()
            .enumerate()
            .map(|(f, value)| {
                let x = rng.uniform();
                if x <= 0.85 {
                    levels[f][0] += 1;
                    value.clone()
                } else if x <= 0.93 {
                    levels[f][1] += 1;
                    let mut chars: Vec<char> = value.chars().collect();
                    let at = (rng.next() % 8) as usize;
                    let letter = (b'a' + (rng.next() % 25) as u8) as char;
                    chars[at] = if letter >= chars[at] {
                        (letter as u8 + 1) as char
                    } else {
                        letter
                    };
                    chars.into_iter().collect()
                } else {
                    levels[f][2] += 1;
                    any_else = true;
                    let pool = &pools[f];
                    loop {
                        let other = &pool[(rng.next() % pool.len() as u64) as usize];
                        if other != value {
                            break other.clone();
                        }
                    }
                }
            })
            .collect();
        clean += u64::from(!any_else);
        rows.push((format!("c{p}"), copy));
    }
    let mut csv = format!("id,{}\n", NAMES.join(","));
    for (id, fields) in &rows {
        csv += &format!("{id},{}\n", fields.join(","));
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "people.csv", csv.as_bytes());
    let out = sim_in(
        dir.path(),
        &[
            "scan",
            "--input",
            "csv",
            "people.csv",
            "--model",
            "fellegi-sunter",
            "--summary-json",
            "s.json",
            "-o",
            "pairs.csv",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let model = model_of(&dir.path().join("s.json"));
    assert_eq!(model["random_pairs"], 1_000_000, "{model}");
    let n = rows.len() as f64;
    let all_pairs = n * (n - 1.0) / 2.0;
    for (f, name) in NAMES.iter().enumerate() {
        // m: the true pairs' shares.
        for (l, level) in ["exact", "one edit", "else"].iter().enumerate() {
            let truth = levels[f][l] as f64 / true_pairs as f64;
            let (m, _) = m_u(&model, name, level);
            let margin = 4.0 * (truth * (1.0 - truth) / true_pairs as f64).sqrt() + 0.01;
            assert!(
                (m - truth).abs() <= margin,
                "{name} {level}: m {m}, truth {truth} ± {margin}"
            );
        }
        // u of the exact level: the pairs of records that agree.
        let mut counts: HashMap<&str, f64> = HashMap::new();
        for (_, fields) in &rows {
            *counts.entry(&fields[f]).or_default() += 1.0;
        }
        let agree: f64 = counts.values().map(|c| c * (c - 1.0) / 2.0).sum();
        let truth = agree / all_pairs;
        let (_, u) = m_u(&model, name, "exact");
        let margin = 4.0 * (truth * (1.0 - truth) / 1e6).sqrt() + 0.1 * truth;
        assert!(
            (u - truth).abs() <= margin,
            "{name}: u {u}, truth {truth} ± {margin}"
        );
        assert!(
            (truth - 1.0 / POOLS[f] as f64).abs() < 0.5 / POOLS[f] as f64,
            "{name}: {truth}"
        );
    }
    // λ: the true pairs among all pairs, within the same 4 standard errors.
    let lambda = model["lambda"].as_f64().unwrap();
    let truth = true_pairs as f64 / all_pairs;
    assert!(
        (lambda - truth).abs() <= 4.0 * (truth / all_pairs).sqrt() + 0.02 * truth,
        "λ {lambda} vs {truth}"
    );
    // The pairs it reports are copies: all those with no field at else, and
    // most others (one field at else weighs about −3.7, the three others'
    // agreement 18 or more over a prior of −12.7).
    let pairs = pair_ids(&std::fs::read(dir.path().join("pairs.csv")).unwrap());
    let right = pairs.iter().filter(|(a, b)| a[1..] == b[1..]).count() as f64;
    assert!(
        right / pairs.len() as f64 >= 0.98,
        "{right} of {}",
        pairs.len()
    );
    assert!(
        right >= clean as f64 * 0.99,
        "{right} of {clean} clean, {true_pairs} true pairs"
    );
}

/// The model on the generated benchmark at its defaults (-t 0.9, the
/// bands' candidates), beside `--per-field`'s weighted Jaccard (F1 0.976).
/// Measured when written (docs/RECORDS.md): dedupe recall 0.9931, precision
/// 1.0000, F1 0.9966; linkage 0.9975, 0.9992, F1 0.9984. The floors, about
/// 0.01 below, fail on a change of the model or its defaults, not on chance:
/// the run is deterministic (fixed seeds).
#[test]
fn model_f1_on_the_generated_benchmark() {
    let out = run(&[
        "scan",
        "--input",
        "csv",
        "tests/records-data/people.csv",
        "--model",
        "fellegi-sunter",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (recall, precision, f1) = quality(&found(&out), &truth("tests/records-data/truth.csv"));
    eprintln!("dedupe: recall {recall:.4} precision {precision:.4} F1 {f1:.4}");
    assert!(
        f1 >= 0.985,
        "dedupe: recall {recall} precision {precision} F1 {f1}"
    );
    let err = stderr(&out);
    assert!(err.contains("model fellegi-sunter: λ"), "{err}");
    assert!(err.contains("jaro-winkler ≥ 0.88"), "{err}");

    let out = run(&[
        "scan",
        "--input",
        "csv",
        "--model",
        "fellegi-sunter",
        "--link",
        "tests/records-data/link_a.csv",
        "tests/records-data/link_b.csv",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (recall, precision, f1) =
        quality(&found(&out), &truth("tests/records-data/link_truth.csv"));
    eprintln!("link: recall {recall:.4} precision {precision:.4} F1 {f1:.4}");
    assert!(
        f1 >= 0.985,
        "link: recall {recall} precision {precision} F1 {f1}"
    );
    // Linkage pairs a record of each input only.
    let a: HashSet<String> = std::fs::read_to_string(root().join("tests/records-data/link_a.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_owned())
        .collect();
    assert!(pair_ids(&out.stdout).iter().all(|(x, _)| a.contains(x)));
}

/// The output's columns: the probability is the similarity, then the total
/// weight and each field's; the probability is the logistic of the total
/// weight, which is the sum of the fields' and the prior; JSON Lines says
/// the same; the output does not depend on the number of threads.
#[test]
fn pairs_carry_probability_and_weights_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let people = root().join("tests/records-data/people.csv");
    let people = people.to_str().unwrap();
    let base = [
        "scan",
        "--input",
        "csv",
        people,
        "--model",
        "fellegi-sunter",
        "-t",
        "0.5",
        "-q",
    ];
    let one = sim_in(
        dir.path(),
        &[&base[..], &["-j", "1", "--summary-json", "s.json"]].concat(),
    );
    let two = sim_in(dir.path(), &[&base[..], &["-j", "2"]].concat());
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    assert!(one.stdout == two.stdout, "-j 1 and -j 2 differ");
    let prior = model_of(&dir.path().join("s.json"))["prior_weight"]
        .as_f64()
        .unwrap();
    let mut reader = csv::Reader::from_reader(&one.stdout[..]);
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        header[7..],
        [
            "match_weight",
            "weight_first",
            "weight_last",
            "weight_street",
            "weight_city",
            "weight_zip"
        ]
    );
    let mut rows = 0;
    for row in reader.records() {
        let row = row.unwrap();
        let p: f64 = row[2].parse().unwrap();
        let total: f64 = row[7].parse().unwrap();
        let fields: f64 = (8..13)
            .filter(|&i| !row[i].is_empty())
            .map(|i| row[i].parse::<f64>().unwrap())
            .sum();
        assert!(p >= 0.5, "{row:?}");
        assert!((total - prior - fields).abs() < 1e-4, "{row:?}");
        assert!((p - 1.0 / (1.0 + (-total).exp2())).abs() < 1e-5, "{row:?}");
        rows += 1;
    }
    assert!(rows > 2000, "{rows}");
    let json = sim_in(dir.path(), &[&base[..], &["--format", "jsonl"]].concat());
    let first: Value =
        serde_json::from_slice(json.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    let zip = &first["weights"]["zip"];
    assert!(
        first["match_weight"].is_number() && (zip.is_number() || zip.is_null()),
        "{first}"
    );
    assert!(
        first["weights"]["street"].is_number() && first.get("fields").is_none(),
        "{first}"
    );
}

/// `explain --load-model` shows each field's level, m, u and weight, and
/// agrees with the scan's row for the pair; a model of other fields is
/// refused naming both.
#[test]
fn explain_shows_each_fields_weight_under_a_saved_model() {
    let dir = tempfile::tempdir().unwrap();
    let people = root().join("tests/records-data/people.csv");
    let people = people.to_str().unwrap();
    let scan = sim_in(
        dir.path(),
        &[
            "scan",
            "--input",
            "csv",
            people,
            "--model",
            "fellegi-sunter",
            "--save-model",
            "m.json",
            "-q",
        ],
    );
    assert_eq!(code(&scan), 0, "{}", stderr(&scan));
    let mut reader = csv::Reader::from_reader(&scan.stdout[..]);
    let row = reader.records().next().unwrap().unwrap();
    let (a, b, total) = (
        row[0].to_owned(),
        row[1].to_owned(),
        row[7].parse::<f64>().unwrap(),
    );
    let out = sim_in(
        dir.path(),
        &[
            "explain",
            "--input",
            "csv",
            people,
            &a,
            &b,
            "--load-model",
            "m.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        (doc["match_weight"].as_f64().unwrap() - total).abs() < 1e-5,
        "{doc} vs {total}"
    );
    let fields = doc["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 5);
    for f in fields {
        assert!(f["level"].is_string() && f["weight"].is_number(), "{f}");
    }
    let text = sim_in(
        dir.path(),
        &[
            "explain",
            "--input",
            "csv",
            people,
            &a,
            &b,
            "--load-model",
            "m.json",
        ],
    );
    let text = stdout(&text);
    assert!(
        text.contains("match probability") && text.contains("weight"),
        "{text}"
    );
    for name in ["first", "last", "street", "city", "zip"] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name}: {text}");
    }
    // A model of other fields.
    write(dir.path(), "two.csv", b"id,x,y\n1,a,b\n2,a,c\n");
    let out = sim_in(
        dir.path(),
        &[
            "explain",
            "--input",
            "csv",
            "two.csv",
            "1",
            "2",
            "--load-model",
            "m.json",
        ],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the model m.json was trained on first,last"),
        "{}",
        stderr(&out)
    );
    write(
        dir.path(),
        "bad.json",
        b"{\"name\": \"fellegi-sunter\", \"lambda\": 2}",
    );
    let out = sim_in(
        dir.path(),
        &[
            "explain",
            "--input",
            "csv",
            people,
            &a,
            &b,
            "--load-model",
            "bad.json",
        ],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("bad.json: not a model"),
        "{}",
        stderr(&out)
    );
}

/// Combinations that make no sense are refused before any work, naming
/// the flags.
#[test]
fn bad_combinations_are_refused_naming_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "r.csv", b"id,name\n1,ann\n2,anne\n");
    write(dir.path(), "s.tsv", b"a\tx y\n");
    let refused = |args: &[&str], words: &[&str]| {
        let out = sim_in(dir.path(), args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        for w in words {
            assert!(
                stderr(&out).contains(w),
                "{args:?}: {w:?} not in {}",
                stderr(&out)
            );
        }
        assert!(out.stdout.is_empty());
    };
    let fs = [
        "scan",
        "--input",
        "csv",
        "r.csv",
        "--model",
        "fellegi-sunter",
    ];
    refused(
        &[&fs[..], &["--weights", "1"]].concat(),
        &["--weights", "--model fellegi-sunter"],
    );
    refused(
        &[&fs[..], &["--top", "3"]].concat(),
        &["--top", "--model fellegi-sunter"],
    );
    refused(
        &[&fs[..], &["--verify", "signature"]].concat(),
        &["--verify signature"],
    );
    refused(
        &[
            "scan",
            "--input",
            "sets",
            "s.tsv",
            "--model",
            "fellegi-sunter",
        ],
        &["--model fellegi-sunter", "--input sets"],
    );
    refused(
        &["scan", "--input", "csv", "r.csv", "--save-model", "m.json"],
        &["--save-model", "--model fellegi-sunter"],
    );
    refused(
        &["explain", "a", "b", "--load-model", "m.json"],
        &["--load-model", "--input"],
    );
    refused(
        &[
            "sign",
            "--input",
            "csv",
            "r.csv",
            "--model",
            "fellegi-sunter",
            "--out",
            "out",
        ],
        &["--model", "apply to scan"],
    );
    assert!(!dir.path().join("m.json").exists());
}
