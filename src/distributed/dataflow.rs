//! One worker's dataflow (see [`super`]'s module doc for what a depth
//! does): one timely dataflow for the whole run, built once, with the
//! iteration number as the timestamp. Three streams, each a timely input
//! that every worker holds and advances once per iteration, so that
//! progress tracking can tell each worker when an iteration's records
//! have all arrived:
//! - **orders**, from the coordinator (worker 0 of process 0) to everyone:
//!   one `Start` (with the depth, and whether to expand the parents, write
//!   them as the worker's shard file, or both) or `End` per worker, each
//!   parent of the beam, routed to the worker that owns it, and, for an
//!   enemy that keeps a history, the beam's history snapshot to the first
//!   worker of each process, which decodes it for the process's workers
//!   ([`Local`]);
//! - **children**, from every expanding worker to the well's owner, whose
//!   exact set keeps its best `width`; after each compaction the owner
//!   sends a tally of its costs to the first worker of every process (the
//!   bar, [`super::bar::Tallies`]), and when the frontier passes the
//!   iteration, its set, cut at the bar, to the coordinator (the gather);
//! - **reports**, one per worker per iteration to the coordinator: children
//!   counted, the distinct-children sketch, records sent to other
//!   processes, the worker's settings id, so that a process started with
//!   other settings is caught before its children are used, (Brzustowski)
//!   the state its parents' children inherit, and the digest of the shard
//!   file it wrote.
//!
//! What a worker does with it each iteration is in `worker.rs`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::operators::{Exchange as _, Inspect, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

use super::bar::tally_step;
use super::messages::{DepthReport, Order, Owned};
use super::process::{Local, Owner};
use crate::run::shards::shard_of;
use crate::search::bounded::{Bounded, Candidate};

/// One worker's ends of its dataflow: the three inputs, the probes that
/// say when an iteration's records have all arrived, and what arrived.
pub(super) struct Flow {
    pub orders_in: InputHandleVec<u32, Order>,
    pub children_in: InputHandleVec<u32, Candidate>,
    pub reports_in: InputHandleVec<u32, DepthReport>,
    /// Passed once this worker has every order of an iteration.
    pub orders_probe: ProbeHandle<u32>,
    /// Passed once the owners' gather and every report of an iteration are
    /// in.
    pub gather_probe: ProbeHandle<u32>,
    /// This worker's orders.
    pub orders: Rc<RefCell<Vec<Order>>>,
    /// The coordinator's: what the owners kept.
    pub gathered: Rc<RefCell<Vec<Candidate>>>,
    /// The coordinator's: every worker's report.
    pub reports: Rc<RefCell<Vec<DepthReport>>>,
}

impl Flow {
    /// Builds the dataflow of `worker`, one of `workers` in each process,
    /// for a search keeping `width`; `local` is what its process's workers
    /// share.
    pub(super) fn build(
        worker: &mut Worker,
        workers: usize,
        width: usize,
        local: &Arc<Local>,
    ) -> Flow {
        let (me, peers) = (worker.index(), worker.peers());
        let processes = peers / workers;
        let step = tally_step(width, peers);
        let mut flow = Flow {
            orders_in: InputHandleVec::new(),
            children_in: InputHandleVec::new(),
            reports_in: InputHandleVec::new(),
            orders_probe: ProbeHandle::new(),
            gather_probe: ProbeHandle::new(),
            orders: Rc::default(),
            gathered: Rc::default(),
            reports: Rc::default(),
        };
        worker.dataflow::<u32, _, _>(|scope| {
            let sink = Rc::clone(&flow.orders);
            scope
                .input_from(&mut flow.orders_in)
                .exchange(|o: &Order| o.to())
                .inspect(move |o| sink.borrow_mut().push(o.clone()))
                .probe_with(&flow.orders_probe);

            let sink = Rc::clone(&flow.gathered);
            let owner_local = Arc::clone(local);
            let local = Arc::clone(local);
            scope
                .input_from(&mut flow.children_in)
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
                                        local.tally_bytes.fetch_add(
                                            16 + 8 * costs.len() as u64,
                                            Ordering::Relaxed,
                                        );
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
                .probe_with(&flow.gather_probe);

            let sink = Rc::clone(&flow.reports);
            scope
                .input_from(&mut flow.reports_in)
                .exchange(|_| 0)
                .inspect(move |r| sink.borrow_mut().push(r.clone()))
                .probe_with(&flow.gather_probe);
        });
        flow
    }

    /// Closes the inputs and runs the dataflow until it is done.
    pub(super) fn close(self, worker: &mut Worker) {
        self.orders_in.close();
        self.children_in.close();
        self.reports_in.close();
        while !self.orders_probe.done() || !self.gather_probe.done() {
            worker.step_or_park(None);
        }
    }
}
