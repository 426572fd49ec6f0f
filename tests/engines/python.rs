//! The Python face: the `simfind` package that `scripts/setup-engines.sh`
//! builds from crates/py and installs into `target/engines/venv`, tested by
//! its own pytest files (crates/py/tests), which check its answers against
//! this build's `simfind` command: one test here runs them and fails when
//! any fails, so that `cargo test` is still the one command that tests all.

use std::process::Command;

use crate::util::*;

pub(crate) fn the_python_packages_tests_pass() {
    let out = Command::new(root().join("target/engines/venv/bin/python"))
        .current_dir(root())
        // The command the package is checked against (conftest.py).
        .env("SIMFIND_BIN", env!("CARGO_BIN_EXE_simfind"))
        // Nothing written into the source tree: no bytecode, no cache.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args([
            "-m",
            "pytest",
            "crates/py/tests",
            "-q",
            "-p",
            "no:cacheprovider",
            // Every test runs: a skip would hide a missing piece.
            "-rs",
        ])
        .output()
        .expect("the venv's python runs");
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "pytest failed:\n{report}");
    // Skips are expected only where an optional package is absent, and
    // the test names it; none for want of the command.
    assert!(
        !report.contains("SIMFIND_BIN is not set"),
        "the command was not found:\n{report}"
    );
}
