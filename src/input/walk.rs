//! Walking the roots: directories in, the sorted list of regular files to read
//! out, with what was skipped and why.
//!
//! - Only regular files are returned. FIFOs, sockets and devices are counted and
//!   never opened (opening a FIFO would block the run).
//! - Symbolic links are not followed unless `follow_links`; then loops are
//!   detected (by walkdir) and reported as problems.
//! - Hidden entries (name starting with `.`) are skipped unless `hidden`; a root
//!   given on the command line is always walked.
//! - `include`/`exclude` globs match the path relative to its root or the file
//!   name; `exclude` also prunes directories.
//! - Files are sorted by their path bytes (as walked: the root's spelling joined
//!   with the relative path); the same file reached twice (overlapping roots, hard
//!   links) is kept once, at its first path. Document ids follow this order.
//! - [`walk_each`] hands files over in that order *while walking*, so that reading
//!   can start before the walk ends: each directory is listed sorted by name, with
//!   `/` appended to directory names (see [`sibling_order`]), which visits paths
//!   in byte order, and roots are walked in the order of their paths. Only when
//!   that cannot give byte order (symbolic links followed, or one root's path a
//!   prefix of another's) does it collect the whole walk and sort it first.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::GlobSet;
use walkdir::WalkDir;

#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    pub follow_links: bool,
    pub hidden: bool,
    pub include: Option<GlobSet>,
    pub exclude: Option<GlobSet>,
    pub min_size: Option<u64>,
    pub max_size: Option<u64>,
}

/// A regular file found by the walk.
#[derive(Clone, Debug)]
pub struct FileEntry {
    pub path: PathBuf,
    pub size: u64,
    pub modified: Option<SystemTime>,
    pub dev: u64,
    pub ino: u64,
}

/// Entries passed over without error, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WalkSkips {
    /// FIFOs, sockets, block and character devices.
    pub special: u64,
    /// Symbolic links (not followed without `--follow-links`).
    pub symlinks: u64,
    /// Outside `--min-size`/`--max-size`.
    pub size: u64,
    /// Reached a second time through another path (overlapping roots, hard links).
    pub same_file: u64,
}

/// An entry that could not be walked (permission denied, symlink loop, ...).
#[derive(Debug)]
pub struct WalkProblem {
    pub path: PathBuf,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct Walked {
    pub files: Vec<FileEntry>,
    pub skips: WalkSkips,
    pub problems: Vec<WalkProblem>,
}

/// What the walk tells its caller as it goes (for progress and warnings).
pub enum WalkEvent<'a> {
    FileFound,
    Problem(&'a WalkProblem),
}

/// What [`walk_each`] tells its caller as it goes.
pub enum StreamEvent<'a> {
    /// The next file, in document-id order (sorted by path bytes, deduplicated).
    File(FileEntry),
    Problem(&'a WalkProblem),
}

/// What [`walk_each`] returns once every file has been handed over.
#[derive(Debug, Default)]
pub struct WalkEnd {
    pub skips: WalkSkips,
    pub problems: Vec<WalkProblem>,
}

/// Walks every root; `on_event` hears of each file found and each problem as it
/// happens. Problems are also returned.
pub fn walk(
    roots: &[PathBuf],
    opts: &WalkOptions,
    mut on_event: impl FnMut(WalkEvent<'_>),
) -> Walked {
    let mut files = Vec::new();
    let end = walk_each(roots, opts, |event| match event {
        StreamEvent::File(file) => {
            on_event(WalkEvent::FileFound);
            files.push(file);
        }
        StreamEvent::Problem(p) => on_event(WalkEvent::Problem(p)),
    });
    Walked {
        files,
        skips: end.skips,
        problems: end.problems,
    }
}

/// Walks every root and hands each file to `on_event` in document-id order
/// (the order and deduplication of [`walk`]), as soon as that order allows:
/// while walking, unless symbolic links are followed or roots overlap (see the
/// module documentation), in which case only after the whole walk.
pub fn walk_each(
    roots: &[PathBuf],
    opts: &WalkOptions,
    mut on_event: impl FnMut(StreamEvent<'_>),
) -> WalkEnd {
    let mut end = WalkEnd::default();
    // The same file under two paths is kept at the first, in sorted order; in a
    // sorted stream that is the first one seen. Kept per device: an inode
    // number alone is half the key (8 bytes a file instead of 16).
    let mut seen: std::collections::HashMap<u64, std::collections::HashSet<u64>> =
        std::collections::HashMap::new();
    let mut first_time = |file: &FileEntry| seen.entry(file.dev).or_default().insert(file.ino);
    let mut same_file = 0;
    match streaming_root_order(roots, opts) {
        Some(order) => {
            for root in order {
                walk_root(root, opts, true, &mut end, &mut |event| match event {
                    StreamEvent::File(file) if !first_time(&file) => same_file += 1,
                    event => on_event(event),
                });
            }
        }
        None => {
            let mut files = Vec::new();
            for root in roots {
                walk_root(root, opts, false, &mut end, &mut |event| match event {
                    StreamEvent::File(file) => files.push(file),
                    event => on_event(event),
                });
            }
            files.sort_by(|a, b| {
                a.path
                    .as_os_str()
                    .as_bytes()
                    .cmp(b.path.as_os_str().as_bytes())
            });
            for file in files {
                if first_time(&file) {
                    on_event(StreamEvent::File(file));
                } else {
                    same_file += 1;
                }
            }
        }
    }
    end.skips.same_file += same_file;
    end
}

/// The roots in the order that makes their files come out in byte order when
/// each is walked with [`sibling_order`], or `None` when no order does.
///
/// Every path under a directory root `R` starts with `R` followed by one `/`
/// (none is added when `R` ends in one); a root that is a file is the path
/// itself. When no root's prefix is a prefix of another's, two paths under
/// different roots differ inside both prefixes, so the roots' order decides.
/// Followed symbolic links are listed before their target's type is known,
/// so they give no order either.
fn streaming_root_order<'a>(roots: &'a [PathBuf], opts: &WalkOptions) -> Option<Vec<&'a Path>> {
    if opts.follow_links {
        return None;
    }
    let mut keyed: Vec<(Vec<u8>, &Path)> = roots
        .iter()
        .map(|root| {
            let mut key = root.as_os_str().as_bytes().to_vec();
            // A root that cannot be read yields no files: its place is free.
            if std::fs::metadata(root).is_ok_and(|m| m.is_dir()) && !key.ends_with(b"/") {
                key.push(b'/');
            }
            (key, root.as_path())
        })
        .collect();
    keyed.sort();
    if keyed.windows(2).any(|w| w[1].0.starts_with(&w[0].0)) {
        return None;
    }
    Some(keyed.into_iter().map(|(_, root)| root).collect())
}

/// Orders the entries of one directory so that a depth-first walk visits
/// paths in byte order: by name, as if every directory's name ended in `/`.
/// (Plain name order would put directory `a`'s files, `a/…`, before file
/// `a.txt`, but `.` sorts before `/`.) A name never contains `/`, so no two
/// siblings' keys are prefixes of each other unless one is a file whose name
/// is a prefix of the other's, and then it comes first in both orders.
pub fn sibling_order(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> std::cmp::Ordering {
    fn key(e: &walkdir::DirEntry) -> impl Iterator<Item = &u8> {
        let slash: &'static [u8] = if e.file_type().is_dir() { b"/" } else { b"" };
        e.file_name().as_bytes().iter().chain(slash)
    }
    key(a).cmp(key(b))
}

fn walk_root(
    root: &Path,
    opts: &WalkOptions,
    sorted: bool,
    end: &mut WalkEnd,
    on_event: &mut impl FnMut(StreamEvent<'_>),
) {
    let matches = |set: &GlobSet, rel: &Path| {
        set.is_match(rel)
            || rel
                .file_name()
                .is_some_and(|name| set.is_match(Path::new(name)))
    };
    let mut walker = WalkDir::new(root).follow_links(opts.follow_links);
    if sorted {
        walker = walker.sort_by(sibling_order);
    }
    let iter = walker.into_iter().filter_entry(|e| {
        if e.depth() == 0 {
            return true;
        }
        if !opts.hidden && e.file_name().as_bytes().starts_with(b".") {
            return false;
        }
        let rel = e.path().strip_prefix(root).unwrap_or(e.path());
        !opts.exclude.as_ref().is_some_and(|x| matches(x, rel))
    });
    for entry in iter {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                let path = err
                    .path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| root.to_path_buf());
                let reason = match (err.loop_ancestor(), err.io_error()) {
                    (Some(ancestor), _) => {
                        format!("symbolic link loop back to {}", ancestor.display())
                    }
                    (None, Some(io)) => io.to_string(),
                    (None, None) => err.to_string(),
                };
                let problem = WalkProblem { path, reason };
                on_event(StreamEvent::Problem(&problem));
                end.problems.push(problem);
                continue;
            }
        };
        let file_type = entry.file_type();
        if file_type.is_dir() {
            continue;
        }
        if file_type.is_symlink() {
            if entry.depth() == 0 && entry.path().is_dir() {
                // A root given as a link to a directory: walkdir walks it
                // (its entries come next), so it is not a link passed over.
                continue;
            }
            // Without --follow-links a link is passed over; with it, walkdir
            // reports the target's type, so a link here is a dangling one.
            if opts.follow_links {
                let problem = WalkProblem {
                    path: entry.path().to_path_buf(),
                    reason: "dangling symbolic link".into(),
                };
                on_event(StreamEvent::Problem(&problem));
                end.problems.push(problem);
            } else {
                end.skips.symlinks += 1;
            }
            continue;
        }
        if !file_type.is_file() {
            end.skips.special += 1;
            continue;
        }
        if let Some(include) = &opts.include {
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            if !matches(include, rel) {
                continue;
            }
        }
        let meta = match entry.metadata() {
            Ok(meta) => meta,
            Err(err) => {
                let problem = WalkProblem {
                    path: entry.path().to_path_buf(),
                    reason: err
                        .io_error()
                        .map_or_else(|| err.to_string(), |e| e.to_string()),
                };
                on_event(StreamEvent::Problem(&problem));
                end.problems.push(problem);
                continue;
            }
        };
        let size = meta.len();
        if opts.min_size.is_some_and(|min| size < min)
            || opts.max_size.is_some_and(|max| size > max)
        {
            end.skips.size += 1;
            continue;
        }
        let file = FileEntry {
            // A copy at its exact length: the entry's own buffer was grown by
            // joining and may be up to twice as long (a million paths are kept).
            path: entry.path().to_path_buf(),
            size,
            modified: meta.modified().ok(),
            dev: meta.dev(),
            ino: meta.ino(),
        };
        on_event(StreamEvent::File(file));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// Today's definition of the order: every file of every root, sorted by
    /// path bytes, the same file kept at its first path.
    fn reference(roots: &[PathBuf], opts: &WalkOptions) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for root in roots {
            walk_root(root, opts, false, &mut WalkEnd::default(), &mut |event| {
                if let StreamEvent::File(file) = event {
                    files.push(file);
                }
            });
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
            "a/b", "a/a.txt", "a/z/deep", "a.txt", "a-b/c", "a0", "ab", "a.d/x", "a.d/y/z", "b",
            "B", "é", "a/b.d/q", "a/b-",
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
        assert_eq!(end.skips.same_file, 2);
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
}
