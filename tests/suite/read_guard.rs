//! The SIGBUS guard of `simfind::input::read`, tested in child processes.
//!
//! A broken guard kills the process that touches a truncated mapping, so each
//! scenario runs in a fresh copy of this test binary (re-executed with
//! `SIMFIND_READ_CHILD=<scenario>`, running only `child_entry`). The parent
//! asserts on the child's exit status and on a marker line the child prints
//! only after all its assertions passed, so a child that silently did nothing
//! fails too. Two control scenarios prove that the setup really raises SIGBUS
//! and that the guard does not swallow SIGBUS from mappings it does not own.
//! Linux only (declared so in `main.rs`).

use simfind::input::read::{ReadError, ReadOptions, read_file};
use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "SIMFIND_READ_CHILD";
const OK_MARKER: &str = "CHILD-SCENARIO-PASSED";

/// Bigger than any plausible page size, and not a page multiple, so the
/// truncated tail spans many pages and ends in a partial one.
const SIZE: usize = 3 * 1024 * 1024 + 123;
/// Truncation target: inside the first page, so the rest of that page reads as
/// zeros from the kernel (no signal) and every later page faults.
const KEEP: usize = 100;

/// Generous: a scenario takes milliseconds. The limit only turns a hang (e.g. a
/// handler that returns without fixing the fault, re-faulting forever) into a
/// failure instead of a stuck test run.
const CHILD_TIME_LIMIT: Duration = Duration::from_secs(120);

fn run_child(scenario: &str) -> Output {
    let mut child = Command::new(std::env::current_exe().unwrap())
        // The child's test name within the suite binary (this module's path).
        .args([
            "--exact",
            "read_guard::child_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, scenario)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        out.read_to_end(&mut v).map(|_| v)
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        err.read_to_end(&mut v).map(|_| v)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > CHILD_TIME_LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("scenario {scenario} hung for {CHILD_TIME_LIMIT:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap().unwrap(),
        stderr: err_reader.join().unwrap().unwrap(),
    }
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_child_passed(scenario: &str) {
    let out = run_child(scenario);
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains(OK_MARKER),
        "scenario {scenario} failed: {}",
        describe(&out)
    );
}

fn assert_child_killed_by_sigbus(scenario: &str) {
    let out = run_child(scenario);
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGBUS),
        "scenario {scenario} should die of SIGBUS: {}",
        describe(&out)
    );
}

#[test]
fn truncated_mapping_is_survived_and_reported() {
    assert_child_passed("truncate");
}

#[test]
fn truncation_in_many_threads_at_once() {
    assert_child_passed("threads");
}

#[test]
fn full_registry_falls_back_to_reading() {
    assert_child_passed("registry-full");
}

#[test]
fn permission_denied_is_a_short_reason() {
    assert_child_passed("eacces");
}

/// Control: without the guard the same steps kill the process, so the tests
/// above would fail if the guard did nothing.
#[test]
fn control_unguarded_mapping_dies_of_sigbus() {
    assert_child_killed_by_sigbus("unguarded");
}

/// The guard must not swallow a SIGBUS from a mapping it does not own.
#[test]
fn control_foreign_sigbus_is_not_swallowed() {
    assert_child_killed_by_sigbus("foreign");
}

/// Entry point of the child process; a no-op in the normal test run.
#[test]
fn child_entry() {
    let Ok(scenario) = std::env::var(CHILD_ENV) else {
        return;
    };
    // No core files from the scenarios that are meant to die.
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    match scenario.as_str() {
        "truncate" => truncate_scenario(),
        "threads" => threads_scenario(),
        "registry-full" => registry_full_scenario(),
        "eacces" => eacces_scenario(),
        "unguarded" => unguarded_scenario(false),
        "foreign" => unguarded_scenario(true),
        other => panic!("unknown scenario {other}"),
    }
    println!("{OK_MARKER}");
}

fn force_mmap() -> ReadOptions {
    ReadOptions {
        mmap_min_size: 0,
        ..ReadOptions::default()
    }
}

fn make_file(dir: &Path, name: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, vec![b'a'; SIZE]).unwrap();
    p
}

fn truncate(p: &Path, len: usize) {
    OpenOptions::new()
        .write(true)
        .open(p)
        .unwrap()
        .set_len(len as u64)
        .unwrap();
}

/// Read every byte through volatile loads so the compiler cannot skip any page.
fn touch_all(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        // SAFETY: `b` is a reference, so valid and aligned for a `u8` read.
        .map(|b| unsafe { std::ptr::read_volatile(b) } as u64)
        .sum()
}

fn truncate_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let p = make_file(dir.path(), "f");
    let c = read_file(&p, &force_mmap()).unwrap();
    assert!(c.is_mapped());
    // Fault in the first half while the file is intact, as a real reader would.
    assert_eq!(touch_all(&c[..SIZE / 2]), (SIZE / 2) as u64 * b'a' as u64);
    truncate(&p, KEEP);
    let sum = touch_all(&c);
    assert_eq!(c.len(), SIZE);
    assert_eq!(
        sum,
        KEEP as u64 * b'a' as u64,
        "bytes past the new end read as 0"
    );
    let err = c.verify_unchanged().unwrap_err();
    assert!(
        matches!(err, ReadError::Shrank { expected, actual } if expected == SIZE as u64 && actual == KEEP as u64),
        "{err:?}"
    );
    drop(c);
    // The guard keeps working for later files after one was rescued.
    let p2 = make_file(dir.path(), "g");
    let c2 = read_file(&p2, &force_mmap()).unwrap();
    truncate(&p2, 0);
    assert_eq!(touch_all(&c2), 0);
    assert!(matches!(
        c2.verify_unchanged(),
        Err(ReadError::Shrank { actual: 0, .. })
    ));
    // And an intact mapping still verifies.
    let p3 = make_file(dir.path(), "h");
    let c3 = read_file(&p3, &force_mmap()).unwrap();
    assert_eq!(touch_all(&c3), SIZE as u64 * b'a' as u64);
    c3.verify_unchanged().unwrap();
}

fn threads_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let barrier = std::sync::Barrier::new(8);
    std::thread::scope(|s| {
        for t in 0..8 {
            let (dir, barrier) = (dir.path(), &barrier);
            s.spawn(move || {
                let p = make_file(dir, &format!("t{t}"));
                let c = read_file(&p, &force_mmap()).unwrap();
                assert!(c.is_mapped());
                // Only odd threads truncate; even threads' mappings must stay intact
                // while their neighbours' faults are being rescued.
                barrier.wait();
                if t % 2 == 1 {
                    truncate(&p, KEEP);
                }
                barrier.wait();
                let sum = touch_all(&c);
                if t % 2 == 1 {
                    assert_eq!(sum, KEEP as u64 * b'a' as u64);
                    assert!(matches!(
                        c.verify_unchanged(),
                        Err(ReadError::Shrank { .. })
                    ));
                } else {
                    assert_eq!(sum, SIZE as u64 * b'a' as u64);
                    c.verify_unchanged().unwrap();
                }
            });
        }
    });
}

fn registry_full_scenario() {
    use simfind::input::read::REGISTRY_SLOTS;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("small");
    std::fs::write(&p, b"some bytes").unwrap();
    let held: Vec<_> = (0..REGISTRY_SLOTS)
        .map(|_| read_file(&p, &force_mmap()).unwrap())
        .collect();
    assert!(held.iter().all(|c| c.is_mapped()));
    let extra = read_file(&p, &force_mmap()).unwrap();
    assert!(!extra.is_mapped(), "registry full: must fall back to read");
    assert_eq!(&*extra, b"some bytes");
    drop(held);
    let again = read_file(&p, &force_mmap()).unwrap();
    assert!(again.is_mapped(), "slots are released on drop");
}

fn eacces_scenario() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let p = dir.path().join("secret");
    std::fs::write(&p, b"x").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root bypasses file permissions: this process is a throwaway child, so drop
    // to "nobody" instead of skipping the test.
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        let nobody = 65534;
        // SAFETY: integer arguments only; this child process runs no other
        // thread that could depend on its credentials, and a failure is
        // reported by the return value.
        let dropped_gid = unsafe { libc::setresgid(nobody, nobody, nobody) } == 0;
        // SAFETY: as for setresgid (the group first, while still root).
        if !dropped_gid || unsafe { libc::setresuid(nobody, nobody, nobody) } != 0 {
            println!("note: running as root and cannot drop privileges; permission test skipped");
            return;
        }
    }
    let err = read_file(&p, &ReadOptions::default()).unwrap_err();
    match &err {
        ReadError::Io(e) => assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied),
        other => panic!("expected permission denied, got {other:?}"),
    }
    assert_eq!(err.to_string(), "permission denied");
}

/// Touch a truncated mapping that the guard does not know about. With
/// `install_guard`, a guarded read first installs the handler, which must then
/// pass this fault on. Either way the process must die of SIGBUS.
fn unguarded_scenario(install_guard: bool) {
    let dir = tempfile::tempdir().unwrap();
    if install_guard {
        let p = make_file(dir.path(), "guarded");
        let c = read_file(&p, &force_mmap()).unwrap();
        assert!(c.is_mapped());
        // Keep a live guarded mapping so the registry is not empty.
        std::mem::forget(c);
    }
    let p = make_file(dir.path(), "raw");
    let f = std::fs::File::open(&p).unwrap();
    // SAFETY: deliberately unsound — this scenario exists to crash.
    let map = unsafe { memmap2::Mmap::map(&f).unwrap() };
    truncate(&p, KEEP);
    let sum = touch_all(&map);
    // Reaching this line means SIGBUS was swallowed; the parent sees exit 0
    // without the expected signal and fails.
    println!("survived with sum {sum}");
}
