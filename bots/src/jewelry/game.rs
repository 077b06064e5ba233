//! A whole Magic Jewelry game: the well, the column dealer, the counters.
//!
//! Columns are dealt from SplitMix64 seeded by the game seed, each jewel
//! uniform over the six colours; with `wild_every = n > 0`, every `n`-th
//! column is a wild one instead (the article does not give the real rule).

use super::board::{Board, Column, Settle, COLOURS, WILD};
use super::bot::{Bot, Placement};
use crate::common::SplitMix64;

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Game {
    /// The well.
    pub board: Board,
    /// The falling column.
    pub current: Column,
    /// The column shown as next.
    pub next: Column,
    /// Columns locked so far.
    pub columns: u64,
    /// Jewels cleared so far (X's included).
    pub cleared: u64,
    /// The game is over.
    pub over: bool,
    wild_every: u64,
    dealt: u64,
    rng: SplitMix64,
}

impl Game {
    /// A new game; `wild_every = 0` deals no wild columns.
    pub fn new(seed: u64, wild_every: u64) -> Game {
        let mut g = Game {
            board: Board::new(),
            current: [1; 3],
            next: [1; 3],
            columns: 0,
            cleared: 0,
            over: false,
            wild_every,
            dealt: 0,
            rng: SplitMix64::new(seed),
        };
        g.current = g.deal();
        g.next = g.deal();
        g
    }

    fn deal(&mut self) -> Column {
        self.dealt += 1;
        if self.wild_every > 0 && self.dealt.is_multiple_of(self.wild_every) {
            return [WILD; 3];
        }
        std::array::from_fn(|_| 1 + self.rng.below(u32::from(COLOURS)) as u8)
    }

    /// Locks the falling column at `p` (from the bot or
    /// [`super::bot::placements`]) and deals the next one.
    pub fn play(&mut self, p: Placement) -> Settle {
        let s = self.board.drop_column(p.x as usize, p.order);
        self.columns += 1;
        self.cleared += u64::from(s.cleared);
        if s.over {
            self.over = true;
        } else {
            self.current = self.next;
            self.next = self.deal();
        }
        s
    }

    /// Lets `bot` play one column; returns `None` when the game is over or
    /// no column can spawn.
    pub fn step(&mut self, bot: &Bot) -> Option<(Placement, Settle)> {
        if self.over {
            return None;
        }
        match bot.choose(&self.board, self.current, self.next) {
            Some(p) => Some((p, self.play(p))),
            None => {
                self.over = true;
                None
            }
        }
    }
}
