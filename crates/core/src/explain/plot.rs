//! Pictures of probability curves on the unit square: an aligned text plot for the
//! terminal and a self-contained SVG document.
//!
//! Input: [`Series`] — sampled points `(x, y)` with `x, y ∈ [0, 1]`, sorted by `x`,
//! each with an optional vertical marker (an S-curve's threshold). Output: a
//! `String`; the caller decides where it goes. No I/O, no dependencies: the SVG is
//! written by hand, with labels XML-escaped, so that it is well-formed for any
//! label. Output is deterministic (fixed float precision). Used by `simfind curve`
//! to draw the S-curves of MMDS 3.4.2.

use std::fmt::Write;

/// One curve to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Shown in the legend.
    pub label: String,
    /// `(x, y)` samples in `[0, 1]²`, sorted by `x`; drawn joined by straight lines.
    pub points: Vec<(f64, f64)>,
    /// An `x` to mark with a dashed vertical line.
    pub marker: Option<f64>,
}

/// Titles of a picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    pub title: String,
    pub x: String,
    pub y: String,
}

/// Plot characters, one per series in order (cycled).
const GLYPHS: [char; 6] = ['*', 'o', '+', 'x', '#', '@'];
/// Stroke colours of the SVG (Okabe–Ito, readable by colour-blind people).
const COLOURS: [&str; 6] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
];

/// Linear interpolation of `points` at `x`, or `None` outside their span.
fn interpolate(points: &[(f64, f64)], x: f64) -> Option<f64> {
    let first = points.first()?;
    let last = points.last()?;
    if x < first.0 - 1e-12 || x > last.0 + 1e-12 {
        return None;
    }
    let i = points.partition_point(|p| p.0 < x);
    if i == 0 {
        return Some(first.1);
    }
    if i == points.len() {
        return Some(last.1);
    }
    let ((x0, y0), (x1, y1)) = (points[i - 1], points[i]);
    if x1 <= x0 {
        return Some(y1);
    }
    Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
}

/// A text plot `width` columns by `height` rows of plotting area (plus axes,
/// tick labels and a legend), every line the same width so it aligns in any
/// monospace terminal. Needs `width ≥ 11` and `height ≥ 3`.
pub fn text(series: &[Series], labels: &Labels, width: usize, height: usize) -> String {
    let (width, height) = (width.max(11), height.max(3));
    let mut grid = vec![vec![' '; width]; height];
    let col_of = |x: f64| ((x.clamp(0.0, 1.0) * (width - 1) as f64).round()) as usize;
    let row_of = |y: f64| height - 1 - ((y.clamp(0.0, 1.0) * (height - 1) as f64).round()) as usize;
    // Markers first, so that curves draw over them.
    for s in series {
        if let Some(m) = s.marker {
            let c = col_of(m);
            for row in grid.iter_mut() {
                row[c] = ':';
            }
        }
    }
    for (i, s) in series.iter().enumerate() {
        let glyph = GLYPHS[i % GLYPHS.len()];
        let mut previous: Option<usize> = None;
        for c in 0..width {
            let Some(y) = interpolate(&s.points, c as f64 / (width - 1) as f64) else {
                previous = None;
                continue;
            };
            let r = row_of(y);
            // Fill the vertical gap to the previous column so steep parts stay joined.
            let (lo, hi) = match previous {
                Some(p) if p.abs_diff(r) > 1 => (p.min(r), p.max(r)),
                _ => (r, r),
            };
            for row in grid.iter_mut().take(hi + 1).skip(lo) {
                row[c] = glyph;
            }
            previous = Some(r);
        }
    }

    let mut out = String::new();
    let _ = writeln!(out, "{}", labels.title);
    let _ = writeln!(out, "{}", labels.y);
    for (r, row) in grid.iter().enumerate() {
        let y = (height - 1 - r) as f64 / (height - 1) as f64;
        // Label the top, middle (when it falls on a row) and bottom.
        let label = if r == 0 || r == height - 1 || (height % 2 == 1 && r == height / 2) {
            format!("{y:4.2}")
        } else {
            String::new()
        };
        let line: String = row.iter().collect();
        let _ = writeln!(out, "{label:>4} |{}", line.trim_end());
    }
    let _ = writeln!(out, "     +{}", "-".repeat(width));
    // Tick labels at x = 0, 0.2, …, 1, each centred on its column and kept inside.
    let mut ticks = vec![' '; width + 4];
    for k in 0..=5 {
        let text = format!("{:.1}", k as f64 / 5.0);
        let centre = col_of(k as f64 / 5.0);
        let start = centre.saturating_sub(1).min(width + 4 - text.len());
        for (j, ch) in text.chars().enumerate() {
            ticks[start + j] = ch;
        }
    }
    let _ = writeln!(out, "      {}", ticks.iter().collect::<String>().trim_end());
    let _ = writeln!(out, "      {}", format!("{:^width$}", labels.x).trim_end());
    for (i, s) in series.iter().enumerate() {
        let glyph = GLYPHS[i % GLYPHS.len()];
        match s.marker {
            Some(m) => {
                let _ = writeln!(out, "  {glyph} {}   (: marks {m:.4})", s.label);
            }
            None => {
                let _ = writeln!(out, "  {glyph} {}", s.label);
            }
        }
    }
    out
}

/// Escapes text for XML character data and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 forbids even escaped.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Geometry of the SVG: the plotting area and the margins around it.
const SVG_WIDTH: f64 = 760.0;
const SVG_HEIGHT: f64 = 480.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

/// Pixel x of a data `x` in the SVG.
pub fn svg_x(x: f64) -> f64 {
    LEFT + x * (SVG_WIDTH - LEFT - RIGHT)
}

/// Pixel y of a data `y` in the SVG (SVG's y axis points down).
pub fn svg_y(y: f64) -> f64 {
    TOP + (1.0 - y) * (SVG_HEIGHT - TOP - BOTTOM)
}

/// A standalone SVG document: grid, axes with ticks every 0.1 and labels, one
/// `<polyline class="curve">` per series (with `data-label`), a dashed
/// `<line class="threshold">` per marker, and a legend (with each marker's value).
pub fn svg(series: &[Series], labels: &Labels) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{SVG_WIDTH}" height="{SVG_HEIGHT}" viewBox="0 0 {SVG_WIDTH} {SVG_HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&labels.title));
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        svg_x(0.5),
        escape(&labels.title)
    );

    let _ = writeln!(
        out,
        r##"<g class="grid" stroke="#e4e4e4" stroke-width="1">"##
    );
    for k in 0..=10 {
        let v = k as f64 / 10.0;
        let _ = writeln!(
            out,
            r#"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/>"#,
            svg_x(v),
            svg_y(0.0),
            svg_x(v),
            svg_y(1.0)
        );
        let _ = writeln!(
            out,
            r#"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/>"#,
            svg_x(0.0),
            svg_y(v),
            svg_x(1.0),
            svg_y(v)
        );
    }
    let _ = writeln!(out, "</g>");

    let _ = writeln!(out, r#"<g class="axes" stroke="black" stroke-width="1.5">"#);
    let _ = writeln!(
        out,
        r#"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/>"#,
        svg_x(0.0),
        svg_y(0.0),
        svg_x(1.0),
        svg_y(0.0)
    );
    let _ = writeln!(
        out,
        r#"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/>"#,
        svg_x(0.0),
        svg_y(0.0),
        svg_x(0.0),
        svg_y(1.0)
    );
    let _ = writeln!(out, "</g>");
    let _ = writeln!(out, r#"<g class="ticks">"#);
    for k in 0..=10 {
        let v = k as f64 / 10.0;
        let _ = writeln!(
            out,
            r#"<text x="{:.2}" y="{:.2}" text-anchor="middle">{v:.1}</text>"#,
            svg_x(v),
            svg_y(0.0) + 18.0
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.2}" y="{:.2}" text-anchor="end">{v:.1}</text>"#,
            svg_x(0.0) - 8.0,
            svg_y(v) + 4.0
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(
        out,
        r#"<text class="x-label" x="{:.2}" y="{:.2}" text-anchor="middle" font-size="13">{}</text>"#,
        svg_x(0.5),
        SVG_HEIGHT - 16.0,
        escape(&labels.x)
    );
    let _ = writeln!(
        out,
        r#"<text class="y-label" x="18" y="{:.2}" text-anchor="middle" font-size="13" transform="rotate(-90 18 {:.2})">{}</text>"#,
        svg_y(0.5),
        svg_y(0.5),
        escape(&labels.y)
    );

    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        if let Some(m) = s.marker {
            let _ = writeln!(
                out,
                r#"<line class="threshold" data-x="{m:.6}" x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="{colour}" stroke-width="1.2" stroke-dasharray="6 4"/>"#,
                svg_x(m),
                svg_y(0.0),
                svg_x(m),
                svg_y(1.0)
            );
        }
        let points: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y)| {
                format!(
                    "{:.2},{:.2}",
                    svg_x(x.clamp(0.0, 1.0)),
                    svg_y(y.clamp(0.0, 1.0))
                )
            })
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline class="curve" data-label="{}" fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
            escape(&s.label),
            points.join(" ")
        );
    }

    let _ = writeln!(out, r#"<g class="legend">"#);
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let y = TOP + 10.0 + 22.0 * i as f64;
        let x = svg_x(1.0) + 20.0;
        let _ = writeln!(
            out,
            r#"<line x1="{x:.2}" y1="{y:.2}" x2="{:.2}" y2="{y:.2}" stroke="{colour}" stroke-width="2"/>"#,
            x + 24.0
        );
        // The threshold goes in the legend: on the plot it would cross the curves.
        let marker = s
            .marker
            .map_or(String::new(), |m| format!("  (t = {m:.3})"));
        let _ = writeln!(
            out,
            r#"<text x="{:.2}" y="{:.2}">{}{marker}</text>"#,
            x + 30.0,
            y + 4.0,
            escape(&s.label)
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(out, "</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Labels {
        Labels {
            title: "t".into(),
            x: "x".into(),
            y: "y".into(),
        }
    }

    fn diagonal() -> Series {
        Series {
            label: "diag".into(),
            points: vec![(0.0, 0.0), (1.0, 1.0)],
            marker: Some(0.5),
        }
    }

    #[test]
    fn interpolation_is_linear_and_bounded() {
        let pts = [(0.0, 0.0), (0.5, 1.0), (1.0, 1.0)];
        assert_eq!(interpolate(&pts, 0.25), Some(0.5));
        assert_eq!(interpolate(&pts, 0.75), Some(1.0));
        assert_eq!(interpolate(&[(0.2, 0.1), (0.4, 0.3)], 0.5), None);
        assert_eq!(interpolate(&[], 0.5), None);
    }

    #[test]
    fn text_plot_draws_the_diagonal_corner_to_corner() {
        let plot = text(&[diagonal()], &labels(), 21, 11);
        let rows: Vec<&str> = plot.lines().filter(|l| l.contains(" |")).collect();
        assert_eq!(rows.len(), 11);
        // Top row: the curve at the right end; bottom row: at the left end.
        assert!(rows[0].ends_with('*'), "{plot}");
        assert_eq!(rows[10].find('*'), Some(6), "{plot}");
        // The marker at x = 0.5 is column 10 of the area, on rows the curve misses.
        assert_eq!(rows[0].chars().nth(6 + 10), Some(':'), "{plot}");
        assert!(plot.contains("(: marks 0.5000)"));
    }

    #[test]
    fn text_plot_lines_align() {
        let plot = text(&[diagonal()], &labels(), 30, 8);
        for line in plot.lines().filter(|l| l.contains(" |")) {
            assert_eq!(line.find('|'), Some(5), "{line}");
        }
    }

    #[test]
    fn steep_steps_are_joined_vertically() {
        let step = Series {
            label: "step".into(),
            points: vec![(0.0, 0.0), (0.5, 0.0), (0.5001, 1.0), (1.0, 1.0)],
            marker: None,
        };
        let plot = text(&[step], &labels(), 11, 6);
        let rows: Vec<&str> = plot.lines().filter(|l| l.contains(" |")).collect();
        // Every row has a glyph: no gap in the climb.
        assert!(rows.iter().all(|r| r.contains('*')), "{plot}");
    }

    #[test]
    fn svg_escapes_labels() {
        let mut s = diagonal();
        s.label = "a<b & \"c\"".into();
        let doc = svg(&[s], &labels());
        assert!(doc.contains("a&lt;b &amp; &quot;c&quot;"));
        assert!(!doc.contains("a<b"));
    }

    #[test]
    fn svg_maps_points_into_the_plot_area() {
        let doc = svg(&[diagonal()], &labels());
        let expected = format!(
            "points=\"{:.2},{:.2} {:.2},{:.2}\"",
            svg_x(0.0),
            svg_y(0.0),
            svg_x(1.0),
            svg_y(1.0)
        );
        assert!(doc.contains(&expected), "{doc}");
        assert!(svg_y(1.0) < svg_y(0.0));
    }
}
