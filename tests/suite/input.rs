//! Inputs for pipelines, through the real binary: `--files-from`/`--files0-from`,
//! a file as a root, ignore files and `--no-ignore`, directory excludes,
//! `--isolate`, hard links, `-v` naming what was skipped, and the walk's output
//! identical whatever the thread count.

use std::path::Path;
use std::process::Output;

use crate::util::*;

fn pairs(out: &Output) -> Vec<(String, String)> {
    pair_paths(&out.stdout)
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

/// One text under each name: every two of them are a pair at 1.0.
fn copies(dir: &Path, names: &[&str]) {
    let text = prose(7, 400);
    for name in names {
        write(dir, name, text.as_bytes());
    }
}

#[test]
fn files0_from_stdin_reads_nul_separated_names_with_newlines_as_given() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copies(d, &["a\nnewline.txt", "sub/b.txt", "not-listed.txt"]);
    std::fs::create_dir(d.join("a-dir")).unwrap();
    let list = b"./a\nnewline.txt\0sub/b.txt\0missing.txt\0a-dir\0";
    let out = run_in(d, &["scan", "--files0-from", "-", "-t", "0.9"], list);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(pairs(&out), [pair("./a\nnewline.txt", "sub/b.txt")]);
    let err = stderr(&out);
    assert!(err.contains("missing.txt: No such file"), "{err}");
    assert!(err.contains("a-dir: not a regular file"), "{err}");
}

#[test]
fn files_from_a_file_combines_with_dir_roots() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copies(d, &["dir/x.txt", "one.txt", "two.txt"]);
    write(d, "list", b"one.txt\n\n");
    let out = run_in(
        d,
        &["scan", "dir", "--files-from", "list", "-t", "0.9"],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(pairs(&out), [pair("dir/x.txt", "one.txt")]);
    // An unreadable list is an argument error, before any work.
    let out = run_in(d, &["scan", "--files-from", "nope"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read --files-from nope"));
}

#[test]
fn a_file_given_as_a_root_is_scanned() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copies(d, &["a.txt", "dir/b.txt", "dir/c.txt"]);
    let out = run_in(d, &["scan", "a.txt", "dir/c.txt", "-t", "0.9"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(pairs(&out), [pair("a.txt", "dir/c.txt")]);
}

/// A git repository with ignore files at several levels.
fn ignore_tree(d: &Path) {
    copies(
        d,
        &[
            "repo/src/a.txt",
            "repo/target/a-copy.txt",
            "repo/sub/b.txt",
            "repo/sub/keep.log",
            "repo/sub/drop.log",
            "repo/sub/deep/c.txt",
        ],
    );
    std::fs::create_dir(d.join("repo/.git")).unwrap();
    write(d, "repo/.gitignore", b"target/\n*.log\n");
    // A deeper file wins: keep.log back in, and .ignore names b.txt.
    write(d, "repo/sub/.ignore", b"!keep.log\nb.txt\n");
    // .simfindignore wins over .ignore in the same directory.
    write(d, "repo/sub/deep/.ignore", b"c.txt\n");
    write(d, "repo/sub/deep/.simfindignore", b"!c.txt\n");
}

#[test]
fn ignore_files_at_several_levels_are_honoured_and_no_ignore_turns_them_off() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ignore_tree(d);
    let out = run_in(d, &["scan", "repo", "-t", "0.9", "-v"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let names: Vec<String> = pairs(&out).into_iter().flat_map(|(a, b)| [a, b]).collect();
    let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
    names.sort();
    names.dedup();
    assert_eq!(
        names,
        ["repo/src/a.txt", "repo/sub/deep/c.txt", "repo/sub/keep.log"]
    );
    let err = stderr(&out);
    assert!(
        err.contains("repo/target: ignored by an ignore file"),
        "{err}"
    );
    assert!(err.contains("repo/sub/b.txt: ignored"), "{err}");
    assert!(err.contains("3 ignored by ignore files"), "{err}");

    let out = run_in(d, &["scan", "repo", "-t", "0.9", "--no-ignore"], b"");
    assert_eq!(pairs(&out).len(), 6 * 5 / 2, "{}", stderr(&out));
}

#[test]
fn a_gitignore_outside_a_git_repository_is_not_honoured() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ignore_tree(d);
    std::fs::remove_dir(d.join("repo/.git")).unwrap();
    let out = run_in(d, &["scan", "repo", "-t", "0.9", "-v"], b"");
    let err = stderr(&out);
    // Only the .ignore files apply: b.txt is out, target/ and *.log are in.
    assert!(err.contains("repo/sub/b.txt: ignored"), "{err}");
    assert!(!err.contains("repo/target: ignored"), "{err}");
    assert_eq!(pairs(&out).len(), 5 * 4 / 2);
}

#[test]
fn an_exclude_with_a_trailing_slash_matches_the_directory_and_an_unused_one_warns() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copies(d, &["t/src/a.txt", "t/target/a.txt", "t/target.txt"]);
    let out = run_in(
        d,
        &[
            "scan",
            "t",
            "-t",
            "0.9",
            "--exclude",
            "target/",
            "--exclude",
            "nothing-*",
            "-v",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The directory is pruned; the file named like it is not (directories only).
    assert_eq!(pairs(&out), [pair("t/src/a.txt", "t/target.txt")]);
    let err = stderr(&out);
    assert!(err.contains("t/target: excluded by --exclude"), "{err}");
    assert!(
        err.contains("warning: --exclude 'nothing-*' matched nothing"),
        "{err}"
    );
    assert!(!err.contains("'target/' matched nothing"), "{err}");
}

#[test]
fn isolate_pairs_only_files_under_different_roots() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // Identical copies inside each root, and a near-duplicate across.
    copies(d, &["archive/a.txt", "archive/a2.txt", "drop/x.txt"]);
    let near = prose(7, 400).replace("river", "rivers");
    write(d, "drop/y.txt", near.as_bytes());
    write(d, "archive/z.txt", near.as_bytes());
    let all = run_in(d, &["scan", "archive", "drop", "-t", "0.5"], b"");
    assert!(pairs(&all).contains(&pair("archive/a.txt", "archive/a2.txt")));
    for method in ["lsh", "exact"] {
        let out = run_in(
            d,
            &[
                "scan",
                "archive",
                "drop",
                "-t",
                "0.5",
                "--isolate",
                "--method",
                method,
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let got = pairs(&out);
        let expected: Vec<_> = pairs(&all)
            .into_iter()
            .filter(|(a, b)| a.split('/').next() != b.split('/').next())
            .collect();
        assert_eq!(got, expected, "{method}");
        assert_eq!(got.len(), 6, "{method}: {got:?}");
    }
    // Groups link across roots only: the two archive copies are not a group
    // of their own.
    let out = run_in(
        d,
        &[
            "scan",
            "archive",
            "drop",
            "-t",
            "0.99",
            "--isolate",
            "--format",
            "clusters",
            "--cluster",
            "connected",
        ],
        b"",
    );
    let text = stdout(&out);
    assert!(text.contains("drop/x.txt"), "{text}");
    let one = run_in(d, &["scan", "archive", "--isolate"], b"");
    assert_eq!(one.status.code(), Some(2));
    assert!(stderr(&one).contains("two or more"));
}

#[test]
fn hard_links_are_counted_once_named_with_v_or_kept_as_copies() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copies(d, &["hl/a.txt"]);
    std::fs::hard_link(d.join("hl/a.txt"), d.join("hl/b-link.txt")).unwrap();
    let out = run_in(d, &["scan", "hl", "-t", "0.9", "-v"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(pairs(&out).is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("hl/b-link.txt: hard link to hl/a.txt: counted once"),
        "{err}"
    );
    assert!(err.contains("1 hard link counted once"), "{err}");
    // Without -v the walk keeps no paths to name them, and counts the same.
    let quiet = run_in(d, &["scan", "hl", "-t", "0.9"], b"");
    let quiet_err = stderr(&quiet);
    assert!(
        quiet_err.contains("1 hard link counted once"),
        "{quiet_err}"
    );
    assert!(!quiet_err.contains("note:"), "{quiet_err}");
    assert_eq!(quiet.stdout, out.stdout);
    let out = run_in(
        d,
        &["scan", "hl", "-t", "0.9", "--hardlinks-as-copies"],
        b"",
    );
    assert_eq!(pairs(&out), [pair("hl/a.txt", "hl/b-link.txt")]);
    // The same path reached through two roots is still one file.
    let out = run_in(
        d,
        &[
            "scan",
            "hl",
            "hl/a.txt",
            "-t",
            "0.9",
            "--hardlinks-as-copies",
        ],
        b"",
    );
    assert_eq!(pairs(&out), [pair("hl/a.txt", "hl/b-link.txt")]);
}

#[test]
fn verbose_names_hidden_files_and_the_summary_counts_them() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copies(d, &["w/.hidden.txt", "w/a.txt", "w/.dir/b.txt"]);
    let out = run_in(d, &["scan", "w", "-v"], b"");
    let err = stderr(&out);
    assert!(
        err.contains("w/.hidden.txt: hidden (-H to include)"),
        "{err}"
    );
    assert!(err.contains("w/.dir: hidden"), "{err}");
    assert!(err.contains("2 hidden"), "{err}");
    let quiet = run_in(d, &["scan", "w"], b"");
    assert!(!stderr(&quiet).contains("note:"));
}

/// The walk with ignore files, excludes, hard links and a list gives the same
/// bytes whatever the thread count.
#[test]
fn the_output_is_identical_across_thread_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ignore_tree(d);
    for i in 0..40 {
        let text = prose(i % 7, 300);
        write(d, &format!("repo/many/f{i:02}.txt"), text.as_bytes());
    }
    std::fs::hard_link(d.join("repo/src/a.txt"), d.join("repo/src/link.txt")).unwrap();
    write(d, "list", b"repo/sub/b.txt\nrepo/target/a-copy.txt\n");
    let args = |j: &'static str| {
        [
            "scan",
            "repo",
            "--files-from",
            "list",
            "--exclude",
            "f1*",
            "-t",
            "0.6",
            "-j",
            j,
        ]
    };
    let one = run_in(d, &args("1"), b"");
    let two = run_in(d, &args("2"), b"");
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert!(pairs(&one).len() > 10);
    assert_eq!(one.stdout, two.stdout);
}
