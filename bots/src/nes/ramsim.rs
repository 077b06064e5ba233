//! The simulator behind the cartridge's RAM map: a [`Host`] whose memory holds the
//! simulated game at the addresses of [`super::ram`] and whose buttons move the
//! piece frame by frame. It is the mock bus the emulator driver is tested on, and
//! the simulator's own implementation of [`Host`].
//!
//! Per frame, with the buttons newly pressed since the last frame: `A` turns
//! clockwise, `B` counter-clockwise, `Left`/`Right` shift one column (no
//! auto-repeat), all only if the result fits; while `Down` is held the piece falls
//! one row per frame and locks when it cannot. A lock shows `playState` 2 for one
//! frame, then the next piece spawns with `playState` 1; a top-out shows
//! `playState` 10. There is no gravity and no soft-drop points (*assumptions*:
//! the cartridge has both; the driver does not rely on either).
//!
//! Memory is a 2 KiB array (the NES's RAM size), rewritten after every frame.

use super::ram::{self, to_bcd};
use super::rng::SPAWN_TABLE;
use super::sim::{rotate_ccw, rotate_cw, End, Game, Placement, HEIGHT, SPAWN_X, SPAWN_Y, WIDTH};
use crate::host::{Buttons, Host, HostError};

/// The NES Tetris simulator seen through the cartridge's RAM layout.
pub struct RamSim {
    /// The game.
    pub game: Game,
    ram: [u8; 0x800],
    orientation: u8,
    x: i8,
    y: i8,
    held: Buttons,
    before: Buttons,
    frames: u64,
    locking: bool,
}

impl RamSim {
    /// A simulator for a game seed and start level.
    pub fn new(seed: u64, start_level: u8) -> RamSim {
        let game = Game::new(seed, start_level);
        let mut sim = RamSim {
            orientation: SPAWN_TABLE[game.current as usize],
            game,
            ram: [0; 0x800],
            x: SPAWN_X,
            y: SPAWN_Y,
            held: Buttons::NONE,
            before: Buttons::NONE,
            frames: 0,
            locking: false,
        };
        sim.write_ram();
        sim
    }

    fn spawn(&mut self) {
        self.orientation = SPAWN_TABLE[self.game.current as usize];
        self.x = SPAWN_X;
        self.y = SPAWN_Y;
    }

    fn write_ram(&mut self) {
        let ram = &mut self.ram;
        let g = &self.game;
        ram[ram::RNG_SEED as usize] = (g.rng.lfsr.0 >> 8) as u8;
        ram[ram::RNG_SEED as usize + 1] = g.rng.lfsr.0 as u8;
        ram[ram::TETRIMINO_X as usize] = self.x as u8;
        ram[ram::TETRIMINO_Y as usize] = self.y as u8;
        ram[ram::CURRENT_PIECE as usize] = self.orientation;
        ram[ram::NEXT_PIECE as usize] = SPAWN_TABLE[g.next as usize];
        ram[ram::LEVEL as usize] = g.level;
        ram[ram::GAME_MODE as usize] = ram::GAME_MODE_PLAY;
        ram[ram::PLAY_STATE as usize] = if g.end == Some(End::TopOut) {
            ram::PLAY_STATE_GAME_OVER
        } else if self.locking {
            2
        } else {
            ram::PLAY_STATE_ACTIVE
        };
        ram[ram::LINES as usize] = to_bcd(g.lines % 100);
        ram[ram::LINES as usize + 1] = (g.lines / 100) as u8;
        let score = g.display_score() as u32;
        ram[ram::SCORE as usize] = to_bcd(score % 100);
        ram[ram::SCORE as usize + 1] = to_bcd(score / 100 % 100);
        ram[ram::SCORE as usize + 2] = to_bcd(score / 10_000 % 100);
        for r in 0..HEIGHT as usize {
            for c in 0..WIDTH as usize {
                let filled = g.board.rows[r] >> c & 1 == 1;
                ram[ram::PLAYFIELD as usize + r * WIDTH as usize + c] =
                    if filled { 0x7B } else { ram::EMPTY_TILE };
            }
        }
    }
}

impl Host for RamSim {
    fn peek(&self, addr: u16) -> u8 {
        self.ram[addr as usize & 0x7FF]
    }

    fn set_buttons(&mut self, buttons: Buttons) {
        self.held = buttons;
    }

    fn step_frame(&mut self) -> Result<(), HostError> {
        self.frames += 1;
        let pressed = self.held.pressed_since(self.before);
        self.before = self.held;
        if self.locking {
            self.locking = false;
            self.spawn();
        } else if self.game.end.is_none() {
            let b = self.game.board;
            if pressed.contains(Buttons::A) && b.fits(rotate_cw(self.orientation), self.x, self.y) {
                self.orientation = rotate_cw(self.orientation);
            }
            if pressed.contains(Buttons::B) && b.fits(rotate_ccw(self.orientation), self.x, self.y)
            {
                self.orientation = rotate_ccw(self.orientation);
            }
            if pressed.contains(Buttons::LEFT) && b.fits(self.orientation, self.x - 1, self.y) {
                self.x -= 1;
            }
            if pressed.contains(Buttons::RIGHT) && b.fits(self.orientation, self.x + 1, self.y) {
                self.x += 1;
            }
            if self.held.contains(Buttons::DOWN) {
                if b.fits(self.orientation, self.x, self.y + 1) {
                    self.y += 1;
                } else {
                    self.game.play(Placement {
                        orientation: self.orientation,
                        x: self.x,
                        y: self.y,
                    });
                    self.locking = self.game.end.is_none();
                }
            }
        }
        self.write_ram();
        Ok(())
    }

    fn frames(&self) -> u64 {
        self.frames
    }
}
