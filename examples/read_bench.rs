//! Measures `input::read::read_file` with different mmap thresholds: reads every
//! file under the given paths (hot cache after the first round), hashes the bytes
//! so every page is touched, and prints the best wall time of several rounds.
//! Used by `bench/read_vs_mmap.sh`; not a test.
//!
//! ```text
//! cargo run --release --example read_bench -- <mmap_min_size|never> <threads> <rounds> PATH...
//! ```

use simfind::input::read::{ReadOptions, read_file};
use std::time::Instant;

use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: read_bench <mmap_min_size|never> <threads> <rounds> PATH...");
        std::process::exit(2);
    }
    let opts = match args[0].as_str() {
        "never" => ReadOptions::never_mmap(),
        n => ReadOptions {
            mmap_min_size: n.parse().expect("mmap_min_size: bytes or 'never'"),
            ..ReadOptions::default()
        },
    };
    let threads: usize = args[1].parse().expect("threads");
    let rounds: usize = args[2].parse().expect("rounds");
    let mut files: Vec<_> = args[3..]
        .iter()
        .flat_map(walkdir::WalkDir::new)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.sort();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut best = f64::INFINITY;
    let mut total = (0u64, 0u64, 0usize);
    for _ in 0..rounds {
        let t = Instant::now();
        total = pool.install(|| {
            files
                .par_iter()
                .map(|p| match read_file(p, &opts) {
                    Ok(c) => {
                        let h = xxhash_rust::xxh3::xxh3_64(&c);
                        c.verify_unchanged().expect("file changed during bench");
                        (c.len() as u64, h, c.is_mapped() as usize)
                    }
                    Err(e) => panic!("{}: {e}", p.display()),
                })
                .reduce(
                    || (0, 0, 0),
                    |a, b| (a.0 + b.0, a.1.wrapping_add(b.1), a.2 + b.2),
                )
        });
        best = best.min(t.elapsed().as_secs_f64());
    }
    let (bytes, hash, mapped) = total;
    println!(
        "threshold={} threads={threads} files={} mapped={mapped} bytes={bytes} best_s={best:.4} GB/s={:.2} sum={hash:016x}",
        args[0],
        files.len(),
        bytes as f64 / best / 1e9
    );
}
