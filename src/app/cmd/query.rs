//! `simfind query`: the many-one question — which indexed documents are similar
//! to this one? The arguments, reading the query documents and printing the
//! rows; the lookup itself is [`simfind::index::query`].

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use simfind::index::{Answer, ContainmentAnswer, Query, QueryOptions};
use simfind::index::{Index, ItemKind, OpenOptions};
use simfind::input::InputKind;
use simfind::input::ReadOptions;
use simfind::input::bounded;
use simfind::input::records;
use simfind::lsh::tune::{self, DEFAULT_MIN_RECALL};
use simfind::pipeline::Verification;
use simfind::progress::Reporter;
use simfind::source;

use crate::app::args::{self, VerifyArg};
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::output::pairs::PAIRS_HEADER;
use crate::app::output::summary::{self, SummaryArgs};
use crate::app::output::{self, Sink};
use crate::app::ui::{Ui, Verbosity, plural, warning_prefix};
use crate::app::{config, speak};

mod points;
mod stream;

const EXAMPLES: &str = "EXAMPLES:
  simfind query new.txt --db share.simfind                 similar indexed documents
  simfind query a.txt b.txt --db share.simfind --top 3     the 3 most similar to each
  simfind query new.txt --db share.simfind --exact -t 0.3  every document ≥ 0.3, none missed
  simfind query part.txt --db share.simfind --metric containment   documents holding it, or held
  curl -s https://example.org/page | simfind query - --db web.simfind --threshold 0.8
  find in -type f | simfind query --db share.simfind --add-if-new -   add each file unless seen
  simfind query --db people.simfind --input jsonl new.jsonl --top 3   records, by id
  new-rows | simfind query --db people.simfind --input jsonl --add-if-new -   records as JSON Lines
  simfind query --db emb.simfind --input vectors q.csv -t 0.95 --top 5   vectors by cosine
  simfind query --db fp.simfind --input bits q.csv --radius 3            within 3 bits

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

With --add-if-new, one row per item, written once it is decided (and, for
`new`, committed): item (the path as read), status (`new`: added; `seen`:
not added; `skipped`: not read, the reason on stderr), nearest (the most
similar indexed document, for `seen`), similarity (its, 6 decimals), matches
(how many indexed documents reach T). With --input jsonl the items are records,
one JSON object a line, `item` their id; a line that is no record is named on
stderr with its line number and answered `skipped`. See docs/SEARCH.md, section
Streaming dedup.

With --input jsonl|csv|tsv|sets the index must hold records (or sets), made by
`index --input KIND`: each record of FILE is a query, `a` its id, `b` the ids
of the indexed records. With --input vectors the index must hold vectors: the
columns are a, b, metric (`cosine`), similarity; -t is the cosine (0.9 unless
given), --exact or --top compare every stored vector. With --input bits the
index must hold bit strings: the columns are a, b, metric (`hamming`),
distance; --radius R (0 unless given) is the largest distance in bits, --top K
the K nearest (within R if given). An item of another kind than the index's
is refused before any work, naming both.

The query is shingled and signed with the parameters stored in the index. By
default its candidates are the indexed documents sharing an LSH bucket with it,
which may miss documents near T (a warning says how likely when -t is below
the index's S-curve). --top N compares the query's signature with every stored
one instead and verifies exactly in order of the estimate until the rest are
ruled out at the N-th similarity: a document more similar than the N-th is
missed with probability at most 0.001. --exact verifies every indexed document
whose shingle count can reach T: nothing ≥ T is missed, and with --top N it is
the true N most similar. An index built with --exact-prefix T0
(T ≥ T0) narrows that to the documents whose prefix shares a shingle with the
query's (MMDS 3.9.4-3.9.5), with the same rows. Exact verification re-reads each
candidate file and refuses one whose content no longer matches the index (run
`simfind index` to refresh it).

";

/// Find the indexed documents similar to each given document, as CSV.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_QUERY))]
#[command(
    mut_args(defs::one("threshold", defs::threshold(defs::Threshold::Query))),
    mut_args(defs::one("verify", defs::verify(defs::Verify::Query))),
    mut_args(defs::one("wait", defs::wait(defs::Wait::Query))),
    mut_args(defs::one("output", defs::output(defs::Output::Query))),
    mut_args(defs::one("db", defs::db(defs::Db::Query))),
    mut_args(defs::one("radius", defs::query_radius))
)]
pub struct Args {
    /// Documents to look up; `-` reads one from standard input. With --input
    /// jsonl|csv|tsv|sets: files of records (`-`: standard input), each record a query.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    // --db: defs::db.
    #[arg(long)]
    pub db: PathBuf,

    // -t, --verify, --wait, -o: their functions in flags::defs.
    #[arg(long)]
    pub threshold: Option<f64>,

    /// Report at most N documents per query: the N most similar with similarity ≥ T
    /// among all indexed documents, each verified exactly; one more similar than the
    /// N-th is missed with probability ≤ 0.001 (none with --exact).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub top: Option<u64>,

    /// jaccard (default), or containment: which indexed documents contain each
    /// query document (C(q, d) ≥ T, `contained` a) and which it contains (C(d, q) ≥ T,
    /// `contained` b), verified exactly by re-reading every indexed document whose
    /// size and signature can reach T (one that does is missed with probability
    /// ≤ 0.001); with
    /// --top N the N that hold the most of it. Columns as `scan --metric containment`
    /// (docs/SEARCH.md); T is 0.9 unless given.
    #[arg(long, value_enum, value_name = "METRIC")]
    pub metric: Option<QueryMetric>,

    // --radius: defs::query_radius.
    #[arg(long, value_parser = clap::value_parser!(u32))]
    pub radius: Option<u32>,

    /// Miss nothing: verify every indexed document whose shingle count can reach T
    /// (not only those sharing an LSH bucket), re-reading them. Slower: it reads
    /// up to every indexed file of a size near the query's.
    #[arg(long)]
    pub exact: bool,

    /// Streaming dedup: read items from standard input (FILE is `-`), one a
    /// line (paths; with --input: JSON records, `id<TAB>tokens` sets,
    /// `id,x1,…` vectors or `id,0101…` bit strings), and for each answer at
    /// once `new` (nothing indexed is similar: it is added) or `seen` (with
    /// its nearest indexed match), the lookup and the add atomic under the
    /// index's write lock. An answer is written only once what it says is
    /// committed.
    #[arg(long)]
    pub add_if_new: bool,

    /// With --add-if-new: the paths on standard input end with NUL, not a
    /// newline (`find -print0`, `fd -0`).
    #[arg(short = '0', long, requires = "add_if_new")]
    pub null: bool,

    #[arg(long, value_enum, default_value_t = VerifyArg::Exact)]
    pub verify: VerifyArg,

    #[arg(long, default_value_t = 30.0)]
    pub wait: f64,

    #[arg(long)]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub verbosity: Verbosity,

    #[command(flatten)]
    pub threads: args::ThreadArgs,

    #[command(flatten)]
    pub summary_json: SummaryArgs,

    #[command(flatten)]
    pub transform: args::TransformArgs,

    #[command(flatten)]
    pub input: args::IndexInputArgs,
}

/// What `query` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryMetric {
    Jaccard,
    Containment,
}

/// The threshold of `query --metric containment` unless -t is given: the
/// index's S-curve threshold is Jaccard's and says nothing of containment.
const CONTAINMENT_THRESHOLD: f64 = 0.9;

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
    let exact = args.exact;
    if (exact || args.top.is_some()) && args.verify == VerifyArg::Signature {
        bail!(
            "--verify signature cannot be combined with {}: an exact lookup verifies \
             exactly; drop --verify signature",
            if args.exact {
                "--exact"
            } else {
                "--top (which ranks exactly)"
            }
        );
    }
    let transform = args.transform.parse()?;
    let options = OpenOptions {
        busy_timeout: args::wait_duration(args.wait)?,
    };
    if args.add_if_new {
        stream::refuse_unless_streaming(&args)?;
    }
    let kind = args.input.input;
    if args.radius.is_some() && kind != InputKind::Bits {
        bail!(
            "--radius is the Hamming distance of --input bits: it does not apply to --input {kind}"
        );
    }
    if kind == InputKind::Vectors {
        return points::vectors(&args, options, Instant::now());
    }
    if kind == InputKind::Bits {
        return points::bits(&args, options, Instant::now());
    }
    let records = if kind == InputKind::Files {
        None
    } else {
        if args.metric == Some(QueryMetric::Containment) {
            bail!("--metric containment looks up files: it does not apply to --input {kind}");
        }
        if args.add_if_new && !matches!(kind, InputKind::Jsonl | InputKind::Sets) {
            bail!(
                "--add-if-new reads records one a line: give them as JSON Lines (--input jsonl) \
                 or sets as id<TAB>tokens (--input sets), not --input {kind}"
            );
        }
        if args.add_if_new && args.input.pairs {
            bail!(
                "--add-if-new reads one whole set a line (id<TAB>tokens): --pairs does not apply"
            );
        }
        Some(config::index_items(
            &args.input.as_scan(),
            None,
            false,
            &args.files,
        )?)
    };
    let given = records.as_ref().map_or(ItemKind::Files, |(item, _)| *item);
    let started = Instant::now();
    let mut index = Index::open_existing(&args.db, options)?;
    // Before any item is read: an index answers only items of its kind.
    index.require_kind(given)?;
    if args.add_if_new {
        // A writer: an index of an older format gets its new tables now.
        index.upgrade()?;
    }
    let index = index;
    let mut lookup = Query::with_transform(&index, transform.as_ref()).map_err(|reason| {
        // A command stored in the index is not a reason to rebuild it.
        if let simfind::params::ParamsError::Extraction(
            why @ simfind::params::ExtractionError::TransformNotGiven { .. },
        ) = &reason
        {
            let why = crate::app::speak::settings(&why.to_string());
            return anyhow::anyhow!("index {}: {why}", args.db.display());
        }
        anyhow::anyhow!(
            "index {} has parameters this simfind cannot use ({}); delete it and rebuild \
             it with `simfind index DIR... --db {}`",
            args.db.display(),
            crate::app::speak::settings(&reason.to_string()),
            args.db.display()
        )
    })?;
    let options = QueryOptions {
        threshold: args.threshold.unwrap_or_else(|| lookup.default_threshold()),
        top: args
            .top
            .map(|top| usize::try_from(top).unwrap_or(usize::MAX)),
        verification: match args.verify {
            VerifyArg::Exact => Verification::Exact,
            VerifyArg::Signature => Verification::Signature,
        },
        exact,
    };
    if args.add_if_new {
        let items = records.as_ref().map(|(kind, options)| (*kind, options));
        return stream::run(
            &args,
            &index,
            stream::Lookup::MinHash(Box::new(lookup)),
            &options,
            items,
            started,
        );
    }
    if args.metric == Some(QueryMetric::Containment) {
        if args.verify == VerifyArg::Signature {
            bail!("--metric containment verifies exactly: --verify signature does not apply");
        }
        let t = args.threshold.unwrap_or(CONTAINMENT_THRESHOLD);
        return containment(&args, &mut lookup, t, options.top, started);
    }
    let threshold = options.threshold;
    let prefix_index = exact && lookup.uses_prefix_index(threshold)?;
    let summary_json = summary::open(&args.summary_json, args.output.as_deref())?;
    let banding = lookup.recipe().banding;
    if !exact
        && args.top.is_none()
        && args.threshold.is_some()
        && let Some(recall) =
            tune::recall_below_floor(banding.bands, banding.rows, threshold, DEFAULT_MIN_RECALL)
    {
        eprintln!(
            "{} the index's {} bands × {} rows find a document at similarity \
             {threshold} with probability only {recall:.3}; --exact finds every one",
            warning_prefix(),
            banding.bands,
            banding.rows
        );
    }
    let mut sink = Sink::create_whole(args.output.as_deref())?;
    output::install_interrupt_handler();

    // Warnings only: query draws no progress bars.
    let ui = Ui::with(Verbosity {
        quiet: true,
        ..args.verbosity
    });
    let mut errors = 0u64;
    let mut matches_total = 0u64;
    let mut candidates_total = 0u64;
    let mut queries = 0u64;
    let items: Box<dyn Iterator<Item = QueryItem> + '_> = match &records {
        None => {
            let read = lookup.read_options().clone();
            Box::new(args.files.iter().map(move |query| {
                let name = query.as_os_str().as_bytes().to_vec();
                (name, read_query(query, &read))
            }))
        }
        Some((item, options)) => {
            let read = records::read_inputs(&args.files, options, &mut |err| {
                ui.warn(Path::new(&err.place()), &speak::row_reason(err))
            })
            .map_err(speak::row_failure)?;
            errors += read.skipped;
            let item = *item;
            Box::new(read.records.into_iter().map(move |r| {
                let text = item.text_of(&r.fields).into_bytes();
                (
                    r.id.into_bytes(),
                    Ok((source::Document::from_bytes(text), None)),
                )
            }))
        }
    };
    let mut csv = csv::WriterBuilder::new().from_writer(&mut sink);
    csv.write_record(PAIRS_HEADER)?;
    for (name, read) in items {
        queries += 1;
        let query = Path::new(std::ffi::OsStr::from_bytes(&name));
        let (bytes, identity) = match read {
            Ok(read) => read,
            Err(reason) => {
                ui.warn(query, &reason);
                errors += 1;
                continue;
            }
        };
        let (shingles, matches) = match lookup.ask_file(bytes, identity, &options, &ui)? {
            Answer::Binary => {
                eprintln!(
                    "simfind: note: {} looks binary and the index skips binary files; no matches \
                     (index with --binary to include them)",
                    query.display()
                );
                continue;
            }
            Answer::NoShingles => {
                eprintln!(
                    "simfind: note: {} is shorter than one shingle; it is never similar to anything",
                    query.display()
                );
                continue;
            }
            Answer::Matches {
                shingles,
                candidates,
                matches,
                unverified,
            } => {
                candidates_total += candidates as u64;
                errors += unverified;
                (shingles, matches)
            }
        };
        matches_total += matches.len() as u64;
        for m in matches {
            csv.write_record([
                query.as_os_str().as_bytes(),
                m.doc.path.as_os_str().as_bytes(),
                format!("{:.6}", m.similarity).as_bytes(),
                format!("{:.6}", m.estimate).as_bytes(),
                shingles.to_string().as_bytes(),
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
    let seconds = started.elapsed().as_secs_f64();
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: {} in {:.3} s: {}, {} with similarity ≥ {:.3} \
             ({})",
            plural(queries, "query", "queries"),
            seconds,
            plural(candidates_total, "candidate", "candidates"),
            plural(matches_total, "match", "matches"),
            threshold,
            match (exact, args.verify) {
                (true, _) if prefix_index => "exact lookup through the prefix index",
                (true, _) => "exact lookup: every document of a size that can reach it",
                (false, VerifyArg::Exact) if args.top.is_some() =>
                    "top: every signature compared, verified exactly in estimate order",
                (false, VerifyArg::Exact) => "exact verification",
                (false, VerifyArg::Signature) => "signature verification",
            }
        );
    }
    let status = if errors > 0 { exit::PARTIAL } else { exit::OK };
    if let Some(out) = summary_json {
        let fields = serde_json::json!({
            "queries": queries,
            "candidates": candidates_total,
            "matches": matches_total,
            "errors": errors,
            "threshold": threshold,
            "verification": match args.verify {
                VerifyArg::Exact => "exact",
                VerifyArg::Signature => "signature",
            },
            "seconds": summary::seconds(seconds, &Vec::new()),
        });
        let serde_json::Value::Object(fields) = fields else {
            unreachable!("json! of an object literal")
        };
        out.write(&summary::document("query", status, fields))?;
    }
    Ok(status)
}

/// `query --metric containment`: each query's containing and contained
/// documents, as `scan --metric containment` writes pairs (a the query).
fn containment(
    args: &Args,
    lookup: &mut Query<'_>,
    t: f64,
    top: Option<usize>,
    started: Instant,
) -> Result<i32> {
    let summary_json = summary::open(&args.summary_json, args.output.as_deref())?;
    let mut sink = Sink::create_whole(args.output.as_deref())?;
    output::install_interrupt_handler();
    let ui = Ui::with(Verbosity {
        quiet: true,
        ..args.verbosity
    });
    let format = crate::app::report::FormatArg::Pairs;
    let (mut errors, mut matches_total, mut verified_total) = (0u64, 0u64, 0u64);
    let mut pairs = Vec::new();
    let mut ids: Vec<Vec<u8>> = Vec::new();
    for query in &args.files {
        let (document, identity) = match read_query(query, lookup.read_options()) {
            Ok(read) => read,
            Err(reason) => {
                ui.warn(query, &reason);
                errors += 1;
                continue;
            }
        };
        match lookup.ask_containment(document, identity, t, top, &ui)? {
            ContainmentAnswer::Binary => eprintln!(
                "simfind: note: {} looks binary and the index skips binary files; no matches \
                 (index with --binary to include them)",
                query.display()
            ),
            ContainmentAnswer::NoShingles => eprintln!(
                "simfind: note: {} is shorter than one shingle: the empty set, inside no \
                 document and holding none",
                query.display()
            ),
            ContainmentAnswer::Matches {
                verified,
                matches,
                unverified,
                ..
            } => {
                verified_total += verified as u64;
                errors += unverified;
                matches_total += matches.len() as u64;
                // Ids of this query's rows: the query, then its matches.
                let base = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                ids.push(query.as_os_str().as_bytes().to_vec());
                for (doc, mut pair) in matches {
                    ids.push(doc.path.as_os_str().as_bytes().to_vec());
                    pair.a = base;
                    pair.b = base.saturating_add(pair.b);
                    pairs.push(pair);
                }
            }
        }
    }
    crate::app::output::containment::write(&mut sink, format, t, &pairs, &ids)?;
    sink.commit()?;
    let seconds = started.elapsed().as_secs_f64();
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: {} in {seconds:.3} s: {} verified, {} with containment ≥ {t:.3} in \
             either direction (re-read: the documents whose size and signature can reach it)",
            plural(args.files.len() as u64, "query", "queries"),
            plural(verified_total, "document", "documents"),
            plural(matches_total, "match", "matches"),
        );
    }
    let status = if errors > 0 { exit::PARTIAL } else { exit::OK };
    if let Some(out) = summary_json {
        let fields = serde_json::json!({
            "queries": args.files.len(),
            "candidates": verified_total,
            "matches": matches_total,
            "errors": errors,
            "threshold": t,
            "metric": "containment",
            "verification": "exact",
            "seconds": summary::seconds(seconds, &Vec::new()),
        });
        let serde_json::Value::Object(fields) = fields else {
            unreachable!("json! of an object literal")
        };
        out.write(&summary::document("query", status, fields))?;
    }
    Ok(status)
}

/// A query document's bytes and, for a file, its device and inode (so that
/// the lookup need not read it again when it is indexed itself).
type QueryDocument = (source::Document, Option<(u64, u64)>);

/// One query: its name in the output (a path, or a record's id) and its
/// document, or why it could not be read.
type QueryItem = (Vec<u8>, Result<QueryDocument, String>);

fn read_query(path: &Path, read: &ReadOptions) -> Result<QueryDocument, String> {
    if path.as_os_str() == "-" {
        // Bounded: an endless stdin (`< /dev/zero`) stops at the cap.
        let cap = bounded::caps::STDIN_DOCUMENT;
        let bytes = bounded::read_all(std::io::stdin().lock(), cap)
            .map_err(|e| format!("standard input: {e}"))?;
        let document = source::Document::from_bytes(bytes).extracted(&read.extract);
        return Ok((document, None));
    }
    let contents = source::open_named(path, read).map_err(|e| e.to_string())?;
    let identity = contents.identity();
    Ok((contents, identity))
}
