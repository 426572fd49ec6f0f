//! `scan --important-words N`: documents compared as sets of their N words
//! of highest TF.IDF (MMDS 1.3.1). Records on a corpus ranked by hand; files
//! against an oracle written here from the definition (words, document
//! frequencies over distinct contents, TF × IDF, ties in byte order,
//! Jaccard), and in-process for files that fail or change between the two
//! passes.

mod files;

use crate::util::{self, run, stderr, stdout};

/// N = 4 records. Document frequencies: apple 2, the 4, banana, cherry,
/// dog, eel 1; IDF = log₂(4/df): apple 1, the 0, the others 2. TF is the
/// count over the record's largest count:
/// - a = apple apple banana the: apple 2/2·1 = 1, banana 1/2·2 = 1, the 0;
/// - b = apple apple cherry the: apple 1, cherry 1, the 0;
/// - c = the dog: dog 2, the 0; d = the eel: eel 2, the 0.
///
/// One word each (ties in byte order): a {apple}, b {apple}, c {dog},
/// d {eel}: only a–b, Jaccard 1. Two words: a {apple, banana}, b {apple,
/// cherry}, c {dog, the}, d {eel, the}: a–b and c–d at 1/3. All words (plain
/// word shingles): a–b 2/4, c–d 1/3.
/// (`tests/data/mmds/tfidf.jsonl`; "Apple" and "The" are lowercased first,
/// "banana," loses its comma: words are runs of letters and digits.)
const CORPUS: &str = "tests/data/mmds/tfidf.jsonl";

fn pairs(extra: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec![
        "scan", "--input", "jsonl", "--method", "exact", "-q", CORPUS,
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (f[0].to_owned(), f[1].to_owned(), f[2].to_owned())
        })
        .collect()
}

fn row(a: &str, b: &str, s: &str) -> (String, String, String) {
    (a.into(), b.into(), s.into())
}

#[test]
fn records_are_compared_by_their_words_of_highest_tf_idf() {
    assert_eq!(
        pairs(&["--important-words", "1", "-t", "0.3"]),
        vec![row("a", "b", "1.000000")]
    );
    assert_eq!(
        pairs(&["--important-words", "2", "-t", "0.3"]),
        vec![row("a", "b", "0.333333"), row("c", "d", "0.333333")]
    );
    assert_eq!(
        pairs(&["--shingle", "word", "-k", "1", "-t", "0.3"]),
        vec![row("a", "b", "0.500000"), row("c", "d", "0.333333")]
    );
    // The summary says what was compared.
    let out = run(&[
        "scan",
        "--input",
        "jsonl",
        CORPUS,
        "--important-words",
        "2",
        "-t",
        "0.3",
    ]);
    assert!(
        stderr(&out).contains("(each record's 2 most important words of text)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn important_words_refuses_what_it_cannot_rank() {
    for (args, says) in [
        (
            &[
                "scan",
                "--input",
                "sets",
                "--important-words",
                "2",
                "tests/data/mmds",
            ][..],
            "--input jsonl, csv or tsv",
        ),
        (
            &[
                "scan",
                "--input",
                "jsonl",
                "--important-words",
                "2",
                "-k",
                "3",
                "tests/data/mmds/alice-bob.tsv",
            ][..],
            "leave out --shingle and -k",
        ),
        (
            &[
                "scan",
                "--input",
                "jsonl",
                "--important-words",
                "0",
                "tests/data/mmds/alice-bob.tsv",
            ][..],
            "at least 1",
        ),
        (
            &[
                "sign",
                "--important-words",
                "2",
                "tests/data/mmds",
                "--out",
                "never-written",
            ][..],
            "--important-words applies to scan",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    assert!(!std::path::Path::new("never-written").exists());
    // sign takes the record options, but does not offer this one.
    let help = util::stdout(&run(&["sign", "--help"]));
    assert!(help.contains("--input") && !help.contains("--important-words"));
}
