//! What a user who installs simfind gets beside `scan`: `--version`, shell
//! completions, the man page, and the command-line conventions shared with
//! ripgrep and fd (`-j`, `-k`, size units, singular counts).

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::*;

/// Whether `program` can be started (it is installed).
fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

#[test]
fn short_version_is_one_line_and_long_version_identifies_the_build() {
    let short = run(&["-V"]);
    assert_eq!(short.status.code(), Some(0));
    assert_eq!(
        stdout(&short),
        format!("simfind {}\n", env!("CARGO_PKG_VERSION"))
    );

    let long = run(&["--version"]);
    assert_eq!(long.status.code(), Some(0));
    let text = stdout(&long);
    assert!(
        text.starts_with(&format!("simfind {} (rev ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    // Built from a git checkout: a hexadecimal commit, not "unknown".
    let rev = text
        .split("(rev ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    if root().join(".git").exists() {
        assert!(
            rev.len() >= 7 && rev.chars().all(|c| c.is_ascii_hexdigit()),
            "{rev}"
        );
    }
    for needle in [
        "features: ",
        "target: ",
        "simd kernels on this CPU:",
        "normalize",
        "window hash",
        "minhash",
        "oph",
        "set merge",
    ] {
        assert!(text.contains(needle), "no {needle:?} in {text}");
    }
    // Every family names the kernel it chose; the reference is always
    // possible, so each line has a non-empty name.
    let kernels: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("simd kernels"))
        .skip(1)
        .collect();
    assert_eq!(kernels.len(), 5, "{text}");
    assert!(kernels.iter().all(|l| l.split_whitespace().count() >= 2));
    // Subcommands answer -V too, under their own name (clap's convention).
    assert_eq!(
        stdout(&run(&["scan", "-V"])),
        format!("simfind-scan {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn man_pages_render() {
    let page = run(&["man"]);
    assert_eq!(page.status.code(), Some(0), "{}", stderr(&page));
    let roff = stdout(&page);
    assert!(roff.contains(".TH simfind 1"), "{roff}");
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH SUBCOMMANDS",
    ] {
        assert!(roff.contains(section), "no {section}");
    }
    for sub in [
        "scan",
        "compare",
        "index",
        "query",
        "curve",
        "tune",
        "completions",
        "man",
    ] {
        assert!(
            roff.contains(&format!("simfind\\-{sub}")),
            "{sub} not listed"
        );
    }
    let scan = run(&["man", "scan"]);
    assert_eq!(scan.status.code(), Some(0));
    let scan = stdout(&scan);
    assert!(scan.contains(".TH simfind-scan 1"), "{scan}");
    assert!(
        scan.contains("\\-\\-threshold"),
        "scan's options are listed"
    );
    assert!(scan.contains("\\-\\-threads"), "global options are listed");

    let bad = run(&["man", "scna"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("scan"), "{}", stderr(&bad));
    assert!(bad.stdout.is_empty());

    if !installed("man") {
        eprintln!("note: man is not installed; the pages were checked as roff only");
        return;
    }
    for roff in [roff, scan] {
        let mut child = Command::new("man")
            .args(["-l", "-"])
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "80")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(roff.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "man -l failed: {err}");
        // groff warnings (bad requests, unknown macros) go to stderr.
        assert!(err.trim().is_empty(), "man -l warned: {err}");
        assert!(text.contains("NAME") && text.contains("SYNOPSIS"), "{text}");
    }
}

#[test]
fn completion_scripts_load_in_their_shells() {
    for (shell, load) in [
        ("bash", "source \"$0\" && complete -p simfind"),
        (
            "zsh",
            "autoload -Uz compinit && compinit -u && source \"$0\" && whence -w _simfind",
        ),
        (
            "fish",
            "source $argv[1]; and complete -c simfind | string match -q '*scan*'",
        ),
    ] {
        let out = run(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(
            script.contains("scan") && script.contains("--threshold"),
            "{shell}"
        );
        if !installed(shell) {
            eprintln!("note: {shell} is not installed; its completion script was not loaded");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(format!("simfind.{shell}"));
        std::fs::write(&file, script).unwrap();
        let status = Command::new(shell)
            .args(["-c", load])
            .arg(&file)
            .env("HOME", dir.path())
            .env("ZDOTDIR", dir.path())
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{shell} could not load the script: {}{}",
            String::from_utf8_lossy(&status.stdout),
            String::from_utf8_lossy(&status.stderr)
        );
    }
    let bad = run(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn zero_threads_means_one_per_core_and_j_is_threads() {
    let one = run(&["--threads", "1", "scan", "testdata", "-q", "-t", "0.3"]);
    let auto = run(&["-j", "0", "scan", "testdata", "-q", "-t", "0.3"]);
    let two = run(&["scan", "testdata", "-j", "2", "-q", "-t", "0.3"]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(auto.status.code(), Some(0), "{}", stderr(&auto));
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));
    assert!(!one.stdout.is_empty());
    assert_eq!(one.stdout, auto.stdout);
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn shingle_size_has_a_word_name_and_k_stays_an_alias() {
    let spelled = ["-k", "--shingle-size", "--k"].map(|flag| {
        let out = run(&["scan", "testdata", "-q", "-t", "0.3", flag, "4"]);
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", stderr(&out));
        out.stdout
    });
    assert_eq!(spelled[0], spelled[1]);
    assert_eq!(spelled[0], spelled[2]);
    let help = stdout(&run(&["scan", "--help"]));
    assert!(help.contains("-k, --shingle-size <K>"), "{help}");
}

#[test]
fn decimal_and_binary_size_units_mean_what_they_say() {
    let dir = tempfile::tempdir().unwrap();
    let words = prose(7, 200_000);
    // 1,000,001 bytes: over 1 MB (10^6), under 1 MiB (2^20).
    let mut big = words.clone().into_bytes();
    big.truncate(1_000_001);
    write(dir.path(), "big.txt", &big);
    write(dir.path(), "big-copy.txt", &big);
    let d = dir.path().to_str().unwrap();
    let pairs = |size: &str| {
        let out = run(&["scan", d, "-q", "--max-size", size]);
        assert_eq!(out.status.code(), Some(0), "{size}: {}", stderr(&out));
        pair_paths(&out.stdout).len()
    };
    assert_eq!(pairs("1MB"), 0, "1MB is 10^6 bytes: the files are larger");
    assert_eq!(pairs("1MiB"), 1, "1MiB is 2^20 bytes: the files fit");
    assert_eq!(pairs("1M"), 1, "M alone stays binary");
    assert_eq!(pairs("1000001"), 1);
    assert_eq!(pairs("1000KB"), 0);
}

#[test]
fn summaries_count_in_the_singular_for_one() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(3, 400);
    write(dir.path(), "a.txt", text.as_bytes());
    let d = dir.path().to_str().unwrap();
    let out = run(&["scan", d]);
    let err = stderr(&out);
    assert!(err.contains("simfind: 1 file, "), "{err}");
    assert!(err.contains("1 distinct content"), "{err}");

    let db = dir.path().join("one.simfind");
    let db = db.to_str().unwrap();
    let built = run(&["index", d, "--db", db, "-q"]);
    assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
    let query = dir.path().join("a.txt");
    let out = run(&["query", query.to_str().unwrap(), "--db", db]);
    let err = stderr(&out);
    assert!(
        err.contains("simfind: 1 query in ") && err.contains(": 1 candidate, 1 match with"),
        "{err}"
    );
}

/// A reader that stops early (`simfind completions bash | grep -q scan`, as
/// bench/install_check.sh does) closes the pipe: the write fails, and the run
/// ends without a panic. PowerShell's script is larger than a pipe's buffer
/// (64 KiB), so its writer is still writing when the reader goes: the write
/// surely fails. Smaller outputs may fit before it does; they are run too.
#[test]
fn a_reader_that_stops_early_ends_the_run_without_a_panic() {
    use std::io::Read;
    for args in [
        &["completions", "powershell"][..],
        &["completions", "bash"],
        &["man"],
    ] {
        let mut child = simfind()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The read end is dropped here, before the rest is written.
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {err}");
    }
}
