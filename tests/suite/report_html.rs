//! `scan --format html`: the self-contained report, checked as a file (no
//! external resource, the data blob equals the groups CSV, the same bytes
//! whatever the thread count) and in a real browser: headless Chromium loads
//! the report with `#selftest`, the page draws every page of groups and writes
//! what its DOM holds into `<pre id=selftest>`, and the test compares that with
//! the CSV and `--list-removable -0` of the same scan. The browser tests are
//! in the `engines` test binary (`tests/engines/report_html.rs`); the helpers
//! both share are `tests/util/report.rs`.

use std::os::unix::ffi::OsStrExt;

use crate::util::report::{csv_groups, data, hostile_corpus, report, scan};
use crate::util::{prose, root, simfind, write};
use serde_json::Value;

/// A member's exact path bytes, from the blob.
fn member_bytes(m: &Value) -> Vec<u8> {
    match m.get("x") {
        Some(bytes) => bytes
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap() as u8)
            .collect(),
        None => m["p"].as_str().unwrap().as_bytes().to_vec(),
    }
}

/// Every (group, path) of the blob, in order.
fn blob_rows(data: &Value) -> Vec<(String, Vec<u8>)> {
    let mut rows = Vec::new();
    for (i, group) in data["groups"].as_array().unwrap().iter().enumerate() {
        for m in group.as_array().unwrap() {
            rows.push(((i + 1).to_string(), member_bytes(m)));
        }
    }
    rows
}

#[test]
fn the_report_is_one_file_with_no_external_resource() {
    let dir = tempfile::tempdir().unwrap();
    let (_, page) = report(dir.path(), &root().join("testdata"), &[]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    let lower = page
        .to_ascii_lowercase()
        .replace("url.createobjecturl(", "");
    for needle in ["<link", " src=", "@import", "url(", "<iframe", "<img"] {
        assert!(!lower.contains(needle), "{needle} in the report");
    }
    // Every fetch is forbidden by the page's own policy.
    assert!(page.contains("default-src 'none'"));
    assert_eq!(lower.matches("<script").count(), 2);
    assert_eq!(lower.matches("</script>").count(), 2);
    // The S-curve and the histogram are drawn without the script.
    assert!(page.contains(r#"class="threshold""#));
    assert_eq!(page.matches(r#"class="bucket""#).count(), 11);
}

#[test]
fn the_blob_holds_the_groups_of_format_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let testdata = root().join("testdata");
    for args in [&[][..], &["-t", "0.5", "--keep", "largest"][..]] {
        let (_, page) = report(dir.path(), &testdata, args);
        let data = data(&page);
        // The report proposes removals: without -t it uses dedupe's 0.9.
        let t = if args.is_empty() {
            &["-t", "0.9"][..]
        } else {
            &[][..]
        };
        let clusters = scan(&testdata, args, &[t, &["--format", "clusters"]].concat());
        let expected = csv_groups(&clusters);
        assert!(!expected.is_empty());
        assert_eq!(blob_rows(&data), expected, "{args:?}");
        assert_eq!(
            data["groups_total"].as_u64().unwrap() as usize,
            data["groups"].as_array().unwrap().len()
        );
    }
}

/// `text[range]` in UTF-16 offsets, as the page slices it, with case and
/// whitespace runs normalised as the default recipe does.
fn passage(text: &str, from: &Value, to: &Value) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let (from, to) = (
        from.as_u64().unwrap() as usize,
        to.as_u64().unwrap() as usize,
    );
    let s = String::from_utf16(&units[from..to]).expect("a passage ends on a character");
    s.to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn an_explanation_marks_passages_that_read_the_same_in_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let (_, page) = report(dir.path(), &root().join("testdata"), &[]);
    let blob = data(&page);
    let edited = blob["groups"][0]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["p"].as_str().unwrap().ends_with("lighthouse-edited.txt"))
        .expect("the edited lighthouse is in the group");
    let pair = &blob["pairs"][edited["e"].as_u64().unwrap() as usize];
    assert!(pair.get("same").is_none());
    // The explanation's exact Jaccard is the scan's similarity.
    let j = pair["j"].as_f64().unwrap();
    assert!((j - edited["j"].as_f64().unwrap()).abs() < 1e-6, "{j}");
    let (a, b) = (
        blob["texts"][pair["a"].as_u64().unwrap() as usize]
            .as_str()
            .unwrap(),
        blob["texts"][pair["b"].as_u64().unwrap() as usize]
            .as_str()
            .unwrap(),
    );
    let spans = pair["s"].as_array().unwrap();
    assert!(spans.len() > 1, "an edited copy has several passages");
    let mut shares = 0.0;
    for s in spans {
        let pa = passage(a, &s[0], &s[1]);
        assert_eq!(pa, passage(b, &s[2], &s[3]));
        assert!(!pa.is_empty());
        shares += s[4].as_f64().unwrap();
    }
    // The passages' shares add up to the Jaccard similarity (each rounded to 6 decimals).
    assert!(
        (shares - j).abs() < 1e-6 * spans.len() as f64,
        "{shares} vs {j}"
    );
}

#[test]
fn limit_caps_the_groups_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    for g in 0..3u64 {
        for copy in 0..2 {
            write(
                &corpus,
                &format!("g{g}-{copy}.txt"),
                prose(g, 300).as_bytes(),
            );
        }
    }
    let (_, page) = report(dir.path(), &corpus, &["--limit", "2"]);
    let data = data(&page);
    assert_eq!(data["groups"].as_array().unwrap().len(), 2);
    assert_eq!(data["groups_total"], 3);
    assert!(page.contains("3 (2 in this report: --limit)"), "{page}");
}

#[test]
fn the_same_groups_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let testdata = root().join("testdata");
    let (_, one) = report(dir.path(), &testdata, &["-j", "1"]);
    let (_, two) = report(dir.path(), &testdata, &["-j", "2"]);
    // The run's seconds differ by nature; everything about the files may not.
    let (one, two) = (data(&one), data(&two));
    assert_eq!(one["groups"], two["groups"]);
    // The explanations are computed in parallel, and come out the same.
    assert_eq!(one["pairs"], two["pairs"]);
    assert_eq!(one["texts"], two["texts"]);
    assert_eq!(one["summary"]["pairs"], two["summary"]["pairs"]);
}

#[test]
fn hostile_names_stay_inside_the_blob() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = hostile_corpus(dir.path());
    let (_, page) = report(dir.path(), &corpus, &[]);
    let lower = page.to_ascii_lowercase();
    assert_eq!(lower.matches("<script").count(), 2, "{page}");
    assert!(!lower.contains("<img"));
    assert!(!page.contains('\u{2028}') && !page.contains('\u{2029}'));
    let data = data(&page);
    let rows = blob_rows(&data);
    assert_eq!(rows.len(), 6);
    assert!(
        rows.iter()
            .any(|(_, p)| p.ends_with(b"caf\xe9 latin-1.txt")),
        "the exact bytes of a name that is not UTF-8 are kept"
    );
}

/// The explanation of each member in the blob (`e`): a pair index or the
/// reason it was left out.
fn explanations(data: &Value) -> Vec<Value> {
    data["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g.as_array().unwrap()[1..].iter().map(|m| m["e"].clone()))
        .collect()
}

#[test]
fn explanations_are_embedded_within_the_budget_and_say_when_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    // Group 1: three small files (about 2.4 kB each); group 2: two files over
    // the per-file cap of 256 KiB.
    for copy in 0..3 {
        write(&corpus, &format!("a{copy}.txt"), prose(1, 400).as_bytes());
    }
    let big = prose(2, 50_000);
    assert!(big.len() > 256 * 1024);
    write(&corpus, "b0.txt", big.as_bytes());
    write(&corpus, "b1.txt", big.as_bytes());
    let small = std::fs::metadata(corpus.join("a0.txt")).unwrap().len();

    let (_, page) = report(dir.path(), &corpus, &[]);
    let blob = data(&page);
    let e = explanations(&blob);
    assert_eq!(e.len(), 3);
    assert_eq!((e[0].as_u64(), e[1].as_u64()), (Some(0), Some(1)));
    assert!(
        e[2].as_str().unwrap().contains("larger than 256 KiB"),
        "{e:?}"
    );
    // The three copies are byte-identical: one text serves both pairs, each
    // one passage over the whole text.
    assert_eq!(blob["texts"].as_array().unwrap().len(), 1);
    assert_eq!(blob["pairs"][0]["b"], 0);
    let whole = blob["texts"][0].as_str().unwrap().encode_utf16().count();
    assert_eq!(
        blob["pairs"][0]["s"],
        serde_json::json!([[0, whole, 0, whole, 1.0]])
    );
    assert_eq!(blob["pairs"][0]["same"], true);
    assert_eq!(blob["pairs"][0]["a"], blob["pairs"][1]["a"]);
    assert_eq!(blob["texts"][0].as_str().unwrap(), prose(1, 400));

    // A budget for two files: the first pair fits, the second does not.
    let budget = (2 * small + 1).to_string();
    let (_, page) = report(dir.path(), &corpus, &["--html-budget", &budget]);
    let e = explanations(&data(&page));
    assert_eq!(e[0].as_u64(), Some(0));
    assert!(e[1].as_str().unwrap().contains("text budget"), "{e:?}");
}

// ---- the export as dedupe's input ----------------------------------------

#[test]
fn dedupe_acts_only_on_the_listed_files_and_names_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    for copy in 0..3 {
        write(&corpus, &format!("a{copy}.txt"), prose(1, 300).as_bytes());
    }
    for copy in 0..2 {
        write(&corpus, &format!("b{copy}.txt"), prose(2, 300).as_bytes());
    }
    let c = |name: &str| corpus.join(name);
    // a1: removable; b0: the kept copy of its group; x: not there at all.
    let mut list = Vec::new();
    for p in [c("a1.txt"), c("b0.txt"), c("x.txt"), c("a1.txt")] {
        list.extend_from_slice(p.as_os_str().as_bytes());
        list.push(0);
    }
    let list_file = dir.path().join("removal.nul");
    std::fs::write(&list_file, &list).unwrap();
    let quarantine = dir.path().join("q");
    let run = simfind()
        .arg("dedupe")
        .arg(&corpus)
        .arg("--from-list")
        .arg(&list_file)
        .arg("--move-to")
        .arg(&quarantine)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with(&format!("moved\t{}\t", c("a1.txt").display())));
    assert!(!c("a1.txt").exists(), "the one listed removable file moved");
    assert!(quarantine.exists());
    for kept in ["a0.txt", "a2.txt", "b0.txt", "b1.txt"] {
        assert!(c(kept).exists(), "{kept} was not listed");
    }
    for named in ["b0.txt", "x.txt"] {
        assert_eq!(
            stderr
                .matches(&format!("{}: skipped: --from-list", c(named).display()))
                .count(),
            1,
            "{stderr}"
        );
    }
}

#[test]
fn dedupe_from_a_missing_list_fails_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let run = simfind()
        .args(["dedupe", "testdata", "--from-list"])
        .arg(dir.path().join("absent.nul"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("cannot read --from-list"), "{stderr}");
    assert!(stderr.contains("absent.nul"), "{stderr}");
}

/// Regression (issue 33): `scan --input jsonl|csv|tsv|sets --format html`
/// did the whole scan, then exited 2 with "the HTML report needs the run's
/// facts". The report is now written with the groups of `--format clusters`
/// (both at the removal default, -t 0.9); records cannot be read again as
/// files, so each member says it has no side-by-side explanation, and the
/// dedupe command says that dedupe does not act on records.
#[test]
fn a_record_scan_writes_the_html_report() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(8, 300);
    let near = text.replacen("river", "rivers", 1);
    let lines: String = [("r1", &text), ("r2", &prose(9, 300)), ("r3", &near)]
        .iter()
        .map(|(id, t)| format!("{}\n", serde_json::json!({"id": id, "text": t})))
        .collect();
    let input = write(dir.path(), "r.jsonl", lines.as_bytes());
    let out = dir.path().join("report.html");
    let run = simfind()
        .args(["scan", "--input", "jsonl"])
        .arg(&input)
        .args(["--format", "html", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{err}");
    assert!(err.contains("≥ 0.900"), "{err}");
    let page = std::fs::read_to_string(&out).unwrap();
    let data = data(&page);
    let clusters = simfind()
        .args(["scan", "--input", "jsonl"])
        .arg(&input)
        .args(["--format", "clusters", "-t", "0.9"])
        .output()
        .unwrap();
    assert_eq!(clusters.status.code(), Some(0));
    assert_eq!(blob_rows(&data), csv_groups(&clusters.stdout));
    assert_eq!(
        blob_rows(&data),
        [
            ("1".to_string(), b"r1".to_vec()),
            ("1".to_string(), b"r3".to_vec())
        ]
    );
    let removable = &data["groups"][0][1];
    assert!(
        removable["e"]
            .as_str()
            .unwrap()
            .contains("records are not files"),
        "{removable}"
    );
    assert!(
        data["dedupe_command"]
            .as_str()
            .unwrap()
            .contains("records are not files")
    );
    assert_eq!(data["summary"]["pairs"], 1);
}

/// The reliability review's N5.3: with a root named `--remove`, the page
/// suggested `simfind dedupe --remove w … --from-list …`, which, pasted,
/// deleted a file instead of showing a dry run. Issue 36: the page of a
/// file scan suggests no command with roots at all, only `dedupe --apply`
/// of the plan it exports, which names each root absolute (never read as
/// an option).
#[test]
fn a_file_report_suggests_no_roots_command_whatever_the_root_names() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(3, 400);
    let roots = ["--remove", "-rf", "w"];
    for r in roots {
        write(&dir.path().join(r), "a.txt", text.as_bytes());
        write(&dir.path().join(r), "b.txt", text.as_bytes());
    }
    let scan = |extra: &[&str]| {
        let mut cmd = simfind();
        cmd.current_dir(dir.path())
            .args(["scan", "-q", "-t", "0.9"])
            .args(extra)
            .arg("--")
            .args(roots);
        cmd.output().unwrap()
    };
    let html = scan(&["--format", "html", "-o", "report.html"]);
    assert_eq!(
        html.status.code(),
        Some(0),
        "{}",
        crate::util::stderr(&html)
    );
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let data = data(&page);
    assert_eq!(data["dedupe_command"], "", "{}", data["dedupe_command"]);
    let header = data["plan_header"].as_str().unwrap();
    for r in roots {
        let absolute = dir.path().canonicalize().unwrap().join(r);
        assert!(
            header.contains(&format!("{:?}", absolute.to_str().unwrap())),
            "{header}"
        );
    }
    assert!(page.contains("<code>simfind dedupe --apply simfind-plan.jsonl --move-to DIR</code>"));
}
