//! Adam over the rows a batch touches, and the trainer that steps it.
//!
//! A batch touches a few thousand of the table rows (at most 120 per
//! sample); the dense parameters (`bias`, `out`, `out_bias`) are few. The
//! gradient keeps the table rows it touched in a list, and
//! [`Adam::step`] updates only those rows (then zeroes them): the cost of a
//! step is the batch's rows, not the 442,368 × H table.
//!
//! Untouched rows are handled lazily: their moments do not decay and their
//! weights do not coast on old momentum while they are absent. Each row
//! keeps its own powers `β₁ᵗ`, `β₂ᵗ` for the bias correction, `t` counting
//! the steps that touched that row, so every row runs exactly the Adam of
//! the subsequence of steps that touched it (its first step moves it by the
//! learning rate, as dense Adam's first step does). Rejected: dense Adam
//! (every step costs the whole table, and a row absent for a while keeps
//! moving on stale momentum); lazy moments with the global step count in
//! the bias correction (TensorFlow's LazyAdam), which makes a rare row's
//! first step about 3.2 times the learning rate. The powers are kept as
//! running products, not `powi`, whose precision the standard library does
//! not promise: training is deterministic (a seeded xorshift for the
//! initial weights, no global random numbers, one thread, a fixed order).

use super::features::Layout;
use super::net::{Gradient, Net, Sample};

/// Adam's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamConfig {
    /// Step size α; default 1e-3 (the public trainer used 1e-4 to 5e-4 on
    /// its batches of 4,096).
    pub learning_rate: f32,
    /// β₁, default 0.9.
    pub beta1: f32,
    /// β₂, default 0.999.
    pub beta2: f32,
    /// ε, default 1e-8.
    pub epsilon: f32,
    /// Decoupled weight decay λ (AdamW): each step also moves a weight by
    /// `-learning_rate · λ · weight`. Applied to the table rows a step
    /// touches and to the output weights, not to the biases; default 0.
    pub weight_decay: f32,
}

impl Default for AdamConfig {
    fn default() -> AdamConfig {
        AdamConfig {
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            weight_decay: 0.0,
        }
    }
}

/// Adam's moments for one group of parameters that are stepped together.
#[derive(Clone, Debug, Default)]
struct Moments {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Moments {
    fn new(n: usize) -> Moments {
        Moments {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }
}

/// A group's `(β₁ᵗ, β₂ᵗ)`, starting at `(1, 1)`.
#[derive(Clone, Copy, Debug)]
struct Powers(f32, f32);

impl Default for Powers {
    fn default() -> Powers {
        Powers(1.0, 1.0)
    }
}

/// The Adam optimiser's state for one [`Net`] (see the module doc for the
/// sparse rows).
#[derive(Clone, Debug)]
pub struct Adam {
    config: AdamConfig,
    shared: Moments,
    shared_powers: Vec<Powers>,
    positional: Moments,
    positional_powers: Vec<Powers>,
    dense: Moments,
    dense_powers: Powers,
}

impl Adam {
    /// Fresh state (zero moments) for `net`.
    pub fn new(net: &Net, config: AdamConfig) -> Adam {
        let h = net.hidden;
        let (positional, positional_powers) = match net.layout {
            Layout::Shared => (Moments::default(), Vec::new()),
            Layout::Positional => (
                Moments::new(Layout::Positional.inputs() * h),
                vec![Powers::default(); Layout::Positional.inputs()],
            ),
        };
        Adam {
            config,
            shared: Moments::new(Layout::Shared.inputs() * h),
            shared_powers: vec![Powers::default(); Layout::Shared.inputs()],
            positional,
            positional_powers,
            dense: Moments::new(2 * h + 1),
            dense_powers: Powers::default(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &AdamConfig {
        &self.config
    }

    /// Changes the step size from the next step on (the moments stay).
    pub fn set_learning_rate(&mut self, learning_rate: f32) {
        self.config.learning_rate = learning_rate;
    }

    /// One step of `net` along `grad`, which is then cleared.
    pub fn step(&mut self, net: &mut Net, grad: &mut Gradient) {
        let c = self.config;
        let h = net.hidden;
        for &r in &grad.shared.touched {
            let at = r as usize * h..(r as usize + 1) * h;
            let correction = self.shared_powers[r as usize].advance(&c);
            adam_rows(
                &c,
                correction,
                true,
                &mut net.shared[at.clone()],
                &grad.shared.grad[at.clone()],
                &mut self.shared.m[at.clone()],
                &mut self.shared.v[at],
            );
        }
        for &r in &grad.positional.touched {
            let at = r as usize * h..(r as usize + 1) * h;
            let correction = self.positional_powers[r as usize].advance(&c);
            adam_rows(
                &c,
                correction,
                true,
                &mut net.positional[at.clone()],
                &grad.positional.grad[at.clone()],
                &mut self.positional.m[at.clone()],
                &mut self.positional.v[at],
            );
        }
        // The dense parameters, every step: `bias`, `out`, `out_bias` at
        // 0..h, h..2h, 2h of the dense moments.
        let correction = self.dense_powers.advance(&c);
        let (m, v) = (&mut self.dense.m, &mut self.dense.v);
        adam_rows(
            &c,
            correction,
            false,
            &mut net.bias,
            &grad.bias,
            &mut m[..h],
            &mut v[..h],
        );
        adam_rows(
            &c,
            correction,
            true,
            &mut net.out,
            &grad.out,
            &mut m[h..2 * h],
            &mut v[h..2 * h],
        );
        adam_rows(
            &c,
            correction,
            false,
            std::slice::from_mut(&mut net.out_bias),
            &[grad.out_bias],
            &mut m[2 * h..],
            &mut v[2 * h..],
        );
        grad.clear();
    }
}

impl Powers {
    /// One more step: returns Adam's bias corrections `(1 - β₁ᵗ, 1 - β₂ᵗ)`.
    fn advance(&mut self, c: &AdamConfig) -> (f32, f32) {
        self.0 *= c.beta1;
        self.1 *= c.beta2;
        (1.0 - self.0, 1.0 - self.1)
    }
}

/// One Adam step of a group of parameters with the bias corrections
/// `(c1, c2)`; `decay`: whether the weight decay applies.
fn adam_rows(
    c: &AdamConfig,
    (c1, c2): (f32, f32),
    decay: bool,
    params: &mut [f32],
    grads: &[f32],
    m: &mut [f32],
    v: &mut [f32],
) {
    let lambda = if decay { c.weight_decay } else { 0.0 };
    for i in 0..params.len() {
        let g = grads[i];
        m[i] = c.beta1 * m[i] + (1.0 - c.beta1) * g;
        v[i] = c.beta2 * v[i] + (1.0 - c.beta2) * g * g;
        let m_hat = m[i] / c1;
        let v_hat = v[i] / c2;
        params[i] -= c.learning_rate * (m_hat / (v_hat.sqrt() + c.epsilon) + lambda * params[i]);
    }
}

/// A net with its optimiser and gradient buffers: one call per minibatch.
#[derive(Clone, Debug)]
pub struct Trainer {
    net: Net,
    adam: Adam,
    grad: Gradient,
}

impl Trainer {
    /// Starts training `net` with fresh Adam state.
    pub fn new(net: Net, config: AdamConfig) -> Trainer {
        let adam = Adam::new(&net, config);
        let grad = Gradient::new(&net);
        Trainer { net, adam, grad }
    }

    /// One Adam step on `batch`; returns the batch's loss before the step.
    pub fn step(&mut self, batch: &[Sample]) -> f64 {
        self.step_ranked(batch, 0.0)
    }

    /// [`Trainer::step`] on the loss with a ranking term of weight `rank`
    /// ([`Net::gradient_ranked`]).
    pub fn step_ranked(&mut self, batch: &[Sample], rank: f32) -> f64 {
        let loss = self.net.gradient_ranked(batch, rank, &mut self.grad);
        self.adam.step(&mut self.net, &mut self.grad);
        loss
    }

    /// Changes the step size from the next step on.
    pub fn set_learning_rate(&mut self, learning_rate: f32) {
        self.adam.set_learning_rate(learning_rate);
    }

    /// The step size.
    pub fn learning_rate(&self) -> f32 {
        self.adam.config().learning_rate
    }

    /// The net as trained so far.
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// The net, ending the training.
    pub fn into_net(self) -> Net {
        self.net
    }
}
