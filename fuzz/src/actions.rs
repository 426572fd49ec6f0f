//! The properties of the fuzz targets over what `dedupe` and `undo` read
//! back from disk: the journal (`journal`) and the removal list that
//! `dedupe --from-list` acts on (`from_list`). Included by
//! `tests/suite/fuzz_regressions.rs` as `inputs.rs` and `props.rs` are.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use simfind::action::Action;
use simfind::action::journal::{self, Outcome, Writer};
use simfind::action::plan::Entry;
use simfind::action::state::{Fingerprint, Owner};
use simfind::input::bounded::{self, Bounded};
use simfind::input::list;

/// The input's bytes taken in order, zeros once it runs out: every input
/// describes some journal.
struct Take<'a>(&'a [u8]);

impl Take<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn u64(&mut self) -> u64 {
        let mut word = [0; 8];
        for b in &mut word {
            *b = self.byte();
        }
        u64::from_le_bytes(word)
    }

    /// Up to `max` bytes, as many as the next byte says.
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = usize::from(self.byte()) % (max + 1);
        (0..n).map(|_| self.byte()).collect()
    }

    fn path(&mut self) -> PathBuf {
        PathBuf::from(OsStr::from_bytes(&self.bytes(12)))
    }

    fn text(&mut self) -> String {
        String::from_utf8_lossy(&self.bytes(8)).into_owned()
    }

    fn fingerprint(&mut self) -> Fingerprint {
        Fingerprint {
            size: self.u64(),
            mtime_ns: i128::from(self.u64() as i64) * i128::from(self.byte() % 3 + 1),
            hash: u128::from(self.u64()) << 64 | u128::from(self.u64()),
        }
    }
}

/// One entry as `dedupe` journals it: any paths (UTF-8 or not), any
/// fingerprints and owner, a similarity that is finite or absent. The
/// kept copy's device and inode are not journaled (`kept_id: None`).
fn entry(take: &mut Take, moves: bool) -> Entry {
    let flags = take.byte();
    Entry {
        path: take.path(),
        kept: take.path(),
        to: moves.then(|| take.path()),
        identical: flags & 1 == 1,
        similarity: (flags & 2 == 2)
            .then(|| f64::from_bits(take.u64()))
            .filter(|s| s.is_finite()),
        fingerprint: take.fingerprint(),
        kept_fingerprint: take.fingerprint(),
        kept_id: None,
        owner: (flags & 4 == 4).then(|| Owner {
            mode: (take.u64() as u32) & 0o7777,
            uid: take.u64() as u32,
            gid: take.u64() as u32,
        }),
        // The journal does not record them.
        kept_because: None,
        only_in: None,
    }
}

fn outcome(take: &mut Take) -> Outcome {
    match take.byte() % 4 {
        0 => Outcome::Unfinished,
        1 => Outcome::Done(take.text()),
        2 => Outcome::Skipped(take.text()),
        _ => Outcome::Failed(take.text()),
    }
}

/// `journal`: what `undo` reads. Any bytes give the records or an error
/// naming the journal and a line, never a panic; read, every line is
/// accounted for (the header, a record's intent, an outcome, a blank line,
/// named as damaged, or the cut-short last line). A journal written by
/// [`Writer`] reads back exactly as written; with one line damaged
/// (garbage, or longer than [`journal::MAX_LINE`]) it reads back the same
/// less that line, which is named, and an outcome left without its
/// intent; cut short within its last line, the same less that line.
pub fn journal(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        any_journal(rest);
    } else {
        written_journal(mode >> 1, rest);
    }
}

fn any_journal(data: &[u8]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("journal");
    std::fs::write(&path, data).expect("written");
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    // A final newline ends the last line; it starts none.
    let count = lines.len() - usize::from(data.ends_with(b"\n") || data.is_empty());
    let read = match journal::read(&path) {
        Ok(read) => read,
        Err(err) => {
            let text = err.to_string();
            let at = text
                .strip_prefix(&format!("{}:", path.display()))
                .and_then(|t| t.split_once(':'))
                .and_then(|(n, _)| n.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("an error naming no line of the journal: {text}"));
            assert!(at >= 1 && at <= count.max(1), "{text}: {count} lines");
            return;
        }
    };
    let damaged: Vec<usize> = read.damaged.iter().map(|(n, _)| *n).collect();
    assert!(
        damaged.windows(2).all(|w| w[0] < w[1]),
        "damaged lines out of order: {damaged:?}"
    );
    assert!(read.damaged.iter().all(|(_, why)| !why.is_empty()));
    if read.truncated_tail {
        assert!(
            !data.ends_with(b"\n"),
            "a cut-short tail that has its newline"
        );
    }
    let mut header = None;
    let mut intents = 0;
    for (i, line) in lines.iter().take(count).enumerate() {
        let number = i + 1;
        if line.is_empty()
            || damaged.contains(&number)
            || (read.truncated_tail && number == count)
            || line.len() > journal::MAX_LINE
        {
            assert!(
                line.len() <= journal::MAX_LINE || damaged.contains(&number),
                "line {number}: over the cap and not named"
            );
            continue;
        }
        let value: serde_json::Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("line {number}: read as a record, but not JSON: {e}"));
        if header.is_none() {
            header = Some(number);
            assert!(
                value.get("simfind_journal").is_some(),
                "line {number}: taken as the header"
            );
            assert_eq!(read.action, value["action"].as_str().unwrap_or(""));
            continue;
        }
        if value["event"] == "intent" {
            intents += 1;
        }
    }
    assert!(header.is_some(), "a journal read without its header");
    assert_eq!(read.records.len(), intents, "records and intent lines");
}

/// The similarity is written as the shortest decimal that reads back to
/// it, but read with serde_json's default float parser, which can land a
/// few units in the last place off (its `float_roundtrip` feature is not
/// on; the fuzzer found two). Nothing reads it back but a person (`undo`
/// checks fingerprints), so the journal promises it to 14 significant
/// digits.
fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-14 * b.abs().max(f64::MIN_POSITIVE)
}

/// Which line of a written journal holds what: the header, or the intent
/// or the outcome of the entry with this seq.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Line {
    Header,
    Intent(u64),
    Outcome(u64),
}

fn written_journal(mode: u8, rest: &[u8]) {
    let mut take = Take(rest);
    let action = match mode % 4 {
        0 => Action::MoveTo(take.path()),
        1 => Action::Remove,
        2 => Action::Link,
        _ => Action::Reflink,
    };
    let moves = matches!(action, Action::MoveTo(_));
    let how = take.byte();
    let n = usize::from(take.byte() % 6);
    let mut written: Vec<(u64, Entry, Outcome)> = Vec::new();
    let mut lines = vec![Line::Header];
    for seq in 0..n as u64 {
        let e = entry(&mut take, moves);
        let o = outcome(&mut take);
        lines.push(Line::Intent(seq));
        if o != Outcome::Unfinished {
            lines.push(Line::Outcome(seq));
        }
        written.push((seq, e, o));
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("journal");
    let mut writer = Writer::create(&path, &action).expect("a journal");
    for (seq, e, o) in &written {
        writer
            .intent(*seq, action.name(), e)
            .expect("an intent line");
        writer.outcome(*seq, o).expect("an outcome line");
    }
    drop(writer);

    let check = |expected: &[(u64, Entry, Outcome)], damaged: &[usize], tail: bool| {
        let read = journal::read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.action, action.name());
        let want: Vec<(u64, &str, &Entry, &Outcome)> = expected
            .iter()
            .map(|(s, e, o)| (*s, action.name(), e, o))
            .collect();
        let mut entries: Vec<Entry> = read.records.iter().map(|r| r.entry.clone()).collect();
        for (got, (_, _, e, _)) in entries.iter_mut().zip(&want) {
            if let (Some(a), Some(b)) = (got.similarity, e.similarity) {
                assert!(close(a, b), "similarity {b} read back as {a}");
                got.similarity = e.similarity;
            }
        }
        let got: Vec<(u64, &str, &Entry, &Outcome)> = read
            .records
            .iter()
            .zip(&entries)
            .map(|(r, e)| (r.seq, r.action.as_str(), e, &r.outcome))
            .collect();
        assert_eq!(got, want);
        let named: Vec<usize> = read.damaged.iter().map(|(n, _)| *n).collect();
        assert_eq!(named, damaged, "{:?}", read.damaged);
        assert_eq!(read.truncated_tail, tail);
    };
    check(&written, &[], false);

    let bytes = std::fs::read(&path).expect("the journal");
    let mut starts: Vec<usize> = vec![0];
    starts.extend(
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1),
    );
    // starts[i]..starts[i + 1] - 1 is line i + 1 without its newline.
    let line_of = |i: usize| &bytes[starts[i]..starts[i + 1] - 1];
    if lines.len() < 2 {
        return;
    }
    match how % 3 {
        // One line after the header replaced by garbage or by a line over the cap.
        0 | 1 => {
            let i = 1 + usize::from(take.byte()) % (lines.len() - 1);
            let garbage = if how % 3 == 0 {
                let mut g = b"#".to_vec();
                g.extend(take.bytes(16).into_iter().filter(|&b| b != b'\n'));
                g
            } else {
                vec![b'x'; journal::MAX_LINE + 1]
            };
            let mut damaged_bytes = bytes[..starts[i]].to_vec();
            damaged_bytes.extend_from_slice(&garbage);
            damaged_bytes.extend_from_slice(&bytes[starts[i + 1] - 1..]);
            std::fs::write(&path, &damaged_bytes).expect("written");
            let mut expected = written.clone();
            let mut damaged = vec![i + 1];
            match lines[i] {
                Line::Intent(seq) => {
                    expected.retain(|(s, _, _)| *s != seq);
                    if let Some(k) = lines.iter().position(|l| *l == Line::Outcome(seq)) {
                        damaged.push(k + 1);
                    }
                }
                Line::Outcome(seq) => {
                    expected
                        .iter_mut()
                        .filter(|(s, _, _)| *s == seq)
                        .for_each(|(_, _, o)| *o = Outcome::Unfinished);
                }
                Line::Header => unreachable!("the header is not damaged here"),
            }
            check(&expected, &damaged, false);
        }
        // Cut short within the last line: the run was killed writing it.
        _ => {
            let last = lines.len() - 1;
            let len = line_of(last).len();
            if len < 2 {
                return;
            }
            let cut = starts[last] + 1 + usize::from(take.byte()) % (len - 1);
            std::fs::write(&path, &bytes[..cut]).expect("written");
            let mut expected = written.clone();
            match lines[last] {
                Line::Intent(seq) => expected.retain(|(s, _, _)| *s != seq),
                Line::Outcome(seq) => expected
                    .iter_mut()
                    .filter(|(s, _, _)| *s == seq)
                    .for_each(|(_, _, o)| *o = Outcome::Unfinished),
                Line::Header => unreachable!("the header is not the last line here"),
            }
            check(&expected, &[], true);
        }
    }
}

/// `from_list`: the list `dedupe --from-list` acts on (`scan
/// --list-removable -0` writes it; `--files-from` lists are the same with
/// newlines). Read within a cap, it gives all its bytes or, past the cap,
/// an error naming the cap; its paths are exactly the non-empty runs of
/// bytes between separators, byte for byte and in order; and a list written
/// as the scan writes it (each path, then the separator) reads back to
/// exactly its paths.
pub fn from_list(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let separator = if mode & 1 == 0 { b'\0' } else { b'\n' };
    let cap = u64::from(mode >> 1) * 8;
    match bounded::read_all(rest, cap) {
        Ok(bytes) => {
            assert!(
                rest.len() as u64 <= cap,
                "read {} bytes past a cap of {cap}",
                rest.len()
            );
            assert_eq!(bytes, rest);
        }
        Err(Bounded::TooLarge { cap: named }) => {
            assert!(
                rest.len() as u64 > cap,
                "{} bytes refused under a cap of {cap}",
                rest.len()
            );
            assert_eq!(named, cap);
        }
        Err(err) => panic!("reading bytes in memory failed: {err}"),
    }
    let paths = list::parse(rest, separator);
    let mut by_definition: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for (i, &b) in rest.iter().enumerate() {
        if b == separator {
            if i > start {
                by_definition.push(&rest[start..i]);
            }
            start = i + 1;
        }
    }
    if rest.len() > start {
        by_definition.push(&rest[start..]);
    }
    let got: Vec<&[u8]> = paths.iter().map(|p| p.as_os_str().as_bytes()).collect();
    assert_eq!(got, by_definition);
    let mut written = Vec::new();
    for p in &paths {
        written.extend_from_slice(p.as_os_str().as_bytes());
        written.push(separator);
    }
    assert_eq!(list::parse(&written, separator), paths);
    assert!(paths.iter().all(|p| !p.as_os_str().is_empty()));
}

/// `plan`: any bytes as a plan file for `dedupe --apply` (`scan --plan`'s
/// format). Read within the line cap: a plan, or an error naming a line of
/// the input, never a panic. A plan read is one `--apply` may act on: each
/// action's file lies strictly under its root (no `..`, no other tree), its
/// kept copy is another absolute path, and the roots are absolute. Written
/// again by the plan writer and read back, it is the same plan (the writer
/// and reader agree on every field a person may have edited).
pub fn plan(data: &[u8]) {
    use simfind::action::plan::Plan;
    use simfind::action::planfile::{self, PlanFileError};

    let lines = 1 + data.iter().filter(|&&b| b == b'\n').count() as u64;
    let file = match planfile::parse(data) {
        Ok(file) => file,
        Err(PlanFileError::Line { line, why }) => {
            assert!((1..=lines).contains(&line), "line {line} of {lines}: {why}");
            // Not one line when it quotes a path holding a newline: stderr's
            // messages show paths as they are, everywhere.
            assert!(!why.is_empty(), "line {line}: no reason");
            return;
        }
        Err(PlanFileError::TooMany) => return,
        Err(PlanFileError::Io(err)) => panic!("reading from memory failed: {err}"),
    };
    let roots = &file.header.roots;
    assert!(roots.iter().all(|r| r.is_absolute()), "{roots:?}");
    for action in &file.actions {
        let root = &roots[action.root];
        let rel = action
            .entry
            .path
            .strip_prefix(root)
            .expect("an action's file under its root");
        assert!(
            rel.components().next().is_some()
                && rel
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
            "{:?} reaches out of {root:?}",
            action.entry.path
        );
        assert!(action.entry.kept.is_absolute());
        assert_ne!(action.entry.kept, action.entry.path);
    }
    let plan = Plan {
        entries: file.actions.iter().map(|a| a.entry.clone()).collect(),
        ..Plan::default()
    };
    let again = planfile::parse(&planfile::render(&file.header, &plan)[..])
        .unwrap_or_else(|e| panic!("the writer's plan does not read back: {e}"));
    let (h, g) = (&file.header, &again.header);
    assert_eq!(
        (&g.action, &g.keep, &g.roots),
        (&h.action, &h.keep, &h.roots)
    );
    // A threshold that was not a number reads back as NaN, as it was read;
    // serde_json's default float parser may miss a number's last place.
    assert!(
        h.threshold.is_nan() && g.threshold.is_nan()
            || (h.threshold - g.threshold).abs() <= 1e-12 * h.threshold.abs().max(1.0),
        "{} / {}",
        h.threshold,
        g.threshold
    );
    assert_eq!(again.actions.len(), file.actions.len());
    for (a, b) in again.actions.iter().zip(&file.actions) {
        // Roots may repeat or nest: the writer names the longest that
        // holds the file, so compare the roots, not their numbers.
        assert!(a.entry.path.starts_with(&roots[a.root]));
        let (mut x, mut y) = (a.entry.clone(), b.entry.clone());
        // As the threshold; nothing acts on the similarity.
        if let (Some(p), Some(q)) = (x.similarity, y.similarity) {
            assert!((p - q).abs() <= 1e-12 * p.abs().max(1.0), "{p} / {q}");
            (x.similarity, y.similarity) = (None, None);
        }
        assert_eq!(x, y);
    }
}
