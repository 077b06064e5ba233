//! Mean and standard deviation, written once for the trainer (its targets'
//! spread, divisor n) and the tuner and `hatetris compare` (a fitness's
//! spread over the starts, divisor n − 1).
//!
//! It sits on the ground floor, next to [`crate::folder`], because both
//! `train` and `tune` use it and `tune` does not import `train`. The
//! divisor is the caller's explicit choice: each caller keeps the one its
//! files were written with, so the figures stay bit-identical.

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
}
