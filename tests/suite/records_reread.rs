//! Record files read again at the candidates' offsets (their texts are not
//! held once signed) against stdin, which cannot be read again and holds
//! them: both must give the same bytes, end to end (`-j 2` for the files,
//! `-j 1` for stdin). JSON Lines is in `tests/records.rs`; here CSV and TSV
//! (whole records and `--link`), and `--important-words`, whose records are
//! not the inputs' texts and so must not be read again. A record changed
//! meanwhile is unit-tested (`pipeline::records::compact::tests`).

use std::process::Output;

use crate::util::*;

/// Data rows of the output (header dropped).
fn pairs(out: &Output) -> usize {
    String::from_utf8_lossy(&out.stdout).lines().count() - 1
}

/// `count` records with ids `{prefix}{i}`, every 10th a near-copy of the
/// one before; as `sep`-separated rows (header `id,title,body`) with quoted
/// bodies that hold the separator, a quote and (every 9th) a line break,
/// lines ended by `eol`, blank lines between some rows.
fn table(prefix: &str, count: usize, sep: char, eol: &str) -> String {
    let mut out = format!("id{sep}title{sep}body{eol}");
    for (i, text) in near_copy_texts(count).into_iter().enumerate() {
        let body = if i % 9 == 0 {
            text.replacen(' ', &format!("{sep} \"\"{eol}"), 1)
        } else {
            text.replacen(' ', &format!("{sep} "), 1)
        };
        let title = NEAR_COPY_WORDS[i % 12];
        out += &format!("{prefix}{i:05}{sep}{title}{sep}\"{body}\"{eol}");
        if i % 13 == 0 {
            out += eol;
        }
    }
    out
}

fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("changed while the scan ran"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn csv_and_tsv_files_read_again_give_what_stdin_held_gives() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, sep, eol) in [("csv", ',', "\n"), ("tsv", '\t', "\r\n")] {
        let data = table("r", 3000, sep, eol);
        let name = format!("r.{kind}");
        write(dir.path(), &name, data.as_bytes());
        let file = run_in(
            dir.path(),
            &["scan", "--input", kind, &name, "-t", "0.6", "-j", "2"],
            b"",
        );
        let stdin = run_in(
            dir.path(),
            &["scan", "--input", kind, "-", "-t", "0.6", "-j", "1"],
            data.as_bytes(),
        );
        ok(&file);
        ok(&stdin);
        assert!(pairs(&file) >= 250, "{kind}: {} pairs", pairs(&file));
        assert!(file.stdout == stdin.stdout, "{kind}: file and stdin differ");
    }
}

/// The summary's candidate count.
fn candidates(out: &Output) -> usize {
    let err = String::from_utf8_lossy(&out.stderr);
    let at = err.find(" candidates").expect("a summary with candidates");
    let digits: String = err[..at]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

/// CSV's default 2-character shingles over a small vocabulary: nearly every
/// record is a candidate of many (the case of `bench/many_records.sh` at
/// `-k 2`, where every record is read again and ranked among those read
/// for each of its candidates). Read again by one thread or two, or held
/// (stdin), the pairs are the same bytes.
#[test]
fn records_read_again_when_nearly_all_are_candidates_give_what_stdin_held_gives() {
    let dir = tempfile::tempdir().unwrap();
    let data = table("r", 2000, ',', "\n");
    write(dir.path(), "r.csv", data.as_bytes());
    let args = ["scan", "--input", "csv", "-t", "0.7"];
    let files: Vec<Output> = ["1", "2"]
        .iter()
        .map(|j| run_in(dir.path(), &[&args[..], &["r.csv", "-j", j]].concat(), b""))
        .collect();
    let stdin = run_in(
        dir.path(),
        &[&args[..], &["-", "-j", "1"]].concat(),
        data.as_bytes(),
    );
    for out in files.iter().chain([&stdin]) {
        ok(out);
    }
    assert!(
        candidates(&files[0]) >= 20 * 2000,
        "{} candidates of 2000 records",
        candidates(&files[0])
    );
    assert!(pairs(&files[0]) >= 150, "{} pairs", pairs(&files[0]));
    assert!(files[0].stdout == files[1].stdout, "-j 1 and -j 2 differ");
    assert!(files[0].stdout == stdin.stdout, "file and stdin differ");
}

#[test]
fn linked_csv_files_read_again_give_what_stdin_held_gives() {
    let dir = tempfile::tempdir().unwrap();
    // The second input copies every 3rd record of the first, one word changed.
    let a = table("a", 1500, ',', "\n");
    let mut b = csv::Writer::from_writer(Vec::new());
    b.write_record(["id", "title", "body"]).unwrap();
    for (i, row) in csv::Reader::from_reader(a.as_bytes()).records().enumerate() {
        let row = row.unwrap();
        if i % 3 == 0 {
            let id = row[0].replacen('a', "b", 1);
            b.write_record([&id, &row[1], &row[2].replacen("cedar", "quartz", 1)])
                .unwrap();
        }
    }
    let b = String::from_utf8(b.into_inner().unwrap()).unwrap();
    write(dir.path(), "a.csv", a.as_bytes());
    write(dir.path(), "b.csv", b.as_bytes());
    let link = ["scan", "--input", "csv", "--link", "-t", "0.6"];
    let files = run_in(
        dir.path(),
        &[&link[..], &["a.csv", "b.csv", "-j", "2"]].concat(),
        b"",
    );
    // One input from stdin: the texts are held.
    let stdin = run_in(
        dir.path(),
        &[&link[..], &["a.csv", "-", "-j", "1"]].concat(),
        b.as_bytes(),
    );
    ok(&files);
    ok(&stdin);
    assert!(pairs(&files) >= 100, "{} pairs", pairs(&files));
    assert!(files.stdout == stdin.stdout, "files and stdin differ");
}

/// `--important-words` signs each record's TF.IDF words, not its text: read
/// again, the text would differ from what was signed, and every candidate
/// was reported as changed (its pairs lost).
#[test]
fn important_words_records_are_not_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let csv = table("r", 600, ',', "\n");
    let jsonl: String = csv::Reader::from_reader(csv.as_bytes())
        .records()
        .map(|row| {
            let row = row.unwrap();
            let text = format!("{} {}", &row[1], &row[2]);
            format!("{}\n", serde_json::json!({"id": &row[0], "text": text}))
        })
        .collect();
    write(dir.path(), "r.csv", csv.as_bytes());
    write(dir.path(), "r.jsonl", jsonl.as_bytes());
    for (kind, name, data) in [("csv", "r.csv", &csv), ("jsonl", "r.jsonl", &jsonl)] {
        let args = [
            "scan",
            "--input",
            kind,
            "--important-words",
            "6",
            "-t",
            "0.5",
        ];
        let file = run_in(dir.path(), &[&args[..], &[name, "-j", "2"]].concat(), b"");
        let stdin = run_in(
            dir.path(),
            &[&args[..], &["-", "-j", "1"]].concat(),
            data.as_bytes(),
        );
        ok(&file);
        ok(&stdin);
        assert!(pairs(&file) >= 20, "{kind}: {} pairs", pairs(&file));
        assert!(file.stdout == stdin.stdout, "{kind}: file and stdin differ");
    }
}
