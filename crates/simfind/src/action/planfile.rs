//! The reviewed plan: what a dry run (`scan --plan`, `dedupe --dry-run
//! --plan`) would do, written to a file a person reads, and read back by
//! `dedupe --apply`, which acts on exactly those files and on no other.
//!
//! Role: ties review to action. Each line names one removable file and its
//! kept copy with the [`Fingerprint`] of both (size, modification time in
//! nanoseconds, xxh3-128 of the content: the hash the action stage already
//! re-checks before it touches a file), so a file or kept copy changed after
//! the review is refused when the plan is applied ([`super::apply`]).
//!
//! Format (JSON Lines, version [`VERSION`]; paths as in the journal: strings,
//! or `{"bytes":[…]}` when not UTF-8, so a path with a newline stays one
//! line; docs/ACTIONS.md documents every field):
//!
//! ```text
//! {"simfind_plan":1,"action":"remove"|null,"threshold":0.9,"keep":"first","roots":["/abs/root"],
//!  "max_unique":0.01,"recipe":{"shingle_kind":"char","k":"5",…},"actions":N}
//! {"seq":0,"action":"remove","root":0,"path":"/abs/root/b.txt","size":…,"mtime_ns":"…","hash":"…",
//!  "kept":"/abs/root/a.txt","kept_size":…,"kept_mtime_ns":"…","kept_hash":"…",
//!  "similarity":0.95,"identical":false,"kept_because":"first"}
//! ```
//!
//! Reading is bounded ([`MAX_LINE`] bytes a line, [`MAX_ACTIONS`] actions),
//! and a damaged line is refused with its number: a plan is applied whole
//! or not at all, never in part because a line could not be read.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::journal::{get_fingerprint, path_value, put_fingerprint, value_path};
use super::plan::{Entry, Plan, PlanError, Skip, SkipReason};
use super::{Action, state};
use crate::input::bounded::{Bounded, LineReader};

/// The version written in the header; a reader refuses others.
pub const VERSION: u64 = 1;

/// The longest plan line read: one action holds two paths (each at most
/// `PATH_MAX` bytes, up to four characters a byte where not UTF-8) and fixed
/// fields, far below this.
pub const MAX_LINE: u64 = 1 << 20;

/// The most actions a plan may hold: far more files than one share holds,
/// and a bound on the memory an endless or hostile file can take.
pub const MAX_ACTIONS: usize = 50_000_000;

/// What the plan was made for, from its first line.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The action of the dry run that wrote it (`move`, `remove`, `link`,
    /// `reflink`), or `None` for a scan's plan: the apply names it.
    pub action: Option<String>,
    /// The similarity threshold of the run that made it.
    pub threshold: f64,
    /// The keep policy's name.
    pub keep: String,
    /// The roots, canonical: the lock's trees when applied, and what a move
    /// keeps the paths relative to.
    pub roots: Vec<PathBuf>,
    /// How the plan's removal figures were measured, for the apply to
    /// measure them again the same way ([`super::remeasure`]); `None` in
    /// plans written before it was recorded, and in plans of records.
    pub measure: Option<Measure>,
}

/// What measuring a removal figure again needs: the recipe that made the
/// shingle sets (the index's stored parameters: shingles, k, normalisation,
/// extraction) and the cap the plan's removals were held under.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub params: crate::params::Params,
    /// The largest share of a file's shingles its kept copy could lack for
    /// the file to be in the plan (`only_in_removed`'s cap, 0 to 1).
    pub max_unique: f64,
}

/// One action of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// The root (an index into [`Header::roots`]) the file lies under.
    pub root: usize,
    /// The file, its kept copy, their fingerprints and why the kept copy
    /// was kept; no destination (a move goes into the sub-folder of the
    /// apply's own run).
    pub entry: Entry,
}

/// A plan read back.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanFile {
    pub header: Header,
    pub actions: Vec<Planned>,
}

/// Why a plan cannot be read.
#[derive(Debug)]
pub enum PlanFileError {
    Io(std::io::Error),
    /// Line `line` is damaged (not JSON, missing fields, longer than
    /// [`MAX_LINE`], a path outside its root) or not a plan's.
    Line {
        line: u64,
        why: String,
    },
    /// More than [`MAX_ACTIONS`] actions.
    TooMany,
}

impl std::fmt::Display for PlanFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanFileError::Io(err) => write!(f, "{err}"),
            PlanFileError::Line { line, why } => write!(f, "line {line}: {why}"),
            PlanFileError::TooMany => write!(
                f,
                "more than {MAX_ACTIONS} actions, the most a plan may hold; split the run by root"
            ),
        }
    }
}

impl std::error::Error for PlanFileError {}

/// The root of `roots` (canonical) that `path` (absolute, its directory
/// canonical) lies under: the longest one.
fn root_of(path: &Path, roots: &[PathBuf]) -> Option<usize> {
    roots
        .iter()
        .enumerate()
        .filter(|(_, r)| path.starts_with(r) && path != r.as_path())
        .max_by_key(|(_, r)| r.components().count())
        .map(|(i, _)| i)
}

/// The plan's text: the header, then one line per entry of `plan` (whose
/// paths lie under `header.roots`; an entry under none is left out, which
/// [`super::plan::build`] never makes).
pub fn render(header: &Header, plan: &Plan) -> Vec<u8> {
    let mut out = header_prefix(header);
    out.extend_from_slice(format!("{}}}\n", plan.entries.len()).as_bytes());
    for (seq, e) in plan.entries.iter().enumerate() {
        if let Some(line) = action_line(header, seq, e) {
            out.extend_from_slice(&line);
        }
    }
    out
}

/// The header line up to the value of its last field, `"actions":`: a
/// writer that chooses the actions later (the HTML report's export) ends
/// it with their number and `}` and a newline.
pub fn header_prefix(header: &Header) -> Vec<u8> {
    let mut out = Vec::new();
    line(
        &mut out,
        &[
            ("simfind_plan", json!(VERSION)),
            ("action", json!(header.action)),
            ("threshold", json!(header.threshold)),
            ("keep", json!(header.keep)),
            (
                "roots",
                Value::Array(header.roots.iter().map(|r| path_value(r)).collect()),
            ),
            (
                "max_unique",
                json!(header.measure.as_ref().map(|m| m.max_unique)),
            ),
            (
                "recipe",
                header.measure.as_ref().map_or(Value::Null, |m| {
                    Value::Object(
                        m.params
                            .to_rows()
                            .into_iter()
                            .map(|(name, value)| (name.to_string(), Value::String(value)))
                            .collect(),
                    )
                }),
            ),
            ("actions", json!(0)),
        ],
    );
    // `line` ended it with `0}\n`.
    out.truncate(out.len() - 3);
    out
}

/// The line of action `seq` (ending in a newline), or `None` when its file
/// lies under none of `header.roots`.
pub fn action_line(header: &Header, seq: usize, e: &Entry) -> Option<Vec<u8>> {
    let root = root_of(&e.path, &header.roots)?;
    let mut fields = vec![
        ("seq", json!(seq)),
        ("action", json!(header.action)),
        ("root", json!(root)),
        ("path", path_value(&e.path)),
    ];
    fingerprint_fields(&mut fields, ["size", "mtime_ns", "hash"], &e.fingerprint);
    fields.push(("kept", path_value(&e.kept)));
    fingerprint_fields(
        &mut fields,
        ["kept_size", "kept_mtime_ns", "kept_hash"],
        &e.kept_fingerprint,
    );
    fields.push(("similarity", json!(e.similarity)));
    fields.push(("identical", json!(e.identical)));
    fields.push(("kept_because", json!(e.kept_because)));
    // Added to version 1 rather than making a version 2: a reader looks
    // fields up by name, so an older simfind applies a plan with them,
    // and a plan without them (written before) reads as unmeasured.
    if let Some((share, bytes)) = e.only_in {
        fields.push(("only_in_removed", json!(share)));
        fields.push(("only_in_removed_bytes", json!(bytes)));
    }
    let mut out = Vec::new();
    line(&mut out, &fields);
    Some(out)
}

/// A fingerprint's fields as the journal writes them.
fn fingerprint_fields(
    fields: &mut Vec<(&'static str, Value)>,
    [size, mtime, hash]: [&'static str; 3],
    fp: &state::Fingerprint,
) {
    let mut v = json!({});
    put_fingerprint(&mut v, "", fp);
    fields.push((size, v["size"].take()));
    fields.push((mtime, v["mtime_ns"].take()));
    fields.push((hash, v["hash"].take()));
}

/// One JSON object on one line, its fields in the documented order (a
/// person reads the plan: the path before its hashes), not sorted by name.
fn line(out: &mut Vec<u8>, fields: &[(&str, Value)]) {
    out.push(b'{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Serialising a string or a Value into memory cannot fail.
        serde_json::to_writer(&mut *out, key).expect("JSON into memory");
        out.push(b':');
        serde_json::to_writer(&mut *out, value).expect("JSON into memory");
    }
    out.extend_from_slice(b"}\n");
}

/// Reads the plan at `path`: every line, or an error naming the first that
/// cannot be used.
pub fn read(path: &Path) -> Result<PlanFile, PlanFileError> {
    let file = std::fs::File::open(path).map_err(PlanFileError::Io)?;
    parse(BufReader::new(file))
}

/// [`read`] over any input.
pub fn parse(input: impl std::io::BufRead) -> Result<PlanFile, PlanFileError> {
    let mut lines = LineReader::new(input, MAX_LINE);
    let mut header: Option<Header> = None;
    let mut actions = Vec::new();
    let mut number = 0;
    while let Some(next) = lines.next_line() {
        number += 1;
        let bad = |why: String| PlanFileError::Line { line: number, why };
        let text = match next {
            Ok(text) => text,
            Err(Bounded::TooLarge { cap }) => {
                return Err(bad(format!(
                    "longer than a plan line can be ({cap} bytes): damaged"
                )));
            }
            Err(Bounded::Io(err)) => return Err(PlanFileError::Io(err)),
        };
        if text.is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_slice(text).map_err(|err| bad(format!("not a JSON line ({err})")))?;
        let Some(head) = &header else {
            header = Some(read_header(&value).map_err(|d| bad(d.to_string()))?);
            continue;
        };
        if actions.len() >= MAX_ACTIONS {
            return Err(PlanFileError::TooMany);
        }
        actions.push(read_action(&value, head).map_err(|d| bad(d.to_string()))?);
    }
    let header = header.ok_or(PlanFileError::Line {
        line: 1,
        why: "empty: not a simfind plan".into(),
    })?;
    Ok(PlanFile { header, actions })
}

/// Why a line of a plan cannot be used.
#[derive(Debug)]
enum Damage {
    Version(u64),
    NotAPlan,
    NoRoots,
    NoMaxUnique,
    NoRecipeField(String),
    MalformedRecipeField { name: String, value: String },
    BinaryFiles(String),
    ActionFields,
    ActionRoot,
    OutsideRoot { path: PathBuf, root: PathBuf },
    KeptNotAnother(PathBuf),
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::Version(other) => {
                write!(f, "plan version {other}, this simfind reads {VERSION}")
            }
            Damage::NotAPlan => f.write_str("not a simfind plan (no \"simfind_plan\" header)"),
            Damage::NoRoots => f.write_str("a header without its absolute \"roots\""),
            Damage::NoMaxUnique => {
                f.write_str("a header with a recipe but no \"max_unique\" between 0 and 1")
            }
            Damage::NoRecipeField(name) => {
                write!(f, "a header whose \"recipe\" has no \"{name}\"")
            }
            Damage::MalformedRecipeField { name, value } => {
                write!(
                    f,
                    "the recipe's \"{name}\" has the malformed value {value:?}"
                )
            }
            Damage::BinaryFiles(other) => write!(f, "the recipe's \"binary_files\" is {other:?}"),
            Damage::ActionFields => f.write_str("an action line without its fields"),
            Damage::ActionRoot => f.write_str("an action line without a root of the header"),
            Damage::OutsideRoot { path, root } => write!(
                f,
                "{} is not under its root {}",
                path.display(),
                root.display()
            ),
            Damage::KeptNotAnother(kept) => write!(
                f,
                "the kept copy {} is not an absolute path of another file",
                kept.display()
            ),
        }
    }
}

fn read_header(v: &Value) -> Result<Header, Damage> {
    match v.get("simfind_plan").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(other) => return Err(Damage::Version(other)),
        None => return Err(Damage::NotAPlan),
    }
    let roots = v["roots"]
        .as_array()
        .and_then(|a| a.iter().map(value_path).collect::<Option<Vec<_>>>())
        .filter(|roots| roots.iter().all(|r| r.is_absolute()))
        .ok_or(Damage::NoRoots)?;
    let measure = match &v["recipe"] {
        Value::Null => None,
        recipe => Some(Measure {
            params: read_recipe(recipe)?,
            max_unique: v["max_unique"]
                .as_f64()
                .filter(|cap| (0.0..=1.0).contains(cap))
                .ok_or(Damage::NoMaxUnique)?,
        }),
    };
    Ok(Header {
        action: v["action"].as_str().map(str::to_string),
        threshold: v["threshold"].as_f64().unwrap_or(f64::NAN),
        keep: v["keep"].as_str().unwrap_or("").to_string(),
        roots,
        measure,
    })
}

/// The header's `recipe`: the index's parameters by name, each a string
/// (as [`crate::params::Params::to_rows`] writes them).
fn read_recipe(v: &Value) -> Result<crate::params::Params, Damage> {
    let get = |name: &str| {
        v[name]
            .as_str()
            .ok_or_else(|| Damage::NoRecipeField(name.to_string()))
    };
    fn num<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, Damage> {
        v.parse().map_err(|_| Damage::MalformedRecipeField {
            name: name.to_string(),
            value: v.to_string(),
        })
    }
    Ok(crate::params::Params {
        shingle_kind: get("shingle_kind")?.to_string(),
        k: num("k", get("k")?)?,
        normalisation: get("normalisation")?.to_string(),
        n: num("n", get("n")?)?,
        bands: num("bands", get("bands")?)?,
        rows: num("rows", get("rows")?)?,
        seed: num("seed", get("seed")?)?,
        minhash: get("minhash")?.to_string(),
        stop_words: get("stop_words")?.to_string(),
        include_binary: match get("binary_files")? {
            "include" => true,
            "skip" => false,
            other => return Err(Damage::BinaryFiles(other.to_string())),
        },
        extraction: get("extraction")?.to_string(),
    })
}

fn read_action(v: &Value, header: &Header) -> Result<Planned, Damage> {
    let root = v["root"]
        .as_u64()
        .and_then(|r| usize::try_from(r).ok())
        .filter(|&r| r < header.roots.len())
        .ok_or(Damage::ActionRoot)?;
    let entry = (|| {
        Some(Entry {
            path: value_path(&v["path"])?,
            kept: value_path(&v["kept"])?,
            to: None,
            identical: v["identical"].as_bool()?,
            similarity: v["similarity"].as_f64(),
            fingerprint: get_fingerprint(v, "")?,
            kept_fingerprint: get_fingerprint(v, "kept_")?,
            kept_id: None,
            owner: None,
            kept_because: v["kept_because"].as_str().map(str::to_string),
            only_in: v["only_in_removed"]
                .as_f64()
                .map(|share| (share, v["only_in_removed_bytes"].as_u64().unwrap_or(0))),
        })
    })()
    .ok_or(Damage::ActionFields)?;
    // Lexically under its root, no `..`: an edited plan cannot reach out.
    let under = |p: &Path| {
        p.strip_prefix(&header.roots[root]).is_ok_and(|rel| {
            rel.components().next().is_some()
                && rel
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
        })
    };
    if !under(&entry.path) {
        return Err(Damage::OutsideRoot {
            path: entry.path.clone(),
            root: header.roots[root].clone(),
        });
    }
    if !entry.kept.is_absolute() || entry.kept == entry.path {
        return Err(Damage::KeptNotAnother(entry.kept.clone()));
    }
    Ok(Planned { root, entry })
}

/// The plan to apply with `action`: every action of `file`, each with its
/// destination for a move (`DIR/<root name>/<path under the root>`, as
/// dedupe's own moves), near-duplicates left out for links. The files are
/// not looked at here: [`super::apply`] re-checks each against its
/// fingerprint just before acting.
pub fn to_plan(file: &PlanFile, action: &Action) -> Result<Plan, PlanError> {
    let destinations = match action {
        Action::MoveTo(dir) => Some(super::plan::destination_dirs(dir, &file.header.roots)?),
        _ => None,
    };
    let mut plan = Plan::default();
    for p in &file.actions {
        let e = &p.entry;
        if action.needs_identical() && !e.identical {
            plan.skipped.push(Skip {
                path: e.path.clone(),
                reason: SkipReason::NearDuplicate {
                    kept: e.kept.clone(),
                    similarity: e.similarity,
                },
            });
            continue;
        }
        let mut entry = e.clone();
        if let Some(d) = &destinations {
            let rel = e
                .path
                .strip_prefix(&file.header.roots[p.root])
                .expect("checked when read");
            entry.to = Some(d[p.root].join(rel));
        }
        entry.owner = state::owner(&e.path);
        plan.entries.push(entry);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::state::Fingerprint;

    fn entry(path: &str, kept: &str) -> Entry {
        let fp = |n: u64| Fingerprint {
            size: n,
            mtime_ns: -5 + i128::from(n),
            hash: u128::MAX - u128::from(n),
        };
        Entry {
            path: PathBuf::from(path),
            kept: PathBuf::from(kept),
            to: None,
            identical: false,
            similarity: Some(0.93),
            fingerprint: fp(10),
            kept_fingerprint: fp(12),
            kept_id: None,
            owner: None,
            kept_because: Some("oldest".into()),
            only_in: Some((0.25, 3)),
        }
    }

    fn header() -> Header {
        Header {
            action: None,
            threshold: 0.9,
            keep: "original".into(),
            roots: vec![PathBuf::from("/r"), PathBuf::from("/r/deep")],
            measure: Some(Measure {
                params: crate::params::Params {
                    shingle_kind: "stopword".into(),
                    k: 5,
                    normalisation: "lower".into(),
                    n: 128,
                    bands: 32,
                    rows: 4,
                    seed: 7,
                    minhash: "classic".into(),
                    stop_words: "a\nthe".into(),
                    include_binary: false,
                    extraction: "pdf@1".into(),
                },
                max_unique: 0.01,
            }),
        }
    }

    #[test]
    fn a_plan_reads_back_as_written() {
        let plan = Plan {
            entries: vec![
                entry("/r/a\nnewline.txt", "/r/k.txt"),
                entry("/r/deep/b.txt", "/r/k.txt"),
            ],
            skipped: Vec::new(),
        };
        let text = render(&header(), &plan);
        assert_eq!(text.iter().filter(|&&b| b == b'\n').count(), 3);
        let read = parse(&text[..]).unwrap();
        assert_eq!(read.header, header());
        assert_eq!(read.actions.len(), 2);
        assert_eq!(read.actions[0].entry, plan.entries[0]);
        // The longest root a file lies under is its root.
        assert_eq!(read.actions[1].root, 1);
    }

    /// The HTML report writes a plan from pieces: the header's prefix, the
    /// count of the actions chosen, and the lines of those actions.
    #[test]
    fn a_plan_from_its_pieces_reads_as_a_plan() {
        let plan = Plan {
            entries: vec![
                entry("/r/a.txt", "/r/k.txt"),
                entry("/r/deep/b.txt", "/r/k.txt"),
            ],
            skipped: Vec::new(),
        };
        let mut whole = header_prefix(&header());
        whole.extend_from_slice(b"2}\n");
        for (seq, e) in plan.entries.iter().enumerate() {
            whole.extend(action_line(&header(), seq, e).unwrap());
        }
        assert_eq!(whole, render(&header(), &plan));
        let mut second = header_prefix(&header());
        second.extend_from_slice(b"1}\n");
        second.extend(action_line(&header(), 1, &plan.entries[1]).unwrap());
        let read = parse(&second[..]).unwrap();
        assert_eq!(read.actions.len(), 1);
        assert_eq!(read.actions[0].entry, plan.entries[1]);
        assert!(action_line(&header(), 0, &entry("/elsewhere/c.txt", "/r/k.txt")).is_none());
    }

    #[test]
    fn a_plan_written_before_the_removal_figure_still_reads() {
        let mut old = entry("/r/a.txt", "/r/k.txt");
        old.only_in = None;
        let plan = Plan {
            entries: vec![old.clone()],
            skipped: Vec::new(),
        };
        let text = String::from_utf8(render(&header(), &plan)).unwrap();
        assert!(!text.contains("only_in_removed"), "{text}");
        assert_eq!(parse(text.as_bytes()).unwrap().actions[0].entry, old);
    }

    #[test]
    fn a_line_that_reaches_out_of_its_root_or_is_damaged_is_named() {
        let plan = Plan {
            entries: vec![entry("/r/a.txt", "/r/k.txt")],
            skipped: Vec::new(),
        };
        let text = String::from_utf8(render(&header(), &plan)).unwrap();
        let edited = text.replace("/r/a.txt", "/r/../etc/passwd");
        let err = parse(edited.as_bytes()).unwrap_err().to_string();
        assert!(
            err.starts_with("line 2: ") && err.contains("not under its root"),
            "{err}"
        );
        let cut = &text[..text.len() - 10];
        let err = parse(cut.as_bytes()).unwrap_err().to_string();
        assert!(err.starts_with("line 2: not a JSON line"), "{err}");
        let err = parse(&b"{\"simfind_plan\":2}\n"[..])
            .unwrap_err()
            .to_string();
        assert!(err.contains("plan version 2"), "{err}");
    }
}
