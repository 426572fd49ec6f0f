//! Stage times of one scan, for calibrating the method cost model.
//! usage: stage_times DIR THRESHOLD exact|lsh
use simfind::input::read::ReadOptions;
use simfind::input::walk::WalkOptions;
use simfind::lsh::Banding;
use simfind::pipeline::plan::{Method, MethodChoice};
use simfind::pipeline::{self, ScanConfig, Verification};
use simfind::progress::{Reporter, Stage};
use simfind::recipe::Recipe;
use simfind::sketch::SketchKind;
use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};
use std::sync::Mutex;
use std::time::Instant;

fn cpu() -> f64 {
    // SAFETY: rusage is plain integers, for which all-zero bytes are a valid value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one rusage into the valid, exclusive `u`.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    (u.ru_utime.tv_sec as f64 + u.ru_utime.tv_usec as f64 * 1e-6)
        + (u.ru_stime.tv_sec as f64 + u.ru_stime.tv_usec as f64 * 1e-6)
}
struct Timer(Mutex<(f64, Vec<(Stage, f64)>)>);
impl Reporter for Timer {
    fn begin(&self, _s: Stage, _t: Option<u64>) {
        self.0.lock().unwrap().0 = cpu();
    }
    fn end(&self, s: Stage) {
        let mut g = self.0.lock().unwrap();
        let e = cpu() - g.0;
        g.1.push((s, e));
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let method = if a[3] == "exact" {
        Method::Exact
    } else {
        Method::Lsh
    };
    let word = a.get(4).map(|s| s == "word").unwrap_or(false);
    let config = ScanConfig {
        roots: vec![a[1].clone().into()],
        walk: WalkOptions::default(),
        read: ReadOptions::default(),
        recipe: Recipe {
            include_binary: false,
            normalization: Normalization {
                lowercase: true,
                collapse_whitespace: true,
                drop_whitespace: false,
                fold_accents: false,
                fold_punct: false,
            },
            shingler: if word {
                Shingler::new(ShingleKind::Word, 3, StopWords::default())
            } else {
                Shingler::new(ShingleKind::Char, 5, StopWords::default())
            },
            banding: Banding { bands: 20, rows: 5 },
            seed: 42,
            sketch: SketchKind::Classic,
        },
        threshold: a[2].parse().unwrap(),
        verification: Verification::Exact,
        verify_memory: 1 << 30,
        exact_index: None,
        method: MethodChoice::Fixed(method),
    };
    let timer = Timer(Mutex::new((0.0, Vec::new())));
    let t0 = Instant::now();
    let out = pipeline::scan(&config, &timer);
    let total = t0.elapsed().as_secs_f64();
    print!("cpu_total={:.2} ", cpu());
    let stages = timer.0.into_inner().unwrap().1;
    let shingles: u64 = out.documents.iter().map(|d| d.shingles as u64).sum();
    print!("{} t={} total={:.2}", a[3], a[2], total);
    for (s, e) in stages {
        print!(" {:?}={:.2}", s, e);
    }
    println!(
        " pairs={} cand={} bytes={} tokens_all_docs={} load={}",
        out.pairs.len(),
        out.stats.candidates,
        out.stats.bytes,
        shingles,
        std::fs::read_to_string("/proc/loadavg")
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
    );
}
