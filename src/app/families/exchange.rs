//! `sign --input vectors|bits`: the family and banding a scan of points
//! would use, for the Parquet exchange (docs/SCALE-OUT.md).

use super::*;

/// `sign --input vectors|bits`: the family and its query from the arguments
/// `scan --input vectors|bits` takes, refused as scan refuses them (the
/// library's [`PointSpecBuilder`](simfind::spec::PointSpecBuilder)), and the
/// spec that [`exchange_banding`] tunes a banding from once the points'
/// width is known.
pub fn exchange_family(
    kind: InputKind,
    f: &FamilyArgs,
    threshold: Option<f64>,
    signing: &SigningArgs,
) -> Result<(simfind::exchange::Family, PointSpec)> {
    use simfind::exchange::Family;
    if f.sketch == Some(SketchFamilyArg::Icws) {
        bail!("sign --sketch icws is not available: run scan --sketch icws on one box");
    }
    if f.sketch == Some(SketchFamilyArg::Simhash) {
        bail!(
            "sign --sketch simhash is not available: SimHash fingerprints are not in the exchange \
             files; run scan --sketch simhash on one box"
        );
    }
    if kind == InputKind::Bits && threshold.is_some() {
        bail!("--input bits takes --radius K (bits), not -t");
    }
    let measure = f.metric.map(|m| m.measure());
    let spec = crate::app::lower::points(kind, f, signing)
        .threshold(threshold)
        .build()
        .map_err(|e| crate::app::lower::point_error(e, kind, measure))?;
    let family = match spec.query {
        PointQuery::Cosine { min_cosine } => Family::Cosine { min_cosine },
        PointQuery::Euclidean { radius, width, .. } => Family::Euclidean { radius, width },
        PointQuery::Hamming { radius } | PointQuery::SimHash { radius } => {
            Family::Hamming { radius }
        }
    };
    Ok((family, spec))
}

/// The banding of a signed family: the one given, or the one scan tunes for
/// points of `width` components (bits) at the family's threshold.
pub fn exchange_banding(spec: &PointSpec, width: usize) -> Result<Banding> {
    simfind::spec::tuned_banding(spec, width).map_err(|e| anyhow::anyhow!(speak::tune_error(&e)))
}
