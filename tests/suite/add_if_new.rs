//! `query --db I --add-if-new -` (issue 37, streaming dedup): on a generated
//! stream with planted near-copies, the answers are a brute force's (the
//! exact scan's similarities, replayed greedily in stream order); two
//! concurrent writers fed the same items never both add a pair of near
//! copies; a stream killed half-way has added every item it answered `new`,
//! and the index passes its integrity check.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use crate::util::{args, letter_words, run_os, simfind, stderr, write};

const T: f64 = 0.6;

/// The stream: 60 texts of their own words, and cut copies of 20 of them:
/// the first 110 of the 120 words (Jaccard about 0.9 with the original),
/// the first 90 (about 0.75) and the first 40 (about 0.33, and about 0.44
/// with the 90-word copy): pairs on both sides of T, far from it. In a fixed
/// interleaving, so that a copy may come before or after its original.
fn corpus(dir: &Path) -> Vec<PathBuf> {
    let mut items = Vec::new();
    for i in 0..60u64 {
        let words = letter_words(1000 + i, 120);
        items.push(write(
            dir,
            &format!("o{i:02}.txt"),
            words.join(" ").as_bytes(),
        ));
        if i % 3 == 0 {
            for keep in [110usize, 90, 40] {
                items.push(write(
                    dir,
                    &format!("c{i:02}-{keep}.txt"),
                    words[..keep].join(" ").as_bytes(),
                ));
            }
        }
    }
    // A fixed interleaving: a stride through the list (coprime with its
    // length), so copies come before and after their originals.
    let n = items.len();
    let stride = (1..n)
        .rev()
        .find(|s| gcd(*s, n) == 1 && *s < n / 2)
        .unwrap();
    (0..n).map(|k| items[(k * stride) % n].clone()).collect()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Every pair's exact Jaccard similarity above 0.05, from the exact scan.
fn similarities(dir: &Path) -> BTreeMap<(PathBuf, PathBuf), f64> {
    let out = run_os(args!["scan", dir, "--method", "exact", "-t", "0.05", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut pairs = BTreeMap::new();
    for row in crate::util::csv_rows(&out.stdout) {
        let path = |i: usize| PathBuf::from(String::from_utf8_lossy(&row[i]).into_owned());
        let s: f64 = String::from_utf8_lossy(&row[2]).parse().unwrap();
        pairs.insert((path(0), path(1)), s);
        pairs.insert((path(1), path(0)), s);
    }
    // The data keep away from T, so that 6 decimals decide alike.
    assert!(pairs.values().all(|s| (s - T).abs() > 0.01));
    assert!(pairs.values().filter(|s| **s >= T).count() >= 20);
    assert!(pairs.values().filter(|s| **s < T && **s > 0.2).count() >= 10);
    pairs
}

/// One answer: (item, status, nearest, similarity).
type Answer = (String, String, String, String);

fn answers(stdout: &[u8]) -> Vec<Answer> {
    let mut reader = csv::ReaderBuilder::new().from_reader(stdout);
    assert_eq!(
        reader.headers().unwrap(),
        vec!["item", "status", "nearest", "similarity", "matches"]
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].into(), r[1].into(), r[2].into(), r[3].into())
        })
        .collect()
}

/// The brute force: items in order, each new unless an item added before
/// it has similarity ≥ T; the nearest is the most similar added (ties by
/// path bytes).
fn brute_force(items: &[PathBuf], sim: &BTreeMap<(PathBuf, PathBuf), f64>) -> Vec<Answer> {
    let mut added: Vec<&PathBuf> = Vec::new();
    let mut out = Vec::new();
    for item in items {
        let best = added
            .iter()
            .filter_map(|a| sim.get(&(item.clone(), (*a).clone())).map(|s| (*s, *a)))
            .filter(|(s, _)| *s >= T)
            .min_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
        let name = item.display().to_string();
        match best {
            Some((s, a)) => out.push((
                name,
                "seen".into(),
                a.display().to_string(),
                format!("{s:.6}"),
            )),
            None => {
                added.push(item);
                out.push((name, "new".into(), String::new(), String::new()));
            }
        }
    }
    out
}

fn new_index(dir: &Path) -> PathBuf {
    let db = dir.join("i.simfind");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = run_os(args!["index", empty, "--db", db, "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    db
}

fn spawn(db: &Path, extra: &[&str]) -> Child {
    simfind()
        .args(args![
            "query",
            "--db",
            db,
            "--add-if-new",
            "-",
            "--exact",
            "-t",
            T.to_string()
        ])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The paths the index holds, after its integrity check.
fn indexed(db: &Path) -> BTreeSet<PathBuf> {
    let index = simfind::index::Index::open_existing(db, Default::default()).unwrap();
    index.verify_integrity().unwrap();
    index
        .documents()
        .unwrap()
        .into_iter()
        .map(|d| d.path)
        .collect()
}

#[test]
fn answers_are_the_brute_forces() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    let items = corpus(&docs);
    let sim = similarities(&docs);
    let db = new_index(dir.path());
    let mut child = spawn(&db, &[]);
    let mut input = Vec::new();
    for item in &items {
        input.extend_from_slice(item.as_os_str().as_encoded_bytes());
        input.push(b'\n');
    }
    // A blank line and a missing file: named, and the stream goes on.
    input.extend_from_slice(b"\n");
    let missing = docs.join("missing.txt");
    input.extend_from_slice(missing.as_os_str().as_encoded_bytes());
    input.push(b'\n');
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("missing.txt"), "{err}");
    let mut got = answers(&out.stdout);
    let last = got.pop().unwrap();
    assert_eq!(
        (last.0.as_str(), last.1.as_str()),
        (missing.to_str().unwrap(), "skipped")
    );
    let expected = brute_force(&items, &sim);
    assert_eq!(got, expected);
    let new: BTreeSet<PathBuf> = expected
        .iter()
        .filter(|a| a.1 == "new")
        .map(|a| PathBuf::from(&a.0))
        .collect();
    assert!(new.len() < items.len() && expected.iter().filter(|a| a.1 == "seen").count() >= 20);
    assert_eq!(indexed(&db), new);

    // NUL-separated, against the same index: every item is now seen (its
    // own file, or what it matched before).
    let mut child = spawn(&db, &["-0"]);
    let mut input = Vec::new();
    for item in &items {
        input.extend_from_slice(item.as_os_str().as_encoded_bytes());
        input.push(0);
    }
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let again = answers(&out.stdout);
    assert_eq!(again.len(), items.len());
    assert!(again.iter().all(|a| a.1 == "seen"), "{again:?}");
    assert_eq!(indexed(&db), new);
}

/// Feeds the two writers in lockstep: item k to each (`a[k]`, `b[k]`),
/// then both answers awaited before item k + 1, so that the two decide
/// their k-th items at the same moment. Returns both outputs.
fn lockstep(db: &Path, a: &[PathBuf], b: &[PathBuf]) -> (Vec<u8>, Vec<u8>) {
    let mut children = [spawn(db, &[]), spawn(db, &[])];
    let mut ends: Vec<_> = children
        .iter_mut()
        .map(|c| {
            (
                c.stdin.take().unwrap(),
                BufReader::new(c.stdout.take().unwrap()),
            )
        })
        .collect();
    let mut outs = [String::new(), String::new()];
    for (end, out) in ends.iter_mut().zip(&mut outs) {
        end.1.read_line(out).unwrap();
    }
    for (x, y) in a.iter().zip(b) {
        for (end, item) in ends.iter_mut().zip([x, y]) {
            end.0
                .write_all(item.as_os_str().as_encoded_bytes())
                .unwrap();
            end.0.write_all(b"\n").unwrap();
            end.0.flush().unwrap();
        }
        for (end, out) in ends.iter_mut().zip(&mut outs) {
            end.1.read_line(out).unwrap();
        }
    }
    drop(ends);
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let [a, b] = outs;
    (a.into_bytes(), b.into_bytes())
}

#[test]
fn two_writers_never_both_add_near_copies() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    let items = corpus(&docs);
    let sim = similarities(&docs);
    let db = new_index(dir.path());
    // The same items, the second writer given each one's near copy (or
    // original) where the first is given it: the two meet at the same
    // moment, in each other's writer, again and again.
    let partner = |p: &PathBuf| -> PathBuf {
        let name = p.file_name().unwrap().to_str().unwrap();
        let other = match (name.strip_prefix('o'), name.strip_suffix("-110.txt")) {
            (Some(rest), _) => format!("c{}", rest.replace(".txt", "-110.txt")),
            (None, Some(stem)) => format!("o{}.txt", &stem[1..]),
            _ => name.to_owned(),
        };
        let other = p.with_file_name(other);
        if other.exists() { other } else { p.clone() }
    };
    let paired: Vec<PathBuf> = items.iter().map(partner).collect();
    assert!(paired.iter().zip(&items).filter(|(x, y)| x != y).count() >= 40);
    let (a, b) = lockstep(&db, &items, &paired);
    let (a, b) = (answers(&a), answers(&b));
    let held = indexed(&db);
    for x in &held {
        for y in &held {
            if x < y {
                let s = sim.get(&(x.clone(), y.clone())).copied().unwrap_or(0.0);
                assert!(
                    s < T,
                    "both {} and {} were added ({s})",
                    x.display(),
                    y.display()
                );
            }
        }
    }
    // Every `new` answer was added; every item is added or matched by one.
    for answer in a.iter().chain(&b) {
        let item = PathBuf::from(&answer.0);
        if answer.1 == "new" {
            assert!(held.contains(&item), "{answer:?}");
        } else {
            assert!(held.contains(&PathBuf::from(&answer.2)), "{answer:?}");
        }
    }
    for item in &items {
        assert!(
            held.contains(item)
                || held
                    .iter()
                    .any(|h| sim.get(&(item.clone(), h.clone())).is_some_and(|s| *s >= T)),
            "{} neither added nor matched",
            item.display()
        );
    }
}

#[test]
fn a_killed_stream_keeps_every_item_it_answered_new() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    let items = corpus(&docs);
    let db = new_index(dir.path());
    let mut child = spawn(&db, &[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut header = String::new();
    stdout.read_line(&mut header).unwrap();
    let mut answered = Vec::new();
    // One item at a time, each answer read before the next is sent, until
    // half are answered; then more are sent and the writer is killed
    // while it works on them.
    for item in &items[..items.len() / 2] {
        stdin
            .write_all(item.as_os_str().as_encoded_bytes())
            .unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        answered.push(line);
    }
    for item in &items[items.len() / 2..] {
        stdin
            .write_all(item.as_os_str().as_encoded_bytes())
            .unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let rows = answers(format!("{header}{}", answered.concat()).as_bytes());
    let held = indexed(&db);
    let new: Vec<&Answer> = rows.iter().filter(|a| a.1 == "new").collect();
    assert!(new.len() >= 10, "{rows:?}");
    for answer in new {
        assert!(held.contains(&PathBuf::from(&answer.0)), "{answer:?}");
    }
    // Nothing half-written: what the index holds is whole, and a writer
    // goes on from it.
    let mut child = spawn(&db, &[]);
    child.stdin.take().unwrap().write_all(b"").unwrap();
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(0));
}
