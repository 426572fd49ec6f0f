//! Criterion benches for what follows signing: LSH banding with candidate
//! generation, exact verification of candidates, and the exact join — per
//! call, on a whole real corpus.
//!
//! Input: every file of `../shared/data/debian-docs/files` (4,679 documents,
//! 51 MB), normalised as `../shared/data/README.md` defines, char 5-shingles,
//! classic MinHash with n = 100, all prepared once before measuring.
//!
//! Kernels:
//! * `banding/20x5`, `banding/10x10`: `lsh::candidate_pairs` over the whole
//!   signature matrix (band keys, buckets, per-document candidates), reported
//!   in documents per second;
//! * `verify/intersect_branchy`: the size of the intersection of every 20 × 5
//!   candidate pair by the textbook merge of the two sorted sets (a branch per
//!   step), reported in set elements per second;
//! * `verify/intersect`: the same by the library's merge
//!   (`sets::intersection_size`: the fastest kernel this CPU runs);
//! * `verify/intersect_bounded_t0.8`: the same, stopping a pair's merge once
//!   it cannot reach the overlap that J ≥ 0.8 needs
//!   (`sets::intersection_at_least`), as verification does;
//! * `verify/merge_<kernel>`, `verify/merge_<kernel>_bounded_t0.8`: the
//!   previous two by each merge kernel this CPU runs
//!   (`sets::intersection_at_least_with`: `scalar`, `avx2`, `avx512`), so
//!   the SIMD kernels are compared with the scalar one in one run
//!   (`cargo bench --bench matching -- merge`);
//! * `verify/exact_in_memory`: `verify::verify_exact` over the same candidates
//!   with every set already in memory (the loader clones it), i.e. the
//!   verifier's own bookkeeping plus the merges;
//! * `join/t0.8`: the exact method's prefix-filter join (`join::all_pairs`)
//!   over every set, in shingles per second.
//!
//! Run: `cargo bench --bench matching` (a minute or two; setup signs the
//! corpus once). Filter with `cargo bench --bench matching -- banding`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use simfind::lsh::{self, Banding};
use simfind::simd::KernelSet;
use simfind::similarity::join;
use simfind::similarity::{sets, verify};
use simfind::sketch::minhash::MinHasher;
use simfind::text::normalize::{Normalization, normalize};
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

const N: usize = 100;

/// Sorted distinct shingle sets of every non-empty document, and their
/// signatures as one row-major matrix.
fn corpus() -> (Vec<Vec<u64>>, Vec<u32>) {
    let paths = common::debian_docs_files();
    let shingler = Shingler::new(ShingleKind::Char, 5, StopWords::english());
    let hasher = MinHasher::new(N, 0);
    let mut sets = Vec::new();
    let mut matrix = Vec::new();
    for p in &paths {
        let text = normalize(&std::fs::read(p).unwrap(), Normalization::default());
        let mut set = shingler.shingle_set(&text);
        set.sort_unstable();
        set.dedup();
        if set.is_empty() {
            continue;
        }
        matrix.extend(hasher.sign(&set));
        sets.push(set);
    }
    (sets, matrix)
}

/// The textbook merge, a data-dependent branch per step: the baseline the
/// library's branch-free merge is measured against.
fn merge_branchy(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

fn matching(c: &mut Criterion) {
    let (sets, matrix) = corpus();
    let docs = sets.len() as u64;
    let wide = Banding { bands: 20, rows: 5 };
    let candidates = lsh::candidate_pairs(&matrix, wide);
    let merged: u64 = candidates
        .iter()
        .map(|&(a, b)| (sets[a as usize].len() + sets[b as usize].len()) as u64)
        .sum();
    let shingles: u64 = sets.iter().map(|s| s.len() as u64).sum();

    let mut g = c.benchmark_group("banding");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(docs));
    for banding in [
        wide,
        Banding {
            bands: 10,
            rows: 10,
        },
    ] {
        g.bench_function(format!("{}x{}", banding.bands, banding.rows), |bch| {
            bch.iter(|| black_box(lsh::candidate_pairs(black_box(&matrix), banding)).len())
        });
    }
    g.finish();

    let mut g = c.benchmark_group("verify");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(merged));
    g.bench_function("intersect_branchy", |bch| {
        bch.iter(|| {
            candidates
                .iter()
                .map(|&(a, b)| merge_branchy(&sets[a as usize], &sets[b as usize]))
                .sum::<usize>()
        })
    });
    g.bench_function("intersect_bounded_t0.8", |bch| {
        bch.iter(|| {
            candidates
                .iter()
                .filter_map(|&(a, b)| {
                    let (sa, sb) = (&sets[a as usize], &sets[b as usize]);
                    sets::intersection_at_least(
                        sa,
                        sb,
                        sets::overlap_needed(sa.len(), sb.len(), 0.8),
                    )
                })
                .sum::<usize>()
        })
    });
    g.bench_function("intersect", |bch| {
        bch.iter(|| {
            candidates
                .iter()
                .map(|&(a, b)| sets::intersection_size(&sets[a as usize], &sets[b as usize]))
                .sum::<usize>()
        })
    });
    for &kernel in sets::MergeKernel::ALL {
        if !kernel.supported() {
            continue;
        }
        g.bench_function(format!("merge_{}", kernel.name()), |bch| {
            bch.iter(|| {
                candidates
                    .iter()
                    .filter_map(|&(a, b)| {
                        sets::intersection_at_least_with(
                            kernel,
                            &sets[a as usize],
                            &sets[b as usize],
                            0,
                        )
                    })
                    .sum::<usize>()
            })
        });
        g.bench_function(format!("merge_{}_bounded_t0.8", kernel.name()), |bch| {
            bch.iter(|| {
                candidates
                    .iter()
                    .filter_map(|&(a, b)| {
                        let (sa, sb) = (&sets[a as usize], &sets[b as usize]);
                        sets::intersection_at_least_with(
                            kernel,
                            sa,
                            sb,
                            sets::overlap_needed(sa.len(), sb.len(), 0.8),
                        )
                    })
                    .sum::<usize>()
            })
        });
    }
    g.bench_function("exact_in_memory", |bch| {
        bch.iter(|| {
            let out = verify::verify_exact(
                &candidates,
                0.8,
                1 << 30,
                |d| sets[d as usize].len() * 8,
                |d| Ok::<_, ()>(sets[d as usize].clone()),
            );
            out.pairs.len()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("join");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(shingles));
    g.bench_function("t0.8", |bch| {
        bch.iter(|| join::all_pairs(black_box(&sets), 0.8).unwrap().pairs.len())
    });
    g.finish();
}

criterion_group!(benches, matching);
criterion_main!(benches);
