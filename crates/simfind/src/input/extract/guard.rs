//! Running an extractor so that a hostile file costs only its budget: on a
//! thread of its own (a deep stack for deeply nested documents), its panic
//! caught and not printed, and abandoned after the time budget.
//!
//! Why a thread: the format crates are third-party parsers, some of which
//! panic by design on input they do not support (pdf-extract), recurse as
//! deep as the document nests, or loop for a long time on a crafted file.
//! A panic is caught; a stack overflow would abort the process, so the
//! thread's stack is large (address space only: pages are touched as used);
//! and a file over the budget is given up: its thread finishes on its own,
//! its result dropped.

use std::cell::Cell;
use std::sync::{Once, mpsc};
use std::time::Duration;

use super::Failure;

/// The stack of an extraction thread.
const STACK: usize = 256 << 20;

thread_local! {
    /// Set on extraction threads: their panics are results, not messages.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs, once, a panic hook that stays silent on extraction threads and
/// calls the previous hook everywhere else.
fn quiet_extractor_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// `run(bytes)` on an extraction thread, within `budget`: its text, its
/// failure, a panic as a damaged document, or [`Failure::TimedOut`].
pub(super) fn isolated(
    bytes: &[u8],
    budget: Duration,
    run: impl FnOnce(&[u8]) -> Result<String, Failure> + Send + 'static,
) -> Result<String, Failure> {
    quiet_extractor_panics();
    let owned = bytes.to_vec();
    let (send, receive) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("simfind-extract".to_string())
        .stack_size(STACK)
        .spawn(move || {
            QUIET.with(|q| q.set(true));
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&owned)))
                .unwrap_or_else(|panic| Err(Failure::Damaged(panic_reason(&panic))));
            // The receiver is gone when the budget ran out: nothing to do.
            let _ = send.send(result);
        });
    if let Err(err) = spawned {
        return Err(Failure::Damaged(format!(
            "no thread to extract it on: {err}"
        )));
    }
    match receive.recv_timeout(budget) {
        Ok(result) => result,
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Failure::TimedOut(budget)),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(Failure::Damaged("the extractor stopped".to_string()))
        }
    }
}

/// The message of a caught panic, as the extractor's reason.
fn panic_reason(panic: &Box<dyn std::any::Any + Send>) -> String {
    format!("the extractor failed: {}", panic_message(panic))
}

/// What a caught panic says.
fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".to_string())
}

/// Runs `f` on this thread with a panic caught and not printed, its message
/// the error: for a third-party decoder called inline, where a thread per
/// call would cost more than the call. The parquet crate panics on some
/// damaged pages (a division by a page's value count of zero, found by the
/// `exchange` fuzz target), so every read of a Parquet file not written by
/// this run goes through here; its state is dropped after a panic.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) fn caught<T>(f: impl FnOnce() -> T) -> Result<T, Panicked> {
    quiet_extractor_panics();
    let was = QUIET.with(|q| q.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.map_err(|panic| Panicked(panic_message(&panic)))
}

/// A panic [`caught`] in a third-party decoder: what it said.
#[derive(Debug)]
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) struct Panicked(String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
