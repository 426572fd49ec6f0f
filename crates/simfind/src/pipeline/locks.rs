//! The pipeline's locks: no thread panics while holding one, so a poisoned
//! lock is a bug, not a state to recover from.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Locks `mutex`; no thread panics while holding one of the pipeline's locks,
/// so a poisoned lock is a bug.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().expect("no panics while locked")
}

/// [`Condvar::wait`] on a lock taken with [`lock`].
pub(super) fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar.wait(guard).expect("no panics while locked")
}

/// The value of a lock nobody else holds any more.
pub(super) fn into_inner<T>(mutex: Mutex<T>) -> T {
    mutex.into_inner().expect("no panics while locked")
}
