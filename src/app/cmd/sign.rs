//! `simfind sign`: the per-document half of a scan, written as Parquet for a
//! band join run elsewhere (Spark, DuckDB): `docs`, `signatures` and `bands`
//! of one shard (`simfind::exchange`; the contract is in docs/SCALE-OUT.md).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use simfind::exchange::{self, DocRecord, KeyKind, RecordOrigin, Shard, ShardWriter};
use simfind::index::Params;
use simfind::input::InputKind;
use simfind::input::records;
use simfind::pipeline::Method;
use simfind::pipeline::{self, ScanStats, SignOutcome};
use simfind::progress::Reporter;

use crate::app::args::{self, FileArgs, SigningArgs};
use crate::app::config;
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::speak;
use crate::app::ui::{Ui, Verbosity, plural, warning_prefix};

const EXAMPLES: &str = "EXAMPLES:
  simfind sign ./share --out sig/                       one shard: sig/{docs,signatures,bands}/
  seq 0 7 | xargs -P 8 -I{} simfind sign ./share --out sig/ --shard {}/8 -j 1
  simfind sign /nfs/share --out /nfs/sig --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT
  python spark/simfind_lsh.py sig/ engine/ && simfind verify --pairs engine/pairs --docs sig/
  simfind sign --input jsonl a.jsonl b.jsonl --out sig/ --shard 0/2    records, by id
  simfind sign --input csv people.csv --per-field --weights 3,3,1 --out sig/
  simfind sign --input vectors emb.csv -t 0.9 --out sig/ --shard 1/4    cosine, hyperplanes
  simfind sign --input bits hashes.csv --radius 3 --out sig/             hamming, bit sampling

OUTPUT (one Parquet file per table and shard, sig/TABLE/shard-IIIII-of-NNNNN.parquet):
  docs         doc_id int64 (shard << 40 | local index), path binary (exact bytes),
               size int64, mtime timestamp[us, UTC], content_hash binary (16 bytes),
               shingles int64 (distinct shingles; 0: shorter than one shingle)
  signatures   doc_id, signature list<int32> (bands × rows MinHash values)
  bands        doc_id, band int16, key int64: the LSH bucket keys, one row per band
The recipe (shingles, normalisation, k, bands, rows, seed, sketch) is in every file's
key-value metadata; verify and group refuse shards of different recipes. Each file is
written under a temporary name starting with '.' and renamed when complete.
Records (--input jsonl|csv|tsv|sets) are signed as scan --input signs them: whole,
or with --per-field each field on its own (signature: the fields' b×r values in
field order; bands: field f's band j as band f×b+j, candidate fields only);
docs.path is the record id, and docs adds source, input, line and offset, where
verify reads each record again. Vectors and bit strings (--input vectors|bits)
are signed by scan's family for the query given (-t/--angle: hyperplanes, values
0/1; --metric euclidean --radius: p-stable bucket numbers; bits --radius: sampled
bits), keyed by id like records; the family and query are in the metadata
(simfind.family.*). --link, '-' (stdin) and --sketch simhash are refused.

";

/// Sign files into Parquet for a band join run by Spark or DuckDB.
///
/// Files are walked and signed exactly as `simfind scan --method lsh` does
/// with the same options; the signatures and band keys are written as Parquet
/// (docs, signatures, bands) instead of banded here. `--shard I/N` signs the
/// files whose root-relative path hashes to I, so N machines sign one share.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_SIGN))]
// The record input options are scan's; sign refuses this one (it keeps every word).
#[command(mut_arg("important_words", |arg| arg.hide(true)))]
// The model scores a scan's candidates: refused here, and not offered.
#[command(mut_arg("model", |arg| arg.hide(true)))]
#[command(mut_arg("save_model", |arg| arg.hide(true)))]
#[command(mut_args(defs::one("threshold", defs::threshold(defs::Threshold::Sign))))]
pub struct Args {
    /// Directories to sign (a file is signed as itself); optional with --files-from.
    /// With --input jsonl|csv|tsv|sets: files of records (each record signed whole, or
    /// with --per-field field by field); with --input vectors|bits: files of points.
    #[arg(
        required_unless_present_any = ["files_from", "files0_from"],
        value_name = "DIR"
    )]
    pub roots: Vec<PathBuf>,

    /// The output directory (created if missing): DIR/docs, DIR/signatures and
    /// DIR/bands get this shard's file each.
    #[arg(long, value_name = "DIR", required = true, help_heading = "Output")]
    pub out: PathBuf,

    /// Sign only shard I of N (0 ≤ I < N): the files whose path relative to
    /// their root hashes to I. Every machine given the same roots and N signs
    /// a disjoint part; together they sign every file once.
    #[arg(long, value_name = "I/N", help_heading = "Output")]
    pub shard: Option<Shard>,

    #[command(flatten)]
    pub signing: SigningArgs,

    #[command(flatten)]
    pub files: FileArgs,

    #[command(flatten)]
    pub input: args::InputArgs,

    #[command(flatten)]
    pub families: args::FamilyArgs,

    // -t: defs::threshold.
    #[arg(long, help_heading = "Families")]
    pub threshold: Option<f64>,

    #[command(flatten)]
    pub verbosity: Verbosity,

    #[command(flatten)]
    pub threads: args::ThreadArgs,
}

pub fn run(args: Args) -> Result<i32> {
    if args.input.input.is_vectors() {
        return run_points(args);
    }
    let f = &args.families;
    if f.metric.is_some()
        || f.sketch.is_some()
        || f.angle.is_some()
        || f.radius.is_some()
        || f.bucket_width.is_some()
        || args.threshold.is_some()
    {
        bail!(
            "--metric, --sketch, --angle, --radius, --bucket-width and -t apply to sign \
             --input vectors|bits (files and records are signed by MinHash)"
        );
    }
    if args.input.important_words.is_some() {
        bail!("--important-words applies to scan: sign keeps every word");
    }
    if args.input.model != args::ModelArg::Jaccard || args.input.save_model.is_some() {
        bail!(
            "--model and --save-model apply to scan: sign writes signatures, and the \
             Fellegi–Sunter model is trained on a scan's candidates"
        );
    }
    if args.input.input != InputKind::Files {
        return run_records(args);
    }
    let config = config::index(&args.roots, &args.signing, &args.files, None)?;
    let out = resolved(&args.out);
    for root in &config.roots {
        if let Ok(root) = root.canonicalize()
            && root.is_dir()
            && out.starts_with(&root)
        {
            bail!(
                "--out {} lies inside the root {}: a later shard would sign this \
                 output too; write it elsewhere",
                args.out.display(),
                root.display()
            );
        }
    }
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let params = Params::of(&config.recipe).with_extraction(config.read.extract.recipe_name());
    let started = Instant::now();
    let ui = Ui::with(args.verbosity);
    let mut stats = ScanStats::default();
    let files: Vec<_> = pipeline::walk_files(&config, &ui, &mut stats)
        .into_iter()
        .filter(|f| shard.holds(exchange::relative_key(&config.roots, &f.path)))
        .collect();
    let (outcomes, matrix) = pipeline::sign_files(&files, &config, Method::Lsh, &ui);
    let n = config.recipe.banding.signature_len();
    // The signed row (and count) of each content: its copies carry the same.
    let signed = SignOutcome::signed_rows(&outcomes);
    let mut writer = ShardWriter::create(&args.out, shard, &params, KeyKind::Path)?;
    let (mut binary, mut errors) = (0u64, stats.errors);
    for (file, outcome) in files.iter().zip(&outcomes) {
        let (hash, row, shingles) = match outcome {
            SignOutcome::Unique(c) => (c.hash, signed[&c.hash].0, c.shingles),
            SignOutcome::SameAs(hash) => match signed.get(hash) {
                Some(&(row, shingles)) => (*hash, row, shingles),
                None => {
                    ui.warn(&file.path, &"its content could not be signed in any copy");
                    errors += 1;
                    continue;
                }
            },
            SignOutcome::Binary => {
                ui.note(
                    &file.path,
                    &"looks binary (a NUL byte in the first 8 KiB); --binary reads it",
                );
                binary += 1;
                continue;
            }
            SignOutcome::NotExtracted(why) => {
                ui.note(
                    &file.path,
                    &simfind::progress::Notice::NotExtracted(why.reason()),
                );
                binary += 1;
                continue;
            }
            SignOutcome::Failed(err) => {
                ui.warn(&file.path, err);
                errors += 1;
                continue;
            }
        };
        use std::os::unix::ffi::OsStrExt;
        writer.add(DocRecord {
            key: file.path.as_os_str().as_bytes(),
            size: file.size,
            modified: file.modified,
            hash,
            shingles: u64::from(shingles),
            signature: (shingles > 0).then(|| &matrix[row * n..(row + 1) * n]),
        })?;
    }
    let written = writer.len();
    writer.finish()?;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: shard {shard}: {} of {} signed into {} in {:.2} s ({} documents{}{})",
            plural(files.len() as u64, "file", "files"),
            plural(stats.files, "file", "files"),
            args.out.display(),
            started.elapsed().as_secs_f64(),
            written,
            if binary > 0 {
                format!(", {binary} binary skipped")
            } else {
                String::new()
            },
            if errors > 0 {
                format!(", {}", plural(errors, "error", "errors"))
            } else {
                String::new()
            },
        );
    }
    Ok(if errors > 0 { exit::PARTIAL } else { exit::OK })
}

/// The default shingle size of `--input csv|tsv`: scan's (its RECORD_CHAR_K),
/// so that signed records are the sets a scan of them makes.
const RECORD_CHAR_K: usize = 2;

/// `sign --input jsonl|csv|tsv|sets`: every record signed whole (its fields
/// joined, as `scan --input KIND` without --per-field), keyed by its id, with
/// its file, line and byte offset in `docs` so that `verify --pairs` can read
/// it again. `--shard I/N` keeps the records whose id hashes to I.
fn run_records(args: Args) -> Result<i32> {
    let kind = args.input.input;
    if !kind.is_records() {
        bail!(
            "sign does not take --input {kind}: its documents are files or records \
             (jsonl, csv, tsv, sets); scan --input {kind} finds their pairs on one box"
        );
    }
    let files_from = args.files.files_from.is_some() || args.files.files0_from.is_some();
    for (given, why) in [
        (
            args.input.link,
            "--link: sign writes the records of every input as one collection; run \
             scan --input KIND --link on one box",
        ),
        (
            files_from,
            "--files-from: the inputs are the files of records given",
        ),
        (
            !args.input.block.is_empty(),
            "--block: blocking keys make candidates, and sign finds none (scan --block does)",
        ),
    ] {
        if given {
            bail!("sign --input {kind} does not take {why}");
        }
    }
    if args.roots.iter().any(|p| p.as_os_str() == "-") {
        bail!(
            "sign --input {kind} does not read stdin ('-'): verify --pairs reads each \
             record again from its file; give files"
        );
    }
    crate::app::lower::shingling(kind, &args.signing.shingles)?;
    let (options, record) = config::records(&args.input, &args.roots)?;
    let mut signing = args.signing.clone();
    if matches!(kind, InputKind::Csv | InputKind::Tsv)
        && signing.shingles.k.is_none()
        && matches!(
            signing.shingles.shingle,
            None | Some(args::ShingleArg::Char)
        )
    {
        signing.shingles.k = Some(RECORD_CHAR_K);
    }
    let config = config::index(&[], &signing, &args.files, None)?;
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let params = Params::of(&config.recipe);
    let started = Instant::now();
    let ui = Ui::with(args.verbosity);
    let all = records::read_inputs(&args.roots, &options, &mut |err| {
        ui.warn(std::path::Path::new(&err.place()), &speak::row_reason(err))
    })
    .map_err(speak::row_failure)?;
    // Checked as scan --per-field checks them, before anything is written.
    config::check_record_fields(&record, &all.fields)?;
    let per_field = record.per_field.then(|| exchange::PerField {
        names: all.fields.clone(),
        weights: record.weights.clone(),
        candidate_fields: record.candidate_fields.clone(),
    });
    let read = all.records.len();
    let skipped = all.skipped;
    let mine: Vec<records::Record> = all
        .records
        .into_iter()
        .filter(|r| shard.holds(r.id.as_bytes()))
        .collect();
    let mut metadata = exchange::record_metadata(&options);
    let mut writer = match &per_field {
        None => ShardWriter::create_with(&args.out, shard, &params, KeyKind::Record, &metadata)?,
        Some(per_field) => {
            metadata.extend(exchange::per_field_metadata(per_field));
            let fields = per_field.names.len();
            ShardWriter::create_fields(
                &args.out,
                shard,
                &params,
                KeyKind::Record,
                &metadata,
                fields,
            )?
        }
    };
    use std::os::unix::ffi::OsStrExt;
    let origin = |record: &records::Record| RecordOrigin {
        source: args.roots[record.origin.input as usize]
            .as_os_str()
            .as_bytes(),
        input: record.origin.input,
        line: record.origin.line,
        offset: record.origin.offset,
    };
    if let Some(per_field) = &per_field {
        let signed = exchange::sign_records_per_field(&mine, &config.recipe, per_field);
        for (record, signed) in mine.iter().zip(&signed) {
            let doc = DocRecord {
                key: record.id.as_bytes(),
                size: record.len(),
                modified: None,
                hash: signed.hash,
                shingles: signed.shingles,
                signature: (signed.shingles > 0).then_some(&signed.signature[..]),
            };
            writer.add_record_fields(doc, origin(record), &signed.banded)?;
        }
    }
    let signed = match per_field {
        Some(_) => Vec::new(),
        None => exchange::sign_records(&mine, &config.recipe, kind),
    };
    for (record, signed) in mine.iter().zip(&signed) {
        writer.add_record(
            DocRecord {
                key: record.id.as_bytes(),
                size: record.len(),
                modified: None,
                hash: signed.hash,
                shingles: signed.shingles,
                signature: (signed.shingles > 0).then_some(&signed.signature[..]),
            },
            origin(record),
        )?;
    }
    let written = writer.len();
    writer.finish()?;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: shard {shard}: {} of {} ({kind}) signed into {} in {:.2} s{}",
            plural(written, "record", "records"),
            read,
            args.out.display(),
            started.elapsed().as_secs_f64(),
            if skipped > 0 {
                format!(", {} skipped", plural(skipped, "bad row", "bad rows"))
            } else {
                String::new()
            },
        );
    }
    Ok(if skipped > 0 { exit::PARTIAL } else { exit::OK })
}

/// `sign --input vectors|bits`: every point signed as `scan --input
/// vectors|bits` signs it (the same family, query, banding and seed), keyed
/// by its id, with its file, line and the line's offset in `docs`; the
/// family and its query in every file's metadata. `--shard I/N` keeps the
/// points whose id hashes to I; every shard reads every input whole.
fn run_points(args: Args) -> Result<i32> {
    use simfind::input::vectors::{self, Points, ReadError, RowError};

    let kind = args.input.input;
    let files_from = args.files.files_from.is_some() || args.files.files0_from.is_some();
    for (given, flag) in [
        (args.input.per_field, "--per-field"),
        (
            args.input.link,
            "--link (run scan --input KIND --link on one box)",
        ),
        (files_from, "--files-from (give the files of points)"),
    ] {
        if given {
            bail!("sign --input {kind} does not take {flag}");
        }
    }
    if args.roots.iter().any(|p| p.as_os_str() == "-") {
        bail!(
            "sign --input {kind} does not read stdin ('-'): verify --pairs reads each point \
             again from its file; give files"
        );
    }
    let (family, spec) =
        crate::app::families::exchange_family(kind, &args.families, args.threshold, &args.signing)?;
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let seed = args.signing.seed.unwrap_or(args::DEFAULT_SEED);
    let started = Instant::now();
    let ui = Ui::with(args.verbosity);
    let skip = args.input.skip_bad_rows;
    let mut skipped = 0u64;
    let mut offsets = Vec::with_capacity(args.roots.len());
    // Each input read (bad rows named by file and line), then joined: ids
    // unique over all of them, as scan requires.
    let mut read_one = |path: &std::path::Path| -> Result<std::fs::File> {
        let open = || {
            std::fs::File::open(path).map_err(|e| anyhow!("cannot read {}: {e}", path.display()))
        };
        offsets.push(
            exchange::line_offsets(open()?)
                .map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?,
        );
        open()
    };
    let bad = |path: &std::path::Path, e: ReadError| match e {
        ReadError::Empty => anyhow!("{}: no rows", path.display()),
        ReadError::Row(row) => anyhow!(
            "{}: {} (--skip-bad-rows leaves such rows out)",
            path.display(),
            speak::vector_row(&row)
        ),
        ReadError::Io(io) => anyhow!("cannot read {}: {io}", path.display()),
    };
    let mut warn = |path: &std::path::Path, e: RowError| {
        skipped += 1;
        ui.warn(path, &format!("{}: row left out", speak::vector_row(&e)));
    };
    let concat_error = |e: vectors::ConcatError| match e {
        vectors::ConcatError::Width {
            input,
            width,
            expected,
        } => anyhow!(
            "{}: rows of width {width} where {} has {expected} (all inputs need one length)",
            args.roots[input].display(),
            args.roots[0].display()
        ),
        vectors::ConcatError::Duplicate {
            id,
            first_input,
            first_line,
            input,
            line,
        } => anyhow!(
            "{}: line {line}: id {id:?} is also in {} line {first_line} (ids are unique \
             across inputs)",
            args.roots[input].display(),
            args.roots[first_input].display()
        ),
    };
    let mut dropped = 0u64;
    let mut on_dup = |e: vectors::ConcatError| {
        dropped += 1;
        eprintln!("{} {}: row left out", warning_prefix(), concat_error(e));
    };
    // (ids, lines, width, content hashes, signature rows) of every point.
    let (ids, lines, starts, width, hashes, rows, banding) = if kind == InputKind::Bits {
        let inputs = read_each(
            &args.roots,
            &mut read_one,
            &mut warn,
            &bad,
            skip,
            |f, s, w| vectors::read_bits(f, s, w),
        )?;
        let (all, starts) =
            vectors::concat(inputs, true, skip, &mut on_dup).map_err(concat_error)?;
        let banding = crate::app::families::exchange_banding(&spec, all.bits)?;
        let rows = exchange::sign_bits(&all, banding, seed);
        let w = all.words_per_string();
        let hashes: Vec<u128> = (0..all.len())
            .map(|i| exchange::bits_hash(all.bits, &all.words[i * w..][..w]))
            .collect();
        (
            all.ids().to_vec(),
            all.lines().to_vec(),
            starts,
            all.bits,
            hashes,
            rows,
            banding,
        )
    } else {
        let inputs = read_each(
            &args.roots,
            &mut read_one,
            &mut warn,
            &bad,
            skip,
            |f, s, w| vectors::read_vectors(f, s, w),
        )?;
        let (all, starts) =
            vectors::concat(inputs, true, skip, &mut on_dup).map_err(concat_error)?;
        let banding = crate::app::families::exchange_banding(&spec, all.dim)?;
        let rows = exchange::sign_vectors(&all, family, banding, seed);
        let hashes: Vec<u128> = (0..all.len())
            .map(|i| exchange::vector_hash(all.row(i)))
            .collect();
        (
            all.ids().to_vec(),
            all.lines().to_vec(),
            starts,
            all.dim,
            hashes,
            rows,
            banding,
        )
    };
    skipped += dropped;
    let params = exchange::vector_params(family, banding, seed);
    let metadata = exchange::family_metadata(family, width);
    let mut writer =
        ShardWriter::create_with(&args.out, shard, &params, KeyKind::Point, &metadata)?;
    let n = banding.signature_len();
    use std::os::unix::ffi::OsStrExt;
    for (i, id) in ids.iter().enumerate() {
        if !shard.holds(id.as_bytes()) {
            continue;
        }
        let input = starts.partition_point(|&s| s as usize <= i) - 1;
        let line = lines[i];
        let at = &offsets[input];
        let offset = at.get(line as usize - 1).copied().unwrap_or(0);
        let end = at.get(line as usize).copied().unwrap_or(offset);
        writer.add_record(
            DocRecord {
                key: id.as_bytes(),
                size: end - offset,
                modified: None,
                hash: hashes[i],
                shingles: width as u64,
                signature: Some(&rows[i * n..(i + 1) * n]),
            },
            RecordOrigin {
                source: args.roots[input].as_os_str().as_bytes(),
                input: input as u32,
                line,
                offset,
            },
        )?;
    }
    let written = writer.len();
    writer.finish()?;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: shard {shard}: {} of {} ({}, {} bands × {} rows) signed into {} in {:.2} s{}",
            plural(written, "point", "points"),
            ids.len(),
            family.measure().name(),
            banding.bands,
            banding.rows,
            args.out.display(),
            started.elapsed().as_secs_f64(),
            if skipped > 0 {
                format!(", {} skipped", plural(skipped, "bad row", "bad rows"))
            } else {
                String::new()
            },
        );
    }
    Ok(if skipped > 0 { exit::PARTIAL } else { exit::OK })
}

/// `path` with its longest existing ancestor resolved (links followed), the
/// rest appended: where a directory not created yet will be.
fn resolved(path: &std::path::Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut rest = Vec::new();
    let mut at = absolute.as_path();
    loop {
        if let Ok(real) = at.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                at = parent;
            }
            _ => return absolute,
        }
    }
}

/// A reader of one input of points: file, skip bad rows, where to warn.
type Read<T> = fn(
    std::fs::File,
    bool,
    &mut dyn FnMut(simfind::input::vectors::RowError),
) -> Result<T, simfind::input::vectors::ReadError>;

/// Each of `roots` opened by `read_one` and read by `read` (vectors or bit
/// strings): a bad row goes to `warn`, a bad input becomes `bad`'s error.
fn read_each<T>(
    roots: &[std::path::PathBuf],
    read_one: &mut dyn FnMut(&std::path::Path) -> Result<std::fs::File>,
    warn: &mut dyn FnMut(&std::path::Path, simfind::input::vectors::RowError),
    bad: &dyn Fn(&std::path::Path, simfind::input::vectors::ReadError) -> anyhow::Error,
    skip: bool,
    read: Read<T>,
) -> Result<Vec<T>> {
    let mut inputs = Vec::with_capacity(roots.len());
    for path in roots {
        let input = read_one(path)?;
        inputs.push(read(input, skip, &mut |e| warn(path, e)).map_err(|e| bad(path, e))?);
    }
    Ok(inputs)
}
