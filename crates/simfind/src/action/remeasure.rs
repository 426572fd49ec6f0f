//! A plan's removal figures measured again when it is applied.
//!
//! Role: between reading a reviewed plan ([`super::planfile`]) and acting on
//! it ([`super::apply`]). The fingerprints say each file is still the one
//! reviewed; this says its kept copy still *contains* it, measured as the
//! plan's own run measured it (the header's recipe: shingles, k,
//! normalisation, extraction), not as the plan's line claims. A line edited
//! by hand (another kept copy, a smaller figure) or a header whose cap was
//! raised cannot make a file with text of its own removable.
//!
//! Inputs: the [`Plan`] to apply and the header's [`Measure`]. Each file
//! that is not byte-identical to its kept copy is read again (the kept copy
//! once per group), both checked against the content hash the plan records,
//! without following a link in the file's own name. Output: the entries
//! whose figure is now above the cap or above the figure the plan recorded,
//! or that could not be read (or changed since the plan: refused with the
//! apply's own reason), moved to the plan's skipped ones. Parallel
//! over kept copies; no printing.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::plan::{Plan, Skip, SkipReason, Unchecked};
use super::planfile::Measure;
use super::state;
use crate::cluster::removal::OnlyIn;
use crate::input::extract::{Extract, Transform};
use crate::input::read::ReadOptions;
use crate::params::ParamsError;
use crate::pipeline::{ReloadError, reload_indexed};
use crate::recipe::Recipe;

/// Measures every entry of `plan` again with `measure`'s recipe and moves
/// those that fail to `plan.skipped`, in the plan's order; the others get
/// the figure measured now. `transform` is the command the plan's recipe
/// ran, given again by the user (a command read from a plan is never run
/// on the plan's word alone). An error, before any file is read, when the
/// recipe cannot be repeated here.
pub fn remeasure(
    plan: &mut Plan,
    measure: &Measure,
    transform: Option<&Transform>,
) -> Result<(), ParamsError> {
    let recipe = measure.params.recipe()?;
    let extract = Extract::from_recipe_name(&measure.params.extraction, transform)
        .map_err(ParamsError::Extraction)?;
    let read = ReadOptions {
        extract,
        ..ReadOptions::default()
    };
    // The entries to read, by kept copy (its path and planned hash), in
    // the order of their first entry.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<(&Path, u128), usize> = HashMap::new();
    for (i, e) in plan.entries.iter().enumerate() {
        if e.fingerprint.hash == e.kept_fingerprint.hash {
            // Byte-identical: nothing of it is missing, by definition.
            continue;
        }
        let g = *group_of
            .entry((e.kept.as_path(), e.kept_fingerprint.hash))
            .or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
        groups[g].push(i);
    }
    let entries = &plan.entries;
    let (recipe, read) = (&recipe, &read);
    let verdicts: Vec<(usize, Result<OnlyIn, SkipReason>)> = groups
        .par_iter()
        .flat_map_iter(|group| {
            let first = &entries[group[0]];
            let kept =
                set_of(&first.kept, first.kept_fingerprint.hash, recipe, read).map_err(|why| {
                    match state::verify(&first.kept, &first.kept_fingerprint) {
                        // Changed since the plan: refused as the apply refuses it.
                        Err(m) => SkipReason::KeptCopy {
                            kept: first.kept.clone(),
                            why: Arc::new(Unchecked::Mismatch(m)),
                        },
                        Ok(()) => SkipReason::Unmeasured(format!(
                            "its kept copy {}: {why}",
                            first.kept.display()
                        )),
                    }
                });
            group.iter().map(move |&i| {
                let e = &entries[i];
                let verdict = match &kept {
                    Err(reason) => Err(reason.clone()),
                    Ok(kept_set) => set_of(&e.path, e.fingerprint.hash, recipe, read)
                        .map_err(|why| match state::verify(&e.path, &e.fingerprint) {
                            Err(m) => SkipReason::Unchecked(Arc::new(Unchecked::Mismatch(m))),
                            Ok(()) => SkipReason::Unmeasured(why.to_string()),
                        })
                        .and_then(|set| {
                            let now = OnlyIn::of_sets(&set, kept_set, e.fingerprint.size);
                            judge(now, e.only_in.map(|(share, _)| share), measure.max_unique)
                                .map(|()| now)
                                .map_err(|(limit, planned)| SkipReason::Unique {
                                    kept: e.kept.clone(),
                                    share: now.share,
                                    limit,
                                    planned,
                                })
                        }),
                };
                (i, verdict)
            })
        })
        .collect();
    let mut refused: Vec<Option<SkipReason>> = vec![None; plan.entries.len()];
    for (i, verdict) in verdicts {
        match verdict {
            Ok(now) => plan.entries[i].only_in = Some((now.share, now.bytes)),
            Err(reason) => refused[i] = Some(reason),
        }
    }
    let entries = std::mem::take(&mut plan.entries);
    for (e, refusal) in entries.into_iter().zip(refused) {
        match refusal {
            None => plan.entries.push(e),
            Some(reason) => plan.skipped.push(Skip {
                path: e.path,
                reason,
            }),
        }
    }
    Ok(())
}

/// Whether a figure measured `now` still allows the removal: `Err((limit,
/// planned))` when it is above the cap (`planned` false) or above the
/// figure the plan recorded (`planned` true). The same bytes measured by
/// the same recipe give the same figure to the bit, but the figure read
/// back from the plan's JSON may be a unit in the last place off (the JSON
/// reader parses floats to within one, not exactly): within [`SAME`] of it,
/// relatively, is the same figure. One shingle more out of even 10⁹ is far
/// more; any increase beyond means the plan's line or recipe is not what
/// measured them.
fn judge(now: OnlyIn, planned: Option<f64>, cap: f64) -> Result<(), (f64, bool)> {
    if now.holds_back(cap) {
        return Err((cap, false));
    }
    match planned {
        Some(figure) if now.share > figure + figure.abs() * SAME => Err((figure, true)),
        _ => Ok(()),
    }
}

/// The relative difference under which a figure read back from a plan is
/// the one measured now (a few units in the last place of an f64).
const SAME: f64 = 1e-12;

/// The shingle set of the file at `path` whose content had `hash` when
/// planned, or why it cannot be had (changed since, unreadable).
fn set_of(
    path: &Path,
    hash: u128,
    recipe: &Recipe,
    read: &ReadOptions,
) -> Result<Vec<u64>, ReloadError> {
    reload_indexed(path, None, hash, recipe, read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(share: f64) -> OnlyIn {
        OnlyIn {
            share,
            shingles: 1,
            bytes: 1,
        }
    }

    #[test]
    fn a_figure_above_the_cap_or_the_planned_one_is_refused() {
        assert_eq!(judge(figure(0.0), Some(0.0), 0.01), Ok(()));
        assert_eq!(judge(figure(0.005), Some(0.005), 0.01), Ok(()));
        assert_eq!(judge(figure(0.005), None, 0.01), Ok(()));
        assert_eq!(judge(figure(0.02), Some(0.02), 0.01), Err((0.01, false)));
        assert_eq!(judge(figure(0.005), Some(0.001), 0.01), Err((0.001, true)));
        // The figure read back a unit in the last place below the one
        // measured is the same figure (found on debian-docs: 8/867).
        let share: f64 = 1.0 - 859.0 / 867.0;
        let read_back = f64::from_bits(share.to_bits() - 1);
        assert_eq!(judge(figure(share), Some(read_back), 0.01), Ok(()));
        // A cap of 1 still holds the plan to its own figures.
        assert_eq!(judge(figure(0.3), Some(0.3), 1.0), Ok(()));
        assert_eq!(judge(figure(0.3), Some(0.2), 1.0), Err((0.2, true)));
    }
}
