//! The `simfind` binary: parses arguments, sets up threads and progress, runs one
//! subcommand and maps its outcome to an exit code (see [`exit`]). All real work is
//! in the `simfind` library crate.

// `eprintln!`/`eprint!` for the whole binary, shadowing std's (a
// `macro_rules!` in textual scope wins over the prelude's): std's panic when
// stderr cannot be written ("failed printing to stderr"), so a reader that
// closed stderr early (`scan -vv 2>&1 >/dev/null | head -1`) made a run exit
// 101. A message to people that cannot be delivered is dropped and the run
// goes on to its own exit code; the data goes to stdout, whose failures are
// handled where it is written.
macro_rules! eprintln {
    () => {
        $crate::app::ui::write_to_stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::app::ui::write_to_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::app::ui::write_to_stderr(format_args!($($arg)*))
    };
}

mod app;

/// `System`, plus a note of failed allocations so that running out of memory
/// ends with a message and exit status 2 (see `app::limits`).
#[global_allocator]
static ALLOCATOR: app::limits::Allocator = app::limits::Allocator;

fn main() {
    app::limits::install();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    return_large_frees_to_the_system();
    let cli = app::cli::parse();
    let code = app::cli::run(cli);
    std::process::exit(code);
}

/// Stages hand large buffers to each other (signature matrix, document list,
/// band tables) and free them as they go. glibc raises its mmap threshold to
/// the size of the first large block freed (up to 32 MiB), so later blocks
/// of that size are carved from the heap and may stay resident once freed,
/// on top of the next stage's. A fixed threshold keeps every block of 4 MiB
/// or more in its own mapping, returned to the system when freed: peak RSS
/// of a scan of a million files fell by 29 MB (`docs/PERFORMANCE.md`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn return_large_frees_to_the_system() {
    // SAFETY: sets one allocator parameter, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}
