//! Criterion benches for the signing kernels, per core, on real documents.
//!
//! Input: every 16th file of `../shared/data/debian-docs/files` (sorted paths,
//! about 3 MB), each normalised as `../shared/data/README.md` defines, processed
//! one document at a time as the pipeline does. Each kernel is reported twice:
//! in bytes of normalised text per second (`…/bytes`) and in char-5 shingle
//! occurrences per second (`…/shingles`).
//!
//! Kernels:
//! * `shingle_hash`: char-5 windows, XXH3-64 of each window's UTF-8 bytes;
//! * `classic_occ`: classic MinHash at n = 100, every occurrence, the reference
//!   `(a·h + b) >> 32` min-loop over arrays of coefficients;
//! * `classic_distinct`: the same over the distinct hashes, dedup included;
//! * `oph_occ` / `oph_distinct`: one-permutation hashing with densification.
//!
//! Run: `cargo bench --bench kernels` (about a minute; sample sizes are small
//! because the machine is shared). Filter with `cargo bench --bench kernels -- oph`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use xxhash_rust::xxh3::xxh3_64;

const N: usize = 100;
const K: usize = 5;

/// `../shared/data/debian-docs/files` from the project root; a git worktree one
/// level deeper (`wt/<branch>`) finds it one more level up, and `SIMFIND_SHARED`
/// overrides both.
fn corpus_dir() -> PathBuf {
    let shared = std::env::var_os("SIMFIND_SHARED")
        .map(PathBuf::from)
        .or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .skip(1)
                .map(|a| a.join("shared"))
                .find(|s| s.join("data").is_dir())
        })
        .expect("shared/data not found beside the project (set SIMFIND_SHARED)");
    shared.join("data/debian-docs/files")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Normalisation of the ground truth: lossy UTF-8, Unicode lowercase, runs of
/// whitespace → one space, trimmed.
fn normalise(bytes: &[u8]) -> String {
    let lower = String::from_utf8_lossy(bytes).to_lowercase();
    let mut out = String::with_capacity(lower.len());
    for word in lower.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn documents() -> Vec<String> {
    let mut paths = Vec::new();
    walk(&corpus_dir(), &mut paths);
    paths
        .iter()
        .step_by(16)
        .map(|p| normalise(&std::fs::read(p).unwrap()))
        .collect()
}

/// Char-5 shingle hashes of normalised text, every occurrence, in order.
fn shingle_hashes(text: &str, out: &mut Vec<u64>) {
    out.clear();
    let b = text.as_bytes();
    if text.is_ascii() {
        if b.len() >= K {
            out.extend(b.windows(K).map(xxh3_64));
        }
        return;
    }
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    if starts.len() < K {
        return;
    }
    for w in 0..=starts.len() - K {
        let end = starts.get(w + K).copied().unwrap_or(b.len());
        out.push(xxh3_64(&b[starts[w]..end]));
    }
}

/// Reference classic MinHash kernel: n multiply-add-shift hashes laid out as
/// coefficient arrays so the inner loop vectorises.
struct Classic {
    a: [u64; N],
    b: [u64; N],
}

impl Classic {
    fn new(seed: u64) -> Self {
        let mut s = seed;
        let mut next = || {
            // splitmix64
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut a = [0; N];
        let mut b = [0; N];
        for i in 0..N {
            a[i] = next() | 1;
            b[i] = next();
        }
        Classic { a, b }
    }

    fn sign(&self, hashes: &[u64], out: &mut [u32; N]) {
        out.fill(u32::MAX);
        for &h in hashes {
            for i in 0..N {
                let v = (self.a[i].wrapping_mul(h).wrapping_add(self.b[i]) >> 32) as u32;
                out[i] = out[i].min(v);
            }
        }
    }
}

fn distinct(hashes: &[u64], out: &mut Vec<u64>) {
    out.clear();
    out.extend_from_slice(hashes);
    out.sort_unstable();
    out.dedup();
}

fn configure<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g
}

fn kernels(c: &mut Criterion) {
    let docs = documents();
    let hashed: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| {
            let mut v = Vec::new();
            shingle_hashes(d, &mut v);
            v
        })
        .collect();
    let bytes: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let shingles: u64 = hashed.iter().map(|h| h.len() as u64).sum();
    let unique: u64 = hashed
        .iter()
        .map(|h| {
            let mut d = Vec::new();
            distinct(h, &mut d);
            d.len() as u64
        })
        .sum();
    eprintln!(
        "kernels: {} documents, {bytes} normalised bytes, {shingles} shingle occurrences, {unique} distinct per document ({:.1} %)",
        docs.len(),
        100.0 * unique as f64 / shingles as f64
    );
    let classic = Classic::new(1);

    for (unit, throughput) in [
        ("bytes", Throughput::Bytes(bytes)),
        ("shingles", Throughput::Elements(shingles)),
    ] {
        let mut g = configure(c, &format!("kernels/{unit}"));
        g.throughput(throughput);
        g.bench_function("shingle_hash", |bch| {
            let mut buf = Vec::new();
            bch.iter(|| {
                for d in &docs {
                    shingle_hashes(d, &mut buf);
                    black_box(&buf);
                }
            })
        });
        g.bench_function("classic_occ", |bch| {
            let mut sig = [0u32; N];
            bch.iter(|| {
                for h in &hashed {
                    classic.sign(h, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.bench_function("classic_distinct", |bch| {
            let mut sig = [0u32; N];
            let mut set = Vec::new();
            bch.iter(|| {
                for h in &hashed {
                    distinct(h, &mut set);
                    classic.sign(&set, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.bench_function("oph_occ", |bch| {
            let mut sig = [0u32; N];
            bch.iter(|| {
                for h in &hashed {
                    simfind::oph::sign(h, 1, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.bench_function("oph_distinct", |bch| {
            let mut sig = [0u32; N];
            let mut set = Vec::new();
            bch.iter(|| {
                for h in &hashed {
                    distinct(h, &mut set);
                    simfind::oph::sign(&set, 1, &mut sig);
                    black_box(&sig);
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
