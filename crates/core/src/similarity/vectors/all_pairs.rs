//! Every pair of a point set measured, none missed: the exact method of the
//! vector families (`scan --input vectors|bits --method exact`).
//!
//! Cosine and Euclidean go through `f32` matrix products of row blocks
//! (`matrixmultiply::sgemm`), which screen the pairs; every pair the screen
//! keeps is measured again by [`super::cosine`] or [`super::euclidean`] in
//! `f64`, so the values reported are exactly those the LSH path reports for
//! the same pair. The screen's margin is the rounding bound of the `f32`
//! products (below), so a pair the `f64` measure accepts is never screened out.
//! Hamming counts differing bits over `u64` words directly (no rounding).
//!
//! The rounding bound. Cosine: rows are normalised in `f64` and rounded to
//! `f32` (each component off by a relative `2⁻²⁴`), and a dot product of `d`
//! terms in `f32`, in any order of summation and with or without fused
//! multiply-adds, is off by at most `γ_d·Σ|uₖ·vₖ|` with `γ_d = d·2⁻²⁴/(1 − d·2⁻²⁴)`
//! (Higham, *Accuracy and Stability of Numerical Algorithms*, 3.1). For unit
//! rows `Σ|uₖ·vₖ| ≤ 1` (Cauchy–Schwarz), so the `f32` score is within
//! `γ_d + 3·2⁻²⁴` of the true cosine. The `f64` cosine is itself within
//! `(d + 4)·2⁻⁵³` of it. Components that underflow to subnormals add at most
//! `2⁻¹⁴⁹` each, absolutely. [`cosine_margin`] is twice the sum, plus `d·2⁻¹²⁰`.
//! Euclidean: `‖x − y‖² = ‖x‖² + ‖y‖² − 2·x·y` with the norms in `f64` and
//! `x·y` in `f32` from the (already `f32`) inputs scaled by a power of two so
//! that no product overflows; the product is off by at most `γ_d·‖x‖·‖y‖`
//! ([`euclidean_margin`]).
//!
//! Work is split into blocks of [`ROW_BLOCK`] rows against the columns after
//! them, in parallel; a block's pairs are sorted, blocks are joined in order,
//! so the output is the same for any number of threads.
//!
//! Layout. The scaled points are held component-major (`d × n`: component
//! `k` of point `i` at `k·n + i`), not point-major. `sgemm` packs both
//! operands into panels before every product; with points contiguous along
//! the packed direction its packing copies whole panel rows, where the
//! point-major layout made it gather one element at a time (half of the
//! kernel's time on the term-frequency sets; docs/PERFORMANCE.md, "Round
//! 5"). The packed panels, and so the products, are the same values.

use std::cell::RefCell;

use rayon::prelude::*;

/// Rows per block: a block's scores against [`COL_BLOCK`] columns are
/// `ROW_BLOCK × COL_BLOCK × 4` bytes (1 MiB), and `n / ROW_BLOCK` blocks
/// keep two threads busy to the end of the triangle. Each product is one
/// `sgemm` call, which allocates, faults in and frees its packing buffer
/// (about 0.6 MB) every time: 512 rows a call make a quarter of the calls
/// (and of the page faults) 128 did.
pub const ROW_BLOCK: usize = 512;
/// Columns scored at once against a row block.
pub const COL_BLOCK: usize = 512;

/// The pairs an all-pairs pass found, and what it cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AllPairs {
    /// `(a, b, value)`, `a < b`, sorted by `(a, b)`.
    pub pairs: Vec<(u32, u32, f64)>,
    /// Pairs scored (by the `f32` product, or by popcount).
    pub scored: u64,
    /// Pairs the screen kept and the `f64` measure decided (equal to the
    /// pairs found for Hamming, which has no screen).
    pub rechecked: u64,
}

/// Which pairs: all `a < b`, or with `link = Some(split)` only `a < split ≤ b`.
fn column_start(link: Option<usize>, block_start: usize) -> usize {
    link.unwrap_or(block_start).max(block_start)
}

/// The number of pairs scored for `n` points (`link`: across the split only).
pub fn pair_count(n: usize, link: Option<usize>) -> u64 {
    match link {
        Some(s) => s.min(n) as u64 * (n - s.min(n)) as u64,
        None => n as u64 * n.saturating_sub(1) as u64 / 2,
    }
}

const U32: f64 = 1.0 / (1u64 << 24) as f64;
const U64: f64 = 1.0 / (1u64 << 53) as f64;

/// `γ_d` for `f32`: the relative bound of a `d`-term dot product.
fn gamma(d: usize) -> f64 {
    let du = d as f64 * U32;
    du / (1.0 - du).max(0.5)
}

/// How far below the threshold the `f32` cosine of unit rows of `d`
/// components may fall for a pair whose `f64` cosine is at or above it.
pub fn cosine_margin(d: usize) -> f64 {
    2.0 * (gamma(d) + 3.0 * U32 + (d as f64 + 4.0) * U64) + d as f64 * 2f64.powi(-120)
}

/// How far the `f32` `x·y` of rows scaled to components ≤ 1 may be off,
/// relative to `‖x‖·‖y‖`, plus the absolute slack of subnormals.
pub fn euclidean_margin(d: usize) -> (f64, f64) {
    (
        2.0 * (gamma(d) + (d as f64 + 4.0) * U64),
        d as f64 * 2f64.powi(-120),
    )
}

/// `f64` `Σ xₖ²` of each row, as [`super::dot`] sums it.
pub fn squared_norms(values: &[f32], dim: usize, n: usize) -> Vec<f64> {
    (0..n)
        .into_par_iter()
        .map(|i| {
            let row = &values[i * dim..(i + 1) * dim];
            super::dot(row, row)
        })
        .collect()
}

/// Scores points `r0..r1` against points `c0..c1` of `major` (`d × n`,
/// component-major: component `k` of point `i` at `k·n + i`) into `out`
/// (`m × c`, row-major): `out[i][j] = Σₖ x_{r0+i,k}·x_{c0+j,k}` in `f32`.
fn block_product(
    major: &[f32],
    n: usize,
    dim: usize,
    (r0, r1): (usize, usize),
    (c0, c1): (usize, usize),
    out: &mut [f32],
) {
    let (m, c) = (r1 - r0, c1 - c0);
    debug_assert!(out.len() >= m * c);
    debug_assert!(r1 <= n && c1 <= n && major.len() >= n * dim);
    if m == 0 || c == 0 || dim == 0 {
        out[..m * c].fill(0.0);
        return;
    }
    // SAFETY: `major` holds n·dim f32, component k of point i at k·n + i.
    // The left operand is the m × dim matrix of points r0..r1 (row stride 1,
    // column stride n) starting at major[r0]: its last element is at
    // r0 + (m − 1) + (dim − 1)·n < dim·n since r1 ≤ n. The right operand is
    // the dim × c matrix of points c0..c1 (row stride n, column stride 1)
    // starting at major[c0], last element c0 + (c − 1) + (dim − 1)·n < dim·n
    // likewise. `out` holds at least m·c f32 written row-major (row stride c,
    // column stride 1). `out` aliases neither input (a distinct &mut), and
    // β = 0 means out's old values are not read.
    unsafe {
        matrixmultiply::sgemm(
            m,
            dim,
            c,
            1.0,
            major.as_ptr().add(r0),
            1,
            n as isize,
            major.as_ptr().add(c0),
            n as isize,
            1,
            0.0,
            out.as_mut_ptr(),
            c as isize,
            1,
        );
    }
}

/// `values` (`n × dim`, point-major) as `d × n`, component-major, each
/// value mapped by `f` ([`block_product`]'s layout). [`GROUP`] components
/// at a time, so that each point's are read as one cache line, not one
/// line per component.
fn component_major(
    values: &[f32],
    dim: usize,
    n: usize,
    f: impl Fn(usize, f32) -> f32 + Sync,
) -> Vec<f32> {
    let mut major = vec![0f32; n * dim];
    if n == 0 {
        return major;
    }
    major
        .par_chunks_mut(n * GROUP)
        .enumerate()
        .for_each(|(g, components)| {
            let k0 = g * GROUP;
            let width = components.len() / n;
            for i in 0..n {
                let point = &values[i * dim + k0..i * dim + k0 + width];
                for (t, &x) in point.iter().enumerate() {
                    components[t * n + i] = f(i, x);
                }
            }
        });
    major
}

/// Components [`component_major`] moves together: 64 bytes of `f32`.
const GROUP: usize = 16;

/// What an all-pairs pass keeps: pairs scoring below `floor` are dropped
/// unseen (the cosine screen: a constant); the others go to `keep`, which
/// returns the `f64` value (NaN: measured and rejected) or `None` (screened
/// out by a bound of its own, as Euclidean's per-pair one).
struct Screen<'a> {
    floor: f32,
    keep: &'a (dyn Fn(usize, usize, f32) -> Option<f64> + Sync),
}

/// Scores compared with the floor at once (one AVX-512 vector of `f32`).
const LANES: usize = 16;

/// Runs the screen over every scored pair of row block `b`, block by block
/// of columns, into `scores` (a thread's buffer, reused from block to block),
/// and returns the kept pairs sorted.
fn scan_block(
    major: &[f32],
    dim: usize,
    n: usize,
    link: Option<usize>,
    block: usize,
    screen: &Screen<'_>,
    scores: &mut [f32],
) -> (Vec<(u32, u32, f64)>, u64) {
    let r0 = block * ROW_BLOCK;
    let r1 = (r0 + ROW_BLOCK).min(link.unwrap_or(n)).min(n);
    let mut found = Vec::new();
    let mut rechecked = 0u64;
    if r0 >= r1 {
        return (found, 0);
    }
    let mut c0 = column_start(link, r0);
    while c0 < n {
        let c1 = (c0 + COL_BLOCK).min(n);
        let (m, c) = (r1 - r0, c1 - c0);
        block_product(major, n, dim, (r0, r1), (c0, c1), scores);
        for i in 0..m {
            let a = r0 + i;
            let first = (a + 1).max(c0) - c0;
            let row = &scores[i * c + first..(i + 1) * c];
            for (q, lanes) in row.chunks(LANES).enumerate() {
                // Most pairs stop here, a vector of them at a time (a NaN
                // passes, as it passes the pair loop's `score < floor`).
                if !lanes
                    .iter()
                    .fold(false, |hit, &s| hit | (s >= screen.floor) | s.is_nan())
                {
                    continue;
                }
                for (t, &score) in lanes.iter().enumerate() {
                    if score < screen.floor {
                        continue;
                    }
                    let b = c0 + first + q * LANES + t;
                    if let Some(value) = (screen.keep)(a, b, score) {
                        rechecked += 1;
                        if !value.is_nan() {
                            found.push((a as u32, b as u32, value));
                        }
                    }
                }
            }
        }
        c0 = c1;
    }
    found.sort_unstable_by_key(|&(a, b, _)| (a, b));
    (found, rechecked)
}

thread_local! {
    /// A thread's scores of one row block against one column block, kept
    /// from block to block and run to run.
    static SCORES: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Every row block, in parallel, joined in order.
fn all_blocks(
    major: &[f32],
    dim: usize,
    n: usize,
    link: Option<usize>,
    screen: &Screen<'_>,
) -> AllPairs {
    let blocks = link.unwrap_or(n).min(n).div_ceil(ROW_BLOCK);
    let parts: Vec<_> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            SCORES.with(|scores| {
                let mut scores = scores.borrow_mut();
                if scores.is_empty() {
                    *scores = vec![0f32; ROW_BLOCK * COL_BLOCK];
                }
                scan_block(major, dim, n, link, b, screen, &mut scores)
            })
        })
        .collect();
    let mut out = AllPairs {
        scored: pair_count(n, link),
        ..AllPairs::default()
    };
    out.pairs.reserve(parts.iter().map(|(p, _)| p.len()).sum());
    for (pairs, rechecked) in parts {
        out.pairs.extend(pairs);
        out.rechecked += rechecked;
    }
    out
}

/// Every pair of the `n` rows of `values` (`n × dim`, row-major) whose
/// [`super::cosine`] is ≥ `min_cosine`; zero rows have no angle and pair with
/// nothing. `link`: only pairs across the split.
pub fn cosine_pairs(
    values: &[f32],
    dim: usize,
    n: usize,
    min_cosine: f64,
    link: Option<usize>,
) -> AllPairs {
    let norms = squared_norms(values, dim, n);
    let scale: Vec<f64> = norms
        .iter()
        .map(|&q| if q > 0.0 { 1.0 / q.sqrt() } else { 0.0 })
        .collect();
    let unit = component_major(values, dim, n, |i, x| (f64::from(x) * scale[i]) as f32);
    let floor = (min_cosine - cosine_margin(dim)) as f32;
    let row = |i: usize| &values[i * dim..(i + 1) * dim];
    let keep = |a: usize, b: usize, _score: f32| {
        if norms[a] == 0.0 || norms[b] == 0.0 {
            return None;
        }
        let c = super::cosine_with_norms(row(a), row(b), norms[a], norms[b])?;
        Some(if c >= min_cosine { c } else { f64::NAN })
    };
    all_blocks(&unit, dim, n, link, &Screen { floor, keep: &keep })
}

/// Every pair of the `n` rows of `values` whose [`super::euclidean`] distance
/// is ≤ `radius`. `link`: only pairs across the split.
pub fn euclidean_pairs(
    values: &[f32],
    dim: usize,
    n: usize,
    radius: f64,
    link: Option<usize>,
) -> AllPairs {
    let norms = squared_norms(values, dim, n);
    // A power of two brings every component to at most 1 (exactly, but for
    // underflow into subnormals, which the margin's slack covers), so that
    // no f32 product or sum of d of them overflows.
    let largest = values.iter().fold(0f32, |m, x| m.max(x.abs()));
    let shift = if largest > 0.0 {
        f64::from(largest).log2().ceil() as i32
    } else {
        0
    };
    let scale = 2f64.powi(-shift);
    let scaled = component_major(values, dim, n, |_, x| (f64::from(x) * scale) as f32);
    let (relative, absolute) = euclidean_margin(dim);
    let s2 = scale * scale;
    let bound = radius * radius * (1.0 + 1e-9);
    let row = |i: usize| &values[i * dim..(i + 1) * dim];
    let keep = |a: usize, b: usize, score: f32| {
        let (na, nb) = (norms[a] * s2, norms[b] * s2);
        let estimate = na + nb - 2.0 * f64::from(score);
        let slack = 2.0 * relative * (na * nb).sqrt() + absolute + (na + nb) * 1e-12;
        if estimate - slack > bound * s2 {
            return None;
        }
        let d = super::euclidean(row(a), row(b));
        Some(if d <= radius { d } else { f64::NAN })
    };
    // The bound depends on the pair's norms: no common floor.
    let screen = Screen {
        floor: f32::NEG_INFINITY,
        keep: &keep,
    };
    all_blocks(&scaled, dim, n, link, &screen)
}

/// Every pair of the `n` packed bit strings of `words` (`per` words each)
/// within `radius` bits ([`super::hamming_bits`]). `link`: across the split.
pub fn hamming_pairs(
    words: &[u64],
    per: usize,
    n: usize,
    radius: u32,
    link: Option<usize>,
) -> AllPairs {
    let row = |i: usize| &words[i * per..(i + 1) * per];
    let blocks = link.unwrap_or(n).min(n).div_ceil(ROW_BLOCK);
    let parts: Vec<Vec<(u32, u32, f64)>> = (0..blocks)
        .into_par_iter()
        .map(|block| {
            let r0 = block * ROW_BLOCK;
            let r1 = (r0 + ROW_BLOCK).min(link.unwrap_or(n)).min(n);
            let mut found = Vec::new();
            for a in r0..r1 {
                let ra = row(a);
                for b in column_start(link, a + 1).max(a + 1)..n {
                    let h = super::hamming_bits(ra, row(b));
                    if h <= radius {
                        found.push((a as u32, b as u32, f64::from(h)));
                    }
                }
            }
            found
        })
        .collect();
    let pairs: Vec<_> = parts.into_iter().flatten().collect();
    AllPairs {
        scored: pair_count(n, link),
        rechecked: pairs.len() as u64,
        pairs,
    }
}

#[cfg(test)]
mod tests;
