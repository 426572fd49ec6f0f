//! `query --top K` and `query --metric containment` rank the whole index by
//! the stored signatures and verify exactly what they keep
//! (docs/SEARCH.md, "Top-k" and "Containment"). Checked against a brute
//! force over generated files of words (`--shingle word -k 1`: a file's set
//! is its distinct words; SplitMix64, fixed seeds): every row is exact, and
//! what is missing is within the stated bound — each document that belongs
//! in an answer is missed with probability ≤ 0.001, so over the few hundred
//! such documents here the expected count of misses is below 1, and the
//! tests allow the count whose Poisson tail beyond it is below 0.01. And the
//! lookups do prune: they verify fewer documents than the index holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::{SplitMix64, code, sim_in, stderr, stdout, write};

type Set = BTreeSet<String>;

/// The count in "…: N <word>" of a summary line (`N candidates`,
/// `N documents verified`).
fn count_before(summary: &str, word: &str) -> u64 {
    let at = summary
        .find(word)
        .unwrap_or_else(|| panic!("{word}: {summary}"));
    let words: Vec<&str> = summary[..at].split_whitespace().collect();
    words[words.len() - 1].parse().expect("a count")
}

fn write_sets(dir: &Path, sub: &str, sets: &[Set]) -> Vec<String> {
    sets.iter()
        .enumerate()
        .map(|(i, set)| {
            let name = format!("{sub}/{i:03}.txt");
            let text = set.iter().cloned().collect::<Vec<_>>().join(" ");
            write(dir, &name, format!("{text}\n").as_bytes());
            name
        })
        .collect()
}

fn index(dir: &Path, sub: &str) {
    let out = sim_in(
        dir,
        &[
            "index",
            sub,
            "--db",
            "i.simfind",
            "--shingle",
            "word",
            "-k",
            "1",
            "-q",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// Rows of a CSV answer, as maps from column to value.
fn rows(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

fn six(x: f64) -> String {
    format!("{x:.6}")
}

/// Families of 12 documents around a base of 60 of 2,000 words, each
/// member with a share (up to 0.8) of the base replaced and up to 40 words
/// added: within a family similarities spread from near 0.1 to 1, across
/// families the words they happen to share give about 0.02.
fn families(seed: u64) -> Vec<Set> {
    let mut rng = SplitMix64(seed);
    let word = |rng: &mut SplitMix64| format!("w{}", rng.next() % 2000);
    let mut sets = Vec::new();
    for _ in 0..10 {
        let base: Vec<String> = (0..60).map(|_| word(&mut rng)).collect();
        for _ in 0..12 {
            let rate = rng.uniform() * 0.8;
            let mut set: Set = base
                .iter()
                .map(|w| {
                    if rng.uniform() < rate {
                        word(&mut rng)
                    } else {
                        w.clone()
                    }
                })
                .collect();
            for _ in 0..rng.next() % 40 {
                set.insert(word(&mut rng));
            }
            sets.push(set);
        }
    }
    sets
}

fn jaccard(a: &Set, b: &Set) -> f64 {
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared) as f64
}

#[test]
fn query_top_is_the_brute_forces_k_best() {
    let dir = tempfile::tempdir().unwrap();
    let sets = families(37);
    let names = write_sets(dir.path(), "docs", &sets);
    index(dir.path(), "docs");
    let (k, floor) = (5, 0.05);
    let queries: Vec<usize> = (0..sets.len()).step_by(6).collect();
    let mut args = vec!["query", "--db", "i.simfind", "-t", "0.05", "--top", "5"];
    args.extend(queries.iter().map(|&q| names[q].as_str()));
    // The K best similarities of the brute force, per query.
    let best: Vec<Vec<String>> = queries
        .iter()
        .map(|&q| {
            let mut sims: Vec<f64> = sets
                .iter()
                .map(|d| jaccard(&sets[q], d))
                .filter(|&s| s >= floor)
                .collect();
            sims.sort_by(|x, y| y.total_cmp(x));
            sims.into_iter().take(k).map(six).collect()
        })
        .collect();
    let by_name: BTreeMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let answered = |out: &std::process::Output| {
        assert_eq!(code(out), 0, "{}", stderr(out));
        let mut got: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for row in rows(&stdout(out)) {
            let (a, b) = (by_name[row["a"].as_str()], by_name[row["b"].as_str()]);
            // Every row is a true pair with its exact similarity.
            assert_eq!(
                row["similarity"],
                six(jaccard(&sets[a], &sets[b])),
                "{row:?}"
            );
            got.entry(a).or_default().push(row["similarity"].clone());
        }
        queries
            .iter()
            .zip(&best)
            .filter(|(q, best)| got.get(q).map_or(&[][..], Vec::as_slice) != best.as_slice())
            .count()
    };
    // The walk: 20 queries × 5 answers, each missed with probability
    // ≤ 0.001 (expected ≤ 0.1 queries differ; P[≥ 2] < 0.005).
    let out = sim_in(dir.path(), &args);
    let differ = answered(&out);
    assert!(differ <= 1, "{differ} of {} queries differ", queries.len());
    // --exact --top: the true K best, every query.
    let walked = count_before(&stderr(&out), " candidates");
    args.push("--exact");
    let out = sim_in(dir.path(), &args);
    assert_eq!(answered(&out), 0);
    // The walk verified under half of what the exact lookup's size bound
    // let through: it stopped once the rest were ruled out at the K-th
    // similarity, where sizes near the query's rule nothing out.
    let exact = count_before(&stderr(&out), " candidates");
    assert!(walked * 2 <= exact, "walk {walked}, exact {exact}");
}

/// Sets of log-uniform sizes in [5, 300] over 3,000 words, and queries
/// made of 40–100 % of an indexed set plus up to 20 % words of their own,
/// so that containments fall on both sides of 0.7 in both directions.
fn sets_and_queries(seed: u64) -> (Vec<Set>, Vec<Set>) {
    let mut rng = SplitMix64(seed);
    let mut sets = Vec::new();
    for _ in 0..150 {
        let size = (5f64.ln() + rng.uniform() * (300f64 / 5.0).ln()).exp() as usize;
        let mut set = Set::new();
        while set.len() < size {
            set.insert(format!("w{}", rng.next() % 3000));
        }
        sets.push(set);
    }
    let mut queries = Vec::new();
    for j in 0..25 {
        let src: Vec<&String> = sets[(rng.next() % 150) as usize].iter().collect();
        let keep = 0.4 + rng.uniform() * 0.6;
        let mut q: Set = src
            .iter()
            .filter(|_| rng.uniform() < keep)
            .map(|w| (*w).clone())
            .collect();
        let noise = (q.len() as f64 * 0.2 * rng.uniform()) as usize;
        for i in 0..noise {
            q.insert(format!("q{j}x{i}"));
        }
        if q.is_empty() {
            q.insert(src[0].clone());
        }
        queries.push(q);
    }
    (sets, queries)
}

#[test]
fn query_containment_is_the_brute_force_of_generated_sets() {
    let dir = tempfile::tempdir().unwrap();
    let (sets, queries) = sets_and_queries(37);
    let names = write_sets(dir.path(), "docs", &sets);
    let qnames = write_sets(dir.path(), "q", &queries);
    index(dir.path(), "docs");
    let t = 0.7;
    let mut args = vec![
        "query",
        "--db",
        "i.simfind",
        "--metric",
        "containment",
        "-t",
        "0.7",
    ];
    args.extend(qnames.iter().map(String::as_str));
    let out = sim_in(dir.path(), &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: BTreeMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let query: BTreeMap<&str, usize> = qnames
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut found = BTreeSet::new();
    for row in rows(&stdout(&out)) {
        let (q, d) = (query[row["a"].as_str()], doc[row["b"].as_str()]);
        let shared = queries[q].intersection(&sets[d]).count();
        // Every row is exact: sizes, overlap, both directions.
        assert_eq!(row["size_a"], queries[q].len().to_string(), "{row:?}");
        assert_eq!(row["size_b"], sets[d].len().to_string(), "{row:?}");
        assert_eq!(row["shared"], shared.to_string(), "{row:?}");
        assert_eq!(row["a_in_b"], six(shared as f64 / queries[q].len() as f64));
        assert_eq!(row["b_in_a"], six(shared as f64 / sets[d].len() as f64));
        assert!(found.insert((q, d)), "{row:?} twice");
    }
    let mut truth = BTreeSet::new();
    for (q, qs) in queries.iter().enumerate() {
        for (d, ds) in sets.iter().enumerate() {
            let shared = qs.intersection(ds).count() as f64;
            if shared / qs.len() as f64 >= t || shared / ds.len() as f64 >= t {
                truth.insert((q, d));
            }
        }
    }
    // Precision 1.0; recall: each true pair missed with probability ≤ 0.001
    // (each query holds its source set's words: ≥ 25 true pairs; with a few
    // hundred, the expected misses are below 0.5 and P[≥ 2] below 0.1 —
    // Poisson at the bound; the fixed seed makes the run one draw).
    assert!(found.is_subset(&truth), "{:?}", found.difference(&truth));
    let missed = truth.difference(&found).count();
    assert!(
        truth.len() >= 25 && missed <= 1 && truth.len() < 500,
        "{missed} of {} missed",
        truth.len()
    );
    // Not every document was re-read for every query.
    let verified = count_before(&stderr(&out), " documents");
    assert!(
        verified < (queries.len() * sets.len()) as u64,
        "{verified}: {}",
        stderr(&out)
    );
}
