//! Mean and standard deviation, written once for the trainer (its targets'
//! spread, divisor n) and the tuner and `hatetris compare` (a fitness's
//! spread over the starts, divisor n − 1).
//!
//! It sits on the ground floor, next to [`crate::folder`], because both
//! `train` and `tune` use it and `tune` does not import `train`. The
//! divisor is the caller's explicit choice: each caller keeps the one its
//! files were written with, so the figures stay bit-identical.
//!
//! [`clustered_mean_se`] is the standard error of a mean over values that
//! come in correlated runs (the gate's positions five pieces apart in one
//! game, whose searches often die at the same piece): the values of a
//! cluster count as one draw.

/// What a variance divides the sum of squared deviations by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Divisor {
    /// n: the spread of these values themselves (the trainer's targets).
    Population,
    /// n − 1: an estimate of a larger population's spread from a sample
    /// (the fitness over its start wells); 0 for a single value.
    Sample,
}

/// The mean of `xs` and their standard deviation with `divisor`; `(0, 0)`
/// for no values.
pub fn mean_sd(xs: &[f64], divisor: Divisor) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let squares = || xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>();
    let sd = match divisor {
        Divisor::Population => (squares() / n).sqrt(),
        Divisor::Sample if xs.len() > 1 => (squares() / (n - 1.0)).sqrt(),
        Divisor::Sample => 0.0,
    };
    (mean, sd)
}

/// The mean of `xs` and its cluster-robust standard error, `clusters[i]`
/// naming the cluster of `xs[i]`: the spread of the clusters' sums about
/// their share of the mean, `√(K/(K−1) · Σₖ (Sₖ − nₖ·mean)²) / n` over K
/// clusters of nₖ values summing to Sₖ. With every value its own cluster it
/// is the sample standard deviation over √n; 0 for one cluster.
///
/// # Why
/// Values in one cluster that move together (two searches from starts
/// five pieces apart die at the same piece) carry less than one draw each,
/// and the plain standard error counts each as a draw: on the gate's 164
/// starts of the 366 game, two nets' paired differences correlate 0.26
/// from one start to the next, and over a gate's 185 positions the plain
/// error (1.63 pieces, `wz`'s generation 18) is 64 % of the error with one
/// game's starts within 50 pieces one cluster (2.54; `data/train/README.md`,
/// "The gate judged where its samples come from").
pub fn clustered_mean_se(xs: &[f64], clusters: &[usize]) -> (f64, f64) {
    assert_eq!(xs.len(), clusters.len(), "one cluster per value");
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let mut sums: Vec<(usize, f64)> = Vec::new();
    for (&x, &c) in xs.iter().zip(clusters) {
        match sums.iter_mut().find(|(id, _)| *id == c) {
            Some((_, s)) => *s += x - mean,
            None => sums.push((c, x - mean)),
        }
    }
    let k = sums.len() as f64;
    if sums.len() < 2 {
        return (mean, 0.0);
    }
    let squares: f64 = sums.iter().map(|(_, s)| s * s).sum();
    (mean, (k / (k - 1.0) * squares).sqrt() / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_divisor_is_n_or_n_minus_one() {
        let xs = [1.0, 2.0, 3.0, 6.0];
        let (mean, pop) = mean_sd(&xs, Divisor::Population);
        let (_, sample) = mean_sd(&xs, Divisor::Sample);
        assert_eq!(mean, 3.0);
        assert_eq!(pop, (14.0f64 / 4.0).sqrt());
        assert_eq!(sample, (14.0f64 / 3.0).sqrt());
        assert_eq!(mean_sd(&[5.0], Divisor::Sample), (5.0, 0.0));
        assert_eq!(mean_sd(&[], Divisor::Population), (0.0, 0.0));
    }

    #[test]
    fn clusters_of_one_give_the_plain_standard_error_and_moving_together_widens_it() {
        let xs = [1.0, 2.0, 3.0, 6.0, -1.0, 4.0];
        let (mean, sd) = mean_sd(&xs, Divisor::Sample);
        let (m, se) = clustered_mean_se(&xs, &[0, 1, 2, 3, 4, 5]);
        assert_eq!(m, mean);
        assert!((se - sd / 6f64.sqrt()).abs() < 1e-12);
        // The same values in pairs that move together: three draws, not six.
        let pairs = [2.0, 2.0, 5.0, 5.0, -1.0, -1.0];
        let (_, plain) = clustered_mean_se(&pairs, &[0, 1, 2, 3, 4, 5]);
        let (_, paired) = clustered_mean_se(&pairs, &[0, 0, 1, 1, 2, 2]);
        let three = mean_sd(&[2.0, 5.0, -1.0], Divisor::Sample).1 / 3f64.sqrt();
        assert!((paired - three).abs() < 1e-12);
        assert!(paired > plain);
        assert_eq!(clustered_mean_se(&[1.0, 3.0], &[7, 7]), (2.0, 0.0));
        assert_eq!(clustered_mean_se(&[], &[]), (0.0, 0.0));
    }
}
