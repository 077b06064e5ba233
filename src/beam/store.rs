//! The on-disk depth file: one beam, sorted by well, in checksummed zstd
//! blocks with an index, read back through a memory map.
//!
//! # Layout (format version 1)
//! ```text
//! header  16 bytes   magic "HTBEAM\0\0", version u32 LE, depth u32 LE
//! blocks             zstd frames, one per block of up to BLOCK entries
//! index   56 bytes   per block: first well (16 × u16 LE), offset u64,
//!                    compressed length u32, entries u32, CRC-32 of the
//!                    compressed bytes u32, reserved u32
//! footer  32 bytes   entries u64, blocks u32, CRC-32 of the index u32,
//!                    index offset u64, magic "HTBEAMIX"
//! ```
//! Inside a block, entries are stored column by column: the 16 rows of
//! every entry as u16 LE (row 4 of all entries, then row 5, ...), then every
//! score as u16 LE. Sorted wells share their top rows, so each column is
//! long runs of equal values and compresses to a few bytes per well.
//!
//! Finding one well reads the footer, the index (binary search on the first
//! wells) and one block; nothing else of the file is touched.
//!
//! # Stability
//! The magic and version are checked on open; a file of another version is
//! refused with [`StoreError::Version`], never misread. Any change to the
//! layout above bumps the version.
//!
//! # Corruption
//! A truncated file, a bad magic, a bad index checksum and a bad block
//! checksum are each a typed [`StoreError`]; nothing here panics on a bad file.
//! Files are written to a temporary name, fsynced and renamed into place, so
//! a crash leaves either the old file or the complete new one.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::{Advice, Mmap, UncheckedAdvice};

use crate::well::{PackedWell, Well, LIVE_ROWS};

/// Entries per block.
pub const BLOCK: usize = 4096;
const MAGIC: &[u8; 8] = b"HTBEAM\0\0";
const FOOTER_MAGIC: &[u8; 8] = b"HTBEAMIX";
/// The format version written by this code.
pub const VERSION: u32 = 1;
const HEADER_LEN: usize = 16;
const INDEX_ENTRY_LEN: usize = 56;
const FOOTER_LEN: usize = 32;

/// How often a [`DepthFile`] drops all its mapped pages: every this many
/// decoded blocks (about 1 MB of file).
const DROP_ALL_EVERY: usize = 64;
const ZSTD_LEVEL: i32 = 9;

/// One stored beam entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stored {
    /// The well.
    pub well: Well,
    /// Lines cleared on the way to it.
    pub score: u16,
}

/// A beam entry to encode, its well packed: 22 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Entry {
    /// The well.
    pub well: PackedWell,
    /// Lines cleared on the way to it.
    pub score: u16,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 22);

impl From<Stored> for Entry {
    fn from(s: Stored) -> Entry {
        Entry {
            well: s.well.pack(),
            score: s.score,
        }
    }
}

/// Why a depth file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The file is shorter than its own structure says.
    #[error("{path}: truncated ({len} bytes)")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: usize,
    },
    /// Not a depth file.
    #[error("{path}: not a beam depth file (bad magic)")]
    Magic {
        /// The file.
        path: PathBuf,
    },
    /// Written by another format version.
    #[error("{path}: format version {found}, this build reads version {VERSION}")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: u32,
    },
    /// A checksum did not match.
    #[error("{path}: checksum mismatch in {what}")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// "the index" or "block N".
        what: String,
    },
    /// A block decompressed to the wrong size or did not decompress.
    #[error("{path}: block {block} is corrupt")]
    Block {
        /// The file.
        path: PathBuf,
        /// The block.
        block: usize,
    },
    /// An entry past the end was asked for.
    #[error("{path}: has no entry {index} ({entries} entries)")]
    NoEntry {
        /// The file.
        path: PathBuf,
        /// The index asked for.
        index: usize,
        /// The number of entries.
        entries: usize,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `data` to `path` atomically: a temporary file in the same folder,
/// fsynced, renamed into place, then the folder fsynced.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(data))
}

/// Like [`write_atomic`], with the bytes streamed by `fill` into a buffered
/// writer on the temporary file, so they are never all in memory at once.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut w = io::BufWriter::new(File::create(&tmp)?);
        fill(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        // Persist the rename itself. Opening a folder for sync is not
        // possible on every platform; failing to do so is not fatal.
        if let Ok(d) = File::open(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        }) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Encodes a beam (sorted by well, no duplicates) as a depth file.
pub fn encode(depth: u32, entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + entries.len() * 5);
    encode_into(&mut out, depth, entries.len(), |i| entries[i]).expect("a Vec takes any write");
    out
}

/// Writes a depth file of `len` entries, entry `i` being `entry(i)` (sorted
/// by well, no duplicates), atomically to `path`. The blocks are streamed to
/// the file as they are compressed: neither the entries nor the file are
/// ever whole in memory. Returns the file's length.
pub fn write_depth_file(
    path: &Path,
    depth: u32,
    len: usize,
    entry: impl Fn(usize) -> Entry,
) -> io::Result<u64> {
    let mut bytes = 0;
    write_atomic_with(path, |w| {
        bytes = encode_into(w, depth, len, entry)?;
        Ok(())
    })?;
    Ok(bytes)
}

/// Encodes a depth file into `out`; returns the bytes written.
fn encode_into(
    out: &mut dyn Write,
    depth: u32,
    len: usize,
    entry: impl Fn(usize) -> Entry,
) -> io::Result<u64> {
    debug_assert!(
        (1..len).all(|i| entry(i - 1).well < entry(i).well),
        "sorted and distinct"
    );
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&depth.to_le_bytes())?;
    let mut written = HEADER_LEN as u64;
    let mut index = Vec::new();
    let mut raw = Vec::with_capacity(BLOCK * (LIVE_ROWS + 1) * 2);
    for start in (0..len).step_by(BLOCK) {
        let chunk: Vec<Entry> = (start..len.min(start + BLOCK)).map(&entry).collect();
        raw.clear();
        let wells: Vec<Well> = chunk.iter().map(|e| e.well.unpack()).collect();
        for r in 0..LIVE_ROWS {
            for w in &wells {
                raw.extend_from_slice(&w.rows()[r].to_le_bytes());
            }
        }
        for e in &chunk {
            raw.extend_from_slice(&e.score.to_le_bytes());
        }
        let compressed = zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("zstd compresses in memory");
        let offset = written;
        out.write_all(&compressed)?;
        written += compressed.len() as u64;
        for row in wells[0].rows() {
            index.extend_from_slice(&row.to_le_bytes());
        }
        index.extend_from_slice(&offset.to_le_bytes());
        index.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        index.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        index.extend_from_slice(&crc32fast::hash(&compressed).to_le_bytes());
        index.extend_from_slice(&0u32.to_le_bytes());
    }
    let index_offset = written;
    out.write_all(&index)?;
    out.write_all(&(len as u64).to_le_bytes())?;
    out.write_all(&(index.len() as u32 / INDEX_ENTRY_LEN as u32).to_le_bytes())?;
    out.write_all(&crc32fast::hash(&index).to_le_bytes())?;
    out.write_all(&index_offset.to_le_bytes())?;
    out.write_all(FOOTER_MAGIC)?;
    Ok(index_offset + index.len() as u64 + FOOTER_LEN as u64)
}

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
    entries: usize,
    blocks: Vec<BlockInfo>,
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
        let file = File::open(path).map_err(io_err(path))?;
        // SAFETY: the file is only ever replaced by rename, never modified in
        // place, so the mapped bytes cannot change under us; every access
        // below is bounds-checked against the map's length.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err(path))?;
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
        Ok(DepthFile {
            path: path.to_path_buf(),
            map,
            depth,
            entries,
            blocks,
            decoded: AtomicUsize::new(0),
        })
    }

    /// The depth this file holds.
    pub fn depth(&self) -> u32 {
        self.depth
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
        let (offset, len) = if n % DROP_ALL_EVERY == 0 {
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
    /// block they fall in once.
    pub fn wells_at(&self, indices: &[u32]) -> Result<Vec<PackedWell>, StoreError> {
        let mut out = Vec::with_capacity(indices.len());
        let mut block: Option<(usize, Vec<Stored>)> = None;
        for &i in indices {
            let i = i as usize;
            if i >= self.entries {
                return Err(StoreError::NoEntry {
                    path: self.path.clone(),
                    index: i,
                    entries: self.entries,
                });
            }
            let b = i / BLOCK;
            if block.as_ref().map(|(n, _)| *n) != Some(b) {
                block = Some((b, self.block(b)?));
            }
            let (_, entries) = block.as_ref().expect("just decoded");
            out.push(entries[i % BLOCK].well.pack());
        }
        Ok(out)
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
        let mut out = Vec::with_capacity(self.entries);
        for i in 0..self.blocks.len() {
            out.extend(self.block(i)?);
        }
        Ok(out)
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
        write_atomic(&path, &encode(3, &packed(&entries))).unwrap();
        let f = DepthFile::open(&path).unwrap();
        assert_eq!(f.depth(), 3);
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

    #[test]
    fn truncation_and_corruption_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.beam");
        let bytes = encode(1, &packed(&sample(5000)));
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
