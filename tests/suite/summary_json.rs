//! `--summary-json`: what scan, index and query write is valid against the
//! documented schema `docs/summary.schema.json`, which lists every field with
//! `additionalProperties: false` and `required`, so a field renamed, dropped or
//! added without documenting it fails here. The schema is checked by a small
//! validator of the JSON Schema keywords it uses (`$ref`, `oneOf`, `type`,
//! `const`, `enum`, `properties`, `required`, `additionalProperties`,
//! `minimum`, `items`); it refuses any other keyword, so the schema cannot outgrow it
//! unnoticed.

use crate::util::*;
use serde_json::Value;

fn schema() -> Value {
    let text = std::fs::read_to_string(root().join("docs/summary.schema.json")).unwrap();
    serde_json::from_str(&text).expect("the schema is JSON")
}

/// The errors of `value` against `schema` (empty: valid), each with its JSON path.
fn validate(root: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let rule = schema.as_object().expect("a schema is an object");
    for key in rule.keys() {
        assert!(
            [
                "$schema",
                "$id",
                "$defs",
                "$ref",
                "title",
                "description",
                "oneOf",
                "type",
                "const",
                "enum",
                "properties",
                "required",
                "additionalProperties",
                "minimum",
                "items",
            ]
            .contains(&key.as_str()),
            "the test's validator does not know the keyword {key} (at {at})"
        );
    }
    if let Some(Value::String(reference)) = rule.get("$ref") {
        let name = reference.strip_prefix("#/$defs/").expect("local $ref");
        return validate(root, &root["$defs"][name], value, at);
    }
    if let Some(Value::Array(options)) = rule.get("oneOf") {
        let passing = options
            .iter()
            .filter(|option| validate(root, option, value, at).is_empty())
            .count();
        if passing != 1 {
            let details: Vec<String> = options
                .iter()
                .flat_map(|option| validate(root, option, value, at))
                .collect();
            errors.push(format!(
                "{at}: matches {passing} of oneOf, not 1 ({details:?})"
            ));
        }
    }
    if let Some(expected) = rule.get("type") {
        let types: Vec<&str> = match expected {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
            _ => panic!("bad type at {at}"),
        };
        let ok = types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            "number" => value.is_number(),
            "null" => value.is_null(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            other => panic!("type {other} at {at}"),
        });
        if !ok {
            errors.push(format!("{at}: {value} is not {types:?}"));
        }
    }
    if let Some(constant) = rule.get("const")
        && constant != value
    {
        errors.push(format!("{at}: {value} is not {constant}"));
    }
    if let Some(Value::Array(choices)) = rule.get("enum")
        && !choices.contains(value)
    {
        errors.push(format!("{at}: {value} is not one of {choices:?}"));
    }
    if let Some(minimum) = rule.get("minimum").and_then(Value::as_f64)
        && value.as_f64().is_some_and(|v| v < minimum)
    {
        errors.push(format!("{at}: {value} < {minimum}"));
    }
    if let (Some(item), Some(items)) = (rule.get("items"), value.as_array()) {
        for (i, v) in items.iter().enumerate() {
            errors.extend(validate(root, item, v, &format!("{at}[{i}]")));
        }
    }
    if let Some(object) = value.as_object() {
        let properties = rule.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = rule.get("required") {
            for name in required {
                if !object.contains_key(name.as_str().unwrap()) {
                    errors.push(format!("{at}: missing {name}"));
                }
            }
        }
        for (name, field) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => errors.extend(validate(root, sub, field, &format!("{at}.{name}"))),
                None if rule.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errors.push(format!("{at}: {name} is not in the schema"))
                }
                None => {}
            }
        }
    }
    errors
}

fn assert_valid(summary: &Value) {
    let schema = schema();
    let errors = validate(&schema, &schema, summary, "$");
    assert!(errors.is_empty(), "{summary}\n{errors:#?}");
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n') && text.lines().count() == 1, "{text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn scan_summary_is_valid_and_counts_what_the_stderr_line_counts() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    let csv = dir.path().join("pairs.csv");
    let out = run(&[
        "scan",
        "testdata",
        "-o",
        csv.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = read_json(&json);
    assert_valid(&summary);
    let rows = csv_rows(&std::fs::read(&csv).unwrap()).len() as u64;
    assert_eq!(summary["schema"], "simfind-summary/1");
    assert_eq!(summary["command"], "scan");
    assert_eq!(summary["pairs"], rows);
    assert_eq!(summary["reported"]["written"], rows);
    assert_eq!(summary["groups"], Value::Null);
    assert_eq!(summary["threshold"]["source"], "s-curve");
    assert_eq!(summary["lsh"]["hashes"], 100);
    // The stderr line says the same numbers.
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{} files,", summary["files"])),
        "{err}"
    );
    // testdata's binary file is a gzip archive: counted by its kind.
    assert_eq!(summary["skipped"]["binary"], 0);
    let archives = &summary["skipped"]["not_extracted"]["archive file"];
    assert_eq!(archives, 1);
    assert!(
        err.contains(&format!("{archives} archive file (identical copies only)")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{rows} pairs with similarity")),
        "{err}"
    );
}

/// A per-field record scan writes where its candidates came from: each
/// field's bands (or none), the keys with their blocks, the blocks skipped
/// and the sample's choice, the same as its stderr line says.
#[test]
fn a_per_field_record_scan_writes_its_candidate_scheme() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    let people = root().join("tests/records-data/people.csv");
    let people = people.to_str().unwrap();
    let scan = |extra: &[&str]| {
        let base = [
            "scan",
            "--input",
            "csv",
            people,
            "--per-field",
            "-o",
            "/dev/null",
        ];
        let out = run(&[
            &base[..],
            extra,
            &["--summary-json", json.to_str().unwrap()],
        ]
        .concat());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let summary = read_json(&json);
        assert_valid(&summary);
        (summary, stderr(&out))
    };
    // Chosen on a sample: the banded fields are those the line names.
    let (summary, err) = scan(&[]);
    let scheme = &summary["candidate_scheme"];
    let fields = scheme["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 5, "{scheme}");
    let banded: Vec<String> = fields
        .iter()
        .filter(|f| !f["bands"].is_null())
        .map(|f| {
            format!(
                "{} {} × {}",
                f["name"].as_str().unwrap(),
                f["bands"],
                f["rows"]
            )
        })
        .collect();
    assert!(!banded.is_empty() && banded.len() < 5, "{scheme}");
    assert!(
        err.contains(&format!(
            "candidates from the bands of {}",
            banded.join(", ")
        )),
        "{err}\n{scheme}"
    );
    let chosen = &scheme["chosen"];
    assert!(
        err.contains(&format!(
            "chosen on a sample of {} records",
            chosen["sampled_records"]
        )),
        "{err}\n{scheme}"
    );
    assert!(chosen["completeness"].as_f64().unwrap() >= 0.99, "{scheme}");
    assert_eq!(scheme["keys"], serde_json::json!([]));
    // Keys, one block over a cap of 50 (a city holds about 150 records).
    let (summary, err) = scan(&["--block", "city", "--block", "zip", "--block-cap", "50"]);
    let scheme = &summary["candidate_scheme"];
    assert!(scheme["chosen"].is_null(), "{scheme}");
    assert!(fields_unbanded(scheme), "{scheme}");
    let keys = scheme["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2, "{scheme}");
    assert_eq!(keys[0]["key"], "city:exact");
    assert_eq!(keys[1]["key"], "zip:exact");
    assert!(
        err.contains(&format!("zip:exact ({} blocks)", keys[1]["blocks"])),
        "{err}\n{scheme}"
    );
    let skipped = scheme["skipped_blocks"].as_array().unwrap();
    assert!(!skipped.is_empty(), "{scheme}");
    for block in skipped {
        assert_eq!(block["key"], "city:exact");
        assert!(block["records"].as_u64().unwrap() > 50, "{scheme}");
    }
}

/// No field of the scheme made candidates from bands.
fn fields_unbanded(scheme: &Value) -> bool {
    scheme["fields"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["bands"].is_null() && f["rows"].is_null())
}

#[test]
fn important_words_summary_is_valid_with_its_counting_pass() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    let args = [
        "scan",
        "tests/data/mmds/tfidf",
        "--important-words",
        "2",
        "-t",
        "0.3",
        "-q",
    ];
    let out = run(&[&args[..], &["--summary-json", json.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = read_json(&json);
    assert_valid(&summary);
    assert_eq!(summary["files"], 4);
    assert_eq!(summary["pairs"], 2);
    assert!(
        summary["seconds"]["stages"]["count"].is_number(),
        "{summary}"
    );
}

#[test]
fn scan_summary_of_groups_and_stdout_when_the_data_goes_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "scan",
        "testdata",
        "-t",
        "0.9",
        "--list-removable",
        "-o",
        dir.path().join("removable").to_str().unwrap(),
        "--summary-json",
        "-",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid(&summary);
    let removable = std::fs::read_to_string(dir.path().join("removable")).unwrap();
    let groups = &summary["groups"];
    assert_eq!(groups["removable"], removable.lines().count() as u64);
    assert_eq!(summary["reported"]["unit"], "paths");
    assert_eq!(summary["threshold"]["source"], "tuned");
    assert!(groups["bytes_freed"].as_u64().unwrap() > 0);
}

#[test]
fn index_and_query_summaries_are_valid() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.simfind");
    let json = dir.path().join("index.json");
    let out = run(&[
        "index",
        "testdata",
        "--db",
        db.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = read_json(&json);
    assert_valid(&summary);
    assert_eq!(summary["command"], "index");
    assert_eq!(summary["added"], summary["signed"]);

    let json = dir.path().join("query.json");
    let out = run(&[
        "query",
        "testdata/news/lighthouse.txt",
        "--db",
        db.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = read_json(&json);
    assert_valid(&summary);
    assert_eq!(summary["queries"], 1);
    assert_eq!(summary["matches"], csv_rows(&out.stdout).len() as u64);
}

#[test]
fn the_validator_rejects_a_renamed_or_dropped_field() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let out = run(&[
        "scan",
        "testdata",
        "-q",
        "-o",
        "/dev/null",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = read_json(&json);
    let schema = schema();
    let mut renamed = summary.clone();
    let files = renamed.as_object_mut().unwrap().remove("files").unwrap();
    renamed["file_count"] = files;
    assert!(!validate(&schema, &schema, &renamed, "$").is_empty());
    let mut retyped = summary.clone();
    retyped["lsh"]["bands"] = "20".into();
    assert!(!validate(&schema, &schema, &retyped, "$").is_empty());
    let mut dropped = summary;
    dropped["skipped"].as_object_mut().unwrap().remove("binary");
    assert!(!validate(&schema, &schema, &dropped, "$").is_empty());
}

#[test]
fn summary_json_on_stdout_with_the_data_or_unwritable_fails_before_any_work() {
    let out = run(&["scan", "testdata", "--summary-json", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).starts_with("simfind: error: --summary-json -"));

    let out = run(&[
        "scan",
        "testdata",
        "--summary-json",
        "/nonexistent-dir/s.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no pairs written before the failure");
    assert!(
        stderr(&out).contains("cannot write --summary-json /nonexistent-dir/s.json"),
        "{}",
        stderr(&out)
    );
}

/// Runs `args` with `--summary-json` and `-o`, checks the document against
/// the schema, and that its pair count is the output's rows and its
/// candidates the stderr line's; returns the document.
fn family_summary(dir: &std::path::Path, args: &[&str]) -> Value {
    let json = dir.join("family.json");
    let csv = dir.join("family.csv");
    let mut all = args.to_vec();
    all.extend([
        "-o",
        csv.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    let out = run(&all);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    let summary = read_json(&json);
    assert_valid(&summary);
    assert_eq!(summary["command"], "scan");
    // The families' CSV: a,b,metric and the value, one pair a row.
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows = text.lines().count() as u64 - 1;
    assert!(text.starts_with("a,b,metric,"), "{text}");
    assert_eq!(summary["pairs"], rows, "{args:?}: {summary}");
    assert!(rows > 0, "{args:?}: the test data should have pairs");
    let candidates = summary["candidates"].as_u64().unwrap();
    assert!(candidates >= rows, "{summary}");
    let err = stderr(&out);
    assert!(
        // LSH counts candidates, the exact method the pairs its screen measured.
        err.contains(&format!("{candidates} candidate"))
            || err.contains(&format!("{candidates} measured")),
        "{args:?}: the stderr line counts other candidates than {summary}: {err}"
    );
    if let Value::Object(lsh) = &summary["lsh"] {
        assert_eq!(
            lsh["hashes"],
            lsh["bands"].as_u64().unwrap() * lsh["rows"].as_u64().unwrap()
        );
    }
    summary
}

#[test]
fn family_scans_write_the_summary_of_their_family() {
    let dir = tempfile::tempdir().unwrap();
    // Two near-parallel vectors, one orthogonal to both.
    let vectors = write(
        dir.path(),
        "v.csv",
        b"id,x1,x2,x3\na,1,0,0\nb,1,0.05,0\nc,0,0,1\nd,0,0.02,1\n",
    );
    let v = vectors.to_str().unwrap();
    for (args, method, metric, sketch) in [
        (
            &[
                "scan", "--input", "vectors", v, "-t", "0.9", "--method", "lsh", "-b", "8", "-r",
                "4",
            ][..],
            "lsh",
            "cosine",
            "hyperplanes",
        ),
        (
            &[
                "scan", "--input", "vectors", v, "-t", "0.9", "--method", "exact",
            ][..],
            "exact",
            "cosine",
            "hyperplanes",
        ),
        (
            &[
                "scan",
                "--input",
                "vectors",
                v,
                "--metric",
                "euclidean",
                "--radius",
                "0.1",
                "--method",
                "lsh",
                "-b",
                "4",
                "-r",
                "2",
            ][..],
            "lsh",
            "euclidean",
            "p-stable",
        ),
    ] {
        let s = family_summary(dir.path(), args);
        assert_eq!(s["family"]["input"], "vectors");
        assert_eq!(s["family"]["metric"], metric);
        assert_eq!(s["family"]["sketch"], sketch);
        assert_eq!(s["family"]["parameters"]["dimensions"], 3);
        assert_eq!(s["documents"], 4);
        assert_eq!(s["method"]["name"], method);
        match method {
            "lsh" => {
                assert_eq!(s["signed"], 4);
                let given = args.iter().position(|a| *a == "-b").unwrap();
                assert_eq!(s["lsh"]["bands"], args[given + 1].parse::<u64>().unwrap());
                assert_eq!(s["lsh"]["rows"], args[given + 3].parse::<u64>().unwrap());
                assert_eq!(s["family"]["parameters"]["seed"], 42);
            }
            _ => {
                assert_eq!(s["signed"], 0);
                assert_eq!(s["lsh"], Value::Null);
            }
        }
        if metric == "cosine" {
            assert_eq!(s["family"]["parameters"]["min_cosine"], 0.9);
        } else {
            assert_eq!(s["family"]["parameters"]["radius"], 0.1);
            // -b/-r given without --bucket-width: the width is 2R.
            assert_eq!(s["family"]["parameters"]["bucket_width"], 0.2);
        }
    }

    let bits = write(dir.path(), "b.csv", b"a,10101100\nb,10101101\nc,01010011\n");
    let s = family_summary(
        dir.path(),
        &[
            "scan",
            "--input",
            "bits",
            bits.to_str().unwrap(),
            "--radius",
            "1",
        ],
    );
    assert_eq!(s["family"]["metric"], "hamming");
    assert_eq!(s["family"]["sketch"], "bit-sampling");
    assert_eq!(s["family"]["parameters"]["bits"], 8);
    assert_eq!(s["family"]["parameters"]["radius"], 1.0);
    assert_eq!(s["documents"], 3);

    let s = family_summary(
        dir.path(),
        &["scan", "testdata", "--sketch", "simhash", "--radius", "3"],
    );
    assert_eq!(s["family"]["input"], "files");
    assert_eq!(s["family"]["sketch"], "simhash");
    assert_eq!(s["family"]["parameters"]["weights"], "set");
    // 64 bits in radius + 1 bands.
    assert_eq!(s["lsh"]["bands"], 4);
    assert_eq!(s["lsh"]["rows"], 16);
    assert!(s["signed"].as_u64().unwrap() <= s["documents"].as_u64().unwrap());

    let s = family_summary(
        dir.path(),
        &[
            "scan",
            "--sketch",
            "icws",
            "tests/data/mmds/bag1.txt",
            "tests/data/mmds/bag2.txt",
            "--shingle",
            "word",
            "-k",
            "1",
            "-t",
            "0.4",
        ],
    );
    assert_eq!(s["family"]["input"], "files");
    assert_eq!(s["family"]["metric"], "weighted_jaccard");
    assert_eq!(s["family"]["sketch"], "icws");
    assert_eq!(s["family"]["parameters"]["shingles"]["kind"], "word");
    assert_eq!(s["family"]["parameters"]["threshold"], 0.4);
    assert_eq!(s["documents"], 2);
    assert_eq!(s["signed"], 2);

    let sets = write(
        dir.path(),
        "w.tsv",
        b"x\tapple:2 pear:1\ny\tapple:2 pear:2\nz\tplum:3\n",
    );
    let s = family_summary(
        dir.path(),
        &[
            "scan",
            "--sketch",
            "icws",
            "--input",
            "sets",
            sets.to_str().unwrap(),
            "-t",
            "0.5",
        ],
    );
    assert_eq!(s["family"]["input"], "sets");
    assert_eq!(s["family"]["parameters"]["shingles"], Value::Null);
    assert_eq!(s["documents"], 3);
    assert_eq!(s["method"]["name"], "lsh");
}
