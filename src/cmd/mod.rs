//! One module per subcommand. Each has the same shape: a doc comment that is its
//! `--help`, a clap `Args` struct, and `run(Args) -> anyhow::Result<i32>` that
//! returns the exit code.

pub mod curve;
pub mod scan;
pub mod tune;
pub mod values;

use crate::cli::{Cli, Command};
use crate::exit;

/// Runs the chosen subcommand and turns its outcome into an exit code. A closed
/// stdout (`simfind scan … | head`) is a clean exit, not an error.
pub fn run(cli: Cli) -> i32 {
    let result = match cli.command {
        Command::Scan(args) => scan::run(args),
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
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<csv::Error>()
                .is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe))
    })
}
