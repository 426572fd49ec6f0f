#![no_main]
//! Fuzz target `exchange`: the property is `simfind_fuzz::exchange::exchange`
//! (fuzz/src/exchange.rs), which tests/suite/fuzz_regressions.rs replays on stable.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| simfind_fuzz::exchange::exchange(data));
