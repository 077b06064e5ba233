//! The NES Tetris bot driving any [`Host`] through the cartridge's RAM and the
//! controller, as the article's Lua script drives FCEUX.
//!
//! Each frame the driver reads `playState`. While it is 1 (the player has a
//! piece) and there is no plan yet, it reads the well, the falling piece and the
//! preview from RAM and asks [`super::bot::choose`] for a placement. It then taps
//! `A`/`B` (the short way round) until the orientation matches, taps
//! `Left`/`Right` until the column matches, and holds `Down` until the piece locks.
//! A tap is one frame pressed and one released, because the cartridge acts on
//! newly pressed buttons. When `playState` leaves 1 the piece has locked: the plan
//! is dropped and the piece counted. `playState` 10 or leaving `gameMode` 4 ends
//! the game.
//!
//! From power-on, [`run_from_power_on`] taps Start through the legal, title and
//! game-type screens, taps Right `level` times on the level menu, then Start.
//!
//! The driver only reads memory and presses buttons, so it runs unchanged on the
//! simulator ([`super::ramsim::RamSim`], the tests' mock bus) and on the
//! emulator.

use std::fmt;

use super::bot::{choose, Weights};
use super::ram;
use super::sim::{Placement, GROUP_LEN, GROUP_START, ORIENTATIONS, PIECE_OF};
use crate::host::{Buttons, Host, HostError};

/// What a driven game came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// Pieces the driver placed.
    pub pieces: u32,
    /// Lines, read from RAM.
    pub lines: u32,
    /// Score, read from RAM (six digits).
    pub score: u32,
    /// Frames run.
    pub frames: u64,
    /// Whether the game ended by topping out (otherwise a limit stopped it).
    pub topped_out: bool,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pieces {} lines {} score {} frames {} end {}",
            self.pieces,
            self.lines,
            self.score,
            self.frames,
            if self.topped_out { "top-out" } else { "limit" }
        )
    }
}

/// The button to tap next to bring orientation `from` to `to` the short way.
fn turn_button(from: u8, to: u8) -> Buttons {
    let piece = PIECE_OF[from as usize] as usize;
    let len = GROUP_LEN[piece];
    let start = GROUP_START[piece];
    let k = (to + len - start - (from - start)) % len;
    if k <= len / 2 {
        Buttons::A
    } else {
        Buttons::B
    }
}

/// Plays from the current frame (the game already running) until it ends, `max_pieces`
/// pieces are placed, or `max_frames` frames have run.
pub fn run_game(
    host: &mut impl Host,
    w: &Weights,
    max_pieces: u32,
    max_frames: u64,
) -> Result<Report, HostError> {
    let mut plan: Option<Placement> = None;
    let mut last = Buttons::NONE;
    let mut pieces = 0;
    let mut topped_out = false;
    while pieces < max_pieces && host.frames() < max_frames {
        let state = host.peek(ram::PLAY_STATE);
        if state == ram::PLAY_STATE_GAME_OVER || host.peek(ram::GAME_MODE) != ram::GAME_MODE_PLAY {
            topped_out = true;
            break;
        }
        let mut buttons = Buttons::NONE;
        if state != ram::PLAY_STATE_ACTIVE {
            if plan.take().is_some() {
                pieces += 1;
            }
        } else {
            let o = host.peek(ram::CURRENT_PIECE);
            let next = host.peek(ram::NEXT_PIECE);
            if plan.is_none() && (o as usize) < ORIENTATIONS && (next as usize) < ORIENTATIONS {
                let board = ram::read_board(host);
                plan = choose(
                    &board,
                    PIECE_OF[o as usize],
                    Some(PIECE_OF[next as usize]),
                    w,
                )
                .map(|(p, _)| p);
            }
            if let Some(p) = plan {
                let x = host.peek(ram::TETRIMINO_X) as i8;
                let wanted = if o != p.orientation && (o as usize) < ORIENTATIONS {
                    turn_button(o, p.orientation)
                } else if x > p.x {
                    Buttons::LEFT
                } else if x < p.x {
                    Buttons::RIGHT
                } else {
                    Buttons::DOWN
                };
                // Taps need a released frame in between; Down is held.
                buttons = if wanted != Buttons::DOWN && last == wanted {
                    Buttons::NONE
                } else {
                    wanted
                };
            }
        }
        host.set_buttons(buttons);
        last = buttons;
        host.step_frame()?;
    }
    host.set_buttons(Buttons::NONE);
    Ok(Report {
        pieces,
        lines: ram::read_lines(host),
        score: ram::read_score(host),
        frames: host.frames(),
        topped_out,
    })
}

/// From power-on: through the menus to a game at `level` (0..=9), then [`run_game`].
pub fn run_from_power_on(
    host: &mut impl Host,
    w: &Weights,
    level: u8,
    max_pieces: u32,
    max_frames: u64,
) -> Result<Report, HostError> {
    let mut rights = 0;
    let mut t = 0u64;
    loop {
        if host.frames() >= max_frames {
            return Err(HostError::Timeout {
                what: "a game in play",
                frames: host.frames(),
            });
        }
        let mode = host.peek(ram::GAME_MODE);
        if mode == ram::GAME_MODE_PLAY && host.peek(ram::PLAY_STATE) == ram::PLAY_STATE_ACTIVE {
            break;
        }
        t += 1;
        // One press every eight frames gives every screen time to settle.
        let buttons = if !t.is_multiple_of(8) || mode == ram::GAME_MODE_PLAY {
            Buttons::NONE
        } else if mode == ram::GAME_MODE_LEVEL_MENU && rights < level {
            rights += 1;
            Buttons::RIGHT
        } else {
            Buttons::START
        };
        host.set_buttons(buttons);
        host.step_frame()?;
    }
    run_game(host, w, max_pieces, max_frames)
}
