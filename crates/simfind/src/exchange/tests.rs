//! Round trips of the exchange files and the refusals of the reader.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use super::*;
use crate::recipe::Recipe;
use crate::sketch::SketchKind;
use crate::text::Normalization;
use crate::text::{ShingleKind, Shingler, StopWords};

fn recipe(seed: u64) -> Recipe {
    Recipe {
        normalization: Normalization {
            lowercase: true,
            collapse_whitespace: true,
            drop_whitespace: false,
            fold_accents: false,
            fold_punct: false,
        },
        shingler: Shingler::new(ShingleKind::Char, 3, StopWords::default()),
        sketch: SketchKind::Classic,
        seed,
        banding: crate::lsh::Banding { bands: 4, rows: 2 },
        include_binary: false,
    }
}

/// Writes `texts` as shard `shard` under `dir`; returns their signatures.
fn write(dir: &Path, shard: Shard, recipe: &Recipe, texts: &[(&str, &str)]) -> Vec<Vec<u32>> {
    let params = Params::of(recipe);
    let mut writer = ShardWriter::create(dir, shard, &params, KeyKind::Path).unwrap();
    let mut signatures = Vec::new();
    for (i, (path, text)) in texts.iter().enumerate() {
        let set = recipe.set_of(text.as_bytes());
        let (signature, _) = recipe.sign(&set);
        writer
            .add(DocRecord {
                key: path.as_bytes(),
                size: text.len() as u64,
                modified: Some(UNIX_EPOCH + Duration::from_micros(1_000_000 + i as u64)),
                hash: xxhash_rust::xxh3::xxh3_128(text.as_bytes()),
                shingles: set.len() as u64,
                signature: (!set.is_empty()).then_some(&signature[..]),
            })
            .unwrap();
        signatures.push(signature);
    }
    let files = writer.finish().unwrap();
    assert_eq!(files.len(), 3);
    signatures
}

#[test]
fn shards_parse_and_number_documents() {
    let shard: Shard = "2/4".parse().unwrap();
    assert_eq!(shard, Shard { index: 2, count: 4 });
    assert_eq!(shard.doc_id(5), (2i64 << 40) | 5);
    for bad in ["4/4", "1/0", "x/2", "1", "-1/2"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
    // Every key falls in exactly one shard.
    for key in ["a", "b/c.txt", "", "dir/sub/file"] {
        let holders = (0..4)
            .filter(|&i| Shard { index: i, count: 4 }.holds(key.as_bytes()))
            .count();
        assert_eq!(holders, 1, "{key}");
    }
}

#[test]
fn relative_keys_do_not_depend_on_the_root_spelling() {
    let roots = [std::path::PathBuf::from("/data/share")];
    assert_eq!(
        relative_key(&roots, Path::new("/data/share/a/b.txt")),
        b"a/b.txt"
    );
    let file_root = [std::path::PathBuf::from("/x/one.txt")];
    assert_eq!(
        relative_key(&file_root, Path::new("/x/one.txt")),
        b"one.txt"
    );
}

#[test]
fn two_shards_read_back_in_path_order() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(7);
    let s1 = write(
        dir.path(),
        Shard { index: 1, count: 2 },
        &r,
        &[("b.txt", "hello there world"), ("d.txt", "x")],
    );
    let s0 = write(
        dir.path(),
        Shard { index: 0, count: 2 },
        &r,
        &[("a.txt", "hello there world!"), ("c.txt", "something else")],
    );
    let ex = read_docs(dir.path()).unwrap();
    assert_eq!(ex.params, Params::of(&r));
    assert_eq!(ex.key_kind, "path");
    assert_eq!(ex.kind(), Some(KeyKind::Path));
    let paths: Vec<&[u8]> = ex.docs.iter().map(|d| &d.path[..]).collect();
    assert_eq!(paths, [&b"a.txt"[..], b"b.txt", b"c.txt", b"d.txt"]);
    assert_eq!(ex.docs[1].doc_id, Shard { index: 1, count: 2 }.doc_id(0));
    assert_eq!(ex.index_of(Shard { index: 0, count: 2 }.doc_id(1)), Some(2));
    let n = r.banding.signature_len();
    assert_eq!(&ex.signatures[..n], &s0[0][..]);
    assert_eq!(&ex.signatures[n..2 * n], &s1[0][..]);
    // "x" is shorter than one 3-shingle: a docs row, no signature.
    assert_eq!(ex.docs[3].shingles, 0);
    assert_eq!(
        ex.docs[0].modified,
        Some(UNIX_EPOCH + Duration::from_micros(1_000_000))
    );
    assert_eq!(
        ex.docs[0].hash,
        xxhash_rust::xxh3::xxh3_128(b"hello there world!")
    );
    // No temporary file is left beside the tables.
    for table in TABLES {
        let names: Vec<String> = std::fs::read_dir(dir.path().join(table))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| n.ends_with(".parquet")), "{names:?}");
    }
}

#[test]
fn another_recipe_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        Shard { index: 0, count: 2 },
        &recipe(7),
        &[("a", "abcdef")],
    );
    write(
        dir.path(),
        Shard { index: 1, count: 2 },
        &recipe(8),
        &[("b", "abcdef")],
    );
    let err = read_docs(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("another recipe") && err.contains("seed"),
        "{err}"
    );
    assert!(err.contains("shard-00001-of-00002.parquet"), "{err}");
}

#[test]
fn a_truncated_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), Shard::WHOLE, &recipe(7), &[("a", "abcdef")]);
    let docs = dir.path().join("docs").join(Shard::WHOLE.file_name());
    let bytes = std::fs::read(&docs).unwrap();
    std::fs::write(&docs, &bytes[..bytes.len() / 2]).unwrap();
    let err = read_docs(dir.path()).unwrap_err().to_string();
    assert!(err.contains(&docs.display().to_string()), "{err}");
    assert!(err.contains("not a readable Parquet file"), "{err}");
}

#[test]
fn a_shard_given_twice_is_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), Shard::WHOLE, &recipe(7), &[("a", "abcdef")]);
    for table in TABLES {
        let d = dir.path().join(table);
        std::fs::copy(d.join(Shard::WHOLE.file_name()), d.join("copy.parquet")).unwrap();
    }
    let err = read_docs(dir.path()).unwrap_err().to_string();
    assert!(err.contains("appears twice"), "{err}");
}

#[test]
fn record_options_round_trip_through_the_metadata() {
    use crate::input::kind::InputKind;
    use crate::input::records::RecordOptions;
    let mut options = RecordOptions::new(InputKind::Csv);
    options.id_column = "key".into();
    options.columns = vec!["name, with comma".into(), "city".into()];
    options.max_line = 4096;
    let back = record_options(&record_metadata(&options)).unwrap();
    assert_eq!(back.kind, InputKind::Csv);
    assert_eq!(back.id_column, "key");
    assert_eq!(back.columns, options.columns);
    assert_eq!(back.text_fields, options.text_fields);
    assert_eq!(back.max_line, 4096);
    assert!(!back.pairs);
    let mut missing = record_metadata(&options);
    missing.retain(|(k, _)| !k.ends_with(".columns"));
    assert!(
        record_options(&missing)
            .unwrap_err()
            .to_string()
            .contains("simfind.records.columns")
    );
}

#[test]
fn record_docs_carry_their_origin_and_are_numbered_by_input_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let recipe = recipe(1);
    let params = Params::of(&recipe);
    let mut writer =
        ShardWriter::create_with(dir.path(), Shard::WHOLE, &params, KeyKind::Record, &[]).unwrap();
    // Added out of order: the reader numbers by (input, offset).
    for (id, input, line, offset) in [("b", 1u32, 1u64, 0u64), ("a2", 0, 3, 40), ("a1", 0, 1, 0)] {
        let set = recipe.set_of(format!("text of record {id}").as_bytes());
        let (signature, _) = recipe.sign(&set);
        writer
            .add_record(
                DocRecord {
                    key: id.as_bytes(),
                    size: 17,
                    modified: None,
                    hash: u128::from(line),
                    shingles: set.len() as u64,
                    signature: Some(&signature),
                },
                RecordOrigin {
                    source: format!("in{input}.jsonl").as_bytes(),
                    input,
                    line,
                    offset,
                },
            )
            .unwrap();
    }
    writer.finish().unwrap();
    let ex = read_docs(dir.path()).unwrap();
    assert_eq!(ex.key_kind, "record");
    assert_eq!(ex.kind(), Some(KeyKind::Record));
    let ids: Vec<&[u8]> = ex.docs.iter().map(|d| d.path.as_slice()).collect();
    assert_eq!(ids, [b"a1".as_slice(), b"a2", b"b"]);
    let origin = ex.docs[1].origin.as_ref().unwrap();
    assert_eq!(
        (
            origin.source.as_slice(),
            origin.input,
            origin.line,
            origin.offset
        ),
        (b"in0.jsonl".as_slice(), 0, 3, 40)
    );
    assert!(ex.docs[0].modified.is_none());
}
