//! Playing a replay, and turning a chain of wells back into keys: the one
//! forward pass that `replay from-wells` and the rebuilt games of
//! [`crate::run::keyframes`] share.

use crate::enemy::{Enemy, EnemyKind};
use crate::game::{Event, Game};
use crate::key::Key;
use crate::movegen::Outcome;
use crate::piece::Piece;
use crate::place::lines_cleared;
use crate::reference::key_path_to;
use crate::well::{board_cells, board_to_numbers, Board, Well, BAR};

/// One locked piece in a played game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// The piece the enemy gave.
    pub piece: Piece,
    /// Lines this lock cleared.
    pub lines: u8,
    /// Total score after this lock.
    pub score: u32,
    /// The board after this lock (its lines cleared).
    #[serde(skip)]
    pub board: Board,
}

impl Step {
    /// The filled cells of the board after this lock: 4 a piece less 10 a
    /// line from the empty well, so a game that clears less than 0.4 lines
    /// a piece fills its well (the record's own game holds about 72 after
    /// its first 100 pieces; `data/train/README.md`, "Probes of the
    /// width-100,000 wall").
    pub fn cells(&self) -> u32 {
        board_cells(&self.board)
    }
}

/// What a replay did.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Every lock, in order.
    pub steps: Vec<Step>,
    /// The board at the end.
    pub board: Board,
    /// The final score.
    pub score: u32,
    /// Whether the game ended.
    pub game_over: bool,
    /// Keys read before the game ended (the rest are ignored, as in the game).
    pub keys_used: usize,
}

/// Plays `keys` against `kind` exactly as the game does.
pub fn play(keys: &[Key], kind: EnemyKind) -> Trace {
    let mut game = Game::new(kind);
    let mut steps = Vec::new();
    let mut keys_used = 0;
    for &key in keys {
        match game.press(key) {
            Event::Ignored => break,
            Event::Locked { piece, lines } => steps.push(Step {
                piece,
                lines,
                score: game.score(),
                board: *game.board(),
            }),
            Event::GameOver { piece } => steps.push(Step {
                piece,
                lines: 0,
                score: game.score(),
                board: *game.board(),
            }),
            Event::Moved | Event::Blocked => {}
        }
        keys_used += 1;
    }
    Trace {
        steps,
        board: *game.board(),
        score: game.score(),
        game_over: game.is_over(),
        keys_used,
    }
}

/// Why a chain of wells could not be turned into keys.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// No placement of the enemy's piece turns one well into the next.
    #[error("step {step}: no placement of {piece} turns well {step_before} [{before}] into well {step} [{after}]")]
    NoPlacement {
        /// 1-based index of the well that could not be reached.
        step: usize,
        /// `step - 1`, for the message.
        step_before: usize,
        /// The piece the game gives there.
        piece: Piece,
        /// The well before, as its 20 row integers.
        before: String,
        /// The well wanted, as its 20 row integers.
        after: String,
    },
    /// The chain goes on after a well that ends the game.
    #[error("step {step}: the game is already over at well {step_before}, but the chain goes on")]
    AfterGameOver {
        /// 1-based index of the extra well.
        step: usize,
        /// The game-over well's index.
        step_before: usize,
    },
}

/// Turns a chain of wells, each the board after one more lock (the empty
/// starting well implied), into keys: for each step the piece the game
/// gives (history included) and a shortest key path to a placement that
/// produces the next well.
pub fn keys_from_wells(chain: &[Board], kind: EnemyKind) -> Result<Vec<Key>, LinkError> {
    link_wells(chain, kind).map(|linked| linked.keys)
}

/// A chain of wells played as the game plays it (see [`link_wells`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linked {
    /// The keys of the whole game.
    pub keys: Vec<Key>,
    /// The piece the enemy gave at each step.
    pub pieces: Vec<Piece>,
}

/// [`keys_from_wells`], also giving the piece of each step.
pub fn link_wells(chain: &[Board], kind: EnemyKind) -> Result<Linked, LinkError> {
    link_wells_from(&[0; crate::well::HEIGHT], Enemy::new(kind), chain)
}

/// [`link_wells`] from the well `start` of a game in progress, `enemy`
/// holding what the game before it left (the history HATETRIS counts):
/// steps are numbered from `start`, 1 the well after it.
pub fn link_wells_from(
    start: &Board,
    mut enemy: Enemy,
    chain: &[Board],
) -> Result<Linked, LinkError> {
    let mut pieces = Vec::with_capacity(chain.len());
    let mut keys = Vec::new();
    let mut prev: Board = *start;
    for (i, next) in chain.iter().enumerate() {
        let step = i + 1;
        if prev[BAR - 1] != 0 {
            return Err(LinkError::AfterGameOver {
                step,
                step_before: i,
            });
        }
        let piece = enemy.next_piece(&Well::from_board_unchecked(&prev));
        let path = link(&prev, piece, next).ok_or_else(|| LinkError::NoPlacement {
            step,
            step_before: i,
            piece,
            before: board_to_numbers(&prev),
            after: board_to_numbers(next),
        })?;
        keys.extend(path);
        pieces.push(piece);
        prev = *next;
    }
    Ok(Linked { keys, pieces })
}

/// A shortest key path placing `piece` in `before` to give `after`.
///
/// The lines cleared follow from the cell counts: a lock adds 4 cells and
/// each cleared line removes 10. A game-over lock clears nothing.
pub fn link(before: &Board, piece: Piece, after: &Board) -> Option<Vec<Key>> {
    let lines = lines_cleared(board_cells(before), 1, board_cells(after)).filter(|&l| l <= 4)?;
    key_path_to(
        before,
        piece,
        &Outcome {
            board: *after,
            lines: lines as u8,
        },
    )
}
