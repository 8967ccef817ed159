//! Node encodings `num: (x, y) → [0, N)` and the two binomial structures.
//!
//! `s-curve` is the paper's boustrophedon `num(x, y) = x·size + y + (x % 2)·(size − 1 − 2y)`;
//! `z-order` interleaves the bits of `x` (odd positions) and `y` (even) and
//! ranks the codes (so any size works); `hilbert` is the Hilbert curve
//! (power-of-two sizes only); `row-major` is `x·size + y`.
//! LCT: parent clears the lowest set bit; BST: parent clears the highest.

use super::mesh::{Mesh, NodeId};
use crate::limits::ConfigError;
use std::fmt;
use std::str::FromStr;

/// A node encoding. Ids are stable (URLs, CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// The paper's S-order (boustrophedon) curve.
    #[default]
    SCurve,
    /// Morton order.
    ZOrder,
    /// Hilbert curve (power-of-two sizes).
    Hilbert,
    /// Plain row-major.
    RowMajor,
}

impl Encoding {
    /// Every encoding, in menu order.
    pub const ALL: [Encoding; 4] = [Encoding::SCurve, Encoding::ZOrder, Encoding::Hilbert, Encoding::RowMajor];

    /// Stable id.
    pub fn id(self) -> &'static str {
        match self {
            Encoding::SCurve => "s-curve",
            Encoding::ZOrder => "z-order",
            Encoding::Hilbert => "hilbert",
            Encoding::RowMajor => "row-major",
        }
    }
}

impl FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::limits::parse_id(&Encoding::ALL, Encoding::id, "encoding", s)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A numbering of the nodes of a `side × side` grid: `id_of[node]` and its inverse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbering {
    id_of: Vec<u32>,
    node_of: Vec<NodeId>,
}

fn interleave(x: u32, y: u32) -> u64 {
    let mut code = 0u64;
    for bit in 0..16 {
        code |= u64::from((y >> bit) & 1) << (2 * bit);
        code |= u64::from((x >> bit) & 1) << (2 * bit + 1);
    }
    code
}

/// Hilbert index of `(x, y)` on a `side × side` grid (`side` a power of two).
fn hilbert(side: u32, mut x: u32, mut y: u32) -> u32 {
    let mut d = 0;
    let mut s = side / 2;
    while s > 0 {
        let rx = u32::from(x & s > 0);
        let ry = u32::from(y & s > 0);
        d += s * s * ((3 * rx) ^ ry);
        if ry == 0 {
            if rx == 1 {
                x = side - 1 - x;
                y = side - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s /= 2;
    }
    d
}

impl Numbering {
    /// The numbering of a `side × side` grid by `encoding`.
    ///
    /// # Errors
    /// Hilbert on a side that is not a power of two.
    pub fn new(side: u32, encoding: Encoding) -> Result<Numbering, ConfigError> {
        if encoding == Encoding::Hilbert && !side.is_power_of_two() {
            return Err(ConfigError {
                name: "encoding",
                value: "hilbert".into(),
                expected: format!("a power-of-two mesh size for the Hilbert curve (size is {side})"),
            });
        }
        let n = side * side;
        let id_of: Vec<u32> = match encoding {
            Encoding::RowMajor => (0..n).collect(),
            Encoding::SCurve => (0..n)
                .map(|v| {
                    let (x, y) = (v / side, v % side);
                    x * side + if x % 2 == 1 { side - 1 - y } else { y }
                })
                .collect(),
            Encoding::Hilbert => (0..n).map(|v| hilbert(side, v / side, v % side)).collect(),
            Encoding::ZOrder => {
                let mut order: Vec<u32> = (0..n).collect();
                order.sort_by_key(|&v| interleave(v / side, v % side));
                let mut ids = vec![0; n as usize];
                for (rank, v) in order.into_iter().enumerate() {
                    ids[v as usize] = rank as u32;
                }
                ids
            }
        };
        let mut node_of = vec![0; n as usize];
        for (node, &id) in id_of.iter().enumerate() {
            node_of[id as usize] = node as NodeId;
        }
        Ok(Numbering { id_of, node_of })
    }

    /// The numbering of `mesh`.
    ///
    /// # Errors
    /// As [`Numbering::new`].
    pub fn of_mesh(mesh: &Mesh, encoding: Encoding) -> Result<Numbering, ConfigError> {
        Numbering::new(mesh.size(), encoding)
    }

    /// Nodes numbered.
    pub fn len(&self) -> u32 {
        self.id_of.len() as u32
    }

    /// Whether empty (never, for a valid grid).
    pub fn is_empty(&self) -> bool {
        self.id_of.is_empty()
    }

    /// `num(node)` shifted by `k`: `(num + k) mod N` (the AAO `round(k)`).
    pub fn id(&self, node: NodeId, k: u32) -> u32 {
        (self.id_of[node as usize] + k) % self.len()
    }

    /// The node whose shifted id is `id`.
    pub fn node(&self, id: u32, k: u32) -> NodeId {
        let n = self.len();
        self.node_of[((id % n + n - k % n) % n) as usize]
    }
}

/// The binomial structure a numbering is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structure {
    /// Local continuous tree: parent clears the lowest set bit.
    Lct,
    /// Binomial structure tree: parent clears the highest set bit.
    Bst,
}

impl Structure {
    /// Parent of `id` (`None` for the root 0).
    pub fn parent(self, id: u32) -> Option<u32> {
        (id != 0).then(|| match self {
            Structure::Lct => id & (id - 1),
            Structure::Bst => id - (1 << id.ilog2()),
        })
    }

    /// Children of `id` among `0..n`.
    pub fn children(self, id: u32, n: u32) -> Vec<u32> {
        match self {
            Structure::Lct => {
                let below = if id == 0 { 32 } else { id.trailing_zeros() };
                (0..below).map(|b| id | (1 << b)).take_while(|&c| c < n).filter(|&c| c != id).collect()
            }
            Structure::Bst => {
                let start = if id == 0 { 0 } else { id.ilog2() + 1 };
                (start..32).map(|b| id + (1u64 << b) as u32).take_while(|&c| c < n && c > id).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lct_maps_as_in_the_spec() {
        assert_eq!(Structure::Lct.parent(6), Some(4));
        assert_eq!(Structure::Lct.children(0, 16), [1, 2, 4, 8]);
        assert_eq!(Structure::Lct.children(4, 16), [5, 6]);
        assert_eq!(Structure::Lct.children(8, 16), [9, 10, 12]);
        assert_eq!(Structure::Lct.children(12, 16), [13, 14]);
        assert_eq!(Structure::Lct.children(0, 5), [1, 2, 4]);
        assert_eq!(Structure::Bst.parent(7), Some(3));
        assert_eq!(Structure::Bst.children(3, 16), [7, 11]);
        // The spec's jumping subtree: 3, 7, 11, 15.
        let subtree: Vec<u32> = (0..16)
            .filter(|&id| {
                let mut a = id;
                while a > 3 {
                    a = Structure::Bst.parent(a).unwrap();
                }
                a == 3
            })
            .collect();
        assert_eq!(subtree, [3, 7, 11, 15]);
        assert_eq!(Structure::Bst.children(0, 16), [1, 2, 4, 8]);
        for n in 1..=40 {
            for s in [Structure::Lct, Structure::Bst] {
                for id in 0..n {
                    for c in s.children(id, n) {
                        assert_eq!(s.parent(c), Some(id), "{s:?} n={n} id={id} child={c}");
                    }
                }
                let edges: u32 = (0..n).map(|id| s.children(id, n).len() as u32).sum();
                assert_eq!(edges, n - 1, "{s:?} n={n}: a tree");
            }
        }
    }

    #[test]
    fn encodings_are_bijections_with_adjacent_consecutive_ids() {
        for side in 2..=9u32 {
            for e in Encoding::ALL {
                let Ok(num) = Numbering::new(side, e) else {
                    assert!(e == Encoding::Hilbert && !side.is_power_of_two());
                    continue;
                };
                let mut seen = vec![false; (side * side) as usize];
                for node in 0..side * side {
                    let id = num.id(node, 0);
                    assert!(!seen[id as usize], "{e} side={side}: id {id} twice");
                    seen[id as usize] = true;
                    assert_eq!(num.node(id, 0), node);
                    assert_eq!(num.node(num.id(node, 5), 5), node);
                }
                // S-curve, Hilbert and row-major-within-a-row keep consecutive ids adjacent.
                if matches!(e, Encoding::SCurve | Encoding::Hilbert) {
                    let mesh = Mesh::new(side.into()).unwrap();
                    for id in 1..side * side {
                        assert_eq!(mesh.distance(num.node(id - 1, 0), num.node(id, 0)), 1, "{e} side={side} id={id}");
                    }
                }
            }
        }
        // The paper's formula, row 1 reversed.
        let num = Numbering::new(4, Encoding::SCurve).unwrap();
        let row1: Vec<u32> = (4..8).map(|n| num.id(n, 0)).collect();
        assert_eq!(row1, [7, 6, 5, 4]);
    }
}
