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
