//! One index for every kind of item (issue 37, point 3): `index --input
//! jsonl|sets` stores records or sets under their ids, `query --input K`
//! answers what a brute force over the exact Jaccard similarity answers
//! (the sets computed here, independently of simfind: 5-character windows
//! of a record's text, whole tokens of a set), a record re-added under its
//! id replaces it, an item of another kind than the index's is refused
//! naming both before any work, and a killed stream of JSON Lines records
//! leaves every record it answered `new` in an index that passes its
//! integrity check.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::util::{args, code, letter_words, run_os, simfind, stderr, write};

/// A record's text: `letter_words` of its own seed; a copy keeps the
/// first `keep` of the original's words. 40 originals of 30 words, and
/// copies of every other one cut to 27, 20 and 10 words: Jaccard about
/// 0.9, 0.65 and 0.3 with their original.
fn record_texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for i in 0..40u64 {
        let words = letter_words(5000 + i, 30);
        out.push((format!("r{i:02}"), words.join(" ")));
        if i % 2 == 0 {
            for keep in [27usize, 20, 10] {
                out.push((format!("r{i:02}-{keep}"), words[..keep].join(" ")));
            }
        }
    }
    out
}

fn jsonl(records: &[(String, String)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (id, text) in records {
        let line = serde_json::json!({ "id": id, "text": text });
        out.extend_from_slice(line.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

/// The char 5-shingles of a record's text as simfind makes them for these
/// texts (lowercase letters and single spaces: normalisation leaves them).
fn windows(text: &str) -> BTreeSet<&[u8]> {
    text.as_bytes().windows(5).collect()
}

fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> f64 {
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared) as f64
}

/// Every (query, indexed) pair with similarity ≥ t, as `query` writes it:
/// similarity to 6 decimals.
type Rows = BTreeSet<(String, String, String)>;

fn brute_force<S>(items: &[(String, S)], t: f64, sim: impl Fn(&S, &S) -> f64) -> Rows {
    let mut rows = BTreeSet::new();
    for (a, x) in items {
        for (b, y) in items {
            let s = sim(x, y);
            if s >= t {
                rows.insert((a.clone(), b.clone(), format!("{s:.6}")));
            }
        }
    }
    rows
}

fn rows(stdout: &[u8]) -> Rows {
    crate::util::csv_rows(stdout)
        .iter()
        .map(|r| {
            let s = |i: usize| String::from_utf8_lossy(&r[i]).into_owned();
            (s(0), s(1), s(2))
        })
        .collect()
}

/// Runs simfind, expecting exit status `want`.
fn ok(args: &[&std::ffi::OsStr], want: i32) -> std::process::Output {
    let out = run_os(args);
    assert_eq!(code(&out), want, "{args:?}: {}", stderr(&out));
    out
}

fn ids(db: &Path) -> BTreeSet<PathBuf> {
    let index = simfind::index::Index::open_existing(db, Default::default()).unwrap();
    index.verify_integrity().unwrap();
    index.files().unwrap().into_iter().map(|f| f.path).collect()
}

#[test]
fn record_queries_are_the_brute_forces() {
    let dir = tempfile::tempdir().unwrap();
    let records = record_texts();
    let input = write(dir.path(), "records.jsonl", &jsonl(&records));
    let db = dir.path().join("records.simfind");
    let summary = dir.path().join("summary.json");
    ok(
        args![
            "index",
            "--db",
            db,
            "--input",
            "jsonl",
            input,
            "-q",
            "--summary-json",
            summary
        ],
        0,
    );
    assert_eq!(ids(&db).len(), records.len());
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(summary["command"], "index");
    assert_eq!(summary["added"], records.len());
    assert_eq!(summary["documents"], records.len());
    let sets: Vec<(String, BTreeSet<&[u8]>)> = records
        .iter()
        .map(|(id, text)| (id.clone(), windows(text)))
        .collect();
    let sim = |a: &BTreeSet<&[u8]>, b: &BTreeSet<&[u8]>| jaccard(a, b);
    for t in ["0.5", "0.25"] {
        let want = brute_force(&sets, t.parse().unwrap(), sim);
        // Pairs on both sides of the threshold, and not only each record
        // with itself.
        assert!(want.len() > records.len() + 20, "{t}: {}", want.len());
        let out = ok(
            args![
                "query", "--db", db, "--input", "jsonl", input, "--exact", "-t", t, "-q"
            ],
            0,
        );
        assert_eq!(rows(&out.stdout), want, "-t {t}");
    }
    // Without --exact, LSH candidates verified exactly: never a pair the
    // brute force does not have, and at 0.8 every one (those pairs are the
    // 27-word copies at about 0.9, each missed by the index's 20 × 5 bands
    // with probability (1 − 0.9⁵)²⁰ ≈ 2e-8).
    let out = ok(
        args![
            "query", "--db", db, "--input", "jsonl", input, "-t", "0.8", "-q"
        ],
        0,
    );
    assert_eq!(rows(&out.stdout), brute_force(&sets, 0.8, sim));
    // --top 2: each record's two most similar, ties by id.
    let out = ok(
        args![
            "query", "--db", db, "--input", "jsonl", input, "--top", "2", "-t", "0.2", "-q"
        ],
        0,
    );
    let mut want = Rows::new();
    for (a, x) in &sets {
        let mut ranked: Vec<(f64, &String)> = sets
            .iter()
            .map(|(b, y)| (sim(x, y), b))
            .filter(|(s, _)| *s >= 0.2)
            .collect();
        ranked.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(q.1)));
        for (s, b) in ranked.into_iter().take(2) {
            want.insert((a.clone(), b.clone(), format!("{s:.6}")));
        }
    }
    assert_eq!(rows(&out.stdout), want);
}

/// 50 sets of 12 tokens out of 80, and copies of every other one with
/// one, three and six tokens replaced by new ones.
fn token_sets() -> Vec<(String, Vec<String>)> {
    let mut rng = crate::util::SplitMix64(37);
    let mut out = Vec::new();
    let mut fresh = 0;
    for i in 0..50 {
        let mut tokens: Vec<String> = (0..12).map(|_| format!("t{}", rng.next() % 80)).collect();
        tokens.sort();
        tokens.dedup();
        out.push((format!("s{i:02}"), tokens.clone()));
        if i % 2 == 0 {
            for replace in [1usize, 3, 6] {
                let mut copy = tokens.clone();
                for token in copy.iter_mut().take(replace) {
                    fresh += 1;
                    *token = format!("new{fresh}");
                }
                out.push((format!("s{i:02}-{replace}"), copy));
            }
        }
    }
    out
}

#[test]
fn set_queries_are_the_brute_forces() {
    let dir = tempfile::tempdir().unwrap();
    let sets = token_sets();
    let text: String = sets
        .iter()
        .map(|(id, tokens)| format!("{id}\t{}\n", tokens.join(" ")))
        .collect();
    let input = write(dir.path(), "sets.tsv", text.as_bytes());
    let db = dir.path().join("sets.simfind");
    ok(
        args!["index", "--db", db, "--input", "sets", input, "-q"],
        0,
    );
    let held: Vec<(String, BTreeSet<&str>)> = sets
        .iter()
        .map(|(id, tokens)| (id.clone(), tokens.iter().map(String::as_str).collect()))
        .collect();
    let want = brute_force(&held, 0.4, jaccard);
    assert!(want.len() > sets.len() + 20, "{}", want.len());
    let out = ok(
        args![
            "query", "--db", db, "--input", "sets", input, "--exact", "-t", "0.4", "-q"
        ],
        0,
    );
    assert_eq!(rows(&out.stdout), want);
}

#[test]
fn a_record_added_again_under_its_id_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let records = record_texts();
    let input = write(dir.path(), "records.jsonl", &jsonl(&records));
    let db = dir.path().join("records.simfind");
    ok(
        args!["index", "--db", db, "--input", "jsonl", input, "-q"],
        0,
    );
    let changed = vec![("r03".to_string(), letter_words(9999, 30).join(" "))];
    let again = write(dir.path(), "again.jsonl", &jsonl(&changed));
    ok(
        args!["index", "--db", db, "--input", "jsonl", again, "-q"],
        0,
    );
    assert_eq!(ids(&db).len(), records.len());
    // The new text is r03's now; the old one is no longer anything's.
    let out = ok(
        args![
            "query", "--db", db, "--input", "jsonl", again, "--exact", "-t", "0.5", "-q"
        ],
        0,
    );
    assert_eq!(
        rows(&out.stdout),
        Rows::from([("r03".into(), "r03".into(), "1.000000".into())])
    );
    let at = records.iter().position(|(id, _)| id == "r03").unwrap();
    let old = write(dir.path(), "old.jsonl", &jsonl(&records[at..=at]));
    let out = ok(
        args![
            "query", "--db", db, "--input", "jsonl", old, "--exact", "-t", "0.5", "-q"
        ],
        0,
    );
    assert!(
        rows(&out.stdout).is_empty(),
        "{}",
        crate::util::stdout(&out)
    );
    // --remove forgets a record by its id.
    ok(
        args![
            "index", "--db", db, "--input", "jsonl", "--remove", "r03", "-q"
        ],
        0,
    );
    assert!(!ids(&db).contains(Path::new("r03")));
}

#[test]
fn an_item_of_another_kind_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let records = record_texts();
    let input = write(dir.path(), "records.jsonl", &jsonl(&records[..5]));
    let sets = write(dir.path(), "sets.tsv", b"s1\ta b c\n");
    let files = dir.path().join("files");
    let one = write(&files, "one.txt", letter_words(1, 40).join(" ").as_bytes());
    let records_db = dir.path().join("records.simfind");
    let files_db = dir.path().join("files.simfind");
    ok(
        args!["index", "--db", records_db, "--input", "jsonl", input, "-q"],
        0,
    );
    ok(args!["index", files, "--db", files_db, "-q"], 0);
    let export = dir.path().join("export");
    let cases: [(&[&std::ffi::OsStr], &str, &str); 6] = [
        (
            args!["index", "--db", records_db, "--export", export],
            "records",
            "files",
        ),
        (args!["query", "--db", records_db, one], "records", "files"),
        (
            args!["query", "--db", records_db, "--input", "sets", sets],
            "records",
            "sets",
        ),
        (
            args!["query", "--db", files_db, "--input", "jsonl", input],
            "files",
            "records",
        ),
        (
            args!["index", "--db", files_db, "--input", "jsonl", input],
            "files",
            "records",
        ),
        (
            args!["index", files, "--db", records_db],
            "records",
            "files",
        ),
    ];
    for (args, held, given) in cases {
        let out = ok(args, 2);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("holds {held} (MinHash, char 5-shingles"))
                && err.contains(&format!("these items are {given}")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Nothing changed.
    assert_eq!(ids(&records_db).len(), 5);
    assert_eq!(ids(&files_db).len(), 1);
}

fn spawn_stream(db: &Path) -> std::process::Child {
    simfind()
        .args(args![
            "query",
            "--db",
            db,
            "--input",
            "jsonl",
            "--add-if-new",
            "-",
            "-t",
            "0.5",
            "--exact"
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_stream_of_records_names_bad_lines_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("records.simfind");
    let records = record_texts();
    ok(
        args![
            "index",
            "--db",
            db,
            "--input",
            "jsonl",
            write(dir.path(), "a.jsonl", &jsonl(&records[..1])),
            "-q"
        ],
        0,
    );
    let mut stream = jsonl(&records[1..3]);
    stream.extend_from_slice(b"{\"text\": \"no id\"}\nnot json\n");
    stream.extend_from_slice(&jsonl(&records[..1]));
    let out = crate::util::run_in(
        dir.path(),
        &[
            "query",
            "--db",
            "records.simfind",
            "--input",
            "jsonl",
            "--add-if-new",
            "-",
            "-t",
            "0.5",
            "--exact",
        ],
        &stream,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("standard input:3:"), "{err}");
    assert!(err.contains("standard input:4: not JSON"), "{err}");
    let answers: Vec<Vec<String>> = csv::Reader::from_reader(&out.stdout[..])
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let status: Vec<(&str, &str)> = answers
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    // r00-27 is r00's near copy (about 0.9), r00-20 (about 0.65) too:
    // found by the exact lookup, which LSH at 20 × 5 would miss one time
    // in twelve.
    assert_eq!(
        status,
        [
            ("r00-27", "seen"),
            ("r00-20", "seen"),
            ("", "skipped"),
            ("", "skipped"),
            ("r00", "seen"),
        ]
    );
    assert_eq!(answers[0][2], "r00");
    assert_eq!(ids(&db).len(), 1);
}

#[test]
fn a_killed_stream_of_records_keeps_every_record_it_answered_new() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("records.simfind");
    let records = record_texts();
    ok(
        args![
            "index",
            "--db",
            db,
            "--input",
            "jsonl",
            write(dir.path(), "a.jsonl", &jsonl(&records[..1])),
            "-q"
        ],
        0,
    );
    let mut child = spawn_stream(&db);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut header = String::new();
    stdout.read_line(&mut header).unwrap();
    let half = records.len() / 2;
    let mut answered: BTreeMap<String, String> = BTreeMap::new();
    // One record at a time, each answer read before the next is sent;
    // then the rest at once, and the writer killed while it works on them.
    for record in &records[1..half] {
        stdin
            .write_all(&jsonl(std::slice::from_ref(record)))
            .unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let fields: Vec<&str> = line.trim_end().split(',').collect();
        assert_eq!(fields[0], record.0, "{line}");
        answered.insert(fields[0].to_owned(), fields[1].to_owned());
    }
    stdin.write_all(&jsonl(&records[half..])).unwrap();
    stdin.flush().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let held = ids(&db);
    let new: Vec<&String> = answered
        .iter()
        .filter(|(_, status)| *status == "new")
        .map(|(id, _)| id)
        .collect();
    assert!(new.len() >= 10, "{answered:?}");
    for id in new {
        assert!(held.contains(Path::new(id)), "{id}");
    }
    // Nothing half-written: a writer goes on from what it holds.
    let out = crate::util::run_in(
        dir.path(),
        &[
            "query",
            "--db",
            "records.simfind",
            "--input",
            "jsonl",
            "--add-if-new",
            "-",
        ],
        b"",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// A version 4 file (before the item kind) holds files: it is read as an
/// index of files, refuses records, and is upgraded to the current
/// version, its kind recorded as files, by the first run that writes to it.
#[test]
fn an_index_of_format_4_holds_files_and_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    let one = write(&files, "one.txt", letter_words(1, 40).join(" ").as_bytes());
    let db = dir.path().join("files.simfind");
    ok(args!["index", files, "--db", db, "-q"], 0);
    let sql = |batch: &str| {
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(batch)
            .unwrap()
    };
    sql(crate::util::TO_FORMAT_5);
    sql(
        "DELETE FROM params WHERE name = 'item_kind'; PRAGMA user_version = 4; \
         UPDATE params SET value = '4' WHERE name = 'format_version';",
    );
    let state = || -> (i64, Option<String>) {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let version = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        let kind = conn
            .query_row(
                "SELECT value FROM params WHERE name = 'item_kind'",
                [],
                |r| r.get(0),
            )
            .ok();
        (version, kind)
    };
    let out = ok(args!["query", one, "--db", db, "-q"], 0);
    assert_eq!(crate::util::csv_rows(&out.stdout).len(), 1);
    assert_eq!(state(), (4, None), "a lookup does not write");
    let records = write(dir.path(), "r.jsonl", &jsonl(&record_texts()[..2]));
    let out = ok(args!["index", "--db", db, "--input", "jsonl", records], 2);
    assert!(stderr(&out).contains("holds files"), "{}", stderr(&out));
    ok(args!["index", files, "--db", db, "-q"], 0);
    let current = i64::from(simfind::index::FORMAT_VERSION);
    assert_eq!(state(), (current, Some("files".into())));
}

/// 20 random directions in 8 dimensions and three noisy copies of each
/// (noise 0.05, 0.3 and 1.0 per component): cosines near 1, in between,
/// and low.
fn vector_rows() -> Vec<(String, Vec<f32>)> {
    let mut rng = crate::util::SplitMix64(91);
    let mut out = Vec::new();
    for i in 0..20 {
        let centre: Vec<f64> = (0..8).map(|_| rng.gauss()).collect();
        out.push((
            format!("v{i:02}"),
            centre.iter().map(|&x| x as f32).collect(),
        ));
        for (k, noise) in [0.05, 0.3, 1.0].into_iter().enumerate() {
            let row = centre
                .iter()
                .map(|&x| (x + noise * rng.gauss()) as f32)
                .collect();
            out.push((format!("v{i:02}-{k}"), row));
        }
    }
    out
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot = |x: &[f32], y: &[f32]| -> f64 {
        x.iter()
            .zip(y)
            .map(|(p, q)| f64::from(*p) * f64::from(*q))
            .sum()
    };
    dot(a, b) / (dot(a, a).sqrt() * dot(b, b).sqrt())
}

/// The (a, b) pairs of an output and their cosines.
fn cosine_rows(stdout: &[u8]) -> BTreeMap<(String, String), f64> {
    let mut reader = csv::Reader::from_reader(stdout);
    assert_eq!(
        reader.headers().unwrap(),
        vec!["a", "b", "metric", "similarity"]
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(&r[2], "cosine");
            ((r[0].into(), r[1].into()), r[3].parse().unwrap())
        })
        .collect()
}

#[test]
fn vector_queries_are_the_brute_forces() {
    let dir = tempfile::tempdir().unwrap();
    let rows = vector_rows();
    let mut csv = String::from("id,x1,x2,x3,x4,x5,x6,x7,x8\n");
    for (id, row) in &rows {
        let values: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        csv.push_str(&format!("{id},{}\n", values.join(",")));
    }
    let input = write(dir.path(), "vectors.csv", csv.as_bytes());
    let db = dir.path().join("vectors.simfind");
    ok(
        args!["index", "--db", db, "--input", "vectors", input, "-q"],
        0,
    );
    assert_eq!(ids(&db).len(), rows.len());
    let t = 0.8;
    let mut want = BTreeMap::new();
    for (a, x) in &rows {
        for (b, y) in &rows {
            let c = cosine(x, y);
            // The data keep away from T, so that rounding decides alike.
            assert!((c - t).abs() > 1e-6);
            if c >= t {
                want.insert((a.clone(), b.clone()), c);
            }
        }
    }
    assert!(want.len() > rows.len() + 20, "{}", want.len());
    let same = |got: &BTreeMap<(String, String), f64>, want: &BTreeMap<(String, String), f64>| {
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (pair, c) in got {
            assert!(
                (c - want[pair]).abs() < 1e-6,
                "{pair:?}: {c} {}",
                want[pair]
            );
        }
    };
    let out = ok(
        args![
            "query", "--db", db, "--input", "vectors", input, "--exact", "-t", "0.8", "-q"
        ],
        0,
    );
    same(&cosine_rows(&out.stdout), &want);
    // Without --exact: the hyperplane bands' candidates, verified: never a
    // pair the brute force does not have.
    let out = ok(
        args![
            "query", "--db", db, "--input", "vectors", input, "-t", "0.8", "-q"
        ],
        0,
    );
    let banded = cosine_rows(&out.stdout);
    assert!(banded.keys().all(|pair| want.contains_key(pair)));
    // --top 1: each vector's nearest is itself.
    let out = ok(
        args![
            "query", "--db", db, "--input", "vectors", input, "--top", "1", "-q"
        ],
        0,
    );
    let nearest = cosine_rows(&out.stdout);
    assert_eq!(nearest.len(), rows.len());
    assert!(nearest.keys().all(|(a, b)| a == b));
    // Another kind, or another dimension, is refused before any work.
    let records = write(dir.path(), "r.jsonl", &jsonl(&record_texts()[..2]));
    let out = ok(args!["query", "--db", db, "--input", "jsonl", records], 2);
    let err = stderr(&out);
    assert!(
        err.contains("holds vectors (cosine, 100 random hyperplanes")
            && err.contains("these items are records"),
        "{err}"
    );
    let narrow = write(dir.path(), "narrow.csv", b"id,x1,x2\nq,1,0\n");
    let out = ok(args!["query", "--db", db, "--input", "vectors", narrow], 2);
    assert!(
        stderr(&out).contains("holds vectors of 8"),
        "{}",
        stderr(&out)
    );
    // A vector added again under its id replaces it.
    let again = write(
        dir.path(),
        "again.csv",
        b"id,x1,x2,x3,x4,x5,x6,x7,x8\nv00,1,0,0,0,0,0,0,0\n",
    );
    ok(
        args!["index", "--db", db, "--input", "vectors", again, "-q"],
        0,
    );
    assert_eq!(ids(&db).len(), rows.len());
    let out = ok(
        args![
            "query", "--db", db, "--input", "vectors", again, "--top", "1", "-q"
        ],
        0,
    );
    let top = cosine_rows(&out.stdout);
    assert_eq!(top.len(), 1);
    assert_eq!(top[&("v00".to_string(), "v00".to_string())], 1.0);
}

/// A stream of sets (`id<TAB>tokens` a line) against an index of sets:
/// each answer is what brute force gives, in stream order, every set
/// answered `new` counting for the sets after it; a bad line is named
/// and answered `skipped`.
#[test]
fn a_stream_of_sets_answers_as_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let sets = token_sets();
    let line = |(id, tokens): &(String, Vec<String>)| format!("{id}\t{}\n", tokens.join(" "));
    let (indexed, streamed) = sets.split_at(sets.len() / 2);
    let input = write(
        dir.path(),
        "sets.tsv",
        indexed.iter().map(line).collect::<String>().as_bytes(),
    );
    let db = dir.path().join("sets.simfind");
    ok(
        args!["index", "--db", db, "--input", "sets", input, "-q"],
        0,
    );
    let t = 0.4;
    let mut stdin: String = streamed.iter().map(line).collect();
    stdin.push_str("no tab here\n");
    let out = crate::util::run_in(
        dir.path(),
        &[
            "query",
            "--db",
            "sets.simfind",
            "--input",
            "sets",
            "--add-if-new",
            "-",
            "-t",
            "0.4",
            "--exact",
        ],
        stdin.as_bytes(),
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    let bad = streamed.len() + 1;
    assert!(
        err.contains(&format!("standard input:{bad}: no TAB after the id")),
        "{err}"
    );
    let answers: Vec<Vec<String>> = csv::Reader::from_reader(&out.stdout[..])
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    // Brute force, in order: the indexed sets, then each set answered new.
    let set = |tokens: &[String]| tokens.iter().cloned().collect::<BTreeSet<String>>();
    let mut held: Vec<(String, BTreeSet<String>)> = indexed
        .iter()
        .map(|(id, tokens)| (id.clone(), set(tokens)))
        .collect();
    let mut want = Vec::new();
    let (mut new, mut seen) = (0, 0);
    for (id, tokens) in streamed {
        let mine = set(tokens);
        let mut matches: Vec<(f64, &str)> = held
            .iter()
            .map(|(other, theirs)| (jaccard(&mine, theirs), other.as_str()))
            .filter(|(s, _)| *s >= t)
            .collect();
        // Most similar first, ties by id.
        matches.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        match matches.first() {
            Some(&(s, nearest)) => {
                seen += 1;
                want.push(vec![
                    id.clone(),
                    "seen".into(),
                    nearest.to_owned(),
                    format!("{s:.6}"),
                    matches.len().to_string(),
                ]);
            }
            None => {
                new += 1;
                want.push(vec![
                    id.clone(),
                    "new".into(),
                    String::new(),
                    String::new(),
                    "0".into(),
                ]);
                held.push((id.clone(), mine));
            }
        }
    }
    want.push(vec![
        String::new(),
        "skipped".into(),
        String::new(),
        String::new(),
        String::new(),
    ]);
    assert!(new > 5 && seen > 5, "{new} new, {seen} seen");
    assert_eq!(answers, want);
    assert_eq!(ids(&db).len(), indexed.len() + new);
    // Replayed, every set answered new is seen now: itself, at 1.
    let replay: String = streamed
        .iter()
        .filter(|(id, _)| want.iter().any(|row| &row[0] == id && row[1] == "new"))
        .map(line)
        .collect();
    let out = crate::util::run_in(
        dir.path(),
        &[
            "query",
            "--db",
            "sets.simfind",
            "--input",
            "sets",
            "--add-if-new",
            "-",
            "-q",
        ],
        replay.as_bytes(),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let again: Vec<csv::StringRecord> = csv::Reader::from_reader(&out.stdout[..])
        .records()
        .map(Result::unwrap)
        .collect();
    assert_eq!(again.len(), new);
    for row in &again {
        assert_eq!((&row[1], &row[2], &row[3]), ("seen", &row[0], "1.000000"));
    }
    // Pairs are a file's grouping, not a stream's.
    let out = crate::util::run_in(
        dir.path(),
        &[
            "query",
            "--db",
            "sets.simfind",
            "--input",
            "sets",
            "--pairs",
            "--add-if-new",
            "-",
        ],
        b"",
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--pairs does not apply"),
        "{}",
        stderr(&out)
    );
}

/// A stream of vectors (`id,x1,…,xd` a line) against an index of
/// vectors: each answer is what brute force by cosine gives, in stream
/// order, every vector answered `new` counting for those after it; a line
/// of another dimension is named and answered `skipped`.
#[test]
fn a_stream_of_vectors_answers_as_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let rows = vector_rows();
    let line = |(id, row): &(String, Vec<f32>)| {
        let values: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        format!("{id},{}\n", values.join(","))
    };
    let (indexed, streamed) = rows.split_at(rows.len() / 2);
    let mut csv = String::from("id,x1,x2,x3,x4,x5,x6,x7,x8\n");
    csv.extend(indexed.iter().map(line));
    let input = write(dir.path(), "vectors.csv", csv.as_bytes());
    let db = dir.path().join("vectors.simfind");
    ok(
        args!["index", "--db", db, "--input", "vectors", input, "-q"],
        0,
    );
    let t = 0.8;
    let mut stdin: String = streamed.iter().map(line).collect();
    stdin.push_str("short,1,2,3\n");
    let out = crate::util::run_in(
        dir.path(),
        &[
            "query",
            "--db",
            "vectors.simfind",
            "--input",
            "vectors",
            "--add-if-new",
            "-",
            "-t",
            "0.8",
            "--exact",
        ],
        stdin.as_bytes(),
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    let bad = streamed.len() + 1;
    assert!(
        err.contains(&format!(
            "line {bad}: 3 components, the index holds vectors of 8"
        )),
        "{err}"
    );
    let answers: Vec<csv::StringRecord> = csv::Reader::from_reader(&out.stdout[..])
        .records()
        .map(Result::unwrap)
        .collect();
    assert_eq!(answers.len(), streamed.len() + 1);
    assert_eq!(&answers[streamed.len()][1], "skipped");
    // Brute force, in order: the indexed vectors, then each answered new.
    let mut held: Vec<&(String, Vec<f32>)> = indexed.iter().collect();
    let (mut new, mut seen) = (0, 0);
    for (item, got) in streamed.iter().zip(&answers) {
        let mut matches: Vec<(f64, &str)> = held
            .iter()
            .map(|(other, theirs)| (cosine(&item.1, theirs), other.as_str()))
            .inspect(|(c, _)| assert!((c - t).abs() > 1e-6, "too close to T to decide alike"))
            .filter(|(c, _)| *c >= t)
            .collect();
        matches.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        assert_eq!(&got[0], item.0.as_str());
        match matches.first() {
            Some(&(c, nearest)) => {
                seen += 1;
                assert_eq!((&got[1], &got[2]), ("seen", nearest), "{item:?}");
                let printed: f64 = got[3].parse().unwrap();
                assert!((printed - c).abs() < 1e-5, "{printed} {c}");
                assert_eq!(got[4], matches.len().to_string());
            }
            None => {
                new += 1;
                assert_eq!((&got[1], &got[2], &got[4]), ("new", "", "0"), "{item:?}");
                held.push(item);
            }
        }
    }
    assert!(new > 5 && seen > 5, "{new} new, {seen} seen");
    assert_eq!(ids(&db).len(), indexed.len() + new);
}

/// `scan --db I --input KIND FILE`, run three times (a new index, the same
/// input again, `changed`), each time against `scan --input KIND` of the
/// same input without an index: the same bytes out; and the index's
/// counts in `--summary-json` (`index`, and `signatures`: what this run
/// signed).
fn scan_db_matches_the_plain_scan(
    kind: &str,
    (first, changed): (&[u8], &[u8]),
) -> [serde_json::Value; 3] {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("items.simfind");
    let mut counts = Vec::new();
    for (run, bytes) in [first, first, changed].into_iter().enumerate() {
        let input = write(dir.path(), &format!("items-{run}"), bytes);
        let summary = dir.path().join(format!("summary-{run}.json"));
        let plain = ok(args!["scan", "--input", kind, input, "-t", "0.5", "-q"], 0);
        let indexed = ok(
            args![
                "scan",
                "--input",
                kind,
                input,
                "-t",
                "0.5",
                "--db",
                db,
                "--summary-json",
                summary
            ],
            0,
        );
        assert!(
            crate::util::csv_rows(&plain.stdout).len() > 10,
            "run {run}: the input has pairs"
        );
        assert_eq!(
            crate::util::stdout(&indexed),
            crate::util::stdout(&plain),
            "run {run}: {}",
            stderr(&indexed)
        );
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
        // The stderr line says the same as the summary.
        let index = &summary["index"];
        let line = format!(
            "{} unchanged (not signed), {} signed; index: {} added, {} changed, {} removed",
            index["unchanged"], index["signed"], index["added"], index["changed"], index["removed"]
        );
        assert!(stderr(&indexed).contains(&line), "{}", stderr(&indexed));
        assert_eq!(summary["signatures"], index["signed"], "{summary}");
        counts.push(index.clone());
    }
    counts.try_into().unwrap()
}

fn counts(
    unchanged: u64,
    signed: u64,
    added: u64,
    changed: u64,
    removed: u64,
) -> serde_json::Value {
    serde_json::json!({
        "unchanged": unchanged, "signed": signed, "added": added,
        "changed": changed, "removed": removed,
    })
}

#[test]
fn scan_db_of_records_reuses_and_refreshes_the_index() {
    let records = record_texts();
    let n = records.len() as u64;
    // One record changed, one gone, one new.
    let mut changed = records.clone();
    changed[3].1 = letter_words(9999, 30).join(" ");
    changed.remove(7);
    changed.push(("fresh".into(), records[0].1.clone()));
    let [first, again, refreshed] =
        scan_db_matches_the_plain_scan("jsonl", (&jsonl(&records), &jsonl(&changed)));
    assert_eq!(first, counts(0, n, n, 0, 0));
    assert_eq!(again, counts(n, 0, 0, 0, 0));
    assert_eq!(refreshed, counts(n - 2, 2, 1, 1, 1));
}

#[test]
fn scan_db_of_csv_rows_keeps_the_tables_shingles() {
    // CSV takes char 2-shingles in a new index, as its scan does; later
    // runs take the index's.
    let table = |records: &[(String, String)]| {
        let mut out = b"id,name\n".to_vec();
        for (id, text) in records {
            out.extend_from_slice(format!("{id},{}\n", &text[..text.len().min(40)]).as_bytes());
        }
        out
    };
    let records = record_texts();
    let n = records.len() as u64;
    let [first, again, _] =
        scan_db_matches_the_plain_scan("csv", (&table(&records), &table(&records[1..])));
    assert_eq!(first, counts(0, n, n, 0, 0));
    assert_eq!(again, counts(n, 0, 0, 0, 0));
}

#[test]
fn scan_db_of_sets_reuses_and_refreshes_the_index() {
    let sets = token_sets();
    let n = sets.len() as u64;
    let tsv = |sets: &[(String, Vec<String>)]| -> Vec<u8> {
        sets.iter()
            .map(|(id, tokens)| format!("{id}\t{}\n", tokens.join(" ")))
            .collect::<String>()
            .into_bytes()
    };
    let mut changed = sets.clone();
    changed[0].1.push("another".into());
    let [first, again, refreshed] =
        scan_db_matches_the_plain_scan("sets", (&tsv(&sets), &tsv(&changed)));
    assert_eq!(first, counts(0, n, n, 0, 0));
    assert_eq!(again, counts(n, 0, 0, 0, 0));
    assert_eq!(refreshed, counts(n - 1, 1, 0, 1, 0));
}

#[test]
fn scan_db_refuses_an_index_of_another_kind_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let records = record_texts();
    let input = write(dir.path(), "records.jsonl", &jsonl(&records[..5]));
    let sets = write(dir.path(), "sets.tsv", b"s1\ta b c\n");
    let files = dir.path().join("files");
    write(&files, "one.txt", letter_words(1, 40).join(" ").as_bytes());
    let records_db = dir.path().join("records.simfind");
    let files_db = dir.path().join("files.simfind");
    ok(
        args!["scan", "--db", records_db, "--input", "jsonl", input, "-q"],
        0,
    );
    ok(args!["index", files, "--db", files_db, "-q"], 0);
    let cases: [(&[&std::ffi::OsStr], &str, &str); 3] = [
        (
            args!["scan", "--db", records_db, "--input", "sets", sets],
            "records",
            "sets",
        ),
        (args!["scan", files, "--db", records_db], "records", "files"),
        (
            args!["scan", "--db", files_db, "--input", "jsonl", input],
            "files",
            "records",
        ),
    ];
    for (args, held, given) in cases {
        let out = ok(args, 2);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("holds {held} (MinHash, char 5-shingles"))
                && err.contains(&format!("these items are {given}")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(ids(&records_db).len(), 5);
    assert_eq!(ids(&files_db).len(), 1);
    // What an index of whole records cannot serve is refused before any work.
    for flag in ["--per-field", "--important-words"] {
        let mut given = args!["scan", "--db", records_db, "--input", "jsonl", input].to_vec();
        given.push(std::ffi::OsStr::new(flag));
        if flag == "--important-words" {
            given.push(std::ffi::OsStr::new("5"));
        }
        let out = ok(&given, 2);
        assert!(
            stderr(&out).contains("does not apply to scan --db"),
            "{flag}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn scan_db_of_vectors_reuses_and_refreshes_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("vectors.simfind");
    let table = |rows: &[(String, Vec<f32>)]| {
        let mut csv = String::from("id,x1,x2,x3,x4,x5,x6,x7,x8\n");
        for (id, row) in rows {
            let values: Vec<String> = row.iter().map(|v| v.to_string()).collect();
            csv.push_str(&format!("{id},{}\n", values.join(",")));
        }
        csv.into_bytes()
    };
    let rows = vector_rows();
    let n = rows.len() as u64;
    // One vector changed, one gone, one new.
    let mut changed = rows.clone();
    changed[5].1[0] += 1.0;
    changed.remove(9);
    changed.push(("fresh".into(), rows[0].1.clone()));
    let mut signed = Vec::new();
    for (run, bytes) in [table(&rows), table(&rows), table(&changed)]
        .into_iter()
        .enumerate()
    {
        let input = write(dir.path(), &format!("vectors-{run}.csv"), &bytes);
        let summary = dir.path().join(format!("summary-{run}.json"));
        // The index's hyperplanes: 20 × 5 from seed 42 unless given.
        let plain = ok(
            args![
                "scan", "--input", "vectors", input, "-t", "0.9", "--method", "lsh", "--bands",
                "20", "--rows", "5", "--seed", "42", "-q"
            ],
            0,
        );
        let indexed = ok(
            args![
                "scan",
                "--input",
                "vectors",
                input,
                "-t",
                "0.9",
                "--db",
                db,
                "--summary-json",
                summary
            ],
            0,
        );
        let found = cosine_rows(&indexed.stdout);
        assert!(found.len() > 15, "run {run}: {}", found.len());
        assert_eq!(
            crate::util::stdout(&indexed),
            crate::util::stdout(&plain),
            "run {run}"
        );
        // Every pair is a true one, its cosine exact.
        let by_id: BTreeMap<&str, &[f32]> = [&rows, &changed][usize::from(run == 2)]
            .iter()
            .map(|(id, row)| (id.as_str(), row.as_slice()))
            .collect();
        for ((a, b), c) in &found {
            let want = cosine(by_id[a.as_str()], by_id[b.as_str()]);
            assert!(
                want >= 0.9 - 1e-6 && (c - want).abs() < 1e-5,
                "{a} {b}: {c} {want}"
            );
        }
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
        signed.push(summary["signed"].as_u64().unwrap());
        assert!(stderr(&indexed).contains(&format!(
            "{} unchanged (not signed), {} signed",
            summary["documents"].as_u64().unwrap() - signed[run],
            signed[run]
        )));
    }
    assert_eq!(signed, [n, 0, 2]);
    assert_eq!(ids(&db).len(), changed.len());
    // The index serves `query` as one made by `index --input vectors`.
    let out = ok(
        args![
            "query",
            "--db",
            db,
            "--input",
            "vectors",
            dir.path().join("vectors-2.csv"),
            "--exact",
            "-t",
            "0.9",
            "-q"
        ],
        0,
    );
    assert!(cosine_rows(&out.stdout).contains_key(&("fresh".to_string(), "v00".to_string())));
    // Another metric, --method exact and an index of records are refused.
    let input = dir.path().join("vectors-0.csv");
    for (extra, says) in [
        (
            &["--metric", "euclidean", "--radius", "1"][..],
            "--metric euclidean",
        ),
        (&["--method", "exact"][..], "only the LSH method"),
    ] {
        let mut given =
            args!["scan", "--input", "vectors", input, "--db", db, "-t", "0.9"].to_vec();
        given.extend(extra.iter().map(std::ffi::OsStr::new));
        let out = ok(&given, 2);
        assert!(stderr(&out).contains(says), "{extra:?}: {}", stderr(&out));
    }
    let records_db = dir.path().join("records.simfind");
    let records = write(dir.path(), "r.jsonl", &jsonl(&record_texts()[..3]));
    ok(
        args![
            "index", "--db", records_db, "--input", "jsonl", records, "-q"
        ],
        0,
    );
    let out = ok(
        args![
            "scan", "--input", "vectors", input, "--db", records_db, "-t", "0.9"
        ],
        2,
    );
    assert!(
        stderr(&out).contains("holds records") && stderr(&out).contains("these items are vectors"),
        "{}",
        stderr(&out)
    );
}

/// 24 strings of 100 bits and copies of each with 1, 4 and 20 bits flipped,
/// as `id,0101…` lines (first character = bit 0).
fn bit_rows() -> Vec<(String, Vec<bool>)> {
    let mut rng = crate::util::SplitMix64(53);
    let mut out = Vec::new();
    for i in 0..24 {
        let bits: Vec<bool> = (0..100).map(|_| rng.next() % 2 == 1).collect();
        out.push((format!("b{i:02}"), bits.clone()));
        for flips in [1usize, 4, 20] {
            let mut copy = bits.clone();
            for _ in 0..flips {
                // Distinct positions: a flip flipped back would shorten it.
                loop {
                    let at = (rng.next() % 100) as usize;
                    if copy[at] == bits[at] {
                        copy[at] = !copy[at];
                        break;
                    }
                }
            }
            out.push((format!("b{i:02}-{flips}"), copy));
        }
    }
    out
}

fn bits_file(rows: &[(String, Vec<bool>)]) -> Vec<u8> {
    rows.iter()
        .map(|(id, bits)| {
            let s: String = bits.iter().map(|&b| if b { '1' } else { '0' }).collect();
            format!("{id},{s}\n")
        })
        .collect::<String>()
        .into_bytes()
}

fn hamming(a: &[bool], b: &[bool]) -> u32 {
    a.iter().zip(b).filter(|(x, y)| x != y).count() as u32
}

/// The (a, b, distance) rows of a `query --input bits` output.
fn distance_rows(stdout: &[u8]) -> BTreeSet<(String, String, u32)> {
    let mut reader = csv::Reader::from_reader(stdout);
    assert_eq!(
        reader.headers().unwrap(),
        vec!["a", "b", "metric", "distance"]
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(&r[2], "hamming");
            (r[0].into(), r[1].into(), r[3].parse().unwrap())
        })
        .collect()
}

#[test]
fn bit_string_queries_are_the_brute_forces() {
    let dir = tempfile::tempdir().unwrap();
    let rows = bit_rows();
    let input = write(dir.path(), "bits.csv", &bits_file(&rows));
    let db = dir.path().join("bits.simfind");
    let summary = dir.path().join("summary.json");
    ok(
        args![
            "index",
            "--db",
            db,
            "--input",
            "bits",
            input,
            "-q",
            "--summary-json",
            summary
        ],
        0,
    );
    assert_eq!(ids(&db).len(), rows.len());
    let brute = |radius: u32| -> BTreeSet<(String, String, u32)> {
        let mut want = BTreeSet::new();
        for (a, x) in &rows {
            for (b, y) in &rows {
                let d = hamming(x, y);
                if d <= radius {
                    want.insert((a.clone(), b.clone(), d));
                }
            }
        }
        want
    };
    // --exact compares every stored string: the brute force's rows.
    for radius in ["0", "4", "20"] {
        let out = ok(
            args![
                "query", "--db", db, "--input", "bits", input, "--radius", radius, "--exact", "-q"
            ],
            0,
        );
        let want = brute(radius.parse().unwrap());
        assert!(want.len() >= rows.len(), "{radius}");
        assert_eq!(distance_rows(&out.stdout), want, "--radius {radius}");
    }
    // Through the bands (20 × 5 sampled bits): every row a true one, and
    // the pairs 1 bit apart (each found unless all 20 bands miss it:
    // probability (1 − 0.99^5)^20 < 10⁻²⁸) all there.
    let out = ok(
        args![
            "query", "--db", db, "--input", "bits", input, "--radius", "4", "-q"
        ],
        0,
    );
    let found = distance_rows(&out.stdout);
    let want = brute(4);
    assert!(found.is_subset(&want));
    for row in want.iter().filter(|(_, _, d)| *d <= 1) {
        assert!(found.contains(row), "{row:?}");
    }
    // --top K: the K nearest by exact distance, ties by id.
    let out = ok(
        args![
            "query", "--db", db, "--input", "bits", input, "--top", "3", "-q"
        ],
        0,
    );
    let got = distance_rows(&out.stdout);
    for (a, x) in &rows {
        let mut ranked: Vec<(u32, &String)> =
            rows.iter().map(|(b, y)| (hamming(x, y), b)).collect();
        ranked.sort();
        let want: BTreeSet<(String, String, u32)> = ranked[..3]
            .iter()
            .map(|(d, b)| (a.clone(), (*b).clone(), *d))
            .collect();
        let mine: BTreeSet<(String, String, u32)> =
            got.iter().filter(|(q, _, _)| q == a).cloned().collect();
        assert_eq!(mine, want, "{a}");
    }
    // Another length, -t, and an index of another kind are refused.
    let short = write(dir.path(), "short.csv", b"x,0101\n");
    let out = ok(
        args![
            "query", "--db", db, "--input", "bits", short, "--radius", "1"
        ],
        2,
    );
    assert!(
        stderr(&out).contains("bit strings of 4 bits"),
        "{}",
        stderr(&out)
    );
    let out = ok(
        args!["query", "--db", db, "--input", "bits", input, "-t", "0.5"],
        2,
    );
    assert!(stderr(&out).contains("give --radius"), "{}", stderr(&out));
    let records = write(dir.path(), "r.jsonl", &jsonl(&record_texts()[..3]));
    let out = ok(args!["query", "--db", db, "--input", "jsonl", records], 2);
    assert!(
        stderr(&out).contains("holds bits (Hamming")
            && stderr(&out).contains("these items are records"),
        "{}",
        stderr(&out)
    );
    // Re-indexing an id replaces it; --remove forgets it.
    ok(
        args![
            "index", "--db", db, "--input", "bits", "--remove", "b00", "-q"
        ],
        0,
    );
    assert!(!ids(&db).contains(Path::new("b00")));
}

#[test]
fn a_stream_of_bit_strings_answers_as_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let rows = bit_rows();
    // Every other original indexed with its copies; the others streamed.
    let (indexed, streamed): (Vec<_>, Vec<_>) = rows
        .iter()
        .partition(|(id, _)| id[1..3].parse::<u32>().unwrap() % 2 == 0);
    let owned = |rows: &[&(String, Vec<bool>)]| -> Vec<(String, Vec<bool>)> {
        rows.iter().map(|r| (*r).clone()).collect()
    };
    let input = write(dir.path(), "bits.csv", &bits_file(&owned(&indexed)));
    let db = dir.path().join("bits.simfind");
    ok(
        args!["index", "--db", db, "--input", "bits", input, "-q"],
        0,
    );
    let radius = 6;
    let mut stdin = String::from_utf8(bits_file(&owned(&streamed))).unwrap();
    stdin.push_str("short,0101\n");
    let out = crate::util::run_in(
        dir.path(),
        &[
            "query",
            "--db",
            "bits.simfind",
            "--input",
            "bits",
            "--add-if-new",
            "-",
            "--radius",
            "6",
            "--exact",
        ],
        stdin.as_bytes(),
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    let bad = streamed.len() + 1;
    assert!(
        err.contains(&format!(
            "line {bad}: 4 bits, the index holds strings of 100"
        )),
        "{err}"
    );
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    assert_eq!(
        reader.headers().unwrap(),
        vec!["item", "status", "nearest", "distance", "matches"],
        "a distance in bits is named a distance"
    );
    let answers: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(answers.len(), streamed.len() + 1);
    assert_eq!(&answers[streamed.len()][1], "skipped");
    // Brute force, in order: the indexed strings, then each answered new.
    let mut held: Vec<&(String, Vec<bool>)> = indexed.clone();
    let (mut new, mut seen) = (0, 0);
    for (item, got) in streamed.iter().zip(&answers) {
        let mut matches: Vec<(u32, &str)> = held
            .iter()
            .map(|(other, theirs)| (hamming(&item.1, theirs), other.as_str()))
            .filter(|(d, _)| *d <= radius)
            .collect();
        matches.sort();
        assert_eq!(&got[0], item.0.as_str());
        match matches.first() {
            Some(&(d, nearest)) => {
                seen += 1;
                assert_eq!((&got[1], &got[2]), ("seen", nearest), "{item:?}");
                assert_eq!(got[3], d.to_string());
                assert_eq!(got[4], matches.len().to_string());
            }
            None => {
                new += 1;
                assert_eq!((&got[1], &got[2], &got[4]), ("new", "", "0"), "{item:?}");
                held.push(item);
            }
        }
    }
    assert!(new > 5 && seen > 5, "{new} new, {seen} seen");
    assert_eq!(ids(&db).len(), indexed.len() + new);
}

/// `scan --db I --input bits`: the index of bit strings is made, reused
/// (strings unchanged are not signed again) and refreshed by the one
/// refresh of items, and every run writes the bytes of a scan without
/// `--db` with the index's banding and seed.
#[test]
fn scan_db_of_bit_strings_reuses_and_refreshes_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bits.simfind");
    let rows = bit_rows();
    let n = rows.len() as u64;
    // One string changed, one gone, one new.
    let mut changed = rows.clone();
    changed[5].1[0] = !changed[5].1[0];
    changed.remove(9);
    changed.push(("fresh".into(), rows[0].1.clone()));
    let mut signed = Vec::new();
    for (run, table) in [&rows, &rows, &changed].into_iter().enumerate() {
        let input = write(dir.path(), &format!("bits-{run}.csv"), &bits_file(table));
        let summary = dir.path().join(format!("summary-{run}.json"));
        let plain = ok(
            args![
                "scan", "--input", "bits", input, "--radius", "6", "--method", "lsh", "--bands",
                "20", "--rows", "5", "--seed", "42", "-q"
            ],
            0,
        );
        let indexed = ok(
            args![
                "scan",
                "--input",
                "bits",
                input,
                "--radius",
                "6",
                "--db",
                db,
                "--summary-json",
                summary
            ],
            0,
        );
        assert_eq!(
            crate::util::stdout(&indexed),
            crate::util::stdout(&plain),
            "run {run}"
        );
        // Every pair within the radius, at its exact distance.
        let by_id: BTreeMap<&str, &[bool]> = table
            .iter()
            .map(|(id, bits)| (id.as_str(), bits.as_slice()))
            .collect();
        let found = scan_distance_rows(&indexed.stdout);
        assert!(found.len() >= 24, "run {run}: {}", found.len());
        for (a, b, d) in &found {
            assert_eq!(hamming(by_id[a.as_str()], by_id[b.as_str()]), *d, "{a} {b}");
            assert!(*d <= 6);
        }
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
        signed.push(summary["signed"].as_u64().unwrap());
        assert!(
            stderr(&indexed).contains(&format!(
                "{} bit strings: {} unchanged (not signed), {} signed",
                table.len(),
                table.len() as u64 - signed[run],
                signed[run]
            )),
            "{}",
            stderr(&indexed)
        );
    }
    assert_eq!(signed, [n, 0, 2]);
    assert_eq!(ids(&db).len(), changed.len());
    // --method exact is refused: the index keeps signatures only LSH uses.
    let input = dir.path().join("bits-0.csv");
    let out = ok(
        args![
            "scan", "--input", "bits", input, "--radius", "6", "--db", db, "--method", "exact"
        ],
        2,
    );
    assert!(
        stderr(&out).contains("sampled-bit signatures, which only the LSH method uses"),
        "{}",
        stderr(&out)
    );
}

/// The (a, b, distance) rows of a `scan --input bits` output.
fn scan_distance_rows(stdout: &[u8]) -> Vec<(String, String, u32)> {
    let mut reader = csv::Reader::from_reader(stdout);
    assert_eq!(
        reader.headers().unwrap(),
        vec!["a", "b", "metric", "distance"]
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].into(), r[1].into(), r[3].parse().unwrap())
        })
        .collect()
}
