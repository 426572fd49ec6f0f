//! Command-line definition: the top-level parser and the subcommand list. Each
//! subcommand's own arguments live in its file under `cmd/`.

use clap::{Parser, Subcommand};

use crate::cmd;

#[derive(Parser, Debug)]
#[command(
    name = "simfind",
    version,
    about = "Find near-duplicate documents in large collections of files",
    after_help = "EXIT STATUS:\n  0    success\n  1    finished, but some files were skipped because of errors (see stderr)\n  2    usage or fatal error; no output written\n  130  interrupted; no output file written"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Scan(cmd::scan::Args),
    /// Print, plot and compare LSH S-curves (probability of becoming a candidate pair).
    Curve(cmd::curve::Args),
    /// Choose bands and rows for a similarity threshold.
    Tune(cmd::tune::Args),
}
