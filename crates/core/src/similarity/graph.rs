//! Union–find (disjoint sets), written once for the two stages that need
//! connected components: verification ([`super::verify`], to cut the
//! candidate graph into components) and clustering (`crate::cluster`,
//! `--group connected`).
//!
//! Inputs: a node count and edges between node indices (`u32`). Outputs: each
//! node's root, or the components as sorted node lists.
//!
//! Invariants: a root is always its component's smallest node (the smaller
//! root wins every union), so the result depends only on the set of edges,
//! never on their order; `find` halves paths, so a sequence of `m`
//! operations stays near-linear.

/// Disjoint sets over the nodes `0..n`.
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` singleton sets.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
        }
    }

    /// The root of `x`'s set: the smallest node in it.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            // Path halving.
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Merges the sets of `x` and `y`. The smaller root becomes the root, so
    /// a root is its component's smallest node.
    pub fn union(&mut self, x: u32, y: u32) {
        let (rx, ry) = (self.find(x), self.find(y));
        if rx != ry {
            self.parent[rx.max(ry) as usize] = rx.min(ry);
        }
    }

    /// The connected components, each as its nodes ascending, in order of
    /// their smallest node.
    pub fn components(&mut self) -> Vec<Vec<u32>> {
        let n = self.parent.len();
        let mut index_of_root = vec![u32::MAX; n];
        let mut components: Vec<Vec<u32>> = Vec::new();
        for x in 0..n as u32 {
            let r = self.find(x);
            if index_of_root[r as usize] == u32::MAX {
                index_of_root[r as usize] = components.len() as u32;
                components.push(Vec::new());
            }
            components[index_of_root[r as usize] as usize].push(x);
        }
        components
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_the_smallest_nodes_whatever_the_edge_order() {
        let edges = [(5, 3), (3, 1), (7, 8), (8, 6), (0, 2)];
        for reversed in [false, true] {
            let mut sets = UnionFind::new(9);
            let mut order = edges.to_vec();
            if reversed {
                order.reverse();
            }
            for (x, y) in order {
                sets.union(x, y);
            }
            assert_eq!(sets.find(5), 1);
            assert_eq!(sets.find(8), 6);
            assert_eq!(sets.find(4), 4);
            assert_eq!(
                sets.components(),
                vec![vec![0, 2], vec![1, 3, 5], vec![4], vec![6, 7, 8]]
            );
        }
    }
}
