//! The distinct values of a stream of 64-bit shingle hashes, in linear time.
//!
//! Role: signing needs each document's *set* of shingle hashes, but not in any
//! order. Sorting every occurrence (`sort_unstable` + `dedup`) was a fifth of a
//! scan's CPU time; this open-addressing set does the same work in one pass.
//! Input: hashes one at a time ([`DistinctSet::insert`]). Output: the distinct
//! values, in an order that depends only on the inserted sequence
//! ([`DistinctSet::drain_into`]).
//!
//! Invariants: the values are XXH3 outputs, i.e. uniformly distributed, so the
//! low bits index the table directly with linear probing; the table is kept at
//! most half full (it doubles beyond that), so probes stay short. `0` marks an
//! empty slot and a real `0` hash is tracked by a flag. Memory: at most
//! 5 × 8 bytes per distinct value of the largest document seen, kept and
//! reused from one document to the next (no allocation per document).
//!
//! [`RepeatFilter`] is the cheap, lossy cousin for signing alone: it keeps the
//! set but not the count (some repeats pass).

/// A reusable set of 64-bit hashes. [`reset`](Self::reset) between documents.
#[derive(Default, Debug)]
pub struct DistinctSet {
    /// The largest table any document has needed so far. Only the first
    /// `active` slots are in use; every slot beyond them is zero, so that the
    /// table can switch to a larger power-of-two prefix without clearing it.
    /// Freeing and reallocating tables per document cost more than the
    /// inserts: big allocations are fresh mappings whose page faults and
    /// `munmap` TLB shootdowns showed up as 7 % of a scan's profile.
    slots: Vec<u64>,
    /// Size of the table in use: a power of two, at most `slots.len()`.
    active: usize,
    /// The distinct non-zero values in insertion order: draining copies this
    /// instead of scanning a half-empty table.
    values: Vec<u64>,
    has_zero: bool,
}

const MIN_SLOTS: usize = 1024;

impl DistinctSet {
    /// Empties the set, sized for about `expected` distinct values (a hint:
    /// the table grows as needed). Clears only the slots the previous
    /// document used and never frees memory: a worker keeps the largest table
    /// it has needed and uses a power-of-two prefix of it.
    pub fn reset(&mut self, expected: usize) {
        let want = (expected.saturating_mul(2))
            .next_power_of_two()
            .max(MIN_SLOTS);
        if !self.values.is_empty() {
            self.slots[..self.active].fill(0);
        }
        if want > self.slots.len() {
            // Everything is zero: a fresh zeroed table instead of a copy.
            self.slots = vec![0; want];
        }
        self.active = want;
        self.values.clear();
        self.has_zero = false;
    }

    /// Number of distinct values inserted since the last reset.
    pub fn len(&self) -> usize {
        self.values.len() + usize::from(self.has_zero)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn insert(&mut self, h: u64) {
        if h == 0 {
            self.has_zero = true;
            return;
        }
        if self.active == 0 {
            self.reset(0);
        }
        let mask = self.active - 1;
        let mut i = h as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot == h {
                return;
            }
            if slot == 0 {
                self.slots[i] = h;
                self.values.push(h);
                if self.values.len() * 2 > self.active {
                    self.grow();
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table in use. The new half is already zero; the old half
    /// is cleared and every value re-inserted under the wider mask.
    #[cold]
    fn grow(&mut self) {
        let wider = self.active * 2;
        if wider > self.slots.len() {
            self.slots = vec![0; wider];
        } else {
            self.slots[..self.active].fill(0);
        }
        self.active = wider;
        let mask = wider - 1;
        for &h in &self.values {
            let mut i = h as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = h;
        }
    }

    /// Writes the distinct values to `out` (cleared first), in order of first
    /// insertion (a `0` first, if inserted).
    pub fn drain_into(&self, out: &mut Vec<u64>) {
        out.clear();
        out.reserve(self.len());
        if self.has_zero {
            out.push(0);
        }
        out.extend_from_slice(&self.values);
    }
}

/// A cheap, lossy filter of repeated hashes: it drops most repeats and never
/// a value's first occurrence, so what passes has exactly the input's *set* of
/// values, with a few duplicates left in.
///
/// Role: MinHash signing only needs the set up to repetition (a minimum does
/// not change when a value comes twice), and classic signing costs `n` hash
/// evaluations per value it is given. [`DistinctSet`] removes every repeat,
/// but its insert (probe, compare, unpredictable branch) costs more than the
/// windows' hashing. This filter is one direct-mapped table: a value is
/// written to the output unconditionally and the output advances only if the
/// value's slot did not hold it already; then the slot takes the value.
/// Branch-free, and a repeat escapes only when another value evicted it from
/// its slot in between, which a table of about twice the distinct values
/// makes uncommon.
///
/// Memory: up to [`RepeatFilter::MAX_SLOTS`] × 8 bytes, kept and reused from one
/// document to the next.
#[derive(Default, Debug)]
pub struct RepeatFilter {
    slots: Vec<u64>,
}

impl RepeatFilter {
    /// The table's largest size: 512 KiB, a fraction of a core's L2 cache, so
    /// that slots stay in cache beside the text being hashed. Beyond it, a
    /// document's repeats are filtered less well, never wrongly.
    pub const MAX_SLOTS: usize = 1 << 16;

    /// Passes the values that `produce` emits (through the [`Passing`] it is
    /// given) into `out`, cleared first, dropping most repeats. `expected` is
    /// the number of distinct values to size the table for (a hint).
    pub fn filter_into(
        &mut self,
        expected: usize,
        out: &mut Vec<u64>,
        produce: impl FnOnce(&mut Passing<'_>),
    ) {
        let size = expected
            .saturating_mul(2)
            .next_power_of_two()
            .clamp(MIN_SLOTS, Self::MAX_SLOTS);
        self.slots.clear();
        // Slot 0 of the empty table "holds" value 0: see `Passing::offer`.
        self.slots.resize(size, 0);
        out.clear();
        let mut passing = Passing {
            slots: &mut self.slots,
            mask: size - 1,
            out,
            len: 0,
        };
        produce(&mut passing);
        let len = passing.len;
        out.truncate(len);
    }
}

/// The input side of [`RepeatFilter::filter_into`].
pub struct Passing<'a> {
    slots: &'a mut [u64],
    mask: usize,
    out: &'a mut Vec<u64>,
    /// Values passed so far: `out[..len]` (`out` may be longer, as scratch).
    len: usize,
}

impl Passing<'_> {
    #[inline(always)]
    pub fn offer(&mut self, h: u64) {
        if self.len == self.out.len() {
            // Rare and predictable: room for the next values, written below
            // whether or not they pass.
            self.out.resize((self.len * 2).max(1024), 0);
        }
        let slot = &mut self.slots[h as usize & self.mask];
        self.out[self.len] = h;
        // An empty slot reads as 0, so a first 0 would look like a repeat:
        // a 0 always passes.
        self.len += usize::from(*slot != h || h == 0);
        *slot = h;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<u64>) -> Vec<u64> {
        v.sort_unstable();
        v
    }

    #[test]
    fn equals_sort_dedup_including_zero_and_growth() {
        let mut input: Vec<u64> = (0..5000u64)
            .map(|i| (i % 1700).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        input.push(0);
        input.push(0);
        let mut set = DistinctSet::default();
        set.reset(10); // far too small: must grow several times
        input.iter().for_each(|&h| set.insert(h));
        let mut got = Vec::new();
        set.drain_into(&mut got);
        let mut expected = input.clone();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(set.len(), expected.len());
        assert_eq!(sorted(got), expected);
    }

    #[test]
    fn reset_forgets_previous_document() {
        let mut set = DistinctSet::default();
        set.reset(4);
        [1, 2, 3].iter().for_each(|&h| set.insert(h));
        set.reset(4);
        set.insert(2);
        let mut got = Vec::new();
        set.drain_into(&mut got);
        assert_eq!(got, vec![2]);
        set.reset(0);
        assert!(set.is_empty());
    }

    #[test]
    fn reused_table_gives_the_same_sets_as_a_fresh_one() {
        // Large, small, large again, and a document that outgrows its hint
        // inside the kept table: each must equal a fresh set's answer, and
        // the slots beyond the table in use must stay zero.
        let doc = |n: u64, salt: u64| -> Vec<u64> {
            (0..n)
                .map(|i| (i % (n / 2 + 1) + salt).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect()
        };
        let docs = [
            doc(20_000, 1),
            doc(30, 2),
            doc(9_000, 3),
            doc(0, 4),
            doc(5, 5),
        ];
        let mut reused = DistinctSet::default();
        for (d, hint) in docs.iter().zip([20_000, 30, 10, 0, 5]) {
            reused.reset(hint);
            d.iter().for_each(|&h| reused.insert(h));
            let mut fresh = DistinctSet::default();
            fresh.reset(hint);
            d.iter().for_each(|&h| fresh.insert(h));
            let (mut got, mut want) = (Vec::new(), Vec::new());
            reused.drain_into(&mut got);
            fresh.drain_into(&mut want);
            assert_eq!(got, want);
            assert!(reused.slots[reused.active..].iter().all(|&s| s == 0));
        }
        assert!(reused.slots.len() >= 32_768, "the largest table is kept");
    }

    #[test]
    fn colliding_low_bits_are_kept_apart() {
        // Same low 20 bits: every insert probes the same home slot.
        let values: Vec<u64> = (1..200u64).map(|i| i << 40 | 0xABCDE).collect();
        let mut set = DistinctSet::default();
        set.reset(values.len());
        values.iter().chain(&values).for_each(|&h| set.insert(h));
        let mut got = Vec::new();
        set.drain_into(&mut got);
        assert_eq!(sorted(got), values);
    }

    fn filtered(expected: usize, input: &[u64], filter: &mut RepeatFilter) -> Vec<u64> {
        let mut out = vec![7; 3]; // stale content must not survive
        filter.filter_into(expected, &mut out, |passing| {
            input.iter().for_each(|&h| passing.offer(h))
        });
        out
    }

    #[test]
    fn repeat_filter_keeps_every_value_and_drops_repeats_that_stay_in_their_slot() {
        let distinct: Vec<u64> = (0..3000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5EED)
            .chain([0])
            .collect();
        // Each value three times, the repeats right after the first: nothing
        // can evict a value from its slot in between, so exactly the set passes.
        let input: Vec<u64> = distinct.iter().flat_map(|&h| [h, h, h]).collect();
        let mut filter = RepeatFilter::default();
        let got = filtered(distinct.len(), &input, &mut filter);
        assert_eq!(
            got,
            distinct.iter().copied().chain([0, 0]).collect::<Vec<_>>()
        );
    }

    #[test]
    fn repeat_filter_output_has_the_input_set_whatever_the_table_size() {
        // Far more distinct values than the smallest table: repeats may pass,
        // first occurrences never drop, and nothing else appears.
        let input: Vec<u64> = (0..200_000u64)
            .map(|i| (i * 7919 % 40_000).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let mut filter = RepeatFilter::default();
        for expected in [0, 10, 40_000, usize::MAX] {
            let got = filtered(expected, &input, &mut filter);
            assert!(got.len() <= input.len());
            let mut want = input.clone();
            want.sort_unstable();
            want.dedup();
            let mut set = got.clone();
            set.sort_unstable();
            set.dedup();
            assert_eq!(set, want, "expected {expected}");
            if expected == 40_000 {
                // 64 Ki slots for 40,000 values: most repeats are caught.
                assert!(got.len() < 2 * want.len(), "{} passed", got.len());
            }
        }
        assert!(filtered(0, &[], &mut filter).is_empty());
    }
}
