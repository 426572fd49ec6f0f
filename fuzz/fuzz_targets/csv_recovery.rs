#![no_main]
//! Fuzz target `csv_recovery`: the property is `simfind_fuzz::inputs::csv_recovery`
//! (fuzz/src/inputs.rs), which tests/suite/fuzz_regressions.rs replays on stable.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| simfind_fuzz::inputs::csv_recovery(data));
