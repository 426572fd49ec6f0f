//! End-to-end tests of issue 36, point 2: a file is removable when its kept
//! copy contains it, not merely resembles it. Every output that decides
//! removals measures each removable file against its kept copy
//! (`only_in_removed` = 1 − containment) and holds back, by default, a file
//! with more than 1 % of its shingles not in the kept copy.

use std::path::Path;

use serde_json::Value;

use crate::util::*;

/// `dir/r`: `a.txt`; `b.txt` = `a.txt` with one paragraph of its own added
/// (J ≈ 0.97, about 3 % of its text only there); `c.txt` a byte-identical
/// copy; `d.txt` a pure subset of `a.txt` (its first 1900 words).
fn corpus(dir: &Path) {
    let base = letter_words(1, 2000);
    write(dir, "r/a.txt", &words_text(&[&base]));
    let paragraph = letter_words(7, 60);
    write(
        dir,
        "r/b.txt",
        &words_text(&[&base[..1000], &paragraph, &base[1000..]]),
    );
    write(dir, "r/c.txt", &words_text(&[&base]));
    write(dir, "r/d.txt", &words_text(&[&base[..1900]]));
}

/// The share `held back: r/b.txt has X % text not in r/a.txt` names.
fn held_back_share(err: &str) -> f64 {
    let line = err
        .lines()
        .find(|l| l.starts_with("simfind: held back: "))
        .unwrap_or_else(|| panic!("no held-back line: {err}"));
    assert!(
        line.starts_with("simfind: held back: r/b.txt has ")
            && line.contains(" % text not in r/a.txt"),
        "{line}"
    );
    let figure = line["simfind: held back: r/b.txt has ".len()..]
        .split(' ')
        .next()
        .unwrap();
    figure.parse::<f64>().unwrap() / 100.0
}

#[test]
fn a_removable_file_with_a_unique_paragraph_is_held_back_with_its_figure() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    // b.txt is similar enough to be a copy at the removal threshold...
    let pairs = sim_in(dir.path(), &["scan", "r", "-q", "-t", "0.9"]);
    assert!(
        stdout(&pairs).contains("r/a.txt,r/b.txt,0.9"),
        "{}",
        stdout(&pairs)
    );

    // ...but it holds a paragraph a.txt lacks: listed nowhere as removable.
    let listed = sim_in(dir.path(), &["scan", "r", "--list-removable"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    assert_eq!(stdout(&listed), "r/c.txt\nr/d.txt\n");
    let err = stderr(&listed);
    let share = held_back_share(&err);
    assert!((0.02..0.05).contains(&share), "{err}");
    assert!(err.contains(", 2 removable, "), "{err}");
    assert!(err.contains("; 1 file held back"), "{err}");

    // The dry run shows each file's figure; a byte-identical copy and a pure
    // subset are 0 %, and b.txt is not acted on.
    let dry = sim_in(dir.path(), &["dedupe", "r", "--summary-json", "s.json"]);
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    let out = stdout(&dry);
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(
        rows[0][1].ends_with("r/c.txt") && rows[0][4] == "identical",
        "{out}"
    );
    assert!(
        rows[1][1].ends_with("r/d.txt") && rows[1][4] == "near",
        "{out}"
    );
    for row in &rows {
        assert_eq!(row[5], "not in kept: 0 %", "{out}");
    }
    let err = stderr(&dry);
    assert!(err.contains("simfind: held back: "), "{err}");
    assert!(err.contains("dry run: 2 files ("), "{err}");
    assert!(err.contains("; 1 file held back"), "{err}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["held_back"], 1, "{summary}");
    assert_eq!(summary["planned"], 2, "{summary}");

    // Acting moves the two copies and never b.txt.
    let moved = sim_in(dir.path(), &["dedupe", "r", "-q", "--move-to", "q"]);
    assert_eq!(code(&moved), 0, "{}", stderr(&moved));
    assert!(dir.path().join("r/b.txt").exists());
    assert!(!dir.path().join("r/c.txt").exists() && !dir.path().join("r/d.txt").exists());
}

#[test]
fn groups_and_plans_carry_the_figure_and_max_unique_1_is_the_old_rule() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    // Clusters: one more column, last; the held-back file is kept.
    let clusters = sim_in(dir.path(), &["scan", "r", "-q", "--format", "clusters"]);
    assert_eq!(code(&clusters), 0, "{}", stderr(&clusters));
    let rows: Vec<csv::ByteRecord> = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(&clusters.stdout[..])
        .byte_records()
        .map(Result::unwrap)
        .collect();
    let header: Vec<&[u8]> = rows[0].iter().collect();
    assert_eq!(header.len(), 9);
    assert_eq!(header[8], b"only_in_removed");
    let row = |name: &str| {
        rows.iter()
            .find(|r| r[1] == *name.as_bytes())
            .unwrap_or_else(|| panic!("{name}: {}", stdout(&clusters)))
            .clone()
    };
    assert_eq!(&row("r/a.txt")[8], b"");
    assert_eq!(
        (&row("r/b.txt")[7], &row("r/c.txt")[7]),
        (&b"true"[..], &b"false"[..])
    );
    let b_share: f64 = std::str::from_utf8(&row("r/b.txt")[8])
        .unwrap()
        .parse()
        .unwrap();
    assert!((0.02..0.05).contains(&b_share), "{b_share}");
    assert_eq!(&row("r/d.txt")[8], b"0.000000");

    // JSON Lines groups: the same figure, null for the kept copy.
    let jsonl = sim_in(
        dir.path(),
        &[
            "scan",
            "r",
            "-q",
            "--format",
            "jsonl",
            "--cluster",
            "center",
        ],
    );
    let group: Value = serde_json::from_str(stdout(&jsonl).lines().next().unwrap()).unwrap();
    let files = group["files"].as_array().unwrap();
    assert_eq!(files[0]["only_in_removed"], Value::Null);
    assert_eq!(files[1]["path"], "r/b.txt");
    assert_eq!(files[1]["kept"], true);
    assert!(files[1]["only_in_removed"].as_f64().unwrap() > 0.02);

    // The plan: every action with its figure, b.txt not among them.
    let planned = sim_in(dir.path(), &["scan", "r", "-q", "--plan", "p.jsonl"]);
    assert_eq!(code(&planned), 0, "{}", stderr(&planned));
    let plan: Vec<Value> = std::fs::read_to_string(dir.path().join("p.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(plan[0]["simfind_plan"], 1);
    assert_eq!(plan[0]["actions"], 2);
    for action in &plan[1..] {
        assert!(!action["path"].as_str().unwrap().ends_with("b.txt"));
        assert_eq!(action["only_in_removed"], 0.0, "{action}");
        assert_eq!(action["only_in_removed_bytes"], 0, "{action}");
    }

    // --max-unique 1: every member not kept is removable, as before.
    let all = sim_in(
        dir.path(),
        &["scan", "r", "--list-removable", "--max-unique", "1"],
    );
    assert_eq!(stdout(&all), "r/b.txt\nr/c.txt\nr/d.txt\n");
    assert!(!stderr(&all).contains("held back"), "{}", stderr(&all));
    let dry = sim_in(dir.path(), &["dedupe", "r", "--max-unique", "1"]);
    let b_line = stdout(&dry)
        .lines()
        .find(|l| l.contains("r/b.txt"))
        .unwrap()
        .to_string();
    assert!(
        b_line.contains("\tnot in kept: ") && b_line.contains(" % (~"),
        "{b_line}"
    );

    // A share outside 0..1 is refused.
    let bad = sim_in(
        dir.path(),
        &["scan", "r", "--list-removable", "--max-unique", "5"],
    );
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
}

/// The plan `scan r --plan p.jsonl` writes with `extra` flags, as JSON
/// values (header first).
fn scan_plan(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["scan", "r", "-q", "--plan", "p.jsonl"];
    args.extend_from_slice(extra);
    let out = sim_in(dir, &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::read_to_string(dir.join("p.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_plan(dir: &Path, plan: &[Value]) {
    let text: String = plan.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(dir.join("p.jsonl"), text).unwrap();
}

/// Point 3 with point 2: `--apply` measures `only_in_removed` again, the
/// way the plan's header says, and refuses (keeps, names, exit 1) a file
/// whose figure is now above the figure its line records or the header's
/// cap: a plan edited to make a file with text of its own look contained
/// does not get it removed.
#[test]
fn apply_measures_the_figure_again_and_keeps_a_file_the_plan_understates() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    // --max-unique 1: b.txt (about 3 % of its own) is in the plan, and the
    // header records the recipe and the cap.
    let mut plan = scan_plan(dir.path(), &["--max-unique", "1"]);
    assert_eq!(plan[0]["max_unique"], 1.0, "{}", plan[0]);
    let recipe = &plan[0]["recipe"];
    assert!(recipe["shingle_kind"].is_string(), "{}", plan[0]);
    assert!(recipe["k"].is_string() && recipe["extraction"].is_string());
    // `actions` stays last: the HTML report ends the header with its count.
    let text = std::fs::read_to_string(dir.path().join("p.jsonl")).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.ends_with(",\"actions\":3}"), "{first}");
    let b = plan
        .iter()
        .position(|v| v["path"].as_str().is_some_and(|p| p.ends_with("/r/b.txt")))
        .expect("b.txt in the plan");
    let figure = plan[b]["only_in_removed"].as_f64().unwrap();
    assert!((0.02..0.05).contains(&figure), "{}", plan[b]);
    plan[b]["only_in_removed"] = Value::from(0.0);
    plan[b]["only_in_removed_bytes"] = Value::from(0);
    write_plan(dir.path(), &plan);
    let applied = sim_in(
        dir.path(),
        &[
            "dedupe",
            "--apply",
            "p.jsonl",
            "--move-to",
            "q",
            "--summary-json",
            "s.json",
        ],
    );
    assert_eq!(code(&applied), 1, "{}", stderr(&applied));
    let err = stderr(&applied);
    assert!(
        err.contains("r/b.txt: skipped: ")
            && err.contains(" of its text is not in ")
            && err.contains("when measured again, more than the 0 % the plan recorded: kept"),
        "{err}"
    );
    assert!(dir.path().join("r/b.txt").exists());
    assert!(!dir.path().join("r/c.txt").exists() && !dir.path().join("r/d.txt").exists());
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(
        (&summary["done"], &summary["skipped_files"]),
        (&Value::from(2), &Value::from(1)),
        "{summary}"
    );

    // The header's cap holds too: the same plan with its figure intact but
    // the cap lowered to the default keeps b.txt.
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let mut plan = scan_plan(dir.path(), &["--max-unique", "1"]);
    plan[0]["max_unique"] = Value::from(0.01);
    write_plan(dir.path(), &plan);
    let applied = sim_in(
        dir.path(),
        &["dedupe", "--apply", "p.jsonl", "--move-to", "q"],
    );
    assert_eq!(code(&applied), 1, "{}", stderr(&applied));
    let err = stderr(&applied);
    assert!(
        err.contains("r/b.txt: skipped: ")
            && err.contains("more than the plan's --max-unique 0.01"),
        "{err}"
    );
    assert!(dir.path().join("r/b.txt").exists());

    // Unedited, a plan made with --max-unique 1 is applied whole: the cap
    // the reviewer chose is the plan's.
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    scan_plan(dir.path(), &["--max-unique", "1"]);
    let applied = sim_in(
        dir.path(),
        &["dedupe", "--apply", "p.jsonl", "--move-to", "q"],
    );
    assert_eq!(code(&applied), 0, "{}", stderr(&applied));
    assert!(!dir.path().join("r/b.txt").exists());
}

/// A plan written before plans recorded their recipe is applied on its
/// fingerprints alone (docs/ACTIONS.md), and the run says the figures were
/// not measured again.
#[test]
fn a_plan_without_its_recipe_is_applied_on_its_fingerprints_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let mut plan = scan_plan(dir.path(), &[]);
    let header = plan[0].as_object_mut().unwrap();
    header.remove("recipe");
    header.remove("max_unique");
    write_plan(dir.path(), &plan);
    let applied = sim_in(
        dir.path(),
        &["dedupe", "--apply", "p.jsonl", "--move-to", "q"],
    );
    assert_eq!(code(&applied), 0, "{}", stderr(&applied));
    assert!(
        stderr(&applied).contains("only_in_removed is not measured again"),
        "{}",
        stderr(&applied)
    );
    assert!(!dir.path().join("r/c.txt").exists() && !dir.path().join("r/d.txt").exists());
}

/// A plan whose texts a `--transform` command made is measured again only
/// with that command given again: without it, nothing is done (exit 2).
#[test]
fn a_transform_plan_is_applied_only_with_its_command_given_again() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    scan_plan(dir.path(), &["--transform", "cat"]);
    let refused = sim_in(
        dir.path(),
        &["dedupe", "--apply", "p.jsonl", "--move-to", "q"],
    );
    assert_eq!(code(&refused), 2, "{}", stderr(&refused));
    let err = stderr(&refused);
    assert!(
        err.contains("cannot be measured again") && err.contains("--transform"),
        "{err}"
    );
    assert!(dir.path().join("r/d.txt").exists());
    let applied = sim_in(
        dir.path(),
        &[
            "dedupe",
            "--apply",
            "p.jsonl",
            "--move-to",
            "q",
            "--transform",
            "cat",
        ],
    );
    assert_eq!(code(&applied), 0, "{}", stderr(&applied));
    assert!(!dir.path().join("r/d.txt").exists());
}
