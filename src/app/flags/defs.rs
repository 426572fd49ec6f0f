//! The one definition of each flag that several subcommands declare.
//!
//! A flag's Rust type (and a typed default, which clap renders as
//! `[default: …]`) stays on the field its command reads, declared as a bare
//! `#[arg(long)]` with its heading (where it sits on that command's page);
//! everything else a user sees of it — short name, value name, help, value
//! parser — is set here and applied by the command with
//! `#[command(mut_args(defs::one("id", defs::flag(Place))))]`. Each function takes an enum of
//! the places the flag appears and matches on it, so that a command's own
//! wording sits beside the others' and a flag cannot drift from its siblings
//! unseen: what they share is written once, before the match.
//!
//! Where two commands say the same thing they share an arm. The texts are the
//! help of `--help`; the short `-h` takes its one-liners from `short`.

use clap::Arg;

/// A flag's definition applied to the one argument `id`, for
/// `Command::mut_args`: unlike `mut_arg`, which moves the argument to the
/// end of the command's list (and with it the place of its heading on the
/// page), this changes it where it is.
pub fn one(id: &'static str, define: impl FnOnce(Arg) -> Arg) -> impl FnMut(Arg) -> Arg {
    let mut define = Some(define);
    move |arg| match define.take_if(|_| arg.get_id().as_str() == id) {
        Some(define) => define(arg),
        None => arg,
    }
}

use crate::app::flags::values::{count, input_kind, parse_size, unit_open, unit_open_closed};

/// Where `-t/--threshold` appears.
#[derive(Clone, Copy, Debug)]
pub enum Threshold {
    /// `scan` and `dedupe` (`MatchArgs`).
    Scan,
    /// `verify` and `group` (`ExchangeArgs`).
    Exchange,
    Sign,
    Query,
    Tune,
    Probe,
}

/// `-t/--threshold T`: the least similarity of a reported pair.
pub fn threshold(at: Threshold) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.short('t').value_name("T");
        match at {
            Threshold::Scan => arg.help(
                "Report pairs with similarity ≥ T, 0 < T ≤ 1 [default: the S-curve threshold \
                 (1/b)^(1/r); 0.9 where files are judged removable: --list-removable, --plan, \
                 groups (clusters, jsonl --cluster), --format html, dedupe]. Alone, it also picks bands and rows \
                 (`simfind tune`, within 100 hashes); with them, a T far from the curve's \
                 steep part draws a warning",
            ),
            Threshold::Exchange => arg.help(
                "Report pairs with similarity ≥ T, 0 < T ≤ 1 [default: the S-curve threshold \
                 (1/b)^(1/r) of the shards' bands and rows; 0.9 where files are judged \
                 removable: --list-removable, groups (clusters, jsonl --cluster), --format html]",
            ),
            Threshold::Sign => arg.help(
                "With --input vectors (cosine): pairs with cosine similarity ≥ T, as scan's -t \
                 (or --angle); verify reports those",
            ),
            Threshold::Query => arg.help(
                "Report documents with similarity ≥ T, 0 < T ≤ 1 [default: the S-curve \
                 threshold of the index's bands and rows]",
            ),
            Threshold::Tune => arg
                .value_parser(unit_open_closed)
                .required_unless_present("metric")
                .help("Target Jaccard similarity T, in (0, 1]"),
            Threshold::Probe => arg
                .value_name("J")
                .value_parser(unit_open_closed)
                .help("The least Jaccard similarity J sought, 0 < J ≤ 1"),
        }
    }
}

/// Where the signature's shape (`-b/--bands`, `-r/--rows`, `--seed`) appears.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// `scan`, `sign`, `dedupe` (`SigningArgs`): optional, tuned or the index's.
    Signing,
    /// `index`, which takes no --threshold.
    Index,
    /// `explain` and `compare`: one pair, a fixed shape with defaults.
    Fixed,
    /// `curve`: repeatable, one curve per pair.
    Curve,
}

/// `-b/--bands B`: the number of LSH bands.
pub fn bands(at: Shape) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.short('b').value_name("B");
        match at {
            Shape::Signing => arg.help(
                "Number of LSH bands b [default: 20; with --threshold alone, chosen by \
                 `simfind tune`; with an existing --db index, the index's]",
            ),
            Shape::Index => {
                arg.help("Number of LSH bands b [default: the index's; for a new index, 20]")
            }
            Shape::Fixed => arg.help("Bands b of the MinHash signature (its length is b × r)"),
            Shape::Curve => arg.value_parser(count).help(
                "Number of bands b (repeat, paired in order with --rows, to overlay curves) \
                 [default: 20 when only --rows is given, as in scan]",
            ),
        }
    }
}

/// `-r/--rows R`: rows per band.
pub fn rows(at: Shape) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.short('r').value_name("R");
        match at {
            Shape::Signing => arg.help(
                "Rows per band r; signatures have b × r values [default: 5; with --threshold \
                 alone, chosen by `simfind tune`; with an existing --db index, the index's]",
            ),
            Shape::Index => arg.help(
                "Rows per band r; signatures have b × r values [default: the index's; for a \
                 new index, 5]",
            ),
            Shape::Fixed => arg.help("Rows per band r"),
            Shape::Curve => arg.value_parser(count).help(
                "Rows per band r (repeat, paired in order with --bands) [default: 5 when only \
                 --bands is given, as in scan]",
            ),
        }
    }
}

/// Where `--seed` appears: the shape's places, and `fingerprint`.
#[derive(Clone, Copy, Debug)]
pub enum Seed {
    Signing,
    Index,
    Fixed,
    /// `fingerprint FILE`: the seed of the functions' squares.
    Fingerprint,
}

/// `--seed N`: the seed of the hash functions.
pub fn seed(at: Seed) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("N");
        match at {
            Seed::Signing => arg.help(
                "Seed of the MinHash functions; the same seed gives the same output \
                 [default: 42; with --db, the index's]",
            ),
            Seed::Index => arg
                .help("Seed of the MinHash functions [default: the index's; for a new index, 42]"),
            Seed::Fixed => {
                arg.help("Seed of the MinHash functions (the same as scan's for the same estimate)")
            }
            Seed::Fingerprint => arg.help("With FILE: seed of the functions' squares"),
        }
    }
}

/// Where `--input KIND` appears.
#[derive(Clone, Copy, Debug)]
pub enum Input {
    /// `scan` and `sign` (`InputArgs`): every kind, files by default.
    Scan,
    /// `explain`: two records of one file of records.
    Explain,
    /// `compare`: two rows of one file of points or sets.
    Compare,
    /// `score`: two csv or tsv files.
    Score,
    /// `index` and `query`: files, records or sets, the kinds an index holds.
    Index,
}

/// `--input KIND`: what the positional inputs are.
pub fn input(at: Input) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("KIND");
        match at {
            Input::Scan => arg.value_parser(input_kind).help(
                "What the inputs are: `files` (directories walked for files: the default), or \
                 files of records, one document per line or row ('-' is stdin): `jsonl` (JSON \
                 Lines), `csv`, `tsv` (a header row; RFC 4180), `parquet` (a table, \
                 read by row group: its `text` column unless --text-column says), `sets` (`id<TAB>token token …`: \
                 whole tokens, not shingled); or one file of points for the other families \
                 (docs/FAMILIES.md): `vectors` (CSV/TSV `id,x1,…,xd`), `bits` (`id,0101…` or \
                 `id,0x…`). The id columns of the output are the record ids. csv and tsv fields \
                 are short: their char shingles are 2 characters unless -k is given",
            ),
            Input::Explain => arg.value_parser(input_kind).help(
                "Explain two records of one file of records: `jsonl`, `csv`, `tsv` or `parquet` (`explain \
                 --input jsonl FILE ID_A ID_B`). Their text is the record's fields joined by one \
                 space, as scan shingles it; offsets are bytes of that text",
            ),
            Input::Compare => arg.value_parser(["vectors", "bits", "sets"]).help(
                "Compare two rows of one file: `vectors` (CSV/TSV `id,x1,…,xd`), `bits` \
                     (`id,0101…` or `id,0x…`) or `sets` (`id<TAB>token token …`), as `compare \
                     --input vectors FILE ID_A ID_B`",
            ),
            Input::Score => arg.value_parser(["csv", "tsv"]).help("The files' format"),
            Input::Index => arg.value_parser(input_kind).help(
                "What the items are: `files` (the default), or files of records ('-' is stdin), \
                 each record one item under its id, stored whole (its fields joined by a space, \
                 as scan compares them): `jsonl`, `csv`, `tsv`, or `sets` (`id<TAB>token token \
                 …`: whole tokens); or `vectors` (CSV/TSV `id,x1,…,xd`: cosine, by random \
                 hyperplanes; -t is the cosine). An index holds one kind: another is refused, \
                 naming both",
            ),
        }
    }
}

/// Where the record fields (`--id-field`, `--text-field`, `--id-column`,
/// `--columns`) appear.
#[derive(Clone, Copy, Debug)]
pub enum Records {
    /// `scan` and `sign` (`InputArgs`).
    Scan,
    Explain,
}

/// Where `--id-column` appears: the record fields' places, and `score`.
#[derive(Clone, Copy, Debug)]
pub enum IdColumn {
    Scan,
    Explain,
    /// `score`: one name for both files, `id` by default.
    Score,
}

/// `--id-field PATH`: jsonl's id field.
pub fn id_field(at: Records) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("PATH");
        match at {
            Records::Scan => arg.help(
                "jsonl: the id's field, a dotted path into the object (`meta.id`) \
                 [default: id, else the records are numbered 1, 2, … when the first object \
                 has none]",
            ),
            Records::Explain => arg.help(
                "jsonl: the id's field, a dotted path [default: id, else the records are \
                 numbered 1, 2, … when the first object has none]",
            ),
        }
    }
}

/// `--delimiter C`: a CSV's byte between fields (scan, explain, score; the
/// value parser, `values::delimiter`, is on each field, as clap's derive
/// needs it there for a type without `FromStr`).
pub fn delimiter() -> impl FnOnce(Arg) -> Arg {
    |arg| {
        arg.value_name("C").help(
            "csv/tsv: the character between fields, one byte: `;` and `|` are common, \
                 `\\t` is a tab [default: `,` for csv, a tab for tsv]",
        )
    }
}

/// `--encoding NAME`: the records' text encoding (scan, explain, score).
pub fn encoding() -> impl FnOnce(Arg) -> Arg {
    |arg| {
        arg.value_name("NAME").help(
            "The records' text encoding, a WHATWG name (`utf-8`, `windows-1252`, `latin1`, \
                 `utf-16le`, `shift_jis`, …) [default: detected per input: a byte-order mark, \
                 UTF-16, UTF-8, else the legacy encoding the text looks like]. gzip and zstd \
                 inputs are told by their bytes and decompressed first",
        )
    }
}

/// `--text-field PATHS`: jsonl's text fields.
pub fn text_field(at: Records) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("PATHS").value_delimiter(',');
        match at {
            Records::Scan => arg.help(
                "jsonl: the text's fields, dotted paths, comma-separated (`title,body.text`) \
                 [default: text]",
            ),
            Records::Explain => {
                arg.help("jsonl: the text's fields, dotted paths, comma-separated [default: text]")
            }
        }
    }
}

/// `--id-column NAME`: csv/tsv's id column.
pub fn id_column(at: IdColumn) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("NAME");
        match at {
            IdColumn::Scan => arg.help(
                "csv/tsv/parquet: the id column's name [default: id, else the rows are \
                 numbered 1, 2, …]",
            ),
            IdColumn::Explain => arg.help("csv/tsv/parquet: the id column's name [default: id]"),
            IdColumn::Score => arg.help("The id column of both files"),
        }
    }
}

/// `--columns A,B,C` (or `--text-column`, the name dataset tools give it):
/// a table's text columns.
pub fn columns(at: Records) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg
            .value_name("A,B,C")
            .value_delimiter(',')
            .visible_alias("text-column");
        let what = match at {
            Records::Scan => "document",
            Records::Explain => "text",
        };
        arg.help(format!(
            "csv/tsv/parquet: the columns that make the {what}, comma-separated [default: \
             csv/tsv every column but the id; parquet `text`, else every string column \
             but the id]"
        ))
    }
}

/// Where `--metric` appears.
#[derive(Clone, Copy, Debug)]
pub enum Family {
    /// `scan` and `sign` (`FamilyArgs`).
    Scan,
    Tune,
    Curve,
}

/// `--metric METRIC`: the distance, hence the LSH family.
pub fn metric(at: Family) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("METRIC");
        match at {
            Family::Scan => arg.help(
                "The distance: `jaccard` (shingle sets; the default for documents), \
                 `containment` (shingle or token sets: pairs one inside the other at ≥ -t, by \
                 the exact join or --method lsh; docs/SEARCH.md), `cosine` (vectors: random hyperplanes; the \
                 default for --input vectors), `euclidean` (vectors: projections into buckets) \
                 or `hamming` (bit strings: bit sampling; SimHash fingerprints)",
            ),
            Family::Tune => arg.help(
                "The family: `jaccard` (MinHash, the default), `cosine`, `euclidean` or \
                 `hamming`",
            ),
            Family::Curve => arg.help(
                "The family: `jaccard` (MinHash, the default), `cosine` (random hyperplanes), \
                 `euclidean` (projections into buckets of width a) or `hamming` (bit sampling)",
            ),
        }
    }
}

/// Where the family's query (`--angle`, `--radius`, `--bucket-width`) appears.
#[derive(Clone, Copy, Debug)]
pub enum FamilyQuery {
    /// `scan` and `sign` (`FamilyArgs`).
    Scan,
    Tune,
}

/// `--angle DEG`: cosine's threshold in degrees.
pub fn angle(at: FamilyQuery) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("DEG");
        match at {
            FamilyQuery::Scan => arg.help(
                "With --metric cosine: pairs at an angle ≤ DEG degrees, instead of -t (a cosine)",
            ),
            FamilyQuery::Tune => {
                arg.help("With --metric cosine: the largest angle in degrees, instead of -t")
            }
        }
    }
}

/// `--radius R`: euclidean's distance, hamming's bits.
pub fn radius(at: FamilyQuery) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("R");
        match at {
            FamilyQuery::Scan => arg.help(
                "With --metric euclidean: pairs at L2 distance ≤ R; with hamming: within R bits",
            ),
            FamilyQuery::Tune => {
                arg.help("With --metric euclidean: the L2 distance; with hamming: the bits")
            }
        }
    }
}

/// `query --radius R`: the Hamming radius of a lookup in an index of bit
/// strings (`scan`'s `--radius` is [`radius`]).
pub fn query_radius(arg: Arg) -> Arg {
    arg.value_name("R").help(
        "With --input bits: the indexed bit strings within R bits (Hamming distance) of each \
         query string [default: 0]",
    )
}

/// `--bucket-width A`: the width of euclidean's buckets.
pub fn bucket_width(at: FamilyQuery) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("A");
        match at {
            FamilyQuery::Scan => arg.help(
                "With --metric euclidean: the bucket width a of the projections [default: \
                 chosen with the bands and rows by predicted work, among 1–12 × R; 2 × R, where \
                 one projection keeps a pair at R with probability 0.61, with --bands/--rows \
                 and in sign]",
            ),
            FamilyQuery::Tune => {
                arg.help("With --metric euclidean: the bucket width a [default: 2 × R]")
            }
        }
    }
}

/// `--bits N` of `tune` and `curve`: the bit strings' length.
pub fn bits() -> impl FnOnce(Arg) -> Arg {
    |arg| {
        arg.value_name("N")
            .value_parser(count)
            .help("With --metric hamming: the bit strings' length")
    }
}

/// Where `-o/--output FILE` appears.
#[derive(Clone, Copy, Debug)]
pub enum Output {
    Scan,
    Query,
    /// `verify` and `group`.
    Exchange,
}

/// `-o/--output FILE`: the data's file instead of stdout.
pub fn output(at: Output) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.short('o').value_name("FILE");
        let csv = "Write the CSV to FILE (atomically: complete or not at all) instead of stdout";
        match at {
            Output::Scan => arg.help(csv),
            Output::Query => arg.help(csv),
            Output::Exchange => arg.help(
                "Write the output to FILE (atomically: complete or not at all) instead of stdout",
            ),
        }
    }
}

/// Where `--verify` appears.
#[derive(Clone, Copy, Debug)]
pub enum Verify {
    /// `scan` and `dedupe` (`MatchArgs`).
    Scan,
    Query,
}

/// `--verify exact|signature`: how candidates are verified.
pub fn verify(at: Verify) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let what = "How candidates are verified: exact Jaccard (no false positives) or the \
                    signature estimate.";
        match at {
            Verify::Scan => arg.help(format!(
                "{what} Exact verification first drops, unread, the candidates whose \
                 signatures agree far too little to reach T; that adds at most 1 % to the \
                 pairs at T that banding misses anyway"
            )),
            Verify::Query => arg.help(what.trim_end_matches('.')),
        }
    }
}

/// Where `--verify-memory` appears.
#[derive(Clone, Copy, Debug)]
pub enum VerifyMemory {
    /// `scan` and `dedupe` (`MatchArgs`).
    Scan,
    /// `verify` and `group` (`ExchangeArgs`).
    Exchange,
}

/// `--verify-memory SIZE`: the cap on shingle sets held for exact verification.
pub fn verify_memory(at: VerifyMemory) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("SIZE").value_parser(parse_size);
        match at {
            VerifyMemory::Exchange => {
                arg.help("Most memory for shingle sets during exact verification (as scan's)")
            }
            VerifyMemory::Scan => arg.help(
                "Most memory for shingle sets during exact verification (e.g. 512M, 2G). Sets \
                 are held only until their last candidate pair, within 16 MiB (or this, if \
                 smaller); a cluster of near-copies that needs more may use up to this cap so \
                 that each file is still read once, and beyond it is verified in re-read \
                 blocks. A pair whose two sets alone exceed it is verified in passes over parts \
                 of the hash space (each re-reads both files; -v names the pair). With --verify \
                 signature it caps the set that counts a large file's shingles. --method auto \
                 picks the exact join only if its sets are expected to fit in this cap",
            ),
        }
    }
}

/// Where `--min-recall` appears.
#[derive(Clone, Copy, Debug)]
pub enum MinRecall {
    /// `scan` and `dedupe` (`MatchArgs`).
    Scan,
    Tune,
}

/// `--min-recall R`: the least probability of finding a pair at T.
pub fn min_recall(at: MinRecall) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("R");
        match at {
            MinRecall::Tune => arg
                .value_parser(unit_open_closed)
                .help("Instead of weighing the areas, require P(T) ≥ R, R in (0, 1]"),
            MinRecall::Scan => arg.value_parser(unit_open).help(
                "With --threshold alone: bands and rows are chosen so that a pair at T is \
                 found with probability ≥ R (banding and the signature rule-out together). \
                 Lower it to trade recall for speed. Under --method auto, a given \
                 --bands/--rows below it makes auto prefer the exact join, or warn",
            ),
        }
    }
}

/// Where `--wait SECONDS` appears.
#[derive(Clone, Copy, Debug)]
pub enum Wait {
    /// `scan --db`.
    Scan,
    Index,
    Query,
    /// `dedupe` acting, and `undo`: the lock of the trees they change.
    Changes,
}

/// `--wait SECONDS`: how long to wait for the index's lock.
pub fn wait(at: Wait) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("SECONDS");
        match at {
            Wait::Scan => {
                arg.help("With --db: how long to wait for another process updating the index")
            }
            Wait::Index => arg.help("How long to wait for another process updating the same index"),
            Wait::Query => {
                arg.help("How long to wait while another process commits an update to the index")
            }
            Wait::Changes => arg
                .help("How long to wait for another run changing files in the same trees")
                .long_help(
                    "How long to wait for another simfind run that is changing files in the same \
                     trees (dedupe acting, undo) to finish, before giving up with nothing \
                     changed. 0, the default, gives up at once, naming the run that holds them",
                ),
        }
    }
}

/// Where `--keep` and `--reference` appear.
#[derive(Clone, Copy, Debug)]
pub enum Groups {
    /// `scan`, `verify`, `group` (`ReportArgs`).
    Report,
    Dedupe,
}

/// `--keep POLICY`: which file of a group is kept.
pub fn keep(at: Groups) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("POLICY");
        match at {
            Groups::Report => arg.help(
                "Which file of each group is kept: original (a name without a copy marker \
                 such as \"copy\", \"Kopie\", \"(1)\", \"final\", \"backup\", \"~\", \".bak\", then \
                 the shortest path, then the oldest), newest or oldest (modification time; \
                 unknown times lose), largest or smallest (bytes), shortest-path (bytes), or \
                 first (first path in byte order). Ties go to the first path [default: \
                 original; first for records]",
            ),
            Groups::Dedupe => arg.help("Which file of each group is kept [default: original]"),
        }
    }
}

/// `--reference DIR`: files always kept.
pub fn reference(at: Groups) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("DIR");
        let of = match at {
            Groups::Report => " of their group",
            Groups::Dedupe => "",
        };
        arg.help(format!(
            "Files under DIR are always kept and preferred as the kept copy{of} (dedup new \
             files against an archive). DIR is scanned too. Repeatable"
        ))
    }
}

/// Where `--db FILE` appears.
#[derive(Clone, Copy, Debug)]
pub enum Db {
    /// `scan --db`: optional, the index used and refreshed.
    Scan,
    Index,
    Query,
}

/// `--db FILE`: the index file.
pub fn db(at: Db) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        let arg = arg.value_name("FILE");
        match at {
            Db::Scan => arg.help(
                "Use and refresh the index FILE (created if missing): unchanged files are not \
                 read again, nor unchanged records, sets or vectors of --input signed again; the \
                 output is the same as without --db. Shingle and LSH options \
                 not given are the index's (with --threshold alone, so are bands and rows); one \
                 given that differs from the index's is an error naming both values",
            ),
            Db::Index => arg.help("The index file (created if missing)"),
            Db::Query => arg.help("The index built by `simfind index`"),
        }
    }
}

/// Where `--pairs` of sets (`id<TAB>token` lines) appears; the exchange's
/// `--pairs DIR` is another flag.
#[derive(Clone, Copy, Debug)]
pub enum SetPairs {
    /// `scan` and `sign` (`InputArgs`).
    Scan,
    Compare,
    /// `index` and `query` (`IndexInputArgs`): no weights.
    Index,
}

/// `--skip-bad-rows`: what a bad row of records or points does.
pub fn skip_bad_rows() -> impl FnOnce(Arg) -> Arg {
    |arg| {
        arg.help(
            "A bad row (ragged, missing id or field, duplicate id, bad UTF-8, too long; for \
             vectors and bits also a bad number, NaN/inf or another length) is a warning naming \
             file and line and is skipped (exit 1); by default it is an error (exit 2)",
        )
    }
}

/// `--pairs`: a file of sets holds one `id<TAB>token` pair per line.
pub fn set_pairs(at: SetPairs) -> impl FnOnce(Arg) -> Arg {
    move |arg| {
        match at {
        SetPairs::Scan => arg.help(
            "sets: each line is one `id<TAB>token` pair; the tokens of an id make its set \
             (with --sketch icws `id<TAB>token<TAB>weight`)",
        ),
        SetPairs::Index => arg.help(
            "sets: each line is one `id<TAB>token` pair; the tokens of an id make its set",
        ),
        SetPairs::Compare => arg
            .requires("input")
            .help("With --input sets: each line is one `id<TAB>token` pair, as `scan --input sets --pairs`"),
    }
    }
}

/// Where `--exit-code` appears.
#[derive(Clone, Copy, Debug)]
pub enum ExitCode {
    /// `scan`, `verify` and `group` (`ReportArgs`).
    Scan,
    Dedupe,
}

/// `--exit-code`: status 3 ([`crate::app::exit::NONE_FOUND`]) for a complete
/// run that found nothing, so that 0 means "found".
pub fn exit_code(at: ExitCode) -> impl FnOnce(Arg) -> Arg {
    move |arg| match at {
        ExitCode::Scan => arg.help(
            "Exit with status 3 when nothing was found (no pair, group or removable \
             path to write) and every file was read, so that 0 means \"found\"",
        ),
        ExitCode::Dedupe => arg.help(
            "Exit with status 3 when nothing was found to act on (no removable file) \
             and every file was read, so that 0 means \"found\" (and, unless a dry run, \
             acted on)",
        ),
    }
}
