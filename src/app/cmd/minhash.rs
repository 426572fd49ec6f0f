//! `simfind minhash`: the signature matrix of a small boolean matrix (or a few
//! sets) under hash functions or permutations given on the command line, as
//! the textbook computes it by hand (MMDS 3.3), and the row-block speed-up of
//! the lecture notes.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use simfind::sketch::textbook::{self, Fraction, RowFunction};

use crate::app::args;
use crate::app::exit;

const AFTER_HELP: &str = "EXAMPLES:
  simfind minhash --set S1=0,3 --set S2=2 --set S3=1,3,4 --set S4=0,2,3 \\
      --hash 'x+1 mod 5' --hash '3x+1 mod 5'
  simfind minhash --matrix fig3-2.txt --order b,e,a,d,c
  simfind minhash --matrix slides.txt --first-row 1 --permutation 3,4,7,6,1,2,5
  simfind minhash --matrix block.txt --block-rows 4 --expected

MATRIX FILE: a header line with the set names, then one line per row: the row's
label and a 0 or 1 per set (spaces, tabs or commas between). Lines starting with
# are comments. Row numbers (the x of --hash) count from --first-row.

OUTPUT: the signature matrix (one line per function, ∞ where a set has no row
with a 1), then every pair of sets: its Jaccard similarity and the estimate
a/(a+d) from the signatures (a rows agree, d disagree, rows where both are ∞
skipped), as fractions and decimals.

";

/// Print the MinHash signature matrix of a small matrix or a few sets under hash
/// functions or permutations you give, as in the textbook's worked examples.
///
/// Each --hash is a function of the row number x of the form `(a*x + b) mod p + c`;
/// each --permutation gives the value of every row in order; --order lists the rows
/// in permuted order (the minhash is the first row listed with a 1, printed by its
/// label). With --block-rows M̄, the rows are cut into blocks of M̄ and each function
/// is applied to a row's position inside its block: one function gives one minhash
/// per block, ∞ where a block holds no 1 (the row-block speed-up of the lecture
/// notes); --expected replaces the functions by every permutation of a block and
/// prints the expected estimate.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_USAGE_ONLY))]
pub struct Args {
    /// The boolean matrix: a header of set names, then one line per row (label and 0/1 values).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "set",
        required_unless_present = "set"
    )]
    pub matrix: Option<PathBuf>,
    /// A set as NAME=ROW,ROW,… with rows as numbers (repeat; the rows are 0 to the largest given).
    #[arg(long, value_name = "NAME=ROWS")]
    pub set: Vec<String>,
    /// A hash function of the row number x, e.g. 'x+1 mod 5' or '(2x+1) mod 5 + 1' (repeat).
    #[arg(long, value_name = "EXPR")]
    pub hash: Vec<String>,
    /// A permutation: the value of every row (or block position) in order, e.g. 3,4,7,6,1,2,5 (repeat).
    #[arg(long, value_name = "VALUES")]
    pub permutation: Vec<String>,
    /// A permutation as the row labels in permuted order, e.g. b,e,a,d,c (repeat).
    #[arg(long, value_name = "LABELS", conflicts_with = "block_rows")]
    pub order: Vec<String>,
    /// The number of the first row (the x of --hash): 0 as in MMDS, 1 as in some slides.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub first_row: u64,
    /// Rows per block M̄ of the row-block speed-up (the matrix has M rows).
    #[arg(long, value_name = "M̄", value_parser = args::count)]
    pub block_rows: Option<usize>,
    /// With --block-rows: the exact expected estimate over every permutation of a block
    /// (M̄ ≤ 8) instead of given functions.
    #[arg(long, requires = "block_rows")]
    pub expected: bool,
}

/// The input as numbered rows: labels and, per set, its rows with a 1.
struct Matrix {
    names: Vec<String>,
    labels: Vec<String>,
    columns: Vec<Vec<u64>>,
}

/// A row function and how it is shown.
struct Function {
    label: String,
    f: RowFunction,
    /// The label to print for each value (for --order: the row at that position).
    display: Option<Vec<String>>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let matrix = match &args.matrix {
        Some(path) => read_matrix(path)?,
        None => sets(&args.set)?,
    };
    let m = matrix.labels.len() as u64;
    let domain = match args.block_rows {
        Some(block) if block as u64 > m => {
            bail!("--block-rows {block} is more than the matrix's {m} rows")
        }
        Some(block) => block as u64,
        None => m,
    };
    let functions = functions(&args, &matrix, domain)?;
    if args.expected {
        if !functions.is_empty() {
            bail!("--expected averages over every permutation: give no --hash or --permutation");
        }
        if domain > textbook::MAX_ENUMERATED_BLOCK {
            bail!(
                "--expected enumerates every permutation of a block: --block-rows must be at most {}",
                textbook::MAX_ENUMERATED_BLOCK
            );
        }
    } else if functions.is_empty() {
        bail!(
            "no functions: give --hash, --permutation or --order (or --block-rows with --expected)"
        );
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let signatures: Vec<Vec<Option<u64>>> = match args.block_rows {
        Some(_) => {
            // Per function, one signature row per block.
            let mut rows = Vec::new();
            for function in &functions {
                let per_set: Vec<Vec<Option<u64>>> = matrix
                    .columns
                    .iter()
                    .map(|c| {
                        let f = table_offset(function, args.first_row);
                        textbook::block_signature(c, m, domain, args.first_row, &f)
                    })
                    .collect();
                for block in 0..m.div_ceil(domain) as usize {
                    rows.push(per_set.iter().map(|s| s[block]).collect());
                }
            }
            rows
        }
        None => {
            let offset: Vec<Vec<u64>> = matrix
                .columns
                .iter()
                .map(|c| c.iter().map(|&x| x + args.first_row).collect())
                .collect();
            let fs: Vec<RowFunction> = functions
                .iter()
                .map(|f| table_offset(f, args.first_row))
                .collect();
            textbook::signature_matrix(&offset, &fs)
        }
    };
    if !args.expected {
        let blocks = m.div_ceil(domain) as usize;
        let row_labels: Vec<String> = functions
            .iter()
            .flat_map(|f| {
                (0..blocks).map(move |b| {
                    if args.block_rows.is_some() {
                        format!("{} block {}", f.label, b + 1)
                    } else {
                        f.label.clone()
                    }
                })
            })
            .collect();
        for (i, f) in functions.iter().enumerate() {
            writeln!(out, "# h{}: {}", i + 1, f.describe())?;
        }
        let cells: Vec<Vec<String>> = signatures
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let display = &functions[i / blocks].display;
                row.iter()
                    .map(|v| match (v, display) {
                        (None, _) => "∞".to_string(),
                        (Some(v), Some(labels)) => labels[*v as usize].clone(),
                        (Some(v), None) => v.to_string(),
                    })
                    .collect()
            })
            .collect();
        write_table(&mut out, "signature", &matrix.names, &row_labels, &cells)?;
        writeln!(out)?;
    }
    let mut pair_rows = Vec::new();
    for i in 0..matrix.names.len() {
        for j in i + 1..matrix.names.len() {
            let (x, y) = (&matrix.columns[i], &matrix.columns[j]);
            let truth = fraction_cell(Some(textbook::jaccard(x, y)));
            let estimate = if args.expected {
                textbook::expected_block_estimate(x, y, m, domain)
            } else {
                let col = |k: usize| signatures.iter().map(|r| r[k]).collect::<Vec<_>>();
                let (a, d) = textbook::agreement(&col(i), &col(j));
                (a + d > 0).then(|| Fraction::new(a as u128, (a + d) as u128))
            };
            pair_rows.push(vec![
                format!("{} {}", matrix.names[i], matrix.names[j]),
                truth,
                fraction_cell(estimate),
            ]);
        }
    }
    let estimate_header = if args.expected {
        "expected estimate"
    } else {
        "estimate a/(a+d)"
    };
    write_columns(&mut out, &["pair", "jaccard", estimate_header], &pair_rows)?;
    out.flush()?;
    Ok(exit::OK)
}

impl Function {
    fn describe(&self) -> String {
        match (&self.f, &self.display) {
            (RowFunction::Hash(h), _) => format!("h(x) = {h}"),
            (RowFunction::Table(_), Some(order)) => {
                format!("rows in the order {}", order.join(","))
            }
            (RowFunction::Table(values), None) => format!(
                "the permutation {}",
                values
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }
}

/// A table function over rows counted from `first_row` (hash functions take
/// the row number itself).
fn table_offset(f: &Function, first_row: u64) -> RowFunction {
    match &f.f {
        RowFunction::Table(values) => {
            let mut shifted = vec![0; first_row as usize];
            shifted.extend_from_slice(values);
            RowFunction::Table(shifted)
        }
        other => other.clone(),
    }
}

fn functions(args: &Args, matrix: &Matrix, domain: u64) -> anyhow::Result<Vec<Function>> {
    let mut out = Vec::new();
    for text in &args.hash {
        let h = textbook::parse_hash(text).map_err(|e| anyhow::anyhow!("--hash: {e}"))?;
        out.push(Function {
            label: format!("h{}", out.len() + 1),
            f: RowFunction::Hash(h),
            display: None,
        });
    }
    for text in &args.permutation {
        let values = text
            .split(',')
            .map(|v| v.trim().parse::<u64>())
            .collect::<Result<Vec<u64>, _>>()
            .map_err(|_| {
                anyhow::anyhow!("--permutation {text:?}: not a comma-separated list of numbers")
            })?;
        if values.len() as u64 != domain {
            bail!(
                "--permutation {text:?} has {} values; it needs one per {} ({domain})",
                values.len(),
                if args.block_rows.is_some() {
                    "position of a block"
                } else {
                    "row"
                }
            );
        }
        let mut sorted = values.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            bail!("--permutation {text:?}: a value repeats, so it is not a permutation");
        }
        out.push(Function {
            label: format!("h{}", out.len() + 1),
            f: RowFunction::Table(values),
            display: None,
        });
    }
    for text in &args.order {
        let mut positions = vec![u64::MAX; matrix.labels.len()];
        let listed: Vec<&str> = text.split(',').map(str::trim).collect();
        for (position, label) in listed.iter().enumerate() {
            let Some(row) = matrix.labels.iter().position(|l| l == label) else {
                bail!("--order {text:?}: no row labelled {label:?}");
            };
            if positions[row] != u64::MAX {
                bail!("--order {text:?}: row {label:?} is listed twice");
            }
            positions[row] = position as u64;
        }
        if listed.len() != matrix.labels.len() {
            bail!(
                "--order {text:?} lists {} rows; the matrix has {}",
                listed.len(),
                matrix.labels.len()
            );
        }
        // The minhash is the least position of a row with a 1: shown as that row's label.
        let mut display = vec![String::new(); listed.len()];
        for (row, &p) in positions.iter().enumerate() {
            display[p as usize] = matrix.labels[row].clone();
        }
        out.push(Function {
            label: format!("h{}", out.len() + 1),
            f: RowFunction::Table(positions),
            display: Some(display),
        });
    }
    Ok(out)
}

fn fraction_cell(f: Option<Fraction>) -> String {
    match f {
        Some(f) => format!("{f} = {:.4}", f.value()),
        None => "undefined (both ∞ everywhere)".to_string(),
    }
}

fn write_table(
    out: &mut impl Write,
    corner: &str,
    names: &[String],
    row_labels: &[String],
    cells: &[Vec<String>],
) -> std::io::Result<()> {
    let mut rows = vec![
        std::iter::once(corner.to_string())
            .chain(names.iter().cloned())
            .collect::<Vec<_>>(),
    ];
    for (label, row) in row_labels.iter().zip(cells) {
        rows.push(
            std::iter::once(label.clone())
                .chain(row.iter().cloned())
                .collect(),
        );
    }
    let header: Vec<&str> = rows[0].iter().map(String::as_str).collect();
    write_columns(out, &header, &rows[1..])
}

/// Left-aligned first column, right-aligned others, two spaces apart.
fn write_columns(
    out: &mut impl Write,
    header: &[&str],
    rows: &[Vec<String>],
) -> std::io::Result<()> {
    let width = |k: usize| {
        rows.iter()
            .map(|r| r[k].chars().count())
            .chain(std::iter::once(header[k].chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (k, cell) in cells.iter().enumerate() {
            let pad = widths[k] - cell.chars().count();
            if k == 0 {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
        }
        s.trim_end().to_string()
    };
    writeln!(out, "{}", line(header.to_vec()))?;
    for row in rows {
        writeln!(out, "{}", line(row.iter().map(String::as_str).collect()))?;
    }
    Ok(())
}

fn read_matrix(path: &Path) -> anyhow::Result<Matrix> {
    let cap = simfind::input::bounded::caps::OPTION_FILE;
    let text = simfind::input::bounded::read_text(path, cap)
        .with_context(|| format!("reading {}", path.display()))?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let split = |l: &str| -> Vec<String> {
        l.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    };
    let Some((_, header)) = lines.next() else {
        bail!("{}: no header line with the set names", path.display());
    };
    let mut names = split(header);
    let mut labels = Vec::new();
    let mut columns: Vec<Vec<u64>> = Vec::new();
    for (number, line) in lines {
        let cells = split(line);
        if columns.is_empty() {
            // The header may name the label column too.
            if cells.len() == names.len() && names.len() > 1 {
                names.remove(0);
            }
            columns = vec![Vec::new(); names.len()];
        }
        if cells.len() != names.len() + 1 {
            bail!(
                "{}:{number}: {} cells; a row is its label and one 0/1 per set ({} sets)",
                path.display(),
                cells.len(),
                names.len()
            );
        }
        let row = labels.len() as u64;
        for (k, cell) in cells[1..].iter().enumerate() {
            match cell.as_str() {
                "1" => columns[k].push(row),
                "0" => {}
                other => bail!("{}:{number}: {other:?} is not 0 or 1", path.display()),
            }
        }
        labels.push(cells[0].clone());
    }
    if labels.is_empty() {
        bail!("{}: no rows after the header", path.display());
    }
    Ok(Matrix {
        names,
        labels,
        columns,
    })
}

fn sets(specs: &[String]) -> anyhow::Result<Matrix> {
    let mut names = Vec::new();
    let mut columns = Vec::new();
    for spec in specs {
        let Some((name, rows)) = spec.split_once('=') else {
            bail!("--set {spec:?}: expected NAME=ROW,ROW,… (e.g. S1=0,3)");
        };
        let mut column = Vec::new();
        for row in rows.split(',').map(str::trim).filter(|r| !r.is_empty()) {
            let Ok(row) = row.parse::<u64>() else {
                bail!("--set {spec:?}: row {row:?} is not a number");
            };
            if row > 1 << 20 {
                bail!("--set {spec:?}: row {row} is too large for a teaching matrix");
            }
            column.push(row);
        }
        column.sort_unstable();
        column.dedup();
        names.push(name.to_string());
        columns.push(column);
    }
    if names.len() < 2 {
        bail!("give at least two sets (--set NAME=ROWS twice)");
    }
    let rows = columns.iter().flatten().max().map_or(0, |&r| r + 1);
    Ok(Matrix {
        names,
        labels: (0..rows).map(|r| r.to_string()).collect(),
        columns,
    })
}
