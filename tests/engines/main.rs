//! The engine tests: what needs the Python engines (pyarrow, DuckDB, Spark)
//! or headless Chromium, and the Python package (`python`), that `scripts/setup-engines.sh` installs under
//! `target/engines/`. They are the slow ones, so they are a test binary of
//! their own, which `scripts/test.sh` runs as a step of its own after the
//! suite (`tests/suite/`). Where an engine is missing, build.rs sets
//! `no_python_engines` or `no_chromium` and its tests are ignored with the
//! reason; under `SIMFIND_ENGINES=required` the build fails instead.
//!
//! The modules mirror the suite's (`exchange`, `records`, `report_html`), so
//! a test keeps the name it has beside the tests of the same subject.

#[path = "../util/mod.rs"]
mod util;

mod documents;
mod exchange;
mod python;
mod records;
mod report_html;
