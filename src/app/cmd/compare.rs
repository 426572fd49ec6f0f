//! `simfind compare`: every similarity and distance measure of MMDS 3.5 for
//! two files, over the same shingles `scan` uses.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use simfind::input::InputKind;
use simfind::input::ReadOptions;
use simfind::input::records::{self, RecordOptions};
use simfind::input::vectors::{self as points, BitStrings, Vectors};
use simfind::recipe::Recipe;
use simfind::similarity::measures;
use simfind::similarity::vectors;
use simfind::sketch::Icws;
use simfind::sketch::Sketcher;
use simfind::source;
use simfind::text::normalize;
use simfind::text::{Scratch, Shingler};

use crate::app::args::{self, DEFAULT_BANDS, DEFAULT_ROWS, DEFAULT_SEED, ShingleArgs, SketchArgs};
use crate::app::config;
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::lower;
use crate::app::ui::Verbosity;

/// Edit distances are computed only up to this many DP cells by default
/// (about 20 000 × 20 000 characters after the common prefix and suffix):
/// Levenshtein's DP takes about a second there.
const DEFAULT_EDIT_CELLS: u64 = 400_000_000;

/// The Damerau distance's table holds every cell (8 bytes each): 16 million
/// cells (about 4,000 × 4,000 characters) is 128 MB.
const DAMERAU_MAX_CELLS: u64 = 16_000_000;

const AFTER_HELP: &str = "EXAMPLES:
  simfind compare a.txt b.txt
  simfind compare a.txt b.txt --shingle word -k 3
  simfind compare a.txt b.txt | grep -E '^(jaccard|cosine),'
  simfind compare snippet.txt article.txt --metric containment
  simfind compare --vector 1,-2,3 --vector 2,0,-1 --p 3
  simfind compare --bits 10101 --bits 11110
  simfind compare --input vectors points.csv id7 id42
  simfind compare --input sets baskets.tsv alice bob

OUTPUT (CSV with header `measure,value`, one row per measure, in this order):
  shingles_a, shingles_b   distinct shingles in each file
  shared                   shingles in both
  jaccard                  exact Jaccard similarity of the shingle sets (as scan reports it)
  jaccard_distance         1 − jaccard
  minhash_estimate         fraction of agreeing MinHash values (bands × rows, --seed, --minhash)
  cosine                   cosine similarity of the shingle-count vectors
  angle_degrees            cosine distance: the angle between them, 0–90
  euclidean                L2 distance of the count vectors
  manhattan                L1 distance of the count vectors
  linf                     L∞ distance of the count vectors
  hamming                  Hamming distance of the 0/1 vectors (shingles in one file only)
  chars_a, chars_b         characters of the normalised texts
  edit_distance            MMDS 3.5.5 edit distance of the normalised texts: fewest
                           character insertions and deletions
  levenshtein              the same with substitutions allowed (cost 1)
  damerau                  the same with transpositions of two adjacent characters allowed
                           (cost 1; MMDS Exercise 3.5.8; at most 16 million DP cells)
  bag_jaccard              Jaccard of the shingle bags as MMDS defines it: counts' minima
                           over the sum of both bags (at most 0.5)
  weighted_jaccard         Σ min / Σ max of the shingle counts (what weighted MinHash
                           estimates)
  icws_estimate            with --icws: the weighted MinHash estimate of weighted_jaccard
                           (ICWS, Ioffe 2010: bands × rows samples of the shingle counts,
                           --seed), the fraction of equal (k, t) samples
Two vectors (--vector twice, or --input vectors FILE ID_A ID_B), in this order:
  dimensions               components of each vector
  cosine                   cosine similarity, in [-1, 1] (negative components allowed)
  angle_degrees            the angle between them, 0–180
  euclidean, manhattan     L2 and L1 distances
  linf                     L∞ distance
  l<P>                     with --p P: the Lp distance
Two bit strings (--bits twice, or --input bits FILE ID_A ID_B): bits (the length), hamming
(positions that differ).
Two sets (--input sets FILE ID_A ID_B; tokens are whole strings, as `scan --input sets`
reads them, a token repeated in a set counted once):
  size_a, size_b           elements of each set
  shared                   elements in both
  jaccard, jaccard_distance  |A ∩ B| / |A ∪ B| and 1 − that
  hamming                  elements in exactly one (the 0/1 vectors' Hamming distance)
  cosine, angle_degrees    of the 0/1 vectors: shared / √(size_a · size_b), and its angle
With --metric containment (files and sets), after jaccard_distance:
  containment_a_in_b       |A ∩ B| / |A|: the share of A's shingles (elements) found in B
  containment_b_in_a       |A ∩ B| / |B|; both 0 for an empty side (docs/SEARCH.md)
Floats have 6 decimals. A value that is undefined (Jaccard of two empty sets, cosine
with an empty file) or over --max-edit-cells is left empty, with a note on stderr.

";

/// Compare two files: exact Jaccard of their shingle sets, the MinHash estimate,
/// and the other MMDS 3.5 distances (cosine, L2, L1, L∞, Hamming, edit distance).
///
/// Or two vectors or bit strings, given with --vector / --bits or as two ids of an
/// --input file: cosine (of any signs), angle, Lp distances, Hamming distance.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_COMPARE))]
#[command(
    mut_args(defs::one("input", defs::input(defs::Input::Compare))),
    mut_args(defs::one("pairs", defs::set_pairs(defs::SetPairs::Compare))),
    mut_args(defs::one("bands", defs::bands(defs::Shape::Fixed))),
    mut_args(defs::one("rows", defs::rows(defs::Shape::Fixed))),
    mut_args(defs::one("seed", defs::seed(defs::Seed::Fixed)))
)]
pub struct Args {
    /// The first file (with --input: the file of points or sets).
    #[arg(value_name = "FILE_A", required_unless_present_any = ["vector", "bits"])]
    pub a: Option<PathBuf>,

    /// The second file (with --input: the first row's id).
    #[arg(value_name = "FILE_B", required_unless_present_any = ["vector", "bits"])]
    pub b: Option<PathBuf>,

    /// With --input: the second row's id.
    #[arg(value_name = "ID_B", requires = "input")]
    pub id_b: Option<String>,

    // --input: defs::input.
    #[arg(long, conflicts_with_all = ["vector", "bits"], help_heading = "Vectors and bit strings")]
    pub input: Option<String>,

    // --pairs: defs::set_pairs.
    #[arg(long, help_heading = "Vectors and bit strings")]
    pub pairs: bool,

    /// A vector given on the command line, comma-separated (twice: `--vector 1,-2,3 --vector
    /// 2,0,-1`): prints the vector measures (cosine with negative components, Lp, L∞).
    #[arg(long, value_name = "X1,X2,…", num_args = 1, action = clap::ArgAction::Append, allow_hyphen_values = true, conflicts_with = "bits", help_heading = "Vectors and bit strings")]
    pub vector: Vec<String>,

    /// A bit string given on the command line, `0101…` or `0x…` (twice): prints the
    /// Hamming distance.
    #[arg(long, value_name = "BITS", num_args = 1, action = clap::ArgAction::Append, help_heading = "Vectors and bit strings")]
    pub bits: Vec<String>,

    /// Also print the Lp distance of two vectors for this p ≥ 1 (`inf` for L∞).
    #[arg(long, value_name = "P", help_heading = "Vectors and bit strings")]
    pub p: Option<f64>,

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

    /// Also print `icws_estimate`: weighted MinHash (Ioffe's ICWS, as datasketch's
    /// WeightedMinHash) of the shingle counts, bands × rows samples from --seed; it
    /// estimates `weighted_jaccard`.
    #[arg(long, help_heading = "LSH")]
    pub icws: bool,

    /// With `containment`: also print `containment_a_in_b` and `containment_b_in_a`
    /// after `jaccard_distance`, the share of each file's shingles (or set's elements)
    /// found in the other (docs/SEARCH.md). Every other measure is printed whatever it is.
    #[arg(long, value_enum, value_name = "METRIC")]
    pub metric: Option<args::SetMetricArg>,

    /// Skip the edit distances when the texts, less their common prefix and suffix,
    /// would need more than N DP cells (length × length).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_EDIT_CELLS)]
    pub max_edit_cells: u64,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

pub fn run(args: Args) -> Result<i32> {
    let containment = containment_asked(&args)?;
    if args.input.is_some() || !args.vector.is_empty() || !args.bits.is_empty() {
        if args.icws {
            bail!("--icws weighs shingle counts: it is for two files, not vectors or bit strings");
        }
        if args.input.as_deref() == Some("sets") {
            return run_sets(&args, containment);
        }
        if args.pairs {
            bail!("--pairs is for --input sets");
        }
        return run_points(&args);
    }
    if args.p.is_some() || args.id_b.is_some() {
        bail!(
            "--p and a third operand are for vectors: give --input vectors FILE ID_A ID_B or --vector twice"
        );
    }
    let (Some(path_a), Some(path_b)) = (&args.a, &args.b) else {
        bail!("give two files");
    };
    let recipe = config::compare(
        &args.shingles,
        &args.sketch,
        args.bands,
        args.rows,
        args.seed,
    )?;

    let text_a = read_text(path_a, &recipe)?;
    let text_b = read_text(path_b, &recipe)?;
    let counts_a = count_vector(&recipe.shingler, &text_a);
    let counts_b = count_vector(&recipe.shingler, &text_b);
    let set_a: Vec<u64> = counts_a.iter().map(|&(h, _)| h).collect();
    let set_b: Vec<u64> = counts_b.iter().map(|&(h, _)| h).collect();

    let estimate = (!set_a.is_empty() && !set_b.is_empty()).then(|| {
        let sketcher = recipe.sketcher();
        let sign = |set: &[u64]| {
            let mut signature = vec![0; sketcher.signature_len()];
            sketcher.sign_into(set, &mut signature);
            signature
        };
        sketcher.estimate(&sign(&set_a), &sign(&set_b))
    });
    let vectors = measures::vector_measures(&counts_a, &counts_b);
    let chars_a: Vec<char> = text_a.chars().collect();
    let chars_b: Vec<char> = text_b.chars().collect();
    let indel = measures::indel_distance(&chars_a, &chars_b, args.max_edit_cells);
    let levenshtein = measures::levenshtein_distance(&chars_a, &chars_b, args.max_edit_cells);
    // Damerau keeps its whole DP table: a smaller budget bounds its memory.
    let damerau = measures::damerau_distance(
        &chars_a,
        &chars_b,
        args.max_edit_cells.min(DAMERAU_MAX_CELLS),
    );

    if args.verbosity.quiet {
        // -q: the table only.
    } else if set_a.is_empty() && set_b.is_empty() {
        eprintln!("simfind: note: both files are shorter than one shingle: Jaccard is undefined");
    } else if set_a.is_empty() || set_b.is_empty() {
        eprintln!(
            "simfind: note: a file shorter than one shingle has no MinHash estimate and no angle"
        );
    }
    if !args.verbosity.quiet && (indel.is_none() || levenshtein.is_none() || damerau.is_none()) {
        eprintln!(
            "simfind: note: edit distances skipped: the texts differ over more than \
             --max-edit-cells {} DP cells",
            args.max_edit_cells
        );
    }

    let float = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
    let int = |v: Option<usize>| v.map(|x| x.to_string()).unwrap_or_default();
    let shared = measures::intersection_size(&set_a, &set_b);
    let icws = args.icws.then(|| {
        let icws = Icws::new(recipe.banding.signature_len(), args.seed);
        let weighted = |counts: &[(u64, u32)]| -> Vec<(u64, f64)> {
            counts.iter().map(|&(h, c)| (h, f64::from(c))).collect()
        };
        match (
            icws.sign(&weighted(&counts_a)),
            icws.sign(&weighted(&counts_b)),
        ) {
            (Some(a), Some(b)) => float(Some(Icws::estimate(&a, &b))),
            _ => String::new(),
        }
    });
    let mut rows: Vec<(&str, String)> = vec![
        ("shingles_a", set_a.len().to_string()),
        ("shingles_b", set_b.len().to_string()),
        ("shared", shared.to_string()),
        ("jaccard", float(measures::jaccard(&set_a, &set_b))),
        (
            "jaccard_distance",
            float(measures::jaccard_distance(&set_a, &set_b)),
        ),
        ("minhash_estimate", float(estimate)),
        ("cosine", float(vectors.cosine)),
        ("angle_degrees", float(vectors.angle_degrees)),
        ("euclidean", format!("{:.6}", vectors.euclidean)),
        ("manhattan", vectors.manhattan.to_string()),
        ("linf", vectors.linf.to_string()),
        ("hamming", vectors.hamming.to_string()),
        ("chars_a", chars_a.len().to_string()),
        ("chars_b", chars_b.len().to_string()),
        ("edit_distance", int(indel)),
        ("levenshtein", int(levenshtein)),
        ("damerau", int(damerau)),
        (
            "bag_jaccard",
            float(measures::bag_jaccard(&counts_a, &counts_b)),
        ),
        (
            "weighted_jaccard",
            float(measures::weighted_jaccard(&counts_a, &counts_b)),
        ),
    ];
    if containment {
        insert_containment(&mut rows, (set_a.len(), set_b.len(), shared));
    }
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["measure", "value"])?;
    for (measure, value) in rows {
        out.write_record([measure, value.as_str()])?;
    }
    if let Some(value) = icws {
        out.write_record(["icws_estimate", value.as_str()])?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// Whether `--metric containment` asks for containment's rows; refuses
/// vectors and bit strings (the library's rule).
fn containment_asked(args: &Args) -> Result<bool> {
    match args.metric {
        None | Some(args::SetMetricArg::Jaccard) => Ok(false),
        Some(args::SetMetricArg::Containment) => {
            let kind = if !args.vector.is_empty() {
                InputKind::Vectors
            } else if !args.bits.is_empty() {
                InputKind::Bits
            } else {
                match args.input.as_deref() {
                    Some(name) => name.parse().unwrap_or(InputKind::Vectors),
                    None => InputKind::Files,
                }
            };
            simfind::spec::check_measure(simfind::measure::Measure::Containment, kind)
                .map_err(lower::measure_error)?;
            Ok(true)
        }
    }
}

/// `containment_a_in_b` and `containment_b_in_a` from `(|A|, |B|, |A ∩ B|)`,
/// after `jaccard_distance`: both directions, since containment is not
/// symmetric; 0 for an empty side (docs/SEARCH.md).
fn insert_containment(rows: &mut Vec<(&str, String)>, (a, b, shared): (usize, usize, usize)) {
    use simfind::similarity::of_counts;
    let at = rows
        .iter()
        .position(|(name, _)| *name == "jaccard_distance")
        .map_or(rows.len(), |i| i + 1);
    let float = |v: f64| format!("{v:.6}");
    rows.insert(at, ("containment_a_in_b", float(of_counts(shared, a))));
    rows.insert(at + 1, ("containment_b_in_a", float(of_counts(shared, b))));
}

fn read_text(path: &Path, recipe: &Recipe) -> Result<String> {
    let contents = source::open_named(path, &ReadOptions::default())
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(normalize(&contents, recipe.normalization))
}

fn count_vector(shingler: &Shingler, text: &str) -> Vec<(u64, u32)> {
    let mut hashes = Vec::new();
    shingler.for_each_hash(text, &mut Scratch::default(), |h| hashes.push(h));
    measures::count_vector(hashes)
}

/// `compare --input sets FILE ID_A ID_B`: the set measures of two rows, over
/// their tokens as whole strings (numbered exactly, so no two tokens can
/// collide as hashes could).
fn run_sets(args: &Args, containment: bool) -> Result<i32> {
    if args.p.is_some() {
        bail!("--p is for vectors, not sets");
    }
    let (Some(file), Some(id_a), Some(id_b)) = (&args.a, &args.b, &args.id_b) else {
        bail!("--input sets needs a file and two ids: compare --input sets FILE ID_A ID_B");
    };
    let id_a = id_a.to_string_lossy();
    let mut options = RecordOptions::new(InputKind::Sets);
    options.pairs = args.pairs;
    let read = records::read_inputs(std::slice::from_ref(file), &options, &mut |_| {})
        .map_err(|err| anyhow::anyhow!("{}", crate::app::speak::row_error(&err)))?;
    let shown = records::display_name(file);
    let find = |id: &str| {
        read.records
            .iter()
            .find(|r| r.id == id)
            .ok_or_else(|| anyhow::anyhow!("{shown}: no set with id {id:?}"))
    };
    let (a, b) = (find(&id_a)?, find(id_b)?);
    let mut numbers: HashMap<&str, u64> = HashMap::new();
    fn numbered<'a>(numbers: &mut HashMap<&'a str, u64>, tokens: &'a [String]) -> Vec<u64> {
        let mut set: Vec<u64> = tokens
            .iter()
            .map(|t| {
                let next = numbers.len() as u64;
                *numbers.entry(t.as_str()).or_insert(next)
            })
            .collect();
        set.sort_unstable();
        set.dedup();
        set
    }
    let (a, b) = (
        numbered(&mut numbers, &a.fields),
        numbered(&mut numbers, &b.fields),
    );
    let shared = measures::intersection_size(&a, &b);
    let float = |v: f64| format!("{v:.6}");
    let cosine = (!a.is_empty() && !b.is_empty())
        .then(|| shared as f64 / ((a.len() as f64) * (b.len() as f64)).sqrt());
    let rows: Vec<(&str, String)> = vec![
        ("size_a", a.len().to_string()),
        ("size_b", b.len().to_string()),
        ("shared", shared.to_string()),
        (
            "jaccard",
            measures::jaccard(&a, &b).map(float).unwrap_or_default(),
        ),
        (
            "jaccard_distance",
            measures::jaccard_distance(&a, &b)
                .map(float)
                .unwrap_or_default(),
        ),
        ("hamming", measures::hamming(&a, &b).to_string()),
        ("cosine", cosine.map(float).unwrap_or_default()),
        (
            "angle_degrees",
            cosine
                .map(|c| float(vectors::angle_degrees(c)))
                .unwrap_or_default(),
        ),
    ];
    let mut rows = rows;
    if containment {
        insert_containment(&mut rows, (a.len(), b.len(), shared));
    }
    if (a.is_empty() || b.is_empty()) && !args.verbosity.quiet {
        eprintln!(
            "simfind: note: an empty set has no angle (and two have no Jaccard similarity): those values are left empty"
        );
    }
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["measure", "value"])?;
    for (measure, value) in rows {
        out.write_record([measure, value.as_str()])?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// Two points, from --vector, --bits or two ids of an --input file.
enum Points {
    Vectors(Vec<f32>, Vec<f32>),
    Bits(usize, Vec<u64>, Vec<u64>),
}

/// `compare` of two vectors or bit strings: every measure that applies.
fn run_points(args: &Args) -> Result<i32> {
    let points = load_points(args)?;
    let mut rows: Vec<(String, String)> = Vec::new();
    let float = |v: f64| format!("{v:.6}");
    match &points {
        Points::Vectors(a, b) => {
            if a.len() != b.len() {
                bail!(
                    "the vectors have {} and {} components: they must have the same number",
                    a.len(),
                    b.len()
                );
            }
            let cosine = vectors::cosine(a, b);
            rows.push(("dimensions".into(), a.len().to_string()));
            rows.push(("cosine".into(), cosine.map(float).unwrap_or_default()));
            rows.push((
                "angle_degrees".into(),
                cosine
                    .map(|c| float(vectors::angle_degrees(c)))
                    .unwrap_or_default(),
            ));
            rows.push(("euclidean".into(), float(vectors::euclidean(a, b))));
            rows.push(("manhattan".into(), float(vectors::lp_distance(a, b, 1.0))));
            rows.push((
                "linf".into(),
                float(vectors::lp_distance(a, b, f64::INFINITY)),
            ));
            if let Some(p) = args.p {
                rows.push((
                    format!(
                        "l{}",
                        if p.is_infinite() {
                            "inf".into()
                        } else {
                            p.to_string()
                        }
                    ),
                    float(vectors::lp_distance(a, b, p)),
                ));
            }
            if cosine.is_none() && !args.verbosity.quiet {
                eprintln!(
                    "simfind: note: a zero vector has no angle: cosine and angle are left empty"
                );
            }
        }
        Points::Bits(len, a, b) => {
            rows.push(("bits".into(), len.to_string()));
            rows.push(("hamming".into(), vectors::hamming_bits(a, b).to_string()));
        }
    }
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["measure", "value"])?;
    for (measure, value) in rows {
        out.write_record([measure, value])?;
    }
    out.flush()?;
    Ok(exit::OK)
}

fn load_points(args: &Args) -> Result<Points> {
    if let Some(p) = args.p
        && (p.is_nan() || p < 1.0)
    {
        bail!("--p {p}: Lp is a distance for p ≥ 1 (or inf)");
    }
    if !args.vector.is_empty() {
        let [a, b] = &args.vector[..] else {
            bail!("give --vector exactly twice (got {})", args.vector.len());
        };
        if args.a.is_some() {
            bail!("--vector takes no files");
        }
        let parse = |text: &str| -> Result<Vec<f32>> {
            text.split(',')
                .enumerate()
                .map(|(k, x)| {
                    points::parse_number(x).map_err(|why| {
                        anyhow::anyhow!("--vector {text}: component {}: {why}", k + 1)
                    })
                })
                .collect()
        };
        return Ok(Points::Vectors(parse(a)?, parse(b)?));
    }
    if !args.bits.is_empty() {
        let [a, b] = &args.bits[..] else {
            bail!("give --bits exactly twice (got {})", args.bits.len());
        };
        if args.a.is_some() {
            bail!("--bits takes no files");
        }
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        let la =
            points::parse_bits(a, &mut wa).map_err(|why| anyhow::anyhow!("--bits {a}: {why}"))?;
        let lb =
            points::parse_bits(b, &mut wb).map_err(|why| anyhow::anyhow!("--bits {b}: {why}"))?;
        if la != lb {
            bail!("the bit strings have {la} and {lb} bits: Hamming distance needs equal lengths");
        }
        return Ok(Points::Bits(la, wa, wb));
    }
    let (Some(file), Some(id_a), Some(id_b)) = (&args.a, &args.b, &args.id_b) else {
        bail!("--input needs a file and two ids: compare --input vectors FILE ID_A ID_B");
    };
    let id_a = id_a.to_string_lossy();
    let shown = file.display();
    let input = std::fs::File::open(file).with_context(|| format!("cannot read {shown}"))?;
    let fail = |e: points::ReadError| anyhow::anyhow!("{shown}: {e}");
    let find = |ids: &[String], id: &str| -> Result<usize> {
        ids.iter()
            .position(|x| x == id)
            .ok_or_else(|| anyhow::anyhow!("{shown}: no row with id {id:?}"))
    };
    if args.input.as_deref() == Some("vectors") {
        let v: Vectors = points::read_vectors(input, false, &mut |_| {}).map_err(fail)?;
        let (i, j) = (find(&v.ids, &id_a)?, find(&v.ids, id_b)?);
        Ok(Points::Vectors(v.row(i).to_vec(), v.row(j).to_vec()))
    } else {
        let s: BitStrings = points::read_bits(input, false, &mut |_| {}).map_err(fail)?;
        let (i, j) = (find(&s.ids, &id_a)?, find(&s.ids, id_b)?);
        Ok(Points::Bits(s.bits, s.row(i).to_vec(), s.row(j).to_vec()))
    }
}
