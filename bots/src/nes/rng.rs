//! The NES Tetris piece randomiser. (SplitMix64, for everything that is ours
//! rather than the game's, is [`crate::common::SplitMix64`].)
//!
//! # The game's randomiser
//!
//! The cartridge keeps a 16-bit linear-feedback shift register in RAM at `$0017`
//! (high byte) and `$0018` (low byte). One step computes
//! `feedback = bit 9 XOR bit 1` and then shifts the whole register right by one
//! with `feedback` entering at bit 15. The power-on value is `$8988`; from there
//! the register runs through a cycle of 32 767 states. [`Lfsr::step_slow`] keeps
//! the byte-by-byte form of the 6502 routine as the slow twin of [`Lfsr::step`].
//!
//! A new piece is picked from the spawn table `T J Z O S L I` (stored by orientation
//! id: `02 07 08 0A 0B 0E 12`):
//!
//! 1. increment the spawn counter (`$001A`, wraps at 256);
//! 2. `index = (high byte + counter) & 7`; if the index is not 7 and the piece at that
//!    index differs from the previous spawn id (`$0019`), take it;
//! 3. otherwise step the register once more and take
//!    `(high byte & 7 + previous spawn id) mod 7`. The previous spawn id is an
//!    orientation id (2, 7, 8, ...), not a table index: that quirk is kept.
//!
//! On the console the register also steps once per video frame, so the sequence
//! depends on how many frames each piece takes. The simulator has no frames; it
//! steps the register [`FRAMES_PER_PIECE`] times before each pick (assumption:
//! one step, the fewest the console can do between two picks).
//!
//! Rejected: a `rand` dependency (the crate must be deterministic across versions
//! and the generators are ten lines each).

use crate::common::SplitMix64;

/// The register's value at power-on.
pub const POWER_ON_SEED: u16 = 0x8988;

/// The spawn table, by orientation id, in the game's order `T J Z O S L I`.
pub const SPAWN_TABLE: [u8; 7] = [0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12];

/// Register steps the simulator makes before each pick (see the module doc).
pub const FRAMES_PER_PIECE: u32 = 1;

/// The 16-bit shift register at `$0017`/`$0018`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lfsr(pub u16);

impl Lfsr {
    /// One step of the register, as a 16-bit operation.
    #[inline]
    pub const fn step(self) -> Lfsr {
        let v = self.0;
        let feedback = ((v >> 9) ^ (v >> 1)) & 1;
        Lfsr((v >> 1) | (feedback << 15))
    }

    /// One step exactly as the 6502 routine does it: test bit 1 of each byte, then
    /// `ror` the high byte and the low byte through the carry. The slow twin of
    /// [`Lfsr::step`].
    pub fn step_slow(self) -> Lfsr {
        let mut hi = (self.0 >> 8) as u8;
        let mut lo = self.0 as u8;
        let mut carry = ((hi & 2) ^ (lo & 2)) != 0;
        for byte in [&mut hi, &mut lo] {
            let out = *byte & 1 != 0;
            *byte = (*byte >> 1) | ((carry as u8) << 7);
            carry = out;
        }
        Lfsr(u16::from(hi) << 8 | u16::from(lo))
    }

    /// The high byte (`$0017`), which is what the picker reads.
    #[inline]
    pub const fn high(self) -> u8 {
        (self.0 >> 8) as u8
    }
}

/// The full randomiser state: the register, the spawn counter and the last spawn id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Randomiser {
    /// The shift register (`$0017`/`$0018`).
    pub lfsr: Lfsr,
    /// The spawn counter (`$001A`).
    pub spawn_count: u8,
    /// The previous spawn, as an orientation id (`$0019`); 0 before the first pick.
    pub spawn_id: u8,
}

impl Randomiser {
    /// A randomiser whose register starts at `seed`. Zero is a fixed point of
    /// the register, and 1 steps to it (the feedback bits 9 and 1 are clear and
    /// the only set bit is shifted out), so both are replaced by the power-on
    /// value. No other seed reaches zero: one step drops bit 0, so the
    /// register's image after a step has 2^15 states, which are exactly the
    /// 32 767-state cycle and zero; a seed that does not step to zero is on
    /// the cycle from its first step on (a test checks every seed).
    pub const fn new(seed: u16) -> Randomiser {
        let seed = if Lfsr(seed).step().0 == 0 {
            POWER_ON_SEED
        } else {
            seed
        };
        Randomiser {
            lfsr: Lfsr(seed),
            spawn_count: 0,
            spawn_id: 0,
        }
    }

    /// A randomiser for game number `game_seed`: the register starts at a value
    /// drawn from SplitMix64, so different game seeds give different sequences.
    pub fn from_game_seed(game_seed: u64) -> Randomiser {
        let mut mix = SplitMix64::new(game_seed);
        Randomiser::new(mix.next_u64() as u16)
    }

    /// Picks the next piece the way the cartridge does (no frame steps) and
    /// returns its piece index 0..7 in the order `T J Z O S L I`.
    pub fn pick(&mut self) -> u8 {
        self.spawn_count = self.spawn_count.wrapping_add(1);
        let index = self.lfsr.high().wrapping_add(self.spawn_count) & 7;
        let chosen = if index != 7 && SPAWN_TABLE[index as usize] != self.spawn_id {
            index
        } else {
            self.lfsr = self.lfsr.step();
            ((self.lfsr.high() & 7) as u32 + self.spawn_id as u32) as u8 % 7
        };
        self.spawn_id = SPAWN_TABLE[chosen as usize];
        chosen
    }

    /// The simulator's pick: [`FRAMES_PER_PIECE`] frame steps, then [`Randomiser::pick`].
    pub fn next_piece(&mut self) -> u8 {
        for _ in 0..FRAMES_PER_PIECE {
            self.lfsr = self.lfsr.step();
        }
        self.pick()
    }
}
