//! The SIGBUS guard: the registry of live mappings, the signal handler, and
//! [`GuardedMap`], a read-only mapping registered with the guard for its whole
//! life. It is what makes handing out `&[u8]` over a mapped file sound when
//! another process may truncate the file (see [`super`] for the read stage
//! itself).
//!
//! # Why mapping is safe: the SIGBUS guard (Linux)
//!
//! Touching a page of a shared file mapping that lies beyond the file's current
//! end (another process truncated it) or whose read failed (I/O error, NFS gone)
//! makes the kernel send SIGBUS to the touching thread; the default action kills
//! the process. Rust's `&[u8]` over such a mapping is therefore only sound if
//! something catches that fault. This module does:
//!
//! 1. Once per process ([`std::sync::Once`]) it records the current SIGBUS
//!    action and installs `on_sigbus` with `SA_SIGINFO|SA_ONSTACK` (`ONSTACK` so
//!    that it runs on the alternate stack Rust sets up for its own stack-overflow
//!    handler, which is also a SIGBUS handler — we chain to it).
//! 2. Every mapping is registered in a fixed array of [`REGISTRY_SLOTS`] slots
//!    before any byte of it is handed out, and unregistered *before* it is
//!    unmapped. A slot holds the range behind a seqlock, plus a `faulted` flag.
//!    All of it is plain atomics: no locks, no allocation.
//! 3. The handler looks only at kernel-generated faults (`si_code` `BUS_ADRERR`
//!    or `BUS_OBJERR`). If `si_addr` lies in a registered range, it maps
//!    anonymous zero pages with `MAP_FIXED` over the faulting page up to the end
//!    of that mapping, sets the slot's `faulted` flag and returns: the faulting
//!    load is restarted and now reads zero. Replacing the rest of the mapping at
//!    once (not just one page) means a whole truncated tail costs one signal, not
//!    one per page; those bytes are untrustworthy anyway once a fault was seen.
//! 4. Any other SIGBUS is never swallowed: the handler calls the previous handler
//!    (Rust's stack-overflow check, which resets SIGBUS to the default and
//!    returns), or itself resets SIGBUS to `SIG_DFL` and returns, so that the
//!    faulting instruction runs again and the process dies as it would have
//!    without us.
//!
//! Safety argument. The handler calls only `mmap` and `sigaction` (thin system
//! call wrappers: `sigaction` is on POSIX's async-signal-safe list; `mmap` is
//! not, so this relies on Linux, where glibc's and musl's `mmap` are a bare
//! system call), reads atomics, and saves/restores `errno`.
//! It never retries a seqlock read: a slot that is being written is treated as
//! no match, which cannot miss a real fault because a slot is stable for as long
//! as its mapping can be touched (published before the `Contents` exists,
//! withdrawn only in `Drop`, when no borrow of the bytes can be alive). A
//! registered range is ours, so the `MAP_FIXED` can only replace pages of our
//! own read-only mapping, which `munmap` in `Drop` then removes together with
//! the rest. If the rescue `mmap` itself fails (out of memory), the fault is
//! treated as foreign and the process dies with SIGBUS — the same outcome as
//! without the guard. Limits: a library that later replaces our SIGBUS handler
//! without chaining disables the guard; on other platforms than Linux files are
//! always read, never mapped.

use super::REGISTRY_SLOTS;
use memmap2::{Mmap, MmapOptions};
use std::fs::File;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
use std::sync::{Once, OnceLock};

/// One registered mapping. `start`/`len` are guarded by the seqlock `seq`
/// (odd while being written); only the slot's owner writes them.
struct Slot {
    owner: AtomicBool,
    seq: AtomicUsize,
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

impl Slot {
    const fn new() -> Self {
        Slot {
            owner: AtomicBool::new(false),
            seq: AtomicUsize::new(0),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
        }
    }

    /// Owner only.
    fn publish(&self, start: usize, len: usize) {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        self.start.store(start, Ordering::Relaxed);
        self.len.store(len, Ordering::Relaxed);
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }

    /// Async-signal-safe, never spins: a slot in the middle of an update reads
    /// as empty (it cannot be the one being touched; see module docs).
    fn range(&self) -> Option<(usize, usize)> {
        let s1 = self.seq.load(Ordering::Acquire);
        if s1 & 1 == 1 {
            return None;
        }
        let start = self.start.load(Ordering::Relaxed);
        let len = self.len.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let s2 = self.seq.load(Ordering::Relaxed);
        (s1 == s2 && start != 0).then_some((start, len))
    }
}

static REGISTRY: [Slot; REGISTRY_SLOTS] = [const { Slot::new() }; REGISTRY_SLOTS];
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(0);
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

fn install() -> bool {
    INSTALL.call_once(|| {
        // SAFETY: plain libc calls with valid, zero-initialised out-parameters.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page <= 0 || (page as usize) & (page as usize - 1) != 0 {
                return;
            }
            PAGE_SIZE.store(page as usize, Ordering::Relaxed);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return;
            }
            // Set before installing, so the handler always finds it.
            let _ = PREVIOUS.set(old);
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            if libc::sigaction(libc::SIGBUS, &new, std::ptr::null_mut()) == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    });
    INSTALLED.load(Ordering::Acquire)
}

fn claim_slot() -> Option<usize> {
    (0..REGISTRY_SLOTS).find(|&i| {
        REGISTRY[i]
            .owner
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    })
}

/// A read-only mapping registered with the SIGBUS guard for its whole life.
pub(super) struct GuardedMap {
    map: ManuallyDrop<Mmap>,
    slot: usize,
}

impl GuardedMap {
    /// `None` if the guard cannot be installed, the registry is full or the
    /// file system refuses `mmap`: the caller then reads the file instead.
    pub(super) fn new(file: &File, len: usize) -> Option<GuardedMap> {
        if len == 0 || !install() {
            return None;
        }
        let slot = claim_slot()?;
        // SAFETY: the mapping is read-only and private to this value; memory
        // safety against concurrent truncation is what the guard provides: the
        // range is registered below before any byte is exposed.
        let map = match unsafe { MmapOptions::new().len(len).map(file) } {
            Ok(m) => m,
            Err(_) => {
                REGISTRY[slot].owner.store(false, Ordering::Release);
                return None;
            }
        };
        let s = &REGISTRY[slot];
        s.faulted.store(false, Ordering::Relaxed);
        s.publish(map.as_ptr() as usize, map.len());
        // Read-once access: let the kernel read ahead aggressively and drop
        // pages behind us. Advice only, so a failure changes nothing.
        let _ = map.advise(memmap2::Advice::Sequential);
        Some(GuardedMap {
            map: ManuallyDrop::new(map),
            slot,
        })
    }

    pub(super) fn bytes(&self) -> &[u8] {
        &self.map
    }

    pub(super) fn faulted(&self) -> bool {
        REGISTRY[self.slot].faulted.load(Ordering::Acquire)
    }

    /// `MADV_DONTNEED` on the whole pages before `offset`. The kernel
    /// rounds a length *up* to pages, so the length is rounded down here:
    /// a page partly after `offset` stays.
    pub(super) fn release_before(&self, offset: usize) {
        let page = PAGE_SIZE.load(Ordering::Relaxed);
        if page == 0 {
            return;
        }
        let len = offset.min(self.map.len()) & !(page - 1);
        if len == 0 {
            return;
        }
        // SAFETY: DONTNEED on a private read-only file mapping only drops
        // pages that nobody wrote to: the next access maps the file's
        // page again, so every `&[u8]` into the mapping keeps reading the
        // same bytes (the file changing under a mapping is what the
        // guard and `verify_unchanged` cover, as for any access). Pages
        // the guard replaced by anonymous zero pages read as zeros again.
        let _ = unsafe {
            self.map
                .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, len)
        };
    }
}

impl Drop for GuardedMap {
    fn drop(&mut self) {
        let s = &REGISTRY[self.slot];
        // Withdraw the range before munmap, so the handler never acts on an
        // address range that may already belong to someone else.
        s.publish(0, 0);
        // SAFETY: dropped exactly once, here; nothing borrows it any more.
        unsafe { ManuallyDrop::drop(&mut self.map) };
        s.owner.store(false, Ordering::Release);
    }
}

/// The SIGBUS handler `install` registers (`SA_SIGINFO|SA_ONSTACK`). It runs
/// on the faulting thread and may interrupt any code, so it only reads
/// atomics and makes system calls (see the module docs).
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: `__errno_location` has no preconditions; it returns the
    // calling thread's errno slot, valid for the thread's whole life.
    let errno_ptr = unsafe { libc::__errno_location() };
    // SAFETY: `errno_ptr` is this thread's errno, valid and aligned. It is
    // saved so that the interrupted code never sees our `mmap`'s errno.
    let saved_errno = unsafe { *errno_ptr };
    // SAFETY: `info` and the call context are the kernel's, for a handler
    // installed with SA_SIGINFO, which is what `rescue` requires.
    let rescued = unsafe { rescue(info) };
    // SAFETY: as for the read above; restores what the interrupted code had.
    unsafe { *errno_ptr = saved_errno };
    if !rescued {
        // SAFETY: `sig`, `info` and `ctx` are this handler's own arguments,
        // passed on unchanged, from inside the SIGBUS handler as `chain`
        // requires.
        unsafe { chain(sig, info, ctx) };
    }
}

/// If the fault is in one of our mappings, replace the rest of that mapping
/// with zero pages and flag it. Returns whether it did.
///
/// # Safety
/// Only from the SIGBUS handler: `info` must be null or the `siginfo_t` the
/// kernel passed to a handler installed with `SA_SIGINFO`. The function is
/// async-signal-safe on Linux only (its `mmap`, below).
unsafe fn rescue(info: *mut libc::siginfo_t) -> bool {
    if info.is_null() {
        return false;
    }
    // SAFETY: the kernel passes a valid siginfo_t with SA_SIGINFO.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    if code != libc::BUS_ADRERR && code != libc::BUS_OBJERR {
        return false;
    }
    let page = PAGE_SIZE.load(Ordering::Relaxed);
    if page == 0 {
        return false;
    }
    for slot in REGISTRY.iter() {
        let Some((start, len)) = slot.range() else {
            continue;
        };
        let end = (start + len).next_multiple_of(page);
        if addr < start || addr >= end {
            continue;
        }
        let from = addr & !(page - 1);
        // SAFETY: [from, end) lies inside our own live read-only mapping
        // (registered, so not yet unmapped), so MAP_FIXED replaces only our
        // pages. `mmap` is not on POSIX's list of async-signal-safe
        // functions; this relies on Linux, where glibc's and musl's `mmap`
        // are a bare system call (no lock, no allocation), and the guard is
        // compiled for Linux only.
        let r = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if r == libc::MAP_FAILED {
            return false;
        }
        slot.faulted.store(true, Ordering::Release);
        return true;
    }
    false
}

/// Hand a foreign SIGBUS to whoever had it before us, or restore the default
/// action so that returning re-executes the fault and kills the process.
///
/// # Safety
/// Only from the SIGBUS handler, with the arguments the kernel passed to it:
/// the previous handler is called exactly as the kernel would have called it.
unsafe fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let prev = PREVIOUS.get();
    let handler = prev.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // SAFETY: sigaction is async-signal-safe; the struct is zeroed = SIG_DFL.
        unsafe {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
        }
        return;
    }
    let siginfo = prev.is_some_and(|p| p.sa_flags & libc::SA_SIGINFO != 0);
    // SAFETY: the previous handler was installed for this signal with these
    // flags, so calling it with the same arguments is what the kernel would do.
    unsafe {
        if siginfo {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(handler);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
            f(sig);
        }
    }
}
