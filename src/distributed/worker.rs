//! One worker of the sharded search, from the start of the run to its end
//! ([`work`]), an iteration (one depth) at a time, in named steps:
//! [`Flow::receive`] the iteration's orders, [`Me::history`] the beam's
//! history, [`expand_share`] (this worker's parents expanded while its
//! shard file is written), [`Me::report`], and for the coordinator,
//! [`gather`] the owners' kept wells and every report into the depth's
//! result. The dataflow itself is in `dataflow.rs`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use timely::worker::Worker;

use super::dataflow::Flow;
use super::messages::Coordinator;
use super::messages::{best_by_well, send_orders, summarise, DepthReport, Order, CANDIDATE_BYTES};
use super::process::{Local, ShardFiles, SharedHistory};
use super::Shard;
use crate::run::shards::{shard_of, Shards, Written};
use crate::run::store::Stored;
use crate::search::expand::{ParentStep, Scratch};

/// Parents a worker expands between two turns of its dataflow, so that
/// owners take in what was sent to them while expansion goes on.
const STEP_EVERY: usize = 64;

/// Where a worker stands, the same for the whole run.
struct Me<'a> {
    /// This worker's index, which is its shard's.
    index: usize,
    /// Workers in all.
    peers: usize,
    /// Workers per process (timely numbers a process's workers
    /// contiguously, so worker `i` is in process `i / workers`).
    workers: usize,
    shard: &'a Shard,
    local: &'a Arc<Local>,
}

/// An iteration's start order.
struct Start {
    depth: u32,
    len: u32,
    expand: bool,
    write: bool,
    recall: Vec<u32>,
}

/// What a worker's share of an iteration gave.
struct Share {
    scratch: Scratch,
    /// `(index, state)` for each parent expanded (Brzustowski).
    states: Vec<(u32, u32)>,
    written: Option<Result<Written, String>>,
    /// Bytes of children sent to other processes.
    remote_bytes: u64,
}

/// One worker, from the start of the run to its end. `workers` is the
/// number per process; `coordinator` is set for worker 0 of process 0
/// only.
pub(super) fn work(
    worker: &mut Worker,
    workers: usize,
    shard: &Shard,
    local: &Arc<Local>,
    coordinator: Option<Coordinator>,
) -> Result<(), String> {
    let me = Me {
        index: worker.index(),
        peers: worker.peers(),
        workers,
        shard,
        local,
    };
    let mut flow = Flow::build(worker, workers, shard.width, local);
    let mut files = ShardFiles {
        dir: shard.out.clone(),
        layout: Shards {
            processes: (me.peers / workers) as u32,
            workers: workers as u32,
        },
        shard: me.index as u32,
        run: shard.settings,
        root: shard.root,
        previous: None,
        cleaned: false,
    };
    let mut time = 0u32;
    loop {
        // The coordinator sends this iteration's orders.
        let mut remote_bytes = 0;
        if let Some(c) = &coordinator {
            let job = c.jobs.recv().ok();
            remote_bytes = send_orders(job, &mut flow.orders_in, me.peers, workers);
        }
        let Some((start, mine)) = flow.receive(worker, time) else {
            break;
        };
        let history = me.history(&start, &mine, time);
        let share = expand_share(
            worker, &me, &mut flow, &mut files, &start, mine, &history, time,
        );
        me.report(&mut flow, &files, &start, share, remote_bytes, time);
        // Park, not spin, while the other workers finish: on a shared box
        // a spinning worker takes the core a slower peer needs.
        while flow.gather_probe.less_equal(&time) {
            worker.step_or_park(None);
        }
        // Every worker of the process is done with the history.
        drop(history);
        if me.first_of_process() {
            local.history.clear();
        }
        if let Some(c) = &coordinator {
            gather(c, &me, &flow, &start);
        }
        time += 1;
    }
    flow.close(worker);
    Ok(())
}

impl Flow {
    /// This worker's orders of iteration `time`, sorted by parent index,
    /// with their start; `None` at the end of the run (or should the
    /// coordinator be gone, with no order at all).
    fn receive(&mut self, worker: &mut Worker, time: u32) -> Option<(Start, Vec<Order>)> {
        self.orders_in.advance_to(time + 1);
        while self.orders_probe.less_equal(&time) {
            worker.step_or_park(None);
        }
        let mut mine = self.orders.take();
        let start = mine.iter().find_map(|o| match o {
            Order::Start {
                depth,
                len,
                expand,
                write,
                recall,
                ..
            } => Some(Some(Start {
                depth: *depth,
                len: *len,
                expand: *expand,
                write: *write,
                recall: recall.clone(),
            })),
            Order::End { .. } => Some(None),
            Order::Parent { .. } | Order::History { .. } => None,
        })??;
        mine.sort_unstable_by_key(|o| match *o {
            Order::Parent { index, .. } => index,
            _ => u32::MAX,
        });
        Some((start, mine))
    }
}

impl Me<'_> {
    fn process(&self) -> usize {
        self.index / self.workers
    }

    fn first_of_process(&self) -> bool {
        self.index.is_multiple_of(self.workers)
    }

    /// Whether there are other processes to count traffic to.
    fn several(&self) -> bool {
        self.peers > self.workers
    }

    /// The beam's history for iteration `time`, for an enemy that keeps
    /// one: decoded from the orders by the process's first worker, shared
    /// with the others.
    fn history(&self, start: &Start, mine: &[Order], time: u32) -> Option<Arc<SharedHistory>> {
        match self.shard.adversary.keeps_history() {
            false => None,
            _ if !start.expand => None,
            true if self.first_of_process() => {
                let decoded = SharedHistory::decode(mine, self.shard, start.depth, start.len);
                let decoded = Arc::new(decoded);
                self.local.history.put(time, Arc::clone(&decoded));
                Some(decoded)
            }
            true => Some(self.local.history.get(time)),
        }
    }

    /// Sends the coordinator this worker's report of iteration `time`.
    fn report(
        &self,
        flow: &mut Flow,
        files: &ShardFiles,
        start: &Start,
        share: Share,
        remote_bytes: u64,
        time: u32,
    ) {
        let mut remote_bytes = remote_bytes + share.remote_bytes;
        // The report goes to process 0.
        if self.process() != 0 {
            remote_bytes += 8 * share.states.len() as u64;
        }
        flow.children_in.advance_to(time + 1);
        if self.first_of_process() {
            remote_bytes += self.local.tally_bytes.swap(0, Ordering::Relaxed);
        }
        flow.reports_in.send(DepthReport {
            worker: self.index as u32,
            settings: self.shard.settings,
            children: share.scratch.children,
            distinct: share.scratch.distinct,
            remote_bytes,
            states: share.states,
            written: share.written,
            recalled: (!start.recall.is_empty()).then(|| files.read(&start.recall)),
        });
        flow.reports_in.advance_to(time + 1);
    }
}

/// This worker's shard of the beam (its parent orders, `mine`): expanded
/// if the start says so, each child that beats the process's bar sent to
/// its owner, while the shard's file is written alongside on a thread of
/// its own if asked.
#[allow(clippy::too_many_arguments)]
fn expand_share(
    worker: &mut Worker,
    me: &Me,
    flow: &mut Flow,
    files: &mut ShardFiles,
    start: &Start,
    mine: Vec<Order>,
    history: &Option<Arc<SharedHistory>>,
    time: u32,
) -> Share {
    let step = ParentStep {
        eval: &*me.shard.evaluator,
        adversary: me.shard.adversary,
        history: history.as_ref().map(|h| &h.history),
        next: history.as_ref().map_or(&[], |h| &h.next),
    };
    let (depth, peers, my_process) = (start.depth, me.peers as u32, me.process());
    let mut scratch = Scratch::new();
    let mut states = Vec::new();
    let mut remote_bytes = 0;
    let mut expanded = 0usize;
    let written = std::thread::scope(|scope| {
        let writing = start.write.then(|| {
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
            scope.spawn(move || files.write(depth, &share))
        });
        for order in mine.iter().filter(|_| start.expand) {
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
            let worst = me.local.bar.get(time);
            step.expand(
                &parent,
                index,
                depth,
                &mut scratch,
                || worst,
                |well, c| {
                    if me.several() && shard_of(well, peers) as usize / me.workers != my_process {
                        remote_bytes += CANDIDATE_BYTES;
                    }
                    flow.children_in.send(c);
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
    Share {
        scratch,
        states,
        written,
        remote_bytes,
    }
}

/// The coordinator's end of an iteration: the best `width` of what the
/// owners kept, and every report, summed into the depth's result for the
/// depth loop, and the traffic counted.
fn gather(c: &Coordinator, me: &Me, flow: &Flow, start: &Start) {
    let all = flow.gathered.take();
    // The gather itself: what owners in other processes sent.
    let gather_bytes = match me.several() {
        true => {
            all.iter()
                .filter(|k| shard_of(&k.well.unpack(), me.peers as u32) as usize / me.workers != 0)
                .count() as u64
                * CANDIDATE_BYTES
        }
        false => 0,
    };
    let kept = c.pool.install(|| best_by_well(all, me.shard.width));
    let reports = flow.reports.take();
    let result = summarise(kept, reports, me.shard.settings, me.workers, start.len);
    if let Ok((_, bytes)) = &result {
        // Depths expanded; the bytes also count a run's last beam, sent to
        // its owners to be written, and a resume's recall.
        c.traffic
            .depths
            .fetch_add(u64::from(start.expand), Ordering::Relaxed);
        c.traffic
            .bytes
            .fetch_add(bytes + gather_bytes, Ordering::Relaxed);
    }
    // The depth loop may be gone (an error there): nothing to tell.
    let _ = c.results.send(result.map(|(e, _)| e));
}
