#![no_main]
//! Fuzz target `extract_office`: the property is `simfind_fuzz::inputs::extract_office`
//! (fuzz/src/inputs.rs), which tests/suite/fuzz_regressions.rs replays on stable.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| simfind_fuzz::inputs::extract_office(data));
