//! The file operations of [`super::apply`] and [`super::undo`], each one
//! either complete or not visible: new content is written to a temporary
//! file beside its destination, synced, and renamed into place; nothing is
//! ever overwritten except the file being replaced by a link or a copy of
//! identical bytes.

use std::ffi::CString;
use std::fs::{self, File};
use std::io::{self, Seek};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

use super::state::{self, Fingerprint, Owner};

/// How a move was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveHow {
    /// rename(2): same file system.
    Rename,
    /// Another file system: copied, synced, verified, then the source removed.
    Copy,
}

impl MoveHow {
    pub(crate) fn name(self) -> &'static str {
        match self {
            MoveHow::Rename => "rename",
            MoveHow::Copy => "copy",
        }
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

/// rename(2) that fails with `AlreadyExists` instead of replacing `to`.
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    let (f, t) = (c_path(from)?, c_path(to)?);
    // SAFETY: both are valid NUL-terminated strings that outlive the call;
    // AT_FDCWD makes them relative to the working directory, as rename(2).
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            f.as_ptr(),
            libc::AT_FDCWD,
            t.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        // No RENAME_NOREPLACE on this file system: a hard link cannot replace
        // either, then the old name goes.
        Some(libc::EINVAL) | Some(libc::ENOSYS) => {
            fs::hard_link(from, to)?;
            fs::remove_file(from)
        }
        _ => Err(err),
    }
}

/// Makes the parent directories of `path` and syncs the directory that will
/// hold it once it exists.
fn sync_parent(path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Moves `from` to `to` (which must not exist; its directories are made),
/// checking on the copy path that the bytes that arrive are `expected`.
pub(crate) fn move_file(from: &Path, to: &Path, expected: &Fingerprint) -> io::Result<MoveHow> {
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir)?;
    }
    match rename_noreplace(from, to) {
        Ok(()) => {
            sync_parent(to)?;
            sync_parent(from)?;
            Ok(MoveHow::Rename)
        }
        Err(err) if err.raw_os_error() == Some(libc::EXDEV) => {
            copy_new(from, to, expected)?;
            fs::remove_file(from)?;
            sync_parent(from)?;
            Ok(MoveHow::Copy)
        }
        Err(err) => Err(err),
    }
}

/// Copies `from` to the new path `to` (never replacing it) with its
/// permissions and modification time, synced, and verified against
/// `expected` before it gets its name.
pub(crate) fn copy_new(from: &Path, to: &Path, expected: &Fingerprint) -> io::Result<()> {
    let tmp = copy_to_temp(from, to, expected, false, None)?;
    tmp.persist_noclobber(to).map_err(|e| e.error)?;
    sync_parent(to)
}

/// Re-creates `to` (which must not exist) as a copy of `from` whose bytes
/// are `expected`, with `expected`'s modification time and `owner`'s mode
/// and owner (undo of a removal or of a link: the file gets back the time
/// and permissions it had, not those of the copy it is made from).
pub(crate) fn restore_new(
    from: &Path,
    to: &Path,
    expected: &Fingerprint,
    owner: Option<&Owner>,
) -> io::Result<()> {
    let tmp = copy_to_temp(from, to, expected, true, owner)?;
    tmp.persist_noclobber(to).map_err(|e| e.error)?;
    sync_parent(to)
}

/// Replaces `path` by a fresh copy of `from` whose bytes are `expected`, with
/// `expected`'s modification time and `owner`'s mode and owner, atomically.
pub(crate) fn replace_with_copy(
    path: &Path,
    from: &Path,
    expected: &Fingerprint,
    owner: Option<&Owner>,
) -> io::Result<()> {
    let tmp = copy_to_temp(from, path, expected, true, owner)?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_parent(path)
}

fn copy_to_temp(
    from: &Path,
    beside: &Path,
    expected: &Fingerprint,
    expected_time: bool,
    owner: Option<&Owner>,
) -> io::Result<tempfile::NamedTempFile> {
    let (mut src, meta) = state::open_regular(from).map_err(to_io)?;
    let dir = beside.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".simfind-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    io::copy(&mut src, tmp.as_file_mut())?;
    let file = tmp.as_file_mut();
    give_owner(file, owner.copied().unwrap_or_else(|| Owner::of(&meta)))?;
    set_times(file, &meta)?;
    if expected_time {
        set_mtime(file, expected.mtime_ns)?;
    }
    file.sync_all()?;
    file.rewind()?;
    let hash = state::hash_reader(file)?;
    if hash != expected.hash || file.metadata()?.len() != expected.size {
        return Err(io::Error::other(format!(
            "the copy of {} does not match the file scanned",
            from.display()
        )));
    }
    Ok(tmp)
}

/// Gives `file` the mode of `owner` and, when this process may (it runs as
/// root), its owner and group too. The owner goes first: changing it clears
/// set-id bits.
fn give_owner(file: &File, owner: Owner) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        // SAFETY: the descriptor is open for the life of `file`.
        if unsafe { libc::fchown(file.as_raw_fd(), owner.uid, owner.gid) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    file.set_permissions(fs::Permissions::from_mode(owner.mode))
}

/// Gives `file` the access and modification times of `meta`.
fn set_times(file: &File, meta: &fs::Metadata) -> io::Result<()> {
    let times = [
        libc::timespec {
            tv_sec: meta.atime() as libc::time_t,
            tv_nsec: meta.atime_nsec() as _,
        },
        libc::timespec {
            tv_sec: meta.mtime() as libc::time_t,
            tv_nsec: meta.mtime_nsec() as _,
        },
    ];
    // SAFETY: the descriptor is open for the life of `file`, and `times`
    // points at the two timespecs futimens reads.
    if unsafe { libc::futimens(file.as_raw_fd(), times.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sets only the modification time of `file`.
fn set_mtime(file: &File, mtime_ns: i128) -> io::Result<()> {
    let times = [
        libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_OMIT,
        },
        libc::timespec {
            tv_sec: mtime_ns.div_euclid(1_000_000_000) as libc::time_t,
            tv_nsec: mtime_ns.rem_euclid(1_000_000_000) as _,
        },
    ];
    // SAFETY: as in `set_times`.
    if unsafe { libc::futimens(file.as_raw_fd(), times.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Replaces `path` by a hard link to `kept`: the link is made under a
/// temporary name beside `path`, then renamed over it.
pub(crate) fn replace_with_link(path: &Path, kept: &Path) -> io::Result<()> {
    let tmp = temp_name(path);
    fs::hard_link(kept, &tmp)?;
    if let Err(err) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    sync_parent(path)
}

/// How a failed reflink's reason begins (the journal keeps the reason as
/// text): a face that knows the other actions can say which to use.
pub const CANNOT_REFLINK: &str = "this file system cannot reflink";

/// Replaces `path` by a reflink (FICLONE) of `kept`, keeping `path`'s
/// permissions. Fails with the file system's error where it cannot clone.
pub(crate) fn replace_with_reflink(path: &Path, kept: &Path) -> io::Result<()> {
    let (src, _) = state::open_regular(kept).map_err(to_io)?;
    let old = fs::symlink_metadata(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix(".simfind-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    // SAFETY: both descriptors are open for the duration of the call, and
    // FICLONE takes the source descriptor as its integer argument.
    let rc = unsafe { libc::ioctl(tmp.as_file().as_raw_fd(), libc::FICLONE, src.as_raw_fd()) };
    if rc != 0 {
        let err = io::Error::last_os_error();
        return Err(io::Error::new(
            err.kind(),
            format!("{CANNOT_REFLINK} ({err})"),
        ));
    }
    let file = tmp.as_file();
    file.set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))?;
    set_times(file, &old)?;
    file.sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_parent(path)
}

/// Removes `path` and syncs its directory.
pub(crate) fn remove(path: &Path) -> io::Result<()> {
    fs::remove_file(path)?;
    sync_parent(path)
}

fn temp_name(path: &Path) -> std::path::PathBuf {
    let name = path.file_name().map(|n| n.as_bytes()).unwrap_or(b"file");
    let mut tmp = b".".to_vec();
    tmp.extend_from_slice(name);
    tmp.extend_from_slice(format!(".simfind-{}.tmp", std::process::id()).as_bytes());
    path.with_file_name(std::ffi::OsStr::from_bytes(&tmp))
}

fn to_io(m: state::Mismatch) -> io::Error {
    match m {
        state::Mismatch::Io(err) => err,
        other => io::Error::other(other.to_string()),
    }
}
