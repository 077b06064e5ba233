//! Fitting a net to a generation's targets: minibatch Adam, a held-out
//! validation split, and early stopping on the validation loss.
//!
//! - **Split**: sample `i` is held out when a hash of `(seed, i)` falls in
//!   the validation fraction, so the split is fixed by the seed and does
//!   not move when the sample count changes.
//! - **Epochs**: the training samples are shuffled (seeded by the epoch),
//!   cut into minibatches, and each batch is one Adam step
//!   ([`crate::nnue::Trainer`]). The epoch's training loss is the mean of
//!   its batches' losses before their steps.
//! - **Stopping**: after each epoch the validation loss is measured; the net
//!   with the lowest one so far is kept. An epoch without a new lowest
//!   halves the step size (small steps find the finer fit the beam needs
//!   to rank close wells), and training stops after `patience` such epochs
//!   in a row (or at `max_epochs`). The result is the kept net, never the
//!   last.
//!
//! - **Ranking** (`rank_weight` > 0): each step's loss adds a pairwise
//!   term over the batch's wells sampled at one depth (the one with the
//!   higher target to be valued higher; [`crate::nnue::Net::gradient_ranked`]),
//!   since a beam only compares wells of one depth and only their order
//!   counts. The validation loss stays the squared error unless
//!   `rank_validation` is on (then it is the loss the steps descend, so
//!   that early stopping does not keep the epoch where the squared error
//!   alone was lowest, often the first: learn-9's generations 3, 6 and 7
//!   kept epoch 1 of 5; with it, 19-25 epochs). Measured on one
//!   generation's data (`data/train/README.md`, the targets sweep, made
//!   with `hatetris train --fork`): the squared error alone always lost to
//!   the champion that made the data (−1.7 ± 1.8 pieces a start from 161
//!   positions of the longest record, which no step here reads); weight
//!   10 gave +5.6 ± 1.8 (3 and 30 less).
//!
//! - **Averaging** (`average` > 1): that many fits from the same start and
//!   split, each shuffling its batches its own way, averaged weight by
//!   weight. A fit is about a second here (37,000 samples), the data
//!   behind it minutes, so eight cost nothing.
//!
//! - **Blending** (`blend` < 1): the kept net is the start (the champion)
//!   moved only that share of the way to the fit, weight by weight. The
//!   two shipped nets blended half and half (`wide.nnue`, a fit of
//!   `ranked.nnue`'s data, and `ranked.nnue` itself) scored more than
//!   either from the empty well at widths 8,000-12,000 (98 lines against
//!   81 and 94) but less than the fit at width 100,000 (156 against 230)
//!   and on the record's suite (−3.1 ± 1.9 pieces a start); this
//!   setting's own form of it (the champion in the fit's units) scored
//!   93.4 and 141 (`data/train/README.md`, "Blends"). A loop run with it
//!   is untried.
//!
//! - **Widening** (`widen`): the trainer gives the champion fresh hidden
//!   units that weigh nothing at the start ([`Net::widened`]). On learn-18's
//!   generation 0 a 128-unit fit put 0.853 of the held-out pairs in order
//!   against the 64-unit fit's 0.843 (the champion 0.829), and survived
//!   +2.4 ± 1.9 pieces a start longer on the record's suite at width 300,
//!   but level with the 64-unit fit over fourteen steady-state wells at
//!   width 10,000 (−1.1 ± 8.1 pieces a start; `data/train/README.md`,
//!   "Does a wider net help?").
//!
//! Neither averaging nor the ranking term made the loop climb: refitting
//! learn-9's generation 3 (the shipped net's own data) gave −1.2 ± 1.5 and
//! +1.3 ± 1.6 pieces a gate position against that net; on learn-5's generation 2
//! (where the ranking term gave +3.6) +5.3 and +6.4, but level with the
//! shipped net on the record's suite (`data/train/README.md`, "One fit
//! redone eight ways").
//!
//! Everything is one thread in a fixed order, so the same samples and
//! seed give the same net bit for bit.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::nnue::{AdamConfig, Net, Rng, Sample, Trainer};
use crate::well::mix64;

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitConfig {
    /// Samples per Adam step.
    pub batch: usize,
    /// Most passes over the training samples.
    pub max_epochs: u32,
    /// Stop after this many epochs without a lower validation loss.
    pub patience: u32,
    /// Adam's step size.
    pub learning_rate: f32,
    /// Decoupled weight decay (AdamW's λ).
    pub weight_decay: f32,
    /// The share of samples held out for validation.
    pub validation: f64,
    /// The weight of a ranking term over wells sampled at one depth
    /// ([`crate::nnue::Net::gradient_ranked`]); 0 (and absent from the
    /// settings file): the squared error alone. The validation loss stays
    /// the squared error.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub rank_weight: f32,
    /// Early stopping measures the held-out samples by the loss the steps
    /// descend (the squared error plus the ranking term,
    /// [`crate::nnue::Net::loss_ranked`]) instead of the squared error
    /// alone. Off (and absent from the settings file): the folders made
    /// before it fit as they did.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub rank_validation: bool,
    /// Fits made from the same start on the same split, each shuffling its
    /// batches its own way, whose weights are averaged into the net (a
    /// "soup": the fits of one start differ by their batches' noise, which
    /// the average cancels). 1 (and absent from the settings file): one
    /// fit, as in the folders made before it.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub average: u32,
    /// The share of the way from the start net (the champion) to the fit
    /// that the fitted net goes, weight by weight ([`Net::towards`]): a
    /// conservative step. 1 (and absent from the settings file): the fit
    /// itself, as in the folders made before it. A generation that starts
    /// from random weights (learning the heuristic) fits in full.
    #[serde(default = "one_f32", skip_serializing_if = "is_one_f32")]
    pub blend: f32,
    /// Fit in the positional layout ([`Net::to_positional`]): a shared
    /// start net gains a zero positional row for every (position, pattern),
    /// so the fit can learn where a pattern lies (a row of holes under the
    /// top differs from one at the floor), at about twice the search's time
    /// per child. Off (and absent from the settings file): the layout of
    /// the start net, as in the folders made before it.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub positional: bool,
    /// Hidden units the fit has: a start net with fewer gains fresh units
    /// that add nothing to its value until the fit moves them
    /// ([`Net::widened`], applied by the trainer to the champion). 0 (and
    /// absent from the settings file): the start net's units, as in the
    /// folders made before it.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub widen: usize,
}

fn one() -> u32 {
    1
}

fn is_one(x: &u32) -> bool {
    *x == 1
}

fn one_f32() -> f32 {
    1.0
}

fn is_one_f32(x: &f32) -> bool {
    *x == 1.0
}

impl Default for FitConfig {
    fn default() -> FitConfig {
        FitConfig {
            batch: 256,
            max_epochs: 40,
            patience: 4,
            learning_rate: 1e-3,
            weight_decay: 0.0,
            validation: 0.1,
            rank_weight: 0.0,
            rank_validation: false,
            average: 1,
            blend: 1.0,
            positional: false,
            widen: 0,
        }
    }
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Epoch {
    /// 1 for the first pass; 0 is the net before training.
    pub epoch: u32,
    /// The mean batch loss over the pass (0 holds the loss over all
    /// training samples before any step).
    pub train_loss: f64,
    /// The loss over the held-out samples after the pass.
    pub validation_loss: f64,
    /// Seconds the pass took.
    pub seconds: f64,
}

/// The result of a fit.
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The net of the epoch with the lowest validation loss.
    pub net: Net,
    /// Every epoch, from 0.
    pub epochs: Vec<Epoch>,
    /// The kept net's epoch.
    pub best_epoch: u32,
    /// Training and validation sample counts.
    pub split: (usize, usize),
    /// With [`FitConfig::average`] above 1 or [`FitConfig::blend`] below
    /// 1, the kept net's validation loss (`epochs` and `best_epoch` are the
    /// first fit's).
    pub averaged_validation_loss: Option<f64>,
    /// How the start net and the kept net order the held-out wells (`None`
    /// for a fit read back from a file made before this was measured).
    pub held_order: Option<HeldOrder>,
}

/// Two held-out wells whose targets differ by at most this are not a pair
/// [`held_order`] counts (value units: the targets' standard deviation).
pub const ORDER_MARGIN: f32 = 0.1;

/// The share of held-out pairs a net puts in the targets' order, before and
/// after the fit: a beam only ranks the wells of one depth against each
/// other, so this says what a fit changed that a beam can see, where the
/// validation loss also counts values shifted or spread as a whole.
/// (`data/train/README.md`, "Would hand-made input features help?", found
/// fits that move this by 0.2 to 0.4 points over their champion.)
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOrder {
    /// The pairs counted: neighbouring held-out samples of one group whose
    /// targets differ by more than [`ORDER_MARGIN`].
    pub pairs: usize,
    /// The start net's share of them in order (the same net, rescaled, as
    /// the one the targets came from when there is a champion).
    pub start: f64,
    /// The kept net's share.
    pub kept: f64,
}

/// `(pairs, share in order)` of `net` over `held`, see [`HeldOrder`]; a tie
/// in value counts as out of order. No pairs: a share of 0.
pub fn held_order(net: &Net, held: &[Sample]) -> (usize, f64) {
    let values: Vec<f32> = held.iter().map(|s| net.value(&s.well)).collect();
    let (mut pairs, mut in_order) = (0usize, 0usize);
    for (i, w) in held.windows(2).enumerate() {
        let dt = w[1].target - w[0].target;
        if w[0].group != w[1].group || dt.abs() <= ORDER_MARGIN {
            continue;
        }
        pairs += 1;
        in_order += usize::from((values[i + 1] - values[i]) * dt > 0.0);
    }
    (pairs, in_order as f64 / pairs.max(1) as f64)
}

/// Whether sample `i` is held out.
pub fn is_validation(seed: u64, i: usize, share: f64) -> bool {
    let h = mix64(seed ^ mix64(i as u64 + 1));
    ((h >> 11) as f64 / (1u64 << 53) as f64) < share
}

/// Fits `net` to `samples`, reporting each epoch of the first fit to
/// `on_epoch`; with [`FitConfig::average`] above 1, that many fits averaged.
pub fn fit(
    net: Net,
    samples: &[Sample],
    config: &FitConfig,
    seed: u64,
    on_epoch: impl FnMut(&Epoch),
) -> Fitted {
    let (mut train, mut held): (Vec<Sample>, Vec<Sample>) = (Vec::new(), Vec::new());
    for (i, s) in samples.iter().enumerate() {
        if is_validation(seed, i, config.validation) {
            held.push(*s);
        } else {
            train.push(*s);
        }
    }
    let net = if config.positional {
        net.to_positional()
    } else {
        net
    };
    let start = (config.blend != 1.0).then(|| net.clone());
    let (pairs, start_order) = held_order(&net, &held);
    let fitted = if config.average <= 1 {
        fit_once(net, &train, &held, config, seed, 0, on_epoch)
    } else {
        let first = fit_once(net.clone(), &train, &held, config, seed, 0, on_epoch);
        let mut nets = vec![first.net.clone()];
        for k in 1..config.average {
            let stream = mix64(0x736f_7570 ^ u64::from(k));
            nets.push(fit_once(net.clone(), &train, &held, config, seed, stream, |_| {}).net);
        }
        let averaged = Net::average(&nets);
        let loss = validation_loss(&averaged, &held, config);
        Fitted {
            net: averaged,
            averaged_validation_loss: Some(loss),
            ..first
        }
    };
    let fitted = match start {
        None => fitted,
        Some(start) => {
            let net = start.towards(&fitted.net, config.blend);
            let loss = validation_loss(&net, &held, config);
            Fitted {
                net,
                averaged_validation_loss: Some(loss),
                ..fitted
            }
        }
    };
    Fitted {
        held_order: Some(HeldOrder {
            pairs,
            start: start_order,
            kept: held_order(&fitted.net, &held).1,
        }),
        ..fitted
    }
}

/// The held-out samples' loss: the squared error, or with
/// [`FitConfig::rank_validation`] the loss the steps descend.
fn validation_loss(net: &Net, held: &[Sample], config: &FitConfig) -> f64 {
    match config.rank_validation {
        true => net.loss_ranked(held, config.rank_weight),
        false => net.loss(held),
    }
}

/// One fit on the `train` samples, stopped early on the `held` ones: the
/// batches shuffled by `seed`, the epoch and `stream` (0 for the first
/// fit, whose shuffles are those of the folders made before
/// [`FitConfig::average`]).
fn fit_once(
    net: Net,
    train: &[Sample],
    held: &[Sample],
    config: &FitConfig,
    seed: u64,
    stream: u64,
    mut on_epoch: impl FnMut(&Epoch),
) -> Fitted {
    let mut train = train.to_vec();
    let split = (train.len(), held.len());
    let validate = |net: &Net| validation_loss(net, held, config);
    let first = Epoch {
        epoch: 0,
        train_loss: net.loss(&train),
        validation_loss: validate(&net),
        seconds: 0.0,
    };
    on_epoch(&first);
    let mut epochs = vec![first];
    let mut best = (first.validation_loss, 0, net.clone());
    let adam = AdamConfig {
        learning_rate: config.learning_rate,
        weight_decay: config.weight_decay,
        ..AdamConfig::default()
    };
    let mut trainer = Trainer::new(net, adam);
    let batch = config.batch.max(1);
    for epoch in 1..=config.max_epochs {
        if train.is_empty() {
            break;
        }
        let started = Instant::now();
        shuffle(
            &mut train,
            &mut Rng::new(seed ^ mix64(u64::from(epoch)) ^ stream),
        );
        let mut sum = 0.0;
        let mut batches = 0;
        for b in train.chunks(batch) {
            sum += trainer.step_ranked(b, config.rank_weight);
            batches += 1;
        }
        let e = Epoch {
            epoch,
            train_loss: sum / batches as f64,
            validation_loss: validate(trainer.net()),
            seconds: started.elapsed().as_secs_f64(),
        };
        on_epoch(&e);
        epochs.push(e);
        // A NaN loss is never an improvement.
        if e.validation_loss < best.0 {
            best = (e.validation_loss, epoch, trainer.net().clone());
        } else if epoch - best.1 >= config.patience {
            break;
        } else {
            trainer.set_learning_rate(trainer.learning_rate() * 0.5);
        }
    }
    Fitted {
        net: best.2,
        epochs,
        best_epoch: best.1,
        split,
        averaged_validation_loss: None,
        // Measured by `fit`, once, for the net it keeps.
        held_order: None,
    }
}

/// Fisher-Yates with the seeded generator.
fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::MoveGen;
    use crate::nnue::Layout;
    use crate::piece::Piece;
    use crate::well::Well;

    /// Two pieces deep from the empty well, each well's target its number
    /// of filled cells in the bottom row.
    fn samples() -> Vec<Sample> {
        let mut out = Vec::new();
        let (mut first, mut second) = (Vec::new(), Vec::new());
        for p in Piece::ALL {
            first.clear();
            MoveGen::new(&Well::EMPTY).children(p, &mut first);
            for c in &first {
                for q in Piece::ALL {
                    second.clear();
                    MoveGen::new(&c.well).children(q, &mut second);
                    out.extend(second.iter().map(|d| Sample {
                        well: d.well,
                        target: d.well.row(19).count_ones() as f32 / 4.0,
                        group: 0,
                    }));
                }
            }
        }
        out
    }

    /// The samples a fit with `seed` holds out, in order.
    fn held_out(samples: &[Sample], seed: u64, share: f64) -> Vec<Sample> {
        samples
            .iter()
            .enumerate()
            .filter(|(i, _)| is_validation(seed, *i, share))
            .map(|(_, s)| *s)
            .collect()
    }

    /// A positional fit of a shared start is the fit of the start moved
    /// to the positional layout by hand, and it learns positional rows.
    #[test]
    fn a_positional_fit_starts_from_the_shared_net_with_zero_positional_rows() {
        let samples = samples();
        let start = Net::new(8, Layout::Shared, 0.0, 3).unwrap();
        let config = FitConfig {
            max_epochs: 2,
            positional: true,
            ..FitConfig::default()
        };
        let plain = FitConfig {
            positional: false,
            ..config
        };
        let fitted = fit(start.clone(), &samples, &config, 7, |_| {});
        let by_hand = fit(start.to_positional(), &samples, &plain, 7, |_| {});
        assert_eq!(fitted.net.layout, Layout::Positional);
        assert_eq!(fitted.net, by_hand.net);
        assert!(fitted.net.positional.iter().any(|&w| w != 0.0));
    }

    /// A blended fit is the start moved that share of the way to the
    /// plain fit, with its own validation loss: the slow twin is the two
    /// steps made by hand.
    #[test]
    fn a_blended_fit_is_the_start_moved_towards_the_plain_fit() {
        let samples = samples();
        let start = Net::new(8, Layout::Shared, 0.0, 3).unwrap();
        let plain = FitConfig {
            max_epochs: 3,
            ..FitConfig::default()
        };
        let blended = FitConfig {
            blend: 0.25,
            ..plain
        };
        let full = fit(start.clone(), &samples, &plain, 7, |_| {});
        let part = fit(start.clone(), &samples, &blended, 7, |_| {});
        assert_ne!(full.net, start);
        assert_eq!(part.net, start.towards(&full.net, 0.25));
        let losses = |f: &Fitted| -> Vec<(f64, f64)> {
            f.epochs
                .iter()
                .map(|e| (e.train_loss, e.validation_loss))
                .collect()
        };
        assert_eq!(losses(&part), losses(&full));
        let held = held_out(&samples, 7, plain.validation);
        assert_eq!(part.averaged_validation_loss, Some(part.net.loss(&held)));
    }

    /// The held-out order counts neighbouring held-out pairs of one group
    /// whose targets differ by more than the margin: the slow twin compares
    /// them one by one. The fit measures its start and its kept net.
    #[test]
    fn the_held_out_order_counts_neighbouring_pairs_of_one_group() {
        let mut samples = samples();
        for (i, s) in samples.iter_mut().enumerate() {
            s.group = (i / 50) as u32;
        }
        let start = Net::new(8, Layout::Shared, 0.0, 3).unwrap();
        let config = FitConfig {
            max_epochs: 2,
            ..FitConfig::default()
        };
        let fitted = fit(start.clone(), &samples, &config, 7, |_| {});
        let held = held_out(&samples, 7, config.validation);
        let by_hand = |net: &Net| {
            let (mut pairs, mut in_order) = (0, 0);
            for i in 1..held.len() {
                let (a, b) = (&held[i - 1], &held[i]);
                if a.group != b.group || (b.target - a.target).abs() <= ORDER_MARGIN {
                    continue;
                }
                pairs += 1;
                let (va, vb) = (net.value(&a.well), net.value(&b.well));
                if va != vb && (vb > va) == (b.target > a.target) {
                    in_order += 1;
                }
            }
            (pairs, in_order as f64 / pairs as f64)
        };
        let order = fitted.held_order.expect("a fit measures it");
        assert_eq!((order.pairs, order.start), by_hand(&start));
        assert_eq!((order.pairs, order.kept), by_hand(&fitted.net));
        assert!(order.pairs > 100, "{order:?}");
        assert!(order.kept > order.start, "{order:?}");
    }
}
