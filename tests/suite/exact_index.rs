//! The exact methods of MMDS 3.9 end to end: the join's textbook indexes
//! (`scan --method exact --exact-index …`, 3.9.3–3.9.6), identical files by a
//! cheap hash (`scan --identical-by`, 3.9.1) and `simfind probe`'s refusals.
//! The chapter's worked examples are run from docs/MMDS.md.

use std::collections::BTreeSet;

use crate::util::*;

const INDEXES: [&str; 5] = ["ppjoin", "length", "prefix", "position", "suffix"];

/// The number in "N pairs verified by the join" of a summary.
fn compared(summary: &str) -> u64 {
    let at = summary
        .find(" verified by the join")
        .expect("exact summary");
    let words: Vec<&str> = summary[..at].split_whitespace().collect();
    words[words.len() - 2].parse().expect("a count")
}

/// Every index finds the pairs the default join finds, byte for byte, on a
/// real corpus; the pairs each compares shrink with each refinement of the
/// chapter (length ⊇ prefix ⊇ position ⊇ suffix), and the summary counts
/// the index's work.
fn same_pairs_on(corpus: &str, t: &str) {
    let files = shared_data(corpus).join("files");
    let files = files.to_str().unwrap();
    let default = run(&["scan", files, "--method", "exact", "-t", t]);
    assert_eq!(default.status.code(), Some(0), "{}", stderr(&default));
    assert!(csv_rows(&default.stdout).len() > 100);
    let mut counts = Vec::new();
    for index in INDEXES {
        let out = run(&[
            "scan",
            files,
            "--method",
            "exact",
            "-t",
            t,
            "--exact-index",
            index,
        ]);
        assert_eq!(out.status.code(), Some(0), "{index}: {}", stderr(&out));
        assert!(
            out.stdout == default.stdout,
            "{index}: other pairs than ppjoin"
        );
        let summary = stderr(&out);
        let work = if index == "length" {
            "(length filter, no index)".to_string()
        } else {
            format!("({index} index: ")
        };
        assert!(summary.contains(&work), "{index}: {summary}");
        counts.push(compared(&summary));
    }
    // [ppjoin, length, prefix, position, suffix]
    assert!(counts[1] >= counts[2], "{counts:?}");
    assert!(counts[2] >= counts[3], "{counts:?}");
    assert!(counts[3] >= counts[4], "{counts:?}");
    // The default summary says nothing of the index.
    assert!(
        !stderr(&default).contains(" index: "),
        "{}",
        stderr(&default)
    );
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn every_index_finds_the_same_pairs_on_debian_docs() {
    same_pairs_on("debian-docs", "0.9");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn every_index_finds_the_same_pairs_on_django_docs() {
    same_pairs_on("django-docs", "0.8");
}

#[test]
fn every_index_gives_one_output_whatever_the_threads() {
    for index in INDEXES {
        let go = |j: &str| {
            let out = run(&[
                "scan",
                "testdata",
                "-q",
                "--method",
                "exact",
                "-t",
                "0.3",
                "--exact-index",
                index,
                "-j",
                j,
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            out.stdout
        };
        let one = go("1");
        assert!(!csv_rows(&one).is_empty());
        assert!(one == go("2"), "{index}: -j 1 and -j 2 differ");
    }
}

#[test]
fn records_take_the_index_too() {
    let dir = tempfile::tempdir().unwrap();
    let sets = write(
        dir.path(),
        "sets.txt",
        b"s\ta c d e f g h i j k\nt\tb c d e f g h i j k\nu\ta c d e f g h i j\nv\tx y z\n",
    );
    let sets = sets.to_str().unwrap();
    let go = |index: &str| {
        let mut args = vec![
            "scan", "--input", "sets", sets, "-q", "--method", "exact", "-t", "0.8",
        ];
        if !index.is_empty() {
            args.extend(["--exact-index", index]);
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out.stdout
    };
    let default = go("");
    // s–t 9/11, s–u 9/10, t–u 8/11 < 0.8.
    assert_eq!(
        csv_rows(&default).len(),
        2,
        "{}",
        String::from_utf8_lossy(&default)
    );
    for index in INDEXES {
        assert!(go(index) == default, "{index}");
    }
}

#[test]
fn exact_index_needs_the_exact_method() {
    for method in [None, Some("lsh"), Some("auto")] {
        let mut args = vec!["scan", "testdata", "--exact-index", "suffix"];
        if let Some(m) = method {
            args.extend(["--method", m]);
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{method:?}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr(&out)
                .contains("--exact-index chooses the exact join's index: add --method exact"),
            "{}",
            stderr(&out)
        );
    }
    let out = run(&[
        "scan",
        "testdata",
        "--method",
        "exact",
        "--exact-index",
        "pyramid",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// A corpus of the chapter's hard cases for identical items: files of one
/// size that differ only late (same prefix) or early, and copies.
fn identical_corpus(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let a = prose(11, 400).into_bytes();
    let mut late = a.clone();
    *late.last_mut().unwrap() ^= 1;
    let mut early = a.clone();
    early[0] ^= 1;
    let mut half = a.clone();
    let mid = half.len() / 2;
    for b in &mut half[mid..] {
        *b = b'#';
    }
    let e = prose(12, 50).into_bytes();
    let files = vec![
        ("a1.txt", a.clone()),
        ("a2.txt", a.clone()),
        ("sub/a3.txt", a.clone()),
        ("late.txt", late),
        ("early.txt", early),
        ("half.txt", half),
        ("e1.txt", e.clone()),
        ("e2.txt", e),
        ("alone.txt", prose(13, 77).into_bytes()),
        ("empty1.txt", Vec::new()),
        ("empty2.txt", Vec::new()),
    ];
    for (name, bytes) in &files {
        if let Some(parent) = std::path::Path::new(name).parent() {
            std::fs::create_dir_all(dir.join(parent)).unwrap();
        }
        write(dir, name, bytes);
    }
    files.into_iter().map(|(n, b)| (n.to_string(), b)).collect()
}

#[test]
fn identical_by_a_cheap_hash_equals_comparing_every_pair_of_files() {
    let dir = tempfile::tempdir().unwrap();
    let files = identical_corpus(dir.path());
    // The oracle: every pair of non-empty files with equal bytes.
    let mut expected = BTreeSet::new();
    for (i, (x, bx)) in files.iter().enumerate() {
        for (y, by) in &files[i + 1..] {
            if !bx.is_empty() && bx == by {
                let (x, y) = (dir.path().join(x), dir.path().join(y));
                let (x, y) = (
                    x.to_str().unwrap().to_string(),
                    y.to_str().unwrap().to_string(),
                );
                expected.insert((x.clone().min(y.clone()), x.max(y)));
            }
        }
    }
    assert_eq!(expected.len(), 4);
    let root = dir.path().to_str().unwrap();
    let mut outputs = Vec::new();
    for by in [
        "full",
        "prefix:16",
        "prefix:1",
        "positions:64",
        "positions:1",
        "prefix:100000",
    ] {
        let out = run(&["scan", root, "--identical-by", by]);
        assert_eq!(out.status.code(), Some(0), "{by}: {}", stderr(&out));
        let found: BTreeSet<(String, String)> = pair_paths(&out.stdout).into_iter().collect();
        assert_eq!(found, expected, "{by}");
        assert!(
            csv_rows(&out.stdout).iter().all(|r| &r[2] == b"1.000000"),
            "{by}"
        );
        outputs.push(out.stdout.clone());
        assert!(
            stderr(&out).contains("identical contents by"),
            "{}",
            stderr(&out)
        );
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));

    // Counts that follow from the corpus: `alone` has a size of its own;
    // `half` keeps a's first half, so the first 16 bytes tell only `early`
    // apart, and the three copies, `late`, `half` and the two e's are
    // hashed in full.
    let out = run(&["scan", root, "--identical-by", "prefix:16"]);
    let summary = stderr(&out);
    assert!(
        summary.contains("1 of a size no other file has (not read), 1 read for the cheap hash only, 7 hashed in full"),
        "{summary}"
    );
    // Hashing every file of a shared size reads all 8 of them.
    let out = run(&["scan", root, "--identical-by", "full"]);
    assert!(
        stderr(&out).contains("0 read for the cheap hash only, 8 hashed in full"),
        "{}",
        stderr(&out)
    );
    // 64 random positions over a file whose second half differs all miss it
    // with probability 2^-64: `half` is told apart without a full read.
    let out = run(&["scan", root, "--identical-by", "positions:64"]);
    let summary = stderr(&out);
    let cheap_only: u64 = summary
        .split(" read for the cheap hash only")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the count");
    assert!(cheap_only >= 1, "{summary}");
}

#[test]
fn identical_by_is_the_same_whatever_the_threads_and_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    identical_corpus(dir.path());
    let root = dir.path().to_str().unwrap();
    let go = |j: &str| run(&["scan", root, "-q", "--identical-by", "positions:8", "-j", j]).stdout;
    assert_eq!(go("1"), go("2"));
    for bad in ["prefix", "prefix:0", "prefix:x", "middle:4", "positions:-1"] {
        let out = run(&["scan", root, "--identical-by", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("--identical-by"), "{}", stderr(&out));
    }
    let db = dir.path().join("x.simfind");
    let out = run(&[
        "scan",
        root,
        "--identical-by",
        "full",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!db.exists());
    // The clusters writer works on its pairs as on any scan's.
    let out = run(&[
        "scan",
        root,
        "--identical-by",
        "prefix:16",
        "--format",
        "clusters",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn probe_refuses_sets_it_cannot_draw() {
    for (args, why) in [
        (vec!["probe", "abca"], "given twice"),
        (vec!["probe", "a,,b"], "empty symbol"),
        (vec!["probe", "abz", "--order", "abc"], "not in --order"),
        (
            vec!["probe", "abcdefghij", "-t", "0.01"],
            "give a higher -t",
        ),
        (vec!["probe", "abc", "-t", "0"], "-t"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
    }
}
