//! Which measure a run compares by: the one name for "jaccard, weighted
//! jaccard, containment, cosine, euclidean, hamming" that sketch families, the S-curve
//! code, the exchange and the output all speak.
//!
//! Invariants: a measure's [`Measure::name`] is what output columns, summaries
//! and Parquet metadata write (so it never changes: stored shards and golden
//! outputs carry it), and it parses back with [`str::parse`]. Pure.
//!
//! The flag vocabulary of the command line (`--metric`, `--sketch`) stays the
//! CLI's; it maps onto these values in one place.

use std::fmt;
use std::str::FromStr;

/// A similarity or distance measure between two documents or points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Measure {
    /// Jaccard similarity `|A ∩ B| / |A ∪ B|` of two sets (MinHash).
    Jaccard,
    /// Weighted Jaccard similarity `Σ min / Σ max` of two bags (ICWS).
    WeightedJaccard,
    /// Containment `|A ∩ B| / |A|` of one set in another: a similarity, not
    /// symmetric, 0 for an empty A (`similarity::containment`).
    Containment,
    /// Cosine similarity of two vectors (random hyperplanes, SimHash).
    Cosine,
    /// Euclidean (L2) distance of two vectors (p-stable projections).
    L2,
    /// Hamming distance in bits of two bit strings (bit sampling).
    Hamming,
}

impl Measure {
    /// Every measure, in the order above.
    pub const ALL: [Measure; 6] = [
        Measure::Jaccard,
        Measure::WeightedJaccard,
        Measure::Containment,
        Measure::Cosine,
        Measure::L2,
        Measure::Hamming,
    ];

    /// The name output and stored metadata write (`metric` columns, the
    /// exchange's `metric` key): L2 is `euclidean`, as it always was.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Jaccard => "jaccard",
            Measure::WeightedJaccard => "weighted_jaccard",
            Measure::Containment => "containment",
            Measure::Cosine => "cosine",
            Measure::L2 => "euclidean",
            Measure::Hamming => "hamming",
        }
    }

    /// Whether a larger value means more alike (a similarity), or less (a
    /// distance): what a threshold is compared against.
    pub fn larger_is_more_similar(self) -> bool {
        match self {
            Measure::Jaccard
            | Measure::WeightedJaccard
            | Measure::Containment
            | Measure::Cosine => true,
            Measure::L2 | Measure::Hamming => false,
        }
    }

    /// Whether `m(A, B) = m(B, A)`: all but containment, whose two
    /// directions output writes apart.
    pub fn is_symmetric(self) -> bool {
        self != Measure::Containment
    }

    /// Whether the measure compares sets (or bags) of features, shingles or
    /// tokens, rather than vectors or bit strings.
    pub fn of_sets(self) -> bool {
        matches!(
            self,
            Measure::Jaccard | Measure::WeightedJaccard | Measure::Containment
        )
    }

    /// The column a pair's value is written under: `similarity` or `distance`.
    pub fn column(self) -> &'static str {
        if self.larger_is_more_similar() {
            "similarity"
        } else {
            "distance"
        }
    }

    /// A value as output writes it: an integer for Hamming distances (whole
    /// bits), 6 decimals otherwise.
    pub fn format_value(self, value: f64) -> String {
        match self {
            Measure::Hamming => format!("{}", value as u64),
            _ => format!("{value:.6}"),
        }
    }

    /// A value of the measure in the distance unit its S-curve is drawn
    /// against: `1 − s` for the Jaccard measures, the angle in degrees for
    /// cosine; the distances as they are.
    pub fn to_distance(self, value: f64) -> f64 {
        match self {
            Measure::Jaccard | Measure::WeightedJaccard | Measure::Containment => 1.0 - value,
            Measure::Cosine => value.clamp(-1.0, 1.0).acos().to_degrees(),
            Measure::L2 | Measure::Hamming => value,
        }
    }

    /// The inverse of [`Measure::to_distance`].
    pub fn from_distance(self, distance: f64) -> f64 {
        match self {
            Measure::Jaccard | Measure::WeightedJaccard | Measure::Containment => 1.0 - distance,
            Measure::Cosine => distance.to_radians().cos(),
            Measure::L2 | Measure::Hamming => distance,
        }
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A measure name this simfind does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMeasure(pub String);

impl fmt::Display for UnknownMeasure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown measure {:?}", self.0)
    }
}

impl std::error::Error for UnknownMeasure {}

impl FromStr for Measure {
    type Err = UnknownMeasure;

    fn from_str(s: &str) -> Result<Self, UnknownMeasure> {
        Measure::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownMeasure(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_stay_what_output_writes() {
        for m in Measure::ALL {
            assert_eq!(m.name().parse::<Measure>(), Ok(m));
            assert_eq!(m.to_string(), m.name());
        }
        let names: Vec<_> = Measure::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(
            names,
            [
                "jaccard",
                "weighted_jaccard",
                "containment",
                "cosine",
                "euclidean",
                "hamming"
            ]
        );
        assert_eq!(
            "l2".parse::<Measure>().unwrap_err().to_string(),
            "unknown measure \"l2\""
        );
    }

    #[test]
    fn columns_and_values() {
        assert_eq!(Measure::Cosine.column(), "similarity");
        assert_eq!(Measure::WeightedJaccard.column(), "similarity");
        assert_eq!(Measure::L2.column(), "distance");
        assert_eq!(Measure::Hamming.column(), "distance");
        assert_eq!(Measure::Hamming.format_value(3.0), "3");
        assert_eq!(Measure::L2.format_value(0.25), "0.250000");
    }

    #[test]
    fn containment_is_an_asymmetric_similarity_of_sets() {
        let c = Measure::Containment;
        assert!(c.larger_is_more_similar() && c.of_sets() && !c.is_symmetric());
        assert_eq!(c.column(), "similarity");
        assert_eq!("containment".parse::<Measure>(), Ok(c));
        assert!(Measure::ALL.iter().filter(|m| !m.is_symmetric()).eq([&c]));
        assert!(!Measure::Cosine.of_sets() && !Measure::Hamming.of_sets());
    }

    #[test]
    fn distances_invert() {
        for m in Measure::ALL {
            for v in [0.0, 0.3, 0.5, 0.9, 1.0] {
                let back = m.from_distance(m.to_distance(v));
                assert!((back - v).abs() < 1e-12, "{m}: {v} → {back}");
            }
        }
        assert!((Measure::Cosine.to_distance(0.5) - 60.0).abs() < 1e-9);
        assert!((Measure::Jaccard.to_distance(0.8) - 0.2).abs() < 1e-12);
    }
}
