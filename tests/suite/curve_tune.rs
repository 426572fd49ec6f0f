//! CLI tests of `simfind curve` and `simfind tune`: they run the real binary.

use assert_cmd::Command;
use predicates::prelude::*;
use simfind::lsh::scurve;

/// The harness's `simfind` (run from the project root), with assert_cmd's
/// assertions.
fn simfind() -> Command {
    Command::from_std(crate::util::simfind())
}

fn stdout_of(args: &[&str]) -> String {
    let out = simfind()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// The probability column of the text table's row for similarity `s`.
fn table_value(table: &str, s: &str) -> f64 {
    let line = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(s))
        .unwrap_or_else(|| panic!("no row {s} in\n{table}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn curve_table_shows_the_mmds_values_for_20_bands_of_5_rows() {
    let table = stdout_of(&["curve", "--bands", "20", "--rows", "5"]);
    // MMDS Fig. 3.8, printed to three decimals (the last to four): the table's
    // four decimals must round to them.
    for (s, mmds, decimals) in [
        ("0.20", 0.006, 3),
        ("0.30", 0.047, 3),
        ("0.40", 0.186, 3),
        ("0.50", 0.470, 3),
        ("0.60", 0.802, 3),
        ("0.70", 0.975, 3),
        ("0.80", 0.9996, 4),
    ] {
        let got = table_value(&table, s);
        let unit = 10f64.powi(-decimals);
        // Half a unit of MMDS's last digit, plus half a unit of ours.
        assert!(
            (got - mmds).abs() <= unit / 2.0 + 0.00005,
            "s={s}: {got} vs MMDS {mmds}"
        );
    }
}

#[test]
fn curve_marks_the_threshold_row() {
    let table = stdout_of(&["curve", "--bands", "20", "--rows", "5"]);
    assert!(table.contains("threshold (1/b)^(1/r) = 0.5493"), "{table}");
    let row = table
        .lines()
        .find(|l| l.contains("<- threshold of b20r5"))
        .unwrap();
    let p = scurve::candidate_probability(scurve::threshold(20, 5), 20, 5);
    assert_eq!(
        row.split_whitespace().take(2).collect::<Vec<_>>(),
        ["0.5493", &format!("{p:.4}")]
    );
    // The row sits between 0.50 and 0.55.
    let pos = |needle: &str| {
        table
            .lines()
            .position(|l| l.trim_start().starts_with(needle))
            .unwrap()
    };
    assert!(pos("0.50") < pos("0.5493") && pos("0.5493") < pos("0.55"));
    // The plot below the table marks it too.
    assert!(table.contains("* b20r5   (: marks 0.5493)"), "{table}");
}

#[test]
fn curve_csv_is_the_whole_grid_in_a_fixed_schema() {
    // P(s) = 1 - (1 - s²)²: 0.25 → 0.12109375, 0.5 → 0.4375, 0.75 → 0.80859375.
    simfind()
        .args([
            "curve", "-b", "2", "-r", "2", "--step", "0.25", "--format", "csv",
        ])
        .assert()
        .success()
        .stdout(
            "curve,similarity,probability\n\
             b2r2,0.00,0.0000\n\
             b2r2,0.25,0.1211\n\
             b2r2,0.50,0.4375\n\
             b2r2,0.75,0.8086\n\
             b2r2,1.00,1.0000\n",
        )
        .stderr(predicate::str::contains(
            "b2r2: 2 bands of 2 rows = 4 hashes",
        ));
}

#[test]
fn curve_csv_overlays_curves_in_the_given_order() {
    let csv = stdout_of(&[
        "curve",
        "-b",
        "20",
        "-r",
        "5",
        "-b",
        "10",
        "-r",
        "10",
        "--step",
        "0.5",
        "--format",
        "csv",
        "--precision",
        "6",
    ]);
    assert_eq!(
        csv,
        format!(
            "curve,similarity,probability\nb20r5,0.00,0.000000\nb20r5,0.50,{:.6}\nb20r5,1.00,1.000000\n\
             b10r10,0.00,0.000000\nb10r10,0.50,{:.6}\nb10r10,1.00,1.000000\n",
            scurve::candidate_probability(0.5, 20, 5),
            scurve::candidate_probability(0.5, 10, 10)
        )
    );
}

#[test]
fn curve_cascade_prints_mmds_sensitivities_in_stage_order() {
    // MMDS Ex. 3.18 (AND then OR) and 3.19 (OR then AND) from (0.2, 0.6, 0.8, 0.4).
    let and_or = stdout_of(&[
        "curve", "--and", "4", "--or", "4", "--d1", "0.2", "--d2", "0.6",
    ]);
    assert!(
        and_or.contains("and4-or4: (0.2, 0.6, 0.8784974, 0.0985345)-sensitive"),
        "{and_or}"
    );
    let or_and = stdout_of(&[
        "curve", "--or", "4", "--and", "4", "--d1", "0.2", "--d2", "0.6",
    ]);
    assert!(
        or_and.contains("or4-and4: (0.2, 0.6, 0.9936153, 0.5739519)-sensitive"),
        "{or_and}"
    );
    // Ex. 3.20: 256 functions, (0.2, 0.8, 0.9999996, 0.0008715).
    let deep = stdout_of(&[
        "curve", "--or", "4", "--and", "4", "--and", "4", "--or", "4", "--d1", "0.2", "--d2", "0.8",
    ]);
    assert!(
        deep.contains("OR 4, then AND 4, then AND 4, then OR 4 = 256 hashes"),
        "{deep}"
    );
    assert!(
        deep.contains("(0.2, 0.8, 0.9999996, 0.0008715)-sensitive"),
        "{deep}"
    );
}

#[test]
fn curve_cascade_of_and_then_or_equals_the_banded_curve() {
    let banded = stdout_of(&[
        "curve",
        "-b",
        "20",
        "-r",
        "5",
        "--format",
        "csv",
        "--precision",
        "9",
    ]);
    let cascade = stdout_of(&[
        "curve",
        "--and",
        "5",
        "--or",
        "20",
        "--format",
        "csv",
        "--precision",
        "9",
    ]);
    assert_eq!(
        banded.replace("b20r5", "X"),
        cascade.replace("and5-or20", "X")
    );
}

#[test]
fn curve_svg_is_xml_with_the_curves_and_threshold_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.svg");
    simfind()
        .args([
            "curve", "-b", "20", "-r", "5", "-b", "10", "-r", "10", "--svg",
        ])
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains("wrote"));
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("SVG must be well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert_eq!(
        doc.root_element().tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );

    let curves: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("class") == Some("curve"))
        .collect();
    assert_eq!(curves.len(), 2);
    for (node, (label, b, r)) in curves.iter().zip([("b20r5", 20, 5), ("b10r10", 10, 10)]) {
        assert_eq!(node.attribute("data-label"), Some(label));
        let points: Vec<(f64, f64)> = node
            .attribute("points")
            .unwrap()
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        assert!(points.len() > 100, "a smooth curve needs many points");
        // Map pixels back through the axes: x = 0 and x = 1 are the first and
        // last points, y = 0 and y = 1 the lowest and highest.
        let (x0, x1) = (points[0].0, points.last().unwrap().0);
        let (y0, y1) = (points[0].1, points.last().unwrap().1);
        assert!(x1 > x0 && y1 < y0, "y grows upwards");
        for &(px, py) in &points {
            let s = (px - x0) / (x1 - x0);
            let p = (py - y0) / (y1 - y0);
            // Coordinates are printed to 0.01 px on a ~400 px axis, so s is known
            // to ~3e-5; the curve's slope is below 4, so P to ~2e-4.
            let expected = scurve::candidate_probability(s, b, r);
            assert!(
                (p - expected).abs() < 5e-4,
                "{label} at s={s}: {p} vs {expected}"
            );
        }
    }
    let thresholds: Vec<f64> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("threshold"))
        .map(|n| n.attribute("data-x").unwrap().parse().unwrap())
        .collect();
    assert_eq!(thresholds.len(), 2);
    assert!((thresholds[0] - scurve::threshold(20, 5)).abs() < 1e-6);
    assert!((thresholds[1] - scurve::threshold(10, 10)).abs() < 1e-6);
    // Axis labels are present as text.
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(texts.contains(&"Jaccard similarity s") && texts.contains(&"P(candidate)"));
    // Written atomically: nothing but the picture is left in the directory.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["s.svg"]);
}

#[test]
fn curve_svg_replaces_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.svg");
    std::fs::write(&path, "old").unwrap();
    simfind()
        .args(["curve", "-b", "4", "-r", "4", "--svg"])
        .arg(&path)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("<svg"));
}

#[test]
fn curve_svg_dash_writes_only_the_picture_to_stdout() {
    let out = stdout_of(&["curve", "-b", "20", "-r", "5", "--svg", "-"]);
    let doc = roxmltree::Document::parse(&out).expect("stdout is one SVG document");
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("curve"))
            .count(),
        1
    );
}

#[test]
fn curve_svg_into_a_missing_directory_fails_before_any_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/s.svg");
    simfind()
        .args(["curve", "-b", "20", "-r", "5", "--svg"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("cannot create"));
}

#[test]
fn curve_rejects_bad_arguments_with_exit_2() {
    for (args, message) in [
        (&["curve", "-b", "0", "-r", "5"][..], "must be at least 1"),
        (&["curve", "-b", "20", "-r", "0"][..], "must be at least 1"),
        (&["curve", "-b", "20", "-r", "x"][..], "not a whole number"),
        (
            &["curve", "-b", "20", "-r", "5", "-b", "3"][..],
            "give them in pairs",
        ),
        (&["curve"][..], "nothing to draw"),
        (
            &["curve", "-b", "2", "-r", "2", "--step", "0"][..],
            "not in (0, 1]",
        ),
        (
            &["curve", "-b", "2", "-r", "2", "--step", "1.5"][..],
            "not in (0, 1]",
        ),
        (
            &["curve", "-b", "2", "-r", "2", "--step", "1e-9"][..],
            "more than a million rows",
        ),
        (&["curve", "--and", "0"][..], "must be at least 1"),
        (
            &["curve", "--and", "2", "--d1", "0.6", "--d2", "0.2"][..],
            "must be smaller than",
        ),
        (&["curve", "--and", "2", "--d1", "0.2"][..], "--d2"),
        (
            &["curve", "--and", "2", "--d1", "1.2", "--d2", "1.5"][..],
            "not in [0, 1]",
        ),
    ] {
        simfind()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
}

/// Parses `tune --format csv` into (header, row).
fn tune_csv(args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["tune", "--format", "csv"];
    all.extend_from_slice(args);
    let out = stdout_of(&all);
    let mut lines = out.lines();
    let header = lines.next().unwrap().split(',').map(String::from);
    let row = lines.next().unwrap().split(',').map(String::from);
    assert_eq!(lines.next(), None, "one row only");
    header.zip(row).collect()
}

fn field<'a>(record: &'a [(String, String)], name: &str) -> &'a str {
    &record.iter().find(|(h, _)| h == name).unwrap().1
}

#[test]
fn tune_prints_the_library_choice_with_its_probabilities() {
    let expected = scurve::tune(0.5, 128, 1.0, 1.0);
    let out = stdout_of(&[
        "tune",
        "--threshold",
        "0.5",
        "--hashes",
        "128",
        "--fn-weight",
        "1",
        "--fp-weight",
        "1",
    ]);
    assert!(
        out.starts_with(&format!(
            "bands {}  rows {}  ({} of 128 hashes)\n",
            expected.bands,
            expected.rows,
            expected.hashes()
        )),
        "{out}"
    );
    for (label, s) in [
        ("T = 0.50", 0.5),
        ("T+0.05 = 0.55", 0.55),
        ("T+0.10 = 0.60", 0.6),
        ("T-0.10 = 0.40", 0.4),
        ("T-0.20 = 0.30", 0.3),
    ] {
        let p = scurve::candidate_probability(s, expected.bands, expected.rows);
        let line = out
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("{label}: {out}"));
        assert!(line.ends_with(&format!("{p:.4}")), "{line}");
    }
}

#[test]
fn tune_csv_has_a_fixed_schema_and_consistent_values() {
    let rec = tune_csv(&["--threshold", "0.8", "--hashes", "64"]);
    let names: Vec<&str> = rec.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(
        names,
        [
            "bands",
            "rows",
            "hashes",
            "threshold",
            "curve_threshold",
            "fn_area",
            "fp_area",
            "p_t",
            "p_t_plus_0.05",
            "p_t_plus_0.1",
            "p_t_minus_0.1",
            "p_t_minus_0.2"
        ]
    );
    let b: usize = field(&rec, "bands").parse().unwrap();
    let r: usize = field(&rec, "rows").parse().unwrap();
    assert_eq!(field(&rec, "hashes"), (b * r).to_string());
    assert!(b * r <= 64);
    assert_eq!(
        field(&rec, "p_t"),
        format!("{:.6}", scurve::candidate_probability(0.8, b, r))
    );
    assert_eq!(
        field(&rec, "p_t_minus_0.2"),
        format!("{:.6}", scurve::candidate_probability(0.6, b, r))
    );
    // Near the top, points above 1 are empty rather than missing.
    let high = tune_csv(&["--threshold", "0.97"]);
    assert_eq!(field(&high, "p_t_plus_0.05"), "");
    assert_eq!(field(&high, "p_t_plus_0.1"), "");
}

#[test]
fn tune_weights_move_the_choice_to_the_extremes() {
    // Only misses count: every hash as a one-row band catches most (see the
    // unit tests for why (N, 1) dominates every shape).
    let rec = tune_csv(&["--threshold", "0.2", "--hashes", "30", "--fp-weight", "0"]);
    assert_eq!((field(&rec, "bands"), field(&rec, "rows")), ("30", "1"));
    // Only false candidates count: one band of every hash admits fewest.
    let rec = tune_csv(&["--threshold", "0.8", "--hashes", "30", "--fn-weight", "0"]);
    assert_eq!((field(&rec, "bands"), field(&rec, "rows")), ("1", "30"));
}

#[test]
fn tune_min_recall_meets_the_floor() {
    let rec = tune_csv(&["--threshold", "0.7", "--min-recall", "0.95"]);
    let p: f64 = field(&rec, "p_t").parse().unwrap();
    assert!(p >= 0.95, "{rec:?}");
    let expected = scurve::tune_min_recall(0.7, 100, 0.95).unwrap();
    assert_eq!(field(&rec, "bands"), expected.bands.to_string());
    assert_eq!(field(&rec, "rows"), expected.rows.to_string());
    simfind()
        .args(["tune", "--threshold", "0.7", "--min-recall", "0.95"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "P(T) >= 0.95, fewest false candidates",
        ));
}

#[test]
fn tune_rejects_bad_arguments_with_exit_2() {
    for (args, message) in [
        (&["tune"][..], "--threshold"),
        (&["tune", "-t", "0"][..], "not in (0, 1]"),
        (&["tune", "-t", "1.2"][..], "not in (0, 1]"),
        (
            &["tune", "-t", "0.5", "--hashes", "0"][..],
            "must be at least 1",
        ),
        (
            &["tune", "-t", "0.5", "--hashes", "100000"][..],
            "more than 4096",
        ),
        (&["tune", "-t", "0.5", "--fn-weight", "-1"][..], "negative"),
        (
            &["tune", "-t", "0.5", "--fn-weight", "0", "--fp-weight", "0"][..],
            "both 0",
        ),
        (
            &[
                "tune",
                "-t",
                "0.5",
                "--min-recall",
                "0.9",
                "--fn-weight",
                "2",
            ][..],
            "cannot be used with",
        ),
        (
            &["tune", "-t", "0.5", "--min-recall", "0"][..],
            "not in (0, 1]",
        ),
        // Four hashes reach at most 1 - 0.5^4 = 0.9375 at T = 0.5.
        (
            &["tune", "-t", "0.5", "--hashes", "4", "--min-recall", "0.99"][..],
            "0.937500",
        ),
    ] {
        simfind()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
}

// ---- scan's defaults (issue #3, part 3) ----

/// The stderr of a successful `scan testdata -q …`-less run (the summary is needed).
fn scan_stderr(args: &[&str]) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = simfind()
        .current_dir(root)
        .arg("scan")
        .arg("testdata")
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn scan_with_threshold_alone_uses_what_tune_prints() {
    for t in ["0.5", "0.8", "0.95"] {
        let rec = tune_csv(&["--threshold", t]);
        let (b, r) = (field(&rec, "bands"), field(&rec, "rows"));
        let err = scan_stderr(&["--threshold", t]);
        // Issue #21: the summary states the recall guarantee.
        assert!(
            err.contains(&format!(
                "({b}×{r} chosen by tune: a pair at {t:.3} is found with probability ≥ 0.999)",
                t = t.parse::<f64>().unwrap()
            )),
            "T={t}: {err}"
        );
        assert!(
            err.contains(&format!("{b} bands × {r} rows")),
            "T={t}: {err}"
        );
        // Within scan's default signature length, unless that would take two-row
        // bands (issue #21: at 0.5 the recall floor takes 52 × 3 = 156 hashes).
        let (b, r) = (b.parse::<usize>().unwrap(), r.parse::<usize>().unwrap());
        assert!(b * r <= 100 || (t == "0.5" && (b, r) == (52, 3)), "{b}×{r}");
        assert!(!err.contains("warning"), "{err}");
    }
}

#[test]
fn scan_with_bands_and_rows_alone_defaults_the_threshold_to_the_s_curve() {
    let err = scan_stderr(&["--bands", "10", "--rows", "4"]);
    // (1/10)^(1/4) = 0.5623.
    assert!(
        err.contains("similarity ≥ 0.562 (S-curve threshold of 10×4)"),
        "{err}"
    );
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn scan_with_all_three_uses_them_and_warns_far_from_the_steep_part() {
    // 20×5: P(0.55) = 0.64 — on the steep part, no warning.
    let err = scan_stderr(&["--bands", "20", "--rows", "5", "--threshold", "0.55"]);
    assert!(!err.contains("warning"), "{err}");
    assert!(
        err.contains("similarity ≥ 0.550 (5 char-shingles, 20 bands × 5 rows"),
        "{err}"
    );
    // P(0.8 − 0.1) = 0.975: pairs well below T flood verification.
    let err = scan_stderr(&["--bands", "20", "--rows", "5", "--threshold", "0.8"]);
    assert!(
        err.contains("simfind: warning: --threshold 0.8 lies above the steep part"),
        "{err}"
    );
    assert!(err.contains("20 bands × 5 rows"), "used as given: {err}");
    // P(0.3) = 0.047: most pairs near T missed.
    let err = scan_stderr(&["--bands", "20", "--rows", "5", "--threshold", "0.3"]);
    assert!(
        err.contains("simfind: warning: --threshold 0.3 lies below the steep part"),
        "{err}"
    );
    // The warning names the shape tune would choose for the same hash budget.
    let rec = tune_csv(&["--threshold", "0.3"]);
    let suggestion = format!(
        "suggests {} bands × {} rows",
        field(&rec, "bands"),
        field(&rec, "rows")
    );
    assert!(err.contains(&suggestion), "{err}");
    // Warnings survive -q.
    let out = simfind()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["scan", "testdata", "-q", "-b", "20", "-r", "5", "-t", "0.3"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("below the steep part")
    );
}

#[test]
fn scan_rejects_a_bad_threshold_before_tuning() {
    for t in ["0", "1.5", "NaN"] {
        simfind()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["scan", "testdata", "--threshold", t])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("--threshold must be in (0, 1]"));
    }
}

#[test]
fn help_has_examples_and_exit_codes() {
    for sub in ["curve", "tune"] {
        simfind()
            .args([sub, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains(format!(
                "EXAMPLES:\n  simfind {sub} "
            )))
            .stdout(predicate::str::contains("EXIT STATUS:"));
    }
}

// ---- the recall floor (issue #21) ----

#[test]
fn auto_does_not_silently_keep_a_banding_below_the_recall_floor() {
    // 20 × 5 finds a pair at 0.5 with probability 0.470: under auto the cost
    // model decides instead, and on testdata the join fits.
    let err = scan_stderr(&["-b", "20", "-r", "5", "-t", "0.5"]);
    assert!(err.contains("method auto: exact"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    // Where the join does not fit, LSH stays, with the expected recall said.
    let err = scan_stderr(&["-b", "20", "-r", "5", "-t", "0.5", "--verify-memory", "1"]);
    assert!(err.contains("method auto: lsh"), "{err}");
    assert!(
        err.contains(
            "simfind: warning: --method auto kept LSH with 20 bands × 5 rows (auto: lsh (exact would hold"
        ) && err.contains("finds a pair at 0.500 with probability only 0.465 (below --min-recall 0.999)"),
        "{err}"
    );
    // A banding that meets the floor (20 × 5 at 0.8 misses 3.6e-4) is LSH as given.
    let err = scan_stderr(&["-b", "20", "-r", "5", "-t", "0.8"]);
    assert!(err.contains("auto: lsh (--bands/--rows given)"), "{err}");
    // A lower --min-recall accepts 20 × 5 at 0.5.
    let err = scan_stderr(&["-b", "20", "-r", "5", "-t", "0.5", "--min-recall", "0.4"]);
    assert!(err.contains("auto: lsh (--bands/--rows given)"), "{err}");
}

#[test]
fn a_tuned_lsh_scan_estimates_the_pairs_it_missed() {
    let err = scan_stderr(&["-t", "0.9", "--method", "lsh"]);
    assert!(
        err.contains("chosen by tune: a pair at 0.900 is found with probability ≥ 0.999)"),
        "{err}"
    );
    assert!(
        err.contains(
            "pairs ≥ 0.900 likely missed (S-curve over the similarities of the pairs found)"
        ),
        "{err}"
    );
    // --min-recall trades recall for speed: a lower floor, another shape.
    let low = scan_stderr(&["-t", "0.9", "--method", "lsh", "--min-recall", "0.9"]);
    assert!(low.contains("is found with probability ≥ 0.9)"), "{low}");
    // Out of reach within 100 hashes: a clear error before any work.
    simfind()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["scan", "testdata", "-t", "0.05"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("out of reach within 100 hashes"));
    for bad in ["0", "1", "1.5"] {
        simfind()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["scan", "testdata", "-t", "0.8", "--min-recall", bad])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--min-recall"));
    }
}
