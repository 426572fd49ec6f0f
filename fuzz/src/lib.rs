//! The properties the fuzz targets check, one `pub fn(&[u8])` per target
//! (`fuzz_targets/<name>.rs` calls `props::<name>` or `inputs::<name>`).
//! The same files are included by `tests/suite/fuzz_regressions.rs`, which
//! replays every kept input (`fuzz/corpus/`, `fuzz/regressions/`) on stable
//! with every `cargo test`.
pub mod actions;
// Only the `exchange` target reads Parquet: without the feature the build
// leaves arrow and parquet out (scripts/fuzz.sh builds it apart).
#[cfg(feature = "parquet")]
pub mod exchange;
pub mod inputs;
pub mod props;
