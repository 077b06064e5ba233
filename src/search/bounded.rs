//! The bounded ordered set that keeps the best N distinct children.
//!
//! The set is a buffer of N + N/8 candidates, 32 bytes each, that is
//! compacted whenever it fills: sorted by well so that each well keeps only
//! its best candidate, then cut to the best N by a selection (not a full
//! sort). After the first compaction the worst kept candidate is a bar: a
//! child no better than it is rejected after one comparison, which is what
//! nearly every child costs once the beam has settled.
//!
//! The set is exact: the result is the N best distinct wells of everything
//! inserted, under [`Candidate`]'s total order, whatever the order of
//! insertion, so threads can feed it in any order and the beam is the same
//! with 1 thread or 64. Compacting early never loses a winner: a candidate
//! that is the best of its well and among the N best distinct wells overall
//! is also among the N best of any subset that contains it. The test suite
//! checks this against a `BTreeSet` twin.
//!
//! Each compaction costs O(N log N) and happens once per N/8 accepted
//! candidates, so O(log N) per accepted candidate, like a B-tree insert, at
//! a quarter of the memory: a `BTreeSet` of 48-byte candidates plus a
//! well → candidate map for the de-duplication cost about 150 bytes per
//! entry, this costs 36.
//!
//! Rejected: a sorted vector with inserts in the middle (quadratic; the
//! mistake that made 25M-wide beams take years).

use std::cmp::Ordering;

use crate::place::lines_cleared;
use crate::well::PackedWell;

/// A child competing for a place in the beam: 32 bytes.
///
/// Ordered by cost (lower is better), then score (higher is better), then
/// well, then parent index: a total order, so ties never depend on timing.
///
/// The score is not stored: every child in a set has had the same number of
/// pieces placed, and each piece adds 4 cells and each line removes 10, so
/// a higher score is exactly a well with fewer cells
/// ([`Candidate::score_at`] gives it back).
///
/// Serialisable because the sharded search ([`crate::distributed`]) sends
/// candidates between workers.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// Heuristic cost (lower is better).
    pub cost: f64,
    /// The child.
    pub well: PackedWell,
    /// Index of the parent in the previous beam.
    pub parent: u32,
}

const _: () = assert!(std::mem::size_of::<Candidate>() == 32);

impl Candidate {
    /// The lines cleared by a child after `depth` pieces.
    pub fn score_at(&self, depth: u32) -> u16 {
        score_at(&self.well, depth)
    }
}

/// The lines cleared by a well reached after `depth` pieces (see
/// [`Candidate`]).
pub fn score_at(well: &PackedWell, depth: u32) -> u16 {
    let lines = lines_cleared(0, depth, well.cells());
    debug_assert!(lines.is_some(), "a well reachable in {depth} pieces");
    lines.unwrap_or(0) as u16
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.cost
            .total_cmp(&other.cost)
            // Fewer cells is a higher score (see above).
            .then_with(|| self.well.cells().cmp(&other.well.cells()))
            .then_with(|| self.well.cmp(&other.well))
            .then(self.parent.cmp(&other.parent))
    }
}

/// At most `cap` distinct wells, the best by [`Candidate`]'s order.
pub struct Bounded {
    cap: usize,
    /// Room for `cap` plus the slack; compacted when it fills.
    buf: Vec<Candidate>,
    room: usize,
    /// The worst kept candidate, once `cap` distinct wells are held.
    bar: Option<Candidate>,
    /// How many of `buf`'s first candidates a compaction left (distinct
    /// wells, each at its best so far, sorted by well): the next compaction
    /// sorts only the rest and merges ([`compact_sorted`]).
    settled: usize,
    /// Compactions by [`Bounded::insert`] so far.
    compactions: u64,
    /// Full buffers handed back uncompacted ([`Bounded::spill`]), for the
    /// final cut to take in with `buf`.
    spilled: Vec<Vec<Candidate>>,
    /// An emptied buffer kept for the next one the set needs
    /// ([`Bounded::recycle`]), or none (no capacity).
    spare: Vec<Candidate>,
}

impl Bounded {
    /// An empty set holding at most `cap` wells.
    pub fn new(cap: usize) -> Bounded {
        let room = cap.saturating_add((cap / 8).max(64));
        Bounded {
            cap,
            buf: Vec::new(),
            room,
            bar: None,
            settled: 0,
            compactions: 0,
            spilled: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Offers one candidate, compacting in place when the buffer fills.
    #[inline]
    pub fn insert(&mut self, c: Candidate) {
        if let Some(Full { mut buf, settled }) = self.offer(c) {
            let bar = compact_sorted(&mut buf, settled, self.cap);
            self.tighten(bar);
            self.settled = buf.len();
            self.compactions += 1;
            self.buf = buf;
        }
    }

    /// Compacts now, as a full buffer would be (so [`Bounded::settled`]
    /// holds everything inserted so far).
    pub fn compact_now(&mut self) {
        let mut all = std::mem::take(&mut self.buf);
        for s in self.spilled.drain(..) {
            all.extend_from_slice(&s);
        }
        let bar = compact_sorted(&mut all, self.settled, self.cap);
        self.tighten(bar);
        self.settled = all.len();
        self.compactions += 1;
        self.buf = all;
    }

    /// Candidates held, duplicates and all (the buffer's length).
    pub fn held(&self) -> usize {
        self.buf.len() + self.spilled.iter().map(Vec::len).sum::<usize>()
    }

    /// Compactions by [`Bounded::insert`] and [`Bounded::compact_now`] so
    /// far.
    pub fn compactions(&self) -> u64 {
        self.compactions
    }

    /// Candidates inserted before the last compaction that survived it:
    /// distinct wells, each at its best cost of that moment (a later
    /// candidate may have improved it since, never worsened it). Empty
    /// before the first compaction.
    pub fn settled(&self) -> &[Candidate] {
        &self.buf[..self.settled.min(self.buf.len())]
    }

    /// Offers one candidate; when that fills the buffer, takes the buffer
    /// out (leaving an empty one) and returns it, for the caller to
    /// [`compact`] outside any lock and give back through
    /// [`Bounded::tighten`] and [`Bounded::offer`].
    ///
    /// Compacting a part of what was offered never loses a winner (see the
    /// module doc), so any number of taken buffers may be compacted at once
    /// by different threads, and the result is still exact.
    #[inline]
    pub fn offer(&mut self, c: Candidate) -> Option<Full> {
        if self.cap == 0 {
            return None;
        }
        // Strictly worse: the bar is itself a candidate, and comes back
        // here when the buffer holding it is compacted outside the set.
        if let Some(bar) = self.bar {
            if c > bar {
                return None;
            }
        }
        if self.buf.capacity() == 0 {
            // Room for a gather too (see `recycle`).
            self.buf = std::mem::take(&mut self.spare);
            self.buf.reserve_exact(2 * self.room);
        }
        self.buf.push(c);
        (self.buf.len() >= self.room).then(|| Full {
            buf: std::mem::take(&mut self.buf),
            settled: std::mem::take(&mut self.settled),
        })
    }

    /// Gives back a buffer that [`Bounded::offer`] took out and the caller
    /// [`compact`]ed, with the bar the compaction returned.
    ///
    /// When the buffer given back and the one held (which other threads
    /// filled while the first was compacted) fit in one buffer together,
    /// the larger is kept and the smaller, less what the bar now rejects,
    /// is copied into it: the survivors of a compaction, nearly `cap` of
    /// them, move in one swap instead of being offered again one by one,
    /// which under a shared lock was most of the time the lock was held.
    /// When they do not fit, both are pushed to `taken`, for the caller to
    /// [`gather`] and compact as one, outside the lock. (Offering the
    /// smaller into the larger, as this once did, filled it again after
    /// `cap / 8` offers: merging two sets of nearly `cap` cost about eight
    /// compactions, one after the other on one thread, which at the end
    /// of a depth held up every other: see `search::kernel`.) The emptied
    /// buffer is returned, to be dropped outside any lock.
    pub fn give_back(
        &mut self,
        mut survivors: Vec<Candidate>,
        bar: Option<Candidate>,
        taken: &mut Vec<Full>,
    ) -> Vec<Candidate> {
        self.tighten(bar);
        if survivors.len() + self.buf.len() >= self.room {
            taken.push(Full {
                settled: survivors.len(),
                buf: survivors,
            });
            taken.push(Full {
                buf: std::mem::take(&mut self.buf),
                settled: std::mem::take(&mut self.settled),
            });
            return Vec::new();
        }
        if survivors.len() > self.buf.len() {
            std::mem::swap(&mut self.buf, &mut survivors);
            self.settled = self.buf.len();
        }
        let bar = self.bar;
        self.buf
            .reserve_exact(self.room.saturating_sub(self.buf.len()));
        self.buf
            .extend(survivors.drain(..).filter(|c| bar.is_none_or(|b| *c <= b)));
        self.recycle(survivors).unwrap_or_default()
    }

    /// Keeps `emptied`, a buffer whose candidates were taken in elsewhere,
    /// for the next buffer the set needs, unless one is kept already or it
    /// is too small: then it is returned, to be dropped outside any lock.
    ///
    /// A new buffer's pages are first touched by the pushes, under the
    /// lock, and a buffer grown to gather others is copied into fresh
    /// pages. On 1 thread the buffers go round by themselves; on 8
    /// (time-sliced on 2 cores) `hatetris bench search --width 100000
    /// --depths 12` faulted in 128,000-134,000 pages against 33,700 on 1.
    /// Recycling an emptied buffer took that to 114,000-122,000, and new
    /// buffers made with room for two buffers' worth (untouched pages cost
    /// nothing resident; a gather then seldom grows one) to 97,000-108,000
    /// (system time 0.18-0.22 s against 8.5 s of user time: little, but
    /// much of it paid under the lock; peak RSS the same, 67-71 MB).
    pub fn recycle(&mut self, mut emptied: Vec<Candidate>) -> Option<Vec<Candidate>> {
        emptied.clear();
        if self.spare.capacity() == 0 && emptied.capacity() >= self.room {
            self.spare = emptied;
            return None;
        }
        Some(emptied)
    }

    /// Keeps a full buffer as it is, uncompacted, for the final cut
    /// ([`Bounded::into_sorted_by_well`]) to take in: at the end of a
    /// depth, where a compaction on one thread would hold up all the
    /// others, while the final cut runs on the whole pool.
    pub fn spill(&mut self, full: Vec<Candidate>) {
        self.spilled.push(full);
    }

    /// The buffer and the spilled ones as one ([`gather`]), each freed
    /// once copied, so that the peak holds little more than the buffers
    /// themselves.
    fn everything(self) -> Full {
        let mut taken = vec![Full {
            buf: self.buf,
            settled: self.settled,
        }];
        taken.extend(self.spilled.into_iter().map(|buf| Full { buf, settled: 0 }));
        gather(&mut taken, drop)
    }

    /// Takes the worst survivor of a compaction ([`compact`]'s result) as
    /// the bar, if it is tighter than the one held.
    pub fn tighten(&mut self, bar: Option<Candidate>) {
        if let Some(b) = bar {
            if self.bar.is_none_or(|old| b < old) {
                self.bar = Some(b);
            }
        }
    }

    /// The worst cost held, once the set is full (`None` before).
    pub fn worst_cost_if_full(&self) -> Option<f64> {
        self.bar.map(|c| c.cost)
    }

    /// The kept candidates, sorted by well: the last compaction, run on
    /// the caller's rayon pool. (Only here: a compaction during insertion
    /// may run under the caller's lock, where a parallel sort could steal a
    /// task that takes the same lock.)
    ///
    /// The buffer is sorted by well once (in parallel), which both groups
    /// each well's candidates, best first, and puts the result in the order
    /// the depth file wants. The cut to `cap` then keeps that order: the
    /// `cap`-th best is found ([`nth_best`]), and everything worse is
    /// dropped in one pass. Cutting first and sorting the survivors by well again, as the
    /// search once did, took 24.7 ms against this 16.3 ms on one thread
    /// (`cargo bench --bench select`, a width-100,000 set, both in one
    /// run), and the select phase of `hatetris bench search --width 100000
    /// --depths 30 --threads 1` went from 0.63-0.73 s to 0.44-0.46 s.
    pub fn into_sorted_by_well(self) -> Vec<Candidate> {
        use rayon::slice::ParallelSliceMut;
        let cap = self.cap;
        let mut buf = self.everything().buf;
        buf.par_sort_unstable_by(by_well);
        // `dedup_by` drops the later of two neighbours: the worse one.
        buf.dedup_by(|later, earlier| later.well == earlier.well);
        if cap > 0 && buf.len() > cap {
            let worst = nth_best(&buf, cap - 1);
            buf.retain(|c| *c <= worst);
        }
        buf
    }
}

impl Bounded {
    /// The kept candidates in no particular order, compacted on the calling
    /// thread (no rayon pool: the sharded search's owners are timely
    /// workers, one thread each).
    pub fn into_kept(self) -> Vec<Candidate> {
        let cap = self.cap;
        let Full { mut buf, settled } = self.everything();
        compact_sorted(&mut buf, settled, cap);
        buf
    }
}

/// A full buffer taken out of a set ([`Bounded::offer`]): its first
/// `settled` candidates a compaction's survivors, sorted by well, for
/// [`compact_sorted`].
pub struct Full {
    /// The candidates.
    pub buf: Vec<Candidate>,
    /// How many of the first are sorted by well, one per well.
    pub settled: usize,
}

/// The buffers in `taken` (at least one) as one, to be compacted together:
/// appended to the one with the most settled candidates (then the most
/// room, which a buffer's double room often spares a copy), grown once if
/// it must. The others, emptied, go to `emptied` (kept for
/// [`Bounded::recycle`], or dropped).
pub fn gather(taken: &mut Vec<Full>, mut emptied: impl FnMut(Vec<Candidate>)) -> Full {
    let most = (0..taken.len())
        .max_by_key(|&i| (taken[i].settled, taken[i].buf.capacity()))
        .expect("something to gather");
    let mut all = taken.swap_remove(most);
    let extra: usize = taken.iter().map(|t| t.buf.len()).sum();
    all.buf.reserve_exact(extra);
    for Full { buf: mut t, .. } in taken.drain(..) {
        all.buf.extend_from_slice(&t);
        t.clear();
        emptied(t);
    }
    all
}

/// Keeps the best candidate of each well in `buf`, then the best `cap`
/// wells, sorted by well; returns the worst kept when `cap` were kept (the
/// bar a later candidate must beat to be kept), `None` otherwise.
pub fn compact(buf: &mut Vec<Candidate>, cap: usize) -> Option<Candidate> {
    compact_sorted(buf, 0, cap)
}

/// [`compact`], for a buffer whose first `settled` candidates are already
/// sorted by well, one per well (the survivors of the compaction before):
/// only the rest is sorted, then merged in.
///
/// A full buffer is the survivors of the last compaction and `cap / 8`
/// new candidates, so this sorts an eighth of what a whole sort does; the
/// cut to `cap` also moved from a selection over the candidates to one
/// over their costs ([`nth_best`]). The compactions' share of the expand
/// time of `hatetris bench search --width 100000 --depths 20 --threads
/// 1,8` (348-350 a run on 1 thread; the builds before and after in turn,
/// twice): 13.1-14.7 % → 5.7 % on 1 thread, 14.1-14.6 % → 7.1-7.4 % on 8
/// (time-sliced on 2 cores); the select phase, which finds its cut the
/// same way, 0.44-0.56 s → 0.18-0.29 s on 1 thread.
pub fn compact_sorted(buf: &mut Vec<Candidate>, settled: usize, cap: usize) -> Option<Candidate> {
    let settled = settled.min(buf.len());
    buf[settled..].sort_unstable_by(by_well);
    if settled > 0 && settled < buf.len() {
        // Merged from the back: the new run is copied out, and the
        // settled run moves up into the room it leaves.
        let new: Vec<Candidate> = buf[settled..].to_vec();
        let (mut i, mut j, mut k) = (settled, new.len(), buf.len());
        while j > 0 {
            k -= 1;
            if i > 0 && by_well(&buf[i - 1], &new[j - 1]) == Ordering::Greater {
                buf[k] = buf[i - 1];
                i -= 1;
            } else {
                buf[k] = new[j - 1];
                j -= 1;
            }
        }
    }
    // `dedup_by` drops the later of two neighbours: the worse one.
    buf.dedup_by(|later, earlier| later.well == earlier.well);
    if cap > 0 && buf.len() >= cap {
        let worst = nth_best(buf, cap - 1);
        buf.retain(|c| *c <= worst);
        return Some(worst);
    }
    None
}

/// The order of a compaction's sort: by well, and a well's best first.
fn by_well(a: &Candidate, b: &Candidate) -> Ordering {
    a.well.cmp(&b.well).then_with(|| a.cmp(b))
}

/// The `n`-th best (from 0) of `all`, which holds more than `n` distinct
/// candidates: the `n`-th lowest cost is selected among the costs alone
/// (8 bytes each, side by side), and only the candidates of that very cost
/// are compared whole.
pub fn nth_best(all: &[Candidate], n: usize) -> Candidate {
    let mut costs: Vec<f64> = all.iter().map(|c| c.cost).collect();
    let (_, &mut cost, _) = costs.select_nth_unstable_by(n, f64::total_cmp);
    drop(costs);
    let below = all
        .iter()
        .filter(|c| c.cost.total_cmp(&cost).is_lt())
        .count();
    let mut tied: Vec<Candidate> = all
        .iter()
        .filter(|c| c.cost.total_cmp(&cost).is_eq())
        .copied()
        .collect();
    let (_, &mut nth, _) = tied.select_nth_unstable(n - below);
    nth
}
