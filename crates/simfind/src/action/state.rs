//! What "unchanged since the scan" means: a file's [`Fingerprint`] (size,
//! modification time in nanoseconds, xxh3-128 of its bytes), taken without
//! following a symbolic link.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use xxhash_rust::xxh3::Xxh3;

/// A file as it was when looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    pub size: u64,
    /// Modification time, nanoseconds since the epoch (negative before it).
    pub mtime_ns: i128,
    /// xxh3-128 of the content.
    pub hash: u128,
}

/// A file's permission bits and owner, which a copy does not carry over by
/// itself: `undo` gives them back to a file it re-creates from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    /// Permission bits, set-id and sticky bits included (`mode & 0o7777`).
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

impl Owner {
    pub fn of(meta: &Metadata) -> Owner {
        Owner {
            mode: meta.mode() & 0o7777,
            uid: meta.uid(),
            gid: meta.gid(),
        }
    }
}

/// The mode and owner of `path`, not following a symlink.
pub fn owner(path: &Path) -> Option<Owner> {
    std::fs::symlink_metadata(path).ok().map(|m| Owner::of(&m))
}

/// Why a file does not match what was expected of it.
#[derive(Debug)]
pub enum Mismatch {
    Io(io::Error),
    NotAFile,
    Changed(&'static str),
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Io(err) => write!(f, "{err}"),
            Mismatch::NotAFile => f.write_str("not a regular file (a symlink is never followed)"),
            Mismatch::Changed(what) => write!(f, "its {what} changed since the scan"),
        }
    }
}

/// Opens `path` for reading without following a symlink in its last
/// component, and only if it is a regular file.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), Mismatch> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|err| {
            if err.raw_os_error() == Some(libc::ELOOP) {
                Mismatch::NotAFile
            } else {
                Mismatch::Io(err)
            }
        })?;
    let meta = file.metadata().map_err(Mismatch::Io)?;
    if !meta.file_type().is_file() {
        return Err(Mismatch::NotAFile);
    }
    Ok((file, meta))
}

/// Modification time of `meta` in nanoseconds.
pub fn mtime_ns(meta: &Metadata) -> i128 {
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

/// A `SystemTime` in nanoseconds since the epoch.
pub fn system_time_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// The fingerprint of `path` now.
pub fn fingerprint(path: &Path) -> Result<Fingerprint, Mismatch> {
    let (mut file, meta) = open_regular(path)?;
    let hash = hash_reader(&mut file).map_err(Mismatch::Io)?;
    // Stat again after reading: a write during the read shows as a new
    // size or time.
    let after = file.metadata().map_err(Mismatch::Io)?;
    if after.len() != meta.len() || mtime_ns(&after) != mtime_ns(&meta) {
        return Err(Mismatch::Changed("content (while it was read)"));
    }
    Ok(Fingerprint {
        size: meta.len(),
        mtime_ns: mtime_ns(&meta),
        hash,
    })
}

/// Checks that `path` still has the fingerprint `expected`.
pub fn verify(path: &Path, expected: &Fingerprint) -> Result<(), Mismatch> {
    let now = fingerprint(path)?;
    if now.size != expected.size {
        Err(Mismatch::Changed("size"))
    } else if now.mtime_ns != expected.mtime_ns {
        Err(Mismatch::Changed("modification time"))
    } else if now.hash != expected.hash {
        Err(Mismatch::Changed("content"))
    } else {
        Ok(())
    }
}

/// xxh3-128 of everything `reader` yields.
pub fn hash_reader(reader: &mut impl Read) -> io::Result<u128> {
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(hasher.digest128()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

/// Whether two regular files hold the same bytes, compared in full (a hash
/// match is not enough to replace one file by a link to another).
pub fn same_bytes(a: &Path, b: &Path) -> Result<bool, Mismatch> {
    let (mut fa, ma) = open_regular(a)?;
    let (mut fb, mb) = open_regular(b)?;
    if ma.len() != mb.len() {
        return Ok(false);
    }
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = read_full(&mut fa, &mut ba).map_err(Mismatch::Io)?;
        let m = read_full(&mut fb, &mut bb).map_err(Mismatch::Io)?;
        if n != m || ba[..n] != bb[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

/// Whether `a` and `b` are the same file (device and inode), not following
/// symlinks.
pub fn same_inode(a: &Path, b: &Path) -> bool {
    match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// The device and inode of `path`, not following a symlink.
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// Checks that `path` holds the bytes of `expected` (size and hash; the time
/// may differ, as a copy's does).
pub fn verify_bytes(path: &Path, expected: &Fingerprint) -> Result<(), Mismatch> {
    let now = fingerprint(path)?;
    if now.size != expected.size || now.hash != expected.hash {
        return Err(Mismatch::Changed("content"));
    }
    Ok(())
}
