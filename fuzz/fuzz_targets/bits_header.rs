#![no_main]
//! Fuzz target `bits_header`: the property is `simfind_fuzz::inputs::bits_header`
//! (fuzz/src/inputs.rs), which tests/suite/fuzz_regressions.rs replays on stable.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| simfind_fuzz::inputs::bits_header(data));
