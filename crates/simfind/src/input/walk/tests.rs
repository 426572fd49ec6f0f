//! The walk's order, deduplication and skips.

use super::*;
use std::fs;
use std::os::unix::fs::MetadataExt;

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
    let end = walk_each(roots, opts, true, |event| {
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

/// Every event of a walk, in order, with the metadata of each file.
fn events(roots: &[PathBuf], opts: &WalkOptions) -> (Vec<String>, WalkSkips, usize) {
    let mut log = Vec::new();
    let end = walk_each(roots, opts, true, |event| {
        log.push(match event {
            StreamEvent::File(f) => format!(
                "file {} {} {:?} {} {}",
                f.path.display(),
                f.size,
                f.modified,
                f.dev,
                f.ino
            ),
            StreamEvent::Problem(p) => format!("problem {} {}", p.path.display(), p.reason),
            StreamEvent::Skipped(p) => format!("skipped {} {}", p.path.display(), p.why),
        })
    });
    (log, end.skips, end.problems.len())
}

/// `parallel_stat` (an index's refresh) stats files in batches on the rayon
/// pool; what the walk hands over, and in which order, is what it hands over
/// on its own thread: files across several batches, with hidden, excluded,
/// linked and special entries and a subdirectory among them, on a pool of
/// one thread (`-j 1`) and of two, streamed and (with `-L`) sorted after.
#[test]
fn parallel_stat_hands_over_what_the_walk_on_one_thread_does() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let big = t.join("big");
    fs::create_dir_all(big.join("m/n")).unwrap();
    for i in 0..2_500 {
        let name = match i {
            _ if i % 97 == 0 => format!(".h{i:04}"),
            _ if i % 251 == 0 => format!("f{i:04}-x.txt"),
            _ => format!("f{i:04}.txt"),
        };
        fs::write(big.join(&name), "x".repeat(i % 37)).unwrap();
        if i % 301 == 0 {
            std::os::unix::fs::symlink(big.join(&name), big.join(format!("f{i:04}.link"))).unwrap();
        }
        if i % 401 == 0 {
            fs::hard_link(big.join(&name), big.join(format!("f{i:04}.hard"))).unwrap();
        }
    }
    for i in 0..150 {
        fs::write(big.join(format!("m/g{i:03}")), "y".repeat(i)).unwrap();
    }
    fs::write(big.join("m/n/deep"), "z").unwrap();
    let fifo = std::ffi::CString::new(big.join("f1234.fifo").as_os_str().as_bytes()).unwrap();
    // SAFETY: `fifo` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let exclude = Excludes::new(&["*-x.txt".to_string()]).unwrap();

    for follow_links in [false, true] {
        let opts = WalkOptions {
            follow_links,
            exclude: exclude.clone(),
            ..WalkOptions::default()
        };
        let roots = [big.clone(), t.join("big/m")];
        let roots = if follow_links {
            &roots[..]
        } else {
            &roots[..1]
        };
        let alone = events(roots, &opts);
        assert!(alone.0.len() > 2_500, "{}", alone.0.len());
        assert!(
            alone.0.iter().any(|e| e.starts_with("skipped")),
            "{:?}",
            alone.1
        );
        assert!(alone.1.special == 1 && alone.1.hidden > 0 && alone.1.excluded > 0);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let batched = pool.install(|| {
                events(
                    roots,
                    &WalkOptions {
                        parallel_stat: true,
                        ..opts.clone()
                    },
                )
            });
            assert_eq!(batched, alone, "-L {follow_links}, {threads} threads");
        }
    }
}

/// A path is canonical exactly when its bytes are its components' one
/// spelling, the premise of [`drop_repeated_paths`]'s fast way.
#[test]
fn canonical_paths_are_their_components_spelled_once() {
    let spellings = [
        "/", "/a", "a", "a/b", "./a", ".", "..", "../a", "a/..", "a/.b", "a/b.", ".a/b", "a/",
        "a//b", "//a", "a/./b", "/./a", "a/.", "/.", "./", ".//a", "a/b/", "a/./", "./.",
    ];
    for spelling in spellings {
        let path = Path::new(spelling);
        let one_spelling: PathBuf = path.components().collect();
        assert_eq!(
            is_canonical(path),
            one_spelling.as_os_str().as_bytes() == spelling.as_bytes(),
            "{spelling:?} is {one_spelling:?}"
        );
    }
}

/// Paths equal as `Path`s are one file reached twice, dropped whichever
/// way they are spelled, the first in byte order kept.
#[test]
fn repeated_paths_are_dropped_keeping_the_first_in_byte_order() {
    let entry = |path: &str| {
        (
            FileEntry {
                path: PathBuf::from(path),
                size: 0,
                modified: None,
                dev: 1,
                ino: path.len() as u64,
            },
            2,
        )
    };
    for (paths, kept) in [
        (&["a/x", "a/x", "a/y"][..], &["a/x", "a/y"][..]),
        (
            &["a//x", "a/./x", "a/x", "a/y", "b/x"],
            &["a/./x", "a/y", "b/x"],
        ),
        (&["a/x", "a/y/", "a/y"], &["a/x", "a/y"]),
    ] {
        let mut files: Vec<_> = paths.iter().map(|p| entry(p)).collect();
        files.sort_by(|(a, _), (b, _)| a.path.as_os_str().cmp(b.path.as_os_str()));
        let dropped = drop_repeated_paths(&mut files);
        let left: Vec<_> = files
            .iter()
            .map(|(f, _)| f.path.to_str().unwrap())
            .collect();
        assert_eq!(left, kept, "{paths:?}");
        assert_eq!(dropped as usize, paths.len() - kept.len());
    }
}

/// One directory named by two roots spelled differently (`A/./sub` and
/// `A/sub`, which stream in neither order, and `A//sub` beside `A`): its
/// files are the same files reached again, not hard links of themselves,
/// whether or not hard links are named; a real hard link is counted either
/// way, and named only when asked.
#[test]
fn a_directory_spelled_two_ways_gives_no_hard_links_of_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fs::create_dir_all(t.join("A/sub")).unwrap();
    for name in ["x", "y", "z"] {
        fs::write(t.join("A/sub").join(name), name).unwrap();
    }
    fs::hard_link(t.join("A/sub/x"), t.join("A/sub/x-link")).unwrap();
    let root = |spelling: &str| PathBuf::from(format!("{}/{spelling}", t.display()));
    for (roots, kept, again) in [
        (vec![root("A/./sub"), root("A/sub")], 3, 4),
        (vec![root("A"), root("A//sub")], 3, 4),
        (vec![root("A/sub")], 3, 0),
    ] {
        let opts = WalkOptions::default();
        let (named, named_skips, _) = events(&roots, &opts);
        let mut counted = Vec::new();
        let end = walk_each(&roots, &opts, false, |event| {
            counted.push(match event {
                StreamEvent::File(f) => format!("file {}", f.path.display()),
                StreamEvent::Problem(p) => format!("problem {}", p.path.display()),
                StreamEvent::Skipped(p) => format!("skipped {}", p.path.display()),
            })
        });
        let files = |log: &[String]| {
            log.iter()
                .filter(|e| e.starts_with("file"))
                .map(|e| e.split(' ').nth(1).unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(files(&named), files(&counted), "{roots:?}");
        assert_eq!(files(&counted).len(), kept, "{roots:?}: {counted:?}");
        assert_eq!(named_skips, end.skips, "{roots:?}");
        assert_eq!(
            (end.skips.same_file, end.skips.hard_links),
            (again, 1),
            "{roots:?}"
        );
        let link_notes = |log: &[String]| log.iter().filter(|e| e.contains("hard link")).count();
        assert_eq!(link_notes(&named), 1, "{named:?}");
        assert!(
            counted.iter().all(|e| !e.starts_with("skipped")),
            "{counted:?}"
        );
    }
}
