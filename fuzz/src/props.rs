//! One property per fuzz target: each takes the fuzzer's bytes and panics
//! (with the values that broke it) when simfind breaks a promise on them.
//! Shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`, nightly) and
//! the replay test `tests/suite/fuzz_regressions.rs` (stable, every `cargo test`),
//! which includes this file with `#[path]`.
//!
//! The first bytes of an input choose the options (flags, kind, k, chunk
//! size); the rest is the text. Each property compares a fast path with a
//! plain definition written here or kept in the library as an oracle, never
//! only "no panic" where something can be compared.

use std::path::Path;

use simfind::text::chunked::{Windows, chunk_end, is_glued, join_normalized};
use simfind::text::normalize::{self, Kernel, Normalization};
use simfind::text::shingle::{Scratch, ShingleKind, Shingler, StopWords, char_shingles_reference};

// The binary's output writers and their escaping helpers, compiled here as
// they are in the binary (they are not part of the library).
#[allow(dead_code)]
#[path = "../../src/app/output/pairs.rs"]
mod pairs;
#[allow(dead_code)]
#[path = "../../src/app/output/text.rs"]
mod text;

/// The four combinations of the normalisation flags, chosen by two bits.
fn norm_of(bits: u8) -> Normalization {
    Normalization {
        lowercase: bits & 1 == 0,
        collapse_whitespace: bits & 2 == 0,
        drop_whitespace: false,
        fold_accents: false,
        fold_punct: false,
    }
}

/// Every shingle kind, chosen by a byte.
pub fn kind_of(b: u8) -> ShingleKind {
    [
        ShingleKind::Char,
        ShingleKind::Word,
        ShingleKind::StopWord,
        ShingleKind::Important,
    ][usize::from(b % 4)]
}

/// Stop words of the shingle targets: ASCII, Greek with both sigmas, a
/// titlecase digraph's lowercase, a character that lowercases to two.
fn stop_words() -> StopWords {
    StopWords::from_words(["a", "the", "of", "σοφία", "ς", "σ", "ǆ", "i\u{307}", "ab"])
}

/// `normalize`: every ASCII kernel this CPU runs, under every flag
/// combination, gives exactly the definition's text (lossy UTF-8, full
/// Unicode lowercasing, whitespace collapsed and trimmed), also into a
/// reused buffer that held other text.
pub fn normalize(data: &[u8]) {
    use simfind::simd::KernelSet;
    for bits in 0..4 {
        let norm = norm_of(bits);
        let expected = normalize::reference::by_definition(data, norm);
        assert_eq!(
            normalize::reference::normalize(data, norm),
            expected,
            "reference, {norm:?}"
        );
        assert_eq!(normalize::normalize(data, norm), expected, "best, {norm:?}");
        for &kernel in Kernel::ALL {
            if !kernel.supported() {
                continue;
            }
            let mut out = String::from("left over from another document ÄΣ");
            normalize::normalize_into_kernel(data, norm, &mut out, kernel);
            assert_eq!(out, expected, "{kernel:?}, {norm:?}");
        }
    }
}

/// The words of `text` as the shingle module defines them: maximal runs of
/// alphanumeric characters.
fn words_of(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Every shingle occurrence of `text`, in order, by the plain definitions
/// of the module docs: `k` consecutive characters; `k` consecutive words
/// joined by one space; the same starting at a word whose lowercase is a
/// stop word. Hashed by the xxhash crate itself (XXH3-64, seed 0).
fn shingles_by_definition(kind: ShingleKind, k: usize, stops: &StopWords, text: &str) -> Vec<u64> {
    use xxhash_rust::xxh3::xxh3_64;
    match kind {
        ShingleKind::Char => {
            let starts: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            (0..starts.len().saturating_sub(k))
                .map(|i| xxh3_64(&text.as_bytes()[starts[i]..starts[i + k]]))
                .collect()
        }
        ShingleKind::Word | ShingleKind::StopWord => {
            let words = words_of(text);
            let listed: Vec<&str> = stops.sorted();
            (0..(words.len() + 1).saturating_sub(k))
                .filter(|&i| {
                    kind == ShingleKind::Word
                        || listed
                            .binary_search(&words[i].to_lowercase().as_str())
                            .is_ok()
                })
                .map(|i| xxh3_64(words[i..i + k].join(" ").as_bytes()))
                .collect()
        }
        ShingleKind::Important => {
            let listed: Vec<&str> = stops.sorted();
            let words: Vec<&str> = words_of(text)
                .into_iter()
                .filter(|w| listed.binary_search(&w.to_lowercase().as_str()).is_err())
                .collect();
            (0..(words.len() + 1).saturating_sub(k))
                .map(|i| xxh3_64(words[i..i + k].join(" ").as_bytes()))
                .collect()
        }
    }
}

/// `shingle`: for each kind and k (1 to 64), the hashes of any text (raw,
/// so upper case and every whitespace reach the shinglers as with
/// `--keep-case --keep-whitespace`) equal the definition's, in order; the
/// block form gives the same sequence; the set is them sorted and
/// deduplicated; char shingles equal the kept reference loop.
pub fn shingle(data: &[u8]) {
    let [kind, k, rest @ ..] = data else { return };
    let (kind, k) = (kind_of(*kind), 1 + usize::from(*k % 64));
    let text = String::from_utf8_lossy(rest);
    let shingler = Shingler::new(kind, k, stop_words());
    let mut scratch = Scratch::default();
    let mut each = Vec::new();
    shingler.for_each_hash(&text, &mut scratch, |h| each.push(h));
    let expected = shingles_by_definition(kind, k, shingler.stop_words(), &text);
    assert_eq!(each, expected, "{kind:?}, k = {k}, text {text:?}");
    let mut blocks = Vec::new();
    shingler.for_each_hash_block(&text, &mut scratch, |b| {
        assert!(!b.is_empty(), "an empty block");
        blocks.extend_from_slice(b)
    });
    assert_eq!(blocks, each, "blocks, {kind:?}, k = {k}");
    if kind == ShingleKind::Char {
        let mut reference = Vec::new();
        char_shingles_reference(&text, k, |h| reference.push(h));
        assert_eq!(reference, each, "reference loop, k = {k}");
    }
    let mut set = each;
    set.sort_unstable();
    set.dedup();
    assert_eq!(shingler.shingle_set(&text), set, "set, {kind:?}, k = {k}");
}

/// `chunked`: a document cut by `chunk_end` at any chunk size, normalised
/// chunk by chunk and joined, is the whole document's normalised text; and
/// the windows fed chunk by chunk (after another document, cleared) are the
/// whole text's, in order, each once. So the set and any signature of the
/// large-file path equal the whole file's.
pub fn chunked(data: &[u8]) {
    let [flags, k, size, rest @ ..] = data else {
        return;
    };
    let norm = norm_of(*flags);
    let kind = kind_of(*flags >> 2);
    let k = 1 + usize::from(*k % 16);
    let size = 1 + usize::from(*size);
    let shingler = Shingler::new(kind, k, stop_words());
    let mut scratch = Scratch::default();

    let whole_text = normalize::normalize(rest, norm);
    let mut whole = Vec::new();
    shingler.for_each_hash(&whole_text, &mut scratch, |h| whole.push(h));

    let mut windows = Windows::default();
    windows.feed(
        "leftover words here",
        false,
        norm,
        &shingler,
        &mut scratch,
        |_| {},
    );
    windows.clear();
    let mut joined = String::new();
    let mut fed = Vec::new();
    let mut start = 0;
    while start < rest.len() {
        let end = chunk_end(rest, start, size, kind);
        assert!(end > start && end <= rest.len(), "chunk {start}..{end}");
        let glued = is_glued(rest, start);
        let chunk = normalize::normalize(&rest[start..end], norm);
        join_normalized(&mut joined, &chunk, glued, norm);
        windows.feed(&chunk, glued, norm, &shingler, &mut scratch, |b| {
            fed.extend_from_slice(b)
        });
        start = end;
    }
    assert_eq!(joined, whole_text, "joined chunks, {norm:?}, size {size}");
    assert_eq!(
        fed, whole,
        "windows, {kind:?}, k = {k}, {norm:?}, size {size}"
    );
}

/// `stopwords`: a `--stopwords` file (UTF-8, one word a line; anything
/// else is refused before this point, as `read_to_string` refuses it) gives
/// trimmed, non-empty, lowercase entries; the list survives the index's
/// storage (one per line, then parsed back) unchanged; and every entry that
/// is one word is found as a stop word in text by the stop-word shingler.
pub fn stopwords(data: &[u8]) {
    let Ok(file) = std::str::from_utf8(data) else {
        return;
    };
    let words = StopWords::from_words(file.lines());
    let sorted = words.sorted();
    for w in &sorted {
        assert!(!w.is_empty(), "an empty stop word");
        assert_eq!(w.trim(), *w, "untrimmed stop word");
        assert_eq!(w.to_lowercase(), *w, "stop word not lowercase");
    }
    let recipe = simfind::recipe::Recipe {
        normalization: Normalization::default(),
        shingler: Shingler::new(ShingleKind::StopWord, 1, words.clone()),
        sketch: simfind::sketch::SketchKind::Classic,
        seed: 1,
        banding: simfind::lsh::Banding { bands: 2, rows: 2 },
        include_binary: false,
    };
    let stored = simfind::index::Params::of(&recipe);
    let back = stored
        .recipe()
        .expect("the params of a recipe give it back");
    assert_eq!(
        back.shingler.stop_words().sorted(),
        sorted,
        "index round trip"
    );
    for w in &sorted {
        if words_of(w) != [*w] {
            continue;
        }
        let text = normalize::normalize(w.as_bytes(), Normalization::default());
        assert_eq!(
            recipe.shingler.shingle_set(&text),
            vec![xxhash_rust::xxh3::xxh3_64(text.as_bytes())],
            "stop word {w:?} (text {text:?}) is not found as one"
        );
    }
}

/// `size`: any string either parses to the number its digits and unit say
/// or is refused (never a panic, never a wrapped value); and for a number
/// and unit read from the input, `"{n}{unit}"` in any case, with spaces
/// around, parses to `n × scale` exactly when that fits in 64 bits.
pub fn size(data: &[u8]) {
    use simfind::size::parse_size;
    const UNITS: [(&str, u64); 14] = [
        ("", 1),
        ("b", 1),
        ("k", 1 << 10),
        ("kib", 1 << 10),
        ("m", 1 << 20),
        ("mib", 1 << 20),
        ("g", 1 << 30),
        ("gib", 1 << 30),
        ("t", 1 << 40),
        ("tib", 1 << 40),
        ("kb", 1_000),
        ("mb", 1_000_000),
        ("gb", 1_000_000_000),
        ("tb", 1_000_000_000_000),
    ];
    let s = String::from_utf8_lossy(data);
    if let Ok(v) = parse_size(&s) {
        let t = s.trim();
        let digits = &t[..t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len())];
        let n: u64 = digits
            .parse()
            .expect("accepted, so it starts with a number");
        let unit = t[digits.len()..].trim().to_ascii_lowercase();
        let (_, scale) = UNITS
            .iter()
            .find(|(u, _)| *u == unit)
            .unwrap_or_else(|| panic!("{s:?} accepted with unit {unit:?}"));
        assert_eq!(Some(v), n.checked_mul(*scale), "{s:?}");
        assert_eq!(parse_size(&v.to_string()), Ok(v), "{v} again");
    }
    if let [a, b, c, d, e, f, g, h, unit, style, ..] = *data {
        let n = u64::from_le_bytes([a, b, c, d, e, f, g, h]);
        let (name, scale) = UNITS[usize::from(unit) % UNITS.len()];
        let name = if style & 1 == 1 {
            name.to_ascii_uppercase()
        } else {
            name.to_string()
        };
        let space = if style & 2 == 2 { " " } else { "" };
        let written = format!("{space}{n}{space}{name}{space}");
        assert_eq!(
            parse_size(&written).ok(),
            n.checked_mul(scale),
            "{written:?}"
        );
    }
}

/// `writers`: the pairs CSV and JSON Lines writers, given two paths of any
/// bytes (split at the first 0xFF 0xFE, else halved), write rows that the
/// csv crate and serde_json read back to exactly those bytes (JSON: the
/// string when they are UTF-8, else `*_bytes`), one record or line per
/// pair.
pub fn writers(data: &[u8]) {
    use simfind::pipeline::{DocStatus, Document, SimilarPair};
    use std::os::unix::ffi::OsStrExt;
    let cut = data
        .windows(2)
        .position(|w| w == [0xFF, 0xFE])
        .map_or((data.len() / 2, data.len() / 2), |p| (p, p + 2));
    let paths = [&data[..cut.0], &data[cut.1..]];
    let documents: Vec<Document> = paths
        .iter()
        .map(|p| Document {
            path: Path::new(std::ffi::OsStr::from_bytes(p)).into(),
            size: 1,
            modified: None,
            shingles: 7,
            status: DocStatus::Read,
        })
        .collect();
    let pair = SimilarPair {
        a: 0,
        b: 1,
        similarity: 0.5,
        estimate: Some(0.25),
        shared: Some(3),
    };

    let mut csv_out = Vec::new();
    pairs::write_csv(&documents, [pair].into_iter(), &mut csv_out).expect("write to a Vec");
    let mut reader = csv::ReaderBuilder::new().from_reader(csv_out.as_slice());
    let records: Vec<csv::ByteRecord> = reader
        .byte_records()
        .collect::<Result<_, _>>()
        .expect("our CSV parses");
    assert_eq!(records.len(), 1, "one record per pair: {csv_out:?}");
    assert_eq!(&records[0][0], paths[0], "a, CSV {csv_out:?}");
    assert_eq!(&records[0][1], paths[1], "b, CSV {csv_out:?}");
    assert_eq!(&records[0][2], b"0.500000");

    let mut json_out = Vec::new();
    pairs::write_jsonl(&documents, [pair].into_iter(), &mut json_out).expect("write to a Vec");
    assert_eq!(json_out.iter().filter(|&&b| b == b'\n').count(), 1);
    assert_eq!(json_out.last(), Some(&b'\n'));
    let v: serde_json::Value = serde_json::from_slice(&json_out).expect("our JSON parses");
    for (key, path) in [("a", paths[0]), ("b", paths[1])] {
        let s = v[key].as_str().expect("a string");
        assert_eq!(s, String::from_utf8_lossy(path), "{key}");
        match std::str::from_utf8(path) {
            Ok(_) => assert!(v.get(format!("{key}_bytes")).is_none()),
            Err(_) => {
                let bytes: Vec<u8> = v[format!("{key}_bytes")]
                    .as_array()
                    .expect("bytes of a non-UTF-8 path")
                    .iter()
                    .map(|b| u8::try_from(b.as_u64().expect("a number")).expect("a byte"))
                    .collect();
                assert_eq!(bytes, path, "{key}_bytes");
            }
        }
    }
    assert_eq!(v["shared"], 3);
}

/// `index`: an index damaged in its stored values — any parameter or
/// column of a document or band-key row replaced by any SQLite value
/// (NULL, integer, real, text, blob) or deleted — gives an error or a
/// result from every read (open, documents, files, band keys, a query),
/// never a panic or an abort. An undamaged one reads back what was stored.
///
/// Input: records `[what, type, len, payload…]`; `what` picks the value.
pub fn index(data: &[u8]) {
    use rusqlite::types::Value;
    use simfind::index::query::{Query, QueryOptions};
    use simfind::index::{FileStat, Index, IndexedDoc, OpenOptions, Params};
    use simfind::pipeline::Verification;

    const PARAMS: [&str; 12] = [
        "format_version",
        "item_kind",
        "shingle_kind",
        "k",
        "normalisation",
        "n",
        "bands",
        "rows",
        "seed",
        "minhash",
        "stop_words",
        "binary_files",
    ];
    const DOC_COLUMNS: [&str; 10] = [
        "id",
        "path",
        "size",
        "mtime_ns",
        "dev",
        "inode",
        "content_hash",
        "binary",
        "shingle_count",
        "signature",
    ];
    const KEY_COLUMNS: [&str; 3] = ["doc", "band", "key"];

    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("index.db");
    let recipe = simfind::recipe::Recipe {
        normalization: Normalization::default(),
        shingler: Shingler::new(
            ShingleKind::StopWord,
            2,
            StopWords::from_words(["a", "the"]),
        ),
        sketch: simfind::sketch::SketchKind::Oph,
        seed: 7,
        banding: simfind::lsh::Banding { bands: 2, rows: 2 },
        include_binary: false,
    };
    let text: &[u8] = b"the cat sat on a mat and the dog sat on a log";
    let set = recipe.set_of(text);
    let (signature, band_keys) = recipe.sign(&set);
    let stored = IndexedDoc {
        path: dir.path().join("doc.txt"),
        stat: FileStat {
            size: text.len() as u64,
            mtime_ns: 1,
            dev: Some(2),
            inode: Some(3),
        },
        content_hash: 0x1234,
        binary: false,
        not_compared: None,
        shingle_count: set.len() as u64,
        signature,
        band_keys,
    };
    {
        let mut index = Index::open_or_create(&path, &Params::of(&recipe), OpenOptions::default())
            .expect("a fresh index");
        let mut update = index.begin_update().expect("an update");
        update.add(&stored).expect("a document");
        update.commit().expect("a commit");
    }

    let conn = rusqlite::Connection::open(&path).expect("the index opens in SQLite");
    let mut rest = data;
    let mut damaged = false;
    while let [what, ty, len, tail @ ..] = rest {
        let len = usize::from(*len).min(tail.len());
        let (payload, next) = tail.split_at(len);
        rest = next;
        let value = match ty % 6 {
            0 => Value::Null,
            1 => {
                let mut b = [0u8; 8];
                b[..payload.len().min(8)].copy_from_slice(&payload[..payload.len().min(8)]);
                Value::Integer(i64::from_le_bytes(b))
            }
            2 => {
                let mut b = [0u8; 8];
                b[..payload.len().min(8)].copy_from_slice(&payload[..payload.len().min(8)]);
                Value::Real(f64::from_le_bytes(b))
            }
            3 => Value::Text(String::from_utf8_lossy(payload).into_owned()),
            4 => Value::Blob(payload.to_vec()),
            _ => Value::Null, // with `what`: delete the row
        };
        let delete = ty % 6 == 5;
        let what = usize::from(*what) % (PARAMS.len() + DOC_COLUMNS.len() + KEY_COLUMNS.len());
        // A constraint may refuse a value: then the index is as it was.
        let changed = if what < PARAMS.len() {
            let name = PARAMS[what];
            if delete {
                conn.execute("DELETE FROM params WHERE name = ?1", [name])
            } else {
                conn.execute(
                    "UPDATE params SET value = ?1 WHERE name = ?2",
                    rusqlite::params![value, name],
                )
            }
        } else if what < PARAMS.len() + DOC_COLUMNS.len() {
            let column = DOC_COLUMNS[what - PARAMS.len()];
            if delete {
                conn.execute("DELETE FROM documents", [])
            } else {
                conn.execute(&format!("UPDATE documents SET {column} = ?1"), [value])
            }
        } else {
            let column = KEY_COLUMNS[what - PARAMS.len() - DOC_COLUMNS.len()];
            if delete {
                conn.execute("DELETE FROM band_keys WHERE band = 0", [])
            } else {
                conn.execute(
                    &format!("UPDATE band_keys SET {column} = ?1 WHERE band = 0"),
                    [value],
                )
            }
        };
        damaged |= changed.is_ok_and(|n| n > 0);
    }
    drop(conn);

    let index = match Index::open_existing(&path, OpenOptions::default()) {
        Ok(index) => index,
        Err(e) => {
            assert!(damaged, "an undamaged index does not open: {e}");
            return;
        }
    };
    let documents = index.documents();
    let _ = index.files();
    let _ = index.len();
    if !damaged {
        let documents = documents.as_ref().expect("an undamaged index reads");
        assert_eq!(documents.len(), 1);
        assert_eq!(documents[0].signature, stored.signature);
        assert_eq!(documents[0].path, stored.path);
    }
    if let Ok(documents) = &documents {
        for doc in documents {
            let _ = index.band_keys(doc.id);
            let _ = index.document(doc.id);
        }
    }
    let query = Query::new(&index);
    if !damaged {
        assert!(query.is_ok(), "an undamaged index's params are understood");
    }
    if let Ok(mut query) = query {
        let options = QueryOptions {
            threshold: 0.01,
            top: Some(3),
            verification: Verification::Signature,
            exact: false,
        };
        let answer = query.ask(text.to_vec(), &options, &simfind::progress::Silent);
        if !damaged {
            match answer.expect("an undamaged index answers") {
                simfind::index::query::Answer::Matches { matches, .. } => {
                    assert_eq!(matches.len(), 1, "the stored document finds itself");
                    assert_eq!(matches[0].similarity, 1.0);
                }
                other => panic!("the stored document is not found: {other:?}"),
            }
        }
    }
}
