//! The short `-h` of the subcommands with many options: the flags a new user
//! reaches for, one line each, under the same headings as `--help`, and a last
//! line pointing to `--help` (fd's and ripgrep's `-h`).
//!
//! `--help` does not change: an everyday flag keeps its full text as its long
//! help and gets a one-liner as its short help; every other flag is hidden
//! from `-h` only; the examples and EXIT STATUS move to the long after-help.
//! The pages are made here, from the whole command, so that a subcommand's
//! arguments stay as they are and a flag's one-liner is written once for every
//! page that lists it.

use clap::Command;

/// An everyday flag of a page: its id (the field name) and its `-h` line.
type Line = (&'static str, &'static str);

// Lines several pages share, so that a flag reads the same on each.
const THREADS: Line = ("threads", "Worker threads [default: one per core]");
const SHINGLE: Line = ("shingle", "What a shingle is [default: char]");
const K: Line = ("k", "Shingle length [default: 5 for char, 3 for word]");
const BANDS: Line = ("bands", "LSH bands b [default: 20, or tuned to -t]");
const ROWS: Line = ("rows", "Rows per band r [default: 5, or tuned to -t]");
const THRESHOLD: Line = (
    "threshold",
    "Report pairs with similarity ≥ T [default: the S-curve's; 0.9 for removals]",
);
const INPUT: Line = (
    "input",
    "What the inputs are: files, or records, sets, points",
);
const TEXT_FIELD: Line = ("text_field", "jsonl: the text's fields [default: text]");
const COLUMNS: Line = (
    "columns",
    "csv/tsv: the text's columns [default: all but the id]",
);
const EXCLUDE: Line = ("exclude", "Skip paths matching GLOB (repeatable)");
const INCLUDE: Line = ("include", "Only files matching GLOB (repeatable)");
const HIDDEN: Line = ("hidden", "Include hidden files and directories");
const FOLLOW_LINKS: Line = ("follow_links", "Follow symbolic links");
const FILES_FROM: Line = (
    "files_from",
    "Read the paths to scan from FILE ('-' for stdin)",
);
const OUTPUT: Line = ("output", "Write to FILE instead of stdout");
const FORMAT: Line = ("format", "What to write");
const LIST_REMOVABLE: Line = (
    "list_removable",
    "Print only the paths of the files not kept",
);
const NULL: Line = ("null", "With --list-removable: end each path with NUL");
const CLUSTER: Line = ("cluster", "How pairs become groups [default: center]");
const KEEP: Line = (
    "keep",
    "Which file of each group is kept [default: original]",
);
const REFERENCE: Line = ("reference", "Files under DIR are always kept (repeatable)");
const QUIET: Line = ("quiet", "No progress and no summary on stderr");
const VERBOSE: Line = ("verbose", "More on stderr (-vv: seconds per stage)");

/// The everyday flags of each subcommand that has a short page (a page lists
/// them in the order and under the headings of `--help`).
fn everyday(name: &str) -> Option<Vec<Line>> {
    let files = [EXCLUDE, INCLUDE, HIDDEN, FOLLOW_LINKS, FILES_FROM];
    let exchange = [
        (
            "pairs",
            "The engine's candidate pairs (Parquet, columns a and b)",
        ),
        ("docs", "The directory `simfind sign --out` wrote"),
        (
            "threshold",
            "Report pairs with similarity ≥ T [default: the shards' S-curve's]",
        ),
    ];
    let lines: Vec<Line> = match name {
        "scan" => [
            ("roots", "Directories (or files) to scan"),
            THREADS,
            SHINGLE,
            K,
            BANDS,
            ROWS,
            THRESHOLD,
            INPUT,
            TEXT_FIELD,
            COLUMNS,
            ("isolate", "Only pairs of files under different roots"),
            ("min_size", "Skip files smaller than SIZE (e.g. 4K)"),
            (
                "identical_by",
                "Report only byte-identical files (e.g. prefix:4096)",
            ),
            OUTPUT,
            FORMAT,
            LIST_REMOVABLE,
            NULL,
            (
                "plan",
                "Write the removals to FILE, a plan for dedupe --apply",
            ),
            ("sort", "Order of the pairs"),
            ("exit_code", "Exit with status 3 when nothing was found"),
            QUIET,
            VERBOSE,
            CLUSTER,
            KEEP,
            REFERENCE,
            (
                "db",
                "Use and refresh the index FILE: unchanged files are not read again",
            ),
        ]
        .into_iter()
        .chain(files)
        .collect(),
        "sign" => [
            ("roots", "Directories (or files) to sign"),
            ("out", "The output directory"),
            ("shard", "Sign only shard I of N"),
            THREADS,
            SHINGLE,
            K,
            BANDS,
            ROWS,
            INPUT,
            TEXT_FIELD,
            COLUMNS,
            QUIET,
            VERBOSE,
        ]
        .into_iter()
        .chain(files)
        .collect(),
        "dedupe" => [
            ("roots", "Directories to scan"),
            THREADS,
            SHINGLE,
            K,
            BANDS,
            ROWS,
            THRESHOLD,
            KEEP,
            REFERENCE,
            ("move_to", "Move each copy under DIR (undo reverses it)"),
            ("remove", "Delete each copy"),
            ("link", "Replace each byte-identical copy by a hard link"),
            ("reflink", "Replace each byte-identical copy by a reflink"),
            (
                "from_list",
                "Act only on the files FILE lists (one a line, or NUL-separated)",
            ),
            (
                "dry_run",
                "Only print what the action would do (the default)",
            ),
            ("plan", "With --dry-run: write the actions to FILE, a plan"),
            (
                "apply",
                "Act on exactly what a reviewed plan FILE lists, if unchanged",
            ),
            ("journal", "Write the journal to FILE"),
            QUIET,
            VERBOSE,
        ]
        .into_iter()
        .chain(files)
        .collect(),
        "index" => [
            ("roots", "Directories to index"),
            (
                "add",
                "Add (or replace) these files instead of walking directories",
            ),
            ("remove", "Forget these indexed paths"),
            ("db", "The index file (created if missing)"),
            THREADS,
            SHINGLE,
            K,
            BANDS,
            ROWS,
            QUIET,
            VERBOSE,
        ]
        .into_iter()
        .chain(files)
        .collect(),
        "verify" | "group" => exchange
            .into_iter()
            .chain([
                THREADS,
                OUTPUT,
                FORMAT,
                LIST_REMOVABLE,
                NULL,
                QUIET,
                VERBOSE,
                CLUSTER,
                KEEP,
                REFERENCE,
            ])
            .collect(),
        "explain" => vec![
            ("a", "The first file (with --input: the file of records)"),
            ("b", "The second file (with --input: the first record's id)"),
            ("id_b", "With --input: the second record's id"),
            (
                "input",
                "Explain two records of one file: jsonl, csv or tsv",
            ),
            SHINGLE,
            K,
            ("format", "Output format [default: text]"),
            QUIET,
            VERBOSE,
        ],
        "compare" => vec![
            (
                "a",
                "The first file (with --input: the file of points or sets)",
            ),
            ("b", "The second file (with --input: the first row's id)"),
            ("id_b", "With --input: the second row's id"),
            (
                "input",
                "Compare two rows of one file: vectors, bits or sets",
            ),
            ("vector", "A vector, comma-separated (twice)"),
            ("bits", "A bit string, 0101… or 0x… (twice)"),
            SHINGLE,
            K,
            BANDS,
            ROWS,
            QUIET,
            VERBOSE,
        ],
        _ => return None,
    };
    Some(lines)
}

/// The whole command line with the short pages in place.
pub fn pages(cli: Command) -> Command {
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    names.iter().fold(cli, |cli, name| match everyday(name) {
        Some(lines) => cli.mut_subcommand(name, |cmd| page(cmd, &lines)),
        None => cli,
    })
}

/// One subcommand with its short page: `lines` shown, every other flag
/// hidden from `-h`, the after-help moved to `--help` and a pointer left.
fn page(cmd: Command, lines: &[Line]) -> Command {
    let ids: Vec<String> = cmd
        .get_arguments()
        .map(|arg| arg.get_id().as_str().to_owned())
        .collect();
    for (id, _) in lines {
        assert!(
            ids.iter().any(|known| known == id),
            "{} -h lists {id}, which it does not take",
            cmd.get_name()
        );
    }
    let pointer = format!(
        "Every option, with examples and exit codes: simfind {} --help",
        cmd.get_name()
    );
    let after = cmd.get_after_help().cloned();
    let cmd = ids.iter().fold(cmd, |cmd, id| {
        match lines.iter().find(|(everyday, _)| everyday == id) {
            Some(&(_, line)) => cmd.mut_arg(id, |arg| {
                let full = arg.get_long_help().or(arg.get_help()).cloned();
                match full {
                    Some(full) => arg.long_help(full),
                    None => arg,
                }
                .help(line)
            }),
            None => cmd.mut_arg(id, |arg| arg.hide_short_help(true)),
        }
    });
    match after {
        Some(after) => cmd.after_long_help(after).after_help(pointer),
        None => cmd.after_help(pointer),
    }
}
