//! Where output goes, and what is left when a run cannot finish: `-o` naming
//! the process's own streams, a closed stdout, `-o` naming the index, signals
//! that cannot be caught, a file-size limit, out of memory, and a query that
//! fails half-way. Each test names the case of the reliability review
//! (`docs/RELIABILITY.md`, "Output and memory").

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::*;

fn expected_csv() -> Vec<u8> {
    std::fs::read(root().join("tests/expected/testdata-char5.csv")).unwrap()
}

/// Runs `script` in bash, in the project root, with `$0` the simfind binary.
fn bash(script: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_simfind"))
        .current_dir(root())
        .output()
        .expect("bash runs")
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Cases 6.8–6.10: `-o /dev/stdout` (or `/proc/self/fd/1`, `/dev/stderr`)
/// used to rename a new file over the one the shell had opened, losing what
/// was written there before and after.
#[test]
fn output_to_its_own_stdout_or_stderr_is_written_through_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    let expected = expected_csv();
    let with = |before: &str, after: &str| {
        let mut v = before.as_bytes().to_vec();
        v.extend_from_slice(&expected);
        v.extend_from_slice(after.as_bytes());
        v
    };

    for (name, spelling, redirect) in [
        ("stdout.csv", "/dev/stdout", ">>"),
        ("proc.csv", "/proc/self/fd/1", ">>"),
        ("fd.csv", "/dev/fd/1", ">>"),
        ("stderr.csv", "/dev/stderr", "2>>"),
    ] {
        let out = bash(&format!(
            "printf 'keep\\n' > {d}/{name}; \"$0\" scan -q testdata -o {spelling} {redirect} {d}/{name}"
        ));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            std::fs::read(dir.path().join(name)).unwrap(),
            with("keep\n", ""),
            "{spelling} {redirect}"
        );
    }

    let out = bash(&format!(
        "{{ echo header; \"$0\" scan -q testdata -o /dev/stdout; echo trailer; }} > {d}/grouped.csv"
    ));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.path().join("grouped.csv")).unwrap(),
        with("header\n", "trailer\n")
    );

    // Into a pipe, as before.
    let out = bash("\"$0\" scan -q testdata -o /dev/stdout | cat");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, expected);
}

/// A device that refuses the data (`/dev/full`: "No space left on device")
/// is named in the error, as `-o` or as stdout, and the run exits 2.
#[test]
fn a_full_device_is_named_in_the_error() {
    let out = bash("\"$0\" scan -q testdata -o /dev/full");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("cannot write output to /dev/full"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let out = bash("\"$0\" scan -q testdata > /dev/full");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cannot write output to standard output"),
        "{err}"
    );
    assert!(err.contains("No space left on device"), "{err}");
}

/// Case 6.14: with stdout closed the output was silently lost, exit 0. Rust
/// reopens a closed stdout on /dev/null before `main`, so this also checks
/// that the closed descriptor is seen before that.
#[test]
fn a_closed_stdout_is_an_error_before_any_work() {
    let out = bash("\"$0\" scan -q testdata >&-");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("standard output is closed"),
        "{}",
        stderr(&out)
    );
    let out = bash("\"$0\" scan -q testdata -o /dev/stdout >&-");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    // Output that does not need stdout is fine without it.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("pairs.csv");
    let out = bash(&format!(
        "\"$0\" scan -q testdata -o {} >&-",
        target.display()
    ));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&target).unwrap(), expected_csv());
    let out = bash("\"$0\" scan -q testdata -o /dev/null >&-");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // And stdout redirected to /dev/null (not closed) is a choice, not an error.
    let out = bash("\"$0\" scan -q testdata > /dev/null");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Issue #36, point 10: a reader of stderr that goes away early (`scan -vv
/// testdata 2>&1 >/dev/null | head -1`) made the run panic (exit 101) at its
/// next message. Messages that cannot be delivered are dropped: the run
/// writes all its output and exits as it would have. The read end is closed
/// before the run starts, so every message meets a broken pipe.
#[test]
fn a_closed_stderr_pipe_drops_the_messages_and_keeps_the_output() {
    for args in [
        &["scan", "-vv", "testdata"][..],
        &["scan", "-v", "testdata", "--format", "clusters"][..],
    ] {
        let mut child = simfind()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let whole = run(args);
        assert_eq!(whole.status.code(), Some(0));
        assert!(
            !stderr(&whole).is_empty(),
            "{args:?} says something on stderr"
        );
        assert_eq!(out.stdout, whole.stdout, "{args:?}");
    }
}

/// Case 6.22: `-o` naming the `--db` file replaced the index with CSV.
#[test]
fn output_naming_the_index_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let out = run(&["index", "-q", "testdata", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = std::fs::read(&db).unwrap();
    // The same file under another name, too.
    let other_spelling = dir.path().join(".").join("i.db");
    for output in [&db, &other_spelling] {
        let (db, output) = (db.to_str().unwrap(), output.to_str().unwrap());
        for args in [
            vec!["scan", "-q", "testdata", "--db", db, "-o", output],
            vec![
                "query",
                "-q",
                "testdata/news/lighthouse.txt",
                "--db",
                db,
                "-o",
                output,
            ],
        ] {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains("-o would overwrite the index"),
                "{}",
                stderr(&out)
            );
            assert!(out.stdout.is_empty());
        }
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert_eq!(listing(dir.path()), ["i.db"]);
}

/// Cases 8.9–8.10: `query` on a damaged index printed the rows of the first
/// queries, then failed with exit 2, whose documented meaning is "no output".
#[test]
fn a_query_that_fails_half_way_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let out = run(&["index", "-q", "testdata", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Damage one document: the first query's candidates do not include it,
    // the second's do (it is that document).
    let conn = rusqlite::Connection::open(&db).unwrap();
    let changed = conn
        .execute(
            "UPDATE documents SET signature = x'0102' WHERE path = CAST(?1 AS BLOB)",
            ["testdata/misc/unrelated.txt"],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(conn);
    let out = run(&[
        "query",
        "-q",
        "testdata/news/lighthouse.txt",
        "testdata/misc/unrelated.txt",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a usable simfind index"));
    assert!(out.stdout.is_empty(), "{}", stdout(&out));

    // The first query alone still answers in full.
    let out = run(&[
        "query",
        "-q",
        "testdata/news/lighthouse.txt",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(csv_rows(&out.stdout).len(), 4);
}

/// Cases 6.19 and 9.3: SIGKILL or SIGQUIT (or an abort) cannot be caught,
/// and left the named temporary `.simfind-XXXX.tmp` in the output directory.
/// The run is held mid-way by a write lock on its index, with its output
/// file open, and killed there.
#[test]
fn a_killed_run_leaves_no_temporary_file() {
    for signal in [libc::SIGKILL, libc::SIGQUIT] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("i.db");
        let out = run(&["index", "-q", "testdata", "--db", db.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let outdir = dir.path().join("out");
        std::fs::create_dir(&outdir).unwrap();
        let target = outdir.join("pairs.csv");
        std::fs::write(&target, "PRECIOUS\n").unwrap();

        let holder = rusqlite::Connection::open(&db).unwrap();
        holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let mut command = simfind();
        command
            .args(["scan", "-q", "testdata", "--db", db.to_str().unwrap()])
            .args(["--wait", "60", "-o", target.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // A shell starts a background job with SIGQUIT ignored, and the child
        // inherits that: this test run under `cmd &` would send a signal
        // the child never sees. The test is about a signal that arrives.
        // SAFETY: between fork and exec only signal(2), which is
        // async-signal-safe, runs.
        unsafe {
            command.pre_exec(move || {
                libc::signal(signal, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        // The output is open once a descriptor of the child points into
        // `outdir` (a named temporary, or an unnamed `#inode (deleted)`).
        let fds = format!("/proc/{}/fd", child.id());
        let open_in_outdir = || {
            std::fs::read_dir(&fds)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| {
                    std::fs::read_link(e.path())
                        .is_ok_and(|l| l.starts_with(&outdir) && !l.ends_with("pairs.csv"))
                })
        };
        let start = Instant::now();
        while !open_in_outdir() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "output never opened"
            );
            assert!(child.try_wait().unwrap().is_none(), "ended early");
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: kill takes plain integers; the child is ours and not yet reaped.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        assert!(status.code().is_none(), "killed by signal {signal}");
        holder.execute_batch("ROLLBACK").unwrap();
        assert_eq!(listing(&outdir), ["pairs.csv"], "signal {signal}");
        assert_eq!(std::fs::read(&target).unwrap(), b"PRECIOUS\n");
    }
}

/// Case 6.20: a file-size limit killed the run with SIGXFSZ, no message, and
/// a partial temporary file left.
#[test]
fn a_file_size_limit_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("pairs.csv");
    std::fs::write(&target, "PRECIOUS\n").unwrap();
    // testdata's output is 836 bytes: a 0-block limit refuses the first write.
    let out = bash(&format!(
        "ulimit -f 0; exec \"$0\" scan -q testdata -o {}",
        target.display()
    ));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("File too large"), "{err}");
    assert!(err.contains("pairs.csv"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), b"PRECIOUS\n");
    assert_eq!(listing(dir.path()), ["pairs.csv"]);
}

/// Cases 9.2–9.3: running out of memory aborted (SIGABRT, exit 134) and left
/// the temporary file. A 50 MB address space is enough to start (the binary
/// maps 20–30 MB before `main`) and too little to scan debian-docs (about
/// 80 MB are needed with one thread).
///
/// Which allocation fails first depends on the moment (the walker runs
/// beside the stage), and a failed block of 64 KiB or more that its caller
/// cannot handle makes std print its own `memory allocation of N bytes
/// failed` (and a note on backtraces) before the backstop's message
/// (src/app/limits.rs: the hook that would silence it is unstable). Either way the run ends with
/// simfind's message, once, status 2 and nothing written: that is what is
/// asserted.
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn out_of_memory_ends_with_a_message_and_exit_2() {
    let corpus = shared_data("debian-docs/files");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("pairs.csv");
    std::fs::write(&target, "PRECIOUS\n").unwrap();
    // Without RUST_BACKTRACE (set in some CI environments): std would try to
    // print a backtrace of the failed allocation, allocating as it does.
    let out = bash(&format!(
        "ulimit -v 50000; unset RUST_BACKTRACE; exec \"$0\" --threads 1 scan -q {} -o {}",
        corpus.display(),
        target.display()
    ));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.matches("simfind: error: out of memory").count(),
        1,
        "one message: {err}"
    );
    // Which options lower memory: the predicted failure names those of its
    // stage, the backstop (an allocation nobody predicted) the general ones.
    assert!(err.contains("need less"), "{err}");
    assert!(err.contains("--method lsh"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // simfind's message ends the output; before it, std's own line and its
    // note about backtraces, if anything.
    let lines: Vec<&str> = err.lines().collect();
    let ours = lines
        .iter()
        .position(|l| l.starts_with("simfind: error: out of memory"))
        .unwrap();
    assert!(
        ours + 2 >= lines.len(),
        "simfind's message is the last: {err}"
    );
    for line in &lines[..ours] {
        assert!(
            line.starts_with("memory allocation of")
                || line.starts_with("note: run with `RUST_BACKTRACE"),
            "only std's line before simfind's message: {err}"
        );
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"PRECIOUS\n");
    assert_eq!(listing(dir.path()), ["pairs.csv"]);
}

/// `--format tsv`: the same rows as the CSV, with a path's tab, newline,
/// carriage return and backslash escaped, so every line is one pair and
/// every tab separates two fields (issue #15, "Outputs for scripts").
#[test]
fn tsv_has_the_csv_rows_with_escaped_paths() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let text = "the lighthouse keeper climbed the stairs every evening at dusk ".repeat(20);
    let names: [&[u8]; 5] = [
        b"comma, name.txt",
        b"tab\tname.txt",
        b"new\nline\r.txt",
        b"back\\slash.txt",
        b"latin1-\xE9.txt",
    ];
    for name in names {
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(name)), &text).unwrap();
    }
    let root = dir.path().to_str().unwrap();
    let csv = run(&["scan", root, "-q", "-t", "0.9"]);
    let tsv = run(&["scan", root, "-q", "-t", "0.9", "--format", "tsv"]);
    assert_eq!(tsv.status.code(), Some(0), "{}", stderr(&tsv));
    let unescape = |field: &[u8]| -> Vec<u8> {
        let mut out = Vec::new();
        let mut bytes = field.iter();
        while let Some(&b) = bytes.next() {
            if b != b'\\' {
                out.push(b);
                continue;
            }
            out.push(match bytes.next() {
                Some(b't') => b'\t',
                Some(b'n') => b'\n',
                Some(b'r') => b'\r',
                Some(b'\\') => b'\\',
                other => panic!("unknown escape {other:?}"),
            });
        }
        out
    };
    let lines: Vec<&[u8]> = tsv.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(
        lines[0],
        b"a\tb\tsimilarity\testimate\tshingles_a\tshingles_b\tshared"
    );
    assert_eq!(lines.last(), Some(&&b""[..]), "ends with a newline");
    let rows: Vec<Vec<Vec<u8>>> = lines[1..lines.len() - 1]
        .iter()
        .map(|line| line.split(|&b| b == b'\t').map(unescape).collect())
        .collect();
    let expected: Vec<Vec<Vec<u8>>> = csv_rows(&csv.stdout)
        .iter()
        .map(|r| r.iter().map(<[u8]>::to_vec).collect())
        .collect();
    assert_eq!(expected.len(), 10, "5 identical files give 10 pairs");
    assert_eq!(rows, expected);
}

/// `--sort similarity`: highest first, ties (as written, 6 decimals) by a
/// then b; `--limit N` then writes the N most similar. Only for pairs.
#[test]
fn sort_by_similarity_is_descending_with_ties_in_path_order() {
    let path_order = run(&["scan", "testdata", "-q", "-t", "0.3"]);
    let rows = csv_rows(&path_order.stdout);
    assert!(rows.len() >= 6, "enough pairs to sort");
    let mut expected: Vec<csv::ByteRecord> = rows.clone();
    // Stable sort of rows already in (a, b) order: ties stay by a then b.
    expected.sort_by(|x, y| y[2].cmp(&x[2]));
    assert_ne!(expected, rows, "the order changes on testdata");
    let sorted = run(&[
        "scan",
        "testdata",
        "-q",
        "-t",
        "0.3",
        "--sort",
        "similarity",
    ]);
    assert_eq!(csv_rows(&sorted.stdout), expected);
    for threads in ["1", "3"] {
        let again = run(&[
            "-j",
            threads,
            "scan",
            "testdata",
            "-q",
            "-t",
            "0.3",
            "--sort",
            "similarity",
        ]);
        assert_eq!(again.stdout, sorted.stdout);
    }
    let top = run(&[
        "scan",
        "testdata",
        "-q",
        "-t",
        "0.3",
        "--sort",
        "similarity",
        "--limit",
        "3",
    ]);
    assert_eq!(csv_rows(&top.stdout), expected[..3].to_vec());
    let groups = run(&[
        "scan",
        "testdata",
        "-q",
        "--format",
        "clusters",
        "--sort",
        "similarity",
    ]);
    assert_eq!(groups.status.code(), Some(2));
    assert!(groups.stdout.is_empty());
    assert!(
        stderr(&groups).contains("--sort similarity applies only to pairs"),
        "{}",
        stderr(&groups)
    );
}
