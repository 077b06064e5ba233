//! A sharded run's last beams, kept for the history's step, and recalled
//! from the workers on resuming.

use crate::run::Manifest;
use crate::search::{ancestry, Options, SearchError};
use crate::well::PackedWell;

/// The beams of a sharded run's last few depths, for the history's step:
/// the level that matures is read from them, not from files that may be
/// on other machines. On resuming, the workers read them back
/// ([`recall`]). Only kept for an adversary with a history.
#[derive(Default)]
pub(super) struct Recent {
    beams: std::collections::VecDeque<(u32, Vec<PackedWell>)>,
}

impl Recent {
    /// Beams kept: after the beam of depth `d` is expanded, the history
    /// matures the level of depth `d + 1 - MATURE_AGE`, and this holds
    /// depths `d + 1 - KEPT` to `d`.
    const KEPT: usize = ancestry::MATURE_AGE;

    pub(super) fn keep(&mut self, depth: u32, wells: Vec<PackedWell>) {
        if self.beams.len() == Self::KEPT {
            self.beams.pop_front();
        }
        self.beams.push_back((depth, wells));
    }

    /// The wells at `indices` of depth `d`'s beam, if it is kept.
    pub(super) fn wells_at(&self, d: u32, indices: &[u32]) -> Option<Vec<PackedWell>> {
        let (_, wells) = self.beams.iter().find(|(at, _)| *at == d)?;
        indices
            .iter()
            .map(|&i| wells.get(i as usize).copied())
            .collect()
    }
}

/// A sharded run's beam after `depth` pieces, on resuming, through the
/// expander's workers ([`DepthExpander::recall`]); with a history, the
/// beams its next steps mature are kept in `recent` too.
pub(super) fn recall(
    opts: &Options,
    recent: &mut Recent,
    depth: u32,
    with_history: bool,
    manifest: &Manifest,
) -> Result<Vec<PackedWell>, SearchError> {
    let failed = |reason: String| SearchError::Expander { depth, reason };
    let expander = opts
        .expander
        .as_ref()
        .ok_or_else(|| failed("a sharded run goes on only on its workers".into()))?;
    // Not below the root: a run from a game holds no beam before it (its
    // history has the game's wells, mature from the start).
    let first = match with_history {
        true => depth
            .saturating_sub(Recent::KEPT as u32 - 1)
            .max(manifest.root()),
        false => depth,
    };
    let depths: Vec<u32> = (first..=depth).collect();
    let beams = expander.recall(&depths).map_err(failed)?;
    let mut beam = Vec::new();
    for (&d, wells) in depths.iter().zip(beams) {
        let recorded = manifest
            .kept_at(d)
            .expect("the log holds every depth of the manifest");
        if wells.len() as u64 != recorded {
            return Err(failed(format!(
                "the shards hold {} wells at depth {d}, the run recorded {recorded}",
                wells.len()
            )));
        }
        if with_history {
            recent.keep(d, wells.clone());
        }
        if d == depth {
            beam = wells;
        }
    }
    Ok(beam)
}
