//! End-to-end tests of issue 36, points 3, 4 and 7: every output that marks
//! files not kept uses the removal threshold; a reviewed plan (`scan --plan`,
//! `dedupe --dry-run --plan`) is what `dedupe --apply` acts on, refusing a
//! file or kept copy changed since; `--from-list` reads newline lists too;
//! `--keep original` prefers the original over its copies.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::dedupe::{column, corpus, run_folder, snapshot};
use crate::util::*;

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn name(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap()
        .rsplit("/r/")
        .next()
        .unwrap()
        .to_string()
}

/// Point 4: `--format clusters` and `--format jsonl --cluster center` without
/// -t mark nothing under the removal threshold as not kept, and their summary
/// counts the files `--list-removable` lists.
#[test]
fn groups_without_t_mark_only_files_above_the_removal_threshold() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let listed = sim_in(dir.path(), &["scan", "r", "--list-removable"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    assert_eq!(stdout(&listed), "r/near.txt\nr/sub/a-copy.txt\n");
    for args in [
        &["scan", "r", "--format", "clusters"][..],
        &["scan", "r", "--format", "jsonl", "--cluster", "center"],
    ] {
        let out = sim_in(dir.path(), args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        // loose.txt (J ≈ 0.6) is paired at the S-curve threshold, never here.
        assert!(!stdout(&out).contains("loose.txt"), "{}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("threshold 0.900"), "{err}");
        assert!(err.contains(", 2 removable, "), "{err}");
    }
    // -t still chooses: at 0.5 loose.txt is a removable member.
    let low = sim_in(
        dir.path(),
        &["scan", "r", "-q", "--format", "clusters", "-t", "0.5"],
    );
    assert!(stdout(&low).contains("loose.txt,"), "{}", stdout(&low));
}

#[test]
fn a_scan_plan_records_both_files_and_apply_moves_exactly_those_and_undo_restores() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let before = snapshot(&root);
    let out = sim_in(dir.path(), &["scan", "r", "-q", "--plan", "p.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let plan = lines(&dir.path().join("p.jsonl"));
    assert_eq!(plan[0]["simfind_plan"], 1);
    assert_eq!(plan[0]["action"], Value::Null);
    assert_eq!(plan[0]["threshold"], 0.9);
    assert_eq!(plan[0]["actions"], 2);
    let canonical = root.canonicalize().unwrap();
    assert_eq!(plan[0]["roots"][0], canonical.to_str().unwrap());
    let files: Vec<(String, String, bool)> = plan[1..]
        .iter()
        .map(|v| {
            (
                name(v, "path"),
                name(v, "kept"),
                v["identical"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        files,
        [
            ("near.txt".into(), "a.txt".into(), false),
            ("sub/a-copy.txt".into(), "a.txt".into(), true)
        ]
    );
    let near = &plan[1];
    assert_eq!(
        near["size"].as_u64().unwrap(),
        std::fs::metadata(root.join("near.txt")).unwrap().len()
    );
    for key in ["mtime_ns", "hash", "kept_mtime_ns", "kept_hash"] {
        assert!(near[key].is_string(), "{key}: {near}");
    }
    assert_eq!(near["hash"].as_str().unwrap().len(), 32);
    assert!(near["similarity"].as_f64().unwrap() >= 0.9);
    // The default keep policy, original: neither name is marked as a copy,
    // and a.txt is the shorter path.
    assert_eq!(near["kept_because"], "shorter path");

    let applied = sim_in(
        dir.path(),
        &[
            "dedupe",
            "--apply",
            "p.jsonl",
            "--move-to",
            "q",
            "--journal",
            "j.jsonl",
        ],
    );
    assert_eq!(code(&applied), 0, "{}", stderr(&applied));
    assert_eq!(column(&applied, "moved"), ["near.txt", "sub/a-copy.txt"]);
    assert!(root.join("a.txt").exists() && root.join("loose.txt").exists());
    assert!(!root.join("near.txt").exists());
    assert!(
        run_folder(&dir.path().join("q"))
            .join("r/near.txt")
            .exists()
    );
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert_eq!(snapshot(&root), before);
}

/// The plan's point: a file edited after the review, or whose kept copy was
/// edited, is refused, named, kept and counted; the rest goes ahead; exit 1.
#[test]
fn a_file_or_kept_copy_changed_between_plan_and_apply_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let out = sim_in(dir.path(), &["scan", "r", "-q", "--plan", "p.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let near = root.join("near.txt");
    let mut edited = std::fs::read(&near).unwrap();
    edited.extend_from_slice(b" a paragraph added after the review");
    std::fs::write(&near, &edited).unwrap();
    let applied = sim_in(
        dir.path(),
        &[
            "dedupe",
            "--apply",
            "p.jsonl",
            "--remove",
            "--allow-near",
            "--journal",
            "j.jsonl",
            "--summary-json",
            "s.json",
        ],
    );
    assert_eq!(code(&applied), 1, "{}", stderr(&applied));
    let err = stderr(&applied);
    assert!(err.contains("near.txt: skipped: its size changed"), "{err}");
    // Refused when its figure was measured again, before the actions.
    assert!(err.contains("removed 1 file of 1"), "{err}");
    assert_eq!(std::fs::read(&near).unwrap(), edited);
    assert!(!root.join("sub/a-copy.txt").exists());
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["skipped_files"], 1, "{summary}");
    assert_eq!(summary["done"], 1, "{summary}");

    // The kept copy changed: nothing of its group is touched.
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let out = sim_in(dir.path(), &["scan", "r", "-q", "--plan", "p.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let kept = root.join("a.txt");
    let f = std::fs::File::options().write(true).open(&kept).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(3600))
        .unwrap();
    drop(f);
    let before = snapshot(&root);
    let applied = sim_in(
        dir.path(),
        &["dedupe", "--apply", "p.jsonl", "--move-to", "q"],
    );
    assert_eq!(code(&applied), 1, "{}", stderr(&applied));
    let err = stderr(&applied);
    assert_eq!(err.matches("skipped: its kept copy").count(), 2, "{err}");
    assert_eq!(snapshot(&root), before);
}

#[test]
fn a_dry_run_plan_names_its_action_and_apply_needs_one() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let dry = sim_in(
        dir.path(),
        &["dedupe", "r", "--move-to", "q", "-n", "--plan", "p.jsonl"],
    );
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    let plan = lines(&dir.path().join("p.jsonl"));
    assert_eq!(plan[0]["action"], "move");
    assert_eq!(plan.len(), 3);
    assert_eq!(plan[1]["action"], "move");
    assert!(!dir.path().join("q").exists());

    let bare = sim_in(dir.path(), &["dedupe", "--apply", "p.jsonl"]);
    assert_eq!(code(&bare), 2);
    assert!(
        stderr(&bare).contains("(the plan was made for move)"),
        "{}",
        stderr(&bare)
    );
    // A plan is written by a dry run only.
    let acting = sim_in(
        dir.path(),
        &["dedupe", "r", "--remove", "--plan", "x.jsonl"],
    );
    assert_eq!(code(&acting), 2);
    assert!(stderr(&acting).contains("--dry-run"), "{}", stderr(&acting));
    assert!(!dir.path().join("x.jsonl").exists());
    // --link acts on byte-identical files of the plan only.
    let linked = sim_in(dir.path(), &["dedupe", "--apply", "p.jsonl", "--link"]);
    assert_eq!(code(&linked), 1, "{}", stderr(&linked));
    assert_eq!(column(&linked, "linked"), ["sub/a-copy.txt"]);
}

#[test]
fn a_damaged_or_overlong_plan_line_is_named_and_nothing_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let out = sim_in(dir.path(), &["scan", "r", "-q", "--plan", "p.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("p.jsonl")).unwrap();
    let before = snapshot(&root);
    let mut damaged: Vec<&str> = text.lines().collect();
    damaged.insert(2, "{\"seq\":7,");
    write(dir.path(), "bad.jsonl", damaged.join("\n").as_bytes());
    let long = format!("{}{}\n", text, "x".repeat(2 << 20));
    write(dir.path(), "long.jsonl", long.as_bytes());
    write(dir.path(), "none.jsonl", b"{\"simfind_journal\":1}\n");
    for (file, says) in [
        ("bad.jsonl", "line 3: not a JSON line"),
        (
            "long.jsonl",
            "line 4: longer than a plan line can be (1048576 bytes)",
        ),
        ("none.jsonl", "line 1: not a simfind plan"),
    ] {
        let out = sim_in(dir.path(), &["dedupe", "--apply", file, "--remove"]);
        assert_eq!(code(&out), 2, "{file}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{file}: {}", stderr(&out));
    }
    assert_eq!(snapshot(&root), before);
}

/// `--from-list` reads the newline list `--list-removable -o FILE` writes,
/// and still the NUL list of `-0`.
#[test]
fn from_list_reads_newline_and_nul_lists() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    for (file, extra) in [("nl.txt", None), ("nul.txt", Some("-0"))] {
        let mut args = vec!["scan", "r", "-q", "--list-removable", "-o", file];
        args.extend(extra);
        let out = sim_in(dir.path(), &args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let dry = sim_in(dir.path(), &["dedupe", "r", "--from-list", file]);
        assert_eq!(code(&dry), 0, "{file}: {}", stderr(&dry));
        assert_eq!(column(&dry, "removable"), ["near.txt", "sub/a-copy.txt"]);
    }
}

fn touch(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

/// Point 7: `--keep original`, the default, keeps the file without a copy
/// marker, then the shorter path, then the oldest, and says which rule
/// decided.
#[test]
fn keep_original_prefers_a_name_without_a_copy_marker_then_a_shorter_path_then_the_oldest() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(7, 400);
    let copy = write(
        dir.path(),
        "r/misc/lighthouse copy, final.txt",
        text.as_bytes(),
    );
    let original = write(dir.path(), "r/news/lighthouse.txt", text.as_bytes());
    let a = write(dir.path(), "r/photos/a-copy.txt", prose(8, 400).as_bytes());
    let b = write(dir.path(), "r/photos/a.txt", prose(8, 400).as_bytes());
    let one = write(dir.path(), "r/notes/one.txt", prose(9, 400).as_bytes());
    let two = write(dir.path(), "r/notes/two.txt", prose(9, 400).as_bytes());
    for p in [&copy, &original, &a, &b, &one, &two] {
        touch(p, 1_700_000_000);
    }
    // As a checkout or a copy tool leaves them: equal times.
    let first = sim_in(dir.path(), &["dedupe", "r", "--keep", "first"]);
    assert_eq!(
        column(&first, "removable"),
        ["news/lighthouse.txt", "notes/two.txt", "photos/a.txt"],
        "{}",
        stdout(&first)
    );
    let default = sim_in(dir.path(), &["dedupe", "r"]);
    assert_eq!(
        column(&default, "removable"),
        [
            "misc/lighthouse copy, final.txt",
            "notes/two.txt",
            "photos/a-copy.txt"
        ],
        "{}",
        stdout(&default)
    );
    let out = sim_in(dir.path(), &["scan", "r", "-q", "--plan", "p.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let plan = lines(&dir.path().join("p.jsonl"));
    assert_eq!(plan[0]["keep"], "original");
    let why: Vec<(String, String)> = plan[1..]
        .iter()
        .map(|v| {
            (
                name(v, "path"),
                v["kept_because"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        why,
        [
            (
                "misc/lighthouse copy, final.txt".into(),
                "no copy marker".into()
            ),
            ("notes/two.txt".into(), "found first".into()),
            ("photos/a-copy.txt".into(), "no copy marker".into()),
        ]
    );
    assert!(
        stdout(&default).contains("lighthouse copy, final.txt\t")
            && stdout(&default).contains("\tkept because: no copy marker\n"),
        "{}",
        stdout(&default)
    );
    // A copy made with `cp -p`, or an original edited after it was copied:
    // the copy is as old or older, and the name still decides.
    touch(&copy, 1_600_000_000);
    touch(&a, 1_600_000_000);
    // Two names without a marker: the older is kept.
    touch(&two, 1_600_000_000);
    let dry = sim_in(dir.path(), &["dedupe", "r", "--keep", "original"]);
    assert_eq!(
        column(&dry, "removable"),
        [
            "misc/lighthouse copy, final.txt",
            "notes/one.txt",
            "photos/a-copy.txt"
        ],
        "{}",
        stdout(&dry)
    );
    assert!(
        stdout(&dry).contains("notes/one.txt\t")
            && stdout(&dry).contains("\tkept because: oldest\n"),
        "{}",
        stdout(&dry)
    );
    // The same whatever the threads.
    let single = sim_in(dir.path(), &["dedupe", "r", "--threads", "1"]);
    assert_eq!(stdout(&single), stdout(&dry));
}

/// The export of `--format html` as the page's script makes it (tested in a
/// browser by the engine test `report_html::browser_exports_a_plan_that_dedupe_applies`):
/// the header's prefix, the number of actions, then the line of each file
/// chosen.
fn report_export(page: &str, chosen: impl Fn(&str) -> bool) -> (String, usize) {
    let data = crate::util::report::data(page);
    let mut lines = String::new();
    let mut n = 0;
    for member in data["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g.as_array().unwrap())
    {
        if let Some(line) = member["a"].as_str()
            && chosen(member["p"].as_str().unwrap())
        {
            lines.push_str(line);
            lines.push('\n');
            n += 1;
        }
    }
    (
        format!("{}{n}}}\n{lines}", data["plan_header"].as_str().unwrap()),
        n,
    )
}

/// Issue 36, point 3: the HTML report's export is a plan. Each removable
/// file carries the line `scan --plan` writes for it (the same fingerprints,
/// made once when both are asked), a kept file none; `dedupe --apply` acts
/// on exactly the files chosen, from any directory, and refuses one changed
/// after the report was written.
#[test]
fn the_html_reports_export_is_a_plan_that_apply_acts_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let out = sim_in(
        dir.path(),
        &[
            "scan",
            "r",
            "-q",
            "--format",
            "html",
            "-o",
            "report.html",
            "--plan",
            "p.jsonl",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let data = crate::util::report::data(&page);
    let members: Vec<&Value> = data["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g.as_array().unwrap())
        .collect();
    for m in &members {
        // Flag 4: kept.
        assert_eq!(m["a"].is_string(), m["f"].as_u64().unwrap() & 4 == 0, "{m}");
    }
    // The scan's choice is the plan `--plan` wrote, line for line.
    let (all, n) = report_export(&page, |_| true);
    assert_eq!(n, 2);
    assert_eq!(
        all,
        std::fs::read_to_string(dir.path().join("p.jsonl")).unwrap()
    );

    // The reviewer keeps near.txt: the plan holds the copy only.
    let (chosen, n) = report_export(&page, |p| p.ends_with("a-copy.txt"));
    assert_eq!(n, 1);
    std::fs::write(dir.path().join("chosen.jsonl"), &chosen).unwrap();
    // Applied from another directory: the plan's paths are absolute.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let applied = sim_in(
        &elsewhere,
        &[
            "dedupe",
            "--apply",
            "../chosen.jsonl",
            "--move-to",
            "../q",
            "--journal",
            "../j.jsonl",
        ],
    );
    assert_eq!(code(&applied), 0, "{}", stderr(&applied));
    assert_eq!(column(&applied, "moved"), ["sub/a-copy.txt"]);
    assert!(root.join("near.txt").exists() && !root.join("sub/a-copy.txt").exists());
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));

    // A file changed after the report was written is refused and kept.
    std::fs::write(dir.path().join("all.jsonl"), &all).unwrap();
    let near = root.join("near.txt");
    let mut edited = std::fs::read(&near).unwrap();
    edited.extend_from_slice(b" a paragraph added after the review");
    std::fs::write(&near, &edited).unwrap();
    let applied = sim_in(
        dir.path(),
        &[
            "dedupe",
            "--apply",
            "all.jsonl",
            "--move-to",
            "q",
            "--journal",
            "j2.jsonl",
        ],
    );
    assert_eq!(code(&applied), 1, "{}", stderr(&applied));
    assert!(
        stderr(&applied).contains("near.txt: skipped: its size changed"),
        "{}",
        stderr(&applied)
    );
    assert_eq!(std::fs::read(&near).unwrap(), edited);
    assert_eq!(column(&applied, "moved"), ["sub/a-copy.txt"]);
}

/// Records have no plan: the report of a records scan carries no header and
/// no action lines (its page offers the list of ids only).
#[test]
fn a_records_report_carries_no_plan() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(3, 200);
    let rows: String = (0..3)
        .map(|i| {
            format!(
                "{}\n",
                serde_json::json!({"id": format!("r{i}"), "text": text})
            )
        })
        .collect();
    write(dir.path(), "r.jsonl", rows.as_bytes());
    let out = sim_in(
        dir.path(),
        &[
            "scan",
            "--input",
            "jsonl",
            "r.jsonl",
            "-q",
            "--format",
            "html",
            "-o",
            "report.html",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let data = crate::util::report::data(&page);
    assert!(data["plan_header"].is_null(), "{}", data["plan_header"]);
    assert!(
        data["groups"][0]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.get("a").is_none())
    );
}
