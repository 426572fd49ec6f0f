//! What the benches share: where the corpus is and its files in order.

use std::path::{Path, PathBuf};

/// Every file of `../shared/data/debian-docs/files`, in sorted path order.
/// From the project root; a git worktree one level deeper (`wt/<branch>`)
/// finds `shared/` one more level up, and `SIMFIND_SHARED` overrides both.
pub fn debian_docs_files() -> Vec<PathBuf> {
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
    let mut paths = Vec::new();
    walk(&shared.join("data/debian-docs/files"), &mut paths);
    paths
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
