//! The net's tests: the forward pass against an f64 twin, the gradient
//! against finite differences, and Adam touching only the rows it should.

use super::*;
use crate::movegen::MoveGen;
use crate::nnue::adam::{AdamConfig, Trainer};
use crate::piece::Piece;

/// The forward pass in f64 from the f32 parameters: the finite
/// differences' twin (it shares no code with `value`).
fn value_f64(net: &Net, well: &Well) -> (f64, Vec<f64>) {
    let h = net.hidden;
    let p = features::patterns(well);
    let mut pre: Vec<f64> = net.bias.iter().map(|&b| f64::from(b)).collect();
    for (position, &pattern) in p.iter().enumerate() {
        let (s, q) = feature_rows(position, pattern);
        for (k, pre) in pre.iter_mut().enumerate() {
            *pre += f64::from(net.shared[s * h + k]);
            if net.layout == Layout::Positional {
                *pre += f64::from(net.positional[q * h + k]);
            }
        }
    }
    let mut y = f64::from(net.out_bias);
    for (w, p) in net.out.iter().zip(&pre) {
        y += f64::from(*w) * p.clamp(0.0, 1.0);
    }
    (y, pre)
}

/// The squared error plus `rank` times the mean pairwise ranking loss over
/// pairs of one group (the twin of `Net::gradient_ranked`'s loss).
fn loss_f64(net: &Net, batch: &[Sample], rank: f64) -> (f64, Vec<Vec<f64>>) {
    let mut sum = 0.0;
    let mut pres = Vec::new();
    let mut ys = Vec::new();
    for s in batch {
        let (y, pre) = value_f64(net, &s.well);
        sum += (y - f64::from(s.target)).powi(2);
        pres.push(pre);
        ys.push(y);
    }
    let mut pairs = Vec::new();
    for (i, a) in batch.iter().enumerate() {
        for (j, b) in batch.iter().enumerate() {
            if a.group == b.group && a.target > b.target {
                pairs.push((1.0 + (ys[j] - ys[i]).exp()).ln());
            }
        }
    }
    let ranking = match pairs.len() {
        0 => 0.0,
        n => rank * pairs.iter().sum::<f64>() / n as f64,
    };
    (sum / batch.len() as f64 + ranking, pres)
}

/// A few reachable wells, tall enough to have varied patterns.
fn batch() -> Vec<Sample> {
    let mut rng = Rng::new(7);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for i in 0..6 {
        let mut well = Well::EMPTY;
        for _ in 0..(8 + 4 * i) {
            buf.clear();
            let piece = Piece::from_index(rng.below(7));
            MoveGen::new(&well).children(piece, &mut buf);
            if buf.is_empty() {
                break;
            }
            well = buf[rng.below(buf.len())].well;
        }
        out.push(Sample {
            well,
            target: rng.symmetric(1.0),
            group: (i % 2) as u32,
        });
    }
    out
}

/// Which side of each kink every pre-activation is on.
fn regions(pres: &[Vec<f64>]) -> Vec<u8> {
    pres.iter()
        .flatten()
        .map(|&p| u8::from(p > 0.0) + u8::from(p >= 1.0))
        .collect()
}

/// Checks the analytic gradient of every parameter that has one
/// against central differences. Returns (checked, skipped at a kink).
fn check(net: &mut Net, rank: f32) -> (usize, usize) {
    let batch = batch();
    let mut grad = Gradient::new(net);
    net.gradient_ranked(&batch, rank, &mut grad);
    let rank = f64::from(rank);
    let (_, base) = loss_f64(net, &batch, rank);
    let base = regions(&base);
    let (mut checked, mut skipped) = (0, 0);
    let h = net.hidden;
    // Every parameter: (group, index, analytic gradient).
    let mut params: Vec<(u8, usize, f32)> = Vec::new();
    for &r in &grad.shared.touched {
        for k in 0..h {
            let i = r as usize * h + k;
            params.push((0, i, grad.shared.grad[i]));
        }
    }
    for &r in &grad.positional.touched {
        for k in 0..h {
            let i = r as usize * h + k;
            params.push((1, i, grad.positional.grad[i]));
        }
    }
    for k in 0..h {
        params.push((2, k, grad.bias[k]));
        params.push((3, k, grad.out[k]));
    }
    params.push((4, 0, grad.out_bias));
    // Untouched rows: the gradient is zero; a sample of them is checked.
    let mut rng = Rng::new(11);
    for _ in 0..200 {
        let r = rng.below(Layout::Shared.inputs());
        if !grad.shared.marked[r] {
            params.push((0, r * h + rng.below(h), 0.0));
        }
    }
    let step = 1e-3f32;
    for (group, i, analytic) in params {
        let slot: fn(&mut Net, usize) -> &mut f32 = match group {
            0 => |n, i| &mut n.shared[i],
            1 => |n, i| &mut n.positional[i],
            2 => |n, i| &mut n.bias[i],
            3 => |n, i| &mut n.out[i],
            _ => |n, _| &mut n.out_bias,
        };
        let x = *slot(net, i);
        let (up, down) = (x + step, x - step);
        *slot(net, i) = up;
        let (l_up, p_up) = loss_f64(net, &batch, rank);
        *slot(net, i) = down;
        let (l_down, p_down) = loss_f64(net, &batch, rank);
        *slot(net, i) = x;
        if regions(&p_up) != base || regions(&p_down) != base {
            skipped += 1;
            continue;
        }
        // In one linear region the squared error is quadratic in any
        // single parameter, so the central difference is exact but for
        // rounding (the ranking term's curvature adds O(step²)).
        let numeric = (l_up - l_down) / (f64::from(up) - f64::from(down));
        let tolerance = 1e-5 + 1e-3 * numeric.abs();
        assert!(
            (numeric - f64::from(analytic)).abs() <= tolerance,
            "group {group} index {i}: analytic {analytic}, numeric {numeric}"
        );
        checked += 1;
    }
    (checked, skipped)
}

/// A tiny net with weights large enough that units sit in all three
/// parts of the clamp.
fn tiny(layout: Layout) -> Net {
    let mut net = Net::new(4, layout, 0.0, 3).unwrap();
    let mut rng = Rng::new(5);
    for w in net.shared.iter_mut() {
        *w = rng.symmetric(0.05);
    }
    for w in net.positional.iter_mut() {
        *w = rng.symmetric(0.05);
    }
    for (k, b) in net.bias.iter_mut().enumerate() {
        *b = [-0.6, 0.2, 0.5, 1.3][k];
    }
    net
}

#[test]
fn every_gradient_matches_finite_differences() {
    for (layout, rank) in [
        (Layout::Shared, 0.0),
        (Layout::Positional, 0.0),
        (Layout::Shared, 0.7),
        (Layout::Positional, 0.7),
    ] {
        let mut net = tiny(layout);
        let (checked, skipped) = check(&mut net, rank);
        eprintln!("{layout:?}: {checked} parameters checked, {skipped} skipped at a kink");
        assert!(checked > 1000, "{layout:?}: only {checked} checked");
        assert!(
            skipped * 20 <= checked,
            "{layout:?}: {skipped} of {checked} skipped at a kink"
        );
        // Both sides of the clamp are exercised.
        let (_, pres) = loss_f64(&net, &batch(), 0.0);
        let r = regions(&pres);
        assert!(
            r.contains(&0) && r.contains(&1) && r.contains(&2),
            "{layout:?}"
        );
    }
}

#[test]
fn f32_forward_matches_its_f64_twin() {
    for layout in [Layout::Shared, Layout::Positional] {
        let net = tiny(layout);
        for s in batch() {
            let (y, _) = value_f64(&net, &s.well);
            assert!((f64::from(net.value(&s.well)) - y).abs() < 1e-5);
        }
    }
}

#[test]
fn adam_steps_only_touched_rows_and_is_deterministic() {
    let batch = batch();
    let run = || {
        let mut t = Trainer::new(
            Net::new(8, Layout::Shared, 0.0, 1).unwrap(),
            AdamConfig::default(),
        );
        let before = t.net().clone();
        let mut grad = Gradient::new(t.net());
        t.net().gradient(&batch, &mut grad);
        let touched: Vec<u32> = grad.shared.touched.clone();
        t.step(&batch);
        (before, t.into_net(), touched)
    };
    let (before, after, touched) = run();
    let h = before.hidden;
    for r in 0..Layout::Shared.inputs() {
        let row = |n: &Net| n.shared[r * h..(r + 1) * h].to_vec();
        if touched.contains(&(r as u32)) {
            // The first step moves every parameter with a non-zero
            // gradient by the learning rate (to within ε).
            for k in 0..h {
                let d = (after.shared[r * h + k] - before.shared[r * h + k]).abs();
                assert!(d == 0.0 || (d - 1e-3).abs() < 1e-5, "moved by {d}");
            }
        } else {
            assert_eq!(row(&before), row(&after));
        }
    }
    assert_eq!(run().1, after);
}

/// The held-out loss of a ranked fit is the loss its steps descend: the
/// f64 twin's, with and without the ranking term.
#[test]
fn ranked_loss_matches_its_f64_twin() {
    for rank in [0.0, 0.7, 10.0] {
        let net = tiny(Layout::Shared);
        let (want, _) = loss_f64(&net, &batch(), rank);
        let got = net.loss_ranked(&batch(), rank as f32);
        assert!(
            (got - want).abs() < 1e-5 * want.abs().max(1.0),
            "rank {rank}: {got} against {want}"
        );
    }
}

/// The average of one net is that net; of two, each weight's mean (so the
/// value of a net with no hidden unit active is the mean of the two).
#[test]
fn averaged_nets_take_each_weights_mean() {
    let a = tiny(Layout::Positional);
    assert_eq!(Net::average(std::slice::from_ref(&a)), a);
    let mut b = a.clone();
    for w in b
        .shared
        .iter_mut()
        .chain(&mut b.positional)
        .chain(&mut b.bias)
        .chain(&mut b.out)
    {
        *w += 1.0;
    }
    b.out_bias += 2.0;
    let m = Net::average(&[a.clone(), b]);
    for (x, y) in m
        .shared
        .iter()
        .zip(&a.shared)
        .chain(m.positional.iter().zip(&a.positional))
    {
        assert!((*x - (*y + 0.5)).abs() < 1e-5, "{x} against {y} + 0.5");
    }
    assert!((m.out_bias - (a.out_bias + 1.0)).abs() < 1e-5);
}

/// A blend's ends are its nets, and halfway is the two nets' average: the
/// slow twin of [`Net::towards`].
#[test]
fn a_blend_runs_from_one_net_to_the_other() {
    let a = tiny(Layout::Positional);
    let mut b = a.clone();
    for (i, w) in b
        .shared
        .iter_mut()
        .chain(&mut b.positional)
        .chain(&mut b.bias)
        .chain(&mut b.out)
        .enumerate()
    {
        *w += (i % 7) as f32 - 3.0;
    }
    b.out_bias -= 1.5;
    b.line_weight += 0.25;
    assert_eq!(a.towards(&b, 0.0), a);
    assert_eq!(a.towards(&b, 1.0), b);
    let half = a.towards(&b, 0.5);
    let mean = Net::average(&[a.clone(), b.clone()]);
    for (x, y) in half
        .shared
        .iter()
        .chain(&half.positional)
        .chain(&half.bias)
        .chain(&half.out)
        .zip(
            mean.shared
                .iter()
                .chain(&mean.positional)
                .chain(&mean.bias)
                .chain(&mean.out),
        )
    {
        assert!((x - y).abs() < 1e-6, "{x} against {y}");
    }
    assert!((half.out_bias - mean.out_bias).abs() < 1e-6);
    assert!((half.line_weight - (a.line_weight + 0.125)).abs() < 1e-12);
}

/// A shared net moved to the positional layout is the same function, in
/// f32 and quantised: its positional rows are zero until a fit moves them.
#[test]
fn a_shared_net_in_the_positional_layout_values_every_well_alike() {
    let shared = tiny(Layout::Shared);
    let positional = shared.to_positional();
    assert_eq!(positional.layout, Layout::Positional);
    assert_eq!(positional.positional.len(), Layout::Positional.inputs() * 4);
    assert_eq!(positional.to_positional(), positional);
    let quantised =
        |net: &Net| crate::nnue::NetEvaluator::new(crate::nnue::QuantNet::from_net(net).unwrap());
    let (a, b) = (quantised(&shared), quantised(&positional));
    for s in batch() {
        assert_eq!(shared.value(&s.well), positional.value(&s.well));
        assert_eq!(a.value(&s.well), b.value(&s.well));
    }
}

/// A widened net is the same function, in f32 and quantised, in both
/// layouts: its old units keep their weights, its new ones are drawn from
/// the seed and weigh nothing until a fit moves them, and a fit does move
/// them.
#[test]
fn a_widened_net_values_every_well_alike_until_a_fit_moves_its_new_units() {
    let quantised =
        |net: &Net| crate::nnue::NetEvaluator::new(crate::nnue::QuantNet::from_net(net).unwrap());
    for layout in [Layout::Shared, Layout::Positional] {
        let narrow = tiny(layout);
        let wide = narrow.widened(20, 9).unwrap();
        assert_eq!((wide.hidden, wide.layout), (20, layout));
        assert_eq!(wide, narrow.widened(20, 9).unwrap());
        assert_ne!(wide, narrow.widened(20, 10).unwrap());
        assert_eq!(narrow.widened(4, 9).unwrap(), narrow);
        assert_eq!(wide.widened(8, 9).unwrap(), wide);
        let row = |net: &Net, r: usize| net.shared[r * net.hidden..][..net.hidden].to_vec();
        assert_eq!(row(&wide, 7)[..4], row(&narrow, 7)[..]);
        assert!(row(&wide, 7)[4..]
            .iter()
            .all(|w| w.abs() <= INIT_TABLE && *w != 0.0));
        assert!(wide.positional.iter().enumerate().all(|(i, &w)| {
            let (r, k) = (i / 20, i % 20);
            w == if k < 4 {
                narrow.positional[r * 4 + k]
            } else {
                0.0
            }
        }));
        assert_eq!(&wide.out[4..], &[0.0; 16]);
        let (a, b) = (quantised(&narrow), quantised(&wide));
        for s in batch() {
            assert_eq!(narrow.value(&s.well), wide.value(&s.well));
            assert_eq!(a.value(&s.well), b.value(&s.well));
        }
        let mut trainer = Trainer::new(wide.clone(), AdamConfig::default());
        for _ in 0..3 {
            trainer.step(&batch());
        }
        let moved = trainer.into_net();
        assert!(moved.out[4..].iter().any(|&w| w != 0.0));
        let new_unit_moved = |(i, (a, b)): (usize, (&f32, &f32))| i % 20 >= 4 && a != b;
        assert!(moved
            .shared
            .iter()
            .zip(&wide.shared)
            .enumerate()
            .any(new_unit_moved));
    }
    assert!(tiny(Layout::Shared).widened(MAX_HIDDEN + 1, 9).is_err());
}
