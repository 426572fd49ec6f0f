//! `simfind fingerprint`: the grid-square LSH family of MMDS 3.8.5, as the
//! chapter's arithmetic (Example 3.22) or applied to a file of fingerprints.

use std::path::PathBuf;

use anyhow::{Result, bail};
use simfind::input::InputKind;
use simfind::input::records::{self, RecordOptions};
use simfind::lsh::fingerprint::{self, Model};

use crate::app::args::{self, ExitRow};
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::ui::{self, Verbosity};

const AFTER_HELP: &str = "EXAMPLES:
  simfind fingerprint                                   Example 3.22's probabilities
  simfind fingerprint --functions 1024 --groups 1       the 1,024-way OR alone
  simfind fingerprint prints.tsv --grid 1000            candidate pairs of a file

INPUT: one fingerprint per line, `id<TAB>square square …`: the numbers (0 to --grid − 1)
of the grid squares holding a minutia (the `scan --input sets` format).

OUTPUT: without FILE, CSV `step,same_finger,different_fingers`: the probability that a
print has minutiae in a function's three squares (p³ for both), that the other print
has them too (q³ for the same finger, p³ for another), that one function says yes
(p³q³ and p⁶), the OR of --functions functions (1 − (1 − x)^n) and the AND of --groups
such ORs (x^g; no row for one group). 1 − same_finger is the false-negative rate, different_fingers the
false-positive rate. With FILE, CSV `a,b,shared,jaccard`: every pair that each group
puts in a common bucket (some function of the group has all three squares in both),
with the squares they share and their Jaccard similarity, in file order.

";

const EXIT_STATUS: &[ExitRow] = &[
    (exit::OK, "success"),
    (
        exit::PARTIAL,
        "some lines were skipped (a warning names the file, line and reason);\n\
         the pairs of every other print were written",
    ),
    (exit::FATAL, "usage error, or FILE could not be read"),
];

/// The grid-square LSH family for fingerprints (MMDS 3.8.5): its probabilities, or its
/// candidate pairs over a file of fingerprints.
///
/// A fingerprint is the set of grid squares holding a minutia. A function of the family
/// is three random squares; it says "yes" to two fingerprints when both have minutiae in
/// all three. --functions functions are OR-ed (a pair is a candidate of the group when
/// some function says yes) and --groups groups AND-ed (a candidate of every group), as in
/// Example 3.22 (1,024 functions, then two groups of 1,024).
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, EXIT_STATUS))]
#[command(mut_args(defs::one("seed", defs::seed(defs::Seed::Fingerprint))))]
pub struct Args {
    /// Fingerprints, one per line (`id<TAB>square square …`; `-` is stdin). Without it,
    /// the probabilities of the chapter's model are printed.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Functions per group, OR-ed.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = args::count)]
    pub functions: usize,

    /// Groups, AND-ed (a pair must be a candidate of every group).
    #[arg(long, value_name = "G", default_value_t = 2, value_parser = args::count)]
    pub groups: usize,

    /// The model: probability p of a minutia in a square of a random fingerprint.
    #[arg(long, value_name = "P", default_value_t = 0.2, value_parser = args::unit_closed, conflicts_with = "file")]
    pub minutia: f64,

    /// The model: probability q that a print of the same finger has a minutia where the
    /// first has one.
    #[arg(long, value_name = "Q", default_value_t = 0.8, value_parser = args::unit_closed, conflicts_with = "file")]
    pub same: f64,

    /// With FILE: the number of grid squares (squares are numbered 0 to N − 1); the
    /// functions' squares are drawn from them.
    #[arg(long, value_name = "N", requires = "file", value_parser = args::count)]
    pub grid: Option<usize>,

    // --seed: defs::seed.
    #[arg(long, default_value_t = args::DEFAULT_SEED, requires = "file")]
    pub seed: u64,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

pub fn run(args: Args) -> Result<i32> {
    let Some(file) = &args.file else {
        return model(&args);
    };
    let Some(grid) = args.grid else {
        bail!("give --grid N, the number of grid squares, with a file of fingerprints");
    };
    let Ok(grid) = u32::try_from(grid) else {
        bail!("--grid {grid}: at most {} squares", u32::MAX);
    };
    if grid < 3 {
        bail!("--grid {grid}: a function needs three distinct squares");
    }
    let mut options = RecordOptions::new(InputKind::Sets);
    options.skip_bad_rows = true;
    let mut warnings = 0u64;
    let warn = |message: &str| eprintln!("{} {message}", ui::warning_prefix());
    let read = records::read_inputs(std::slice::from_ref(file), &options, &mut |err| {
        warn(&crate::app::speak::row_error(err));
    });
    let read = match read {
        Ok(read) => read,
        Err(err) => bail!("{}", crate::app::speak::row_error(&err)),
    };
    warnings += read.skipped;
    let shown = if file.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        file.display().to_string()
    };
    let mut ids = Vec::new();
    let mut prints: Vec<Vec<u32>> = Vec::new();
    for record in &read.records {
        let squares: Result<Vec<u32>, String> = record
            .fields
            .iter()
            .map(|token| match token.parse::<u32>() {
                Ok(s) if s < grid => Ok(s),
                _ => Err(format!(
                    "{shown}:{}: {:?}: square {token:?} is not a number from 0 to {}",
                    record.origin.line,
                    record.id,
                    grid - 1
                )),
            })
            .collect();
        match squares {
            Ok(mut squares) => {
                squares.sort_unstable();
                squares.dedup();
                ids.push(record.id.as_str());
                prints.push(squares);
            }
            Err(message) => {
                warn(&format!("{message}; the print is skipped"));
                warnings += 1;
            }
        }
    }
    let functions = fingerprint::draw(grid, args.functions, args.groups, args.seed);
    let pairs = fingerprint::candidates(&prints, &functions);
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["a", "b", "shared", "jaccard"])?;
    for &(i, j) in &pairs {
        let (a, b) = (&prints[i as usize], &prints[j as usize]);
        let shared = fingerprint::shared(a, b);
        let union = a.len() + b.len() - shared;
        let jaccard = shared as f64 / union as f64;
        out.write_record([
            ids[i as usize],
            ids[j as usize],
            &shared.to_string(),
            &format!("{jaccard:.6}"),
        ])?;
    }
    out.flush()?;
    if !args.verbosity.quiet {
        let all = prints.len() as u64 * prints.len().saturating_sub(1) as u64 / 2;
        eprintln!(
            "simfind: {} prints, {} of {all} pairs are candidates ({} groups of {} functions)",
            prints.len(),
            pairs.len(),
            args.groups,
            args.functions
        );
    }
    Ok(if warnings > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    })
}

/// Example 3.22's arithmetic for the given model.
fn model(args: &Args) -> Result<i32> {
    let (Ok(per_group), Ok(groups)) = (u32::try_from(args.functions), u32::try_from(args.groups))
    else {
        bail!("--functions and --groups must be below 2^32");
    };
    let p = Model {
        minutia: args.minutia,
        same: args.same,
        per_group,
        groups,
    }
    .probabilities();
    let rows = [
        ("one print has the three squares", p.three, p.three),
        ("the other print has them too", p.three_again, p.three),
        ("one function says yes", p.one_same, p.one_different),
        (
            &*format!("OR of {} functions", args.functions),
            p.or_same,
            p.or_different,
        ),
    ];
    let and = format!("AND of {} ORs", args.groups);
    // One group is the OR alone: no AND row.
    let and_row = (args.groups > 1).then_some((and.as_str(), p.and_same, p.and_different));
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["step", "same_finger", "different_fingers"])?;
    for (step, same, different) in rows.into_iter().chain(and_row) {
        out.write_record([step, &format!("{same:.7}"), &format!("{different:.7}")])?;
    }
    out.flush()?;
    Ok(exit::OK)
}
