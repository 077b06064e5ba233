//! A game played key by key, exactly as the real game plays it.
//!
//! [`Game`] holds the 20-row board, the score, the enemy with its state and
//! the live piece. [`Game::press`] applies one key: `L`, `R` and `U` move or
//! rotate when the result fits and do nothing otherwise; `D` moves down when
//! it fits and otherwise locks the piece. After a lock, full rows of the
//! piece's box are cleared (only when the piece's top cell is at or below the
//! bar), and the game ends if anything is left above the bar. Otherwise the
//! enemy is asked for the next piece, which spawns at `x = 3, y = 0, o = 0`.
//! Keys pressed after the game ends are ignored.

use crate::enemy::{Enemy, EnemyKind};
use crate::key::Key;
use crate::piece::Piece;
use crate::place::lock_board;
use crate::reference::{fits, Pose};
use crate::well::{Board, Well, BAR, HEIGHT};

/// What one key press did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The piece moved or rotated.
    Moved,
    /// The move was blocked and did nothing.
    Blocked,
    /// The piece locked; the game goes on with a new piece.
    Locked {
        /// The piece that locked.
        piece: Piece,
        /// Lines it cleared.
        lines: u8,
    },
    /// The piece locked and the game is over.
    GameOver {
        /// The piece that locked.
        piece: Piece,
    },
    /// The game was already over; the key was ignored.
    Ignored,
}

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Game {
    board: Board,
    score: u32,
    enemy: Enemy,
    piece: Piece,
    pos: Pose,
    over: bool,
}

impl Game {
    /// A new game against `kind`, with the first piece already chosen.
    pub fn new(kind: EnemyKind) -> Game {
        let mut enemy = Enemy::new(kind);
        let piece = enemy.next_piece(&Well::EMPTY);
        Game {
            board: [0; HEIGHT],
            score: 0,
            enemy,
            piece,
            pos: Pose::SPAWN,
            over: false,
        }
    }

    /// The board (without the live piece).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Lines cleared so far.
    pub fn score(&self) -> u32 {
        self.score
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The live piece (or the one that ended the game).
    pub fn piece(&self) -> Piece {
        self.piece
    }

    /// The live piece's position.
    pub fn pose(&self) -> Pose {
        self.pos
    }

    /// The enemy and its state.
    pub fn enemy(&self) -> &Enemy {
        &self.enemy
    }

    /// The live well (only meaningful while the game is not over).
    pub fn well(&self) -> Well {
        Well::from_board_unchecked(&self.board)
    }

    /// Applies one key.
    pub fn press(&mut self, key: Key) -> Event {
        if self.over {
            return Event::Ignored;
        }
        let next = self.pos.moved(key);
        if fits(&self.board, self.piece, next) {
            self.pos = next;
            return Event::Moved;
        }
        if key != Key::D {
            return Event::Blocked;
        }
        let piece = self.piece;
        let lines = lock_board(
            &mut self.board,
            piece,
            self.pos.x,
            self.pos.y as usize,
            self.pos.o as usize,
        );
        self.score += lines as u32;
        if self.board[BAR - 1] != 0 {
            self.over = true;
            return Event::GameOver { piece };
        }
        self.piece = self.enemy.next_piece(&self.well());
        self.pos = Pose::SPAWN;
        Event::Locked { piece, lines }
    }
}
