//! From parsed arguments to validated library configuration, before any work
//! starts (ripgrep's "high args", fd's `construct_config`).
//!
//! Role: each function takes the shared groups of [`crate::app::args`] it needs,
//! never a whole subcommand's `Args`, so `scan`, `index` and `compare` build their
//! [`ScanConfig`] or [`Recipe`] from the same code and agree on what the same
//! flags mean. Impossible combinations are refused here with a message that says
//! what to do instead.
//!
//! Inputs: arg groups (and, for a stop-word list and the roots, the file system).
//! Outputs: [`ScanConfig`], [`Recipe`], an open [`Index`].
//!
//! Invariants: a returned configuration is valid for the library (k ≥ 1, bands and
//! rows ≥ 1, bands × rows ≤ [`MAX_SIGNATURE_LEN`], threshold in (0, 1]); checks run
//! in a fixed order, so the first error a user sees does not depend on the command.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use simfind::exchange::Exchange;
use simfind::index::{Index, IndexError, ItemKind, OpenOptions, Params};
use simfind::input::Excludes;
use simfind::input::InputKind;
use simfind::input::ReadOptions;
use simfind::input::WalkOptions;
use simfind::input::records::RecordOptions;
use simfind::lsh::scurve;
use simfind::pipeline::{Method, MethodChoice};
use simfind::pipeline::{RecordConfig, ScanConfig, Verification};
use simfind::recipe::Recipe;
use simfind::sketch::SketchKind;

use crate::app::args::{
    self, ExchangeArgs, FileArgs, MatchArgs, ShingleArgs, SigningArgs, SketchArgs,
};
use crate::app::lower::{self, BandingWords};
use crate::app::speak;

/// Where scan's threshold came from, for its summary.
pub use simfind::spec::ThresholdSource;

/// `scan`'s configuration; `with_db` when the signatures come from an index
/// (`--db`), which only the LSH method can use, and `adopted` the recipe of
/// that index when it exists already: every signing option the command line
/// leaves out is the index's ([`existing_recipe`]).
pub fn scan(
    roots: &[PathBuf],
    signing: &SigningArgs,
    matching: &MatchArgs,
    files: &FileArgs,
    with_db: bool,
    adopted: Option<&Recipe>,
) -> Result<(ScanConfig, ThresholdSource)> {
    check_roots(roots)?;
    let (builder, stop_words) = lower::signing(signing, files.binary, adopted);
    let spec = lower::matching(builder, matching, with_db)
        .build()
        .map_err(|e| lower::error(e, stop_words, BandingWords::Scan))?;
    scan_of(spec, roots, matching, files)
}

/// [`scan`] by another measure than Jaccard (`--metric containment`), over
/// inputs of `kind`: the library's rules for the measure apply first.
pub fn scan_measured(
    roots: &[PathBuf],
    signing: &SigningArgs,
    matching: &MatchArgs,
    files: &FileArgs,
    with_db: bool,
    (measure, kind): (simfind::measure::Measure, simfind::input::InputKind),
) -> Result<(ScanConfig, ThresholdSource)> {
    let (builder, stop_words) = lower::signing(signing, files.binary, None);
    let builder = builder.measure(Some(measure)).input(kind);
    let spec = lower::matching(builder, matching, with_db)
        .build()
        .map_err(|e| lower::error(e, stop_words, BandingWords::Scan))?;
    check_roots(roots)?;
    scan_of(spec, roots, matching, files)
}

/// The configuration of a built scan `spec`.
fn scan_of(
    spec: simfind::spec::Spec,
    roots: &[PathBuf],
    matching: &MatchArgs,
    files: &FileArgs,
) -> Result<(ScanConfig, ThresholdSource)> {
    let (mut walk, read) = source(files)?;
    if matching.isolate {
        let sources = roots.len() + usize::from(!walk.listed.is_empty());
        if sources < 2 {
            bail!(
                "--isolate pairs files of different roots only: give two or more DIRs (a --files-from list counts as one)"
            );
        }
        if simfind::input::roots_overlap(roots) {
            bail!(
                "--isolate needs roots that do not contain one another: a file under both would have no one root"
            );
        }
        walk.isolate = true;
    }
    let config = ScanConfig::from_spec(
        &spec,
        roots.to_vec(),
        walk,
        read,
        usize::try_from(matching.verify_memory).unwrap_or(usize::MAX),
    );
    let threshold_source = spec.threshold_source;
    Ok((config, threshold_source))
}

/// `index`'s configuration: files walked and signed exactly as `scan --db` with
/// the same flags walks and signs them. An index stores signatures for the LSH
/// method and reports no pairs, so the matching half is LSH's with the S-curve
/// threshold, and unbounded. `adopted`: the recipe of the existing index, whose
/// options stand for the ones the command line leaves out.
pub fn index(
    roots: &[PathBuf],
    signing: &SigningArgs,
    files: &FileArgs,
    adopted: Option<&Recipe>,
) -> Result<ScanConfig> {
    check_roots(roots)?;
    let (builder, stop_words) = lower::signing(signing, files.binary, adopted);
    // An index stores signatures for LSH: the S-curve's threshold, exact
    // verification, no memory bound.
    let spec = builder
        .method(simfind::spec::Method::Lsh)
        .stored(true)
        .build()
        .map_err(|e| lower::error(e, stop_words, BandingWords::Scan))?;
    let (walk, read) = source(files)?;
    Ok(ScanConfig::from_spec(
        &spec,
        roots.to_vec(),
        walk,
        read,
        usize::MAX,
    ))
}

/// What [`exchange`] gives: the configuration, the signed documents, and the
/// engine's pairs as indices into them.
pub type Exchanged = (ScanConfig, Exchange, Vec<(u32, u32)>);

/// `verify --pairs` and `group --pairs`: the signed documents and the
/// engine's pairs, read and checked before any work (every inconsistency is
/// an error naming the file), and the configuration that verifies them with
/// the shards' recipe. `threshold` is the one given (or the removal default).
pub fn exchange(
    args: &ExchangeArgs,
    threshold: Option<f64>,
    split: Option<(&Path, simfind::exchange::Shard)>,
) -> Result<Exchanged> {
    if let Some(t) = threshold
        && !(t > 0.0 && t <= 1.0)
    {
        bail!("--threshold must be in (0, 1], got {t}");
    }
    // One part of a verification split by component: only the documents (and
    // pairs) of the components that hash to this part are read.
    let components = match split {
        Some((path, _)) => Some(simfind::exchange::read_components(path)?),
        None => None,
    };
    let part_of = |id: i64, hash: u128| {
        let (components, (_, shard)) = (components.as_ref()?, split?);
        let part =
            simfind::exchange::component_part(components.get(&id).copied(), hash, shard.count);
        Some(part == shard.index)
    };
    let keep_doc = |doc_id: i64, hash: u128| part_of(doc_id, hash) != Some(false);
    let exchange = simfind::exchange::read_docs_where(&args.docs, split.map(|_| &keep_doc as _))?;
    use simfind::exchange::KeyKind;
    if !matches!(
        exchange.kind(),
        Some(KeyKind::Path | KeyKind::Record | KeyKind::Point)
    ) {
        bail!(
            "{}: its documents are keyed by {:?}, neither files (path), records nor \
             points (vector)",
            args.docs.display(),
            exchange.key_kind
        );
    }
    // Points are measured, not shingled: their shards' recipe is the banding.
    let recipe = if exchange.kind() == Some(KeyKind::Point) {
        Ok(simfind::exchange::vector_recipe(&exchange.params))
    } else {
        exchange.params.recipe()
    };
    let recipe = recipe.map_err(|reason| {
        anyhow::anyhow!(
            "{}: a recipe this simfind cannot use ({reason})",
            args.docs.display()
        )
    })?;
    // A pair whose documents are in no component, or in two: not the
    // components the engine wrote with these pairs.
    let stray: std::cell::Cell<Option<(i64, i64)>> = std::cell::Cell::new(None);
    let keep_pair = |a: i64, b: i64| match (&components, split) {
        (Some(components), Some((_, shard))) => match (components.get(&a), components.get(&b)) {
            (Some(&ca), Some(&cb)) if ca == cb => {
                simfind::exchange::component_part(Some(ca), 0, shard.count) == shard.index
            }
            _ => {
                stray.set(Some((a, b)));
                false
            }
        },
        _ => true,
    };
    let pairs = simfind::exchange::read_pairs_where(
        &args.pairs,
        &exchange,
        split.map(|_| &keep_pair as _),
    )?;
    if let (Some((a, b)), Some((path, _))) = (stray.get(), split) {
        bail!(
            "{}: the pair ({a}, {b}) of {} is not within one component there: give the \
             components the engine wrote with these pairs",
            path.display(),
            args.pairs.display()
        );
    }
    // The documents are read again as the signing run read them.
    let extract = simfind::source::Extract::from_recipe_name(
        &exchange.params.extraction,
        args.transform.parse()?.as_ref(),
    )
    .map_err(|reason| {
        let reason = crate::app::speak::settings(&reason.to_string());
        anyhow::anyhow!("{}: {reason}", args.docs.display())
    })?;
    let banding = recipe.banding;
    let config = ScanConfig {
        roots: Vec::new(),
        walk: WalkOptions::default(),
        read: ReadOptions {
            extract,
            ..ReadOptions::default()
        },
        recipe,
        threshold: threshold.unwrap_or_else(|| scurve::threshold(banding.bands, banding.rows)),
        verification: Verification::Exact,
        verify_memory: usize::try_from(args.verify_memory).unwrap_or(usize::MAX),
        exact_index: None,
        method: MethodChoice::Fixed(Method::Lsh),
    };
    Ok((config, exchange, pairs))
}

/// `compare`'s recipe: the same shingles, normalisation and sketch as `scan` with
/// the same flags, over a signature of `bands × rows` values. `compare` reads the
/// two files it is given whatever they look like, so binary files are included.
pub fn compare(
    shingles: &ShingleArgs,
    sketch: &SketchArgs,
    bands: usize,
    rows: usize,
    seed: u64,
) -> Result<Recipe> {
    let (builder, stop_words) = lower::shingles(shingles);
    let spec = builder
        .bands(Some(bands))
        .rows(Some(rows))
        .seed(Some(seed))
        .sketch(Some(lower::sketch(sketch).unwrap_or(SketchKind::Classic)))
        .include_binary(true)
        .build()
        .map_err(|e| lower::error(e, stop_words, BandingWords::Compare))?;
    Ok(spec.recipe())
}

/// The recipe of the index at `db` if there is one (a missing or empty file is
/// an index not built yet: `None`). `scan --db` and `index` sign with it
/// wherever the command line gives no option of their own, as `query` always
/// does, so that an index built once is used with plain `--db FILE`.
pub fn existing_recipe(db: &Path, wait: f64) -> Result<Option<Recipe>> {
    existing_recipe_of(db, ItemKind::Files, wait)
}

/// [`existing_recipe`] of an index that must hold `kind`: one of another
/// kind is refused first, naming both (its recipe may be no MinHash one).
pub fn existing_recipe_of(db: &Path, kind: ItemKind, wait: f64) -> Result<Option<Recipe>> {
    if !db.is_file() {
        // Missing (created later) or a directory (refused by `open_index`).
        return Ok(None);
    }
    let options = OpenOptions {
        busy_timeout: args::wait_duration(wait)?,
    };
    let index = match Index::open_existing(db, options) {
        Ok(index) => index,
        Err(IndexError::Missing { .. }) => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    index.require_kind(kind)?;
    let recipe = index.params().recipe().map_err(|reason| {
        anyhow::anyhow!(
            "index {} has parameters this simfind cannot use ({reason}); delete it and rebuild \
             it with `simfind index DIR... --db {}`",
            db.display(),
            db.display()
        )
    })?;
    Ok(Some(recipe))
}

/// Opens (or creates) the index at `db` for signatures made with `config`,
/// waiting up to `wait` seconds for another process's update.
pub fn open_index(db: &Path, config: &ScanConfig, wait: f64) -> Result<Index> {
    open_index_of(db, config, ItemKind::Files, wait)
}

/// [`open_index`] for items of `kind`: an index of another kind is
/// refused, naming both, before any work.
pub fn open_index_of(db: &Path, config: &ScanConfig, kind: ItemKind, wait: f64) -> Result<Index> {
    let options = OpenOptions {
        busy_timeout: args::wait_duration(wait)?,
    };
    if db.is_dir() {
        bail!(
            "--db {} is a directory; give the index file's path",
            db.display()
        );
    }
    // SQLite says only "unable to open database file" for this.
    if let Some(dir) = db.parent().filter(|dir| !dir.as_os_str().is_empty())
        && !dir.is_dir()
    {
        bail!(
            "cannot create index {}: {} is not a directory",
            db.display(),
            dir.display()
        );
    }
    let params = Params::of(&config.recipe).with_extraction(config.read.extract.recipe_name());
    Ok(Index::open_or_create_kind(db, &params, kind, options)?)
}

/// The index of vectors (`kind` [`ItemKind::Vectors`], `width` their
/// dimension) or bit strings ([`ItemKind::Bits`], `width` their length in
/// bits) at `db`, opened or made for items of that width (0: none read,
/// which only an existing index takes): a new one takes `--bands` ×
/// `--rows` hyperplanes or sampled bits (20 × 5 unless given) drawn from
/// `--seed`; an existing one keeps its own, and a value given that
/// differs, another kind of index or another width is refused, naming
/// both, before any work.
pub fn points_index(
    db: &Path,
    (kind, width): (ItemKind, usize),
    signing: &SigningArgs,
    wait: f64,
) -> Result<Index> {
    use simfind::index::{bits, points};
    let (what, unit) = match kind {
        ItemKind::Bits => ("bit strings", "bits"),
        _ => ("vectors", "dimensions"),
    };
    let options = OpenOptions {
        busy_timeout: args::wait_duration(wait)?,
    };
    let params = match Index::open_existing(db, options) {
        Ok(index) => {
            // Before anything else: an index of files has no such banding.
            index.require_kind(kind)?;
            let stored = index.params().clone();
            for (given, name, value) in [
                (signing.bands, "--bands", stored.bands),
                (signing.rows, "--rows", stored.rows),
            ] {
                if given.is_some_and(|g| g as u64 != u64::from(value)) {
                    bail!(
                        "index {} has {name} {value}; give that or nothing",
                        db.display()
                    );
                }
            }
            if signing.seed.is_some_and(|s| s != stored.seed) {
                bail!(
                    "index {} has --seed {}; give that or nothing",
                    db.display(),
                    stored.seed
                );
            }
            stored
        }
        Err(IndexError::Missing { .. }) => {
            let banding = simfind::lsh::Banding {
                bands: signing.bands.unwrap_or(20),
                rows: signing.rows.unwrap_or(5),
            };
            if banding.bands == 0 || banding.rows == 0 || width == 0 {
                bail!("a new index of {what} needs {what}, and --bands and --rows of at least 1");
            }
            let seed = signing.seed.unwrap_or(args::DEFAULT_SEED);
            match kind {
                ItemKind::Bits => bits::bit_params(width, banding, seed),
                _ => points::vector_params(width, banding, seed),
            }
        }
        Err(err) => return Err(err.into()),
    };
    let index = Index::open_or_create_kind(db, &params, kind, options)?;
    // Both keep the width as the recipe's k.
    let held = index.params().k as usize;
    if width != 0 && width != held {
        bail!(
            "the {what} have {width} {unit}, the index {} holds {what} of {held}",
            db.display()
        );
    }
    Ok(index)
}

/// The default shingle size of records of a table (`--input csv|tsv`): the
/// records scan's (char 2-shingles: a table's fields are short).
pub const RECORD_CHAR_K: usize = 2;

/// `index` and `query` with `--input jsonl|csv|tsv|sets`: the kind of item
/// the inputs give and how they are read. An index holds each record whole
/// (its fields joined, as `scan --input KIND` compares them) under its id.
pub fn index_items(
    input: &args::InputArgs,
    shingles: Option<&ShingleArgs>,
    files_from: bool,
    inputs: &[PathBuf],
) -> Result<(ItemKind, RecordOptions)> {
    let kind = input.input;
    let Some(item) = ItemKind::of_input(kind).filter(|k| k.is_minhash()) else {
        bail!(
            "--input {kind}: an index of {kind} is not looked up as one of files, records or \
             sets"
        );
    };
    if files_from {
        bail!("--files-from does not apply to --input {kind}: give the files of records");
    }
    if let Some(shingles) = shingles {
        crate::app::lower::shingling(kind, shingles)?;
    }
    let (options, _) = records(input, inputs)?;
    Ok((item, options))
}

/// The signing options of records of `kind` for a new index: a table's
/// char shingles are [`RECORD_CHAR_K`] long unless -k is given, as in the
/// records scan. An existing index (`adopted`) keeps its own.
pub fn record_signing(kind: InputKind, signing: &SigningArgs, adopted: bool) -> SigningArgs {
    let mut signing = signing.clone();
    if !adopted
        && matches!(kind, InputKind::Csv | InputKind::Tsv)
        && signing.shingles.k.is_none()
        && matches!(
            signing.shingles.shingle,
            None | Some(args::ShingleArg::Char)
        )
    {
        signing.shingles.k = Some(RECORD_CHAR_K);
    }
    signing
}

/// Every root exists. A root that is a file is scanned as that one file (as
/// fd and ripgrep do); a FIFO or device is refused (reading it could block).
fn check_roots(roots: &[PathBuf]) -> Result<()> {
    for root in roots {
        let meta =
            std::fs::metadata(root).with_context(|| format!("cannot scan {}", root.display()))?;
        if !meta.is_dir() && !meta.is_file() {
            bail!(
                "cannot scan {}: not a directory or a regular file",
                root.display()
            );
        }
    }
    Ok(())
}

/// The paths of `--files-from`/`--files0-from` (read now, before any work: a
/// list that cannot be read is an argument error).
fn listed(files: &FileArgs) -> Result<Vec<PathBuf>> {
    let (path, separator, flag) = match (&files.files_from, &files.files0_from) {
        (Some(path), _) => (path, b'\n', "--files-from"),
        (None, Some(path)) => (path, b'\0', "--files0-from"),
        (None, None) => return Ok(Vec::new()),
    };
    let cap = simfind::input::bounded::caps::PATH_LIST;
    let bytes = simfind::input::bounded::read_path(path, cap).with_context(|| {
        if path.as_os_str() == "-" {
            format!("cannot read {flag} from stdin")
        } else {
            format!("cannot read {flag} {}", path.display())
        }
    })?;
    Ok(simfind::input::list::parse(&bytes, separator))
}

/// The walk and read options of `files`.
fn source(files: &FileArgs) -> Result<(WalkOptions, ReadOptions)> {
    if let (Some(min), Some(max)) = (files.min_size, files.max_size)
        && min > max
    {
        bail!("--min-size ({min}) is larger than --max-size ({max})");
    }
    let walk = WalkOptions {
        follow_links: files.follow_links,
        hidden: files.hidden,
        include: globs(&files.include, "--include")?,
        exclude: Excludes::new(&files.exclude)
            .map_err(|e| anyhow::anyhow!(speak::exclude_error(&e)))?,
        min_size: files.min_size,
        max_size: files.max_size,
        ignore_files: !files.no_ignore,
        listed: listed(files)?,
        hardlinks_as_copies: files.hardlinks_as_copies,
        isolate: false,
        parallel_stat: false,
    };
    Ok((walk, read_options(files)?))
}

/// The read options, with the hidden chunking knobs applied.
fn read_options(files: &FileArgs) -> Result<ReadOptions> {
    let mut read = ReadOptions::default();
    if let Some(min) = files.chunked_min_size {
        read.chunked_min_size = min;
    }
    if let Some(size) = files.chunk_size {
        if size == 0 {
            bail!("--chunk-size must be at least 1 byte");
        }
        read.chunk_size = usize::try_from(size).unwrap_or(usize::MAX);
    }
    read.io_threads = usize::from(files.io_threads);
    read.extract = match files.transform.parse()? {
        Some(transform) => files.extract.clone().with_transform(transform),
        None => files.extract.clone(),
    };
    Ok(read)
}

fn globs(patterns: &[String], flag: &str) -> Result<Option<GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(false)
            .build()
            .with_context(|| format!("invalid {flag} pattern '{pattern}'"))?;
        set.add(glob);
    }
    Ok(Some(set.build()?))
}

/// `scan --input KIND`: how records are read from `inputs` and matched.
/// Every record flag is checked against the kind it belongs to, before any
/// input is opened.
pub fn records(
    input: &args::InputArgs,
    inputs: &[PathBuf],
) -> Result<(RecordOptions, RecordConfig)> {
    let kind = input.input;
    let fellegi_sunter = input.model == args::ModelArg::FellegiSunter;
    if input.save_model.is_some() && !fellegi_sunter {
        bail!("--save-model writes a trained model: add --model fellegi-sunter");
    }
    let fields = simfind::spec::RecordFields {
        kind,
        id_field: input.id_field.clone(),
        text_fields: input.text_field.clone(),
        id_column: input.id_column.clone(),
        columns: input.columns.clone(),
        pairs: input.pairs,
        // The model scores field by field: it implies --per-field.
        per_field: input.per_field || fellegi_sunter,
        weights: input.weights.clone(),
        link: input.link,
        candidate_fields: input.candidate_fields.clone(),
        block_fields: input.block.iter().map(|k| k.field.clone()).collect(),
        fellegi_sunter,
    };
    let stdin = inputs.iter().filter(|p| p.as_os_str() == "-").count();
    fields
        .check(inputs.len(), stdin)
        .map_err(lower::record_error)?;
    if kind == InputKind::Parquet && stdin > 0 {
        bail!(
            "--input parquet reads files, not stdin ('-'): a Parquet file's schema is at its end; \
             give the file's path"
        );
    }
    for path in inputs.iter().filter(|p| p.as_os_str() != "-") {
        let meta = std::fs::metadata(path)
            .with_context(|| format!("cannot read {} as {kind} records", path.display()))?;
        if meta.is_dir() {
            bail!(
                "cannot read {} as {kind} records: it is a directory (drop --input to scan it)",
                path.display()
            );
        }
    }
    check_text_options(kind, input.delimiter, input.encoding)?;
    let mut options = RecordOptions::new(kind);
    options.delimiter = input.delimiter;
    options.encoding = input.encoding;
    if let Some(id) = &input.id_field {
        options.id_field = id.clone();
        options.id_field_given = true;
    }
    if !input.text_field.is_empty() {
        options.text_fields = input.text_field.clone();
    }
    if let Some(id) = &input.id_column {
        options.id_column = id.clone();
        options.id_column_given = true;
    }
    options.columns = input.columns.clone();
    options.pairs = input.pairs;
    options.link = input.link;
    options.skip_bad_rows = input.skip_bad_rows;
    options.max_line = usize::try_from(input.max_line_length.max(1)).unwrap_or(usize::MAX);
    let record = RecordConfig {
        kind,
        per_field: fields.per_field,
        weights: input.weights.clone(),
        link: input.link,
        candidate_fields: input.candidate_fields.clone(),
        blocks: input.block.clone(),
        block_cap: input.block_cap,
        // The candidate threshold and seed are the scan's, set once its
        // recipe is known.
        model: fellegi_sunter.then_some(simfind::pipeline::FsConfig {
            candidate_threshold: 0.0,
            seed: 0,
            term_frequency: true,
        }),
    };
    Ok((options, record))
}

/// Checks `--weights` and `--candidate-fields` against the `fields` the
/// record inputs turned out to have (known only once they are read), before
/// anything is written.
pub fn check_record_fields(record: &RecordConfig, fields: &[String]) -> Result<()> {
    let given = simfind::spec::RecordFields {
        kind: record.kind,
        per_field: record.per_field,
        weights: record.weights.clone(),
        candidate_fields: record.candidate_fields.clone(),
        block_fields: record.blocks.iter().map(|k| k.field.clone()).collect(),
        ..Default::default()
    };
    given.check_fields(fields).map_err(lower::record_error)?;
    Ok(())
}

/// `scan --top K` without -t: the threshold becomes the floor of
/// [`simfind::spec::top_floor`]. A given -t stays the floor, its banding
/// tuned for it as for any threshold.
pub fn top_floor(
    top: Option<u64>,
    source: ThresholdSource,
    config: &mut ScanConfig,
) -> ThresholdSource {
    if top.is_none() || !matches!(source, ThresholdSource::SCurve) {
        return source;
    }
    let banding = config.recipe.banding;
    config.threshold = simfind::spec::top_floor(banding.bands, banding.rows);
    ThresholdSource::TopFloor
}

/// `--delimiter` is for tables of text, `--encoding` for inputs of text:
/// refused, before any work, for the kinds they do not apply to.
pub fn check_text_options(
    kind: InputKind,
    delimiter: Option<u8>,
    encoding: Option<simfind::input::records::Encoding>,
) -> Result<()> {
    if delimiter.is_some() && !matches!(kind, InputKind::Csv | InputKind::Tsv) {
        bail!("--delimiter does not apply to --input {kind}");
    }
    if encoding.is_some()
        && !matches!(
            kind,
            InputKind::Jsonl | InputKind::Csv | InputKind::Tsv | InputKind::Sets
        )
    {
        bail!("--encoding does not apply to --input {kind}");
    }
    Ok(())
}
