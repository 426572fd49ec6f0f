//! `simfind completions SHELL`: the shell completion script, on stdout.

use std::io::Write;

use clap_complete::Shell;

use crate::app::args;
use crate::app::exit;

const AFTER_HELP: &str = "INSTALL (one of):
  simfind completions bash > ~/.local/share/bash-completion/completions/simfind
  simfind completions zsh  > \"${fpath[1]}/_simfind\"
  simfind completions fish > ~/.config/fish/completions/simfind.fish

";

/// Print the completion script for SHELL.
///
/// The script completes subcommands, options and their fixed values (e.g.
/// --shingle, --format). Write it where your shell looks for completions (see
/// INSTALL below), then start a new shell.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_USAGE_ONLY))]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// Writes the script for `args.shell` from `command`, the whole command line
/// (the caller owns it: a subcommand does not know the top-level parser).
pub fn run(args: Args, mut command: clap::Command) -> anyhow::Result<i32> {
    // Into memory first: clap_complete panics on a write error, and a reader
    // that stops early (`| grep -q`, `| head`) closes the pipe; written here,
    // a broken pipe is an ordinary error that the binary ends quietly on.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "simfind", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(exit::OK)
}
