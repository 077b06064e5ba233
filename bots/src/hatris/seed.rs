//! SplitMix64: the small seedable generator behind every "random" choice the
//! real games leave to the player or the hardware (frame counts between
//! spawns, Magic Jewelry's colours, training's weight steps).
//!
//! It lives here because both part-1 games need it and `lib.rs` is not ours
//! to change; [`crate::jewelry`] imports it from this module. SplitMix64 was
//! picked over an external crate: eight lines, no dependency, and a fixed
//! output sequence for a seed on every platform, which the reproducible
//! `stats` figures rely on.

/// SplitMix64 (Steele, Lea and Flood, 2014). 8 bytes of state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`), by multiply-shift (bias below
    /// 2^-32 for the small `n` used here).
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
