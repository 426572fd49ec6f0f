//! Where a per-field record scan's candidates come from (issue 39, point 1),
//! through the real binary: the scheme chosen on a sample keeps the pairs
//! every field's bands find at a fraction of their candidates, and blocking
//! keys (`--block`) make candidates of their own, big blocks skipped.

use std::collections::BTreeSet;
use std::process::Output;

use crate::util::*;

/// The `(a, b)` of a pairs CSV.
fn pairs(out: &Output) -> BTreeSet<(String, String)> {
    let mut reader = csv::ReaderBuilder::new().from_reader(&out.stdout[..]);
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), r[1].to_owned())
        })
        .collect()
}

/// `--summary-json`'s candidate count of a run writing it to `path`.
fn candidates(path: &std::path::Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["candidates"].as_u64().unwrap()
}

/// The generated benchmark (`bench/gen_records.py --people 2000 --seed 16`,
/// committed as `tests/records-data/people.csv`: 3,638 records of five
/// fields, duplicates with typos, missing fields, abbreviations and
/// nicknames; its truth in `truth.csv`). Every field's bands (what the scan
/// did before it chose, named here with --candidate-fields) make a city a
/// candidate source: every two records of one of 25 cities collide. The
/// chosen scheme keeps ≥ 0.998 of their predicted completeness on its
/// sample; what it keeps of the pairs they report, and of the true ones
/// among them, is asserted at 0.99 (the scan's promise: the sample
/// predicts within a few tenths of a percent, and the run is deterministic,
/// so this fails on a change, not by chance), with fewer than a third of
/// their candidates.
#[test]
fn the_chosen_candidates_keep_every_fields_pairs_at_a_fraction_of_the_cost() {
    let dir = tempfile::tempdir().unwrap();
    let people = root().join("tests/records-data/people.csv");
    let people = people.to_str().unwrap();
    let every_json = dir.path().join("every.json");
    let chosen_json = dir.path().join("chosen.json");
    let every = run(&[
        "scan",
        "--input",
        "csv",
        people,
        "--per-field",
        "--candidate-fields",
        "first,last,street,city,zip",
        "--summary-json",
        every_json.to_str().unwrap(),
    ]);
    assert_eq!(code(&every), 0, "{}", stderr(&every));
    let chosen = run(&[
        "scan",
        "--input",
        "csv",
        people,
        "--per-field",
        "--summary-json",
        chosen_json.to_str().unwrap(),
    ]);
    let err = stderr(&chosen);
    assert_eq!(code(&chosen), 0, "{err}");
    assert!(
        err.contains("simfind: candidates from the bands of"),
        "{err}"
    );
    assert!(err.contains("chosen on a sample of"), "{err}");

    let (before, after) = (pairs(&every), pairs(&chosen));
    let kept = before.intersection(&after).count();
    assert!(before.len() > 2500, "{}", before.len());
    assert!(
        kept as f64 >= 0.99 * before.len() as f64,
        "kept {kept} of {} pairs\n{err}",
        before.len()
    );
    let truth: BTreeSet<(String, String)> =
        csv::Reader::from_path(root().join("tests/records-data/truth.csv"))
            .unwrap()
            .records()
            .map(|r| {
                let r = r.unwrap();
                (r[0].to_owned(), r[1].to_owned())
            })
            .collect();
    let true_before: BTreeSet<_> = before.intersection(&truth).collect();
    let true_kept = true_before.iter().filter(|p| after.contains(**p)).count();
    assert!(
        true_kept as f64 >= 0.99 * true_before.len() as f64,
        "kept {true_kept} of {} true pairs\n{err}",
        true_before.len()
    );
    let (c_every, c_chosen) = (candidates(&every_json), candidates(&chosen_json));
    assert!(
        c_chosen * 3 < c_every,
        "candidates {c_chosen} against {c_every}\n{err}"
    );
}

/// Under 1,000 records nothing is chosen: every field's bands, as before,
/// and no line about it.
#[test]
fn a_small_input_keeps_every_fields_bands() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "id,name,city\n1,John Smith,Boston\n2,Jon Smith,Boston\n3,Mary Jones,Denver\n";
    write(dir.path(), "r.csv", csv.as_bytes());
    let out = run_in(
        dir.path(),
        &["scan", "--input", "csv", "r.csv", "--per-field"],
        b"",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("candidates from"),
        "{}",
        stderr(&out)
    );
    assert!(pairs(&out).contains(&("1".into(), "2".into())));
}

#[test]
fn blocks_are_candidates_of_their_own_and_big_ones_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    // 1–2: same surname by Soundex (Smith, Smyth), same street and city;
    // 3–4 alike on street and city, 4 without a surname (no key); 5–7 are
    // three Jones, equal but for their ids.
    let csv = "id,last,street,city\n\
               1,Smith,12 Oak Street,Dover\n\
               2,Smyth,12 Oak Street,Dover\n\
               3,Brown,9 Elm Road,Salem\n\
               4,,9 Elm Rd,Salem\n\
               5,Jones,1 Main Street,Milton\n\
               6,Jones,1 Main Street,Milton\n\
               7,Jones,1 Main Street,Milton\n";
    write(dir.path(), "r.csv", csv.as_bytes());
    let base = [
        "scan",
        "--input",
        "csv",
        "r.csv",
        "--per-field",
        "-t",
        "0.5",
    ];
    let scan = |extra: &[&str]| run_in(dir.path(), &[&base[..], extra].concat(), b"");
    let ids = |list: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };

    // Keys alone: only the blocks are candidates (4 has no key).
    let out = scan(&["--block", "last:soundex"]);
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert_eq!(
        pairs(&out),
        ids(&[("1", "2"), ("5", "6"), ("5", "7"), ("6", "7")])
    );
    assert!(
        err.contains("candidates from last:soundex (2 blocks)"),
        "{err}"
    );

    // A block over the cap is skipped, with its key, value and size.
    let out = scan(&["--block", "last:soundex", "--block-cap", "2"]);
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert_eq!(pairs(&out), ids(&[("1", "2")]));
    assert!(
        err.contains(
            "--block last:soundex: the block 'J520' of 3 records skipped (over --block-cap 2)"
        ),
        "{err}"
    );

    // Keys beside a field's bands: the union of both.
    let out = scan(&[
        "--block",
        "last:prefix=2",
        "--block-cap",
        "2",
        "--candidate-fields",
        "city",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        pairs(&out),
        ids(&[("1", "2"), ("3", "4"), ("5", "6"), ("5", "7"), ("6", "7")])
    );
    assert!(
        stderr(&out).contains("candidates from last:prefix=2 (1 block); the bands of city "),
        "{}",
        stderr(&out)
    );

    // Refusals name the flag.
    let out = scan(&["--block", "town"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--block names 'town', which is not a field (last,street,city)"),
        "{}",
        stderr(&out)
    );
    let out = run_in(
        dir.path(),
        &["scan", "--input", "csv", "r.csv", "--block", "last"],
        b"",
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--block applies to --per-field"));
    let out = scan(&["--block", "last:metaphone"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("'metaphone' is not a key: give exact, prefix=N (N ≥ 1) or soundex"),
        "{}",
        stderr(&out)
    );
}
