//! The observer seam: how the search tells the outside what it is doing.
//!
//! The library never prints. The search reports to an [`Observer`]: each
//! depth as it starts, progress from the worker threads as parents are
//! expanded, each depth's statistics as it is written, and what a resume
//! found. The command line draws progress bars and prints lines from these
//! calls; a test or a tuner passes [`Silent`]. Every method has an empty
//! default, so an observer implements only what it shows.
//!
//! Calls come from the search's thread, except [`Observer::expanded`],
//! which the worker threads call (about once per few thousand parents), so
//! an observer is `Sync`.

use crate::run::DepthStats;

/// Hears what a search does. See the module doc.
pub trait Observer: Sync {
    /// A resume passed over depth `depth`: why.
    fn fell_back(&self, depth: u32, why: &str) {
        let _ = (depth, why);
    }

    /// A resume goes on from depth `depth`, whose beam holds `wells`.
    fn resumed(&self, depth: u32, wells: usize) {
        let _ = (depth, wells);
    }

    /// Depth `depth` starts: `parents` wells of the previous depth to expand.
    fn depth_started(&self, depth: u32, parents: u64) {
        let _ = (depth, parents);
    }

    /// `parents` more wells of the depth in progress were expanded (called
    /// from worker threads).
    fn expanded(&self, parents: u64) {
        let _ = parents;
    }

    /// A depth is complete and on disk.
    fn depth_finished(&self, stats: &DepthStats) {
        let _ = stats;
    }

    /// Every child at depth `depth` ends the game: the search is over.
    fn exhausted(&self, depth: u32) {
        let _ = depth;
    }
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Observer for Silent {}
