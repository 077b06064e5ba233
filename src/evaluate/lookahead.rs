//! The quiescent ("bird in hand") lookahead, around any evaluator.
//!
//! A well that is one S away from a line clear is worth more than its shape
//! says, because the game hands out S whenever nothing worse exists. The
//! lookahead scores a well by the best cost along chains of single-line
//! clears:
//!
//! - from a well, the next hypothetical piece is the first of S Z O I L J T
//!   none of whose reachable placements clears two or more lines (the game
//!   would not hand out a piece that clears two), and the chain continues
//!   through every reachable placement of that piece that clears exactly
//!   one line;
//! - if that piece clears nothing (or every piece can clear two), the chain
//!   stops there;
//! - lines cleared inside the chain are hypothetical and count at half
//!   weight in the score term;
//! - the chain also stops after `depth` clears. Every clear removes six
//!   cells net and a well holds at most 144, so no chain is longer than 24
//!   clears: [`MAX_QUIESCENT_DEPTH`], the default, is no cap at all, as in
//!   the public implementation.
//!
//! The value is the minimum of the inner evaluator's cost over the well
//! itself and every well along every chain, so the lookahead never makes a
//! well look worse. [`Lookahead`] wraps any [`Evaluator`] this way; its
//! identity is the inner one's plus the chain depth (`quiescent`). The search
//! is a depth-first walk; a well is always reached after the same number of
//! clears (six cells each), so one reached again by another order of clears
//! is skipped, which changes no value. The seen wells are kept in a
//! per-thread short list, moved into a hash set past 32 wells, both reused
//! (they allocate only while growing).
//!
//! # A cost per hypothetical clear (`--chain-step-cost`)
//! [`Lookahead::with_step_cost`] adds a constant to a chain point's cost
//! for each clear it took, so that a well worth its lines still to clear
//! ranks below the well that has cleared them (0, the default, changes no
//! cost's bits; the identity names a cost only when one is set). With a
//! net's own line weight near zero (`data/train/README.md`, "The line
//! weight drifts to nothing"), a hypothetical clear is otherwise free: the
//! lookahead's first choice among the placements of the record games'
//! pieces clears fewer lines than the records did (`wide.nnue`, over the
//! 289, 302 and 366 games from piece 100: 0.32-0.36 lines a lock against
//! their 0.39-0.40; the net alone over-clears, 0.44-0.47), and a cost of
//! 0.05-0.1 brings it to theirs and agrees with more of their moves
//! (`examples/imitation.rs`, `data/train/README.md`, "How the nets rank
//! the records' moves"). It did not make the wide games better: with
//! `wide.nnue` at width 100,000 from the 366 record's pieces 300, 500
//! and 700, 261 + 354 + 364 = 979 lines at 0.05 against 982 at 0
//! (`sh data/train/chain-step/run.sh 0.05 AT`), and the record's suite at
//! width 300 is level (95.1-96.1 pieces a start against 95.4). So 0 stays
//! the default.
//!
//! # Speed
//! Each step's piece and its clearing children come from one
//! `for_each_clear` pass (the piece's choice and the walk share it; each
//! piece's candidate rows are gathered only when that piece is tried), and
//! the children are costed together through [`Evaluator::chain_costs`].
//! A chain well that an earlier path of the same walk reached is dropped
//! before it is costed.
//!
//! A net costs a chain well from its parent's first-layer sum: the memo
//! the parent's own step left, or for the search's children the one the
//! batch left ([`Evaluator::costs_with_memos`]). A shared table does not
//! care where a pattern sits, so the rows and window rows above the
//! cleared row are paired with their parent's one row higher, and only
//! the window rows that straddle the clear, the top one and those over the
//! piece are compared (`nnue::features::changes_after_clear`): about 25
//! differing features, so about 50 table rows read instead of 120, with no
//! feature list built (the AVX2 step compares eight windows to a
//! register, packs the differing ones' table offsets into a short list
//! and sums their rows in one loop once all are known).
//!
//! Measured on `hatetris bench search --net data/nets/best.nnue --quiescent
//! --width 2000 --depths 25 --threads 1` (callgrind instructions, exact
//! whatever the load; the same signature throughout): 33.97G before the
//! first speed work, 18.27G after it. Then, in turn: 17.59G with the chain
//! steps from the parent's sum; 16.38G with repeated wells dropped before
//! costing, the wave path merging only the rows it reads, the cleared row
//! taken from the placing loop and the near-full rows from a table;
//! 15.62G with one piece's candidate rows at a time; 14.88G with the
//! window rows compared in registers and no bounds checks; 14.51G with the
//! batch's children without a clear through the same step (every position
//! paired with itself); 14.12G with the table offsets computed eight at a
//! time; 13.87G with the clears' wave searches reading the well's rows
//! and top alone (`movegen::wave::Stack`, without the near-full rows);
//! 13.56G with a parent's chain steps in one AVX2 call (the path chosen
//! once, each sum stored straight to its memo); 13.44G with the gap
//! candidates' first columns from a table; 13.32G with the seen wells a
//! short list while they are few: 2.55× fewer than the first figure. A
//! chain well's net step fell from about 1,550 instructions (from
//! scratch) to about 910.
//!
//! Wall time falls less than instructions (the chains' table reads wait on
//! memory): the first build (commit 96ada63) and this one in turn, one
//! thread, on the shared 2-core machine at a load of about 4, `hatetris
//! bench search --net data/nets/best.nnue --quiescent --width 20000
//! --depths 25 --threads 1`: 1.83-1.87 µs a child against 1.06-1.10
//! (three runs each; medians 1.856 and 1.082, 1.72×); at `--width 50000
//! --depths 30`: 2.12-2.17 against 1.25-1.28 (two runs each, 1.70×). The
//! same signatures (03e08ad6535fa98e, a597f293091be63b).
//!
//! Where the wall time goes that the instructions do not show: `perf
//! record -e cpu-clock` (no hardware counters on this machine) on the
//! width-20,000 search gave the net's chain steps (`steps_after_clear`
//! and `step_after_clear`) 44 % of the samples for 28 % of the
//! instructions, the samples piled on the table rows' loads; cachegrind
//! (`--cache-sim=yes --branch-sim=yes --D1=49152,12,64
//! --LL=1048576,16,64`, the L1 and L2 of this machine, width 2,000) puts
//! 165 of the run's 208 million L1 read misses on those loads and almost
//! none past the 1 MiB L2 (the 640 KiB table stays there): the steps wait
//! on L2, one band of eight windows at a time, as the branch on each
//! band's differing lanes held back the next band's loads. With the
//! differing pairs' offsets packed into a short list first and all their
//! rows summed in one loop after (`nnue::simd`'s module doc): 1.18 µs a
//! child against 1.06 (medians of four runs each, in turn, 1.11×; and
//! 1.25 against 1.12, 1.13×, in four more with a callgrind run beside
//! them), 13.30G instructions against 13.32G, the same signature; against
//! the first build in turn: 1.93 µs a child against 1.07 (medians of
//! four runs each, 1.81×, for 2.55× fewer instructions). The
//! chain steps are then 37 % of the samples; the chains' move generation
//! (`Placements::generate_in`, `chain_children`, `candidates`, the walk)
//! about 38 %, about its share of the instructions; the search's own
//! sorting, copies, compression and ancestry about 11 %.
//!
//! On a quiet machine (the other jobs stopped), the issue's own command,
//! `hatetris bench search --net data/nets/best.nnue --quiescent --width
//! 50000 --depths 30 --threads 1`, the first build and this one in turn
//! (with the kept set's single compactions of `search::bounded`): 2.27
//! and 2.27 µs a child against 1.09 and 1.07, **2.09×**, where the
//! loaded machine had shown 1.70×; the build before the kept set's
//! change, 1.14 (1.98×). Short of 2.5×: what is left is the chains' move
//! generation and the net's steps waiting on L2. On the 16-core Xeon
//! where the issue measured 119.5 s (`../shared/device/scale.sh`, its
//! one-thread `search --net data/nets/best.nnue --quiescent --width 50000
//! --max-depth 30`): 67.5 s, 2.2 µs a child, 1.77× (one run;
//! `docs/scaling.md`).
//!
//! On that search 1.03 million children have 4.04 million chain wells
//! (3.86 million once repeats are dropped); 2.81 million walked wells have
//! a clearing piece, and 1.84 million of those have one child (0.76
//! million two, 0.20 million three): a chain is mostly a line, not a tree,
//! so what pays is the step from the parent, not sharing among siblings.
//! Where the 13.32G go: the chains 10.03G (their move generation 5.21G:
//! gap candidates 1.66G, wave searches 1.46G, locks, dedup, the clear
//! patterns and the rest 2.1G; the net's steps 3.74G; the walk and its
//! seen wells the remaining 1.1G), the net's batch for the search's
//! children 1.06G, the search itself (sorting, the kept set, the
//! adversary, the depth files' compression) about 2.2G.
//!
//! Rejected (measured on that search):
//! - a chain step from lists of changed features, summed afterwards: the
//!   lists cost more than the rows they saved (20.93G against 18.58G for
//!   the list-free step, both without the search children's memos, and
//!   18.27G before either; about 1,000 instructions a well to build them);
//! - the chain steps without the search children's memos (each walked
//!   child's sum from scratch): 18.58G against 17.59G;
//! - siblings that clear the same row sharing a base (the parent without
//!   that row), an earlier session: 2.6 of the 4.0 million chain wells had
//!   no such sibling, and the bases cost what they saved (wall time
//!   1.57-1.62 s before, 1.61-1.67 s after);
//! - the wave search stopped at the deepest candidate row: 15.66G against
//!   15.62G (the waves end about there anyway);
//! - the wave searches' slices without the near-full rows, and the gap
//!   candidates' union of rows above started at the bar: 14.55G against
//!   14.51G (not understood; not kept);
//! - caching a search child's chain result by well (the same well at the
//!   same depth has the same score, so the same result): 6.6 % of the
//!   children at width 2,000 repeat a well met before in the run, 8.0 % at
//!   width 20,000, but a direct-mapped table keeps 3.7 % of them as hits
//!   at 2¹⁶ entries (3 MB) and 6.2 % at 2¹⁸ (12 MB, beyond the caches);
//!   not built;
//! - the clears' stack built inline: its top was then computed ahead of
//!   the piece loop on every well and the loop's code grew, 14.18-14.24G
//!   against 13.87G with it built out of line;
//! - the gap candidates as a short sorted list instead of two waves per
//!   row (to save zeroing those): 13.77G against 13.56G, the list's
//!   sorted insertion and its own zeroing cost more;
//! - the seen wells' list up to 8 wells: 13.40G, against 13.32G at 16 and
//!   at 32 (32 kept);
//! - the net's table in a 2 MiB huge page (`madvise(MADV_HUGEPAGE)`; the
//!   process then held one): 1.074 µs a child against 1.055 (medians of
//!   three runs each, in turn; no gain, the L1 TLB is not what the loads
//!   wait on);
//! - the chain step's lane mask counted with `count_ones` (compiled to
//!   shifts and masks without the `popcnt` feature) rather than a count in
//!   the packing table: 1.086 against 1.088, the same (the table kept);
//! - the gap candidates' tests (`movegen::clears`: whether a placement
//!   rests, and whether it is in the sky) as masks instead of branches
//!   (cachegrind's branch model put 13 of the run's 97 million
//!   mispredictions on those two branches): 1.091 µs a child against
//!   1.083 (medians of four runs each, in turn), no gain;
//! - caching chain wells' costs across walks: 15 % of the chain wells had
//!   been costed before in the run (repeats within one walk included, now
//!   dropped), too few to pay for a lookup on every one; not built.
//!
//! The public write-up of the 100,000-wide 24 → 62 result (hallofdreams.org,
//! "Getting the World Record in HATETRIS" and its sequel) describes this
//! same walk: S, or Z where an S clears two lines, no depth limit, the best
//! over the chain, hypothetical lines at half weight. (Its weight list also
//! has a "graph heuristic" term, −2.1413, that our brief's weights leave
//! out; the write-up itself found that it made no difference at width 25M.)
//!
//! # Measurements (default weights, lines)
//! With the terms' current definition ([`crate::heuristic::TERMS_VERSION`] 2: with the
//! lookahead, holes an S or Z clear would free are not counted) and no cap,
//! width 100,000 scored **64** (depth 186) in 40 min and 18.2 MB; the
//! README has the other widths.
//!
//! With the first definition (version 1), the chain depth and the line
//! weight were tuned at widths 10,000 / 20,000 / 100,000: depth 3 scored
//! 39 / 41 / 46, depth 6 36 at 10,000, depth 12 32 at 10,000, no cap
//! 32 / 53 / 53. Hypothetical lines at full weight scored 40 / 47 with no
//! cap in twice the time (19 at depth 3, 33 at depth 6, 40 at depth 12), at
//! weight 0.75 37 at 10,000, and at weight 0 26 at 10,000. Going on past Z
//! changed no score at 10,000: no well where S and Z both clear two lines
//! turned up in 240,000 random reachable wells.
//!
//! Narrow beams cannot tell such choices apart. Each of these was run at
//! eight widths, 2,000 to 9,000 in steps of 1,000 (the sum in brackets):
//! - version 1: 22 33 42 42 24 23 28 32 (246);
//! - version 2: 21 21 21 21 21 42 41 42 (230);
//! - version 2 with no S/Z exception in the surface height:
//!   22 24 24 19 39 41 41 41 (251);
//! - version 1 with ties at equal cost and score broken by a hash of the
//!   well instead of the well's order (which prefers low stacks):
//!   22 33 42 42 24 24 44 32 (263; tied costs at the cut are rare);
//! - version 1 with ties broken by the reversed well order:
//!   24 30 35 42 24 24 26 32 (237).
//!
//! Every variant stops on the same plateaus (about 21-24 lines near depth
//! 85, 32 near 107, 41-44 near 133). Version 2 was adopted for the reading
//! of the published rule and for its 64 at width 100,000 (53 for
//! version 1), a single run each: one width is weak evidence on so noisy a
//! measure. (Without the lookahead the same change cost 37 → 22 at width
//! 100,000, so there the hole terms keep version 1's region.)

use super::{ChainChild, Evaluator, Identity, Memo};
use crate::movegen::{clear_pattern_bytes, for_each_clear, rows_of, Child};
use crate::piece::Piece;
use crate::well::Well;

/// The deepest chain [`Lookahead`] accepts; deeper requests are clamped.
/// No chain is longer than 24 clears (a well holds at most 144 cells, six
/// fewer after each), so this depth is no cap.
pub const MAX_QUIESCENT_DEPTH: u8 = 32;

/// The best point of a chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainBest {
    /// Its cost (lower is better), hypothetical lines at half weight.
    pub cost: f64,
    /// The well at that point (the evaluated well itself if no chain helps).
    pub well: Well,
    /// Number of hypothetical clears to get there; each cleared one line.
    pub steps: u8,
    /// The piece of step `i` is `Piece::ALL[(pieces >> 3·i) & 7]`.
    pub pieces: u128,
}

impl ChainBest {
    /// The piece of each step, in order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        (0..self.steps).map(|i| Piece::from_index((self.pieces >> (3 * i as u32) & 7) as usize))
    }
}

/// The chain depth `--quiescent` uses when none is given: no cap, as in
/// the public implementation (no chain is longer than 24 clears). Width
/// 100,000 scored 64 lines with it (46 with depth 3, measured on the
/// terms' first definition, which scored 53 with no cap).
pub const DEFAULT_QUIESCENT_DEPTH: u8 = MAX_QUIESCENT_DEPTH;

/// The weight of a hypothetical line relative to a real one.
pub const HYPOTHETICAL_LINE_WEIGHT: f64 = 0.5;

/// An evaluator with the quiescent lookahead: the cost of a well is the
/// best of `inner`'s costs along its chains of single-line clears.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lookahead<E> {
    inner: E,
    depth: u8,
    step_cost: f64,
}

impl<E: Evaluator> Lookahead<E> {
    /// `inner` with chains of up to `depth` clears (clamped to
    /// [`MAX_QUIESCENT_DEPTH`]).
    pub fn new(inner: E, depth: u8) -> Lookahead<E> {
        Lookahead {
            inner,
            depth: depth.min(MAX_QUIESCENT_DEPTH),
            step_cost: 0.0,
        }
    }

    /// The same lookahead with `step_cost` added to a chain point's cost
    /// for each hypothetical clear it took to reach it (0, the default:
    /// none), so that a well whose worth lies in lines it could still clear
    /// ranks below one that has cleared them. Probe:
    /// `examples/imitation.rs`.
    pub fn with_step_cost(mut self, step_cost: f64) -> Lookahead<E> {
        self.step_cost = step_cost;
        self
    }

    /// How far this lookahead's chains go and what each clear costs.
    fn chain(&self) -> Chain {
        Chain {
            depth: self.depth,
            step_cost: self.step_cost,
        }
    }

    /// The wrapped evaluator.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// The chain depth.
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The best point of `well`'s chains (see [`best_along_chain`]).
    pub fn best(&self, well: &Well, score: u32) -> ChainBest {
        best_along_chain(&self.inner, well, score, self.depth)
    }
}

impl<E: Evaluator> Evaluator for Lookahead<E> {
    fn cost(&self, well: &Well, score: f64) -> f64 {
        let own_cost = self.inner.cost(well, score);
        chain_from(&self.inner, well, None, score, self.chain(), own_cost).cost
    }

    /// The children's own costs come from the inner evaluator's batch call
    /// (so a network keeps its accumulator reuse), then each child's chains
    /// are walked from there: the same values as [`Evaluator::cost`].
    ///
    /// The batch also leaves the inner evaluator's memo of each child
    /// ([`Evaluator::costs_with_memos`]), from which the child's first chain
    /// step is costed.
    fn costs(&self, parent: &Well, parent_score: u32, children: &[Child], out: &mut Vec<f64>) {
        // This thread's memo buffer, taken out while the walks run (a
        // lookahead inside the inner evaluator finds it empty).
        let mut memos = ROOT_MEMOS.take();
        self.inner
            .costs_with_memos(parent, parent_score, children, out, &mut memos);
        for (i, (c, cost)) in children.iter().zip(out.iter_mut()).enumerate() {
            let score = f64::from(parent_score + u32::from(c.lines));
            *cost = chain_from(
                &self.inner,
                &c.well,
                memos.get(i),
                score,
                self.chain(),
                *cost,
            )
            .cost;
        }
        ROOT_MEMOS.set(memos);
    }

    fn identity(&self) -> Identity {
        let identity = self.inner.identity().with("quiescent", self.depth);
        // Only when set: the identities of runs made before it stay whole.
        if self.step_cost == 0.0 {
            identity
        } else {
            identity.with("chain_step_cost", self.step_cost)
        }
    }

    fn files(&self) -> Vec<(String, Vec<u8>)> {
        self.inner.files()
    }
}

/// Walks every chain from `well` (whose real score is `score`) up to `depth`
/// clears (clamped to [`MAX_QUIESCENT_DEPTH`]) and returns the best point.
pub fn best_along_chain<E: Evaluator + ?Sized>(
    eval: &E,
    well: &Well,
    score: u32,
    depth: u8,
) -> ChainBest {
    let score = f64::from(score);
    let chain = Chain {
        depth,
        step_cost: 0.0,
    };
    chain_from(eval, well, None, score, chain, eval.cost(well, score))
}

/// The best point of every `chain` from `well` (whose score, which may hold
/// half lines, is `score`), with the well's own cost already known (and the
/// evaluator's memo of it, if any).
fn chain_from<E: Evaluator + ?Sized>(
    eval: &E,
    well: &Well,
    memo: Option<&Memo>,
    score: f64,
    chain: Chain,
    own_cost: f64,
) -> ChainBest {
    let mut best = ChainBest {
        cost: own_cost,
        well: *well,
        steps: 0,
        pieces: 0,
    };
    let chain = Chain {
        depth: chain.depth.min(MAX_QUIESCENT_DEPTH),
        ..chain
    };
    SCRATCH.with(|s| {
        let mut shared = s.try_borrow_mut().ok();
        // A lookahead inside the inner evaluator: its own buffers.
        let mut own = None;
        let scratch = match shared.as_deref_mut() {
            Some(scratch) => scratch,
            None => own.insert(Scratch::default()),
        };
        walk(eval, well, memo, score, chain, 0, 0, &mut best, scratch);
        scratch.seen.clear();
    });
    best
}

/// The walk's buffers, kept per thread and reused (they allocate only
/// while growing).
#[derive(Default)]
struct Scratch {
    /// Per chain step: the step's children and their costs.
    levels: Vec<Level>,
    /// Wells already walked at step two or deeper during the current
    /// [`best_along_chain`] call (cleared at its end).
    seen: Seen,
}

/// A set of wells that is a short list while it is short: most walks meet
/// a few wells, which a scan finds sooner than a hash (and a list is
/// cleared at once, a set by walking its whole capacity). Past
/// [`Seen::FEW`] wells the list moves into a hash set, which holds all of
/// them from then on until the set is cleared.
#[derive(Default)]
struct Seen {
    few: Vec<Well>,
    many: ahash::AHashSet<Well>,
}

impl Seen {
    /// The most wells kept in the list.
    const FEW: usize = 32;

    /// Adds `well`; whether it was not there (as `HashSet::insert`).
    #[inline]
    fn insert(&mut self, well: Well) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&well) {
                return false;
            }
            if self.few.len() < Self::FEW {
                self.few.push(well);
                return true;
            }
            self.many.extend(self.few.iter().copied());
        }
        self.many.insert(well)
    }

    /// Empties the set.
    #[inline]
    fn clear(&mut self) {
        self.few.clear();
        // Only when there is something to clear: clearing walks the set's
        // whole capacity.
        if !self.many.is_empty() {
            self.many.clear();
        }
    }
}

/// One chain step's children (of one well), their costs and the
/// evaluator's memos of them.
#[derive(Default)]
struct Level {
    wells: Vec<ChainChild>,
    costs: Vec<f64>,
    memos: Vec<Memo>,
}

thread_local! {
    /// The batch's memos of the search's children ([`Lookahead::costs`]).
    static ROOT_MEMOS: std::cell::Cell<Vec<Memo>> = const { std::cell::Cell::new(Vec::new()) };
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The piece the game would hand out for the next chain step at `well`,
/// with its children: the first of S Z O I L J T none of whose clearing
/// placements clears two or more lines, or `None` when that piece clears
/// nothing (or every piece clears two somewhere). `children` is cleared,
/// then holds the piece's distinct clearing children (each clears one
/// line), in [`for_each_clear`]'s order: each candidate is generated once,
/// for the choice of the piece and for the walk alike.
fn chain_children(well: &Well, children: &mut Vec<ChainChild>) -> Option<Piece> {
    let bytes = clear_pattern_bytes(well);
    for piece in Piece::ALL {
        let r = rows_of(bytes, piece);
        if r == 0 {
            return None;
        }
        children.clear();
        let mut max = 0u8;
        // Merged placements: each distinct child once, so a chain is not
        // walked twice through two orientations that cover the same cells.
        // The largest clear over the distinct children is the largest over
        // all placements, so the piece chosen is the same either way.
        for_each_clear(well, piece, r, true, |child, lines, cleared| {
            max = max.max(lines);
            children.push(ChainChild {
                well: child,
                cleared,
            });
            max >= 2
        });
        match max {
            0 => return None,
            1 => return Some(piece),
            _ => {}
        }
    }
    None
}

/// How far a walk goes and what each clear costs.
#[derive(Clone, Copy)]
struct Chain {
    /// The most clears.
    depth: u8,
    /// Added to a chain point's cost per clear.
    step_cost: f64,
}

/// Extends the chain at `well` (reached after `steps` clears with the
/// pieces `pieces`, as in [`ChainBest`]; `memo` the evaluator's memo of it,
/// if any); `score` already includes the hypothetical lines at
/// [`HYPOTHETICAL_LINE_WEIGHT`].
#[allow(clippy::too_many_arguments)]
fn walk<E: Evaluator + ?Sized>(
    eval: &E,
    well: &Well,
    memo: Option<&Memo>,
    score: f64,
    chain: Chain,
    steps: u8,
    pieces: u128,
    best: &mut ChainBest,
    scratch: &mut Scratch,
) {
    if steps >= chain.depth {
        return;
    }
    let level = usize::from(steps);
    if scratch.levels.len() <= level {
        scratch.levels.resize_with(level + 1, Level::default);
    }
    // This step's buffers, taken out while the deeper steps use theirs.
    let Level {
        mut wells,
        mut costs,
        mut memos,
    } = std::mem::take(&mut scratch.levels[level]);
    if let Some(piece) = chain_children(well, &mut wells) {
        let pieces = pieces | (piece.index() as u128) << (3 * steps as u32);
        let next_score = score + HYPOTHETICAL_LINE_WEIGHT;
        // Every clear removes six cells net, so a well is always reached
        // after the same number of steps: one an earlier path already
        // reached was costed and walked then, at the same score, and
        // neither its cost (not below the best, which only fell since) nor
        // its chains can change the best. Only wells two or more steps
        // deep have several paths. So they are dropped before they are
        // costed.
        if steps > 0 {
            wells.retain(|c| scratch.seen.insert(c.well));
        }
        // The siblings' costs at once; a cost does not depend on the order
        // it is computed in, so the walk below meets the same values in the
        // same order as one that computed each on its way.
        eval.chain_costs(well, memo, &wells, next_score, &mut costs, &mut memos);
        for (i, (child, &cost)) in wells.iter().zip(&costs).enumerate() {
            let child = &child.well;
            // Added only when set, so that the default leaves every
            // cost's bits (and the search's order) as they were.
            let cost = if chain.step_cost == 0.0 {
                cost
            } else {
                cost + chain.step_cost * f64::from(steps + 1)
            };
            if cost < best.cost {
                *best = ChainBest {
                    cost,
                    well: *child,
                    steps: steps + 1,
                    pieces,
                };
            }
            walk(
                eval,
                child,
                memos.get(i),
                next_score,
                chain,
                steps + 1,
                pieces,
                best,
                scratch,
            );
        }
    }
    scratch.levels[level] = Level {
        wells,
        costs,
        memos,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list-then-set answers every insert as a plain hash set does,
    /// through the move from the list to the set and after a clear.
    #[test]
    fn seen_answers_as_a_hash_set() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut seen = Seen::default();
        for round in 0..40 {
            let mut slow = std::collections::HashSet::new();
            // From a few wells (the list alone) to many (the set).
            for _ in 0..round * 3 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut rows = [0u16; crate::well::LIVE_ROWS];
                // Few distinct wells, so that many inserts repeat.
                rows[15] = (x % (3 * round as u64 + 2)) as u16;
                let well = Well::from_live_rows_unchecked(rows);
                assert_eq!(seen.insert(well), slow.insert(well), "round {round}");
            }
            seen.clear();
        }
    }
}
