//! Exit codes, chosen so that shell scripts and cron jobs can act on them.

/// The run finished and every file was read.
pub const OK: i32 = 0;
/// The run finished and its output is complete for the files that could be read,
/// but at least one file was skipped because of an error (unreadable, vanished,
/// changed while read, symlink loop). Warnings on stderr name each one.
pub const PARTIAL: i32 = 1;
/// Usage error, or a fatal error before or during the run: no output was written.
pub const FATAL: i32 = 2;
/// With `--exit-code`: the run was complete and found nothing to report (no
/// pair, group or removable path). Without it such a run exits with [`OK`].
pub const NONE_FOUND: i32 = 3;
/// Interrupted by SIGINT or SIGTERM: no output file was written.
pub const INTERRUPTED: i32 = 130;
