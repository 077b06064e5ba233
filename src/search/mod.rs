//! The disk-backed, multi-threaded, resumable beam search.
//!
//! A depth is one placed piece. The piece is the adversary's choice for
//! each beam entry ([`Adversary`]; HATETRIS with loop prevention against
//! the entry's own ancestry), so a well's children are the placements of
//! that one piece. Each depth:
//!
//! 1. the kernel expands the beam into the exact best `width` distinct
//!    children, the same for any thread count. The beam is the wells the
//!    depth before kept, still in memory, while on the same threads its
//!    depth file is written alongside (or, on the first depth of a run or
//!    a resume, its depth file read back a block at a time);
//! 2. the kept children, sorted by well, become the next beam: appended to
//!    the ancestry (for an adversary that keeps one), then written as a
//!    depth file during the next expansion, and only then recorded in the
//!    manifest and the log of the [run folder](crate::run);
//! 3. the [`Observer`] hears of it; the library prints nothing.
//!
//! The evaluator comes in through the [`Evaluator`] seam and the adversary
//! through [`Adversary`], so this module knows neither the heuristic nor a
//! network, nor which enemy it plays.
//!
//! Memory, per beam entry:
//! - the beam: 20 bytes, its packed wells, held during its own expansion
//!   (which writes its depth file alongside); a beam read back from its
//!   file costs nothing, decoded a block per thread at a time;
//! - the ancestry: a 4-byte parent index, plus the older levels' live nodes
//!   (about half a node per entry): 8 bytes for a node of the four newest
//!   levels, 24 for an older one (which also costs 2-8 bytes of Bloom
//!   filter); see [`ancestry`];
//! - the one bounded set: room for 1.125 candidates of 32 bytes
//!   ([`bounded::Candidate`]: the well packed to 20 bytes, no score). With
//!   more than one thread, a full buffer is compacted outside the set's
//!   lock while the other threads fill a new one, so up to a second
//!   buffer (or more, with more threads) lives at the peak; the final cut
//!   adds 4 bytes an entry (the selection's indices);
//! - distinct children are estimated in fixed memory (`distinct`);
//! - depth files are streamed to disk as they are compressed.
//!
//! Measured as the slope of the peak RSS between `hatetris bench search
//! --width 100000 --depths 30 --threads 1` and the same at `--width
//! 300000` (against HATETRIS): see [`memory::BYTES_PER_ENTRY`]. An older
//! figure of 49 bytes per entry predates the compaction outside the lock
//! and is no longer true.
//!
//! The files, by job: this one the public types (what to search, how, what
//! it reached, why it failed); `start.rs` the ways in (a new run, from the
//! empty well or a game's well, a resume, a check); `depth_loop/` the depth loop itself, a step per method;
//! `expander.rs` one depth as a job, for the kernel (`kernel.rs`) or
//! another [`DepthExpander`]; `expand.rs` the inner loop they share.

pub mod adversary;
pub mod ancestry;
pub mod beam;
pub mod bounded;
mod depth_loop;
pub(crate) mod distinct;
pub(crate) mod expand;
mod expander;
pub(crate) mod kernel;
pub mod lineage;
pub mod memory;
pub mod observer;
pub mod small;
mod start;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::evaluate::Evaluator;
use crate::run::{Best, Plan, RunError, Settings};

pub use adversary::Adversary;
pub use beam::Beam;
pub use expander::{DepthExpander, DepthJob, Expanded, Timing};
pub use kernel::{expand_depth, DepthError};
pub use lineage::LineageCap;
pub use observer::{Observer, Silent};
pub use start::{resume, start, start_from, verify};

/// What to search: the settings a run records, with the evaluator itself.
#[derive(Clone, Copy)]
pub struct Search<'a> {
    /// Wells kept per depth.
    pub width: usize,
    /// Ranks the wells.
    pub evaluator: &'a dyn Evaluator,
    /// Gives the pieces.
    pub adversary: Adversary,
    /// Keeps more than one line of play ([`lineage`]); needs an adversary
    /// that keeps a history.
    pub lineage: Option<LineageCap>,
}

impl<'a> Search<'a> {
    /// A search without a lineage cap.
    pub fn new(width: usize, evaluator: &'a dyn Evaluator, adversary: Adversary) -> Search<'a> {
        Search {
            width,
            evaluator,
            adversary,
            lineage: None,
        }
    }

    /// The settings recorded in the run folder and compared on resume, for
    /// a run from the empty well (a run from a game adds its start).
    pub fn settings(&self) -> Settings {
        Settings {
            width: self.width,
            evaluator: self.evaluator.identity(),
            enemy: self.adversary.kind(),
            start: None,
            lineage: self.lineage,
        }
    }
}

/// How to run (may differ between a run and its resume).
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop after this depth.
    pub max_depth: u32,
    /// Worker threads.
    pub threads: usize,
    /// Run at the end of every depth on every worker thread and on the
    /// calling thread, once all of the depth's big buffers are freed: the
    /// place to make the allocator give freed memory back to the system.
    ///
    /// The buffers of a depth are allocated on worker threads and freed on
    /// the calling thread, and mimalloc (the CLI's allocator) returns such
    /// cross-thread frees to the owner's heap only when the owner next
    /// allocates, so without a collection about 5 MB, and 8 bytes per beam
    /// entry, stayed resident into the next depth's peak.
    pub release_memory: Option<fn()>,
    /// The thread count the caller was asked for (`None`: every core),
    /// recorded in the manifest's [`Plan`] with `max_depth` so that a
    /// resume given nothing but the folder asks for the same.
    pub asked_threads: Option<usize>,
    /// Set from outside (a signal handler) to stop the search: the depth in
    /// progress is abandoned, nothing of it written, and the run ends
    /// where it stands ([`RunResult::stopped`]); a resume computes that
    /// depth again, to the same files.
    pub stop: Option<Arc<AtomicBool>>,
    /// Expands each depth instead of the kernel (the sharded search,
    /// [`crate::distributed::Cluster`]); `None`: today's kernel on
    /// `threads` threads. A stop takes effect between depths.
    pub expander: Option<Arc<dyn DepthExpander>>,
}

impl Options {
    /// What the manifest records of these options.
    fn plan(&self) -> Plan {
        Plan {
            max_depth: self.max_depth,
            threads: self.asked_threads,
        }
    }

    /// Whether the search was asked to stop.
    fn stopping(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The run folder.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The depth expander ([`Options::expander`]) failed.
    #[error("expanding depth {depth}: {reason}")]
    Expander {
        /// The depth expanded.
        depth: u32,
        /// Why.
        reason: String,
    },
    /// A sharded run resumed with another layout.
    #[error("{0}")]
    Layout(String),
    /// A lineage cap the search cannot apply ([`lineage`]).
    #[error("{0}")]
    Lineage(String),
    /// A thread pool could not be built.
    #[error("cannot start {threads} threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why.
        reason: String,
    },
}

impl From<crate::run::store::StoreError> for SearchError {
    fn from(e: crate::run::store::StoreError) -> SearchError {
        SearchError::Run(e.into())
    }
}

/// What a finished (or stopped) run reached.
///
/// It holds the run folder's lock ([`crate::folder::FolderLock`]): no other process can
/// take the folder until the result is dropped, so the caller can finish
/// with it (rebuild and write the best game) first.
#[derive(Debug)]
pub struct RunResult {
    /// The best game.
    pub best: Best,
    /// The last depth written.
    pub depth: u32,
    /// Whether the beam died out.
    pub exhausted: bool,
    /// Whether the search was stopped ([`Options::stop`]) before
    /// `max_depth`.
    pub stopped: bool,
    /// The folder's lock, held until the result is dropped.
    _lock: crate::folder::FolderLock,
}
