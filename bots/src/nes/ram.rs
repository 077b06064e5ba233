//! The NES Tetris RAM addresses the bot reads, from the public RAM maps and
//! disassemblies of the cartridge, and the decoding of its packed-BCD counters.
//!
//! | address | name | meaning |
//! |---|---|---|
//! | `$0017-$0018` | rng seed | the shift register (high byte first) |
//! | `$0040` | tetriminoX | pivot column of the falling piece |
//! | `$0041` | tetriminoY | pivot row of the falling piece |
//! | `$0042` | currentPiece | orientation id 0..19 of the falling piece |
//! | `$0044` | levelNumber | level (binary) |
//! | `$0048` | playState | 1 = player moves the piece, 10 = game-over curtain |
//! | `$0050-$0051` | lines | line count: low byte packed BCD, high byte the hundreds |
//! | `$0053-$0055` | score | packed BCD, low byte first (six digits) |
//! | `$00BF` | nextPiece | orientation id of the preview piece |
//! | `$00C0` | gameMode | 0 legal, 1 title, 2 game type, 3 level menu, 4 play |
//! | `$0400-$04C7` | playfield | 20 rows x 10 tiles, top row first; `$EF` is empty |
//!
//! The active piece is drawn with sprites and is *not* in the playfield bytes, so
//! the playfield is exactly the locked well.

use super::sim::{Board, HEIGHT, WIDTH};
use crate::host::Host;

/// The shift register, high byte.
pub const RNG_SEED: u16 = 0x0017;
/// Pivot column of the falling piece.
pub const TETRIMINO_X: u16 = 0x0040;
/// Pivot row of the falling piece.
pub const TETRIMINO_Y: u16 = 0x0041;
/// Orientation id of the falling piece.
pub const CURRENT_PIECE: u16 = 0x0042;
/// Level.
pub const LEVEL: u16 = 0x0044;
/// Play state.
pub const PLAY_STATE: u16 = 0x0048;
/// Lines, two bytes.
pub const LINES: u16 = 0x0050;
/// Score, three bytes.
pub const SCORE: u16 = 0x0053;
/// Orientation id of the preview piece.
pub const NEXT_PIECE: u16 = 0x00BF;
/// Game mode.
pub const GAME_MODE: u16 = 0x00C0;
/// First byte of the playfield.
pub const PLAYFIELD: u16 = 0x0400;
/// The empty tile in the playfield.
pub const EMPTY_TILE: u8 = 0xEF;

/// `playState` while the player controls the falling piece.
pub const PLAY_STATE_ACTIVE: u8 = 1;
/// `playState` during the game-over curtain.
pub const PLAY_STATE_GAME_OVER: u8 = 10;
/// `gameMode` during play.
pub const GAME_MODE_PLAY: u8 = 4;
/// `gameMode` on the level menu.
pub const GAME_MODE_LEVEL_MENU: u8 = 3;

/// Decodes one packed-BCD byte (`$42` -> 42).
pub const fn from_bcd(b: u8) -> u32 {
    (b >> 4) as u32 * 10 + (b & 0x0F) as u32
}

/// Encodes 0..=99 as packed BCD.
pub const fn to_bcd(v: u32) -> u8 {
    (((v / 10) % 10) << 4 | (v % 10)) as u8
}

/// Reads the locked well from the playfield bytes.
pub fn read_board(host: &impl Host) -> Board {
    let mut bytes = [0u8; (WIDTH * HEIGHT) as usize];
    host.peek_into(PLAYFIELD, &mut bytes);
    let mut board = Board::EMPTY;
    for (r, row) in bytes.chunks_exact(WIDTH as usize).enumerate() {
        for (c, &tile) in row.iter().enumerate() {
            if tile != EMPTY_TILE {
                board.rows[r] |= 1 << c;
            }
        }
    }
    board
}

/// Reads the line count.
pub fn read_lines(host: &impl Host) -> u32 {
    u32::from(host.peek(LINES + 1)) * 100 + from_bcd(host.peek(LINES))
}

/// Reads the score (six BCD digits).
pub fn read_score(host: &impl Host) -> u32 {
    from_bcd(host.peek(SCORE + 2)) * 10_000
        + from_bcd(host.peek(SCORE + 1)) * 100
        + from_bcd(host.peek(SCORE))
}
