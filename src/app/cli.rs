//! The command line: the top-level parser, the subcommand list and the dispatch
//! that runs one subcommand and turns its outcome into an exit code. Each
//! subcommand's own arguments live in its file under `cmd/`; the groups several
//! share live in `args`. Arrows go one way: `cli` knows the commands, no command
//! knows `cli`.

use clap::{Parser, Subcommand};

use crate::app::args;
use crate::app::cmd::{compare, curve, index, query, scan, tune};
use crate::app::exit;

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
    after_help = args::exit_status(args::EXIT_STATUS_SCAN),
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
    Scan(scan::Args),
    Compare(compare::Args),
    Index(index::Args),
    Query(query::Args),
    Curve(curve::Args),
    Tune(tune::Args),
}

/// Configures the thread pool, runs the chosen subcommand and turns its outcome
/// into an exit code. A closed stdout (`simfind scan … | head`) is a clean exit,
/// not an error.
pub fn run(cli: Cli) -> i32 {
    if let Some(threads) = cli.threads
        && let Err(err) = rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()
    {
        eprintln!("simfind: error: cannot start {threads} threads: {err}");
        return exit::FATAL;
    }
    let result = match cli.command {
        Command::Scan(args) => scan::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Index(args) => index::run(args),
        Command::Query(args) => query::run(args),
        Command::Curve(args) => curve::run(args),
        Command::Tune(args) => tune::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => exit::OK,
        Err(err) => {
            eprintln!("simfind: error: {}", describe(&err));
            exit::FATAL
        }
    }
}

/// `err` and its causes joined by ": " (as `{:#}` does), leaving out a cause
/// the message already ends with: a wrapper that quotes its source (the
/// tempfile crate's "failed to persist temporary file: Not a directory")
/// would otherwise print it twice.
fn describe(err: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if message.is_empty() {
            message = text;
        } else if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let io = cause.downcast_ref::<std::io::Error>().or_else(|| {
            cause
                .downcast_ref::<csv::Error>()
                .and_then(|e| match e.kind() {
                    csv::ErrorKind::Io(io) => Some(io),
                    _ => None,
                })
        });
        io.is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
