//! `simfind probe`: the index buckets of MMDS 3.9 for one set written as a
//! string — the lengths it is compared with (3.9.3), its prefix (3.9.4), and
//! the buckets it is indexed under and looks into with the symbol, the
//! (symbol, position) and the (symbol, position, suffix length) indexes
//! (3.9.4–3.9.6), so that the chapter's worked examples (3.24–3.29, Fig. 3.15)
//! come out of the command line. The bounds are the ones `scan --method exact
//! --exact-index …` joins by (`similarity::join`).

use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::bail;
use simfind::similarity::{length_bounds, position_limit, prefix_length, suffix_range};

use crate::app::args;
use crate::app::exit;
use crate::app::flags::defs;

const AFTER_HELP: &str = "EXAMPLES:
  simfind probe d,a,b                                   the set {d, a, b} as the string abd
  simfind probe bcdefghij -t 0.9                        indexed under b only (Example 3.26)
  simfind probe acdefghijk -t 0.8                       the pyramid of Fig. 3.15
  simfind probe q,w,e,r,t,y --order aeiouzyxwvtsrqpnmlkjhgfdcb

SYMBOLS: without a comma, every character of STRING is one symbol; with commas,
the symbols are the comma-separated parts. A set holds each symbol once.

OUTPUT: the string, the lengths of the strings it is compared with, its prefix,
then per index the buckets it is added to and the buckets it looks into as a
probe string (positions i, j count from 1 as in the chapter; q is the suffix
length, the number of symbols after the position). The probe of the suffix
index is drawn as Fig. 3.15: a row per (i, q), an x per bucket position j.

";

/// Print the buckets of the exact-join indexes of MMDS 3.9 for one set: the
/// lengths it is compared with, its prefix, and the buckets it is indexed under
/// and looks into with the symbol, position and suffix-length indexes.
///
/// The set is written as a string in the global order of the symbols (3.9.2):
/// alphabetical, or the one --order gives. The bounds are those of
/// `scan --method exact --exact-index`, evaluated exactly (`⌊(1 − 0.9)·10⌋` is 1
/// here, not the 0 of floating point).
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_USAGE_ONLY))]
#[command(mut_args(defs::one("threshold", defs::threshold(defs::Threshold::Probe))))]
pub struct Args {
    /// The set's symbols, e.g. acdefghijk or d,a,b.
    #[arg(value_name = "STRING")]
    pub string: String,
    // -t: defs::threshold.
    #[arg(long, default_value_t = 0.9)]
    pub threshold: f64,
    /// The global order of the symbols, as one string (or comma-separated)
    /// [default: alphabetical].
    #[arg(long, value_name = "SYMBOLS")]
    pub order: Option<String>,
}

/// The most (symbol, position) buckets drawn.
const MAX_DRAWN: u64 = 200;

fn symbols(text: &str) -> Vec<String> {
    if text.contains(',') {
        text.split(',').map(str::to_string).collect()
    } else {
        text.chars().map(String::from).collect()
    }
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut set = symbols(&args.string);
    if set.iter().any(String::is_empty) {
        bail!("STRING {:?} has an empty symbol", args.string);
    }
    match &args.order {
        None => set.sort(),
        Some(order) => {
            let order = symbols(order);
            let rank = |s: &String| order.iter().position(|o| o == s);
            if let Some(missing) = set.iter().find(|s| rank(s).is_none()) {
                bail!("symbol {missing:?} is not in --order");
            }
            set.sort_by_key(|s| rank(s));
        }
    }
    if let Some(w) = set.windows(2).find(|w| w[0] == w[1]) {
        bail!(
            "symbol {:?} is given twice: a set holds each element once",
            w[0]
        );
    }
    let Ok(len) = u32::try_from(set.len()) else {
        bail!("STRING has too many symbols");
    };
    let t = args.threshold;
    // A low J lets a probe reach strings far longer than itself: too many
    // buckets to draw (the join itself needs no such cap).
    let positions: u64 = (1..=prefix_length(len, t))
        .map(|i| position_limit(len, i, t) as u64)
        .sum();
    if positions > MAX_DRAWN {
        bail!(
            "at J = {t} the probe looks into {positions} bucket positions, more than the \
             {MAX_DRAWN} this command draws; give a higher -t"
        );
    }
    let joined = if set.iter().all(|s| s.chars().count() == 1) {
        set.concat()
    } else {
        set.join(",")
    };
    let mut out = String::new();
    let (shortest, longest) = length_bounds(len, t);
    let p = prefix_length(len, t);
    let prefix = &set[..p as usize];
    writeln!(out, "string    {joined} (length {len}), J = {t}")?;
    writeln!(
        out,
        "length    compared with strings of length {shortest} to {longest} (3.9.3)"
    )?;
    writeln!(
        out,
        "prefix    {p} = ⌊(1 − J)·{len}⌋ + 1 symbol{}: {} (3.9.4)",
        if p == 1 { "" } else { "s" },
        prefix.join(" ")
    )?;

    writeln!(out, "\nsymbol index (3.9.4)")?;
    writeln!(out, "  indexed under  {}", prefix.join(" "))?;
    writeln!(out, "  looks into     {}", prefix.join(" "))?;

    writeln!(out, "\nposition index (3.9.5)")?;
    let cell = |x: &str, rest: &[u32]| {
        let rest: Vec<String> = rest.iter().map(u32::to_string).collect();
        format!("({x}, {})", rest.join(", "))
    };
    let indexed: Vec<String> = (1..=p).map(|i| cell(&set[i as usize - 1], &[i])).collect();
    writeln!(out, "  indexed under  {}", indexed.join(" "))?;
    let mut looked = Vec::new();
    for i in 1..=p {
        for j in 1..=position_limit(len, i, t) {
            looked.push(cell(&set[i as usize - 1], &[j]));
        }
    }
    writeln!(
        out,
        "  looks into     {} ({} bucket{})",
        looked.join(" "),
        looked.len(),
        if looked.len() == 1 { "" } else { "s" }
    )?;

    writeln!(out, "\nsuffix index (3.9.6)")?;
    let indexed: Vec<String> = (1..=p)
        .map(|i| cell(&set[i as usize - 1], &[i, len - i]))
        .collect();
    writeln!(out, "  indexed under  {}", indexed.join(" "))?;
    let widest = (1..=p)
        .map(|i| position_limit(len, i, t))
        .max()
        .unwrap_or(0);
    // One row per (i, q), an x per position j: Fig. 3.15.
    let mut rows = Vec::new();
    for i in 1..=p {
        let ranges: Vec<Option<(u32, u32)>> = (1..=position_limit(len, i, t))
            .map(|j| suffix_range(len, i, j, t))
            .collect();
        let (Some(lo), Some(hi)) = (
            ranges.iter().flatten().map(|r| r.0).min(),
            ranges.iter().flatten().map(|r| r.1).max(),
        ) else {
            continue;
        };
        for q in lo..=hi {
            let marks: Vec<&str> = ranges
                .iter()
                .map(|r| match r {
                    Some((a, b)) if (*a..=*b).contains(&q) => "x",
                    _ => " ",
                })
                .collect();
            rows.push((i, q, marks));
        }
    }
    let buckets: usize = rows
        .iter()
        .map(|r| r.2.iter().filter(|m| **m == "x").count())
        .sum();
    writeln!(
        out,
        "  looks into     {buckets} bucket{} (x, j, q): x the i-th symbol",
        if buckets == 1 { "" } else { "s" }
    )?;
    let header: Vec<String> = (1..=widest).map(|j| format!("j={j}")).collect();
    writeln!(out, "    i  x    q  {}", header.join(" "))?;
    let mut last = 0;
    for (i, q, marks) in rows {
        let (i_cell, x_cell) = if i == last {
            (String::new(), String::new())
        } else {
            (i.to_string(), set[i as usize - 1].clone())
        };
        last = i;
        let marks: Vec<String> = marks.iter().map(|m| format!("{m:^3}")).collect();
        let line = format!("    {i_cell:>1}  {x_cell:<2} {q:>3}  {}", marks.join(" "));
        writeln!(out, "{}", line.trim_end())?;
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(exit::OK)
}
