//! `simfind explain`: why two files are similar — a word diff of their texts
//! under the containment figures (`explain/word_diff.rs`), or their shared passages as
//! byte ranges of each file, the parts only in one, the exact Jaccard and the
//! MinHash estimate, over the same shingles `scan` and `compare` use.
//!
//! The work is `simfind::explain::explain` on two byte strings; this file
//! reads the files (refusing any over `--max-size` before reading it, which
//! bounds memory) and prints. Another input kind (a record's field) needs
//! only to hand other bytes to the same call.

use std::io::{IsTerminal, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::builder::styling::{AnsiColor, Style};
use serde_json::{Value, json};
use simfind::explain::{Explanation, explain, spans::BYTES_PER_INPUT_BYTE};
use simfind::input::InputKind;
use simfind::input::ReadOptions;
use simfind::recipe::Recipe;
use simfind::source::{self, Document};
use simfind::text::normalize;

use crate::app::args::{
    self, DEFAULT_BANDS, DEFAULT_ROWS, DEFAULT_SEED, ShingleArgs, SketchArgs, parse_size,
};
use crate::app::config;
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::ui::{ColorArg, Verbosity};

/// The default of `--max-size`. explain holds about `BYTES_PER_INPUT_BYTE`
/// bytes per byte of its two files (docs/PERFORMANCE.md, "explain: memory
/// and time"), so two files at the default stay under a gigabyte.
const DEFAULT_MAX_SIZE: &str = "16M";

const AFTER_HELP: &str = "EXAMPLES:
  simfind explain a.txt b.txt
  simfind explain a.txt b.txt --shingle word -k 3 --color always | less -R
  simfind explain a.txt b.txt --format json | jq '.shared[].a'
  simfind explain snippet.txt article.txt --metric containment   how much of each is in the other

OUTPUT (text): the two files, the exact Jaccard (as compare and scan report it) and
the MinHash estimate, both containments |A ∩ B| / |A| and |A ∩ B| / |B| of the
shingle sets, and the share of each side's shingles the other lacks. Then
(--view diff, the default) a word diff of the two texts as read, words compared as
normalised: [-only in a-]{+only in b+} inline, identical runs folded to
\"… N identical words …\" around --context words, a moved block shown once as
{~block N moved here: …~} and marked [~block N (W words) moved~] where it was.
--view passages lists instead the shared passages in A's order, each as
  = a START..END  b START..END  share S  (N shingles)
with its text from A below (control characters escaped, at most --max-chars
characters), then the parts only in A (-) and only in B (+). Offsets are bytes of
the files as they are (0-based, end exclusive), whatever the normalisation did. A
passage's share is the part of the Jaccard it accounts for: the shares add up to
the Jaccard. Passages of fewer than --min-shingles shingles are counted, not
listed. --color colours the markers and texts (auto: stdout is a terminal and
NO_COLOR is unset or empty). --format json writes the passages as one JSON
document (docs/OUTPUT.md). --metric containment adds to the passages view the line
  containment: a in b C (S of a's N), b in a C' (S of b's M)
(in JSON: \"containment\": {\"a_in_b\": C, \"b_in_a\": C'}), |A ∩ B| / |A| each way.

";

/// Show why two files are similar: how much of each is in the other, and a word
/// diff of their texts (or their shared passages as byte ranges of each file), the
/// exact Jaccard and the MinHash estimate.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_COMPARE))]
#[command(
    mut_args(defs::one("input", defs::input(defs::Input::Explain))),
    mut_args(defs::one("id_field", defs::id_field(defs::Records::Explain))),
    mut_args(defs::one("text_field", defs::text_field(defs::Records::Explain))),
    mut_args(defs::one("id_column", defs::id_column(defs::IdColumn::Explain))),
    mut_args(defs::one("columns", defs::columns(defs::Records::Explain))),
    mut_args(defs::one("delimiter", defs::delimiter())),
    mut_args(defs::one("encoding", defs::encoding())),
    mut_args(defs::one("bands", defs::bands(defs::Shape::Fixed))),
    mut_args(defs::one("rows", defs::rows(defs::Shape::Fixed))),
    mut_args(defs::one("seed", defs::seed(defs::Seed::Fixed)))
)]
pub struct Args {
    /// The first file (with --input: the file of records, '-' for stdin).
    #[arg(value_name = "FILE_A")]
    pub a: PathBuf,

    /// The second file (with --input: the first record's id).
    #[arg(value_name = "FILE_B")]
    pub b: PathBuf,

    /// With --input: the second record's id.
    #[arg(value_name = "ID_B")]
    pub id_b: Option<String>,

    // --input and the record fields: their functions in flags::defs.
    #[arg(long, help_heading = "Records")]
    pub input: Option<simfind::input::InputKind>,

    #[arg(long, help_heading = "Records")]
    pub id_field: Option<String>,

    #[arg(long, help_heading = "Records")]
    pub text_field: Vec<String>,

    #[arg(long, help_heading = "Records")]
    pub id_column: Option<String>,

    #[arg(long, help_heading = "Records")]
    pub columns: Vec<String>,

    // --delimiter, --encoding: defs::delimiter, defs::encoding.
    #[arg(long, value_parser = crate::app::flags::values::delimiter, help_heading = "Records")]
    pub delimiter: Option<u8>,

    #[arg(long, value_parser = crate::app::flags::values::encoding, help_heading = "Records")]
    pub encoding: Option<simfind::input::records::Encoding>,

    /// With --input csv|tsv|jsonl: explain the pair by a model `scan --model
    /// fellegi-sunter --save-model FILE` trained: each field's two values, level, m, u
    /// and match weight log2(m/u) (an exact level's u the value's frequency in FILE_A),
    /// the prior, the total and the match probability. Give the scan's --fold.
    #[arg(long, value_name = "FILE", help_heading = "Records")]
    pub load_model: Option<PathBuf>,

    #[command(flatten)]
    pub shingles: ShingleArgs,

    // -b, -r, --seed: defs::bands, defs::rows, defs::seed.
    #[arg(long, default_value_t = DEFAULT_BANDS, help_heading = "LSH")]
    pub bands: usize,

    #[arg(long, default_value_t = DEFAULT_ROWS, help_heading = "LSH")]
    pub rows: usize,

    #[arg(long, default_value_t = DEFAULT_SEED, help_heading = "LSH")]
    pub seed: u64,

    #[command(flatten)]
    pub sketch: SketchArgs,

    /// With `containment`: also show how much of each side lies inside the other,
    /// |A ∩ B| / |A| and |A ∩ B| / |B| of the shingle sets (docs/SEARCH.md).
    #[arg(long, value_enum, value_name = "METRIC")]
    pub metric: Option<args::SetMetricArg>,

    /// Output format: text for people, json for other tools.
    #[arg(long, value_enum, default_value_t = Format::Text, help_heading = "Output")]
    pub format: Format,

    /// The text view: diff (a word diff of the two texts, `[-only in a-]`
    /// `{+only in b+}`, identical runs folded, moved blocks marked once, under
    /// the containment figures) or passages (the shared shingle passages by
    /// byte offsets, and the parts only in one). --format json writes the
    /// passages.
    #[arg(long, value_enum, value_name = "VIEW", default_value_t = ViewArg::Diff, help_heading = "Output")]
    pub view: ViewArg,

    /// In the diff view, the identical words shown on each side of an edit;
    /// longer identical runs are folded into one line that counts them.
    #[arg(long, value_name = "N", default_value_t = 6, help_heading = "Output")]
    pub context: usize,

    /// The longest passage text shown, in characters; a longer one shows its start
    /// and end around `…`.
    #[arg(long, value_name = "N", default_value_t = 160, value_parser = clap::value_parser!(u32).range(8..), help_heading = "Output")]
    pub max_chars: u32,

    /// In the text view, list only passages of at least N shingles; shorter ones
    /// (a few characters or words that also occur elsewhere in B) are counted in
    /// one line. The JSON has them all.
    #[arg(long, value_name = "N", default_value_t = 3, help_heading = "Output")]
    pub min_shingles: usize,

    /// Refuse a file larger than SIZE (explain holds about 26 bytes of memory per
    /// byte of its files).
    #[arg(long, value_name = "SIZE", default_value = DEFAULT_MAX_SIZE, value_parser = parse_size)]
    pub max_size: u64,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewArg {
    Diff,
    Passages,
}

pub fn run(args: Args, color: ColorArg) -> Result<i32> {
    if let Some(path) = &args.load_model {
        let Some(kind) = args.input else {
            bail!("--load-model explains a pair of records: give --input csv|tsv|jsonl");
        };
        return model::run(&args, kind, path);
    }
    if args.metric == Some(args::SetMetricArg::Containment) {
        simfind::spec::check_measure(
            simfind::measure::Measure::Containment,
            args.input.unwrap_or_default(),
        )
        .map_err(crate::app::lower::measure_error)?;
    }
    let (recipe, limit) = recipe_and_limit(&args)?;
    // Whether each text is a document's pages (a PDF's, separated by form
    // feeds), so that passages are located by page too.
    let mut paged = [false; 2];
    let (a, b, labels): (Vec<u8>, Vec<u8>, [String; 2]) = match args.input {
        None => {
            if let Some(extra) = &args.id_b {
                bail!("a third operand ({extra:?}) is a record id: give --input KIND with it");
            }
            let a = read_bounded(&args.a, limit)?;
            let b = read_bounded(&args.b, limit)?;
            let labels = [args.a.display().to_string(), args.b.display().to_string()];
            for (paged, doc) in paged.iter_mut().zip([&a, &b]) {
                *paged = doc.is_paged();
            }
            (a.to_vec(), b.to_vec(), labels)
        }
        Some(kind) => records_of(&args, kind, limit)?,
    };
    let explanation = explain(&a, &b, &recipe);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match args.format {
        Format::Json => {
            let doc = json_document(&args, &labels, &recipe, &explanation, a.len(), b.len());
            // Serialised first: a closed stdout is then an io::Error that
            // dispatch recognises as a broken pipe (serde_json's own error
            // does not expose it).
            let mut line = serde_json::to_vec(&doc)?;
            line.push(b'\n');
            out.write_all(&line)?;
        }
        Format::Text => {
            let paint = Painter {
                on: match color {
                    ColorArg::Always => true,
                    ColorArg::Never => false,
                    ColorArg::Auto => {
                        std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                            && std::io::stdout().is_terminal()
                    }
                },
            };
            let view = View {
                args: &args,
                labels: &labels,
                recipe: &recipe,
                e: &explanation,
                a: &a,
                b: &b,
                paged,
                paint,
            };
            match args.view {
                ViewArg::Passages => view.write(&mut out)?,
                ViewArg::Diff => view.write_diff(&mut out)?,
            }
        }
    }
    out.flush()?;
    if !args.verbosity.quiet && explanation.jaccard.is_none() {
        eprintln!("simfind: note: both files are shorter than one shingle: Jaccard is undefined");
    }
    Ok(exit::OK)
}

/// The texts of two records of one file of records (`--input`), as scan
/// shingles them: the record's fields joined by one space.
fn records_of(args: &Args, kind: InputKind, limit: u64) -> Result<(Vec<u8>, Vec<u8>, [String; 2])> {
    let (records, [a, b]) = read_records(args, kind, limit)?;
    let text = |i: usize| records.records[i].fields.join(" ").into_bytes();
    let name = args.a.display();
    let ids = [&records.records[a].id, &records.records[b].id];
    Ok((
        text(a),
        text(b),
        [format!("{name}#{}", ids[0]), format!("{name}#{}", ids[1])],
    ))
}

/// The recipe `explain` compares with (the shingle and sketch options, as
/// `compare` reads them) and the most bytes it reads of one input.
fn recipe_and_limit(args: &Args) -> Result<(Recipe, u64)> {
    let recipe = config::compare(
        &args.shingles,
        &args.sketch,
        args.bands,
        args.rows,
        args.seed,
    )?;
    let limit = args
        .max_size
        .min(simfind::explain::spans::MAX_MAPPED_LEN as u64);
    Ok((recipe, limit))
}

/// Every record of FILE_A (`--input`), and where the two records named are
/// among them.
fn read_records(
    args: &Args,
    kind: InputKind,
    limit: u64,
) -> Result<(simfind::input::records::Records, [usize; 2])> {
    use simfind::input::records::{RecordOptions, read_inputs};
    if !matches!(kind, InputKind::Jsonl) && !kind.is_table() {
        bail!("--input {kind}: explain takes records with text (jsonl, csv, tsv, parquet)");
    }
    let Some(id_b) = &args.id_b else {
        bail!("--input {kind} takes FILE ID_A ID_B: the file of records and two record ids");
    };
    let id_a = args.b.to_string_lossy().into_owned();
    if args.a != Path::new("-") {
        let size = std::fs::metadata(&args.a)
            .with_context(|| format!("{}", args.a.display()))?
            .len();
        if size > limit {
            bail!(
                "{} is {size} bytes, over --max-size {limit}: explain reads the whole file of records; raise --max-size",
                args.a.display()
            );
        }
    }
    crate::app::config::check_text_options(kind, args.delimiter, args.encoding)?;
    let mut options = RecordOptions::new(kind);
    options.delimiter = args.delimiter;
    options.encoding = args.encoding;
    if let Some(field) = &args.id_field {
        options.id_field = field.clone();
        options.id_field_given = true;
    }
    if !args.text_field.is_empty() {
        options.text_fields = args.text_field.clone();
    }
    if let Some(column) = &args.id_column {
        options.id_column = column.clone();
        options.id_column_given = true;
    }
    options.columns = args.columns.clone();
    options.skip_bad_rows = true;
    let mut skipped = 0u64;
    let records = read_inputs(std::slice::from_ref(&args.a), &options, &mut |_| {
        skipped += 1
    })
    .map_err(|err| anyhow::anyhow!("{}", crate::app::speak::row_error(&err)))?;
    let position = |id: &str| -> Result<usize> {
        records
            .records
            .iter()
            .position(|r| r.id == id)
            .with_context(|| {
                let note = if skipped > 0 {
                    format!(" ({skipped} bad rows were skipped; scan names them)")
                } else {
                    String::new()
                };
                format!("{}: no record with id {id:?}{note}", args.a.display())
            })
    };
    let found = [position(&id_a)?, position(id_b)?];
    Ok((records, found))
}

/// The file's bytes, refused before reading when it is larger than `limit`
/// (and after, if it grew meanwhile).
fn read_bounded(path: &Path, limit: u64) -> Result<Document> {
    let too_large = |size: u64| {
        anyhow::anyhow!(
            "{} is {size} bytes, over --max-size {limit}: explain holds about \
             {BYTES_PER_INPUT_BYTE} bytes of memory per byte of its files; raise --max-size \
             if the memory is there",
            path.display()
        )
    };
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if meta.is_dir() {
        bail!("cannot read {}: it is a directory", path.display());
    }
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let contents = source::open_named(path, &ReadOptions::default())
        .with_context(|| format!("cannot read {}", path.display()))?;
    if contents.len() as u64 > limit {
        return Err(too_large(contents.len() as u64));
    }
    Ok(contents)
}

fn json_document(
    args: &Args,
    labels: &[String; 2],
    recipe: &Recipe,
    e: &Explanation,
    len_a: usize,
    len_b: usize,
) -> Value {
    let range = |r: &Range<usize>| json!([r.start, r.end]);
    let file = |path: &Path, bytes: usize, shingles: usize| {
        let mut file = serde_json::Map::new();
        let raw = path.as_os_str().as_encoded_bytes();
        file.insert("path".into(), String::from_utf8_lossy(raw).into());
        if std::str::from_utf8(raw).is_err() {
            // As everywhere in simfind's JSON: the exact bytes of a name that
            // is not UTF-8.
            file.insert("path_bytes".into(), raw.to_vec().into());
        }
        file.insert("bytes".into(), bytes.into());
        file.insert("shingles".into(), shingles.into());
        Value::Object(file)
    };
    let record = |id: &str, bytes: usize, shingles: usize| {
        json!({
            "input": String::from_utf8_lossy(args.a.as_os_str().as_encoded_bytes()),
            "id": id,
            "bytes": bytes,
            "shingles": shingles,
        })
    };
    let (a, b) = match (args.input, &args.id_b) {
        (Some(_), Some(id_b)) => (
            record(&args.b.to_string_lossy(), len_a, e.shingles_a),
            record(id_b, len_b, e.shingles_b),
        ),
        _ => (
            file(&args.a, len_a, e.shingles_a),
            file(&args.b, len_b, e.shingles_b),
        ),
    };
    let _ = labels;
    let mut doc = json!({
        "a": a,
        "b": b,
        "shingle": recipe.shingler.kind().name(),
        "k": recipe.shingler.k(),
        "jaccard": e.jaccard,
        "minhash_estimate": e.estimate,
        "shared_shingles": e.shared_shingles,
        "shared": e.shared.iter().map(|s| json!({
            "a": range(&s.a),
            "b": range(&s.b),
            "shingles": s.shingles,
            "new_shingles": s.new_shingles,
            "share": s.share,
        })).collect::<Vec<_>>(),
        "only_a": e.only_a.iter().map(range).collect::<Vec<_>>(),
        "only_b": e.only_b.iter().map(range).collect::<Vec<_>>(),
    });
    if args.metric == Some(args::SetMetricArg::Containment) {
        let (a_in_b, b_in_a) = containment(e);
        doc["containment"] = json!({ "a_in_b": a_in_b, "b_in_a": b_in_a });
    }
    doc
}

/// Both directions of containment of the explained shingle sets:
/// `(|A ∩ B| / |A|, |A ∩ B| / |B|)`, 0 for an empty side.
fn containment(e: &Explanation) -> (f64, f64) {
    use simfind::similarity::of_counts;
    (
        of_counts(e.shared_shingles, e.shingles_a),
        of_counts(e.shared_shingles, e.shingles_b),
    )
}

/// ANSI colours when on; the text unchanged otherwise.
#[derive(Clone, Copy)]
struct Painter {
    on: bool,
}

impl Painter {
    fn paint(self, text: &str, style: Style) -> String {
        if self.on {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }
}

const SHARED: Style = AnsiColor::Green.on_default();
const ONLY_A: Style = AnsiColor::Red.on_default();
const ONLY_B: Style = AnsiColor::Cyan.on_default();

struct View<'a> {
    args: &'a Args,
    /// How A and B are named: their paths, or `FILE#ID` for records.
    labels: &'a [String; 2],
    recipe: &'a Recipe,
    e: &'a Explanation,
    a: &'a [u8],
    b: &'a [u8],
    /// Whether A's and B's texts are pages ([`page_label`]).
    paged: [bool; 2],
    paint: Painter,
}

impl View<'_> {
    /// The two sides, their shingle counts and the pair's similarity: the
    /// head of every text view.
    fn write_measures(&self, out: &mut impl Write) -> std::io::Result<()> {
        let e = self.e;
        let float =
            |v: Option<f64>| v.map_or_else(|| "undefined".to_string(), |x| format!("{x:.6}"));
        for (side, label, len, shingles) in [
            ("a", &self.labels[0], self.a.len(), e.shingles_a),
            ("b", &self.labels[1], self.b.len(), e.shingles_b),
        ] {
            writeln!(out, "{side}: {label} ({len} bytes, {shingles} shingles)")?;
        }
        writeln!(
            out,
            "{} shingles, k = {}: jaccard {} ({} shared), minhash estimate {}",
            self.recipe.shingler.kind().name(),
            self.recipe.shingler.k(),
            float(e.jaccard),
            e.shared_shingles,
            float(e.estimate),
        )
    }

    /// Each side's containment in the other, with the counts it comes from.
    fn write_containment(&self, out: &mut impl Write) -> std::io::Result<()> {
        let e = self.e;
        let (a_in_b, b_in_a) = containment(e);
        writeln!(
            out,
            "containment: a in b {a_in_b:.6} ({} of a's {}), b in a {b_in_a:.6} ({} of b's {})",
            e.shared_shingles, e.shingles_a, e.shared_shingles, e.shingles_b
        )
    }

    fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        let (e, paint) = (self.e, self.paint);
        self.write_measures(out)?;
        if self.args.metric == Some(args::SetMetricArg::Containment) {
            self.write_containment(out)?;
        }
        writeln!(out)?;
        let min = self.args.min_shingles;
        let (listed, short): (Vec<_>, Vec<_>) = e.shared.iter().partition(|s| s.shingles >= min);
        write!(
            out,
            "{}",
            count(e.shared.len(), "shared passage", "shared passages")
        )?;
        if !short.is_empty() {
            write!(
                out,
                " ({} of fewer than {min} shingles not listed, share {:.6})",
                short.len(),
                short.iter().map(|s| s.share).sum::<f64>()
            )?;
        }
        writeln!(out)?;
        for s in listed {
            writeln!(
                out,
                "{} a {}..{}{}  b {}..{}{}  share {:.6}  ({})",
                paint.paint("=", SHARED.bold()),
                s.a.start,
                s.a.end,
                page_label(self.paged[0], self.a, &s.a),
                s.b.start,
                s.b.end,
                page_label(self.paged[1], self.b, &s.b),
                s.share,
                count(s.shingles, "shingle", "shingles"),
            )?;
            self.excerpt(out, &self.a[s.a.clone()], SHARED)?;
        }
        self.only(out, "a", "-", &e.only_a, self.a, ONLY_A)?;
        self.only(out, "b", "+", &e.only_b, self.b, ONLY_B)
    }

    /// The parts of one file in no passage. Those that normalise to nothing
    /// (whitespace between passages, trimmed ends) are counted, not listed.
    fn only(
        &self,
        out: &mut impl Write,
        side: &str,
        marker: &str,
        ranges: &[Range<usize>],
        bytes: &[u8],
        style: Style,
    ) -> std::io::Result<()> {
        let (shown, blank): (Vec<_>, Vec<_>) = ranges.iter().partition(|r| {
            !normalize(&bytes[(*r).clone()], self.recipe.normalization)
                .trim()
                .is_empty()
        });
        writeln!(out)?;
        write!(
            out,
            "{} only in {side}",
            count(shown.len(), "part", "parts")
        )?;
        if !blank.is_empty() {
            write!(out, " (and {} of whitespace only)", blank.len())?;
        }
        writeln!(out)?;
        let paged = self.paged[usize::from(side == "b")];
        for r in shown {
            writeln!(
                out,
                "{} {side} {}..{}{}",
                self.paint.paint(marker, style.bold()),
                r.start,
                r.end,
                page_label(paged, bytes, r)
            )?;
            self.excerpt(out, &bytes[r.clone()], style)?;
        }
        Ok(())
    }

    fn excerpt(&self, out: &mut impl Write, bytes: &[u8], style: Style) -> std::io::Result<()> {
        let text = excerpt(bytes, self.args.max_chars as usize);
        writeln!(out, "  │ {}", self.paint.paint(&text, style))
    }
}

/// ` (page 2)` or ` (pages 2–3)`: where `range` is in a text whose pages
/// form feeds separate (a PDF's, as extraction writes it); nothing for a
/// text that is not `paged`.
fn page_label(paged: bool, text: &[u8], range: &Range<usize>) -> String {
    if !paged {
        return String::new();
    }
    let (first, last) = simfind::source::extract::pages_of(text, range.clone());
    if first == last {
        format!(" (page {first})")
    } else {
        format!(" (pages {first}–{last})")
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `bytes` as one line of at most `max` characters (not counting the `…`
/// between a long text's start and end): control characters escaped (`\n`,
/// `\u{1b}`: a file cannot move the terminal's cursor or change its colours),
/// invalid UTF-8 as `\xNN`.
fn excerpt(bytes: &[u8], max: usize) -> String {
    // The first `max + 1` pieces and the last `max - max / 2`: a passage of
    // megabytes costs no more than a short one.
    let tail_len = max - max / 2;
    let mut head: Vec<String> = Vec::new();
    let mut tail: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut total = 0usize;
    let mut push = |piece: String| {
        total += 1;
        if head.len() <= max {
            head.push(piece.clone());
        }
        if tail.len() == tail_len {
            tail.pop_front();
        }
        tail.push_back(piece);
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let escape = c.is_control()
                || matches!(c, '\u{200E}' | '\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
            push(match c {
                '\n' => "\\n".to_string(),
                '\r' => "\\r".to_string(),
                '\t' => "\\t".to_string(),
                _ if escape => c.escape_unicode().to_string(),
                _ => c.to_string(),
            });
        }
        for b in chunk.invalid() {
            push(format!("\\x{b:02X}"));
        }
    }
    if total <= max {
        return head.concat();
    }
    format!(
        "{} … {}",
        head[..max / 2].concat(),
        tail.into_iter().collect::<String>()
    )
}

mod model;
mod word_diff;

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn excerpts_escape_and_bound() {
        assert_eq!(
            excerpt(b"a\r\n\tb\x1b[31m\xFFc", 100),
            "a\\r\\n\\tb\\u{1b}[31m\\xFFc"
        );
        assert_eq!(excerpt("x\u{202E}y".as_bytes(), 100), "x\\u{202e}y");
        assert_eq!(excerpt(b"abcdefghij", 4), "ab … ij");
        assert_eq!(excerpt("ääää".as_bytes(), 4), "ääää");
    }
}
