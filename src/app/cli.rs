//! Command-line definition: the top-level parser, the subcommand list and value
//! parsers shared by subcommands. Each subcommand's own arguments live in its
//! file under `cmd/`.

use clap::{Parser, Subcommand};

use crate::app::cmd;

/// The exit-status table, as one string literal so that every `--help` that
/// shows it (`concat!` needs a literal) shows the same table.
macro_rules! exit_status_help {
    () => {
        "EXIT STATUS:
  0    success
  1    finished, but some files were skipped because of errors (warnings on stderr
       name each file); the output is complete for all other files
  2    usage error or fatal error; no output written
  3    with --exit-code: every file was read and nothing was found (then 0 means found)
  130  interrupted (SIGINT/SIGTERM); no output file written"
    };
}
pub(crate) use exit_status_help;

pub const EXIT_STATUS_HELP: &str = exit_status_help!();

#[derive(Parser, Debug)]
#[command(
    name = "simfind",
    version,
    about = "Find near-duplicate documents in large collections of files",
    long_about = "Find near-duplicate documents in large collections of files.\n\n\
        Files are turned into sets of shingles, signed with MinHash, banded with \
        LSH, and candidate pairs are verified against a similarity threshold \
        (Mining of Massive Datasets, ch. 3). Data goes to stdout, progress and \
        warnings to stderr.",
    after_help = EXIT_STATUS_HELP,
    propagate_version = true
)]
pub struct Cli {
    /// Worker threads (default: one per core). Output does not depend on it.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    #[command(subcommand)]
    pub command: Command,
}

// Built once per run, so the size difference between variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    Scan(cmd::scan::Args),
    Compare(cmd::compare::Args),
    Index(cmd::index::Args),
    Query(cmd::query::Args),
    Curve(cmd::curve::Args),
    Tune(cmd::tune::Args),
}

/// Parses a byte size: a whole number with an optional binary suffix K, M, G or
/// T (also KiB/KB …, case-insensitive), e.g. `512K`, `10M`, `1G`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a size (examples: 4096, 512K, 10M, 1G)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("'{s}' has an unknown unit (use K, M, G or T)")),
    };
    number
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{s}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("10mib"), Ok(10 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("ten").is_err());
        assert!(parse_size("5X").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
