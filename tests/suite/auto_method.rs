//! `--method auto` after the exact join's sample (#14 item 9): a join its
//! sampled probes show far dearer than LSH is given up for LSH over its sets
//! in memory; the way out finds a subset of the exact pairs, with the same
//! similarities, and every pair well above the threshold: exactly what
//! `--method lsh` reports.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::*;

/// `files` tiny files of 25–130 random words drawn from a vocabulary of
/// 20,000 random-letter words (the shape of `bench/gen_small_files.py`):
/// unrelated files share the common 5-character windows (spaces and short
/// words), so at a low threshold every probe of the exact join meets most
/// earlier files. Every 50th file is a near-copy of the one before (two
/// words changed): the pairs to find.
fn tiny_files(dir: &Path, files: usize) {
    let mut rng = XorShift64(0x9E37_79B9_7F4A_7C15);
    let mut next = move |bound: usize| rng.below(bound as u64) as usize;
    let vocabulary: Vec<String> = (0..20_000)
        .map(|_| {
            (0..3 + next(7))
                .map(|_| (b'a' + next(26) as u8) as char)
                .collect()
        })
        .collect();
    let mut previous: Vec<usize> = Vec::new();
    for i in 0..files {
        let words: Vec<usize> = if i % 50 == 1 {
            let mut copy = previous.clone();
            for _ in 0..2 {
                let at = next(copy.len());
                copy[at] = next(vocabulary.len());
            }
            copy
        } else {
            (0..25 + next(105))
                .map(|_| next(vocabulary.len()))
                .collect()
        };
        let text: Vec<&str> = words.iter().map(|&w| vocabulary[w].as_str()).collect();
        write(
            dir,
            &format!("d{}/f{i:05}.txt", i / 1000),
            text.join(" ").as_bytes(),
        );
        previous = words;
    }
}

/// Rows of a scan's CSV: (a, b) → similarity.
fn rows(csv: &[u8]) -> BTreeMap<(String, String), f64> {
    csv_rows(csv)
        .iter()
        .map(|r| {
            let field = |i: usize| String::from_utf8_lossy(&r[i]).into_owned();
            ((field(0), field(1)), field(2).parse::<f64>().unwrap())
        })
        .collect()
}

/// `b` and `r` from a summary's "(B bands × R rows" text.
fn banding(summary: &str) -> (i32, i32) {
    let at = summary
        .find(" bands × ")
        .expect("the summary names the banding");
    let bands = summary[..at]
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap();
    let rows = summary[at + " bands × ".len()..].split(' ').next().unwrap();
    (bands.parse().unwrap(), rows.parse().unwrap())
}

#[test]
fn auto_gives_up_a_join_its_sample_shows_far_dearer_than_lsh() {
    let dir = tempfile::tempdir().unwrap();
    tiny_files(dir.path(), 8_000);
    let corpus = dir.path().to_str().unwrap();

    let exact = run(&["scan", corpus, "-t", "0.3", "--method", "exact"]);
    assert_eq!(exact.status.code(), Some(0), "{}", stderr(&exact));
    let exact_rows = rows(&exact.stdout);
    assert!(exact_rows.len() >= 150, "{} exact pairs", exact_rows.len());

    let auto = run(&["scan", corpus, "-t", "0.3"]);
    assert_eq!(auto.status.code(), Some(0), "{}", stderr(&auto));
    let summary = stderr(&auto);
    assert!(
        summary.contains("method auto: lsh (the exact join's sampled probes predicted"),
        "{summary}"
    );
    let auto_rows = rows(&auto.stdout);

    // Nothing that is not an exact pair, and the same similarity for each.
    for (pair, similarity) in &auto_rows {
        assert_eq!(exact_rows.get(pair), Some(similarity), "{pair:?}");
    }
    // Every pair at 0.5 or more found: with b × r banding, such a pair is
    // missed with probability at most (1 − 0.5^r)^b (twice that with the
    // signatures' rule-out, which adds at most LSH's own miss probability);
    // checked negligible for this corpus's pairs before asserting no miss.
    let (b, r) = banding(&summary);
    let miss = 2.0 * (1.0 - 0.5f64.powi(r)).powi(b);
    let strong: Vec<_> = exact_rows.iter().filter(|(_, s)| **s >= 0.5).collect();
    assert!(strong.len() as f64 * miss < 1e-6, "{b} × {r}: {miss}");
    for (pair, _) in strong {
        assert!(auto_rows.contains_key(pair), "missed {pair:?}");
    }

    // The way out signs the shingles as LSH does: LSH's own output.
    let lsh = run(&["scan", corpus, "-t", "0.3", "--method", "lsh"]);
    assert_eq!(
        String::from_utf8_lossy(&auto.stdout),
        String::from_utf8_lossy(&lsh.stdout)
    );

    // Thread count changes nothing, the way out included.
    let one = run(&["-j", "1", "scan", corpus, "-t", "0.3"]);
    let two = run(&["-j", "2", "scan", corpus, "-t", "0.3"]);
    assert_eq!(one.stdout, auto.stdout);
    assert_eq!(two.stdout, auto.stdout);
}

#[test]
fn auto_keeps_a_join_its_sample_shows_affordable() {
    // Fewer of the same files: the join's probes grow with the files before
    // them, LSH's work only with each file, so at 1,500 files (enough to be
    // sampled) the join's sample predicts no more than twice LSH's cost.
    let dir = tempfile::tempdir().unwrap();
    tiny_files(dir.path(), 1_500);
    let corpus = dir.path().to_str().unwrap();
    let auto = run(&["scan", corpus, "-t", "0.3"]);
    let summary = stderr(&auto);
    assert!(
        summary.contains("method auto: exact (cost model"),
        "{summary}"
    );
    let exact = run(&["scan", corpus, "-t", "0.3", "--method", "exact"]);
    assert_eq!(auto.stdout, exact.stdout);
}

#[test]
fn a_join_given_up_before_ranking_reports_exactly_what_lsh_reports() {
    // Enough files for the thinned look (8,192 sets or more): the join is
    // given up before its tokens are ranked, so the way out signs the
    // shingle sets themselves and finds LSH's pairs with LSH's estimates.
    // Two copies of one file check the identical pairs too.
    let dir = tempfile::tempdir().unwrap();
    tiny_files(dir.path(), 8_400);
    let copy = std::fs::read(dir.path().join("d0/f00007.txt")).unwrap();
    write(dir.path(), "copies/a.txt", &copy);
    let corpus = dir.path().to_str().unwrap();

    let auto = run(&["scan", corpus, "-t", "0.3"]);
    assert_eq!(auto.status.code(), Some(0), "{}", stderr(&auto));
    let summary = stderr(&auto);
    assert!(
        summary.contains("method auto: lsh (the exact join's sampled probes predicted"),
        "{summary}"
    );
    let lsh = run(&["scan", corpus, "-t", "0.3", "--method", "lsh"]);
    assert_eq!(lsh.status.code(), Some(0), "{}", stderr(&lsh));
    assert!(rows(&lsh.stdout).len() >= 150);
    assert!(String::from_utf8_lossy(&lsh.stdout).contains("copies/a.txt"));
    assert_eq!(
        String::from_utf8_lossy(&auto.stdout),
        String::from_utf8_lossy(&lsh.stdout)
    );
    let one = run(&["-j", "1", "scan", corpus, "-t", "0.3"]);
    assert_eq!(one.stdout, auto.stdout);
}
