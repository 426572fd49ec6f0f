//! `explain --input KIND FILE ID_A ID_B --load-model MODEL`: a record pair
//! under a trained Fellegi–Sunter model, field by field. The values are
//! compared as `scan --model fellegi-sunter` compares them
//! (`simfind::pipeline::Values`), and an exact level's u is the value's
//! frequency among FILE's records, as the scan's is among its inputs'.

use std::io::Write;
use std::path::Path;

use anyhow::{Result, bail};
use serde_json::json;
use simfind::input::InputKind;
use simfind::pipeline::Values;

use super::{Args, Format};
use crate::app::exit;
use crate::app::fs_model;

pub(super) fn run(args: &Args, kind: InputKind, path: &Path) -> Result<i32> {
    let saved = fs_model::load(path)?;
    let (recipe, limit) = super::recipe_and_limit(args)?;
    let (records, [a, b]) = super::read_records(args, kind, limit)?;
    if records.fields != saved.fields {
        bail!(
            "{} has the fields {}, the model {} was trained on {}: give the scan's --columns \
             (or --text-field)",
            args.a.display(),
            records.fields.join(","),
            path.display(),
            saved.fields.join(",")
        );
    }
    let rows: Vec<Vec<String>> = records.records.iter().map(|r| r.fields.clone()).collect();
    let values = Values::new(&rows, saved.fields.len(), recipe.normalization);
    let weights = values.breakdown(&saved.model, a as u32, b as u32, saved.term_frequency);
    let name = args.a.display();
    let (ra, rb) = (&records.records[a], &records.records[b]);
    let labels = [format!("{name}#{}", ra.id), format!("{name}#{}", rb.id)];
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match args.format {
        Format::Json => {
            let fields: Vec<_> = saved
                .fields
                .iter()
                .zip(&weights.fields)
                .enumerate()
                .map(|(f, (field, w))| {
                    json!({
                        "name": field,
                        "a": ra.fields[f],
                        "b": rb.fields[f],
                        "level": w.level.map_or("null", |l| l.name()),
                        "m": w.level.map(|_| w.m),
                        "u": w.level.map(|_| w.u),
                        "term_frequency": w.term_frequency,
                        "weight": w.weight,
                    })
                })
                .collect();
            let doc = json!({
                "a": labels[0],
                "b": labels[1],
                "model": "fellegi-sunter",
                "match_probability": weights.probability,
                "match_weight": weights.total,
                "prior_weight": weights.prior,
                "fields": fields,
            });
            let mut line = serde_json::to_vec(&doc)?;
            line.push(b'\n');
            out.write_all(&line)?;
        }
        Format::Text => {
            writeln!(out, "a: {}", labels[0])?;
            writeln!(out, "b: {}", labels[1])?;
            writeln!(
                out,
                "match probability {:.6}, match weight {:+.2} (the prior {:+.2} and the fields')",
                weights.probability, weights.total, weights.prior
            )?;
            let shown = |s: &str| {
                let s: String = s.chars().take(24).collect();
                if s.is_empty() { "∅".to_string() } else { s }
            };
            let width = saved
                .fields
                .iter()
                .map(|f| f.chars().count())
                .max()
                .unwrap_or(5)
                .max(5);
            writeln!(
                out,
                "{:width$}  {:24}  {:24}  {:20} {:>9} {:>10} {:>8}",
                "field", "a", "b", "level", "m", "u", "weight"
            )?;
            for (f, (field, w)) in saved.fields.iter().zip(&weights.fields).enumerate() {
                let (m, u) = match w.level {
                    Some(_) => (
                        format!("{:.6}", w.m),
                        format!("{:.6}{}", w.u, if w.term_frequency { "*" } else { "" }),
                    ),
                    None => (String::new(), String::new()),
                };
                writeln!(
                    out,
                    "{:width$}  {:24}  {:24}  {:20} {:>9} {:>10} {:>+8.2}",
                    field,
                    shown(&ra.fields[f]),
                    shown(&rb.fields[f]),
                    w.level.map_or("null (empty)", |l| l.name()),
                    m,
                    u,
                    w.weight
                )?;
            }
            if weights.fields.iter().any(|w| w.term_frequency) {
                writeln!(out, "* the value's frequency among the records of {name}")?;
            }
        }
    }
    out.flush()?;
    Ok(exit::OK)
}
