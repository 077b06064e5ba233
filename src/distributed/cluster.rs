//! Process 0's end of the sharded search ([`Cluster`]): it starts the
//! workers of its process (the others start theirs with [`serve`]), hands
//! the coordinator, worker 0, each job of the depth loop, and waits for its
//! result. The [`DepthExpander`] the depth loop drives.

use std::sync::{mpsc, Arc, Mutex};

use timely::communication::WorkerGuards;

use super::messages::{Coordinator, Job, TrafficCounters};
use super::process::Local;
use super::{DistributedError, Shard, Topology, Traffic};
use crate::evaluate::Evaluator;
use crate::run::shards::Shards;
use crate::run::store::Stored;
use crate::search::{Adversary, DepthExpander, DepthJob, Expanded};
use crate::well::PackedWell;

/// Process 0's end of a sharded search: a [`DepthExpander`] for the depth
/// loop, whose workers (here and in the other processes) stay up until it
/// is dropped or [`finish`](Cluster::finish)ed.
pub struct Cluster {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    results: Mutex<mpsc::Receiver<Result<Expanded, DistributedError>>>,
    guards: Mutex<Option<WorkerGuards<Result<(), String>>>>,
    traffic: Arc<TrafficCounters>,
    adversary: Adversary,
    /// The layout, when the workers write shard files.
    shards: Option<Shards>,
    /// The run they write them for: its settings id and root depth.
    run: (u64, u32),
}

impl Cluster {
    /// Starts this process's workers; with several processes, waits until
    /// all of them are connected. Only process 0 coordinates.
    pub fn start(topology: &Topology, shard: Shard) -> Result<Cluster, DistributedError> {
        if topology.process != 0 {
            return Err(DistributedError::NotCoordinator(topology.process));
        }
        let (jobs, job_rx) = mpsc::channel();
        let (result_tx, results) = mpsc::channel();
        let traffic = Arc::new(TrafficCounters::default());
        let adversary = shard.adversary;
        let shards = shard.out.as_ref().map(|_| topology.shards());
        let run = (shard.settings, shard.root);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(topology.workers.max(1))
            .build()
            .map_err(|e| DistributedError::Timely(format!("cannot start a thread pool: {e}")))?;
        let coordinator = Mutex::new(Some(Coordinator {
            pool,
            jobs: job_rx,
            results: result_tx,
            traffic: Arc::clone(&traffic),
        }));
        let guards = launch(topology, shard, move |index| {
            if index == 0 {
                coordinator.lock().unwrap_or_else(|e| e.into_inner()).take()
            } else {
                None
            }
        })?;
        Ok(Cluster {
            jobs: Mutex::new(Some(jobs)),
            results: Mutex::new(results),
            guards: Mutex::new(Some(guards)),
            traffic,
            adversary,
            shards,
            run,
        })
    }

    /// One depth: the best `width` distinct children of `beam` (the beam
    /// after `depth` pieces), sorted by well, each with its parent's index.
    /// `history` is the beam's history snapshot when the enemy keeps one
    /// (see [`DepthExpander::expand`]).
    pub fn expand_beam(
        &self,
        beam: Arc<[Stored]>,
        depth: u32,
        history: Option<Arc<[u8]>>,
    ) -> Result<Expanded, DistributedError> {
        self.check(depth, history.is_some(), true, false)?;
        self.send(Job {
            beam,
            depth,
            history,
            expand: true,
            write: false,
            recall: Vec::new(),
        })
    }

    /// The beams of `depths`, each the union of the shards' files, every
    /// worker reading its own shard's from its process's folder (see
    /// [`DepthExpander::recall`]).
    pub fn recall_beams(&self, depths: &[u32]) -> Result<Vec<Vec<PackedWell>>, DistributedError> {
        if self.shards.is_none() {
            return Err(DistributedError::ShardFile(
                "asked to read shard files, but no folder was given for them".into(),
            ));
        }
        let job = Job {
            beam: Vec::new().into(),
            depth: depths.last().copied().unwrap_or(0),
            history: None,
            expand: false,
            write: false,
            recall: depths.to_vec(),
        };
        Ok(self.send(job)?.recalled)
    }

    /// One depth as the depth loop asks for it: expanded, or its shard
    /// files written, or both (see [`DepthJob`]).
    pub fn run(&self, job: DepthJob) -> Result<Expanded, DistributedError> {
        let DepthJob {
            beam,
            history,
            expand,
            write,
        } = job;
        let depth = beam.depth();
        self.check(depth, history.is_some(), expand, write)?;
        self.send(Job {
            beam: beam.read_all()?.into(),
            depth,
            history,
            expand,
            write,
            recall: Vec::new(),
        })
    }

    /// Checks a job against the cluster: shard files asked for only where
    /// the workers have a folder, a history given exactly when the enemy
    /// keeps one.
    fn check(
        &self,
        depth: u32,
        history: bool,
        expand: bool,
        write: bool,
    ) -> Result<(), DistributedError> {
        if write && self.shards.is_none() {
            return Err(DistributedError::ShardFile(
                "asked to write shard files, but no folder was given for them".into(),
            ));
        }
        if expand && history != self.adversary.keeps_history() {
            return Err(DistributedError::History {
                enemy: self.adversary.kind(),
                depth,
                given: history,
            });
        }
        Ok(())
    }

    /// Hands the coordinator a job and waits for its result.
    fn send(&self, job: Job) -> Result<Expanded, DistributedError> {
        let stopped = || {
            DistributedError::Timely("a worker stopped (did a process of the cluster die?)".into())
        };
        {
            let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            let jobs = jobs.as_ref().ok_or_else(stopped)?;
            jobs.send(job).map_err(|_| stopped())?;
        }
        let results = self.results.lock().unwrap_or_else(|e| e.into_inner());
        match results.recv() {
            Ok(result) => result,
            Err(_) => Err(self.take_failure().unwrap_or_else(stopped)),
        }
    }

    /// Records sent between processes so far.
    pub fn traffic(&self) -> Traffic {
        self.traffic.read()
    }

    /// Ends the run on every worker of every process, and waits for them.
    pub fn finish(&self) -> Result<(), DistributedError> {
        self.take_failure().map_or(Ok(()), Err)
    }

    /// Ends the run (closes the coordinator's channel), joins the workers
    /// (once) and gives the first failure among them.
    fn take_failure(&self) -> Option<DistributedError> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).take();
        let guards = self
            .guards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        joined(guards).err()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl DepthExpander for Cluster {
    fn expand(&self, job: DepthJob) -> Result<Expanded, String> {
        self.run(job).map_err(|e| e.to_string())
    }

    fn shards(&self) -> Option<Shards> {
        self.shards
    }

    fn run(&self) -> Option<(u64, u32)> {
        self.shards.map(|_| self.run)
    }

    fn recall(&self, depths: &[u32]) -> Result<Vec<Vec<PackedWell>>, String> {
        self.recall_beams(depths).map_err(|e| e.to_string())
    }
}

/// A process other than 0: runs its workers until process 0 ends the run.
pub fn serve(topology: &Topology, shard: Shard) -> Result<(), DistributedError> {
    if topology.process == 0 {
        return Err(DistributedError::Topology(
            "process 0 holds the run: it searches, it does not serve".into(),
        ));
    }
    joined(launch(topology, shard, |_| None)?)
}

/// One depth on `workers` threads of this process (for the tests and the
/// bench): starts a cluster, runs the depth, ends it. `history` as for
/// [`Cluster::expand_beam`].
pub fn expand_depth(
    beam: Arc<[Stored]>,
    depth: u32,
    history: Option<Arc<[u8]>>,
    width: usize,
    evaluator: Arc<dyn Evaluator + Send>,
    adversary: Adversary,
    workers: usize,
) -> Result<Expanded, DistributedError> {
    let shard = Shard {
        width,
        evaluator,
        adversary,
        settings: 0,
        root: 0,
        out: None,
    };
    let cluster = Cluster::start(&Topology::local(workers), shard)?;
    let expanded = cluster.expand_beam(beam, depth, history)?;
    cluster.finish()?;
    Ok(expanded)
}

/// Starts this process's workers; `coordinator(i)` gives worker `i` its
/// channels to the depth loop, if it is the coordinator.
fn launch(
    topology: &Topology,
    shard: Shard,
    coordinator: impl Fn(usize) -> Option<Coordinator> + Send + Sync + 'static,
) -> Result<WorkerGuards<Result<(), String>>, DistributedError> {
    let config = topology.config()?;
    let workers = topology.workers;
    let local = Arc::new(Local::default());
    timely::execute(config, move |worker| {
        let c = coordinator(worker.index());
        super::worker::work(worker, workers, &shard, &local, c)
    })
    .map_err(DistributedError::Timely)
}

/// Waits for every worker; the first failure, if any.
fn joined(guards: WorkerGuards<Result<(), String>>) -> Result<(), DistributedError> {
    let mut failure = None;
    for result in guards.join() {
        if let Err(e) = result.and_then(|r| r) {
            failure.get_or_insert(DistributedError::Timely(e));
        }
    }
    failure.map_or(Ok(()), Err)
}
