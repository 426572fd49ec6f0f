//! `scan --format html` in a real browser: headless Chromium loads the report
//! with `#selftest`, the page draws every page of groups and writes what its
//! DOM holds into `<pre id=selftest>`, and the test compares that with the
//! CSV and `--list-removable -0` of the same scan. The report as a file is
//! `tests/suite/report_html.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::report::{csv_groups, data, hostile_corpus, report, scan};
use crate::util::{root, shared_data};

fn chromium() -> PathBuf {
    root().join("target/engines/chromium")
}

/// Loads `page#selftest` in headless Chromium; returns the dumped DOM and the
/// page's self-check.
fn selftest(page: &Path) -> (String, Value) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium())
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--dump-dom",
            "--virtual-time-budget=10000",
            "--window-size=1280,800",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}#selftest", page.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8(out.stdout).expect("the DOM is UTF-8");
    let Some(at) = dom.find(r#"<pre id="selftest""#) else {
        panic!(
            "no self-check in the DOM ({} bytes); chromium said: {}",
            dom.len(),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let start = at + dom[at..].find('>').unwrap() + 1;
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    let check = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (dom, check)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The DOM's groups and rows are the CSV's, and the default export is
/// `--list-removable -0` byte for byte.
fn check_against_csv(root_dir: &Path, args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = report(dir.path(), root_dir, args);
    let (dom, check) = selftest(&page);
    let with_t: Vec<&str> = if args.contains(&"-t") {
        args.to_vec()
    } else {
        [args, &["-t", "0.9"]].concat()
    };
    let csv = csv_groups(&scan(root_dir, &with_t, &["--format", "clusters"]));
    let groups: std::collections::BTreeSet<&str> = csv.iter().map(|(g, _)| g.as_str()).collect();
    assert_eq!(check["groups"].as_u64().unwrap() as usize, groups.len());
    assert_eq!(check["rows"].as_u64().unwrap() as usize, csv.len());
    assert_eq!(check["data_rows"].as_u64().unwrap() as usize, csv.len());
    let shown: Vec<String> = check["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = csv
        .iter()
        .map(|(_, p)| String::from_utf8_lossy(p).into_owned())
        .collect();
    assert_eq!(shown, expected, "every row's path, as text, in CSV order");
    // Nothing is ticked when the page opens; the scan's choice, taken with
    // its button, is `--list-removable -0` byte for byte.
    assert_eq!(check["selected_at_open"], 0);
    assert_eq!(check["ticks_at_open"], 0);
    let removable = scan(root_dir, &with_t, &["--list-removable", "-0"]);
    assert_eq!(check["export_hex"].as_str().unwrap(), hex(&removable));
    // The page opens on the groups, the run's figures folded below them: the
    // first group starts on the first screen of a 1280 × 800 window.
    let top = check["first_group_top"].as_i64().unwrap();
    assert!(
        (0..800).contains(&top),
        "the first group starts at {top} px"
    );
    assert_eq!(check["facts_open"], false);
    // Sizes for people, the exact count in the title.
    let size = &check["first_size"];
    let (shown, exact) = (size[0].as_str().unwrap(), size[1].as_str().unwrap());
    assert!(
        [" B", " kB", " MB", " GB"]
            .iter()
            .any(|u| shown.ends_with(u))
            && exact.ends_with(" bytes"),
        "{shown} / {exact}"
    );
    // The plan is the one way the page suggests to act (issue 36): its
    // command is shown, no `--from-list` command beside it.
    let commands: Vec<&str> = check["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        commands
            .iter()
            .any(|c| c.starts_with("simfind dedupe --apply simfind-plan.jsonl")),
        "{commands:?}"
    );
    assert!(
        !commands.iter().any(|c| c.contains("--from-list")),
        "{commands:?}"
    );
    // The page says where the export goes: the browser's downloads folder.
    let hint = check["plan_hint"].as_str().unwrap();
    assert!(
        hint.contains("simfind-plan.jsonl in its downloads folder"),
        "{hint}"
    );
    assert_eq!(check["scripts"], 2);
    assert!(
        !dom.contains("data-pwned"),
        "a name or content ran as script"
    );
    // Every pair with an embedded explanation opens, and its two sides spell
    // the two files' texts exactly (the marks only wrap them).
    let data = data(&std::fs::read_to_string(&page).unwrap());
    let explainable = data["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g.as_array().unwrap())
        .filter(|m| m["e"].is_u64())
        .count();
    assert_eq!(
        check["explanations"].as_u64().unwrap() as usize,
        explainable
    );
    assert_eq!(check["explanations_exact"], check["explanations"]);
    check
}

pub(crate) fn browser_draws_the_groups_of_testdata() {
    let check = check_against_csv(&root().join("testdata"), &[]);
    assert!(check["rows"].as_u64().unwrap() > 0);
}

/// The first screen as Chromium paints it (issue 36): a 1280 × 800
/// screenshot of the report of testdata, in which the rows where the page's
/// own layout puts the first group hold its text, not the background. Kept
/// as `target/engines/report-first-screen.png` to look at.
pub(crate) fn browser_screenshot_of_the_first_screen_shows_a_group() {
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = report(dir.path(), &root().join("testdata"), &[]);
    let (_, check) = selftest(&page);
    let top = check["first_group_top"].as_i64().unwrap();
    assert!(
        (0..700).contains(&top),
        "the first group starts at {top} px"
    );
    let shot = root().join("target/engines/report-first-screen.png");
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium())
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--virtual-time-budget=10000",
            "--window-size=1280,800",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        shot.exists(),
        "no screenshot; chromium said: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), (1280, 800));
    let channels = frame.color_type.samples();
    let width = frame.width as usize;
    let at = |x: usize, y: usize| &pixels[(y * width + x) * channels..][..3.min(channels)];
    // The page's background is its most common colour.
    let mut counts = std::collections::HashMap::new();
    for y in (0..800).step_by(4) {
        for x in (0..width).step_by(4) {
            *counts.entry(at(x, y).to_vec()).or_insert(0u32) += 1;
        }
    }
    let background = counts.into_iter().max_by_key(|&(_, n)| n).unwrap().0;
    // The group's first 60 px (its header and first member) are drawn: a
    // line of text inks a few percent of its pixels, a blank band none.
    let band = top as usize..(top as usize + 60).min(800);
    let inked = band
        .clone()
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| at(x, y) != background.as_slice())
        .count();
    let share = inked as f64 / (band.len() * width) as f64;
    assert!(
        share > 0.01,
        "rows {band:?} of the screenshot are {:.2} % ink: the first group is not painted there",
        share * 100.0
    );
}

pub(crate) fn browser_shows_hostile_names_as_text_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = hostile_corpus(dir.path());
    let check = check_against_csv(&corpus, &[]);
    let paths: Vec<&str> = check["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    // The hostile content is on the page, opened, as text.
    let side = check["side_text"][0].as_str().unwrap();
    assert!(
        side.starts_with("<script>document.body.dataset.pwned='content'</script>"),
        "{side}"
    );
    assert!(
        side.ends_with("<img src=x onerror=document.body.dataset.pwned=3>"),
        "{side}"
    );
    assert!(check["marks"].as_u64().unwrap() > 0);
    for name in [
        "<script>document.body.dataset.pwned=1</script>.txt",
        "<img src=x onerror=document.body.dataset.pwned=2>.txt",
        "line\u{2028}sep\u{2029}.txt",
        "a&amp;b<!--c.txt",
        "caf\u{fffd} latin-1.txt",
    ] {
        assert!(
            paths.iter().any(|p| p.ends_with(name)),
            "{name} not shown as text in {paths:?}"
        );
    }
}

pub(crate) fn browser_draws_the_groups_of_debian_docs() {
    let check = check_against_csv(&shared_data("debian-docs/files"), &[]);
    // Several pages of groups: the paging is exercised.
    assert!(
        check["groups"].as_u64().unwrap() > 50,
        "{}",
        check["groups"]
    );
}

/// A PDF's pages in the report: the side text of a two-page PDF (made by
/// LibreOffice, `scripts/make-documents.sh`) holds one page mark, for page
/// 2, and still spells the extracted text exactly.
pub(crate) fn browser_marks_the_pages_of_a_pdf() {
    let pages = root().join("target/engines/documents/pages");
    let check = check_against_csv(&pages, &["-t", "0.3"]);
    assert_eq!(check["explanations"], 1, "{check}");
    assert_eq!(check["page_marks"], serde_json::json!(["2"]), "{check}");
}

/// Issue 36: the page's export is a plan. The scan's choice, exported by the
/// page's script in Chromium, is a plan `dedupe --apply` accepts and acts on:
/// it moves exactly the files `--list-removable` lists, over a copy of
/// `testdata` (applying moves files).
pub(crate) fn browser_exports_a_plan_that_dedupe_applies() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("testdata");
    for entry in walkdir::WalkDir::new(root().join("testdata")) {
        let entry = entry.unwrap();
        let to = copy.join(entry.path().strip_prefix(root().join("testdata")).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let (page, _) = report(dir.path(), &copy, &[]);
    let (_, check) = selftest(&page);
    let plan = check["plan"].as_str().expect("the page exports a plan");
    let listed = scan(&copy, &["-t", "0.9"], &["--list-removable"]);
    let removable: Vec<PathBuf> = String::from_utf8(listed)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    assert!(!removable.is_empty());
    // One action line per removable file, after the header.
    assert_eq!(plan.lines().count(), removable.len() + 1, "{plan}");
    let file = dir.path().join("plan.jsonl");
    std::fs::write(&file, plan).unwrap();
    let applied = crate::util::simfind()
        .args(["dedupe", "--apply"])
        .arg(&file)
        .arg("--move-to")
        .arg(dir.path().join("q"))
        .output()
        .unwrap();
    assert_eq!(
        applied.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    for path in &removable {
        assert!(!path.exists(), "{} was not moved", path.display());
    }
    assert!(copy.join("news/lighthouse.txt").exists());
}

/// Issue 36, point 8 in the report: the side-by-side view is `explain`'s
/// word diff, its two panes scrolling together. Two texts of 300 lines and
/// a 10-line block, the second with 40 words changed, 3 lines added and the
/// block moved to the end (`explain` prints 41 edits and 1 moved block): the open view marks words only in each file, the
/// moved block on both sides and the folded identical runs, its panes
/// overflow, and scrolling either pane scrolls the other to the same place.
pub(crate) fn browser_shows_the_word_diff_side_by_side_and_scrolls_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("r");
    std::fs::create_dir(&corpus).unwrap();
    let line = |i: usize| {
        format!(
            "line {i} of the lighthouse log: keeper{i} wrote of weather{i} and ship{i} passing by"
        )
    };
    let mut a: Vec<String> = (0..300).map(line).collect();
    // A block of its own words (a move is the same words, and a block that
    // begins or ends like its neighbours is found as an edit instead).
    let block: Vec<String> = (0..10)
        .map(|k| format!("harbour note {k}: the tide turned at hour {k}, calm seas"))
        .collect();
    a.splice(20..20, block.clone());
    let mut b: Vec<String> = a
        .iter()
        .filter(|l| !l.starts_with("harbour"))
        .cloned()
        .collect();
    for i in (5..300).step_by(7).take(40) {
        b[i] = b[i].replace(&format!("weather{i}"), &format!("storm{i}"));
    }
    b.insert(
        150,
        "an added line the kept copy never had, with words of its own".into(),
    );
    b.insert(151, "and a second added line, also only here".into());
    b.insert(152, "and a third".into());
    b.extend(block);
    std::fs::write(corpus.join("log.txt"), a.join("\n") + "\n").unwrap();
    std::fs::write(corpus.join("log-edited.txt"), b.join("\n") + "\n").unwrap();
    let (page, _) = report(dir.path(), &corpus, &["-t", "0.8"]);
    let (_, check) = selftest(&page);
    let diff = &check["diff"];
    assert_eq!(diff["views"], 1, "{check}");
    assert_eq!(diff["pairs_with_diff"], 1, "{check}");
    assert_eq!(diff["rows_even"], 1, "{check}");
    // 40 changed words are 40 removals on the left and 40 additions (one of
    // them holding the three added lines) on the right.
    assert!(diff["del"].as_u64().unwrap() >= 40, "{diff}");
    assert!(diff["ins"].as_u64().unwrap() >= 40, "{diff}");
    // The moved block, where a had it and where b has it.
    assert_eq!(diff["moved"], 2, "{diff}");
    assert!(diff["folds"].as_u64().unwrap() >= 30, "{diff}");
    let scroll = &check["scroll"];
    let (height, client) = (
        scroll["height"][0].as_i64().unwrap(),
        scroll["client"][0].as_i64().unwrap(),
    );
    assert!(height > client + 200, "the panes overflow: {scroll}");
    // The rows are aligned: both panes are as tall.
    assert_eq!(scroll["height"][0], scroll["height"][1], "{scroll}");
    assert_eq!(scroll["a_set"], 120, "{scroll}");
    assert_eq!(
        scroll["b_after_a"], 120,
        "scrolling the left pane scrolls the right: {scroll}"
    );
    assert_eq!(scroll["b_set"], 40, "{scroll}");
    assert_eq!(
        scroll["a_after_b"], 40,
        "scrolling the right pane scrolls the left: {scroll}"
    );
}
