//! End-to-end tests of `simfind scan`: the real binary on `testdata/` and on
//! corpora made in temporary directories.

use std::collections::HashSet;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::*;

/// An oracle independent of hashing, MinHash and LSH: the shingle set as
/// strings, from the ground truth's definition.
fn char_shingles(bytes: &[u8], k: usize) -> HashSet<String> {
    let text = String::from_utf8_lossy(bytes).to_lowercase();
    let text: Vec<char> = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    text.windows(k).map(|w| w.iter().collect()).collect()
}

fn exact_jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared) as f64
}

#[test]
fn testdata_output_matches_the_reviewed_expected_file() {
    let out = run(&["scan", "testdata", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let expected = std::fs::read(root().join("tests/expected/testdata-char5.csv")).unwrap();
    assert_eq!(stdout(&out), String::from_utf8(expected).unwrap());
}

/// Every pair of `testdata/` with exact Jaccard similarity ≥ `threshold`, by
/// brute force over string shingles, as the CSV writes it: paths, similarity,
/// both set sizes and the intersection.
fn brute_force_rows(threshold: f64) -> Vec<[String; 5]> {
    let mut files: Vec<_> = walkdir::WalkDir::new("testdata")
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().to_path_buf())
        .collect();
    files.sort();
    let sets: Vec<_> = files
        .iter()
        .map(|p| {
            let bytes = std::fs::read(root().join(p)).unwrap();
            let binary = bytes.contains(&0);
            (
                p.to_string_lossy().into_owned(),
                if binary {
                    HashSet::new()
                } else {
                    char_shingles(&bytes, 5)
                },
            )
        })
        .collect();
    let mut expected = Vec::new();
    for (i, (pa, sa)) in sets.iter().enumerate() {
        for (pb, sb) in &sets[i + 1..] {
            if sa.is_empty() || sb.is_empty() {
                continue;
            }
            let j = exact_jaccard(sa, sb);
            if j >= threshold {
                expected.push([
                    pa.clone(),
                    pb.clone(),
                    format!("{j:.6}"),
                    format!("{} {}", sa.len(), sb.len()),
                    sa.intersection(sb).count().to_string(),
                ]);
            }
        }
    }
    expected
}

#[test]
fn testdata_pairs_are_exactly_the_pairs_above_threshold_by_brute_force() {
    let expected = brute_force_rows(0.5);
    assert!(
        expected.len() >= 5,
        "testdata should hold several near-duplicates"
    );
    assert!(
        expected.iter().any(|row| row[2] == "1.000000"),
        "and a pair of identical files"
    );
    // The exact join, and LSH with either kernel: LSH signs every shingle
    // window without counting the set, so the counts the CSV reports must
    // come from verification (and, for identical files, a read of one copy).
    let runs: [&[&str]; 3] = [
        &[],
        &["--bands", "50", "--rows", "2"],
        &["--bands", "50", "--rows", "2", "--minhash", "oph"],
    ];
    for extra in runs {
        let mut args = vec!["scan", "testdata", "-q", "--threshold", "0.5"];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr(&out));
        let got: Vec<[String; 5]> = csv_rows(&out.stdout)
            .iter()
            .map(|r| {
                let s = |i: usize| String::from_utf8_lossy(&r[i]).into_owned();
                [s(0), s(1), s(2), format!("{} {}", s(4), s(5)), s(6)]
            })
            .collect();
        assert_eq!(got, expected, "{extra:?}");
    }
}

#[test]
fn identical_files_report_their_exact_set_size_without_a_similar_partner() {
    // Copies of one text that no other file resembles: LSH makes no candidate
    // of them (identical contents are signed once), so verification never
    // reads them; the count the CSV reports must still be the set's size, not
    // the number of windows signed.
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{} {}", prose(1, 400), prose(1, 400)); // many repeated windows
    write(dir.path(), "a.txt", text.as_bytes());
    write(dir.path(), "b/copy.txt", text.as_bytes());
    write(dir.path(), "c/copy.txt", text.as_bytes());
    let other: String = (0..300).map(|i| format!("item{i:05} ")).collect();
    write(dir.path(), "other.txt", other.as_bytes());
    let size = char_shingles(text.as_bytes(), 5).len();
    assert!(size * 2 < text.len(), "the text repeats most windows");
    for kernel in ["classic", "oph"] {
        let out = run(&[
            "scan",
            dir.path().to_str().unwrap(),
            "-q",
            "-t",
            "0.9",
            "--bands",
            "20",
            "--rows",
            "5",
            "--minhash",
            kernel,
        ]);
        assert_eq!(out.status.code(), Some(0), "{kernel}: {}", stderr(&out));
        let rows = csv_rows(&out.stdout);
        assert_eq!(rows.len(), 3, "{kernel}: three pairs among three copies");
        for r in &rows {
            let field = |i: usize| String::from_utf8_lossy(&r[i]).into_owned();
            assert_eq!(field(2), "1.000000", "{kernel}");
            for i in [4, 5, 6] {
                assert_eq!(field(i), size.to_string(), "{kernel}: column {i}");
            }
        }
    }
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn output_is_identical_whatever_the_thread_count() {
    let one = run(&["--threads", "1", "scan", "testdata", "-q", "-t", "0.3"]);
    let four = run(&["--threads", "4", "scan", "testdata", "-q", "-t", "0.3"]);
    assert_eq!(one.status.code(), Some(0));
    assert_eq!(one.stdout, four.stdout);
    let debian = shared_data("debian-docs/files");
    let d = debian.to_str().unwrap();
    let one = run(&["--threads", "1", "scan", d, "-q", "-t", "0.7"]);
    let two = run(&["--threads", "3", "scan", d, "-q", "-t", "0.7"]);
    assert_eq!(one.status.code(), Some(0));
    assert!(one.stdout.len() > 10_000);
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn summary_goes_to_stderr_and_data_to_stdout() {
    let out = run(&["scan", "testdata"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("a,b,similarity,"));
    let err = stderr(&out);
    assert!(err.contains("11 files"), "{err}");
    // testdata's one binary file is a gzip archive, named by its kind.
    assert!(
        err.contains("1 archive file (identical copies only)"),
        "{err}"
    );
    assert!(err.contains("2 shorter than one shingle"), "{err}");
    assert!(err.contains("S-curve threshold of 20×5"), "{err}");
    assert!(!stdout(&out).contains("simfind:"));
}

#[test]
fn stop_word_shingles_find_the_article_among_different_ads() {
    let pair = (
        "testdata/web/page-one.txt".to_string(),
        "testdata/web/page-two.txt".to_string(),
    );
    let stop = run(&[
        "scan",
        "testdata",
        "-q",
        "--shingle",
        "stopword",
        "-t",
        "0.6",
    ]);
    assert!(pair_paths(&stop.stdout).contains(&pair));
    let chars = run(&["scan", "testdata", "-q", "--shingle", "char", "-t", "0.6"]);
    assert!(!pair_paths(&chars.stdout).contains(&pair));
}

#[test]
fn signature_verification_reports_the_estimate() {
    let out = run(&[
        "scan",
        "testdata",
        "-q",
        "--verify",
        "signature",
        "-t",
        "0.6",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let rows = csv_rows(&out.stdout);
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r[2], r[3], "similarity is the estimate");
        assert!(
            r[6].is_empty(),
            "no intersection without exact verification"
        );
    }
}

#[test]
fn bad_arguments_fail_before_any_work_with_a_clear_message() {
    let cases: &[(&[&str], &str)] = &[
        (&["scan", "testdata", "--k", "0"], "--shingle-size"),
        (&["scan", "testdata", "-k", "0"], "--shingle-size"),
        (
            &["scan", "testdata", "--k", "257"],
            "--shingle-size must be at most 256",
        ),
        (
            &["scan", "testdata", "--k", "100000000"],
            "--shingle-size must be at most 256",
        ),
        (
            &["index", "testdata", "--db", "k.db", "--k", "1000"],
            "--shingle-size must be at most 256",
        ),
        (
            &["compare", "README.md", "README.md", "--k", "1000"],
            "--shingle-size must be at most 256",
        ),
        (&["scan", "testdata", "--bands", "0"], "--bands"),
        (&["scan", "testdata", "--rows", "0"], "--rows"),
        (&["scan", "testdata", "--threshold", "0"], "--threshold"),
        (&["scan", "testdata", "--threshold", "1.5"], "--threshold"),
        (&["scan", "testdata", "--threshold", "NaN"], "--threshold"),
        (&["scan", "testdata", "--threshold", "abc"], "threshold"),
        (&["scan", "no-such-dir"], "no-such-dir"),
        // A file root is scanned (tests/input.rs); a device is refused.
        (&["scan", "/dev/null"], "not a directory or a regular file"),
        (
            &["scan", "testdata", "--stopwords", "README.md"],
            "--stopwords",
        ),
        (
            &["scan", "testdata", "--min-size", "10K", "--max-size", "1K"],
            "--min-size",
        ),
        (&["scan", "testdata", "--max-size", "lots"], "size"),
        (&["scan", "testdata", "--include", "a[b"], "--include"),
        (
            &["scan", "testdata", "--bands", "1000", "--rows", "1000"],
            "at most",
        ),
        (
            &["scan", "testdata", "-o", "no-such-dir/out.csv"],
            "no-such-dir",
        ),
        (&["scan", "testdata", "--shingle", "sentence"], "sentence"),
        (&["--threads", "many", "scan", "testdata"], "threads"),
        (&["-j", "70000", "scan", "testdata"], "threads"),
        (&["scan"], "DIR"),
    ];
    for (args, needle) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?} wrote data");
    }
}

#[test]
fn help_documents_schema_examples_and_exit_codes() {
    let out = run(&["scan", "--help"]);
    let help = stdout(&out);
    for needle in [
        "EXAMPLES",
        "shingles_a",
        "EXIT STATUS",
        "--threshold",
        "--follow-links",
    ] {
        assert!(help.contains(needle), "{needle}");
    }
    assert!(stdout(&run(&["--help"])).contains("EXIT STATUS"));
}

#[test]
fn empty_and_short_documents_pair_only_with_identical_copies() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "empty-1", b"");
    write(dir.path(), "empty-2", b"");
    write(dir.path(), "short-1", b"abc");
    write(dir.path(), "short-2", b"abd");
    let out = run(&["scan", dir.path().to_str().unwrap(), "-t", "0.1"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(csv_rows(&out.stdout).is_empty());
    assert!(
        stderr(&out).contains("4 shorter than one shingle"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn binary_files_are_skipped_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let mut blob = prose(1, 300).into_bytes();
    blob[10] = 0;
    write(dir.path(), "a.bin", &blob);
    // Near, not identical: binary files are compared for identity only.
    let last = blob.len() - 1;
    blob[last] ^= 1;
    write(dir.path(), "b.bin", &blob);
    let d = dir.path().to_str().unwrap();
    let out = run(&["scan", d, "-t", "0.9"]);
    assert!(csv_rows(&out.stdout).is_empty());
    assert!(stderr(&out).contains("2 binary (identical copies only)"));
    let out = run(&["scan", d, "-t", "0.9", "--binary"]);
    assert_eq!(csv_rows(&out.stdout).len(), 1);
}

#[test]
fn identical_short_and_binary_files_pair_at_one() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "short-1", b"abc");
    write(dir.path(), "short-2", b"abc");
    write(dir.path(), "x.bin", b"\0\x01\x02");
    write(dir.path(), "y.bin", b"\0\x01\x02");
    let out = run(&["scan", dir.path().to_str().unwrap(), "-t", "0.9"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = csv_rows(&out.stdout);
    assert_eq!(rows.len(), 2, "{}", stdout(&out));
    assert!(rows.iter().all(|r| &r[2] == b"1.000000"), "{rows:?}");
}

#[test]
fn awkward_paths_survive_a_csv_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(2, 200);
    let names: [&[u8]; 4] = [
        b"comma, name.txt",
        b"quote \"q\".txt",
        b"new\nline.txt",
        b"latin1-\xE9.txt",
    ];
    for name in names {
        let path = dir.path().join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(path, &text).unwrap();
    }
    let out = run(&["scan", dir.path().to_str().unwrap(), "-q", "-t", "0.9"]);
    assert_eq!(out.status.code(), Some(0));
    let rows = csv_rows(&out.stdout);
    assert_eq!(rows.len(), 6, "4 identical files give 6 pairs");
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    for r in &rows {
        seen.insert(r[0].to_vec());
        seen.insert(r[1].to_vec());
        assert_eq!(&r[2], b"1.000000");
    }
    let expected: HashSet<Vec<u8>> = names
        .iter()
        .map(|n| {
            dir.path()
                .join(std::ffi::OsStr::from_bytes(n))
                .as_os_str()
                .as_bytes()
                .to_vec()
        })
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn fifo_sockets_and_symlinks_are_skipped_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(3, 200);
    write(dir.path(), "a.txt", text.as_bytes());
    let fifo = dir.path().join("pipe");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink(dir.path().join("a.txt"), dir.path().join("link.txt")).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    let start = Instant::now();
    let out = run(&["scan", &d, "-t", "0.5"]);
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        csv_rows(&out.stdout).is_empty(),
        "a link to a file is not a second file"
    );
    let err = stderr(&out);
    assert!(
        err.contains("2 special files") && err.contains("1 symlink not followed"),
        "{err}"
    );

    // Followed, the link reaches the same file (same inode): still one document.
    let out = run(&["scan", &d, "-t", "0.5", "--follow-links"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(csv_rows(&out.stdout).is_empty());
    assert!(
        stderr(&out).contains("1 same file twice"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn symlink_loops_and_dangling_links_are_reported_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(4, 200);
    write(dir.path(), "sub/a.txt", text.as_bytes());
    write(dir.path(), "b.txt", text.as_bytes());
    std::os::unix::fs::symlink(dir.path(), dir.path().join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("missing"), dir.path().join("dangling")).unwrap();
    let out = simfind()
        .args(["scan", dir.path().to_str().unwrap(), "-L", "-t", "0.9"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("loop"), "{err}");
    assert!(err.contains("dangling"), "{err}");
    assert_eq!(
        csv_rows(&out.stdout).len(),
        1,
        "the two real files still pair"
    );
}

#[test]
fn a_file_named_like_a_message_cannot_forge_a_line_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", prose(4, 200).as_bytes());
    let forged = "evil\nsimfind: all clear\u{1b}[2K";
    std::os::unix::fs::symlink(dir.path().join("missing"), dir.path().join(forged)).unwrap();
    let out = simfind()
        .args(["scan", dir.path().to_str().unwrap(), "-L"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        !err.lines()
            .any(|line| line.starts_with("simfind: all clear")),
        "the name's newline started a line of its own: {err}"
    );
    assert!(
        !err.contains('\u{1b}'),
        "the escape reached the terminal: {err:?}"
    );
    let warning = err
        .lines()
        .find(|line| line.contains("evil"))
        .expect("the dangling link is warned about");
    assert!(
        warning.contains("evil\\nsimfind: all clear\\u{1b}[2K"),
        "the name is shown escaped, whole, on the warning's line: {warning}"
    );
}

#[test]
fn walk_filters_hidden_include_exclude_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(5, 300);
    for name in ["a.txt", "b.md", ".hidden.txt", "skip/c.txt", "big.txt"] {
        write(dir.path(), name, text.as_bytes());
    }
    let mut big = text.clone();
    big.push_str(&" padding".repeat(2000));
    write(dir.path(), "big.txt", big.as_bytes());
    let d = dir.path().to_str().unwrap();
    let names = |args: &[&str]| -> HashSet<String> {
        let mut full = vec!["scan", d, "-q", "-t", "0.1"];
        full.extend_from_slice(args);
        let out = run(&full);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        pair_paths(&out.stdout)
            .into_iter()
            .flat_map(|(a, b)| [a, b])
            .map(|p| {
                Path::new(&p)
                    .strip_prefix(d)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    assert_eq!(names(&[]), set(&["a.txt", "b.md", "skip/c.txt", "big.txt"]));
    assert_eq!(
        names(&["--hidden"]),
        set(&[".hidden.txt", "a.txt", "b.md", "skip/c.txt", "big.txt"])
    );
    assert_eq!(
        names(&["--include", "*.txt"]),
        set(&["a.txt", "skip/c.txt", "big.txt"])
    );
    assert_eq!(
        names(&["--exclude", "skip"]),
        set(&["a.txt", "b.md", "big.txt"])
    );
    assert_eq!(
        names(&["--max-size", "4K"]),
        set(&["a.txt", "b.md", "skip/c.txt"])
    );
    assert_eq!(names(&["--min-size", "4K", "--include", "*.txt"]), set(&[]));
}

#[test]
fn output_file_is_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("pairs.csv");
    std::fs::write(&target, "previous contents\n").unwrap();
    let t = target.to_str().unwrap();

    // A failed run leaves the existing file as it was.
    let out = run(&["scan", "testdata", "-o", t, "--threshold", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "previous contents\n"
    );

    // A successful one replaces it whole, and nothing else is left behind.
    let out = run(&["scan", "testdata", "-q", "-o", t]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let expected = std::fs::read(root().join("tests/expected/testdata-char5.csv")).unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), expected);
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(entries.len(), 1);
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn an_interrupted_run_leaves_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("pairs.csv");
    let corpus = shared_data("django-docs/files");
    let child = simfind()
        .args([
            "scan",
            corpus.to_str().unwrap(),
            "-q",
            "-o",
            target.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the output is open, i.e. the run is under way: a descriptor
    // of the child points into the directory (the output has no name there
    // until the end, see src/app/output/atomic.rs).
    let fds = format!("/proc/{}/fd", child.id());
    let start = Instant::now();
    while !std::fs::read_dir(&fds)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l.starts_with(dir.path())))
        && start.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: kill takes plain integers; the child is ours and not yet reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file, temporary or final"
    );
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn a_closed_pipe_ends_the_run_quietly() {
    use std::io::{BufRead, BufReader};
    let corpus = shared_data("debian-docs/files");
    let mut child = simfind()
        .args(["scan", corpus.to_str().unwrap(), "-q", "-t", "0.5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("a,b,"));
    // The reader is dropped here: the pipe is closed with ~0.5 MB unread.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

/// Regression: renaming the temporary file over `-o /dev/null` replaced the
/// device with a plain file (as root). Devices and FIFOs are written in place;
/// a FIFO stands in for /dev/null here so a regression cannot break the machine.
#[test]
fn output_to_a_fifo_or_through_a_symlink_keeps_it() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let reader_path = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut data = Vec::new();
        std::fs::File::open(reader_path)
            .unwrap()
            .read_to_end(&mut data)
            .unwrap();
        data
    });
    let out = run(&["scan", "testdata", "-q", "-o", fifo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Checked before joining: a regression leaves the reader blocked forever.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let expected = std::fs::read(root().join("tests/expected/testdata-char5.csv")).unwrap();
    assert_eq!(reader.join().unwrap(), expected);

    let real = dir.path().join("real.csv");
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = run(&["scan", "testdata", "-q", "-o", link.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&real).unwrap(), expected);
}

/// `compare`'s rows as `measure → value`.
fn compare_measures(args: &[&str]) -> std::collections::HashMap<String, String> {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    assert_eq!(reader.headers().unwrap(), vec!["measure", "value"]);
    reader
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r[0].to_string(), r[1].to_string()))
        .collect()
}

#[test]
fn compare_signs_and_shingles_with_scans_recipe() {
    // In walk order (`-` sorts before `.`), as scan writes the pair.
    let (a, b) = (
        "testdata/news/lighthouse-edited.txt",
        "testdata/news/lighthouse.txt",
    );
    // The same flags make the same signature: compare's estimate is scan's.
    for minhash in ["classic", "oph"] {
        let flags = [
            "--shingle",
            "word",
            "-k",
            "2",
            "--keep-case",
            "--minhash",
            minhash,
        ];
        let mut scan = vec!["scan", "testdata/news", "-q", "-b", "20", "-r", "5"];
        scan.extend(["--method", "lsh", "-t", "0.05"]);
        scan.extend(flags);
        let out = run(&scan);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let rows = csv_rows(&out.stdout);
        let row = rows
            .iter()
            .find(|r| &r[0] == a.as_bytes() && &r[1] == b.as_bytes())
            .expect("the edited article is a pair");
        let mut args = vec!["compare", a, b];
        args.extend(flags);
        let m = compare_measures(&args);
        assert_eq!(m["minhash_estimate"].as_bytes(), &row[3], "{minhash}");
        assert_eq!(m["jaccard"].as_bytes(), &row[2], "{minhash}");
    }
    // A stop-word list of its own changes the shingles, as in scan.
    let dir = tempfile::tempdir().unwrap();
    let list = write(dir.path(), "stop", b"the\na\n");
    let default = compare_measures(&["compare", a, b, "--shingle", "stopword"]);
    let own = compare_measures(&[
        "compare",
        a,
        b,
        "--shingle",
        "stopword",
        "--stopwords",
        list.to_str().unwrap(),
    ]);
    assert_ne!(default["shingles_a"], own["shingles_a"]);
    let out = run(&["compare", a, b, "--stopwords", list.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--stopwords applies only with --shingle stopword"),
        "{}",
        stderr(&out)
    );
}

/// Reliability defect 15: `-o x.csv/` printed the OS reason twice (the
/// tempfile crate's message quotes its source). Once now, nothing written.
#[test]
fn an_output_path_ending_in_a_slash_is_one_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let target = format!("{}/x.csv/", out_dir.display());
    let out = run(&["scan", "-q", "testdata", "-o", &target]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // One line naming the target, the OS reason once (the unnamed-file path
    // says it directly; the named-temp fallback through the tempfile crate).
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("simfind: error: cannot write {target}: "))
            && err.ends_with("Not a directory (os error 20)\n")
            && err.lines().count() == 1
            && err.matches("Not a directory").count() == 1,
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 0);
}
