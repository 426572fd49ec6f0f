//! The command line's flags lowered to the library's [`SpecBuilder`], and the
//! builder's [`SpecError`]s raised back to the words the binary prints.
//!
//! The library names fields (a Python caller has no flags); this is the one
//! place that knows which flag sets which field, so `scan`, `index` and
//! `compare` mean the same by the same flags. Reading a stop-word file is
//! the command line's business: the builder takes the words read.

use std::path::{Path, PathBuf};

use anyhow::{Error, anyhow};
use simfind::input::InputKind;
use simfind::measure::Measure;
use simfind::recipe::Recipe;
use simfind::spec::{
    MAX_K, MAX_SIGNATURE_LEN, Method, PointSpecBuilder, SimHashWeights, SpecBuilder, SpecError,
};

use crate::app::args::{
    FamilyArgs, FoldArg, MatchArgs, MethodArg, MinHashArg, ShingleArgs, SigningArgs,
    SimHashWeightsArg, SketchArgs, SketchFamilyArg,
};

/// Whose bands and rows a banding error is about: `compare` words the
/// two limits in one sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandingWords {
    Scan,
    Compare,
}

/// A `--stopwords FILE` as read: its lines, or why it could not be read.
/// The read error is held back until the builder says the list is used, so
/// a wrong `-k` or `--shingle` is still the first error, as it was when
/// the file was read during validation.
pub struct StopWordsFile {
    path: PathBuf,
    read: Result<Vec<String>, Error>,
}

impl StopWordsFile {
    pub fn read(path: &Path) -> Self {
        let cap = simfind::input::bounded::caps::OPTION_FILE;
        let read = simfind::input::bounded::read_text(path, cap)
            .map(|text| text.lines().map(str::to_owned).collect())
            .map_err(|e| {
                Error::new(e).context(format!("cannot read stop words from {}", path.display()))
            });
        StopWordsFile {
            path: path.to_owned(),
            read,
        }
    }
}

/// The builder of `--shingle`, `-k`, the normalisation flags and
/// `--stopwords` (read here), and the file that was read.
pub fn shingles(shingles: &ShingleArgs) -> (SpecBuilder, Option<StopWordsFile>) {
    let file = shingles.stopwords.as_deref().map(StopWordsFile::read);
    let words = file.as_ref().map(|f| match &f.read {
        Ok(words) => words.clone(),
        // Empty: refused as an empty list, then worded as the read error.
        Err(_) => Vec::new(),
    });
    let builder = SpecBuilder::new()
        .shingle_kind(shingles.shingle.map(|s| s.kind()))
        .k(shingles.k)
        .stop_words(words)
        .keep_case(shingles.keep_case)
        .keep_whitespace(shingles.keep_whitespace)
        .drop_whitespace(shingles.drop_whitespace)
        .fold(
            shingles.fold.contains(&FoldArg::Accents),
            shingles.fold.contains(&FoldArg::Punct),
        );
    (builder, file)
}

/// [`shingles`] and the rest of `scan`'s and `index`'s signing flags.
pub fn signing(
    signing: &SigningArgs,
    binary: bool,
    adopted: Option<&Recipe>,
) -> (SpecBuilder, Option<StopWordsFile>) {
    let (builder, file) = shingles(&signing.shingles);
    let builder = builder
        .adopted(adopted.cloned())
        .bands(signing.bands)
        .rows(signing.rows)
        .seed(signing.seed)
        .sketch(sketch(&signing.sketch))
        .include_binary(binary);
    (builder, file)
}

/// `--minhash`.
pub fn sketch(sketch: &SketchArgs) -> Option<simfind::sketch::SketchKind> {
    sketch.minhash.map(MinHashArg::sketch)
}

/// `scan`'s matching flags; `with_db`: signatures are kept in `--db`.
pub fn matching(builder: SpecBuilder, matching: &MatchArgs, with_db: bool) -> SpecBuilder {
    builder
        .threshold(matching.threshold)
        .min_recall(matching.min_recall)
        .method(method(matching))
        .verification(verification(matching))
        .exact_index(matching.exact_index.map(|i| i.index()))
        .stored(with_db)
}

/// `error` in the command line's words: the message the binary printed
/// before the rules moved to the library, flag names included.
pub fn error(error: SpecError, stop_words: Option<StopWordsFile>, banding: BandingWords) -> Error {
    match error {
        SpecError::ShingleLength { given: 0, .. } => anyhow!("--shingle-size must be at least 1"),
        SpecError::ShingleLength { given, .. } => anyhow!(
            "--shingle-size must be at most {MAX_K}, got {given}: shingles that long make every edited file look unrelated, and shingling costs k × the bytes read"
        ),
        SpecError::StopWordsUnused { .. } => {
            anyhow!("--stopwords applies only with --shingle stopword or important")
        }
        SpecError::StopWordsEmpty => match stop_words {
            Some(StopWordsFile { read: Err(e), .. }) => e,
            Some(StopWordsFile { path, .. }) => {
                anyhow!("{} contains no stop words", path.display())
            }
            None => anyhow!("--stopwords contains no stop words"),
        },
        SpecError::Conflict {
            field: "drop_whitespace",
            ..
        } => anyhow!("--drop-whitespace applies only to character shingles (--shingle char)"),
        SpecError::Threshold { given } => anyhow!("--threshold must be in (0, 1], got {given}"),
        SpecError::OutOfReach(e) => anyhow!(out_of_reach(&e)),
        SpecError::Banding { .. } if banding == BandingWords::Compare => anyhow!(
            "--bands and --rows must be at least 1, and --bands × --rows at most {MAX_SIGNATURE_LEN}"
        ),
        SpecError::Banding { bands, rows, .. } if bands == 0 || rows == 0 => {
            anyhow!("--bands and --rows must be at least 1")
        }
        SpecError::Banding { max, .. } => anyhow!("--bands × --rows must be at most {max}"),
        SpecError::Conflict {
            field: "stored", ..
        } => anyhow!(
            "--db stores MinHash signatures, which only the LSH method uses; drop --db for \
             --method exact, or use --method lsh (or auto) with --db"
        ),
        SpecError::Conflict {
            field: "exact_index",
            ..
        } => anyhow!("--exact-index chooses the exact join's index: add --method exact"),
        SpecError::Conflict {
            field: "verification",
            ..
        } => anyhow!(
            "--verify signature applies to LSH only; the exact method always computes exact Jaccard (use --method lsh)"
        ),
        SpecError::MeasureNotForInput { .. }
        | SpecError::Requires {
            field: "measure", ..
        }
        | SpecError::Conflict {
            field: "measure", ..
        } => measure_error(error),
        SpecError::NotForInput {
            field: "shingle_kind" | "k",
            ..
        } => shingling_error(error),
        // Rules no flag of these commands reaches: the library's words.
        other => anyhow!(other),
    }
}

/// The measure's rules' errors (`--metric containment`) in the command
/// line's words.
pub fn measure_error(error: SpecError) -> Error {
    match error {
        SpecError::MeasureNotForInput { measure, input } => anyhow!(
            "--metric {measure} compares sets of shingles or tokens: it does not apply to \
             --input {input}"
        ),
        SpecError::Requires {
            field: "measure", ..
        } => anyhow!(
            "--metric containment needs -t T: pairs where one is contained in the other at ≥ T"
        ),
        SpecError::Conflict {
            field: "measure",
            with: "stored",
        } => anyhow!("--metric containment reads no index: drop --db"),
        SpecError::Conflict {
            field: "measure",
            with: "bands",
        } => anyhow!(
            "--metric containment --method lsh chooses bands and rows per size partition \
             (LSH Ensemble): leave out --bands and --rows"
        ),
        SpecError::Conflict {
            field: "measure",
            with: "verification",
        } => anyhow!(
            "--verify signature estimates Jaccard; containment is verified exactly (leave out \
             --verify)"
        ),
        other => anyhow!(other),
    }
}

/// What a file scan's `--important-words` cannot combine with, by the
/// library's field, and why.
const IMPORTANT_BESIDE: [(&str, &str, &str); 4] = [
    (
        "stored",
        "--db",
        "an index keeps each file's signature, and a file's TF.IDF words change with every \
         file added (their document frequencies are the whole corpus's)",
    ),
    (
        "identical_by",
        "--identical-by",
        "it finds byte-identical files and ranks no word",
    ),
    (
        "family",
        "--sketch simhash|icws or --metric",
        "the important words are a set for MinHash and Jaccard similarity",
    ),
    (
        "report",
        "--format html",
        "its explanations show shared passages, which a set of selected words has not",
    ),
];

/// The important-words rules' errors in the command line's words.
pub fn important_error(error: SpecError) -> Error {
    match error {
        SpecError::ImportantWordsInput => anyhow!(
            "--important-words ranks the words of whole texts: give directories (or files), or \
             --input jsonl, csv or tsv, without --per-field"
        ),
        SpecError::ImportantWordsShingles => anyhow!(
            "--important-words compares sets of words: leave out --shingle and -k (or give \
             --shingle word -k 1)"
        ),
        SpecError::Conflict {
            field: "important_words",
            with,
        } => match IMPORTANT_BESIDE.iter().find(|(field, _, _)| *field == with) {
            Some((_, flag, why)) => {
                anyhow!("{flag} does not combine with --important-words: {why}")
            }
            None => anyhow!(error),
        },
        other => anyhow!(other),
    }
}

/// The builder of a run over points (`--input vectors|bits`, `--sketch
/// simhash`) from the family's flags and -b/-r/--seed.
pub fn points(kind: InputKind, f: &FamilyArgs, signing: &SigningArgs) -> PointSpecBuilder {
    PointSpecBuilder::new()
        .input(kind)
        .measure(f.metric.map(|m| m.measure()))
        .simhash(f.sketch == Some(SketchFamilyArg::Simhash))
        .simhash_weights(f.simhash_weights.map(|w| match w {
            SimHashWeightsArg::Set => SimHashWeights::Set,
            SimHashWeightsArg::Counts => SimHashWeights::Counts,
        }))
        .angle(f.angle)
        .radius(f.radius)
        .bucket_width(f.bucket_width)
        .bands(signing.bands)
        .rows(signing.rows)
        .seed(signing.seed)
}

/// `scan`'s matching flags for a run over points.
pub fn point_matching(builder: PointSpecBuilder, matching: &MatchArgs) -> PointSpecBuilder {
    builder
        .threshold(matching.threshold)
        .min_recall(matching.min_recall)
        .method(method(matching))
        .verification(verification(matching))
}

/// `--method` as the library's method.
fn method(matching: &MatchArgs) -> Method {
    match matching.method {
        MethodArg::Auto => Method::Auto,
        MethodArg::Exact => Method::Exact,
        MethodArg::Lsh => Method::Lsh,
    }
}

/// `--verify` as the library's verification.
fn verification(matching: &MatchArgs) -> simfind::spec::Verification {
    match matching.verify.verification() {
        simfind::pipeline::Verification::Exact => simfind::spec::Verification::Exact,
        simfind::pipeline::Verification::Signature => simfind::spec::Verification::Signature,
    }
}

/// The flag of a point query's field.
fn point_flag(field: &str) -> &'static str {
    match field {
        "threshold" => "-t",
        "angle" => "--angle",
        "radius" => "--radius",
        "bucket_width" => "--bucket-width",
        _ => "",
    }
}

/// The rules of runs over points in the command line's words; `measure`
/// is `--metric`'s, if given.
pub fn point_error(error: SpecError, kind: InputKind, measure: Option<Measure>) -> Error {
    let metric = measure.unwrap_or(match kind {
        InputKind::Vectors => Measure::Cosine,
        InputKind::Bits => Measure::Hamming,
        _ => Measure::Jaccard,
    });
    match error {
        SpecError::Requires {
            field: "simhash_weights",
            ..
        } => anyhow!(
            "--simhash-weights weighs the shingles of --sketch simhash: add --sketch simhash"
        ),
        SpecError::NotForInput {
            field: "simhash",
            input: input @ (InputKind::Vectors | InputKind::Bits),
        } => anyhow!("--sketch simhash signs documents: give directories, not --input {input}"),
        SpecError::NotForInput {
            field: "simhash",
            input,
        }
        | SpecError::MeasureOfOtherInput { input, .. }
            if input.is_records() =>
        {
            anyhow!(
                "--metric {metric} and --sketch simhash do not apply to --input {input}: records \
                 are compared by the Jaccard of their shingles"
            )
        }
        SpecError::Conflict {
            field: "simhash",
            with: "measure",
        } => anyhow!(
            "--sketch simhash pairs fingerprints by Hamming distance: leave out --metric or give --metric hamming"
        ),
        SpecError::Conflict {
            field: "simhash",
            with: "bands",
        } => anyhow!(
            "--sketch simhash bands its 64 bits into --radius + 1 bands itself: leave out --bands and --rows"
        ),
        SpecError::PointValue { field, given, rule } => {
            anyhow!("{} {given}: {rule}", point_flag(field))
        }
        SpecError::QueryMissing { measure } => match measure {
            Measure::Cosine => {
                anyhow!("--metric cosine needs -t T (pairs with cosine ≥ T) or --angle DEG")
            }
            Measure::L2 => anyhow!("--metric euclidean needs --radius R: pairs at L2 distance ≤ R"),
            _ => anyhow!("--metric hamming needs --radius K: pairs within K bits"),
        },
        SpecError::Conflict {
            field: "radius",
            with: "measure",
        } => anyhow!(
            "--radius and --bucket-width are for --metric euclidean; cosine takes -t (a cosine) or --angle"
        ),
        SpecError::Conflict {
            field: "threshold",
            with: "measure",
        } => anyhow!("--metric euclidean takes --radius R (a distance), not -t or --angle"),
        SpecError::MeasureOfOtherInput {
            measure,
            input: InputKind::Vectors,
        } => match measure {
            Measure::Hamming => anyhow!("--metric hamming compares bit strings: give --input bits"),
            Measure::Containment => anyhow!(
                "--metric containment compares sets of shingles or tokens: it does not apply to \
                 --input vectors"
            ),
            _ => anyhow!(
                "--input vectors has no Jaccard similarity: give --metric cosine or euclidean"
            ),
        },
        SpecError::MeasureOfOtherInput {
            input: InputKind::Bits,
            ..
        } => anyhow!("--input bits is compared by Hamming distance: give --metric hamming"),
        SpecError::MeasureOfOtherInput { measure, .. } => anyhow!(
            "--metric {measure} needs --input vectors or --input bits (or --sketch simhash for documents)"
        ),
        SpecError::Conflict {
            field: "verification",
            with: "measure",
        } => anyhow!(
            "--verify signature: p-stable buckets give no distance estimate; --metric euclidean verifies exactly (leave out --verify)"
        ),
        SpecError::Banding { .. } => anyhow!("--bands and --rows must be at least 1"),
        other => anyhow!(other),
    }
}

/// `--shingle` and `-k` for inputs of `kind`: refused for sets, whose
/// tokens are compared whole (the library's `check_shingling`).
pub fn shingling(kind: InputKind, shingles: &ShingleArgs) -> Result<(), Error> {
    simfind::spec::check_shingling(kind, shingles.shingle.is_some(), shingles.k.is_some())
        .map_err(shingling_error)
}

/// [`simfind::spec::check_shingling`]'s refusal in the flags' words.
pub fn shingling_error(_: SpecError) -> Error {
    anyhow!("--input sets compares whole tokens: --shingle and -k do not apply")
}

/// [`OutOfReach`] as scan reports it.
pub fn out_of_reach(e: &simfind::lsh::tune::OutOfReach) -> String {
    format!(
        "--min-recall {} at --threshold {} is out of reach within {} hashes ({}, less the \
         signature rule-out's 1 %); lower --min-recall, or use --method exact",
        e.min_recall, e.threshold, e.hashes, e.best
    )
}

/// The flag that sets a field of the library's options (a `Spec` field,
/// or a reader's setting a library hint names): the one mapping from the
/// library's names to the command line's.
pub fn flag_of(field: &str) -> &'static str {
    match field {
        "id_field" => "--id-field",
        "text_fields" => "--text-field",
        "id_column" => "--id-column",
        "columns" => "--columns",
        "pairs" => "--pairs",
        "per_field" => "--per-field",
        "weights" => "--weights",
        "candidate_fields" => "--candidate-fields",
        "block_fields" => "--block",
        "fellegi_sunter" => "--model fellegi-sunter",
        "delimiter" => "--delimiter",
        "max_line_length" => "--max-line-length",
        "encoding" => "--encoding",
        "input" => "--input",
        "transform" => "--transform",
        "transform_globs" => "--transform-glob",
        "include_binary" => "--binary",
        _ => "",
    }
}

/// The record rules' errors in the command line's words.
pub fn record_error(error: SpecError) -> Error {
    let flag = flag_of;
    match error {
        SpecError::Conflict {
            field: "fellegi_sunter",
            with: "weights",
        } => anyhow!(
            "--weights does not apply to --model fellegi-sunter: the model learns each field's \
             weights (m and u per level, by EM)"
        ),
        SpecError::NotForInput { field, input } => {
            anyhow!("{} does not apply to --input {input}", flag(field))
        }
        SpecError::Requires {
            field: "candidate_fields",
            ..
        } => anyhow!("--candidate-fields applies to --per-field: add --per-field"),
        SpecError::Requires {
            field: "block_fields",
            ..
        } => anyhow!("--block applies to --per-field: add --per-field"),
        SpecError::Requires {
            field: "weights", ..
        } => anyhow!("--weights applies to --per-field scores: add --per-field"),
        SpecError::WeightsAllZero => anyhow!("--weights are all 0: at least one field must count"),
        SpecError::LinkInputs { given } => {
            anyhow!("--link pairs the records of two inputs: give exactly two, got {given}")
        }
        SpecError::StdinTwice => anyhow!("'-' (stdin) can be given once"),
        SpecError::WeightsCount { weights, fields } => anyhow!(
            "--weights gives {weights} weights for {} fields ({})",
            fields.len(),
            fields.join(",")
        ),
        SpecError::UnknownField {
            field,
            name,
            fields,
        } => anyhow!(
            "{} names '{name}', which is not a field ({})",
            flag(field),
            fields.join(",")
        ),
        other => anyhow!(other),
    }
}
