use std::io::Cursor;

use super::*;

fn lines_of(bytes: &[u8], cap: usize) -> Vec<(u64, u64, Result<Vec<u8>, u64>)> {
    let mut lines = Lines::new(Box::new(Cursor::new(bytes.to_vec())), cap);
    let mut out = Vec::new();
    while let Some(line) = lines.next_line() {
        let line = line.unwrap();
        out.push((line.number, line.offset, line.bytes.map(<[u8]>::to_vec)));
    }
    out
}

#[test]
fn lines_are_numbered_with_offsets_and_endings_dropped() {
    let got = lines_of(b"ab\r\ncde\n\nf", 10);
    assert_eq!(
        got,
        vec![
            (1, 0, Ok(b"ab".to_vec())),
            (2, 4, Ok(b"cde".to_vec())),
            (3, 8, Ok(Vec::new())),
            (4, 9, Ok(b"f".to_vec())),
        ]
    );
    assert!(lines_of(b"", 10).is_empty());
}

#[test]
fn a_line_over_the_cap_gives_its_length_not_its_bytes() {
    // Exactly the cap is kept (with either ending); one more byte is not.
    let got = lines_of(b"abcd\nabcd\r\nabcde\nxy", 4);
    assert_eq!(got[0].2, Ok(b"abcd".to_vec()));
    assert_eq!(got[1].2, Ok(b"abcd".to_vec()));
    assert_eq!(got[2].2, Err(5));
    assert_eq!(
        (got[3].0, got[3].1, got[3].2.clone()),
        (4, 17, Ok(b"xy".to_vec()))
    );
}

#[test]
fn a_line_longer_than_the_reader_buffer_is_read_past_in_pieces() {
    let mut bytes = vec![b'x'; 200_000];
    bytes.extend_from_slice(b"\nok\n");
    let reader = std::io::BufReader::with_capacity(1024, Cursor::new(bytes));
    let mut lines = Lines::new(Box::new(reader), 1000);
    assert_eq!(lines.next_line().unwrap().unwrap().bytes, Err(200_000));
    assert!(lines.buf.capacity() <= 4096, "the long line was not held");
    let second = lines.next_line().unwrap().unwrap();
    assert_eq!((second.number, second.bytes), (2, Ok(&b"ok"[..])));
}

/// Lines of `bytes` through a reader buffer of `capacity` bytes: with a
/// small one most lines cross its end (put together), with a large one
/// none do (lent from the buffer).
fn lines_through(
    bytes: &[u8],
    capacity: usize,
    cap: usize,
) -> Vec<(u64, u64, Result<Vec<u8>, u64>)> {
    let reader = std::io::BufReader::with_capacity(capacity, Cursor::new(bytes.to_vec()));
    let mut lines = Lines::new(reader, cap);
    let mut out = Vec::new();
    while let Some(line) = lines.next_line() {
        let line = line.unwrap();
        out.push((line.number, line.offset, line.bytes.map(<[u8]>::to_vec)));
    }
    out
}

#[test]
fn lines_lent_from_the_buffer_are_the_lines_put_together_across_its_end() {
    // Lines of 0–40 bytes (some over the cap of 24, some ended by CRLF,
    // some holding a CR), from a fixed LCG, then one without an ending.
    let mut state = 7u64;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let mut bytes = Vec::new();
    let mut expected = Vec::new();
    for i in 0..2000u64 {
        let offset = bytes.len() as u64;
        let mut raw: Vec<u8> = (0..next(41))
            .map(|_| {
                if next(50) == 0 {
                    b'\r'
                } else {
                    b'a' + next(26) as u8
                }
            })
            .collect();
        if next(3) == 0 {
            raw.push(b'\r');
        }
        bytes.extend_from_slice(&raw);
        bytes.push(b'\n');
        // The documented cap: a line (before its `\n`) longer than the cap
        // and a two-byte ending is not kept, and its length is what came
        // before the `\n`; else its `\r` is dropped and what is left must
        // fit the cap.
        let got = if raw.len() > 24 + 1 {
            Err(raw.len() as u64)
        } else {
            let kept = raw.strip_suffix(b"\r").unwrap_or(&raw);
            if kept.len() > 24 {
                Err(kept.len() as u64)
            } else {
                Ok(kept.to_vec())
            }
        };
        expected.push((i + 1, offset, got));
    }
    expected.push((2001, bytes.len() as u64, Ok(b"tail".to_vec())));
    bytes.extend_from_slice(b"tail");
    let large = lines_through(&bytes, 1 << 20, 24);
    for capacity in [1, 2, 7, 64, 1000] {
        assert_eq!(
            lines_through(&bytes, capacity, 24),
            large,
            "buffer of {capacity}"
        );
    }
    assert_eq!(large, expected);
}

#[test]
fn lines_moved_to_an_offset_read_the_line_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.txt");
    let text: String = (0..3000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&path, &text).unwrap();
    let starts: Vec<u64> = text
        .split_inclusive('\n')
        .scan(0u64, |at, l| {
            let here = *at;
            *at += l.len() as u64;
            Some(here)
        })
        .collect();
    let file = std::fs::File::open(&path).unwrap();
    let mut lines = Lines::new(std::io::BufReader::with_capacity(256, file), 100);
    // Near (within the buffer), the next line, far ahead, and back.
    for i in [5usize, 6, 9, 2500, 2501, 40, 0, 2999] {
        lines.seek(starts[i]).unwrap();
        let line = lines.next_line().unwrap().unwrap();
        assert_eq!(line.offset, starts[i]);
        assert_eq!(line.bytes, Ok(format!("line {i}").as_bytes()));
    }
}

fn read(
    kind: InputKind,
    inputs: &[(&str, &str)],
    tune: impl Fn(&mut RecordOptions),
) -> Result<Records, RowError> {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = inputs
        .iter()
        .map(|(name, text)| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    let mut options = RecordOptions::new(kind);
    tune(&mut options);
    read_inputs(&paths, &options, &mut |_| {})
}

#[test]
fn csv_quoted_fields_may_hold_commas_and_newlines() {
    let text = "name,id,city\n\"Smith, John\",7,\"New\nYork\"\nMary,8,Boston\n";
    let records = read(InputKind::Csv, &[("r.csv", text)], |_| {}).unwrap();
    assert_eq!(records.fields, ["name", "city"]);
    assert_eq!(records.records[0].id, "7");
    assert_eq!(records.records[0].fields, ["Smith, John", "New\nYork"]);
    // The row after the two-line one starts on line 4.
    assert_eq!(records.records[1].origin.line, 4);
}

#[test]
fn csv_columns_choose_and_order_the_fields() {
    let text = "id,a,b,c\n1,x,y,z\n";
    let records = read(InputKind::Csv, &[("r.csv", text)], |o| {
        o.columns = vec!["c".into(), "a".into()]
    })
    .unwrap();
    assert_eq!(records.records[0].fields, ["z", "x"]);
}

#[test]
fn link_inputs_may_share_ids_one_input_may_not() {
    let a = "id,name\n1,x\n";
    let both = [("a.csv", a), ("b.csv", a)];
    assert!(read(InputKind::Csv, &both, |o| o.link = true).is_ok());
    let err = read(InputKind::Csv, &both, |_| {}).unwrap_err();
    assert!(err.reason.contains("duplicate id '1'"), "{err}");
    assert!(err.reason.contains("a.csv:2"), "{err}");
}

#[test]
fn sets_pairs_group_tokens_by_id_in_first_seen_order() {
    let text = "u2\tm1\nu1\tm1\nu2\tm 2\n";
    let records = read(InputKind::Sets, &[("p.tsv", text)], |o| o.pairs = true).unwrap();
    let got: Vec<(&str, Vec<String>)> = records
        .records
        .iter()
        .map(|r| (r.id.as_str(), r.fields.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("u2", vec!["m1".into(), "m 2".into()]),
            ("u1", vec!["m1".into()])
        ]
    );
}

#[test]
fn jsonl_skips_blank_lines_and_reads_nested_paths() {
    let text = "{\"a\":{\"b\":\"x\"},\"t\":{\"u\":\"hello\"}}\n\n  \n{\"a\":{\"b\":\"y\"},\"t\":{\"u\":null}}\n";
    let records = read(InputKind::Jsonl, &[("d.jsonl", text)], |o| {
        o.id_field = "a.b".into();
        o.text_fields = vec!["t.u".into()];
    })
    .unwrap();
    assert_eq!(records.records[0].fields, ["hello"]);
    // null is an empty field; the line number counts the blank lines.
    assert_eq!(records.records[1].fields, [""]);
    assert_eq!(records.records[1].origin.line, 4);
}

/// Review N1.23: ids beyond 64 bits went through f64, so two distinct ids
/// became one "duplicate". Such an id is now refused, naming the way out.
#[test]
fn jsonl_number_ids_beyond_64_bits_are_refused_not_rounded_into_duplicates() {
    let text = "{\"id\":12345678901234567890123,\"text\":\"a\"}\n\
                {\"id\":12345678901234567890124,\"text\":\"a\"}\n";
    let err = read(InputKind::Jsonl, &[("b.jsonl", text)], |_| {}).unwrap_err();
    assert_eq!(err.line, 1, "{err}");
    assert!(err.reason.contains("not a 64-bit integer"), "{err}");
    assert!(err.reason.contains("JSON string"), "{err}");
    let fits = "{\"id\":18446744073709551615,\"text\":\"a\"}\n{\"id\":-5,\"text\":\"a\"}\n";
    let records = read(InputKind::Jsonl, &[("b.jsonl", fits)], |_| {}).unwrap();
    assert_eq!(records.records[0].id, "18446744073709551615");
    assert_eq!(records.records[1].id, "-5");
}

/// Review N1.24: a byte-order mark before the first line was "not JSON".
#[test]
fn jsonl_skips_a_byte_order_mark_before_the_first_line() {
    let text = "\u{feff}{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n";
    let records = read(InputKind::Jsonl, &[("bom.jsonl", text)], |_| {}).unwrap();
    let ids: Vec<&str> = records.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
}

/// Writes a Parquet file of `(id, text)` rows in row groups of 3.
#[cfg(feature = "parquet")]
fn parquet_table(path: &Path, rows: &[(&str, &str)]) {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    let ids: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0)));
    let texts: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1)));
    let batch = RecordBatch::try_from_iter([("id", ids), ("text", texts)]).unwrap();
    let properties = ::parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(3))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer =
        ::parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Parquet rows are read again by index, across row groups, as they were
/// read; a row changed since reads as what is there now, and a row past a
/// shortened table's end is named by its number.
#[cfg(feature = "parquet")]
#[test]
fn parquet_rows_are_read_again_by_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.parquet");
    let rows: Vec<(String, String)> = (0..10)
        .map(|i| (format!("r{i}"), format!("text number {i}")))
        .collect();
    let borrowed: Vec<(&str, &str)> = rows.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    parquet_table(&path, &borrowed);
    let options = RecordOptions::new(InputKind::Parquet);
    let read = read_inputs(std::slice::from_ref(&path), &options, &mut |_| {}).unwrap();
    let reread = read.reread.expect("a Parquet file is read again");
    let at: Vec<(u32, u64)> = [1u64, 2, 3, 7, 9].iter().map(|&r| (0, r)).collect();
    let mut again = Vec::new();
    reread.read_at(&at, &mut |k, found| again.push((k, found.unwrap())));
    assert_eq!(again.len(), at.len());
    for (k, record) in &again {
        let first = &read.records[at[*k].1 as usize];
        assert_eq!(record, first, "row {}", at[*k].1);
    }
    assert_eq!(reread.lines_of(0, &[0, 4]), vec![1, 5]);

    // Row 3 changed, and the table cut to 8 rows.
    let mut changed = borrowed[..8].to_vec();
    changed[3] = ("r3", "another text");
    parquet_table(&path, &changed);
    let mut found = Vec::new();
    reread.read_at(&at, &mut |k, r| found.push((k, r)));
    assert_eq!(
        found[2].1.as_ref().unwrap().fields,
        vec!["another text".to_string()]
    );
    assert_eq!(found[3].1.as_ref().unwrap().id, "r7");
    let err = found[4].1.as_ref().unwrap_err();
    assert_eq!(
        (err.line, err.reason.as_str()),
        (10, "no row there now (the table is shorter)")
    );
}
