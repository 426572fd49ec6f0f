//! The command line: the top-level parser, the subcommand list and the dispatch
//! that runs one subcommand and turns its outcome into an exit code. Each
//! subcommand's own arguments live in its file under `cmd/`; the groups several
//! share live in `args`. Arrows go one way: `cli` knows the commands, no command
//! knows `cli`.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::app::args;
use crate::app::cmd::{
    compare, completions, curve, dedupe, explain, group, index, man, minhash, probe, query, scan,
    sign, tune, undo, verify,
};
use crate::app::cmd::{fingerprint, score, validate};
use crate::app::exit;
use crate::app::flags;
use crate::app::output;
use crate::app::ui::{self, ColorArg};

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
    /// Worker threads of scan, index, query, sign, verify, group, tune and dedupe (also accepted
    /// after them); 0 (the default) is one per core. Output does not depend on it.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16))]
    pub threads: Option<u16>,

    /// When to colour the `error:` and `warning:` prefixes: auto (stderr is a terminal and
    /// NO_COLOR is unset or empty), always, never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto,
          hide_short_help = true)]
    pub color: ColorArg,

    #[command(subcommand)]
    pub command: Command,
}

// Built once per run, so the size difference between variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    Scan(scan::Args),
    Compare(compare::Args),
    Explain(explain::Args),
    Index(index::Args),
    Query(query::Args),
    Dedupe(dedupe::Args),
    Undo(undo::Args),
    Curve(curve::Args),
    Tune(tune::Args),
    Minhash(minhash::Args),
    Probe(probe::Args),
    Completions(completions::Args),
    Man(man::Args),
    Sign(sign::Args),
    Verify(verify::Args),
    Group(group::Args),
    Fingerprint(fingerprint::Args),
    Score(score::Args),
    Validate(validate::Args),
}

/// The whole command line as clap sees it, with the long version (`--version`;
/// `-V` stays one line, as in ripgrep). Completions and man pages are made
/// from this.
pub fn command() -> clap::Command {
    // Leaked once per process: clap wants a 'static str, and the text depends
    // on the CPU, so it cannot be a constant.
    let long: &'static str = Box::leak(long_version().into_boxed_str());
    flags::short::pages(Cli::command().long_version(long))
}

/// Parses the process's arguments: exits with status 0 after --help or
/// --version, and with status 2 on a usage error, whose message carries the
/// same `simfind: error:` prefix as every other error.
pub fn parse() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Known before parsing, so that clap's own help and errors follow it too.
    let color = color_before_parsing(&args);
    color.install();
    let command = command().color(match color {
        ColorArg::Auto => clap::ColorChoice::Auto,
        ColorArg::Always => clap::ColorChoice::Always,
        ColorArg::Never => clap::ColorChoice::Never,
    });
    match command
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(err) => usage_error(err, color),
    }
}

/// The last `--color WHEN` / `--color=WHEN` before a `--`; `auto` when there
/// is none or it is not a valid choice (clap then reports that).
fn color_before_parsing(args: &[std::ffi::OsString]) -> ColorArg {
    let mut choice = ColorArg::Auto;
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        let value = match word.as_ref() {
            "--" => break,
            "--color" => words.next().map(|v| v.into_owned()),
            w => w.strip_prefix("--color=").map(str::to_string),
        };
        if let Some(v) = value.and_then(|v| ColorArg::from_str(&v, false).ok()) {
            choice = v;
        }
    }
    choice
}

/// Exits after a clap error: help and version as clap prints them; a usage
/// error with status 2 and the `simfind: ` prefix before clap's `error: `.
fn usage_error(err: clap::Error, color: ColorArg) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        err.exit();
    }
    let rendered = err.render();
    let text = if color.enabled() {
        rendered.ansi().to_string()
    } else {
        rendered.to_string()
    };
    eprint!("simfind: {text}");
    std::process::exit(exit::FATAL);
}

/// What `simfind --version` prints after the name: the version and commit,
/// the build's features and target, and the SIMD kernel of each family that
/// this CPU will run (chosen at run time, so two machines running one binary
/// may differ; the output does not).
pub fn long_version() -> String {
    use simfind::simd::{KernelSet, best};
    let kernels = [
        ("normalize", best::<simfind::text::Kernel>().name()),
        ("window hash", best::<simfind::text::HashKernel>().name()),
        ("minhash", best::<simfind::sketch::MinHashKernel>().name()),
        ("oph", best::<simfind::sketch::OphKernel>().name()),
        (
            "set merge",
            best::<simfind::similarity::MergeKernel>().name(),
        ),
    ];
    let mut text = format!(
        "{} (rev {})\n\nfeatures: {}\ntarget: {}\nsimd kernels on this CPU:",
        env!("CARGO_PKG_VERSION"),
        env!("SIMFIND_GIT_COMMIT"),
        env!("SIMFIND_FEATURES"),
        env!("SIMFIND_TARGET"),
    );
    for (family, name) in kernels {
        text.push_str(&format!("\n  {family:<12} {name}"));
    }
    text
}

/// Configures the thread pool, runs the chosen subcommand and turns its outcome
/// into an exit code. A closed stdout (`simfind scan … | head`) is a clean exit,
/// not an error.
pub fn run(cli: Cli) -> i32 {
    let own = match &cli.command {
        Command::Scan(args) => Some(args.threads.threads),
        Command::Index(args) => Some(args.threads.threads),
        Command::Query(args) => Some(args.threads.threads),
        Command::Sign(args) => Some(args.threads.threads),
        Command::Verify(args) => Some(args.threads.threads),
        Command::Group(args) => Some(args.threads.threads),
        Command::Tune(args) => Some(args.threads.threads),
        Command::Dedupe(args) => Some(args.threads.threads),
        _ => None,
    };
    let threads = match own {
        Some(own) => own.or(cli.threads),
        None if cli.threads.is_some() => {
            eprintln!(
                "{} -j/--threads applies only to scan, index, query, sign, verify, group, \
                 tune and dedupe: the other subcommands run on one thread",
                ui::error_prefix()
            );
            return exit::FATAL;
        }
        None => None,
    };
    if let Some(threads) = threads.filter(|&n| n > 0)
        && let Err(err) = rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()
    {
        eprintln!(
            "{} cannot start {threads} threads: {err}",
            ui::error_prefix()
        );
        return exit::FATAL;
    }
    // These write their data to stdout alone: closed, it would be lost.
    let stdout_only = matches!(
        cli.command,
        Command::Compare(_)
            | Command::Explain(_)
            | Command::Tune(_)
            | Command::Minhash(_)
            | Command::Probe(_)
            | Command::Fingerprint(_)
            | Command::Score(_)
            | Command::Validate(_)
    );
    if stdout_only && let Err(err) = output::refuse_closed_stdout() {
        eprintln!("{} {err}", ui::error_prefix());
        return exit::FATAL;
    }
    let result = match cli.command {
        Command::Scan(args) => scan::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Explain(args) => explain::run(args, cli.color),
        Command::Index(args) => index::run(args),
        Command::Query(args) => query::run(args),
        Command::Dedupe(args) => dedupe::run(args),
        Command::Undo(args) => undo::run(args),
        Command::Curve(args) => curve::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Minhash(args) => minhash::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Completions(args) => completions::run(args, command()),
        Command::Man(args) => man::run(args, command()),
        Command::Sign(args) => sign::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Group(args) => group::run(args),
        Command::Fingerprint(args) => fingerprint::run(args),
        Command::Score(args) => score::run(args),
        Command::Validate(args) => validate::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => exit::OK,
        Err(err) => {
            eprintln!("{} {}", ui::error_prefix(), describe(&err));
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
        let text = crate::app::speak::cause(cause);
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
        command().debug_assert();
    }
}
