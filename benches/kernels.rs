//! Criterion benches for the signing kernels, per core, on real documents.
//!
//! Input: every 16th file of `../shared/data/debian-docs/files` (sorted paths,
//! about 3 MB), each normalised as `../shared/data/README.md` defines, processed
//! one document at a time as the pipeline does. Each kernel is reported twice:
//! in bytes of normalised text per second (`…/bytes`) and in char-5 shingle
//! occurrences per second (`…/shingles`).
//!
//! Kernels (n = 100):
//! * `shingle_hash`: char-5 windows, XXH3-64 of each window (`Shingler`);
//!   `shingle_hash_reference`: the same before the ASCII-run split (a table of
//!   character starts for every text with a non-ASCII byte);
//! * `window_hash_crate` / `window_hash_short`: XXH3-64 of every 5-*byte*
//!   window through `xxhash_rust`'s general entry point vs the inlined
//!   short-input path of `short_hash` (the same values);
//! * `dedup_sort` / `dedup_hashset`: a document's distinct hashes by
//!   sort + dedup vs the open-addressing `DistinctSet` the pipeline uses;
//! * `reference_occ`: the straightforward `(a·h + b) >> 32` min-loop over every
//!   occurrence, auto-vectorised for AVX-512 — the yardstick;
//! * `classic_occ` / `classic_distinct`: the library kernel (runtime-dispatched
//!   SIMD) over every occurrence / over the distinct hashes (dedup included);
//!   `classic_distinct_portable`: the same with the baseline x86-64 build;
//! * `classic_sign_<variant>`: the signing kernel alone over precomputed
//!   distinct sets, for every variant the CPU supports (`*-autovec`: the plain
//!   loop compiled for AVX2 / AVX-512 with `vpmullq`; `*-mul32`: two 32-bit
//!   multiplies with intrinsics; `*-regs`: the same arithmetic with the
//!   minima held in registers, stored once per document);
//! * `window_hash_<variant>`: `window_hash_short` through each window-hash
//!   variant the CPU runs (`scalar`: one window at a time; `avx512`: eight
//!   per vector);
//! * `oph_occ` / `oph_distinct`: one-permutation hashing with densification
//!   (`oph::sign`, dispatched `Sketch::add_batch`); `oph_occ_batch_<variant>`:
//!   `oph_occ` through each `add_batch` variant the CPU runs (`scalar`:
//!   `Sketch::add` per hash, the kernel before branch simdhash);
//! * `window_hash_block`: `window_hash_short` a block of 64 hashes at a time
//!   (`short_hash::for_each_window_block`, no call per hash);
//! * `scan_oph_scalar`: hash every 5-byte window of a document and sketch
//!   it one at a time (scalar window hash, `Sketch::add`), the OPH scan's
//!   inner loop before branch simdhash on ASCII text;
//!   `scan_oph_block_<variant>`: the same windows a block at a time
//!   (`for_each_window_block`) into each `add_batch` variant the CPU runs;
//! * `shingler_oph_add` / `shingler_oph_block`: the real char-5 shingles
//!   (`Shingler`, non-ASCII documents included) into `Sketch::add` per hash
//!   (the pipeline before simdhash, with the new window kernel) vs
//!   `for_each_hash_block` into `add_batch` (`pipeline::sign_windows` now).
//!
//! Sorting (group `sort`, in values sorted per second): each document's
//! hashes as `RepeatFilter` passes them (the set with a few repeats left), as
//! `pipeline::sorted_shingles_into` sorts them before its dedup, copied into a
//! reused buffer and sorted by `sort_unstable` (pdqsort) vs
//! `HashSorter::sort` (bucket sort on the leading bits); `copy` (the copy
//! alone) is the yardstick.
//!
//! Normalisation (group `normalize/<docs>`, in MB/s of *raw* input bytes, the
//! same every-16th files split into pure ASCII documents and documents with a
//! non-ASCII byte): `reference` (the implementation before the branch-free
//! kernels), then `scalar` (named `portable` before the kernel families
//! shared `simd::KernelSet`), `avx2`, `avx512-vbmi2` (each ASCII kernel the
//! CPU runs; `normalize_into` picks the last), all with the default
//! normalisation; `copy` (the bytes copied into a reused buffer) is the
//! yardstick.
//!
//! Times are CPU time of the benchmark thread, not wall time (see
//! `ThreadCpu`), so that runs on a shared machine stay comparable.
//!
//! Run: `cargo bench --bench kernels` (about a minute; sample sizes are small
//! because the machine is shared). Filter with `cargo bench --bench kernels -- oph`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use simfind::simd::{self, KernelSet};
use simfind::sketch::minhash::{MinHasher, SplitMix64, kernel};
use simfind::sketch::oph;
use simfind::text::distinct::{DistinctSet, HashSorter, RepeatFilter};
use simfind::text::normalize::{
    Kernel, Normalization, normalize, normalize_into_kernel, reference,
};
use simfind::text::shingle::{Scratch, ShingleKind, Shingler, StopWords};
use simfind::text::short_hash;
use xxhash_rust::xxh3::xxh3_64_with_seed;

const N: usize = 100;
const K: usize = 5;

fn documents() -> Vec<String> {
    let paths = common::debian_docs_files();
    paths
        .iter()
        .step_by(16)
        .map(|p| normalize(&std::fs::read(p).unwrap(), Normalization::default()))
        .collect()
}

/// The raw bytes of the same files as [`documents`]: (pure ASCII, with a
/// non-ASCII byte).
fn raw_documents() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    common::debian_docs_files()
        .iter()
        .step_by(16)
        .map(|p| std::fs::read(p).unwrap())
        .partition(|d| d.is_ascii())
}

/// The straightforward kernel the target refers to: for every shingle,
/// a min-loop of `(a·h + b) >> 32` over arrays of `N` coefficients, written as
/// the obvious nested loop and left to the auto-vectoriser (compiled here for
/// AVX-512 when the CPU has it, so that the comparison is against a vectorised
/// loop, not a scalar one).
struct Reference {
    a: [u64; N],
    b: [u64; N],
}

impl Reference {
    fn new(seed: u64) -> Self {
        let mut rng = SplitMix64(seed);
        let mut a = [0; N];
        let mut b = [0; N];
        for (a, b) in a.iter_mut().zip(&mut b) {
            *a = rng.next_u64() | 1;
            *b = rng.next_u64();
        }
        Reference { a, b }
    }

    #[inline(always)]
    fn body(&self, hashes: &[u64], out: &mut [u32; N]) {
        out.fill(u32::MAX);
        for &h in hashes {
            let x = (h ^ (h >> 32)) & 0xFFFF_FFFF;
            for ((o, &a), &b) in out.iter_mut().zip(&self.a).zip(&self.b) {
                *o = (*o).min((a.wrapping_mul(x).wrapping_add(b) >> 32) as u32);
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    fn sign_avx512(&self, hashes: &[u64], out: &mut [u32; N]) {
        self.body(hashes, out)
    }

    fn sign(&self, hashes: &[u64], out: &mut [u32; N]) {
        let f = simd::features();
        if f.avx512f && f.avx512dq && f.avx512vl {
            // SAFETY: the CPU has the features `sign_avx512` is compiled for.
            unsafe { self.sign_avx512(hashes, out) }
        } else {
            self.body(hashes, out)
        }
    }
}

fn distinct(hashes: &[u64], set: &mut DistinctSet, out: &mut Vec<u64>) {
    set.reset(hashes.len() / 4);
    hashes.iter().for_each(|&h| set.insert(h));
    set.drain_into(out);
}

fn sort_distinct(hashes: &[u64], out: &mut Vec<u64>) {
    out.clear();
    out.extend_from_slice(hashes);
    out.sort_unstable();
    out.dedup();
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`) instead of wall
/// time: the machine is shared with other builds, and a kernel preempted half
/// of the time would otherwise look twice as slow. Reported like wall time
/// (nanoseconds), so throughput reads as MB/s of CPU.
struct ThreadCpu;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a live timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID unavailable");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns() - start
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WallTime.formatter()
    }
}

fn configure<'a>(c: &'a mut Criterion<ThreadCpu>, name: &str) -> BenchmarkGroup<'a, ThreadCpu> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g
}

fn kernels(c: &mut Criterion<ThreadCpu>) {
    let docs = documents();
    let shingler = Shingler::new(ShingleKind::Char, K, StopWords::default());
    let mut scratch = Scratch::default();
    let hashed: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| {
            let mut v = Vec::new();
            shingler.for_each_hash(d, &mut scratch, |h| v.push(h));
            v
        })
        .collect();
    let bytes: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let shingles: u64 = hashed.iter().map(|h| h.len() as u64).sum();
    let mut set = DistinctSet::default();
    let mut buf = Vec::new();
    let unique: u64 = hashed
        .iter()
        .map(|h| {
            distinct(h, &mut set, &mut buf);
            buf.len() as u64
        })
        .sum();
    eprintln!(
        "kernels: {} documents ({} ASCII), {bytes} normalised bytes, {shingles} shingle \
         occurrences, {unique} distinct per document ({:.1} %); classic kernel variant: {}",
        docs.len(),
        docs.iter().filter(|d| d.is_ascii()).count(),
        100.0 * unique as f64 / shingles as f64,
        simd::best::<kernel::Variant>().name()
    );
    let reference = Reference::new(1);
    let hasher = MinHasher::new(N, 1);

    for (unit, throughput) in [
        ("bytes", Throughput::Bytes(bytes)),
        ("shingles", Throughput::Elements(shingles)),
    ] {
        let mut g = configure(c, &format!("kernels/{unit}"));
        g.throughput(throughput);
        g.bench_function("shingle_hash", |bch| {
            let mut scratch = Scratch::default();
            bch.iter(|| {
                for d in &docs {
                    shingler.for_each_hash(d, &mut scratch, |h| {
                        black_box(h);
                    });
                }
            })
        });
        g.bench_function("shingle_hash_reference", |bch| {
            // The char-shingle loop before the ASCII-run split (every
            // character start in a table for a text with a non-ASCII byte).
            bch.iter(|| {
                for d in &docs {
                    simfind::text::shingle::char_shingles_reference(d, K, |h| {
                        black_box(h);
                    });
                }
            })
        });
        g.bench_function("window_hash_crate", |bch| {
            // Every 5-byte window through the crate's general entry point
            // with k known only at run time, as the shingler hashed before
            // short_hash (with a constant k, LTO inlines and specialises the
            // crate's code as well).
            let k = black_box(K);
            bch.iter(|| {
                for d in &docs {
                    d.as_bytes().windows(k).for_each(|w| {
                        black_box(xxh3_64_with_seed(w, 0));
                    });
                }
            })
        });
        g.bench_function("window_hash_short", |bch| {
            let k = black_box(K);
            bch.iter(|| {
                for d in &docs {
                    short_hash::for_each_window_dyn(d.as_bytes(), k, |h| {
                        black_box(h);
                    });
                }
            })
        });
        // Each window-hash variant this CPU runs, k = 5 as a constant (what
        // window_hash_short dispatches to); `scalar` is the loop before the
        // vector kernel.
        simd::for_each_supported::<short_hash::kernel::Variant>(|v| {
            g.bench_function(format!("window_hash_{}", v.name()), |bch| {
                bch.iter(|| {
                    for d in &docs {
                        short_hash::kernel::for_each_window_variant::<K>(v, d.as_bytes(), |h| {
                            black_box(h);
                        });
                    }
                })
            });
        });
        g.bench_function("window_hash_block", |bch| {
            bch.iter(|| {
                for d in &docs {
                    short_hash::for_each_window_block::<K>(d.as_bytes(), |b| {
                        black_box(b);
                    });
                }
            })
        });
        // The OPH scan's inner loop: hash every window and sketch it, per
        // document. `scan_oph_scalar` is the loop before this branch (scalar
        // window hash, `Sketch::add` per window); `scan_oph` what
        // pipeline::sign_windows does now (dispatched window hash,
        // `Sketch::push` in batches).
        g.bench_function("scan_oph_scalar", |bch| {
            let mut sig = [0u32; N];
            bch.iter(|| {
                for d in &docs {
                    let mut sketch = oph::Sketch::new(1, &mut sig);
                    short_hash::kernel::for_each_window_variant::<K>(
                        short_hash::kernel::Variant::Scalar,
                        d.as_bytes(),
                        |h| sketch.add(h),
                    );
                    sketch.finish();
                    black_box(&sig);
                }
            })
        });
        g.bench_function("shingler_oph_add", |bch| {
            let mut sig = [0u32; N];
            let mut scratch = Scratch::default();
            bch.iter(|| {
                for d in &docs {
                    let mut sketch = oph::Sketch::new(1, &mut sig);
                    shingler.for_each_hash(d, &mut scratch, |h| sketch.add(h));
                    sketch.finish();
                    black_box(&sig);
                }
            })
        });
        g.bench_function("shingler_oph_block", |bch| {
            let mut sig = [0u32; N];
            let mut scratch = Scratch::default();
            bch.iter(|| {
                for d in &docs {
                    let mut sketch = oph::Sketch::new(1, &mut sig);
                    shingler.for_each_hash_block(d, &mut scratch, |b| sketch.add_batch(b));
                    sketch.finish();
                    black_box(&sig);
                }
            })
        });
        simd::for_each_supported::<oph::kernel::Variant>(|v| {
            g.bench_function(format!("scan_oph_block_{}", v.name()), |bch| {
                let mut sig = [0u32; N];
                bch.iter(|| {
                    for d in &docs {
                        let mut sketch = oph::Sketch::new(1, &mut sig);
                        short_hash::for_each_window_block::<K>(d.as_bytes(), |b| {
                            sketch.add_batch_variant(v, b);
                        });
                        sketch.finish();
                        black_box(&sig);
                    }
                })
            });
        });
        g.bench_function("dedup_sort", |bch| {
            let mut out = Vec::new();
            bch.iter(|| {
                for h in &hashed {
                    sort_distinct(h, &mut out);
                    black_box(&out);
                }
            })
        });
        g.bench_function("dedup_hashset", |bch| {
            let (mut set, mut out) = (DistinctSet::default(), Vec::new());
            bch.iter(|| {
                for h in &hashed {
                    distinct(h, &mut set, &mut out);
                    black_box(&out);
                }
            })
        });
        g.bench_function("reference_occ", |bch| {
            let mut sig = [0u32; N];
            bch.iter(|| {
                for h in &hashed {
                    reference.sign(h, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.bench_function("classic_occ", |bch| {
            let mut sig = [0u32; N];
            bch.iter(|| {
                for h in &hashed {
                    hasher.sign_into(h, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.bench_function("classic_distinct", |bch| {
            let mut sig = [0u32; N];
            let (mut set, mut out) = (DistinctSet::default(), Vec::new());
            bch.iter(|| {
                for h in &hashed {
                    distinct(h, &mut set, &mut out);
                    hasher.sign_into(&out, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.bench_function("classic_distinct_portable", |bch| {
            let mut sig = [0u32; N];
            let (mut set, mut out) = (DistinctSet::default(), Vec::new());
            bch.iter(|| {
                for h in &hashed {
                    distinct(h, &mut set, &mut out);
                    hasher.sign_into_portable(&out, &mut sig);
                    black_box(&sig);
                }
            })
        });
        // The signing kernel alone, on each document's distinct hashes, once
        // per variant this CPU supports (the same values bit for bit).
        let distinct_sets: Vec<Vec<u64>> = hashed
            .iter()
            .map(|h| {
                let (mut set, mut out) = (DistinctSet::default(), Vec::new());
                distinct(h, &mut set, &mut out);
                out
            })
            .collect();
        simd::for_each_supported::<kernel::Variant>(|v| {
            g.bench_function(format!("classic_sign_{}", v.name()), |bch| {
                let mut sig = [0u32; N];
                bch.iter(|| {
                    for set in &distinct_sets {
                        hasher.sign_into_variant(v, set, &mut sig);
                        black_box(&sig);
                    }
                })
            });
        });
        g.bench_function("oph_occ", |bch| {
            let mut sig = [0u32; N];
            bch.iter(|| {
                for h in &hashed {
                    oph::sign(h, 1, &mut sig);
                    black_box(&sig);
                }
            })
        });
        // The sketch alone over pre-hashed windows, through add_batch, per
        // variant (oph_occ is `Sketch::add` per hash).
        simd::for_each_supported::<oph::kernel::Variant>(|v| {
            g.bench_function(format!("oph_occ_batch_{}", v.name()), |bch| {
                let mut sig = [0u32; N];
                bch.iter(|| {
                    for h in &hashed {
                        let mut sketch = oph::Sketch::new(1, &mut sig);
                        sketch.add_batch_variant(v, h);
                        sketch.finish();
                        black_box(&sig);
                    }
                })
            });
        });
        g.bench_function("oph_distinct", |bch| {
            let mut sig = [0u32; N];
            let (mut set, mut out) = (DistinctSet::default(), Vec::new());
            bch.iter(|| {
                for h in &hashed {
                    distinct(h, &mut set, &mut out);
                    oph::sign(&out, 1, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.finish();
    }
}

fn sorting(c: &mut Criterion<ThreadCpu>) {
    let docs = documents();
    let shingler = Shingler::new(ShingleKind::Char, K, StopWords::default());
    let (mut scratch, mut filter) = (Scratch::default(), RepeatFilter::default());
    let sets: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| {
            let mut set = Vec::new();
            filter.filter_into(d.len() / 4, &mut set, |passing| {
                shingler.for_each_hash(d, &mut scratch, |h| passing.offer(h))
            });
            set
        })
        .collect();
    let values: u64 = sets.iter().map(|s| s.len() as u64).sum();
    let mut lens: Vec<usize> = sets.iter().map(Vec::len).collect();
    lens.sort_unstable();
    eprintln!(
        "sort: {} documents, {values} values; median {}, largest {}; {} below HashSorter::MIN_LEN",
        sets.len(),
        lens[lens.len() / 2],
        lens[lens.len() - 1],
        lens.iter().filter(|&&n| n < HashSorter::MIN_LEN).count()
    );
    let mut g = configure(c, "sort");
    g.throughput(Throughput::Elements(values));
    g.bench_function("copy", |bch| {
        let mut buf = Vec::new();
        bch.iter(|| {
            for s in &sets {
                buf.clear();
                buf.extend_from_slice(s);
                black_box(&buf);
            }
        })
    });
    g.bench_function("sort_unstable", |bch| {
        let mut buf = Vec::new();
        bch.iter(|| {
            for s in &sets {
                buf.clear();
                buf.extend_from_slice(s);
                buf.sort_unstable();
                black_box(&buf);
            }
        })
    });
    g.bench_function("hash_sorter", |bch| {
        let (mut buf, mut sorter) = (Vec::new(), HashSorter::default());
        bch.iter(|| {
            for s in &sets {
                buf.clear();
                buf.extend_from_slice(s);
                sorter.sort(&mut buf);
                black_box(&buf);
            }
        })
    });
    g.finish();
}

fn normalization(c: &mut Criterion<ThreadCpu>) {
    let (ascii, mixed) = raw_documents();
    for (name, docs) in [("ascii_docs", &ascii), ("mixed_docs", &mixed)] {
        let bytes: u64 = docs.iter().map(|d| d.len() as u64).sum();
        eprintln!("normalize/{name}: {} documents, {bytes} bytes", docs.len());
        let mut g = configure(c, &format!("normalize/{name}"));
        g.throughput(Throughput::Bytes(bytes));
        g.bench_function("reference", |bch| {
            let mut out = String::new();
            bch.iter(|| {
                for d in docs {
                    reference::normalize_into(d, Normalization::default(), &mut out);
                    black_box(&out);
                }
            })
        });
        simd::for_each_supported::<Kernel>(|kernel| {
            g.bench_function(kernel.name(), |bch| {
                let mut out = String::new();
                bch.iter(|| {
                    for d in docs {
                        normalize_into_kernel(d, Normalization::default(), &mut out, kernel);
                        black_box(&out);
                    }
                })
            });
        });
        g.bench_function("copy", |bch| {
            let mut out = Vec::new();
            bch.iter(|| {
                for d in docs {
                    out.clear();
                    out.extend_from_slice(d);
                    black_box(&out);
                }
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = kernels, sorting, normalization
}
criterion_main!(benches);
