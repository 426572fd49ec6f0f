//! The LSH S-curve of MMDS 3.4.2–3.4.3 and the amplification of MMDS 3.6.3, as a
//! tool for choosing bands and rows.
//!
//! With `b` bands of `r` rows, two documents of Jaccard similarity `s` become a
//! candidate pair with probability `P(s) = 1 - (1 - s^r)^b`; it is 1/2 at
//! [`half_point`] and steepest at [`steepest`], both near `(1/b)^(1/r)`. For a
//! target similarity `T`:
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

/// The approximation `(1/b)^(1/r)` of the S-curve's threshold (MMDS 3.4.2):
/// near both [`half_point`] and [`steepest`], equal to neither (0.5493 for
/// 20 × 5, against 0.5087 and 0.5264).
pub fn threshold(bands: usize, rows: usize) -> f64 {
    (1.0 / bands as f64).powf(1.0 / rows as f64)
}

/// The exact similarity at which `P(s) = 1/2`: solving
/// `1 - (1 - s^r)^b = 1/2` gives `s = (1 - 2^(-1/b))^(1/r)`.
pub fn half_point(bands: usize, rows: usize) -> f64 {
    // 1 - 2^(-1/b) = -expm1(-ln 2 / b), accurate for large b.
    let band_p = -(-std::f64::consts::LN_2 / bands as f64).exp_m1();
    band_p.powf(1.0 / rows as f64)
}

/// The similarity at which two documents become candidates with
/// probability `p`: the inverse of [`candidate_probability`],
/// `s = (1 - (1 - p)^(1/b))^(1/r)`. `scan --top K` floors its neighbours
/// at a low `p`: below it, what LSH offers is chance.
pub fn similarity_at(p: f64, bands: usize, rows: usize) -> f64 {
    let p = p.clamp(0.0, 1.0);
    // 1 - (1 - p)^(1/b) = -expm1(ln(1 - p) / b), accurate for large b.
    let band_p = -((-p).ln_1p() / bands as f64).exp_m1();
    band_p.clamp(0.0, 1.0).powf(1.0 / rows as f64)
}

/// The slope `P'(s) = b·r·s^(r-1)·(1 - s^r)^(b-1)` of the banded S-curve.
pub fn slope(s: f64, bands: usize, rows: usize) -> f64 {
    let s = s.clamp(0.0, 1.0);
    let (b, r) = (bands as f64, rows as f64);
    let rise = if rows == 1 {
        1.0
    } else {
        s.powi(rows as i32 - 1)
    };
    let rest = if bands == 1 {
        1.0
    } else {
        ((b - 1.0) * (-s.powi(rows as i32)).ln_1p()).exp()
    };
    b * r * rise * rest
}

/// Where the banded S-curve is steepest and its slope there, `(s*, P'(s*))`.
///
/// Setting the derivative of `ln P'(s)` to zero,
/// `(r-1)/s = (b-1)·r·s^(r-1)/(1 - s^r)`, gives `s*^r = (r-1)/(b·r - 1)`.
/// With one row the curve is concave (steepest at 0); with one band it is
/// `s^r` (steepest at 1).
pub fn steepest(bands: usize, rows: usize) -> (f64, f64) {
    let s = if bands * rows <= 1 {
        1.0
    } else {
        ((rows as f64 - 1.0) / (bands as f64 * rows as f64 - 1.0)).powf(1.0 / rows as f64)
    };
    (s, slope(s, bands, rows))
}

/// The similarity at which a cascade's probability reaches 1/2, by bisection
/// (every cascade is non-decreasing in `s`, 0 at 0 and 1 at 1).
pub fn cascade_half_point(stages: &[Stage]) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if amplify(mid, stages) < 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
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

    /// The approximate threshold `(1/b)^(1/r)` of this curve ([`threshold`]).
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
    check_tune_arguments(threshold, max_hashes, fn_weight, fp_weight);
    // Skip an integral whose weight is 0: it cannot change the choice.
    let areas = shape_areas(threshold, max_hashes, fn_weight > 0.0, fp_weight > 0.0);
    tune_among(threshold, &areas, fn_weight, fp_weight)
}

/// [`tune`]'s preconditions, with its messages.
fn check_tune_arguments(threshold: f64, max_hashes: usize, fn_weight: f64, fp_weight: f64) {
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
}

/// A shape with its false-negative and false-positive areas at one threshold
/// (an area not asked for is 0).
type ShapeAreas = ((usize, usize), f64, f64);

/// Both areas of every shape of [`all_shapes`] (in its order), each integral
/// computed once, the shapes spread over the threads: `scan -t` asks for
/// them before it reads a file, so they are its start-up time. The values are
/// those of [`false_negative_area`] and [`false_positive_area`] themselves,
/// whatever the thread count.
fn shape_areas(threshold: f64, max_hashes: usize, fn_area: bool, fp_area: bool) -> Vec<ShapeAreas> {
    use rayon::prelude::*;
    let shapes: Vec<(usize, usize)> = all_shapes(max_hashes).collect();
    shapes
        .into_par_iter()
        .with_min_len(8)
        .map(|(bands, rows)| {
            let area = |on: bool, f: fn(f64, usize, usize) -> f64| {
                if on { f(threshold, bands, rows) } else { 0.0 }
            };
            (
                (bands, rows),
                area(fn_area, false_negative_area),
                area(fp_area, false_positive_area),
            )
        })
        .collect()
}

/// [`tune`]'s choice among shapes whose areas are given.
fn tune_among(threshold: f64, areas: &[ShapeAreas], fn_weight: f64, fp_weight: f64) -> Tuning {
    let cost = |fn_area: f64, fp_area: f64| {
        let fn_part = if fn_weight > 0.0 {
            fn_weight * fn_area
        } else {
            0.0
        };
        let fp_part = if fp_weight > 0.0 {
            fp_weight * fp_area
        } else {
            0.0
        };
        fn_part + fp_part
    };
    let costs = areas
        .iter()
        .map(|&(shape, f_n, f_p)| (shape, cost(f_n, f_p)));
    let ((bands, rows), _) = cheapest_of(costs).expect("max_hashes ≥ 1 gives at least one shape");
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
    check_tune_arguments(threshold, max_hashes, fn_weight, fp_weight);
    // One set of integrals serves both the unconstrained choice and the
    // constrained one (each used to compute its own).
    let areas = shape_areas(threshold, max_hashes, true, true);
    let unconstrained = tune_among(threshold, &areas, fn_weight, fp_weight);
    if miss_probability(threshold, unconstrained.bands, unconstrained.rows) <= max_miss {
        return Ok(unconstrained);
    }
    let qualifies = |(bands, rows)| miss_probability(threshold, bands, rows) <= max_miss;
    let costs = areas
        .iter()
        .filter(|&&(shape, _, _)| qualifies(shape))
        .map(|&(shape, f_n, f_p)| (shape, fn_weight * f_n + fp_weight * f_p));
    match cheapest_of(costs) {
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
    cheapest_of(
        all_shapes(max_hashes)
            .filter(|&(bands, rows)| qualifies(bands, rows))
            .map(|(bands, rows)| ((bands, rows), cost(bands, rows))),
    )
}

/// The shape of lowest cost among `costs`, taken in order, near-ties broken
/// by [`better`]; `None` if there is none.
fn cheapest_of(
    costs: impl Iterator<Item = ((usize, usize), f64)>,
) -> Option<((usize, usize), f64)> {
    let mut best: Option<((usize, usize), f64)> = None;
    for (shape, c) in costs {
        if best.is_none_or(|(best_shape, best_cost)| better(c, shape, best_cost, best_shape)) {
            best = Some((shape, c));
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
mod tests;
