//! The process's own standard streams, as output destinations.
//!
//! Two questions the `Sink` asks about them:
//!
//! - Was standard output closed when the process started
//!   (`simfind scan DIR >&-`)? Rust's runtime cannot be asked afterwards: before `main` it
//!   reopens each closed descriptor 0–2 on `/dev/null` (`sanitize_standard_fds`
//!   in std's `sys/pal/unix`, called from `lang_start`), so that `io::stdout()`
//!   never writes into an unrelated file opened later. From inside `main`, a
//!   closed stdout and a redirection to /dev/null look the same. The only
//!   sound way to tell them apart is to look before std does: a constructor
//!   in `.init_array`, which the C runtime runs before it calls the C entry
//!   point that enters `lang_start`. It makes one `fcntl(F_GETFD)` per
//!   descriptor and records the answer; std then reopens the descriptor as
//!   usual. std itself registers its argv capture this way on Linux.
//! - Does `-o PATH` name one of them (`-o /dev/stdout`, `/dev/stderr`,
//!   `/proc/self/fd/1`, `/dev/fd/2`, or the very file stdout is redirected
//!   to)? Then the output must be written through that descriptor, at its
//!   offset and with its `O_APPEND`, as a shell redirection would: replacing
//!   the file it points at would discard what the shell (or the command
//!   group) wrote there before and after simfind.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether descriptors 0, 1 and 2 were closed when the process started.
static CLOSED_AT_START: [AtomicBool; 3] = [const { AtomicBool::new(false) }; 3];

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_CLOSED_STANDARD_FDS: extern "C" fn() = record_closed_standard_fds;

/// Runs before std's runtime setup (see the module comment): no std I/O, no
/// allocation, only `fcntl` and atomics.
#[cfg(target_os = "linux")]
extern "C" fn record_closed_standard_fds() {
    for (fd, closed) in CLOSED_AT_START.iter().enumerate() {
        // SAFETY: F_GETFD reads the descriptor flags of an integer descriptor
        // and touches no memory; on a closed descriptor it fails with EBADF.
        let flags = unsafe { libc::fcntl(fd as libc::c_int, libc::F_GETFD) };
        if flags == -1 {
            closed.store(true, Ordering::Relaxed);
        }
    }
}

/// True if standard output was closed when simfind started (it now points at
/// `/dev/null`, where std reopened it).
pub fn stdout_was_closed() -> bool {
    CLOSED_AT_START[1].load(Ordering::Relaxed)
}

/// The error for output that would go to a standard stream closed at start.
pub fn closed_error(fd: usize) -> anyhow::Error {
    let name = if fd == 1 {
        "standard output"
    } else {
        "standard error"
    };
    anyhow::anyhow!(
        "{name} is closed, so the output would be lost; redirect it or give -o FILE \
         (write to /dev/null to discard it)"
    )
}

/// If `path` (whose metadata, links followed, is `target`) is the file behind
/// this process's stdout or stderr, a duplicate of that descriptor, which
/// shares its offset and `O_APPEND` flag. `Err` when `path` names a stream by
/// name (`/dev/stdout`, `/proc/self/fd/1`, …) that was closed at start; a
/// stream closed at start is std's `/dev/null` now, so `-o /dev/null` is
/// still simply `/dev/null`.
pub fn own_stream(path: &Path, target: &std::fs::Metadata) -> anyhow::Result<Option<File>> {
    let candidates: [(usize, io::Result<File>); 2] = [
        (1, dup(io::stdout().as_fd())),
        (2, dup(io::stderr().as_fd())),
    ];
    for (fd, file) in candidates {
        let Ok(file) = file else { continue };
        let Ok(meta) = file.metadata() else { continue };
        if CLOSED_AT_START[fd].load(Ordering::Relaxed) {
            if names_stream(path, fd) {
                return Err(closed_error(fd));
            }
            continue;
        }
        if meta.dev() == target.dev() && meta.ino() == target.ino() {
            return Ok(Some(file));
        }
    }
    Ok(None)
}

/// Whether `path` is one of the usual spellings of descriptor `fd`.
fn names_stream(path: &Path, fd: usize) -> bool {
    let named = if fd == 1 {
        "/dev/stdout"
    } else {
        "/dev/stderr"
    };
    path == Path::new(named)
        || path == Path::new(&format!("/dev/fd/{fd}"))
        || path == Path::new(&format!("/proc/self/fd/{fd}"))
}

fn dup(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<File> {
    fd.try_clone_to_owned().map(File::from)
}
