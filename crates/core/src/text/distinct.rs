//! A document's shingle hashes without their repeats, in linear time.
//!
//! Role: MinHash signing needs each document's *set* of shingle hashes (up to
//! repetition, in any order); exact verification and the exact method need it
//! sorted and exact. Input: hashes one at a time. The pipeline uses:
//!
//! * [`RepeatFilter`]: a branch-free, lossy filter that drops most repeats and
//!   never a first occurrence (the set is kept, some repeats pass). Classic
//!   signing takes its output as it is.
//! * [`HashSorter`]: a radix sort for uniformly distributed hashes; after the
//!   filter, sort + `dedup` gives the exact sorted set.
//!
//! [`DistinctSet`], an open-addressing set that removes every repeat, was the
//! pipeline's dedup before these; its per-window insert (probe, compare,
//! unpredictable branch) cost more than the filter and the sort together. It
//! stays as the baseline `benches/kernels.rs` measures them against.
//!
//! Invariants: the values are XXH3 outputs, i.e. uniformly distributed, so low
//! bits index tables directly. Memory: every structure keeps and reuses its
//! largest table from one document to the next (no allocation per document).

/// A reusable set of 64-bit hashes. [`reset`](Self::reset) between documents.
/// Linear probing in a table kept at most half full (it doubles beyond that);
/// `0` marks an empty slot and a real `0` hash is tracked by a flag. Memory: at
/// most 5 × 8 bytes per distinct value of the largest document seen.
#[derive(Default, Debug)]
pub struct DistinctSet {
    /// The largest table any document has needed so far. Only the first
    /// `active` slots are in use; every slot beyond them is zero, so that the
    /// table can switch to a larger power-of-two prefix without clearing it.
    /// Freeing and reallocating tables per document cost more than the
    /// inserts: big allocations are fresh mappings whose page faults and
    /// `munmap` TLB shootdowns showed up in a scan's profile
    /// (docs/PERFORMANCE.md, "Front end: normalise, hash, dedup").
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

    /// The table size [`filter_into`](Self::filter_into) takes for
    /// `expected`. What passes depends on it; a caller that must reproduce a
    /// filtering without knowing `expected` up front (a large file signed in
    /// chunks) can stop looking once a lower bound of it gives
    /// [`MAX_SLOTS`](Self::MAX_SLOTS).
    pub fn slots_for(expected: usize) -> usize {
        expected
            .saturating_mul(2)
            .next_power_of_two()
            .clamp(MIN_SLOTS, Self::MAX_SLOTS)
    }

    /// Passes the values that `produce` emits (through the [`Passing`] it is
    /// given) into `out`, cleared first, dropping most repeats. `expected` is
    /// the number of distinct values to size the table for (a hint).
    pub fn filter_into(
        &mut self,
        expected: usize,
        out: &mut Vec<u64>,
        produce: impl FnOnce(&mut Passing<'_>),
    ) {
        let size = Self::slots_for(expected);
        self.slots.clear();
        // An empty slot holds a value that cannot be in it: 0 in every slot
        // but slot 0 (0's own slot), and 1 there (1's slot is 1). So a first
        // occurrence always passes, a 0 included, with no test for 0 in
        // the loop.
        self.slots.resize(size, 0);
        self.slots[0] = 1;
        // `out` is not cleared: its old values are overwritten from the start,
        // so only room beyond its last length is zeroed (clearing it made
        // every document zero all of its room again as it grew).
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
    /// Offers one value: it passes unless its slot holds it already.
    #[inline(always)]
    pub fn offer(&mut self, h: u64) {
        self.offer_block(std::slice::from_ref(&h));
    }

    /// Offers every value of `block`, in order: for a producer that hands
    /// out blocks, one call per block instead of one per value, with room
    /// for the whole block made once.
    #[inline(always)]
    pub fn offer_block(&mut self, block: &[u64]) {
        let needed = self.len + block.len();
        if needed > self.out.len() {
            // Rare and predictable: room for the next values, written below
            // whether or not they pass.
            self.out.resize(needed.max(self.len * 2).max(1024), 0);
        }
        let mask = self.mask;
        // `mask + 1` slots: the index below is in bounds, checked once here.
        let slots = &mut self.slots[..=mask];
        let out = &mut self.out[..needed];
        let mut len = self.len;
        // Per window: a load, two stores, a compare. The loop is bound by
        // its instructions, not by the table's cache misses (prefetching the
        // slots changed nothing), so the output's bound check is left out
        // (its share of the filter's time: docs/PERFORMANCE.md, "Pair-dense
        // corpora").
        for &h in block {
            let slot = &mut slots[h as usize & mask];
            // SAFETY: `len` starts at `self.len` and grows by at most one
            // per value of `block`, so here `len < self.len + block.len()`,
            // which is `needed`, `out`'s length.
            unsafe { *out.get_unchecked_mut(len) = h };
            len += usize::from(*slot != h);
            *slot = h;
        }
        self.len = len;
    }

    /// Values passed since the start or the last [`drain`](Self::drain).
    pub fn passed(&self) -> usize {
        self.len
    }

    /// Hands the values passed since the start or the last drain to `f` and
    /// forgets them; the table keeps what it holds, so the values that pass
    /// afterwards are exactly those that would have passed without the drain.
    /// Lets a caller consume a long stream in bounded memory.
    pub fn drain(&mut self, f: impl FnOnce(&[u64])) {
        f(&self.out[..self.len]);
        self.len = 0;
    }
}

/// Sorts 64-bit hashes in expected linear time, reusing its scratch from one
/// call to the next.
///
/// Role: verification and the exact method need each document's shingle set
/// *sorted*; pdqsort's `n log n` comparisons were a fifth of a scan's CPU.
/// The values are XXH3 outputs, uniformly distributed, so ordering them by
/// their leading `log2 n + 6` bits alone leaves only the rare pairs that share
/// all of those bits out of order (about `n / 64` of them). That key is
/// sorted by an LSD radix sort (Knuth, TAOCP vol. 3 §5.2.5) in two or three
/// counting passes of at most [`HashSorter::MAX_DIGIT_BITS`] bits, and one
/// insertion sort pass finishes the job. Measured against a bucket sort with
/// ~4 values per bucket (each bucket insertion-sorted), which mispredicted a
/// branch per bucket and barely beat pdqsort: PERFORMANCE.md, "Sorting hash
/// sets (branch radix)".
///
/// Input: any `Vec<u64>` (duplicates allowed). Output: the same values in
/// ascending order, exactly what `sort_unstable` gives. Non-uniform input
/// stays correct and `O(n log n)`: the key is taken below the bits that
/// every value shares with the minimum (so a small range still spreads),
/// and if the final insertion sort needs more than `n` moves it stops and
/// `sort_unstable` sorts the (partly sorted) rest.
///
/// Memory: a scratch vector as long as the largest input plus at most
/// 3 × 2 Ki `u32` counters, kept and reused (no allocation per call once warm).
#[derive(Default, Debug)]
pub struct HashSorter {
    /// The other buffer of each radix pass; swapped with the caller's vector
    /// after every pass, so both allocations are reused.
    scratch: Vec<u64>,
    /// One histogram per pass: the digit counts, then each digit's next slot.
    counts: Vec<u32>,
}

impl HashSorter {
    /// Below this length `sort_unstable` is faster (measured at 64 and 128
    /// values: docs/PERFORMANCE.md, "Sorting hash sets").
    pub const MIN_LEN: usize = 128;
    /// The key is `log2 n + 1 + EXTRA_KEY_BITS` bits: each extra bit halves
    /// the pairs left for the insertion sort (`n / 2^EXTRA` expected).
    const EXTRA_KEY_BITS: u32 = 5;
    /// A digit of 11 bits: a histogram of 8 KiB stays in L1 and the scatter
    /// writes to 2 Ki places at most.
    pub const MAX_DIGIT_BITS: u32 = 11;

    /// Sorts `values` ascending. `values` may come back in a different
    /// allocation (the sorter's former scratch); its contents are exactly
    /// `values` sorted.
    pub fn sort(&mut self, values: &mut Vec<u64>) {
        if self.scatter(values) {
            finish_nearly_sorted(values);
        }
    }

    /// The distinct values of `values`, ascending, in a vector of their own
    /// at its exact length: what [`sort`](Self::sort), `dedup` and a copy
    /// give, in one read and write of the values fewer (the last one sorts
    /// and drops repeats at once). What `values` holds afterwards is
    /// unspecified; its buffer and the sorter's are kept for reuse.
    pub fn sorted_distinct(&mut self, values: &mut Vec<u64>) -> Vec<u64> {
        if self.scatter(values) {
            finish_distinct(values);
        } else {
            values.dedup();
        }
        values.to_vec()
    }

    /// The radix passes of [`sort`](Self::sort): `values` ordered by their
    /// key, and whether they still need the finishing insertion sort (not
    /// when they are already sorted: short, or all equal).
    fn scatter(&mut self, values: &mut Vec<u64>) -> bool {
        let n = values.len();
        if n < Self::MIN_LEN || n > u32::MAX as usize {
            values.sort_unstable();
            return false;
        }
        let wanted = n.ilog2() + 1 + Self::EXTRA_KEY_BITS;
        // Hashes span nearly all of u64, for which the key below the
        // minimum is the key below 0: the first histograms are counted so,
        // and the minimum and maximum found in the same read of the values
        // (a read fewer; its share of the sort on pair-dense corpora is in
        // docs/PERFORMANCE.md). Only a narrower range is counted again,
        // below its minimum.
        let mut key = Key::new(wanted, 64, 0);
        let (min, max) = self.count::<true>(values, &key);
        let range_bits = 64 - (max - min).leading_zeros();
        if range_bits == 0 {
            return false; // all equal
        }
        if range_bits < 64 {
            key = Key::new(wanted, range_bits, min);
            self.count::<false>(values, &key);
        }
        let radix = 1usize << key.digit_bits;
        for counts in self.counts.chunks_exact_mut(radix) {
            let mut start = 0u32;
            for c in counts {
                let len = *c;
                *c = start;
                start += len;
            }
        }
        // Every slot is written by the pass: only a longer scratch than
        // before needs its new part zeroed (once, not n writes per sort).
        self.scratch.resize(n, 0);
        for (p, counts) in self.counts.chunks_exact_mut(radix).enumerate() {
            let scratch = &mut self.scratch[..n];
            for &v in values.iter() {
                let slot = &mut counts[key.digit(v, p as u32)];
                scratch[*slot as usize] = v;
                *slot += 1;
            }
            std::mem::swap(values, &mut self.scratch);
        }
        true
    }

    /// Every pass's histogram of `key` in `self.counts`, in one read of the
    /// values; with `MIN_MAX`, also their minimum and maximum (else
    /// `(0, 0)`).
    fn count<const MIN_MAX: bool>(&mut self, values: &[u64], key: &Key) -> (u64, u64) {
        let radix = 1usize << key.digit_bits;
        self.counts.clear();
        self.counts.resize(key.passes as usize * radix, 0);
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        let mut bounds = |v: u64| {
            if MIN_MAX {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        };
        // Two and three passes are spelled out: one slice per pass lets the
        // compiler drop the bounds checks and unroll (1.3x the loop over
        // passes, measured).
        match key.passes {
            2 => {
                let (c0, c1) = self.counts.split_at_mut(radix);
                for &v in values {
                    c0[key.digit(v, 0)] += 1;
                    c1[key.digit(v, 1)] += 1;
                    bounds(v);
                }
            }
            3 => {
                let (c0, rest) = self.counts.split_at_mut(radix);
                let (c1, c2) = rest.split_at_mut(radix);
                for &v in values {
                    c0[key.digit(v, 0)] += 1;
                    c1[key.digit(v, 1)] += 1;
                    c2[key.digit(v, 2)] += 1;
                    bounds(v);
                }
            }
            _ => {
                for &v in values {
                    for (p, counts) in self.counts.chunks_exact_mut(radix).enumerate() {
                        counts[key.digit(v, p as u32)] += 1;
                    }
                    bounds(v);
                }
            }
        }
        if MIN_MAX { (lo, hi) } else { (0, 0) }
    }
}

/// The radix key of [`HashSorter`]: the top `passes × digit_bits` bits of
/// `v - min` within `range_bits` bits, least significant digit first.
struct Key {
    min: u64,
    /// The key's lowest bit.
    low: u32,
    digit_bits: u32,
    passes: u32,
    mask: u64,
}

impl Key {
    /// A key of about `wanted` bits (at most `range_bits`) for values in
    /// `min..min + 2^range_bits`.
    fn new(wanted: u32, range_bits: u32, min: u64) -> Key {
        let key_bits = wanted.min(range_bits);
        let passes = key_bits.div_ceil(HashSorter::MAX_DIGIT_BITS);
        let digit_bits = key_bits.div_ceil(passes);
        Key {
            min,
            low: range_bits.saturating_sub(passes * digit_bits),
            digit_bits,
            passes,
            mask: (1u64 << digit_bits) - 1,
        }
    }

    #[inline(always)]
    fn digit(&self, v: u64, pass: u32) -> usize {
        (((v - self.min) >> (self.low + pass * self.digit_bits)) & self.mask) as usize
    }
}

/// Insertion sort for a slice with few inversions: `n` moves at most, then
/// `sort_unstable` takes over (the moves so far kept it a permutation), so
/// that input the radix passes could not order stays `O(n log n)`.
/// Returns whether it did.
fn finish_nearly_sorted(values: &mut [u64]) -> bool {
    let mut budget = values.len();
    for i in 1..values.len() {
        let v = values[i];
        if values[i - 1] <= v {
            continue;
        }
        let mut j = i;
        while j > 0 && values[j - 1] > v {
            values[j] = values[j - 1];
            j -= 1;
        }
        values[j] = v;
        budget = budget.saturating_sub(i - j);
        if budget == 0 {
            values.sort_unstable();
            return true;
        }
    }
    false
}

/// [`finish_nearly_sorted`] and `dedup` in one pass over `values`, in
/// place: each value is written after the last one kept (and kept unless it
/// repeats it, with no branch), or (rarely, when smaller) moved back to its
/// place among the kept ones unless it is there already. Past `values.len()`
/// such moves, the rest is sorted and deduplicated whole, as
/// [`finish_nearly_sorted`] falls back.
fn finish_distinct(values: &mut Vec<u64>) {
    let n = values.len();
    if n == 0 {
        return;
    }
    let mut budget = n;
    // values[..kept] are the distinct values so far, ascending; the write
    // position never passes the read position.
    let mut kept = 1usize;
    let mut last = values[0];
    for i in 1..n {
        let v = values[i];
        if v >= last {
            values[kept] = v;
            kept += usize::from(v != last);
            last = v;
            continue;
        }
        let mut j = kept - 1;
        while j > 0 && values[j - 1] > v {
            j -= 1;
        }
        let moves = kept - j;
        if j == 0 || values[j - 1] != v {
            // kept ≤ i: the slot this shifts into has been read already.
            values.copy_within(j..kept, j + 1);
            values[j] = v;
            kept += 1;
        }
        budget = budget.saturating_sub(moves);
        if budget == 0 {
            values.copy_within(i + 1..n, kept);
            values.truncate(kept + (n - i - 1));
            values.sort_unstable();
            values.dedup();
            return;
        }
    }
    values.truncate(kept);
}

#[cfg(test)]
mod tests;
