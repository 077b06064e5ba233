//! The quantised net as the search's [`Evaluator`].
//!
//! [`Evaluator::cost`] computes a well from scratch (120 table rows).
//! [`Evaluator::costs`] computes the parent's accumulator once, then each
//! child without a line clear from it: the child differs from the parent
//! only in the rows the piece filled (at most four), so it subtracts the
//! parent's features at the changed positions and adds the child's
//! ([`features::changes`]: on the 294,195 children without a clear of the
//! bench wells, 19.4 changed features on average and 25 at most, so about
//! 39 row reads instead of 120). A shared net does this without the
//! feature lists: the AVX2 step compares the window rows eight lanes to a
//! register, packs the differing lanes' table offsets into a short list
//! and sums their rows in one loop after (`Simd::step_after_clear`).
//! A child with a clear has its rows shifted, so it is recomputed.
//! [`Evaluator::chain_costs`] (the lookahead's steps, one clear each)
//! starts from the parent's sum, which the parent's own step or the
//! batch left as its memo, pairing positions across the cleared row
//! ([`features::changes_after_clear`]). All of these give the same
//! integers (see [`super::simd`]), so they equal `cost` exactly, as the
//! seam requires. Nothing allocates: the feature
//! lists and accumulators are fixed arrays on the stack.
//!
//! The evaluator is an `Arc` around the net and a SIMD path choice: cloning it
//! for another thread copies a pointer.

use std::path::Path;
use std::sync::Arc;

use super::features::{self, Layout, ACTIVE};
use super::quant::QuantNet;
use super::simd::Simd;
use super::NetError;
use crate::evaluate::{ChainChild, Evaluator, Identity, Memo};
use crate::movegen::Child;
use crate::well::Well;

/// A quantised net ranking wells: `cost = -value - line_weight · score`
/// (see [`crate::nnue`] for the line term).
#[derive(Clone, Debug)]
pub struct NetEvaluator {
    net: Arc<QuantNet>,
    simd: Simd,
}

impl NetEvaluator {
    /// An evaluator of `net` with the fastest SIMD path this CPU runs.
    pub fn new(net: QuantNet) -> NetEvaluator {
        NetEvaluator {
            net: Arc::new(net),
            simd: Simd::detect(),
        }
    }

    /// Reads a quantised net file ([`QuantNet::load`]).
    pub fn load(path: &Path) -> Result<NetEvaluator, NetError> {
        Ok(NetEvaluator::new(QuantNet::load(path)?))
    }

    /// The same net with another SIMD path, or `None` if this CPU cannot run
    /// it. Every SIMD path gives the same costs.
    pub fn with_simd(&self, simd: Simd) -> Option<NetEvaluator> {
        simd.is_available().then(|| NetEvaluator {
            net: Arc::clone(&self.net),
            simd,
        })
    }

    /// The SIMD path in use.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// The net.
    pub fn net(&self) -> &QuantNet {
        &self.net
    }

    /// The net's value of `well` (higher is better; no line term).
    pub fn value(&self, well: &Well) -> f64 {
        self.net.value_of(self.output(well))
    }

    /// The integer output of `well`, computed from scratch.
    #[inline]
    fn output(&self, well: &Well) -> i32 {
        let net = &*self.net;
        if net.layout == Layout::Shared {
            return self.simd.output_shared(net, &features::patterns(well));
        }
        let mut idx = [0u32; ACTIVE];
        features::active(well, net.layout, &mut idx);
        self.simd.output(net, &net.bias, &idx, &[])
    }

    #[inline]
    fn cost_of(&self, y: i32, score: f64) -> f64 {
        -self.net.value_of(y) - self.net.line_weight * score
    }

    /// [`Evaluator::costs`], with each child's first-layer sum pushed to
    /// `memos` when there are any (a shared net only).
    #[inline]
    fn batch(
        &self,
        parent: &Well,
        parent_score: u32,
        children: &[Child],
        out: &mut Vec<f64>,
        mut memos: Option<&mut Vec<Memo>>,
    ) {
        out.clear();
        let net = &*self.net;
        let layout = net.layout;
        let mut idx = [0u32; ACTIVE];
        let mut removed = [0u32; ACTIVE];
        let mut added = [0u32; ACTIVE];
        features::active(parent, layout, &mut idx);
        let acc = self.simd.accumulate(net, &net.bias, &idx, &[]);
        let windows = features::Windows::new(parent);
        out.extend(children.iter().map(|c| {
            let y = match memos.as_deref_mut() {
                None if c.lines == 0 && layout == Layout::Shared => {
                    self.simd
                        .step_after_clear(net, &acc, parent, &c.well, None)
                        .1
                }
                None if c.lines == 0 => {
                    let n = features::changes(
                        parent,
                        &windows,
                        &c.well,
                        layout,
                        &mut removed,
                        &mut added,
                    );
                    self.simd.output(net, &acc, &added[..n], &removed[..n])
                }
                None => self.output(&c.well),
                Some(memos) => {
                    // (`costs_with_memos` asks only with a shared net.)
                    let (child, y) = if c.lines == 0 {
                        self.simd.step_after_clear(net, &acc, parent, &c.well, None)
                    } else {
                        let child = self
                            .simd
                            .accumulate_shared(net, &features::patterns(&c.well));
                        (child, self.simd.output(net, &child, &[], &[]))
                    };
                    memos.push(Memo(child));
                    y
                }
            };
            self.cost_of(y, f64::from(parent_score + u32::from(c.lines)))
        }));
    }
}

impl Evaluator for NetEvaluator {
    fn cost(&self, well: &Well, score: f64) -> f64 {
        self.cost_of(self.output(well), score)
    }

    fn costs(&self, parent: &Well, parent_score: u32, children: &[Child], out: &mut Vec<f64>) {
        self.batch(parent, parent_score, children, out, None);
    }

    /// [`Evaluator::costs`], each child's first-layer sum kept as its memo.
    fn costs_with_memos(
        &self,
        parent: &Well,
        parent_score: u32,
        children: &[Child],
        out: &mut Vec<f64>,
        memos: &mut Vec<Memo>,
    ) {
        memos.clear();
        if self.net.layout != Layout::Shared {
            return self.costs(parent, parent_score, children, out);
        }
        self.batch(parent, parent_score, children, out, Some(memos));
    }

    /// A shared net costs each chain child from its parent's first-layer
    /// sum (the memo, or the parent from scratch when there is none): only
    /// the features near the piece and the cleared row differ
    /// ([`features::changes_after_clear`]). The sums are the same integers
    /// as a full sum's (see [`super::simd`]), so the costs equal `cost`'s.
    fn chain_costs(
        &self,
        parent: &Well,
        parent_memo: Option<&Memo>,
        children: &[ChainChild],
        score: f64,
        out: &mut Vec<f64>,
        memos: &mut Vec<Memo>,
    ) {
        out.clear();
        memos.clear();
        let net = &*self.net;
        if net.layout != Layout::Shared {
            out.extend(children.iter().map(|c| self.cost(&c.well, score)));
            return;
        }
        let acc = match parent_memo {
            Some(m) => m.0,
            None => self
                .simd
                .accumulate_shared(net, &features::patterns(parent)),
        };
        self.simd
            .steps_after_clear(net, &acc, parent, children, memos, |y| {
                out.push(self.cost_of(y, score));
            });
    }

    fn identity(&self) -> Identity {
        Identity::new().with("net", format!("{:08x}", self.net.checksum()))
    }

    /// The net file, as [`super::file::NET_FILE`] in the run folder.
    fn files(&self) -> Vec<(String, Vec<u8>)> {
        vec![(super::file::NET_FILE.to_string(), self.net.to_bytes())]
    }
}

/// Where a feature sits: a row, or a 4×3 window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    /// Live row `r` (0 is the top live row).
    Row(usize),
    /// The window with top live row `top` and left column `left`.
    Window {
        /// Its top row.
        top: usize,
        /// Its left column.
        left: usize,
    },
}

/// One active feature's part in a value (see [`NetEvaluator::explain`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Contribution {
    /// Where the feature is.
    pub position: Place,
    /// Its pattern (10 bits for a row, 12 for a window).
    pub pattern: u16,
    /// The value minus the value with this feature's weights left out of
    /// the hidden layer's sum.
    pub value: f64,
}

impl NetEvaluator {
    /// Every active feature of `well` with its contribution, largest
    /// magnitude first (ties: position order). The hidden layer is not
    /// linear, so the contributions do not add up to the value; each is
    /// what the value loses without that one feature.
    pub fn explain(&self, well: &Well) -> Vec<Contribution> {
        let net = &*self.net;
        let mut idx = [0u32; ACTIVE];
        features::active(well, net.layout, &mut idx);
        let acc = self.simd.accumulate(net, &net.bias, &idx, &[]);
        let all = net.value_of(self.simd.output(net, &acc, &[], &[]));
        let patterns = features::patterns(well);
        let mut out: Vec<Contribution> = (0..ACTIVE)
            .map(|i| {
                let without = net.value_of(self.simd.output(net, &acc, &[], &idx[i..=i]));
                let position = if i < features::ROW_POSITIONS {
                    Place::Row(i)
                } else {
                    let w = i - features::ROW_POSITIONS;
                    Place::Window {
                        top: w / features::WINDOW_COLUMNS,
                        left: w % features::WINDOW_COLUMNS,
                    }
                };
                Contribution {
                    position,
                    pattern: patterns[i],
                    value: all - without,
                }
            })
            .collect();
        out.sort_by(|a, b| b.value.abs().total_cmp(&a.value.abs()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::{Net, Simd};

    /// The shared net's pattern path ([`Simd::output_shared`]) against the
    /// index list it replaces, on every SIMD path, on wells of all heights.
    #[test]
    fn the_shared_pattern_sum_equals_the_index_list_sum() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for hidden in [64, 24] {
            let net = Net::new(hidden, Layout::Shared, 0.5, 7).unwrap();
            let q = QuantNet::from_net(&net).unwrap();
            for simd in [Simd::Scalar, Simd::Avx2] {
                if !simd.is_available() {
                    continue;
                }
                for n in 0..500 {
                    let mut rows = [0u16; crate::well::LIVE_ROWS];
                    for r in rows.iter_mut().skip(n % 17) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        *r = (x & 0x3FF) as u16;
                    }
                    let well = Well::from_live_rows_unchecked(rows);
                    let mut idx = [0u32; ACTIVE];
                    features::active(&well, q.layout, &mut idx);
                    assert_eq!(
                        simd.output_shared(&q, &features::patterns(&well)),
                        simd.output(&q, &q.bias, &idx, &[]),
                        "{simd:?} {rows:?}"
                    );
                }
            }
        }
    }

    /// A chain step from the parent's memo (and from no memo, and from
    /// the batch's memos) equals `cost` on every SIMD path, two steps
    /// deep: the memos a step leaves serve the next.
    #[test]
    fn chain_costs_from_memos_equal_full_costs() {
        use crate::evaluate::ChainChild;
        use crate::movegen::MoveGen;
        use crate::piece::Piece;
        let net = Net::new(64, Layout::Shared, 0.5, 11).unwrap();
        let base = NetEvaluator::new(QuantNet::from_net(&net).unwrap());
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for simd in [Simd::Scalar, Simd::Avx2] {
            let Some(eval) = base.with_simd(simd) else {
                continue;
            };
            let (mut checked, mut out, mut memos) = (0, Vec::new(), Vec::new());
            for n in 0..300 {
                // Tall stacks with one gap a row: many single clears.
                let mut rows = [0u16; crate::well::LIVE_ROWS];
                for r in rows.iter_mut().skip(3 + n % 8) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *r = crate::well::FULL_ROW
                        & !(1 << (x % 10))
                        & !((x >> 8 & 1) << ((x >> 4) % 10)) as u16;
                }
                let well = Well::from_live_rows_unchecked(rows);
                let piece = Piece::ALL[n % 7];
                let mut children = Vec::new();
                MoveGen::new(&well).children(piece, &mut children);
                eval.costs_with_memos(&well, 3, &children, &mut out, &mut memos);
                for (i, c) in children.iter().enumerate() {
                    assert_eq!(
                        out[i].to_bits(),
                        eval.cost(&c.well, f64::from(3 + u32::from(c.lines)))
                            .to_bits()
                    );
                    // Chain steps from this child, with and without its memo.
                    let mut steps = Vec::new();
                    for p in Piece::ALL {
                        crate::movegen::for_each_clear(
                            &c.well,
                            p,
                            crate::movegen::candidate_rows(&c.well)[p.index()],
                            true,
                            |w, lines, cleared| {
                                if lines == 1 {
                                    steps.push(ChainChild { well: w, cleared });
                                }
                                false
                            },
                        );
                    }
                    let (mut costs, mut step_memos) = (Vec::new(), Vec::new());
                    for memo in [Some(&memos[i]), None] {
                        eval.chain_costs(&c.well, memo, &steps, 4.5, &mut costs, &mut step_memos);
                        for (s, cost) in steps.iter().zip(&costs) {
                            assert_eq!(
                                cost.to_bits(),
                                eval.cost(&s.well, 4.5).to_bits(),
                                "{simd:?}"
                            );
                            checked += 1;
                        }
                    }
                    // One step further from each step's memo.
                    for (s, memo) in steps.iter().zip(&step_memos) {
                        let mut next = Vec::new();
                        crate::movegen::for_each_clear(
                            &s.well,
                            Piece::S,
                            crate::movegen::candidate_rows(&s.well)[0],
                            true,
                            |w, lines, cleared| {
                                if lines == 1 {
                                    next.push(ChainChild { well: w, cleared });
                                }
                                false
                            },
                        );
                        let (mut costs, mut m) = (Vec::new(), Vec::new());
                        eval.chain_costs(&s.well, Some(memo), &next, 5.0, &mut costs, &mut m);
                        for (w, cost) in next.iter().zip(&costs) {
                            assert_eq!(
                                cost.to_bits(),
                                eval.cost(&w.well, 5.0).to_bits(),
                                "{simd:?}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
            assert!(checked > 1_000, "{simd:?}: {checked} steps checked");
        }
    }

    /// The slow twin of a contribution: the value from a full sum of the
    /// other 119 features' rows, against the parent sum minus one row.
    #[test]
    fn a_contribution_is_the_value_lost_without_that_feature() {
        let net = Net::new(24, Layout::Shared, 0.5, 3).unwrap();
        let eval = NetEvaluator::new(QuantNet::from_net(&net).unwrap());
        let q = eval.net();
        let mut well = Well::EMPTY;
        for (i, rows) in [0b11_1110_1111u16, 0b10_0111_0011, 0b00_0110_0000]
            .iter()
            .enumerate()
        {
            let mut r = *well.rows();
            r[15 - i] = *rows;
            well = Well::from_live_rows(r).unwrap();
        }
        let mut idx = [0u32; ACTIVE];
        features::active(&well, q.layout, &mut idx);
        let all = q.value_of(eval.simd.output(q, &q.bias, &idx, &[]));
        let got = eval.explain(&well);
        for c in &got {
            let i = match c.position {
                Place::Row(r) => r,
                Place::Window { top, left } => {
                    features::ROW_POSITIONS + top * features::WINDOW_COLUMNS + left
                }
            };
            let others: Vec<u32> = (0..ACTIVE).filter(|&j| j != i).map(|j| idx[j]).collect();
            let without = q.value_of(eval.simd.output(q, &q.bias, &others, &[]));
            assert_eq!(
                c.value.to_bits(),
                (all - without).to_bits(),
                "{:?}",
                c.position
            );
        }
        assert!(
            got[0].value != 0.0,
            "a fresh net's features all move its value"
        );
    }
}
