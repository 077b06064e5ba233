//! SplitMix64 (Steele, Lea and Flood, 2014): 8 bytes of state, a fixed
//! output sequence for a seed on every platform, which the reproducible
//! `stats` and `train` figures rely on.

/// SplitMix64. 8 bytes of state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`), by multiply-shift of the top
    /// 32 bits (bias below 2^-32 for the small `n` used here).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// A uniform float in `[0, 1)` (53 random bits).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform float in `[lo, hi)`.
    #[inline]
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// The `index`-th output of SplitMix64(`seed`) (0-based): the seed of
    /// game `index` in a batch seeded `seed`. It is a jump, not a loop:
    /// the state after `index + 1` steps is `seed + (index + 1) · γ`.
    pub fn nth_output(seed: u64, index: u64) -> u64 {
        let mut r = SplitMix64(seed.wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        r.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nth_output_jumps_to_the_stepped_value() {
        let mut r = SplitMix64::new(42);
        for i in 0..100 {
            assert_eq!(SplitMix64::nth_output(42, i), r.next_u64());
        }
    }
}
