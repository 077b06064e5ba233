//! One depth's figures, as the log records them: its counts, its best
//! cost and score, the kept wells per score, and where its time went
//! ([`Phases`]). Plain data, written once per depth; the figures a run's
//! files must agree with (the kept count, the histogram, the best score)
//! are what a resume and [`super::verify`] check the depth files against.

use serde::{Deserialize, Serialize};

/// Statistics of one depth.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DepthStats {
    /// Pieces placed.
    pub depth: u32,
    /// Seconds since the run (or the resume) started.
    pub elapsed_s: f64,
    /// Children generated.
    pub children: u64,
    /// Distinct children wells (a HyperLogLog estimate, within about 1%).
    pub unique: u64,
    /// Wells kept.
    pub kept: u64,
    /// Best (lowest) cost kept.
    pub best_cost: f64,
    /// Highest score kept.
    pub best_score: u16,
    /// Kept wells per score: `[score, count]` pairs.
    pub histogram: Vec<(u16, u64)>,
    /// Live ancestry nodes in the older levels after this depth (the
    /// current beam's entries are not counted; 0 without a history).
    pub ancestry_nodes: u64,
    /// The newest depth whose well every kept well descends from
    /// ([`crate::search::ancestry::Ancestry::common_ancestor`]; absent
    /// without a history, and in runs made before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_ancestor: Option<u32>,
    /// What the lineage cap did at this depth (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage: Option<LineageCut>,
    /// Bytes of this depth's file.
    pub file_bytes: u64,
    /// The process's peak resident memory so far, in bytes (Linux only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss: Option<u64>,
    /// Where the depth's time went (absent in runs made before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
}

/// What the lineage cap ([`crate::search::lineage`]) did at one depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageCut {
    /// Distinct ancestors, the cap's pieces back, among the kept wells.
    pub lineages: u32,
    /// Children passed over, while the beam filled, because their ancestor
    /// had its most: each kept a worse child of another line in its place.
    pub passed: u64,
    /// Of those, how many were kept after all, to fill the beam.
    pub filled: u64,
    /// Kept wells that the cut without a cap would not have kept: each
    /// one in place of a better well of a line at its most (absent in runs
    /// made before it was recorded).
    #[serde(default)]
    pub replaced: u64,
}

/// Seconds spent in each phase of one depth, in the order they run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Reading the beam, expanding and costing every child, and keeping the
    /// best (all threads). The beam's own depth file is written alongside
    /// (see `write`), so this is the wall time of both.
    pub expand: f64,
    /// The final cut of the kept set, its sort by well, and its wells taken
    /// out as the next beam.
    pub select: f64,
    /// Compressing and writing this depth's file. It runs alongside the
    /// next depth's expansion, on threads of its own, so it is part of that
    /// depth's `expand`, not of this depth's wall time (older runs' logs,
    /// from before the write moved alongside the next expansion, count it
    /// after `select`, with `ancestry` and `snapshot` alongside).
    pub write: f64,
    /// The adversary's history taking the new beam, between `select` and
    /// the next depth's expansion (which reads it).
    pub ancestry: f64,
    /// Writing the history snapshot, on a thread of its own alongside
    /// `write`.
    pub snapshot: f64,
    /// Writing the manifest and the log line, of the depth before (this
    /// depth's own are written after its figures are recorded; 0 for the
    /// first depth of a run or a resume). With one depth file a depth, on
    /// the writer's thread after the depth before's file, alongside this
    /// depth's expansion; for a sharded run, between two expansions (and
    /// older runs' logs count it there too).
    pub manifest: f64,
    /// Of `expand`: the time the shared set of the best children was
    /// locked, summed over the threads (so it may exceed `expand`'s wall
    /// time). Under its lock a batch of children is only pushed, so this
    /// bounds the lock's cost: at T threads it serialises at most
    /// `locked / (T × expand)` of the phase.
    #[serde(default)]
    pub locked: f64,
    /// Of `expand`: the time threads waited for that lock, summed over the
    /// threads.
    #[serde(default)]
    pub waited: f64,
    /// Of `expand`: the time threads sat idle at its end, out of work while
    /// others finished their last part, summed over the threads (what the
    /// size of a part costs).
    #[serde(default)]
    pub idle: f64,
    /// Of `expand`: the time threads spent compacting the shared set's full
    /// buffers (outside its lock), summed over the threads; and how many
    /// they compacted. With more threads, buffers that fill while one is
    /// compacted are compacted together, so this grows with the threads
    /// only as far as the bar, published later, lets more children in.
    #[serde(default)]
    pub compact: f64,
    /// How many buffers were compacted (see `compact`).
    #[serde(default)]
    pub compactions: u64,
}

impl Phases {
    /// The phases' names and seconds, in the order they run: those of the
    /// depth's wall time, then those alongside the next expansion.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("expand", self.expand),
            ("select", self.select),
            ("ancestry", self.ancestry),
            ("manifest", self.manifest),
            ("write", self.write),
            ("snapshot", self.snapshot),
        ]
    }

    /// Adds `other`'s seconds to these.
    pub fn add(&mut self, other: &Phases) {
        self.expand += other.expand;
        self.select += other.select;
        self.write += other.write;
        self.ancestry += other.ancestry;
        self.snapshot += other.snapshot;
        self.manifest += other.manifest;
        self.locked += other.locked;
        self.waited += other.waited;
        self.idle += other.idle;
        self.compact += other.compact;
        self.compactions += other.compactions;
    }

    /// The depth's wall time: their sum, less the phases that run
    /// alongside the next depth's expansion.
    pub fn total(&self) -> f64 {
        self.named()
            .iter()
            .filter(|(name, _)| !Phases::ALONGSIDE.contains(name))
            .map(|(_, s)| s)
            .sum()
    }

    /// The phases that run alongside the next depth's expansion and are
    /// part of its time, so [`Phases::total`] leaves them out (`manifest`
    /// is between two expansions in a sharded run, and in older logs).
    pub const ALONGSIDE: [&'static str; 3] = ["write", "snapshot", "manifest"];
}

/// Kept wells per score, as [`DepthStats::histogram`] records them.
pub fn histogram(scores: impl IntoIterator<Item = u16>) -> Vec<(u16, u64)> {
    let mut histogram: Vec<(u16, u64)> = Vec::new();
    for score in scores {
        match histogram.iter_mut().find(|(s, _)| *s == score) {
            Some((_, n)) => *n += 1,
            None => histogram.push((score, 1)),
        }
    }
    histogram.sort_unstable();
    histogram
}

/// Each depth's own seconds: its phases' sum, or else the step of its
/// clock (`elapsed_s` counts from the run's start or its last resume, so a
/// step that goes back is a resume's first depth).
pub fn depth_seconds(depths: &[DepthStats]) -> Vec<f64> {
    let mut before = 0.0;
    depths
        .iter()
        .map(|s| {
            let step = match s.phases {
                Some(p) => p.total(),
                None if s.elapsed_s >= before => s.elapsed_s - before,
                None => s.elapsed_s,
            };
            before = s.elapsed_s;
            step
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(depth: u32, elapsed_s: f64) -> DepthStats {
        DepthStats {
            depth,
            elapsed_s,
            children: 0,
            unique: 0,
            kept: 0,
            best_cost: 0.0,
            best_score: 0,
            histogram: Vec::new(),
            ancestry_nodes: 0,
            common_ancestor: None,
            lineage: None,
            file_bytes: 0,
            peak_rss: None,
            phases: None,
        }
    }

    /// The clock counts from the start or the last resume: a run's seconds
    /// are the steps, not the sum of the clock's readings.
    #[test]
    fn a_resumed_runs_seconds_are_its_steps() {
        let depths = [at(1, 1.0), at(2, 2.0), at(3, 3.5), at(4, 0.5), at(5, 1.5)];
        assert_eq!(depth_seconds(&depths), vec![1.0, 1.0, 1.5, 0.5, 1.0]);
        let with_phases = DepthStats {
            phases: Some(Phases {
                expand: 0.25,
                ..Phases::default()
            }),
            ..at(6, 9.0)
        };
        assert_eq!(depth_seconds(&[with_phases]), vec![0.25]);
    }
}
