//! Snapshots of the command-line surface (issue #19): every `--help`, and
//! every ```` ```console ```` block of README.md and docs/*.md, run against
//! the built binary and compared with what the page shows.
//!
//! - `--help`: `tests/snapshots/help/<subcommand>.txt` (`simfind.txt` for the
//!   top level), one per subcommand listed by `simfind --help`, rendered at
//!   100 columns without colour.
//! - `-h`: `tests/snapshots/short-help/<subcommand>.txt` for the subcommands
//!   with a short page of everyday flags (`src/app/flags/short.rs`).
//! - A console block: each `$ simfind …` line is run by bash from the project
//!   root with the built binary first on PATH; the lines after it, up to the
//!   next `$ ` line, are its stdout followed by its stderr. `…` in an expected
//!   line stands for any text within that line (times, speeds).
//!   Blocks that need a corpus not in the checkout use a plain ```` ``` ````
//!   fence and are not run.
//!
//! After a deliberate change, regenerate everything with one command:
//!
//! ```sh
//! TRYCMD=overwrite cargo test --release --test suite doc_commands
//! ```
//!
//! and review the diff (`git diff tests/snapshots README.md docs`). A block
//! whose output still matches keeps its `…` wildcards.

use std::path::{Path, PathBuf};

use crate::util::*;

fn overwrite() -> bool {
    std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite")
}

fn help_dir() -> PathBuf {
    root().join("tests/snapshots/help")
}

/// The subcommands `simfind --help` lists (so a new one needs a snapshot).
fn subcommands() -> Vec<String> {
    let out = run(&["--help"]);
    let text = stdout(&out);
    let commands = text
        .split("Commands:\n")
        .nth(1)
        .expect("--help lists commands");
    commands
        .lines()
        .take_while(|line| line.starts_with("  "))
        // A description that wraps goes on under it, indented further.
        .filter(|line| !line[2..].starts_with(' '))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

fn help_of(subcommand: Option<&str>) -> String {
    page_of(subcommand, "--help")
}

fn page_of(subcommand: Option<&str>, flag: &str) -> String {
    let mut cmd = simfind();
    cmd.env("COLUMNS", "100").env("NO_COLOR", "1");
    if let Some(name) = subcommand {
        cmd.arg(name);
    }
    let out = cmd.arg(flag).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{subcommand:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_help_matches_its_snapshot() {
    let names = subcommands();
    assert!(names.iter().any(|n| n == "scan"), "{names:?}");
    let mut stale = Vec::new();
    let mut expected_files = vec!["simfind.txt".to_string()];
    for name in std::iter::once(None).chain(names.iter().map(|n| Some(n.as_str()))) {
        let file = help_dir().join(format!("{}.txt", name.unwrap_or("simfind")));
        let actual = help_of(name);
        if std::fs::read_to_string(&file).ok().as_deref() != Some(actual.as_str()) {
            if overwrite() {
                std::fs::create_dir_all(help_dir()).unwrap();
                std::fs::write(&file, &actual).unwrap();
            } else {
                stale.push(file.display().to_string());
            }
        }
        if let Some(name) = name {
            expected_files.push(format!("{name}.txt"));
        }
    }
    // A snapshot of a subcommand that no longer exists is stale too.
    for entry in std::fs::read_dir(help_dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !expected_files.contains(&name) {
            if overwrite() {
                std::fs::remove_file(help_dir().join(&name)).unwrap();
            } else {
                stale.push(name);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "--help differs from its snapshot: {stale:?}; if intended, run \
         `TRYCMD=overwrite cargo test --release --test suite doc_commands` and review the diff"
    );
}

/// The subcommands whose `-h` is a short page of everyday flags.
const SHORT_PAGES: [&str; 8] = [
    "scan", "sign", "dedupe", "index", "verify", "explain", "compare", "group",
];

#[test]
fn every_short_help_matches_its_snapshot() {
    let dir = root().join("tests/snapshots/short-help");
    let mut stale = Vec::new();
    for name in SHORT_PAGES {
        let file = dir.join(format!("{name}.txt"));
        let actual = page_of(Some(name), "-h");
        // Short: a screen, not a reference (scan's has the most to show).
        let lines = actual.lines().count();
        assert!(lines <= 64, "{name} -h has {lines} lines");
        assert!(
            actual.ends_with(&format!("simfind {name} --help\n")),
            "{name} -h ends by pointing to --help: {actual}"
        );
        if std::fs::read_to_string(&file).ok().as_deref() != Some(actual.as_str()) {
            if overwrite() {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&file, &actual).unwrap();
            } else {
                stale.push(file.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "-h differs from its snapshot: {stale:?}; if intended, run \
         `TRYCMD=overwrite cargo test --release --test doc_commands` and review the diff"
    );
}

/// A `$ command` and the lines shown after it, with their line range in the page.
struct Example {
    command: String,
    expected: Vec<String>,
    /// Lines (0-based, end exclusive) of the expected output.
    lines: std::ops::Range<usize>,
}

fn console_examples(text: &str) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```console" {
            i += 1;
            continue;
        }
        i += 1;
        while i < lines.len() && !lines[i].starts_with("```") {
            let command = lines[i]
                .strip_prefix("$ ")
                .unwrap_or_else(|| panic!("a console block starts with `$ `: {}", lines[i]));
            i += 1;
            let start = i;
            while i < lines.len() && !lines[i].starts_with("```") && !lines[i].starts_with("$ ") {
                i += 1;
            }
            examples.push(Example {
                command: command.to_string(),
                expected: lines[start..i].iter().map(|l| l.to_string()).collect(),
                lines: start..i,
            });
        }
        i += 1;
    }
    examples
}

/// Whether `actual` is `expected` with each `…` standing for any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let pieces: Vec<&str> = expected.split('…').collect();
    if pieces.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !actual.starts_with(first) || !actual[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

fn run_example(command: &str) -> Vec<String> {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_simfind")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(root())
        .env("PATH", path)
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    text.lines().map(str::to_string).collect()
}

#[test]
fn console_blocks_in_readme_and_docs_show_what_the_binary_prints() {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut changed = false;
        // Back to front, so that replacing one output keeps the earlier ranges.
        for example in console_examples(&text).into_iter().rev() {
            checked += 1;
            let actual = run_example(&example.command);
            let matches = actual.len() == example.expected.len()
                && example
                    .expected
                    .iter()
                    .zip(&actual)
                    .all(|(e, a)| line_matches(e, a));
            if matches {
                continue;
            }
            if overwrite() {
                lines.splice(example.lines.clone(), actual);
                changed = true;
            } else {
                failures.push(format!(
                    "{}:{}: $ {}\n--- shown\n{}\n--- printed\n{}",
                    page.display(),
                    example.lines.start,
                    example.command,
                    example.expected.join("\n"),
                    actual.join("\n")
                ));
            }
        }
        if changed {
            std::fs::write(&page, lines.join("\n") + "\n").unwrap();
        }
    }
    assert!(checked >= 3, "found only {checked} console examples");
    assert!(
        failures.is_empty(),
        "{}\n\nif intended: TRYCMD=overwrite cargo test --release --test suite doc_commands",
        failures.join("\n\n")
    );
}

#[test]
fn the_wildcard_matches_only_within_its_line() {
    assert!(line_matches("in 0.… s (…)", "in 0.01 s (2.1 MB/s)"));
    assert!(line_matches("same", "same"));
    assert!(!line_matches("in … s", "in 0.01 ms"));
    assert!(!line_matches("a…b", "a"));
    assert!(!line_matches("x", "y"));
}
