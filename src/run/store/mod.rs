//! The on-disk depth file: one beam, sorted by well, in checksummed zstd
//! blocks with an index, read back through a memory map.
//!
//! # Layout (format version 2)
//! ```text
//! header  32 bytes   magic "HTBEAM\0\0", version u32 LE, depth u32 LE,
//!                    run u64 LE, previous u64 LE
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
//! `run` is the run's identity ([`Link`]) and `previous` the
//! [digest](DepthFile::digest) of the depth before's file (0 for depth 0),
//! so a run's files form a chain: a file copied from another run, from
//! another depth, or an older file put back in place of a newer one breaks
//! it, and reading the headers and indexes (a few bytes per block) finds it.
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

use std::io::{self, Write};

use rayon::prelude::*;
use std::path::{Path, PathBuf};

mod read;

pub use read::DepthFile;

use crate::folder::{atomic::write_atomic_with, IoError};
use crate::well::{PackedWell, Well, LIVE_ROWS};

/// Entries per block.
pub const BLOCK: usize = 4096;
const MAGIC: &[u8; 8] = b"HTBEAM\0\0";
const FOOTER_MAGIC: &[u8; 8] = b"HTBEAMIX";
/// The format version written by this code.
pub const VERSION: u32 = 2;
const HEADER_LEN: usize = 32;
const INDEX_ENTRY_LEN: usize = 56;
const FOOTER_LEN: usize = 32;

/// How often a [`DepthFile`] drops all its mapped pages: every this many
/// decoded blocks (about 1 MB of file).
const DROP_ALL_EVERY: usize = 64;
const ZSTD_LEVEL: i32 = 9;

/// Where a depth file belongs: the run and the file before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// The run's identity ([`crate::run::Settings::run_id`]).
    pub run: u64,
    /// The digest of the previous depth's file (0 for depth 0).
    pub previous: u64,
}

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
    #[error(transparent)]
    Io(#[from] IoError),
    /// The file is shorter than its own structure says.
    #[error("{path}: truncated or damaged: its structure does not fit its {len} bytes")]
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
    /// A sharded run's depth was read without one of its shards' files
    /// (written on another machine, and not gathered).
    #[error("depth {depth}: shard {shard}'s file is not among the folders read (written on another machine? copy its shard-{shard:04} folder in)")]
    MissingShard {
        /// The shard.
        shard: u32,
        /// The depth.
        depth: u32,
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

/// Encodes a beam (sorted by well, no duplicates) as a depth file.
#[cfg(test)]
pub(crate) fn encode(depth: u32, link: Link, entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + entries.len() * 5);
    encode_into(&mut out, depth, link, entries.len(), |i| entries[i])
        .expect("a Vec takes any write");
    out
}

/// Writes a depth file of `len` entries, entry `i` being `entry(i)` (sorted
/// by well, no duplicates), atomically to `path`. The blocks are streamed to
/// the file as they are compressed: neither the entries nor the file are
/// ever whole in memory. Returns the file's length.
pub(crate) fn write_depth_file(
    path: &Path,
    depth: u32,
    link: Link,
    len: usize,
    entry: impl Fn(usize) -> Entry + Sync,
) -> io::Result<u64> {
    let mut bytes = 0;
    write_atomic_with(path, |w| {
        bytes = encode_into(w, depth, link, len, entry)?;
        Ok(())
    })?;
    Ok(bytes)
}

/// One block of entries `range`, laid out column by column and compressed:
/// its first well, its entry count and its bytes.
fn compress_block(
    range: std::ops::Range<usize>,
    entry: &(impl Fn(usize) -> Entry + Sync),
) -> (Well, usize, Vec<u8>) {
    let entries: Vec<Entry> = range.map(entry).collect();
    let wells: Vec<Well> = entries.iter().map(|e| e.well.unpack()).collect();
    let mut raw = Vec::with_capacity(wells.len() * (LIVE_ROWS + 1) * 2);
    for r in 0..LIVE_ROWS {
        for w in &wells {
            raw.extend_from_slice(&w.rows()[r].to_le_bytes());
        }
    }
    for e in &entries {
        raw.extend_from_slice(&e.score.to_le_bytes());
    }
    let compressed = zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("zstd compresses in memory");
    (wells[0], wells.len(), compressed)
}

/// Encodes a depth file into `out`; returns the bytes written.
fn encode_into(
    out: &mut dyn Write,
    depth: u32,
    link: Link,
    len: usize,
    entry: impl Fn(usize) -> Entry + Sync,
) -> io::Result<u64> {
    debug_assert!(
        (1..len).all(|i| entry(i - 1).well < entry(i).well),
        "sorted and distinct"
    );
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&depth.to_le_bytes())?;
    out.write_all(&link.run.to_le_bytes())?;
    out.write_all(&link.previous.to_le_bytes())?;
    let mut written = HEADER_LEN as u64;
    let mut index = Vec::new();
    // Blocks are independent, so a window of them is compressed in
    // parallel (on the caller's rayon pool) and written in order: the
    // same bytes for any thread count, and only a window in memory.
    let blocks = len.div_ceil(BLOCK);
    let window = rayon::current_num_threads() * 4;
    for first in (0..blocks).step_by(window.max(1)) {
        let done: Vec<(Well, usize, Vec<u8>)> = (first..blocks.min(first + window))
            .into_par_iter()
            .map(|b| compress_block(b * BLOCK..len.min((b + 1) * BLOCK), &entry))
            .collect();
        for (first_well, entries, compressed) in done {
            let offset = written;
            out.write_all(&compressed)?;
            written += compressed.len() as u64;
            for row in first_well.rows() {
                index.extend_from_slice(&row.to_le_bytes());
            }
            index.extend_from_slice(&offset.to_le_bytes());
            index.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
            index.extend_from_slice(&(entries as u32).to_le_bytes());
            index.extend_from_slice(&crc32fast::hash(&compressed).to_le_bytes());
            index.extend_from_slice(&0u32.to_le_bytes());
        }
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
