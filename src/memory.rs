//! Large allocations that can be predicted are made fallibly: when one fails,
//! the run ends with a message naming what needed the memory, how much, and
//! which option lowers it, instead of std's `memory allocation of N bytes
//! failed` and an abort.
//!
//! Role: the library cannot exit or print (the binary owns both), so a
//! failure goes to a hook the binary sets once ([`set_hook`]; `app::limits`
//! removes any named partial output, prints and exits with status 2). Without
//! a hook (a library caller, a test) it panics with the same message.
//! Allocations nobody can predict (a path, a warning) still go through the
//! allocator, and the binary's SIGABRT backstop turns those into exit 2.

use std::fmt;
use std::sync::OnceLock;

/// An allocation of ours that failed.
#[derive(Debug, Clone, Copy)]
pub struct OutOfMemory {
    /// What needed it ("the signature matrix").
    pub what: &'static str,
    /// Bytes asked for (`usize::MAX` when the size itself overflowed).
    pub bytes: usize,
    /// Which options need less of it.
    pub lower: &'static str,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written piece by piece, allocating nothing: memory has run out.
        write!(f, "out of memory: {} needs ", self.what)?;
        match self.bytes {
            usize::MAX => write!(f, "more than the address space")?,
            b if b >= 1 << 20 => write!(f, "{:.1} MiB", b as f64 / (1u64 << 20) as f64)?,
            b if b >= 1 << 10 => write!(f, "{:.1} KiB", b as f64 / 1024.0)?,
            b => write!(f, "{b} bytes")?,
        }
        write!(f, "; to need less: {}", self.lower)
    }
}

static HOOK: OnceLock<fn(&OutOfMemory) -> !> = OnceLock::new();

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

/// `vec.try_reserve(additional)`, or the out-of-memory path.
pub fn reserve<T>(vec: &mut Vec<T>, additional: usize, what: &'static str, lower: &'static str) {
    if vec.try_reserve(additional).is_err() {
        let bytes = vec
            .len()
            .checked_add(additional)
            .and_then(|n| n.checked_mul(std::mem::size_of::<T>()))
            .unwrap_or(usize::MAX);
        fail(OutOfMemory { what, bytes, lower });
    }
}

/// `vec.resize(len, value)` with the growth reserved fallibly first.
pub fn resize<T: Clone>(
    vec: &mut Vec<T>,
    len: usize,
    value: T,
    what: &'static str,
    lower: &'static str,
) {
    reserve(vec, len.saturating_sub(vec.len()), what, lower);
    vec.resize(len, value);
}

/// `vec![value; rows × cols]`, fallibly (the product checked too).
pub fn filled<T: Clone>(
    value: T,
    rows: usize,
    cols: usize,
    what: &'static str,
    lower: &'static str,
) -> Vec<T> {
    let Some(len) = rows.checked_mul(cols) else {
        fail(OutOfMemory {
            what,
            bytes: usize::MAX,
            lower,
        });
    };
    let mut vec = Vec::new();
    resize(&mut vec, len, value, what, lower);
    vec
}

/// The options that shorten the signature matrix and the band tables.
pub const LOWER_SIGNATURES: &str = "fewer --bands or --rows (a shorter signature per file), \
--max-size or fewer roots (fewer files)";
/// The options that lower the shingle sets held for the exact method.
pub const LOWER_SETS: &str = "--method lsh (the exact join holds every shingle set), \
--max-size SIZE (skip the largest files)";
/// The options that lower the candidate pairs.
pub const LOWER_CANDIDATES: &str = "more --rows or a higher --threshold (fewer candidate pairs)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "out of memory: the test table needs more than the address space")]
    fn an_impossible_size_fails_with_the_message() {
        let _: Vec<u64> = filled(0, usize::MAX, 2, "the test table", LOWER_SETS);
    }

    #[test]
    #[should_panic(expected = "out of memory: the test table needs")]
    fn a_too_large_reservation_fails_with_the_message() {
        let mut v: Vec<u64> = Vec::new();
        reserve(&mut v, usize::MAX / 4, "the test table", LOWER_SETS);
    }

    #[test]
    fn a_possible_size_is_filled() {
        assert_eq!(filled(7u32, 3, 2, "x", LOWER_SETS), vec![7; 6]);
    }
}
