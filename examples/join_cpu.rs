//! CPU time of the exact join alone on a corpus's char-5 sets.
//! usage: join_cpu DIR T [T...]
use rayon::prelude::*;
use simfind::text::normalize::{Normalization, normalize};
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

fn cpu() -> f64 {
    // SAFETY: rusage is plain integers, for which all-zero bytes are a valid value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one rusage into the valid, exclusive `u`.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    (u.ru_utime.tv_sec as f64 + u.ru_utime.tv_usec as f64 * 1e-6)
        + (u.ru_stime.tv_sec as f64 + u.ru_stime.tv_usec as f64 * 1e-6)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut paths: Vec<_> = walkdir::WalkDir::new(&a[1])
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    paths.sort();
    let sh = Shingler::new(ShingleKind::Char, 5, StopWords::default());
    let norm = Normalization {
        lowercase: true,
        collapse_whitespace: true,
        drop_whitespace: false,
        fold_accents: false,
        fold_punct: false,
    };
    let mut sets: Vec<Vec<u64>> = paths
        .par_iter()
        .map(|p| sh.shingle_set(&normalize(&std::fs::read(p).unwrap(), norm)))
        .collect();
    sets.sort();
    sets.dedup();
    for t in &a[2..] {
        let t: f64 = t.parse().unwrap();
        let (c0, w0) = (cpu(), std::time::Instant::now());
        let j = simfind::similarity::join::all_pairs(&sets, t).unwrap();
        println!(
            "t={t} cpu={:.2}s wall={:.2}s pairs={} {:?}",
            cpu() - c0,
            w0.elapsed().as_secs_f64(),
            j.pairs.len(),
            j.stats
        );
    }
}
