//! The inodes a walk has kept, to keep each file once however it is reached.
//!
//! A file with one link can still be reached twice: under overlapping roots
//! (`scan A A/sub`, or `A` and a link to it), through a followed symbolic
//! link (`-L`), and through a bind mount of its directory or of the file
//! itself, which shows the same device and inode under another path with
//! `st_nlink` 1. Canonicalising the roots rules out the first two but not
//! the third, and no cheap test before the walk does, so every kept file's
//! inode is remembered (as fclones compares every file's device and inode).
//!
//! What makes that cheap: file systems hand out inode numbers densely (ext4
//! and XFS by block group and inode chunk, btrfs and tmpfs counting up), and
//! the files of one directory get neighbouring numbers, so a device's inodes
//! are held as bitmaps of [`BLOCK_BITS`] numbers, found by number / 256:
//! ~41 bytes a block, a fraction of a byte a file when they are dense, where
//! a hash set of inode numbers costs 9–18 bytes a file (at a million files,
//! 18.9 MB of the walk's peak: docs/PERFORMANCE.md, "Round 6"). A device
//! whose numbers turn out sparse (fewer than [`MIN_PER_BLOCK`] a block on
//! average) is moved to such a hash set, so memory is never much above what
//! the hash set alone would take.

use std::collections::{HashMap, HashSet};

use foldhash::fast::FixedState;

/// Inode numbers per bitmap block.
const BLOCK_BITS: u64 = 256;

/// Words of one bitmap block.
const WORDS: usize = (BLOCK_BITS / 64) as usize;

/// Below this many inodes a block on average, a device's bitmaps (~41
/// bytes a block, twice that at a hash map's lowest load) cost more than a
/// hash set of its inode numbers (9–18 bytes each).
const MIN_PER_BLOCK: usize = 4;

/// Inodes kept before density is judged: a few sparse ones cost little
/// either way.
const JUDGE_AFTER: usize = 4096;

/// The inodes kept on one device.
enum Device {
    /// Bitmaps of [`BLOCK_BITS`] inode numbers, by number / [`BLOCK_BITS`],
    /// and how many inodes they hold.
    Dense {
        blocks: HashMap<u64, [u64; WORDS], FixedState>,
        len: usize,
    },
    /// Inode numbers too sparse for bitmaps.
    Sparse(HashSet<u64, FixedState>),
}

impl Default for Device {
    fn default() -> Self {
        Device::Dense {
            blocks: HashMap::default(),
            len: 0,
        }
    }
}

impl Device {
    /// Adds `ino`: whether it was not there yet.
    fn insert(&mut self, ino: u64) -> bool {
        match self {
            Device::Sparse(set) => set.insert(ino),
            Device::Dense { blocks, len } => {
                let bit = ino % BLOCK_BITS;
                let word = &mut blocks.entry(ino / BLOCK_BITS).or_default()[(bit / 64) as usize];
                let mask = 1u64 << (bit % 64);
                if *word & mask != 0 {
                    return false;
                }
                *word |= mask;
                *len += 1;
                let sparse = *len >= JUDGE_AFTER && blocks.len() * MIN_PER_BLOCK > *len;
                if sparse {
                    *self = Device::Sparse(self.numbers());
                }
                true
            }
        }
    }

    /// Every inode number held, as a hash set.
    fn numbers(&self) -> HashSet<u64, FixedState> {
        match self {
            Device::Sparse(set) => set.clone(),
            Device::Dense { blocks, len } => {
                let mut set = HashSet::with_capacity_and_hasher(*len, FixedState::default());
                for (&block, words) in blocks {
                    for (w, &word) in words.iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let b = u64::from(bits.trailing_zeros());
                            set.insert(block * BLOCK_BITS + w as u64 * 64 + b);
                            bits &= bits - 1;
                        }
                    }
                }
                set
            }
        }
    }

    #[cfg(test)]
    fn is_sparse(&self) -> bool {
        matches!(self, Device::Sparse(_))
    }
}

/// The (device, inode) pairs kept so far: a set, exact whatever the numbers.
#[derive(Default)]
pub(super) struct Inodes {
    devices: HashMap<u64, Device, FixedState>,
}

impl Inodes {
    /// Adds file (`dev`, `ino`): whether it was not there yet.
    pub(super) fn insert(&mut self, dev: u64, ino: u64) -> bool {
        self.devices.entry(dev).or_default().insert(ino)
    }

    /// Whether device `dev`'s inodes are held in a hash set (for tests).
    #[cfg(test)]
    fn sparse(&self, dev: u64) -> bool {
        self.devices.get(&dev).is_some_and(Device::is_sparse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed-seed stream of 64-bit numbers (SplitMix64).
    fn numbers(seed: u64) -> impl Iterator<Item = u64> {
        let mut state = seed;
        std::iter::repeat_with(move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
    }

    /// Inserts every (dev, ino) into `Inodes` and into a plain hash set, and
    /// checks each answer against the set's.
    fn agrees_with_a_hash_set(files: &[(u64, u64)]) -> Inodes {
        let mut inodes = Inodes::default();
        let mut oracle = HashSet::new();
        for &(dev, ino) in files {
            assert_eq!(
                inodes.insert(dev, ino),
                oracle.insert((dev, ino)),
                "({dev}, {ino})"
            );
        }
        inodes
    }

    #[test]
    fn dense_inodes_stay_in_bitmaps_and_each_is_new_once() {
        // Directories of 1,000 files with neighbouring numbers, in two
        // places of the number space, each file offered twice (the second
        // time as a file reached again), on two devices.
        let mut files = Vec::new();
        for dev in [7, 8] {
            for dir in 0..20u64 {
                let base = dir * 1_000_000 + 12;
                files.extend((0..1000).map(|i| (dev, base + i)));
            }
        }
        let again = files.clone();
        files.extend(again);
        let inodes = agrees_with_a_hash_set(&files);
        assert!(!inodes.sparse(7) && !inodes.sparse(8));
    }

    #[test]
    fn sparse_inodes_move_to_a_hash_set_and_stay_exact() {
        // Random 64-bit numbers (as a network file system may give): one a
        // block, so the device is judged sparse once JUDGE_AFTER are kept;
        // every number offered twice, some before and some after the move.
        let random: Vec<u64> = numbers(22).take(3 * JUDGE_AFTER).collect();
        let mut files: Vec<(u64, u64)> = Vec::new();
        for (i, &ino) in random.iter().enumerate() {
            files.push((1, ino));
            if i % 3 == 0 {
                files.push((1, random[i / 2]));
            }
        }
        files.extend(random.iter().map(|&ino| (1, ino)));
        // Numbers at the edges of a block and of the number space.
        files.extend([0, 255, 256, u64::MAX, u64::MAX - 1, 0, u64::MAX].map(|ino| (2, ino)));
        let inodes = agrees_with_a_hash_set(&files);
        assert!(inodes.sparse(1));
        assert!(!inodes.sparse(2));
    }

    #[test]
    fn moving_to_a_hash_set_keeps_every_inode() {
        let mut device = Device::default();
        // Dense first (three full blocks), then sparse numbers until the
        // average falls under MIN_PER_BLOCK.
        let dense: Vec<u64> = (1000..1000 + 3 * BLOCK_BITS).collect();
        let sparse: Vec<u64> = (0..2 * JUDGE_AFTER as u64)
            .map(|i| (i + 10) * BLOCK_BITS * 1000)
            .collect();
        for &ino in dense.iter().chain(&sparse) {
            assert!(device.insert(ino));
        }
        assert!(device.is_sparse());
        for &ino in dense.iter().chain(&sparse) {
            assert!(!device.insert(ino), "{ino} kept");
        }
        assert!(device.insert(999));
    }
}
