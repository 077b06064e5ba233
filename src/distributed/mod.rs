//! The beam sharded over timely-dataflow workers: a spike of
//! `docs/distributed.md`, one depth in one process.
//!
//! **What it owns.** [`expand_depth`]: one depth's expansion and exact top-N
//! selection run by W timely workers (`timely::execute` with
//! `Config::process(W)`), whose result must equal today's kernel
//! ([`crate::search::expand_depth`]) entry for entry: the same wells, the
//! same parents, in the same (well) order. It exists to prove the design's
//! core on timely before the run folder, the CLI and several processes are
//! built on it.
//!
//! **How a depth runs** (design §3):
//! 1. *Expand.* Worker `w` of `W` takes the parents at indices
//!    `[w·len/W, (w+1)·len/W)` and expands them with the kernel's own step
//!    (`Kernel::children`: the adversary's piece, the evaluator's batch
//!    call). Each child goes out as a [`Candidate`] (32 bytes: cost, packed
//!    well, parent index).
//! 2. *Own.* The child travels to its owner, worker
//!    `mix64(well_hash(well)) mod W` (design §2; timely's exchange takes a
//!    route below the peer count to exactly that worker). Every candidate
//!    for a well meets every other at one owner, which keeps the best in a
//!    [`Bounded`] set of width N: de-duplication is local and exact.
//! 3. *Cut.* When timely's progress tracking says the owner's input frontier
//!    has passed the depth (no child of it is in flight anywhere), the owner
//!    has its exact local top N.
//!
//! **The spike's simplifications**, each with its cost:
//! - *Gather instead of the radix cut (design §4.3).* Every owner sends its
//!   local top N (up to N candidates) to worker 0, which keeps the best N
//!   of the union and sorts them by well. Exact, because an owner's local
//!   top N holds every well of the global top N that it owns. It costs W·N
//!   records to one worker per depth (32 bytes each; 96 MB at N = 10⁶ and
//!   W = 3) and a serial selection there, where the design's radix select
//!   sends a few 1 KiB histograms and a tiny boundary bucket.
//! - *A bar in shared memory instead of the histogram bar (design §4.2).*
//!   Once an owner's set holds N distinct wells, its worst kept cost is a
//!   valid global bar (N wells already cost no more), and the owners publish
//!   the lowest such cost in an `AtomicU64` that expanders read as the
//!   kernel reads `worst`. It only exists inside one process, and it is
//!   weaker than the design's (an owner holds 1/W of the wells, so its set
//!   fills W times later), so more records cross than §4.2 plans for.
//! - *Parent indices, not placement codes (design §3.1).* In one process
//!   every worker knows the whole beam's numbering, so a candidate carries
//!   its parent's index in the depth file, and the owner's tie-break on
//!   equal (cost, well) is today's. Several processes need the design's
//!   placement code instead.
//! - *The beam in memory, shared by the workers* (an `Arc<[Stored]>`), not
//!   a depth file per shard, and no history: enemies that keep one (HATETRIS,
//!   Brzustowski) are refused.
//!
//! **In the depth loop.** [`Sharded`] is a [`DepthExpander`]: set as
//! `Options::expander` (the hidden `hatetris search --workers W`), it takes
//! the kernel's place for each depth, and the loop writes the depth files
//! as before, byte for byte the same. timely is started once per depth
//! (threads spawned and joined each time, about a millisecond), the beam is
//! read whole into memory first, and a stop signal takes effect between
//! depths: all spike costs that the real version (one `timely::execute` for
//! the whole run, the depth as the timestamp) does not pay.
//!
//! **Why an `Arc` evaluator.** `timely::execute` runs its closure on threads
//! it spawns itself and asks for `'static`; the allocator builders that would
//! let us start workers on scoped threads are built by a crate-private trait
//! in `timely_communication` 0.32. So the evaluator and the beam come in
//! owned (`Arc`), not borrowed as the kernel takes them.
//!
//! Rejected: routing by `well_hash` alone. FNV's low bits are weak for
//! wells that differ in one row; `mix64` spreads every bit (and is what the
//! design fixes, so a resumed run on other machines routes the same).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::operators::{Capability, Exchange as _, Inspect, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};

use crate::evaluate::Evaluator;
use crate::run::store::Stored;
use crate::search::ancestry::{mix64, well_hash};
use crate::search::bounded::{Bounded, Candidate};
use crate::search::distinct::Distinct;
use crate::search::kernel::Kernel;
use crate::search::{Adversary, DepthExpander, Expanded};
use crate::well::PackedWell;

/// Why a sharded depth could not run.
#[derive(Debug, thiserror::Error)]
pub enum DistributedError {
    /// The enemy's pieces depend on each entry's past, which this spike does
    /// not shard.
    #[error("{0} keeps a history, which the sharded depth does not handle yet")]
    History(crate::enemy::EnemyKind),
    /// No workers.
    #[error("at least one worker is needed")]
    NoWorkers,
    /// timely could not start, or a worker failed.
    #[error("timely: {0}")]
    Timely(String),
}

/// The shard that owns `well` among `shards`: `mix64(well_hash(well)) mod
/// shards` (design §2). Fixed and unseeded, so every process agrees.
pub fn owner(well: &PackedWell, shards: usize) -> u64 {
    mix64(well_hash(&well.unpack())) % shards as u64
}

/// Parents a worker expands between two turns of its dataflow, so that
/// owners take in what was sent to them while expansion goes on.
const STEP_EVERY: usize = 64;

/// The sharded depth as the search's [`DepthExpander`]
/// ([`crate::search::Options::expander`]): `hatetris search --workers W`.
pub struct Sharded {
    /// timely workers (threads) in this process.
    pub workers: usize,
    /// Children kept.
    pub width: usize,
    /// The search's evaluator, owned (see the module doc).
    pub evaluator: Arc<dyn Evaluator + Send>,
    /// The search's enemy; one without history.
    pub adversary: Adversary,
}

impl DepthExpander for Sharded {
    fn expand(&self, beam: Arc<[Stored]>, depth: u32) -> Result<Expanded, String> {
        expand_depth(
            beam,
            depth,
            self.width,
            Arc::clone(&self.evaluator),
            self.adversary,
            self.workers,
        )
        .map_err(|e| e.to_string())
    }
}

/// One depth, sharded over `workers` timely workers in this process: the
/// best `width` distinct children of `beam` (the beam after `depth` pieces)
/// under [`Candidate`]'s order, sorted by well, each with its parent's
/// index in `beam`. Its `kept` equals [`crate::search::expand_depth`] for
/// any `workers`.
pub fn expand_depth(
    beam: Arc<[Stored]>,
    depth: u32,
    width: usize,
    evaluator: Arc<dyn Evaluator + Send>,
    adversary: Adversary,
    workers: usize,
) -> Result<Expanded, DistributedError> {
    if adversary.keeps_history() {
        return Err(DistributedError::History(adversary.kind()));
    }
    if workers == 0 {
        return Err(DistributedError::NoWorkers);
    }
    // The owners' bar (see the module doc): the lowest worst-kept cost of a
    // full owner set, as f64 bits.
    let bar = Arc::new(AtomicU64::new(f64::INFINITY.to_bits()));
    let guards = timely::execute(timely::Config::process(workers), move |worker| {
        let (me, peers) = (worker.index(), worker.peers());
        let mut input = InputHandleVec::<u32, Candidate>::new();
        let probe = ProbeHandle::new();
        let gathered = Rc::new(RefCell::new(Vec::new()));
        worker.dataflow::<u32, _, _>(|scope| {
            let sink = Rc::clone(&gathered);
            let bar = Arc::clone(&bar);
            scope
                .input_from(&mut input)
                .unary_frontier(
                    Exchange::new(move |c: &Candidate| owner(&c.well, peers)),
                    "Own",
                    move |_, _| {
                        // One set per depth (time) still open here.
                        let mut sets: Vec<(Capability<u32>, Bounded)> = Vec::new();
                        move |(input, frontier), output| {
                            input.for_each_stamp(|cap, data| {
                                let t = *cap.least().expect("a time is totally ordered");
                                let at = match sets.iter().position(|(c, _)| *c.time() == t) {
                                    Some(at) => at,
                                    None => {
                                        let cap = cap
                                            .retain_least(output.output_index())
                                            .expect("a time is totally ordered");
                                        sets.push((cap, Bounded::new(width)));
                                        sets.len() - 1
                                    }
                                };
                                let set = &mut sets[at].1;
                                for batch in data {
                                    for c in batch.drain(..) {
                                        set.insert(c);
                                    }
                                }
                                if let Some(worst) = set.worst_cost_if_full() {
                                    lower(&bar, worst);
                                }
                            });
                            // A depth whose time the frontier has passed is
                            // complete here: send its local top N on.
                            sets.retain_mut(|(cap, set)| {
                                if frontier.less_equal(cap.time()) {
                                    return true;
                                }
                                let set = std::mem::replace(set, Bounded::new(0));
                                output
                                    .session(cap)
                                    .give_iterator(set.into_kept().into_iter());
                                false
                            });
                        }
                    },
                )
                .container::<Vec<Candidate>>()
                // The spike's gather: every owner's top N to worker 0.
                .exchange(|_| 0)
                .inspect(move |c| sink.borrow_mut().push(*c))
                .probe_with(&probe);
        });

        let kernel = Kernel {
            eval: &*evaluator,
            adversary,
            history: None,
            next: &[],
            width,
            threads: 1,
        };
        let (lo, hi) = (beam.len() * me / peers, beam.len() * (me + 1) / peers);
        let (mut buf, mut costs) = (Vec::with_capacity(128), Vec::with_capacity(128));
        let (mut children, mut distinct) = (0u64, Distinct::default());
        for index in lo..hi {
            kernel.children(&beam[index], index, depth, &mut buf, &mut costs);
            children += buf.len() as u64;
            let worst = f64::from_bits(bar.load(Ordering::Relaxed));
            for (c, &cost) in buf.iter().zip(&costs) {
                distinct.insert(well_hash(&c.well));
                if cost > worst {
                    continue;
                }
                input.send(Candidate {
                    cost,
                    well: c.well.pack(),
                    parent: index as u32,
                });
            }
            if (index - lo) % STEP_EVERY == STEP_EVERY - 1 {
                worker.step();
            }
        }
        // Closing the input lets the frontier pass the depth once every
        // worker has closed its own and nothing is in flight.
        input.close();
        // Park, not spin, while the other workers finish: on a shared box
        // a spinning worker takes the core a slower peer needs.
        while !probe.done() {
            worker.step_or_park(None);
        }
        let kept = (me == 0).then(|| best_by_well(gathered.take(), width));
        (kept, children, distinct)
    })
    .map_err(DistributedError::Timely)?;
    let (mut kept, mut children, mut distinct) = (None, 0, Distinct::default());
    for result in guards.join() {
        let (k, c, d) = result.map_err(DistributedError::Timely)?;
        kept = kept.or(k);
        children += c;
        distinct.merge(&d);
    }
    Ok(Expanded {
        kept: kept.expect("worker 0 returns the kept set"),
        children,
        unique: distinct.count(),
    })
}

/// The best `width` of the owners' kept sets (whose wells are distinct,
/// since each well has one owner), sorted by well.
fn best_by_well(mut all: Vec<Candidate>, width: usize) -> Vec<Candidate> {
    if all.len() > width {
        if width == 0 {
            all.clear();
        } else {
            all.select_nth_unstable(width - 1);
            all.truncate(width);
        }
    }
    all.sort_unstable_by_key(|c| c.well);
    all
}

/// Lowers the shared bar to `cost` if that is lower.
fn lower(bar: &AtomicU64, cost: f64) {
    let mut old = bar.load(Ordering::Relaxed);
    while cost < f64::from_bits(old) {
        match bar.compare_exchange_weak(old, cost.to_bits(), Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(now) => old = now,
        }
    }
}
