//! Fuzzes the depth-file reader ([`DepthFile`]) with arbitrary bytes, and
//! with single corruptions of real depth files.
//!
//! The reader memory-maps a path, so each input is written to one file per
//! process under /dev/shm, and removed again at the end of the run. No
//! [`DepthFile`] is alive while that file is rewritten.
//!
//! Only the public reading API is used (`open`, `verify`,
//! `verify_checksums`, `read_all`, `blocks`, `block`, `block_for`, `find`,
//! `wells_at`, `len`, `digest`), never a byte offset of the layout, so the
//! target survives a format change.
//!
//! Checks on the input as a depth file, beyond "no panic":
//! - `verify`, `read_all` and the blocks one by one agree: all succeed or
//!   all fail; when they succeed `read_all` has `len()` entries and is the
//!   blocks' entries in order; `verify_checksums` fails only if `verify`
//!   does;
//! - every well read back is a valid well (no row wider than 10 columns);
//! - `wells_at` gives the wells `read_all` has at those indices, and an
//!   error for an index past the end;
//! - `find` only ever returns an entry with the well asked for; and when the
//!   file is well formed (wells strictly increasing, each in the block that
//!   `block_for` names) it finds every entry, and nothing for a well that is
//!   not in the file.
//!
//! Checks on real depth files (the seeds in `fuzz/seeds/depth_file`, read at
//! start-up; seeds of another format version are skipped with a warning):
//! the input picks a seed and a few corruptions, each applied alone to a
//! fresh copy: a truncation, or one byte changed (a burst of at most 8 bits,
//! which any CRC-32 detects). Each must give an error, or (a byte outside
//! every block checksum, such as the depth in the header) the seed's own
//! entries under a different digest, so that the next depth's file, which
//! records the digest, no longer links to it: never a panic, never a
//! different read, never an unnoticed change.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hatetris::run::store::{DepthFile, StoreError, Stored};
use hatetris::well::{FULL_ROW, LIVE_ROWS};
use hatetris::Well;
use libfuzzer_sys::fuzz_target;

/// At most this many corruptions per input.
const MAX_CORRUPTIONS: usize = 8;

fuzz_target!(|data: &[u8]| {
    let path = scratch_path();
    std::fs::write(path, data).expect("write the scratch file");
    check_any(data, path);
    check_corruptions(data, path);
    let _ = std::fs::remove_file(path);
});

/// The scratch file: one per process, so parallel jobs do not collide.
fn scratch_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = PathBuf::from("/dev/shm");
        let dir = if dir.is_dir() {
            dir
        } else {
            std::env::temp_dir()
        };
        dir.join(format!("hatetris-fuzz-depth-{}.beam", std::process::id()))
    })
}

/// Reads the file at `path` (holding `data`) every way there is.
fn check_any(data: &[u8], path: &Path) {
    let Ok(file) = DepthFile::open(path) else {
        return;
    };
    let verified = file.verify();
    if file.verify_checksums().is_err() {
        assert!(verified.is_err(), "verify passes a bad checksum");
    }
    let all = file.read_all();
    let blocks: Vec<_> = (0..file.blocks()).map(|i| file.block(i)).collect();
    assert_eq!(verified.is_ok(), all.is_ok(), "verify and read_all agree");
    assert_eq!(
        verified.is_ok(),
        blocks.iter().all(Result::is_ok),
        "verify and the blocks agree"
    );
    let probes = probes(data);
    match all {
        Ok(all) => {
            assert_eq!(all.len(), file.len());
            assert_eq!(file.is_empty(), all.is_empty());
            let mut block_of = Vec::with_capacity(all.len());
            for (b, block) in blocks.iter().enumerate() {
                let n = block.as_ref().map_or(0, Vec::len);
                block_of.extend(std::iter::repeat(b).take(n));
            }
            let joined: Vec<Stored> = blocks.into_iter().flat_map(Result::unwrap).collect();
            assert_eq!(joined, all, "the blocks in order are read_all");
            for e in &all {
                assert!(Well::from_live_rows(*e.well.rows()).is_ok(), "{e:?}");
            }
            check_wells_at(&file, &all, data);
            check_find(&file, &all, &block_of, &probes);
        }
        Err(_) => {
            // A corrupt block makes these errors, never a panic.
            let _ = file.wells_at(&[0, file.len().saturating_sub(1) as u32]);
            for well in &probes {
                if let Ok(Some(found)) = file.find(well) {
                    assert_eq!(found.well, *well);
                }
            }
        }
    }
}

/// `wells_at` on a few increasing indices, and one past the end.
fn check_wells_at(file: &DepthFile, all: &[Stored], data: &[u8]) {
    let n = all.len();
    if n > 0 {
        let mut indices = vec![0, n / 3, n / 2, n - 1];
        indices.extend(data.iter().take(4).map(|&b| b as usize * n / 256));
        indices.sort_unstable();
        indices.dedup();
        let indices: Vec<u32> = indices.into_iter().map(|i| i as u32).collect();
        let wells = file.wells_at(&indices).expect("a verified file reads");
        assert_eq!(wells.len(), indices.len());
        for (&i, w) in indices.iter().zip(&wells) {
            assert_eq!(w.unpack(), all[i as usize].well, "entry {i}");
        }
    }
    assert!(file.wells_at(&[n as u32]).is_err(), "no entry {n}");
}

/// `find`: always the well asked for; on a well-formed file, every entry
/// and nothing else.
/// `block_of[k]` is the block entry `k` was read from.
fn check_find(file: &DepthFile, all: &[Stored], block_of: &[usize], probes: &[Well]) {
    let sorted = all.windows(2).all(|w| w[0].well < w[1].well);
    let in_place = all
        .iter()
        .zip(block_of)
        .all(|(e, &b)| file.block_for(&e.well) == Some(b));
    let well_formed = sorted && in_place;
    // Every entry of a small file, a sample of a large one.
    let step = (all.len() / 64).max(1);
    for e in all.iter().step_by(step).chain(all.last()) {
        let found = file.find(&e.well).expect("a verified file reads");
        if well_formed {
            assert_eq!(found, Some(*e));
        } else if let Some(found) = found {
            assert_eq!(found.well, e.well);
        }
    }
    for well in probes {
        let found = file.find(well).expect("a verified file reads");
        if let Some(found) = found {
            assert_eq!(found.well, *well);
        }
        if well_formed {
            let present = all.binary_search_by(|e| e.well.cmp(well)).ok();
            assert_eq!(found, present.map(|i| all[i]), "{well:?}");
        }
    }
}

/// Wells to look up that need not be in the file.
fn probes(data: &[u8]) -> Vec<Well> {
    let mut rows = [0u16; LIVE_ROWS];
    for (r, pair) in rows.iter_mut().zip(data.chunks(2)) {
        *r = u16::from_le_bytes([pair[0], *pair.get(1).unwrap_or(&0)]) & FULL_ROW;
    }
    let mut last_bit = [0u16; LIVE_ROWS];
    last_bit[LIVE_ROWS - 1] = 1;
    vec![
        Well::EMPTY,
        Well::from_live_rows([FULL_ROW; LIVE_ROWS]).expect("full rows are valid"),
        Well::from_live_rows(last_bit).expect("a valid row"),
        Well::from_live_rows(rows).expect("masked rows are valid"),
    ]
}

/// A real depth file and what it holds.
struct Seed {
    name: String,
    bytes: Vec<u8>,
    entries: Vec<Stored>,
    digest: u64,
}

/// The seeds that open and verify under this build.
fn seeds() -> &'static [Seed] {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/depth_file"));
        let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default();
        names.retain(|p| p.extension().is_some_and(|e| e == "beam"));
        names.sort();
        let mut seeds = Vec::new();
        for p in names {
            let name = p.display().to_string();
            match read(&p) {
                Ok((entries, digest)) => {
                    let bytes = std::fs::read(&p).expect("the seed was just read");
                    seeds.push(Seed {
                        name,
                        bytes,
                        entries,
                        digest,
                    });
                }
                Err(e) => eprintln!("depth_file: skipping seed {name}: {e}"),
            }
        }
        if seeds.is_empty() {
            eprintln!(
                "depth_file: no seed in {} reads: the corruption checks are off \
                 (regenerate the seeds, see scripts/fuzz.sh)",
                dir.display()
            );
        }
        seeds
    })
}

/// The input as corruptions of one seed: byte 0 picks the seed, then each
/// 5 bytes are one corruption (a kind byte and a position u32).
fn check_corruptions(data: &[u8], path: &Path) {
    let seeds = seeds();
    let Some((&pick, ops)) = data.split_first() else {
        return;
    };
    let Some(seed) = seeds.get(pick as usize % seeds.len().max(1)) else {
        return;
    };
    for op in ops.chunks_exact(5).take(MAX_CORRUPTIONS) {
        let at = u32::from_le_bytes([op[1], op[2], op[3], op[4]]) as usize;
        let mut bytes = seed.bytes.clone();
        let what = if op[0] == 0 {
            let cut = at % bytes.len();
            bytes.truncate(cut);
            format!("cut at {cut}")
        } else {
            let at = at % bytes.len();
            bytes[at] ^= op[0];
            format!("byte {at} ^ {:#04x}", op[0])
        };
        std::fs::write(path, &bytes).expect("write the scratch file");
        if let Ok((all, digest)) = read(path) {
            assert!(
                all == seed.entries,
                "{}, {what}: read {} entries that are not the seed's {}",
                seed.name,
                all.len(),
                seed.entries.len()
            );
            assert_ne!(digest, seed.digest, "{}, {what}: same digest", seed.name);
        }
    }
}

/// A depth file's entries and digest, if it opens and verifies.
fn read(path: &Path) -> Result<(Vec<Stored>, u64), StoreError> {
    let f = DepthFile::open(path)?;
    f.verify()?;
    let all = f.read_all()?;
    assert_eq!(all.len(), f.len());
    Ok((all, f.digest()))
}
