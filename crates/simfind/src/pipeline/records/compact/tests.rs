use super::super::{RecordConfig, scan_held};
use super::*;
use crate::input::kind::InputKind;
use crate::input::read::ReadOptions;
use crate::input::records::{Origin, Record, RecordOptions, read_inputs};
use crate::input::walk::WalkOptions;
use crate::lsh::Banding;
use crate::pipeline::plan::MethodChoice;
use crate::progress::Silent;
use crate::recipe::Recipe;
use crate::sketch::SketchKind;
use crate::text::Normalization;
use crate::text::{ShingleKind, Shingler, StopWords};

/// Two inputs of two-field records: near-copies (one word changed, some
/// across the inputs), exact copies (some across the inputs), empty and
/// one-shingle records, and records with fewer fields than the others.
fn records() -> Records {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];
    let mut records = Vec::new();
    for i in 0..120usize {
        let mut fields: Vec<String> = (0..2)
            .map(|f| {
                (0..4 + (i * 7 + f) % 5)
                    .map(|w| words[(i * 31 + f * 11 + w * 5) % words.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        match i % 10 {
            1 => fields.clone_from(&records.last().map_or(fields.clone(), |r: &Record| {
                let mut near = r.fields.clone();
                near[1].push_str(" theta");
                near
            })),
            2 => fields = vec![String::new(), String::new()],
            // Exact copies: records 8 + 10j, 15 + 10j and 16 + 10j are one
            // text (58, 65 and 66 across the two inputs).
            5 | 6 if i > 10 => fields.clone_from(&records[i - 7 - i % 10 + 5].fields),
            3 => fields = vec!["ab".into(), String::new()],
            4 => fields.truncate(1),
            _ => {}
        }
        records.push(Record {
            id: format!("r{i}"),
            fields,
            origin: Origin {
                input: u32::from(i >= 60),
                line: i as u64 + 1,
                offset: 0,
            },
        });
    }
    Records {
        fields: vec!["title".into(), "body".into()],
        records,
        skipped: 3,
        reread: None,
        decoded: false,
    }
}

fn config(verification: Verification, sketch: SketchKind) -> ScanConfig {
    ScanConfig {
        roots: Vec::new(),
        walk: WalkOptions::default(),
        read: ReadOptions::default(),
        recipe: Recipe {
            include_binary: false,
            normalization: Normalization::default(),
            shingler: Shingler::new(ShingleKind::Char, 3, StopWords::default()),
            banding: Banding { bands: 8, rows: 2 },
            seed: 11,
            sketch,
        },
        threshold: 0.3,
        verification,
        verify_memory: 1 << 30,
        exact_index: None,
        method: MethodChoice::Auto,
    }
}

/// `outcome`'s documents as two scans must agree on them: under exact
/// verification a record is signed without its set, whose exact size is
/// made only for the records verification reads, so the size of one in no
/// pair is an upper bound (it is never printed) and only whether it is 0 is
/// compared; the held sets' scan and `--verify signature` count every one.
fn documents(outcome: &ScanOutcome, verification: Verification) -> String {
    let paired: std::collections::HashSet<u32> =
        outcome.pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    let documents: Vec<Document> = (0u32..)
        .zip(&outcome.documents)
        .map(|(i, d)| Document {
            shingles: if verification == Verification::Exact && !paired.contains(&i) {
                d.shingles.min(1)
            } else {
                d.shingles
            },
            ..d.clone()
        })
        .collect();
    format!("{documents:?}")
}

#[test]
fn columns_give_what_held_sets_give() {
    for link in [false, true] {
        for verification in [Verification::Exact, Verification::Signature] {
            for sketch in [SketchKind::Classic, SketchKind::Oph] {
                let config = config(verification, sketch);
                let record = RecordConfig {
                    kind: InputKind::Jsonl,
                    per_field: false,
                    weights: Vec::new(),
                    link,
                    candidate_fields: Vec::new(),
                    blocks: Vec::new(),
                    block_cap: crate::pipeline::DEFAULT_BLOCK_CAP,
                    model: None,
                };
                let reason = Reason::RecordsAuto;
                let held = scan_held(
                    records(),
                    &config,
                    &record,
                    (Method::Lsh, reason.clone(), None),
                    &Silent,
                );
                let compact = scan(records(), &config, link, (reason, None), &Silent);
                let (held, compact) = (held.outcome, compact.outcome);
                let what = format!("link {link}, {verification:?}, {sketch:?}");
                assert!(held.pairs.len() > 3, "{what}: the corpus has pairs");
                assert_eq!(
                    held.pairs.iter().collect::<Vec<_>>(),
                    compact.pairs.iter().collect::<Vec<_>>(),
                    "{what}"
                );
                assert_eq!(
                    documents(&held, verification),
                    documents(&compact, verification),
                    "{what}"
                );
                assert_eq!(
                    format!("{:?}", held.stats),
                    format!("{:?}", compact.stats),
                    "{what}"
                );
                assert!(held.stats.no_shingles > 0 && held.stats.candidates > 0);
            }
        }
    }
}

#[test]
fn an_arena_gives_back_each_record_joined_by_spaces() {
    let mut arena = Arena::default();
    arena.push(&["a", "bc"]);
    arena.push(&[] as &[&str]);
    arena.push(&["", ""]);
    arena.push(&["\u{e9}t\u{e9}"]);
    assert_eq!(arena.ends.len(), 4);
    assert_eq!(arena.get(0), b"a bc");
    assert_eq!(arena.get(1), b"");
    assert_eq!(arena.get(2), b" ");
    assert_eq!(arena.get(3), "\u{e9}t\u{e9}".as_bytes());
}

#[test]
fn marked_records_are_ranked_as_in_their_sorted_list() {
    // Candidates among 1000 records, from a fixed LCG: the records they
    // name, in order, must be what a sorted, deduplicated list gives.
    let mut state = 3u64;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % m) as u32
    };
    for (count, pairs) in [(1000usize, 300usize), (64, 10), (129, 500), (1, 1), (70, 0)] {
        let candidates: Vec<(u32, u32, f64)> = (0..pairs)
            .map(|_| (next(count as u64), next(count as u64), 0.0))
            .collect();
        let mut list: Vec<u32> = candidates.iter().flat_map(|&(a, b, _)| [a, b]).collect();
        list.sort_unstable();
        list.dedup();
        let marked = Marked::of(count, &candidates);
        assert_eq!(marked.len(), list.len());
        assert_eq!(marked.iter().collect::<Vec<_>>(), list);
        for i in 0..count as u32 {
            assert_eq!(
                marked.rank(i),
                list.binary_search(&i).ok(),
                "record {i} of {count}"
            );
        }
        assert_eq!(marked.rank(count as u32 + 64), None);
    }
}

/// `records()` as two files of `kind` (the first 60 records, the rest) in
/// a directory of their own, and the options that read them. CSV quotes
/// every field and breaks some bodies over two lines; TSV ends its lines
/// with CRLF.
fn files(name: &str, kind: InputKind) -> (Vec<std::path::PathBuf>, RecordOptions) {
    let dir = std::env::temp_dir().join(format!(
        "simfind-compact-{}-{name}-{kind:?}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = match kind {
        InputKind::Csv => [
            "\"id\",\"title\",\"body\"\n".to_string(),
            "id,title,body\n".into(),
        ],
        InputKind::Tsv => [
            "id\ttitle\tbody\r\n".to_string(),
            "id\ttitle\tbody\r\n".into(),
        ],
        _ => [String::new(), String::new()],
    };
    for (i, r) in records().records.into_iter().enumerate() {
        let field = |f: usize| r.fields.get(f).cloned().unwrap_or_default();
        let line = match kind {
            InputKind::Csv => {
                let mut body = field(1);
                if i % 7 == 0 {
                    body = body.replacen(' ', "\n", 1);
                }
                format!("\"{}\",\"{}\",\"{body}\"\n", r.id, field(0))
            }
            InputKind::Tsv => format!("\"{}\"\t{}\t{}\r\n", r.id, field(0), field(1)),
            _ => {
                let field = |f: usize| {
                    r.fields
                        .get(f)
                        .map_or(serde_json::Value::Null, |t| t.as_str().into())
                };
                let line = serde_json::json!({"id": r.id, "title": field(0), "body": field(1)});
                format!("{line}\n")
            }
        };
        files[r.origin.input as usize] += &line;
    }
    // A blank line, as a reader meets them: offsets are not line numbers.
    let header = files[1].find('\n').map_or(0, |at| at + 1);
    files[1].insert(header, '\n');
    let extension = format!("{kind:?}").to_lowercase();
    let paths: Vec<_> = (0..2)
        .map(|i| dir.join(format!("{i}.{extension}")))
        .collect();
    for (path, text) in paths.iter().zip(&files) {
        std::fs::write(path, text).unwrap();
    }
    let mut options = RecordOptions::new(kind);
    options.text_fields = vec!["title".into(), "body".into()];
    (paths, options)
}

/// The kinds of input read again at their offsets.
const KINDS: [InputKind; 3] = [InputKind::Jsonl, InputKind::Csv, InputKind::Tsv];

fn read(paths: &[std::path::PathBuf], options: &RecordOptions) -> Records {
    read_inputs(paths, options, &mut |err| panic!("{err}")).unwrap()
}

#[test]
fn records_read_again_at_their_offsets_give_what_held_sets_give() {
    for kind in KINDS {
        read_again_gives_what_held_sets_give(kind);
    }
}

fn read_again_gives_what_held_sets_give(kind: InputKind) {
    let (paths, options) = files("same", kind);
    assert!(read(&paths, &options).reread.is_some(), "{kind:?}");
    for link in [false, true] {
        for verification in [Verification::Exact, Verification::Signature] {
            let config = config(verification, SketchKind::Classic);
            let record = RecordConfig {
                kind,
                per_field: false,
                weights: Vec::new(),
                link,
                candidate_fields: Vec::new(),
                blocks: Vec::new(),
                block_cap: crate::pipeline::DEFAULT_BLOCK_CAP,
                model: None,
            };
            let held = scan_held(
                read(&paths, &options),
                &config,
                &record,
                (Method::Lsh, Reason::RecordsAuto, None),
                &Silent,
            )
            .outcome;
            let again = scan(
                read(&paths, &options),
                &config,
                link,
                (Reason::RecordsAuto, None),
                &Silent,
            )
            .outcome;
            let what = format!("{kind:?}, link {link}, {verification:?}");
            assert!(held.pairs.len() > 3, "{what}: the corpus has pairs");
            assert_eq!(
                held.pairs.iter().collect::<Vec<_>>(),
                again.pairs.iter().collect::<Vec<_>>(),
                "{what}"
            );
            assert_eq!(
                documents(&held, verification),
                documents(&again, verification),
                "{what}"
            );
            assert_eq!(
                format!("{:?}", held.stats),
                format!("{:?}", again.stats),
                "{what}"
            );
        }
    }
    std::fs::remove_dir_all(paths[0].parent().unwrap()).unwrap();
}

/// Warnings, as `place: reason`.
#[derive(Default)]
struct Warnings(std::sync::Mutex<Vec<String>>);

impl Reporter for Warnings {
    fn warn(&self, path: &std::path::Path, reason: &dyn std::fmt::Display) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{}: {reason}", path.display()));
    }
}

#[test]
fn a_record_changed_before_it_is_read_again_is_named_and_its_pairs_dropped() {
    for kind in KINDS {
        changed_record_is_named(kind, "changed", &|pairs| pairs[0].0);
    }
}

#[test]
fn a_changed_record_whose_copies_are_not_takes_only_its_own_pairs() {
    // Record 58 is the first of three identical records (65 and 66 the
    // others, in the other input): signed and verified as one, but when
    // 58 changes, its copies' pairs stay, each other's included.
    for kind in KINDS {
        changed_record_is_named(kind, "original", &|pairs| {
            for copy in [(58, 65), (58, 66), (65, 66)] {
                assert!(pairs.contains(&copy), "{kind:?}: {copy:?} in {pairs:?}");
            }
            58
        });
    }
}

/// Which record to change, given the pairs of the unchanged scan.
type Pick<'a> = dyn Fn(&[(u32, u32)]) -> u32 + 'a;

/// Changes the record `pick` chooses among the pairs of an unchanged scan
/// while the scan reads `kind` files, and checks that it is named and that
/// only its pairs are dropped.
fn changed_record_is_named(kind: InputKind, name: &str, pick: &Pick<'_>) {
    let (paths, options) = files(name, kind);
    let config = config(Verification::Exact, SketchKind::Classic);
    let before = scan(
        read(&paths, &options),
        &config,
        false,
        (Reason::RecordsAuto, None),
        &Silent,
    )
    .outcome;
    let pairs: Vec<(u32, u32)> = before.pairs.iter().map(|p| (p.a, p.b)).collect();
    let a = pick(&pairs);
    let id = before.documents[a as usize].path.display().to_string();
    // Read, then the file changes under the scan: the record's text keeps
    // its length (the offsets stay) but not its letters. The scan is run
    // through a reporter that changes the file when banding begins.
    struct Changer<'a> {
        warnings: Warnings,
        path: &'a std::path::Path,
        id: String,
    }
    impl Reporter for Changer<'_> {
        fn begin(&self, stage: Stage, _total: Option<u64>) {
            if stage == Stage::Band {
                let text = std::fs::read_to_string(self.path).unwrap();
                let line = text
                    .lines()
                    .find(|l| l.contains(&format!("\"{}\"", self.id)))
                    .unwrap();
                let changed = line.replace("alpha", "omega").replace("beta", "omeg");
                assert_ne!(line, changed, "the record has a word to change");
                std::fs::write(self.path, text.replace(line, &changed)).unwrap();
            }
        }
        fn warn(&self, path: &std::path::Path, reason: &dyn std::fmt::Display) {
            self.warnings.warn(path, reason);
        }
    }
    let input = usize::from(a >= 60);
    let changer = Changer {
        warnings: Warnings::default(),
        path: &paths[input],
        id: id.clone(),
    };
    let after = scan(
        read(&paths, &options),
        &config,
        false,
        (Reason::RecordsAuto, None),
        &changer,
    )
    .outcome;
    let line = std::fs::read_to_string(&paths[input])
        .unwrap()
        .lines()
        .position(|l| l.contains(&format!("\"{id}\"")))
        .unwrap()
        + 1;
    let warnings = changer.warnings.0.into_inner().unwrap();
    assert_eq!(warnings.len(), 1, "{kind:?}: {warnings:?}");
    let place = format!("{}:{line}: record '{id}' changed", paths[input].display());
    assert!(warnings[0].starts_with(&place), "{warnings:?} vs {place}");
    assert_eq!(after.stats.errors, before.stats.errors + 1);
    let kept: Vec<(u32, u32)> = pairs
        .iter()
        .copied()
        .filter(|&(x, y)| x != a && y != a)
        .collect();
    assert!(kept.len() < pairs.len());
    assert_eq!(
        after.pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(),
        kept
    );
    std::fs::remove_dir_all(paths[0].parent().unwrap()).unwrap();
}

/// A reporter that asks the run to stop once `after` items are done.
struct StopAfter {
    after: u64,
    done: std::sync::atomic::AtomicU64,
}

impl Reporter for StopAfter {
    fn advance(&self, done: u64) {
        self.done
            .fetch_add(done, std::sync::atomic::Ordering::Relaxed);
    }

    fn cancelled(&self) -> bool {
        self.done.load(std::sync::atomic::Ordering::Relaxed) >= self.after
    }
}

#[test]
fn a_run_asked_to_stop_skips_the_rest_and_still_returns() {
    let config = config(Verification::Exact, SketchKind::Classic);
    let record = RecordConfig {
        kind: InputKind::Jsonl,
        per_field: false,
        weights: Vec::new(),
        link: false,
        candidate_fields: Vec::new(),
        blocks: Vec::new(),
        block_cap: crate::pipeline::DEFAULT_BLOCK_CAP,
        model: None,
    };
    let full = scan(
        records(),
        &config,
        false,
        (Reason::RecordsAuto, None),
        &Silent,
    )
    .outcome;
    assert!(full.pairs.len() > 3, "the corpus has pairs");
    for after in [0, 10] {
        let stop = || StopAfter {
            after,
            done: Default::default(),
        };
        let mut outcomes = vec![
            scan(
                records(),
                &config,
                false,
                (Reason::RecordsAuto, None),
                &stop(),
            )
            .outcome,
        ];
        for method in [Method::Exact, Method::Lsh] {
            let reason = Reason::RecordsAuto;
            outcomes.push(
                scan_held(records(), &config, &record, (method, reason, None), &stop()).outcome,
            );
        }
        for outcome in outcomes {
            // Incomplete, never more than the full run found.
            assert!(
                outcome
                    .pairs
                    .iter()
                    .all(|p| full.pairs.iter().any(|q| q == p)),
                "after {after}"
            );
            if after == 0 {
                assert_eq!(outcome.pairs.len(), 0);
                assert_eq!(outcome.stats.candidates, 0);
            }
        }
    }
}

#[test]
fn texts_in_memory_give_what_their_records_give() {
    // `records()`' texts as one field each, ids their positions: through
    // `scan_texts` (no records made under LSH) and as records.
    let texts: Vec<String> = records()
        .records
        .iter()
        .map(|r| r.fields.join(" "))
        .collect();
    let as_records = || Records {
        fields: vec!["text".into()],
        records: texts
            .iter()
            .enumerate()
            .map(|(i, t)| Record {
                id: i.to_string(),
                fields: vec![t.clone()],
                origin: Origin {
                    input: 0,
                    line: i as u64 + 1,
                    offset: 0,
                },
            })
            .collect(),
        skipped: 0,
        reread: None,
        decoded: false,
    };
    let record = RecordConfig {
        kind: InputKind::Jsonl,
        per_field: false,
        weights: Vec::new(),
        link: false,
        candidate_fields: Vec::new(),
        blocks: Vec::new(),
        block_cap: crate::pipeline::DEFAULT_BLOCK_CAP,
        model: None,
    };
    for method in [MethodChoice::Auto, MethodChoice::Fixed(Method::Exact)] {
        for verification in [Verification::Exact, Verification::Signature] {
            let mut config = config(verification, SketchKind::Classic);
            config.method = method;
            let given = super::super::scan_texts(&texts, &config, &Silent);
            let read = super::super::scan_records(as_records(), &config, &record, &Silent);
            let (given, read) = (given.outcome, read.outcome);
            let what = format!("{method:?}, {verification:?}");
            assert!(given.pairs.len() > 3, "{what}: the corpus has pairs");
            assert_eq!(
                given.pairs.iter().collect::<Vec<_>>(),
                read.pairs.iter().collect::<Vec<_>>(),
                "{what}"
            );
            assert_eq!(
                format!("{:?}", given.documents),
                format!("{:?}", read.documents),
                "{what}"
            );
            assert_eq!(
                format!("{:?} {:?}", given.stats, given.decision),
                format!("{:?} {:?}", read.stats, read.decision),
                "{what}"
            );
        }
    }
}
