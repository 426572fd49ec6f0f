//! `simfind query --db F --add-if-new -`: streaming dedup. Reads paths (or,
//! with `--input jsonl`, records as JSON Lines; with `--input sets`, sets
//! as `id<TAB>tokens`; with `--input vectors`, `id,x1,…,xd`) from standard
//! input, decides
//! each with [`simfind::index::stream`] and writes its row once the
//! decision is committed. A line that is no record is named with its line
//! number and answered `skipped`; the stream goes on.
//!
//! Batching: the items decided while more input is already waiting form
//! one transaction (one lock, one commit, one sync to disk): a producer
//! faster than the commits gets batches, and a slow one gets each answer at
//! once, because a batch is committed and its rows written as soon as no
//! input is waiting (after [`FLOW_WAIT`] once it holds two items or more),
//! or it holds [`BATCH_ITEMS`], or is [`BATCH_TIME`] old.
//! A row is never written before the commit that holds its item, so a
//! stream killed at any moment has added every item it answered `new`, and
//! nothing of a batch it did not answer.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use simfind::index::NewDoc;
use simfind::index::bits::{self, BitsDecision, BitsStream};
use simfind::index::points::{self, VectorDecision, VectorStream};
use simfind::index::{Decision, Stream};
use simfind::index::{Index, ItemKind};
use simfind::index::{Query, QueryOptions};
use simfind::input::bounded::{self, Bounded, LineReader};
use simfind::input::records::{JsonlLines, Record, RecordOptions, RowError, SetsLines};
use simfind::progress::Reporter;

use super::{Args, QueryMetric};
use crate::app::exit;
use crate::app::output::Sink;
use crate::app::speak;
use crate::app::ui::{Ui, Verbosity, plural};

/// At most this many items per transaction: the lock is released (and the
/// answers written) at least this often under a steady stream.
const BATCH_ITEMS: usize = 2048;

/// At most this long between a batch's first item and its commit: another
/// writer waits no longer than about this for the lock, and a flowing
/// stream's answers come at least this often. A commit rewrites every page
/// its batch touched, one per band key at first (the keys are hashes), so
/// the longer batch is what makes a large index's stream affordable
/// (docs/PERFORMANCE.md, "Streaming dedup").
const BATCH_TIME: Duration = Duration::from_millis(500);

/// How long a flowing stream waits for its next line before it takes the
/// pause for the end of a burst and commits.
const FLOW_WAIT: Duration = Duration::from_millis(2);

/// Items read ahead of the decisions.
const READ_AHEAD: usize = 4096;

/// The header of the stream's rows.
pub const HEADER: [&str; 5] = ["item", "status", "nearest", "similarity", "matches"];

/// The header of a stream of bit strings, whose nearest is a distance in
/// bits (as `query --input bits` writes `distance`), not a similarity.
const BITS_HEADER: [&str; 5] = ["item", "status", "nearest", "distance", "matches"];

/// The options `--add-if-new` does not take, refused before any work.
pub(super) fn refuse_unless_streaming(args: &Args) -> Result<()> {
    if args.files.len() != 1 || args.files[0].as_os_str() != "-" {
        bail!(
            "--add-if-new reads its items from standard input: give `-` as the only FILE \
             (e.g. `find DIR -type f | simfind query --db {} --add-if-new -`)",
            args.db.display()
        );
    }
    if args.metric == Some(QueryMetric::Containment) {
        bail!("--add-if-new decides by Jaccard similarity: --metric containment does not apply");
    }
    if args.top.is_some() {
        bail!(
            "--add-if-new answers with the nearest match: --top does not apply (use --exact \
             to verify every document of a size that can reach T)"
        );
    }
    Ok(())
}

/// One line of standard input.
enum Line {
    /// A path, or a record's line, and its line number.
    Path(Vec<u8>, u64),
    /// A line past the cap (its number and the cap), skipped.
    TooLong(u64, u64),
    /// A read error ends the stream.
    Failed(std::io::Error),
}

/// A row waiting for its batch's commit.
struct Row {
    item: Vec<u8>,
    status: &'static str,
    nearest: Vec<u8>,
    similarity: String,
    matches: String,
}

impl Row {
    /// `new`: nothing indexed was similar, and the item was added.
    fn added(item: Vec<u8>) -> Row {
        Row {
            item,
            status: "new",
            nearest: Vec::new(),
            similarity: String::new(),
            matches: "0".to_owned(),
        }
    }

    /// `seen`: `matches` indexed items were similar, `nearest` the most.
    fn seen(item: Vec<u8>, nearest: &Path, similarity: f64, matches: usize) -> Row {
        Row::seen_at(item, nearest, format!("{similarity:.6}"), matches)
    }

    /// [`Row::seen`] with the measure written as given (a bit string's
    /// distance in whole bits).
    fn seen_at(item: Vec<u8>, nearest: &Path, measure: String, matches: usize) -> Row {
        Row {
            item,
            status: "seen",
            nearest: nearest.as_os_str().as_bytes().to_vec(),
            similarity: measure,
            matches: matches.to_string(),
        }
    }

    fn skipped(item: &[u8]) -> Row {
        Row {
            item: item.to_vec(),
            status: "skipped",
            nearest: Vec::new(),
            similarity: String::new(),
            matches: String::new(),
        }
    }
}

/// How a stream's items are looked up: by MinHash (files, records, sets,
/// with the index's [`Query`]) or as vectors.
pub(super) enum Lookup<'a> {
    // Boxed: a query carries its recipe and read options.
    MinHash(Box<Query<'a>>),
    Vectors,
    /// Bit strings, a match within `radius` bits.
    Bits {
        radius: u32,
    },
}

/// What decides a stream's items, batch by batch.
enum Decider<'a> {
    MinHash(Box<Stream<'a>>),
    Vectors(VectorStream<'a>, usize),
    /// The stream, the strings' length in bits, the radius.
    Bits(BitsStream<'a>, usize, u32),
}

impl Decider<'_> {
    fn commit(&mut self) -> Result<()> {
        match self {
            Decider::MinHash(stream) => stream.commit()?,
            Decider::Vectors(stream, _) => stream.commit()?,
            Decider::Bits(stream, _, _) => stream.commit()?,
        };
        Ok(())
    }
}

/// How a stream of records or sets reads its lines.
enum Items {
    Records(JsonlLines),
    Sets(SetsLines),
}

impl Items {
    fn new(kind: ItemKind, options: &RecordOptions) -> Items {
        const NAME: &str = "standard input";
        if kind == ItemKind::Sets {
            Items::Sets(SetsLines::new(NAME, options))
        } else {
            Items::Records(JsonlLines::new(NAME, options))
        }
    }

    fn parse(&self, line: Result<&[u8], u64>, number: u64) -> Result<Record, RowError> {
        match self {
            Items::Records(lines) => lines.parse(line, number),
            Items::Sets(lines) => lines.parse(line, number),
        }
    }

    fn kind(&self) -> ItemKind {
        match self {
            Items::Records(_) => ItemKind::Records,
            Items::Sets(_) => ItemKind::Sets,
        }
    }
}

/// Counts for the summary.
#[derive(Default)]
struct Counts {
    new: u64,
    seen: u64,
    skipped: u64,
    errors: u64,
}

pub(super) fn run(
    args: &Args,
    index: &Index,
    lookup: Lookup<'_>,
    options: &QueryOptions,
    items: Option<(ItemKind, &RecordOptions)>,
    started: Instant,
) -> Result<i32> {
    let mut sink = Sink::create(args.output.as_deref())?;
    let records = items.map(|(kind, options)| Items::new(kind, options));
    // A record's line may be as long as the records reader allows; a
    // path's is a path.
    let cap = items.map_or(bounded::caps::PATH_LINE, |(_, options)| {
        options.max_line as u64
    });
    let ui = Ui::with(Verbosity {
        quiet: true,
        ..args.verbosity
    });
    let end = if args.null { b'\0' } else { b'\n' };
    let (send, receive) = mpsc::sync_channel::<Line>(READ_AHEAD);
    // The reader blocks on stdin while decisions go on; it ends when stdin
    // does (or the receiver is gone).
    std::thread::spawn(move || {
        let mut lines = LineReader::ended_by(std::io::stdin().lock(), cap, end);
        while let Some(line) = lines.next_line() {
            let line = match line {
                Ok(line) => Line::Path(line.to_vec(), 0),
                Err(Bounded::TooLarge { .. }) => {
                    let number = lines.line_number();
                    match lines.skip_line() {
                        Err(err) => {
                            let _ = send.send(Line::Failed(err));
                            return;
                        }
                        Ok(rest) => Line::TooLong(number, cap.saturating_add(1) + rest),
                    }
                }
                Err(Bounded::Io(err)) => Line::Failed(err),
            };
            let line = match line {
                Line::Path(bytes, _) => Line::Path(bytes, lines.line_number()),
                line => line,
            };
            let failed = matches!(line, Line::Failed(_));
            if send.send(line).is_err() || failed {
                return;
            }
        }
    });

    let header = match lookup {
        Lookup::Bits { .. } => BITS_HEADER,
        _ => HEADER,
    };
    let mut stream = match lookup {
        Lookup::MinHash(query) => Decider::MinHash(Box::new(Stream::new(index, *query))),
        Lookup::Vectors => Decider::Vectors(VectorStream::new(index)?, points::dimension(index)),
        Lookup::Bits { radius } => {
            Decider::Bits(BitsStream::new(index)?, bits::length(index), radius)
        }
    };
    let mut csv = csv::WriterBuilder::new().from_writer(&mut sink);
    csv.write_record(header)?;
    csv.flush()?;
    let mut rows: Vec<Row> = Vec::new();
    let mut counts = Counts::default();
    let mut batch_started = Instant::now();
    let mut read_error = None;
    loop {
        let mut line = receive.try_recv();
        if matches!(line, Err(TryRecvError::Empty)) && rows.len() > 1 {
            // A flowing stream (this batch already holds several items)
            // whose reader is only waiting for a core: a short wait for it
            // saves a commit, which rewrites every page the batch touched.
            // A client deciding item by item has batches of one: answered
            // at once.
            line = receive.recv_timeout(FLOW_WAIT).map_err(|e| match e {
                RecvTimeoutError::Timeout => TryRecvError::Empty,
                RecvTimeoutError::Disconnected => TryRecvError::Disconnected,
            });
        }
        let line = match line {
            Ok(line) => Some(line),
            Err(TryRecvError::Empty) => {
                // Nothing waiting: answer what is decided before blocking.
                settle(&mut stream, &mut rows, &mut csv)?;
                receive.recv().ok()
            }
            Err(TryRecvError::Disconnected) => None,
        };
        let Some(line) = line else { break };
        if rows.is_empty() {
            batch_started = Instant::now();
        }
        match line {
            Line::Failed(err) => {
                read_error = Some(err);
                break;
            }
            Line::TooLong(number, length) if records.is_some() => {
                let parsed = records.as_ref().map(|r| r.parse(Err(length), number));
                if let Some(Err(err)) = parsed {
                    ui.warn(Path::new(&err.place()), &speak::row_reason(&err));
                }
                counts.skipped += 1;
                rows.push(Row::skipped(b""));
            }
            Line::TooLong(number, _) => {
                ui.warn(
                    Path::new("standard input"),
                    &format!(
                        "line {number}: {}; skipped",
                        Bounded::TooLarge {
                            cap: bounded::caps::PATH_LINE
                        }
                    ),
                );
                counts.skipped += 1;
                rows.push(Row::skipped(b""));
            }
            // A blank line (the end of `printf 'a\n\n'`) names nothing.
            Line::Path(path, _) if path.is_empty() => continue,
            Line::Path(line, number) => {
                let row = match (&mut stream, records.as_ref()) {
                    (Decider::Vectors(vectors, dim), _) => {
                        decide_vector(vectors, *dim, &line, number, options, &ui, &mut counts)?
                    }
                    (Decider::Bits(strings, len, radius), _) => {
                        let within = (*len, *radius);
                        decide_bits(strings, within, (&line, number), options, &ui, &mut counts)?
                    }
                    (Decider::MinHash(stream), Some(items)) => match items.parse(Ok(&line), number)
                    {
                        Ok(record) => {
                            decide_record(stream, record, items.kind(), options, &ui, &mut counts)?
                        }
                        Err(err) => {
                            ui.warn(Path::new(&err.place()), &speak::row_reason(&err));
                            counts.skipped += 1;
                            Row::skipped(b"")
                        }
                    },
                    (Decider::MinHash(stream), None) => {
                        decide(stream, &line, options, &ui, &mut counts)?
                    }
                };
                rows.push(row);
            }
        }
        if rows.len() >= BATCH_ITEMS || batch_started.elapsed() >= BATCH_TIME {
            settle(&mut stream, &mut rows, &mut csv)?;
        }
    }
    settle(&mut stream, &mut rows, &mut csv)?;
    drop(csv);
    sink.commit()?;
    if let Some(err) = read_error {
        bail!("cannot read standard input: {err}");
    }
    let seconds = started.elapsed().as_secs_f64();
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: {} in {seconds:.3} s: {} new (added), {} seen, {} skipped \
             (similarity ≥ {:.3}, {})",
            plural(counts.new + counts.seen + counts.skipped, "item", "items"),
            counts.new,
            counts.seen,
            counts.skipped,
            options.threshold,
            if options.exact {
                "exact lookup: every document of a size that can reach it"
            } else {
                "LSH candidates, verified"
            }
        );
    }
    Ok(if counts.skipped + counts.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    })
}

/// Decides the vector of line `number`, `id,x1,…,xd` (or tab-separated):
/// stored under its id unless a stored vector's cosine with it reaches
/// the threshold. A line that is no vector of the index's `dim`
/// components is named and answered `skipped`.
fn decide_vector(
    stream: &mut VectorStream<'_>,
    dim: usize,
    line: &[u8],
    number: u64,
    options: &QueryOptions,
    ui: &Ui,
    counts: &mut Counts,
) -> Result<Row> {
    let (id, row) = match vector_of(line, dim) {
        Ok(parsed) => parsed,
        Err(why) => return Ok(skipped_line(number, &why, ui, counts)),
    };
    let decision = stream.add_if_new(&id, &row, options.threshold, options.exact)?;
    Ok(match decision {
        VectorDecision::New { unverified, .. } => {
            counts.new += 1;
            counts.errors += unverified;
            Row::added(id.into_bytes())
        }
        VectorDecision::Seen {
            nearest,
            cosine,
            matches,
            unverified,
        } => {
            counts.seen += 1;
            counts.errors += unverified;
            Row::seen(id.into_bytes(), &nearest.path, cosine, matches)
        }
    })
}

/// Decides the bit string of line `number`, `id,0101…` or `id,0x…` (or
/// tab-separated): stored under its id unless a stored string is within
/// `radius` bits of it. A line that is no string of the index's `len`
/// bits is named and answered `skipped`.
fn decide_bits(
    stream: &mut BitsStream<'_>,
    (len, radius): (usize, u32),
    (line, number): (&[u8], u64),
    options: &QueryOptions,
    ui: &Ui,
    counts: &mut Counts,
) -> Result<Row> {
    let (id, words) = match bits_of(line, len) {
        Ok(parsed) => parsed,
        Err(why) => return Ok(skipped_line(number, &why, ui, counts)),
    };
    let decision = stream.add_if_new(&id, &words, radius, options.exact)?;
    Ok(match decision {
        BitsDecision::New { unverified, .. } => {
            counts.new += 1;
            counts.errors += unverified;
            Row::added(id.into_bytes())
        }
        BitsDecision::Seen {
            nearest,
            distance,
            matches,
            unverified,
        } => {
            counts.seen += 1;
            counts.errors += unverified;
            Row::seen_at(
                id.into_bytes(),
                &nearest.path,
                distance.to_string(),
                matches,
            )
        }
    })
}

/// A point's line that is no point of the index: named and answered
/// `skipped`.
fn skipped_line(number: u64, why: &str, ui: &Ui, counts: &mut Counts) -> Row {
    ui.warn(
        Path::new("standard input"),
        &format!("line {number}: {why}; skipped"),
    );
    counts.skipped += 1;
    Row::skipped(b"")
}

/// A point's line as text, and the byte between its fields: a tab when it
/// holds one, else a comma (no quoting).
fn point_line(line: &[u8]) -> Result<(&str, char), String> {
    let text = std::str::from_utf8(line).map_err(|e| {
        format!(
            "not valid UTF-8 (invalid byte at column {})",
            e.valid_up_to() + 1
        )
    })?;
    Ok((text, if text.contains('\t') { '\t' } else { ',' }))
}

/// A point's id as its line gives it, trimmed; refused when empty.
fn point_id(id: &str) -> Result<&str, String> {
    match id.trim() {
        "" => Err("missing id (empty before the first separator)".into()),
        id => Ok(id),
    }
}

/// The id and words of a bit string's line: `id,0101…` or `id,0x…`,
/// tab-separated when it holds a tab, `len` bits.
fn bits_of(line: &[u8], len: usize) -> Result<(String, Vec<u64>), String> {
    let (text, separator) = point_line(line)?;
    let Some((id, field)) = text.split_once(separator) else {
        return Err("no separator after the id".into());
    };
    let id = point_id(id)?;
    let mut words = Vec::new();
    let bits = simfind::input::vectors::parse_bits(field, &mut words)
        .map_err(|why| format!("the bits: {why}"))?;
    if bits != len {
        return Err(format!("{bits} bits, the index holds strings of {len}"));
    }
    Ok((id.to_owned(), words))
}

/// The id and components of a vector's line: `id,x1,…,xd`, tab-separated
/// when it holds a tab (no quoting), `dim` finite numbers.
fn vector_of(line: &[u8], dim: usize) -> Result<(String, Vec<f32>), String> {
    let (text, separator) = point_line(line)?;
    let mut fields = text.split(separator);
    let id = point_id(fields.next().unwrap_or_default())?;
    let row = fields
        .enumerate()
        .map(|(k, field)| {
            simfind::input::vectors::parse_number(field.trim())
                .map_err(|why| format!("component {}: {why}", k + 1))
        })
        .collect::<Result<Vec<f32>, String>>()?;
    if row.len() != dim {
        return Err(format!(
            "{} components, the index holds vectors of {dim}",
            row.len()
        ));
    }
    Ok((id.to_owned(), row))
}

/// Decides the item at `path` (the line's bytes).
fn decide(
    stream: &mut Stream<'_>,
    path: &[u8],
    options: &QueryOptions,
    ui: &Ui,
    counts: &mut Counts,
) -> Result<Row> {
    let file = PathBuf::from(OsStr::from_bytes(path));
    let decision = stream.add_if_new(NewDoc::File(&file), options, ui)?;
    Ok(answer(decision, path, &file, ui, counts))
}

/// Decides a record: stored whole under its id, as `index --input jsonl`
/// stores it.
fn decide_record(
    stream: &mut Stream<'_>,
    record: Record,
    kind: ItemKind,
    options: &QueryOptions,
    ui: &Ui,
    counts: &mut Counts,
) -> Result<Row> {
    let id = PathBuf::from(&record.id);
    let bytes = kind.text_of(&record.fields).into_bytes();
    let decision = stream.add_if_new(NewDoc::Text { id: &id, bytes }, options, ui)?;
    Ok(answer(decision, record.id.as_bytes(), &id, ui, counts))
}

/// The row of `decision` on the item called `item` (`file` as a path).
fn answer(decision: Decision, path: &[u8], file: &Path, ui: &Ui, counts: &mut Counts) -> Row {
    match decision {
        Decision::New { unverified, .. } => {
            counts.new += 1;
            counts.errors += unverified;
            Row::added(path.to_vec())
        }
        Decision::Seen {
            nearest,
            matches,
            unverified,
        } => {
            counts.seen += 1;
            counts.errors += unverified;
            Row::seen(
                path.to_vec(),
                &nearest.doc.path,
                nearest.similarity,
                matches,
            )
        }
        Decision::Binary => {
            ui.warn(
                file,
                &"looks binary and the index skips binary files; not added",
            );
            counts.skipped += 1;
            Row::skipped(path)
        }
        Decision::Unreadable(path, err) => {
            ui.warn(&path, &err);
            counts.skipped += 1;
            Row::skipped(path.as_os_str().as_bytes())
        }
    }
}

/// Commits the open batch, then writes its rows: an answer is never
/// written before what it says is durable.
fn settle(
    stream: &mut Decider<'_>,
    rows: &mut Vec<Row>,
    csv: &mut csv::Writer<&mut Sink>,
) -> Result<()> {
    stream.commit()?;
    for row in rows.drain(..) {
        csv.write_record([
            row.item.as_slice(),
            row.status.as_bytes(),
            row.nearest.as_slice(),
            row.similarity.as_bytes(),
            row.matches.as_bytes(),
        ])?;
    }
    csv.flush()?;
    Ok(())
}
