//! Tells the tests whether the shared corpora are beside the project.
//!
//! The corpus tests read `../shared/data` (real corpora with exact ground
//! truth). A newcomer's clone has no `../shared`: there those tests are marked
//! ignored, with the reason, through the `no_shared_data` cfg, so that
//! `cargo test` passes and lists what it skipped. Under CI (`CI=true`) their
//! absence is an error: CI must never pass without having run them.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_shared_data)");
    println!("cargo::rerun-if-env-changed=CI");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    println!("cargo::rerun-if-changed={}", data.display());
    if data.is_dir() {
        return;
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "CI=true but {} is missing: the corpus tests must run under CI",
            data.display()
        );
    }
    println!("cargo::rustc-cfg=no_shared_data");
    println!(
        "cargo::warning=../shared/data is absent: the corpus tests are ignored (they run where it exists, and CI requires it)"
    );
}
