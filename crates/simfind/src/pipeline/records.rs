//! The pipeline over records ([`crate::input::records`]): what [`super::scan`]
//! does for files, for documents that are lines or rows.
//!
//! ```text
//! sets      records           → per record (per field with `per_field`): the
//!                               shingle set of its text, or the hashes of its
//!                               whole tokens (`sets`); held in memory
//! method    exact             → the join (similarity::join) per field
//!           lsh               → per field: sign, band; candidates of any field
//! verify    candidates        → score ≥ t: Jaccard of the sets (or, per field,
//!                               the weighted mean of the fields' Jaccard)
//! ```
//!
//! Records are short: a record's set costs about what its signature costs
//! (`docs/PERFORMANCE.md`, "Records"), so the sets are kept in memory for
//! verification instead of re-parsing the input (which stdin could not do).
//!
//! The per-field score (MMDS 3.8): the weighted mean of the fields' Jaccard
//! similarities over the fields non-empty in both records (a field missing
//! on either side is unknown, not a disagreement); 0 when no field is
//! non-empty in both. A mean is at most its largest term, so a pair scoring
//! ≥ t has a field with Jaccard ≥ t: the candidates of the fields' joins (or
//! bands) at t are all the pairs that can reach it. A field with few distinct
//! values (a city) makes every pair sharing one a candidate; `candidate_fields`
//! leaves such fields out of candidate generation (they are still scored),
//! and without it [`candidates`] leaves them out where a sample says the
//! pairs are still found; `blocks` adds blocking keys' blocks.
//!
//! Output is deterministic: the same records, configuration and seed give
//! the same outcome whatever the number of threads (parallel stages only
//! map, and results are sorted by record id).

use rayon::prelude::*;

mod candidates;
mod compact;
mod fellegi_sunter;

pub use candidates::{
    AUTO_MIN_RECORDS, BlockKey, CandidateReport, Chosen, DEFAULT_BLOCK_CAP, KEEP,
};
pub use fellegi_sunter::{FsConfig, RANDOM_PAIRS, Trained, Values};

use super::plan::{Decision, Method, MethodChoice, Reason};
use super::{ScanConfig, ScanOutcome, ScanStats, Verification};
use crate::input::kind::InputKind;
use crate::input::records::Records;
use crate::model::{DocPairs, DocStatus, Document, SimilarPair};
use crate::progress::{Reporter, Stage};
use crate::similarity::fellegi_sunter::probability_of;
use crate::similarity::{join, sets};
use crate::sketch::Sketcher;
use crate::text::hash_shingle;

/// What a records scan is asked to do besides a files scan's matching.
#[derive(Clone, Debug)]
pub struct RecordConfig {
    pub kind: InputKind,
    /// Each field its own set, signature and bands; pairs scored field-wise.
    pub per_field: bool,
    /// One weight per field (per-field scores); empty = equal weights.
    pub weights: Vec<f64>,
    /// Only pairs of records from different inputs (the first input's
    /// records have the lower ids, so `a` is always from it).
    pub link: bool,
    /// With `per_field`: the fields whose bands (or joins) make candidates,
    /// by name; empty = every field, or with `blocks`, none.
    pub candidate_fields: Vec<String>,
    /// With `per_field`: blocking keys, whose blocks are candidates beside
    /// the candidate fields' bands.
    pub blocks: Vec<BlockKey>,
    /// Blocks of more records than this are skipped (and reported).
    pub block_cap: usize,
    /// With `per_field`: score the candidates by the Fellegi–Sunter model
    /// (trained on them) instead of the weighted Jaccard mean; the scan's
    /// threshold is then the match probability.
    pub model: Option<FsConfig>,
}

/// A reported pair `(a, b)` and its fields' similarities.
pub(super) type FieldRow = ((u32, u32), Vec<Option<f64>>);

/// Per reported pair, the similarity of each field (`None`: empty in one of
/// the two records, not part of the score).
#[derive(Clone, Debug, Default)]
pub struct FieldScores {
    pub names: Vec<String>,
    /// Sorted by `(a, b)`.
    pub pairs: Vec<FieldRow>,
    /// The values are match weights (Fellegi–Sunter): each row is the
    /// pair's total weight, then one weight per field.
    pub match_weights: bool,
}

impl FieldScores {
    /// The field similarities of the pair `(a, b)`, if it was reported.
    pub fn of(&self, a: u32, b: u32) -> Option<&[Option<f64>]> {
        let key = (a.min(b), a.max(b));
        self.pairs
            .binary_search_by_key(&key, |(k, _)| *k)
            .ok()
            .map(|i| self.pairs[i].1.as_slice())
    }
}

/// A verified pair and its fields' similarities.
type Scored = (SimilarPair, Vec<Option<f64>>);

/// The result of [`scan_records`]: the same outcome a files scan gives
/// (documents are the records, their path the record id), and with
/// `per_field`, each pair's field similarities.
#[derive(Debug)]
pub struct RecordOutcome {
    pub outcome: ScanOutcome,
    pub fields: Option<FieldScores>,
    /// With `per_field`: where the candidates came from.
    pub candidates: Option<CandidateReport>,
    /// With a model: what it was trained to.
    pub model: Option<Trained>,
}

/// Finds the similar pairs of `records`. `skipped` rows were already
/// reported by the reader; they are counted as errors.
pub fn scan_records(
    records: Records,
    config: &ScanConfig,
    record: &RecordConfig,
    reporter: &dyn Reporter,
) -> RecordOutcome {
    let (method, reason) = decision(config);
    // Whole text records under LSH (the default): without holding the sets.
    if method == Method::Lsh
        && !record.per_field
        && record.kind != InputKind::Sets
        && record.weights.iter().all(|&w| w == 1.0)
    {
        return compact::scan(records, config, record.link, (reason, None), reporter);
    }
    scan_held(records, config, record, (method, reason, None), reporter)
}

/// Signatures made before a records scan: an index's (`scan --db`,
/// [`crate::index::items`]). Row `i` of `matrix` is record `i`'s signature
/// under the scan's recipe (zeros when it has no shingle), `shingles[i]`
/// the size of its set.
#[derive(Debug)]
pub struct Presigned {
    pub matrix: Vec<u32>,
    pub shingles: Vec<u32>,
}

/// [`scan_records`] of whole records (or sets) under LSH whose signatures
/// were made already (`presigned`, one row per record in order): the same
/// outcome, the same candidates and verification, with no record signed;
/// `stats.signatures` is 0, for the caller to set to what it signed.
///
/// # Panics
///
/// If `record` asks for fields compared one by one, weights or a model
/// (whose signatures are per field), if `config` fixes the exact method,
/// or if `presigned` does not hold one row per record: refuse those while
/// configuring.
pub fn scan_records_signed(
    records: Records,
    config: &ScanConfig,
    record: &RecordConfig,
    presigned: Presigned,
    reporter: &dyn Reporter,
) -> RecordOutcome {
    assert!(
        !record.per_field && record.model.is_none() && record.weights.iter().all(|&w| w == 1.0),
        "signatures made before the scan are of whole records"
    );
    assert!(
        config.method != MethodChoice::Fixed(Method::Exact),
        "an index serves the LSH method only"
    );
    let n = config.recipe.banding.signature_len();
    assert!(
        presigned.shingles.len() == records.records.len()
            && presigned.matrix.len() == records.records.len() * n,
        "one signature per record"
    );
    let reason = match config.method {
        MethodChoice::Fixed(_) => Reason::RecordsRequested,
        MethodChoice::Banded | MethodChoice::Auto => Reason::IndexSignatures,
    };
    let mut outcome = if record.kind != InputKind::Sets {
        compact::scan(
            records,
            config,
            record.link,
            (reason, Some(presigned)),
            reporter,
        )
    } else {
        scan_held(
            records,
            config,
            record,
            (Method::Lsh, reason, Some(presigned)),
            reporter,
        )
    };
    outcome.outcome.stats.signatures = 0;
    outcome
}

/// Finds the similar pairs among `texts`, record `i` being `texts[i]` with
/// the id `i`: what [`scan_records`] gives for them as records of one text
/// field (`--input jsonl` without per-field options). Under LSH, without
/// making the records first: each text is copied once, into the scan's
/// columns (the Python package's `dedupe`).
pub fn scan_texts(
    texts: &[impl AsRef<str> + Sync],
    config: &ScanConfig,
    reporter: &dyn Reporter,
) -> RecordOutcome {
    let record = RecordConfig {
        kind: InputKind::Jsonl,
        per_field: false,
        weights: Vec::new(),
        link: false,
        candidate_fields: Vec::new(),
        blocks: Vec::new(),
        block_cap: DEFAULT_BLOCK_CAP,
        model: None,
    };
    let (method, reason) = decision(config);
    if method == Method::Lsh {
        return compact::scan_texts(texts, config, reason, reporter);
    }
    let records = texts
        .iter()
        .enumerate()
        .map(|(i, text)| crate::input::records::Record {
            id: i.to_string(),
            fields: vec![text.as_ref().to_owned()],
            origin: crate::input::records::Origin {
                input: 0,
                line: i as u64 + 1,
                offset: 0,
            },
        })
        .collect();
    let records = Records {
        fields: vec!["text".to_owned()],
        records,
        skipped: 0,
        reread: None,
        decoded: false,
    };
    scan_records(records, config, &record, reporter)
}

/// The method a records scan takes under `config`, and why.
fn decision(config: &ScanConfig) -> (Method, Reason) {
    let method = match config.method {
        MethodChoice::Fixed(method) => method,
        MethodChoice::Banded | MethodChoice::Auto => Method::Lsh,
    };
    let reason = match config.method {
        MethodChoice::Fixed(_) => Reason::RecordsRequested,
        MethodChoice::Banded => Reason::RecordsBandingGiven,
        MethodChoice::Auto => Reason::RecordsAuto,
    };
    (method, reason)
}

/// A record scan's counts before it signs: the records read count as its
/// files, the rows skipped as its errors.
fn stats_of(records: &Records) -> ScanStats {
    ScanStats {
        files: records.records.len() as u64,
        errors: records.skipped,
        ..ScanStats::default()
    }
}

/// [`scan_records`] with every record's sets held in memory: per field,
/// `sets` records, the exact method (the join needs the sets), weights.
fn scan_held(
    records: Records,
    config: &ScanConfig,
    record: &RecordConfig,
    (method, reason, mut presigned): (Method, Reason, Option<Presigned>),
    reporter: &dyn Reporter,
) -> RecordOutcome {
    let mut stats = stats_of(&records);
    let names = if record.per_field {
        records.fields.clone()
    } else {
        vec![records.fields.join("+")]
    };
    let fields = names.len();
    // The exact method's joins: every field, or those named (none when
    // keys are given without candidate fields).
    let candidate_field = |f: usize| {
        !record.per_field
            || (record.candidate_fields.is_empty() && record.blocks.is_empty())
            || record.candidate_fields.contains(&names[f])
    };
    // The threshold the candidates are made for: the score's, or under the
    // model (whose threshold is a probability) the one it names.
    let candidate_threshold = record
        .model
        .as_ref()
        .map_or(config.threshold, |m| m.candidate_threshold);
    let weights: Vec<f64> = if record.weights.len() == fields {
        record.weights.clone()
    } else {
        vec![1.0; fields]
    };

    reporter.begin(Stage::Sign, Some(records.records.len() as u64));
    // field_sets[f][i]: record i's set for field f.
    let per_record: Vec<Vec<Vec<u64>>> = records
        .records
        .par_iter()
        .map(|r| {
            if reporter.cancelled() {
                return vec![Vec::new(); fields];
            }
            let sets = sets_of(&r.fields, config, record);
            reporter.advance(1);
            sets
        })
        .collect();
    reporter.end(Stage::Sign);
    let mut field_sets: Vec<Vec<Vec<u64>>> = (0..fields)
        .map(|_| Vec::with_capacity(per_record.len()))
        .collect();
    for sets in per_record {
        for (f, set) in sets.into_iter().enumerate() {
            field_sets[f].push(set);
        }
    }
    let input_of: Vec<u32> = records.records.iter().map(|r| r.origin.input).collect();
    // The fields' values, for the blocking keys only.
    let values: Vec<Vec<String>> = if record.per_field && !record.blocks.is_empty() {
        records.records.iter().map(|r| r.fields.clone()).collect()
    } else {
        Vec::new()
    };
    // The fields' values as the model compares them.
    let compared = record.model.as_ref().map(|_| {
        let fields: Vec<Vec<String>> = records.records.iter().map(|r| r.fields.clone()).collect();
        Values::new(&fields, names.len(), config.recipe.normalization)
    });

    let mut documents: Vec<Document> = records
        .records
        .into_iter()
        .enumerate()
        .map(|(i, r)| Document {
            size: r.len(),
            path: std::path::PathBuf::from(r.id).into_boxed_path(),
            modified: None,
            shingles: u32::try_from(field_sets.iter().map(|f| f[i].len()).sum::<usize>())
                .unwrap_or(u32::MAX),
            status: DocStatus::Read,
        })
        .collect();
    for doc in &mut documents {
        stats.bytes += doc.size;
        if doc.shingles == 0 {
            stats.no_shingles += 1;
            reporter.note(
                &doc.path,
                &"record with no shingle (empty or shorter than one shingle): never paired",
            );
        }
    }
    stats.unique_contents = documents.iter().filter(|d| d.shingles > 0).count() as u64;

    let cross = |a: u32, b: u32| !record.link || input_of[a as usize] != input_of[b as usize];

    let signatures;
    let mut scheme = Vec::new();
    let mut chosen = None;
    let mut candidates: Vec<(u32, u32)> = match method {
        Method::Exact => {
            reporter.begin(Stage::Join, None);
            let mut all = Vec::new();
            for (_, sets) in field_sets
                .iter()
                .enumerate()
                .filter(|(f, _)| candidate_field(*f) && !reporter.cancelled())
            {
                // The threshold is in (0, 1] and ids fit u32 (checked by the
                // reader), the join's only refusals.
                let index = config.exact_index.unwrap_or_default();
                let joined = join::all_pairs_by(sets, candidate_threshold, index)
                    .expect("threshold in (0, 1] and fewer than 2^32 records");
                all.extend(joined.pairs.iter().map(|p| (p.a, p.b)));
                stats.join_index_entries += joined.stats.index_entries;
                stats.join_probe_hits += joined.stats.probe_hits;
                stats.join_lookups += joined.stats.lookups;
            }
            all.sort_unstable();
            all.dedup();
            reporter.end(Stage::Join);
            signatures = None;
            all
        }
        Method::Lsh => {
            reporter.begin(Stage::Band, None);
            let sketcher = config.recipe.sketcher();
            let n = config.recipe.banding.signature_len();
            let mut all = Vec::new();
            let mut matrices = Vec::with_capacity(fields);
            // What the choice of candidates, and the pairs beyond the
            // chosen bands, are computed from.
            let view = candidates::Fields {
                sets: &field_sets,
                weights: &weights,
                threshold: candidate_threshold,
                banding: config.recipe.banding,
                link: record.link.then_some(input_of.as_slice()),
            };
            (scheme, chosen) = if record.per_field {
                candidates::scheme(
                    &view,
                    &names,
                    &record.candidate_fields,
                    !record.blocks.is_empty(),
                )
            } else {
                (vec![Some(config.recipe.banding)], None)
            };
            for (f, sets) in field_sets.iter().enumerate() {
                // Rows of every record (an empty set's row is unused), the
                // band keys of the non-empty ones only.
                // Whole records signed before the scan (one field) are
                // banded as they are.
                let matrix = match presigned.take() {
                    Some(signed) => signed.matrix,
                    None => {
                        let mut matrix = vec![0u32; sets.len() * n];
                        matrix
                            .par_chunks_mut(n)
                            .zip(sets.par_iter())
                            .for_each(|(row, set)| {
                                if !set.is_empty() {
                                    sketcher.sign_into(set, row);
                                }
                            });
                        matrix
                    }
                };
                // The field's own bands (the first bands × rows values of
                // its signature), or none.
                if let Some(banding) = scheme[f]
                    && !reporter.cancelled()
                {
                    all.extend(candidates::banded(
                        &matrix,
                        n,
                        |i| !sets[i].is_empty(),
                        banding,
                    ));
                }
                matrices.push(matrix);
            }
            if chosen.is_some() && !reporter.cancelled() {
                all.extend(candidates::beyond_pairs(&view, &scheme, &matrices, n));
            }
            all.sort_unstable();
            all.dedup();
            reporter.end(Stage::Band);
            signatures = Some(matrices);
            all
        }
    };
    let mut report = None;
    if record.per_field {
        let (pairs, kept, skipped) = candidates::blocks(
            &values,
            &record.blocks,
            |field| names.iter().position(|n| n == field).unwrap_or(usize::MAX),
            record.block_cap,
        );
        if !pairs.is_empty() {
            candidates.extend(pairs);
            candidates.sort_unstable();
            candidates.dedup();
        }
        if method == Method::Exact {
            scheme = (0..fields)
                .map(|f| candidate_field(f).then_some(config.recipe.banding))
                .collect();
        }
        report = Some(CandidateReport {
            fields: names.clone(),
            scheme: std::mem::take(&mut scheme),
            keys: kept,
            skipped,
            chosen,
        });
    }
    let candidates: Vec<(u32, u32)> = candidates
        .into_iter()
        .filter(|&(a, b)| cross(a, b))
        .collect();
    stats.candidates = candidates.len() as u64;
    stats.signatures = if signatures.is_some() {
        stats.unique_contents
    } else {
        0
    };

    if let (Some(model), Some(values)) = (&record.model, &compared) {
        let first = record
            .link
            .then(|| input_of.iter().take_while(|&&i| i == 0).count() as u32);
        return scored_by_model(
            values,
            (documents, stats),
            (&names, &candidates),
            (first, model, config.threshold),
            (method, reason, report),
            reporter,
        );
    }
    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let n = config.recipe.banding.signature_len();
    let by_signature = method == Method::Lsh && config.verification == Verification::Signature;
    // Only the pairs reported are kept (see scored_by_model).
    let scored: Vec<Scored> = candidates
        .par_iter()
        .filter_map(|&(a, b)| {
            if reporter.cancelled() {
                return None;
            }
            // Field f's signature estimate and its similarity (with the
            // shingles shared), or None where it is empty on a side.
            let estimate_of = |f: usize| {
                signatures.as_ref().map(|m| {
                    let (ra, rb) = (
                        &m[f][a as usize * n..(a as usize + 1) * n],
                        &m[f][b as usize * n..(b as usize + 1) * n],
                    );
                    ra.iter().zip(rb).filter(|(x, y)| x == y).count() as f64 / n as f64
                })
            };
            let field = |f: usize| {
                let (sa, sb) = (&field_sets[f][a as usize], &field_sets[f][b as usize]);
                if sa.is_empty() || sb.is_empty() {
                    return None;
                }
                Some(if by_signature {
                    (estimate_of(f).unwrap_or(0.0), 0)
                } else {
                    let common = sets::intersection_size(sa, sb);
                    (sets::ratio(common, sa.len() + sb.len() - common), common)
                })
            };
            // The score first; the fields' list and the estimates (100
            // values a field to compare) only for the few pairs reported.
            let (mut total, mut weight, mut shared) = (0.0, 0.0, 0usize);
            for (f, w) in weights.iter().enumerate() {
                if let Some((similarity, common)) = field(f) {
                    total += w * similarity;
                    weight += w;
                    shared += common;
                }
            }
            reporter.advance(1);
            let score = if weight > 0.0 { total / weight } else { 0.0 };
            (score >= config.threshold).then(|| {
                let per_field: Vec<Option<f64>> =
                    (0..fields).map(|f| field(f).map(|(s, _)| s)).collect();
                let estimated: f64 = (0..fields)
                    .filter(|&f| per_field[f].is_some())
                    .map(|f| weights[f] * estimate_of(f).unwrap_or(0.0))
                    .sum();
                let pair = SimilarPair {
                    a,
                    b,
                    similarity: score,
                    estimate: signatures.as_ref().map(|_| {
                        if weight > 0.0 {
                            estimated / weight
                        } else {
                            0.0
                        }
                    }),
                    shared: (!by_signature && !record.per_field).then_some(shared),
                };
                (pair, per_field)
            })
        })
        .collect();
    reporter.end(Stage::Verify);
    stats.pairs = scored.len() as u64;

    let ids: Vec<u32> = (0..documents.len() as u32).collect();
    let contents = ids.iter().map(|i| (std::slice::from_ref(i), None));
    let between: Vec<SimilarPair> = scored.iter().map(|(p, _)| *p).collect();
    let pairs = DocPairs::new(contents, between);
    let fields = record.per_field.then(|| FieldScores {
        names,
        pairs: scored.into_iter().map(|(p, f)| ((p.a, p.b), f)).collect(),
        match_weights: false,
    });
    RecordOutcome {
        outcome: ScanOutcome {
            documents,
            pairs,
            stats,
            decision: Decision { method, reason },
        },
        fields,
        candidates: report,
        model: None,
    }
}

/// The end of [`scan_held`] under the Fellegi–Sunter model: trains it on
/// the candidates, then reports those whose match probability reaches
/// `threshold`, each with its total and per-field match weights.
fn scored_by_model(
    values: &Values,
    (documents, mut stats): (Vec<Document>, ScanStats),
    (names, candidates): (&[String], &[(u32, u32)]),
    (first, model, threshold): (Option<u32>, &FsConfig, f64),
    (method, reason, report): (Method, Reason, Option<CandidateReport>),
    reporter: &dyn Reporter,
) -> RecordOutcome {
    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let (trained, codes) = fellegi_sunter::train(values, names, candidates, first, model);
    let width = names.len().max(1);
    // Each candidate's total from weights looked up; the breakdown only for
    // the pairs reported.
    let lookup = values.weights(&trained.model, model.term_frequency);
    // Only the pairs reported are kept (a candidate's slot would cost more
    // than its pair: a million candidates, a few thousand reported).
    // Progress a chunk at a time: the reporter takes a lock.
    const CHUNK: usize = 4096;
    let scored: Vec<Scored> = candidates
        .par_chunks(CHUNK)
        .zip(codes.par_chunks(width * CHUNK))
        .flat_map_iter(|(pairs, codes)| {
            let cancelled = reporter.cancelled();
            if !cancelled {
                reporter.advance(pairs.len() as u64);
            }
            let (lookup, trained) = (&lookup, &trained);
            pairs
                .iter()
                .zip(codes.chunks(width))
                .filter(move |_| !cancelled)
                .filter_map(move |(&(a, b), codes)| {
                    let total = lookup.total(values, codes, a);
                    (probability_of(total) >= threshold).then(|| {
                        let weights =
                            values.breakdown_of(&trained.model, codes, a, model.term_frequency);
                        debug_assert_eq!(weights.total.to_bits(), total.to_bits());
                        let pair = SimilarPair {
                            a,
                            b,
                            similarity: weights.probability,
                            estimate: None,
                            shared: None,
                        };
                        let mut row = Vec::with_capacity(names.len() + 1);
                        row.push(Some(weights.total));
                        row.extend(weights.fields.iter().map(|f| f.level.map(|_| f.weight)));
                        (pair, row)
                    })
                })
        })
        .collect();
    reporter.end(Stage::Verify);
    stats.pairs = scored.len() as u64;
    let ids: Vec<u32> = (0..documents.len() as u32).collect();
    let contents = ids.iter().map(|i| (std::slice::from_ref(i), None));
    let between: Vec<SimilarPair> = scored.iter().map(|(p, _)| *p).collect();
    RecordOutcome {
        outcome: ScanOutcome {
            documents,
            pairs: DocPairs::new(contents, between),
            stats,
            decision: Decision { method, reason },
        },
        fields: Some(FieldScores {
            names: names.to_vec(),
            pairs: scored.into_iter().map(|(p, f)| ((p.a, p.b), f)).collect(),
            match_weights: true,
        }),
        candidates: report,
        model: Some(trained),
    }
}

/// A record's sets: one per field with `per_field`, else one of its fields
/// joined by a space. Text goes through the recipe's normalisation and
/// shingling; a `sets` record's tokens are hashed whole.
fn sets_of(fields: &[String], config: &ScanConfig, record: &RecordConfig) -> Vec<Vec<u64>> {
    if record.per_field && record.kind != InputKind::Sets {
        fields
            .iter()
            .map(|f| config.recipe.set_of(f.as_bytes()))
            .collect()
    } else {
        vec![record_set(fields, &config.recipe, record.kind)]
    }
}

/// A whole record's set (not per field): its fields joined by a space,
/// normalised and shingled, or a `sets` record's tokens hashed whole. What
/// `simfind sign` signs a record by, and `verify --pairs` re-builds.
pub(crate) fn record_set(
    fields: &[String],
    recipe: &crate::recipe::Recipe,
    kind: InputKind,
) -> Vec<u64> {
    if kind == InputKind::Sets {
        let mut set: Vec<u64> = fields.iter().map(|t| hash_shingle(t.as_bytes())).collect();
        set.sort_unstable();
        set.dedup();
        return set;
    }
    recipe.set_of(fields.join(" ").as_bytes())
}
