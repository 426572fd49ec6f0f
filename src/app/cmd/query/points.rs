//! `query --input vectors|bits`: points looked up in an index of points,
//! each kind by its measure (cosine, Hamming), and the ending both share.
//! Beside `query.rs`, which looks up documents and records.

use super::*;

/// `query --input vectors`: each vector of FILE looked up in an index of
/// vectors by its cosine (`simfind::index::points`), written as `scan
/// --input vectors` writes pairs (`a`, `b`, `metric`, `similarity`).
pub(super) fn vectors(args: &Args, options: OpenOptions, started: Instant) -> Result<i32> {
    use simfind::index::points;
    use simfind::input::vectors as read;

    for (given, flag) in [
        (args.metric.is_some(), "--metric"),
        (args.verify == VerifyArg::Signature, "--verify signature"),
        (args.transform.transform.is_some(), "--transform"),
    ] {
        if given {
            bail!(
                "{flag} does not apply to --input vectors: each vector is verified by its cosine"
            );
        }
    }
    let mut index = Index::open_existing(&args.db, options)?;
    index.require_kind(ItemKind::Vectors)?;
    let t = args.threshold.unwrap_or(VECTOR_THRESHOLD);
    let exact = args.exact || args.top.is_some();
    if args.add_if_new {
        // A writer: an index of an older format gets its new tables now.
        index.upgrade()?;
        let options = QueryOptions {
            threshold: t,
            top: None,
            verification: Verification::Exact,
            exact,
        };
        return stream::run(
            args,
            &index,
            stream::Lookup::Vectors,
            &options,
            None,
            started,
        );
    }
    let top = args.top.map(|k| usize::try_from(k).unwrap_or(usize::MAX));
    let summary_json = summary::open(&args.summary_json, args.output.as_deref())?;
    let mut errors = 0u64;
    let queries = read_queries(args, &mut errors, read::read_vectors_capped)?;
    let dim = points::dimension(&index);
    for (points, path) in queries.iter().zip(&args.files) {
        if points.dim != dim {
            bail!(
                "{}: vectors of {} dimensions, the index {} holds vectors of {dim}",
                path.display(),
                points.dim,
                args.db.display()
            );
        }
    }
    let mut sink = Sink::create_whole(args.output.as_deref())?;
    output::install_interrupt_handler();
    let (mut asked, mut candidates, mut matches) = (0u64, 0u64, 0u64);
    let mut csv = csv::WriterBuilder::new().from_writer(&mut sink);
    csv.write_record(["a", "b", "metric", "similarity"])?;
    for points in &queries {
        for i in 0..points.len() {
            let answer = points::ask_vector(&index, points.row(i), t, exact, top)?;
            asked += 1;
            candidates += answer.candidates as u64;
            errors += answer.unverified;
            matches += answer.matches.len() as u64;
            for (doc, cosine) in answer.matches {
                csv.write_record([
                    points.ids[i].as_bytes(),
                    doc.path.as_os_str().as_bytes(),
                    b"cosine",
                    format!("{cosine:.6}").as_bytes(),
                ])?;
            }
        }
    }
    csv.flush()?;
    drop(csv);
    sink.commit()?;
    let how = if exact {
        "exact lookup: every stored vector"
    } else {
        "hyperplane bands, verified"
    };
    let done = PointsDone {
        asked,
        candidates,
        matches,
        errors,
    };
    let found = format!("with cosine ≥ {t:.3}");
    done.finish(
        args,
        (started, summary_json),
        (&found, how),
        ("threshold", t.into()),
    )
}

/// `query --input bits`: each bit string of FILE looked up in an index of
/// bit strings by its Hamming distance (`simfind::index::bits`), written as
/// `scan --input bits` writes pairs (`a`, `b`, `metric`, `distance`).
pub(super) fn bits(args: &Args, options: OpenOptions, started: Instant) -> Result<i32> {
    use simfind::index::bits;
    use simfind::input::vectors as read;

    for (given, flag) in [
        (args.metric.is_some(), "--metric"),
        (args.threshold.is_some(), "-t (give --radius, in bits)"),
        (args.verify == VerifyArg::Signature, "--verify signature"),
        (args.transform.transform.is_some(), "--transform"),
    ] {
        if given {
            bail!(
                "{flag} does not apply to --input bits: each string is verified by its Hamming \
                 distance"
            );
        }
    }
    let mut index = Index::open_existing(&args.db, options)?;
    index.require_kind(ItemKind::Bits)?;
    let exact = args.exact || args.top.is_some();
    if args.add_if_new {
        // A writer: an index of an older format gets its new tables now.
        index.upgrade()?;
        let options = QueryOptions {
            threshold: 0.0,
            top: None,
            verification: Verification::Exact,
            exact,
        };
        let radius = args.radius.unwrap_or(0);
        let lookup = stream::Lookup::Bits { radius };
        return stream::run(args, &index, lookup, &options, None, started);
    }
    // With --top alone, the nearest at any distance.
    let radius = match (args.radius, args.top) {
        (Some(r), _) => r,
        (None, Some(_)) => u32::MAX,
        (None, None) => 0,
    };
    let top = args.top.map(|k| usize::try_from(k).unwrap_or(usize::MAX));
    let summary_json = summary::open(&args.summary_json, args.output.as_deref())?;
    let mut errors = 0u64;
    let queries = read_queries(args, &mut errors, read::read_bits_capped)?;
    let length = bits::length(&index);
    for (strings, path) in queries.iter().zip(&args.files) {
        if strings.bits != length {
            bail!(
                "{}: bit strings of {} bits, the index {} holds strings of {length}",
                path.display(),
                strings.bits,
                args.db.display()
            );
        }
    }
    let mut sink = Sink::create_whole(args.output.as_deref())?;
    output::install_interrupt_handler();
    let (mut asked, mut candidates, mut matches) = (0u64, 0u64, 0u64);
    let mut csv = csv::WriterBuilder::new().from_writer(&mut sink);
    csv.write_record(["a", "b", "metric", "distance"])?;
    for strings in &queries {
        for i in 0..strings.len() {
            let answer = bits::ask_bits(&index, strings.row(i), radius, exact, top)?;
            asked += 1;
            candidates += answer.candidates as u64;
            errors += answer.unverified;
            matches += answer.matches.len() as u64;
            for (doc, distance) in answer.matches {
                csv.write_record([
                    strings.ids[i].as_bytes(),
                    doc.path.as_os_str().as_bytes(),
                    b"hamming",
                    distance.to_string().as_bytes(),
                ])?;
            }
        }
    }
    csv.flush()?;
    drop(csv);
    sink.commit()?;
    let how = if exact {
        "exact lookup: every stored string"
    } else {
        "bit-sampling bands, verified"
    };
    let found = match (args.radius, args.top) {
        (None, Some(k)) => format!("the {k} nearest"),
        _ => format!("within {radius} bits"),
    };
    let done = PointsDone {
        asked,
        candidates,
        matches,
        errors,
    };
    done.finish(
        args,
        (started, summary_json),
        (&found, how),
        ("radius", radius.into()),
    )
}

/// The points of every FILE of `query --input vectors|bits`, read by
/// `parse` (a bad row stops the run, or is counted in `errors` and left
/// out with --skip-bad-rows).
fn read_queries<T>(
    args: &Args,
    errors: &mut u64,
    parse: crate::app::families::Parser<T>,
) -> Result<Vec<T>> {
    args.files
        .iter()
        .map(|path| {
            crate::app::families::read_points(
                path,
                records::DEFAULT_MAX_LINE,
                args.input.skip_bad_rows,
                errors,
                parse,
            )
        })
        .collect()
}

/// What a lookup of vectors or bit strings did, as it ends.
struct PointsDone {
    asked: u64,
    candidates: u64,
    matches: u64,
    errors: u64,
}

impl PointsDone {
    /// The stderr line (`found`: what the matches are, `how`: how they were
    /// found), the exit status and the `--summary-json` document, whose
    /// `limit` names the query's bound (`threshold`, `radius`).
    fn finish(
        &self,
        args: &Args,
        (started, summary_json): (Instant, Option<summary::SummaryJson>),
        (found, how): (&str, &str),
        limit: (&str, serde_json::Value),
    ) -> Result<i32> {
        let seconds = started.elapsed().as_secs_f64();
        if !args.verbosity.quiet {
            eprintln!(
                "simfind: {} in {seconds:.3} s: {}, {} {found} ({how})",
                plural(self.asked, "query", "queries"),
                plural(self.candidates, "candidate", "candidates"),
                plural(self.matches, "match", "matches"),
            );
        }
        let status = if self.errors > 0 {
            exit::PARTIAL
        } else {
            exit::OK
        };
        if let Some(out) = summary_json {
            let mut fields = serde_json::Map::new();
            fields.insert("queries".into(), self.asked.into());
            fields.insert("candidates".into(), self.candidates.into());
            fields.insert("matches".into(), self.matches.into());
            fields.insert("errors".into(), self.errors.into());
            fields.insert(limit.0.into(), limit.1);
            fields.insert("verification".into(), "exact".into());
            fields.insert("seconds".into(), summary::seconds(seconds, &Vec::new()));
            out.write(&summary::document("query", status, fields))?;
        }
        Ok(status)
    }
}

/// The cosine `query --input vectors` reports from unless -t is given.
const VECTOR_THRESHOLD: f64 = 0.9;
