//! One depth as a job: what the depth loop asks of whoever expands it, the
//! kernel on this machine or another [`DepthExpander`] (the sharded search,
//! [`crate::distributed`]), and what it gets back. Both take the same
//! [`DepthJob`] and give the same [`Expanded`], so the depth loop treats
//! them alike; each leaves empty what it has no part in (the kernel writes
//! no shard files, an expander times no lock).

use std::sync::Arc;

use super::beam::Beam;
use super::bounded::Candidate;
use crate::run::shards::{Shards, Written};
use crate::well::PackedWell;

/// Another way to run one depth's expansion and cut: the seam through
/// which the sharded search ([`crate::distributed`]) takes the kernel's
/// place in the depth loop. The result must be the kernel's, entry for
/// entry.
pub trait DepthExpander: Send + Sync {
    /// Runs `job`: the best distinct children of its beam, sorted by well,
    /// and, when asked, the beam's shard files written.
    fn expand(&self, job: DepthJob) -> Result<Expanded, String>;

    /// The layout of the shards whose workers write a depth's files
    /// themselves (a sharded run, [`crate::run::shards`]); `None`: the
    /// depth loop writes one file per depth, as without an expander.
    fn shards(&self) -> Option<Shards> {
        None
    }

    /// The run whose shard files the workers write, when they write any:
    /// its settings id ([`crate::run::Settings::run_id`], which the files
    /// carry) and its root depth (whose files name no file before them).
    /// The depth loop refuses a sharded run that is not this one.
    fn run(&self) -> Option<(u64, u32)> {
        None
    }

    /// The wells of the beams of `depths` of a sharded run, each the union
    /// of its shards' files in well order, every shard read by its own worker from
    /// its own folder: how a resume gets the beam it goes on from, and the
    /// history's last levels, when the shards are on several machines.
    fn recall(&self, depths: &[u32]) -> Result<Vec<Vec<PackedWell>>, String> {
        let _ = depths;
        Err("this expander keeps no shards".into())
    }
}

impl std::fmt::Debug for dyn DepthExpander {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DepthExpander")
    }
}

/// One depth to run, by the kernel or a [`DepthExpander`].
#[derive(Clone)]
pub struct DepthJob<'a> {
    /// The beam after some pieces ([`Beam::depth`]), sorted by well: its
    /// depth file, or the wells the depth before kept.
    pub beam: Beam<'a>,
    /// For an adversary that keeps a history, the beam's history snapshot,
    /// the bytes the run folder holds for the beam's depth
    /// (`ancestry-NNNNN.bin`), from which every process of a sharded search
    /// rebuilds the history exactly. (The kernel reads the history itself.)
    pub history: Option<Arc<[u8]>>,
    /// Whether to expand it (`false`: only write it, the run's last depth).
    pub expand: bool,
    /// Whether each shard writes its part of the beam as its file of the
    /// beam's depth (a sharded run's depth not yet on disk), alongside the
    /// expansion. (The kernel writes none: the depth loop writes one file.)
    pub write: bool,
}

/// What one depth gave, by the kernel or a [`DepthExpander`].
#[derive(Debug, Default)]
pub struct Expanded {
    /// The kept children, sorted by well.
    pub kept: Vec<Candidate>,
    /// What the lineage cap did, if there was one.
    pub lineage: Option<crate::run::LineageCut>,
    /// Children generated.
    pub children: u64,
    /// Distinct children (an estimate).
    pub unique: u64,
    /// For an adversary with per-entry states (Brzustowski), the state each
    /// beam entry's children inherit, by entry; empty otherwise.
    pub states: Vec<u32>,
    /// The shard files written ([`DepthJob::write`]), by shard; empty when
    /// none were asked for.
    pub written: Vec<Written>,
    /// The beams' wells recalled ([`DepthExpander::recall`]), by depth
    /// asked for; empty otherwise.
    pub recalled: Vec<Vec<PackedWell>>,
    /// Where the kernel's time went (zero from an expander).
    pub timing: Timing,
}

/// Where an expansion's time went, in seconds (the depth's `Phases`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Timing {
    /// The final cut and sort (part of the expansion's time).
    pub select_s: f64,
    /// The shared set's lock held, summed over the threads.
    pub locked_s: f64,
    /// Threads waiting for that lock, summed over the threads.
    pub waited_s: f64,
    /// Threads idle at the end of the expansion, out of work while others
    /// finished their last part, summed over the threads.
    pub idle_s: f64,
    /// The kept set's full buffers compacted outside its lock, summed over
    /// the threads.
    pub compact_s: f64,
    /// How many were.
    pub compactions: u64,
}
