//! A sharded run's depth files (`docs/distributed.md` §6): the beam of a
//! depth held as one file per shard, each written by the worker that owns
//! the shard's wells, and read back as their union.
//!
//! ```text
//! shard-SSSS/depth-NNNNN.beam   the wells of depth NNNNN that shard SSSS
//!                               owns, in today's depth file format
//!                               (sorted by well; `previous` is the digest
//!                               of this shard's file of the depth before)
//! shard-SSSS/shard.json         the shard's manifest: the run, the layout
//!                               and the last depth the shard wrote
//! ```
//! Shard `s` owns the wells `w` with `mix64(well_hash(w)) mod S = s`
//! ([`shard_of`]): fixed and unseeded, so every process, and every reader
//! afterwards, agrees. The union of a depth's shard files, in well order,
//! holds exactly the entries of the one depth file an unsharded run with
//! the same settings writes ([`Depth::read_all`]), so one well is found in
//! one shard's file ([`Depth::find`]) and a game is rebuilt as from a
//! one-file run. Each process writes its shards' folders into the folder
//! it was given: one folder on a shared path, or one per machine, which a
//! reader may be given together ([`Depth::open_where`]).
//!
//! Each shard's files form their own chain, as a run's depth files do.
//! The run's manifest (process 0's) stays the one commit point: it names a
//! depth only once every shard has reported its file of that depth
//! durable, so every shard has completed the manifest's depth.
//!
//! Why a `Depth` type and not a merged file: a merge would write the beam
//! twice and put it on one disk, which is what sharding avoids.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::store::{self, DepthFile, Entry, Link, StoreError, Stored};
use super::{depth_path, hex_u64};
use crate::folder::{atomic, io, json};
use crate::well::{mix64, well_hash, PackedWell, Well};

/// How a sharded run splits its beam: `workers` timely workers in each of
/// `processes` processes, one shard each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shards {
    /// Processes.
    pub processes: u32,
    /// Workers per process.
    pub workers: u32,
}

impl Shards {
    /// Shards in all.
    pub fn count(self) -> u32 {
        self.processes * self.workers
    }
}

impl std::fmt::Display for Shards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} process{} × {} worker{}",
            self.processes,
            if self.processes == 1 { "" } else { "es" },
            self.workers,
            if self.workers == 1 { "" } else { "s" }
        )
    }
}

/// The shard, of `shards`, that owns `well`.
pub fn shard_of(well: &Well, shards: u32) -> u32 {
    (mix64(well_hash(well)) % u64::from(shards)) as u32
}

/// Shard `s`'s folder in `dir`.
pub fn shard_dir(dir: &Path, s: u32) -> PathBuf {
    dir.join(format!("shard-{s:04}"))
}

/// The name of a shard's file of depth `d`, in its folder.
fn depth_name(d: u32) -> String {
    format!("depth-{d:05}.beam")
}

/// Path of shard `s`'s file of depth `d`.
pub fn shard_depth_path(dir: &Path, s: u32, d: u32) -> PathBuf {
    shard_dir(dir, s).join(depth_name(d))
}

/// Path of shard `s`'s manifest.
pub fn shard_manifest_path(dir: &Path, s: u32) -> PathBuf {
    shard_dir(dir, s).join("shard.json")
}

const SHARD_FORMAT: &str = "hatetris-shard";
const SHARD_VERSION: u32 = 1;

/// What `shard.json` holds: the last depth the shard wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// Always "hatetris-shard".
    pub format: String,
    /// The shard manifest's version.
    pub version: u32,
    /// The run ([`super::Settings::run_id`]).
    #[serde(with = "hex_u64")]
    pub run: u64,
    /// The layout.
    pub shards: Shards,
    /// This shard.
    pub shard: u32,
    /// The last depth written.
    pub depth: u32,
    /// Its file's entries.
    pub entries: u64,
    /// Its file's digest ([`DepthFile::digest`]).
    #[serde(with = "hex_u64")]
    pub digest: u64,
}

/// What writing one shard's file of a depth gave (sent from the worker
/// that wrote it to the coordinator, in the sharded search).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    /// The file's digest, which the shard's next file names.
    pub digest: u64,
    /// The file's length.
    pub bytes: u64,
}

/// Writes shard `s`'s file of depth `d` in `dir` (its `entries`, sorted by
/// well, all owned by `s`), then the shard's manifest; both atomically.
/// `previous` is the digest of the shard's file of depth `d - 1` (0 for
/// depth 0).
pub fn write_shard_depth(
    dir: &Path,
    shards: Shards,
    s: u32,
    d: u32,
    run: u64,
    previous: u64,
    entries: &[Stored],
) -> Result<Written, super::RunError> {
    let folder = shard_dir(dir, s);
    std::fs::create_dir_all(&folder).map_err(io(&folder))?;
    let path = shard_depth_path(dir, s, d);
    let link = Link { run, previous };
    let bytes = store::write_depth_file(&path, d, link, entries.len(), |i| Entry::from(entries[i]))
        .map_err(io(&path))?;
    let digest = DepthFile::open(&path)?.digest();
    let manifest = ShardManifest {
        format: SHARD_FORMAT.into(),
        version: SHARD_VERSION,
        run,
        shards,
        shard: s,
        depth: d,
        entries: entries.len() as u64,
        digest,
    };
    json::write_unterminated(&shard_manifest_path(dir, s), &manifest)?;
    Ok(Written { digest, bytes })
}

/// The shards of a run sharded as `shards` whose folders `dir` lacks (on
/// other machines, say); none for an unsharded run.
pub fn missing(dir: &Path, shards: Option<Shards>) -> Vec<u32> {
    let count = shards.map_or(0, Shards::count);
    (0..count)
        .filter(|&s| !shard_dir(dir, s).is_dir())
        .collect()
}

/// Removes what a kill left in shard `s`'s folder: temporary files.
pub fn remove_shard_temporaries(dir: &Path, s: u32) -> Result<(), super::RunError> {
    let folder = shard_dir(dir, s);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry.map_err(io(&folder))?.path();
        let temporary = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(atomic::is_temporary);
        if temporary {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// Shard `s`'s manifest, if it can be read and is one.
pub fn read_shard_manifest(dir: &Path, s: u32) -> Result<ShardManifest, String> {
    let path = shard_manifest_path(dir, s);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let m: ShardManifest =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if m.format != SHARD_FORMAT || m.version != SHARD_VERSION || m.shard != s {
        return Err(format!(
            "{}: not shard {s}'s manifest (format {} version {}, shard {})",
            path.display(),
            m.format,
            m.version,
            m.shard
        ));
    }
    Ok(m)
}

/// The beam of one depth as a run folder holds it: one depth file, or one
/// per shard.
pub enum Depth {
    /// An unsharded run's file.
    One(DepthFile),
    /// A sharded run's files: those of the shards `ids` (increasing), of
    /// `count`; all of them unless opened with [`Depth::open_where`].
    Shards {
        /// The files, one per shard in `ids`.
        files: Vec<DepthFile>,
        /// Their shards.
        ids: Vec<u32>,
        /// Shards in the run.
        count: u32,
        /// The depth.
        depth: u32,
    },
}

impl Depth {
    /// Opens depth `d` of the run in `dir`, sharded as `shards` (`None`:
    /// one file), with every shard's file.
    pub fn open(dir: &Path, d: u32, shards: Option<Shards>) -> Result<Depth, StoreError> {
        match shards {
            None => Ok(Depth::One(DepthFile::open(&depth_path(dir, d))?)),
            Some(shards) => Depth::open_where(d, shards, |s| Some(shard_dir(dir, s))),
        }
    }

    /// Opens depth `d` of the run in `dir` as [`open`](Depth::open) does,
    /// but for the shards whose folders `dir` lacks (written on other
    /// machines), which are left out.
    pub fn open_present(dir: &Path, d: u32, shards: Option<Shards>) -> Result<Depth, StoreError> {
        match shards {
            None => Depth::open(dir, d, None),
            Some(shards) => Depth::open_where(d, shards, |s| {
                let folder = shard_dir(dir, s);
                folder.is_dir().then_some(folder)
            }),
        }
    }

    /// Opens depth `d` of a run sharded as `shards`, shard `s`'s file from
    /// the folder `folder(s)` (a shard's folder, `shard-SSSS`); the shards
    /// for which it gives `None` are left out (see
    /// [`is_complete`](Depth::is_complete)).
    pub fn open_where(
        d: u32,
        shards: Shards,
        folder: impl Fn(u32) -> Option<PathBuf>,
    ) -> Result<Depth, StoreError> {
        let mut files = Vec::new();
        let mut ids = Vec::new();
        for s in 0..shards.count() {
            if let Some(folder) = folder(s) {
                files.push(DepthFile::open(&folder.join(depth_name(d)))?);
                ids.push(s);
            }
        }
        Ok(Depth::Shards {
            files,
            ids,
            count: shards.count(),
            depth: d,
        })
    }

    /// Whether every shard's file is open.
    pub fn is_complete(&self) -> bool {
        match self {
            Depth::One(_) => true,
            Depth::Shards { ids, count, .. } => ids.len() == *count as usize,
        }
    }

    /// The files (by shard, for a sharded run).
    pub fn files(&self) -> &[DepthFile] {
        match self {
            Depth::One(f) => std::slice::from_ref(f),
            Depth::Shards { files, .. } => files,
        }
    }

    /// Entries in the files open.
    pub fn len(&self) -> usize {
        self.files().iter().map(DepthFile::len).sum()
    }

    /// Whether the files open hold no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes on disk of the files open.
    pub fn file_len(&self) -> usize {
        self.files().iter().map(DepthFile::file_len).sum()
    }

    /// An error unless every shard's file is open.
    fn complete(&self) -> Result<(), StoreError> {
        match self {
            Depth::Shards {
                ids, count, depth, ..
            } if ids.len() < *count as usize => {
                let absent = (0..*count).find(|s| !ids.contains(s)).unwrap_or(0);
                Err(StoreError::MissingShard {
                    shard: absent,
                    depth: *depth,
                })
            }
            _ => Ok(()),
        }
    }

    /// Every entry, in well order: a shard's file is sorted and the shards'
    /// wells are disjoint, so sorting the files' entries together gives the
    /// union in the one-file order. On the caller's rayon pool.
    pub fn read_all(&self) -> Result<Vec<Stored>, StoreError> {
        self.complete()?;
        match self {
            Depth::One(f) => f.read_all(),
            Depth::Shards { files, .. } => {
                let parts: Vec<Vec<Stored>> = files
                    .par_iter()
                    .map(DepthFile::read_all)
                    .collect::<Result<_, _>>()?;
                let mut all = parts.concat();
                all.par_sort_unstable_by_key(|e| e.well);
                Ok(all)
            }
        }
    }

    /// The wells of the entries at `indices` (increasing) of the union.
    pub fn wells_at(&self, indices: &[u32]) -> Result<Vec<PackedWell>, StoreError> {
        match self {
            Depth::One(f) => f.wells_at(indices),
            Depth::Shards { files, .. } => {
                let all = self.read_all()?;
                indices
                    .iter()
                    .map(|&i| match all.get(i as usize) {
                        Some(e) => Ok(e.well.pack()),
                        None => Err(StoreError::NoEntry {
                            path: files[0].path().to_path_buf(),
                            index: i as usize,
                            entries: all.len(),
                        }),
                    })
                    .collect()
            }
        }
    }

    /// The file that holds `well` if any does (the owner's), as an index
    /// into [`files`](Depth::files); an error if that shard's is not open.
    pub fn file_for(&self, well: &Well) -> Result<usize, StoreError> {
        match self {
            Depth::One(_) => Ok(0),
            Depth::Shards {
                ids, count, depth, ..
            } => {
                let s = shard_of(well, *count);
                ids.binary_search(&s).map_err(|_| StoreError::MissingShard {
                    shard: s,
                    depth: *depth,
                })
            }
        }
    }

    /// Looks one well up, reading one block of one file.
    pub fn find(&self, well: &Well) -> Result<Option<Stored>, StoreError> {
        self.files()[self.file_for(well)?].find(well)
    }

    /// Checks every block of the files open: checksum and decompression.
    pub fn verify(&self) -> Result<(), StoreError> {
        self.files().iter().try_for_each(DepthFile::verify)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn well(i: u32) -> Well {
        let mut rows = [0u16; crate::well::LIVE_ROWS];
        rows[crate::well::LIVE_ROWS - 1] = (i & 0x3ff) as u16;
        rows[crate::well::LIVE_ROWS - 2] = ((i >> 10) & 0x3ff) as u16;
        Well::from_live_rows_unchecked(rows)
    }

    #[test]
    fn the_union_of_the_shards_is_the_one_file_entry_for_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut beam: Vec<Stored> = (0..10_000u32)
            .map(|i| Stored {
                well: well(i * 7 + 3),
                score: 0,
            })
            .collect();
        beam.sort_unstable_by_key(|e| e.well);
        let shards = Shards {
            processes: 3,
            workers: 2,
        };
        for s in 0..shards.count() {
            let mine: Vec<Stored> = beam
                .iter()
                .copied()
                .filter(|e| shard_of(&e.well, shards.count()) == s)
                .collect();
            write_shard_depth(dir.path(), shards, s, 4, 9, 0, &mine).unwrap();
            let m = read_shard_manifest(dir.path(), s).unwrap();
            assert_eq!((m.depth, m.entries, m.run), (4, mine.len() as u64, 9));
        }
        let depth = Depth::open(dir.path(), 4, Some(shards)).unwrap();
        assert_eq!(depth.len(), beam.len());
        assert_eq!(depth.read_all().unwrap(), beam);
        let picks = [0u32, 1, 17, 4095, 4096, 9999];
        let wells = depth.wells_at(&picks).unwrap();
        for (&i, w) in picks.iter().zip(&wells) {
            assert_eq!(*w, beam[i as usize].well.pack());
        }
        for e in beam.iter().step_by(97) {
            assert_eq!(depth.find(&e.well).unwrap(), Some(*e));
        }
        assert_eq!(depth.find(&well(1)).unwrap(), None);
        depth.verify().unwrap();
    }
}
