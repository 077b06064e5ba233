//! The beam sharded over timely-dataflow workers, in one process or
//! several (`docs/distributed.md`): `hatetris search --workers W
//! [--process I --processes N --hostfile FILE]`.
//!
//! **What it owns.** A [`Cluster`]: one `timely::execute` for the whole
//! run, whose workers expand each depth, find its exact top N together,
//! and write the run's depth files, one per shard ([`crate::run::shards`]).
//! The kept children equal today's kernel ([`crate::search::expand_depth`])
//! entry for entry: the same wells, the same parents, in the same (well)
//! order, whatever the number of processes and workers. The depth loop
//! ([`crate::search`]) drives it through the [`DepthExpander`](crate::search::DepthExpander) seam and
//! writes the rest of the run folder (manifest, log, history snapshots) as
//! before, so the union of the shards' files, the best game and the replay
//! are today's.
//!
//! **How a depth runs** (design §3; the dataflow is in `dataflow.rs`, a
//! worker's iteration in `worker.rs`):
//! 1. *Send.* The coordinator, worker 0 of process 0, which holds the run
//!    folder, sends each parent of the beam to the worker that owns it,
//!    worker `mix64(well_hash(well)) mod S` of the S workers in all (the
//!    same owner as a child's, below). So a worker's parents are exactly
//!    its shard of the beam, in well order, and it writes them as its
//!    shard's file of the depth (`shard-SSSS/depth-DDDDD.beam` and its
//!    `shard.json`, in the folder its process was given) on a thread of its
//!    own while it expands them; its report names the file's digest, and
//!    the depth loop records the depth only when every shard's is in. (The
//!    hash spreads the parents as evenly as the round robin it replaced:
//!    the shard files' sizes, `docs/distributed.md` §8.2.) The owner is
//!    [`shard_of`](crate::run::shards::shard_of), the one rule of the run
//!    folder's shards, wherever it is computed.
//! 2. *Expand.* Each worker expands its parents with the kernel's own
//!    inner loop (`search::expand`: the adversary's piece, the evaluator's
//!    batch call, the distinct-children sketch, the bar). Each child that beats its process's bar (below) goes out as a
//!    [`Candidate`](crate::search::bounded::Candidate) (cost, packed well, parent index: 32 bytes) to its
//!    owner, worker `mix64(well_hash(well)) mod S` (design §2; timely's
//!    exchange takes a route below the peer count to exactly that worker).
//!    Every candidate for a well meets every other at one owner, which
//!    keeps the best in a [`Bounded`](crate::search::bounded::Bounded) set
//!    of width N: de-duplication is local and exact.
//! 3. *Gather.* When timely's progress tracking says no child of the depth
//!    is in flight anywhere, every owner has its exact local top N and
//!    sends to the coordinator the part that does not cost more than the
//!    bar; the coordinator keeps the best N of the union and sorts them by
//!    well. Exact, because an owner's local top N holds every well of the
//!    global top N that it owns, and no such well costs more than a valid
//!    bar.
//!
//! **The bar** (`bar.rs`, design §4.2): the cost above which no child can
//! make the cut, proved by an owner's full set or by every owner's *tally*
//! of its costs at fixed ranks, which owners send after each compaction
//! (an owner not yet full compacts early for it). Measured at width
//! 100,000 (2 × 1 against LOVETRIS): tallies send 27 % fewer bytes between
//! processes and take 12-14 % less time per depth than full owners alone.
//!
//! **What this version leaves to the design's next steps**, each with its
//! cost:
//! - *A coordinator.* Process 0 sends every parent and gathers every
//!   owner's local top N, so it holds the whole beam (and, for an enemy
//!   with a history, the last [`MATURE_AGE`](crate::search::ancestry::MATURE_AGE)
//!   beams, whose wells the history's step reads) and every kept well
//!   passes through it: the gather costs up to 32 bytes per kept well per
//!   owner. The design's radix cut (a few 1 KiB histograms instead) and
//!   owners that keep their shares from one depth to the next are not
//!   built. Disk is spread: each process writes only its shards' files.
//!   A kill of any process ends the run on all of them; `--resume` on
//!   process 0, with the others restarted, goes on from the last depth
//!   every shard completed, to the same files: each worker reads its own
//!   shard of that depth (and of the history's last levels) back for the
//!   coordinator ([`Cluster::recall_beams`]), so the shards may live in a
//!   folder per machine.
//! - *Tallies after compactions, not histograms continuously* (§4.2): a
//!   tally is exact about ranks (no bucket edges to agree on), but a
//!   process learns of another owner's wells only at that owner's next
//!   compaction, so children sent before then may cross for nothing.
//! - *Parent indices, not placement codes* (design §3.1): every parent
//!   comes from the coordinator, which numbers the whole beam, so a
//!   candidate carries its parent's index and the owner's tie-break on
//!   equal (cost, well) is today's.
//! - *The whole history replicated, not its mature part* (design §5):
//!   for an enemy that keeps a history (HATETRIS, Brzustowski), the
//!   coordinator sends the beam's history snapshot, the very bytes it
//!   writes to the run folder for the depth, to the first worker of every
//!   process, which decodes it once for all of that process's workers.
//!   Every worker then gives its parents their pieces with today's code,
//!   reading the same history as today's search: exact by construction.
//!   It costs each process the snapshot (young levels included, which §5
//!   rejects at 10⁹ for their N × 4 bytes per box) and a decode per depth,
//!   small beside the parents the coordinator already sends. Brzustowski's
//!   workers send back the state each of their parents' children inherit.
//!
//! **Why an `Arc` evaluator.** `timely::execute` runs its closure on threads
//! it spawns itself and asks for `'static`; the allocator builders that would
//! let us start workers on scoped threads are built by a crate-private trait
//! in `timely_communication` 0.32. So the evaluator comes in owned (`Arc`),
//! not borrowed as the kernel takes it.
//!
//! **A run from a game** (`--from REPLAY --at PIECE`) is sharded as any:
//! its root, the game's well at depth PIECE, is written by its owner as
//! the first file of every shard's chain (naming none before it,
//! [`Shard::root`]), and its history snapshot, the game's wells included,
//! goes to every process as at any depth, so the loop rule counts the
//! whole game.
//!
//! **Every process must run the same search.** Each worker reports its
//! settings id ([`crate::run::Settings::run_id`]: width, enemy, evaluator,
//! and a run from a game's start) with every depth, and the coordinator refuses a depth whose reports
//! disagree with its own: a process started with other weights cannot
//! silently change the result.
//!
//! Rejected: routing by `well_hash` alone. FNV's low bits are weak for
//! wells that differ in one row; `mix64` spreads every bit (and is what the
//! design fixes, so a resumed run on other machines routes the same).

mod bar;
mod cluster;
mod dataflow;
mod messages;
mod process;
mod worker;

use std::path::PathBuf;
use std::sync::Arc;

use crate::evaluate::Evaluator;
use crate::run::shards::Shards;
use crate::search::Adversary;

pub use cluster::{expand_depth, serve, Cluster};

/// Why a sharded search could not run.
#[derive(Debug, thiserror::Error)]
pub enum DistributedError {
    /// The enemy keeps a history and none was given, or the other way round.
    #[error("depth {depth}: {enemy} {}", if *.given { "keeps no history, yet one was given" } else { "keeps a history, and none was given" })]
    History {
        /// The enemy.
        enemy: crate::enemy::EnemyKind,
        /// The depth.
        depth: u32,
        /// Whether a history was given.
        given: bool,
    },
    /// No workers.
    #[error("at least one worker is needed")]
    NoWorkers,
    /// A process number outside the topology, or several processes without
    /// their addresses.
    #[error("{0}")]
    Topology(String),
    /// The beam's depth file could not be read.
    #[error(transparent)]
    Beam(#[from] crate::run::store::StoreError),
    /// A shard's file could not be written or read.
    #[error("{0}")]
    ShardFile(String),
    /// A process runs another search.
    #[error("process {process} runs a search with other settings (width, enemy, evaluator or --from start) than process 0: start every process with the same flags")]
    Settings {
        /// The process whose settings differ.
        process: usize,
    },
    /// Only process 0 coordinates; the others serve.
    #[error("process {0} does not hold the run: only process 0 does")]
    NotCoordinator(usize),
    /// timely could not start, or a worker stopped (a process of the
    /// cluster died, say).
    #[error("timely: {0}")]
    Timely(String),
}

/// Where the workers are: `workers` threads in each of the processes
/// listed in `addresses` (`host:port`, by process number; timely's
/// hostfile), of which this is number `process`. No addresses: one
/// process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Worker threads in each process.
    pub workers: usize,
    /// This process's number.
    pub process: usize,
    /// Every process's address, by number (empty: one process).
    pub addresses: Vec<String>,
}

impl Topology {
    /// `workers` threads in this one process.
    pub fn local(workers: usize) -> Topology {
        Topology {
            workers,
            process: 0,
            addresses: Vec::new(),
        }
    }

    /// How many processes.
    pub fn processes(&self) -> usize {
        self.addresses.len().max(1)
    }

    /// The shards: one per worker.
    pub fn shards(&self) -> Shards {
        Shards {
            processes: self.processes() as u32,
            workers: self.workers as u32,
        }
    }

    fn config(&self) -> Result<timely::Config, DistributedError> {
        use timely::CommunicationConfig as C;
        if self.workers == 0 {
            return Err(DistributedError::NoWorkers);
        }
        if self.process >= self.processes() {
            return Err(DistributedError::Topology(format!(
                "process {} is not among the {} processes (numbered from 0)",
                self.process,
                self.processes()
            )));
        }
        let communication = match (self.addresses.len() > 1, self.workers > 1) {
            (true, _) => C::Cluster {
                threads: self.workers,
                process: self.process,
                addresses: self.addresses.clone(),
                report: false,
                zerocopy: false,
            },
            (false, true) => C::Process(self.workers),
            (false, false) => C::Thread,
        };
        Ok(timely::Config {
            communication,
            worker: timely::WorkerConfig::default(),
        })
    }
}

/// What every process's workers need to run the search: the same in all
/// of them.
#[derive(Clone)]
pub struct Shard {
    /// Children kept per depth.
    pub width: usize,
    /// The search's evaluator, owned (see the module doc).
    pub evaluator: Arc<dyn Evaluator + Send>,
    /// The search's enemy.
    pub adversary: Adversary,
    /// The run's settings id ([`crate::run::Settings::run_id`]), compared
    /// across processes, and the run id its shard files carry.
    pub settings: u64,
    /// The depth of the run's root ([`crate::run::Settings::root`]): 0, or
    /// the piece count of the game a run from a game (`--from`) starts
    /// after. Its shard files name no file before them. (It follows from
    /// the start, which `settings` covers, so processes that agree on
    /// `settings` agree on it.)
    pub root: u32,
    /// The folder this process's workers write their shards' depth files
    /// to ([`crate::run::shards`]); `None`: they write nothing, and the
    /// depth loop writes one file per depth.
    pub out: Option<PathBuf>,
}

/// Records sent between processes so far, in payload bytes (bincode, as
/// timely sends them, without timely's own message headers and the
/// per-depth reports of about 16 KB per worker).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Depths expanded.
    pub depths: u64,
    /// Bytes sent between processes over those depths.
    pub bytes: u64,
}
