//! The hat generator, ported from the 6502 listing in the article.
//!
//! # State
//!
//! Two bytes, `h1` ($0304) and `h2` ($0305), set to 63 and 133 when a new
//! game starts, plus the one-byte frame counter ($0300) that the NMI bumps
//! every frame since power-on. The frame counter is an input here: the
//! simulator owns it (see [`crate::hatris::sim`]).
//!
//! # randomizeHats ($88D8)
//!
//! ```text
//! A = frame ^ h1; ROR A; h1 = A        ; 9-bit rotate through carry
//! A = frame ^ h2; ROL A; h2 = A        ; carry now holds bit 0 of frame ^ h1
//! hat1 = h1 % 6 + 1;  hat2 = h2 % 6 + 1
//! ```
//!
//! The article's comments say "rotate right/left", but the 6502 `ROR A` and
//! `ROL A` rotate through the carry flag, and the listing has no `CLC`/`SEC`
//! before them, so the carry on entry matters. Following the listing:
//!
//! - the spawn routine reaches its `JSR $889E` right after a `SEC; SBC #$01;
//!   BNE` loop that exits on zero, so carry is set;
//! - the re-pick (`CMP $0081; BNE; JSR $889E`) runs only when the compare
//!   found equality, so carry is set;
//! - every re-roll inside pickHats jumps back after a `CMP` that found
//!   equality (`BEQ $889E`), so carry is set.
//!
//! Hence the carry entering the `ROR` is 1 on every call, which we model as a
//! constant ([`CARRY_IN`]). The one call we cannot see is the very first one
//! from the new-game routine ($8C92), which follows `JSR $B722`; we assume the
//! carry is set there too (stated again in the report). The `ROL` takes as
//! carry the bit the `ROR` shifted out.
//!
//! # pickHats ($889E)
//!
//! Loops over randomizeHats until the pair is allowed at the current level:
//! in shop 0 (level 0 to 9), stages 0 to 5 never show a crown, stages 0 to 2
//! never a wizard hat, stage 0 never a derby. From shop 1 on, the first pair
//! is accepted. All re-rolls happen within one frame, so the frame counter
//! is the same for every iteration.
//!
//! With the frame counter fixed, re-rolling cannot wander far: `h1 = 0x80 |
//! ((frame ^ h1) >> 1)` reaches a fixed point within eight calls, and then
//! `h2` does too (its carry-in becomes constant). So a rejected pair soon
//! repeats identically and only a new frame counter value ends the loop.
//! One randomizeHats plus the checks costs about 660 CPU cycles (the two
//! subtract-6 loops dominate) and a frame 29,780, so the NMI bumps the frame
//! counter after about 45 re-rolls; [`MAX_REROLLS_PER_FRAME`] models that
//! (the phase within the frame at which pickHats starts is unknowable here,
//! so this is an approximation). It matters only in levels 0 to 5, where
//! pairs can be rejected, and it guarantees that the loop ends.

//! # The re-pick
//!
//! The new-game routine and the spawn routine both call pickHats and, when
//! the two hats match, call it once more and keep the second result even if
//! it matches again. With [`Prng::next_pair`]'s `repick = false` the second
//! call is skipped: that is the article's first simulator, which lacked the
//! rule.

use super::hats::Hat;

/// `h1` after the new-game routine's `LDA #$3F; STA $0304`.
pub const SEED_H1: u8 = 63;
/// `h2` after the new-game routine's `LDA #$85; STA $0305`.
pub const SEED_H2: u8 = 133;
/// Carry flag entering `ROR A` at $88DE (derived above).
pub const CARRY_IN: bool = true;
/// Re-rolls after which the frame counter is assumed to have moved on
/// (29,780 cycles per frame / about 660 per re-roll); see the module docs.
pub const MAX_REROLLS_PER_FRAME: u32 = 45;

/// A pair of hats: `[hat1, hat2]` as the game stores them (hatType1 is the
/// left hat at spawn, hatType2 the right one).
pub type Pair = [Hat; 2];

/// The generator's two state bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prng {
    /// $0304.
    pub h1: u8,
    /// $0305.
    pub h2: u8,
}

impl Default for Prng {
    fn default() -> Self {
        Self::new_game()
    }
}

/// `ROR A` on the 6502: returns the result and the carry out.
#[inline]
const fn ror(a: u8, carry: bool) -> (u8, bool) {
    ((a >> 1) | ((carry as u8) << 7), a & 1 == 1)
}

/// `ROL A` on the 6502: returns the result and the carry out.
#[inline]
const fn rol(a: u8, carry: bool) -> (u8, bool) {
    ((a << 1) | carry as u8, a & 0x80 != 0)
}

/// `x % 6 + 1` the way the listing computes it: subtract 6 until it borrows.
#[inline]
const fn hat_of(mut x: u8) -> u8 {
    loop {
        let (next, borrow) = x.overflowing_sub(6);
        if borrow {
            return x + 1;
        }
        x = next;
    }
}

/// Is the raw pair `(a, b)` allowed in `shop`, `stage` (pickHats' checks)?
#[inline]
pub const fn allowed(a: u8, b: u8, shop: u8, stage: u8) -> bool {
    if shop != 0 || stage >= 6 {
        return true;
    }
    if a == 3 || b == 3 {
        return false; // crown before stage 6
    }
    if stage >= 3 {
        return true;
    }
    if a == 2 || b == 2 {
        return false; // wizard before stage 3
    }
    if stage != 0 {
        return true;
    }
    a != 5 && b != 5 // derby at stage 0
}

impl Prng {
    /// The state right after the new-game routine seeds it (63, 133).
    pub const fn new_game() -> Self {
        Prng {
            h1: SEED_H1,
            h2: SEED_H2,
        }
    }

    /// randomizeHats ($88D8): advances the state and returns the raw ids
    /// `(hat1, hat2)`, each 1 to 6.
    #[inline]
    pub fn randomize(&mut self, frame: u8) -> (u8, u8) {
        let (h1, carry) = ror(frame ^ self.h1, CARRY_IN);
        let (h2, _) = rol(frame ^ self.h2, carry);
        self.h1 = h1;
        self.h2 = h2;
        (hat_of(h1), hat_of(h2))
    }

    /// pickHats ($889E) at frame `*frame`, in `shop` (0 to 5) and `stage`
    /// (0 to 9): re-rolls until the pair is allowed. Advances `*frame` by
    /// one every [`MAX_REROLLS_PER_FRAME`] re-rolls.
    pub fn pick(&mut self, frame: &mut u8, shop: u8, stage: u8) -> Pair {
        let mut rolls = 0;
        loop {
            let (a, b) = self.randomize(*frame);
            if allowed(a, b, shop, stage) {
                return to_pair(a, b);
            }
            rolls += 1;
            if rolls == MAX_REROLLS_PER_FRAME {
                rolls = 0;
                *frame = frame.wrapping_add(1);
            }
        }
    }

    /// The new-game and spawn routines' sequence step: pickHats, and when
    /// `repick` is on and the hats match, pickHats once more.
    pub fn next_pair(&mut self, frame: &mut u8, shop: u8, stage: u8, repick: bool) -> Pair {
        let first = self.pick(frame, shop, stage);
        if repick && first[0] == first[1] {
            self.pick(frame, shop, stage)
        } else {
            first
        }
    }
}

#[inline]
fn to_pair(a: u8, b: u8) -> Pair {
    // `hat_of` only returns 1..=6.
    [Hat::ALL[a as usize - 1], Hat::ALL[b as usize - 1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hat_of_is_mod_six_plus_one() {
        for x in 0..=255u8 {
            assert_eq!(hat_of(x), x % 6 + 1);
        }
    }

    #[test]
    fn ror_and_rol_go_through_carry() {
        assert_eq!(ror(0x03, true), (0x81, true));
        assert_eq!(ror(0x02, false), (0x01, false));
        assert_eq!(rol(0xB9, true), (0x73, true));
        assert_eq!(rol(0x4F, true), (0x9F, false));
    }
}
