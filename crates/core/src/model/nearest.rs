//! Each item's K nearest neighbours among verified pairs (`scan --top K`):
//! the "kNN graph" built before clustering, taken from the pairs a scan
//! verified exactly above its floor.
//!
//! A pair {a, b} is looked at from both ends: b may be among a's K best
//! while a is not among b's. Each row is one direction (item, neighbour).

use super::SimilarPair;

/// One row of a top-K answer: `pair.a` is the item, `pair.b` its
/// neighbour, `rank` its place among the item's neighbours (from 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    pub rank: u32,
    pub pair: SimilarPair,
}

/// The `k` most similar neighbours of every item that has a pair, items in
/// increasing id, each item's neighbours most similar first; equal
/// similarities are ranked by the neighbour's id, so the answer depends
/// only on the set of pairs, never on the order they come in (nor on the
/// threads that found them). Nothing of size `k` is allocated: a `k`
/// beyond an item's neighbours gives all of them.
pub fn nearest(pairs: impl IntoIterator<Item = SimilarPair>, k: usize) -> Vec<Neighbour> {
    let mut ends: Vec<SimilarPair> = Vec::new();
    for pair in pairs {
        ends.push(pair);
        ends.push(SimilarPair {
            a: pair.b,
            b: pair.a,
            ..pair
        });
    }
    // (item, similarity descending, neighbour): a total order, since a
    // pair of ids occurs once.
    ends.sort_unstable_by(|x, y| {
        x.a.cmp(&y.a)
            .then(y.similarity.total_cmp(&x.similarity))
            .then(x.b.cmp(&y.b))
    });
    let mut rows = Vec::new();
    let mut start = 0;
    while start < ends.len() {
        let item = ends[start].a;
        let end = start + ends[start..].partition_point(|p| p.a == item);
        rows.extend(
            ends[start..end]
                .iter()
                .take(k)
                .zip(1u32..)
                .map(|(&pair, rank)| Neighbour { rank, pair }),
        );
        start = end;
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: u32, b: u32, similarity: f64) -> SimilarPair {
        SimilarPair {
            a,
            b,
            similarity,
            estimate: None,
            shared: None,
        }
    }

    fn rows(answer: &[Neighbour]) -> Vec<(u32, u32, u32)> {
        answer
            .iter()
            .map(|n| (n.pair.a, n.rank, n.pair.b))
            .collect()
    }

    #[test]
    fn each_item_keeps_its_k_best_from_both_ends() {
        let pairs = [
            pair(0, 1, 0.9),
            pair(0, 2, 0.5),
            pair(1, 2, 0.7),
            pair(2, 3, 0.4),
        ];
        let answer = nearest(pairs, 2);
        assert_eq!(
            rows(&answer),
            [
                (0, 1, 1),
                (0, 2, 2),
                (1, 1, 0),
                (1, 2, 2),
                (2, 1, 1),
                (2, 2, 0),
                (3, 1, 2),
            ]
        );
    }

    #[test]
    fn ties_go_to_the_smaller_id_whatever_the_input_order() {
        let forward = [pair(0, 3, 0.5), pair(0, 1, 0.5), pair(0, 2, 0.5)];
        let mut backward = forward;
        backward.reverse();
        let one = nearest(forward, 2);
        assert_eq!(
            rows(&one),
            [(0, 1, 1), (0, 2, 2), (1, 1, 0), (2, 1, 0), (3, 1, 0)]
        );
        assert_eq!(one, nearest(backward, 2));
    }

    #[test]
    fn a_huge_k_gives_every_neighbour_and_no_pair_gives_nothing() {
        let answer = nearest([pair(0, 1, 0.8), pair(0, 2, 0.6)], usize::MAX);
        assert_eq!(answer.len(), 4);
        assert!(nearest(std::iter::empty(), 3).is_empty());
    }
}
