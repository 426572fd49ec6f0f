//! `sign --input vectors|bits`: the family and banding a scan of points
//! would use, for the Parquet exchange (docs/SCALE-OUT.md).

use super::*;

/// `sign --input vectors|bits`: the family and its query from the arguments
/// `scan --input vectors|bits` takes, refused as scan refuses them, and the
/// banding if -b/-r are given (else [`exchange_banding`] tunes it once the
/// points' width is known).
pub fn exchange_family(
    kind: InputKind,
    f: &FamilyArgs,
    threshold: Option<f64>,
    signing: &SigningArgs,
) -> Result<(simfind::exchange::Family, Option<Banding>)> {
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
    let banding = given_banding(signing);
    let family = match kind {
        InputKind::Bits => {
            if threshold.is_some() {
                bail!("--input bits takes --radius K (bits), not -t");
            }
            Family::Hamming {
                radius: bits_radius(f)? as u32,
            }
        }
        _ => match vector_plan(f, threshold, banding)? {
            Plan::Vectors {
                query: VectorQuery::Cosine { min_cosine },
                ..
            } => Family::Cosine { min_cosine },
            Plan::Vectors {
                query: VectorQuery::Euclidean { radius, width },
                ..
            } => Family::Euclidean { radius, width },
            Plan::Bits { .. } | Plan::SimHash { .. } => unreachable!("vector_plan plans vectors"),
        },
    };
    Ok((family, banding))
}

/// The banding of a signed family: the one given, or the one scan tunes for
/// points of `width` components (bits) at the family's threshold.
pub fn exchange_banding(
    family: simfind::exchange::Family,
    given: Option<Banding>,
    width: usize,
    min_recall: f64,
) -> Result<Banding> {
    use simfind::exchange::Family;
    let (metric, distance) = match family {
        Family::Cosine { min_cosine } => (Metric::Cosine, Measure::Cosine.to_distance(min_cosine)),
        Family::Euclidean { radius, width } => (Metric::Euclidean, radius / width),
        Family::Hamming { radius } => {
            if radius as usize >= width {
                bail!(
                    "--radius {radius} is not below the strings' {width} bits: every pair would be within it"
                );
            }
            (Metric::Hamming { bits: width }, f64::from(radius))
        }
    };
    choose_banding(given, metric, distance, min_recall)
}
