//! `--format html`: one self-contained HTML file for a person to review the
//! groups before anything is deleted.
//!
//! Layout: the run's summary, the similarity histogram and the S-curve of the
//! banding (as static HTML/SVG, readable without JavaScript), then the groups
//! and the "selected for removal" list, drawn page by page by the inline
//! script from one JSON blob in `<script type="application/json" id="data">`.
//! No external resource of any kind: the CSS and JS are this crate's assets
//! (`html/`), included at build time, and a Content-Security-Policy forbids
//! every fetch, so a report opened from a file share works offline and
//! cannot leak what it lists.
//!
//! Escaping, the invariant that matters: every path and every byte of file
//! content reaches the page either through [`escape`] (static HTML) or as a
//! JSON string that the script puts in the DOM with `textContent`, never
//! `innerHTML`. The JSON blob is made safe inside `<script>` by [`json_for_script`]:
//! `<`, `>`, `&` and U+2028/U+2029 become `\uXXXX` escapes, so no `</script>`
//! or `<!--` can appear in it. Paths that are not UTF-8 are shown lossily and
//! carry their exact bytes (`x`: an array of bytes), which the export writes.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};
use simfind::action::plan::{Plan, absolute_no_follow};
use simfind::action::planfile;
use simfind::cluster::{Clustering, SimilarityHistogram};
use simfind::explain::plot::{self, Labels, Series};
use simfind::lsh::scurve;
use simfind::pipeline::Method;
use simfind::pipeline::{Document, ScanConfig, ScanOutcome};

use super::text::rfc3339;

mod explain;

const CSS: &str = include_str!("html/report.css");
const JS: &str = include_str!("html/report.js");

/// What the report says about the run besides the groups.
#[derive(Debug)]
pub struct Run {
    /// The scan's summary line, as printed on stderr.
    pub summary_line: String,
    /// The `--summary-json` fields of the scan (counts, recipe, threshold).
    pub fields: serde_json::Map<String, Value>,
    pub bands: usize,
    pub rows: usize,
    /// The scan's threshold: the groups' and the S-curve's marker.
    pub threshold: f64,
    /// `true` when the exact join ran: no banding, the S-curve is for reference.
    pub exact: bool,
    /// Wall-clock seconds of the scan, up to the report.
    pub seconds: f64,
    /// The command line, shown in the header.
    pub command: Vec<Vec<u8>>,
    /// A `simfind dedupe` command line that acts on the exported list.
    pub dedupe_command: String,
    /// How the scan made sets, for the side-by-side explanations.
    pub recipe: simfind::recipe::Recipe,
    /// How the scan read files, to read them again for the explanations.
    pub read: simfind::input::ReadOptions,
    /// Most bytes of file text embedded for the explanations (`--html-budget`).
    pub budget: u64,
    /// Why no member has a side-by-side explanation, when the run's documents
    /// cannot be read again as files (records): the report says so instead.
    pub unexplained: Option<String>,
    /// The export is a plan for `dedupe --apply` (a scan of files, whose
    /// roots are known), besides the NUL list.
    pub export_plan: bool,
}

impl Run {
    /// The facts every run that writes groups has; `summary_line` and
    /// `fields` are the run's own summary. The dedupe command is left empty
    /// and every member explained: a run that differs sets them.
    pub fn of(
        outcome: &ScanOutcome,
        config: &ScanConfig,
        (summary_line, fields): (String, serde_json::Map<String, Value>),
        seconds: f64,
        budget: u64,
    ) -> Run {
        Run {
            summary_line,
            fields,
            bands: config.recipe.banding.bands,
            rows: config.recipe.banding.rows,
            threshold: config.threshold,
            exact: outcome.decision.method == Method::Exact,
            seconds,
            // As `simfind …`, whatever path started it.
            command: std::iter::once(b"simfind".to_vec())
                .chain(std::env::args_os().skip(1).map(|a| a.as_bytes().to_vec()))
                .collect(),
            dedupe_command: String::new(),
            recipe: config.recipe.clone(),
            read: config.read.clone(),
            budget,
            unexplained: None,
            export_plan: false,
        }
    }

    /// This run's documents are records: the report says that no dedupe acts
    /// on them and that it cannot show their text side by side.
    pub fn of_records(mut self) -> Run {
        self.dedupe_command = "(records are not files: simfind dedupe does not act on them; \
                               the list names the records' ids)"
            .to_string();
        self.unexplained = Some(
            "no explanation: records are not files, and the report explains by reading \
             files again"
                .to_string(),
        );
        self
    }
}

/// Member flags in the data blob (`f`).
const REPRESENTATIVE: u8 = 1;
const REFERENCE: u8 = 2;
const KEPT: u8 = 4;

/// Writes the whole report. `limit` caps the groups written; `plan`, when
/// given, holds a line for each removable file the export may write.
/// Returns the files that could not be read again for an explanation (path,
/// reason).
pub fn write(
    documents: &[Document],
    reference: &dyn Fn(u32) -> bool,
    clustering: &Clustering,
    (histogram, plan): (&SimilarityHistogram, Option<&(planfile::Header, Plan)>),
    run: &Run,
    limit: usize,
    sink: &mut impl Write,
) -> Result<Vec<(String, String)>> {
    let shown = clustering.len().min(limit);
    let explained = explain::explain_groups(
        documents,
        clustering,
        limit,
        &run.recipe,
        &run.read,
        run.budget,
        run.unexplained.as_deref(),
    );
    let mut per_member = explained.per_member.into_iter();
    // Each removable file's plan line, found by the path the plan records
    // (absolute, its directory canonical).
    let planned: HashMap<&Path, usize> = plan
        .map(|(_, p)| {
            p.entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.path.as_path(), i))
                .collect()
        })
        .unwrap_or_default();
    let plan_line = |path: &Path| -> Option<String> {
        let (header, p) = plan?;
        let seq = *planned.get(absolute_no_follow(path).ok()?.as_path())?;
        let line = planfile::action_line(header, seq, &p.entries[seq])?;
        // JSON is UTF-8 (a path that is not is written as its bytes).
        String::from_utf8(line)
            .ok()
            .map(|l| l.trim_end().to_string())
    };
    let mut groups = Vec::with_capacity(shown);
    for group in clustering.groups().take(limit) {
        let members: Vec<Value> = group
            .iter()
            .map(|m| {
                let d = &documents[m.doc as usize];
                let bytes = d.path.as_os_str().as_bytes();
                let mut flags = 0;
                if m.representative {
                    flags |= REPRESENTATIVE;
                }
                if reference(m.doc) {
                    flags |= REFERENCE;
                }
                if m.kept {
                    flags |= KEPT;
                }
                let mut member = json!({
                    "p": String::from_utf8_lossy(bytes),
                    "s": d.size,
                    "t": d.modified.map(rfc3339),
                    "j": m.similarity,
                    "f": flags,
                });
                if std::str::from_utf8(bytes).is_err() {
                    member["x"] = json!(bytes);
                }
                if !m.kept
                    && let Some(line) = plan_line(&d.path)
                {
                    member["a"] = json!(line);
                }
                match per_member.next() {
                    Some(Value::Null) | None => {}
                    Some(e) => member["e"] = e,
                }
                member
            })
            .collect();
        groups.push(Value::Array(members));
    }
    let data = json!({
        "version": 1,
        "groups": groups,
        "groups_total": clustering.len(),
        "summary": run.fields,
        "command": run.command.iter().map(|a| String::from_utf8_lossy(a)).collect::<Vec<_>>(),
        "threshold": run.threshold,
        "dedupe_command": run.dedupe_command,
        "texts": explained.texts,
        "pairs": explained.pairs,
        "budget": run.budget,
        "file_cap": explain::FILE_CAP,
        // The plan's header up to its action count, which the export adds.
        "plan_header": plan.map(|(header, _)| String::from_utf8_lossy(&planfile::header_prefix(header)).into_owned()),
    });

    let mut page = String::with_capacity(1 << 16);
    page.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>simfind report</title>\n<style>\n",
    );
    page.push_str(CSS);
    page.push_str("</style>\n</head>\n<body>\n<header>\n<h1>simfind report</h1>\n");
    let command: Vec<String> = run
        .command
        .iter()
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let _ = writeln!(
        page,
        "<p class=\"command\"><code>{}</code></p>",
        escape(&command.join(" "))
    );
    let _ = writeln!(
        page,
        "<p class=\"summary-line\">{}</p>",
        escape(&run.summary_line)
    );
    // The page opens on the groups, what a reviewer came for; the run's
    // facts and charts follow, folded.
    page.push_str("</header>\n<main>\n");
    page.push_str(TEMPLATE);
    page.push_str(
        "<details id=\"run-facts\">\n<summary>The run: its figures, the similarity of its pairs \
         and the S-curve</summary>\n<section id=\"summary\">\n<h2>Summary</h2>\n",
    );
    facts_table(&mut page, run, clustering, documents, shown);
    page.push_str("</section>\n<section id=\"charts\">\n");
    page.push_str("<figure id=\"histogram\">\n<figcaption>Similarity of the pairs</figcaption>\n");
    page.push_str(&histogram_svg(histogram));
    page.push_str("</figure>\n<figure id=\"scurve\">\n<figcaption>");
    let _ = write!(
        page,
        "S-curve of {} bands × {} rows, threshold {:.3} marked{}",
        run.bands,
        run.rows,
        run.threshold,
        if run.exact {
            " (this scan used the exact join: no pair was missed by banding)"
        } else {
            ""
        }
    );
    page.push_str("</figcaption>\n");
    page.push_str(&scurve_svg(run));
    page.push_str("</figure>\n</section>\n</details>\n");
    page.push_str("</main>\n<script type=\"application/json\" id=\"data\">");
    page.push_str(&json_for_script(&data));
    page.push_str("</script>\n<script>\n");
    page.push_str(JS);
    page.push_str("</script>\n</body>\n</html>\n");
    sink.write_all(page.as_bytes())?;
    Ok(explained.failures)
}

/// The interactive part, filled by the script.
const TEMPLATE: &str = r#"<section id="groups">
<h2>Groups</h2>
<noscript><p>The groups are drawn by the page's script: enable JavaScript, or use --format clusters.</p></noscript>
<form id="controls" onsubmit="return false">
<label>Path contains <input id="f-path" type="search" size="24"></label>
<label>Similarity from <input id="f-smin" type="number" min="0" max="1" step="0.01" value="0"></label>
<label>to <input id="f-smax" type="number" min="0" max="1" step="0.01" value="1"></label>
<label>Size ≥ <input id="f-size" type="number" min="0" step="1" value="0"> bytes</label>
<label>Sort by <select id="f-sort">
<option value="group">group</option>
<option value="path">kept copy's path</option>
<option value="sim-asc">lowest similarity first</option>
<option value="sim-desc">highest similarity first</option>
<option value="size">largest group (bytes) first</option>
<option value="members">most members first</option>
</select></label>
<label>Per page <select id="f-page-size"><option>20</option><option selected>50</option><option>200</option></select></label>
</form>
<p id="shown" aria-live="polite"></p>
<nav class="pager"><button type="button" id="prev">◀ previous</button> <span id="page"></span> <button type="button" id="next">next ▶</button></nav>
<div id="group-list"></div>
</section>
<section id="removal">
<h2>Selected for removal</h2>
<p id="removal-count"></p>
<p class="buttons">
<button type="button" id="export-plan">Export the plan (for simfind dedupe --apply)</button>
<button type="button" id="export-nul">Export the list (NUL-separated)</button>
<button type="button" id="reset">Select the scan's choice</button>
<button type="button" id="clear">Select none</button>
</p>
<p id="export-status" aria-live="polite"></p>
<p class="hint">Nothing is selected until you tick a file or take the scan's choice (every removable file).</p>
<p class="hint" id="plan-hint">The plan is saved by your browser as <code>simfind-plan.jsonl</code> in its downloads folder (the one its settings name; it may ask where). It names each selected file and its kept copy by absolute path with their size, time and content hash, so it can be applied from any directory, and a file or kept copy changed since the scan is refused and kept: <code>simfind dedupe --apply simfind-plan.jsonl --move-to DIR</code> (undoable; or <code>--remove</code>, <code>--link</code>; docs/ACTIONS.md).</p>
<p class="hint">The list is saved by your browser as <code>simfind-removal.nul</code> in its downloads folder (the one its settings name; it may ask where). The file lists one path per entry, each ended by a NUL byte, with the exact bytes of each name, for other tools: <code>xargs -0 -a FILE ls -l</code> reads it.<span id="list-dedupe"> <code>simfind dedupe</code> acts on exactly those files with <code>--from-list FILE</code> (run it from this report's directory with the same roots and options):</span></p>
<pre id="dedupe-command"></pre>
<ol id="removal-list"></ol>
</section>
<pre id="selftest" hidden></pre>
"#;

/// The facts of the run as a two-column table.
fn facts_table(
    page: &mut String,
    run: &Run,
    clustering: &Clustering,
    documents: &[Document],
    shown: usize,
) {
    let fields = Value::Object(run.fields.clone());
    let get = |pointer: &str| -> String {
        match fields.pointer(pointer) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    };
    let removable: Vec<_> = clustering.removable().collect();
    let freed: u64 = removable
        .iter()
        .map(|m| documents[m.doc as usize].size)
        .sum();
    let rows: Vec<(&str, String)> = vec![
        ("files scanned", get("/files")),
        ("bytes scanned", get("/bytes")),
        ("pairs found", get("/pairs")),
        (
            "groups",
            if shown < clustering.len() {
                format!("{} ({shown} in this report: --limit)", clustering.len())
            } else {
                clustering.len().to_string()
            },
        ),
        ("files in groups", clustering.members().len().to_string()),
        ("removable (the scan's choice)", removable.len().to_string()),
        ("bytes that removing them frees", freed.to_string()),
        (
            "threshold",
            format!("{:.3} ({})", run.threshold, get("/threshold/source")),
        ),
        (
            "shingles",
            format!("{} {}-shingles", get("/shingles/kind"), get("/shingles/k")),
        ),
        ("bands × rows", format!("{} × {}", run.bands, run.rows)),
        ("method", get("/method/reason")),
        ("verification", get("/verification")),
        ("errors", get("/errors")),
        ("seconds", format!("{:.2}", run.seconds)),
    ];
    page.push_str("<table class=\"facts\">\n");
    for (label, value) in rows {
        let _ = writeln!(
            page,
            "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
            escape(label),
            escape(&value)
        );
    }
    page.push_str("</table>\n");
}

/// `word` as one shell word: as is when it holds only characters no shell
/// treats specially, else in single quotes.
pub fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-=:,+@%".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `s` as HTML text or attribute value: `& < > " '` escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `value` as JSON that can stand between `<script …>` and `</script>`: the
/// characters that could end the element or open a comment (`<`, `>`, `&`)
/// and the two line separators old JavaScript parsers reject (U+2028/9) are
/// written as `\uXXXX`. They only ever occur inside JSON strings, where the
/// escape means the same character, so `JSON.parse` returns the same value.
pub fn json_for_script(value: &Value) -> String {
    let raw = value.to_string();
    let mut out = String::with_capacity(raw.len() + raw.len() / 16);
    for c in raw.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Bars of the similarity histogram (buckets of 0.1 and exactly 1.0), as an
/// inline SVG with each count written on its bar.
fn histogram_svg(histogram: &SimilarityHistogram) -> String {
    let buckets: Vec<_> = histogram.buckets().collect();
    let max = buckets.iter().map(|b| b.count).max().unwrap_or(0).max(1);
    let (width, height, left, bottom, top) = (560.0, 240.0, 10.0, 30.0, 20.0);
    let slot = (width - 2.0 * left) / buckets.len() as f64;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img" aria-label="histogram of pair similarities">"#
    );
    for (i, b) in buckets.iter().enumerate() {
        let h = (height - bottom - top) * b.count as f64 / max as f64;
        let x = left + i as f64 * slot;
        let y = height - bottom - h;
        let label = if b.lower == b.upper {
            "1.0".to_string()
        } else {
            format!("{:.1}–{:.1}", b.lower, b.upper)
        };
        let _ = writeln!(
            svg,
            r##"<g class="bucket" data-count="{count}"><rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}" fill="#0072B2"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{count}</text><text x="{:.1}" y="{:.1}" text-anchor="middle">{label}</text></g>"##,
            x + 2.0,
            slot - 4.0,
            x + slot / 2.0,
            y - 4.0,
            x + slot / 2.0,
            height - bottom + 16.0,
            count = b.count,
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The S-curve of the banding with the threshold marked (the plot `simfind
/// curve --format svg` draws), without its XML-document-only parts.
fn scurve_svg(run: &Run) -> String {
    let n = 200;
    let series = [Series {
        label: format!("{} × {}", run.bands, run.rows),
        points: (0..=n)
            .map(|k| {
                let s = k as f64 / n as f64;
                (s, scurve::candidate_probability(s, run.bands, run.rows))
            })
            .collect(),
        marker: Some(run.threshold),
    }];
    let labels = Labels {
        title: "LSH S-curve: probability of becoming a candidate pair".into(),
        x: "Jaccard similarity s".into(),
        y: "P(candidate)".into(),
    };
    plot::svg(&series, &labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("testdata/news"), "testdata/news");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn html_special_characters_are_escaped() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn script_json_cannot_end_the_element_and_parses_back() {
        let value = json!({
            "p": "</script><!--<script>\u{2028}\u{2029}&amp;>",
            "q": ["a</SCRIPT>b"],
        });
        let out = json_for_script(&value);
        let lower = out.to_ascii_lowercase();
        assert!(!lower.contains("</script"), "{out}");
        assert!(!lower.contains("<!--"), "{out}");
        assert!(!out.contains('<') && !out.contains('>') && !out.contains('&'));
        assert!(!out.contains('\u{2028}') && !out.contains('\u{2029}'));
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), value);
    }

    #[test]
    fn histogram_writes_every_bucket_count() {
        let mut h = SimilarityHistogram::default();
        h.add(0.95);
        h.add(0.95);
        h.add(1.0);
        let svg = histogram_svg(&h);
        assert_eq!(svg.matches("class=\"bucket\"").count(), 11);
        assert!(svg.contains("data-count=\"2\""));
        assert!(svg.contains("data-count=\"1\""));
        assert!(roxmltree::Document::parse(&svg).is_ok(), "{svg}");
    }
}
