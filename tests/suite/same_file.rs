//! One file reached by several routes is one document: hard links, roots
//! that overlap or name one directory twice (spelled differently, or through
//! a link), and with `-L` symbolic links to files and directory loops. The
//! walk remembers every kept file's device and inode (`input/walk/inodes.rs`):
//! these tests hold that memory to what a plain set of them would decide.

use crate::util::{pair_paths, prose, run_in, stderr, write};
use std::path::Path;
use std::process::Output;

/// The number of files the summary on stderr reports.
fn files(out: &Output) -> u64 {
    let err = stderr(out);
    let line = err
        .lines()
        .find(|l| l.starts_with("simfind: ") && l.contains(" files, "))
        .unwrap_or_else(|| panic!("no summary in {err}"));
    line["simfind: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line}"))
}

/// The pairs written, each with its smaller path first, sorted.
fn pairs(out: &Output) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = pair_paths(&out.stdout)
        .into_iter()
        .map(|(a, b)| if a <= b { (a, b) } else { (b, a) })
        .collect();
    pairs.sort();
    pairs
}

fn pair(a: &str, b: &str) -> (String, String) {
    let (a, b) = (a.to_string(), b.to_string());
    if a <= b { (a, b) } else { (b, a) }
}

/// `A/x.txt`, `A/sub/y.txt` and `A/sub/z.txt`: one text in three files
/// (three inodes), so every two distinct files pair at 1.0 and a file
/// reached twice would pair with itself or be counted twice.
fn three_copies(d: &Path) {
    let text = prose(22, 300);
    for name in ["A/x.txt", "A/sub/y.txt", "A/sub/z.txt"] {
        write(d, name, text.as_bytes());
    }
}

#[test]
fn overlapping_roots_and_one_directory_named_twice_give_each_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    three_copies(d);
    std::os::unix::fs::symlink("A", d.join("L")).unwrap();
    let expected = |p: &str| {
        let mut pairs = vec![
            pair(&format!("{p}/sub/y.txt"), &format!("{p}/sub/z.txt")),
            pair(&format!("{p}/x.txt"), &format!("{p}/sub/y.txt")),
            pair(&format!("{p}/x.txt"), &format!("{p}/sub/z.txt")),
        ];
        pairs.sort();
        pairs
    };
    // A root inside another, the same root twice, the same directory
    // spelled two ways (no root's path a prefix of the other's: the walk
    // streams, and only the inodes tell), and a link to a root.
    for (roots, first) in [
        (&["A", "A/sub"][..], "A"),
        (&["A", "A"], "A"),
        (&["A", "./A"], "./A"),
        (&["L", "A"], "A"),
    ] {
        let mut args = vec!["scan"];
        args.extend(roots);
        args.extend(["-t", "0.9"]);
        let out = run_in(d, &args, b"");
        assert_eq!(out.status.code(), Some(0), "{roots:?}: {}", stderr(&out));
        assert_eq!(files(&out), 3, "{roots:?}");
        assert_eq!(pairs(&out), expected(first), "{roots:?}");
    }
}

#[test]
fn a_hard_linked_file_reached_twice_is_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    three_copies(d);
    std::fs::create_dir(d.join("A/zz")).unwrap();
    std::fs::hard_link(d.join("A/x.txt"), d.join("A/zz/x-link.txt")).unwrap();
    std::fs::create_dir(d.join("B")).unwrap();
    std::fs::hard_link(d.join("A/x.txt"), d.join("B/x-link.txt")).unwrap();
    // Within one root, across two roots, and with directories reached
    // twice: the link counts once, kept at its first path (`A/x.txt`).
    for roots in [&["A"][..], &["A", "B"], &["A", "A/zz", "B", "A"]] {
        let mut args = vec!["scan"];
        args.extend(roots);
        args.extend(["-t", "0.9"]);
        let out = run_in(d, &args, b"");
        assert_eq!(out.status.code(), Some(0), "{roots:?}: {}", stderr(&out));
        assert_eq!(files(&out), 3, "{roots:?}");
        let got = pairs(&out);
        assert_eq!(got.len(), 3, "{roots:?}: {got:?}");
        assert!(
            got.iter()
                .all(|(a, b)| a != b && !a.contains("link") && !b.contains("link")),
            "{roots:?}: {got:?}"
        );
    }
}

#[test]
fn with_follow_links_a_file_reached_through_a_link_and_a_loop_are_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    three_copies(d);
    // `A/alias.txt` is `A/x.txt` through a link (and sorts first);
    // `A/sub/loop` leads back to `A`.
    std::os::unix::fs::symlink("x.txt", d.join("A/alias.txt")).unwrap();
    std::os::unix::fs::symlink("..", d.join("A/sub/loop")).unwrap();
    std::os::unix::fs::symlink("A", d.join("L")).unwrap();
    for roots in [&["A"][..], &["A", "L"]] {
        let mut args = vec!["scan", "-L"];
        args.extend(roots);
        args.extend(["-t", "0.9"]);
        let out = run_in(d, &args, b"");
        let err = stderr(&out);
        assert!(
            err.contains("A/sub/loop: symbolic link loop back to A"),
            "{err}"
        );
        assert_eq!(files(&out), 3, "{roots:?}: {err}");
        assert_eq!(
            pairs(&out),
            [
                pair("A/alias.txt", "A/sub/y.txt"),
                pair("A/alias.txt", "A/sub/z.txt"),
                pair("A/sub/y.txt", "A/sub/z.txt"),
            ],
            "{roots:?}"
        );
    }
}

/// Thousands of files (past the point where the walk judges how densely
/// their inode numbers lie) under a directory named twice: each counted
/// once, on one thread or two, with the same output.
#[test]
fn thousands_of_files_under_a_directory_named_twice_count_once() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for i in 0..6000 {
        write(
            d,
            &format!("A/d{}/f{i:05}.txt", i % 7),
            prose(i, 12).as_bytes(),
        );
    }
    // Every 500th file again under a new name: pairs to find.
    for i in (0..6000).step_by(500) {
        write(d, &format!("A/copy{i:05}.txt"), prose(i, 12).as_bytes());
    }
    let one = run_in(d, &["scan", "A", "./A", "-t", "0.9", "-j", "1"], b"");
    let two = run_in(d, &["scan", "A", "./A", "-t", "0.9", "-j", "2"], b"");
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(files(&one), 6012);
    assert_eq!(files(&two), 6012);
    assert!(pairs(&one).len() >= 12, "{:?}", pairs(&one));
    assert!(pairs(&one).iter().all(|(a, b)| a != b));
    assert_eq!(one.stdout, two.stdout);
}
