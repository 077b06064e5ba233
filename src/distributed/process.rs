//! What the workers of one process share (the bar, the tallies, the
//! beam's decoded history), an owner's set for one iteration, and a
//! worker's shard of the run folder.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Arc, Condvar, Mutex};

use timely::dataflow::operators::Capability;

use super::bar::{tally, Bar, Tallies};
use super::messages::Order;
use super::Shard;
use crate::run::shards::{
    remove_shard_temporaries, shard_depth_path, write_shard_depth, Shards, Written,
};
use crate::run::store::{DepthFile, Stored};
use crate::search::adversary::BeamHistory;
use crate::search::bounded::{Bounded, Candidate};
use crate::well::PackedWell;

/// What the workers of one process share.
#[derive(Default)]
pub(super) struct Local {
    pub bar: Bar,
    pub tallies: Tallies,
    pub history: Decoded,
    /// Tallies this process's owners sent to other processes, in bytes,
    /// not yet reported.
    pub tally_bytes: AtomicU64,
}

/// The beam's history for one iteration, decoded by the process's first
/// worker and shared by the others, with the slots Brzustowski's kernel
/// writes each entry's next state to.
#[derive(Default)]
pub(super) struct Decoded {
    slot: Mutex<Option<(u32, Arc<SharedHistory>)>>,
    ready: Condvar,
}

pub(super) struct SharedHistory {
    pub history: BeamHistory,
    pub next: Vec<AtomicU32>,
}

impl SharedHistory {
    /// The history the coordinator sent among `orders`, for the beam
    /// after `depth` pieces, of `len` entries.
    pub(super) fn decode(orders: &[Order], shard: &Shard, depth: u32, len: u32) -> SharedHistory {
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
    pub(super) fn put(&self, time: u32, history: Arc<SharedHistory>) {
        *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((time, history));
        self.ready.notify_all();
    }

    /// Waits for iteration `time`'s history. Safe inside a timely worker:
    /// the first worker decodes it as soon as its orders are in, and
    /// needs nothing from this one to do so.
    pub(super) fn get(&self, time: u32) -> Arc<SharedHistory> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match &*slot {
                Some((t, h)) if *t == time => return Arc::clone(h),
                _ => slot = self.ready.wait(slot).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// Lets the memory go once every worker of the process is done.
    pub(super) fn clear(&self) {
        self.slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// An owner's set for one iteration, with what it told the others.
pub(super) struct Owner {
    pub cap: Capability<u32>,
    pub set: Bounded,
    /// The set's compactions when its last tally went out.
    told: u64,
    /// Before the set's first compaction, the size at which to compact it
    /// early for a first tally (doubled each time): an owner receives about
    /// a share of the children, so its buffer would fill late.
    early: usize,
}

impl Owner {
    pub(super) fn new(cap: Capability<u32>, width: usize, shards: usize) -> Owner {
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
    pub(super) fn take_in(
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
pub(super) struct ShardFiles {
    pub dir: Option<PathBuf>,
    pub layout: Shards,
    pub shard: u32,
    pub run: u64,
    /// The run's root depth, whose files name no file before them.
    pub root: u32,
    /// The digest of this shard's last file, once known.
    pub previous: Option<(u32, u64)>,
    /// Whether a kill's leftovers were removed from the shard's folder.
    pub cleaned: bool,
}

impl ShardFiles {
    /// The folder its shard's folder is in.
    pub(super) fn dir(&self) -> Result<&Path, String> {
        self.dir
            .as_deref()
            .ok_or_else(|| "asked for a shard file, but no folder was given".to_string())
    }

    /// Writes `share`, this shard's part of the beam after `depth` pieces
    /// (sorted by well), as its file of `depth`.
    pub(super) fn write(&mut self, depth: u32, share: &[Stored]) -> Result<Written, String> {
        let dir = self.dir()?;
        if !self.cleaned {
            remove_shard_temporaries(dir, self.shard).map_err(|e| e.to_string())?;
        }
        // The file before: none for the root, the one this worker wrote
        // last, or on resuming, the one on disk.
        let previous = match (depth, self.previous) {
            (d, _) if d == self.root => 0,
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
    pub(super) fn read(&self, depths: &[u32]) -> Result<Vec<Vec<PackedWell>>, String> {
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
