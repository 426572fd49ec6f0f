//! A walked file's metadata: [`Stat`], taken by its name relative to its
//! open directory ([`OpenDir`]), one file at a time or a batch at a time on
//! the rayon pool ([`stat_batch`]).

use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::time::SystemTime;

use super::{Found, StreamEvent, WalkEnd, WalkOptions, WalkProblem, found_file};

/// Files stat'ed together by [`stat_batch`]: a directory of the million-file
/// corpus is 1,000, so one or two batches, and the pool's hand-over is paid
/// once per a few hundred files.
pub(super) const STAT_BATCH: usize = 1024;

/// Below this many files a batch is stat'ed on the walk's own thread.
const STAT_PARALLEL_MIN: usize = 64;

/// A file's stat (or why not) handed on: a problem, or [`found_file`].
pub(super) fn stat_found(
    entry: &walkdir::DirEntry,
    meta: std::io::Result<Stat>,
    opts: &WalkOptions,
    end: &mut WalkEnd,
    on_event: &mut impl FnMut(Found<'_>),
) {
    match meta {
        Ok(meta) => found_file(entry.path(), &meta, opts, end, on_event),
        Err(err) => {
            let problem = WalkProblem {
                path: entry.path().to_path_buf(),
                reason: err.to_string(),
            };
            on_event(Found::Event(StreamEvent::Problem(&problem)));
            end.problems.push(problem);
        }
    }
}

/// Stats the files of `batch` (emptied), in two halves on the rayon pool
/// when there are enough of them, and hands each on in the batch's order:
/// the kernel's stat is half of an unchanged re-index, and with its walk on
/// one core the other sat idle (docs/PERFORMANCE.md). What is handed on, and
/// in which order, is what the walk without batches hands on.
pub(super) fn stat_batch(
    batch: &mut Vec<walkdir::DirEntry>,
    dir: &mut OpenDir,
    opts: &WalkOptions,
    end: &mut WalkEnd,
    on_event: &mut impl FnMut(Found<'_>),
) {
    let follow = opts.follow_links;
    let stats: Vec<std::io::Result<Stat>> = if batch.len() < STAT_PARALLEL_MIN {
        batch.iter().map(|e| dir.stat(e, follow)).collect()
    } else {
        let (first, second) = batch.split_at(batch.len() / 2);
        let (mut a, b) = rayon::join(
            || {
                first
                    .iter()
                    .map(|e| dir.stat(e, follow))
                    .collect::<Vec<_>>()
            },
            || {
                let mut other = OpenDir::default();
                second
                    .iter()
                    .map(|e| other.stat(e, follow))
                    .collect::<Vec<_>>()
            },
        );
        a.extend(b);
        a
    };
    for (entry, meta) in batch.drain(..).zip(stats) {
        stat_found(&entry, meta, opts, end, on_event);
    }
}

/// What the walk keeps of a file's metadata.
pub(super) struct Stat {
    pub(super) size: u64,
    pub(super) modified: Option<SystemTime>,
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) nlink: u64,
}

impl From<&std::fs::Metadata> for Stat {
    fn from(meta: &std::fs::Metadata) -> Self {
        Stat {
            size: meta.len(),
            modified: meta.modified().ok(),
            dev: meta.dev(),
            ino: meta.ino(),
            nlink: meta.nlink(),
        }
    }
}

impl From<rustix::fs::Stat> for Stat {
    // The fields' C types differ between architectures (`u64` on some, not
    // on others), so a conversion that is the identity here is not one
    // everywhere.
    #[allow(clippy::useless_conversion)]
    fn from(st: rustix::fs::Stat) -> Self {
        let seconds = i64::from(st.st_mtime);
        let nanos = u32::try_from(st.st_mtime_nsec).unwrap_or(0);
        // `SystemTime` holds seconds and nanoseconds as `stat` gives them, as
        // std's `Metadata::modified` does.
        let modified = if seconds >= 0 {
            SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(seconds as u64, nanos))
        } else {
            SystemTime::UNIX_EPOCH
                .checked_sub(std::time::Duration::from_secs(seconds.unsigned_abs()))
                .and_then(|t| t.checked_add(std::time::Duration::from_nanos(u64::from(nanos))))
        };
        Stat {
            size: u64::try_from(st.st_size).unwrap_or(0),
            modified,
            dev: u64::from(st.st_dev),
            ino: u64::from(st.st_ino),
            nlink: u64::from(st.st_nlink),
        }
    }
}

/// The directory whose files are being looked at, kept open so that each
/// file is stat'ed by its name relative to it (`fstatat` on the directory's
/// descriptor) instead of by its whole path, which the kernel resolves
/// component by component: that lookup was a sixth of an unchanged
/// re-index (docs/PERFORMANCE.md). The answers are the same: the directory
/// is opened by the same path, following links as a lookup through it does.
#[derive(Default)]
pub(super) struct OpenDir {
    path: Vec<u8>,
    /// `None` when it could not be opened (the whole path is used then).
    fd: Option<OwnedFd>,
}

impl OpenDir {
    /// The metadata of `entry` (of the link's target when `follow`, as
    /// walkdir's `DirEntry::metadata`), or why not, as the error of
    /// `std::fs::metadata` would say it.
    pub(super) fn stat(
        &mut self,
        entry: &walkdir::DirEntry,
        follow: bool,
    ) -> std::io::Result<Stat> {
        let path = entry.path().as_os_str().as_bytes();
        let slash = path.iter().rposition(|&c| c == b'/');
        if entry.depth() > 0
            && let Some(slash) = slash.filter(|&s| s + 1 < path.len())
        {
            // The entry's parent, `/` itself for a file under the root directory.
            let dir = &path[..slash.max(1)];
            if self.path != dir {
                self.path.clear();
                self.path.extend_from_slice(dir);
                self.fd = rustix::fs::open(
                    std::ffi::OsStr::from_bytes(dir),
                    rustix::fs::OFlags::RDONLY
                        | rustix::fs::OFlags::DIRECTORY
                        | rustix::fs::OFlags::CLOEXEC,
                    rustix::fs::Mode::empty(),
                )
                .ok();
            }
            if let Some(fd) = &self.fd {
                let flags = if follow {
                    rustix::fs::AtFlags::empty()
                } else {
                    rustix::fs::AtFlags::SYMLINK_NOFOLLOW
                };
                let name = std::ffi::OsStr::from_bytes(&path[slash + 1..]);
                return rustix::fs::statat(fd, name, flags)
                    .map(Stat::from)
                    .map_err(std::io::Error::from);
            }
        }
        // An I/O error is handed on as it is, without walkdir's path prefix;
        // walkdir's own errors (a loop) keep their text.
        entry.metadata().map(|m| Stat::from(&m)).map_err(|err| {
            let text = err.to_string();
            err.into_io_error()
                .unwrap_or_else(|| std::io::Error::other(text))
        })
    }
}
