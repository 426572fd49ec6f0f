//! `-o FILE` written atomically: complete or not at all.
//!
//! The data goes to a file without a name, created with `O_TMPFILE` in FILE's
//! directory (so that the final rename stays within one file system). Nothing
//! named exists while the run works, so no way of ending the process (SIGKILL,
//! SIGQUIT, an abort, a file-size limit) can leave a partial file behind: the
//! kernel frees an unnamed file with its last descriptor. On commit the file
//! is synced, given its mode with `fchmod` on the descriptor, linked into the
//! directory under a fresh temporary name through `/proc/self/fd` and renamed
//! over FILE, the only instant when a named temporary exists.
//!
//! A file system without `O_TMPFILE` (the open fails with EOPNOTSUPP, or with
//! EISDIR/EINVAL on kernels before 3.11), or a system without `/proc`, falls
//! back to a named temporary file, removed on failure, by the interrupt
//! handler and by the out-of-memory exit ([`super::pending`]).

use std::ffi::CString;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::TempPath;

use super::pending;

pub struct AtomicFile {
    writer: BufWriter<File>,
    /// `None` for an `O_TMPFILE` file.
    named: Option<Named>,
    target: PathBuf,
}

/// The fallback's named temporary file: removed when dropped uncommitted.
struct Named(Option<TempPath>);

impl Drop for Named {
    fn drop(&mut self) {
        if self.0.is_some() {
            pending::clear();
        }
    }
}

impl AtomicFile {
    /// Creates the unnamed (or, failing that, temporary) file in `target`'s
    /// directory, before any work, so that an unwritable destination fails
    /// at once.
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let cannot = || format!("cannot create output file in {}", dir.display());
        let (file, named) = match open_unnamed(dir).with_context(cannot)? {
            Some(file) => (file, None),
            None => {
                let temp = tempfile::Builder::new()
                    .prefix(".simfind-")
                    .suffix(".tmp")
                    .tempfile_in(dir)
                    .with_context(cannot)?;
                let (file, path) = temp.into_parts();
                pending::set(&path);
                (file, Some(Named(Some(path))))
            }
        };
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(1 << 16, file),
            named,
            target: target.to_path_buf(),
        })
    }

    /// Flushes and syncs the data, sets the mode and puts the file in place.
    pub fn commit(self) -> Result<()> {
        let AtomicFile {
            writer,
            named,
            target,
        } = self;
        let cannot = || format!("cannot write {}", target.display());
        let file = writer
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(cannot)?;
        file.sync_all().with_context(cannot)?;
        // `fchmod`: the descriptor, not a path someone else could swap.
        file.set_permissions(target_permissions(&target))
            .with_context(cannot)?;
        match named {
            Some(mut named) => {
                let path = named.0.take().expect("taken only here");
                let result = path.persist(&target);
                pending::clear();
                result.map_err(|e| e.error).with_context(cannot)?;
            }
            None => {
                let dir = match target.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                let linked = tempfile::Builder::new()
                    .prefix(".simfind-")
                    .suffix(".tmp")
                    .make_in(dir, |name| {
                        link_unnamed(&file, name)?;
                        pending::set(name);
                        Ok(())
                    })
                    .with_context(cannot)?;
                let result = linked.persist(&target);
                pending::clear();
                result.map_err(|e| e.error).with_context(cannot)?;
            }
        }
        Ok(())
    }

    /// Adds the destination to a write error: "File too large" alone does not
    /// say which file.
    fn annotate(&self, err: io::Error) -> io::Error {
        io::Error::new(
            err.kind(),
            format!("cannot write {}: {err}", self.target.display()),
        )
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf).map_err(|e| self.annotate(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush().map_err(|e| self.annotate(e))
    }
}

/// An `O_TMPFILE` file in `dir`, or `None` where that cannot work (see the
/// module comment); any other failure (`dir` missing, not writable) is an
/// error, as it would be for a named file.
fn open_unnamed(dir: &Path) -> io::Result<Option<File>> {
    let file = match fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(dir)
    {
        Ok(file) => file,
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    // The only unprivileged way to name the file later goes through /proc.
    if fs::metadata(proc_fd_path(&file)).is_err() {
        return Ok(None);
    }
    Ok(Some(file))
}

fn proc_fd_path(file: &File) -> String {
    format!("/proc/self/fd/{}", file.as_raw_fd())
}

/// Gives the unnamed `file` the name `name`; fails with `AlreadyExists` if
/// `name` is taken, so that `make_in` tries another.
fn link_unnamed(file: &File, name: &Path) -> io::Result<()> {
    let from = CString::new(proc_fd_path(file)).expect("no NUL in a number");
    let to = CString::new(name.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: both are NUL-terminated strings that outlive the call; linkat
    // reads them and nothing else.
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// An existing file keeps its mode; a new one gets 0666 less the umask, as if
/// created by a shell redirection (a temporary file starts as 0600).
fn target_permissions(target: &Path) -> fs::Permissions {
    if let Ok(meta) = fs::metadata(target) {
        return meta.permissions();
    }
    // SAFETY: umask cannot fail and touches no memory. The mask is
    // process-wide, so for the instant between the two calls a file created
    // by another thread would get 0o022 instead of the user's mask; none is
    // created then: this runs at commit, after the stages that write files
    // (pipeline threads joined, the index written), and the interrupt
    // handler's thread only removes the temporary file.
    let mask = unsafe {
        let old = libc::umask(0o022);
        libc::umask(old);
        old
    };
    fs::Permissions::from_mode(0o666 & !(mask as u32))
}
