//! The properties the fuzz targets check, one `pub fn(&[u8])` per target
//! (`fuzz_targets/<name>.rs` calls `props::<name>` or `inputs::<name>`).
//! The same files are included by `tests/suite/fuzz_regressions.rs`, which
//! replays every kept input (`fuzz/corpus/`, `fuzz/regressions/`) on stable
//! with every `cargo test`.
pub mod actions;
pub mod inputs;
pub mod props;
