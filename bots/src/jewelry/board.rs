//! The Magic Jewelry well and its rules.
//!
//! # Data layout
//!
//! The well is 6 columns by 15 rows: rows `y = 0, 1` are the two hidden
//! rows above the field, `y = 2..=14` the 13 visible rows (visible row
//! `r` is `y = r + 2`, counted from the top). A [`Board`] is one byte per
//! cell, `y * 6 + x` (90 bytes, `Copy`): 0 empty, 1 to 6 a colour, 7 the X
//! of a wild column. Match finding and the bot's metrics use per-colour
//! 90-bit masks in a `u128`, built from the bytes on demand: a run of three
//! in a direction with bit stride `s` is `m & m >> s & m >> 2s`, masked by a
//! compile-time table of the cells whose run stays inside the well.
//!
//! # Rules
//!
//! - A column of three jewels spawns with its bottom jewel at visible row 0,
//!   column 3 (its other two jewels are in the hidden rows). It can slide,
//!   fall and cycle its colours, and locks when the cell below its bottom
//!   jewel is the floor or a jewel.
//! - Three or more equal colours in a horizontal, vertical or diagonal line
//!   vanish together; jewels above fall; this repeats until nothing
//!   matches (a cascade). All 15 rows take part.
//! - Wild column (three X's): if it locks on the floor it just vanishes;
//!   if it locks on a jewel, every jewel of that colour vanishes from the
//!   well together with the X's, then the usual cascade follows. The
//!   article does not say how often the game deals one; the simulator deals
//!   one every `wild_every` columns when asked (never by default, like the
//!   article's HistogramMaker).
//! - Game over (assumption; the article only says that a column locked at
//!   the spawn coordinates ends the game): after a column and its cascades
//!   settle, the game is over if a jewel is left in a hidden row or on the
//!   spawn cell (visible row 0, column 3), where the next column would
//!   appear.
//!
//! Gravity leaves no overhangs, so a column can reach every well column
//! that is connected to column 3 through columns whose three top cells
//! (hidden rows and visible row 0) are empty: [`Board::lock_columns`]. The
//! slow twin [`Board::lock_positions_bfs`] searches the moves themselves.

/// Columns.
pub const WIDTH: usize = 6;
/// Hidden rows above the field.
pub const HIDDEN_ROWS: usize = 2;
/// Visible rows.
pub const VISIBLE_ROWS: usize = 13;
/// All rows.
pub const ROWS: usize = HIDDEN_ROWS + VISIBLE_ROWS;
/// Cells.
pub const CELLS: usize = WIDTH * ROWS;
/// Visible cells.
pub const VISIBLE_CELLS: usize = WIDTH * VISIBLE_ROWS;
/// Number of colours.
pub const COLOURS: u8 = 6;
/// The X of a wild column.
pub const WILD: u8 = 7;
/// Column where new columns appear.
pub const SPAWN_X: usize = 3;
/// Row (`y`) of a new column's bottom jewel: visible row 0.
pub const SPAWN_Y: usize = HIDDEN_ROWS;

/// A falling column's three jewels, top first.
pub type Column = [u8; 3];

/// Bit of cell `(x, y)`.
#[inline]
pub const fn bit(x: usize, y: usize) -> u128 {
    1u128 << (y * WIDTH + x)
}

/// The four line directions as `(dx, dy)`: right, down, down-right,
/// down-left.
pub const DIRS: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

/// Bit stride of each direction.
pub const STRIDE: [u32; 4] = [1, WIDTH as u32, WIDTH as u32 + 1, WIDTH as u32 - 1];

/// `PAIR_OK[dir][d]`: cells `i` such that the cell `d` steps from `i` in
/// direction `dir` is inside the well (`d` from 0 to 5; 0 is unused).
pub const PAIR_OK: [[u128; 6]; 4] = pair_ok();

const fn pair_ok() -> [[u128; 6]; 4] {
    let mut t = [[0u128; 6]; 4];
    let mut dir = 0;
    while dir < 4 {
        let (dx, dy) = DIRS[dir];
        let mut d = 1;
        while d < 6 {
            let mut y = 0;
            while y < ROWS {
                let mut x = 0;
                while x < WIDTH {
                    let x2 = x as isize + dx * d as isize;
                    let y2 = y as isize + dy * d as isize;
                    if x2 >= 0 && x2 < WIDTH as isize && y2 >= 0 && y2 < ROWS as isize {
                        t[dir][d] |= bit(x, y);
                    }
                    x += 1;
                }
                y += 1;
            }
            d += 1;
        }
        dir += 1;
    }
    t
}

/// All cells.
pub const ALL_CELLS: u128 = (1u128 << CELLS) - 1;
/// Cells of the hidden rows.
pub const HIDDEN: u128 = (1u128 << (HIDDEN_ROWS * WIDTH)) - 1;

/// What a lock did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settle {
    /// Jewels (and X's) that vanished.
    pub cleared: u32,
    /// Rounds of matching (0 when nothing matched).
    pub chains: u32,
    /// The game is over.
    pub over: bool,
}

/// The well, one byte per cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Board {
    /// `cells[y * 6 + x]`: 0 empty, 1 to 6 colours, 7 X.
    pub cells: [u8; CELLS],
}

const _: () = assert!(std::mem::size_of::<Board>() == 90);

impl Default for Board {
    fn default() -> Self {
        Board { cells: [0; CELLS] }
    }
}

impl Board {
    /// An empty well.
    pub fn new() -> Board {
        Board::default()
    }

    /// A well from text rows, top visible row first, bottom last: `.` empty,
    /// `1`-`6` colours, `X` wild. Fewer than 13 rows fill the bottom.
    /// Returns `None` on a bad character or width. Does not apply gravity.
    pub fn from_rows(rows: &[&str]) -> Option<Board> {
        if rows.len() > VISIBLE_ROWS {
            return None;
        }
        let mut b = Board::new();
        let top = ROWS - rows.len();
        for (i, row) in rows.iter().enumerate() {
            let bytes = row.as_bytes();
            if bytes.len() != WIDTH {
                return None;
            }
            for (x, &ch) in bytes.iter().enumerate() {
                b.cells[(top + i) * WIDTH + x] = match ch {
                    b'.' => 0,
                    b'1'..=b'6' => ch - b'0',
                    b'X' => WILD,
                    _ => return None,
                };
            }
        }
        Some(b)
    }

    /// Cell `(x, y)`.
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> u8 {
        self.cells[y * WIDTH + x]
    }

    /// Number of jewels in the well.
    #[inline]
    pub fn jewels(&self) -> u32 {
        self.cells.iter().filter(|&&c| c != 0).count() as u32
    }

    /// Per-colour masks (index 0 unused, 7 for X) and the occupied mask.
    #[inline]
    pub fn masks(&self) -> ([u128; 8], u128) {
        let mut m = [0u128; 8];
        for (i, &c) in self.cells.iter().enumerate() {
            m[c as usize] |= 1u128 << i;
        }
        let occupied = ALL_CELLS & !m[0];
        (m, occupied)
    }

    /// Row `y` of the lowest empty cell of column `x`, if any.
    #[inline]
    pub fn landing_y(&self, x: usize) -> Option<usize> {
        (0..ROWS).rev().find(|&y| self.get(x, y) == 0)
    }

    /// True when the top three cells of column `x` (where a column slides
    /// at spawn height) are empty.
    #[inline]
    fn passable(&self, x: usize) -> bool {
        (0..=SPAWN_Y).all(|y| self.get(x, y) == 0)
    }

    /// Columns a new column can lock in, as a bit set over `x` (the fast
    /// path).
    pub fn lock_columns(&self) -> u8 {
        if !self.passable(SPAWN_X) {
            return 0;
        }
        let mut set = 1u8 << SPAWN_X;
        for x in (0..SPAWN_X).rev() {
            if !self.passable(x) {
                break;
            }
            set |= 1 << x;
        }
        for x in SPAWN_X + 1..WIDTH {
            if !self.passable(x) {
                break;
            }
            set |= 1 << x;
        }
        set
    }

    /// Lock positions `(x, bottom y)` found by breadth-first search over
    /// slides and drops from the spawn position (the slow twin of
    /// [`Board::lock_columns`]; cycling colours does not move the column).
    pub fn lock_positions_bfs(&self) -> Vec<(usize, usize)> {
        let free = |x: isize, y: isize| {
            (0..WIDTH as isize).contains(&x)
                && y < ROWS as isize
                && (y - 2..=y).all(|yy| yy < 0 || self.get(x as usize, yy as usize) == 0)
        };
        let mut seen = [[false; ROWS]; WIDTH];
        let mut queue = std::collections::VecDeque::new();
        let mut locks = vec![];
        if free(SPAWN_X as isize, SPAWN_Y as isize) {
            seen[SPAWN_X][SPAWN_Y] = true;
            queue.push_back((SPAWN_X as isize, SPAWN_Y as isize));
        }
        while let Some((x, y)) = queue.pop_front() {
            if !free(x, y + 1) {
                locks.push((x as usize, y as usize));
            }
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y + 1)] {
                if free(nx, ny) && !seen[nx as usize][ny as usize] {
                    seen[nx as usize][ny as usize] = true;
                    queue.push_back((nx, ny));
                }
            }
        }
        locks.sort_unstable();
        locks
    }

    /// Locks `col` (top jewel first) in well column `x` at the lowest empty
    /// cell, then clears and cascades. `x` must come from
    /// [`Board::lock_columns`].
    pub fn drop_column(&mut self, x: usize, col: Column) -> Settle {
        let Some(y) = self.landing_y(x) else {
            return Settle {
                over: true,
                ..Settle::default()
            };
        };
        if y < 2 {
            return Settle {
                over: true,
                ..Settle::default()
            };
        }
        let mut s = Settle::default();
        if col[2] == WILD {
            if y + 1 == ROWS {
                // On the floor: the X's just vanish.
                s.cleared = 3;
            } else {
                let colour = self.get(x, y + 1);
                for c in self.cells.iter_mut() {
                    if *c == colour {
                        *c = 0;
                        s.cleared += 1;
                    }
                }
                s.cleared += 3;
                self.fall();
            }
        } else {
            for (i, &j) in col.iter().enumerate() {
                self.cells[(y - 2 + i) * WIDTH + x] = j;
            }
        }
        self.cascade(&mut s);
        s.over = self.is_over();
        s
    }

    /// True when a jewel sits in a hidden row or on the spawn cell.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.cells[..HIDDEN_ROWS * WIDTH].iter().any(|&c| c != 0) || self.get(SPAWN_X, SPAWN_Y) != 0
    }

    /// Cells in runs of three or more equal colours (fast path).
    pub fn matches(&self) -> u128 {
        let (m, _) = self.masks();
        let mut out = 0u128;
        for &mc in &m[1..=COLOURS as usize] {
            if mc.count_ones() < 3 {
                continue;
            }
            for dir in 0..4 {
                let s = STRIDE[dir];
                // Starts of runs of 3 that stay inside the well.
                let t = mc & (mc >> s) & (mc >> (2 * s)) & PAIR_OK[dir][2];
                out |= t | (t << s) | (t << (2 * s));
            }
        }
        out
    }

    /// Cells in runs of three or more, by walking every line (slow twin).
    pub fn matches_naive(&self) -> u128 {
        let mut out = 0u128;
        for y in 0..ROWS {
            for x in 0..WIDTH {
                let c = self.get(x, y);
                if c == 0 || c == WILD {
                    continue;
                }
                for (dx, dy) in DIRS {
                    let mut run = vec![(x, y)];
                    let (mut cx, mut cy) = (x as isize + dx, y as isize + dy);
                    while (0..WIDTH as isize).contains(&cx)
                        && (0..ROWS as isize).contains(&cy)
                        && self.get(cx as usize, cy as usize) == c
                    {
                        run.push((cx as usize, cy as usize));
                        cx += dx;
                        cy += dy;
                    }
                    if run.len() >= 3 {
                        for (rx, ry) in run {
                            out |= bit(rx, ry);
                        }
                    }
                }
            }
        }
        out
    }

    /// Lets every jewel fall onto the one below it.
    pub fn fall(&mut self) {
        for x in 0..WIDTH {
            let mut write = ROWS;
            for y in (0..ROWS).rev() {
                let c = self.get(x, y);
                if c != 0 {
                    write -= 1;
                    self.cells[y * WIDTH + x] = 0;
                    self.cells[write * WIDTH + x] = c;
                }
            }
        }
    }

    fn cascade(&mut self, s: &mut Settle) {
        loop {
            let m = self.matches();
            if m == 0 {
                return;
            }
            s.chains += 1;
            s.cleared += m.count_ones();
            for (i, c) in self.cells.iter_mut().enumerate() {
                if m >> i & 1 == 1 {
                    *c = 0;
                }
            }
            self.fall();
        }
    }

    /// The well as text, hidden rows first (marked), `.` for empty.
    pub fn draw(&self) -> String {
        let mut s = String::new();
        for y in 0..ROWS {
            s.push(if y < HIDDEN_ROWS { ':' } else { '|' });
            for x in 0..WIDTH {
                s.push(match self.get(x, y) {
                    0 => '.',
                    WILD => 'X',
                    c => (b'0' + c) as char,
                });
            }
            s.push(if y < HIDDEN_ROWS { ':' } else { '|' });
            s.push('\n');
        }
        s.push('+');
        s.push_str(&"-".repeat(WIDTH));
        s.push_str("+\n");
        s
    }
}

/// The distinct colour orders a column can be cycled into (1 to 3).
pub fn rotations(col: Column) -> ([Column; 3], usize) {
    let mut out = [col; 3];
    let mut n = 1;
    let mut c = col;
    for _ in 0..2 {
        c = [c[2], c[0], c[1]];
        if !out[..n].contains(&c) {
            out[n] = c;
            n += 1;
        }
    }
    (out, n)
}
