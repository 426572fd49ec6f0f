//! `simfind compare`: every similarity and distance measure of MMDS 3.5 for
//! two files, over the same shingles `scan` uses.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use simfind::input::read::{self, ReadOptions};
use simfind::recipe::Recipe;
use simfind::similarity::measures;
use simfind::sketch::Sketcher;
use simfind::text::normalize::normalize;
use simfind::text::shingle::{Scratch, Shingler};

use crate::app::args::{self, DEFAULT_BANDS, DEFAULT_ROWS, DEFAULT_SEED, ShingleArgs, SketchArgs};
use crate::app::config;
use crate::app::exit;
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
Floats have 6 decimals. A value that is undefined (Jaccard of two empty sets, cosine
with an empty file) or over --max-edit-cells is left empty, with a note on stderr.

";

/// Compare two files: exact Jaccard of their shingle sets, the MinHash estimate,
/// and the other MMDS 3.5 distances (cosine, L2, L1, L∞, Hamming, edit distance).
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_COMPARE))]
pub struct Args {
    /// The first file.
    #[arg(value_name = "FILE_A")]
    pub a: PathBuf,

    /// The second file.
    #[arg(value_name = "FILE_B")]
    pub b: PathBuf,

    #[command(flatten)]
    pub shingles: ShingleArgs,

    /// Bands b of the MinHash signature (its length is b × r).
    #[arg(long, short = 'b', value_name = "B", default_value_t = DEFAULT_BANDS, help_heading = "LSH")]
    pub bands: usize,

    /// Rows per band r.
    #[arg(long, short = 'r', value_name = "R", default_value_t = DEFAULT_ROWS, help_heading = "LSH")]
    pub rows: usize,

    /// Seed of the MinHash functions (the same as scan's for the same estimate).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED, help_heading = "LSH")]
    pub seed: u64,

    #[command(flatten)]
    pub sketch: SketchArgs,

    /// Skip the edit distances when the texts, less their common prefix and suffix,
    /// would need more than N DP cells (length × length).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_EDIT_CELLS)]
    pub max_edit_cells: u64,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

pub fn run(args: Args) -> Result<i32> {
    let recipe = config::compare(
        &args.shingles,
        &args.sketch,
        args.bands,
        args.rows,
        args.seed,
    )?;

    let text_a = read_text(&args.a, &recipe)?;
    let text_b = read_text(&args.b, &recipe)?;
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
    let rows: [(&str, String); 19] = [
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
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["measure", "value"])?;
    for (measure, value) in rows {
        out.write_record([measure, value.as_str()])?;
    }
    out.flush()?;
    Ok(exit::OK)
}

fn read_text(path: &Path, recipe: &Recipe) -> Result<String> {
    let contents = read::read_file(path, &ReadOptions::default())
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(normalize(&contents, recipe.normalization))
}

fn count_vector(shingler: &Shingler, text: &str) -> Vec<(u64, u32)> {
    let mut hashes = Vec::new();
    shingler.for_each_hash(text, &mut Scratch::default(), |h| hashes.push(h));
    measures::count_vector(hashes)
}
