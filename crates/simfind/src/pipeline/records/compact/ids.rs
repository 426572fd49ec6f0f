//! The records' ids while a scan runs, front-coded: ids are mostly numbered
//! (`r0001234`), so each shares most of its bytes with the one before; an id
//! costs its new bytes and two lengths instead of its bytes and an 8-byte
//! end (16 B a record at ten million, beside the matrix at the peak).

/// Ids per block: an id is found by decoding at most this many from the
/// start of its block.
const BLOCK: usize = 16;

/// Ids in record order, front-coded in blocks of [`BLOCK`].
#[derive(Default)]
pub(super) struct Ids {
    /// Per id: the length of the prefix it shares with the id before it in
    /// its block (0 for a block's first), the length of the rest, the rest.
    bytes: Vec<u8>,
    /// Where each block starts in `bytes`.
    blocks: Vec<u64>,
    len: usize,
    /// The last id pushed (what the next one is coded against).
    last: Vec<u8>,
}

/// A length as 7-bit groups, low first.
fn put_len(out: &mut Vec<u8>, mut value: usize) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_len(bytes: &[u8], at: &mut usize) -> usize {
    let mut value = 0usize;
    let mut shift = 0;
    loop {
        let byte = bytes[*at];
        *at += 1;
        value |= usize::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return value;
        }
        shift += 7;
    }
}

impl Ids {
    /// Room for `count` ids' block starts.
    pub(super) fn with_capacity(count: usize) -> Ids {
        Ids {
            blocks: Vec::with_capacity(count.div_ceil(BLOCK)),
            ..Ids::default()
        }
    }

    pub(super) fn push(&mut self, id: &[u8]) {
        let shared = if self.len.is_multiple_of(BLOCK) {
            self.blocks.push(self.bytes.len() as u64);
            0
        } else {
            self.last.iter().zip(id).take_while(|(a, b)| a == b).count()
        };
        put_len(&mut self.bytes, shared);
        put_len(&mut self.bytes, id.len() - shared);
        self.bytes.extend_from_slice(&id[shared..]);
        self.last.clear();
        self.last.extend_from_slice(id);
        self.len += 1;
    }

    /// Gives the memory it was grown with but does not use back.
    pub(super) fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.last = Vec::new();
    }

    /// Id `i`, decoded into `out`.
    pub(super) fn get_into(&self, i: usize, out: &mut Vec<u8>) {
        out.clear();
        let mut at = self.blocks[i / BLOCK] as usize;
        for _ in 0..=i % BLOCK {
            let shared = get_len(&self.bytes, &mut at);
            let rest = get_len(&self.bytes, &mut at);
            out.truncate(shared);
            out.extend_from_slice(&self.bytes[at..at + rest]);
            at += rest;
        }
    }

    /// Id `i`.
    pub(super) fn get(&self, i: usize) -> Vec<u8> {
        let mut out = Vec::new();
        self.get_into(i, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_back_as_pushed_across_blocks() {
        // Numbered ids, ids sharing nothing, an id that is a prefix of the
        // one before and one that extends it, non-ASCII, and a long one
        // (a length of two 7-bit groups).
        let mut pushed: Vec<Vec<u8>> = (0..40)
            .map(|i| format!("r{:07}", i * 7).into_bytes())
            .collect();
        pushed.extend(
            ["zeta", "z", "zz", "zzz", "é1", "é2", "a", "ab", "abc", "ab"].map(|s| s.into()),
        );
        pushed.push(vec![b'x'; 300]);
        pushed.push(vec![b'x'; 299]);
        let mut ids = Ids::with_capacity(pushed.len());
        for id in &pushed {
            ids.push(id);
        }
        ids.shrink_to_fit();
        for (i, id) in pushed.iter().enumerate() {
            assert_eq!(&ids.get(i), id, "id {i}");
        }
        // Numbered ids cost their new bytes: well under their own length.
        let numbered = Ids::with_capacity(0);
        let mut numbered = numbered;
        for i in 0..1600 {
            numbered.push(format!("r{i:07}").as_bytes());
        }
        assert!(numbered.bytes.len() < 1600 * 5, "{}", numbered.bytes.len());
    }
}
