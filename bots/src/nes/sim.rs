//! The NES Tetris (1989) rules the bot plays by: the well, the pieces, the
//! Nintendo rotation system, line clears, levels and scoring.
//!
//! # Data layout
//!
//! * The well is 20 rows of `u16`, row 0 at the top; bit `c` is column `c`
//!   (column 0 at the left), so a full row is `0x3FF`. 40 bytes per well.
//! * A piece position is `(orientation id, x, y)` exactly as the cartridge keeps it
//!   at `$0042`, `$0040` and `$0041`: `(x, y)` is the pivot cell and the
//!   orientation id (0..19) selects four cell offsets from the game's orientation
//!   table, reproduced in [`CELLS`]. The ids are the game's own, so the
//!   emulator host can read `$0042` and use it directly.
//! * [`SHAPES`] is built from [`CELLS`] by a `const fn`: per orientation, up to
//!   four row masks relative to the leftmost cell, so a collision test is a shift
//!   and an AND per row, and the per-column lowest cell for the fast drop.
//!
//! # Rules (and where we had to choose)
//!
//! * Rotation: `A` turns clockwise, `B` counter-clockwise, each a step through the
//!   piece's orientation group (T 0..4, J 4..8, Z 8..10, O 10, S 11..13,
//!   L 13..17, I 17..19). No kicks: a rotation that does not fit does nothing.
//! * A piece spawns at `x = 5, y = 0` in its spawn orientation (`T J Z O S L I`
//!   spawn as ids `02 07 08 0A 0B 0E 12`). If it does not fit there, the game is
//!   over.
//! * Cells above row 0 count as free while a piece moves (the game allows a pivot
//!   as high as row -2). *Assumption*: a piece that locks with a cell above row 0
//!   tops out (the console's behaviour there depends on memory outside the well).
//! * The bot's moves are "straight drops": rotate in the spawn row, shift
//!   sideways in the spawn row, then fall straight down. *Assumption*: gravity is
//!   not simulated, so the sideways moves always finish before the piece falls (true
//!   on the console for the article's start level 9 only for short shifts).
//! * Full rows are removed and the rows above fall. Points: 40, 100, 300, 1200
//!   for 1..4 lines, times `level + 1`. No soft-drop points (the bot never holds
//!   Down in the simulator).
//! * Levels follow the cartridge: each time the line count reaches a multiple of
//!   ten, the level goes up by one if it is below the line count's tens, read as
//!   the game's packed-BCD byte and compared as the 6502 does (signed 8-bit). That
//!   is the rule behind the known transitions (start at 9: first level-up at 100
//!   lines).
//! * *Assumption*: the score is not capped (the console's display stops at
//!   999 999); [`Game::display_score`] gives the capped value.
//!
//! Rejected: a 4x4 box per piece (as in HATETRIS). The NES keeps a pivot and
//! offsets, and keeping its representation makes the RAM bridge a plain copy.

use super::rng::{Randomiser, SPAWN_TABLE};

/// Columns in the well.
pub const WIDTH: i32 = 10;
/// Rows in the well.
pub const HEIGHT: i32 = 20;
/// A full row.
pub const FULL_ROW: u16 = (1 << WIDTH) - 1;
/// The pivot column a piece spawns in.
pub const SPAWN_X: i8 = 5;
/// The pivot row a piece spawns in.
pub const SPAWN_Y: i8 = 0;
/// Number of orientation ids.
pub const ORIENTATIONS: usize = 19;
/// Piece names by piece index, in the game's order.
pub const PIECE_NAMES: [char; 7] = ['T', 'J', 'Z', 'O', 'S', 'L', 'I'];

/// Cell offsets `(dx, dy)` from the pivot for each orientation id, as in the
/// cartridge's orientation table. `dy` grows downwards.
pub const CELLS: [[(i8, i8); 4]; ORIENTATIONS] = [
    [(-1, 0), (0, 0), (1, 0), (0, -1)],  // 00 T up
    [(0, -1), (0, 0), (1, 0), (0, 1)],   // 01 T right
    [(-1, 0), (0, 0), (1, 0), (0, 1)],   // 02 T down (spawn)
    [(0, -1), (-1, 0), (0, 0), (0, 1)],  // 03 T left
    [(0, -1), (0, 0), (-1, 1), (0, 1)],  // 04 J left
    [(-1, -1), (-1, 0), (0, 0), (1, 0)], // 05 J up
    [(0, -1), (1, -1), (0, 0), (0, 1)],  // 06 J right
    [(-1, 0), (0, 0), (1, 0), (1, 1)],   // 07 J down (spawn)
    [(-1, 0), (0, 0), (0, 1), (1, 1)],   // 08 Z horizontal (spawn)
    [(1, -1), (0, 0), (1, 0), (0, 1)],   // 09 Z vertical
    [(-1, 0), (0, 0), (-1, 1), (0, 1)],  // 0A O (spawn)
    [(0, 0), (1, 0), (-1, 1), (0, 1)],   // 0B S horizontal (spawn)
    [(0, -1), (0, 0), (1, 0), (1, 1)],   // 0C S vertical
    [(0, -1), (0, 0), (0, 1), (1, 1)],   // 0D L right
    [(-1, 0), (0, 0), (1, 0), (-1, 1)],  // 0E L down (spawn)
    [(-1, -1), (0, -1), (0, 0), (0, 1)], // 0F L left
    [(1, -1), (-1, 0), (0, 0), (1, 0)],  // 10 L up
    [(0, -2), (0, -1), (0, 0), (0, 1)],  // 11 I vertical
    [(-2, 0), (-1, 0), (0, 0), (1, 0)],  // 12 I horizontal (spawn)
];

/// First orientation id of each piece's rotation group, by piece index.
pub const GROUP_START: [u8; 7] = [0, 4, 8, 10, 11, 13, 17];
/// Number of orientations in each piece's rotation group.
pub const GROUP_LEN: [u8; 7] = [4, 4, 2, 1, 2, 4, 2];

/// The piece index of each orientation id.
pub const PIECE_OF: [u8; ORIENTATIONS] = build_piece_of();

const fn build_piece_of() -> [u8; ORIENTATIONS] {
    let mut out = [0u8; ORIENTATIONS];
    let mut p = 0;
    while p < 7 {
        let mut k = 0;
        while k < GROUP_LEN[p] {
            out[(GROUP_START[p] + k) as usize] = p as u8;
            k += 1;
        }
        p += 1;
    }
    out
}

/// The orientation after pressing `A` (clockwise).
pub const fn rotate_cw(o: u8) -> u8 {
    let p = PIECE_OF[o as usize] as usize;
    GROUP_START[p] + (o - GROUP_START[p] + 1) % GROUP_LEN[p]
}

/// The orientation after pressing `B` (counter-clockwise).
pub const fn rotate_ccw(o: u8) -> u8 {
    let p = PIECE_OF[o as usize] as usize;
    GROUP_START[p] + (o - GROUP_START[p] + GROUP_LEN[p] - 1) % GROUP_LEN[p]
}

/// One orientation as bit masks.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Row masks, top row first, relative to the leftmost cell (bit 0).
    pub rows: [u16; 4],
    /// Offset of the leftmost cell from the pivot.
    pub min_dx: i8,
    /// Offset of the top cell from the pivot.
    pub min_dy: i8,
    /// Width in cells.
    pub width: i8,
    /// Height in cells.
    pub height: i8,
    /// For each of the `width` columns (from the left), the `dy` of its lowest cell.
    pub bottom: [i8; 4],
}

/// Masks for every orientation id, built from [`CELLS`] at compile time.
pub static SHAPES: [Shape; ORIENTATIONS] = build_shapes();

const fn build_shapes() -> [Shape; ORIENTATIONS] {
    let empty = Shape {
        rows: [0; 4],
        min_dx: 0,
        min_dy: 0,
        width: 0,
        height: 0,
        bottom: [i8::MIN; 4],
    };
    let mut out = [empty; ORIENTATIONS];
    let mut o = 0;
    while o < ORIENTATIONS {
        let cells = CELLS[o];
        let (mut min_dx, mut max_dx, mut min_dy, mut max_dy) = (i8::MAX, i8::MIN, i8::MAX, i8::MIN);
        let mut i = 0;
        while i < 4 {
            let (dx, dy) = cells[i];
            if dx < min_dx {
                min_dx = dx;
            }
            if dx > max_dx {
                max_dx = dx;
            }
            if dy < min_dy {
                min_dy = dy;
            }
            if dy > max_dy {
                max_dy = dy;
            }
            i += 1;
        }
        let mut s = empty;
        s.min_dx = min_dx;
        s.min_dy = min_dy;
        s.width = max_dx - min_dx + 1;
        s.height = max_dy - min_dy + 1;
        i = 0;
        while i < 4 {
            let (dx, dy) = cells[i];
            let col = (dx - min_dx) as usize;
            s.rows[(dy - min_dy) as usize] |= 1 << col;
            if dy > s.bottom[col] {
                s.bottom[col] = dy;
            }
            i += 1;
        }
        out[o] = s;
        o += 1;
    }
    out
}

/// A well: 20 rows, row 0 at the top, bit `c` = column `c`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    /// The rows, top first.
    pub rows: [u16; HEIGHT as usize],
}

impl Board {
    /// An empty well.
    pub const EMPTY: Board = Board {
        rows: [0; HEIGHT as usize],
    };

    /// Parses a well drawn as text: one line per row, `#` filled, `.` empty, the
    /// last line being the bottom row. Fewer than 20 lines fill the bottom rows.
    pub fn from_text(text: &str) -> Result<Board, String> {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() > HEIGHT as usize {
            return Err(format!("{} rows drawn, the well has {HEIGHT}", lines.len()));
        }
        let mut board = Board::EMPTY;
        let top = HEIGHT as usize - lines.len();
        for (i, line) in lines.iter().enumerate() {
            if line.chars().count() != WIDTH as usize {
                return Err(format!("row {:?} is not {WIDTH} cells wide", line));
            }
            for (c, ch) in line.chars().enumerate() {
                match ch {
                    '#' => board.rows[top + i] |= 1 << c,
                    '.' => {}
                    other => return Err(format!("unexpected {other:?} in row {line:?}")),
                }
            }
        }
        Ok(board)
    }

    /// Whether orientation `o` with its pivot at `(x, y)` fits: inside the walls and
    /// floor, and on no filled cell. Rows above the top are free.
    #[inline]
    pub fn fits(&self, o: u8, x: i8, y: i8) -> bool {
        let s = &SHAPES[o as usize];
        let left = x + s.min_dx;
        if left < 0 || left + s.width > WIDTH as i8 {
            return false;
        }
        let top = y + s.min_dy;
        if top + s.height > HEIGHT as i8 {
            return false;
        }
        let mut i = 0;
        while i < s.height {
            let r = top + i;
            if r >= 0 && self.rows[r as usize] & (s.rows[i as usize] << left) != 0 {
                return false;
            }
            i += 1;
        }
        true
    }

    /// For each column, the row index of its topmost filled cell (20 if empty).
    #[inline]
    pub fn column_tops(&self) -> [i8; WIDTH as usize] {
        let mut tops = [HEIGHT as i8; WIDTH as usize];
        let mut seen = 0u16;
        for (r, &row) in self.rows.iter().enumerate() {
            let mut fresh = row & !seen;
            seen |= row;
            while fresh != 0 {
                tops[fresh.trailing_zeros() as usize] = r as i8;
                fresh &= fresh - 1;
            }
            if seen == FULL_ROW {
                break;
            }
        }
        tops
    }

    /// The pivot row where orientation `o` at column `x` comes to rest when dropped
    /// straight down from above the well, from the column tops. May be negative
    /// when the stack is high. The fast twin of [`Board::drop_slow`].
    #[inline]
    pub fn drop_y(&self, tops: &[i8; WIDTH as usize], o: u8, x: i8) -> i8 {
        let s = &SHAPES[o as usize];
        let left = (x + s.min_dx) as usize;
        let mut y = i8::MAX;
        for k in 0..s.width as usize {
            let rest = tops[left + k] - 1 - s.bottom[k];
            if rest < y {
                y = rest;
            }
        }
        y
    }

    /// The resting pivot row by stepping down one row at a time from `from_y`
    /// (which must fit). The slow twin of [`Board::drop_y`].
    pub fn drop_slow(&self, o: u8, x: i8, from_y: i8) -> i8 {
        let mut y = from_y;
        while self.fits(o, x, y + 1) {
            y += 1;
        }
        y
    }

    /// Writes the piece's cells into the well and removes full rows. Returns the
    /// number of rows removed, or `None` if a cell lies above the top (top-out; the
    /// well is then left with the cells that are inside).
    #[inline]
    pub fn lock(&mut self, o: u8, x: i8, y: i8) -> Option<u32> {
        let s = &SHAPES[o as usize];
        let left = x + s.min_dx;
        let top = y + s.min_dy;
        let mut above = false;
        for i in 0..s.height {
            let r = top + i;
            if r < 0 {
                above = true;
            } else {
                self.rows[r as usize] |= s.rows[i as usize] << left;
            }
        }
        if above {
            return None;
        }
        Some(self.clear_lines(top.max(0) as usize, (top + s.height) as usize))
    }

    /// Removes the full rows among `from..to` and lets the rows above fall.
    #[inline]
    fn clear_lines(&mut self, from: usize, to: usize) -> u32 {
        let mut cleared = 0;
        for r in from..to {
            if self.rows[r] == FULL_ROW {
                self.rows.copy_within(0..r, 1);
                self.rows[0] = 0;
                cleared += 1;
            }
        }
        cleared
    }

    /// Draws the well as text, `#` for filled cells, top row first.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity((WIDTH as usize + 1) * HEIGHT as usize);
        for row in self.rows {
            for c in 0..WIDTH {
                out.push(if row >> c & 1 == 1 { '#' } else { '.' });
            }
            out.push('\n');
        }
        out
    }
}

/// Base points for 0..=4 lines cleared at once.
pub const LINE_POINTS: [u64; 5] = [0, 40, 100, 300, 1200];

/// Points for clearing `lines` rows at once at `level`.
#[inline]
pub const fn points(lines: u32, level: u8) -> u64 {
    LINE_POINTS[lines as usize] * (level as u64 + 1)
}

/// The level after one more line, by the cartridge's rule (see the module doc).
pub const fn level_after_line(level: u8, lines_after: u32) -> u8 {
    if !lines_after.is_multiple_of(10) {
        return level;
    }
    // The tens of the line count as the game's byte: hundreds in the high nibble,
    // tens in the low one (the hundreds byte is binary and its nibble wraps).
    let tens = ((((lines_after / 100) & 0x0F) << 4) | ((lines_after / 10) % 10)) as u8;
    if level.wrapping_sub(tens) & 0x80 != 0 {
        level.wrapping_add(1)
    } else {
        level
    }
}

/// A straight-drop placement: an orientation id, a pivot column and the pivot row
/// where it lands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// Orientation id (the game's `$0042`).
    pub orientation: u8,
    /// Pivot column.
    pub x: i8,
    /// Pivot row where the piece comes to rest.
    pub y: i8,
}

/// The most straight-drop placements any piece can have (4 orientations x 9 columns,
/// with room to spare).
pub const MAX_PLACEMENTS: usize = 48;

/// A fixed-capacity list of placements (no allocation).
#[derive(Clone, Copy, Debug)]
pub struct Placements {
    items: [Placement; MAX_PLACEMENTS],
    len: usize,
}

impl Placements {
    /// The placements, in generation order.
    pub fn as_slice(&self) -> &[Placement] {
        &self.items[..self.len]
    }
}

/// The number of `A` presses (positive) or `B` presses (negative) that turn the
/// spawn orientation of `piece` into orientation `o` the short way.
pub fn rotation_presses(piece: u8, o: u8) -> i8 {
    let len = GROUP_LEN[piece as usize];
    let spawn = SPAWN_TABLE[piece as usize];
    let start = GROUP_START[piece as usize];
    let k = (o + len - start - (spawn - start)) % len;
    if k <= len / 2 {
        k as i8
    } else {
        k as i8 - len as i8
    }
}

/// Every straight drop of `piece` from its spawn: for each orientation reachable by
/// turning at the spawn point the short way, each column reachable by sliding along
/// the spawn row, the landing row. Empty if the piece cannot spawn.
pub fn placements(board: &Board, piece: u8) -> Placements {
    let mut out = Placements {
        items: [Placement::default(); MAX_PLACEMENTS],
        len: 0,
    };
    let spawn = SPAWN_TABLE[piece as usize];
    if !board.fits(spawn, SPAWN_X, SPAWN_Y) {
        return out;
    }
    let tops = board.column_tops();
    let len = GROUP_LEN[piece as usize];
    'orient: for k in 0..len {
        // Turn the short way, every step must fit at the spawn point.
        let presses = if k <= len / 2 {
            k as i8
        } else {
            k as i8 - len as i8
        };
        let mut o = spawn;
        for _ in 0..presses.unsigned_abs() {
            o = if presses > 0 {
                rotate_cw(o)
            } else {
                rotate_ccw(o)
            };
            if !board.fits(o, SPAWN_X, SPAWN_Y) {
                continue 'orient;
            }
        }
        let mut lo = SPAWN_X;
        while board.fits(o, lo - 1, SPAWN_Y) {
            lo -= 1;
        }
        let mut hi = SPAWN_X;
        while board.fits(o, hi + 1, SPAWN_Y) {
            hi += 1;
        }
        for x in lo..=hi {
            // The column-top formula is exact whenever it lands at or below the spawn
            // row; a negative answer means part of the stack overhangs the piece's
            // spawn cells, and then the piece is stepped down instead.
            let mut y = board.drop_y(&tops, o, x);
            if y < SPAWN_Y {
                y = board.drop_slow(o, x, SPAWN_Y);
            }
            out.items[out.len] = Placement {
                orientation: o,
                x,
                y,
            };
            out.len += 1;
        }
    }
    out
}

/// What ended a game, if it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// A new piece could not spawn, or a piece locked above the top.
    TopOut,
    /// The piece limit was reached.
    PieceLimit,
}

/// One game: the well, the two known pieces, the randomiser and the counters.
#[derive(Clone, Debug)]
pub struct Game {
    /// The well.
    pub board: Board,
    /// The piece to place now (piece index 0..7).
    pub current: u8,
    /// The preview piece.
    pub next: u8,
    /// The randomiser.
    pub rng: Randomiser,
    /// The current level.
    pub level: u8,
    /// Lines cleared.
    pub lines: u32,
    /// Score, not capped.
    pub score: u64,
    /// Pieces locked.
    pub pieces: u32,
    /// Lines cleared at once: counts of singles, doubles, triples, tetrises.
    pub clears: [u32; 4],
    /// Set when the game is over.
    pub end: Option<End>,
}

impl Game {
    /// A new game from a game seed (see [`Randomiser::from_game_seed`]) at a start level.
    pub fn new(seed: u64, start_level: u8) -> Game {
        Game::with_randomiser(Randomiser::from_game_seed(seed), start_level)
    }

    /// A new game with a given randomiser state.
    pub fn with_randomiser(mut rng: Randomiser, start_level: u8) -> Game {
        let current = rng.next_piece();
        let next = rng.next_piece();
        let mut game = Game {
            board: Board::EMPTY,
            current,
            next,
            rng,
            level: start_level,
            lines: 0,
            score: 0,
            pieces: 0,
            clears: [0; 4],
            end: None,
        };
        if !game
            .board
            .fits(SPAWN_TABLE[current as usize], SPAWN_X, SPAWN_Y)
        {
            game.end = Some(End::TopOut);
        }
        game
    }

    /// The score as the console shows it (capped at 999 999).
    pub fn display_score(&self) -> u64 {
        self.score.min(999_999)
    }

    /// Credits `cleared` lines: counters, levels one line at a time, then points at
    /// the level reached (the cartridge adds points after the level update).
    pub fn credit_lines(&mut self, cleared: u32) {
        if cleared == 0 {
            return;
        }
        self.clears[cleared as usize - 1] += 1;
        for _ in 0..cleared {
            self.lines += 1;
            self.level = level_after_line(self.level, self.lines);
        }
        self.score += points(cleared, self.level);
    }

    /// Locks the current piece at `p` (which should come from [`placements`]),
    /// clears lines, scores, and brings in the next piece. Returns the lines cleared.
    pub fn play(&mut self, p: Placement) -> u32 {
        if self.end.is_some() {
            return 0;
        }
        self.pieces += 1;
        let Some(cleared) = self.board.lock(p.orientation, p.x, p.y) else {
            self.end = Some(End::TopOut);
            return 0;
        };
        self.credit_lines(cleared);
        self.current = self.next;
        self.next = self.rng.next_piece();
        if !self
            .board
            .fits(SPAWN_TABLE[self.current as usize], SPAWN_X, SPAWN_Y)
        {
            self.end = Some(End::TopOut);
        }
        cleared
    }
}
