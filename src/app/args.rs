//! The flag groups subcommands share: clap `Args` structs flattened into several
//! commands (shingles, signing, matching, files, record input, families, the
//! exchange's inputs, threads).
//!
//! Role: the raw, parsed layer (ripgrep's "low args"). Nothing here reads a file
//! or builds a library type; turning the groups into a validated
//! [`simfind::pipeline::ScanConfig`] or [`simfind::recipe::Recipe`] is
//! `config`'s job.
//!
//! Invariants: a group is defined once, so `scan`, `index` and `compare` given the
//! same flags mean the same thing; a flag that also appears outside these groups
//! takes what users see (short name, value name, heading, help) from its one
//! definition in [`crate::app::flags::defs`]. The value enums, value parsers and
//! EXIT STATUS tables live in [`crate::app::flags`] and are re-exported here
//! under their old paths.

use std::path::PathBuf;

use crate::app::flags::defs;
pub use crate::app::flags::exit_status::*;
pub use crate::app::flags::values::*;

/// Scan's default shape, 20 bands × 5 rows: library policy, shown by `compare`
/// and `tune` as their defaults.
pub use simfind::lsh::tune::{DEFAULT_BANDS, DEFAULT_ROWS};

/// The MinHash seed when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 42;

/// `-j/--threads`, flattened into the subcommands that run in parallel
/// (`scan`, `index`, `query`, `sign`, `verify`, `group`, `tune`, `dedupe`), so that it is listed only where it does
/// something; `simfind -j N <subcommand>` before the subcommand works too.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct ThreadArgs {
    /// Worker threads; 0 (the default) is one per core. Output does not depend on it.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16))]
    pub threads: Option<u16>,
}

/// How a document becomes a shingle set: what a shingle is and how the text is
/// normalised first. Shared by `scan`, `index` (through [`SigningArgs`]) and
/// `compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct ShingleArgs {
    /// What a shingle is: k characters, k words, a stop word and the next k−1 words, or k
    /// words that are not stop words (`important`) [default: char].
    #[arg(long, value_enum, help_heading = "Shingles")]
    pub shingle: Option<ShingleArg>,

    /// Shingle length, at most 256 [default: 5 for char, 3 for word and stopword, 1 for
    /// important]; `--k` is an alias.
    #[arg(
        long = "shingle-size",
        short = 'k',
        alias = "k",
        value_name = "K",
        help_heading = "Shingles"
    )]
    pub k: Option<usize>,

    /// Stop words, one per line, instead of the built-in English list (with --shingle stopword
    /// or important).
    #[arg(long, value_name = "FILE", help_heading = "Shingles")]
    pub stopwords: Option<PathBuf>,

    /// Do not lowercase the text.
    #[arg(long, help_heading = "Shingles")]
    pub keep_case: bool,

    /// Do not collapse whitespace runs to one space (nor trim).
    #[arg(long, help_heading = "Shingles")]
    pub keep_whitespace: bool,

    /// Remove every whitespace character before shingling character shingles (MMDS
    /// 3.2.2's alternative: "touch down" and "touchdown" give the same shingles).
    #[arg(long, help_heading = "Shingles", conflicts_with = "keep_whitespace")]
    pub drop_whitespace: bool,

    /// Fold before shingling, comma-separated: `accents` (Unicode NFKD without combining
    /// marks: "José" is "Jose", "ﬁ" is "fi"), `punct` (punctuation becomes a space:
    /// "O'Brien-Smith" is "O Brien Smith"). Kept in the recipe, so an index and its
    /// queries fold alike.
    #[arg(
        long,
        value_name = "WHAT",
        value_enum,
        value_delimiter = ',',
        help_heading = "Shingles"
    )]
    pub fold: Vec<FoldArg>,
}

/// What `--fold` folds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FoldArg {
    Accents,
    Punct,
}

/// Which sketch signs the shingle sets. Shared by `scan`, `index` (through
/// [`SigningArgs`]) and `compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct SketchArgs {
    /// MinHash kernel: `classic` (n hash functions per shingle) or `oph` (one-permutation
    /// hashing with optimal densification: one hash per shingle, several times faster,
    /// equally unbiased estimates; different signatures, so candidates differ slightly) or
    /// `block` (the row-block speed-up of the MMDS lecture notes: OPH's blocks kept ∞ when
    /// empty, estimate a/(a+d) over the blocks not empty in both). [default: classic]
    #[arg(long, value_enum, help_heading = "LSH")]
    pub minhash: Option<MinHashArg>,
}

/// How files become signatures. Shared by `scan` and `index` (flattened into
/// both), so that an index and a scan given the same flags agree.
#[derive(clap::Args, Debug, Clone)]
#[command(
    mut_args(defs::one("bands", defs::bands(defs::Shape::Signing))),
    mut_args(defs::one("rows", defs::rows(defs::Shape::Signing))),
    mut_args(defs::one("seed", defs::seed(defs::Seed::Signing)))
)]
pub struct SigningArgs {
    #[command(flatten)]
    pub shingles: ShingleArgs,

    // -b, -r, --seed: defs::bands, defs::rows, defs::seed.
    #[arg(long, help_heading = "LSH")]
    pub bands: Option<usize>,
    #[arg(long, help_heading = "LSH")]
    pub rows: Option<usize>,
    #[arg(long, help_heading = "LSH")]
    pub seed: Option<u64>,

    #[command(flatten)]
    pub sketch: SketchArgs,
}

/// How candidate pairs are found and verified (`scan`).
#[derive(clap::Args, Debug, Clone)]
#[command(
    mut_args(defs::one("threshold", defs::threshold(defs::Threshold::Scan))),
    mut_args(defs::one("min_recall", defs::min_recall(defs::MinRecall::Scan))),
    mut_args(defs::one("verify", defs::verify(defs::Verify::Scan))),
    mut_args(defs::one("verify_memory", defs::verify_memory(defs::VerifyMemory::Scan)))
)]
pub struct MatchArgs {
    /// Only pairs of files under different roots (fclones' --isolate): a new drop
    /// against an archive, not the copies inside either. Same-root candidates are
    /// dropped before verification; groups link files across roots only. The
    /// --files-from list counts as one root.
    #[arg(long, help_heading = "Files")]
    pub isolate: bool,

    // -t, --min-recall, --verify, --verify-memory: their functions in defs.
    #[arg(long, help_heading = "LSH")]
    pub threshold: Option<f64>,
    #[arg(long, default_value_t = simfind::lsh::tune::DEFAULT_MIN_RECALL, help_heading = "LSH")]
    pub min_recall: f64,
    #[arg(long, value_enum, default_value_t = VerifyArg::Exact, help_heading = "LSH")]
    pub verify: VerifyArg,
    #[arg(long, default_value = "1G", help_heading = "LSH")]
    pub verify_memory: u64,
    /// How pairs are found: `exact` joins the shingle sets with length, prefix and
    /// position filters (every pair ≥ T, none missed; holds all sets in memory);
    /// `lsh` uses MinHash and banding (may miss pairs near T); `auto` picks by a cost
    /// model of threshold, corpus size and memory (the join only where its sets fit in
    /// the memory LSH would need anyway; LSH whenever --bands or --rows is given; a join
    /// whose first sampled probes predict far more CPU than LSH is given up for LSH over
    /// its sets, already in memory), and the summary says which and why. With --input
    /// vectors|bits: `exact` measures every pair (blocked matrix products, each pair near T
    /// measured again in f64), `auto` picks it when its work is predicted below LSH's, from
    /// a fixed-seed sample of the points' pairs (docs/FAMILIES.md).
    #[arg(long, value_enum, default_value_t = MethodArg::Auto, help_heading = "Method")]
    pub method: MethodArg,
    /// With --method exact: the join's index, to compare the refinements of
    /// MMDS 3.9 (docs/MMDS.md): `length` compares every pair the length filter
    /// allows; `prefix` indexes each set's first ⌊(1−T)·L⌋+1 elements; `position`
    /// and `suffix` index them by position, and by position and suffix length. All
    /// find the same pairs; the summary then counts index entries, entries found
    /// and pairs compared [default: ppjoin, AllPairs/PPJoin, the fastest].
    #[arg(long, value_enum, value_name = "INDEX", help_heading = "Method")]
    pub exact_index: Option<ExactIndexArg>,
}

/// Which files are read. Shared by `scan` and `index` (flattened into both).
#[derive(clap::Args, Debug, Clone)]
pub struct FileArgs {
    /// Follow symbolic links (loops are detected and reported).
    #[arg(long, short = 'L', help_heading = "Files")]
    pub follow_links: bool,

    /// Include hidden files and directories (names starting with '.').
    #[arg(long, short = 'H', help_heading = "Files")]
    pub hidden: bool,

    /// Only files whose relative path or name matches GLOB (repeatable).
    #[arg(long, value_name = "GLOB", help_heading = "Files")]
    pub include: Vec<String>,

    /// Skip files and directories whose relative path or name matches GLOB (repeatable);
    /// GLOB ending in '/' matches directories only, as in .gitignore ('target/').
    #[arg(long, value_name = "GLOB", help_heading = "Files")]
    pub exclude: Vec<String>,

    /// Do not honour ignore files. By default, as ripgrep and fd do, `.ignore` and
    /// `.simfindignore` in any directory under a root, and `.gitignore` inside a git
    /// repository, name files and directories to skip (`.simfindignore` wins over
    /// `.ignore`, which wins over `.gitignore`; a deeper file wins). A file share
    /// that is not a repository is walked whole unless it holds such files; a
    /// share that is a checkout skips what git skips (build output, caches).
    #[arg(long, help_heading = "Files")]
    pub no_ignore: bool,

    /// Read the files to scan from FILE ('-' for stdin), one path per line, besides
    /// any DIR: `fd -e txt | simfind scan --files-from -`. Paths are used and
    /// reported as given; one that is missing or not a regular file is named and
    /// skipped (exit 1). Hidden names and ignore files do not apply to them.
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Files",
        conflicts_with = "files0_from"
    )]
    pub files_from: Option<PathBuf>,

    /// As --files-from, with NUL-terminated paths (names may hold newlines):
    /// `fd -0 -e txt | simfind scan --files0-from -` (GNU du/wc spell it so; -0 is
    /// --list-removable's NUL output).
    #[arg(long, value_name = "FILE", help_heading = "Files")]
    pub files0_from: Option<PathBuf>,

    /// Treat hard links to one file as copies of it (paired at 1.0); by default a
    /// file is read once, at its first path, and its other links are counted.
    #[arg(long, help_heading = "Files")]
    pub hardlinks_as_copies: bool,

    /// Skip files smaller than SIZE (e.g. 100, 4K; K/M/G = KiB/MiB/GiB, KB/MB/GB = 10³/10⁶/10⁹).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Files")]
    pub min_size: Option<u64>,

    /// Skip files larger than SIZE (e.g. 10M = 10 MiB, 10MB = 10⁷ bytes).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Files")]
    pub max_size: Option<u64>,

    /// Also read files that look binary (a NUL byte in the first 8 KiB).
    /// Without it they are paired only with their byte-identical copies.
    #[arg(long, help_heading = "Files")]
    pub binary: bool,

    /// Which document formats have their text extracted before comparing: `auto`
    /// (default) reads every format simfind knows, told by content, not name: PDF,
    /// docx/pptx/xlsx, odt/odp/ods, EPUB, HTML, e-mail (.eml, mbox), RTF, and text in
    /// UTF-16/32 or a legacy encoding; `none` compares the bytes as they are; or a list
    /// such as `pdf,docx,html` (docs/FORMATS.md). Paths stay the original files'.
    #[arg(long, value_name = "FORMATS", default_value = "auto",
          value_parser = parse_extract, help_heading = "Files")]
    pub extract: simfind::source::Extract,

    #[command(flatten)]
    pub transform: TransformArgs,

    /// Read files ahead with N threads besides the -j signing threads, for network
    /// file systems (NFS, SMB) where every open and read waits on the network; 0
    /// (default): each signing thread reads its own files, which suits local disks.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=1024), help_heading = "Files")]
    pub io_threads: u16,

    /// Hidden, for tests and benchmarks: files at least SIZE are signed
    /// chunk by chunk in bounded memory (default 1M). The output does not
    /// depend on it; tests set it to 0 to drive that path over whole corpora.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, hide = true)]
    pub chunked_min_size: Option<u64>,

    /// Hidden, for tests and benchmarks: the chunk size of that path
    /// (default 128K, at least 1).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, hide = true)]
    pub chunk_size: Option<u64>,
}

/// `--transform`: the user's command that makes a file's text. In `scan` and
/// `index` (through [`FileArgs`]), and where stored texts are read again
/// (`query`, `verify`, `group`): a command stored in an index or a signing
/// run's metadata is run again only when given again.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TransformArgs {
    /// Make each file's text with the command CMD, run by /bin/sh with the file's bytes
    /// on stdin, or, where CMD holds {}, in a private temporary copy whose path replaces
    /// {}; what it prints is the text: `--transform 'antiword -'`, `--transform
    /// 'pdftotext {} -'`. For every file, or those matching --transform-glob, instead of
    /// --extract. A file it fails on (exit status, no output, over the time budget) is
    /// named and paired only with its byte-identical copies (docs/FORMATS.md).
    #[arg(long, value_name = "CMD", help_heading = "Files")]
    pub transform: Option<String>,

    /// With --transform: only the files whose path matches GLOB (repeatable; case is
    /// ignored, `*` crosses folders: `*.doc` matches REPORT.DOC anywhere).
    #[arg(
        long,
        value_name = "GLOB",
        requires = "transform",
        help_heading = "Files"
    )]
    pub transform_glob: Vec<String>,
}

impl TransformArgs {
    /// The command as the library takes it; a usage error naming the flag.
    pub fn parse(&self) -> anyhow::Result<Option<simfind::source::Transform>> {
        match &self.transform {
            None => Ok(None),
            Some(command) => simfind::source::Transform::new(command, &self.transform_glob)
                .map(Some)
                .map_err(|reason| anyhow::anyhow!("--transform: {reason}")),
        }
    }
}

/// What the positional inputs are, and how records are read from them
/// (`scan --input`). Flattened into `scan`.
#[derive(clap::Args, Debug, Clone)]
#[command(
    mut_args(defs::one("input", defs::input(defs::Input::Scan))),
    mut_args(defs::one("id_field", defs::id_field(defs::Records::Scan))),
    mut_args(defs::one("text_field", defs::text_field(defs::Records::Scan))),
    mut_args(defs::one("id_column", defs::id_column(defs::IdColumn::Scan))),
    mut_args(defs::one("columns", defs::columns(defs::Records::Scan))),
    mut_args(defs::one("pairs", defs::set_pairs(defs::SetPairs::Scan))),
    mut_args(defs::one("skip_bad_rows", defs::skip_bad_rows())),
    mut_args(defs::one("delimiter", defs::delimiter())),
    mut_args(defs::one("encoding", defs::encoding()))
)]
pub struct InputArgs {
    // --input and the record fields: their functions in defs.
    #[arg(long, default_value = "files", help_heading = "Records")]
    pub input: simfind::input::InputKind,
    #[arg(long, help_heading = "Records")]
    pub id_field: Option<String>,
    #[arg(long, help_heading = "Records")]
    pub text_field: Vec<String>,
    #[arg(long, help_heading = "Records")]
    pub id_column: Option<String>,
    #[arg(long, help_heading = "Records")]
    pub columns: Vec<String>,

    /// csv/tsv/jsonl: each field shingled, signed and banded on its own (MMDS 3.8); a
    /// pair is a candidate if it collides in any field, and its similarity is the
    /// weighted mean of the fields' Jaccard over the fields non-empty in both records
    /// (an empty field is unknown, not a disagreement). One column per field follows.
    #[arg(long, help_heading = "Records")]
    pub per_field: bool,

    /// With --per-field: one weight per field, in field order, comma-separated
    /// [default: equal].
    #[arg(long, value_name = "W,W,…", value_delimiter = ',', value_parser = weight,
          help_heading = "Records")]
    pub weights: Vec<f64>,

    /// With --per-field: only these fields' bands make candidates (comma-separated
    /// names; every field is still scored) [default: every field; from 1,000 records,
    /// chosen on a sample, see docs/RECORDS.md]. Leave out fields with few distinct
    /// values (city, state): each of their buckets pairs every record sharing a value.
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        help_heading = "Records"
    )]
    pub candidate_fields: Vec<String>,

    /// With --per-field: records whose FIELD gives the same key are candidates
    /// (repeatable), beside the bands of the fields --candidate-fields names (no
    /// bands without it). HOW is `exact` (the default: the value with case,
    /// accents and punctuation folded), `prefix=N` (its first N characters) or
    /// `soundex` (a phonetic code of its letters). Candidates are the union of
    /// every key's blocks and every band.
    #[arg(
        long,
        value_name = "FIELD[:HOW]",
        value_parser = crate::app::flags::values::block_key,
        help_heading = "Records"
    )]
    pub block: Vec<simfind::pipeline::BlockKey>,

    /// With --block: a block of more records than N is skipped with a warning (a
    /// common surname would pair every record that has it).
    #[arg(
        long,
        value_name = "N",
        default_value_t = simfind::pipeline::DEFAULT_BLOCK_CAP,
        help_heading = "Records"
    )]
    pub block_cap: usize,

    /// csv/tsv/jsonl: how a pair of records is scored. `jaccard`: the Jaccard of the
    /// records, or with --per-field the weighted mean of the fields'. `fellegi-sunter`
    /// (implies --per-field): each field's comparison level (exact, one edit, Jaro-Winkler
    /// ≥ 0.88, else; empty: null, weight 0) weighs log2(m/u), u counted on random pairs, m
    /// and the prior by EM over the candidates, an exact level's u the value's frequency;
    /// a pair's match probability is its similarity, -t the probability it must reach
    /// [default: 0.9], candidates as for --per-field at the bands' S-curve threshold;
    /// columns match_weight and weight_<field> follow (docs/RECORDS.md).
    #[arg(long, value_enum, value_name = "MODEL", default_value_t = ModelArg::Jaccard,
          help_heading = "Records")]
    pub model: ModelArg,

    /// With --model fellegi-sunter: write the trained model (λ, and m and u per field
    /// and level) to FILE as JSON, for `explain --load-model FILE`.
    #[arg(long, value_name = "FILE", help_heading = "Records")]
    pub save_model: Option<PathBuf>,

    /// Record linkage of two inputs: only pairs with one record from each (`a` from the
    /// first, `b` from the second); ids need only be unique within each.
    #[arg(long, help_heading = "Records")]
    pub link: bool,

    /// scan: keep each document's N words of highest TF.IDF (MMDS 1.3.1: term frequency over
    /// the document's most frequent word, times log2 of the documents over those with the
    /// word; ties in byte order) and compare documents as sets of those words (--shingle
    /// word -k 1). Files (directories scanned) are read twice: once to count each word's
    /// documents (identical files count once), once to sign; a file changed in between
    /// is reported and pairs nothing. Also for --input jsonl/csv/tsv records.
    #[arg(long, value_name = "N", value_parser = count, help_heading = "Shingles")]
    pub important_words: Option<usize>,

    // --pairs: defs::set_pairs.
    #[arg(long, help_heading = "Records")]
    pub pairs: bool,

    // --skip-bad-rows: defs::skip_bad_rows.
    #[arg(long, help_heading = "Records")]
    pub skip_bad_rows: bool,

    // --delimiter, --encoding: defs::delimiter, defs::encoding.
    #[arg(long, value_parser = crate::app::flags::values::delimiter, help_heading = "Records")]
    pub delimiter: Option<u8>,

    #[arg(long, value_parser = crate::app::flags::values::encoding, help_heading = "Records")]
    pub encoding: Option<simfind::input::records::Encoding>,

    /// The longest line (or CSV row) kept; a longer one is a bad row, read past
    /// without being held.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size,
          help_heading = "Records")]
    pub max_line_length: u64,
}

/// What the inputs of `index` and `query` are: files, or files of records
/// or sets, each record (or set) one item of the index under its id. The
/// record options of [`InputArgs`] that apply to an index (it holds each
/// record whole), the same flags with the same meaning.
#[derive(clap::Args, Debug, Clone)]
#[command(
    mut_args(defs::one("input", defs::input(defs::Input::Index))),
    mut_args(defs::one("id_field", defs::id_field(defs::Records::Scan))),
    mut_args(defs::one("text_field", defs::text_field(defs::Records::Scan))),
    mut_args(defs::one("id_column", defs::id_column(defs::IdColumn::Scan))),
    mut_args(defs::one("columns", defs::columns(defs::Records::Scan))),
    mut_args(defs::one("pairs", defs::set_pairs(defs::SetPairs::Index))),
    mut_args(defs::one("skip_bad_rows", defs::skip_bad_rows()))
)]
pub struct IndexInputArgs {
    #[arg(long, default_value = "files", help_heading = "Records")]
    pub input: simfind::input::InputKind,
    #[arg(long, help_heading = "Records")]
    pub id_field: Option<String>,
    #[arg(long, help_heading = "Records")]
    pub text_field: Vec<String>,
    #[arg(long, help_heading = "Records")]
    pub id_column: Option<String>,
    #[arg(long, help_heading = "Records")]
    pub columns: Vec<String>,
    #[arg(long, help_heading = "Records")]
    pub pairs: bool,
    #[arg(long, help_heading = "Records")]
    pub skip_bad_rows: bool,
}

impl IndexInputArgs {
    /// The scan's record options these flags give (the others at their
    /// defaults), for [`crate::app::config::records`].
    pub fn as_scan(&self) -> InputArgs {
        InputArgs {
            input: self.input,
            id_field: self.id_field.clone(),
            text_field: self.text_field.clone(),
            id_column: self.id_column.clone(),
            columns: self.columns.clone(),
            per_field: false,
            weights: Vec::new(),
            candidate_fields: Vec::new(),
            block: Vec::new(),
            block_cap: simfind::pipeline::DEFAULT_BLOCK_CAP,
            model: ModelArg::Jaccard,
            save_model: None,
            link: false,
            important_words: None,
            pairs: self.pairs,
            skip_bad_rows: self.skip_bad_rows,
            delimiter: None,
            encoding: None,
            max_line_length: simfind::input::records::DEFAULT_MAX_LINE as u64,
        }
    }
}

/// Where `verify --pairs` and `group --pairs` read an engine's pairs and the
/// signed documents, and how they verify them.
#[derive(clap::Args, Debug, Clone)]
#[command(
    mut_args(defs::one("threshold", defs::threshold(defs::Threshold::Exchange))),
    mut_args(defs::one("verify_memory", defs::verify_memory(defs::VerifyMemory::Exchange)))
)]
pub struct ExchangeArgs {
    /// The engine's candidate pairs: a directory of Parquet files (or one file)
    /// with int64 columns a and b (doc_ids), as spark/simfind_lsh.py writes them.
    #[arg(long, value_name = "DIR", required = true, help_heading = "Exchange")]
    pub pairs: PathBuf,

    /// The directory `simfind sign --out` wrote (docs/ and signatures/ of every
    /// shard). Its recipe is the one the files are verified with.
    #[arg(long, value_name = "DIR", required = true, help_heading = "Exchange")]
    pub docs: PathBuf,

    // -t, --verify-memory: defs::threshold, defs::verify_memory.
    #[arg(long, help_heading = "Exchange")]
    pub threshold: Option<f64>,
    #[arg(long, default_value = "1G", help_heading = "Exchange")]
    pub verify_memory: u64,

    #[command(flatten)]
    pub transform: TransformArgs,
}

/// The vector families (`docs/FAMILIES.md`): what the input is, the distance,
/// its threshold. Flattened into `scan`.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    mut_args(defs::one("metric", defs::metric(defs::Family::Scan))),
    mut_args(defs::one("angle", defs::angle(defs::FamilyQuery::Scan))),
    mut_args(defs::one("radius", defs::radius(defs::FamilyQuery::Scan))),
    mut_args(defs::one("bucket_width", defs::bucket_width(defs::FamilyQuery::Scan)))
)]
pub struct FamilyArgs {
    // --metric, --angle, --radius, --bucket-width: their functions in defs.
    #[arg(long, value_enum, help_heading = "Families")]
    pub metric: Option<MetricArg>,

    /// Sign documents with `simhash` (Charikar's 64-bit fingerprint of the shingles; see
    /// --simhash-weights) instead of MinHash: pairs within --radius bits (default 3) of each other, none
    /// missed (pigeonhole bands). `icws`: weighted MinHash (Ioffe's ICWS) of weighted sets,
    /// pairs with weighted Jaccard Σmin/Σmax ≥ -t, verified exactly: `--input sets` with
    /// `id<TAB>token:weight …` (a token without `:weight` weighs 1, repeats add up; with
    /// --pairs `id<TAB>token<TAB>weight`), or directories, each file its bag of shingle counts.
    #[arg(long, value_enum, value_name = "SKETCH", help_heading = "Families")]
    pub sketch: Option<SketchFamilyArg>,

    #[arg(long, conflicts_with = "threshold", help_heading = "Families")]
    pub angle: Option<f64>,
    #[arg(long, help_heading = "Families")]
    pub radius: Option<f64>,
    #[arg(long, help_heading = "Families")]
    pub bucket_width: Option<f64>,

    /// With --sketch simhash: how shingles weigh in a fingerprint: `set` (each distinct
    /// shingle once, text-dedup's SimHash) or `counts` (by occurrences: repeated
    /// boilerplate weighs more) [default: set].
    #[arg(long, value_enum, value_name = "WEIGHTS", help_heading = "Families")]
    pub simhash_weights: Option<SimHashWeightsArg>,
}

/// `--extract`'s value, checked before any work starts.
fn parse_extract(list: &str) -> Result<simfind::source::Extract, String> {
    list.parse()
        .map_err(|err: simfind::source::extract::UnknownFormat| err.to_string())
}
