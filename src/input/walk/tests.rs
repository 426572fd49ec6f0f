//! The walk's order, deduplication and skips.

use super::*;
use std::fs;

/// Today's definition of the order: every file of every root, sorted by
/// path bytes, the same file kept at its first path.
fn reference(roots: &[PathBuf], opts: &WalkOptions) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for root in roots {
        walk_root(
            root,
            opts,
            false,
            &mut [],
            &mut WalkEnd::default(),
            &mut |found| {
                if let Found::File(file, _) = found {
                    files.push(file);
                }
            },
        );
    }
    files.sort_by(|a, b| {
        a.path
            .as_os_str()
            .as_bytes()
            .cmp(b.path.as_os_str().as_bytes())
    });
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert((f.dev, f.ino)));
    files.into_iter().map(|f| f.path).collect()
}

fn streamed(roots: &[PathBuf], opts: &WalkOptions) -> (Vec<PathBuf>, WalkEnd) {
    let mut files = Vec::new();
    let end = walk_each(roots, opts, |event| {
        if let StreamEvent::File(file) = event {
            files.push(file.path);
        }
    });
    (files, end)
}

/// Names whose plain name order differs from path byte order: `.`, `-`
/// and digits sort before `/`, letters after; `a` is a directory here.
fn tricky_tree(dir: &Path) {
    for rel in [
        "a/b", "a/a.txt", "a/z/deep", "a.txt", "a-b/c", "a0", "ab", "a.d/x", "a.d/y/z", "b", "B",
        "é", "a/b.d/q", "a/b-",
    ] {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, rel).unwrap();
    }
    // A hard link: the same file under two names, kept at the first.
    fs::hard_link(dir.join("a.txt"), dir.join("a/zz-link")).unwrap();
    fs::hard_link(dir.join("a/b"), dir.join("0-link")).unwrap();
}

#[test]
fn the_streamed_walk_visits_files_in_path_byte_order() {
    let tmp = tempfile::tempdir().unwrap();
    tricky_tree(tmp.path());
    let roots = vec![tmp.path().to_path_buf()];
    let opts = WalkOptions::default();
    assert!(streaming_root_order(&roots, &opts).is_some());
    let (files, end) = streamed(&roots, &opts);
    assert_eq!(files, reference(&roots, &opts));
    assert_eq!(files.len(), 14, "{files:?}");
    assert!(
        files
            .windows(2)
            .all(|w| w[0].as_os_str().as_bytes() < w[1].as_os_str().as_bytes())
    );
    assert_eq!(end.skips.hard_links, 2);
    assert_eq!(end.skips.same_file, 0);
    // The hard links: `0-link` sorts before `a/b`, `a.txt` before `a/zz-link`.
    assert!(files.contains(&tmp.path().join("0-link")));
    assert!(!files.contains(&tmp.path().join("a/b")));
    assert!(!files.contains(&tmp.path().join("a/zz-link")));
}

#[test]
fn several_roots_stream_in_path_order_whatever_order_they_are_given_in() {
    let tmp = tempfile::tempdir().unwrap();
    tricky_tree(tmp.path());
    let t = tmp.path();
    let roots = vec![
        t.join("a.d"),
        t.join("b"),
        t.join("a"),
        t.join("a.txt"),
        t.join("a-b/"),
    ];
    let opts = WalkOptions::default();
    let order = streaming_root_order(&roots, &opts).expect("no root is a prefix of another");
    assert_eq!(
        order,
        [
            t.join("a-b/"),
            t.join("a.d"),
            t.join("a.txt"),
            t.join("a"),
            t.join("b")
        ]
    );
    let (files, _) = streamed(&roots, &opts);
    assert_eq!(files, reference(&roots, &opts));
}

#[test]
fn overlapping_roots_and_followed_links_are_sorted_after_the_walk() {
    let tmp = tempfile::tempdir().unwrap();
    tricky_tree(tmp.path());
    let t = tmp.path();
    std::os::unix::fs::symlink(t.join("a.d"), t.join("a/link")).unwrap();
    for (roots, opts) in [
        (vec![t.join("a"), t.to_path_buf()], WalkOptions::default()),
        (
            vec![t.to_path_buf(), t.to_path_buf()],
            WalkOptions::default(),
        ),
        (
            vec![t.to_path_buf()],
            WalkOptions {
                follow_links: true,
                ..WalkOptions::default()
            },
        ),
    ] {
        assert!(streaming_root_order(&roots, &opts).is_none());
        let (files, _) = streamed(&roots, &opts);
        assert_eq!(files, reference(&roots, &opts));
    }
}

#[test]
fn a_path_belongs_to_the_first_root_above_it() {
    let roots = [
        PathBuf::from("a"),
        PathBuf::from("b/"),
        PathBuf::from("c.txt"),
    ];
    assert_eq!(root_index(&roots, Path::new("a/x")), 0);
    assert_eq!(root_index(&roots, Path::new("ab/x")), 3, "not under a");
    assert_eq!(root_index(&roots, Path::new("b/x")), 1);
    assert_eq!(root_index(&roots, Path::new("c.txt")), 2);
    assert_eq!(root_index(&roots, Path::new("listed.txt")), 3);
    assert!(!roots_overlap(&roots));
    assert!(roots_overlap(&[PathBuf::from("a"), PathBuf::from("a/b")]));
    assert!(roots_overlap(&[PathBuf::from("a"), PathBuf::from("a")]));
}

/// With --hardlinks-as-copies every link is a file, but the same path
/// reached through overlapping roots is still one.
#[test]
fn hard_links_as_copies_keep_every_link_once() {
    let tmp = tempfile::tempdir().unwrap();
    tricky_tree(tmp.path());
    let t = tmp.path();
    let opts = WalkOptions {
        hardlinks_as_copies: true,
        ..WalkOptions::default()
    };
    let (files, end) = streamed(&[t.join("a"), t.to_path_buf()], &opts);
    assert_eq!(files.len(), 16, "{files:?}");
    assert_eq!(end.skips.hard_links, 0);
    assert_eq!(end.skips.same_file, 6, "the six files of a/ reached twice");
}

/// Reliability case 2.5: a root given as a link to a directory is walked
/// (walkdir follows a root link), so it is not one of the "symbolic
/// links not followed"; links inside it still are.
#[test]
fn a_root_given_as_a_link_is_followed_and_not_counted_as_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    fs::create_dir(&real).unwrap();
    fs::write(real.join("a.txt"), "a").unwrap();
    std::os::unix::fs::symlink(real.join("a.txt"), real.join("inner-link")).unwrap();
    let dir_link = tmp.path().join("dir-link");
    std::os::unix::fs::symlink(&real, &dir_link).unwrap();
    let opts = WalkOptions::default();
    let (files, end) = streamed(std::slice::from_ref(&dir_link), &opts);
    assert_eq!(files, [dir_link.join("a.txt")]);
    assert_eq!(end.skips.symlinks, 1, "only the link inside");
}

/// Each file's metadata, taken by its name relative to its directory, is
/// what a stat of its whole path says: under a root spelled with a trailing
/// slash, through a followed link, for hard links (their count) and for a
/// modification time before 1970 with nanoseconds.
#[test]
fn walked_metadata_is_what_a_stat_of_the_whole_path_says() {
    use std::time::{Duration, UNIX_EPOCH};
    let tmp = tempfile::tempdir().unwrap();
    tricky_tree(tmp.path());
    let t = tmp.path();
    std::os::unix::fs::symlink(t.join("a.d"), t.join("a/link")).unwrap();
    let before_1970 = UNIX_EPOCH - Duration::from_secs(86_400) + Duration::from_nanos(123_456_789);
    fs::File::options()
        .write(true)
        .open(t.join("a.d/x"))
        .unwrap()
        .set_modified(before_1970)
        .unwrap();
    let with_slash = PathBuf::from(format!("{}/", t.display()));
    for (root, follow_links) in [
        (t.to_path_buf(), false),
        (with_slash, false),
        (t.to_path_buf(), true),
    ] {
        let opts = WalkOptions {
            follow_links,
            ..WalkOptions::default()
        };
        let mut seen = Vec::new();
        walk_root(
            &root,
            &opts,
            true,
            &mut [],
            &mut WalkEnd::default(),
            &mut |found| {
                if let Found::File(file, nlink) = found {
                    let meta = fs::metadata(&file.path).unwrap();
                    assert_eq!(file.size, meta.len(), "{}", file.path.display());
                    assert_eq!(
                        file.modified,
                        meta.modified().ok(),
                        "{}",
                        file.path.display()
                    );
                    assert_eq!((file.dev, file.ino), (meta.dev(), meta.ino()));
                    assert_eq!(nlink, meta.nlink(), "{}", file.path.display());
                    seen.push(file.path);
                }
            },
        );
        // The 16 names of the tree (links to one file included), and with -L
        // the two files under `a/link`.
        assert_eq!(seen.len(), if follow_links { 18 } else { 16 }, "{seen:?}");
        let old = seen.iter().filter(|p| p.ends_with("x")).count();
        assert_eq!(old, if follow_links { 2 } else { 1 });
    }
}
