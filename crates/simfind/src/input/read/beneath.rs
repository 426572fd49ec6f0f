//! Opening a file by its path below a root without following a symbolic link
//! in any component of that path: what a re-read needs when the walk read no
//! link (no `-L`). Checking only the last component (`O_NOFOLLOW`) leaves the
//! directories above it: one swapped for a link after the walk would lead the
//! re-read outside the roots.
//!
//! The root itself is opened as the user named it (a root given through a
//! link is the user's to follow). Below it, Linux's `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` lets the kernel refuse any link and
//! any `..` that climbs out; where `openat2` is missing (kernels before 5.6,
//! or a seccomp filter that rejects it) the same is done one component at a
//! time with `openat(…, O_NOFOLLOW)`.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path};

/// `relative` (below `root`) opened read-only with `flags`, refusing a symbolic
/// link or `..` anywhere in `relative` with `ELOOP` (or `EXDEV` for a `..`
/// that leaves the root under `openat2`).
pub(super) fn open_beneath(root: &Path, relative: &Path, flags: libc::c_int) -> io::Result<File> {
    open_beneath_dir(&open_root(root)?, relative, flags)
}

/// The root directory, opened as the user named it (links followed).
pub(super) fn open_root(root: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(root)
}

/// [`open_beneath`] below a root directory already open.
pub(super) fn open_beneath_dir(
    root: &File,
    relative: &Path,
    flags: libc::c_int,
) -> io::Result<File> {
    #[cfg(target_os = "linux")]
    match openat2_beneath(root, relative, flags) {
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ENOSYS | libc::EPERM | libc::E2BIG)
            ) => {}
        result => return result,
    }
    open_component_by_component(root.try_clone()?, relative, flags)
}

/// `struct open_how` of `linux/openat2.h` (libc's is `non_exhaustive`).
#[cfg(target_os = "linux")]
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

#[cfg(target_os = "linux")]
fn openat2_beneath(root: &File, relative: &Path, flags: libc::c_int) -> io::Result<File> {
    let name = c_path(relative)?;
    let how = OpenHow {
        flags: (flags | libc::O_RDONLY | libc::O_CLOEXEC) as u64,
        mode: 0,
        resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS,
    };
    // SAFETY: openat2 reads a NUL-terminated path and an `open_how` of the
    // given size, both alive for the call; it returns a new descriptor or -1.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            root.as_raw_fd(),
            name.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a descriptor openat2 just opened for us and nobody else owns.
    Ok(unsafe { File::from_raw_fd(fd as libc::c_int) })
}

/// The portable fallback: each directory below the root opened with
/// `O_NOFOLLOW | O_DIRECTORY`, then the file with `O_NOFOLLOW`.
pub(super) fn open_component_by_component(
    root: File,
    relative: &Path,
    flags: libc::c_int,
) -> io::Result<File> {
    let names: Vec<&std::ffi::OsStr> = relative
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            // A `..` or an absolute part could leave the root.
            _ => Err(io::Error::from_raw_os_error(libc::EXDEV)),
        })
        .collect::<io::Result<_>>()?;
    let Some((last, dirs)) = names.split_last() else {
        return Err(io::Error::from_raw_os_error(libc::EISDIR));
    };
    let mut dir = root;
    for name in dirs {
        dir = match openat(&dir, name, libc::O_DIRECTORY | libc::O_NOFOLLOW) {
            // O_DIRECTORY is checked first: a link is "not a directory" here.
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) && is_link(&dir, name) => {
                return Err(io::Error::from_raw_os_error(libc::ELOOP));
            }
            result => result?,
        };
    }
    openat(&dir, last, flags | libc::O_NOFOLLOW)
}

fn openat(dir: &File, name: &std::ffi::OsStr, flags: libc::c_int) -> io::Result<File> {
    let name = c_path(Path::new(name))?;
    // SAFETY: openat reads a NUL-terminated name alive for the call and
    // returns a new descriptor or -1.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            name.as_ptr(),
            flags | libc::O_RDONLY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened for us and nobody else owns it.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Whether `name` in `dir` is a symbolic link (not followed).
fn is_link(dir: &File, name: &std::ffi::OsStr) -> bool {
    let Ok(name) = c_path(Path::new(name)) else {
        return false;
    };
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstatat writes a `stat` into the buffer we own and reads a
    // NUL-terminated name alive for the call.
    let status = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            stat.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    // SAFETY: fstatat returned 0, so it filled the buffer.
    status == 0 && (unsafe { stat.assume_init() }.st_mode & libc::S_IFMT) == libc::S_IFLNK
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}
