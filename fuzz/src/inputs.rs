//! The properties of the fuzz targets over the inputs that landed after the
//! first targets (`props.rs`): record files, vectors and bit strings, and
//! `explain`'s span mapping (the exchange's Parquet files: `exchange.rs`). As in `props.rs`,
//! one `pub fn(&[u8])` per target, shared by `fuzz_targets/<name>.rs`
//! (nightly) and `tests/suite/fuzz_regressions.rs` (stable, every `cargo test`);
//! the first bytes of an input choose the options, the rest is the data.

use std::io::Write;

use simfind::input::InputKind;
use simfind::input::records::{self, RecordOptions, RowError};
use simfind::input::vectors::{self, ReadError};
use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

/// The data as a file (the record reader takes paths), in `TMPDIR`
/// (`fuzz/run.sh` puts it on tmpfs).
fn as_file(data: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
    file.write_all(data).expect("written");
    file
}

/// `records`: a file of records (JSON Lines, CSV, TSV, sets as lines or
/// `--pairs`) with any bytes, chosen columns or text paths and any line cap,
/// is read without a panic, and:
/// - skipping bad rows, the read succeeds; without, it fails exactly when a
///   row was skipped, with that first row's error, and otherwise gives the
///   same records;
/// - records come in line order, ids non-empty and unique, each with one
///   field per field name (sets: any number of tokens), its origin's line
///   the line its offset starts (1 + newlines before it) when the bytes
///   were read as they are (not transcoded from a legacy encoding or
///   UTF-16, not decompressed);
/// - a JSON Lines record's id and texts are what serde_json finds at their
///   paths in the line at its offset; or, when the input numbers its
///   records (its first object has no id field, none was named), its id is
///   a number, increasing, at most its line's;
/// - every reported row names a line of the file (0: the whole file) and a
///   reason.
pub fn records(data: &[u8]) {
    let [mode, cap, choice, rest @ ..] = data else {
        return;
    };
    let kind = [
        InputKind::Jsonl,
        InputKind::Csv,
        InputKind::Tsv,
        InputKind::Sets,
        InputKind::Sets,
    ][usize::from(mode % 5)];
    let mut options = RecordOptions::new(kind);
    options.pairs = mode % 5 == 4;
    // Small caps reach the long-line path; 0 keeps the default.
    if *cap > 0 {
        options.max_line = usize::from(*cap);
    }
    match kind {
        InputKind::Jsonl => match choice % 4 {
            0 => {}
            1 => options.text_fields = vec!["a.b".into(), "text".into()],
            2 => options.id_field = "m.id".into(),
            _ => options.text_fields = vec!["text".into(), "text".into()],
        },
        InputKind::Csv | InputKind::Tsv => match choice % 4 {
            0 => {}
            1 => options.columns = vec!["a".into(), "b".into()],
            2 => options.id_column = "b".into(),
            _ => options.columns = vec!["id".into()],
        },
        _ => {}
    }
    let file = as_file(rest);
    let inputs = [file.path().to_path_buf()];
    let mut warnings: Vec<RowError> = Vec::new();
    options.skip_bad_rows = true;
    let skipping = records::read_inputs(&inputs, &options, &mut |e| warnings.push(e.clone()))
        .unwrap_or_else(|e| panic!("skipping bad rows, one input cannot fail: {e}"));
    options.skip_bad_rows = false;
    let strict = records::read_inputs(&inputs, &options, &mut |e| {
        panic!("a warning without --skip-bad-rows: {e}")
    });
    match (&strict, warnings.first()) {
        (Ok(strict), None) => {
            assert_eq!(
                strict.records, skipping.records,
                "strict and skipping differ"
            );
            assert_eq!(strict.fields, skipping.fields);
        }
        // A strict read stops an over-long line at the cap, so it cannot
        // give the line's length as the skipping read does: the same row,
        // and a reason of the same kind. (The same error is no stop at the
        // cap, whatever its text quotes from the input.)
        (Err(e), Some(first)) if e != first && e.reason.contains("not read on") => {
            assert_eq!(
                (&e.input, e.line),
                (&first.input, first.line),
                "strict fails at another row: {e} / {first}"
            );
            // Or the input could not be read on within that line (a
            // damaged byte of a decoded encoding): the strict read never
            // read past the cap, so it could not meet it.
            assert!(
                first.reason.contains("longer than the cap")
                    || first.reason.starts_with("cannot read"),
                "strict stopped at the cap ({e}), skipping reported {first}"
            );
        }
        (Err(e), Some(first)) => assert_eq!(e, first, "strict fails at another row"),
        (Ok(_), Some(first)) => panic!("skipped {first}, but a strict read succeeds"),
        (Err(e), None) => panic!(
            "strict read fails ({e}) where nothing was skipped; the skipping read gave {:?} \
             (fields {:?}, {} skipped)",
            skipping.records, skipping.fields, skipping.skipped
        ),
    }
    assert_eq!(skipping.skipped, warnings.len() as u64);
    let lines = 1 + rest.iter().filter(|&&b| b == b'\n').count() as u64;
    for w in &warnings {
        assert!(w.line <= lines, "{w}: beyond the {lines} lines");
        assert!(!w.reason.is_empty(), "{w}: no reason");
    }
    let mut ids = std::collections::HashSet::new();
    let (mut last_line, mut last_offset) = (0, None);
    // JSON Lines whose first object has no id field (and no --id-field
    // named) number their records by their non-blank line: then every id is
    // a number, increasing, at most its line's.
    let numbered = kind == InputKind::Jsonl
        && !skipping.decoded
        && skipping.records.iter().any(|r| {
            let offset = usize::try_from(r.origin.offset).expect("an offset");
            let id = rest.get(offset..).and_then(|from| jsonl_id(from, &options));
            id.as_deref() != Some(r.id.as_str())
        });
    if numbered {
        assert!(
            !options.id_field_given,
            "numbered though the id field was named"
        );
    }
    let mut last_number = 0;
    for r in &skipping.records {
        if numbered {
            let n: u64 =
                r.id.parse()
                    .unwrap_or_else(|_| panic!("not a number: {r:?}"));
            assert!(
                n > last_number && n <= r.origin.line,
                "numbered out of order: {r:?}"
            );
            last_number = n;
        }
        assert!(!r.id.is_empty(), "an empty id: {r:?}");
        assert!(ids.insert(r.id.clone()), "id {:?} twice", r.id);
        // A CSV row may also end at a lone CR (the csv crate's terminator),
        // so rows can share a line: lines never go back, offsets always on.
        assert!(r.origin.line >= last_line, "out of line order: {r:?}");
        assert!(
            last_offset < Some(r.origin.offset),
            "out of offset order: {r:?}"
        );
        (last_line, last_offset) = (r.origin.line, Some(r.origin.offset));
        if skipping.decoded {
            // Read in another encoding (or decompressed): offsets are the
            // text's, not these bytes'.
            continue;
        }
        let offset = usize::try_from(r.origin.offset).expect("an offset");
        assert!(offset < rest.len(), "offset beyond the file: {r:?}");
        let before = rest[..offset].iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(r.origin.line, before + 1, "line and offset disagree: {r:?}");
        if kind != InputKind::Sets {
            assert_eq!(r.fields.len(), skipping.fields.len(), "{r:?}");
        }
        if kind == InputKind::Jsonl {
            jsonl_record_is_its_line(&rest[offset..], &options, r, numbered);
        }
    }
}

/// The JSON value of the line that starts `from`.
fn jsonl_line(from: &[u8]) -> serde_json::Value {
    let line = from.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    serde_json::from_slice(line).expect("a record's line is JSON")
}

/// A field of `value` at its dotted `path` as a record holds it.
fn jsonl_text(value: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    let found = path
        .split('.')
        .try_fold(value, |v, key| v.as_object()?.get(key))?;
    Some(match found {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    })
}

/// The id field of the JSON line that starts `from`, if it has one.
fn jsonl_id(from: &[u8], options: &RecordOptions) -> Option<String> {
    jsonl_text(&jsonl_line(from), &options.id_field)
}

/// The record read from the JSON line that starts `from`: the id (unless
/// `numbered`) and the text fields as serde_json finds them at their
/// dotted paths.
fn jsonl_record_is_its_line(
    from: &[u8],
    options: &RecordOptions,
    r: &records::Record,
    numbered: bool,
) {
    let value = jsonl_line(from);
    let text = |path: &str| {
        jsonl_text(&value, path)
            .unwrap_or_else(|| panic!("a record from a line without the field {path}: {r:?}"))
    };
    if !numbered {
        assert_eq!(text(&options.id_field), r.id);
    }
    for (path, field) in options.text_fields.iter().zip(&r.fields) {
        assert_eq!(&text(path), field, "field {path}");
    }
}

/// `vectors`: a file of vectors or bit strings with any bytes is read
/// without a panic, and:
/// - strict and skipping reads agree as for records (the strict one fails
///   at the first row the skipping one reports);
/// - vectors: one dimension of at least 1, `n × d` values, all finite;
///   bit strings: `n × ⌈bits/64⌉` words, no bit set beyond `bits`;
///   ids non-empty, trimmed and unique;
/// - `parse_bits` of the whole text gives the bits by their definition
///   (`0`/`1` in order, or four per hexadecimal digit after `0x`, most
///   significant first), and `parse_number` a finite `f32` equal to Rust's
///   own parse of the trimmed text, or an error.
pub fn vectors(data: &[u8]) {
    let [mode, rest @ ..] = data else { return };
    let mut skipped = Vec::new();
    // Whether the skipping read found no row at all, and the strict read.
    let (skipping_empty, strict) = if mode & 1 == 1 {
        let skipping = vectors::read_bits(rest, true, &mut |e| skipped.push(e));
        if let Ok(b) = &skipping {
            assert!(b.bits >= 1);
            let w = b.words_per_string();
            assert_eq!(b.words.len(), b.len() * w);
            if !b.bits.is_multiple_of(64) {
                let high = !0u64 << (b.bits % 64);
                for i in 0..b.len() {
                    assert_eq!(b.row(i)[w - 1] & high, 0, "a bit beyond {} set", b.bits);
                }
            }
            ids_are_unique(&b.ids);
        }
        let strict = vectors::read_bits(rest, false, &mut |e| panic!("strict skipped {e}"));
        (
            matches!(skipping, Err(ReadError::Empty)),
            strict.map(|_| ()),
        )
    } else {
        let skipping = vectors::read_vectors(rest, true, &mut |e| skipped.push(e));
        if let Ok(v) = &skipping {
            assert!(v.dim >= 1);
            assert_eq!(v.values.len(), v.len() * v.dim);
            assert!(v.values.iter().all(|x| x.is_finite()));
            ids_are_unique(&v.ids);
        }
        let strict = vectors::read_vectors(rest, false, &mut |e| panic!("strict skipped {e}"));
        (
            matches!(skipping, Err(ReadError::Empty)),
            strict.map(|_| ()),
        )
    };
    match (strict, skipped.first()) {
        (Ok(()), None) => assert!(
            !skipping_empty,
            "strict reads rows the skipping read has not"
        ),
        (Err(ReadError::Empty), None) => assert!(skipping_empty, "strict finds no row"),
        (Err(ReadError::Row(e)), Some(first)) => assert_eq!(&e, first, "strict fails elsewhere"),
        (strict, first) => panic!("strict {strict:?}, first skipped {first:?}"),
    }
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut words = vec![0xFFFF_FFFF_FFFF_FFFF];
    if let Ok(n) = vectors::parse_bits(text, &mut words) {
        let t = text.trim();
        let expected: Vec<bool> = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => hex
                .chars()
                .flat_map(|c| {
                    let d = c.to_digit(16).expect("a hexadecimal digit");
                    (0..4).map(move |b| d >> (3 - b) & 1 == 1)
                })
                .collect(),
            None => t.chars().map(|c| c == '1').collect(),
        };
        assert_eq!(n, expected.len());
        assert_eq!(words.len(), n.div_ceil(64), "words of {n} bits");
        for (i, &on) in expected.iter().enumerate() {
            assert_eq!(words[i / 64] >> (i % 64) & 1 == 1, on, "bit {i} of {t:?}");
        }
        assert!(
            n.is_multiple_of(64) || words[n / 64] >> (n % 64) == 0,
            "bits beyond {n}"
        );
    }
    if let Ok(x) = vectors::parse_number(text) {
        assert!(x.is_finite());
        assert_eq!(Ok(x), text.trim().parse::<f32>(), "{text:?}");
    }
}

fn ids_are_unique(ids: &[String]) {
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        assert!(!id.is_empty() && id.trim() == id, "id {id:?}");
        assert!(seen.insert(id), "id {id:?} twice");
    }
}

/// `explain`: two texts (any bytes, split where the first byte says) under
/// any normalisation, shingle kind and k: the explanation tiles A with its
/// passages and only-A ranges, marks in B exactly what no passage covers,
/// counts the shingles and the Jaccard similarity of the two sets, and the
/// passages' new shingles sum to the shared ones. Each passage occurs in
/// both at its offsets: its two ranges normalise to the same text
/// (character shingles, whitespace collapsed or kept: #18 is fixed), hold
/// the same words (word and stop-word shingles) or the same words that are
/// not stop words (important-word shingles), and have the same shingles.
pub fn explain(data: &[u8]) {
    let [flags, split, k, rest @ ..] = data else {
        return;
    };
    let normalization = Normalization {
        lowercase: flags & 1 == 0,
        collapse_whitespace: flags & 2 == 0,
        drop_whitespace: false,
        fold_accents: false,
        fold_punct: false,
    };
    let kind = crate::props::kind_of(flags >> 2);
    let k = 1 + usize::from(k % 8);
    let recipe = simfind::recipe::Recipe {
        normalization,
        shingler: Shingler::new(kind, k, StopWords::from_words(["a", "the", "of", "σ"])),
        sketch: simfind::sketch::SketchKind::Classic,
        seed: 3,
        banding: simfind::lsh::Banding { bands: 4, rows: 2 },
        include_binary: false,
    };
    let split = usize::from(*split).min(rest.len());
    let (a, b) = rest.split_at(split);
    let e = simfind::explain::spans::explain(a, b, &recipe);

    let mut tiles: Vec<std::ops::Range<usize>> = e.shared.iter().map(|s| s.a.clone()).collect();
    assert!(
        tiles.windows(2).all(|w| w[0].end <= w[1].start),
        "passages overlap or are out of order: {e:?}"
    );
    tiles.extend(e.only_a.iter().cloned());
    tiles.sort_by_key(|t| t.start);
    let mut at = 0;
    for t in &tiles {
        assert!(!t.is_empty() && t.start == at, "A is not tiled: {e:?}");
        at = t.end;
    }
    assert_eq!(at, a.len(), "A is not tiled to its end: {e:?}");
    let mut in_b = vec![false; b.len()];
    for s in &e.shared {
        assert!(!s.b.is_empty() && s.b.end <= b.len(), "{s:?}");
        in_b[s.b.clone()].iter_mut().for_each(|x| *x = true);
    }
    let only_b: Vec<usize> = e.only_b.iter().flat_map(|r| r.clone()).collect();
    let uncovered: Vec<usize> = (0..b.len()).filter(|&i| !in_b[i]).collect();
    assert_eq!(only_b, uncovered, "only-B is not what no passage covers");
    assert!(e.only_b.windows(2).all(|w| w[0].end < w[1].start), "{e:?}");

    let (set_a, set_b) = (recipe.set_of(a), recipe.set_of(b));
    let shared = simfind::similarity::measures::intersection_size(&set_a, &set_b);
    assert_eq!(e.shingles_a, set_a.len());
    assert_eq!(e.shingles_b, set_b.len());
    assert_eq!(e.shared_shingles, shared);
    assert_eq!(
        e.jaccard,
        simfind::similarity::measures::jaccard(&set_a, &set_b)
    );
    let counted: usize = e.shared.iter().map(|s| s.new_shingles).sum();
    assert_eq!(counted, shared, "new shingles do not add up");

    let norm = |bytes: &[u8]| simfind::text::normalize::normalize(bytes, normalization);
    let stops = recipe.shingler.stop_words().sorted();
    let stop = |w: &str| stops.binary_search(&w.to_lowercase().as_str()).is_ok();
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .filter(|w| kind != ShingleKind::Important || !stop(w))
            .map(str::to_owned)
            .collect()
    };
    // A passage normalised alone can differ from the same bytes normalised
    // in their text, where the shingles were taken, in two cases, and such a
    // passage is not checked by its text alone:
    // - Σ is the one letter whose lowercase depends on its neighbours (ς at
    //   a word's end, σ elsewhere);
    // - a letter whose lowercase is more than one character (İ gives i and a
    //   combining dot): a shingle may end inside that expansion, and its
    //   passage then covers the whole letter, one character more than the
    //   shingle matched.
    let unchecked = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .chars()
            .any(|c| matches!(c, 'Σ' | 'ς') || c.to_lowercase().nth(1).is_some())
    };
    for s in &e.shared {
        if unchecked(&a[s.a.clone()]) || unchecked(&b[s.b.clone()]) {
            continue;
        }
        let (ta, tb) = (norm(&a[s.a.clone()]), norm(&b[s.b.clone()]));
        match kind {
            ShingleKind::Char => assert_eq!(ta, tb, "passage {s:?}"),
            _ => assert_eq!(words(&ta), words(&tb), "passage {s:?}"),
        }
        assert_eq!(
            recipe.set_of(&a[s.a.clone()]),
            recipe.set_of(&b[s.b.clone()]),
            "passage {s:?}: its ranges' shingles"
        );
    }
}

/// `csv_recovery`: CSV or TSV rows built from the input (quoted or not,
/// holding delimiters, doubled quotes and newlines, some with a line over a
/// small cap), read skipping bad rows, give exactly the rows whose every
/// line fits, each with its text and byte offset, and one skip per other
/// row: an over-long row's lost closing quote never swallows the rows
/// after it (review N1.19/N1.20). An input left without a row is reported
/// once more as a whole, naming the skipped rows, not an empty input.
pub fn csv_recovery(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (kind, delimiter) = if mode & 1 == 1 {
        (InputKind::Tsv, '\t')
    } else {
        (InputKind::Csv, ',')
    };
    let cap = 8 + usize::from(mode >> 1) % 56;
    let mut input = format!("id{delimiter}text\n");
    let mut kept = Vec::new();
    let mut over = 0u64;
    for (id, chunk) in rest.chunks(8).take(64).enumerate() {
        let quoted = chunk[0] & 1 == 1;
        let mut text = String::new();
        for &b in &chunk[1..] {
            match b % 8 {
                0 if quoted => text.push(delimiter),
                1 if quoted => text.push('"'),
                2 if quoted => text.push('\n'),
                3 => text.push_str(&"w".repeat(usize::from(b) / 4)),
                _ => text.push(char::from(b'a' + b % 26)),
            }
        }
        let written = if quoted {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.clone()
        };
        let row = format!("{id}{delimiter}{written}\n");
        if row
            .trim_end_matches('\n')
            .split('\n')
            .all(|l| l.len() <= cap)
        {
            kept.push((id.to_string(), text, input.len() as u64));
        } else {
            over += 1;
        }
        input.push_str(&row);
    }
    let file = as_file(input.as_bytes());
    let mut options = RecordOptions::new(kind);
    options.max_line = cap;
    options.skip_bad_rows = true;
    let mut reported = Vec::new();
    let read = records::read_inputs(&[file.path().to_owned()], &options, &mut |e| {
        reported.push((e.line, e.reason.clone()))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(String, String, u64)> = read
        .records
        .iter()
        .map(|r| (r.id.clone(), r.fields.join(""), r.origin.offset))
        .collect();
    assert_eq!(got, kept, "input:\n{input}");
    // One report per over-long row, and one for the whole input (line 0)
    // when no row was kept: it names the skipped rows as the cause, never
    // an empty input.
    let whole: Vec<&String> = reported
        .iter()
        .filter(|(line, _)| *line == 0)
        .map(|(_, why)| why)
        .collect();
    if kept.is_empty() {
        let why = if over > 0 {
            "no records: every row was skipped"
        } else {
            "no records (empty input)"
        };
        assert_eq!(whole, [why], "input:\n{input}");
    } else {
        assert!(whole.is_empty(), "{whole:?}");
    }
    assert_eq!(read.skipped, over + u64::from(kept.is_empty()));
    assert_eq!(reported.len() as u64, read.skipped);
}

/// `bits_header`: the header rule of `--input bits`. A first row is taken
/// as a header only when its value holds no digit of any script; a first
/// row with a digit that is not a bit string is an error naming line 1,
/// never silently dropped (review N1.41). A byte-order mark at the start
/// of the file is never part of an id.
pub fn bits_header(data: &[u8]) {
    if data.starts_with(b"\xEF\xBB\xBF") {
        return;
    }
    let mut text = b"\xEF\xBB\xBF".to_vec();
    text.extend_from_slice(data);
    let read = vectors::read_bits(&text[..], false, &mut |e| panic!("strict skipped {e}"));
    let plain = vectors::read_bits(data, false, &mut |e| panic!("strict skipped {e}"));
    match (&read, &plain) {
        (Ok(a), Ok(b)) => assert_eq!(a.ids, b.ids),
        (Err(_), Err(_)) => {}
        _ => panic!("a byte-order mark changed the outcome: {read:?} vs {plain:?}"),
    }
    let Ok(bits) = &plain else { return };
    // Only the file's leading mark is skipped (checked above: the outcome
    // is the same with and without one). A U+FEFF on a later line is that
    // line's text, as in the CSV records reader: an id starting with one
    // comes from its own line's bytes, never from the start of the file.
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    for (id, &line) in bits.ids.iter().zip(&bits.lines) {
        if id.starts_with('\u{feff}') {
            let own = usize::try_from(line)
                .ok()
                .and_then(|n| lines.get(n.checked_sub(1)?));
            assert!(
                own.is_some_and(|l| l.windows(3).any(|w| w == b"\xEF\xBB\xBF")),
                "id {id:?} of line {line} starts with a mark its line does not hold"
            );
        }
    }
    let first = data.split(|&b| b == b'\n').next().unwrap_or_default();
    let Ok(first) = std::str::from_utf8(first) else {
        return;
    };
    let first = first.trim_end_matches('\r');
    let dropped = !first.trim().is_empty()
        && !first.contains('"')
        && bits.lines.first().is_none_or(|&line| line != 1);
    if dropped {
        // Taken as a header: its value (after the id) has no digit. The
        // reader splits at tabs when the first line holds one, else at
        // commas (`a,01\t` is the id `a,01` and an empty value).
        let delimiter = if first.contains('\t') { '\t' } else { ',' };
        let value = first.split(delimiter).nth(1).unwrap_or_default();
        assert!(
            !value.chars().any(char::is_numeric),
            "first row {first:?} dropped as a header"
        );
    }
}

/// The extractors' targets (`extract_pdf`, `extract_office`, `extract_html`,
/// `extract_mail`, `extract_rtf`, `extract_text`): any bytes given to a
/// format's extractor, as if sniffed as that format (the first byte picks
/// the format where a target has several), end within the time budget, in
/// bounded output, without a panic escaping, and:
/// - a text is UTF-8, not only whitespace, and within the text cap;
/// - a failure names the format it was given and is one line;
/// - the extraction gives the same result twice (the text is what is
///   hashed into signatures: it must not depend on the run).
fn extract_as(formats: &[simfind::source::Format], data: &[u8]) {
    use simfind::source::{Extract, ExtractFailure};
    let (format, bytes) = match formats {
        [one] => (*one, data),
        _ => match data.split_first() {
            Some((&pick, rest)) => (formats[usize::from(pick) % formats.len()], rest),
            None => return,
        },
    };
    let mut extract = Extract::auto();
    // Within fuzz/run.sh's per-input timeout, so that a slow input is
    // reported by the property with its format.
    extract.budget = std::time::Duration::from_secs(10);
    extract.max_text = 1 << 16;
    let first = extract.run_as(format, bytes);
    match &first {
        Ok(text) => {
            let text = std::str::from_utf8(text).expect("extracted text is UTF-8");
            assert!(!text.trim().is_empty(), "a whitespace-only text is no text");
            assert!(text.len() <= extract.max_text, "text over the cap");
        }
        Err(why) => {
            assert_eq!(why.format, format);
            let message = why.to_string();
            assert!(
                !message.contains(['\n', '\r']),
                "a message over lines: {message:?}"
            );
            if let ExtractFailure::TimedOut(_) = why.failure {
                // Under the fuzzer a slow input is a finding; a replay on a
                // loaded test machine only checks the rest.
                if cfg!(fuzzing) {
                    panic!("{format:?} over its budget");
                }
                return;
            }
        }
    }
    assert_eq!(
        extract.run_as(format, bytes),
        first,
        "{format:?}: two runs differ"
    );
}

pub fn extract_pdf(data: &[u8]) {
    extract_as(&[simfind::source::Format::Pdf], data);
}

pub fn extract_office(data: &[u8]) {
    extract_as(&simfind::source::Format::OFFICE, data);
}

pub fn extract_html(data: &[u8]) {
    extract_as(&[simfind::source::Format::Html], data);
}

pub fn extract_mail(data: &[u8]) {
    use simfind::source::Format;
    extract_as(&[Format::Mail, Format::Mbox], data);
}

pub fn extract_rtf(data: &[u8]) {
    extract_as(&[simfind::source::Format::Rtf], data);
}

pub fn extract_text(data: &[u8]) {
    use simfind::source::Format;
    extract_as(
        &[
            Format::Utf8Bom,
            Format::Utf16,
            Format::Utf32,
            Format::Legacy8Bit,
        ],
        data,
    );
}
