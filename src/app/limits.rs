//! Resource limits end a run with a message and exit status 2, not a signal.
//!
//! - **Out of memory, predicted.** The library's large allocations are made
//!   fallibly ([`simfind::memory`]); when one fails, [`on_out_of_memory`]
//!   removes the named temporary output if there is one, says what needed
//!   how much and which options lower it, and exits with status 2. std
//!   prints nothing: no allocation failed that it saw.
//! - **Out of memory, anywhere else.** When an allocation that cannot fail does fail, std
//!   prints `memory allocation of N bytes failed` and calls `abort()` (the
//!   hook that could change this, `set_alloc_error_hook`, is unstable). The
//!   global allocator below is `System` plus one branch on the failure path:
//!   a block under 64 KiB that cannot be had means memory is exhausted, and
//!   the run ends there (message, status 2, before std can print its line);
//!   a larger one is noted and null returned, so fallible allocations
//!   (`try_reserve`, `read_to_end`) keep reporting their own error. A SIGABRT handler then tells an abort that follows a
//!   failed allocation from any other: for the former it removes the named
//!   temporary output if there is one (with `O_TMPFILE` there is none),
//!   prints which options lower memory and exits with status 2; any other
//!   abort proceeds as before. The handler allocates nothing: `unlink`,
//!   `write` and `_exit` are async-signal-safe.
//! - **Memory budget.** Before a large predicted allocation, the library asks
//!   [`budget`] what is left: the least of the address-space limit less
//!   what the process maps, the cgroup's `memory.max` less its
//!   `memory.current`, and the system's `MemAvailable` plus `SwapFree`. A
//!   stage that does not fit ends the run as above, naming the limit.
//! - **File size limit** (`ulimit -f`). SIGXFSZ is ignored, so a write past
//!   the limit fails with EFBIG and the run reports it like any other write
//!   error, instead of being killed with a partial file.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

use simfind::memory::Budget;

use crate::app::exit;
use crate::app::output::pending;

/// Whether an allocation has failed (and returned null to its caller).
static ALLOCATION_FAILED: AtomicBool = AtomicBool::new(false);

/// `System`, noting failed allocations for the SIGABRT handler.
pub struct Allocator;

/// Whether the run is ending because a predicted allocation failed.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Below this, a failed allocation ends the run at once (see `note`).
const SMALL_ALLOCATION: usize = 64 << 10;

#[inline]
fn note(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        if EXITING.load(Ordering::SeqCst) || size < SMALL_ALLOCATION {
            // Memory is exhausted (a small block could not be had) or the run
            // is already ending for it: returning null would only make std
            // print its own line and abort, or a caller report one more failed
            // file. End here, with the general message, allocating nothing.
            fail_out_of_memory();
        }
        ALLOCATION_FAILED.store(true, Ordering::Relaxed);
    }
    ptr
}

/// Whether a thread is ending the run for lack of memory: the first one
/// prints and exits; another that fails at the same moment must not print
/// a second message, so it waits for that exit.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Lets only the first caller through; any later one waits for the first's
/// `_exit` (async-signal-safe: an atomic swap and `pause`).
fn first_to_end() {
    if ENDING.swap(true, Ordering::SeqCst) {
        loop {
            // SAFETY: pause only suspends this thread until a signal; the
            // process ends meanwhile by the first caller's _exit.
            unsafe {
                libc::pause();
            }
        }
    }
}

/// Removes any named partial output, says which options lower memory and
/// exits with status 2; async-signal-safe and allocation-free.
fn fail_out_of_memory() -> ! {
    first_to_end();
    pending::remove();
    // SAFETY: write and _exit are async-signal-safe; MESSAGE is static.
    // _exit skips atexit handlers and buffered output, which is what a
    // process whose allocator has failed needs.
    unsafe {
        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
        libc::_exit(exit::FATAL)
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments and
// returns its result unchanged; `note` only reads the pointer.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promises for `alloc` hold for `System.alloc`.
        note(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        note(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` through this allocator; the
        // caller's promises for `realloc` hold for `System.realloc`.
        note(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// Installs the SIGABRT handler and ignores SIGXFSZ. Call first in `main`.
pub fn install() {
    simfind::memory::set_hook(on_out_of_memory);
    simfind::memory::set_budget(budget);
    // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value;
    // the handler has the signature SA_SIGINFO-less handlers need, and is
    // async-signal-safe (see `on_abort`). `signal(SIGXFSZ, SIG_IGN)` only
    // changes the disposition.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// What a new allocation can still have ([`simfind::memory::Budget`]): the
/// least of the limits that apply, each named; `None` if none can be read.
fn budget() -> Option<Budget> {
    let mut least: Option<Budget> = None;
    let mut offer = |bytes: u64, limit: &'static str| {
        if least.is_none_or(|b| bytes < b.bytes) {
            least = Some(Budget { bytes, limit });
        }
    };
    let mut rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct it is given.
    let have_rlimit = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rlimit) } == 0;
    if have_rlimit && rlimit.rlim_cur != libc::RLIM_INFINITY {
        let mapped = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(0, |pages| pages * page_size());
        offer(
            rlimit.rlim_cur.saturating_sub(mapped),
            "the address-space limit (ulimit -v)",
        );
    }
    if let Some(left) = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|c| cgroup_left(&c, |file| std::fs::read_to_string(file).ok()))
    {
        offer(left, "the cgroup's memory.max");
    }
    if let Some(available) = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| meminfo_available(&m))
    {
        offer(
            available,
            "the system's available memory (MemAvailable + SwapFree)",
        );
    }
    least
}

fn page_size() -> u64 {
    // SAFETY: sysconf reads a constant of the system.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).unwrap_or(4096)
}

/// `memory.max − memory.current` of the cgroup (v2) that `/proc/self/cgroup`
/// names (`0::/path`), read through `read` (a path → its text); `None`
/// without a limit (`max`) or a v2 hierarchy.
fn cgroup_left(cgroup: &str, read: impl Fn(&str) -> Option<String>) -> Option<u64> {
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
    let max: u64 = read(&format!("{dir}/memory.max"))?.trim().parse().ok()?;
    let current: u64 = read(&format!("{dir}/memory.current"))?
        .trim()
        .parse()
        .ok()?;
    Some(max.saturating_sub(current))
}

/// `MemAvailable + SwapFree` of `/proc/meminfo`'s text, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        let line = meminfo.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb * 1024)
    };
    Some(field("MemAvailable:")? + field("SwapFree:").unwrap_or(0))
}

/// std has printed `memory allocation of N bytes failed` just before (and, as
/// it tries to print a backtrace, perhaps a second, smaller failure).
const MESSAGE: &[u8] = b"simfind: error: out of memory; no output file written.\n\
simfind: to need less memory: --threads 1 (fewer files in memory at once), \
--method lsh (the exact join holds every shingle set), --verify-memory SIZE \
(a smaller cap on the shingle sets of exact verification), --max-size SIZE \
(skip the largest files)\n";

/// A predicted allocation failed ([`simfind::memory`]): the run ends here,
/// from whichever thread found it, as a fatal error.
fn on_out_of_memory(oom: &simfind::memory::OutOfMemory) -> ! {
    use std::io::Write;
    // From here on, any thread whose allocation fails ends the process at
    // once (see `note`), so no second message follows this one.
    EXITING.store(true, Ordering::SeqCst);
    first_to_end();
    pending::remove();
    // Formatted straight into unbuffered stderr: nothing is allocated.
    let _ = writeln!(
        std::io::stderr(),
        "simfind: error: {}; no output written",
        crate::app::speak::OutOfMemory(oom)
    );
    // SAFETY: _exit ends the process without running destructors or atexit
    // handlers on other threads that may be mid-stage (the same exit as the
    // SIGABRT backstop's); stderr is unbuffered, so the message is out.
    unsafe { libc::_exit(exit::FATAL) }
}

extern "C" fn on_abort(_signal: libc::c_int) {
    if !ALLOCATION_FAILED.load(Ordering::Relaxed) {
        // Not an allocation failure: die of SIGABRT as without the handler.
        // SAFETY: signal and raise are async-signal-safe; SIGABRT is blocked
        // while this handler runs, so it is delivered, with the default
        // action, as soon as the handler returns.
        unsafe {
            libc::signal(libc::SIGABRT, libc::SIG_DFL);
            libc::raise(libc::SIGABRT);
        }
        return;
    }
    fail_out_of_memory();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_gives_available_memory_and_free_swap() {
        let text = "MemTotal:       16000000 kB\nMemFree:  100 kB\n\
                    MemAvailable:    8000000 kB\nSwapTotal: 0 kB\nSwapFree:  1000 kB\n";
        assert_eq!(meminfo_available(text), Some((8_000_000 + 1000) * 1024));
        assert_eq!(meminfo_available("MemAvailable: 4 kB\n"), Some(4096));
        assert_eq!(meminfo_available("MemTotal: 4 kB\n"), None);
    }

    #[test]
    fn a_cgroup_limit_is_what_its_max_leaves_beyond_its_use() {
        let files = |max: &'static str| {
            move |path: &str| match path {
                "/sys/fs/cgroup/user.slice/a/memory.max" => Some(max.to_string()),
                "/sys/fs/cgroup/user.slice/a/memory.current" => Some("1000\n".to_string()),
                _ => None,
            }
        };
        assert_eq!(
            cgroup_left("0::/user.slice/a\n", files("5000\n")),
            Some(4000)
        );
        assert_eq!(
            cgroup_left("0::/user.slice/a\n", files("max\n")),
            None,
            "no limit"
        );
        assert_eq!(cgroup_left("0::/user.slice/a\n", files("500\n")), Some(0));
        assert_eq!(
            cgroup_left("1:memory:/x\n", files("5000\n")),
            None,
            "cgroup v1"
        );
    }

    #[test]
    fn the_budget_is_the_least_limit_and_names_it() {
        // This process runs without an address-space limit in the tests,
        // so the address space is never the binding limit here; what binds
        // is at most the system's available memory.
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
        let system = meminfo_available(&meminfo).unwrap();
        let b = budget().expect("Linux has /proc/meminfo");
        assert!(b.bytes <= system + (64 << 20), "{b:?} vs {system}");
    }
}
