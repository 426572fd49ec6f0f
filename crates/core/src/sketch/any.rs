//! [`AnyFamily`]: every sketch family as one value, chosen at run time, each
//! [`Family`] call one `match` written once (the `dispatch!` macro below).
//! Callers dispatch per document or per row, never per hash; the MinHash
//! hot path keeps [`super::AnySketcher`] and its streaming builders.

use super::{
    AnySketcher, BitSampling, Block, Classic, Family, Features, Hyperplanes, Icws, OnePermutation,
    PStable, SimHash,
};
use crate::measure::Measure;

/// Every sketch family.
#[derive(Clone, Debug)]
pub enum AnyFamily {
    Classic(Classic),
    Oph(OnePermutation),
    Block(Block),
    Icws(Icws),
    SimHash(SimHash),
    Hyperplanes(Hyperplanes),
    PStable(PStable),
    BitSampling(BitSampling),
}

/// `$body` with `$f` bound to the family inside `$self`, for every variant.
macro_rules! dispatch {
    ($self:expr, $f:ident => $body:expr) => {
        match $self {
            AnyFamily::Classic($f) => $body,
            AnyFamily::Oph($f) => $body,
            AnyFamily::Block($f) => $body,
            AnyFamily::Icws($f) => $body,
            AnyFamily::SimHash($f) => $body,
            AnyFamily::Hyperplanes($f) => $body,
            AnyFamily::PStable($f) => $body,
            AnyFamily::BitSampling($f) => $body,
        }
    };
}

impl AnyFamily {
    /// The family's name, as `--sketch` and stored metadata spell it.
    pub fn name(&self) -> &'static str {
        match self {
            AnyFamily::Classic(_) => "classic",
            AnyFamily::Oph(_) => "oph",
            AnyFamily::Block(_) => "block",
            AnyFamily::Icws(_) => "icws",
            AnyFamily::SimHash(_) => "simhash",
            AnyFamily::Hyperplanes(_) => "hyperplane",
            AnyFamily::PStable(_) => "pstable",
            AnyFamily::BitSampling(_) => "bit_sampling",
        }
    }
}

impl Family for AnyFamily {
    fn signature_len(&self) -> usize {
        dispatch!(self, f => f.signature_len())
    }

    fn sign_into(&self, features: Features<'_>, out: &mut [u32]) {
        dispatch!(self, f => Family::sign_into(f, features, out))
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        dispatch!(self, f => Family::estimate(f, a, b))
    }

    fn collision_probability(&self, value: f64) -> f64 {
        dispatch!(self, f => Family::collision_probability(f, value))
    }

    fn measure(&self) -> Measure {
        dispatch!(self, f => f.measure())
    }
}

impl From<AnySketcher> for AnyFamily {
    fn from(sketcher: AnySketcher) -> Self {
        match sketcher {
            AnySketcher::Classic(s) => AnyFamily::Classic(s),
            AnySketcher::Oph(s) => AnyFamily::Oph(s),
            AnySketcher::Block(s) => AnyFamily::Block(s),
        }
    }
}

macro_rules! from_family {
    ($($variant:ident($ty:ty)),* $(,)?) => {$(
        impl From<$ty> for AnyFamily {
            fn from(family: $ty) -> Self {
                AnyFamily::$variant(family)
            }
        }
    )*};
}

from_family!(
    Classic(Classic),
    Oph(OnePermutation),
    Block(Block),
    Icws(Icws),
    SimHash(SimHash),
    Hyperplanes(Hyperplanes),
    PStable(PStable),
    BitSampling(BitSampling),
);

#[cfg(test)]
mod tests;
