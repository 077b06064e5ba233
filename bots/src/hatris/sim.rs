//! The Hatris rules: piles, landing, stacks of five, cash, helpers, levels.
//!
//! # Data layout
//!
//! A [`Pile`] is two fixed byte arrays: the hat ids from the bottom up and,
//! for each hat, the pile height once it landed (so selling the top five is
//! `len -= 5` and the height is read back, no recomputation). 129 bytes per
//! pile, 774 for the six. A [`Board`] adds the helper bars, the helper pool
//! (a stack of 8 bytes), the cash and the stack count; it is `Copy`, which is
//! what the bot clones per candidate (no heap). The [`Game`] wraps a board
//! with the hat generator, the frame counter, the level and the pair queue.
//!
//! # Where the hats can go
//!
//! A pair spawns above columns 2 and 3 at altitude [`SPAWN_ALTITUDE`]. While
//! no pile reaches that altitude (otherwise the game is over), the pair can
//! be slid over any two adjacent columns `(p, p + 1)` and the two hats can be
//! swapped: 5 × 2 placements. It drops until one hat meets a pile:
//!
//! - if the two piles are of equal height, both hats land;
//! - otherwise the hat over the taller pile lands, and the other is free at
//!   the altitude where that happened (the taller pile's old height). It can
//!   still slide, but only away from the column its partner took and only
//!   across piles strictly lower than that altitude; it lands on the pile
//!   where it is left. Both hats never end in the same column.
//!
//! The player can out-slide the fall (a hat needs many frames per pile
//! height), so reachability depends on heights only.
//!
//! # Assumptions where the article is silent
//!
//! - Game over: a pile whose height is at or above [`SPAWN_ALTITUDE`] (169,
//!   the altitude at which the spawn routine places new hats, `hatY = 169`).
//!   [`Rules::ceiling`] changes it, to measure how much this matters.
//! - A stack of five vanishes only when its fifth hat lands on top; piles
//!   never hold a run of more than four identical hats.
//! - Alexey removes up to five hats in all from the bottoms of any piles
//!   (the article: "remove up to 5 hats from the bottoms of any of the
//!   piles"; its bot "tries all possible ways"): a count per pile, the
//!   counts summing to 1 to 5 (summoning him to remove nothing is not
//!   offered; the article does not say whether the game allows it). The
//!   hats above drop and re-nest (heights are recomputed from the new
//!   bottom hat). Vladimir swaps any two piles.
//! - The helper pool is last in, first out, as the article describes it
//!   ("the last helper earned is the first helper that may be used"; its
//!   parenthesis says "FIFO", which contradicts the sentence, and the
//!   sentence is taken as the rule). A helper earned while the pool holds 8
//!   is lost.
//! - Sold stacks beyond the 15th in a level do not carry over.
//! - After each shop (levels 10, 20, ..., 50) the piles are cleared and
//!   `6 × shop` hats are dealt from randomizeHats, one row of six (three
//!   calls, one per frame) at a time, bottom row first. After level 59 the real game ends;
//!   the simulator keeps playing (no more refills) so that survival can be
//!   measured past the finish, as the article's statistics were.
//! - Frames between two spawns are drawn uniformly from 32 to 287 (only the
//!   count mod 256 reaches the one-byte frame counter, and this range covers
//!   each residue once); the frame at which the new game starts is uniform.
//!   [`Rules::frame_gap`] changes the range, to measure how much the timing
//!   model matters.

use super::hats::{base_height, nest, Hat, Helper, BAR_OF, CASH};
use super::prng::{Pair, Prng};
use crate::common::SplitMix64;

/// Number of piles.
pub const COLUMNS: usize = 6;
/// Altitude at which pairs spawn; a pile this tall ends the game.
pub const SPAWN_ALTITUDE: u8 = 169;
/// Hats a pile can hold. No legal pile gets near it (the flattest legal
/// nesting averages above 3 units a hat, so about 55 hats reach the spawn
/// altitude); a landing on a full pile counts as game over.
pub const PILE_CAPACITY: usize = 64;
/// Identical hats that make a stack which vanishes.
pub const STACK_LEN: usize = 5;
/// Stacks to sell per level when playing from the start.
pub const STACKS_PER_LEVEL: u32 = 15;
/// Levels in the game (shops 0 to 5, stages 0 to 9).
pub const LEVELS: u32 = 60;
/// Helpers the pool holds.
pub const POOL_CAPACITY: usize = 8;
/// Stacks that fill one helper bar.
pub const BAR_LENGTH: u8 = 5;
/// Most hats Alexey removes at once.
pub const ALEXEY_MAX: u8 = 5;

/// One pile: hat ids from the bottom up and the height after each hat.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pile {
    hats: [u8; PILE_CAPACITY],
    tops: [u8; PILE_CAPACITY],
    len: u8,
}

const _: () = assert!(std::mem::size_of::<Pile>() == 2 * PILE_CAPACITY + 1);

impl Default for Pile {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// The pile was full when a hat tried to land (counts as game over).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PileFull;

impl Pile {
    /// A pile with no hats.
    pub const EMPTY: Pile = Pile {
        hats: [0; PILE_CAPACITY],
        tops: [0; PILE_CAPACITY],
        len: 0,
    };

    /// A pile built by landing `hats` (bottom first) one by one, selling
    /// stacks of five as they form.
    pub fn from_hats(hats: &[Hat]) -> Result<Pile, PileFull> {
        let mut pile = Pile::EMPTY;
        for &h in hats {
            pile.land(h.id())?;
        }
        Ok(pile)
    }

    /// Number of hats.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when the pile holds no hat.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Height in units (0 when empty).
    #[inline]
    pub fn height(&self) -> u8 {
        if self.len == 0 {
            0
        } else {
            self.tops[self.len as usize - 1]
        }
    }

    /// Raw hat ids from the bottom up.
    #[inline]
    pub fn ids(&self) -> &[u8] {
        &self.hats[..self.len as usize]
    }

    /// Heights after each hat, bottom up.
    #[inline]
    pub fn tops(&self) -> &[u8] {
        &self.tops[..self.len as usize]
    }

    /// Raw id of the top hat, 0 when empty.
    #[inline]
    pub fn top(&self) -> u8 {
        if self.len == 0 {
            0
        } else {
            self.hats[self.len as usize - 1]
        }
    }

    /// Lands the hat with raw id `id`. Returns the id of a stack that
    /// vanished, if the landing completed five identical hats.
    #[inline]
    pub fn land(&mut self, id: u8) -> Result<Option<u8>, PileFull> {
        let n = self.len as usize;
        if n == PILE_CAPACITY {
            return Err(PileFull);
        }
        let height = if n == 0 {
            base_height(id)
        } else {
            self.tops[n - 1].saturating_add(nest(id, self.hats[n - 1]))
        };
        self.hats[n] = id;
        self.tops[n] = height;
        self.len += 1;
        let n = n + 1;
        if n >= STACK_LEN && self.hats[n - STACK_LEN..n].iter().all(|&h| h == id) {
            self.len -= STACK_LEN as u8;
            return Ok(Some(id));
        }
        Ok(None)
    }

    /// Removes the `count` bottom hats (all of them if fewer) and re-nests
    /// the rest from the new bottom hat up.
    pub fn remove_bottom(&mut self, count: usize) {
        let n = self.len as usize;
        let k = count.min(n);
        self.hats.copy_within(k..n, 0);
        self.len = (n - k) as u8;
        let mut height = 0u8;
        for i in 0..self.len as usize {
            let id = self.hats[i];
            height = if i == 0 {
                base_height(id)
            } else {
                height.saturating_add(nest(id, self.hats[i - 1]))
            };
            self.tops[i] = height;
        }
    }
}

/// The helper pool: a last-in, first-out stack of up to 8 helpers (the
/// article: "the last helper earned is the first helper that may be used").
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Pool {
    slots: [u8; POOL_CAPACITY],
    len: u8,
}

impl Pool {
    /// Number of helpers waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when no helper is waiting.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The helper that would be summoned next: the one earned last.
    #[inline]
    pub fn next_up(&self) -> Option<Helper> {
        if self.len == 0 {
            None
        } else {
            Some(helper_of(self.slots[self.len as usize - 1]))
        }
    }

    /// Adds a newly earned helper; returns false (and drops it) when full.
    pub fn push(&mut self, h: Helper) -> bool {
        if self.len as usize == POOL_CAPACITY {
            return false;
        }
        self.slots[self.len as usize] = h as u8;
        self.len += 1;
        true
    }

    /// Removes and returns the helper earned last.
    pub fn pop(&mut self) -> Option<Helper> {
        let h = self.next_up()?;
        self.len -= 1;
        Some(h)
    }

    /// Helpers from the one earned first to the one earned last.
    pub fn iter(&self) -> impl Iterator<Item = Helper> + '_ {
        self.slots[..self.len as usize]
            .iter()
            .map(|&b| helper_of(b))
    }
}

/// Calls `f` with every way Alexey can remove 1 to [`ALEXEY_MAX`] hats in
/// all, `counts[c] <= avail[c]` from pile `c`, in lexicographic order of
/// the counts (pile 0 first).
pub fn alexey_options(avail: [u8; COLUMNS], mut f: impl FnMut([u8; COLUMNS])) {
    fn go(
        c: usize,
        left: u8,
        avail: &[u8; COLUMNS],
        counts: &mut [u8; COLUMNS],
        f: &mut impl FnMut([u8; COLUMNS]),
    ) {
        if c == COLUMNS {
            if left < ALEXEY_MAX {
                f(*counts);
            }
            return;
        }
        for k in 0..=avail[c].min(left) {
            counts[c] = k;
            go(c + 1, left - k, avail, counts, f);
        }
        counts[c] = 0;
    }
    go(0, ALEXEY_MAX, &avail, &mut [0; COLUMNS], &mut f);
}

#[inline]
fn helper_of(b: u8) -> Helper {
    if b == Helper::Alexey as u8 {
        Helper::Alexey
    } else {
        Helper::Vladimir
    }
}

/// One turn's action: place the current pair, or summon the helper earned last
/// (the falling pair then vanishes).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Move {
    /// Hat `i` of the current pair ends in column `cols[i]`; hat `first`
    /// lands first (when both land together, hat 0 is listed first).
    Pair {
        /// Final column of each hat.
        cols: [u8; 2],
        /// Index (0 or 1) of the hat that lands first.
        first: u8,
        /// True when the pair split (only one hat met a pile).
        split: bool,
    },
    /// Alexey removes `counts[c]` hats from the bottom of each pile `c`
    /// (1 to 5 in all).
    Alexey {
        /// Hats removed from each pile.
        counts: [u8; COLUMNS],
    },
    /// Vladimir swaps piles `a < b`.
    Vladimir {
        /// Left pile.
        a: u8,
        /// Right pile.
        b: u8,
    },
}

/// Most pair placements in one turn: 5 slots × 2 orders, each giving one
/// landing or at most 5 columns for the free hat.
pub const MAX_PAIR_MOVES: usize = 50;
/// Alexey's options on piles of five or more hats each: ways to remove 1
/// to 5 hats in all from six piles, C(5 + 6, 6) − 1.
pub const MAX_ALEXEY_MOVES: usize = 461;
/// Most moves in one turn: the placements plus Alexey's options (more than
/// Vladimir's 15).
pub const MAX_MOVES: usize = MAX_PAIR_MOVES + MAX_ALEXEY_MOVES;

/// A fixed-capacity list of moves (no heap).
#[derive(Clone, Copy, Debug)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move::Vladimir { a: 0, b: 0 }; MAX_MOVES],
            len: 0,
        }
    }
}

impl MoveList {
    #[inline]
    fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

/// What one move did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Stacks sold (0 to 2).
    pub sold: u32,
    /// Cash earned.
    pub cash: u32,
    /// The move ended the game.
    pub over: bool,
}

/// Everything the bot needs to look ahead: piles, bars, pool, cash.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Board {
    /// The six piles, left to right.
    pub piles: [Pile; COLUMNS],
    /// Progress of the Alexey and Vladimir bars, 0 to 4.
    pub bars: [u8; 2],
    /// Helpers earned and not yet used.
    pub pool: Pool,
    /// Cash so far.
    pub cash: u64,
    /// Stacks sold so far.
    pub stacks: u64,
    /// A pile this tall ends the game ([`SPAWN_ALTITUDE`] unless the rules
    /// say otherwise).
    pub ceiling: u8,
}

impl Default for Board {
    fn default() -> Self {
        Board {
            piles: [Pile::EMPTY; COLUMNS],
            bars: [0; 2],
            pool: Pool::default(),
            cash: 0,
            stacks: 0,
            ceiling: SPAWN_ALTITUDE,
        }
    }
}

impl Board {
    /// Pile heights, left to right.
    #[inline]
    pub fn heights(&self) -> [u8; COLUMNS] {
        std::array::from_fn(|c| self.piles[c].height())
    }

    /// True when some pile is at or above the ceiling.
    #[inline]
    pub fn topped_out(&self) -> bool {
        self.piles.iter().any(|p| p.height() >= self.ceiling)
    }

    /// Appends every placement of `pair` to `out`.
    pub fn pair_moves(&self, pair: Pair, out: &mut MoveList) {
        let h = self.heights();
        let same = pair[0] == pair[1];
        for p in 0..COLUMNS - 1 {
            for swap in [false, true] {
                if swap && same {
                    continue;
                }
                // Hat index over the left column and over the right one.
                let (il, ir) = if swap { (1u8, 0u8) } else { (0u8, 1u8) };
                let (l, r) = (p, p + 1);
                if h[l] == h[r] {
                    let mut cols = [0u8; 2];
                    cols[il as usize] = l as u8;
                    cols[ir as usize] = r as u8;
                    out.push(Move::Pair {
                        cols,
                        first: 0,
                        split: false,
                    });
                    continue;
                }
                // The hat over the taller pile lands; the other is free.
                let (landed, lcol, free, fcol, step) = if h[l] > h[r] {
                    (il, l, ir, r, 1isize)
                } else {
                    (ir, r, il, l, -1isize)
                };
                let altitude = h[lcol];
                let mut c = fcol as isize;
                while (0..COLUMNS as isize).contains(&c) && h[c as usize] < altitude {
                    let mut cols = [0u8; 2];
                    cols[landed as usize] = lcol as u8;
                    cols[free as usize] = c as u8;
                    out.push(Move::Pair {
                        cols,
                        first: landed,
                        split: true,
                    });
                    c += step;
                }
            }
        }
    }

    /// Appends the options of the helper earned last, if any.
    pub fn helper_moves(&self, out: &mut MoveList) {
        match self.pool.next_up() {
            None => {}
            Some(Helper::Alexey) => {
                let lens =
                    std::array::from_fn(|c| self.piles[c].len().min(ALEXEY_MAX as usize) as u8);
                alexey_options(lens, |counts| out.push(Move::Alexey { counts }));
            }
            Some(Helper::Vladimir) => {
                for a in 0..COLUMNS {
                    for b in a + 1..COLUMNS {
                        out.push(Move::Vladimir {
                            a: a as u8,
                            b: b as u8,
                        });
                    }
                }
            }
        }
    }

    /// Every legal move for a turn whose falling pair is `pair`.
    pub fn moves(&self, pair: Pair) -> MoveList {
        let mut out = MoveList::default();
        self.pair_moves(pair, &mut out);
        self.helper_moves(&mut out);
        out
    }

    fn sell(&mut self, id: u8, out: &mut Outcome) {
        let i = id as usize - 1;
        out.sold += 1;
        out.cash += CASH[i];
        self.cash += u64::from(CASH[i]);
        self.stacks += 1;
        let bar = BAR_OF[i];
        let b = &mut self.bars[bar as usize];
        *b += 1;
        if *b == BAR_LENGTH {
            *b = 0;
            self.pool.push(bar);
        }
    }

    /// Plays `mv` (assumed to come from [`Board::moves`] for `pair`).
    pub fn apply(&mut self, pair: Pair, mv: Move) -> Outcome {
        let mut out = Outcome::default();
        match mv {
            Move::Pair { cols, first, .. } => {
                for i in [first as usize, 1 - first as usize] {
                    match self.piles[cols[i] as usize].land(pair[i].id()) {
                        Ok(Some(id)) => self.sell(id, &mut out),
                        Ok(None) => {}
                        Err(PileFull) => out.over = true,
                    }
                }
            }
            Move::Alexey { counts } => {
                self.pool.pop();
                for (pile, &k) in self.piles.iter_mut().zip(&counts) {
                    if k > 0 {
                        pile.remove_bottom(k as usize);
                    }
                }
            }
            Move::Vladimir { a, b } => {
                self.pool.pop();
                self.piles.swap(a as usize, b as usize);
            }
        }
        out.over |= self.topped_out();
        out
    }
}

/// Rule switches for a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Re-pick a pair whose two hats match (the real game does).
    pub repick: bool,
    /// Play like the article's simulator: six hat types from the start and
    /// no refill after a shop (levels are still counted).
    pub flat: bool,
    /// Game-over height: a pile this tall ends the game. Default
    /// [`SPAWN_ALTITUDE`] (169); other values measure how much the
    /// unpublished rule matters.
    pub ceiling: u8,
    /// Frames between two spawns, drawn uniformly from `min..=max`.
    /// Default 32 to 287 (see the module docs); other ranges measure how
    /// much the timing model matters to the hat sequence.
    pub frame_gap: (u16, u16),
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            repick: true,
            flat: false,
            ceiling: SPAWN_ALTITUDE,
            frame_gap: (32, 287),
        }
    }
}

/// What happened in one turn of a [`Game`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Turn {
    /// The board-level outcome.
    pub outcome: Outcome,
    /// A level was completed.
    pub level_up: bool,
    /// The piles were cleared and refilled after a shop.
    pub refilled: bool,
}

/// A whole game: board, generator, frame counter, level and pair queue.
#[derive(Clone, Debug)]
pub struct Game {
    /// Piles, bars, pool and cash.
    pub board: Board,
    /// The hat generator.
    pub prng: Prng,
    /// The one-byte frame counter ($0300).
    pub frame: u8,
    /// Level, 0-based (shop = level / 10, stage = level % 10).
    pub level: u32,
    /// Stacks sold in the current level.
    pub level_stacks: u32,
    /// The falling pair.
    pub current: Pair,
    /// The pair shown as next.
    pub next: Pair,
    /// Pairs spawned so far (the falling one included).
    pub spawns: u64,
    /// Spawns it took to complete level 59, if that happened.
    pub finished_at: Option<u64>,
    /// The game is over.
    pub over: bool,
    /// Helpers summoned.
    pub helpers_used: u64,
    rules: Rules,
    frames: SplitMix64,
}

impl Game {
    /// A new game from level 0; `seed` drives the frame counts only.
    pub fn new(seed: u64, rules: Rules) -> Game {
        let mut frames = SplitMix64::new(seed);
        let mut frame = frames.below(256) as u8;
        let mut prng = Prng::new_game();
        let (shop, stage) = Self::gen_level(0, rules);
        let first = prng.next_pair(&mut frame, shop, stage, rules.repick);
        let mut g = Game {
            board: Board {
                ceiling: rules.ceiling,
                ..Board::default()
            },
            prng,
            frame,
            level: 0,
            level_stacks: 0,
            current: first,
            next: first,
            spawns: 0,
            finished_at: None,
            over: false,
            helpers_used: 0,
            rules,
            frames,
        };
        g.spawn();
        g
    }

    /// The rules in force.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Shop (0 to 5) as the game shows it.
    pub fn shop(&self) -> u32 {
        (self.level / 10).min(5)
    }

    /// Stage (0 to 9).
    pub fn stage(&self) -> u32 {
        self.level % 10
    }

    fn gen_level(level: u32, rules: Rules) -> (u8, u8) {
        if rules.flat {
            (1, 0)
        } else {
            ((level / 10).min(5) as u8, (level % 10) as u8)
        }
    }

    /// The spawn routine: the next pair falls, a new next pair is picked.
    fn spawn(&mut self) {
        let (lo, hi) = self.rules.frame_gap;
        let delta = u32::from(lo) + self.frames.below(u32::from(hi.max(lo) - lo) + 1);
        self.frame = self.frame.wrapping_add(delta as u8);
        let (shop, stage) = Self::gen_level(self.level, self.rules);
        self.current = self.next;
        self.next = self
            .prng
            .next_pair(&mut self.frame, shop, stage, self.rules.repick);
        self.spawns += 1;
    }

    /// Legal moves for the falling pair.
    pub fn moves(&self) -> MoveList {
        self.board.moves(self.current)
    }

    /// Plays `mv` for the falling pair, then spawns the next one unless the
    /// game ended. `mv` must come from [`Game::moves`].
    pub fn play(&mut self, mv: Move) -> Turn {
        debug_assert!(!self.over);
        let outcome = self.board.apply(self.current, mv);
        if !matches!(mv, Move::Pair { .. }) {
            self.helpers_used += 1;
        }
        let mut turn = Turn {
            outcome,
            ..Turn::default()
        };
        if outcome.over {
            self.over = true;
            return turn;
        }
        self.level_stacks += outcome.sold;
        if self.level_stacks >= STACKS_PER_LEVEL {
            self.level_stacks = 0;
            self.level += 1;
            turn.level_up = true;
            if self.level == LEVELS && self.finished_at.is_none() {
                self.finished_at = Some(self.spawns);
            }
            if !self.rules.flat && self.level.is_multiple_of(10) && self.level < LEVELS {
                self.refill();
                turn.refilled = true;
            }
        }
        self.spawn();
        turn
    }

    /// Clears the piles and deals `6 × shop` hats, a row at a time.
    fn refill(&mut self) {
        let shop = self.shop() as usize;
        self.board.piles = [Pile::EMPTY; COLUMNS];
        for _ in 0..shop {
            for c in (0..COLUMNS).step_by(2) {
                // One call per frame: at a fixed frame the generator settles
                // on a fixed point within eight calls (see `prng`), which
                // would deal identical rows.
                self.frame = self.frame.wrapping_add(1);
                let (a, b) = self.prng.randomize(self.frame);
                // At shop 5 a pile gets five hats; five identical ones
                // vanish as a stack, unpaid (`land` handles it).
                let _ = self.board.piles[c].land(a);
                let _ = self.board.piles[c + 1].land(b);
            }
        }
    }
}
