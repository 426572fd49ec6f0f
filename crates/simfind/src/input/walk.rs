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
//!   name; `exclude` also prunes directories, and an `exclude` glob ending in
//!   `/` matches directories only. With `ignore_files`, `.gitignore` (inside a
//!   git repository), `.ignore` and `.simfindignore` prune what they name
//!   ([`super::filter`]).
//! - `listed` files (`--files-from`) are taken as given, alongside the roots:
//!   one that is missing or not a regular file is a problem, named.
//! - A file with several hard links is kept once, at its first path, and the
//!   others are counted as hard links (named with the first path in a note
//!   when the caller asks: the walk then keeps those paths), unless
//!   `hardlinks_as_copies`.
//! - Everything passed over without error is counted in [`WalkSkips`] and, as a
//!   [`StreamEvent::Skipped`], named for `-v`.
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
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use foldhash::fast::FixedState;

use globset::GlobSet;
use walkdir::WalkDir;

use super::filter::{Excludes, IgnoreStack, is_hidden};
use crate::progress::Notice;

#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    pub follow_links: bool,
    pub hidden: bool,
    pub include: Option<GlobSet>,
    pub exclude: Option<Excludes>,
    pub min_size: Option<u64>,
    pub max_size: Option<u64>,
    /// Honour `.gitignore` (in a git repository), `.ignore` and `.simfindignore`.
    pub ignore_files: bool,
    /// Files named one by one (`--files-from`), read as given, besides the roots.
    pub listed: Vec<PathBuf>,
    /// Keep every hard link of a file as a file of its own (identical copies).
    pub hardlinks_as_copies: bool,
    /// Pair only files under different roots ([`root_index`]); read by the
    /// pair stage, kept here with the roots it is about.
    pub isolate: bool,
    /// Stat files a batch at a time on the rayon pool (so on `-j` threads),
    /// the batch's files handed over in order once all are stat'ed: for a
    /// walk with nothing else to do meanwhile (an index's refresh), not one
    /// that feeds signing on that pool as it goes (a scan).
    pub parallel_stat: bool,
}

/// Which root `path` was walked from: the index of the first root that is the
/// path or a directory above it, else `roots.len()` (a `listed` file).
pub fn root_index(roots: &[PathBuf], path: &Path) -> u32 {
    let path = path.as_os_str().as_bytes();
    roots
        .iter()
        .position(|root| {
            let root = root.as_os_str().as_bytes();
            path == root
                || (path.starts_with(root)
                    && (root.ends_with(b"/") || path.get(root.len()) == Some(&b'/')))
        })
        .unwrap_or(roots.len()) as u32
}

/// Whether one root is inside another (or given twice): then a file has no
/// single root.
pub fn roots_overlap(roots: &[PathBuf]) -> bool {
    roots.iter().enumerate().any(|(i, a)| {
        roots
            .iter()
            .enumerate()
            .any(|(j, b)| i != j && root_index(std::slice::from_ref(a), b) == 0)
    })
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
    /// Reached a second time (overlapping roots, a link to a root).
    pub same_file: u64,
    /// Hidden entries (a hidden directory counts once).
    pub hidden: u64,
    /// Entries matched by `--exclude` (an excluded directory counts once).
    pub excluded: u64,
    /// Entries named by an ignore file (an ignored directory counts once).
    pub ignored: u64,
    /// Further hard links of a file already kept.
    pub hard_links: u64,
    /// `--exclude` patterns that matched nothing.
    pub unused_excludes: Vec<String>,
}

/// An entry that could not be walked (permission denied, symlink loop, ...).
#[derive(Debug)]
pub struct WalkProblem {
    pub path: PathBuf,
    pub reason: String,
}

/// An entry passed over without error, and the rule that passed it over.
#[derive(Debug)]
pub struct WalkSkip {
    pub path: PathBuf,
    pub why: Notice,
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
    /// Passed over without error (hidden, excluded, ignored, a hard link, ...).
    Skipped(&'a WalkSkip),
}

/// What [`walk_each`] tells its caller as it goes.
pub enum StreamEvent<'a> {
    /// The next file, in document-id order (sorted by path bytes, deduplicated).
    File(FileEntry),
    Problem(&'a WalkProblem),
    /// Passed over without error (hidden, excluded, ignored, a hard link, ...).
    Skipped(&'a WalkSkip),
}

/// What [`walk_each`] returns once every file has been handed over.
#[derive(Debug, Default)]
pub struct WalkEnd {
    pub skips: WalkSkips,
    pub problems: Vec<WalkProblem>,
}

/// Walks every root; `on_event` hears of each file found and each problem as it
/// happens. Problems are also returned. `name_hard_links`: as for [`walk_each`].
pub fn walk(
    roots: &[PathBuf],
    opts: &WalkOptions,
    name_hard_links: bool,
    mut on_event: impl FnMut(WalkEvent<'_>),
) -> Walked {
    let mut files = Vec::new();
    let end = walk_each(roots, opts, name_hard_links, |event| match event {
        StreamEvent::File(file) => {
            on_event(WalkEvent::FileFound);
            files.push(file);
        }
        StreamEvent::Problem(p) => on_event(WalkEvent::Problem(p)),
        StreamEvent::Skipped(p) => on_event(WalkEvent::Skipped(p)),
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
///
/// With `name_hard_links`, each hard link passed over is a
/// [`StreamEvent::Skipped`] naming the path kept for its file (the walk then
/// holds those paths); without, hard links are only counted.
pub fn walk_each(
    roots: &[PathBuf],
    opts: &WalkOptions,
    name_hard_links: bool,
    mut on_event: impl FnMut(StreamEvent<'_>),
) -> WalkEnd {
    let mut end = WalkEnd::default();
    let mut dedup = Dedup::new(opts.hardlinks_as_copies, name_hard_links);
    let mut used = vec![false; opts.exclude.as_ref().map_or(0, Excludes::len)];
    match streaming_root_order(roots, opts) {
        Some(order) => {
            for root in order {
                walk_root(
                    root,
                    opts,
                    true,
                    &mut used,
                    &mut end,
                    &mut |found| match found {
                        Found::File(file, nlink) => dedup.admit(file, nlink, &mut on_event),
                        Found::Event(event) => on_event(event),
                    },
                );
            }
        }
        None => {
            let mut files = Vec::new();
            for root in roots {
                walk_root(
                    root,
                    opts,
                    false,
                    &mut used,
                    &mut end,
                    &mut |found| match found {
                        Found::File(file, nlink) => files.push((file, nlink)),
                        Found::Event(event) => on_event(event),
                    },
                );
            }
            for path in &opts.listed {
                walk_listed(path, opts, &mut used, &mut end, &mut |found| match found {
                    Found::File(file, nlink) => files.push((file, nlink)),
                    Found::Event(event) => on_event(event),
                });
            }
            files.sort_by(|(a, _), (b, _)| {
                a.path
                    .as_os_str()
                    .as_bytes()
                    .cmp(b.path.as_os_str().as_bytes())
            });
            dedup.same_file += drop_repeated_paths(&mut files);
            for (file, nlink) in files {
                dedup.admit(file, nlink, &mut on_event);
            }
        }
    }
    end.skips.same_file += dedup.same_file;
    end.skips.hard_links += dedup.hard_links;
    if let Some(exclude) = &opts.exclude {
        end.skips.unused_excludes = exclude.unused(&used);
    }
    end
}

/// Keeps each file once, in the order files are offered (sorted by path,
/// no path offered twice: see [`drop_repeated_paths`] and
/// [`streaming_root_order`]), so a file offered again was reached by another
/// route: a hard link when it has several links, else the same file through
/// overlapping roots, a bind mount or `-L`.
struct Dedup {
    /// Inodes of the files kept so far (see [`Inodes`]).
    kept: Inodes,
    /// The kept path of each file with several links, to name it in its
    /// hard links' notes; only when someone reads them (`-v`): a snapshot
    /// tree of a million hard-linked files would hold ~100 MB of them.
    names: Option<LinkNames>,
    as_copies: bool,
    same_file: u64,
    hard_links: u64,
}

/// The kept paths of files with several links, in one buffer: a `cp -al`
/// copy has a million of them, and allocating each was a fifth of an
/// unchanged re-index.
#[derive(Default)]
struct LinkNames {
    ranges: HashMap<(u64, u64), Range<usize>, FixedState>,
    bytes: Vec<u8>,
}

impl LinkNames {
    fn keep(&mut self, file: &FileEntry) {
        let start = self.bytes.len();
        self.bytes
            .extend_from_slice(file.path.as_os_str().as_bytes());
        self.ranges
            .insert((file.dev, file.ino), start..self.bytes.len());
    }

    fn kept(&self, file: &FileEntry) -> Option<&Path> {
        let range = self.ranges.get(&(file.dev, file.ino))?;
        Some(Path::new(std::ffi::OsStr::from_bytes(
            &self.bytes[range.clone()],
        )))
    }
}

impl Dedup {
    fn new(as_copies: bool, name_hard_links: bool) -> Self {
        Dedup {
            kept: Inodes::default(),
            names: name_hard_links.then(LinkNames::default),
            as_copies,
            same_file: 0,
            hard_links: 0,
        }
    }

    fn admit(&mut self, file: FileEntry, nlink: u64, on_event: &mut impl FnMut(StreamEvent<'_>)) {
        let linked = nlink > 1;
        if linked && self.as_copies {
            // Every path of it is a file of its own; no path comes twice.
            on_event(StreamEvent::File(file));
        } else if self.kept.insert(file.dev, file.ino) {
            if linked && let Some(names) = &mut self.names {
                names.keep(&file);
            }
            on_event(StreamEvent::File(file));
        } else if !linked {
            self.same_file += 1;
        } else {
            self.hard_links += 1;
            if let Some(first) = self.names.as_ref().and_then(|names| names.kept(&file)) {
                let note = WalkSkip {
                    why: Notice::HardLink {
                        first: first.to_path_buf(),
                    },
                    path: file.path,
                };
                on_event(StreamEvent::Skipped(&note));
            }
        }
    }
}

/// Drops from `files` (sorted by path bytes) every path equal, as a
/// [`Path`], to an earlier one: `dir//x` and `dir/./x` are `dir/x` reached
/// twice (one root named twice, spelled two ways), which [`Dedup`] must not
/// take for a hard link. Returns how many were dropped.
fn drop_repeated_paths(files: &mut Vec<(FileEntry, u64)>) -> u64 {
    let before = files.len();
    if files.iter().all(|(f, _)| is_canonical(&f.path)) {
        // Equal paths are equal bytes, so neighbours in byte order.
        files.dedup_by(|b, a| a.0.path.as_os_str() == b.0.path.as_os_str());
    } else {
        // `Path`'s order compares components, as its equality does; ties
        // by position keep the first in byte order.
        let mut order: Vec<usize> = (0..files.len()).collect();
        order.sort_by(|&a, &b| files[a].0.path.cmp(&files[b].0.path).then(a.cmp(&b)));
        let mut repeated = vec![false; files.len()];
        for pair in order.windows(2) {
            repeated[pair[1]] = files[pair[0]].0.path == files[pair[1]].0.path;
        }
        let mut i = 0;
        files.retain(|_| {
            i += 1;
            !repeated[i - 1]
        });
    }
    (before - files.len()) as u64
}

/// Whether `path`'s bytes are the only spelling of its components (no `//`,
/// no `.` after the start, no trailing `/`), so that two such paths are
/// equal as [`Path`]s exactly when their bytes are.
fn is_canonical(path: &Path) -> bool {
    let bytes = path.as_os_str().as_bytes();
    !((bytes.len() > 1 && bytes.ends_with(b"/"))
        || bytes.ends_with(b"/.")
        || memchr::memmem::find(bytes, b"//").is_some()
        || memchr::memmem::find(bytes, b"/./").is_some())
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
    if opts.follow_links || !opts.listed.is_empty() {
        return None;
    }
    // Each root's key as spelled (for the order) and with its components
    // spelled one way (`a//b/./c` as `a/b/c`): roots whose second keys
    // overlap would give one `Path` twice, spelled two ways.
    let mut keyed: Vec<(Vec<u8>, &Path)> = Vec::with_capacity(roots.len());
    let mut canonical: Vec<Vec<u8>> = Vec::with_capacity(roots.len());
    for root in roots {
        // A root that cannot be read yields no files: its place is free.
        let is_dir = std::fs::metadata(root).is_ok_and(|m| m.is_dir());
        let key = |path: &Path| {
            let mut key = path.as_os_str().as_bytes().to_vec();
            if is_dir && !key.ends_with(b"/") {
                key.push(b'/');
            }
            key
        };
        keyed.push((key(root), root.as_path()));
        canonical.push(key(&root.components().collect::<PathBuf>()));
    }
    keyed.sort();
    canonical.sort();
    if overlapping(keyed.iter().map(|(key, _)| key)) || overlapping(&canonical) {
        return None;
    }
    Some(keyed.into_iter().map(|(_, root)| root).collect())
}

/// Whether one of the sorted `keys` is a prefix of the next (so of the
/// paths that follow it).
fn overlapping<'a>(keys: impl IntoIterator<Item = &'a Vec<u8>>) -> bool {
    let mut previous: Option<&Vec<u8>> = None;
    keys.into_iter().any(|key| {
        let overlaps = previous.is_some_and(|p| key.starts_with(p));
        previous = Some(key);
        overlaps
    })
}

/// Orders the entries of one directory so that a depth-first walk visits
/// paths in byte order: by name, as if every directory's name ended in `/`.
/// (Plain name order would put directory `a`'s files, `a/…`, before file
/// `a.txt`, but `.` sorts before `/`.) A name never contains `/`, so no two
/// siblings' keys are prefixes of each other unless one is a file whose name
/// is a prefix of the other's, and then it comes first in both orders.
///
/// Siblings' paths are their directory's path (the same bytes: walkdir joins
/// each name to one path) followed by their names, so their whole paths
/// compare as their names do, without finding where each name starts.
pub fn sibling_order(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> std::cmp::Ordering {
    let x = a.path().as_os_str().as_bytes();
    let y = b.path().as_os_str().as_bytes();
    let common = x.len().min(y.len());
    x[..common].cmp(&y[..common]).then_with(|| {
        // One name is a prefix of the other (or they are equal): the next byte
        // of the key is the longer name's, or `/` after a directory's name, or
        // none (which sorts first).
        let next = |path: &[u8], e: &walkdir::DirEntry| {
            path.get(common)
                .copied()
                .or(e.file_type().is_dir().then_some(b'/'))
        };
        next(x, a).cmp(&next(y, b))
    })
}

/// What [`walk_root`] hands over: a file with its link count, or an event.
enum Found<'a> {
    File(FileEntry, u64),
    Event(StreamEvent<'a>),
}

/// Entries pruned by the walk's filter, held until the walk loop can report them.
#[derive(Default)]
struct Pruned {
    hidden: u64,
    excluded: u64,
    ignored: u64,
    /// Skips and problems, in the order met.
    notes: Vec<PrunedNote>,
}

enum PrunedNote {
    Skip(WalkSkip),
    Problem(WalkProblem),
}

fn report_pruned(
    pruned: &RefCell<Pruned>,
    end: &mut WalkEnd,
    on_event: &mut impl FnMut(Found<'_>),
) {
    let notes = std::mem::take(&mut pruned.borrow_mut().notes);
    for note in notes {
        match note {
            PrunedNote::Problem(p) => {
                on_event(Found::Event(StreamEvent::Problem(&p)));
                end.problems.push(p);
            }
            PrunedNote::Skip(skip) => on_event(Found::Event(StreamEvent::Skipped(&skip))),
        }
    }
}

fn matches(set: &GlobSet, rel: &Path) -> bool {
    set.is_match(rel)
        || rel
            .file_name()
            .is_some_and(|name| set.is_match(Path::new(name)))
}

/// A skip named for `-v` and counted.
fn skipped(end_count: &mut u64, path: &Path, why: Notice, on_event: &mut impl FnMut(Found<'_>)) {
    *end_count += 1;
    let note = WalkSkip {
        path: path.to_path_buf(),
        why,
    };
    on_event(Found::Event(StreamEvent::Skipped(&note)));
}

fn walk_root(
    root: &Path,
    opts: &WalkOptions,
    sorted: bool,
    used: &mut [bool],
    end: &mut WalkEnd,
    on_event: &mut impl FnMut(Found<'_>),
) {
    let mut walker = WalkDir::new(root).follow_links(opts.follow_links);
    if sorted {
        walker = walker.sort_by(sibling_order);
    }
    let pruned = RefCell::new(Pruned::default());
    let mut dir = OpenDir::default();
    let mut ignores = opts.ignore_files.then(|| IgnoreStack::for_root(root));
    let iter = walker.into_iter().filter_entry(|e| {
        let is_dir = e.file_type().is_dir();
        let depth = e.depth();
        if depth > 0 {
            let why = if !opts.hidden && is_hidden(e.file_name()) {
                pruned.borrow_mut().hidden += 1;
                Some(Notice::Hidden)
            } else if opts.exclude.as_ref().is_some_and(|x| {
                x.matched(
                    e.path().strip_prefix(root).unwrap_or(e.path()),
                    is_dir,
                    used,
                )
            }) {
                pruned.borrow_mut().excluded += 1;
                Some(Notice::Excluded)
            } else if let Some(stack) = ignores.as_mut()
                && stack.ignored(e.path(), depth, is_dir)
            {
                pruned.borrow_mut().ignored += 1;
                Some(Notice::Ignored)
            } else {
                None
            };
            if let Some(why) = why {
                pruned.borrow_mut().notes.push(PrunedNote::Skip(WalkSkip {
                    path: e.path().to_path_buf(),
                    why,
                }));
                return false;
            }
        }
        if is_dir && let Some(stack) = ignores.as_mut() {
            let mut problems = Vec::new();
            stack.enter(e.path(), depth, opts.follow_links, &mut problems);
            pruned
                .borrow_mut()
                .notes
                .extend(problems.into_iter().map(|p| {
                    PrunedNote::Problem(WalkProblem {
                        path: p.path,
                        reason: p.reason,
                    })
                }));
        }
        true
    });
    // Files waiting for their stat (`parallel_stat`): handed over, in order,
    // before anything after them is.
    let mut batch: Vec<walkdir::DirEntry> = Vec::new();
    for entry in iter {
        if !pruned.borrow().notes.is_empty() {
            stat_batch(&mut batch, &mut dir, opts, end, on_event);
        }
        report_pruned(&pruned, end, on_event);
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                stat_batch(&mut batch, &mut dir, opts, end, on_event);
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
                on_event(Found::Event(StreamEvent::Problem(&problem)));
                end.problems.push(problem);
                continue;
            }
        };
        let file_type = entry.file_type();
        if file_type.is_dir() {
            continue;
        }
        if !file_type.is_file() {
            stat_batch(&mut batch, &mut dir, opts, end, on_event);
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
                on_event(Found::Event(StreamEvent::Problem(&problem)));
                end.problems.push(problem);
            } else {
                skipped(
                    &mut end.skips.symlinks,
                    entry.path(),
                    Notice::SymlinkNotFollowed,
                    on_event,
                );
            }
            continue;
        }
        if !file_type.is_file() {
            skipped(
                &mut end.skips.special,
                entry.path(),
                Notice::Special,
                on_event,
            );
            continue;
        }
        if let Some(include) = &opts.include {
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            if !matches(include, rel) {
                continue;
            }
        }
        if opts.parallel_stat {
            batch.push(entry);
            if batch.len() >= STAT_BATCH {
                stat_batch(&mut batch, &mut dir, opts, end, on_event);
            }
            continue;
        }
        let meta = dir.stat(&entry, opts.follow_links);
        stat_found(&entry, meta, opts, end, on_event);
    }
    stat_batch(&mut batch, &mut dir, opts, end, on_event);
    report_pruned(&pruned, end, on_event);
    let pruned = pruned.into_inner();
    end.skips.hidden += pruned.hidden;
    end.skips.excluded += pruned.excluded;
    end.skips.ignored += pruned.ignored;
}

/// A regular file the walk reached: kept unless outside the size limits.
fn found_file(
    path: &Path,
    meta: &Stat,
    opts: &WalkOptions,
    end: &mut WalkEnd,
    on_event: &mut impl FnMut(Found<'_>),
) {
    let size = meta.size;
    if opts.min_size.is_some_and(|min| size < min) || opts.max_size.is_some_and(|max| size > max) {
        skipped(
            &mut end.skips.size,
            path,
            Notice::OutsideSizeLimits,
            on_event,
        );
        return;
    }
    let file = FileEntry {
        // A copy at its exact length: the entry's own buffer was grown by
        // joining and may be up to twice as long (a million paths are kept).
        path: path.to_path_buf(),
        size,
        modified: meta.modified,
        dev: meta.dev,
        ino: meta.ino,
    };
    on_event(Found::File(file, meta.nlink));
}

/// One `--files-from` path, as given: a regular file (links followed: the
/// user named it), else a problem that names it. `--include`/`--exclude`
/// match the path as given or its name; hidden names and ignore files do not
/// apply to a file named explicitly.
fn walk_listed(
    path: &Path,
    opts: &WalkOptions,
    used: &mut [bool],
    end: &mut WalkEnd,
    on_event: &mut impl FnMut(Found<'_>),
) {
    let problem = |reason: String, end: &mut WalkEnd, on_event: &mut dyn FnMut(Found<'_>)| {
        let p = WalkProblem {
            path: path.to_path_buf(),
            reason,
        };
        on_event(Found::Event(StreamEvent::Problem(&p)));
        end.problems.push(p);
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) => return problem(err.to_string(), end, on_event),
    };
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory (give directories as DIR arguments)"
        } else {
            "a special file"
        };
        return problem(format!("not a regular file: {what}"), end, on_event);
    }
    if opts
        .exclude
        .as_ref()
        .is_some_and(|x| x.matched(path, false, used))
    {
        return skipped(&mut end.skips.excluded, path, Notice::Excluded, on_event);
    }
    if opts.include.as_ref().is_some_and(|set| !matches(set, path)) {
        return;
    }
    found_file(path, &Stat::from(&meta), opts, end, on_event);
}

mod inodes;
mod stat;
use inodes::Inodes;
use stat::{OpenDir, STAT_BATCH, Stat, stat_batch, stat_found};

#[cfg(test)]
mod tests;
