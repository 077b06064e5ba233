//! The inner loops of quantised inference, twice: plain Rust and AVX2 (the
//! two SIMD paths, [`Simd`]).
//!
//! Two operations, both on a base accumulator (the net's bias, or a
//! parent's accumulator) plus lists of table rows to add and to subtract:
//! `Simd::accumulate` returns the accumulator, `Simd::output`
//! applies the clipped ReLU and the output layer and returns the int32
//! output without storing the accumulator. The feature lists are built by
//! [`super::features`], once, for both paths. A shared net's step from a
//! parent's accumulator (`Simd::step_after_clear`, with or without a
//! cleared row) builds no feature list on the AVX2 path: it compares the
//! window rows eight lanes to a register, packs the differing lanes' table
//! offsets into a short list (a permutation from a 256-entry table of the
//! mask's set bits), and sums all their rows in one loop at the end, so
//! that every row's load is known before the first is summed; summing as
//! it found them, with a branch per differing lane, waited on each band's
//! loads in turn (1.18 µs a child against 1.06 on the record search, see
//! the Speed section of `evaluate::lookahead`'s module doc); the scalar
//! path sums the lists of `features::for_each_change_after_clear`, its
//! twin.
//!
//! The AVX2 path keeps the accumulator in `ceil(H/16)` registers (at most
//! four) for the whole sum, with one aligned 32-byte load and one
//! `vpaddw`/`vpsubw` per row and register, then `vpmaxsw`/`vpminsw` for the
//! clamp and `vpmaddwd` for the output products. It is chosen at run time
//! ([`Simd::detect`], `is_x86_feature_detected!`), so the binary still
//! runs on a CPU without AVX2.
//!
//! Both paths compute the same integers: the int16 adds wrap identically
//! (`wrapping_add` and `vpaddw`), the true accumulator is in range
//! ([`super::quant`] picks the scales for that), and the int32 output sum
//! cannot overflow, so its order does not matter. The tests compare the two
//! on every child of many wells.

use super::features::{ACTIVE, ROW_PATTERNS, ROW_POSITIONS};
use super::quant::{Acc, Block, QuantNet};
use crate::evaluate::{ChainChild, Memo};
use crate::well::Well;

/// Calls `avx2::$f::<C>(args)` with `C` the net's blocks of 16 hidden
/// units, 1 to `MAX_BLOCKS` (4, or 8 with the feature `hidden-128`;
/// `QuantNet::check` holds it there, and the last arm takes `MAX_BLOCKS`):
/// one monomorphised loop per width, so the registers stay in registers.
#[cfg(target_arch = "x86_64")]
macro_rules! by_blocks {
    ($blocks:expr, $f:ident($($arg:expr),*)) => {
        match $blocks {
            1 => avx2::$f::<1>($($arg),*),
            2 => avx2::$f::<2>($($arg),*),
            3 => avx2::$f::<3>($($arg),*),
            #[cfg(feature = "hidden-128")]
            4 => avx2::$f::<4>($($arg),*),
            #[cfg(feature = "hidden-128")]
            5 => avx2::$f::<5>($($arg),*),
            #[cfg(feature = "hidden-128")]
            6 => avx2::$f::<6>($($arg),*),
            #[cfg(feature = "hidden-128")]
            7 => avx2::$f::<7>($($arg),*),
            _ => avx2::$f::<{ super::quant::MAX_BLOCKS }>($($arg),*),
        }
    };
}

/// Which implementation of the inner loops to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simd {
    /// Plain Rust, any CPU.
    Scalar,
    /// `std::arch` AVX2 intrinsics (x86_64 only).
    Avx2,
}

impl Simd {
    /// The fastest SIMD path this CPU runs.
    pub fn detect() -> Simd {
        if Simd::Avx2.is_available() {
            Simd::Avx2
        } else {
            Simd::Scalar
        }
    }

    /// Whether this CPU can run the SIMD path.
    pub fn is_available(self) -> bool {
        match self {
            Simd::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Simd::Avx2 => false,
        }
    }

    /// A short name (`scalar`, `avx2`).
    pub fn name(self) -> &'static str {
        match self {
            Simd::Scalar => "scalar",
            Simd::Avx2 => "avx2",
        }
    }

    /// `base` plus the rows `adds` minus the rows `subs` of `net`'s table.
    /// A SIMD path that is not available runs as [`Simd::Scalar`] (the
    /// evaluator never holds one; see [`Simd::is_available`]).
    #[inline]
    pub(crate) fn accumulate(self, net: &QuantNet, base: &Acc, adds: &[u32], subs: &[u32]) -> Acc {
        #[cfg(target_arch = "x86_64")]
        if self == Simd::Avx2 && self.is_available() {
            // SAFETY: AVX2 is available (checked just above; the standard
            // library caches the answer, so the check is one load), and
            // `net.blocks` (1 to `MAX_BLOCKS`, see `QuantNet::check`) selects `C`.
            return unsafe { by_blocks!(net.blocks, accumulate(net, base, adds, subs)) };
        }
        scalar::accumulate(net, base, adds, subs)
    }

    /// The int32 output of the accumulator `base + adds - subs`.
    #[inline]
    pub(crate) fn output(self, net: &QuantNet, base: &Acc, adds: &[u32], subs: &[u32]) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if self == Simd::Avx2 && self.is_available() {
            // SAFETY: AVX2 is available (checked just above; the standard
            // library caches the answer, so the check is one load), and
            // `net.blocks` (1 to `MAX_BLOCKS`, see `QuantNet::check`) selects `C`.
            return unsafe { by_blocks!(net.blocks, output(net, base, adds, subs)) };
        }
        scalar::output(net, &scalar::accumulate(net, base, adds, subs))
    }
}

impl Simd {
    /// The int32 output of a [`Layout::Shared`] net for a well's
    /// [`features::patterns`]: its bias plus the rows of the 16 row
    /// patterns and of the 104 window patterns (after the row patterns'
    /// 1,024 rows). The same sum as [`Simd::output`] of the bias and the
    /// well's [`features::active`] list, without building that list.
    ///
    /// [`Layout::Shared`]: super::Layout::Shared
    /// [`features::patterns`]: super::features::patterns
    /// [`features::active`]: super::features::active
    #[inline]
    pub(crate) fn output_shared(self, net: &QuantNet, patterns: &[u16; ACTIVE]) -> i32 {
        debug_assert_eq!(net.layout, super::Layout::Shared);
        #[cfg(target_arch = "x86_64")]
        if self == Simd::Avx2 && self.is_available() {
            // SAFETY: as in `Simd::output`.
            return unsafe { by_blocks!(net.blocks, output_shared(net, patterns)) };
        }
        let idx = shared_indices(patterns);
        scalar::output(net, &scalar::accumulate(net, &net.bias, &idx, &[]))
    }

    /// The first-layer sum whose output [`Simd::output_shared`] gives.
    #[inline]
    pub(crate) fn accumulate_shared(self, net: &QuantNet, patterns: &[u16; ACTIVE]) -> Acc {
        debug_assert_eq!(net.layout, super::Layout::Shared);
        #[cfg(target_arch = "x86_64")]
        if self == Simd::Avx2 && self.is_available() {
            // SAFETY: as in `Simd::output`.
            return unsafe { by_blocks!(net.blocks, accumulate_shared(net, patterns)) };
        }
        scalar::accumulate(net, &net.bias, &shared_indices(patterns), &[])
    }

    /// A shared net's step: the accumulator of `to` from `from`'s
    /// (`base`), through the features [`features::changes_after_clear`]
    /// lists (`cleared` the row a chain step cleared; `None` for a
    /// placement that clears nothing, where they are [`features::changes`]'),
    /// and its output. The same integers as the lists' sum.
    ///
    /// [`features::changes`]: super::features::changes
    ///
    /// [`features::changes_after_clear`]: super::features::changes_after_clear
    #[inline]
    pub(crate) fn step_after_clear(
        self,
        net: &QuantNet,
        base: &Acc,
        from: &Well,
        to: &Well,
        cleared: Option<usize>,
    ) -> (Acc, i32) {
        debug_assert_eq!(net.layout, super::Layout::Shared);
        #[cfg(target_arch = "x86_64")]
        if self == Simd::Avx2 && self.is_available() {
            // SAFETY: as in `Simd::output`.
            return unsafe {
                by_blocks!(net.blocks, step_after_clear(net, base, from, to, cleared))
            };
        }
        let (mut removed, mut added) = ([0u32; ACTIVE], [0u32; ACTIVE]);
        let mut n = 0;
        super::features::for_each_change_after_clear(from, to, cleared, |old, new| {
            removed[n] = old;
            added[n] = new;
            n += 1;
        });
        self.step(net, base, &added[..n], &removed[..n])
    }

    /// [`Simd::step_after_clear`] from one parent (`from`, its accumulator
    /// `base`) to each chain child in turn: each child's accumulator pushed
    /// to `memos` and `f(output)` called, in order. The path is chosen once
    /// for all of them.
    #[inline]
    pub(crate) fn steps_after_clear(
        self,
        net: &QuantNet,
        base: &Acc,
        from: &Well,
        children: &[ChainChild],
        memos: &mut Vec<Memo>,
        mut f: impl FnMut(i32),
    ) {
        debug_assert_eq!(net.layout, super::Layout::Shared);
        #[cfg(target_arch = "x86_64")]
        if self == Simd::Avx2 && self.is_available() {
            // SAFETY: as in `Simd::output`.
            unsafe {
                by_blocks!(
                    net.blocks,
                    steps_after_clear(net, base, from, children, memos, &mut f)
                )
            }
            return;
        }
        for c in children {
            let (acc, y) =
                self.step_after_clear(net, base, from, &c.well, Some(usize::from(c.cleared)));
            memos.push(Memo(acc));
            f(y);
        }
    }

    /// [`Simd::accumulate`] and [`Simd::output`] at once: the accumulator
    /// `base + adds - subs` and its output.
    #[inline]
    pub(crate) fn step(self, net: &QuantNet, base: &Acc, adds: &[u32], subs: &[u32]) -> (Acc, i32) {
        #[cfg(target_arch = "x86_64")]
        if self == Simd::Avx2 && self.is_available() {
            // SAFETY: as in `Simd::output`.
            return unsafe { by_blocks!(net.blocks, step(net, base, adds, subs)) };
        }
        let acc = scalar::accumulate(net, base, adds, subs);
        (acc, scalar::output(net, &acc))
    }
}

/// The table rows of a shared net's patterns: the slow way, as a list.
fn shared_indices(patterns: &[u16; ACTIVE]) -> [u32; ACTIVE] {
    let mut idx = [0u32; ACTIVE];
    for (i, (o, &p)) in idx.iter_mut().zip(patterns).enumerate() {
        *o = u32::from(p)
            + if i < ROW_POSITIONS {
                0
            } else {
                ROW_PATTERNS as u32
            };
    }
    idx
}

mod scalar {
    use super::{Acc, Block, QuantNet};

    #[inline]
    fn add(acc: &mut [Block], row: &[Block]) {
        for (a, r) in acc.iter_mut().zip(row) {
            for (a, r) in a.0.iter_mut().zip(&r.0) {
                *a = a.wrapping_add(*r);
            }
        }
    }

    #[inline]
    fn sub(acc: &mut [Block], row: &[Block]) {
        for (a, r) in acc.iter_mut().zip(row) {
            for (a, r) in a.0.iter_mut().zip(&r.0) {
                *a = a.wrapping_sub(*r);
            }
        }
    }

    pub(super) fn accumulate(net: &QuantNet, base: &Acc, adds: &[u32], subs: &[u32]) -> Acc {
        let b = net.blocks;
        let mut acc = *base;
        for &f in adds {
            add(&mut acc[..b], &net.table[f as usize * b..][..b]);
        }
        for &f in subs {
            sub(&mut acc[..b], &net.table[f as usize * b..][..b]);
        }
        acc
    }

    pub(super) fn output(net: &QuantNet, acc: &Acc) -> i32 {
        let top = net.qa as i16;
        let mut y = net.out_bias;
        for (a, w) in acc[..net.blocks].iter().zip(&net.out) {
            for (a, w) in a.0.iter().zip(&w.0) {
                y += i32::from((*a).clamp(0, top)) * i32::from(*w);
            }
        }
        y
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{
        Acc, Block, ChainChild, Memo, QuantNet, Well, ACTIVE, ROW_PATTERNS, ROW_POSITIONS,
    };
    use crate::nnue::features::{
        bands_after_clear, paired_band, row_changes_after_clear, SPREAD, WINDOW_PATTERNS,
    };
    use crate::well::LIVE_ROWS;

    /// The most pairs a step lists: every row and window position, and
    /// eight lanes of room for the last band's store.
    const PAIRS: usize = ACTIVE + 8;

    /// `COMPRESS[m]`: the set bits of `m`, lowest first, three bits each
    /// (the lanes `_mm256_permutevar8x32_epi32` moves to the front), and
    /// their count in the top byte.
    static COMPRESS: [u32; 256] = {
        let mut out = [0u32; 256];
        let mut m = 0;
        while m < 256 {
            let (mut k, mut j) = (0, 0);
            while j < 8 {
                if m >> j & 1 == 1 {
                    out[m] |= (j as u32) << (3 * k);
                    k += 1;
                }
                j += 1;
            }
            out[m] |= (k as u32) << 24;
            m += 1;
        }
        out
    };

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(b: &Block) -> __m256i {
        // SAFETY: a `Block` is 32 bytes aligned to 32, as the load requires.
        unsafe { _mm256_load_si256((b as *const Block).cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn sum<const C: usize>(net: &QuantNet, base: &Acc, adds: &[u32], subs: &[u32]) -> [__m256i; C] {
        let mut acc = [_mm256_setzero_si256(); C];
        for c in 0..C {
            acc[c] = load(&base[c]);
        }
        // The table as rows of `C` blocks: one bounds check per row read.
        let (rows, _) = net.table.as_chunks::<C>();
        for &f in adds {
            let row = &rows[f as usize];
            for c in 0..C {
                acc[c] = _mm256_add_epi16(acc[c], load(&row[c]));
            }
        }
        for &f in subs {
            let row = &rows[f as usize];
            for c in 0..C {
                acc[c] = _mm256_sub_epi16(acc[c], load(&row[c]));
            }
        }
        acc
    }

    /// # Safety
    /// The CPU must support AVX2; `net.blocks` must be `C`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn accumulate<const C: usize>(
        net: &QuantNet,
        base: &Acc,
        adds: &[u32],
        subs: &[u32],
    ) -> Acc {
        let acc = sum::<C>(net, base, adds, subs);
        let mut out = *base;
        for c in 0..C {
            // SAFETY: a `Block` is 32 bytes aligned to 32, as the store requires.
            unsafe { _mm256_store_si256((&mut out[c] as *mut Block).cast(), acc[c]) };
        }
        out
    }

    /// The clipped ReLU and the output layer of `acc`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn finish<const C: usize>(net: &QuantNet, acc: [__m256i; C]) -> i32 {
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(net.qa as i16);
        let mut y = _mm256_setzero_si256();
        for (a, w) in acc.iter().zip(&net.out) {
            let a = _mm256_min_epi16(_mm256_max_epi16(*a, zero), top);
            y = _mm256_add_epi32(y, _mm256_madd_epi16(a, load(w)));
        }
        let y = _mm_add_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
        let y = _mm_add_epi32(y, _mm_shuffle_epi32::<0b01_00_11_10>(y));
        let y = _mm_add_epi32(y, _mm_shuffle_epi32::<0b10_11_00_01>(y));
        _mm_cvtsi128_si32(y) + net.out_bias
    }

    /// Stores `C` registers into an accumulator (the blocks past `C` zero).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store<const C: usize>(acc: [__m256i; C]) -> Acc {
        let mut out = Acc::default();
        for c in 0..C {
            // SAFETY: a `Block` is 32 bytes aligned to 32, as the store requires.
            unsafe { _mm256_store_si256((&mut out[c] as *mut Block).cast(), acc[c]) };
        }
        out
    }

    /// # Safety
    /// The CPU must support AVX2; `net.blocks` must be `C`; the net's
    /// layout must be shared.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn output_shared<const C: usize>(
        net: &QuantNet,
        patterns: &[u16; ACTIVE],
    ) -> i32 {
        finish::<C>(net, sum_shared::<C>(net, patterns))
    }

    /// # Safety
    /// The CPU must support AVX2; `net.blocks` must be `C`; the net's
    /// layout must be shared.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn accumulate_shared<const C: usize>(
        net: &QuantNet,
        patterns: &[u16; ACTIVE],
    ) -> Acc {
        store::<C>(sum_shared::<C>(net, patterns))
    }

    /// # Safety
    /// The CPU must support AVX2; `net.blocks` must be `C`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn step<const C: usize>(
        net: &QuantNet,
        base: &Acc,
        adds: &[u32],
        subs: &[u32],
    ) -> (Acc, i32) {
        let acc = sum::<C>(net, base, adds, subs);
        (store::<C>(acc), finish::<C>(net, acc))
    }

    /// The accumulator registers of `to` from `from`'s (`base`) after a
    /// step that cleared the row `cleared` (`None`: none): the body of
    /// `step_after_clear` and `steps_after_clear`, spelled out in each (a
    /// function between them was not inlined into the chain loop). `C` is
    /// the caller's block count.
    macro_rules! sum_after_clear {
        ($net:expr, $base:expr, $from:expr, $to:expr, $cleared:expr) => {{
            let (net, base, from, to, cleared): (&QuantNet, &Acc, &Well, &Well, Option<usize>) =
                ($net, $base, $from, $to, $cleared);
            let mut acc = [_mm256_setzero_si256(); C];
            for c in 0..C {
                acc[c] = load(&base[c]);
            }
            // A shared table: row patterns, then window patterns; the masks
            // below keep every offset inside it, so no row read is checked.
            assert!(
                net.table.len() >= (ROW_PATTERNS + WINDOW_PATTERNS) * C,
                "a shared table"
            );
            let (a, b) = (from.rows(), to.rows());
            // Two passes: the differing pairs' table offsets first (bytes
            // from the table's start, old and new), then their rows summed
            // in one loop, so that every row's load is known before the
            // first is summed (no branch on the lanes between the loads).
            // The same pairs as `features::for_each_change_after_clear`, in
            // the same order: its rows part as it is, its window rows eight
            // lanes to a register, packed by `COMPRESS`.
            let size = C * std::mem::size_of::<Block>();
            // At most 16 rows and 13 × 8 windows, and room for a last
            // eight-lane store past them.
            let mut old = std::mem::MaybeUninit::<[u32; PAIRS]>::uninit();
            let mut new = std::mem::MaybeUninit::<[u32; PAIRS]>::uninit();
            let (po, pn) = (
                old.as_mut_ptr().cast::<u32>(),
                new.as_mut_ptr().cast::<u32>(),
            );
            let mut n = 0usize;
            let changed = row_changes_after_clear(a, b, cleared, |o, w| {
                // SAFETY: at most `ROW_POSITIONS` row pairs, before any
                // window: inside the arrays.
                unsafe {
                    po.add(n).write((o & 0x3FF) * size as u32);
                    pn.add(n).write((w & 0x3FF) * size as u32);
                }
                n += 1;
            });
            let mut bands = bands_after_clear(changed, cleared);
            // Each lane's table row as a byte offset, eight at a time.
            let sizes = _mm256_set1_epi32(size as i32);
            let first = _mm256_set1_epi32((ROW_PATTERNS * size) as i32);
            let offsets =
                |x| _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvtepu16_epi32(x), sizes), first);
            let fields = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
            while bands != 0 {
                let v = bands.trailing_zeros() as usize;
                bands &= bands - 1;
                let (la, lb) = (lanes(a, paired_band(v, cleared)), lanes(b, v));
                // One mask bit per differing 16-bit lane (the compare's lanes
                // packed to bytes).
                let same = _mm_cmpeq_epi16(la, lb);
                let m = !(_mm_movemask_epi8(_mm_packs_epi16(same, same)) as u32) & 0xFF;
                // The differing lanes first, in order.
                let packed = COMPRESS[m as usize];
                let pick = _mm256_and_si256(
                    _mm256_srlv_epi32(_mm256_set1_epi32(packed as i32), fields),
                    _mm256_set1_epi32(7),
                );
                // SAFETY: `n` is at most 16 + 8·(bands before this one) <=
                // 16 + 8·12, so the eight lanes end inside `PAIRS`.
                unsafe {
                    _mm256_storeu_si256(
                        po.add(n).cast(),
                        _mm256_permutevar8x32_epi32(offsets(la), pick),
                    );
                    _mm256_storeu_si256(
                        pn.add(n).cast(),
                        _mm256_permutevar8x32_epi32(offsets(lb), pick),
                    );
                }
                n += (packed >> 24) as usize;
            }
            let table = net.table.as_ptr().cast::<u8>();
            for i in 0..n {
                // SAFETY: entries below `n` were written above. A row
                // pattern is masked to 10 bits and a window's lane is four
                // 3-bit fields (`SPREAD`'s lanes hold at most 7, shifted by
                // 0, 3, 6 and 9), so below 4,096: both offsets are rows of
                // the shared table's 1,024 + 4,096 rows of `C` blocks.
                let (o, w) = unsafe {
                    (
                        &*table.add(*po.add(i) as usize).cast::<[Block; C]>(),
                        &*table.add(*pn.add(i) as usize).cast::<[Block; C]>(),
                    )
                };
                for c in 0..C {
                    acc[c] = _mm256_add_epi16(acc[c], _mm256_sub_epi16(load(&w[c]), load(&o[c])));
                }
            }
            acc
        }};
    }

    /// # Safety
    /// The CPU must support AVX2; `net.blocks` must be `C`; the net's
    /// layout must be shared.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn step_after_clear<const C: usize>(
        net: &QuantNet,
        base: &Acc,
        from: &Well,
        to: &Well,
        cleared: Option<usize>,
    ) -> (Acc, i32) {
        let acc: [__m256i; C] = sum_after_clear!(net, base, from, to, cleared);
        (store::<C>(acc), finish::<C>(net, acc))
    }

    /// `step_after_clear` from one parent to each chain child in turn.
    ///
    /// # Safety
    /// As `step_after_clear`'s.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn steps_after_clear<const C: usize>(
        net: &QuantNet,
        base: &Acc,
        from: &Well,
        children: &[ChainChild],
        memos: &mut Vec<Memo>,
        f: &mut impl FnMut(i32),
    ) {
        for c in children {
            let acc: [__m256i; C] =
                sum_after_clear!(net, base, from, &c.well, Some(usize::from(c.cleared)));
            memos.push(Memo(store::<C>(acc)));
            f(finish::<C>(net, acc));
        }
    }

    /// The eight window patterns with top row `v` of `rows`, one per
    /// 16-bit lane: `features::window_lanes` in one register.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes(rows: &[u16; LIVE_ROWS], v: usize) -> __m128i {
        let s = |k: usize| {
            let p: &[u64; 2] = &SPREAD[usize::from(rows[v + k] & 0x3FF)];
            // SAFETY: `p` is 16 bytes, as an unaligned load reads.
            unsafe { _mm_loadu_si128(p.as_ptr().cast()) }
        };
        let (a, b, c, d) = (s(0), s(1), s(2), s(3));
        _mm_or_si128(
            _mm_or_si128(a, _mm_slli_epi16::<3>(b)),
            _mm_or_si128(_mm_slli_epi16::<6>(c), _mm_slli_epi16::<9>(d)),
        )
    }

    /// The bias plus a shared net's rows of `patterns`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn sum_shared<const C: usize>(net: &QuantNet, patterns: &[u16; ACTIVE]) -> [__m256i; C] {
        let mut acc = [_mm256_setzero_si256(); C];
        for (a, b) in acc.iter_mut().zip(&net.bias) {
            *a = load(b);
        }
        let (rows, _) = net.table.as_chunks::<C>();
        let (row_rows, window_rows) = rows.split_at(ROW_PATTERNS);
        let (row_patterns, window_patterns) = patterns.split_at(ROW_POSITIONS);
        for &p in row_patterns {
            let row = &row_rows[usize::from(p)];
            for c in 0..C {
                acc[c] = _mm256_add_epi16(acc[c], load(&row[c]));
            }
        }
        for &q in window_patterns {
            let row = &window_rows[usize::from(q)];
            for c in 0..C {
                acc[c] = _mm256_add_epi16(acc[c], load(&row[c]));
            }
        }
        acc
    }

    /// # Safety
    /// The CPU must support AVX2; `net.blocks` must be `C`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn output<const C: usize>(
        net: &QuantNet,
        base: &Acc,
        adds: &[u32],
        subs: &[u32],
    ) -> i32 {
        finish::<C>(net, sum::<C>(net, base, adds, subs))
    }
}
