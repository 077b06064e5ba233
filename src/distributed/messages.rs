//! What the sharded search's workers send one another (see [`super`]'s
//! module doc for what a depth does): the coordinator's orders, the
//! owners' kept wells and tallies, each worker's report of an iteration;
//! how the coordinator makes the orders of a job and sums the reports
//! into the depth's [`Expanded`]; what those records cost on the wire; and
//! the coordinator's channels with the depth loop (its jobs, their results,
//! the traffic it counts).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use rayon::slice::ParallelSliceMut;
use serde::{Deserialize, Serialize};
use timely::dataflow::InputHandleVec;

use super::{DistributedError, Traffic};
use crate::run::shards::{shard_of, Written};
use crate::run::store::Stored;
use crate::search::bounded::Candidate;
use crate::search::distinct::Distinct;
use crate::search::Expanded;
use crate::well::PackedWell;

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

/// What the coordinator sends: routed by `to`, a worker index.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Order {
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
    pub(super) fn to(&self) -> u64 {
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
pub(super) const ORDER_BYTES: u64 = 4 + 4 + 4 + 20 + 2;
/// A candidate: cost, packed well, parent index.
pub(super) const CANDIDATE_BYTES: u64 = 8 + 20 + 4;

/// A worker's account of one iteration, for the coordinator.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct DepthReport {
    pub worker: u32,
    pub settings: u64,
    pub children: u64,
    pub distinct: Distinct,
    /// Records this worker sent to workers of other processes (children
    /// and, for the coordinator, parents and histories), in bytes.
    pub remote_bytes: u64,
    /// Brzustowski: `(index, state)` for each parent this worker expanded,
    /// the state its children inherit; empty for the other enemies.
    pub states: Vec<(u32, u32)>,
    /// When asked to write: its shard's file of the depth, or why it could
    /// not be written.
    pub written: Option<Result<Written, String>>,
    /// When asked to recall: the wells of its shard's files of those
    /// depths, read back, or why they could not be read.
    pub recalled: Option<Result<Vec<Vec<PackedWell>>, String>>,
}

/// What an owner sends on: a well it keeps, for the gather, or a tally of
/// its kept costs, for the bar.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Owned {
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

/// The coordinator's orders for one iteration: for a `job`, a start order
/// to each of the `peers` workers, the history snapshot to the first of
/// each process's `workers`, and each parent to its owner (the worker
/// that writes it into its shard); without one, an end order to each. Returns the bytes sent to other
/// processes than the coordinator's.
pub(super) fn send_orders(
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
pub(super) fn summarise(
    kept: Vec<Candidate>,
    reports: Vec<DepthReport>,
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
pub(super) fn best_by_well(mut all: Vec<Candidate>, width: usize) -> Vec<Candidate> {
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
