//! `simfind query`: the many-one question — which indexed documents are similar
//! to this one? Each query document is signed with the index's own parameters,
//! its band keys are looked up in the index, and the candidates are verified as
//! `scan` verifies them.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use rayon::prelude::*;
use simfind::index::incremental::Signer;
use simfind::index::{Index, OpenOptions, StoredDoc};
use simfind::input::read::{self, ReadOptions};
use simfind::lsh::scurve;
use simfind::similarity::verify;
use simfind::sketch::minhash;
use xxhash_rust::xxh3::xxh3_128;

use simfind::progress::Reporter;

use crate::app::args::{self, VerifyArg};
use crate::app::exit;
use crate::app::output::pairs::PAIRS_HEADER;
use crate::app::output::{self, Sink};
use crate::app::ui::Ui;

const EXAMPLES: &str = "EXAMPLES:
  simfind query new.txt --db share.simfind                 similar indexed documents
  simfind query a.txt b.txt --db share.simfind --top 3     the 3 most similar to each
  curl -s https://example.org/page | simfind query - --db web.simfind --threshold 0.8

OUTPUT (CSV with header, the same columns as `simfind scan`):
  a            the query document as given (`-` for standard input)
  b            the indexed document, by its indexed path
  similarity   exact Jaccard similarity of the shingle sets (with --verify signature:
               the MinHash estimate), 6 decimals
  estimate     fraction of agreeing MinHash values, 6 decimals
  shingles_a   distinct shingles in a
  shingles_b   distinct shingles in b
  shared       shingles in both (empty with --verify signature)
Rows come per query document in argument order, most similar first (ties by
path). A query document that is itself indexed matches itself.

The query is shingled and signed with the parameters stored in the index. Exact
verification re-reads each candidate file and refuses one whose content no longer
matches the index (run `simfind index` to refresh it).

";

/// Find the indexed documents similar to each given document, as CSV.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_QUERY))]
pub struct Args {
    /// Documents to look up; `-` reads one from standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The index built by `simfind index`.
    #[arg(long, value_name = "FILE", required = true)]
    pub db: PathBuf,

    /// Report documents with similarity ≥ T, 0 < T ≤ 1 [default: the S-curve threshold of the index's bands and rows].
    #[arg(long, short = 't', value_name = "T")]
    pub threshold: Option<f64>,

    /// Report at most N documents per query (the most similar).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub top: Option<u64>,

    /// How candidates are verified: exact Jaccard (no false positives) or the signature estimate.
    #[arg(long, value_enum, default_value_t = VerifyArg::Exact)]
    pub verify: VerifyArg,

    /// How long to wait while another process commits an update to the index.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub wait: f64,

    /// Write the CSV to FILE (atomically: complete or not at all) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// No summary (warnings are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// One verified match of a query document.
struct Match {
    doc: StoredDoc,
    similarity: f64,
    estimate: f64,
    shared: Option<usize>,
}

pub fn run(args: Args) -> Result<i32> {
    if args.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("`-` (standard input) can be given only once");
    }
    output::refuse_overwriting_index(args.output.as_deref(), &args.db)?;
    if let Some(t) = args.threshold
        && !(t > 0.0 && t <= 1.0)
    {
        bail!("--threshold must be in (0, 1], got {t}");
    }
    let options = OpenOptions {
        busy_timeout: args::wait_duration(args.wait)?,
    };
    let started = Instant::now();
    let index = Index::open_existing(&args.db, options)?;
    let signer = Signer::from_params(index.params()).map_err(|reason| {
        anyhow::anyhow!(
            "index {} has parameters this simfind cannot use ({reason}); delete it and rebuild \
             it with `simfind index DIR... --db {}`",
            args.db.display(),
            args.db.display()
        )
    })?;
    let threshold = args
        .threshold
        .unwrap_or_else(|| scurve::threshold(signer.banding.bands, signer.banding.rows));
    let mut sink = Sink::create_whole(args.output.as_deref())?;
    output::install_interrupt_handler();

    // Warnings only: query draws no progress bars.
    let ui = Ui::new(true, false);
    let mut errors = 0u64;
    let mut matches_total = 0u64;
    let mut candidates_total = 0u64;
    // Shingle sets of indexed contents already re-read, by content hash.
    let mut sets: HashMap<u128, Option<Vec<u64>>> = HashMap::new();
    let mut csv = csv::WriterBuilder::new().from_writer(&mut sink);
    csv.write_record(PAIRS_HEADER)?;
    for query in &args.files {
        let bytes = match read_query(query) {
            Ok(bytes) => bytes,
            Err(reason) => {
                ui.warn(query, &reason);
                errors += 1;
                continue;
            }
        };
        if !signer.include_binary && read::looks_binary(&bytes) {
            eprintln!(
                "simfind: note: {} looks binary and the index skips binary files; no matches \
                 (index with --binary to include them)",
                query.display()
            );
            continue;
        }
        let set = signer.shingle_set(&bytes);
        drop(bytes);
        if set.is_empty() {
            eprintln!(
                "simfind: note: {} is shorter than one shingle; it is never similar to anything",
                query.display()
            );
            continue;
        }
        let (signature, keys) = signer.sign(&set);
        let ids = index.candidates(&keys)?;
        candidates_total += ids.len() as u64;
        let mut docs = Vec::with_capacity(ids.len());
        for id in ids {
            docs.extend(index.document(id)?);
        }
        if args.verify == VerifyArg::Exact {
            // Re-read each content not loaded yet (identical files once), in
            // parallel: for a document with many candidates this is the cost.
            let mut todo: Vec<&StoredDoc> = Vec::new();
            let mut planned = HashSet::new();
            for doc in &docs {
                if !sets.contains_key(&doc.content_hash) && planned.insert(doc.content_hash) {
                    todo.push(doc);
                }
            }
            let loaded: Vec<_> = todo
                .par_iter()
                .map(|doc| (doc.content_hash, doc.path.as_path(), reload(doc, &signer)))
                .collect();
            for (hash, path, result) in loaded {
                let set = result
                    .map_err(|reason| {
                        ui.warn(path, &reason);
                        errors += 1;
                    })
                    .ok();
                sets.insert(hash, set);
            }
        }
        let mut found = Vec::new();
        for doc in docs {
            let estimate = minhash::estimate(&signature, &doc.signature);
            let (similarity, shared) = match args.verify {
                VerifyArg::Signature => (estimate, None),
                VerifyArg::Exact => {
                    let Some(Some(other)) = sets.get(&doc.content_hash) else {
                        continue;
                    };
                    let shared = verify::intersection_size(&set, other);
                    (
                        verify::ratio(shared, set.len() + other.len() - shared),
                        Some(shared),
                    )
                }
            };
            if similarity >= threshold {
                found.push(Match {
                    doc,
                    similarity,
                    estimate,
                    shared,
                });
            }
        }
        found.sort_by(|x, y| {
            y.similarity.total_cmp(&x.similarity).then_with(|| {
                x.doc
                    .path
                    .as_os_str()
                    .as_bytes()
                    .cmp(y.doc.path.as_os_str().as_bytes())
            })
        });
        if let Some(top) = args.top {
            found.truncate(usize::try_from(top).unwrap_or(usize::MAX));
        }
        matches_total += found.len() as u64;
        for m in found {
            csv.write_record([
                query.as_os_str().as_bytes(),
                m.doc.path.as_os_str().as_bytes(),
                format!("{:.6}", m.similarity).as_bytes(),
                format!("{:.6}", m.estimate).as_bytes(),
                set.len().to_string().as_bytes(),
                m.doc.shingle_count.to_string().as_bytes(),
                m.shared
                    .map(|s| s.to_string())
                    .unwrap_or_default()
                    .as_bytes(),
            ])?;
        }
    }
    csv.flush()?;
    drop(csv);
    sink.commit()?;
    if !args.quiet {
        eprintln!(
            "simfind: {} queries in {:.3} s: {} candidates, {} matches with similarity ≥ {:.3} \
             ({} verification)",
            args.files.len(),
            started.elapsed().as_secs_f64(),
            candidates_total,
            matches_total,
            threshold,
            match args.verify {
                VerifyArg::Exact => "exact",
                VerifyArg::Signature => "signature",
            }
        );
    }
    Ok(if errors > 0 { exit::PARTIAL } else { exit::OK })
}

fn read_query(path: &Path) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        return Ok(bytes);
    }
    let contents = read::read_file(path, &ReadOptions::default()).map_err(|e| e.to_string())?;
    Ok(contents.to_vec())
}

/// Re-creates an indexed document's shingle set, refusing one whose content is
/// no longer what was indexed.
fn reload(doc: &StoredDoc, signer: &Signer) -> Result<Vec<u64>, String> {
    let contents =
        read::read_file(&doc.path, &ReadOptions::default()).map_err(|e| e.to_string())?;
    if xxh3_128(&contents) != doc.content_hash {
        return Err(
            "changed since it was indexed; run `simfind index` to refresh the index".into(),
        );
    }
    Ok(signer.shingle_set(&contents))
}
