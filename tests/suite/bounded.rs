//! Every input read whole stops at its cap (issue #38): an endless stdin
//! (`< /dev/zero`) for `query -` and `index --add -`, and an endless list,
//! ends within seconds with exit 2 (1 for `query`) and a message naming the cap, instead of
//! growing until the memory runs out (review N7.1, N7.2).

use std::process::{Output, Stdio};

use crate::util::{simfind, stderr, write};

fn with_endless_stdin(args: &[&str], dir: &std::path::Path) -> Output {
    simfind()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::from(std::fs::File::open("/dev/zero").unwrap()))
        .output()
        .unwrap()
}

fn indexed(dir: &std::path::Path) {
    let root = dir.join("docs");
    std::fs::create_dir(&root).unwrap();
    write(
        &root,
        "a.txt",
        b"the quick brown fox jumps over the lazy dog",
    );
    let out = simfind()
        .current_dir(dir)
        .args(["index", "docs", "--db", "i.db", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Exit `code`: 2 for an argument (a list, `--add -`); 1 for `query`, whose
/// unreadable query document is a warning, as any unreadable file.
fn stopped_at_the_cap(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "{}", stderr(out));
    let said = stderr(out);
    assert!(said.contains("cap of 268435456 bytes (256 MiB)"), "{said}");
}

#[test]
fn query_of_an_endless_stdin_stops_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    indexed(dir.path());
    let out = with_endless_stdin(&["query", "-q", "-", "--db", "i.db"], dir.path());
    stopped_at_the_cap(&out, 1);
    assert!(stderr(&out).contains("standard input"), "{}", stderr(&out));
}

#[test]
fn index_add_of_an_endless_stdin_stops_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    indexed(dir.path());
    let out = with_endless_stdin(
        &[
            "index", "-q", "--db", "i.db", "--add", "-", "--name", "z.txt",
        ],
        dir.path(),
    );
    stopped_at_the_cap(&out, 2);
}

#[test]
fn an_endless_files_from_list_stops_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let out = with_endless_stdin(&["scan", "-q", "--files-from", "-"], dir.path());
    stopped_at_the_cap(&out, 2);
    assert!(stderr(&out).contains("--files-from"), "{}", stderr(&out));
}

/// A record, set, vector or bit-string input whose line never ends stops at
/// the line cap when a bad row stops the run (no `--skip-bad-rows`): it is
/// not read on to the line's end (review N1.31: `--input csv /dev/zero` read
/// on for ever), and the message names the cap and the ways past it.
#[test]
fn an_endless_line_of_records_stops_at_the_line_cap() {
    let dir = tempfile::tempdir().unwrap();
    let measured: &[&str] = &["-t", "0.9"];
    for (kind, extra) in [
        ("csv", &[][..]),
        ("tsv", &[]),
        ("jsonl", &[]),
        ("sets", &[]),
        ("vectors", measured),
        ("bits", &["--radius", "3"]),
    ] {
        let mut args = vec!["scan", "-q", "--input", kind, "--max-line-length", "1M"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = with_endless_stdin(&args, dir.path());
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{kind}: {said}");
        assert!(
            said.contains("longer than the cap of 1048576 bytes, not read on"),
            "{kind}: {said}"
        );
        assert!(out.stdout.is_empty(), "{kind}: no output");
    }
}
