//! What the measuring examples share: the calling thread's CPU clock and a
//! corpus read into memory.

/// CPU seconds of the calling thread.
pub fn thread_cpu() -> f64 {
    // SAFETY: timespec is plain integers, for which all-zero bytes are valid.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: clock_gettime writes one timespec into the valid, exclusive `t`.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// The bytes of the regular files under `dir`, in path order, links not
/// followed.
pub fn files(dir: &std::path::Path, out: &mut Vec<Vec<u8>>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.is_dir() {
            files(&path, out)?;
        } else if meta.is_file() {
            out.push(std::fs::read(&path)?);
        }
    }
    Ok(())
}
