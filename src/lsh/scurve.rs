//! The LSH S-curve of MMDS 3.4.2–3.4.3 and the amplification of MMDS 3.6.3, as a
//! tool for choosing bands and rows.
//!
//! With `b` bands of `r` rows, two documents of Jaccard similarity `s` become a
//! candidate pair with probability `P(s) = 1 - (1 - s^r)^b`; the curve is steepest
//! near `(1/b)^(1/r)`. For a target similarity `T`:
//!
//! * the **false-negative area** `∫_T^1 (1 - P(s)) ds` measures the pairs above `T`
//!   that are missed, and
//! * the **false-positive area** `∫_0^T P(s) ds` the pairs below `T` that become
//!   candidates (and cost a verification),
//!
//! both as if similarities were spread uniformly over `[0, 1]` — the weights of
//! [`tune`] let the caller correct for a real distribution. [`tune`] minimises the
//! weighted sum over every `(b, r)` with `b·r ≤ N`; [`tune_with_floor`] does so
//! among the shapes whose `P(T)` meets a floor; [`tune_min_recall`] instead
//! meets a floor on `P(T)` with the fewest false candidates.
//!
//! [`Stage`] cascades (`AND r` = a band of `r` rows, `OR b` = `b` bands) generalise
//! the banded curve to MMDS 3.6.3's compositions, and [`sensitivity`] maps a
//! MinHash family's `(d1, d2, 1-d1, 1-d2)`-sensitivity through them.
//!
//! Inputs are numbers, outputs are numbers: no I/O. Invariants: every probability
//! returned lies in `[0, 1]`; every curve is non-decreasing in `s`.

/// Probability that two documents of similarity `s` share a bucket in at least
/// one of `bands` bands of `rows` rows.
pub fn candidate_probability(s: f64, bands: usize, rows: usize) -> f64 {
    let s = s.clamp(0.0, 1.0);
    // 1 - (1 - s^r)^b, written with ln_1p/exp_m1 so that tiny s^r keeps precision.
    let p_band = s.powi(rows as i32);
    if p_band >= 1.0 {
        return 1.0;
    }
    -((bands as f64) * (-p_band).ln_1p()).exp_m1()
}

/// The similarity at which the S-curve rises most steeply, approximately
/// `(1/b)^(1/r)` (MMDS 3.4.3).
pub fn threshold(bands: usize, rows: usize) -> f64 {
    (1.0 / bands as f64).powf(1.0 / rows as f64)
}

/// `∫_t^1 (1 - P(s)) ds`: the share of pairs above `t` that LSH misses, if pair
/// similarities were uniform on `[0, 1]`.
pub fn false_negative_area(t: f64, bands: usize, rows: usize) -> f64 {
    let t = t.clamp(0.0, 1.0);
    // 1 - P(s) = (1 - s^r)^b, computed directly so that values near 0 keep precision.
    integrate(|s| miss_probability(s, bands, rows), t, 1.0)
}

/// `∫_0^t P(s) ds`: the share of pairs below `t` that LSH makes candidates, if
/// pair similarities were uniform on `[0, 1]`.
pub fn false_positive_area(t: f64, bands: usize, rows: usize) -> f64 {
    let t = t.clamp(0.0, 1.0);
    integrate(|s| candidate_probability(s, bands, rows), 0.0, t)
}

/// `1 - P(s) = (1 - s^r)^b`: the probability that two documents of
/// similarity `s` share no bucket, accurate when it is tiny.
pub fn miss_probability(s: f64, bands: usize, rows: usize) -> f64 {
    let p_band = s.clamp(0.0, 1.0).powi(rows as i32);
    if p_band >= 1.0 {
        return 0.0;
    }
    ((bands as f64) * (-p_band).ln_1p()).exp()
}

/// Absolute error target of [`integrate`]. Areas that matter are ≥ 1e-6, and
/// [`tune`] compares costs that differ by far more than this.
const INTEGRATION_TOLERANCE: f64 = 1e-12;

/// Adaptive Simpson quadrature with Richardson correction. The interval is first
/// cut into fixed panels so that a steep S-curve cannot hide between the first
/// five samples. Both integrands are monotone, so on every sub-interval their
/// extremes are at the sampled ends and refinement follows the steep part.
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const PANELS: usize = 16;
    if b <= a {
        return 0.0;
    }
    let h = (b - a) / PANELS as f64;
    let tol = INTEGRATION_TOLERANCE / PANELS as f64;
    (0..PANELS)
        .map(|i| {
            let lo = a + h * i as f64;
            let hi = if i + 1 == PANELS { b } else { lo + h };
            let (flo, fmid, fhi) = (f(lo), f(0.5 * (lo + hi)), f(hi));
            let whole = (hi - lo) / 6.0 * (flo + 4.0 * fmid + fhi);
            simpson(&f, lo, hi, flo, fmid, fhi, whole, tol, 40)
        })
        .sum()
}

#[allow(clippy::too_many_arguments)]
fn simpson(
    f: &impl Fn(f64) -> f64,
    a: f64,
    b: f64,
    fa: f64,
    fm: f64,
    fb: f64,
    whole: f64,
    tol: f64,
    depth: u32,
) -> f64 {
    let m = 0.5 * (a + b);
    let (lm, rm) = (0.5 * (a + m), 0.5 * (m + b));
    let (flm, frm) = (f(lm), f(rm));
    let left = (m - a) / 6.0 * (fa + 4.0 * flm + fm);
    let right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
    let delta = left + right - whole;
    if depth == 0 || delta.abs() <= 15.0 * tol {
        return left + right + delta / 15.0;
    }
    simpson(f, a, m, fa, flm, fm, left, tol / 2.0, depth - 1)
        + simpson(f, m, b, fm, frm, fb, right, tol / 2.0, depth - 1)
}

/// A probability paired with the similarity it is taken at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtSimilarity {
    pub similarity: f64,
    pub probability: f64,
}

/// A choice of bands and rows for a target similarity, with what to expect of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    pub bands: usize,
    pub rows: usize,
    /// The target similarity `T` the choice was made for.
    pub target: f64,
    /// `∫_T^1 (1 - P)`, see [`false_negative_area`].
    pub fn_area: f64,
    /// `∫_0^T P`, see [`false_positive_area`].
    pub fp_area: f64,
    /// Expected recall `P(s)` at `T`, `T + 0.05` and `T + 0.1` (points above 1
    /// are left out).
    pub recall: Vec<AtSimilarity>,
    /// Candidate probability `P(s)` at `T − 0.1` and `T − 0.2` (points below 0
    /// are left out).
    pub false_candidates: Vec<AtSimilarity>,
}

impl Tuning {
    fn new(target: f64, bands: usize, rows: usize) -> Tuning {
        let at = |offsets: &[f64]| {
            offsets
                .iter()
                .map(|d| target + d)
                // A tiny tolerance keeps T + 0.1 = 1.0000000000000002 for T = 0.9.
                .filter(|s| (-1e-9..=1.0 + 1e-9).contains(s))
                .map(|s| s.clamp(0.0, 1.0))
                .map(|s| AtSimilarity {
                    similarity: s,
                    probability: candidate_probability(s, bands, rows),
                })
                .collect()
        };
        Tuning {
            bands,
            rows,
            target,
            fn_area: false_negative_area(target, bands, rows),
            fp_area: false_positive_area(target, bands, rows),
            recall: at(&[0.0, 0.05, 0.1]),
            false_candidates: at(&[-0.1, -0.2]),
        }
    }

    /// MinHash values the choice needs: `b·r`.
    pub fn hashes(&self) -> usize {
        self.bands * self.rows
    }

    /// Where this curve is steepest, `(1/b)^(1/r)`.
    pub fn curve_threshold(&self) -> f64 {
        threshold(self.bands, self.rows)
    }

    /// Expected recall at the target similarity itself, `P(T)`.
    pub fn recall_at_target(&self) -> f64 {
        candidate_probability(self.target, self.bands, self.rows)
    }

    /// `fn_weight · fn_area + fp_weight · fp_area`.
    pub fn cost(&self, fn_weight: f64, fp_weight: f64) -> f64 {
        fn_weight * self.fn_area + fp_weight * self.fp_area
    }
}

/// Every `(bands, rows)` with `bands·rows ≤ max_hashes`, rows-major.
fn all_shapes(max_hashes: usize) -> impl Iterator<Item = (usize, usize)> {
    (1..=max_hashes).flat_map(move |rows| (1..=max_hashes / rows).map(move |bands| (bands, rows)))
}

/// Relative slack under which two costs count as equal, so that the tie-break
/// (fewer hashes, then fewer rows) decides rather than quadrature noise.
const TIE: f64 = 1e-9;

/// Chooses `(bands, rows)` with `bands·rows ≤ max_hashes` minimising
/// `fn_weight · false_negative_area + fp_weight · false_positive_area` at
/// `threshold`, by trying every shape. Ties go to fewer hashes, then fewer rows.
///
/// Requires `0 < threshold ≤ 1`, `max_hashes ≥ 1`, weights finite, `≥ 0`, and not
/// both 0 (callers validate; this panics otherwise).
pub fn tune(threshold: f64, max_hashes: usize, fn_weight: f64, fp_weight: f64) -> Tuning {
    assert!(
        threshold > 0.0 && threshold <= 1.0,
        "threshold {threshold} not in (0, 1]"
    );
    assert!(max_hashes >= 1, "max_hashes must be at least 1");
    assert!(
        fn_weight >= 0.0 && fp_weight >= 0.0 && fn_weight.is_finite() && fp_weight.is_finite(),
        "weights must be finite and non-negative"
    );
    assert!(
        fn_weight + fp_weight > 0.0,
        "at least one weight must be positive"
    );
    let cost = |bands, rows| {
        // Skip an integral whose weight is 0: it cannot change the choice.
        let fn_part = if fn_weight > 0.0 {
            fn_weight * false_negative_area(threshold, bands, rows)
        } else {
            0.0
        };
        let fp_part = if fp_weight > 0.0 {
            fp_weight * false_positive_area(threshold, bands, rows)
        } else {
            0.0
        };
        fn_part + fp_part
    };
    let ((bands, rows), _) =
        cheapest(max_hashes, |_, _| true, cost).expect("max_hashes ≥ 1 gives at least one shape");
    Tuning::new(threshold, bands, rows)
}

/// [`tune`]'s weighted choice among only the shapes that miss a pair at
/// `threshold` with probability `1 − P(T) ≤ max_miss`: the recall floor is the
/// constraint, the weighted areas the objective.
///
/// Same preconditions as [`tune`]; `0 ≤ max_miss < 1`. Fails, with the best
/// reachable `P(T)`, when no shape of at most `max_hashes` hashes qualifies.
pub fn tune_with_floor(
    threshold: f64,
    max_hashes: usize,
    fn_weight: f64,
    fp_weight: f64,
    max_miss: f64,
) -> Result<Tuning, Unreachable> {
    assert!(
        (0.0..1.0).contains(&max_miss),
        "max_miss {max_miss} not in [0, 1)"
    );
    // Validates the other arguments the same way.
    let unconstrained = tune(threshold, max_hashes, fn_weight, fp_weight);
    if miss_probability(threshold, unconstrained.bands, unconstrained.rows) <= max_miss {
        return Ok(unconstrained);
    }
    let qualifies = |bands, rows| miss_probability(threshold, bands, rows) <= max_miss;
    let cost = |bands, rows| {
        fn_weight * false_negative_area(threshold, bands, rows)
            + fp_weight * false_positive_area(threshold, bands, rows)
    };
    match cheapest(max_hashes, qualifies, cost) {
        Some(((bands, rows), _)) => Ok(Tuning::new(threshold, bands, rows)),
        None => Err(Unreachable {
            best_recall: candidate_probability(threshold, max_hashes, 1),
        }),
    }
}

/// The shape of at most `max_hashes` hashes with the lowest `cost` among those
/// that `qualify`, near-ties broken by [`better`]; `None` if none qualifies.
fn cheapest(
    max_hashes: usize,
    qualifies: impl Fn(usize, usize) -> bool,
    cost: impl Fn(usize, usize) -> f64,
) -> Option<((usize, usize), f64)> {
    let mut best: Option<((usize, usize), f64)> = None;
    for (bands, rows) in all_shapes(max_hashes) {
        if !qualifies(bands, rows) {
            continue;
        }
        let c = cost(bands, rows);
        if best.is_none_or(|(shape, best_cost)| better(c, (bands, rows), best_cost, shape)) {
            best = Some(((bands, rows), c));
        }
    }
    best
}

/// Whether `cost` at `shape` beats `best_cost` at `best_shape`, with near-ties
/// broken by fewer hashes and then fewer rows.
fn better(cost: f64, shape: (usize, usize), best_cost: f64, best_shape: (usize, usize)) -> bool {
    let slack = TIE * best_cost.abs().max(1e-12);
    if cost < best_cost - slack {
        return true;
    }
    if cost > best_cost + slack {
        return false;
    }
    let key = |(b, r): (usize, usize)| (b * r, r);
    key(shape) < key(best_shape)
}

/// Why no shape could be chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreachable {
    /// The best recall at the target that any allowed shape reaches (always with
    /// `rows = 1, bands = max_hashes`).
    pub best_recall: f64,
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the highest recall reachable at this threshold is {:.6}",
            self.best_recall
        )
    }
}

impl std::error::Error for Unreachable {}

/// Chooses the cheapest `(bands, rows)` with `bands·rows ≤ max_hashes` whose
/// candidate probability at `threshold` is at least `min_recall`.
///
/// "Cheapest" means the fewest false candidates — the smallest
/// [`false_positive_area`] — with fewer hashes, then fewer rows, breaking ties.
/// Fewest hashes alone would be a useless criterion: for a fixed `b·r = n`,
/// `r = 1` always has the highest `P(T)` (because `(1-s)^r ≤ 1 - s^r`), so it
/// would always answer a handful of one-row bands that make nearly every pair a
/// candidate.
///
/// Same preconditions as [`tune`] for `threshold` and `max_hashes`;
/// `0 < min_recall ≤ 1`.
pub fn tune_min_recall(
    threshold: f64,
    max_hashes: usize,
    min_recall: f64,
) -> Result<Tuning, Unreachable> {
    assert!(
        threshold > 0.0 && threshold <= 1.0,
        "threshold {threshold} not in (0, 1]"
    );
    assert!(max_hashes >= 1, "max_hashes must be at least 1");
    assert!(
        min_recall > 0.0 && min_recall <= 1.0,
        "min_recall {min_recall} not in (0, 1]"
    );
    let qualifies = |bands, rows| candidate_probability(threshold, bands, rows) >= min_recall;
    match cheapest(max_hashes, qualifies, |b, r| {
        false_positive_area(threshold, b, r)
    }) {
        Some(((bands, rows), _)) => Ok(Tuning::new(threshold, bands, rows)),
        None => Err(Unreachable {
            best_recall: candidate_probability(threshold, max_hashes, 1),
        }),
    }
}

/// One layer of an amplification cascade (MMDS 3.6.3), applied to the probability
/// `p` that one function of the layer below says "same bucket".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// All `n` functions must agree: `p → p^n` (a band of `n` rows).
    And(usize),
    /// At least one of `n` functions must agree: `p → 1 - (1 - p)^n` (`n` bands).
    Or(usize),
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::And(n) => write!(f, "AND {n}"),
            Stage::Or(n) => write!(f, "OR {n}"),
        }
    }
}

/// The cascade equal to `bands` bands of `rows` rows: `AND rows`, then `OR bands`.
pub fn banded(bands: usize, rows: usize) -> [Stage; 2] {
    [Stage::And(rows), Stage::Or(bands)]
}

/// MinHash functions a cascade consumes: the product of its stage sizes.
pub fn functions_used(stages: &[Stage]) -> usize {
    stages
        .iter()
        .map(|s| match s {
            Stage::And(n) | Stage::Or(n) => *n,
        })
        .product()
}

/// The probability after applying `stages` in order to a base probability `p`.
///
/// Both `p` and `1 - p` are carried through, each computed from whichever is
/// accurate, so that results like `1 - 4·10⁻⁷` survive several layers.
pub fn amplify(p: f64, stages: &[Stage]) -> f64 {
    let p = p.clamp(0.0, 1.0);
    let (mut yes, mut no) = (p, 1.0 - p);
    for stage in stages {
        (yes, no) = match *stage {
            Stage::And(n) => {
                let ln_yes = if yes > 0.5 { (-no).ln_1p() } else { yes.ln() };
                let n = n as f64;
                ((n * ln_yes).exp(), -(n * ln_yes).exp_m1())
            }
            Stage::Or(n) => {
                let ln_no = if no > 0.5 { (-yes).ln_1p() } else { no.ln() };
                let n = n as f64;
                (-(n * ln_no).exp_m1(), (n * ln_no).exp())
            }
        };
    }
    yes.clamp(0.0, 1.0)
}

/// A `(d1, d2, p1, p2)`-sensitive family (MMDS 3.6.1): items at distance ≤ `d1`
/// collide with probability ≥ `p1`, items at distance ≥ `d2` with probability ≤ `p2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sensitivity {
    pub d1: f64,
    pub d2: f64,
    pub p1: f64,
    pub p2: f64,
}

/// The sensitivity of MinHash under Jaccard distance after `stages`: one MinHash
/// function is `(d1, d2, 1-d1, 1-d2)`-sensitive (MMDS 3.6.2), and every stage
/// maps both probabilities through the same monotone function.
pub fn sensitivity(d1: f64, d2: f64, stages: &[Stage]) -> Sensitivity {
    Sensitivity {
        d1,
        d2,
        p1: amplify(1.0 - d1, stages),
        p2: amplify(1.0 - d2, stages),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mmds_table_for_20_bands_of_5_rows() {
        // MMDS Fig. 3.11 (rounded as printed there).
        for (s, p) in [
            (0.2, 0.006),
            (0.3, 0.047),
            (0.4, 0.186),
            (0.5, 0.470),
            (0.6, 0.802),
            (0.7, 0.975),
        ] {
            let got = candidate_probability(s, 20, 5);
            assert!((got - p).abs() < 0.0005, "s={s}: {got} vs {p}");
        }
        assert!((candidate_probability(0.8, 20, 5) - 0.9996).abs() < 0.00005);
    }

    #[test]
    fn miss_probability_complements_the_curve_and_stays_accurate_when_tiny() {
        for s in [0.0, 0.2, 0.5, 0.8, 1.0] {
            let sum = miss_probability(s, 20, 5) + candidate_probability(s, 20, 5);
            assert!((sum - 1.0).abs() < 1e-12, "s={s}");
        }
        // (1 - 0.99^2)^50 = 0.0199^50 ≈ 8.9e-86: 1 - P would round to 0.
        let tiny = miss_probability(0.99, 50, 2);
        assert!((tiny / 0.0199f64.powi(50) - 1.0).abs() < 1e-9, "{tiny:e}");
    }

    #[test]
    fn threshold_of_20_by_5_is_about_half() {
        assert!((threshold(20, 5) - 0.5493).abs() < 1e-4);
    }

    #[test]
    fn curve_ends_are_exact() {
        assert_eq!(candidate_probability(0.0, 20, 5), 0.0);
        assert_eq!(candidate_probability(1.0, 20, 5), 1.0);
    }

    /// `∫_0^t (1 - s^r)^b ds` by the binomial theorem; exact but cancels badly
    /// for large `b`, so only used for small ones.
    fn miss_integral_binomial(t: f64, bands: usize, rows: usize) -> f64 {
        let mut binom = 1.0;
        let mut sum = 0.0;
        for k in 0..=bands {
            let e = (k * rows + 1) as f64;
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            sum += sign * binom * t.powf(e) / e;
            binom = binom * (bands - k) as f64 / (k + 1) as f64;
        }
        sum
    }

    /// `∫_0^1 (1 - s^r)^b ds = Π_{k=1..b} kr / (kr + 1)` (a Beta function; by parts,
    /// each extra band multiplies the integral by `br / (br + 1)`).
    fn miss_integral_full(bands: usize, rows: usize) -> f64 {
        (1..=bands)
            .map(|k| (k * rows) as f64 / (k * rows + 1) as f64)
            .product()
    }

    /// Midpoint rule on a fine grid: an independent, slow reference.
    fn fine_grid(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
        const N: usize = 200_000;
        let h = (b - a) / N as f64;
        (0..N).map(|i| f(a + (i as f64 + 0.5) * h)).sum::<f64>() * h
    }

    #[test]
    fn integrals_match_the_binomial_closed_form_for_small_band_counts() {
        for bands in 1..=6 {
            for rows in 1..=8 {
                for t in [0.1, 0.35, 0.5, 0.77, 0.9, 1.0] {
                    let miss_below = miss_integral_binomial(t, bands, rows);
                    let fp = t - miss_below;
                    let fn_ = miss_integral_binomial(1.0, bands, rows) - miss_below;
                    let got_fp = false_positive_area(t, bands, rows);
                    let got_fn = false_negative_area(t, bands, rows);
                    assert!(
                        (got_fp - fp).abs() < 1e-10,
                        "FP b={bands} r={rows} t={t}: {got_fp} vs {fp}"
                    );
                    assert!(
                        (got_fn - fn_).abs() < 1e-10,
                        "FN b={bands} r={rows} t={t}: {got_fn} vs {fn_}"
                    );
                }
            }
        }
    }

    #[test]
    fn one_band_of_r_rows_has_power_law_areas() {
        // P(s) = s^r: FP = t^(r+1)/(r+1), FN = (1-t) - (1-t^(r+1))/(r+1).
        for rows in [1, 2, 7, 40] {
            let t: f64 = 0.6;
            let r = rows as f64;
            let fp = t.powf(r + 1.0) / (r + 1.0);
            let fn_ = (1.0 - t) - (1.0 - t.powf(r + 1.0)) / (r + 1.0);
            assert!((false_positive_area(t, 1, rows) - fp).abs() < 1e-12);
            assert!((false_negative_area(t, 1, rows) - fn_).abs() < 1e-12);
        }
    }

    #[test]
    fn fp_minus_fn_is_t_minus_the_beta_integral_for_large_shapes() {
        // FP(t) − FN(t) = ∫_0^1 P − (1 − t) = t − Π kr/(kr+1), for every t: this
        // checks the quadrature on steep curves where the binomial form is useless.
        for (bands, rows) in [
            (20, 5),
            (50, 5),
            (128, 1),
            (1, 128),
            (16, 8),
            (9, 14),
            (400, 10),
        ] {
            let full = miss_integral_full(bands, rows);
            for t in [0.05, 0.3, 0.5, threshold(bands, rows), 0.8, 0.95] {
                let diff =
                    false_positive_area(t, bands, rows) - false_negative_area(t, bands, rows);
                assert!(
                    (diff - (t - full)).abs() < 1e-10,
                    "b={bands} r={rows} t={t}: {diff} vs {}",
                    t - full
                );
            }
        }
    }

    #[test]
    fn integrals_match_a_fine_grid_on_steep_curves() {
        for (bands, rows) in [(20, 5), (10, 12), (250, 4), (3, 30)] {
            for t in [0.4, threshold(bands, rows), 0.75] {
                let fp = fine_grid(|s| candidate_probability(s, bands, rows), 0.0, t);
                let fn_ = fine_grid(|s| 1.0 - candidate_probability(s, bands, rows), t, 1.0);
                assert!((false_positive_area(t, bands, rows) - fp).abs() < 1e-9);
                assert!((false_negative_area(t, bands, rows) - fn_).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn areas_vanish_at_the_ends() {
        assert_eq!(false_positive_area(0.0, 20, 5), 0.0);
        assert_eq!(false_negative_area(1.0, 20, 5), 0.0);
    }

    /// Cost by an independent method (the closed-form identity for FN and a fine
    /// grid for FP), for brute-force checks of the chooser.
    fn reference_cost(t: f64, bands: usize, rows: usize, wfn: f64, wfp: f64) -> f64 {
        const N: usize = 4_000;
        let h = t / N as f64;
        let fp = (0..N)
            .map(|i| candidate_probability((i as f64 + 0.5) * h, bands, rows))
            .sum::<f64>()
            * h;
        let fn_ = fp - (t - miss_integral_full(bands, rows));
        wfn * fn_ + wfp * fp
    }

    #[test]
    fn tune_picks_the_brute_force_minimum() {
        for (t, n, wfn, wfp) in [
            (0.5, 24, 1.0, 1.0),
            (0.8, 40, 1.0, 1.0),
            (0.3, 16, 3.0, 1.0),
            (0.7, 30, 1.0, 4.0),
        ] {
            let chosen = tune(t, n, wfn, wfp);
            let costs: Vec<((usize, usize), f64)> = all_shapes(n)
                .map(|(b, r)| ((b, r), reference_cost(t, b, r, wfn, wfp)))
                .collect();
            let min = costs.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
            let chosen_ref = reference_cost(t, chosen.bands, chosen.rows, wfn, wfp);
            // The reference's own error is ~1e-8 (midpoint rule, 4000 cells).
            assert!(
                chosen_ref <= min + 1e-7,
                "T={t} N={n}: chose {chosen:?} at {chosen_ref}, min {min}"
            );
            assert!(chosen.hashes() <= n);
            // The choice is not a coincidence: the runner-up is clearly worse.
            let runner_up = costs
                .iter()
                .filter(|(shape, _)| *shape != (chosen.bands, chosen.rows))
                .map(|c| c.1)
                .fold(f64::INFINITY, f64::min);
            assert!(
                runner_up > chosen_ref + 1e-6,
                "T={t} N={n}: ambiguous brute force"
            );
        }
    }

    #[test]
    fn tune_without_false_positive_weight_takes_all_hashes_as_one_row_bands() {
        // P_{b,r}(s) ≤ P_{br,1}(s) ≤ P_{N,1}(s) for every s, since (1-s)^r ≤ 1-s^r
        // and more bands only raise P: (N, 1) misses least. (A low target keeps
        // the areas far above the quadrature tolerance, so the order is resolved.)
        let t = tune(0.2, 30, 1.0, 0.0);
        assert_eq!((t.bands, t.rows), (30, 1));
    }

    #[test]
    fn tune_without_false_negative_weight_takes_one_band_of_all_rows() {
        // P_{b,r}(s) ≥ s^r ≥ s^N: (1, N) admits fewest false candidates.
        let t = tune(0.8, 30, 0.0, 1.0);
        assert_eq!((t.bands, t.rows), (1, 30));
    }

    #[test]
    fn tune_puts_the_steep_part_near_the_target() {
        for target in [0.3, 0.5, 0.7, 0.9] {
            let t = tune(target, 128, 1.0, 1.0);
            assert!(
                (t.curve_threshold() - target).abs() < 0.1,
                "{target}: {t:?}"
            );
            // Equal weights balance the two areas' slopes, so P(T) is moderate.
            assert!(
                (0.2..0.8).contains(&t.recall_at_target()),
                "{target}: {t:?}"
            );
        }
    }

    #[test]
    fn heavier_false_negative_weight_raises_recall() {
        let even = tune(0.7, 128, 1.0, 1.0);
        let fn_heavy = tune(0.7, 128, 10.0, 1.0);
        assert!(fn_heavy.recall_at_target() > even.recall_at_target());
        assert!(fn_heavy.fn_area < even.fn_area);
    }

    #[test]
    fn tuning_reports_probabilities_at_the_offsets() {
        let t = Tuning::new(0.5, 20, 5);
        let sims: Vec<f64> = t.recall.iter().map(|a| a.similarity).collect();
        assert_eq!(sims.len(), 3);
        assert!((sims[1] - 0.55).abs() < 1e-12 && (sims[2] - 0.6).abs() < 1e-12);
        assert!((t.recall[2].probability - 0.8019).abs() < 1e-4);
        assert!((t.false_candidates[0].probability - 0.1860).abs() < 1e-4);
        assert!((t.false_candidates[1].probability - 0.0475).abs() < 1e-4);
        // Near the top the points above 1 are dropped, but 1.0 itself stays.
        let high = Tuning::new(0.9, 20, 5);
        assert_eq!(high.recall.len(), 3);
        assert_eq!(high.recall[2].similarity, 1.0);
        assert_eq!(Tuning::new(0.95, 20, 5).recall.len(), 2);
        assert_eq!(Tuning::new(0.15, 20, 5).false_candidates.len(), 1);
    }

    #[test]
    fn min_recall_picks_fewest_false_candidates_among_shapes_that_qualify() {
        for (t, n, r) in [(0.5, 40, 0.9), (0.8, 64, 0.95), (0.3, 20, 0.5)] {
            let chosen = tune_min_recall(t, n, r).unwrap();
            assert!(chosen.recall_at_target() >= r);
            for (b, rows) in all_shapes(n) {
                if candidate_probability(t, b, rows) >= r {
                    assert!(
                        false_positive_area(t, b, rows) >= chosen.fp_area * (1.0 - 1e-9),
                        "({b},{rows}) beats {chosen:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn floor_constrains_the_weighted_choice() {
        // Unconstrained, fn-weight 64 takes 14 × 7 at 0.8 (P(0.8) = 0.963).
        let free = tune(0.8, 100, 64.0, 1.0);
        assert_eq!((free.bands, free.rows), (14, 7));
        // A floor it already meets changes nothing.
        assert_eq!(tune_with_floor(0.8, 100, 64.0, 1.0, 0.05).unwrap(), free);
        // A miss of at most 1e-3 at 0.8 within 100 hashes leaves 18..=20 × 5 only
        // ((1 − 0.8⁵)^17 = 1.2e-3, (1 − 0.8⁶)^16 > 1e-3 with 96 hashes); the
        // weighted cost picks among them by brute force.
        let floored = tune_with_floor(0.8, 100, 64.0, 1.0, 1e-3).unwrap();
        assert!(miss_probability(0.8, floored.bands, floored.rows) <= 1e-3);
        for (b, r) in all_shapes(100) {
            if miss_probability(0.8, b, r) <= 1e-3 {
                assert!(
                    floored.cost(64.0, 1.0) <= Tuning::new(0.8, b, r).cost(64.0, 1.0) + 1e-12,
                    "({b},{r}) beats {floored:?}"
                );
            }
        }
        assert_eq!(floored.rows, 5, "{floored:?}");
        let err = tune_with_floor(0.5, 4, 1.0, 1.0, 0.01).unwrap_err();
        assert!((err.best_recall - 0.9375).abs() < 1e-12);
    }

    #[test]
    fn min_recall_reports_what_is_reachable() {
        // With 4 hashes the best P(0.5) is 1 - 0.5^4 = 0.9375.
        let err = tune_min_recall(0.5, 4, 0.99).unwrap_err();
        assert!((err.best_recall - 0.9375).abs() < 1e-12);
    }

    #[test]
    fn banded_cascade_is_the_s_curve() {
        for s in [0.0, 0.13, 0.5, 0.77, 1.0] {
            let a = amplify(s, &banded(20, 5));
            assert!((a - candidate_probability(s, 20, 5)).abs() < 1e-14);
        }
        assert_eq!(functions_used(&banded(20, 5)), 100);
    }

    #[test]
    fn mmds_amplification_examples() {
        // MMDS Ex. 3.22: 4-way AND then 4-way OR turns the (0.2, 0.6, 0.8, 0.4)
        // family into (0.2, 0.6, 0.8785, 0.0985).
        let and_or = [Stage::And(4), Stage::Or(4)];
        let s = sensitivity(0.2, 0.6, &and_or);
        assert!(
            (s.p1 - 0.8785).abs() < 5e-5 && (s.p2 - 0.0985).abs() < 5e-5,
            "{s:?}"
        );
        // Ex. 3.23: 4-way OR then 4-way AND gives (0.2, 0.6, 0.9936, 0.5740).
        let or_and = [Stage::Or(4), Stage::And(4)];
        let s = sensitivity(0.2, 0.6, &or_and);
        assert!(
            (s.p1 - 0.9936).abs() < 5e-5 && (s.p2 - 0.5740).abs() < 5e-5,
            "{s:?}"
        );
        // Ex. 3.24: the AND-OR construction applied on top of the OR-AND one, 256
        // functions, gives (0.2, 0.8, 0.9999996, 0.0008715).
        let cascade = [Stage::Or(4), Stage::And(4), Stage::And(4), Stage::Or(4)];
        assert_eq!(functions_used(&cascade), 256);
        let s = sensitivity(0.2, 0.8, &cascade);
        assert!(
            (s.p1 - 0.9999996).abs() < 5e-8 && (s.p2 - 0.0008715).abs() < 5e-8,
            "{s:?}"
        );
    }

    #[test]
    fn amplify_keeps_precision_near_one() {
        // 1 - p1 ≈ 4.094e-7 must survive the four layers to several digits.
        let cascade = [Stage::Or(4), Stage::And(4), Stage::And(4), Stage::Or(4)];
        let miss = 1.0 - amplify(0.8, &cascade);
        assert!((miss - 4.0940e-7).abs() < 1e-10, "{miss}");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn curves_are_monotone_probabilities(
                a in 0.0f64..=1.0, b in 0.0f64..=1.0,
                stages in prop::collection::vec((any::<bool>(), 1usize..12), 1..5),
            ) {
                let stages: Vec<Stage> = stages.into_iter()
                    .map(|(and, n)| if and { Stage::And(n) } else { Stage::Or(n) })
                    .collect();
                let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                let (plo, phi) = (amplify(lo, &stages), amplify(hi, &stages));
                prop_assert!((0.0..=1.0).contains(&plo) && (0.0..=1.0).contains(&phi));
                prop_assert!(plo <= phi + 1e-15);
            }

            #[test]
            fn areas_stay_within_their_interval(t in 0.0f64..=1.0, bands in 1usize..60, rows in 1usize..20) {
                let fp = false_positive_area(t, bands, rows);
                let fn_ = false_negative_area(t, bands, rows);
                prop_assert!(fp >= -1e-15 && fp <= t + 1e-12);
                prop_assert!(fn_ >= -1e-15 && fn_ <= 1.0 - t + 1e-12);
            }
        }
    }
}
