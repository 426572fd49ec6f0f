//! Issue 36 point 6: `dedupe` in cron. Two nights with one `--move-to` both
//! succeed and `undo` restores each; `-q` prints nothing on success;
//! `--summary-json` and `--exit-code` as scan has them; `--files-from -`
//! without a directory; control characters in paths escaped on stdout;
//! paths absolute on stdout and in warnings.

use super::*;

/// The quarantine's dated sub-folders, in name order (= time order).
fn run_folders(q: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(q)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
}

/// Night after night, the same copy re-appears: each run moves it into its
/// own sub-folder (the second used to fail with "already exists").
#[test]
fn two_nightly_runs_with_one_move_to_both_succeed_and_undo_restores_each() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let copy = std::fs::read(root.join("sub/a-copy.txt")).unwrap();
    let night = |journal: &str| {
        let out = sim_in(
            dir.path(),
            &[
                "dedupe",
                "r",
                "-t",
                "1",
                "--move-to",
                "q",
                "--journal",
                journal,
                "-q",
            ],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        // -q: nothing on stderr on success.
        assert_eq!(stderr(&out), "");
        out
    };
    night("j1.jsonl");
    std::fs::write(root.join("sub/a-copy.txt"), &copy).unwrap();
    night("j2.jsonl");
    let folders = run_folders(&dir.path().join("q"));
    assert_eq!(folders.len(), 2, "{folders:?}");
    for folder in &folders {
        let name = folder.file_name().unwrap().to_str().unwrap();
        // 2026-11-29T031500Z, maybe with -2 for a second run in one second.
        assert_eq!(&name[4..5], "-", "{name}");
        assert_eq!(&name[10..11], "T", "{name}");
        assert_eq!(&name[17..18], "Z", "{name}");
        assert_eq!(
            std::fs::read(folder.join("r/sub/a-copy.txt")).unwrap(),
            copy
        );
    }
    assert!(!root.join("sub/a-copy.txt").exists());
    // Each night's journal puts back that night's file.
    let undo = sim_in(dir.path(), &["undo", "j2.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert_eq!(std::fs::read(root.join("sub/a-copy.txt")).unwrap(), copy);
    assert!(!folders[1].join("r/sub/a-copy.txt").exists());
    std::fs::remove_file(root.join("sub/a-copy.txt")).unwrap();
    let undo = sim_in(dir.path(), &["undo", "j1.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert_eq!(std::fs::read(root.join("sub/a-copy.txt")).unwrap(), copy);
}

#[test]
fn summary_json_exit_code_and_the_scan_summary() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let out = sim_in(
        dir.path(),
        &[
            "dedupe",
            "r",
            "-t",
            "1",
            "--summary-json",
            "s.json",
            "--exit-code",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The scan's own summary line, then the dry run's.
    assert!(
        stderr(&out).contains("simfind: 5 files, "),
        "{}",
        stderr(&out)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["schema"], "simfind-summary/1");
    assert_eq!(summary["command"], "dedupe");
    assert_eq!(summary["exit_status"], 0);
    assert_eq!(summary["files"], 5);
    assert_eq!(summary["planned"], 1);
    assert_eq!(summary["dry_run"], true);
    // Nothing to act on: 3 with --exit-code, 0 without.
    std::fs::remove_file(dir.path().join("r/sub/a-copy.txt")).unwrap();
    let none = sim_in(
        dir.path(),
        &[
            "dedupe",
            "r",
            "-t",
            "1",
            "--exit-code",
            "--summary-json",
            "s.json",
        ],
    );
    assert_eq!(code(&none), 3, "{}", stderr(&none));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["exit_status"], 3);
    assert_eq!(code(&sim_in(dir.path(), &["dedupe", "r", "-t", "1"])), 0);
    // `-` would mix the summary into the data.
    let mixed = sim_in(dir.path(), &["dedupe", "r", "--summary-json", "-"]);
    assert_eq!(code(&mixed), 2, "{}", stderr(&mixed));
}

#[test]
fn files_from_stdin_needs_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let list = b"r/a.txt\nr/sub/a-copy.txt\nr/other.txt\n";
    let out = run_in(
        dir.path(),
        &["dedupe", "--files-from", "-", "-t", "1"],
        list,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].starts_with("removable\t/"), "{}", lines[0]);
    assert!(lines[0].contains("r/sub/a-copy.txt\t"), "{}", lines[0]);
    let out = run_in(
        dir.path(),
        &[
            "dedupe",
            "--files0-from",
            "-",
            "-t",
            "1",
            "--move-to",
            "q",
            "--journal",
            "j.jsonl",
        ],
        b"r/a.txt\0r/sub/a-copy.txt\0",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!dir.path().join("r/sub/a-copy.txt").exists());
    let folder = &run_folders(&dir.path().join("q"))[0];
    // A listed file's directory is its root.
    assert!(folder.join("sub/a-copy.txt").exists(), "{folder:?}");
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert!(dir.path().join("r/sub/a-copy.txt").exists());
}

#[test]
fn control_characters_are_escaped_and_paths_absolute_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let a = std::fs::read(root.join("a.txt")).unwrap();
    write(dir.path(), "r/two\nlines.txt", &a);
    write(dir.path(), "r/tab\there.txt", &a);
    let out = sim_in(dir.path(), &["dedupe", "r", "-t", "1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    // One line per file: the newline and the tab are escaped as scan's TSV
    // escapes them.
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.contains("/r/two\\nlines.txt\t"), "{text}");
    assert!(text.contains("/r/tab\\there.txt\t"), "{text}");
    for line in text.lines() {
        assert!(line.split('\t').nth(1).unwrap().starts_with('/'), "{line}");
    }
    // A skipped file is named as stdout names files: absolute.
    let out = sim_in(dir.path(), &["dedupe", "r", "--link", "--dry-run"]);
    let err = stderr(&out);
    let warned: Vec<&str> = err.lines().filter(|l| l.contains(": skipped:")).collect();
    assert!(!warned.is_empty(), "{err}");
    for line in warned {
        let path = line.split("warning: ").nth(1).unwrap();
        assert!(
            path.starts_with(dir.path().canonicalize().unwrap().to_str().unwrap()),
            "{line}"
        );
    }
}
