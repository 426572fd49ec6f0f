//! The EXIT STATUS tables of every `--help`, rendered from the codes in
//! [`crate::app::exit`] so that a help page cannot name a code the binary
//! does not return.

use std::fmt::Write as _;

use crate::app::exit;

/// One row of an EXIT STATUS table: a code from [`exit`] and what it means
/// for the command; each `\n` in the meaning continues it on an indented line.
pub type ExitRow = (i32, &'static str);

const SUCCESS: ExitRow = (exit::OK, "success");
const USAGE_ONLY: ExitRow = (exit::FATAL, "usage error (nothing printed on stdout)");

/// `scan`, and the top-level `--help`.
pub const EXIT_STATUS_SCAN: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files were skipped because of errors (warnings on stderr\n\
         name each file); the output is complete for all other files",
    ),
    (exit::FATAL, "usage error or fatal error; no output written"),
    (
        exit::NONE_FOUND,
        "with --exit-code: every file was read and nothing was found (then 0 means found)",
    ),
    (
        exit::INTERRUPTED,
        "interrupted (SIGINT/SIGTERM); no output file written",
    ),
];

/// `index`.
pub const EXIT_STATUS_INDEX: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files were skipped because of errors (warnings on stderr\n\
         name each file); the index holds every other file",
    ),
    (
        exit::FATAL,
        "usage error or fatal error (including a locked, damaged or incompatible\n\
         index, or an update refused by --max-delete); the index is unchanged",
    ),
];

/// `query`.
pub const EXIT_STATUS_QUERY: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some query or candidate files could not be read (warnings on\n\
         stderr name each one); the output is complete for the others",
    ),
    (
        exit::FATAL,
        "usage error or fatal error (missing, damaged or incompatible index)",
    ),
];

/// `compare`.
pub const EXIT_STATUS_COMPARE: &[ExitRow] = &[
    SUCCESS,
    (exit::FATAL, "usage error, or a file could not be read"),
];

/// `sign`.
pub const EXIT_STATUS_SIGN: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files were skipped because of errors (warnings on stderr\n\
         name each file); the shard holds every other file",
    ),
    (
        exit::FATAL,
        "usage error or fatal error; no shard file written (a run killed half-way\n\
         leaves only .-prefixed .tmp files, which no reader takes)",
    ),
];

/// `verify --pairs` and `group --pairs`.
pub const EXIT_STATUS_EXCHANGE: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files could not be re-read or changed since they were\n\
         signed (warnings on stderr name each one); the output is complete for the others",
    ),
    (
        exit::FATAL,
        "usage error, or a missing, truncated or inconsistent Parquet file (another\n\
         recipe, a doc_id twice, a pair naming an unknown id); no output written",
    ),
    (
        exit::NONE_FOUND,
        "with --exit-code: every file was read and nothing was found (then 0 means found)",
    ),
];

/// `curve` and `tune`, which read no files.
pub const EXIT_STATUS_USAGE_ONLY: &[ExitRow] = &[SUCCESS, USAGE_ONLY];

/// The `EXIT STATUS:` section of a `--help`.
pub fn exit_status(rows: &[ExitRow]) -> String {
    let mut text = String::from("EXIT STATUS:");
    for (code, meaning) in rows {
        let meaning = meaning.replace('\n', "\n       ");
        write!(text, "\n  {code:<4} {meaning}").expect("writing to a String");
    }
    text
}

/// A command's text after the options (examples, output schema …), then its
/// EXIT STATUS table.
pub fn after_help(text: &str, rows: &[ExitRow]) -> String {
    text.to_owned() + &exit_status(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_status_tables_align_and_wrap() {
        assert_eq!(
            exit_status(EXIT_STATUS_INDEX),
            "EXIT STATUS:
  0    success
  1    finished, but some files were skipped because of errors (warnings on stderr
       name each file); the index holds every other file
  2    usage error or fatal error (including a locked, damaged or incompatible
       index, or an update refused by --max-delete); the index is unchanged"
        );
        assert!(
            exit_status(EXIT_STATUS_SCAN)
                .ends_with("\n  130  interrupted (SIGINT/SIGTERM); no output file written")
        );
    }
}
