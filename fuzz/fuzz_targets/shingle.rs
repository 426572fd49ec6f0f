#![no_main]
//! Fuzz target `shingle`: the property is `simfind_fuzz::props::shingle`
//! (fuzz/src/props.rs), which tests/suite/fuzz_regressions.rs replays on stable.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| simfind_fuzz::props::shingle(data));
