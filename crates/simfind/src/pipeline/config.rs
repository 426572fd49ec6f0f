//! What a scan is asked to do: the roots and how to walk and read them, the
//! signing recipe, and how pairs are matched (threshold, verification, method,
//! memory budget). Built and validated by the caller before any I/O.

use std::path::PathBuf;
use std::str::FromStr;

use crate::input::read::ReadOptions;
use crate::input::walk::WalkOptions;
use crate::recipe::Recipe;
use crate::similarity::ExactIndex;

/// How candidates are confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verification {
    /// Exact Jaccard similarity of the shingle sets: no false positives.
    Exact,
    /// The fraction of agreeing signature values only: faster, approximate.
    Signature,
}

/// A way of finding similar pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Exact set-similarity join: every pair, no false negatives.
    Exact,
    /// MinHash signatures, LSH banding, then verification of candidates.
    Lsh,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Lsh => "lsh",
        }
    }
}

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodChoice {
    /// Let the cost model (`plan::choose`) decide.
    Auto,
    /// `auto`, but the user gave `--bands`/`--rows`: a banding only LSH uses,
    /// so LSH it is.
    Banded,
    /// Use this method.
    Fixed(Method),
}

/// The cap on shingle sets held for exact verification when the caller
/// gives none: the command line's `--verify-memory` default, for faces
/// without that flag (Python).
pub const DEFAULT_VERIFY_MEMORY: usize = 1 << 30;

/// Everything a scan needs, validated by the caller.
#[derive(Clone, Debug)]
pub struct ScanConfig {
    pub roots: Vec<PathBuf>,
    pub walk: WalkOptions,
    pub read: ReadOptions,
    /// How a document becomes a signature and band keys.
    pub recipe: Recipe,
    /// Pairs with similarity ≥ this are reported; in (0, 1].
    pub threshold: f64,
    pub verification: Verification,
    /// Exact join, LSH, or chosen by the cost model of [`crate::pipeline::plan`].
    pub method: MethodChoice,
    /// Upper bound on the bytes of shingle sets held at once during exact
    /// verification.
    pub verify_memory: usize,
    /// The exact join's index (`--exact-index`); `None`: the default
    /// (PPJoin), and the summary says nothing of it.
    pub exact_index: Option<ExactIndex>,
}

impl From<crate::spec::Verification> for Verification {
    fn from(v: crate::spec::Verification) -> Self {
        match v {
            crate::spec::Verification::Exact => Verification::Exact,
            crate::spec::Verification::Signature => Verification::Signature,
        }
    }
}

impl From<crate::spec::Method> for MethodChoice {
    fn from(m: crate::spec::Method) -> Self {
        match m {
            crate::spec::Method::Auto => MethodChoice::Auto,
            crate::spec::Method::Banded => MethodChoice::Banded,
            crate::spec::Method::Exact => MethodChoice::Fixed(Method::Exact),
            crate::spec::Method::Lsh => MethodChoice::Fixed(Method::Lsh),
        }
    }
}

impl ScanConfig {
    /// The scan of `spec` over what the caller walked and read: the spec
    /// says what a run means, the rest is where its documents come from.
    pub fn from_spec(
        spec: &crate::spec::Spec,
        roots: Vec<PathBuf>,
        walk: WalkOptions,
        read: ReadOptions,
        verify_memory: usize,
    ) -> Self {
        ScanConfig {
            roots,
            walk,
            read,
            recipe: spec.recipe(),
            threshold: spec.threshold,
            verification: spec.verification.into(),
            method: spec.method.into(),
            verify_memory,
            exact_index: spec.exact_index,
        }
    }
}

/// Which bytes bucket the files before the full hash (`--identical-by`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdenticalBy {
    /// Every file of a size shared with another is hashed in full.
    Full,
    /// The first `N` bytes.
    Prefix(u64),
    /// The bytes at `N` positions, the same fractions of every file's length
    /// (fixed by a seed), so that files of one size are sampled alike.
    Positions(u64),
}

/// Why a string names no [`IdenticalBy`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseIdenticalByError {
    /// `prefix:` or `positions:` followed by no positive whole number.
    NotACount(String),
    /// Neither `full`, `prefix:N` nor `positions:N`.
    Unknown(String),
}

impl std::fmt::Display for ParseIdenticalByError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseIdenticalByError::NotACount(n) => {
                write!(f, "{n:?} is not a positive whole number")
            }
            ParseIdenticalByError::Unknown(s) => write!(
                f,
                "{s:?}: expected full, prefix:N (bytes) or positions:N (random positions)"
            ),
        }
    }
}

impl std::error::Error for ParseIdenticalByError {}

impl FromStr for IdenticalBy {
    type Err = ParseIdenticalByError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let count = |n: &str| match n.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(ParseIdenticalByError::NotACount(n.to_string())),
        };
        match s.split_once(':') {
            None if s == "full" => Ok(IdenticalBy::Full),
            Some(("prefix", n)) => Ok(IdenticalBy::Prefix(count(n)?)),
            Some(("positions", n)) => Ok(IdenticalBy::Positions(count(n)?)),
            _ => Err(ParseIdenticalByError::Unknown(s.to_string())),
        }
    }
}

impl std::fmt::Display for IdenticalBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdenticalBy::Full => f.write_str("full"),
            IdenticalBy::Prefix(n) => write!(f, "prefix:{n}"),
            IdenticalBy::Positions(n) => write!(f, "positions:{n}"),
        }
    }
}
