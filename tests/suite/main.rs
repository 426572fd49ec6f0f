//! The integration tests of simfind, as one test binary: each file of
//! `tests/suite/` is a module, so the suite compiles and links once instead
//! of once per file. The engine tests (Spark, DuckDB, the headless browser)
//! are the second binary, `tests/engines/`, so that `scripts/test.sh` can run
//! them as a step of their own. Both share the harness `tests/util`.
//!
//! The modules share one process: a test must not change what is
//! process-wide (environment, working directory, limits, signal handlers)
//! but set it on the child it spawns. The fault hooks of
//! `simfind::input::faults` are process-wide by design and each one ignores
//! paths that are not its own.

#[path = "../util/mod.rs"]
mod util;

// The fuzz targets' properties (`fuzz/src/`), replayed by `fuzz_regressions`;
// at the crate root because `inputs.rs` names `crate::props`, as in the fuzz
// crate.
#[path = "../../fuzz/src/actions.rs"]
mod actions;
#[path = "../../fuzz/src/exchange.rs"]
mod exchange_input;
#[path = "../../fuzz/src/inputs.rs"]
mod inputs;
#[path = "../../fuzz/src/props.rs"]
mod props;

mod add_if_new;
mod auto_method;
mod bigfile;
mod bounded;
mod cli;
mod containment;
mod conventions;
mod csv_recovery;
mod curve_tune;
mod dedupe;
mod doc_commands;
mod exact;
mod exact_index;
mod exchange;
mod explain;
mod families;
mod faults;
mod fellegi_sunter;
mod fold;
mod fuzz_regressions;
mod groups;
mod hostile;
mod hostile_rows;
mod identity;
mod important_words;
mod index;
mod index_kinds;
mod index_prefix;
mod input;
mod install;
mod io_threads;
mod limits;
mod memory;
mod mmds;
mod mmds_applications;
mod mmds_citations;
mod normalize;
mod oph;
mod output;
mod pipeline;
mod plan;
mod properties;
mod query;
mod query_walk;
#[cfg(target_os = "linux")]
mod read_guard;
mod recall;
mod record_candidates;
mod records;
mod records_inputs;
mod records_parquet;
mod records_reread;
mod report_html;
mod same_file;
mod summary_json;
mod top;
mod transform;
mod tuning_doc;
mod unique;
mod weighted;
