//! The timely dataflow behind the sharded search: one `timely::execute` for
//! the whole run, in every process, with the iteration number as the
//! timestamp (see the module doc of [`super`] for what a depth does).
//!
//! Three streams, each a timely input that every worker holds and advances
//! once per iteration, so that progress tracking can tell each worker when
//! an iteration's records have all arrived:
//! - **orders**, from the coordinator (worker 0 of process 0) to everyone:
//!   one `Start` (with the depth, and whether to expand the parents, write
//!   them as the worker's shard file, or both) or `End` per worker, each
//!   parent of the beam, routed to the worker that owns it, and, for an enemy that
//!   keeps a history, the beam's history snapshot to the first worker of
//!   each process, which decodes it for the process's workers ([`Local`]);
//! - **children**, from every expanding worker to the well's owner, whose
//!   exact set keeps its best `width`; after each compaction the owner sends
//!   a tally of its costs to the first worker of every process (the bar,
//!   [`Tallies`]), and when the frontier passes the iteration, its set, cut
//!   at the bar, to the coordinator (the gather);
//! - **reports**, one per worker per iteration to the coordinator: children
//!   counted, the distinct-children sketch, records sent to other processes,
//!   the worker's settings id, so that a process started with other
//!   settings is caught before its children are used, (Brzustowski) the
//!   state its parents' children inherit, and the digest of the shard file
//!   it wrote.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};

use rayon::slice::ParallelSliceMut;
use serde::{Deserialize, Serialize};
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::operators::{Capability, Exchange as _, Inspect, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

use super::bar::{tally, tally_step, Bar, Tallies};
use super::{DistributedError, Shard, Traffic};
use crate::run::shards::{
    remove_shard_temporaries, shard_depth_path, shard_of, write_shard_depth, Shards, Written,
};
use crate::run::store::{DepthFile, Stored};
use crate::search::adversary::BeamHistory;
use crate::search::bounded::{Bounded, Candidate};
use crate::search::distinct::Distinct;
use crate::search::expand::{ParentStep, Scratch};
use crate::search::Expanded;
use crate::well::PackedWell;

/// What the coordinator sends: routed by `to`, a worker index.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Order {
    /// The parents sent to you in this iteration are your shard of the
    /// beam after `depth` pieces, of `len` entries: expand them if
    /// `expand`, write them as your shard's file of `depth` if `write`.
    Start {
        to: u32,
        depth: u32,
        len: u32,
        expand: bool,
        write: bool,
        /// Depths whose shard files to read back and send the
        /// coordinator (a resume).
        recall: Vec<u32>,
    },
    /// One parent: entry `index` of the beam.
    Parent {
        to: u32,
        index: u32,
        well: PackedWell,
        score: u16,
    },
    /// The beam's history snapshot (`BeamHistory::to_snapshot`), to the first
    /// worker of each process.
    History { to: u32, bytes: Vec<u8> },
    /// The run is over: close everything.
    End { to: u32 },
}

impl Order {
    fn to(&self) -> u64 {
        match *self {
            Order::Start { to, .. }
            | Order::Parent { to, .. }
            | Order::History { to, .. }
            | Order::End { to } => u64::from(to),
        }
    }
}

/// Payload bytes of a record on the wire (bincode, which timely uses:
/// fixed-width integers, arrays without a length): a parent order is the
/// enum tag, `to`, `index`, the packed well and the score.
const ORDER_BYTES: u64 = 4 + 4 + 4 + 20 + 2;
/// A candidate: cost, packed well, parent index.
const CANDIDATE_BYTES: u64 = 8 + 20 + 4;

/// A worker's account of one iteration, for the coordinator.
#[derive(Clone, Serialize, Deserialize)]
struct Report {
    worker: u32,
    settings: u64,
    children: u64,
    distinct: Distinct,
    /// Records this worker sent to workers of other processes (children
    /// and, for the coordinator, parents and histories), in bytes.
    remote_bytes: u64,
    /// Brzustowski: `(index, state)` for each parent this worker expanded,
    /// the state its children inherit; empty for the other enemies.
    states: Vec<(u32, u32)>,
    /// When asked to write: its shard's file of the depth, or why it could
    /// not be written.
    written: Option<Result<Written, String>>,
    /// When asked to recall: the wells of its shard's files of those
    /// depths, read back, or why they could not be read.
    recalled: Option<Result<Vec<Vec<PackedWell>>, String>>,
}

/// A depth for the coordinator to run, from the depth loop.
pub(super) struct Job {
    pub beam: Arc<[Stored]>,
    pub depth: u32,
    pub history: Option<Arc<[u8]>>,
    pub expand: bool,
    pub write: bool,
    pub recall: Vec<u32>,
}

/// The coordinator's ends of its channels with the depth loop.
pub(super) struct Coordinator {
    /// Threads for the final sort, as many as the process's workers (who
    /// wait for it).
    pub pool: rayon::ThreadPool,
    pub jobs: mpsc::Receiver<Job>,
    pub results: mpsc::Sender<Result<Expanded, DistributedError>>,
    pub traffic: Arc<TrafficCounters>,
}

/// Totals the coordinator keeps for [`super::Cluster::traffic`].
#[derive(Default)]
pub(super) struct TrafficCounters {
    pub depths: AtomicU64,
    pub bytes: AtomicU64,
}

impl TrafficCounters {
    pub fn read(&self) -> Traffic {
        Traffic {
            depths: self.depths.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

/// What the workers of one process share.
#[derive(Default)]
pub(super) struct Local {
    bar: Bar,
    tallies: Tallies,
    history: Decoded,
    /// Tallies this process's owners sent to other processes, in bytes,
    /// not yet reported.
    tally_bytes: AtomicU64,
}

/// What an owner sends on: a well it keeps, for the gather, or a tally of
/// its kept costs, for the bar.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Owned {
    Kept(Candidate),
    /// Owner `owner`'s costs at ranks `step`, `2·step`, … of its distinct
    /// wells in iteration `time` (see [`Tallies`]), to worker `to`, the
    /// first of a process.
    Tally {
        to: u32,
        owner: u32,
        time: u32,
        costs: Vec<f64>,
    },
}

/// The beam's history for one iteration, decoded by the process's first
/// worker and shared by the others, with the slots Brzustowski's kernel
/// writes each entry's next state to.
#[derive(Default)]
struct Decoded {
    slot: Mutex<Option<(u32, Arc<SharedHistory>)>>,
    ready: Condvar,
}

struct SharedHistory {
    history: BeamHistory,
    next: Vec<AtomicU32>,
}

impl SharedHistory {
    /// The history the coordinator sent among `orders`, for the beam
    /// after `depth` pieces, of `len` entries.
    fn decode(orders: &[Order], shard: &Shard, depth: u32, len: u32) -> SharedHistory {
        let bytes = orders.iter().find_map(|o| match o {
            Order::History { bytes, .. } => Some(bytes),
            _ => None,
        });
        let bytes = bytes.expect("the coordinator sends every process the history");
        // The snapshot was made in memory from a sound history a moment
        // ago: not decoding it is a bug, not bad input.
        let history = BeamHistory::from_snapshot(shard.adversary, bytes, depth, len as usize)
            .expect("the coordinator's history snapshot decodes");
        SharedHistory {
            next: history.next_slots(len as usize),
            history,
        }
    }
}

impl Decoded {
    fn put(&self, time: u32, history: Arc<SharedHistory>) {
        *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((time, history));
        self.ready.notify_all();
    }

    /// Waits for iteration `time`'s history. Safe inside a timely worker:
    /// the first worker decodes it as soon as its orders are in, and
    /// needs nothing from this one to do so.
    fn get(&self, time: u32) -> Arc<SharedHistory> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match &*slot {
                Some((t, h)) if *t == time => return Arc::clone(h),
                _ => slot = self.ready.wait(slot).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// Lets the memory go once every worker of the process is done.
    fn clear(&self) {
        self.slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// An owner's set for one iteration, with what it told the others.
struct Owner {
    cap: Capability<u32>,
    set: Bounded,
    /// The set's compactions when its last tally went out.
    told: u64,
    /// Before the set's first compaction, the size at which to compact it
    /// early for a first tally (doubled each time): an owner receives about
    /// a share of the children, so its buffer would fill late.
    early: usize,
}

impl Owner {
    fn new(cap: Capability<u32>, width: usize, shards: usize) -> Owner {
        Owner {
            cap,
            set: Bounded::new(width),
            told: 0,
            early: (width / shards).max(1024),
        }
    }

    /// Takes in `candidates` of iteration `time`, and lowers the process's
    /// bar if the set is full. With several owners (`shards`), returns the
    /// tally to send every process when the set has compacted since the
    /// last one (compacting early while it is not full; see `bar.rs`).
    fn take_in(
        &mut self,
        candidates: impl Iterator<Item = Candidate>,
        time: u32,
        bar: &Bar,
        shards: usize,
        step: usize,
    ) -> Option<Vec<f64>> {
        for c in candidates {
            self.set.insert(c);
        }
        if let Some(worst) = self.set.worst_cost_if_full() {
            bar.lower(time, worst);
        }
        if shards == 1 {
            return None;
        }
        if self.set.worst_cost_if_full().is_none() && self.set.held() >= self.early {
            self.set.compact_now();
            self.early *= 2;
        }
        if self.set.compactions() == self.told {
            return None;
        }
        self.told = self.set.compactions();
        Some(tally(&self.set, step)).filter(|costs| !costs.is_empty())
    }
}

/// A worker's shard of the run folder: where it writes its part of each
/// beam, and the digest its next file names.
struct ShardFiles {
    dir: Option<std::path::PathBuf>,
    layout: Shards,
    shard: u32,
    run: u64,
    /// The digest of this shard's last file, once known.
    previous: Option<(u32, u64)>,
    /// Whether a kill's leftovers were removed from the shard's folder.
    cleaned: bool,
}

impl ShardFiles {
    /// The folder its shard's folder is in.
    fn dir(&self) -> Result<&std::path::Path, String> {
        self.dir
            .as_deref()
            .ok_or_else(|| "asked for a shard file, but no folder was given".to_string())
    }

    /// Writes `share`, this shard's part of the beam after `depth` pieces
    /// (sorted by well), as its file of `depth`.
    fn write(&mut self, depth: u32, share: &[Stored]) -> Result<Written, String> {
        let dir = self.dir()?;
        if !self.cleaned {
            remove_shard_temporaries(dir, self.shard).map_err(|e| e.to_string())?;
        }
        // The file before: the one this worker wrote last, or on resuming,
        // the one on disk.
        let previous = match (depth, self.previous) {
            (0, _) => 0,
            (d, Some((at, digest))) if at + 1 == d => digest,
            (d, _) => DepthFile::open(&shard_depth_path(dir, self.shard, d - 1))
                .map_err(|e| e.to_string())?
                .digest(),
        };
        let written = write_shard_depth(
            dir,
            self.layout,
            self.shard,
            depth,
            self.run,
            previous,
            share,
        )
        .map_err(|e| e.to_string())?;
        self.cleaned = true;
        self.previous = Some((depth, written.digest));
        Ok(written)
    }

    /// The wells of this shard's files of `depths`, read back.
    fn read(&self, depths: &[u32]) -> Result<Vec<Vec<PackedWell>>, String> {
        let dir = self.dir()?;
        depths
            .iter()
            .map(|&d| {
                let path = shard_depth_path(dir, self.shard, d);
                let entries = DepthFile::open(&path)
                    .and_then(|f| f.read_all())
                    .map_err(|e| e.to_string())?;
                Ok(entries.iter().map(|e| e.well.pack()).collect())
            })
            .collect()
    }
}

/// Parents a worker expands between two turns of its dataflow, so that
/// owners take in what was sent to them while expansion goes on.
const STEP_EVERY: usize = 64;

/// One worker, from the start of the run to its end. `workers` is the
/// number per process (timely numbers a process's workers contiguously,
/// so worker `i` is in process `i / workers`); `coordinator` is set for
/// worker 0 of process 0 only.
pub(super) fn work(
    worker: &mut Worker,
    workers: usize,
    shard: &Shard,
    local: &Arc<Local>,
    coordinator: Option<Coordinator>,
) -> Result<(), String> {
    let (me, peers) = (worker.index(), worker.peers());
    let width = shard.width;
    let mut orders_in = InputHandleVec::<u32, Order>::new();
    let mut children_in = InputHandleVec::<u32, Candidate>::new();
    let mut reports_in = InputHandleVec::<u32, Report>::new();
    let orders_probe = ProbeHandle::new();
    let gather_probe = ProbeHandle::new();
    let orders = Rc::new(RefCell::new(Vec::<Order>::new()));
    let gathered = Rc::new(RefCell::new(Vec::<Candidate>::new()));
    let processes = peers / workers;
    let step = tally_step(width, peers);
    let reports = Rc::new(RefCell::new(Vec::<Report>::new()));
    worker.dataflow::<u32, _, _>(|scope| {
        let sink = Rc::clone(&orders);
        scope
            .input_from(&mut orders_in)
            .exchange(|o: &Order| o.to())
            .inspect(move |o| sink.borrow_mut().push(o.clone()))
            .probe_with(&orders_probe);

        let sink = Rc::clone(&gathered);
        let owner_local = Arc::clone(local);
        let local = Arc::clone(local);
        scope
            .input_from(&mut children_in)
            .unary_frontier(
                Exchange::new(move |c: &Candidate| {
                    u64::from(shard_of(&c.well.unpack(), peers as u32))
                }),
                "Own",
                move |_, _| {
                    let local = owner_local;
                    // One set per iteration (time) still open here.
                    let mut sets: Vec<Owner> = Vec::new();
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            let t = *cap.least().expect("a time is totally ordered");
                            let at = match sets.iter().position(|o| *o.cap.time() == t) {
                                Some(at) => at,
                                None => {
                                    let cap = cap
                                        .retain_least(output.output_index())
                                        .expect("a time is totally ordered");
                                    sets.push(Owner::new(cap, width, peers));
                                    sets.len() - 1
                                }
                            };
                            let o = &mut sets[at];
                            let candidates = data.flat_map(|batch| batch.drain(..));
                            let told = o.take_in(candidates, t, &local.bar, peers, step);
                            let Some(costs) = told else {
                                return;
                            };
                            let mut session = output.session(&o.cap);
                            for process in 0..processes {
                                if process != me / workers {
                                    local
                                        .tally_bytes
                                        .fetch_add(16 + 8 * costs.len() as u64, Ordering::Relaxed);
                                }
                                session.give(Owned::Tally {
                                    to: (process * workers) as u32,
                                    owner: me as u32,
                                    time: t,
                                    costs: costs.clone(),
                                });
                            }
                        });
                        // An iteration the frontier has passed is complete
                        // here: send its local best on, but only what can
                        // still make the cut (the bar is valid, so no
                        // winner costs more).
                        sets.retain_mut(|o| {
                            if frontier.less_equal(o.cap.time()) {
                                return true;
                            }
                            let set = std::mem::replace(&mut o.set, Bounded::new(0));
                            let bar = local.bar.get(*o.cap.time());
                            let kept = set.into_kept().into_iter().filter(|c| c.cost <= bar);
                            output.session(&o.cap).give_iterator(kept.map(Owned::Kept));
                            false
                        });
                    }
                },
            )
            .container::<Vec<Owned>>()
            // The gather: every owner's best `width` to the coordinator;
            // the tallies to the first worker of each process.
            .exchange(|o: &Owned| match o {
                Owned::Kept(_) => 0,
                Owned::Tally { to, .. } => u64::from(*to),
            })
            .inspect(move |o| match o {
                Owned::Kept(c) => sink.borrow_mut().push(*c),
                Owned::Tally {
                    owner, time, costs, ..
                } => {
                    let bar =
                        local
                            .tallies
                            .take(*time, *owner as usize, costs.clone(), peers, width);
                    if let Some(bar) = bar {
                        local.bar.lower(*time, bar);
                    }
                }
            })
            .probe_with(&gather_probe);

        let sink = Rc::clone(&reports);
        scope
            .input_from(&mut reports_in)
            .exchange(|_| 0)
            .inspect(move |r| sink.borrow_mut().push(r.clone()))
            .probe_with(&gather_probe);
    });

    let my_process = me / workers;
    let first_of_process = me % workers == 0;
    // Other processes to count traffic to.
    let several = peers > workers;
    let mut files = ShardFiles {
        dir: shard.out.clone(),
        layout: Shards {
            processes: processes as u32,
            workers: workers as u32,
        },
        shard: me as u32,
        run: shard.settings,
        previous: None,
        cleaned: false,
    };
    let mut time = 0u32;
    loop {
        // The coordinator sends this iteration's orders.
        let mut remote_bytes = 0;
        if let Some(c) = &coordinator {
            remote_bytes = send_orders(c.jobs.recv().ok(), &mut orders_in, peers, workers);
        }
        orders_in.advance_to(time + 1);
        while orders_probe.less_equal(&time) {
            worker.step_or_park(None);
        }
        let mut mine = orders.take();
        let (depth, len, expand, write, recall) = match mine.iter().find_map(|o| match o {
            Order::Start {
                depth,
                len,
                expand,
                write,
                recall,
                ..
            } => Some(Some((*depth, *len, *expand, *write, recall.clone()))),
            Order::End { .. } => Some(None),
            Order::Parent { .. } | Order::History { .. } => None,
        }) {
            Some(Some(start)) => start,
            // The end, or (should the coordinator be gone) no order at all.
            Some(None) | None => break,
        };
        let history = match shard.adversary.keeps_history() {
            false => None,
            _ if !expand => None,
            true if first_of_process => {
                let decoded = Arc::new(SharedHistory::decode(&mine, shard, depth, len));
                local.history.put(time, Arc::clone(&decoded));
                Some(decoded)
            }
            true => Some(local.history.get(time)),
        };
        let step = ParentStep {
            eval: &*shard.evaluator,
            adversary: shard.adversary,
            history: history.as_ref().map(|h| &h.history),
            next: history.as_ref().map_or(&[], |h| &h.next),
        };
        let mut states = Vec::new();
        mine.sort_unstable_by_key(|o| match *o {
            Order::Parent { index, .. } => index,
            _ => u32::MAX,
        });
        let mut scratch = Scratch::new();
        let mut expanded = 0usize;
        // This worker's shard of the beam, written alongside its expansion.
        let written = std::thread::scope(|scope| {
            let writing = write.then(|| {
                let share: Vec<Stored> = mine
                    .iter()
                    .filter_map(|o| match *o {
                        Order::Parent { well, score, .. } => Some(Stored {
                            well: well.unpack(),
                            score,
                        }),
                        _ => None,
                    })
                    .collect();
                let files = &mut files;
                scope.spawn(move || files.write(depth, &share))
            });
            for order in mine.iter().filter(|_| expand) {
                let Order::Parent {
                    index, well, score, ..
                } = *order
                else {
                    continue;
                };
                let parent = Stored {
                    well: well.unpack(),
                    score,
                };
                let worst = local.bar.get(time);
                step.expand(
                    &parent,
                    index,
                    depth,
                    &mut scratch,
                    || worst,
                    |well, c| {
                        if several && shard_of(well, peers as u32) as usize / workers != my_process
                        {
                            remote_bytes += CANDIDATE_BYTES;
                        }
                        children_in.send(c);
                    },
                );
                if let Some(slot) = step.next.get(index as usize) {
                    states.push((index, slot.load(Ordering::Relaxed)));
                }
                expanded += 1;
                if expanded.is_multiple_of(STEP_EVERY) {
                    worker.step();
                }
            }
            writing.map(|t| {
                t.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        });
        drop(mine);
        // The report goes to process 0.
        if my_process != 0 {
            remote_bytes += 8 * states.len() as u64;
        }
        children_in.advance_to(time + 1);
        if first_of_process {
            remote_bytes += local.tally_bytes.swap(0, Ordering::Relaxed);
        }
        reports_in.send(Report {
            worker: me as u32,
            settings: shard.settings,
            children: scratch.children,
            distinct: scratch.distinct,
            remote_bytes,
            states,
            written,
            recalled: (!recall.is_empty()).then(|| files.read(&recall)),
        });
        reports_in.advance_to(time + 1);
        // Park, not spin, while the other workers finish: on a shared box
        // a spinning worker takes the core a slower peer needs.
        while gather_probe.less_equal(&time) {
            worker.step_or_park(None);
        }
        // Every worker of the process is done with the history.
        drop(history);
        if first_of_process {
            local.history.clear();
        }
        if let Some(c) = &coordinator {
            let all = gathered.take();
            // The gather itself: what owners in other processes sent.
            let gather_bytes = match several {
                true => {
                    all.iter()
                        .filter(|k| {
                            shard_of(&k.well.unpack(), peers as u32) as usize / workers != 0
                        })
                        .count() as u64
                        * CANDIDATE_BYTES
                }
                false => 0,
            };
            let kept = c.pool.install(|| best_by_well(all, width));
            let result = summarise(kept, reports.take(), shard.settings, workers, len);
            if let Ok((_, bytes)) = &result {
                // Depths expanded; the bytes also count a run's last beam,
                // sent to its owners to be written, and a resume's recall.
                c.traffic
                    .depths
                    .fetch_add(u64::from(expand), Ordering::Relaxed);
                c.traffic
                    .bytes
                    .fetch_add(bytes + gather_bytes, Ordering::Relaxed);
            }
            // The depth loop may be gone (an error there): nothing to tell.
            let _ = c.results.send(result.map(|(e, _)| e));
        }
        time += 1;
    }
    orders_in.close();
    children_in.close();
    reports_in.close();
    while !orders_probe.done() || !gather_probe.done() {
        worker.step_or_park(None);
    }
    Ok(())
}

/// The coordinator's orders for one iteration: for a `job`, a start order
/// to each of the `peers` workers, the history snapshot to the first of
/// each process's `workers`, and each parent to its owner (the worker
/// that writes it into its shard); without one, an end order to each. Returns the bytes sent to other
/// processes than the coordinator's.
fn send_orders(
    job: Option<Job>,
    orders_in: &mut InputHandleVec<u32, Order>,
    peers: usize,
    workers: usize,
) -> u64 {
    let Some(Job {
        beam,
        depth,
        history,
        expand,
        write,
        recall,
    }) = job
    else {
        for to in 0..peers as u32 {
            orders_in.send(Order::End { to });
        }
        return 0;
    };
    let mut remote_bytes = 0;
    let len = beam.len() as u32;
    for to in 0..peers as u32 {
        orders_in.send(Order::Start {
            to,
            depth,
            len,
            expand,
            write,
            recall: recall.clone(),
        });
    }
    if let Some(bytes) = history {
        for process in 0..peers / workers {
            if process != 0 {
                remote_bytes += 8 + 8 + bytes.len() as u64;
            }
            orders_in.send(Order::History {
                to: (process * workers) as u32,
                bytes: bytes.to_vec(),
            });
        }
    }
    for (index, e) in beam.iter().enumerate() {
        // To its owner, who holds the well's shard of the run folder.
        let to = shard_of(&e.well, peers as u32);
        if to as usize / workers != 0 {
            remote_bytes += ORDER_BYTES;
        }
        orders_in.send(Order::Parent {
            to,
            index: index as u32,
            well: e.well.pack(),
            score: e.score,
        });
    }
    remote_bytes
}

/// Checks every worker's report and sums them: the depth's [`Expanded`]
/// and the bytes the workers sent to other processes.
fn summarise(
    kept: Vec<Candidate>,
    reports: Vec<Report>,
    settings: u64,
    workers: usize,
    len: u32,
) -> Result<(Expanded, u64), DistributedError> {
    let (mut children, mut distinct, mut bytes) = (0, Distinct::default(), 0);
    let mut states = Vec::new();
    // The shard files, by shard (a worker's index is its shard's), and
    // the recalled beams.
    let mut written = Vec::new();
    let mut recalled: Vec<Vec<PackedWell>> = Vec::new();
    let mut reports = reports;
    reports.sort_unstable_by_key(|r| r.worker);
    for r in &reports {
        if r.settings != settings {
            return Err(DistributedError::Settings {
                process: r.worker as usize / workers,
            });
        }
        children += r.children;
        distinct.merge(&r.distinct);
        bytes += r.remote_bytes;
        if !r.states.is_empty() {
            states.resize(len as usize, 0);
            for &(index, state) in &r.states {
                states[index as usize] = state;
            }
        }
        let failed = |why: &String| {
            DistributedError::ShardFile(format!(
                "process {}, shard {}: {why}",
                r.worker as usize / workers,
                r.worker
            ))
        };
        if let Some(w) = &r.written {
            written.push(*w.as_ref().map_err(failed)?);
        }
        if let Some(beams) = &r.recalled {
            let beams = beams.as_ref().map_err(failed)?;
            recalled.resize_with(beams.len(), Vec::new);
            for (all, mine) in recalled.iter_mut().zip(beams) {
                all.extend_from_slice(mine);
            }
        }
    }
    // The union of the shards, in the one-file order (a packed well sorts
    // as the well does).
    for beam in &mut recalled {
        beam.sort_unstable();
    }
    Ok((
        Expanded {
            kept,
            children,
            unique: distinct.count(),
            states,
            written,
            recalled,
            ..Expanded::default()
        },
        bytes,
    ))
}

/// The best `width` of the owners' kept sets (whose wells are distinct,
/// since each well has one owner), sorted by well. It cuts first and sorts
/// the survivors, where the kernel's `Bounded::into_sorted_by_well` sorts
/// first and cuts in order: the kernel must sort to de-duplicate anyway and
/// holds at most 1.125 `width`, while these sets are distinct and up to
/// 1.7 `width` (§8.2 of `docs/distributed.md`), so sorting only the
/// survivors should be less work here (not measured).
fn best_by_well(mut all: Vec<Candidate>, width: usize) -> Vec<Candidate> {
    if all.len() > width {
        if width == 0 {
            all.clear();
        } else {
            all.select_nth_unstable(width - 1);
            all.truncate(width);
        }
    }
    all.par_sort_unstable_by_key(|c| c.well);
    all
}
