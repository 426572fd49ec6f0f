//! `scan --top K`: the floor a top-k run ranks above when no -t is given.

use super::*;

/// The chance of becoming a candidate at `scan --top K`'s default floor.
pub(super) const TOP_FLOOR_CHANCE: f64 = 0.05;

/// `scan --top K` without -t: the threshold becomes a floor, the similarity
/// where the banding makes a pair a candidate with probability
/// [`TOP_FLOOR_CHANCE`] (rounded down to hundredths); below it a neighbour
/// would be found by chance, and verifying what LSH offers there costs
/// without ranking anything reliably. A given -t stays the floor, its
/// banding tuned for it as for any threshold.
pub(crate) fn top_floor(
    top: Option<u64>,
    source: ThresholdSource,
    config: &mut ScanConfig,
) -> ThresholdSource {
    if top.is_none() || !matches!(source, ThresholdSource::SCurve) {
        return source;
    }
    let banding = config.recipe.banding;
    let floor = simfind::lsh::scurve::similarity_at(TOP_FLOOR_CHANCE, banding.bands, banding.rows);
    config.threshold = ((floor * 100.0).floor() / 100.0).max(0.01);
    ThresholdSource::TopFloor
}
