//! `simfind man [SUBCOMMAND]`: the manual page, as roff on stdout.

use std::io::Write;

use anyhow::bail;

use crate::app::args;
use crate::app::exit;

const AFTER_HELP: &str = "EXAMPLES:
  simfind man | man -l -
  simfind man scan | man -l -
  simfind man > ~/.local/share/man/man1/simfind.1

";

/// Print the manual page (roff) of simfind, or of one subcommand.
///
/// `simfind man` is simfind(1); `simfind man scan` is simfind-scan(1), with
/// every option of scan. Read it with `man -l -`, or install it in a directory
/// on MANPATH under man1/.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_USAGE_ONLY))]
pub struct Args {
    /// The subcommand whose page to print (default: simfind's own).
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

/// Renders the page from `command`, the whole command line (the caller owns
/// it: a subcommand does not know the top-level parser).
pub fn run(args: Args, mut command: clap::Command) -> anyhow::Result<i32> {
    // Propagates global options and the version into the subcommands, as
    // parsing would, so that each page lists what its command accepts.
    command.build();
    let page = match &args.subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => {
                // clap wants a 'static name; one leak per run.
                let title: &'static str =
                    Box::leak(format!("simfind-{}", sub.get_name()).into_boxed_str());
                sub.clone().name(title)
            }
            None => {
                let names: Vec<&str> = command
                    .get_subcommands()
                    .map(clap::Command::get_name)
                    .filter(|n| *n != "help")
                    .collect();
                bail!("no subcommand {name:?}; one of: {}", names.join(", "))
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&roff)?;
    out.flush()?;
    Ok(exit::OK)
}
