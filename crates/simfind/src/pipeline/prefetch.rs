//! Reading ahead of the signing workers (`--io-threads N`), for storage where
//! every `open` and `read` waits on the network (NFS, SMB): there a scan is
//! bound by latency, not by CPU, and one read in flight per worker leaves both
//! the cores and the link idle.
//!
//! A stage between the walker and the workers: each batch the walk hands over
//! is read by a pool of `N` threads (the same [`FileSource`] open a worker
//! would do, with its checks), then queued for the workers, who sign what was
//! read instead of reading it. Only files below the mapping threshold are read
//! ahead: larger ones are mapped and signed a chunk at a time by the worker
//! (a stream, for which the kernel's own readahead already keeps the link
//! busy). What is read ahead and not yet signed stays under [`BUDGET`]; past it
//! files are left for the workers to read, so a slow signer never makes this
//! stage hold more. Output is unchanged: a file's bytes and errors are the same
//! whichever thread read them.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::input::read::{ReadError, ReadOptions};
use crate::input::walk::FileEntry;
use crate::source::{Document, FileSource, Source};

/// Bytes read ahead and not yet signed, at most. Enough for thousands of
/// typical documents in flight, little beside the memory budget of a scan
/// (docs/PERFORMANCE.md, "Memory").
pub(super) const BUDGET: u64 = 64 << 20;

/// A file's read, done ahead; `None` where the worker reads it itself.
pub(super) type ReadAhead = Option<Result<Document, ReadError>>;

pub(super) struct Prefetcher {
    pool: rayon::ThreadPool,
    /// Bytes read ahead whose files no worker has signed yet.
    in_flight: AtomicU64,
    follow_links: bool,
    options: ReadOptions,
}

impl Prefetcher {
    /// A pool of `options.io_threads` threads, or `None` when that is 0 or the
    /// threads cannot be started (then workers read as without the option).
    pub(super) fn new(options: &ReadOptions, follow_links: bool) -> Option<Self> {
        if options.io_threads == 0 {
            return None;
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.io_threads)
            .thread_name(|i| format!("simfind-io-{i}"))
            .build()
            .ok()?;
        Some(Prefetcher {
            pool,
            in_flight: AtomicU64::new(0),
            follow_links,
            options: options.clone(),
        })
    }

    /// Reads `files` ahead, up to [`BUDGET`], all of them at once as far as
    /// the pool allows; one entry per file.
    pub(super) fn read(&self, files: &[FileEntry]) -> Vec<ReadAhead> {
        let taken: Vec<bool> = files.iter().map(|f| self.take(f.size)).collect();
        let source = FileSource::new(files, self.follow_links, &self.options);
        self.pool.install(|| {
            taken
                .par_iter()
                .enumerate()
                .with_max_len(1)
                .map(|(id, &taken)| taken.then(|| source.open(id)))
                .collect()
        })
    }

    /// Whether a file of `size` bytes is read ahead: small enough to be read
    /// rather than mapped, and within the budget (counted if so).
    fn take(&self, size: u64) -> bool {
        if size >= self.options.mmap_min_size {
            return false;
        }
        self.in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                (held + size <= BUDGET).then_some(held + size)
            })
            .is_ok()
    }

    /// A worker is done with a file read ahead whose walked size was `size`.
    pub(super) fn release(&self, size: u64) {
        self.in_flight.fetch_sub(size, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefetcher(io_threads: usize) -> Option<Prefetcher> {
        let options = ReadOptions {
            io_threads,
            ..ReadOptions::default()
        };
        Prefetcher::new(&options, false)
    }

    #[test]
    fn no_threads_no_stage() {
        assert!(prefetcher(0).is_none());
        assert!(prefetcher(3).is_some());
    }

    #[test]
    fn the_budget_bounds_what_is_read_ahead_until_released() {
        let p = prefetcher(2).unwrap();
        let size = p.options.mmap_min_size - 1;
        let fit = BUDGET / size;
        for _ in 0..fit {
            assert!(p.take(size));
        }
        assert!(
            !p.take(size),
            "past the budget, workers read for themselves"
        );
        assert!(
            p.take(BUDGET - fit * size),
            "what is left still fits exactly"
        );
        p.release(size);
        assert!(p.take(size), "a release makes room again");
        assert!(!p.take(1));
    }

    #[test]
    fn mapped_files_are_never_read_ahead() {
        let p = prefetcher(2).unwrap();
        assert!(!p.take(p.options.mmap_min_size));
        assert!(p.take(p.options.mmap_min_size - 1));
    }
}
