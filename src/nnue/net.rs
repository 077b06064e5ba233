//! The f32 network the trainer fits, with its gradient and Adam.
//!
//! # The function
//! ```text
//! h[k] = bias[k] + Σ_{f active} W[f][k]          (k < H, 120 active f)
//! a[k] = clamp(h[k], 0, 1)                       (clipped ReLU)
//! y    = out_bias + Σ_k out[k] · a[k]            (the value, higher is better)
//! ```
//! `W[f]` is the feature's shared row plus, with [`Layout::Positional`],
//! its positional row: the factorisation chess trainers use. The shared
//! table learns what a pattern means anywhere, the positional one only the
//! correction for one place; positional rows start at zero, so a fresh net
//! is a shared one. Export folds the two into one table per (position,
//! pattern) ([`crate::nnue::QuantNet::from_net`]). With [`Layout::Shared`]
//! there is no positional table at all.
//!
//! Why clipped ReLU and a linear output: the clamp is exact in integers
//! (the quantised net clamps its int16 accumulators to `[0, QA]`), where
//! tanh would need a table and rounding; a linear output keeps the squared
//! error's gradient simple, and the beam only needs the order of the values.
//!
//! # Loss and gradient
//! The loss of a batch is the mean of `(y - target)²`. [`Net::gradient`]
//! computes its derivative with respect to every parameter:
//! `dy = 2(y - t)/N`; `d out[k] = dy·a[k]`; `d out_bias = dy`;
//! `dh[k] = dy·out[k]` where `0 < h[k] < 1`, else 0 (the clamp's flat
//! parts, and 0 at the two kinks); `d bias[k] = dh[k]`; and `dh` added to
//! the shared (and positional) row of every active feature. A pattern that
//! occurs at several positions of one well (the empty window, most often)
//! gets `dh` once per occurrence. The unit tests check every parameter
//! against central finite differences of an f64 twin of the forward pass.
//!
//! Training steps (Adam over the touched rows) are in [`crate::nnue::adam`].

use super::features::{self, Layout, ACTIVE};
use super::NetError;
use crate::well::Well;

/// The largest number of hidden units: 64, or 128 in a build with the
/// feature `hidden-128` (`cargo build --release --features hidden-128`),
/// which runs 64-unit nets about 5 % slower (see the crate's `nnue` doc).
pub const MAX_HIDDEN: usize = if cfg!(feature = "hidden-128") {
    128
} else {
    64
};

/// Half-width of the uniform range of the initial table weights: small, so
/// that a fresh net's hidden units start in the clamp's linear part even in
/// a well where one pattern (the empty window) occurs a hundred times.
const INIT_TABLE: f32 = 1.0 / 512.0;

/// A seeded xorshift64* generator: the one source of randomness in the
/// network code (initial weights; the trainer's shuffles may use it too).
///
/// Written here rather than taken from `rand`: a training folder must make
/// the same nets on any later build (the shipped net's command in
/// `data/nets/README.md` makes it bit for bit), and `rand` documents that
/// its `StdRng` and its distributions may change their output between
/// versions. Ten lines fixed forever are the cheaper promise.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; zero is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[-a, a)`.
    pub fn symmetric(&mut self, a: f32) -> f32 {
        (2.0 * self.unit() - 1.0) * a
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// One training example: a well and the value the net should give it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The well.
    pub well: Well,
    /// Its target value (higher is better).
    pub target: f32,
    /// Wells of one group are those a beam would compare (the trainer: the
    /// depth a well was sampled at); only the ranking term of
    /// [`Net::gradient_ranked`] reads it.
    pub group: u32,
}

/// The f32 network (see the module doc). Cloning copies every table.
#[derive(Clone, PartialEq)]
pub struct Net {
    pub(crate) hidden: usize,
    pub(crate) layout: Layout,
    pub(crate) line_weight: f64,
    /// `Layout::Shared.inputs()` rows of `hidden`.
    pub(crate) shared: Vec<f32>,
    /// `Layout::Positional.inputs()` rows of `hidden`, or empty.
    pub(crate) positional: Vec<f32>,
    pub(crate) bias: Vec<f32>,
    pub(crate) out: Vec<f32>,
    pub(crate) out_bias: f32,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Net")
            .field("hidden", &self.hidden)
            .field("layout", &self.layout)
            .field("line_weight", &self.line_weight)
            .finish_non_exhaustive()
    }
}

/// Checks a hidden-unit count.
pub(crate) fn check_hidden(hidden: usize) -> Result<(), NetError> {
    if (1..=MAX_HIDDEN).contains(&hidden) {
        Ok(())
    } else {
        Err(NetError::Architecture(format!(
            "{hidden} hidden units (1 to {MAX_HIDDEN} are supported){}",
            wider_build(hidden)
        )))
    }
}

/// What a message about `hidden` units out of this build's range adds when
/// the build with the feature `hidden-128` would take them (nothing
/// otherwise).
#[cfg(not(feature = "hidden-128"))]
pub fn wider_build(hidden: usize) -> &'static str {
    if hidden > MAX_HIDDEN && hidden <= 128 {
        "; a build with --features hidden-128 takes up to 128"
    } else {
        ""
    }
}

/// What a message about `hidden` units out of this build's range adds: in
/// the widest build, nothing.
#[cfg(feature = "hidden-128")]
pub fn wider_build(_hidden: usize) -> &'static str {
    ""
}

impl Net {
    /// A fresh net with `hidden` units (1 to [`MAX_HIDDEN`]) and this
    /// layout, its initial weights drawn from `seed`: table rows uniform in
    /// ±1/512, positional rows zero, hidden biases 0.5 (the middle of the
    /// clamp), output weights uniform in ±1/√H, output bias 0.
    /// `line_weight` is the cost per cleared line ([`crate::nnue`] explains
    /// it).
    pub fn new(
        hidden: usize,
        layout: Layout,
        line_weight: f64,
        seed: u64,
    ) -> Result<Net, NetError> {
        check_hidden(hidden)?;
        let mut rng = Rng::new(seed);
        let shared = (0..Layout::Shared.inputs() * hidden)
            .map(|_| rng.symmetric(INIT_TABLE))
            .collect();
        let positional = match layout {
            Layout::Shared => Vec::new(),
            Layout::Positional => vec![0.0; Layout::Positional.inputs() * hidden],
        };
        let scale = 1.0 / (hidden as f32).sqrt();
        let out = (0..hidden).map(|_| rng.symmetric(scale)).collect();
        Ok(Net {
            hidden,
            layout,
            line_weight,
            shared,
            positional,
            bias: vec![0.5; hidden],
            out,
            out_bias: 0.0,
        })
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

    /// Whether every weight is finite.
    pub fn is_finite(&self) -> bool {
        [&self.shared, &self.positional, &self.bias, &self.out]
            .iter()
            .all(|v| v.iter().all(|w| w.is_finite()))
            && self.out_bias.is_finite()
            && self.line_weight.is_finite()
    }

    /// Sets the cost per cleared line.
    pub fn set_line_weight(&mut self, line_weight: f64) {
        self.line_weight = line_weight;
    }

    /// Re-expresses the net in other value units: its value becomes
    /// `scale · value + shift` (`scale > 0`), and the line weight, in value
    /// units per line, is multiplied by `scale`, so every cost is
    /// multiplied by `scale` (and shifted): the same ranking.
    pub fn rescale(&mut self, scale: f32, shift: f32) {
        for w in &mut self.out {
            *w *= scale;
        }
        self.out_bias = scale * self.out_bias + shift;
        self.line_weight *= f64::from(scale);
    }

    /// The effective first-layer row of `(position, pattern)`: the shared
    /// row plus the positional one; `position` < 16 is a row, else the
    /// window `position - 16`.
    pub(crate) fn effective_row(&self, position: usize, pattern: u16, out: &mut [f32]) {
        let h = self.hidden;
        let (s, p) = feature_rows(position, pattern);
        out.copy_from_slice(&self.shared[s * h..][..h]);
        if self.layout == Layout::Positional {
            for (o, w) in out.iter_mut().zip(&self.positional[p * h..][..h]) {
                *o += w;
            }
        }
    }

    /// Pre-activations of `well`'s hidden units into `pre[..H]`.
    fn pre_activations(&self, active: &Active, pre: &mut [f32; MAX_HIDDEN]) {
        let h = self.hidden;
        let pre = &mut pre[..h];
        pre.copy_from_slice(&self.bias);
        for &f in &active.shared {
            for (p, w) in pre.iter_mut().zip(&self.shared[f as usize * h..][..h]) {
                *p += w;
            }
        }
        if self.layout == Layout::Positional {
            for &f in &active.positional {
                for (p, w) in pre.iter_mut().zip(&self.positional[f as usize * h..][..h]) {
                    *p += w;
                }
            }
        }
    }

    /// The value of `well` (higher is better), in f32.
    pub fn value(&self, well: &Well) -> f32 {
        let active = Active::new(well);
        let mut pre = [0.0; MAX_HIDDEN];
        self.pre_activations(&active, &mut pre);
        self.output(&pre)
    }

    fn output(&self, pre: &[f32; MAX_HIDDEN]) -> f32 {
        let mut y = self.out_bias;
        for (p, w) in pre.iter().zip(&self.out) {
            y += w * p.clamp(0.0, 1.0);
        }
        y
    }

    /// The mean of `nets`' weights, one by one (all of one shape: the fits
    /// of one start, [`crate::train::FitConfig::average`]).
    ///
    /// # Panics
    /// If `nets` is empty or their shapes differ.
    pub fn average(nets: &[Net]) -> Net {
        let first = nets.first().expect("nets to average");
        assert!(
            nets.iter().all(|n| n.same_shape(first)),
            "nets of one shape"
        );
        let k = nets.len() as f32;
        let mean = |part: fn(&Net) -> &Vec<f32>| -> Vec<f32> {
            (0..part(first).len())
                .map(|i| nets.iter().map(|n| part(n)[i]).sum::<f32>() / k)
                .collect()
        };
        Net {
            hidden: first.hidden,
            layout: first.layout,
            line_weight: first.line_weight,
            shared: mean(|n| &n.shared),
            positional: mean(|n| &n.positional),
            bias: mean(|n| &n.bias),
            out: mean(|n| &n.out),
            out_bias: nets.iter().map(|n| n.out_bias).sum::<f32>() / k,
        }
    }

    /// One net whose value is the mean of `nets`' values, exactly (up to
    /// f32 rounding): their hidden units side by side, each output weight
    /// divided by the number of nets, the output bias and the line weight
    /// their means. An ensemble rather than [`Net::average`]'s weight mean,
    /// for nets of different starts; it costs one wider accumulator.
    ///
    /// Fails when `nets` is empty, their layouts differ, or their hidden
    /// units add up to more than [`MAX_HIDDEN`].
    pub fn ensemble(nets: &[Net]) -> Result<Net, NetError> {
        let first = nets
            .first()
            .ok_or_else(|| NetError::Architecture("no nets to put side by side".into()))?;
        if nets.iter().any(|n| n.layout != first.layout) {
            return Err(NetError::Architecture(
                "the nets differ in feature layout".into(),
            ));
        }
        let hidden: usize = nets.iter().map(|n| n.hidden).sum();
        check_hidden(hidden)?;
        // Row r of the wide table is row r of each net's, one after another.
        let side_by_side = |part: fn(&Net) -> &Vec<f32>| -> Vec<f32> {
            let rows = part(first).len() / first.hidden;
            let mut out = Vec::with_capacity(rows * hidden);
            for r in 0..rows {
                for n in nets {
                    out.extend_from_slice(&part(n)[r * n.hidden..][..n.hidden]);
                }
            }
            out
        };
        let k = nets.len() as f32;
        Ok(Net {
            hidden,
            layout: first.layout,
            line_weight: nets.iter().map(|n| n.line_weight).sum::<f64>() / f64::from(k),
            shared: side_by_side(|n| &n.shared),
            positional: side_by_side(|n| &n.positional),
            bias: nets.iter().flat_map(|n| n.bias.iter().copied()).collect(),
            out: nets
                .iter()
                .flat_map(|n| n.out.iter().map(|w| w / k))
                .collect(),
            out_bias: nets.iter().map(|n| n.out_bias).sum::<f32>() / k,
        })
    }

    /// The same function in the positional layout: the shared rows kept,
    /// every positional row zero (what a fresh positional net starts from),
    /// so a fit can go on to learn where a pattern lies. A positional net
    /// comes back unchanged.
    pub fn to_positional(&self) -> Net {
        let mut net = self.clone();
        if net.layout == Layout::Shared {
            net.layout = Layout::Positional;
            net.positional = vec![0.0; Layout::Positional.inputs() * net.hidden];
        }
        net
    }

    /// The same function with `hidden` units, so that a fit can go on with
    /// more of them: each row keeps this net's units first, and each new
    /// unit gets a fresh net's table weights (uniform in ±1/512, drawn from
    /// `seed`, row by row), zero positional rows, a bias of 0.5 and an
    /// output weight of 0, so it adds nothing to the value until a fit
    /// moves it. A net with `hidden` units or more comes back unchanged.
    ///
    /// Fails when `hidden` is above [`MAX_HIDDEN`].
    pub fn widened(&self, hidden: usize, seed: u64) -> Result<Net, NetError> {
        check_hidden(hidden)?;
        let old = self.hidden;
        if hidden <= old {
            return Ok(self.clone());
        }
        let mut rng = Rng::new(seed);
        let mut widen = |part: &[f32], fresh: bool| -> Vec<f32> {
            let mut out = Vec::with_capacity(part.len() / old * hidden);
            for row in part.chunks_exact(old) {
                out.extend_from_slice(row);
                out.extend((old..hidden).map(|_| match fresh {
                    true => rng.symmetric(INIT_TABLE),
                    false => 0.0,
                }));
            }
            out
        };
        let shared = widen(&self.shared, true);
        let positional = widen(&self.positional, false);
        let mut bias = self.bias.clone();
        bias.resize(hidden, 0.5);
        let mut out = self.out.clone();
        out.resize(hidden, 0.0);
        Ok(Net {
            hidden,
            layout: self.layout,
            line_weight: self.line_weight,
            shared,
            positional,
            bias,
            out,
            out_bias: self.out_bias,
        })
    }

    /// Whether `other` has this net's hidden units and feature layout, so
    /// that the two can be averaged or blended weight by weight.
    pub fn same_shape(&self, other: &Net) -> bool {
        self.hidden == other.hidden && self.layout == other.layout
    }

    /// This net moved `share` of the way to `to`, weight by weight
    /// (`share` 0: this net, 1: `to`): a conservative step from a champion
    /// towards its fit ([`crate::train::FitConfig::blend`]).
    ///
    /// # Panics
    /// If the shapes differ.
    pub fn towards(&self, to: &Net, share: f32) -> Net {
        assert!(self.same_shape(to), "nets of one shape");
        let mix = |a: &[f32], b: &[f32]| -> Vec<f32> {
            a.iter()
                .zip(b)
                .map(|(x, y)| (1.0 - share) * x + share * y)
                .collect()
        };
        Net {
            hidden: self.hidden,
            layout: self.layout,
            line_weight: (1.0 - f64::from(share)) * self.line_weight
                + f64::from(share) * to.line_weight,
            shared: mix(&self.shared, &to.shared),
            positional: mix(&self.positional, &to.positional),
            bias: mix(&self.bias, &to.bias),
            out: mix(&self.out, &to.out),
            out_bias: (1.0 - share) * self.out_bias + share * to.out_bias,
        }
    }

    /// The mean squared error over `samples` (0 for none).
    pub fn loss(&self, samples: &[Sample]) -> f64 {
        mean_squared_error(samples, samples.iter().map(|s| self.value(&s.well)))
    }

    /// [`Net::loss`] plus `rank` times the ranking term of
    /// [`Net::gradient_ranked`], over every pair of `samples` (one group's,
    /// different targets): the loss a ranked fit descends, measured on
    /// held-out samples. Each value is computed once for both terms.
    pub fn loss_ranked(&self, samples: &[Sample], rank: f32) -> f64 {
        if rank <= 0.0 {
            return self.loss(samples);
        }
        let ys: Vec<f32> = samples.iter().map(|s| self.value(&s.well)).collect();
        mean_squared_error(samples, ys.iter().copied()) + rank_pull(samples, &ys, rank).1
    }

    /// Adds the gradient of the batch's loss (the mean of `(y - target)²`)
    /// to `grad` and returns that loss. `grad` must have been made for this
    /// net ([`Gradient::new`]).
    pub fn gradient(&self, batch: &[Sample], grad: &mut Gradient) -> f64 {
        self.gradient_ranked(batch, 0.0, grad)
    }

    /// [`Net::gradient`] with a ranking term added to the loss: `rank`
    /// times the mean, over the batch's pairs of samples of one group with
    /// different targets, of `ln(1 + e^-(y_hi - y_lo))` (`hi` the one with
    /// the higher target). A beam only compares wells of one depth and
    /// only their order matters to it; the squared error also fits the
    /// values' scale. Returns the whole loss. With `rank` 0 this is
    /// [`Net::gradient`], bit for bit.
    pub fn gradient_ranked(&self, batch: &[Sample], rank: f32, grad: &mut Gradient) -> f64 {
        let h = self.hidden;
        let n = batch.len().max(1) as f32;
        // Every output first (the ranking term reads them all before any
        // is backed up), each sample's features and pre-activations kept
        // for its backward pass.
        let forward: Vec<(Active, [f32; MAX_HIDDEN], f32)> = batch
            .iter()
            .map(|s| {
                let active = Active::new(&s.well);
                let mut pre = [0.0; MAX_HIDDEN];
                self.pre_activations(&active, &mut pre);
                let y = self.output(&pre);
                (active, pre, y)
            })
            .collect();
        let (pull, rank_loss) = if rank > 0.0 {
            let ys: Vec<f32> = forward.iter().map(|f| f.2).collect();
            rank_pull(batch, &ys, rank)
        } else {
            (Vec::new(), 0.0)
        };
        let mut sum = 0.0f64;
        let mut dh = [0.0f32; MAX_HIDDEN];
        for (i, (s, (active, pre, y))) in batch.iter().zip(&forward).enumerate() {
            let e = y - s.target;
            sum += f64::from(e) * f64::from(e);
            let dy = match pull.get(i) {
                Some(p) => 2.0 * e / n + p,
                None => 2.0 * e / n,
            };
            grad.out_bias += dy;
            for k in 0..h {
                let p = pre[k];
                grad.out[k] += dy * p.clamp(0.0, 1.0);
                dh[k] = if p > 0.0 && p < 1.0 {
                    dy * self.out[k]
                } else {
                    0.0
                };
                grad.bias[k] += dh[k];
            }
            let dh = &dh[..h];
            for &f in &active.shared {
                for (g, d) in grad.shared.row(f, h).iter_mut().zip(dh) {
                    *g += d;
                }
            }
            if self.layout == Layout::Positional {
                for &f in &active.positional {
                    for (g, d) in grad.positional.row(f, h).iter_mut().zip(dh) {
                        *g += d;
                    }
                }
            }
        }
        sum / f64::from(n) + rank_loss
    }
}

/// The mean of `(y - target)²` over `samples`, whose values are `ys` in
/// order (0 for none).
fn mean_squared_error(samples: &[Sample], ys: impl Iterator<Item = f32>) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .zip(ys)
        .map(|(s, y)| {
            let e = f64::from(y) - f64::from(s.target);
            e * e
        })
        .sum();
    sum / samples.len() as f64
}

/// The ranking term of [`Net::gradient_ranked`] over `batch`, whose outputs
/// are `ys`: its derivative by each output, and its value. Every pair of
/// the batch is looked at (a batch of 256 is 32,640 pairs, against its 256
/// forward and backward passes).
fn rank_pull(batch: &[Sample], ys: &[f32], rank: f32) -> (Vec<f32>, f64) {
    let mut pull = vec![0.0f32; batch.len()];
    let mut pairs = 0usize;
    let mut loss = 0.0f64;
    for i in 0..batch.len() {
        for j in i + 1..batch.len() {
            let (a, b) = (&batch[i], &batch[j]);
            if a.group != b.group || a.target == b.target {
                continue;
            }
            let (hi, lo) = if a.target > b.target { (i, j) } else { (j, i) };
            let d = ys[hi] - ys[lo];
            // ln(1 + e^-d), and its slope by d, -1 / (1 + e^d).
            loss += f64::from((-d).exp().ln_1p());
            let slope = 1.0 / (1.0 + d.exp());
            pull[hi] -= slope;
            pull[lo] += slope;
            pairs += 1;
        }
    }
    if pairs == 0 {
        return (pull, 0.0);
    }
    let k = rank / pairs as f32;
    for p in &mut pull {
        *p *= k;
    }
    (pull, f64::from(rank) * loss / pairs as f64)
}

/// The shared and positional table rows of `(position, pattern)`.
fn feature_rows(position: usize, pattern: u16) -> (usize, usize) {
    let rows = features::ROW_POSITIONS;
    if position < rows {
        (
            Layout::Shared.row_feature(position, pattern) as usize,
            Layout::Positional.row_feature(position, pattern) as usize,
        )
    } else {
        (
            Layout::Shared.window_feature(position - rows, pattern) as usize,
            Layout::Positional.window_feature(position - rows, pattern) as usize,
        )
    }
}

/// A well's active features in both tables.
struct Active {
    shared: [u32; ACTIVE],
    positional: [u32; ACTIVE],
}

impl Active {
    fn new(well: &Well) -> Active {
        let mut a = Active {
            shared: [0; ACTIVE],
            positional: [0; ACTIVE],
        };
        features::active(well, Layout::Shared, &mut a.shared);
        features::active(well, Layout::Positional, &mut a.positional);
        a
    }
}

/// A table's gradient: dense storage, but only the rows in `touched` are
/// non-zero.
#[derive(Clone, Debug, Default)]
pub(super) struct SparseRows {
    pub(super) grad: Vec<f32>,
    marked: Vec<bool>,
    pub(super) touched: Vec<u32>,
}

impl SparseRows {
    fn new(rows: usize, hidden: usize) -> SparseRows {
        SparseRows {
            grad: vec![0.0; rows * hidden],
            marked: vec![false; rows],
            touched: Vec::new(),
        }
    }

    fn row(&mut self, row: u32, hidden: usize) -> &mut [f32] {
        if !self.marked[row as usize] {
            self.marked[row as usize] = true;
            self.touched.push(row);
        }
        &mut self.grad[row as usize * hidden..][..hidden]
    }

    fn clear(&mut self, hidden: usize) {
        for &r in &self.touched {
            self.marked[r as usize] = false;
            self.grad[r as usize * hidden..][..hidden].fill(0.0);
        }
        self.touched.clear();
    }
}

/// The gradient of a batch's loss with respect to every parameter of a
/// [`Net`]; the table parts are sparse (see the module doc).
#[derive(Clone, Debug)]
pub struct Gradient {
    hidden: usize,
    pub(super) shared: SparseRows,
    pub(super) positional: SparseRows,
    pub(super) bias: Vec<f32>,
    pub(super) out: Vec<f32>,
    pub(super) out_bias: f32,
}

impl Gradient {
    /// A zero gradient shaped for `net`.
    pub fn new(net: &Net) -> Gradient {
        let h = net.hidden;
        Gradient {
            hidden: h,
            shared: SparseRows::new(Layout::Shared.inputs(), h),
            positional: match net.layout {
                Layout::Shared => SparseRows::default(),
                Layout::Positional => SparseRows::new(Layout::Positional.inputs(), h),
            },
            bias: vec![0.0; h],
            out: vec![0.0; h],
            out_bias: 0.0,
        }
    }

    /// Back to zero (only the touched rows are written).
    pub fn clear(&mut self) {
        self.shared.clear(self.hidden);
        self.positional.clear(self.hidden);
        self.bias.fill(0.0);
        self.out.fill(0.0);
        self.out_bias = 0.0;
    }

    /// Table rows with a gradient (shared, positional).
    pub fn touched_rows(&self) -> (usize, usize) {
        (self.shared.touched.len(), self.positional.touched.len())
    }
}

#[cfg(test)]
mod tests;
