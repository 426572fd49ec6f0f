//! Files of points (vectors, bit strings) read for a scan, an index or a
//! query: each under the line cap, bad rows named, inputs joined.

use super::*;

/// Reads every input with `parse` and joins them ([`vectors::concat`]): ids
/// unique across inputs (but for --link), one width; returns the points and
/// the index of each input's first point.
pub(super) fn read_all<T: Points + Default>(
    args: &ScanArgs,
    problems: &mut u64,
    parse: Parser<T>,
) -> Result<(T, Vec<u32>)> {
    let mut inputs = Vec::with_capacity(args.roots.len());
    for path in args.roots {
        let cap = usize::try_from(args.max_line_length.max(1)).unwrap_or(usize::MAX);
        inputs.push(read_points(path, cap, args.skip_bad_rows, problems, parse)?);
    }
    let shown: Vec<String> = args.roots.iter().map(|p| shown_name(p)).collect();
    let what = if args.input == InputKind::Bits {
        "bits"
    } else {
        "components"
    };
    let mut on_skip = |e: ConcatError| {
        *problems += 1;
        eprintln!(
            "{} {}: row left out",
            warning_prefix(),
            concat_message(&e, &shown, what)
        );
    };
    vectors::concat(inputs, !args.link, args.skip_bad_rows, &mut on_skip)
        .map_err(|e| anyhow::anyhow!("{}", concat_message(&e, &shown, what)))
}

pub(super) fn concat_message(e: &ConcatError, shown: &[String], what: &str) -> String {
    match e {
        ConcatError::Width {
            input,
            width,
            expected,
        } => format!(
            "{}: rows of {width} {what} where {} has {expected} (all inputs need one length)",
            shown[*input], shown[0]
        ),
        ConcatError::Duplicate {
            id,
            first_input,
            first_line,
            input,
            line,
        } => format!(
            "{}: line {line}: id {id:?} is also in {} line {first_line} (ids are unique across inputs; --link pairs two inputs whose ids may repeat)",
            shown[*input], shown[*first_input]
        ),
    }
}

pub(super) fn shown_name(path: &Path) -> String {
    if path.as_os_str() == OsStr::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// A reader of [`vectors`]: input, longest line, skip bad rows, the callback
/// for those.
pub(crate) type Parser<T> =
    fn(Box<dyn Read>, usize, bool, &mut dyn FnMut(RowError)) -> Result<T, ReadError>;

/// Reads FILE (or stdin for `-`) with `parse`; bad rows are errors naming the
/// file and line, or with `skip` warnings counted in `problems`.
pub(crate) fn read_points<T>(
    path: &Path,
    cap: usize,
    skip: bool,
    problems: &mut u64,
    parse: Parser<T>,
) -> Result<T> {
    let shown = shown_name(path);
    let input: Box<dyn Read> = if path.as_os_str() == OsStr::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).with_context(|| format!("cannot read {shown}"))?)
    };
    let mut on_skip = |e: RowError| {
        *problems += 1;
        eprintln!(
            "{} {shown}: {}: row left out",
            warning_prefix(),
            speak::vector_row(&e)
        );
    };
    parse(input, cap, skip, &mut on_skip).map_err(|e| match e {
        ReadError::Empty => anyhow::anyhow!("{shown}: no rows"),
        ReadError::Row(row) => {
            anyhow::anyhow!(
                "{shown}: {} (--skip-bad-rows leaves such rows out)",
                speak::vector_row(&row)
            )
        }
        ReadError::Io(io) => anyhow::anyhow!("cannot read {shown}: {io}"),
    })
}
