#![no_main]
//! Fuzz target `extract_mail`: the property is `simfind_fuzz::inputs::extract_mail`
//! (fuzz/src/inputs.rs), which tests/suite/fuzz_regressions.rs replays on stable.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| simfind_fuzz::inputs::extract_mail(data));
