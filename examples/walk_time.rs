//! Times the walk alone (no reading), for docs/PERFORMANCE.md "Ignore files and
//! the walk": simfind's sorted streaming walk without and with ignore files,
//! against the `ignore` crate's own walker (sequential, and parallel with the
//! paths sorted afterwards, which is what simfind would need for its order).
//!
//!   cargo run --release --example walk_time -- DIR [THREADS]
//!
//! Prints one line per walker: files found and the best of three runs.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use simfind::input::walk::{self, WalkOptions};

fn best<F: FnMut() -> usize>(name: &str, mut f: F) {
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..3 {
        let start = Instant::now();
        n = f();
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    println!("{name:<44} {n:>9} files  {:.3} s", times[0]);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = PathBuf::from(&args[1]);
    let threads: usize = args.get(2).map_or(2, |t| t.parse().unwrap());
    let roots = vec![root.clone()];
    for (name, ignore_files) in [
        ("simfind walk, --no-ignore", false),
        ("simfind walk, ignore files (default)", true),
    ] {
        let opts = WalkOptions {
            ignore_files,
            ..WalkOptions::default()
        };
        best(name, || {
            walk::walk(&roots, &opts, false, |_| {}).files.len()
        });
    }
    best("ignore::WalkBuilder sequential (walk order)", || {
        ignore::WalkBuilder::new(&root)
            .require_git(true)
            .parents(false)
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .filter(|e| e.metadata().is_ok())
            .count()
    });
    let name = format!("ignore::WalkBuilder parallel {threads} threads + sort");
    best(&name, || {
        let paths = Mutex::new(Vec::new());
        ignore::WalkBuilder::new(&root)
            .parents(false)
            .threads(threads)
            .build_parallel()
            .run(|| {
                let paths = &paths;
                Box::new(move |entry| {
                    if let Ok(e) = entry
                        && e.file_type().is_some_and(|t| t.is_file())
                    {
                        let _ = e.metadata();
                        paths.lock().unwrap().push(e.into_path());
                    }
                    ignore::WalkState::Continue
                })
            });
        let mut paths = paths.into_inner().unwrap();
        paths.sort_by(|a, b| a.as_os_str().as_bytes().cmp(b.as_os_str().as_bytes()));
        paths.len()
    });
}
