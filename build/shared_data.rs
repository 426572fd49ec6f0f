// Included by the build scripts of the root package and of crates/core:
// both have tests that read ../shared/data.

/// Sets the `no_shared_data` cfg where the shared corpora at `data` are
/// absent (their tests are then ignored with the reason); under CI their
/// absence is an error.
fn mark_shared_data(data: &std::path::Path) {
    println!("cargo::rustc-check-cfg=cfg(no_shared_data)");
    println!("cargo::rerun-if-env-changed=CI");
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
