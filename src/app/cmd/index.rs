//! `simfind index`: build or update the persistent index of signatures, so that
//! nightly rescans read only what changed and `query` can look documents up.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use simfind::index::incremental;
use simfind::index::{IndexError, ItemKind};
use simfind::index::{NewDoc, add_and_remove};
use simfind::input::InputKind;
use simfind::input::records;
use simfind::progress::Reporter;

use crate::app::args::{self, FileArgs, SigningArgs};
use crate::app::config;
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::output::summary::{self, SummaryArgs, SummaryJson};
use crate::app::speak;
use crate::app::ui::{Ui, Verbosity};

const EXAMPLES: &str = "EXAMPLES:
  simfind index ./share --db share.simfind             build, or update after changes
  simfind scan ./share --db share.simfind              pairs, reading only changed files
  simfind query new.txt --db share.simfind             is new.txt like anything indexed?
  simfind index ./src --db src.simfind --shingle word -k 3 --bands 25 --rows 4
  simfind index --db share.simfind --add ./share/new.txt   one file, no walk
  fetch-page | simfind index --db web.simfind --add - --name pages/today.html
  simfind index --db share.simfind --remove ./share/old.txt
  simfind index ./share --db share.simfind --exact-prefix 0.5   for exact queries ≥ 0.5
  simfind index --db people.simfind --input jsonl people.jsonl  records, each whole, by id
  simfind index --db tags.simfind --input sets tags.tsv          sets of whole tokens
  simfind index --db emb.simfind --input vectors emb.csv         vectors, by cosine
  simfind index --db fp.simfind --input bits prints.csv          bit strings, by Hamming

An update that would forget more than --max-delete of the index's documents
(half by default), or that finds a DIR empty while the index holds documents
under it (an unmounted share), is refused with exit 2 and changes nothing.
Documents are stored under their paths as walked; a DIR spelled otherwise than
when it was indexed (relative or absolute, through a symlink, with ./ or ..)
is the same directory: its stored paths take the new spelling, nothing is read
again.

An update keeps the stored signature of every file whose size, modification
time, device and inode are unchanged (without reading it), signs new and changed
files and forgets vanished ones, in one transaction: a run killed at any moment
leaves the previous index intact. A second update of the same index waits for
the first (up to --wait seconds) and then gives up with an error.

The shingle and LSH options of a new index are the ones given (or the
defaults); an existing index keeps its own, so they need not be given again
(`scan --db` and `query` use them too). An option given that differs from the
index's is refused with a message naming both values. To change them, delete the
index file and build it again. The schema is in docs/INDEX.md.

With --input jsonl|csv|tsv|sets the inputs are files of records (or sets), not
directories: each record is stored whole under its id (its fields joined by a
space, as `scan --input KIND` compares them), with its text, so that `query
--input KIND` verifies against it exactly. A record whose id is indexed
replaces it; `--remove ID` forgets one. With --input vectors each vector is
signed by random hyperplanes (--bands × --rows of them, 20 × 5 by default) and
stored with its values; with --input bits each bit string by as many sampled
bits, stored with its words. An index holds one kind of item:
records given to an index of files (or the reverse) are refused, naming both.

--exact-prefix T adds the prefix index of MMDS 3.9.4 (each document's first
shingles in one global order), which `query --exact` probes at any -t ≥ T
instead of reading every document of a size that can reach -t.

";

/// Build or update an index of document signatures (a single SQLite file).
///
/// Files are walked and signed exactly as `simfind scan` does with the same
/// options; the index then serves `scan --db` and `query`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_INDEX),
    // The signing group's texts speak of --threshold, which index does not take.
    mut_args(defs::one("bands", defs::bands(defs::Shape::Index))),
    mut_args(defs::one("rows", defs::rows(defs::Shape::Index))),
    mut_args(defs::one("seed", defs::seed(defs::Seed::Index))),
    mut_args(defs::one("wait", defs::wait(defs::Wait::Index))),
    mut_args(defs::one("db", defs::db(defs::Db::Index))),
)]
pub struct Args {
    /// Directories to index; with --input jsonl|csv|tsv|sets, files of records
    /// (`-` is standard input).
    #[arg(required_unless_present_any = ["add", "remove", "export"], value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// Instead of walking directories: add these files (or replace them if indexed),
    /// stored under their paths as given; `-` reads one document from standard input
    /// (with --name). A later `index DIR` forgets documents outside its DIRs.
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with = "roots", help_heading = "Single documents")]
    pub add: Vec<PathBuf>,

    /// The name to store the document of `--add -` under (a path, so that exact
    /// verification can re-read it there).
    #[arg(
        long,
        value_name = "NAME",
        requires = "add",
        help_heading = "Single documents"
    )]
    pub name: Option<PathBuf>,

    /// Instead of walking directories: forget these indexed paths.
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with = "roots", help_heading = "Single documents")]
    pub remove: Vec<PathBuf>,

    /// Instead of updating: write the index's documents, signatures and band
    /// keys as the Parquet files `simfind sign --out DIR` writes (one shard,
    /// 0/1), for a band join in Spark or DuckDB (docs/SCALE-OUT.md).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["roots", "add", "remove"], help_heading = "Export")]
    pub export: Option<PathBuf>,

    // --db: defs::db.
    #[arg(long)]
    pub db: PathBuf,

    /// Also keep a prefix index (MMDS 3.9.4) so that `query --exact -t T'` with
    /// T' ≥ T reads only the documents whose prefixes share a shingle with the
    /// query's. Given with another T than the index's (or to an index without
    /// one), this update re-reads every file; later updates keep it in step.
    #[arg(long, value_name = "T", value_parser = args::unit_open_closed,
          conflicts_with_all = ["add", "remove", "export"])]
    pub exact_prefix: Option<f64>,

    /// Refuse (exit 2, nothing changed) an update that would forget more than
    /// this share (`50%`) or count (`100`) of the index's documents, or that finds
    /// a DIR empty while the index holds documents under it: what an unmounted
    /// share or a narrower DIR looks like.
    /// `100%` lets every update through.
    #[arg(long, value_name = "LIMIT", default_value = "50%", value_parser = args::max_delete,
          conflicts_with_all = ["add", "remove", "export"])]
    pub max_delete: simfind::index::MaxDelete,

    // --wait: defs::wait.
    #[arg(long, default_value_t = 30.0)]
    pub wait: f64,

    #[command(flatten)]
    pub signing: SigningArgs,

    #[command(flatten)]
    pub files: FileArgs,

    #[command(flatten)]
    pub input: args::IndexInputArgs,

    #[command(flatten)]
    pub verbosity: Verbosity,

    #[command(flatten)]
    pub threads: args::ThreadArgs,

    #[command(flatten)]
    pub summary_json: SummaryArgs,
}

pub fn run(args: Args) -> Result<i32> {
    if args.input.input != InputKind::Files {
        return records(args);
    }
    if let Some(out) = &args.export {
        return export(&args, out);
    }
    if !args.add.is_empty() || !args.remove.is_empty() {
        return add_or_remove_named(args);
    }
    let adopted = config::existing_recipe(&args.db, args.wait)?;
    let config = config::index(&args.roots, &args.signing, &args.files, adopted.as_ref())?;
    // Index writes no data: `-` is stdout.
    let summary_json = SummaryJson::open(&args.summary_json, false)?;
    // No interrupt handler: SIGINT/SIGTERM end the process like a crash would, and
    // the uncommitted update is rolled back on the next open.
    let mut index = config::open_index(&args.db, &config, args.wait)?;
    let started = Instant::now();
    if let Some(t) = args.exact_prefix {
        index
            .request_prefix(t)
            .with_context(|| format!("cannot update the index {}", args.db.display()))?;
    }
    let ui = Ui::with(args.verbosity);
    let refreshed =
        incremental::refresh_guarded(&mut index, &config, &ui, false, Some(args.max_delete))
            .map_err(|err| match err {
                IndexError::Refused { .. } => anyhow::anyhow!(
                    "{err}; if those files are really gone, run again with --max-delete 100%"
                ),
                err => anyhow::Error::new(err)
                    .context(format!("cannot update the index {}", args.db.display())),
            })?;
    let size = std::fs::metadata(&args.db).map(|m| m.len()).unwrap_or(0);
    let docs = index.len()?;
    if !args.verbosity.quiet {
        // Only the files read in this run: an unchanged one was named when
        // it was read.
        let not_compared = crate::app::output::summary::not_compared(&refreshed.stats);
        let not_compared = if not_compared.is_empty() {
            String::new()
        } else {
            format!("; not compared: {}", not_compared.join(", "))
        };
        eprintln!(
            "simfind: {}{not_compared} in {:.2} s; index {}: {} documents, {:.1} MB ({} bytes per document)",
            incremental::describe(&refreshed),
            started.elapsed().as_secs_f64(),
            args.db.display(),
            docs,
            size as f64 / 1e6,
            size.checked_div(docs).unwrap_or(0),
        );
    }
    let status = if refreshed.stats.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    if let Some(out) = summary_json {
        let fields = serde_json::json!({
            "files": refreshed.files.len(),
            "unchanged": refreshed.unchanged,
            "signed": refreshed.signed,
            "added": refreshed.update.added,
            "changed": refreshed.update.changed,
            "removed": refreshed.update.removed,
            "skipped": summary::skipped(&refreshed.stats),
            "errors": refreshed.stats.errors,
            "documents": docs,
            "index_bytes": size,
            "seconds": summary::seconds(started.elapsed().as_secs_f64(), &ui.stage_seconds()),
        });
        let serde_json::Value::Object(fields) = fields else {
            unreachable!("json! of an object literal")
        };
        out.write(&summary::document("index", status, fields))?;
    }
    Ok(status)
}

/// `--add` / `--remove`: single documents in one transaction, no walk.
fn add_or_remove_named(args: Args) -> Result<i32> {
    let stdin = args.add.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin > 1 {
        bail!("`--add -` (standard input) can be given only once");
    }
    let name = match (stdin, &args.name) {
        (1, Some(name)) => Some(name.clone()),
        (1, None) => bail!("`--add -` needs --name NAME: the path to store the document under"),
        (_, Some(_)) => bail!("--name names the document of `--add -`; give `--add -` too"),
        (_, None) => None,
    };
    let adopted = config::existing_recipe(&args.db, args.wait)?;
    let config = config::index(&[], &args.signing, &args.files, adopted.as_ref())?;
    let mut index = config::open_index(&args.db, &config, args.wait)?;
    let started = Instant::now();
    let ui = Ui::with(args.verbosity);
    let mut docs = Vec::with_capacity(args.add.len());
    for path in &args.add {
        if path.as_os_str() == "-" {
            // Bounded: an endless stdin (`< /dev/zero`) stops at the cap.
            let cap = simfind::input::bounded::caps::STDIN_DOCUMENT;
            let bytes = simfind::input::bounded::read_all(std::io::stdin().lock(), cap)
                .context("cannot read standard input")?;
            let name = name.as_deref().expect("checked above");
            docs.push(NewDoc::Bytes { name, bytes });
        } else {
            docs.push(NewDoc::File(path));
        }
    }
    let done = add_and_remove(
        &mut index,
        &config.recipe,
        &config.read,
        docs,
        &args.remove,
        &ui,
    )
    .with_context(|| format!("cannot update the index {}", args.db.display()))?;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: index {}: {} added, {} changed, {} removed in {:.2} s; {} documents",
            args.db.display(),
            done.update.added,
            done.update.changed,
            done.update.removed,
            started.elapsed().as_secs_f64(),
            index.len()?,
        );
    }
    Ok(if done.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    })
}

/// `--input jsonl|csv|tsv|sets`: every record of the inputs stored whole
/// under its id, with its text (what exact verification reads), in one
/// transaction; a record whose id is indexed is replaced, and `--remove ID`
/// forgets records.
fn records(args: Args) -> Result<i32> {
    let kind = args.input.input;
    for (given, flag) in [
        (!args.add.is_empty(), "--add"),
        (args.export.is_some(), "--export"),
        (args.exact_prefix.is_some(), "--exact-prefix"),
    ] {
        if given {
            bail!("{flag} does not apply to --input {kind}: give the files of records");
        }
    }
    if kind == InputKind::Vectors {
        return vectors(args);
    }
    if kind == InputKind::Bits {
        return bits(args);
    }
    let files_from = args.files.files_from.is_some() || args.files.files0_from.is_some();
    let summary_json = SummaryJson::open(&args.summary_json, false)?;
    let (item, options) = config::index_items(
        &args.input.as_scan(),
        Some(&args.signing.shingles),
        files_from,
        &args.roots,
    )?;
    let adopted = config::existing_recipe_of(&args.db, item, args.wait)?;
    let signing = config::record_signing(kind, &args.signing, adopted.is_some());
    let mut config = config::index(&[], &signing, &args.files, adopted.as_ref())?;
    // A record's text is decoded by the records reader: nothing to extract
    // (the index stores `none`, and lookups read its texts as they are).
    config.read.extract = simfind::input::Extract::NONE;
    // Refused here, before a record is read, when the index holds another kind.
    let mut index = config::open_index_of(&args.db, &config, item, args.wait)?;
    let started = Instant::now();
    let ui = Ui::with(args.verbosity);
    let read = records::read_inputs(&args.roots, &options, &mut |err| {
        ui.warn(std::path::Path::new(&err.place()), &speak::row_reason(err))
    })
    .map_err(speak::row_failure)?;
    let records_read = read.records.len();
    // Each record's text once: moved into its document, not copied.
    let (ids, texts): (Vec<PathBuf>, Vec<Vec<u8>>) = read
        .records
        .into_iter()
        .map(|r| (PathBuf::from(r.id), item.text_of(&r.fields).into_bytes()))
        .unzip();
    let docs = ids
        .iter()
        .zip(texts)
        .map(|(id, bytes)| NewDoc::Text { id, bytes })
        .collect();
    let done = add_and_remove(
        &mut index,
        &config.recipe,
        &config.read,
        docs,
        &args.remove,
        &ui,
    )
    .with_context(|| format!("cannot update the index {}", args.db.display()))?;
    let docs = index.len()?;
    let items = Items {
        what: item.to_string(),
        read: records_read as u64,
        update: &done.update,
        errors: read.skipped + done.errors,
        docs,
    };
    items.finish(&args, started, summary_json)
}

/// `--input vectors`: every vector of the inputs signed by random
/// hyperplanes and stored with its values under its id (an id indexed is
/// replaced), in one transaction; `--remove ID` forgets vectors. A new
/// index takes the vectors' dimension, --bands and --rows (or 20 × 5) and
/// --seed; an existing one keeps its own.
fn vectors(args: Args) -> Result<i32> {
    use simfind::index::points;
    use simfind::input::vectors::{self as read, Vectors};

    let shingles = &args.signing.shingles;
    if shingles.shingle.is_some() || shingles.k.is_some() || args.signing.sketch.minhash.is_some() {
        bail!(
            "--input vectors signs by random hyperplanes: --shingle, -k and --minhash do not apply"
        );
    }
    let summary_json = SummaryJson::open(&args.summary_json, false)?;
    let started = Instant::now();
    let mut skipped = 0u64;
    let mut all: Vec<Vectors> = Vec::new();
    for path in &args.roots {
        all.push(crate::app::families::read_points(
            path,
            records::DEFAULT_MAX_LINE,
            args.input.skip_bad_rows,
            &mut skipped,
            read::read_vectors_capped,
        )?);
    }
    if let Some(other) = all.iter().find(|v| v.dim != all[0].dim) {
        bail!(
            "the inputs' vectors have {} and {} dimensions: an index holds one dimension",
            all[0].dim,
            other.dim
        );
    }
    let dim = all.first().map_or(0, |v| v.dim);
    let mut index =
        config::points_index(&args.db, (ItemKind::Vectors, dim), &args.signing, args.wait)?;
    let items = all
        .iter()
        .flat_map(|v| (0..v.len()).map(move |i| (v.ids[i].as_str(), v.row(i))));
    let mut done = points::add_vectors(&mut index, items)
        .with_context(|| format!("cannot update the index {}", args.db.display()))?;
    let errors = remove_ids(&mut index, &args, &mut done)?;
    let docs = index.len()?;
    let items = Items {
        what: "vectors".to_string(),
        read: all.iter().map(|v| v.len() as u64).sum(),
        update: &done,
        errors: skipped + errors,
        docs,
    };
    items.finish(&args, started, summary_json)
}

/// `--input bits`: every bit string of the inputs signed by bit sampling
/// and stored with its words under its id (an id indexed is replaced), in
/// one transaction; `--remove ID` forgets strings. A new index takes the
/// strings' length, --bands and --rows (or 20 × 5) and --seed; an existing
/// one keeps its own.
fn bits(args: Args) -> Result<i32> {
    use simfind::index::bits;
    use simfind::input::vectors::{self as read, BitStrings};

    let shingles = &args.signing.shingles;
    if shingles.shingle.is_some() || shingles.k.is_some() || args.signing.sketch.minhash.is_some() {
        bail!("--input bits signs by bit sampling: --shingle, -k and --minhash do not apply");
    }
    let summary_json = SummaryJson::open(&args.summary_json, false)?;
    let started = Instant::now();
    let mut skipped = 0u64;
    let mut all: Vec<BitStrings> = Vec::new();
    for path in &args.roots {
        all.push(crate::app::families::read_points(
            path,
            records::DEFAULT_MAX_LINE,
            args.input.skip_bad_rows,
            &mut skipped,
            read::read_bits_capped,
        )?);
    }
    if let Some(other) = all.iter().find(|b| b.bits != all[0].bits) {
        bail!(
            "the inputs' bit strings have {} and {} bits: an index holds one length",
            all[0].bits,
            other.bits
        );
    }
    let length = all.first().map_or(0, |b| b.bits);
    let mut index =
        config::points_index(&args.db, (ItemKind::Bits, length), &args.signing, args.wait)?;
    let items = all
        .iter()
        .flat_map(|b| (0..b.len()).map(move |i| (b.ids[i].as_str(), b.row(i))));
    let mut done = bits::add_bits(&mut index, items)
        .with_context(|| format!("cannot update the index {}", args.db.display()))?;
    let errors = remove_ids(&mut index, &args, &mut done)?;
    let docs = index.len()?;
    let items = Items {
        what: "bit strings".to_string(),
        read: all.iter().map(|b| b.len() as u64).sum(),
        update: &done,
        errors: skipped + errors,
        docs,
    };
    items.finish(&args, started, summary_json)
}

/// `--remove ID…` of an index of points, in a transaction of its own after
/// the points' (`done` counts the removals): how many ids were not indexed,
/// each warned about.
fn remove_ids(
    index: &mut simfind::index::Index,
    args: &Args,
    done: &mut simfind::index::UpdateSummary,
) -> Result<u64> {
    let mut errors = 0u64;
    if !args.remove.is_empty() {
        let ui = Ui::with(args.verbosity);
        let mut update = index.begin_update()?;
        for id in &args.remove {
            if update.is_indexed(id)? {
                update.remove(id)?;
            } else {
                ui.warn(id, &"not in the index");
                errors += 1;
            }
        }
        done.removed += update.commit()?.removed;
    }
    Ok(errors)
}

/// An update of an index by items read in full (records, vectors), as it
/// ends: its stderr line, exit status and `--summary-json` document, with
/// the files scan's fields. An item counts as a file read and signed: none
/// is kept unread, since items have no stored stat.
struct Items<'a> {
    /// What the items are called (`records`, `sets`, `vectors`).
    what: String,
    read: u64,
    update: &'a simfind::index::UpdateSummary,
    /// Items skipped as bad, and ids to remove that were not indexed.
    errors: u64,
    /// Documents in the index after the update.
    docs: u64,
}

impl Items<'_> {
    fn finish(
        &self,
        args: &Args,
        started: Instant,
        summary_json: Option<SummaryJson>,
    ) -> Result<i32> {
        let Items {
            what,
            read,
            update,
            errors,
            docs,
        } = self;
        if !args.verbosity.quiet {
            eprintln!(
                "simfind: index {} ({what}): {} added, {} replaced, {} removed in {:.2} s; {docs} {what}",
                args.db.display(),
                update.added,
                update.changed,
                update.removed,
                started.elapsed().as_secs_f64(),
            );
        }
        let status = if *errors > 0 { exit::PARTIAL } else { exit::OK };
        if let Some(out) = summary_json {
            let stats = simfind::pipeline::ScanStats {
                errors: *errors,
                ..Default::default()
            };
            let fields = serde_json::json!({
                "files": read,
                "unchanged": 0,
                "signed": read,
                "added": update.added,
                "changed": update.changed,
                "removed": update.removed,
                "skipped": summary::skipped(&stats),
                "errors": errors,
                "documents": docs,
                "index_bytes": std::fs::metadata(&args.db).map(|m| m.len()).unwrap_or(0),
                "seconds": summary::seconds(started.elapsed().as_secs_f64(), &Vec::new()),
            });
            let serde_json::Value::Object(fields) = fields else {
                unreachable!("json! of an object literal")
            };
            out.write(&summary::document("index", status, fields))?;
        }
        Ok(status)
    }
}

/// `--export DIR`: the stored documents as one shard of exchange files, in
/// path byte order (the order `sign` numbers a walk in), binary files left
/// out as `sign` leaves them out.
fn export(args: &Args, out: &std::path::Path) -> Result<i32> {
    use std::os::unix::ffi::OsStrExt;
    use std::time::{Duration, UNIX_EPOCH};

    use simfind::exchange::{DocRecord, KeyKind, Shard, ShardWriter};
    use simfind::index::{Index, OpenOptions};

    let options = OpenOptions {
        busy_timeout: args::wait_duration(args.wait)?,
    };
    let index = Index::open_existing(&args.db, options)?;
    // Exported documents are files signed by MinHash, keyed by path.
    index.require_kind(simfind::index::ItemKind::Files)?;
    let started = Instant::now();
    let docs = index.documents()?;
    let mut writer = ShardWriter::create(out, Shard::WHOLE, index.params(), KeyKind::Path)?;
    for doc in docs.iter().filter(|d| !d.binary) {
        let ns = doc.stat.mtime_ns;
        let modified = if ns >= 0 {
            UNIX_EPOCH + Duration::from_nanos(ns as u64)
        } else {
            UNIX_EPOCH - Duration::from_nanos(ns.unsigned_abs())
        };
        writer.add(DocRecord {
            key: doc.path.as_os_str().as_bytes(),
            size: doc.stat.size,
            modified: Some(modified),
            hash: doc.content_hash,
            shingles: doc.shingle_count,
            signature: (doc.shingle_count > 0).then_some(&doc.signature[..]),
        })?;
    }
    let written = writer.len();
    writer.finish()?;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: index {}: {written} documents exported to {} in {:.2} s",
            args.db.display(),
            out.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(exit::OK)
}
