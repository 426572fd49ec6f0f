//! SIMD kernel selection, written once.
//!
//! Role: several stages have a scalar reference kernel and faster variants for
//! AVX2 or AVX-512 (normalisation, window hashing, classic MinHash, OPH, the
//! sorted-set merge). Each family is an enum that implements [`KernelSet`];
//! [`best`] picks the first variant of its preference order that the running CPU
//! supports, from CPU features probed once ([`features`]). The kernels
//! themselves stay beside their scalar definitions, where the oracle tests are.
//!
//! Invariants: every variant of a family computes exactly what its reference
//! computes (each family's tests check it with [`for_each_supported`]); the
//! reference runs on every CPU; selection depends on the CPU only, never on the
//! input, so output is identical whichever variant runs.

use std::sync::OnceLock;

/// The CPU features the kernels need, probed once per process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub popcnt: bool,
    pub avx2: bool,
    pub avx512f: bool,
    pub avx512bw: bool,
    pub avx512dq: bool,
    pub avx512vl: bool,
    pub avx512vbmi2: bool,
    /// AVX-512 gathers cost more than the scalar loads they replace. Probed
    /// as the vendor: on this project's AMD machine (EPYC with AVX-512) a
    /// gather of 8 bins took longer than 8 scalar load-min-stores
    /// (docs/PERFORMANCE.md, "OPH's bins without the gather").
    pub slow_gather: bool,
}

impl Features {
    /// What this CPU can execute.
    fn probe() -> Features {
        #[cfg(target_arch = "x86_64")]
        {
            Features {
                popcnt: is_x86_feature_detected!("popcnt"),
                avx2: is_x86_feature_detected!("avx2"),
                avx512f: is_x86_feature_detected!("avx512f"),
                avx512bw: is_x86_feature_detected!("avx512bw"),
                avx512dq: is_x86_feature_detected!("avx512dq"),
                avx512vl: is_x86_feature_detected!("avx512vl"),
                avx512vbmi2: is_x86_feature_detected!("avx512vbmi2"),
                slow_gather: vendor_is_amd(),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Features::default()
        }
    }
}

/// Whether CPUID names AMD as the vendor ("AuthenticAMD").
#[cfg(target_arch = "x86_64")]
fn vendor_is_amd() -> bool {
    let leaf = std::arch::x86_64::__cpuid(0);
    // The vendor string is EBX, EDX, ECX in that order.
    (leaf.ebx, leaf.edx, leaf.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
}

/// The features of the running CPU.
#[inline]
pub fn features() -> &'static Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    FEATURES.get_or_init(Features::probe)
}

/// A family of interchangeable kernels: a scalar reference and its SIMD variants.
pub trait KernelSet: Copy + Eq + std::fmt::Debug + 'static {
    /// Every variant, the reference first.
    const ALL: &'static [Self];
    /// The variants [`best`] considers, fastest first; ends with the reference.
    /// A variant in `ALL` but not here is kept for tests and benchmarks only.
    const PREFERENCE: &'static [Self];
    /// The name benchmarks and `--version` print.
    fn name(self) -> &'static str;
    /// Whether a CPU with `features` can execute this variant.
    fn supported_by(self, features: &Features) -> bool;
    /// Whether [`best`] may pick this variant on a CPU with `features`: it
    /// runs there and is not known to be slower there than a later one
    /// (all variants stay [`supported`](KernelSet::supported), so tests
    /// still check them).
    fn preferred_by(self, features: &Features) -> bool {
        self.supported_by(features)
    }

    /// Whether the running CPU can execute this variant.
    fn supported(self) -> bool {
        self.supported_by(features())
    }
}

/// The first variant of `K::PREFERENCE` that the running CPU supports and
/// prefers ([`KernelSet::preferred_by`]): the
/// one entry point every family's dispatch goes through. Cheap enough to call
/// per document or per batch (a load of the probed features and a few flag
/// tests), never per hash.
#[inline]
pub fn best<K: KernelSet>() -> K {
    let features = features();
    K::PREFERENCE
        .iter()
        .copied()
        .find(|k| k.preferred_by(features))
        .unwrap_or(K::ALL[0])
}

/// Calls `check` with every variant of `K` this CPU supports, and says on
/// stderr which variants it could not run, so a test that passes on a CPU
/// without AVX-512 does not pass as if it had checked the AVX-512 kernels.
/// Returns the names of the skipped variants.
pub fn for_each_supported<K: KernelSet>(mut check: impl FnMut(K)) -> Vec<&'static str> {
    let mut skipped = Vec::new();
    for &kernel in K::ALL {
        if kernel.supported() {
            check(kernel);
        } else {
            skipped.push(kernel.name());
        }
    }
    if !skipped.is_empty() {
        eprintln!(
            "note: this CPU cannot run the {} kernel(s) {}; they were not checked",
            std::any::type_name::<K>(),
            skipped.join(", ")
        );
    }
    skipped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Toy {
        Scalar,
        Wide,
        Impossible,
        /// Runs, but never preferred (as a gather where gathers are slow).
        Slow,
    }

    impl KernelSet for Toy {
        const ALL: &'static [Toy] = &[Toy::Scalar, Toy::Wide, Toy::Impossible, Toy::Slow];
        const PREFERENCE: &'static [Toy] = &[Toy::Impossible, Toy::Slow, Toy::Wide, Toy::Scalar];
        fn name(self) -> &'static str {
            match self {
                Toy::Scalar => "scalar",
                Toy::Wide => "wide",
                Toy::Impossible => "impossible",
                Toy::Slow => "slow",
            }
        }
        fn supported_by(self, _: &Features) -> bool {
            self != Toy::Impossible
        }
        fn preferred_by(self, features: &Features) -> bool {
            self.supported_by(features) && self != Toy::Slow
        }
    }

    #[test]
    fn best_is_the_first_supported_preference_not_passed_over() {
        assert_eq!(best::<Toy>(), Toy::Wide);
    }

    #[test]
    fn unsupported_variants_are_named_not_silently_skipped() {
        let mut ran = Vec::new();
        let skipped = for_each_supported::<Toy>(|k| ran.push(k));
        // A variant passed over by `best` is still checked.
        assert_eq!(ran, [Toy::Scalar, Toy::Wide, Toy::Slow]);
        assert_eq!(skipped, ["impossible"]);
    }

    #[test]
    fn probing_twice_gives_the_same_features() {
        assert_eq!(*features(), Features::probe());
    }
}
