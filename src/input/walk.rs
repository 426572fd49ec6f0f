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

/// Walks every root; `on_event` hears of each file found and each problem as it
/// happens. Problems are also returned.
pub fn walk(
    roots: &[PathBuf],
    opts: &WalkOptions,
    mut on_event: impl FnMut(WalkEvent<'_>),
) -> Walked {
    let mut walked = Walked::default();
    for root in roots {
        walk_root(root, opts, &mut walked, &mut on_event);
    }
    walked.files.sort_by(|a, b| {
        a.path
            .as_os_str()
            .as_bytes()
            .cmp(b.path.as_os_str().as_bytes())
    });
    let mut seen = std::collections::HashSet::with_capacity(walked.files.len());
    let before = walked.files.len();
    walked.files.retain(|f| seen.insert((f.dev, f.ino)));
    walked.skips.same_file += (before - walked.files.len()) as u64;
    walked
}

fn walk_root(
    root: &Path,
    opts: &WalkOptions,
    walked: &mut Walked,
    on_event: &mut impl FnMut(WalkEvent<'_>),
) {
    let matches = |set: &GlobSet, rel: &Path| {
        set.is_match(rel)
            || rel
                .file_name()
                .is_some_and(|name| set.is_match(Path::new(name)))
    };
    let iter = WalkDir::new(root)
        .follow_links(opts.follow_links)
        .into_iter()
        .filter_entry(|e| {
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
                on_event(WalkEvent::Problem(&problem));
                walked.problems.push(problem);
                continue;
            }
        };
        let file_type = entry.file_type();
        if file_type.is_dir() {
            continue;
        }
        if file_type.is_symlink() {
            // Without --follow-links a link is passed over; with it, walkdir
            // reports the target's type, so a link here is a dangling one.
            if opts.follow_links {
                let problem = WalkProblem {
                    path: entry.path().to_path_buf(),
                    reason: "dangling symbolic link".into(),
                };
                on_event(WalkEvent::Problem(&problem));
                walked.problems.push(problem);
            } else {
                walked.skips.symlinks += 1;
            }
            continue;
        }
        if !file_type.is_file() {
            walked.skips.special += 1;
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
                on_event(WalkEvent::Problem(&problem));
                walked.problems.push(problem);
                continue;
            }
        };
        let size = meta.len();
        if opts.min_size.is_some_and(|min| size < min)
            || opts.max_size.is_some_and(|max| size > max)
        {
            walked.skips.size += 1;
            continue;
        }
        let file = FileEntry {
            path: entry.into_path(),
            size,
            modified: meta.modified().ok(),
            dev: meta.dev(),
            ino: meta.ino(),
        };
        on_event(WalkEvent::FileFound);
        walked.files.push(file);
    }
}
