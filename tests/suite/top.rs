//! `scan --top K`: each item's K nearest neighbours among the LSH
//! candidates, verified exactly. Checked against a brute force over all
//! pairs of generated sets (SplitMix64, fixed seed): every row is a true
//! pair with its exact similarity, and an item's K best differ from the
//! brute force's only as often as the S-curve lets the banding miss one of
//! them (1 − P(s) = (1 − s^r)^b per neighbour, with a 4σ margin). Plus the
//! refusals, K huge, files, and output independent of --threads.

use std::collections::{BTreeMap, BTreeSet};

use crate::util::{SplitMix64, run_os, sim_in, stderr, stdout, write};

type Set = BTreeSet<String>;

/// Families of sets: a base of 60 tokens, each member with a fraction of
/// them (up to 0.6) replaced by tokens of its own, so that an item's
/// neighbours spread over similarities from near 0 to near 1.
fn generated_sets(seed: u64, families: usize, members: usize) -> Vec<(String, Set)> {
    let mut rng = SplitMix64(seed);
    let mut sets = Vec::new();
    for f in 0..families {
        let base: Vec<String> = (0..60).map(|i| format!("f{f}t{i}")).collect();
        for m in 0..members {
            let rate = rng.uniform() * 0.6;
            let set: Set = base
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    if rng.uniform() < rate {
                        format!("f{f}m{m}x{i}")
                    } else {
                        t.clone()
                    }
                })
                .collect();
            sets.push((format!("s{:04}", sets.len()), set));
        }
    }
    sets
}

fn jaccard(a: &Set, b: &Set) -> f64 {
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared) as f64
}

fn sets_file(sets: &[(String, Set)]) -> String {
    sets.iter()
        .map(|(id, set)| {
            format!(
                "{id}\t{}\n",
                set.iter().cloned().collect::<Vec<_>>().join(" ")
            )
        })
        .collect()
}

/// Each item's neighbours as written: (neighbour, similarity) by rank.
type Ranked = BTreeMap<String, Vec<(String, String)>>;

fn ranked(out: &std::process::Output) -> Ranked {
    assert!(out.status.success(), "{}", stderr(out));
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    assert_eq!(
        reader.headers().unwrap(),
        vec![
            "a",
            "b",
            "rank",
            "similarity",
            "estimate",
            "shingles_a",
            "shingles_b",
            "shared"
        ]
    );
    let mut got = Ranked::new();
    for row in reader.records() {
        let f = row.unwrap();
        let list = got.entry(f[0].to_owned()).or_default();
        list.push((f[1].to_owned(), f[3].to_owned()));
        assert_eq!(f[2], (list.len()).to_string(), "ranks count from 1");
    }
    got
}

/// The brute force's K best of each item with similarity ≥ floor (ties by
/// id), and the similarities of those neighbours.
fn brute_force(
    sets: &[(String, Set)],
    k: usize,
    floor: f64,
) -> (Ranked, BTreeMap<String, Vec<f64>>) {
    let mut want = Ranked::new();
    let mut sims = BTreeMap::new();
    for (id, set) in sets {
        let mut all: Vec<(f64, &String)> = sets
            .iter()
            .filter(|(other, _)| other != id)
            .map(|(other, o)| (jaccard(set, o), other))
            .filter(|(s, _)| *s >= floor)
            .collect();
        all.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
        all.truncate(k);
        if !all.is_empty() {
            want.insert(
                id.clone(),
                all.iter()
                    .map(|(s, o)| ((*o).clone(), format!("{s:.6}")))
                    .collect(),
            );
            sims.insert(id.clone(), all.iter().map(|(s, _)| *s).collect());
        }
    }
    (want, sims)
}

/// The run's floor and banding from its --summary-json.
fn run_facts(path: &std::path::Path) -> (f64, usize, usize, String) {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    (
        json["threshold"]["value"].as_f64().unwrap(),
        json["lsh"]["bands"].as_u64().unwrap() as usize,
        json["lsh"]["rows"].as_u64().unwrap() as usize,
        json["threshold"]["source"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn top_k_of_sets_is_the_brute_force_within_the_s_curve() {
    let sets = generated_sets(37, 40, 7);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sets.tsv", sets_file(&sets).as_bytes());
    let summary = dir.path().join("run.json");
    let k = 3;
    let lsh = run_os(crate::util::args![
        "scan",
        "--input",
        "sets",
        path,
        "--top",
        k.to_string(),
        "--method",
        "lsh",
        "--summary-json",
        summary,
        "-q"
    ]);
    let got = ranked(&lsh);
    let (floor, bands, rows, source) = run_facts(&summary);
    assert_eq!((bands, rows, source.as_str()), (20, 5, "top-floor"));
    // The default floor: where 20 × 5 makes a pair a candidate with p = 0.05.
    assert_eq!(floor, 0.3);
    let (want, sims) = brute_force(&sets, k, floor);
    assert!(want.len() > 200, "{} items with neighbours", want.len());
    // Precision: every row is a true pair at its exact similarity.
    let truth: BTreeMap<&String, &Set> = sets.iter().map(|(id, s)| (id, s)).collect();
    for (a, list) in &got {
        for (b, s) in list {
            let j = jaccard(truth[a], truth[b]);
            assert_eq!(*s, format!("{j:.6}"), "{a} {b}");
            assert!(j >= floor);
        }
    }
    // Recall: an item differs from the brute force only when the banding
    // missed one of its K best; the union bound over them is each item's
    // chance, their sum the expected count.
    let miss = |s: f64| (1.0 - s.powi(rows as i32)).powi(bands as i32);
    let expected: f64 = sims
        .values()
        .map(|list| list.iter().map(|&s| miss(s)).sum::<f64>().min(1.0))
        .sum();
    let differing = want
        .iter()
        .filter(|(id, list)| got.get(*id) != Some(list))
        .count()
        + got.keys().filter(|id| !want.contains_key(*id)).count();
    assert!(
        differing as f64 <= expected + 4.0 * expected.sqrt() + 1.0,
        "{differing} items differ, {expected:.1} expected from the S-curve"
    );
    // The exact method misses nothing: the brute force itself.
    let exact = run_os(crate::util::args![
        "scan",
        "--input",
        "sets",
        path,
        "--top",
        k.to_string(),
        "--method",
        "exact",
        "-t",
        floor.to_string(),
        "-q"
    ]);
    assert_eq!(ranked(&exact), want);
}

#[test]
fn top_k_is_the_same_bytes_on_any_thread_count_and_caps_a_huge_k() {
    let sets = generated_sets(7, 12, 6);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sets.tsv", sets_file(&sets).as_bytes());
    let scan = |threads: &str, k: &str| {
        let out = run_os(crate::util::args![
            "scan",
            "--input",
            "sets",
            path,
            "--top",
            k,
            "--threads",
            threads,
            "-q"
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        out.stdout
    };
    let one = scan("1", "2");
    assert!(one.len() > 100);
    assert_eq!(one, scan("2", "2"));
    // K beyond the collection: every neighbour above the floor (all of
    // them with the exact join), nothing allocated for K.
    let all = ranked(&run_os(crate::util::args![
        "scan",
        "--input",
        "sets",
        path,
        "--top",
        u64::MAX.to_string(),
        "--method",
        "exact",
        "-t",
        "0.3",
        "-q"
    ]));
    let (want, _) = brute_force(&sets, usize::MAX, 0.3);
    assert_eq!(all, want);
}

/// `n` words of 3–9 random letters: two seeds share almost no shingle.
fn words(seed: u64, n: usize) -> Vec<String> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let len = 3 + rng.next() % 7;
            (0..len)
                .map(|_| char::from(b'a' + (rng.next() % 26) as u8))
                .collect()
        })
        .collect()
}

#[test]
fn top_k_of_files_ranks_the_near_copies() {
    let dir = tempfile::tempdir().unwrap();
    let base = words(5, 300);
    write(dir.path(), "d/orig.txt", base.join(" ").as_bytes());
    // Copies with an ever larger tail replaced: ever less similar.
    for (i, keep) in [290, 270, 240].into_iter().enumerate() {
        let mut text = base[..keep].to_vec();
        text.extend(words(100 + i as u64, 300 - keep));
        write(
            dir.path(),
            &format!("d/copy{i}.txt"),
            text.join(" ").as_bytes(),
        );
    }
    write(
        dir.path(),
        "d/other.txt",
        words(99, 300).join(" ").as_bytes(),
    );
    let out = sim_in(dir.path(), &["scan", "d", "--top", "2", "-q"]);
    let got = ranked(&out);
    let names = |id: &str| -> Vec<String> { got[id].iter().map(|(b, _)| b.clone()).collect() };
    assert_eq!(names("d/orig.txt"), ["d/copy0.txt", "d/copy1.txt"]);
    // copy1 shares its first 270 words with orig and copy0 alike, 240
    // with copy2.
    let mut of_copy1 = names("d/copy1.txt");
    of_copy1.sort();
    assert_eq!(of_copy1, ["d/copy0.txt", "d/orig.txt"]);
    assert!(!got.contains_key("d/other.txt"));
    // TSV: the same columns, tab-separated.
    let tsv = sim_in(
        dir.path(),
        &["scan", "d", "--top", "2", "--format", "tsv", "-q"],
    );
    assert!(stdout(&tsv).starts_with("a\tb\trank\tsimilarity\t"));
    // Without --top the header is today's.
    let plain = sim_in(dir.path(), &["scan", "d", "-q"]);
    assert!(stdout(&plain).starts_with("a,b,similarity,"));
}

#[test]
fn top_refuses_zero_groups_and_the_kinds_it_cannot_rank() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "d/a.txt", b"one two three four five six");
    write(dir.path(), "v.csv", b"id,x,y\na,1,0\nb,0,1\n");
    for (args, says) in [
        (&["scan", "d", "--top", "0"][..], "--top"),
        (
            &["scan", "d", "--top", "2", "--format", "clusters"],
            "not groups",
        ),
        (
            &["scan", "d", "--top", "2", "--list-removable"],
            "not groups",
        ),
        (&["scan", "d", "--top", "2", "--format", "jsonl"], "jsonl"),
        (
            &["scan", "d", "--top", "2", "--plan", "p.jsonl"],
            "--plan does not apply",
        ),
        (
            &["scan", "d", "--top", "2", "--sort", "similarity"],
            "--sort",
        ),
        (
            &["scan", "d", "--top", "2", "--metric", "containment"],
            "--metric containment",
        ),
        // Points are ranked (tests/suite/families/top.rs); ICWS is not.
        (
            &["scan", "d", "--top", "2", "--sketch", "icws"],
            "--top does not apply to --sketch icws",
        ),
    ] {
        let out = sim_in(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}
