//! The keep order: which file of a group is kept, as one total order on
//! documents (see the module doc of [`super`], "Keep order").

use std::cmp::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{DocId, FileFacts};

/// Which file of a group is kept (becomes its representative).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeepPolicy {
    /// Latest modification time.
    Newest,
    /// Earliest modification time.
    Oldest,
    /// Most bytes.
    Largest,
    /// Fewest bytes.
    Smallest,
    /// Shortest path, counted in bytes.
    ShortestPath,
    /// Smallest document id: the first file found.
    #[default]
    First,
}

impl KeepPolicy {
    /// The keep order of the module doc: `Less` means `x` is the better one to
    /// keep. A total order, consistent with equality of ids.
    pub fn compare(self, x: (DocId, &FileFacts<'_>), y: (DocId, &FileFacts<'_>)) -> Ordering {
        self.key(x.0, x.1).cmp(&self.key(y.0, y.1))
    }

    /// The keep order as one plain sort key, so that sorting millions of
    /// documents compares small keys in a row instead of chasing documents.
    /// `last` is the id, or anything ordered like it.
    pub(super) fn key(self, last: u32, d: &FileFacts<'_>) -> KeepKey {
        let mut key = KeepKey {
            class: if d.reference { 0 } else { 2 },
            primary: 0,
            secondary: 0,
            last,
        };
        let time = |descending: bool, key: &mut KeepKey| match d.modified {
            Some(t) => {
                let (secs, nanos) = signed_time(t);
                // Flipping the sign bit maps i64 order onto u64 order.
                let (p, s) = ((secs as u64) ^ (1 << 63), nanos);
                (key.primary, key.secondary) = if descending {
                    (!p, 999_999_999 - s)
                } else {
                    (p, s)
                };
            }
            None => key.class += 1,
        };
        match self {
            KeepPolicy::Newest => time(true, &mut key),
            KeepPolicy::Oldest => time(false, &mut key),
            KeepPolicy::Largest => key.primary = !d.size,
            KeepPolicy::Smallest => key.primary = d.size,
            KeepPolicy::ShortestPath => key.primary = d.path.len() as u64,
            KeepPolicy::First => {}
        }
        key
    }
}

/// Field order is comparison order; smaller is better to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct KeepKey {
    /// 0 reference, 2 other; +1 when the policy needs a time and there is none.
    class: u8,
    primary: u64,
    secondary: u32,
    pub(super) last: u32,
}

/// Seconds and nanoseconds since the epoch, exact for times before it too
/// (`nanos` always counts forward from `secs`).
fn signed_time(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            match d.subsec_nanos() {
                0 => (-(d.as_secs() as i64), 0),
                n => (-(d.as_secs() as i64) - 1, 1_000_000_000 - n),
            }
        }
    }
}
