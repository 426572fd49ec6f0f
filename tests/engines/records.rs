//! The records benchmark (`tests/records-data/`) against its generator.

use crate::util::root;

/// The checked-in benchmark is what the generator makes with its defaults.
pub(crate) fn the_benchmark_is_what_the_generator_makes() {
    let dir = tempfile::tempdir().unwrap();
    let python = root().join("target/engines/venv/bin/python");
    let status = std::process::Command::new(python)
        .arg(root().join("bench/gen_records.py"))
        .arg(dir.path())
        .status()
        .expect("python runs");
    assert!(status.success());
    for name in [
        "people.csv",
        "truth.csv",
        "link_a.csv",
        "link_b.csv",
        "link_truth.csv",
    ] {
        let made = std::fs::read(dir.path().join(name)).unwrap();
        let kept = std::fs::read(root().join("tests/records-data").join(name)).unwrap();
        assert!(made == kept, "{name} differs from bench/gen_records.py's");
    }
}
