//! Read one file's bytes without ever crashing or hanging the process.
//!
//! Role: the "read" stage of the pipeline (walk → **read** → normalise → …). It is
//! the only place that turns a path into bytes. Input: a path (from the walk) and
//! [`ReadOptions`]. Output: [`Contents`], which derefs to `[u8]`, or a
//! [`ReadError`] whose `Display` is a short human reason for a warning line
//! (`permission denied`, `not a regular file`,
//! `shrank while being read (expected 4096 bytes, got 100)`).
//!
//! # Contract
//!
//! * The bytes are the first `len` bytes of the file, where `len` is the size
//!   `fstat` reported on the opened handle. A file that grows afterwards is not
//!   followed; a file that shrinks during a plain read is [`ReadError::Shrank`]
//!   at once.
//! * Any change after open (size or mtime differ on the *same* handle, or a
//!   mapped page vanished) is reported by [`Contents::verify_unchanged`], which
//!   the caller runs **after** it has finished with the bytes and **before** it
//!   trusts any conclusion drawn from them (including [`looks_binary`]: pages of
//!   a truncated mapping read as zeros, which look binary). So a growing log file
//!   is reported as changed rather than silently half-read.
//! * Only regular files are read. The path is opened with
//!   `O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC` and the *handle* is `fstat`ed, so a
//!   path that became a FIFO, socket or device after the walk returns
//!   [`ReadError::NotRegularFile`] instead of blocking (`open` of a FIFO without
//!   `O_NONBLOCK` waits for a writer) or grabbing a terminal.
//!
//! # Read or map
//!
//! Files of at least [`ReadOptions::mmap_min_size`] bytes are memory-mapped
//! (memmap2), smaller ones are read into a `Vec`. Empty files are always read:
//! a zero-length mapping is an error. If the file system refuses `mmap` or the
//! guard registry ([`REGISTRY_SLOTS`] mappings) is full, the file is read instead; the caller cannot
//! tell except through [`Contents::is_mapped`]. A caller that reads a large
//! mapped file front to back can drop what it has read from its resident
//! memory with [`Contents::release_before`]: mapped pages count in RSS once
//! touched, so without it a file costs its whole size in memory.
//!
//! # Why mapping is safe here: the SIGBUS guard (Linux)
//!
//! Touching a page of a shared file mapping that lies beyond the file's current
//! end (another process truncated it) makes the kernel send SIGBUS, which kills
//! the process by default. Every mapping is therefore registered with a SIGBUS
//! handler (the private `guard` submodule, `read/guard.rs`, which documents the
//! design and its safety argument) that replaces the vanished pages with zero
//! pages and flags the mapping, so the read ends in [`ReadError::MapFault`] from
//! [`Contents::verify_unchanged`] instead of a crash. Any other SIGBUS still
//! kills the process. On other platforms than Linux files are always read,
//! never mapped.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::ops::Deref;
#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::input::walk::FileEntry;

/// The error when the buffer for a file's `size` bytes cannot be had: the
/// memory ran out (an address-space limit, `ulimit -v`), not the file's size,
/// and the reason says so (a file of a few MB is not "too large").
pub(crate) fn no_memory_for(size: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!(
            "out of memory for a buffer of its {size} bytes (a memory limit such as ulimit -v?)"
        ),
    )
}

pub use crate::text::{BINARY_SNIFF_LEN, looks_binary};

/// Most mappings that can be alive at once. The pipeline holds one `Contents` per
/// worker thread, so this is far more than needed; beyond it files are read.
pub const REGISTRY_SLOTS: usize = 256;

/// How [`read_file`] gets the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Files at least this large are memory-mapped, smaller ones read into memory.
    /// `0` maps every non-empty file; `u64::MAX` never maps.
    pub mmap_min_size: u64,
    /// Files at least this large are signed chunk by chunk where the scan
    /// allows it (LSH with exact verification), in memory bounded by
    /// [`chunk_size`](Self::chunk_size) instead of by the file's size
    /// (docs/PERFORMANCE.md, "Large files in bounded memory"). `u64::MAX`
    /// never chunks. Not a user option: the scan's
    /// output is the same either way, and tests set it tiny to drive the
    /// chunked path over whole corpora.
    pub chunked_min_size: u64,
    /// Bytes per chunk of that path (at least 1). A chunk ends just before
    /// an ASCII whitespace byte, so it can be longer when a long run has
    /// none (the whole file, at worst).
    pub chunk_size: usize,
    /// Threads that read files ahead of the signing workers (`--io-threads`);
    /// `0` lets each worker read its own files. On storage where every
    /// `open` and `read` waits on the network (NFS, SMB), this many reads are
    /// in flight at once instead of one per worker.
    pub io_threads: usize,
    /// Which document formats have their text extracted (`--extract`), and
    /// the bounds of one extraction. Applied by every opener of the source
    /// seam to what this layer read; this layer itself reads bytes only.
    pub extract: super::extract::Extract,
}

impl ReadOptions {
    /// The default threshold, 1 MiB, from `bench/read_vs_mmap.sh` (figures in
    /// docs/PERFORMANCE.md, "Reading files: read(2) or mmap"): `read` wins
    /// clearly on small files, and so does mapping *no* file over mapping every
    /// file of the corpora, because `mmap`, the page faults and `munmap` cost
    /// more than copying a few KiB; the two tie at 1–2 MiB, and on larger
    /// files mapping wins, because `read` must also allocate and fault in a
    /// fresh buffer as large as the file. At 1 MiB nothing is lost in time, and
    /// large files stop costing a private copy of their size per worker thread.
    pub const DEFAULT_MMAP_MIN_SIZE: u64 = 1024 * 1024;

    /// The default [`chunked_min_size`](Self::chunked_min_size), 1 MiB, the
    /// mapping threshold (so the chunked files are the mapped ones, whose
    /// pages can be released). Not only memory: on 3 MiB files the chunked
    /// path took less CPU than the whole-file one (its text stays in cache;
    /// docs/PERFORMANCE.md, "Large files in bounded memory"), while
    /// document corpora hardly have such files (4 of debian-docs' 4,679).
    pub const DEFAULT_CHUNKED_MIN_SIZE: u64 = 1 << 20;

    /// The default [`chunk_size`](Self::chunk_size), 128 KiB: a chunk's
    /// normalised text stays in a core's L2 cache while it is shingled
    /// (sizes from 64 KiB to 2 MiB measured in docs/PERFORMANCE.md, "Large
    /// files in bounded memory"), and the per-chunk
    /// work (an `madvise`, a cut search, the carried tail) is still noise.
    pub const DEFAULT_CHUNK_SIZE: usize = 128 << 10;

    /// Never memory-map; every file is read into a `Vec`.
    pub fn never_mmap() -> Self {
        ReadOptions {
            mmap_min_size: u64::MAX,
            ..ReadOptions::default()
        }
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            mmap_min_size: Self::DEFAULT_MMAP_MIN_SIZE,
            chunked_min_size: Self::DEFAULT_CHUNKED_MIN_SIZE,
            chunk_size: Self::DEFAULT_CHUNK_SIZE,
            io_threads: 0,
            extract: super::extract::Extract::auto(),
        }
    }
}

/// Why a file's bytes could not be (trusted to be) read.
#[derive(Debug)]
pub enum ReadError {
    /// `open`, `fstat`, `read` or `mmap` failed (missing, permission, I/O error).
    Io(io::Error),
    /// The path is a directory, FIFO, socket or device, not a regular file.
    NotRegularFile,
    /// The file is now shorter than when it was opened.
    Shrank { expected: u64, actual: u64 },
    /// The file's size or modification time changed after it was opened.
    Changed,
    /// A page of the mapping could not be read (SIGBUS absorbed) although the
    /// file did not shrink: an I/O error underneath, or it shrank and regrew.
    MapFault,
    /// The walk found a regular file; the path is now a symbolic link
    /// (not followed: [`read_walked`]).
    BecameSymlink,
    /// The path now leads to another file than the walk found (another
    /// device or inode: replaced, or reached through a swapped directory).
    NotTheWalkedFile,
    /// Changed between two passes over it (important-word weighting counts
    /// words in the first and signs in the second): [`Warning::ChangedBetweenPasses`].
    ///
    /// [`Warning::ChangedBetweenPasses`]: crate::progress::Warning::ChangedBetweenPasses
    ChangedBetweenPasses,
}

impl ReadError {
    /// Tells `reporter` that `path` failed with this error, as a typed
    /// [`crate::progress::Warning`] where there is one.
    pub fn warn(&self, reporter: &dyn crate::progress::Reporter, path: &Path) {
        match self {
            ReadError::ChangedBetweenPasses => {
                reporter.warning(path, &crate::progress::Warning::ChangedBetweenPasses)
            }
            err => reporter.warn(path, err),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => f.write_str(&io_reason(e)),
            ReadError::NotRegularFile => f.write_str("not a regular file"),
            ReadError::Shrank { expected, actual } => write!(
                f,
                "shrank while being read (expected {expected} bytes, got {actual})"
            ),
            ReadError::Changed => f.write_str("changed while being read"),
            ReadError::MapFault => f.write_str("read error in memory-mapped file"),
            ReadError::BecameSymlink => {
                f.write_str("changed into a symbolic link after the walk (not followed)")
            }
            ReadError::NotTheWalkedFile => {
                f.write_str("is not the file the walk found (replaced after the walk)")
            }
            ReadError::ChangedBetweenPasses => {
                write!(f, "{}", crate::progress::Warning::ChangedBetweenPasses)
            }
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// `Permission denied (os error 13)` → `permission denied`: warnings already name
/// the path, the errno number helps nobody.
fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    let s = match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') => &s[..i],
        _ => &s[..],
    };
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A file's bytes: an owned buffer or a guarded read-only mapping. Keeps the file
/// handle open so that [`Contents::verify_unchanged`] can `fstat` the very inode
/// that was read.
pub struct Contents {
    data: Data,
    file: File,
    snapshot: Snapshot,
}

enum Data {
    Owned(Vec<u8>),
    #[cfg(target_os = "linux")]
    Mapped(guard::GuardedMap),
}

/// What `fstat` said at open; compared again by `verify_unchanged`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Snapshot {
    size: u64,
    mtime: (i64, i64),
    /// Device and inode (never change for an open handle).
    identity: Option<(u64, u64)>,
}

impl Snapshot {
    fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        let mtime = (meta.mtime(), meta.mtime_nsec());
        #[cfg(not(unix))]
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or((0, 0), |d| (d.as_secs() as i64, d.subsec_nanos() as i64));
        #[cfg(unix)]
        let identity = Some((meta.dev(), meta.ino()));
        #[cfg(not(unix))]
        let identity = None;
        Snapshot {
            size: meta.len(),
            mtime,
            identity,
        }
    }
}

impl Deref for Contents {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Owned(v) => v,
            #[cfg(target_os = "linux")]
            Data::Mapped(m) => m.bytes(),
        }
    }
}

impl fmt::Debug for Contents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Contents")
            .field("len", &self.len())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

impl Contents {
    /// Whether the bytes come from a memory mapping (else from a `read` copy).
    pub fn is_mapped(&self) -> bool {
        match &self.data {
            Data::Owned(_) => false,
            #[cfg(target_os = "linux")]
            Data::Mapped(_) => true,
        }
    }

    /// The device and inode of the file read (`None` where the platform has
    /// none): which file these bytes are, whatever path led to it.
    pub fn identity(&self) -> Option<(u64, u64)> {
        self.snapshot.identity
    }

    /// After the caller has finished using the bytes: `Err` if the file shrank or
    /// was truncated while mapped (a SIGBUS was absorbed: the bytes contain
    /// zeros that are not in the file), or if its size or mtime changed since
    /// open (checked with `fstat` on the kept handle, so a rename or a new file
    /// at the same path does not count). Mtime resolution is the file system's,
    /// so a rewrite to the same size within one timestamp tick of the previous
    /// write can go unnoticed.
    pub fn verify_unchanged(&self) -> Result<(), ReadError> {
        let now = Snapshot::of(&self.file.metadata()?);
        let expected = self.snapshot.size;
        if now.size < expected {
            return Err(ReadError::Shrank {
                expected,
                actual: now.size,
            });
        }
        if now != self.snapshot {
            return Err(ReadError::Changed);
        }
        if self.faulted() {
            return Err(ReadError::MapFault);
        }
        Ok(())
    }

    /// Lets the pages of a mapping that lie wholly before byte `offset` leave
    /// this process's memory (`madvise(MADV_DONTNEED)`): a caller that has
    /// finished with them keeps the mapping's resident size to what it still
    /// reads. The bytes do not change: the pages stay in the page cache, and
    /// touching them again maps them again (re-reading them if evicted). A
    /// no-op for bytes that were read into a buffer, and where the kernel
    /// refuses (advice only).
    pub fn release_before(&self, offset: usize) {
        match &self.data {
            Data::Owned(_) => {}
            #[cfg(target_os = "linux")]
            Data::Mapped(m) => m.release_before(offset),
        }
    }

    fn faulted(&self) -> bool {
        match &self.data {
            Data::Owned(_) => false,
            #[cfg(target_os = "linux")]
            Data::Mapped(m) => m.faulted(),
        }
    }
}

/// Read (or map) the regular file at `path`. Never blocks on FIFOs or devices,
/// never lets a concurrent truncation crash the process; see the module docs.
pub fn read_file(path: &Path, opts: &ReadOptions) -> Result<Contents, ReadError> {
    super::faults::at(super::faults::Point::Open, path)?;
    read_opened(open_nonblocking(path)?, path, None, opts)
}

/// [`read_file`], but a path whose last component is now a symbolic link is
/// not followed ([`ReadError::BecameSymlink`]): for re-reading, by path, a file
/// the walk found as a regular file (verification's reloads), where a link put
/// in its place could point outside the roots.
pub fn read_file_nofollow(path: &Path, opts: &ReadOptions) -> Result<Contents, ReadError> {
    #[cfg(unix)]
    {
        super::faults::at(super::faults::Point::Open, path)?;
        match open_nonblocking_nofollow(path) {
            Ok(handle) => read_opened(handle, path, None, opts),
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(ReadError::BecameSymlink),
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(unix))]
    read_file(path, opts)
}

/// [`read_file`] for a file found below `root` by a walk that followed no
/// link: no symbolic link is followed in any component of `path` below
/// `root` ([`ReadError::BecameSymlink`]), so a directory above the file swapped
/// for a link after the walk cannot lead the read outside the roots. `root`
/// itself is followed (the user named it), and so is `path` if it is `root`.
/// A `path` not below `root` is read as [`read_file_nofollow`] reads it.
pub fn read_file_beneath(
    root: &Path,
    path: &Path,
    opts: &ReadOptions,
) -> Result<Contents, ReadError> {
    #[cfg(unix)]
    {
        read_beneath_with(root, path, opts, |relative, flags| {
            beneath::open_beneath(root, relative, flags)
        })
    }
    #[cfg(not(unix))]
    {
        let _ = root;
        read_file(path, opts)
    }
}

/// A root directory opened once for many [`read_file_beneath_dir`]: a
/// verification re-reads thousands of files below one root, and opening
/// the root by its full path for each cost a path walk and a close apiece.
#[derive(Debug)]
pub struct RootDir {
    #[cfg(unix)]
    dir: File,
}

impl RootDir {
    /// `root` opened as the user named it (a link to it is followed, as
    /// [`read_file_beneath`] follows it).
    pub fn open(root: &Path) -> std::io::Result<RootDir> {
        #[cfg(unix)]
        {
            Ok(RootDir {
                dir: beneath::open_root(root)?,
            })
        }
        #[cfg(not(unix))]
        {
            let _ = root;
            Ok(RootDir {})
        }
    }
}

/// [`read_file_beneath`] with `root` already open as `dir`: the same checks
/// and errors, below the directory `dir` holds (the one `root` named when it
/// was opened).
pub fn read_file_beneath_dir(
    dir: &RootDir,
    root: &Path,
    path: &Path,
    opts: &ReadOptions,
) -> Result<Contents, ReadError> {
    #[cfg(unix)]
    {
        read_beneath_with(root, path, opts, |relative, flags| {
            beneath::open_beneath_dir(&dir.dir, relative, flags)
        })
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, root);
        read_file(path, opts)
    }
}

/// What [`read_file_beneath`] and [`read_file_beneath_dir`] share; `open`
/// opens a path relative to the root with the given flags.
#[cfg(unix)]
fn read_beneath_with(
    root: &Path,
    path: &Path,
    opts: &ReadOptions,
    open: impl FnOnce(&Path, libc::c_int) -> std::io::Result<File>,
) -> Result<Contents, ReadError> {
    let Ok(relative) = path.strip_prefix(root) else {
        return read_file_nofollow(path, opts);
    };
    if relative.as_os_str().is_empty() {
        return read_file(path, opts);
    }
    super::faults::at(super::faults::Point::Open, path)?;
    match open(relative, libc::O_NONBLOCK | libc::O_NOCTTY) {
        Ok(handle) => read_opened(handle, path, None, opts),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::EXDEV)) => {
            Err(ReadError::BecameSymlink)
        }
        Err(e) => Err(e.into()),
    }
}

/// [`read_file`], but only if the file opened is the one with `identity`
/// (device, inode), else [`ReadError::NotTheWalkedFile`], checked before a
/// byte is read: for re-reading a file an index recorded, whatever links or
/// swapped directories now stand in its path.
pub fn read_file_identified(
    path: &Path,
    identity: (u64, u64),
    opts: &ReadOptions,
) -> Result<Contents, ReadError> {
    super::faults::at(super::faults::Point::Open, path)?;
    read_opened(open_nonblocking(path)?, path, Some(identity), opts)
}

/// [`read_file`] for a file the walk found: the file read is the one the
/// walk saw (same device and inode), or [`ReadError::NotTheWalkedFile`]. So
/// a file replaced after the walk, by a symbolic link to a file outside the
/// roots or by a path through a directory swapped for a link, is never read
/// in its place. Unless `follow_links`, the last component is opened with
/// `O_NOFOLLOW` ([`ReadError::BecameSymlink`] if it is a link now), except a
/// link whose target is the walked file (an entry made by following it). With
/// `follow_links` links are the user's to follow: the path is read as
/// [`read_file`] reads it.
pub fn read_walked(
    file: &FileEntry,
    follow_links: bool,
    opts: &ReadOptions,
) -> Result<Contents, ReadError> {
    if follow_links {
        return read_file(&file.path, opts);
    }
    #[cfg(unix)]
    {
        super::faults::at(super::faults::Point::Open, &file.path)?;
        let handle = match open_nonblocking_nofollow(&file.path) {
            Ok(handle) => handle,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                // A link now. Followed only if the walk saw through it (its
                // target is the walked file), checked before opening it.
                let target = std::fs::metadata(&file.path)?;
                if (target.dev(), target.ino()) != (file.dev, file.ino) {
                    return Err(ReadError::BecameSymlink);
                }
                open_nonblocking(&file.path)?
            }
            Err(e) => return Err(e.into()),
        };
        read_opened(handle, &file.path, Some((file.dev, file.ino)), opts)
    }
    #[cfg(not(unix))]
    read_file(&file.path, opts)
}

/// Reads `file`, opened by the caller at `path`; `walked` is the (device,
/// inode) it must have, if any.
fn read_opened(
    file: File,
    path: &Path,
    walked: Option<(u64, u64)>,
    opts: &ReadOptions,
) -> Result<Contents, ReadError> {
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegularFile);
    }
    #[cfg(unix)]
    if walked.is_some_and(|walked| walked != (meta.dev(), meta.ino())) {
        return Err(ReadError::NotTheWalkedFile);
    }
    #[cfg(not(unix))]
    let _ = walked;
    // O_NONBLOCK was only there to make `open` itself safe; for a regular file it
    // is meaningless on local file systems, but FUSE passes it to the daemon.
    #[cfg(unix)]
    clear_nonblocking(&file)?;
    let snapshot = Snapshot::of(&meta);
    super::faults::at(super::faults::Point::Opened, path)?;
    let size = snapshot.size;
    let len = usize::try_from(size).map_err(|_| {
        ReadError::Io(io::Error::new(
            io::ErrorKind::FileTooLarge,
            "file too large for this platform's address space",
        ))
    })?;

    #[cfg(target_os = "linux")]
    if size > 0
        && size >= opts.mmap_min_size
        && let Some(map) = guard::GuardedMap::new(&file, len)
    {
        return Ok(Contents {
            data: Data::Mapped(map),
            file,
            snapshot,
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = opts;

    let mut buf = Vec::new();
    buf.try_reserve_exact(len)
        .map_err(|_| no_memory_for(size))?;
    // `take`: a file that grew after fstat is read only up to the size we saw, so
    // the bytes always match the snapshot that verify_unchanged compares against.
    (&file).take(size).read_to_end(&mut buf)?;
    if (buf.len() as u64) < size {
        return Err(ReadError::Shrank {
            expected: size,
            actual: buf.len() as u64,
        });
    }
    Ok(Contents {
        data: Data::Owned(buf),
        file,
        snapshot,
    })
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
}

/// [`open_nonblocking`], failing with `ELOOP` if the last component is a
/// symbolic link.
#[cfg(unix)]
fn open_nonblocking_nofollow(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

#[cfg(unix)]
fn clear_nonblocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own, with integer arguments only.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        if flags & libc::O_NONBLOCK != 0
            && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Opening below a root without following links (`openat2`, or one
/// component at a time).
#[cfg(unix)]
mod beneath;

/// The SIGBUS guard: registry of live mappings and the signal handler.
#[cfg(target_os = "linux")]
mod guard;

#[cfg(test)]
mod tests;
