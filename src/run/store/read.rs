//! Reading a depth file: the index checked on open, blocks decoded and
//! checked on demand through a memory map (the layout is in [`super`]).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::{Advice, Mmap, UncheckedAdvice};
use rayon::prelude::*;

use crate::folder::{fnv1a, FNV_OFFSET};

use super::{
    Link, StoreError, Stored, BLOCK, DROP_ALL_EVERY, FOOTER_LEN, FOOTER_MAGIC, HEADER_LEN,
    INDEX_ENTRY_LEN, MAGIC, VERSION,
};
use crate::folder::io;
use crate::well::{PackedWell, Well, LIVE_ROWS};

/// One block's index entry.
#[derive(Clone, Copy, Debug)]
struct BlockInfo {
    first: Well,
    offset: usize,
    len: usize,
    entries: usize,
    crc: u32,
}

/// A depth file opened for reading through a memory map.
pub struct DepthFile {
    path: PathBuf,
    map: Mmap,
    depth: u32,
    link: Link,
    entries: usize,
    blocks: Vec<BlockInfo>,
    digest: u64,
    /// Blocks decoded so far (see [`DepthFile::drop_pages`]).
    decoded: AtomicUsize,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl DepthFile {
    /// Opens and checks a depth file's header, footer and index.
    pub fn open(path: &Path) -> Result<DepthFile, StoreError> {
        let file = File::open(path).map_err(io(path))?;
        // SAFETY: the file is only ever replaced by rename, never modified in
        // place, so the mapped bytes cannot change under us; every access
        // below is bounds-checked against the map's length.
        let map = unsafe { Mmap::map(&file) }.map_err(io(path))?;
        // Blocks are read once each, in parallel and out of order, and
        // dropped after decoding (see `block`). Without this the kernel maps
        // in the pages around each fault ("fault-around"), which puts back
        // pages of blocks already dropped: about half the file stayed
        // resident. Failing to advise only costs memory.
        let _ = map.advise(Advice::Random);
        let b = &map[..];
        let truncated = || StoreError::Truncated {
            path: path.to_path_buf(),
            len: b.len(),
        };
        if b.len() < HEADER_LEN + FOOTER_LEN {
            return Err(truncated());
        }
        if &b[..8] != MAGIC {
            return Err(StoreError::Magic {
                path: path.to_path_buf(),
            });
        }
        let version = u32_at(b, 8);
        if version != VERSION {
            return Err(StoreError::Version {
                path: path.to_path_buf(),
                found: version,
            });
        }
        let depth = u32_at(b, 12);
        let link = Link {
            run: u64_at(b, 16),
            previous: u64_at(b, 24),
        };
        let f = b.len() - FOOTER_LEN;
        if &b[f + 24..f + 32] != FOOTER_MAGIC {
            return Err(truncated());
        }
        let entries = u64_at(b, f) as usize;
        let nblocks = u32_at(b, f + 8) as usize;
        let index_crc = u32_at(b, f + 12);
        let index_offset = u64_at(b, f + 16) as usize;
        let index_len = nblocks.checked_mul(INDEX_ENTRY_LEN).ok_or_else(truncated)?;
        if index_offset < HEADER_LEN || index_offset.checked_add(index_len) != Some(f) {
            return Err(truncated());
        }
        let index = &b[index_offset..f];
        if crc32fast::hash(index) != index_crc {
            return Err(StoreError::Checksum {
                path: path.to_path_buf(),
                what: "the index".into(),
            });
        }
        let mut blocks = Vec::with_capacity(nblocks);
        let mut total = 0usize;
        for i in 0..nblocks {
            let e = &index[i * INDEX_ENTRY_LEN..(i + 1) * INDEX_ENTRY_LEN];
            let mut rows = [0u16; LIVE_ROWS];
            for (r, row) in rows.iter_mut().enumerate() {
                *row = u16_at(e, 2 * r) & crate::well::FULL_ROW;
            }
            let info = BlockInfo {
                first: Well::from_live_rows_unchecked(rows),
                offset: u64_at(e, 32) as usize,
                len: u32_at(e, 40) as usize,
                entries: u32_at(e, 44) as usize,
                crc: u32_at(e, 48),
            };
            if info.offset < HEADER_LEN
                || info.offset.saturating_add(info.len) > index_offset
                || info.entries > BLOCK
                // Entry `k` is in block `k / BLOCK`: every block but the
                // last is full.
                || (i + 1 < nblocks && info.entries != BLOCK)
            {
                return Err(truncated());
            }
            total += info.entries;
            blocks.push(info);
        }
        if total != entries {
            return Err(truncated());
        }
        // The header, the index (which holds every block's checksum) and
        // the footer: the whole file, through the checksums.
        let digest = [&b[..HEADER_LEN], index, &b[f..]]
            .iter()
            .fold(FNV_OFFSET, |h, part| fnv1a(h, part));
        Ok(DepthFile {
            path: path.to_path_buf(),
            map,
            depth,
            link,
            entries,
            blocks,
            digest,
            decoded: AtomicUsize::new(0),
        })
    }

    /// The depth this file holds.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The run this file belongs to and the digest of the file before it.
    pub fn link(&self) -> Link {
        self.link
    }

    /// A digest of the whole file: of its header, index and footer, which
    /// hold a checksum of every block. The next depth's file records it.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of wells.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether the beam is empty.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Bytes in the file.
    pub fn file_len(&self) -> usize {
        self.map.len()
    }

    /// Bytes of the header, index and footer (what opening the file reads).
    pub fn index_len(&self) -> usize {
        HEADER_LEN + self.blocks.len() * INDEX_ENTRY_LEN + FOOTER_LEN
    }

    /// Compressed length of block `i`.
    pub fn block_len(&self, i: usize) -> usize {
        self.blocks[i].len
    }

    /// Lets the kernel drop the mapped pages of a decoded block, rather than
    /// count them in our resident memory (4 bytes per beam entry): a search
    /// reads each block once per depth.
    ///
    /// Dropping the block's own range is not enough. The page cache holds
    /// a file in folios of several pages, and a fault maps in the whole
    /// folio, so a block's neighbours come back in when it is read: with
    /// per-block drops alone, the whole file was resident by the end of a
    /// depth. So every [`DROP_ALL_EVERY`] blocks the whole map is dropped,
    /// which bounds what stays resident whatever the beam's width.
    fn drop_pages(&self, info: BlockInfo) {
        let n = self.decoded.fetch_add(1, Ordering::Relaxed) + 1;
        let (offset, len) = if n.is_multiple_of(DROP_ALL_EVERY) {
            (0, self.map.len())
        } else {
            (info.offset, info.len)
        };
        // SAFETY: the map is a read-only view of a file that is only ever
        // replaced by rename, never written in place; dropping its pages
        // only means a later read (by this or another thread) fetches the
        // same bytes from the file again.
        let _ = unsafe {
            self.map
                .unchecked_advise_range(UncheckedAdvice::DontNeed, offset, len)
        };
    }

    /// The wells of the entries at `indices` (increasing), decoding each
    /// block they fall in once, the blocks in parallel on the caller's
    /// rayon pool. (That was tried once before and was slower: the
    /// history's step, its one caller in a search, then ran while the pool
    /// compressed the new depth file, and waited for it: 25 ms a depth
    /// instead of 4 on 1 thread at width 100,000. Since the depth file is
    /// written alongside the next expansion, the pool is idle during the
    /// step.)
    pub fn wells_at(&self, indices: &[u32]) -> Result<Vec<PackedWell>, StoreError> {
        if let Some(&i) = indices.iter().find(|&&i| i as usize >= self.entries) {
            return Err(StoreError::NoEntry {
                path: self.path.clone(),
                index: i as usize,
                entries: self.entries,
            });
        }
        let same_block = |a: &u32, b: &u32| *a as usize / BLOCK == *b as usize / BLOCK;
        let runs: Vec<&[u32]> = indices.chunk_by(same_block).collect();
        let wells: Vec<Vec<PackedWell>> = runs
            .par_iter()
            .map(|run| {
                let entries = self.block(run[0] as usize / BLOCK)?;
                Ok(run
                    .iter()
                    .map(|&i| entries[i as usize % BLOCK].well.pack())
                    .collect())
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(wells.concat())
    }

    /// Decodes block `i`.
    pub fn block(&self, i: usize) -> Result<Vec<Stored>, StoreError> {
        let info = self.blocks[i];
        // Random access turns off the kernel's read-ahead; ask for the
        // block's pages up front instead (it matters on a cold cache, as
        // after a reboot).
        let _ = self
            .map
            .advise_range(Advice::WillNeed, info.offset, info.len);
        let bytes = &self.map[info.offset..info.offset + info.len];
        if crc32fast::hash(bytes) != info.crc {
            return Err(StoreError::Checksum {
                path: self.path.clone(),
                what: format!("block {i}"),
            });
        }
        let want = info.entries * (LIVE_ROWS + 1) * 2;
        let bad = || StoreError::Block {
            path: self.path.clone(),
            block: i,
        };
        let raw = zstd::bulk::decompress(bytes, want).map_err(|_| bad())?;
        self.drop_pages(info);
        if raw.len() != want {
            return Err(bad());
        }
        let n = info.entries;
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let mut rows = [0u16; LIVE_ROWS];
            for (r, row) in rows.iter_mut().enumerate() {
                *row = u16_at(&raw, 2 * (r * n + k)) & crate::well::FULL_ROW;
            }
            let score = u16_at(&raw, 2 * (LIVE_ROWS * n + k));
            out.push(Stored {
                well: Well::from_live_rows_unchecked(rows),
                score,
            });
        }
        Ok(out)
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Reads every entry, in well order.
    pub fn read_all(&self) -> Result<Vec<Stored>, StoreError> {
        let blocks: Vec<Vec<Stored>> = (0..self.blocks.len())
            .into_par_iter()
            .map(|i| self.block(i))
            .collect::<Result<_, _>>()?;
        Ok(blocks.concat())
    }

    /// The block that would hold `well`, if any.
    pub fn block_for(&self, well: &Well) -> Option<usize> {
        let i = self.blocks.partition_point(|b| b.first <= *well);
        i.checked_sub(1)
    }

    /// Looks one well up, reading one block.
    pub fn find(&self, well: &Well) -> Result<Option<Stored>, StoreError> {
        match self.block_for(well) {
            None => Ok(None),
            Some(i) => {
                let block = self.block(i)?;
                Ok(block
                    .binary_search_by(|e| e.well.cmp(well))
                    .ok()
                    .map(|j| block[j]))
            }
        }
    }

    /// Checks every block's checksum, without decompressing: fast enough
    /// to run over a whole run folder on resume.
    pub fn verify_checksums(&self) -> Result<(), StoreError> {
        for (i, info) in self.blocks.iter().enumerate() {
            let bytes = &self.map[info.offset..info.offset + info.len];
            if crc32fast::hash(bytes) != info.crc {
                return Err(StoreError::Checksum {
                    path: self.path.clone(),
                    what: format!("block {i}"),
                });
            }
        }
        Ok(())
    }

    /// Checks every block's checksum and decompression.
    pub fn verify(&self) -> Result<(), StoreError> {
        for i in 0..self.blocks.len() {
            self.block(i)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::folder::atomic::write_atomic;
    use crate::run::store::{encode, Entry};
    use std::fs;

    fn packed(v: &[Stored]) -> Vec<Entry> {
        v.iter().map(|&s| Entry::from(s)).collect()
    }

    fn sample(n: usize) -> Vec<Stored> {
        let mut v: Vec<Stored> = (0..n)
            .map(|i| {
                let mut rows = [0u16; LIVE_ROWS];
                rows[15] = (i % 1000) as u16;
                rows[14] = (i / 1000) as u16;
                Stored {
                    well: Well::from_live_rows(rows).unwrap(),
                    score: (i % 7) as u16,
                }
            })
            .collect();
        v.sort();
        v.dedup_by_key(|e| e.well);
        v
    }

    #[test]
    fn round_trip_and_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.beam");
        let entries = sample(10_000);
        write_atomic(
            &path,
            &encode(
                3,
                Link {
                    run: 7,
                    previous: 9,
                },
                &packed(&entries),
            ),
        )
        .unwrap();
        let f = DepthFile::open(&path).unwrap();
        assert_eq!(f.depth(), 3);
        assert_eq!(
            f.link(),
            Link {
                run: 7,
                previous: 9
            }
        );
        assert_eq!(f.read_all().unwrap(), entries);
        for e in entries.iter().step_by(997) {
            assert_eq!(f.find(&e.well).unwrap(), Some(*e));
        }
        assert_eq!(
            f.find(&Well::from_live_rows([1023; LIVE_ROWS]).unwrap())
                .unwrap(),
            None
        );
    }

    /// `wells_at` against indexing the whole file read back: runs within one block, runs across blocks, the
    /// first and last entries, nothing at all, and an index past the end.
    #[test]
    fn wells_at_reads_the_wells_at_those_indices() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.beam");
        let entries = sample(3 * BLOCK + 100);
        fs::write(&path, encode(1, Link::default(), &packed(&entries))).unwrap();
        let f = DepthFile::open(&path).unwrap();
        let all = f.read_all().unwrap();
        let n = all.len() as u32;
        let picks: Vec<Vec<u32>> = vec![
            vec![],
            vec![0],
            vec![n - 1],
            (0..n).step_by(7).collect(),
            (BLOCK as u32 - 3..BLOCK as u32 + 3).collect(),
            vec![5, 6, 2 * BLOCK as u32, n - 2, n - 1],
            (0..n).collect(),
        ];
        for indices in picks {
            let twin: Vec<_> = indices
                .iter()
                .map(|&i| all[i as usize].well.pack())
                .collect();
            assert_eq!(f.wells_at(&indices).unwrap(), twin, "{indices:?}");
        }
        assert!(matches!(
            f.wells_at(&[3, n]),
            Err(StoreError::NoEntry { index, .. }) if index == n as usize
        ));
    }

    #[test]
    fn truncation_and_corruption_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.beam");
        let bytes = encode(1, Link::default(), &packed(&sample(5000)));
        for cut in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
            fs::write(&path, &bytes[..cut]).unwrap();
            assert!(DepthFile::open(&path).is_err(), "cut at {cut}");
        }
        let mut bad = bytes.clone();
        bad[HEADER_LEN + 5] ^= 0xFF;
        fs::write(&path, &bad).unwrap();
        let f = DepthFile::open(&path).unwrap();
        assert!(matches!(f.verify(), Err(StoreError::Checksum { .. })));
    }
}
