//! The network's inputs: sparse binary features read off the well's rows.
//!
//! # The two pattern families
//! - **Rows**: each of the 16 live rows (position `r`, top first) as its
//!   10-bit pattern `p` (bit 0 the leftmost column, as in [`Well`]). 1,024
//!   patterns; the full row never occurs in a live well but keeps its slot.
//! - **Windows**: every 4-row × 3-column window, 13 vertical × 8 horizontal
//!   positions (`w = 8·v + h`, top row `v`, left column `h`), its 12 cells as
//!   a 12-bit pattern `q`: bits `3k..3k + 3` are the window's row `k` (top
//!   first), bit 0 of each its left column. 4,096 patterns.
//!
//! Every position has exactly one active pattern (the empty pattern
//! included), so every well has exactly [`ACTIVE`] = 16 + 104 = 120 active
//! features, and a network's first layer is a sum of 120 table rows.
//!
//! # Layouts: where a feature's weights live
//! [`Layout::Positional`] gives every (position, pattern) its own table row:
//! 16 · 1,024 + 104 · 4,096 = 442,368 rows. [`Layout::Shared`] gives every
//! pattern one row whatever its position: 1,024 + 4,096 = 5,120 rows. The
//! index arithmetic is the same for both (a base, a per-position stride
//! that is zero when shared, and the pattern), so one code path serves
//! both. Which one inference uses is decided in [`crate::nnue`]'s module doc.
//!
//! # Speed
//! Window patterns are built eight at a time: `SPREAD[p]` holds
//! `(p >> h) & 7` in the 16-bit lane `h` of two `u64` (lanes 0..4, 4..8; a
//! 16 KiB table built at compile time), so the eight windows whose top row
//! is `v` are `S[v] | S[v+1] << 3 | S[v+2] << 6 | S[v+3] << 9`, lane by lane
//! (12 bits never carry into the next lane). Two `u64` rather than one
//! `u128`: the shifts and the lane scans are single instructions. [`changes`]
//! compares only the windows that overlap a changed row, against the
//! parent's windows computed once ([`Windows`]), so a placement without a
//! clear (at most four rows changed) lists at most 4 row and 56 window
//! changes, usually far fewer. [`changes_after_clear`] does the same for a
//! step of the lookahead's chains (one line cleared): under the shared
//! layout a pattern's row does not depend on its position, so positions
//! are paired across the cleared row and only the window rows near the
//! piece and the clear are compared (about 25 features differ on the
//! chain wells of a net + lookahead search). Everything writes into
//! caller-owned fixed arrays or calls back: nothing allocates.
//!
//! The slow twin, [`window_pattern`], reads the window cell by cell; the
//! tests check the fast path against it.

use crate::well::{Well, LIVE_ROWS, WIDTH};

/// Row positions (the live rows).
pub const ROW_POSITIONS: usize = LIVE_ROWS;
/// Patterns of one row: 10 bits.
pub const ROW_PATTERNS: usize = 1 << WIDTH;
/// Vertical window positions (top rows 0..13).
pub const WINDOW_ROWS: usize = LIVE_ROWS - 3;
/// Horizontal window positions (left columns 0..8).
pub const WINDOW_COLUMNS: usize = WIDTH - 2;
/// Window positions: 13 × 8.
pub const WINDOW_POSITIONS: usize = WINDOW_ROWS * WINDOW_COLUMNS;
/// Patterns of one window: 12 bits.
pub const WINDOW_PATTERNS: usize = 1 << 12;
/// Active features in every well: one per position.
pub const ACTIVE: usize = ROW_POSITIONS + WINDOW_POSITIONS;

const _: () = assert!(WINDOW_POSITIONS == 104 && ACTIVE == 120);
const _: () = assert!(Layout::Positional.inputs() == 442_368);
const _: () = assert!(Layout::Shared.inputs() == 5_120);

/// Where a feature's weights live: one table row per pattern, or one per
/// (position, pattern). See the module doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// One row per pattern: 1,024 row patterns then 4,096 window patterns.
    Shared,
    /// One row per (position, pattern): 16 × 1,024 row features, then
    /// 104 × 4,096 window features.
    Positional,
}

impl Layout {
    /// Number of table rows (inputs).
    pub const fn inputs(self) -> usize {
        match self {
            Layout::Shared => ROW_PATTERNS + WINDOW_PATTERNS,
            Layout::Positional => ROW_POSITIONS * ROW_PATTERNS + WINDOW_POSITIONS * WINDOW_PATTERNS,
        }
    }

    /// `(row stride, window base, window stride)`: the row feature `(r, p)`
    /// is row `r·row_stride + p`, the window feature `(w, q)` is row
    /// `window_base + w·window_stride + q`.
    #[inline(always)]
    const fn strides(self) -> (u32, u32, u32) {
        match self {
            Layout::Shared => (0, ROW_PATTERNS as u32, 0),
            Layout::Positional => (
                ROW_PATTERNS as u32,
                (ROW_POSITIONS * ROW_PATTERNS) as u32,
                WINDOW_PATTERNS as u32,
            ),
        }
    }

    /// The table row of row position `r` (0..16) with pattern `p`.
    #[inline(always)]
    pub fn row_feature(self, r: usize, p: u16) -> u32 {
        let (rs, _, _) = self.strides();
        r as u32 * rs + u32::from(p)
    }

    /// The table row of window position `w` (0..104) with pattern `q`.
    #[inline(always)]
    pub fn window_feature(self, w: usize, q: u16) -> u32 {
        let (_, base, ws) = self.strides();
        base + w as u32 * ws + u32::from(q)
    }

    /// The code stored in net files.
    pub(crate) const fn code(self) -> u32 {
        match self {
            Layout::Shared => 0,
            Layout::Positional => 1,
        }
    }

    /// The layout of a file code.
    pub(crate) const fn from_code(code: u32) -> Option<Layout> {
        match code {
            0 => Some(Layout::Shared),
            1 => Some(Layout::Positional),
            _ => None,
        }
    }

    /// A short name (`shared`, `positional`).
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Shared => "shared",
            Layout::Positional => "positional",
        }
    }
}

/// `SPREAD[p]`: lane `h` (bits `16h..16h + 16` of the 128 bits, the low
/// four lanes in the first word) holds `(p >> h) & 7`.
pub(crate) static SPREAD: [[u64; 2]; ROW_PATTERNS] = {
    let mut out = [[0u64; 2]; ROW_PATTERNS];
    let mut p = 0;
    while p < ROW_PATTERNS {
        let mut h = 0;
        while h < WINDOW_COLUMNS {
            out[p][h / 4] |= (((p >> h) & 7) as u64) << (16 * (h % 4));
            h += 1;
        }
        p += 1;
    }
    out
};

/// The eight window patterns with top row `v`, one per 16-bit lane.
#[inline(always)]
fn window_lanes(rows: &[u16; LIVE_ROWS], v: usize) -> [u64; 2] {
    let s = |k: usize| &SPREAD[(rows[v + k] & 0x3FF) as usize];
    let (a, b, c, d) = (s(0), s(1), s(2), s(3));
    [
        a[0] | b[0] << 3 | c[0] << 6 | d[0] << 9,
        a[1] | b[1] << 3 | c[1] << 6 | d[1] << 9,
    ]
}

/// Lane `h` of [`window_lanes`].
#[inline(always)]
fn lane(lanes: [u64; 2], h: usize) -> u16 {
    (lanes[h / 4] >> (16 * (h % 4))) as u16 & 0xFFF
}

/// The window patterns of one well, eight per top row: computed once for a
/// parent and reused for each of its children ([`changes`]).
#[derive(Clone, Copy, Debug)]
pub struct Windows([[u64; 2]; WINDOW_ROWS]);

impl Windows {
    /// The windows of `well`.
    #[inline]
    pub fn new(well: &Well) -> Windows {
        let rows = well.rows();
        let mut out = [[0u64; 2]; WINDOW_ROWS];
        for (v, o) in out.iter_mut().enumerate() {
            *o = window_lanes(rows, v);
        }
        Windows(out)
    }
}

/// The pattern of the window with top row `v` (0..13) and left column `h`
/// (0..8), read cell by cell: the slow twin of the table-driven path.
pub fn window_pattern(well: &Well, v: usize, h: usize) -> u16 {
    let mut q = 0u16;
    for k in 0..4 {
        for c in 0..3 {
            if well.rows()[v + k] >> (h + c) & 1 == 1 {
                q |= 1 << (3 * k + c);
            }
        }
    }
    q
}

/// The active patterns of a well, position by position: the 16 row
/// patterns, then the 104 window patterns (window `w = 8·v + h`).
///
/// Under [`Layout::Shared`] a pattern is its feature's table row (a window's
/// after the 1,024 row patterns), so this is the shared net's whole input:
/// the lanes are written as they are, eight patterns per two words, with
/// no index arithmetic (see [`crate::nnue::simd`]).
#[inline]
pub fn patterns(well: &Well) -> [u16; ACTIVE] {
    let rows = well.rows();
    let mut out = [0u16; ACTIVE];
    out[..ROW_POSITIONS].copy_from_slice(rows);
    for v in 0..WINDOW_ROWS {
        let lanes = window_lanes(rows, v);
        let at = ROW_POSITIONS + WINDOW_COLUMNS * v;
        // Each 16-bit lane holds one 12-bit pattern, nothing above it.
        for (half, word) in lanes.iter().enumerate() {
            for j in 0..4 {
                out[at + 4 * half + j] = (word >> (16 * j)) as u16;
            }
        }
    }
    out
}

/// Writes the table rows of `well`'s 120 active features under `layout`.
#[inline]
pub fn active(well: &Well, layout: Layout, out: &mut [u32; ACTIVE]) {
    // One copy per layout, its strides constants (the shared layout's are
    // zero: no multiplications).
    match layout {
        Layout::Shared => active_strided(well, Layout::Shared.strides(), out),
        Layout::Positional => active_strided(well, Layout::Positional.strides(), out),
    }
}

/// [`active`] with the layout's strides.
#[inline(always)]
fn active_strided(well: &Well, (rs, base, ws): (u32, u32, u32), out: &mut [u32; ACTIVE]) {
    let rows = well.rows();
    for (r, (o, &p)) in out.iter_mut().zip(rows).enumerate() {
        *o = r as u32 * rs + u32::from(p);
    }
    for v in 0..WINDOW_ROWS {
        let lanes = window_lanes(rows, v);
        for h in 0..WINDOW_COLUMNS {
            let w = WINDOW_COLUMNS * v + h;
            out[ROW_POSITIONS + w] = base + w as u32 * ws + u32::from(lane(lanes, h));
        }
    }
}

/// The features that differ between `from` and `to`: for `i < n` (the
/// returned count), `to` has `added[i]` where `from` has `removed[i]`, at
/// the same position. So `from`'s first-layer sum, minus the removed rows,
/// plus the added ones, is `to`'s.
///
/// `from_windows` must be `Windows::new(from)`. Right for any two wells;
/// cheap when few rows differ (a placement without a line clear changes at
/// most four), since only the windows overlapping a changed row are
/// compared.
#[inline]
pub fn changes(
    from: &Well,
    from_windows: &Windows,
    to: &Well,
    layout: Layout,
    removed: &mut [u32; ACTIVE],
    added: &mut [u32; ACTIVE],
) -> usize {
    let (rs, base, ws) = layout.strides();
    let (a, b) = (from.rows(), to.rows());
    debug_assert_eq!(from_windows.0, Windows::new(from).0);
    let mut changed = 0u32;
    let mut n = 0;
    for r in 0..ROW_POSITIONS {
        if a[r] != b[r] {
            changed |= 1 << r;
            removed[n] = r as u32 * rs + u32::from(a[r]);
            added[n] = r as u32 * rs + u32::from(b[r]);
            n += 1;
        }
    }
    if changed == 0 {
        return 0;
    }
    // Window rows v..v+4 overlap a changed row for v in [first - 3, last].
    let first = changed.trailing_zeros() as usize;
    let last = 31 - changed.leading_zeros() as usize;
    for v in first.saturating_sub(3)..=last.min(WINDOW_ROWS - 1) {
        let (la, lb) = (from_windows.0[v], window_lanes(b, v));
        for half in 0..2 {
            let mut diff = la[half] ^ lb[half];
            while diff != 0 {
                let j = diff.trailing_zeros() as usize / 16;
                diff &= !(0xFFFF << (16 * j));
                let w = WINDOW_COLUMNS * v + 4 * half + j;
                let (old, new) = (la[half] >> (16 * j), lb[half] >> (16 * j));
                removed[n] = base + w as u32 * ws + (old & 0xFFF) as u32;
                added[n] = base + w as u32 * ws + (new & 0xFFF) as u32;
                n += 1;
            }
        }
    }
    n
}

/// Under [`Layout::Shared`], the table rows that differ between `from` and
/// `to` when `to` is `from` with cells added and then live row `cleared`
/// removed (the rows above it one lower, an empty row on top): one chain
/// step of the quiescent lookahead. For `i < n` (the returned count), `to`
/// has `added[i]` where `from` has `removed[i]`, so `from`'s first-layer
/// sum, minus the removed rows, plus the added ones, is `to`'s.
///
/// A shared table does not care where a pattern sits, so positions are
/// paired across the clear: `to`'s row `i` with `from`'s row `i - 1` above
/// the cleared row and row `i` below it, its new top row with the cleared
/// row; `to`'s window rows likewise, its top window row with `from`'s one
/// left over (`cleared`, or 12). Only the window rows that straddle the
/// clear, the top one and those over a row that differs under this pairing
/// are compared, so a step lists the windows near the piece and the clear
/// (about 25 of the 120 features on the lookahead's chain wells) instead of
/// every one. Right for any two wells and any `cleared` below 16 (the slow
/// twin is the full list of each well; see the tests), cheap for a step.
#[inline]
pub fn changes_after_clear(
    from: &Well,
    to: &Well,
    cleared: usize,
    removed: &mut [u32; ACTIVE],
    added: &mut [u32; ACTIVE],
) -> usize {
    let mut n = 0;
    for_each_change_after_clear(from, to, Some(cleared), |old, new| {
        removed[n] = old;
        added[n] = new;
        n += 1;
    });
    n
}

/// The high bit of each 16-bit lane of `x` that is not zero.
#[inline(always)]
fn nonzero_lanes(x: u64) -> u64 {
    const LOW: u64 = 0x7FFF_7FFF_7FFF_7FFF;
    (((x & LOW) + LOW) | x) & !LOW
}

/// Calls `f(removed, added)` for each pair [`changes_after_clear`] lists,
/// in its order, without a list: the net's chain step sums them as they
/// come (`Simd::step_after_clear`). With `cleared` `None`, `to` is `from`
/// with cells added and nothing cleared, every position is paired with
/// itself, and only the window rows over a changed row are compared: the
/// same features as [`changes`] lists under the shared layout.
#[inline(always)]
pub(crate) fn for_each_change_after_clear(
    from: &Well,
    to: &Well,
    cleared: Option<usize>,
    mut f: impl FnMut(u32, u32),
) {
    let (a, b) = (from.rows(), to.rows());
    let changed = row_changes_after_clear(a, b, cleared, &mut f);
    let mut bands = bands_after_clear(changed, cleared);
    let base = ROW_PATTERNS as u32;
    while bands != 0 {
        let v = bands.trailing_zeros() as usize;
        bands &= bands - 1;
        let (la, lb) = (window_lanes(a, paired_band(v, cleared)), window_lanes(b, v));
        for half in 0..2 {
            let mut m = nonzero_lanes(la[half] ^ lb[half]);
            while m != 0 {
                let shift = m.trailing_zeros() & !15;
                m &= m - 1;
                f(
                    base + (la[half] >> shift & 0xFFF) as u32,
                    base + (lb[half] >> shift & 0xFFF) as u32,
                );
            }
        }
    }
}

/// The rows part of [`for_each_change_after_clear`]: calls `f(old, new)`
/// (row patterns) for each row of `b` that differs from its pair in `a`,
/// top first, and returns them as a mask (bit `r` for row `r` of `b`).
#[inline(always)]
pub(crate) fn row_changes_after_clear(
    a: &[u16; LIVE_ROWS],
    b: &[u16; LIVE_ROWS],
    cleared: Option<usize>,
    mut f: impl FnMut(u32, u32),
) -> u32 {
    // `a`'s rows in `b`'s order: the cleared row on top, the rows above it
    // one lower.
    let mut s = *a;
    if let Some(c) = cleared {
        let c = c.min(LIVE_ROWS - 1);
        s.copy_within(0..c, 1);
        s[0] = a[c];
    }
    let mut changed = 0u32;
    for k in 0..LIVE_ROWS / 4 {
        let (x, y) = (pack(&s, 4 * k), pack(b, 4 * k));
        let mut m = nonzero_lanes(x ^ y);
        while m != 0 {
            let j = m.trailing_zeros() as usize / 16;
            m &= m - 1;
            let r = 4 * k + j;
            changed |= 1 << r;
            f(u32::from(s[r]), u32::from(b[r]));
        }
    }
    changed
}

/// The window rows [`for_each_change_after_clear`] compares, as a mask
/// (bit `v` for `to`'s window row `v`), given the changed rows.
///
/// `to`'s window row v is paired with `from`'s row [`paired_band`]: v - 1
/// for v in 1..=c (its rows are `from`'s one higher), v below the clear,
/// and the one left over for v = 0. A pair whose four rows were all paired
/// the same way and did not change has the same eight patterns; the others
/// (v = 0, the rows straddling the clear, c - 2..=c, and those over a
/// changed row) are compared lane by lane.
#[inline(always)]
pub(crate) fn bands_after_clear(changed: u32, cleared: Option<usize>) -> u32 {
    let Some(c) = cleared else {
        return (changed | changed >> 1 | changed >> 2 | changed >> 3) & ((1 << WINDOW_ROWS) - 1);
    };
    let c = c.min(LIVE_ROWS - 1);
    let last = c.min(WINDOW_ROWS - 1);
    let straddle = ((1u32 << (last + 1)) - 1) & !((1u32 << c.saturating_sub(2)) - 1);
    (changed | changed >> 1 | changed >> 2 | changed >> 3 | straddle | 1) & ((1 << WINDOW_ROWS) - 1)
}

/// `from`'s window row paired with `to`'s window row `v` (see
/// [`bands_after_clear`]).
#[inline(always)]
pub(crate) fn paired_band(v: usize, cleared: Option<usize>) -> usize {
    let Some(c) = cleared else {
        return v;
    };
    let c = c.min(LIVE_ROWS - 1);
    if v == 0 {
        c.min(WINDOW_ROWS - 1)
    } else if v <= c {
        v - 1
    } else {
        v
    }
}

/// Rows `at..at + 4` as one word, 16 bits each, the first lowest.
#[inline(always)]
fn pack(rows: &[u16; LIVE_ROWS], at: usize) -> u64 {
    let r = &rows[at..at + 4];
    u64::from(r[0]) | u64::from(r[1]) << 16 | u64::from(r[2]) << 32 | u64::from(r[3]) << 48
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wells() -> Vec<Well> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..200)
            .map(|_| {
                let mut rows = [0u16; LIVE_ROWS];
                for r in rows.iter_mut() {
                    *r = (next() & 0x3FF) as u16;
                }
                Well::from_live_rows_unchecked(rows)
            })
            .collect()
    }

    #[test]
    fn window_patterns_match_the_cell_by_cell_twin() {
        for well in wells() {
            let p = patterns(&well);
            assert_eq!(&p[..16], well.rows());
            for v in 0..WINDOW_ROWS {
                for h in 0..WINDOW_COLUMNS {
                    assert_eq!(p[16 + 8 * v + h], window_pattern(&well, v, h));
                }
            }
        }
    }

    #[test]
    fn active_features_are_the_patterns_at_their_positions() {
        for well in wells() {
            let p = patterns(&well);
            for layout in [Layout::Shared, Layout::Positional] {
                let mut idx = [0; ACTIVE];
                active(&well, layout, &mut idx);
                for r in 0..16 {
                    assert_eq!(idx[r], layout.row_feature(r, p[r]));
                }
                for w in 0..WINDOW_POSITIONS {
                    assert_eq!(idx[16 + w], layout.window_feature(w, p[16 + w]));
                }
                assert!(idx.iter().all(|&i| (i as usize) < layout.inputs()));
            }
        }
    }

    /// The slow twin of [`changes_after_clear`]: `from`'s full list of
    /// shared features, with each removed one replaced by its added one,
    /// is `to`'s full list as a multiset.
    fn check_after_clear(from: &Well, to: &Well, cleared: usize) -> usize {
        let (mut f, mut t) = ([0; ACTIVE], [0; ACTIVE]);
        active(from, Layout::Shared, &mut f);
        active(to, Layout::Shared, &mut t);
        let (mut rem, mut add) = ([0; ACTIVE], [0; ACTIVE]);
        let n = changes_after_clear(from, to, cleared, &mut rem, &mut add);
        assert_eq!(
            replaced(&f, &rem[..n], &add[..n]),
            sorted(&t),
            "{from:?} {to:?} {cleared}"
        );
        n
    }

    /// `from` with each of `removed` replaced by its `added`, sorted (a
    /// multiset, to compare with [`sorted`]).
    fn replaced(from: &[u32], removed: &[u32], added: &[u32]) -> Vec<u32> {
        let mut a = from.to_vec();
        for (r, ad) in removed.iter().zip(added) {
            let at = a.iter().position(|x| x == r).expect("removed is active");
            a[at] = *ad;
        }
        sorted(&a)
    }

    fn sorted(xs: &[u32]) -> Vec<u32> {
        let mut v = xs.to_vec();
        v.sort_unstable();
        v
    }

    /// Without a clear, the pairs are [`changes`]' under the shared layout.
    #[test]
    fn changes_without_a_clear_are_the_shared_changes() {
        let ws = wells();
        for pair in ws.windows(2) {
            let (mut rem, mut add) = ([0; ACTIVE], [0; ACTIVE]);
            let n = changes(
                &pair[0],
                &Windows::new(&pair[0]),
                &pair[1],
                Layout::Shared,
                &mut rem,
                &mut add,
            );
            let mut got = Vec::new();
            for_each_change_after_clear(&pair[0], &pair[1], None, |o, a| got.push((o, a)));
            let want: Vec<(u32, u32)> = rem[..n]
                .iter()
                .copied()
                .zip(add[..n].iter().copied())
                .collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn changes_after_clear_turn_one_well_into_another() {
        let ws = wells();
        for (i, pair) in ws.windows(2).enumerate() {
            check_after_clear(&pair[0], &pair[1], i % 16);
        }
    }

    #[test]
    fn changes_after_clear_on_real_clears_list_few_features() {
        // Every single clear of every piece in a few random wells.
        let mut total = (0, 0);
        for well in wells().iter().take(60) {
            let mut rows = *well.rows();
            // A live stack: the top four rows empty, a gap in each row.
            for (r, row) in rows.iter_mut().enumerate() {
                *row = if r < 4 { 0 } else { *row & !(1 << (r % WIDTH)) };
            }
            let well = Well::from_live_rows_unchecked(rows);
            for r in 4..LIVE_ROWS {
                // Fill row r's gap and some cells above it, then clear it.
                let mut to = rows;
                to[r] = crate::well::FULL_ROW;
                to[r - 1] |= 1 << (r % WIDTH);
                to.copy_within(0..r, 1);
                to[0] = 0;
                let n = check_after_clear(&well, &Well::from_live_rows_unchecked(to), r);
                total = (total.0 + n, total.1 + 1);
            }
        }
        assert!(total.0 < total.1 * 60, "{total:?}");
    }

    #[test]
    fn changes_turn_one_well_into_another() {
        let ws = wells();
        for pair in ws.windows(2) {
            for layout in [Layout::Shared, Layout::Positional] {
                let (mut from, mut to) = ([0; ACTIVE], [0; ACTIVE]);
                active(&pair[0], layout, &mut from);
                active(&pair[1], layout, &mut to);
                let (mut rem, mut add) = ([0; ACTIVE], [0; ACTIVE]);
                let windows = Windows::new(&pair[0]);
                let n = changes(&pair[0], &windows, &pair[1], layout, &mut rem, &mut add);
                assert_eq!(replaced(&from, &rem[..n], &add[..n]), sorted(&to));
            }
        }
    }
}
