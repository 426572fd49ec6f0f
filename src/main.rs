//! The `simfind` binary: parses arguments, sets up threads and progress, runs one
//! subcommand and maps its outcome to an exit code (see [`exit`]). All real work is
//! in the `simfind` library crate.

mod cli;
mod cmd;
mod exit;
mod output;
mod report;
mod ui;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let code = cmd::run(cli);
    std::process::exit(code);
}
