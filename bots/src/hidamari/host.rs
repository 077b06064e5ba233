//! Hidamari as a [`Host`], and the bot driving any such host.
//!
//! Hidamari is not a console game, so there is no public RAM map to follow; the
//! simulator exposes a small memory map of its own, laid out the way the bit board
//! is stored:
//!
//! | address | bytes | meaning |
//! |---|---|---|
//! | `$00-$2B` | 44 | the 22 playfield rows, `u16` little-endian, wall bits included |
//! | `$2C` | 1 | current piece (0..7, `I O T S Z J L`) |
//! | `$2D` | 1 | preview piece |
//! | `$2E` | 1 | box column of the falling piece (`i8`) |
//! | `$2F` | 1 | rotation state of the falling piece |
//! | `$30` | 1 | 1 when the game is over |
//! | `$31-$34` | 4 | lines cleared, `u32` little-endian |
//!
//! Buttons, acting when newly pressed: `A` turns clockwise, `B` counter-clockwise,
//! `Left`/`Right` shift one column, `Up` hard-drops and locks. The piece stays in
//! the spawn row until it is dropped.

use super::search::Bot;
use super::sim::{Board, Drop, Game, HEIGHT, SHAPES, SPAWN_X};
use crate::host::{Buttons, Host, HostError};

/// Address of the first playfield row.
pub const ROWS: u16 = 0x00;
/// Address of the current piece.
pub const CURRENT: u16 = 0x2C;
/// Address of the preview piece.
pub const NEXT: u16 = 0x2D;
/// Address of the falling piece's box column.
pub const X: u16 = 0x2E;
/// Address of the falling piece's rotation state.
pub const STATE: u16 = 0x2F;
/// Address of the game-over flag.
pub const OVER: u16 = 0x30;
/// Address of the line count.
pub const LINES: u16 = 0x31;

/// The Hidamari simulator behind the memory map above.
pub struct HidamariHost {
    /// The game.
    pub game: Game,
    mem: [u8; 0x40],
    state: u8,
    x: i8,
    held: Buttons,
    before: Buttons,
    frames: u64,
}

impl HidamariHost {
    /// A host for a game seed.
    pub fn new(seed: u64) -> HidamariHost {
        let mut h = HidamariHost {
            game: Game::new(seed),
            mem: [0; 0x40],
            state: 0,
            x: SPAWN_X,
            held: Buttons::NONE,
            before: Buttons::NONE,
            frames: 0,
        };
        h.write_mem();
        h
    }

    fn write_mem(&mut self) {
        for (r, row) in self.game.board.rows[..HEIGHT].iter().enumerate() {
            self.mem[2 * r..2 * r + 2].copy_from_slice(&row.to_le_bytes());
        }
        self.mem[CURRENT as usize] = self.game.current;
        self.mem[NEXT as usize] = self.game.next;
        self.mem[X as usize] = self.x as u8;
        self.mem[STATE as usize] = self.state;
        self.mem[OVER as usize] = u8::from(self.game.over);
        self.mem[LINES as usize..LINES as usize + 4]
            .copy_from_slice(&self.game.lines.to_le_bytes());
    }
}

impl Host for HidamariHost {
    fn peek(&self, addr: u16) -> u8 {
        self.mem.get(addr as usize).copied().unwrap_or(0)
    }

    fn set_buttons(&mut self, buttons: Buttons) {
        self.held = buttons;
    }

    fn step_frame(&mut self) -> Result<(), HostError> {
        self.frames += 1;
        let pressed = self.held.pressed_since(self.before);
        self.before = self.held;
        if !self.game.over {
            let (b, p) = (self.game.board, self.game.current);
            let cw = (self.state + 1) % 4;
            let ccw = (self.state + 3) % 4;
            if pressed.contains(Buttons::A) && b.fits(p, cw, self.x, 0) {
                self.state = cw;
            }
            if pressed.contains(Buttons::B) && b.fits(p, ccw, self.x, 0) {
                self.state = ccw;
            }
            if pressed.contains(Buttons::LEFT)
                && self.x > -3
                && b.fits(p, self.state, self.x - 1, 0)
            {
                self.x -= 1;
            }
            if pressed.contains(Buttons::RIGHT)
                && self.x < 9
                && b.fits(p, self.state, self.x + 1, 0)
            {
                self.x += 1;
            }
            if pressed.contains(Buttons::UP) {
                let y = b.hard_drop(p, self.state, self.x, 0);
                self.game.play(Drop {
                    state: self.state,
                    x: self.x,
                    y,
                });
                self.state = 0;
                self.x = SPAWN_X;
            }
        }
        self.write_mem();
        Ok(())
    }

    fn frames(&self) -> u64 {
        self.frames
    }
}

/// Reads the well from a host's memory map.
pub fn read_board(host: &impl Host) -> Board {
    let mut b = Board::EMPTY;
    let mut bytes = [0u8; 2 * HEIGHT];
    host.peek_into(ROWS, &mut bytes);
    for (r, pair) in bytes.chunks_exact(2).enumerate() {
        b.rows[r] = u16::from_le_bytes([pair[0], pair[1]]);
    }
    b
}

/// Drives the bot on a host until the game ends or a limit is reached; returns
/// (pieces placed, lines read from memory).
pub fn run(
    host: &mut impl Host,
    bot: &mut Bot,
    max_pieces: u32,
    max_frames: u64,
) -> Result<(u32, u32), HostError> {
    let mut plan: Option<Drop> = None;
    let mut last = Buttons::NONE;
    let mut pieces = 0;
    while pieces < max_pieces && host.frames() < max_frames && host.peek(OVER) == 0 {
        let (current, next) = (host.peek(CURRENT), host.peek(NEXT));
        if plan.is_none() {
            plan = bot.choose(&read_board(host), current, next);
        }
        let Some(d) = plan else { break };
        let (state, x) = (host.peek(STATE), host.peek(X) as i8);
        // States that are the same shape (I, S, Z: 2 = 0, 3 = 1) count as reached.
        let same = SHAPES[current as usize][state as usize % 4]
            == SHAPES[current as usize][d.state as usize];
        let wanted = if state != d.state && !same {
            if (d.state + 4 - state) % 4 == 3 {
                Buttons::B
            } else {
                Buttons::A
            }
        } else if x > d.x {
            Buttons::LEFT
        } else if x < d.x {
            Buttons::RIGHT
        } else {
            Buttons::UP
        };
        let buttons = if last == wanted {
            Buttons::NONE
        } else {
            wanted
        };
        if buttons == Buttons::UP {
            plan = None;
            pieces += 1;
        }
        host.set_buttons(buttons);
        last = buttons;
        host.step_frame()?;
    }
    let mut lines = [0u8; 4];
    host.peek_into(LINES, &mut lines);
    Ok((pieces, u32::from_le_bytes(lines)))
}
