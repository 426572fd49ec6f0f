//! Which method finds the pairs: the exact prefix-filter join
//! ([`crate::similarity::join`], MMDS 3.9) or MinHash + LSH (MMDS 3.3–3.4), and the
//! cost model behind `--method auto`.
//!
//! **Input**: a [`Workload`] known before any file is read — the number of
//! files and their bytes (from the walk), the threshold, the signature length
//! and the memory budget. **Output**: a [`Decision`], the method and a
//! one-line reason for the summary.
//!
//! Both methods read, normalise and shingle every file once; they differ in
//! what follows. LSH computes `b·r` MinHash values per shingle, bands, then
//! verifies candidates by re-reading their files. The exact join keeps every
//! shingle set in memory (about `8` bytes per shingle, and as much again while
//! the join ranks tokens) and runs AllPairs/PPJoin, whose work grows as the
//! threshold falls (prefixes hold `≈ (1−T)` of each set and many more
//! candidates survive); LSH's verification grows the same way, since the
//! banding for a low threshold makes many more candidates. The model estimates
//! both extra costs per shingle, in CPU nanoseconds, with constants measured on
//! this project's corpora (see `docs/PERFORMANCE.md`, "Choosing the method"),
//! and picks the cheaper one — but the exact join only when its sets fit both
//! in `--verify-memory` and in the memory LSH would need anyway
//! ([`lsh_memory_envelope`]), so that `auto` keeps every scan within 1.5 × its
//! signatures + 64 MB (the memory budget of `docs/PERFORMANCE.md`, "Memory"). In practice: the join for small corpora at
//! low thresholds, LSH otherwise. It is a rough guide, not a promise:
//! `--method exact` and `--method lsh` force either.
//!
//! Sizes cannot tell what the join's probes will meet, so once `auto`'s join
//! has built its index, a sample of its probes predicts its cost, and
//! [`give_up_join`] hands its sets to LSH in memory when that is far cheaper.

pub use super::config::{Method, MethodChoice};
use super::config::{ScanConfig, Verification};
use crate::lsh::Banding;
use crate::similarity::Prediction;
use crate::text::ShingleKind;

/// What is known about a scan before it reads any file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Workload {
    /// Files to read.
    pub files: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// Expected distinct shingles per input byte (see [`tokens_per_byte`]).
    pub tokens_per_byte: f64,
    /// Pairs with Jaccard ≥ this are wanted.
    pub threshold: f64,
    /// MinHash values per document (`bands × rows`).
    pub signature_len: usize,
    /// Bytes the exact join may use for shingle sets and its own tables.
    pub memory_budget: u64,
    /// `--verify signature`: similarity estimated from signatures, which only
    /// LSH computes.
    pub signature_verification: bool,
}

/// The method chosen and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub method: Method,
    pub reason: Reason,
}

/// Why a method was chosen: what the summary line says, as values. The
/// library's wording ([`Decision`]'s `Display`) names parameters; the binary
/// words it with its flags.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// The method was fixed by the caller.
    Requested,
    /// `auto`: bands and rows were given, which only LSH uses.
    BandingGiven,
    /// `auto`: similarity is estimated from signatures, which only LSH makes.
    BySignature,
    /// `auto`: the exact method's shingle sets (`need` bytes) exceed the
    /// verification memory budget.
    OverBudget { need: f64, budget: f64 },
    /// `auto`: the exact method's sets need more memory than LSH would.
    OverEnvelope { need: f64, envelope: f64 },
    /// `auto`: the cost model's estimates, in CPU seconds beyond reading,
    /// and the exact method's memory.
    CostModel {
        threshold: f64,
        exact_seconds: f64,
        lsh_seconds: f64,
        exact_memory: f64,
    },
    /// `auto`: the exact method's memory estimate passed the budget while
    /// the files were still being walked.
    OverBudgetDuringWalk,
    /// `auto`: the exact join, once its index was built, predicted itself
    /// more than `margin` × dearer than LSH over its sets in memory.
    JoinAbandoned {
        join_seconds: f64,
        margin: f64,
        lsh_seconds: f64,
    },
    /// Only identical contents were looked for, compared this way.
    Identical(super::config::IdenticalBy),
    /// Records: the method was fixed by the caller.
    RecordsRequested,
    /// Records: bands and rows were given.
    RecordsBandingGiven,
    /// Records under `auto`: LSH, since the join's prefix filter gains little
    /// on short records' shingles (docs/RECORDS.md).
    RecordsAuto,
    /// Candidates read from a band join run elsewhere, at this path.
    BandJoin(std::path::PathBuf),
    /// `auto` with an index: its MinHash signatures are reused.
    IndexSignatures,
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let method = self.method.name();
        match &self.reason {
            Reason::Requested => write!(f, "{method} (as requested)"),
            Reason::BandingGiven => f.write_str("auto: lsh (bands and rows given)"),
            Reason::BySignature => f.write_str(
                "auto: lsh (verification by signature estimates similarity from signatures)",
            ),
            Reason::OverBudget { need, budget } => write!(
                f,
                "auto: lsh (exact would hold ~{} of shingle sets, over the {} budget of \
                 verify_memory)",
                human_bytes(*need),
                human_bytes(*budget)
            ),
            Reason::OverEnvelope { need, envelope } => write!(
                f,
                "auto: lsh (exact would hold ~{} of shingle sets, more than the ~{} LSH needs; \
                 the exact method, asked for, forces it)",
                human_bytes(*need),
                human_bytes(*envelope)
            ),
            Reason::CostModel {
                threshold,
                exact_seconds,
                lsh_seconds,
                exact_memory,
            } => write!(
                f,
                "auto: {method} (cost model at t = {threshold:.3}: exact ~{exact_seconds:.1} s, \
                 lsh ~{lsh_seconds:.1} s of CPU beyond reading; exact needs ~{} of memory)",
                human_bytes(*exact_memory)
            ),
            Reason::JoinAbandoned {
                join_seconds,
                margin,
                lsh_seconds,
            } => write!(
                f,
                "auto: lsh (the exact join's sampled probes predicted ~{join_seconds:.1} s of \
                 CPU, more than {margin:.1} × the ~{lsh_seconds:.1} s of LSH over its sets in \
                 memory)"
            ),
            Reason::OverBudgetDuringWalk => f.write_str(
                "auto: lsh (exact's memory estimate passed verify_memory during the walk)",
            ),
            Reason::Identical(by) => write!(f, "identical contents by {by}"),
            Reason::RecordsRequested => write!(f, "{method} (as requested)"),
            Reason::RecordsBandingGiven => f.write_str("lsh (bands and rows given)"),
            Reason::RecordsAuto => f.write_str(
                "auto: lsh (records: the join's prefix filter gains little on short records' \
                 shingles, see docs/RECORDS.md; the exact method finds every pair)",
            ),
            Reason::BandJoin(path) => {
                write!(f, "lsh: candidates of the band join in {}", path.display())
            }
            Reason::IndexSignatures => {
                f.write_str("auto: lsh (an index's MinHash signatures are reused)")
            }
        }
    }
}

/// Distinct shingles per input byte (per document, summed), measured on the
/// shared corpora with the default normalisation: char 5-shingles 0.28
/// (debian-docs) and 0.35 (django-docs); word 3-shingles about one per word
/// of ~6 bytes.
pub fn tokens_per_byte(char_shingles: bool) -> f64 {
    if char_shingles { 0.3 } else { 0.15 }
}

// CPU nanoseconds per shingle, measured on an idle machine on debian-docs and
// django-docs (char 5-shingles, `docs/PERFORMANCE.md`, "Choosing the method").
/// LSH, per MinHash value per shingle: the runtime-dispatched signing kernel
/// (0.18 with AVX-512, about twice that with AVX2).
const NS_PER_HASH: f64 = 0.25;
/// LSH, re-reading and re-shingling candidate files to verify them, at a high
/// threshold (few candidates; measured ~15 on debian-docs, ~70 on django-docs,
/// where most files have a near-copy).
const NS_LSH_FIXED: f64 = 40.0;
/// LSH, times `((1 − T) / T)²`: the banding that suits a low threshold makes
/// many more candidates, each verified by a merge of two sets (measured +300
/// on debian-docs and +1100 on django-docs at t = 0.5).
const NS_LSH_PROBE: f64 = 300.0;
/// The join, independent of the threshold: sorting every set, counting,
/// ranking and re-coding every token (measured 90–100 more than LSH's signing
/// and verification at t = 1).
const NS_JOIN_FIXED: f64 = 100.0;
/// The join, times `((1 − T) / T)²`: prefixes, and the posting lists they
/// probe, grow with `1 − T` (measured +140 / +190 at t = 0.5 on
/// debian / django).
const NS_JOIN_PROBE: f64 = 160.0;
/// Bytes the exact method holds per estimated shingle (`bytes ×
/// tokens_per_byte`) at its peak: the sets (8 per shingle) and the join's
/// counting tables (32–64 per distinct shingle), now that the join re-codes
/// the sets in place and frees them before its ranked copy is made. Measured
/// as whole-process peak RSS at t = 0.8: 14.7 on debian-docs, 11.1 on
/// django-docs (`docs/PERFORMANCE.md`, "Exact verification within the memory
/// bound").
pub const EXACT_BYTES_PER_TOKEN: f64 = 15.0;
/// Memory every scan may use besides its signatures (the budget of
/// `docs/PERFORMANCE.md`, "Memory":
/// peak RSS ≤ 1.5 × signatures + 64 MB).
const BASE_MEMORY: f64 = 64e6;

/// The memory LSH needs at most (1.5 × its signature matrix + 64 MB): `auto`
/// chooses the exact join only when its sets fit in this too, so that
/// `auto` never needs more memory than LSH would.
pub fn lsh_memory_envelope(w: &Workload) -> f64 {
    1.5 * w.files as f64 * w.signature_len as f64 * 4.0 + BASE_MEMORY
}

/// Estimated extra CPU seconds of each method beyond the reading and
/// shingling they share, `(exact, lsh)`.
pub fn estimate_seconds(w: &Workload) -> (f64, f64) {
    let tokens = w.bytes as f64 * w.tokens_per_byte;
    let t = w.threshold.clamp(1e-3, 1.0);
    let spread = ((1.0 - t) / t).powi(2);
    let exact = tokens * (NS_JOIN_FIXED + NS_JOIN_PROBE * spread) * 1e-9;
    let lsh = tokens
        * (NS_PER_HASH * w.signature_len as f64 + NS_LSH_FIXED + NS_LSH_PROBE * spread)
        * 1e-9;
    (exact, lsh)
}

/// Estimated peak bytes of the exact method.
pub fn exact_peak_bytes(w: &Workload) -> f64 {
    w.bytes as f64 * w.tokens_per_byte * EXACT_BYTES_PER_TOKEN
}

/// The decision when it does not depend on the corpus: a method given by
/// `--method`, a banding given by `--bands`/`--rows`, or `--verify signature`
/// (both only mean something to LSH). `None` when the cost model decides.
pub fn settled(choice: MethodChoice, signature_verification: bool) -> Option<Decision> {
    match choice {
        MethodChoice::Fixed(method) => Some(Decision {
            method,
            reason: Reason::Requested,
        }),
        MethodChoice::Banded => Some(Decision {
            method: Method::Lsh,
            reason: Reason::BandingGiven,
        }),
        MethodChoice::Auto if signature_verification => Some(Decision {
            method: Method::Lsh,
            reason: Reason::BySignature,
        }),
        MethodChoice::Auto => None,
    }
}

/// The method for `choice`, with the reason shown in the summary.
pub fn choose(choice: MethodChoice, w: &Workload) -> Decision {
    if let Some(decision) = settled(choice, w.signature_verification) {
        return decision;
    }
    let (exact, lsh) = estimate_seconds(w);
    let memory = exact_peak_bytes(w);
    if memory > w.memory_budget as f64 {
        return Decision {
            method: Method::Lsh,
            reason: Reason::OverBudget {
                need: memory,
                budget: w.memory_budget as f64,
            },
        };
    }
    let envelope = lsh_memory_envelope(w);
    if memory > envelope {
        return Decision {
            method: Method::Lsh,
            reason: Reason::OverEnvelope {
                need: memory,
                envelope,
            },
        };
    }
    let method = if exact <= lsh {
        Method::Exact
    } else {
        Method::Lsh
    };
    Decision {
        method,
        reason: Reason::CostModel {
            threshold: w.threshold,
            exact_seconds: exact,
            lsh_seconds: lsh,
            exact_memory: memory,
        },
    }
}

/// Bytes as the reasons say them: GB with one decimal, else whole MB.
pub fn human_bytes(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.1} GB", bytes / 1e9)
    } else {
        format!("{:.0} MB", (bytes / 1e6).ceil())
    }
}

/// How much dearer than LSH over its sets the exact join may turn out before
/// `auto` gives it up: the join misses no pair, so it is kept while within
/// this factor of the way out, whose estimate is the rougher of the two.
pub const JOIN_MARGIN: f64 = 2.0;

// CPU nanoseconds of LSH over the join's sets in memory (`join_fallback`),
// measured beside the join's own (docs/PERFORMANCE.md, "When auto gives up
// the exact join").
/// Per MinHash value per token while signing the ranked sets.
const NS_FALLBACK_HASH: f64 = 0.08;
/// Per band key: hashing a band, and the bucket sort that meets candidates.
const NS_FALLBACK_BAND_KEY: f64 = 50.0;
/// Candidates LSH verifies per pair it reports, at most (after the
/// signatures rule out the clear non-pairs; 1.1–29 measured).
const FALLBACK_CANDIDATES_PER_PAIR: f64 = 30.0;
/// Per signature value per verified candidate: the candidates the signatures
/// rule out first (up to five per survivor measured), compared value by value.
const NS_FALLBACK_RULE_OUT: f64 = 5.0;

/// Estimated CPU seconds of LSH with `banding` over the sets of the join
/// that `join` predicts: signing, banding, and ruling out and verifying
/// `FALLBACK_CANDIDATES_PER_PAIR` candidates per pair, plus one per set.
/// Pessimistic (2–3.5× the measured cost on documents, 1.4× on tiny files),
/// so that the exact join is given up only when it is far dearer.
pub fn fallback_seconds(join: &Prediction, banding: Banding) -> f64 {
    let sign = join.tokens as f64 * banding.signature_len() as f64 * NS_FALLBACK_HASH * 1e-9;
    let band = join.sets as f64 * banding.bands as f64 * NS_FALLBACK_BAND_KEY * 1e-9;
    let candidates = FALLBACK_CANDIDATES_PER_PAIR * join.pairs() + join.sets as f64;
    let rule_out = banding.signature_len() as f64 * NS_FALLBACK_RULE_OUT * 1e-9;
    sign + band + candidates * (rule_out + join.seconds_per_dissimilar_merge())
}

/// Whether `auto` gives the exact join up for LSH over its sets: when the
/// join's sampled probes predict more than [`join_margin`] × that way's cost.
/// The size model behind [`choose`] cannot see how many index entries the
/// probes meet or how long their merges run (many tiny files of one
/// vocabulary at a low threshold); the join's sample can.
pub fn give_up_join(join: &Prediction, banding: Banding) -> bool {
    join.seconds() > join_margin(join) * fallback_seconds(join, banding)
}

/// [`JOIN_MARGIN`], widened for a prediction from a thinned copy: its
/// probes met 1/`thinned` of the sets the sample's would, and a count's
/// relative error grows as the square root of how much smaller it is.
pub fn join_margin(join: &Prediction) -> f64 {
    JOIN_MARGIN * (join.thinned.max(1) as f64).sqrt()
}

// The glue between a scan's configuration and the cost model.

/// Applies `--method`: the cost model needs only what the walk found.
pub(super) fn choose_method(config: &ScanConfig, files: u64, bytes: u64) -> Decision {
    choose(config.method, &workload(config, files, bytes))
}

pub(super) fn workload(config: &ScanConfig, files: u64, bytes: u64) -> Workload {
    Workload {
        files,
        bytes,
        tokens_per_byte: tokens_per_byte(config.recipe.shingler.kind() == ShingleKind::Char),
        threshold: config.threshold,
        signature_len: config.recipe.banding.signature_len(),
        memory_budget: config.verify_memory as u64,
        signature_verification: config.verification == Verification::Signature,
    }
}

/// The method, when it is known before the walk ends: always when fixed by
/// `--method`, `--bands`/`--rows` or `--verify signature`; under `auto` as soon as the files
/// walked so far would already take the exact method over its memory budget
/// (the exact method's memory only grows with more bytes, and [`choose`]
/// never picks it over the budget: `early_lsh_agrees_with_the_cost_model`).
pub(super) fn method_known(config: &ScanConfig, files: u64, bytes: u64) -> Option<Method> {
    let signature_verification = config.verification == Verification::Signature;
    if let Some(decision) = settled(config.method, signature_verification) {
        return Some(decision.method);
    }
    let peak = exact_peak_bytes(&workload(config, files, bytes));
    (peak > config.verify_memory as f64).then_some(Method::Lsh)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(bytes: u64, threshold: f64) -> Workload {
        Workload {
            files: 5_000,
            bytes,
            tokens_per_byte: tokens_per_byte(true),
            threshold,
            signature_len: 100,
            memory_budget: 1 << 30,
            signature_verification: false,
        }
    }

    #[test]
    fn a_fixed_choice_is_obeyed() {
        let w = workload(1 << 40, 0.01);
        assert_eq!(
            choose(MethodChoice::Fixed(Method::Exact), &w).method,
            Method::Exact
        );
        assert_eq!(
            choose(MethodChoice::Fixed(Method::Lsh), &w).method,
            Method::Lsh
        );
    }

    #[test]
    fn small_corpora_pick_exact_at_low_thresholds_lsh_at_high_ones() {
        // 10 MB of text: the join's ~48 MB of sets fit in the 67 MB envelope.
        let low = choose(MethodChoice::Auto, &workload(10_000_000, 0.5));
        assert_eq!(low.method, Method::Exact, "{low}");
        let high = choose(MethodChoice::Auto, &workload(10_000_000, 0.9));
        assert_eq!(high.method, Method::Lsh, "{high}");
        assert!(high.to_string().starts_with("auto: lsh (cost model"));
    }

    #[test]
    fn exact_never_needs_more_memory_than_lsh_would() {
        // 50 MB of text: ~240 MB of sets, within --verify-memory (1 GiB) but
        // far over 1.5 × 5,000 × 400 B + 64 MB.
        let w = workload(50_000_000, 0.5);
        assert!(exact_peak_bytes(&w) < w.memory_budget as f64);
        assert!(exact_peak_bytes(&w) > lsh_memory_envelope(&w));
        let d = choose(MethodChoice::Auto, &w);
        assert_eq!(d.method, Method::Lsh, "{d}");
        assert!(matches!(d.reason, Reason::OverEnvelope { .. }), "{d}");
    }

    #[test]
    fn a_given_banding_or_signature_verification_means_lsh() {
        let d = choose(MethodChoice::Banded, &workload(10_000_000, 0.5));
        assert_eq!(d.method, Method::Lsh, "{d}");
        // Without it, this workload takes the join (see above).
        let w = Workload {
            signature_verification: true,
            ..workload(10_000_000, 0.5)
        };
        let d = choose(MethodChoice::Auto, &w);
        assert_eq!(d.method, Method::Lsh, "{d}");
        assert_eq!(d.reason, Reason::BySignature, "{d}");
        // A method given by --method still wins.
        assert_eq!(
            choose(MethodChoice::Fixed(Method::Exact), &w).method,
            Method::Exact
        );
    }

    #[test]
    fn exact_cost_falls_as_the_threshold_rises() {
        let costs: Vec<f64> = [0.3, 0.5, 0.7, 0.9, 1.0]
            .iter()
            .map(|&t| estimate_seconds(&workload(10_000_000, t)).0)
            .collect();
        assert!(costs.windows(2).all(|w| w[0] > w[1]), "{costs:?}");
    }

    #[test]
    fn corpora_too_big_for_memory_use_lsh() {
        let d = choose(MethodChoice::Auto, &workload(1_000_000_000, 0.95));
        assert_eq!(d.method, Method::Lsh);
        assert!(matches!(d.reason, Reason::OverBudget { .. }), "{d}");
    }
}
