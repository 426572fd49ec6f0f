#![no_main]
//! Fuzz target `plan`: the property is `simfind_fuzz::actions::plan`
//! (fuzz/src/actions.rs), which tests/suite/fuzz_regressions.rs replays on stable.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| simfind_fuzz::actions::plan(data));
