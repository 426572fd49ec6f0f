use super::*;

fn vectors(text: &str) -> Result<Vectors, ReadError> {
    read_vectors(text.as_bytes(), false, &mut |_| panic!("not skipping"))
}

fn bits(text: &str) -> Result<BitStrings, ReadError> {
    read_bits(text.as_bytes(), false, &mut |_| panic!("not skipping"))
}

fn row_error(result: Result<impl std::fmt::Debug, ReadError>) -> RowError {
    match result {
        Err(ReadError::Row(e)) => e,
        other => panic!("expected a row error, got {other:?}"),
    }
}

#[test]
fn csv_tsv_header_negatives() {
    let v = vectors("id,x,y\na,1,-2.5\n\n\"b,c\",3e2,0\n").unwrap();
    assert_eq!(v.ids, ["a", "b,c"]);
    assert_eq!(
        (v.dim, v.row(0), v.row(1)),
        (2, &[1.0, -2.5][..], &[300.0, 0.0][..])
    );
    let t = vectors("a\t1\t2\r\nb\t-1\t0\n").unwrap();
    assert_eq!((t.len(), t.row(1)), (2, &[-1.0, 0.0][..]));
}

#[test]
fn bad_rows_name_their_line() {
    let e = row_error(vectors("a,1,2\nb,1\n"));
    assert_eq!(
        (e.line, e.reason.as_str()),
        (2, "1 components where the rows before have 2")
    );
    let e = row_error(vectors("a,1,2\nb,1,NaN\n"));
    assert_eq!(e.line, 2);
    assert!(
        e.reason.contains("\"NaN\" is not a finite number"),
        "{}",
        e.reason
    );
    let e = row_error(vectors("a,1\nb,inf\n"));
    assert!(e.reason.contains("not a finite"));
    let e = row_error(vectors("a,1\nb,1e39\n"));
    assert!(e.reason.contains("beyond"));
    let e = row_error(vectors("a,1\nb,x\n"));
    assert_eq!(e.to_string(), "line 2: component 1: \"x\" is not a number");
    let e = row_error(vectors("a,1\n\na,2\n"));
    assert_eq!(e.to_string(), "line 3: id \"a\" is also on line 1");
    let e = row_error(vectors("a,1\n,2\n"));
    assert_eq!(e.to_string(), "line 2: empty id");
    let e = row_error(read_vectors(&b"a,1\n\xff,2\n"[..], false, &mut |_| {}));
    assert_eq!(e.to_string(), "line 2: field 1 is not valid UTF-8");
    let e = row_error(vectors("a,1\n\"b,2\n"));
    assert_eq!(e.to_string(), "line 2: field 1 has no closing quote");
    assert!(matches!(vectors(""), Err(ReadError::Empty)));
    assert!(matches!(vectors("id,x\n"), Err(ReadError::Empty)));
}

#[test]
fn skipped_rows_are_reported_and_left_out() {
    let mut skipped = Vec::new();
    let v = read_vectors(&b"a,1,2\nb,1\nc,3,4\nd,NaN,1\n"[..], true, &mut |e| {
        skipped.push(e.line)
    })
    .unwrap();
    assert_eq!(v.ids, ["a", "c"]);
    assert_eq!(skipped, [2, 4]);
}

#[test]
fn bit_strings_binary_and_hex() {
    let b = bits("id,bits\nx,10101\ny,11110\n").unwrap();
    assert_eq!(b.bits, 5);
    assert_eq!(b.row(0), &[0b10101]);
    assert_eq!(b.row(1), &[0b01111]);
    let h = bits("x,0x8\ny,0x1\n").unwrap();
    assert_eq!(
        (h.bits, h.row(0), h.row(1)),
        (4, &[0b0001][..], &[0b1000][..])
    );
    let long = "1".repeat(70);
    let l = bits(&format!("x,{long}\n")).unwrap();
    assert_eq!(l.row(0), &[u64::MAX, 0b11_1111]);
    let e = row_error(bits("x,101\ny,10\n"));
    assert_eq!(e.to_string(), "line 2: 2 bits where the rows before have 3");
    let e = row_error(bits("x,101\ny,102\n"));
    assert!(e.reason.contains("'2' is not a bit"), "{}", e.reason);
    let e = row_error(bits("x,101\ny,101,1\n"));
    assert_eq!(e.to_string(), "line 2: 3 fields: a row is `id,bits`");
}

/// Several inputs join in order; the lines are each input's; a width that
/// differs or an id seen in an earlier input is an error naming both places,
/// or with `skip_bad` the later row is left out and reported.
#[test]
fn concat_keeps_order_and_refuses_repeated_ids_and_widths() {
    let a = vectors("id,x,y\na,1,2\nb,3,4\n").unwrap();
    let b = vectors("c,5,6\n\nd,7,8\n").unwrap();
    assert_eq!((a.lines.clone(), b.lines.clone()), (vec![2, 3], vec![1, 3]));
    let (all, starts) = concat(vec![a.clone(), b], true, false, &mut |_| panic!()).unwrap();
    assert_eq!(all.ids, ["a", "b", "c", "d"]);
    assert_eq!(all.lines, [2, 3, 1, 3]);
    assert_eq!(starts, [0, 2, 4]);
    assert_eq!(all.row(3), &[7.0, 8.0][..]);

    let again = vectors("x,0,0\nb,9,9\n").unwrap();
    assert_eq!(
        concat(
            vec![a.clone(), again.clone()],
            true,
            false,
            &mut |_| panic!()
        ),
        Err(ConcatError::Duplicate {
            id: "b".into(),
            first_input: 0,
            first_line: 3,
            input: 1,
            line: 2
        })
    );
    let mut skipped = Vec::new();
    let (all, starts) = concat(vec![a.clone(), again.clone()], true, true, &mut |e| {
        skipped.push(e)
    })
    .unwrap();
    assert_eq!(all.ids, ["a", "b", "x"]);
    assert_eq!(starts, [0, 2, 3]);
    assert!(matches!(
        skipped.as_slice(),
        [ConcatError::Duplicate {
            input: 1,
            line: 2,
            ..
        }]
    ));
    // Without uniqueness (--link) both are kept.
    let (all, _) = concat(vec![a.clone(), again], false, false, &mut |_| panic!()).unwrap();
    assert_eq!(all.len(), 4);

    let wide = vectors("z,1,2,3\n").unwrap();
    assert_eq!(
        concat(vec![a, wide], true, false, &mut |_| panic!()),
        Err(ConcatError::Width {
            input: 1,
            width: 3,
            expected: 2
        })
    );
    let bits2 = (bits("p,0101\n").unwrap(), bits("q,0x5\n").unwrap());
    let (all, _) = concat(vec![bits2.0, bits2.1], true, false, &mut |_| panic!()).unwrap();
    assert_eq!((all.bits, all.row(1)), (4, &[0b1010u64][..]));
}

/// Fields of every shape a number column holds, and of shapes it should not:
/// whenever the parse-ahead path reads a value it is the one `parse_number`
/// (std's `f32::from_str`) gives, bit for bit; and every plain decimal that
/// std reads as finite is read ahead (else the fast path would be dead).
#[test]
fn parsing_ahead_gives_std_values_bit_for_bit() {
    use crate::sketch::SplitMix64;
    let mut rng = SplitMix64(0x000F_A57F);
    let mut fields: Vec<String> = [
        "0",
        "-0",
        "+1",
        "1.",
        ".5",
        "-.5",
        "1e5",
        "1E-3",
        "1e+07",
        "3.0",
        "12.0",
        " 2 ",
        "\t7\r",
        "1e39",
        "-1e39",
        "1e-40",
        "1e-50",
        "3.4028235e38",
        "3.4028236e38",
        "0x10",
        "1_0",
        "inf",
        "-infinity",
        "NaN",
        "1e",
        "e5",
        ".",
        "+",
        "-",
        "--1",
        "1.2.3",
        "1e5.0",
        "",
        " ",
        "\u{a0}1",
        "1\u{a0}",
        "\u{b}1",
        "١",
        "0.1000000000000000055511151231257827",
        "16777217",
        "16777219.0000000000000000000001",
        "123456789012345678901234567890",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..20_000 {
        // Random decimals: up to 30 digits around a point, exponents to ±50.
        let digits = 1 + rng.next_u64() as usize % 30;
        let mut s = String::new();
        if rng.next_u64().is_multiple_of(3) {
            s.push('-');
        }
        let point = rng.next_u64() as usize % (digits + 1);
        for k in 0..digits {
            if k == point {
                s.push('.');
            }
            s.push(char::from(b'0' + (rng.next_u64() % 10) as u8));
        }
        if rng.next_u64().is_multiple_of(2) {
            s.push_str(&format!("e{}", rng.next_u64() as i64 % 51));
        }
        fields.push(s);
        // Random strings over the numerals' alphabet.
        let alphabet = b"0123456789+-.eE \t";
        let len = 1 + rng.next_u64() as usize % 8;
        fields.push(
            (0..len)
                .map(|_| char::from(alphabet[rng.next_u64() as usize % alphabet.len()]))
                .collect(),
        );
    }
    let mut read_ahead = 0;
    for field in &fields {
        let std = parse_number(field);
        match plain_number(field.as_bytes().trim_ascii()) {
            Some(x) => {
                read_ahead += 1;
                assert_eq!(std.map(f32::to_bits), Ok(x.to_bits()), "{field:?}");
            }
            None => {
                // Only digits, signs, points and exponents between ASCII
                // spaces, and std reads it: plain_number must too.
                let numeral = field
                    .as_bytes()
                    .trim_ascii()
                    .iter()
                    .all(|b| b.is_ascii_digit() || b"+-.eE".contains(b));
                assert!(!(numeral && std.is_ok()), "{field:?} fell to the row path");
            }
        }
    }
    assert!(read_ahead > 20_000, "{read_ahead}");
}

/// Rows across several batches and parallel tasks: ids, lines and values in
/// file order, bad rows (numbers, quotes, a header-like row, a repeated id,
/// a wrong width) reported in line order with the messages of the row path,
/// and the good rows between them kept.
#[test]
fn rows_read_ahead_keep_order_lines_and_messages() {
    let mut text = String::from("id,x,y,z\n");
    let mut want_ids = Vec::new();
    let mut want_values = Vec::new();
    let mut want_lines = Vec::new();
    let mut want_bad = Vec::new();
    let rows = 3 * BATCH_LINES + 17;
    for i in 0..rows {
        let line = i as u64 + 2;
        let values = [i as f32 * 0.25, -(i as f32) / 7.0, 1e-3 * i as f32];
        match i % 997 {
            5 => {
                text.push_str(&format!("r{i},1,x,3\n"));
                want_bad.push((line, "component 2: \"x\" is not a number".to_string()));
            }
            6 => {
                text.push_str(&format!("r{i},1,2\n"));
                want_bad.push((
                    line,
                    "2 components where the rows before have 3".to_string(),
                ));
            }
            7 => {
                text.push_str("r0,1,2,3\n");
                want_bad.push((line, "id \"r0\" is also on line 2".to_string()));
            }
            8 => text.push('\n'),
            9 => {
                // Quoted: the row path, kept all the same.
                text.push_str(&format!(
                    "\"r{i}\",{},{},{}\n",
                    values[0], values[1], values[2]
                ));
                want_ids.push(format!("r{i}"));
                want_values.extend(values);
                want_lines.push(line);
            }
            _ => {
                text.push_str(&format!(
                    " r{i} ,{}, {} ,{}\r\n",
                    values[0], values[1], values[2]
                ));
                want_ids.push(format!("r{i}"));
                want_values.extend(values);
                want_lines.push(line);
            }
        }
    }
    let mut bad = Vec::new();
    let v = read_vectors(text.as_bytes(), true, &mut |e| bad.push((e.line, e.reason))).unwrap();
    assert_eq!(v.ids, want_ids);
    assert_eq!(v.lines, want_lines);
    assert_eq!(v.values, want_values);
    assert_eq!(bad, want_bad);
    // Without skipping, the first bad row ends the read with its message.
    let e = row_error(read_vectors(text.as_bytes(), false, &mut |_| {}));
    assert_eq!((e.line, e.reason), want_bad[0].clone());
}

/// Review N1.38: a byte-order mark became part of the first id.
#[test]
fn a_byte_order_mark_is_not_part_of_the_first_id() {
    let v = vectors("\u{feff}a,1,0\nb,0,1\n").unwrap();
    assert_eq!(v.ids, ["a", "b"]);
    let b = bits("\u{feff}id,bits\na,0101\n").unwrap();
    assert_eq!(b.ids, ["a"]);
}

/// Review N1.41: a malformed first row of bits was dropped as a header,
/// without a word. A value with a digit is a bit string written wrong.
#[test]
fn a_malformed_first_bit_string_is_an_error_not_a_header() {
    for first in [
        "a,0101x101",
        "a,0101 0101",
        "a,\u{ff10}\u{ff11}\u{ff10}\u{ff11}",
    ] {
        let text = format!("{first}\nb,01010101\nc,01010101\n");
        let err = row_error(bits(&text));
        assert_eq!(err.line, 1, "{first}: {err}");
    }
    // A header names its column: no digit.
    let b = bits("id,bits\na,0101\n").unwrap();
    assert_eq!(b.ids, ["a"]);
}
