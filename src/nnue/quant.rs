//! The quantised network: int16 weights and accumulators, int32 output.
//!
//! # Integers
//! ```text
//! acc[k] = bias_q[k] + Σ_{f active} W_q[f][k]          int16, scale QA
//! a[k]   = clamp(acc[k], 0, QA)                         clipped ReLU, scale QA
//! y_q    = out_bias_q + Σ_k a[k] · out_q[k]             int32, scale QA·QB
//! value  = y_q / (QA·QB)                                f64
//! ```
//! with `W_q = round(W·QA)`, `bias_q = round(bias·QA)`, `out_q =
//! round(out·QB)`, `out_bias_q = round(out_bias·QA·QB)` (rounding half away
//! from zero, in f64). The clamp's top is `QA`, the integer for 1.0.
//!
//! # Scales, chosen per net so nothing can overflow
//! Every position has exactly one active feature, so an accumulator lies
//! between `bias_q[k] + Σ_positions min_pattern W_q[·][k]` and the same sum
//! of maxima, whatever the well. [`QuantNet::from_net`] takes the largest
//! `QA` (at most [`MAX_SCALE`]) that keeps this range within `i16` for
//! every unit (with room for the rounding), and then the largest
//! `QB` (at most [`MAX_SCALE`]) with `|out_q| ≤ 32,767` and
//! `|out_bias_q| + QA·Σ|out_q| ≤ i32::MAX`. So the true accumulator always
//! fits in `i16` and every partial output sum in `i32`: the int16 adds may
//! wrap in any order (they are exact modulo 2¹⁶, and the final value is in
//! range), which is what makes the incremental update, the full recompute,
//! the scalar path and the SIMD path give the same integers. The bounds are
//! checked again whenever a net is loaded (`QuantNet::check`).
//!
//! Adaptive scales rather than fixed ones (chess engines use QA = 255,
//! QB = 64): our nets are small and their weights' range is not known in
//! advance; a fixed QA either overflows a net with large weights or wastes
//! precision on one with small weights.
//!
//! # Error against the f32 net
//! Each of the 121 first-layer terms is off by at most `0.5/QA`, the clamp
//! is 1-Lipschitz, and each output weight is off by at most `0.5/QB`, so
//! `|value_q - value_f32| ≤ 60.5/QA · Σ|out_q|/QB + H·0.5/QB +
//! 0.5/(QA·QB)` ([`QuantNet::error_bound`]); the observed difference is far
//! smaller (the roundings mostly cancel), see `tests/nnue.rs`.
//!
//! # Layout in memory
//! Hidden units are padded to a multiple of 16 (`lanes`), the padding all
//! zero weights, so that a table row is 1 to 4 `Block`s of 16 int16 (one
//! AVX2 register, 32-byte aligned, never split across cache lines). The
//! table is `inputs × lanes` int16: 640 KiB for the shared layout at
//! H = 64, 54 MiB for the positional one.

use super::features::{Layout, ACTIVE, ROW_POSITIONS, WINDOW_POSITIONS};
use super::net::{check_hidden, Net, MAX_HIDDEN};
use super::NetError;

/// The largest quantisation scale [`QuantNet::from_net`] picks.
pub const MAX_SCALE: i32 = 1 << 14;

/// Sixteen int16 lanes, aligned for one AVX2 load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub(crate) struct Block(pub(crate) [i16; 16]);

const _: () = assert!(std::mem::size_of::<Block>() == 32);

/// Blocks in the widest row.
pub(crate) const MAX_BLOCKS: usize = MAX_HIDDEN / 16;

/// An accumulator (or any per-unit vector) at the widest size.
pub(crate) type Acc = [Block; MAX_BLOCKS];

/// The quantised network (see the module doc). Built by
/// [`QuantNet::from_net`] or read from a file; immutable.
#[derive(Clone, PartialEq)]
pub struct QuantNet {
    pub(crate) hidden: usize,
    /// Blocks per table row: `ceil(hidden / 16)`.
    pub(crate) blocks: usize,
    pub(crate) layout: Layout,
    pub(crate) line_weight: f64,
    pub(crate) qa: i32,
    pub(crate) qb: i32,
    /// `layout.inputs() × blocks` blocks.
    pub(crate) table: Vec<Block>,
    pub(crate) bias: Acc,
    pub(crate) out: Acc,
    pub(crate) out_bias: i32,
}

impl std::fmt::Debug for QuantNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuantNet")
            .field("hidden", &self.hidden)
            .field("layout", &self.layout)
            .field("line_weight", &self.line_weight)
            .field("qa", &self.qa)
            .field("qb", &self.qb)
            .finish_non_exhaustive()
    }
}

/// What [`QuantNet::from_net`] calls for each table row.
type Visitor<'a> = dyn FnMut(usize, f64, &[f64], bool) + 'a;

/// Rounds `x` to the nearest integer, half away from zero.
fn round(x: f64) -> i64 {
    x.round() as i64
}

impl QuantNet {
    /// Quantises `net`, folding a positional layout's shared and positional
    /// rows into one table (see the module doc for the scales). Fails only
    /// for weights so large that no scale of at least 1 fits.
    pub fn from_net(net: &Net) -> Result<QuantNet, NetError> {
        if !net.is_finite() {
            return Err(NetError::Quantise("a weight is not finite".into()));
        }
        let h = net.hidden;
        let layout = net.layout;
        let rows = layout.inputs();
        // The effective (folded) table, one row at a time, in f32 as the f32
        // forward pass sums it.
        let eff_row = |row: usize, out: &mut [f32]| match layout {
            Layout::Shared => out.copy_from_slice(&net.shared[row * h..][..h]),
            Layout::Positional => {
                let (position, pattern) = positional_feature(row);
                net.effective_row(position, pattern, out);
            }
        };
        // Every table row minus its position's empty-pattern row, in f64,
        // with the position's multiplicity: `f(row, count, weights, last)`,
        // `last` for the position's last pattern; the first row of each
        // position is the empty pattern.
        let visit = |f: &mut Visitor| {
            let (mut base, mut row) = (vec![0.0f32; h], vec![0.0f32; h]);
            let mut d = vec![0.0f64; h];
            let mut r = 0;
            for (count, positions, patterns) in position_groups(layout) {
                for _ in 0..positions {
                    eff_row(r, &mut base);
                    for p in 0..patterns {
                        eff_row(r, &mut row);
                        for k in 0..h {
                            d[k] = f64::from(row[k]) - f64::from(base[k]);
                        }
                        f(r, count, &d, p + 1 == patterns);
                        r += 1;
                    }
                }
            }
            debug_assert_eq!(r, rows);
        };
        // The empty rows and windows go into the bias, so that the empty
        // pattern's weight is exactly zero: it is the pattern that repeats
        // most (up to 104 times in a shared table), and a rounding error
        // repeated 104 times is 104 times larger.
        let mut bias: Vec<f64> = net.bias.iter().map(|&b| f64::from(b)).collect();
        {
            let mut base = vec![0.0f32; h];
            let mut r = 0;
            for (count, positions, patterns) in position_groups(layout) {
                for _ in 0..positions {
                    eff_row(r, &mut base);
                    for k in 0..h {
                        bias[k] += count * f64::from(base[k]);
                    }
                    r += patterns;
                }
            }
        }
        // The range of each unit's input over all wells, in units of the
        // weights: the bias plus, per position, the least (most) weight of
        // any pattern there.
        let (mut lo, mut hi) = (bias.clone(), bias.clone());
        let (mut least, mut most) = (vec![0.0f64; h], vec![0.0f64; h]);
        visit(&mut |_, count, d, last| {
            for k in 0..h {
                least[k] = least[k].min(d[k]);
                most[k] = most[k].max(d[k]);
            }
            if last {
                for k in 0..h {
                    lo[k] += count * least[k];
                    hi[k] += count * most[k];
                }
                least.fill(0.0);
                most.fill(0.0);
            }
        });
        let bound: Vec<f64> = lo
            .iter()
            .zip(&hi)
            .map(|(l, h)| l.abs().max(h.abs()))
            .collect();
        let worst = bound.iter().cloned().fold(0.0, f64::max);
        // Rounding adds at most 0.5 per term, 121 terms.
        let room = f64::from(i16::MAX) - 0.5 * (ACTIVE + 1) as f64;
        let qa = if worst == 0.0 {
            MAX_SCALE
        } else {
            (room / worst).floor().min(f64::from(MAX_SCALE)) as i32
        };
        if qa < 1 {
            return Err(NetError::Quantise(format!(
                "a hidden unit's input can reach {worst:.1}, more than an int16 accumulator holds"
            )));
        }
        let max_out = net
            .out
            .iter()
            .map(|w| f64::from(w.abs()))
            .fold(0.0, f64::max);
        let sum_out: f64 = net.out.iter().map(|w| f64::from(w.abs())).sum();
        let qaf = f64::from(qa);
        let mut qb = f64::from(MAX_SCALE);
        if max_out > 0.0 {
            qb = qb.min(((f64::from(i16::MAX) - 0.5) / max_out).floor());
        }
        let total = sum_out + f64::from(net.out_bias.abs());
        if total > 0.0 {
            let room = f64::from(i32::MAX) - 2.0 - qaf * 0.5 * h as f64;
            qb = qb.min((room / (qaf * total)).floor());
        }
        if qb < 1.0 {
            return Err(NetError::Quantise(format!(
                "the output weights (sum of magnitudes {total:.1}) are too large for int32 sums"
            )));
        }
        let qb = qb as i32;
        let blocks = h.div_ceil(16);
        let mut q = QuantNet {
            hidden: h,
            blocks,
            layout,
            line_weight: net.line_weight,
            qa,
            qb,
            table: vec![Block::default(); rows * blocks],
            bias: Acc::default(),
            out: Acc::default(),
            out_bias: round(f64::from(net.out_bias) * qaf * f64::from(qb)) as i32,
        };
        visit(&mut |r, _, d, _| {
            for (k, w) in d.iter().enumerate() {
                q.table[r * blocks + k / 16].0[k % 16] = round(w * qaf) as i16;
            }
        });
        for (k, b) in bias.iter().enumerate() {
            q.bias[k / 16].0[k % 16] = round(b * qaf) as i16;
            q.out[k / 16].0[k % 16] = round(f64::from(net.out[k]) * f64::from(qb)) as i16;
        }
        q.check()?;
        Ok(q)
    }

    /// Checks the architecture and that no accumulator or output sum can
    /// overflow (see the module doc).
    pub(crate) fn check(&self) -> Result<(), NetError> {
        check_hidden(self.hidden)?;
        if !(1..=i32::from(i16::MAX)).contains(&self.qa) || self.qb < 1 {
            return Err(NetError::Architecture(format!(
                "scales QA {} and QB {} (QA must be 1 to 32767, QB at least 1)",
                self.qa, self.qb
            )));
        }
        if self.blocks != self.hidden.div_ceil(16)
            || self.table.len() != self.layout.inputs() * self.blocks
        {
            return Err(NetError::Architecture("table of the wrong size".into()));
        }
        // One pass over the table: per position, each unit's least and
        // most weight (every lane, padding included).
        let lanes = 16 * self.blocks;
        let mut lo: Vec<i64> = self.bias.iter().flat_map(|b| b.0).map(i64::from).collect();
        let mut hi = lo.clone();
        let (mut least, mut most) = (vec![0i64; lanes], vec![0i64; lanes]);
        let mut rows = self.table.chunks_exact(self.blocks);
        for (count, positions, patterns) in position_groups(self.layout) {
            for _ in 0..positions {
                least.fill(i64::MAX);
                most.fill(i64::MIN);
                for row in rows.by_ref().take(patterns) {
                    for (k, &w) in row.iter().flat_map(|b| &b.0).enumerate() {
                        least[k] = least[k].min(i64::from(w));
                        most[k] = most[k].max(i64::from(w));
                    }
                }
                for k in 0..lanes {
                    lo[k] += count as i64 * least[k];
                    hi[k] += count as i64 * most[k];
                }
            }
        }
        for k in 0..lanes {
            if lo[k] < i64::from(i16::MIN) || hi[k] > i64::from(i16::MAX) {
                return Err(NetError::Architecture(format!(
                    "hidden unit {k}'s accumulator can reach {}..{}, more than int16 holds",
                    lo[k], hi[k]
                )));
            }
        }
        let sum_out: i64 = self
            .out
            .iter()
            .flat_map(|b| b.0)
            .map(|w| i64::from(w).abs())
            .sum();
        let total = i64::from(self.out_bias).abs() + i64::from(self.qa) * sum_out;
        if total > i64::from(i32::MAX) {
            return Err(NetError::Architecture(format!(
                "the output sum can reach {total}, more than int32 holds"
            )));
        }
        // Padding units carry nothing.
        let pad = |b: &Acc| (self.hidden..MAX_HIDDEN).all(|k| b[k / 16].0[k % 16] == 0);
        if !pad(&self.bias) || !pad(&self.out) {
            return Err(NetError::Architecture("non-zero padding units".into()));
        }
        Ok(())
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The feature layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Cost per cleared line (see [`crate::nnue`]).
    pub fn line_weight(&self) -> f64 {
        self.line_weight
    }

    /// The scales `(QA, QB)`: a weight `w` is stored as `round(w·QA)`, an
    /// output weight as `round(w·QB)`, and the value is `y_q / (QA·QB)`.
    pub fn scales(&self) -> (i32, i32) {
        (self.qa, self.qb)
    }

    /// A bound on `|value_q - value_f32|` against the net it was made from
    /// (see the module doc).
    pub fn error_bound(&self) -> f64 {
        let (qa, qb) = (f64::from(self.qa), f64::from(self.qb));
        let sum_out: f64 = self
            .out
            .iter()
            .flat_map(|b| b.0)
            .map(|w| f64::from(w).abs())
            .sum();
        0.5 * (ACTIVE + 1) as f64 / qa * sum_out / qb
            + 0.5 * self.hidden as f64 / qb
            + 0.5 / (qa * qb)
    }

    /// The value of an integer output.
    #[inline]
    pub(crate) fn value_of(&self, y: i32) -> f64 {
        f64::from(y) / (f64::from(self.qa) * f64::from(self.qb))
    }
}

/// The positions of a layout's table in order, as `(positions counted per
/// row group, groups, patterns)`: for the shared layout one group of 1,024
/// rows counted 16 times and one of 4,096 counted 104 times; for the
/// positional layout 16 groups of 1,024 and 104 of 4,096, each counted once.
fn position_groups(layout: Layout) -> [(f64, usize, usize); 2] {
    use super::features::{ROW_PATTERNS, WINDOW_PATTERNS};
    match layout {
        Layout::Shared => [
            (ROW_POSITIONS as f64, 1, ROW_PATTERNS),
            (WINDOW_POSITIONS as f64, 1, WINDOW_PATTERNS),
        ],
        Layout::Positional => [
            (1.0, ROW_POSITIONS, ROW_PATTERNS),
            (1.0, WINDOW_POSITIONS, WINDOW_PATTERNS),
        ],
    }
}

/// `(position, pattern)` of a positional table row.
fn positional_feature(row: usize) -> (usize, u16) {
    use super::features::{ROW_PATTERNS, WINDOW_PATTERNS};
    let rows = ROW_POSITIONS * ROW_PATTERNS;
    if row < rows {
        (row / ROW_PATTERNS, (row % ROW_PATTERNS) as u16)
    } else {
        let w = row - rows;
        (
            ROW_POSITIONS + w / WINDOW_PATTERNS,
            (w % WINDOW_PATTERNS) as u16,
        )
    }
}
