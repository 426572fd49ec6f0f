//! Record files as people have them (issue #39 point 3), through the real
//! binary: another delimiter (`--delimiter`, and a semicolon file without
//! it named), encodings other than UTF-8 (detected or `--encoding`), byte-
//! order marks, and gzip/zstd inputs (files and stdin), each read as the
//! same records as the plain UTF-8 file.

use std::io::Write;
use std::path::Path;
use std::process::Output;

use crate::util::*;

/// Four people, two of them near each other twice: the UTF-8 text.
const PEOPLE: &str = "id,name,city\n\
                      1,José García,Málaga\n\
                      2,José García,Malaga\n\
                      3,Mary Smith,Denver\n\
                      4,Mary Smyth,Denver\n";

/// `scan --input KIND FILE -t 0.5` plus `extra`, run in `dir`.
fn scan(dir: &std::path::Path, kind: &str, file: &str, extra: &[&str], stdin: &[u8]) -> Output {
    let args = [&["scan", "--input", kind, file, "-t", "0.5"][..], extra].concat();
    run_in(dir, &args, stdin)
}

/// The pairs the plain UTF-8 CSV gives: what every other form must give.
fn expected(dir: &std::path::Path) -> Vec<u8> {
    write(dir, "plain.csv", PEOPLE.as_bytes());
    let out = scan(dir, "csv", "plain.csv", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("\n1,2,"), "{}", stdout(&out));
    out.stdout
}

fn latin1(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

#[test]
fn a_semicolon_file_is_read_with_delimiter_and_named_without() {
    let dir = tempfile::tempdir().unwrap();
    let want = expected(dir.path());
    write(dir.path(), "semi.csv", PEOPLE.replace(',', ";").as_bytes());
    let out = scan(dir.path(), "csv", "semi.csv", &["--delimiter", ";"], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, want);

    // Without it: the message names the flag and the byte, not the id.
    let out = scan(dir.path(), "csv", "semi.csv", &[], b"");
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("semi.csv:1:"), "{err}");
    assert!(err.contains("--delimiter ';'"), "{err}");

    // A tab, written as \t, and `|`.
    write(dir.path(), "tab.csv", PEOPLE.replace(',', "\t").as_bytes());
    let out = scan(dir.path(), "csv", "tab.csv", &["--delimiter", "\\t"], b"");
    assert_eq!(out.stdout, want, "{}", stderr(&out));
    write(dir.path(), "bar.txt", PEOPLE.replace(',', "|").as_bytes());
    let out = scan(dir.path(), "tsv", "bar.txt", &["--delimiter", "|"], b"");
    assert_eq!(out.stdout, want, "{}", stderr(&out));
}

#[test]
fn a_bad_delimiter_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "p.csv", PEOPLE.as_bytes());
    for bad in ["ab", "\"", "é"] {
        let out = scan(dir.path(), "csv", "p.csv", &["--delimiter", bad], b"");
        assert_eq!(code(&out), 2, "{bad}");
        assert!(stderr(&out).contains("--delimiter"), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    write(dir.path(), "p.jsonl", b"{\"id\":\"a\",\"text\":\"x\"}\n");
    let out = scan(dir.path(), "jsonl", "p.jsonl", &["--delimiter", ";"], b"");
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--delimiter does not apply to --input jsonl"),
        "{}",
        stderr(&out)
    );
    let out = scan(dir.path(), "csv", "p.csv", &["--encoding", "klingon"], b"");
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("not an encoding name"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn latin1_and_utf16_files_read_as_their_utf8_text() {
    let dir = tempfile::tempdir().unwrap();
    let want = expected(dir.path());

    // Latin-1 (Windows-1252), detected, and named.
    write(dir.path(), "latin1.csv", &latin1(PEOPLE));
    let out = scan(dir.path(), "csv", "latin1.csv", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, want);
    let out = scan(
        dir.path(),
        "csv",
        "latin1.csv",
        &["--encoding", "latin1"],
        b"",
    );
    assert_eq!(out.stdout, want, "{}", stderr(&out));

    // UTF-16LE with its byte-order mark, and UTF-16BE without one.
    let mut le = vec![0xff, 0xfe];
    let mut be = Vec::new();
    for unit in PEOPLE.encode_utf16() {
        le.extend_from_slice(&unit.to_le_bytes());
        be.extend_from_slice(&unit.to_be_bytes());
    }
    write(dir.path(), "le.csv", &le);
    write(dir.path(), "be.csv", &be);
    for file in ["le.csv", "be.csv"] {
        let out = scan(dir.path(), "csv", file, &[], b"");
        assert_eq!(code(&out), 0, "{file}: {}", stderr(&out));
        assert_eq!(out.stdout, want, "{file}");
    }
    // From stdin too.
    let out = scan(dir.path(), "csv", "-", &[], &le);
    assert_eq!(out.stdout, want, "{}", stderr(&out));
}

#[test]
fn a_bom_is_skipped_in_jsonl_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let want = expected(dir.path());
    let marked = [&b"\xEF\xBB\xBF"[..], PEOPLE.as_bytes()].concat();
    write(dir.path(), "bom.csv", &marked);
    let out = scan(dir.path(), "csv", "bom.csv", &[], b"");
    assert_eq!(out.stdout, want, "{}", stderr(&out));

    let jsonl = "{\"id\":\"a\",\"text\":\"José García de Málaga\"}\n\
                 {\"id\":\"b\",\"text\":\"José García de Málaga\"}\n";
    let mut utf16 = vec![0xfe, 0xff];
    for unit in jsonl.encode_utf16() {
        utf16.extend_from_slice(&unit.to_be_bytes());
    }
    write(dir.path(), "bom.jsonl", &utf16);
    let out = scan(dir.path(), "jsonl", "bom.jsonl", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("\na,b,1.000000"), "{}", stdout(&out));
}

#[test]
fn mixed_bytes_are_named_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    // UTF-8 text with one Latin-1 byte on line 4.
    let mut mixed = "id,name\n1,José\n2,Josè\n".as_bytes().to_vec();
    mixed.extend_from_slice(b"3,Jos\xe9\n");
    write(dir.path(), "mixed.csv", &mixed);
    let out = scan(dir.path(), "csv", "mixed.csv", &[], b"");
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("mixed.csv:4:") && err.contains("not valid UTF-8"),
        "{err}"
    );

    // UTF-16 with a lone surrogate: the input and the line it is on.
    let mut utf16 = vec![0xff, 0xfe];
    for unit in "id,name\n1,ab\n2,ab\n".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    utf16.extend_from_slice(&[b'3', 0, b',', 0, 0x00, 0xd8, b'\n', 0]);
    write(dir.path(), "broken.csv", &utf16);
    let out = scan(dir.path(), "csv", "broken.csv", &[], b"");
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("broken.csv:") && err.contains("not UTF-16LE"),
        "{err}"
    );
}

#[test]
fn gzip_and_zstd_inputs_are_decompressed_files_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let want = expected(dir.path());
    let gz = gzip(PEOPLE.as_bytes());
    write(dir.path(), "p.csv.gz", &gz);
    let out = scan(dir.path(), "csv", "p.csv.gz", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, want);
    let out = scan(dir.path(), "csv", "-", &[], &gz);
    assert_eq!(out.stdout, want, "{}", stderr(&out));

    // zstd, of Latin-1 text: decompressed, then decoded.
    let zst = zstd::encode_all(&latin1(PEOPLE)[..], 3).unwrap();
    write(dir.path(), "p.csv.zst", &zst);
    let out = scan(dir.path(), "csv", "p.csv.zst", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, want);

    // JSON Lines, gzip-compressed.
    let jsonl = "{\"id\":\"a\",\"text\":\"the same words here\"}\n\
                 {\"id\":\"b\",\"text\":\"the same words here\"}\n";
    write(dir.path(), "d.jsonl.gz", &gzip(jsonl.as_bytes()));
    let out = scan(dir.path(), "jsonl", "d.jsonl.gz", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("\na,b,1.000000"), "{}", stdout(&out));
}

#[test]
fn a_gzip_bomb_ends_at_the_line_cap() {
    let dir = tempfile::tempdir().unwrap();
    // 64 MiB of zeros after a header: some 64 KB compressed.
    let mut bomb = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    bomb.write_all(b"id,text\n1,").unwrap();
    let zeros = vec![b'0'; 1 << 20];
    for _ in 0..64 {
        bomb.write_all(&zeros).unwrap();
    }
    write(dir.path(), "bomb.csv.gz", &bomb.finish().unwrap());
    let out = scan(
        dir.path(),
        "csv",
        "bomb.csv.gz",
        &["--max-line-length", "1M"],
        b"",
    );
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("bomb.csv.gz:2:"), "{err}");
    assert!(err.contains("cap of 1048576 bytes"), "{err}");
}

#[test]
fn rows_are_numbered_without_an_id_column() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "noid.csv",
        b"name,city\nJohn Smith,Boston\n\nJon Smith,Boston\nMary Jones,Denver\n",
    );
    let out = scan(dir.path(), "csv", "noid.csv", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The blank line is no row: Jon is row 2.
    assert!(stdout(&out).contains("\n1,2,"), "{}", stdout(&out));

    // A named id column that is missing says how to number instead.
    let out = scan(dir.path(), "csv", "noid.csv", &["--id-column", "key"], b"");
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("no column 'key'") && err.contains("leave it out"),
        "{err}"
    );

    // An `ID` column is not taken for no id column.
    write(dir.path(), "upper.csv", b"ID,name\n1,a b\n2,a b\n");
    let out = scan(dir.path(), "csv", "upper.csv", &[], b"");
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--id-column ID"), "{}", stderr(&out));
}

/// JSON Lines without an id field number their records as a CSV without an
/// id column does: the first object decides, blank lines are no records, a
/// bad line keeps its number; the file is not read again at offsets (a
/// line alone does not know its number), so the pairs are those of the
/// same records with ids, and --write-kept still writes the kept lines.
#[test]
fn jsonl_records_are_numbered_without_an_id_field() {
    let dir = tempfile::tempdir().unwrap();
    let texts = [
        "John Smith lives in Boston",
        "Jon Smith lives in Boston",
        "Mary Jones lives in Denver",
        "John Smith lives in Boston",
    ];
    let with_ids: String = (1..)
        .zip(texts)
        .map(|(i, t)| format!("{{\"id\":\"{i}\",\"text\":\"{t}\"}}\n"))
        .collect();
    write(dir.path(), "ids.jsonl", with_ids.as_bytes());
    // No id field; a blank line after the first; the fourth object has an
    // id field of its own, which the numbering does not look at.
    let without: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| match i {
            0 => format!("{{\"text\":\"{t}\"}}\n\n"),
            3 => format!("{{\"id\":\"x\",\"text\":\"{t}\"}}\n"),
            _ => format!("{{\"text\":\"{t}\"}}\n"),
        })
        .collect();
    write(dir.path(), "noid.jsonl", without.as_bytes());
    let expected = scan(dir.path(), "jsonl", "ids.jsonl", &[], b"");
    assert_eq!(code(&expected), 0, "{}", stderr(&expected));
    assert!(
        stdout(&expected).contains("\n1,4,"),
        "{}",
        stdout(&expected)
    );
    let out = scan(dir.path(), "jsonl", "noid.jsonl", &[], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), stdout(&expected));
    // From stdin, the same.
    let piped = scan(dir.path(), "jsonl", "-", &[], without.as_bytes());
    assert_eq!(stdout(&piped), stdout(&expected), "{}", stderr(&piped));

    // Kept lines: record 4 is record 1's copy.
    let out = run_in(
        dir.path(),
        &[
            "scan",
            "--input",
            "jsonl",
            "noid.jsonl",
            "--list-removable",
            "--write-kept",
            "kept.jsonl",
        ],
        b"",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "4\n");
    let kept = std::fs::read_to_string(dir.path().join("kept.jsonl")).unwrap();
    let mut lines = without.lines().filter(|l| !l.is_empty());
    let first_three: Vec<&str> = lines.by_ref().take(3).collect();
    assert_eq!(kept, first_three.join("\n") + "\n");

    // A bad line keeps its number: the next record is still 3.
    let bad = "{\"text\":\"a b c d e f\"}\nnot json\n{\"text\":\"a b c d e f\"}\n";
    write(dir.path(), "bad.jsonl", bad.as_bytes());
    let out = scan(dir.path(), "jsonl", "bad.jsonl", &["--skip-bad-rows"], b"");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stdout(&out).contains("\n1,3,"), "{}", stdout(&out));

    // A named id field that is missing is a bad row, as before.
    let out = scan(
        dir.path(),
        "jsonl",
        "noid.jsonl",
        &["--id-field", "id"],
        b"",
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("noid.jsonl:1: missing id field 'id'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn write_kept_writes_the_deduplicated_file_in_the_input_form() {
    let dir = tempfile::tempdir().unwrap();
    // A semicolon file, Latin-1, gzip-compressed: row 3 is a copy of row 1
    // but for an accent, row 5 of row 4; the kept file is UTF-8 and plain.
    let rows = "id;name;note\n\
                a;José García;\"says \"\"hi\"\"; twice\"\n\
                b;Mary Smith;x\n\
                c;Jose Garcia;\"says \"\"hi\"\"; twice\"\n\
                d;Robert Brown;y\n\
                e;Robert Brown;y\n";
    write(dir.path(), "p.csv.gz", &gzip(&latin1(rows)));
    let args = [
        "p.csv.gz",
        "--delimiter",
        ";",
        "--fold",
        "accents",
        "--write-kept",
        "kept.csv",
        "-o",
        "pairs.csv",
    ];
    let out = scan(dir.path(), "csv", args[0], &args[1..], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let kept = std::fs::read_to_string(dir.path().join("kept.csv")).unwrap();
    assert_eq!(
        kept,
        "id;name;note\n\
         a;José García;\"says \"\"hi\"\"; twice\"\n\
         b;Mary Smith;x\n\
         d;Robert Brown;y\n"
    );
    // --list-removable names the ids left out, by the same rule.
    let args = [
        "p.csv.gz",
        "--delimiter",
        ";",
        "--fold",
        "accents",
        "--list-removable",
    ];
    let out = scan(dir.path(), "csv", args[0], &args[1..], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "c\ne\n");

    // JSON Lines: line for line; the removal threshold is 0.9 unless -t.
    let jsonl = "{\"id\":\"1\",\"text\":\"the quick brown fox jumps over the lazy dog\"}\n\
                 {\"id\":\"2\",\"text\":\"the quick brown fox jumps over the lazy dog\"}\n\
                 \n\
                 {\"id\":\"3\",\"text\":\"an entirely different line of text here\"}\n";
    write(dir.path(), "d.jsonl", jsonl.as_bytes());
    let out = run_in(
        dir.path(),
        &[
            "scan",
            "--input",
            "jsonl",
            "d.jsonl",
            "--write-kept",
            "k.jsonl",
        ],
        b"",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("threshold 0.900"), "{}", stderr(&out));
    let kept = std::fs::read_to_string(dir.path().join("k.jsonl")).unwrap();
    assert_eq!(
        kept,
        "{\"id\":\"1\",\"text\":\"the quick brown fox jumps over the lazy dog\"}\n\
         {\"id\":\"3\",\"text\":\"an entirely different line of text here\"}\n"
    );
}

/// From stdin (plain or gzipped) --write-kept writes what it writes from
/// the same file: stdin is copied beside the kept file, read from there,
/// named `stdin` in messages, and the copy is gone after the run, also
/// after an error.
#[test]
fn write_kept_takes_stdin() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "p.csv", PEOPLE.as_bytes());
    let from_file = scan(dir.path(), "csv", "p.csv", &["--write-kept", "f.csv"], b"");
    assert_eq!(code(&from_file), 0, "{}", stderr(&from_file));
    let expected = std::fs::read(dir.path().join("f.csv")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&expected),
        "id,name,city\n1,José García,Málaga\n3,Mary Smith,Denver\n"
    );
    for (name, input) in [
        ("s.csv", PEOPLE.as_bytes().to_vec()),
        ("z.csv", gzip(PEOPLE.as_bytes())),
    ] {
        let out = scan(dir.path(), "csv", "-", &["--write-kept", name], &input);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(out.stdout, from_file.stdout);
        assert_eq!(std::fs::read(dir.path().join(name)).unwrap(), expected);
    }
    let ragged = format!("{PEOPLE}5,a,b,c\n");
    let out = scan(
        dir.path(),
        "csv",
        "-",
        &["--write-kept", "r.csv"],
        ragged.as_bytes(),
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("stdin:6: 4 fields"),
        "{}",
        stderr(&out)
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        left.iter().all(|n| !n.starts_with(".simfind-stdin")) && !left.contains(&"r.csv".into()),
        "{left:?}"
    );
}

#[test]
fn write_kept_is_refused_where_it_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "p.csv", PEOPLE.as_bytes());
    let out = scan(
        dir.path(),
        "csv",
        "p.csv",
        &["--write-kept", "no/such/dir/k.csv"],
        b"",
    );
    assert_eq!(code(&out), 2);
    assert!(out.stdout.is_empty(), "refused before any work");
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    let out = sim_in(dir.path(), &["scan", "docs", "--write-kept", "k.csv"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--write-kept does not apply to --input files"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("k.csv").exists());
}

/// `explain` and `score` read a semicolon file in Latin-1 (gzipped too) as
/// `scan` does: `--delimiter` and `--encoding`, and score's check of the
/// header decodes the first line before it looks for the columns.
#[test]
fn explain_and_score_take_delimiter_and_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let a = "id;nombre;código\n1;José García;AB12\n2;Mary Smith;CD34\n";
    let b = "id;nombre;código\nx;José García;AB12\ny;Mary Smyth;CD34\n";
    write(dir.path(), "a.csv", &latin1(a));
    write(dir.path(), "b.csv.gz", &gzip(&latin1(b)));
    let score = |extra: &[&str]| {
        let args = [
            &["score", "a.csv", "b.csv.gz", "--fields", "nombre,código"][..],
            extra,
        ]
        .concat();
        run_in(dir.path(), &args, b"")
    };
    let out = score(&["--delimiter", ";", "--encoding", "latin1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "a,b,score,nombre,código\n1,x,200,100,100\n2,y,196,96,100\n"
    );
    // Smith and Smyth: two edits of insertion and deletion, 100 − 2².
    // Without the delimiter, the header is one column: named, exit 2.
    let out = score(&["--encoding", "latin1"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("a.csv: no column")
            && stderr(&out).contains("read it with --delimiter ';'"),
        "the header's ';' is named: {}",
        stderr(&out)
    );
    let out = score(&["--delimiter", ";", "--encoding", "no-such"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("not an encoding name"),
        "{}",
        stderr(&out)
    );

    let explain = |extra: &[&str]| {
        let args = [&["explain", "--input", "csv", "a.csv", "1", "2"][..], extra].concat();
        run_in(dir.path(), &args, b"")
    };
    let out = explain(&["--delimiter", ";", "--encoding", "latin1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("José García"), "{text}");
    assert!(text.contains("Mary Smith"), "{text}");
    // Without --delimiter, the row is one column and the id is not found.
    let out = explain(&["--encoding", "latin1"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    // --delimiter is for tables.
    let out = run_in(
        dir.path(),
        &[
            "explain",
            "--input",
            "jsonl",
            "a.csv",
            "1",
            "2",
            "--delimiter",
            ";",
        ],
        b"",
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--delimiter does not apply to --input jsonl"),
        "{}",
        stderr(&out)
    );
}

/// The tokens of `--input sets` are compared whole: every command that reads
/// sets refuses `--shingle` and `-k` before any work, with one message (the
/// library's `check_shingling`, worded once by the binary).
#[test]
fn sets_refuse_shingling_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let sets = dir.path().join("sets.tsv");
    std::fs::write(&sets, "a\tx y z\nb\tx y w\n").unwrap();
    let sets = sets.to_str().unwrap();
    let index = dir.path().join("sets.db");
    let index = index.to_str().unwrap();
    let shards = dir.path().join("shards");
    let shards = shards.to_str().unwrap();
    for shingling in [&["-k", "2"][..], &["--shingle", "word"][..]] {
        for command in [
            &["scan", "--input", "sets", sets][..],
            &["scan", "--input", "sets", sets, "--sketch", "icws"][..],
            &[
                "scan",
                "--input",
                "sets",
                sets,
                "--metric",
                "containment",
                "-t",
                "0.5",
            ][..],
            &["sign", "--input", "sets", sets, "--out", shards][..],
            &["index", "--db", index, "--input", "sets", sets][..],
        ] {
            let mut argv = command.to_vec();
            argv.extend_from_slice(shingling);
            let out = run(&argv);
            assert_eq!(out.status.code(), Some(2), "{argv:?}: {}", stderr(&out));
            assert_eq!(
                stderr(&out),
                "simfind: error: --input sets compares whole tokens: --shingle and -k do not \
                 apply\n",
                "{argv:?}"
            );
            assert_eq!(stdout(&out), "", "{argv:?}");
        }
    }
    assert!(!Path::new(index).exists() && !Path::new(shards).exists());
}

/// `--write-kept FILE --link A B` writes the rows of B that pair with no
/// record of A: the new records of a batch linked against a master file.
/// On the checked-in linkage benchmark (2,000 people in A; B holds a
/// damaged copy of 1,215 of them and 1,000 others) under the model, the
/// file is exactly B's rows whose id is no pair's `b`, in B's form; the
/// run is deterministic (fixed seed), so the floors sit just under what it
/// measures (3 linked rows written, 1 new row left out).
#[test]
fn write_kept_with_link_writes_the_second_inputs_new_records() {
    let dir = tempfile::tempdir().unwrap();
    let data = root().join("tests/records-data");
    for name in ["link_a.csv", "link_b.csv", "link_truth.csv"] {
        std::fs::copy(data.join(name), dir.path().join(name)).unwrap();
    }
    let link = |b: &str, extra: &[&str], stdin: &[u8]| {
        let args = [
            &[
                "scan",
                "--input",
                "csv",
                "--link",
                "link_a.csv",
                b,
                "--model",
                "fellegi-sunter",
            ][..],
            extra,
        ]
        .concat();
        run_in(dir.path(), &args, stdin)
    };
    let out = link("link_b.csv", &["--write-kept", "new.csv"], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("with no partner in link_a.csv"),
        "{}",
        stderr(&out)
    );
    let paired: std::collections::HashSet<String> = stdout(&out)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().to_string())
        .collect();
    let b = std::fs::read_to_string(dir.path().join("link_b.csv")).unwrap();
    let want: String = b
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || !paired.contains(l.split(',').next().unwrap()))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let kept = std::fs::read_to_string(dir.path().join("new.csv")).unwrap();
    assert_eq!(kept, want);
    let truth = std::fs::read_to_string(dir.path().join("link_truth.csv")).unwrap();
    let linked: std::collections::HashSet<&str> = truth
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    let ids: Vec<&str> = kept
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    let new = ids.iter().filter(|id| !linked.contains(*id)).count();
    let stale = ids.len() - new;
    assert_eq!(linked.len(), 1215);
    assert!(new >= 995, "{new} of the 1,000 new people written");
    assert!(stale <= 8, "{stale} of the 1,215 linked people written");

    // The batch from stdin: the same file.
    let out = link("-", &["--write-kept", "s.csv"], b.as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.csv")).unwrap(),
        kept
    );

    // Two inputs without --link: refused before any work, naming --link.
    let out = run_in(
        dir.path(),
        &[
            "scan",
            "--input",
            "csv",
            "link_a.csv",
            "link_b.csv",
            "--write-kept",
            "k.csv",
        ],
        b"",
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--link A B"), "{}", stderr(&out));
    assert!(out.stdout.is_empty() && !dir.path().join("k.csv").exists());
}
