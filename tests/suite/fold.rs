//! `--fold accents|punct` through the real binary: spellings that differ
//! only in accents or punctuation compare as one, for records and files,
//! and an index keeps the folding in its recipe.

use crate::util::*;

#[test]
fn fold_accents_and_punct_make_spellings_one() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "p.csv",
        "id,name\n1,José García\n2,Jose Garcia\n3,O'Brien-Smith\n4,OBrien Smith\n5,O Brien Smith\n"
            .as_bytes(),
    );
    let pairs = |extra: &[&str]| {
        let args = [&["p.csv", "-t", "0.99"][..], extra].concat();
        let out = run_in(
            dir.path(),
            &[&["scan", "--input", "csv"][..], &args].concat(),
            b"",
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        stdout(&out)
            .lines()
            .skip(1)
            .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
            .collect::<Vec<_>>()
    };
    assert!(pairs(&[]).is_empty());
    assert_eq!(pairs(&["--fold", "accents"]), ["1,2,1.000000"]);
    assert_eq!(pairs(&["--fold", "punct"]), ["3,5,1.000000"]);
    assert_eq!(
        pairs(&["--fold", "accents,punct"]),
        ["1,2,1.000000", "3,5,1.000000"]
    );
    let out = run_in(
        dir.path(),
        &["scan", "--input", "csv", "p.csv", "--fold", "umlauts"],
        b"",
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

#[test]
fn folding_is_kept_in_an_index_recipe() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "docs/a.txt",
        "Crème brûlée à la façon de José, ".repeat(20).as_bytes(),
    );
    write(
        dir.path(),
        "docs/b.txt",
        "Creme brulee a la facon de Jose, ".repeat(20).as_bytes(),
    );
    let out = sim_in(
        dir.path(),
        &["index", "docs", "--db", "i.simfind", "--fold", "accents"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The index's recipe folds: a query without --fold folds too.
    let out = sim_in(
        dir.path(),
        &["query", "--db", "i.simfind", "docs/b.txt", "-t", "0.99"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("a.txt"), "{}", stdout(&out));
}
