//! Large allocations that can be predicted are made fallibly: when one fails,
//! the run ends with a message naming what needed the memory, how much, and
//! which setting lowers it ([`Lower`]), instead of std's `memory allocation of N bytes
//! failed` and an abort.
//!
//! Role: the library cannot exit or print (the binary owns both), so a
//! failure goes to a hook the binary sets once ([`set_hook`]; `app::limits`
//! removes any named partial output, prints and exits with status 2). Without
//! a hook (a library caller, a test) it panics with the same message.
//! Allocations nobody can predict (a path, a warning) still go through the
//! allocator, and the binary's SIGABRT backstop turns those into exit 2.
//!
//! Budget: before a large allocation (from [`CHECKED_FROM`]) is tried, its
//! size is compared with what the binary's probe ([`set_budget`]) says is
//! left: the address-space limit (`ulimit -v`) less what the process maps,
//! the cgroup's `memory.max` less its use, the system's available memory and
//! free swap, whichever is least. A stage that would not fit fails before it
//! starts, with the same message and which limit binds, instead of being
//! killed by the kernel's OOM killer half-way (where overcommit lets the
//! allocation succeed) or failing after minutes of work.

use std::fmt;
use std::sync::OnceLock;

/// An allocation of ours that failed.
#[derive(Debug, Clone, Copy)]
pub struct OutOfMemory {
    /// What needed it ("the signature matrix").
    pub what: &'static str,
    /// Bytes asked for (`usize::MAX` when the size itself overflowed).
    pub bytes: usize,
    /// Which settings need less of it.
    pub lower: Lower,
    /// The budget it exceeded, when the check before it failed (rather
    /// than the allocation).
    pub budget: Option<Budget>,
}

/// How many bytes a new allocation can still have, and the limit that
/// says so (`"the address-space limit (ulimit -v)"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub bytes: u64,
    pub limit: &'static str,
}

/// What makes an allocation smaller, named by the settings that do it; the
/// binary words these as its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lower {
    /// The signature matrix and the band tables: a shorter signature, fewer
    /// documents.
    Signatures,
    /// The shingle sets the exact method holds.
    Sets,
    /// The exact join's index.
    Join,
    /// The candidate pairs.
    Candidates,
    /// A thread's stack: fewer threads.
    Threads,
}

impl fmt::Display for Lower {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lower::Signatures => {
                "fewer bands or rows (a shorter signature per document), a maximum size or \
                 fewer roots (fewer documents)"
            }
            Lower::Sets => {
                "the LSH method (the exact join holds every shingle set), a maximum size \
                 (skip the largest documents)"
            }
            Lower::Join => {
                "the LSH method (the exact join indexes every shingle set), a higher threshold \
                 (shorter prefixes), a maximum size (skip the largest documents)"
            }
            Lower::Candidates => "more rows or a higher threshold (fewer candidate pairs)",
            Lower::Threads => "fewer threads (each reserves its own stack)",
        })
    }
}

impl OutOfMemory {
    /// The message up to its advice: what needed how much, and the budget it
    /// exceeded. For a caller that words [`Lower`] itself; like `Display`, it
    /// allocates nothing.
    pub fn write_need(&self, f: &mut impl fmt::Write) -> fmt::Result {
        write!(f, "out of memory: {} needs ", self.what)?;
        match self.bytes {
            usize::MAX => write!(f, "more than the address space")?,
            b if b >= 1 << 20 => write!(f, "{:.1} MiB", b as f64 / (1u64 << 20) as f64)?,
            b if b >= 1 << 10 => write!(f, "{:.1} KiB", b as f64 / 1024.0)?,
            b => write!(f, "{b} bytes")?,
        }
        if let Some(budget) = self.budget {
            write!(
                f,
                ", more than the {:.1} MiB {} leaves",
                budget.bytes as f64 / (1u64 << 20) as f64,
                budget.limit
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written piece by piece, allocating nothing: memory has run out.
        self.write_need(f)?;
        write!(f, "; to need less: {}", self.lower)
    }
}

static HOOK: OnceLock<fn(&OutOfMemory) -> !> = OnceLock::new();
static BUDGET: OnceLock<fn() -> Option<Budget>> = OnceLock::new();

/// Allocations from this size on are checked against the budget first;
/// smaller ones are not worth reading `/proc` for.
pub const CHECKED_FROM: usize = 16 << 20;

/// Sets how the budget is found (once; later calls are ignored). Without
/// it, nothing is checked before an allocation.
pub fn set_budget(probe: fn() -> Option<Budget>) {
    let _ = BUDGET.set(probe);
}

/// Ends the run (through the hook) when `bytes`, about to be allocated for
/// `what`, exceed the budget: before a stage whose memory is known.
pub fn check(bytes: usize, what: &'static str, lower: Lower) {
    if bytes < CHECKED_FROM {
        return;
    }
    if let Some(budget) = BUDGET.get().and_then(|probe| probe())
        && bytes as u64 > budget.bytes
    {
        fail(OutOfMemory {
            what,
            bytes,
            lower,
            budget: Some(budget),
        });
    }
}

/// Sets what a failed allocation does (once; later calls are ignored).
pub fn set_hook(hook: fn(&OutOfMemory) -> !) {
    let _ = HOOK.set(hook);
}

#[cold]
fn fail(oom: OutOfMemory) -> ! {
    match HOOK.get() {
        Some(hook) => hook(&oom),
        None => panic!("{oom}"),
    }
}

/// The stack a new thread reserves (std's default), named when one could
/// not be started.
pub const THREAD_STACK: usize = 2 << 20;

/// Ends the run (through the hook) because a thread of `what` could not be
/// started: under an address-space limit (`ulimit -v`) its stack is the
/// allocation that fails, and `std::thread::scope`'s `spawn` would panic.
#[cold]
pub fn no_thread(what: &'static str) -> ! {
    fail(OutOfMemory {
        what,
        bytes: THREAD_STACK,
        lower: Lower::Threads,
        budget: None,
    })
}

/// `scope.spawn(f)`, except that a thread that cannot be started (its stack
/// does not fit under an address-space limit) ends the run as out of memory
/// ([`no_thread`], naming `what`) rather than panicking.
pub fn spawn<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    what: &'static str,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    std::thread::Builder::new()
        .spawn_scoped(scope, f)
        .unwrap_or_else(|_| no_thread(what))
}

/// `vec.try_reserve(additional)` after the budget [check], or the
/// out-of-memory path.
pub fn reserve<T>(vec: &mut Vec<T>, additional: usize, what: &'static str, lower: Lower) {
    if vec.capacity() - vec.len() >= additional {
        return;
    }
    let bytes = vec
        .len()
        .checked_add(additional)
        .and_then(|n| n.checked_mul(std::mem::size_of::<T>()))
        .unwrap_or(usize::MAX);
    // try_reserve grows to at least twice the capacity: that block is what
    // must fit.
    let block = bytes.max(vec.capacity().saturating_mul(2 * std::mem::size_of::<T>()));
    check(block, what, lower);
    if vec.try_reserve(additional).is_err() {
        fail(OutOfMemory {
            what,
            bytes,
            lower,
            budget: None,
        });
    }
}

/// `vec.resize(len, value)` with the growth reserved fallibly first.
pub fn resize<T: Clone>(vec: &mut Vec<T>, len: usize, value: T, what: &'static str, lower: Lower) {
    reserve(vec, len.saturating_sub(vec.len()), what, lower);
    vec.resize(len, value);
}

/// `vec![value; rows × cols]`, fallibly (the product checked too).
pub fn filled<T: Clone>(
    value: T,
    rows: usize,
    cols: usize,
    what: &'static str,
    lower: Lower,
) -> Vec<T> {
    let Some(len) = rows.checked_mul(cols) else {
        fail(OutOfMemory {
            what,
            bytes: usize::MAX,
            lower,
            budget: None,
        });
    };
    let mut vec = Vec::new();
    resize(&mut vec, len, value, what, lower);
    vec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "out of memory: the test table needs more than the address space")]
    fn an_impossible_size_fails_with_the_message() {
        let _: Vec<u64> = filled(0, usize::MAX, 2, "the test table", Lower::Sets);
    }

    #[test]
    #[should_panic(expected = "out of memory: the test table needs")]
    fn a_too_large_reservation_fails_with_the_message() {
        let mut v: Vec<u64> = Vec::new();
        reserve(&mut v, usize::MAX / 4, "the test table", Lower::Sets);
    }

    #[test]
    fn the_message_names_the_budget_that_binds() {
        let oom = OutOfMemory {
            what: "the signature matrix",
            bytes: 200 << 20,
            lower: Lower::Signatures,
            budget: Some(Budget {
                bytes: 100 << 20,
                limit: "the address-space limit (ulimit -v)",
            }),
        };
        assert_eq!(
            oom.to_string(),
            format!(
                "out of memory: the signature matrix needs 200.0 MiB, more than the 100.0 MiB \
                 the address-space limit (ulimit -v) leaves; to need less: {}",
                Lower::Signatures
            )
        );
    }

    #[test]
    fn small_requests_and_spare_capacity_are_not_checked() {
        // No budget probe is set in the library's tests: a check of any size
        // passes, and below CHECKED_FROM none would be made.
        check(usize::MAX, "x", Lower::Sets);
        let mut v: Vec<u8> = Vec::with_capacity(10);
        reserve(&mut v, 10, "x", Lower::Sets);
        assert_eq!(v.capacity(), 10);
    }

    #[test]
    fn a_possible_size_is_filled() {
        assert_eq!(filled(7u32, 3, 2, "x", Lower::Sets), vec![7; 6]);
    }
}
