//! The engine tests: what needs the Python engines (pyarrow, DuckDB, Spark)
//! or headless Chromium, the Python package (`python`) and the documents made
//! by real producers, that `scripts/setup-engines.sh` installs under
//! `target/engines/`. They are the slow ones, so they are a test binary of
//! their own, which `scripts/test.sh` runs as a step of its own after the
//! suite (`tests/suite/`).
//!
//! Which engines are there is decided when the tests run, not when they are
//! built: this binary has its own harness (libtest-mimic, with libtest's
//! flags and output) that marks a test ignored where an engine it needs is
//! missing and says why, and fails at once under `SIMFIND_ENGINES=required`
//! (set by `scripts/test.sh`). So the test build can run while the engines
//! are being installed, and installing one recompiles nothing.
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

use std::path::Path;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Trial};

/// What a test needs beside the binary.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Need {
    /// The venv with pyarrow, DuckDB and Spark.
    PythonEngines,
    /// The `simfind` wheel built from crates/py, installed into the venv.
    PythonPackage,
    /// A headless browser.
    Chromium,
    /// The documents `scripts/make-documents.sh` made.
    Documents,
    /// `../shared/data`, the corpora with exact ground truth (decided at
    /// build time, as for the suite: build.rs sets `no_shared_data`).
    SharedData,
}

impl Need {
    const ALL: [Need; 5] = [
        Need::PythonEngines,
        Need::PythonPackage,
        Need::Chromium,
        Need::Documents,
        Need::SharedData,
    ];

    /// Where `scripts/setup-engines.sh` leaves its marker, for the engines.
    fn marker(self) -> Option<&'static str> {
        match self {
            Need::PythonEngines => Some("requirements.installed"),
            Need::PythonPackage => Some("python-package.installed"),
            Need::Chromium => Some("chromium"),
            Need::Documents => Some("documents/.done"),
            Need::SharedData => None,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Need::PythonEngines => "the Python engines (pyarrow, DuckDB, Spark)",
            Need::PythonPackage => "the Python package (crates/py)",
            Need::Chromium => "chromium",
            Need::Documents => "the documents of the extraction tests (scripts/make-documents.sh)",
            Need::SharedData => "../shared/data",
        }
    }

    fn present(self) -> bool {
        match self.marker() {
            Some(marker) => Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/engines")
                .join(marker)
                .exists(),
            None => !cfg!(no_shared_data),
        }
    }
}

/// A test's name, what it needs, and the test.
type Listed = (String, Vec<Need>, fn());

/// A test by its path, with what it needs; the name is the path as libtest
/// would print it (`module::test`), so filters work as for any test.
macro_rules! trial {
    ($($path:ident)::+, [$($need:expr),+ $(,)?]) => {
        (
            stringify!($($path)::+).split_whitespace().collect::<String>(),
            vec![$($need),+],
            $($path)::+ as fn(),
        )
    };
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let missing: Vec<Need> = Need::ALL
        .into_iter()
        .filter(|need| !need.present())
        .collect();
    let required = std::env::var("SIMFIND_ENGINES").as_deref() == Ok("required");
    for need in &missing {
        // The shared corpora have their own rule (build.rs: an error under CI).
        if required && *need != Need::SharedData {
            eprintln!(
                "engines: SIMFIND_ENGINES=required but {} is missing: run bash scripts/setup-engines.sh",
                need.describe()
            );
            return ExitCode::FAILURE;
        }
        eprintln!(
            "engines: {} is missing: the tests that need it are ignored{}",
            need.describe(),
            if need.marker().is_some() {
                " (bash scripts/setup-engines.sh installs it)"
            } else {
                ""
            }
        );
    }
    let tests: Vec<Listed> = vec![
        trial!(documents::the_same_text_in_every_format_pairs_with_its_source_at_0_9, [Need::Documents]),
        trial!(documents::files_are_read_by_their_content_whatever_their_name_or_length, [Need::Documents]),
        trial!(documents::an_edited_docx_scores_within_0_05_of_its_source_texts, [Need::Documents]),
        trial!(documents::identical_images_and_pdfs_pair_at_1_and_dedupe_links_and_undoes_them, [Need::Documents]),
        trial!(documents::bad_documents_are_named_with_their_reason_counted_and_the_run_goes_on, [Need::Documents]),
        trial!(documents::dedupe_moves_the_original_documents_and_undo_brings_them_back, [Need::Documents]),
        trial!(documents::explain_says_on_which_page_of_a_pdf_a_passage_is, [Need::Documents]),
        trial!(exchange::pyarrow_and_duckdb_read_the_contract_unchanged, [Need::PythonEngines]),
        trial!(exchange::duckdb_band_join_gives_exactly_the_scan_pairs_on_debian_docs, [Need::SharedData, Need::PythonEngines]),
        trial!(exchange::spark_band_join_gives_exactly_the_scan_pairs_on_debian_docs, [Need::SharedData, Need::PythonEngines]),
        trial!(exchange::the_engines_refuse_shards_of_another_recipe, [Need::PythonEngines]),
        trial!(python::the_python_packages_tests_pass, [Need::PythonPackage]),
        trial!(python::the_python_index_is_the_commands_index, [Need::PythonPackage]),
        trial!(python::the_pyspark_example_gives_the_commands_pairs, [Need::PythonPackage, Need::PythonEngines]),
        trial!(records::the_benchmark_is_what_the_generator_makes, [Need::PythonEngines]),
        trial!(records::parquet_from_pyarrow_and_duckdb_scans_as_its_json_lines_and_keeps_the_right_rows, [Need::PythonEngines]),
        trial!(report_html::browser_draws_the_groups_of_testdata, [Need::Chromium]),
        trial!(
            report_html::browser_screenshot_of_the_first_screen_shows_a_group,
            [Need::Chromium]
        ),
        trial!(report_html::browser_shows_hostile_names_as_text_and_runs_nothing, [Need::Chromium]),
        trial!(report_html::browser_draws_the_groups_of_debian_docs, [Need::Chromium, Need::SharedData]),
        trial!(report_html::browser_marks_the_pages_of_a_pdf, [Need::Chromium, Need::Documents]),
        trial!(report_html::browser_exports_a_plan_that_dedupe_applies, [Need::Chromium]),
        trial!(report_html::browser_shows_the_word_diff_side_by_side_and_scrolls_both_sides, [Need::Chromium]),
        trial!(exchange::families::duckdb_band_join_of_signed_points_gives_exactly_the_scan_pairs, [Need::PythonEngines]),
        trial!(exchange::families::the_engines_refuse_points_mixed_with_files, [Need::PythonEngines]),
        trial!(exchange::records::duckdb_band_join_of_signed_records_gives_exactly_the_scan_pairs, [Need::PythonEngines]),
        trial!(exchange::records::duckdb_band_join_of_records_signed_per_field_gives_exactly_the_scan_pairs, [Need::PythonEngines]),
        trial!(exchange::records::spark_band_join_of_signed_records_gives_exactly_the_scan_pairs, [Need::PythonEngines]),
    ];
    let trials = tests
        .into_iter()
        .map(|(name, needs, test)| {
            let ignored = needs.iter().any(|need| missing.contains(need));
            Trial::test(name, move || {
                test();
                Ok(())
            })
            .with_ignored_flag(ignored)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
