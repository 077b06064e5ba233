//! Counting the distinct children of a depth, in fixed memory.
//!
//! An exact count would keep a hash of every child (about 18 per beam entry,
//! 8 bytes each: more than the whole beam). The log only needs a rate, so a
//! HyperLogLog++ sketch (the `hyperloglogplus` crate) estimates it in about
//! 12 KB per thread, within about 1% (precision 14; exact for small counts,
//! where the sketch is sparse). Threads keep their own sketch and merge them
//! at the end, and the hash is fixed, so the estimate is the same whatever
//! the thread count.

use std::hash::{BuildHasher, Hasher};

use hyperloglogplus::{HyperLogLog, HyperLogLogPlus};

/// Precision: 2^14 registers.
const PRECISION: u8 = 14;

/// Mixes the already well-spread 64-bit well hash once more (the splitmix64
/// finalizer), so every bit the sketch reads is uniform.
#[derive(Default)]
pub struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        super::ancestry::mix64(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

/// Builds a [`Mix`]: `BuildHasherDefault<Mix>` but serialisable, so a
/// sketch can travel between the processes of a sharded search
/// ([`crate::distributed`]).
#[derive(Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct BuildMix;

impl BuildHasher for BuildMix {
    type Hasher = Mix;

    fn build_hasher(&self) -> Mix {
        Mix::default()
    }
}

/// An estimate of how many distinct well hashes were seen.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Distinct(HyperLogLogPlus<u64, BuildMix>);

impl Default for Distinct {
    fn default() -> Self {
        Distinct(HyperLogLogPlus::new(PRECISION, BuildMix).expect("precision 14 is supported"))
    }
}

impl Distinct {
    /// Notes one well hash.
    #[inline]
    pub fn insert(&mut self, hash: u64) {
        self.0.insert(&hash);
    }

    /// Adds everything `other` saw.
    pub fn merge(&mut self, other: &Distinct) {
        self.0
            .merge(&other.0)
            .expect("sketches share their precision");
    }

    /// The estimate.
    pub fn count(&mut self) -> u64 {
        self.0.count().round() as u64
    }
}
