//! The one named file this process may have to remove on its way out: the
//! temporary output of the fallback path (a file system without `O_TMPFILE`),
//! or the instant between linking the finished output and renaming it.
//!
//! It is kept in a fixed static buffer rather than a `PathBuf` because it is
//! read where nothing may allocate or lock: the SIGABRT handler that turns an
//! out-of-memory abort into a clean exit (`app::oom`), and the interrupt
//! handler. One writer at a time (the main thread, at create and at commit);
//! readers see either the whole path or none, because the length is published
//! last with `Release` and read first with `Acquire`.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

/// Longer than any path `open` accepts on Linux (PATH_MAX is 4096 with NUL).
const CAPACITY: usize = 4096;

static BYTES: [AtomicU8; CAPACITY] = [const { AtomicU8::new(0) }; CAPACITY];
/// Length of the path in `BYTES`; 0 when there is none.
static LEN: AtomicUsize = AtomicUsize::new(0);

/// Records `path` as the file to remove if the run dies now. A path too long
/// to record is not recorded (it could not have been created either).
pub fn set(path: &Path) {
    let bytes = path.as_os_str().as_bytes();
    LEN.store(0, Ordering::Release);
    if bytes.is_empty() || bytes.len() >= CAPACITY || bytes.contains(&0) {
        return;
    }
    for (slot, &b) in BYTES.iter().zip(bytes) {
        slot.store(b, Ordering::Relaxed);
    }
    LEN.store(bytes.len(), Ordering::Release);
}

/// The file was renamed into place or removed: nothing to clean up any more.
pub fn clear() {
    LEN.store(0, Ordering::Release);
}

/// Removes the recorded file, if any. Allocates nothing and takes no lock, so
/// it may run in a signal handler or after the allocator has failed; `unlink`
/// is async-signal-safe.
pub fn remove() {
    let len = LEN.swap(0, Ordering::Acquire);
    if len == 0 {
        return;
    }
    let mut path = [0u8; CAPACITY];
    for (b, slot) in path.iter_mut().zip(&BYTES[..len]) {
        *b = slot.load(Ordering::Relaxed);
    }
    // SAFETY: `path` holds `len` < CAPACITY bytes without NUL, followed by
    // zeros, so it is a NUL-terminated C string living across the call.
    unsafe {
        libc::unlink(path.as_ptr().cast());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_unlinks_the_recorded_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".simfind-x.tmp");
        std::fs::write(&path, "partial").unwrap();
        set(&path);
        remove();
        assert!(!path.exists());
        // Nothing recorded any more: a file of that name made later stays.
        std::fs::write(&path, "someone else's").unwrap();
        remove();
        assert!(path.exists());
        set(&path);
        clear();
        remove();
        assert!(path.exists());
    }
}
