//! Two jobs, both read by the crate through `cfg`/`env!`:
//!
//! 1. Tells the tests whether the shared corpora are beside the project.
//!    The corpus tests read `../shared/data` (real corpora with exact ground
//!    truth). A newcomer's clone has no `../shared`: there those tests are
//!    marked ignored, with the reason, through the `no_shared_data` cfg, so
//!    that `cargo test` passes and lists what it skipped. Under CI (`CI=true`)
//!    their absence is an error: CI must never pass without having run them.
//! 2. Identifies the build for `simfind --version`: the git commit when built
//!    from a checkout (`unknown` from a source archive or without git), the
//!    enabled Cargo features and the target.

use std::path::Path;
use std::process::Command;

// `mark_shared_data`, shared with crates/core/build.rs.
include!("build/shared_data.rs");

fn main() {
    identify_build();
    mark_shared_data(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    declare_fuzzing_cfg();
}

fn declare_fuzzing_cfg() {
    // Set by cargo-fuzz when the fuzz properties (fuzz/src/, which the
    // suite includes to replay them) are built for fuzzing. Which engines
    // are installed is decided when the engine tests run
    // (tests/engines/main.rs), so that nothing is built differently for it.
    println!("cargo::rustc-check-cfg=cfg(fuzzing)");
}

/// Sets `SIMFIND_GIT_COMMIT`, `SIMFIND_FEATURES` and `SIMFIND_TARGET`.
///
/// The commit is re-read when HEAD or the branch it points to moves, so a
/// binary never names a commit it was not built from. The price: a commit
/// re-runs this script, which rebuilds this package's own crates (never the
/// dependencies). Working-tree changes are not tracked: a build with
/// uncommitted edits names the last commit.
fn identify_build() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let commit = if manifest.join(".git").exists() {
        git_commit(manifest)
    } else {
        None
    };
    println!(
        "cargo::rustc-env=SIMFIND_GIT_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );

    let mut features: Vec<String> = std::env::vars()
        .filter_map(|(key, _)| key.strip_prefix("CARGO_FEATURE_").map(str::to_owned))
        .map(|f| f.to_ascii_lowercase().replace('_', "-"))
        .collect();
    features.sort();
    let features = if features.is_empty() {
        "none".to_owned()
    } else {
        features.join(", ")
    };
    println!("cargo::rustc-env=SIMFIND_FEATURES={features}");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo::rustc-env=SIMFIND_TARGET={target}");
}

/// `git rev-parse --short HEAD` in `dir`, and the files whose change means
/// HEAD moved (HEAD itself, the branch's ref, packed refs). None if git is
/// missing or fails.
fn git_commit(dir: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let text = String::from_utf8(out.stdout).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_owned())
    };
    let commit = git(&["rev-parse", "--short", "HEAD"])?;
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        // A missing path would make Cargo re-run the script on every build.
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &name])
            && Path::new(&path).exists()
        {
            println!("cargo::rerun-if-changed={path}");
        }
    }
    Some(commit)
}
