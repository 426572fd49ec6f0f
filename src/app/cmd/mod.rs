//! One module per subcommand. Each has the same shape: a doc comment that is its
//! `--help`, a clap `Args` struct, and `run(Args) -> anyhow::Result<i32>` that
//! returns the exit code.

pub mod compare;
pub mod curve;
pub mod index;
pub mod query;
pub mod scan;
pub mod tune;
pub mod values;

use crate::app::cli::{Cli, Command};
use crate::app::exit;

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
            eprintln!("simfind: error: {err:#}");
            exit::FATAL
        }
    }
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
