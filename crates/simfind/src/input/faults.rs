//! Fault injection: named points of the read path where a test can change a
//! file (remove, truncate, extend, chmod, swap for a link) or make the read
//! fail, at exactly that point of the run. `tests/faults.rs` drives it; the
//! binary never installs a hook.
//!
//! Cost when no hook is installed: one relaxed atomic load per point passed
//! (a few per file read), no lock, no allocation.
//!
//! Hooks are process-wide (the pipeline reads on worker threads), so several
//! tests of one test binary may have theirs installed at once: every hook is
//! called at every point and must ignore paths that are not its own (each
//! test works in its own temporary directory).

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Where a read has got to when a hook is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// A file is about to be opened: by the signing pass (after the walk
    /// found it), by a verification reload or by a query's reload.
    Open,
    /// A file is open and `fstat`ed (its size and mtime taken), and no byte
    /// is read or mapped yet: an error here is a read that fails part-way.
    Opened,
    /// The chunked path has hashed a large file (its first pass) and is about
    /// to sign it (the second pass over the same open file).
    BetweenPasses,
}

/// A hook: called with the point and the path; an `Err` is what the read
/// of that file fails with at that point.
pub type Hook = dyn Fn(Point, &Path) -> io::Result<()> + Send + Sync;

static ARMED: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(0);
static HOOKS: RwLock<Vec<(u64, Arc<Hook>)>> = RwLock::new(Vec::new());

/// Keeps a hook installed; dropping it removes the hook.
#[must_use = "the hook is removed when the guard is dropped"]
pub struct Installed {
    id: u64,
}

/// Installs `hook` until the returned guard is dropped.
pub fn install(hook: impl Fn(Point, &Path) -> io::Result<()> + Send + Sync + 'static) -> Installed {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut hooks = HOOKS.write().unwrap_or_else(|e| e.into_inner());
    hooks.push((id, Arc::new(hook)));
    ARMED.store(true, Ordering::SeqCst);
    Installed { id }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let mut hooks = HOOKS.write().unwrap_or_else(|e| e.into_inner());
        hooks.retain(|(id, _)| *id != self.id);
        ARMED.store(!hooks.is_empty(), Ordering::SeqCst);
    }
}

/// Runs the installed hooks for `path` at `point`; the first error wins.
#[inline]
pub(crate) fn at(point: Point, path: &Path) -> io::Result<()> {
    if !ARMED.load(Ordering::Relaxed) {
        return Ok(());
    }
    run_hooks(point, path)
}

#[cold]
fn run_hooks(point: Point, path: &Path) -> io::Result<()> {
    // Cloned out so that a hook runs without the lock held.
    let hooks: Vec<Arc<Hook>> = HOOKS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(_, hook)| Arc::clone(hook))
        .collect();
    hooks.iter().try_for_each(|hook| hook(point, path))
}
