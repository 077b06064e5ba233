//! Hidamari's rules as the article's AI sees them: a 10 x 22 well kept as `u16`
//! rows with wall bits, seven tetrominoes in four rotation states, a 7-bag, hard
//! drops and line clears.
//!
//! # Data layout (the article's bit board)
//!
//! * A row is a `u16`. Column `c` (0 at the left) is bit `c + 3`; bits 0..3 and
//!   13..16 are wall and always set, so an empty row is `0xE007` and a full row is
//!   `0xFFFF`. Walls make the sideways bounds check part of the AND.
//! * The well is 22 playfield rows (row 0 at the top; rows 0 and 1 are the hidden
//!   spawn rows above the visible 20) followed by 4 floor rows of `0xFFFF`, so a
//!   4 x 4 piece box at any row index up to 22 stays inside the array and the floor
//!   is part of the AND as well. 26 x 2 = 52 bytes.
//! * A piece state is four nibbles, one per row of its 4 x 4 box, bit `i` = box
//!   column `i`. A box with its left column at well column `x` is shifted by
//!   `x + 3`, so `x` runs from -3 to 9 without leaving the `u16`.
//!
//! # Rules (the article gives none; these are the choices)
//!
//! * *Assumption*: the shapes and rotation states are the modern guideline ones
//!   (the 4 x 4 boxes of [`SHAPES`]), with no kicks.
//! * A piece spawns with its box at column 3, row 0, in state 0. It turns in place,
//!   then slides along row 0, then hard-drops; every step must fit.
//! * Full rows are removed and the rows above fall.
//! * The game ends when a new piece cannot spawn, or when a piece locks with a
//!   cell in the two hidden rows ("once the 20 height limit is broken").
//! * The 7-bag: the seven pieces in a random order, then another seven, and so on;
//!   the order comes from a Fisher-Yates shuffle driven by SplitMix64.
//!
//! Rejected: a `[[bool; 10]; 22]` grid (the article's point is that a row test is
//! one AND), and a board without wall bits (every shift would need a range check).

use crate::common::SplitMix64;

/// Columns.
pub const WIDTH: usize = 10;
/// Playfield rows, including the two hidden spawn rows.
pub const HEIGHT: usize = 22;
/// Hidden rows at the top.
pub const HIDDEN: usize = 2;
/// Rows in the array: the playfield plus four floor rows.
pub const ROWS: usize = HEIGHT + 4;
/// An empty playfield row: wall bits only.
pub const EMPTY_ROW: u16 = 0xE007;
/// A full row (and a floor row).
pub const FULL_ROW: u16 = 0xFFFF;
/// The playfield bits of a row.
pub const CELLS_MASK: u16 = !EMPTY_ROW;
/// Box column a piece spawns at.
pub const SPAWN_X: i8 = 3;
/// Piece names by index.
pub const PIECE_NAMES: [char; 7] = ['I', 'O', 'T', 'S', 'Z', 'J', 'L'];

/// Builds a state from four rows drawn as `#`/`.`, box column 0 at the left.
const fn nibbles(rows: [&str; 4]) -> [u16; 4] {
    let mut out = [0u16; 4];
    let mut r = 0;
    while r < 4 {
        let bytes = rows[r].as_bytes();
        let mut c = 0;
        while c < 4 {
            if bytes[c] == b'#' {
                out[r] |= 1 << c;
            }
            c += 1;
        }
        r += 1;
    }
    out
}

/// The four rotation states of each piece (index order I O T S Z J L), as row
/// nibbles of a 4 x 4 box, turning clockwise from state 0.
pub static SHAPES: [[[u16; 4]; 4]; 7] = [
    [
        nibbles(["....", "####", "....", "...."]),
        nibbles(["..#.", "..#.", "..#.", "..#."]),
        nibbles(["....", "....", "####", "...."]),
        nibbles([".#..", ".#..", ".#..", ".#.."]),
    ],
    [
        nibbles([".##.", ".##.", "....", "...."]),
        nibbles([".##.", ".##.", "....", "...."]),
        nibbles([".##.", ".##.", "....", "...."]),
        nibbles([".##.", ".##.", "....", "...."]),
    ],
    [
        nibbles([".#..", "###.", "....", "...."]),
        nibbles([".#..", ".##.", ".#..", "...."]),
        nibbles(["....", "###.", ".#..", "...."]),
        nibbles([".#..", "##..", ".#..", "...."]),
    ],
    [
        nibbles([".##.", "##..", "....", "...."]),
        nibbles([".#..", ".##.", "..#.", "...."]),
        nibbles(["....", ".##.", "##..", "...."]),
        nibbles(["#...", "##..", ".#..", "...."]),
    ],
    [
        nibbles(["##..", ".##.", "....", "...."]),
        nibbles(["..#.", ".##.", ".#..", "...."]),
        nibbles(["....", "##..", ".##.", "...."]),
        nibbles([".#..", "##..", "#...", "...."]),
    ],
    [
        nibbles(["#...", "###.", "....", "...."]),
        nibbles([".##.", ".#..", ".#..", "...."]),
        nibbles(["....", "###.", "..#.", "...."]),
        nibbles([".#..", ".#..", "##..", "...."]),
    ],
    [
        nibbles(["..#.", "###.", "....", "...."]),
        nibbles([".#..", ".#..", ".##.", "...."]),
        nibbles(["....", "###.", "#...", "...."]),
        nibbles(["##..", ".#..", ".#..", "...."]),
    ],
];

/// Rotation states that give different hard-drop results, per piece: states 2 and 3
/// of I, S and Z are states 0 and 1 moved by one cell, and O has one shape.
pub const DISTINCT_STATES: [u8; 7] = [2, 1, 4, 2, 2, 4, 4];

/// A well of `u16` rows with wall bits and a floor (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// Playfield rows 0..22 (top first), then four floor rows.
    pub rows: [u16; ROWS],
}

impl Default for Board {
    fn default() -> Board {
        Board::EMPTY
    }
}

const fn empty_rows() -> [u16; ROWS] {
    let mut rows = [EMPTY_ROW; ROWS];
    let mut r = HEIGHT;
    while r < ROWS {
        rows[r] = FULL_ROW;
        r += 1;
    }
    rows
}

impl Board {
    /// An empty well.
    pub const EMPTY: Board = Board { rows: empty_rows() };

    /// Parses a drawing: one line per row, `#` filled, `.` empty, the last line the
    /// bottom row; missing rows at the top are empty.
    pub fn from_text(text: &str) -> Result<Board, String> {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() > HEIGHT {
            return Err(format!("{} rows drawn, the well has {HEIGHT}", lines.len()));
        }
        let mut b = Board::EMPTY;
        let top = HEIGHT - lines.len();
        for (i, line) in lines.iter().enumerate() {
            if line.chars().count() != WIDTH {
                return Err(format!("row {line:?} is not {WIDTH} cells wide"));
            }
            for (c, ch) in line.chars().enumerate() {
                match ch {
                    '#' => b.rows[top + i] |= 1 << (c + 3),
                    '.' => {}
                    other => return Err(format!("unexpected {other:?} in row {line:?}")),
                }
            }
        }
        Ok(b)
    }

    /// Draws the playfield, top row first.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for row in &self.rows[..HEIGHT] {
            for c in 0..WIDTH {
                s.push(if row >> (c + 3) & 1 == 1 { '#' } else { '.' });
            }
            s.push('\n');
        }
        s
    }

    /// Whether `piece` in `state` with its box at `(x, y)` fits. `x` must be in
    /// -3..=9 and `y` in 0..=22; walls and floor are in the rows.
    #[inline]
    pub fn fits(&self, piece: u8, state: u8, x: i8, y: i8) -> bool {
        let shape = &SHAPES[piece as usize][state as usize];
        let shift = (x + 3) as u32;
        let y = y as usize;
        (self.rows[y] & shape[0] << shift)
            | (self.rows[y + 1] & shape[1] << shift)
            | (self.rows[y + 2] & shape[2] << shift)
            | (self.rows[y + 3] & shape[3] << shift)
            == 0
    }

    /// The row where the piece comes to rest when dropped from row `from` (which
    /// must fit).
    #[inline]
    pub fn hard_drop(&self, piece: u8, state: u8, x: i8, from: i8) -> i8 {
        let mut y = from;
        while self.fits(piece, state, x, y + 1) {
            y += 1;
        }
        y
    }

    /// Writes the piece and removes full rows. Returns the rows removed, or `None`
    /// if a cell landed in the hidden rows (top-out).
    #[inline]
    pub fn lock(&mut self, piece: u8, state: u8, x: i8, y: i8) -> Option<u32> {
        let shape = &SHAPES[piece as usize][state as usize];
        let shift = (x + 3) as u32;
        let mut hidden = false;
        for (i, &bits) in shape.iter().enumerate() {
            if bits != 0 {
                let r = y as usize + i;
                self.rows[r] |= bits << shift;
                hidden |= r < HIDDEN;
            }
        }
        if hidden {
            return None;
        }
        let mut cleared = 0;
        let bottom = (y as usize + 4).min(HEIGHT);
        for r in y as usize..bottom {
            if self.rows[r] == FULL_ROW {
                self.rows.copy_within(0..r, 1);
                self.rows[0] = EMPTY_ROW;
                cleared += 1;
            }
        }
        Some(cleared)
    }
}

/// A hard-drop placement: piece state, box column, and the row it lands on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drop {
    /// Rotation state 0..4.
    pub state: u8,
    /// Box column.
    pub x: i8,
    /// Box row after the drop.
    pub y: i8,
}

/// Most hard drops a piece can have (4 states x 10 box columns).
pub const MAX_DROPS: usize = 40;

/// Every hard drop of `piece` reachable by turning at the spawn point and sliding
/// along row 0, written into `out`; returns how many. Zero if the piece cannot spawn.
#[inline]
pub fn drops(board: &Board, piece: u8, out: &mut [Drop; MAX_DROPS]) -> usize {
    let mut n = 0;
    if !board.fits(piece, 0, SPAWN_X, 0) {
        return 0;
    }
    let states = DISTINCT_STATES[piece as usize];
    'state: for state in 0..states {
        // Turn the short way: states 1, 2 clockwise, state 3 by one counter-turn.
        let path: &[u8] = match state {
            0 => &[],
            1 => &[1],
            2 => &[1, 2],
            _ => &[3],
        };
        for &s in path {
            if !board.fits(piece, s, SPAWN_X, 0) {
                continue 'state;
            }
        }
        let mut lo = SPAWN_X;
        while lo > -3 && board.fits(piece, state, lo - 1, 0) {
            lo -= 1;
        }
        let mut hi = SPAWN_X;
        while hi < 9 && board.fits(piece, state, hi + 1, 0) {
            hi += 1;
        }
        for x in lo..=hi {
            out[n] = Drop {
                state,
                x,
                y: board.hard_drop(piece, state, x, 0),
            };
            n += 1;
        }
    }
    n
}

/// The 7-bag randomiser.
#[derive(Clone, Debug)]
pub struct Bag {
    rng: SplitMix64,
    items: [u8; 7],
    pos: u8,
}

impl Bag {
    /// A bag stream for a seed.
    pub fn new(seed: u64) -> Bag {
        Bag {
            rng: SplitMix64::new(seed),
            items: [0, 1, 2, 3, 4, 5, 6],
            pos: 7,
        }
    }

    /// The next piece; a fresh shuffled bag every seven pieces.
    #[inline]
    pub fn next_piece(&mut self) -> u8 {
        if self.pos == 7 {
            for i in (1..7).rev() {
                let j = self.rng.below(i as u32 + 1) as usize;
                self.items.swap(i, j);
            }
            self.pos = 0;
        }
        let p = self.items[self.pos as usize];
        self.pos += 1;
        p
    }
}

/// One game.
#[derive(Clone, Debug)]
pub struct Game {
    /// The well.
    pub board: Board,
    /// The piece to place.
    pub current: u8,
    /// The preview piece.
    pub next: u8,
    /// The bag.
    pub bag: Bag,
    /// Lines cleared.
    pub lines: u32,
    /// Pieces locked.
    pub pieces: u32,
    /// Whether the game is over (topped out).
    pub over: bool,
}

impl Game {
    /// A new game for a seed.
    pub fn new(seed: u64) -> Game {
        let mut bag = Bag::new(seed);
        let current = bag.next_piece();
        let next = bag.next_piece();
        Game {
            board: Board::EMPTY,
            current,
            next,
            bag,
            lines: 0,
            pieces: 0,
            over: false,
        }
    }

    /// Locks the current piece at `d`, clears lines, brings in the next piece.
    /// Returns the lines cleared.
    pub fn play(&mut self, d: Drop) -> u32 {
        if self.over {
            return 0;
        }
        self.pieces += 1;
        let Some(cleared) = self.board.lock(self.current, d.state, d.x, d.y) else {
            self.over = true;
            return 0;
        };
        self.lines += cleared;
        self.current = self.next;
        self.next = self.bag.next_piece();
        if !self.board.fits(self.current, 0, SPAWN_X, 0) {
            self.over = true;
        }
        cleared
    }
}
