//! A trained Fellegi–Sunter model as the command line shows it: the table
//! on stderr, the JSON of `--summary-json` and `--save-model`, and that JSON
//! read back (`explain --load-model`).

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use simfind::pipeline::Trained;
use simfind::similarity::{ALL_LEVELS, LEVELS, Model};

use crate::app::ui::plural;

/// The `model` object: what the model is, how it was trained, and per
/// field and level its m, u and weight log2(m/u).
pub fn to_json(trained: &Trained) -> Value {
    let model = &trained.model;
    let fields: Vec<Value> = trained
        .fields
        .iter()
        .enumerate()
        .map(|(f, name)| {
            let levels: Vec<Value> = ALL_LEVELS
                .iter()
                .map(|&level| {
                    json!({
                        "level": level.name(),
                        "m": model.m[f][level as usize],
                        "u": model.u[f][level as usize],
                        "weight": model.weight(f, level),
                    })
                })
                .collect();
            json!({ "name": name, "levels": levels })
        })
        .collect();
    json!({
        "name": "fellegi-sunter",
        "lambda": model.lambda,
        "prior_weight": (model.lambda / (1.0 - model.lambda)).log2(),
        "em_iterations": model.iterations,
        "em_converged": model.converged,
        "training_pairs": trained.training_pairs,
        "random_pairs": trained.random_pairs,
        "candidate_threshold": trained.candidate_threshold,
        "term_frequency": trained.term_frequency,
        "fields": fields,
    })
}

/// The lines printed on stderr: how the model was trained, then one row per
/// field and level.
pub fn table(trained: &Trained) -> String {
    let model = &trained.model;
    let mut out = format!(
        "simfind: model fellegi-sunter: λ {:.6} ({:+.2} bits) among {}, {} of EM{}; u from {}; \
         exact levels weighed by the value's frequency{}\n",
        model.lambda,
        (model.lambda / (1.0 - model.lambda)).log2(),
        plural(trained.training_pairs, "candidate", "candidates"),
        plural(model.iterations as u64, "iteration", "iterations"),
        if model.converged {
            ""
        } else {
            " (not converged: the cap)"
        },
        plural(trained.random_pairs, "random pair", "random pairs"),
        if trained.term_frequency { "" } else { ": off" },
    );
    let width = trained
        .fields
        .iter()
        .map(|f| f.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    out += &format!(
        "simfind:   {:width$}  {:20} {:>9} {:>9} {:>8}\n",
        "field", "level", "m", "u", "weight"
    );
    for (f, name) in trained.fields.iter().enumerate() {
        for level in ALL_LEVELS {
            out += &format!(
                "simfind:   {:width$}  {:20} {:>9.6} {:>9.6} {:>+8.2}\n",
                name,
                level.name(),
                model.m[f][level as usize],
                model.u[f][level as usize],
                model.weight(f, level),
            );
        }
    }
    out.pop();
    out
}

/// A model saved by `scan --save-model`: its fields' names, the model, and
/// whether exact levels are weighed by term frequency.
pub struct Saved {
    pub fields: Vec<String>,
    pub model: Model,
    pub term_frequency: bool,
}

/// Reads a model `scan --save-model` wrote; an error names the file and
/// what is wrong.
pub fn load(path: &Path) -> Result<Saved> {
    let cap = simfind::input::bounded::caps::OPTION_FILE;
    let text = simfind::input::bounded::read_text(path, cap)
        .with_context(|| format!("cannot read the model {}", path.display()))?;
    let doc: Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not JSON (scan --save-model writes it)", path.display()))?;
    parse(&doc).with_context(|| format!("{}: not a model scan --save-model wrote", path.display()))
}

fn parse(doc: &Value) -> Result<Saved> {
    if doc["name"] != "fellegi-sunter" {
        bail!("\"name\" is not \"fellegi-sunter\"");
    }
    let probability = |v: &Value, what: &str| -> Result<f64> {
        match v.as_f64() {
            Some(p) if p > 0.0 && p < 1.0 => Ok(p),
            Some(p) if p > 0.0 && p <= 1.0 && what != "lambda" => Ok(p),
            _ => bail!("{what} is not a probability: {v}"),
        }
    };
    let lambda = probability(&doc["lambda"], "lambda")?;
    let Some(fields) = doc["fields"].as_array() else {
        bail!("no \"fields\" list");
    };
    let mut names = Vec::new();
    let (mut m, mut u) = (Vec::new(), Vec::new());
    for field in fields {
        let name = field["name"]
            .as_str()
            .context("a field without a \"name\"")?;
        let levels = field["levels"].as_array().filter(|l| l.len() == LEVELS);
        let levels = levels.with_context(|| format!("field {name}: not {LEVELS} levels"))?;
        let (mut mf, mut uf) = ([0.0; LEVELS], [0.0; LEVELS]);
        for (i, (level, expected)) in levels.iter().zip(ALL_LEVELS).enumerate() {
            if level["level"] != expected.name() {
                bail!("field {name}: level {} is not {:?}", i + 1, expected.name());
            }
            mf[i] = probability(
                &level["m"],
                &format!("field {name}, {}: m", expected.name()),
            )?;
            uf[i] = probability(
                &level["u"],
                &format!("field {name}, {}: u", expected.name()),
            )?;
        }
        names.push(name.to_string());
        m.push(mf);
        u.push(uf);
    }
    Ok(Saved {
        fields: names,
        model: Model {
            lambda,
            m,
            u,
            iterations: doc["em_iterations"].as_u64().unwrap_or(0) as usize,
            converged: doc["em_converged"].as_bool().unwrap_or(false),
        },
        term_frequency: doc["term_frequency"].as_bool().unwrap_or(true),
    })
}
