//! Every rule of a run over points (`PointSpecBuilder` in the library) as
//! the command line words it: exit 2 before any input is read (the inputs
//! named here do not exist), nothing on stdout, and the message naming the
//! flags that break the rule. `sign --input vectors|bits` is refused by the
//! same rules as `scan`.

use crate::util::{run, stderr, stdout};

const CASES: &[(&[&str], &str)] = &[
    (
        &["--input", "vectors", "--angle", "181"],
        "--angle 181: an angle is in [0, 180] degrees",
    ),
    (
        &["--input", "vectors", "-t", "1.5"],
        "-t 1.5: a cosine similarity is in [-1, 1]",
    ),
    (
        &["--input", "vectors", "-t", "0.5", "--radius", "1"],
        "--radius and --bucket-width are for --metric euclidean; cosine takes -t (a cosine) or --angle",
    ),
    (
        &[
            "--input",
            "vectors",
            "--metric",
            "euclidean",
            "--radius",
            "0",
        ],
        "--radius 0: a distance > 0",
    ),
    (
        &[
            "--input",
            "vectors",
            "--metric",
            "euclidean",
            "--radius",
            "1",
            "--bucket-width=-2",
        ],
        "--bucket-width -2: a width > 0",
    ),
    (
        &[
            "--input",
            "vectors",
            "--metric",
            "euclidean",
            "--radius",
            "1",
            "-t",
            "0.5",
        ],
        "--metric euclidean takes --radius R (a distance), not -t or --angle",
    ),
    (
        &["--input", "vectors", "--metric", "euclidean"],
        "--metric euclidean needs --radius R: pairs at L2 distance ≤ R",
    ),
    (
        &["--input", "vectors", "--metric", "hamming", "--radius", "2"],
        "--metric hamming compares bit strings: give --input bits",
    ),
    (
        &[
            "--input",
            "vectors",
            "--metric",
            "euclidean",
            "--radius",
            "1",
            "--verify",
            "signature",
        ],
        "--verify signature: p-stable buckets give no distance estimate; --metric euclidean verifies exactly (leave out --verify)",
    ),
    (
        &["--input", "bits", "--radius", "2.5"],
        "--radius 2.5: a Hamming radius is a whole number of bits ≥ 0",
    ),
    (
        &["--input", "bits"],
        "--metric hamming needs --radius K: pairs within K bits",
    ),
    (
        &["--input", "bits", "--metric", "cosine", "-t", "0.5"],
        "--input bits is compared by Hamming distance: give --metric hamming",
    ),
    (
        &["--input", "bits", "--radius", "2", "--bands", "0"],
        "--bands and --rows must be at least 1",
    ),
];

#[test]
fn each_rule_of_a_run_over_points_is_refused_in_the_flags_words() {
    for (args, message) in CASES {
        for command in ["scan", "sign"] {
            // sign refuses -t for bit strings before the family's rules,
            // and has no --verify (verify is its own command).
            if command == "sign"
                && ((args.contains(&"bits") && args.contains(&"-t")) || args.contains(&"--verify"))
            {
                continue;
            }
            let mut argv = vec![command];
            argv.extend_from_slice(args);
            argv.push("no-such-points.txt");
            if command == "sign" {
                argv.extend_from_slice(&["--out", "no-such-dir/out"]);
            }
            let out = run(&argv);
            assert_eq!(out.status.code(), Some(2), "{argv:?}: {}", stderr(&out));
            assert_eq!(
                stderr(&out),
                format!("simfind: error: {message}\n"),
                "{argv:?}"
            );
            assert_eq!(stdout(&out), "", "{argv:?}");
        }
    }
}

#[test]
fn simhash_rules_are_refused_in_the_flags_words() {
    for (args, message) in [
        (
            &["scan", "testdata", "--sketch", "simhash", "--radius", "64"][..],
            "--radius 64: SimHash fingerprints have 64 bits; give a whole number of bits from 0 to 63",
        ),
        (
            &["scan", "testdata", "--sketch", "simhash", "-r", "4"][..],
            "--sketch simhash bands its 64 bits into --radius + 1 bands itself: leave out --bands and --rows",
        ),
        (
            &[
                "scan", "testdata", "--sketch", "simhash", "--metric", "cosine", "-t", "0.5",
            ][..],
            "--sketch simhash pairs fingerprints by Hamming distance: leave out --metric or give --metric hamming",
        ),
        (
            &["scan", "--input", "bits", "x.txt", "--sketch", "simhash"][..],
            "--sketch simhash signs documents: give directories, not --input bits",
        ),
        (
            &["scan", "--input", "jsonl", "x.jsonl", "--sketch", "simhash"][..],
            "--metric jaccard and --sketch simhash do not apply to --input jsonl: records are compared by the Jaccard of their shingles",
        ),
        (
            &[
                "scan",
                "testdata",
                "--simhash-weights",
                "counts",
                "--metric",
                "hamming",
                "--radius",
                "2",
            ][..],
            "--simhash-weights weighs the shingles of --sketch simhash: add --sketch simhash",
        ),
        (
            &["scan", "testdata", "--metric", "cosine", "-t", "0.5"][..],
            "--metric cosine needs --input vectors or --input bits (or --sketch simhash for documents)",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!("simfind: error: {message}\n"),
            "{args:?}"
        );
        assert_eq!(stdout(&out), "", "{args:?}");
    }
}

/// A Hamming radius is checked against the strings once they are read:
/// at or above their width every pair would be within it.
#[test]
fn a_radius_not_below_the_strings_width_is_refused_after_reading() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bits.txt");
    std::fs::write(&file, "a,10110011\nb,10110010\n").unwrap();
    let out_dir = dir.path().join("shards");
    for command in [
        vec![
            "scan",
            "--input",
            "bits",
            file.to_str().unwrap(),
            "--radius",
            "8",
        ],
        vec![
            "sign",
            "--input",
            "bits",
            file.to_str().unwrap(),
            "--radius",
            "8",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    ] {
        let out = run(&command);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "simfind: error: --radius 8 is not below the strings' 8 bits: every pair would be \
             within it\n",
            "{command:?}"
        );
        assert_eq!(stdout(&out), "");
    }
    assert!(!out_dir.exists(), "sign wrote shards for a refused run");
}
