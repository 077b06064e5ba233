//! A generation's data on disk: the sampled wells and their targets.
//!
//! Two small binary files per generation, each written whole under a
//! temporary name, synced and renamed, and each ending in a CRC-32 of
//! everything before it, so a torn or damaged file is refused rather than
//! trained on:
//! - `samples.bin`: magic `HTSAMPL1`, the count (u64), then per sample its
//!   16 live rows (u16 each, in [`Well::rows`] order) and the master depth it came from
//!   (u32);
//! - `targets.bin` (and `targets-partial.bin` while the targets are being
//!   computed): magic `HTTARGT1`, the count (u64), then one f32 per sample.
//!
//! All numbers are little-endian.

use std::path::Path;

use crate::folder::atomic::write_atomic;
use crate::folder::{io, IoError};
use crate::well::{Well, LIVE_ROWS};

/// A well sampled from a master beam.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampled {
    /// The well.
    pub well: Well,
    /// The master beam's depth it was taken from.
    pub depth: u32,
}

const SAMPLES_MAGIC: &[u8; 8] = b"HTSAMPL1";
const TARGETS_MAGIC: &[u8; 8] = b"HTTARGT1";
const SAMPLE_BYTES: usize = 2 * LIVE_ROWS + 4;

/// Why a data file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The file is not what it should be.
    #[error("{path}: {why}")]
    Bad {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

fn bad(path: &Path, why: impl Into<String>) -> DataError {
    DataError::Bad {
        path: path.display().to_string(),
        why: why.into(),
    }
}

/// Writes magic, count, the records and a CRC, atomically.
fn save(path: &Path, magic: &[u8; 8], count: usize, records: &[u8]) -> Result<(), DataError> {
    let mut bytes = Vec::with_capacity(16 + records.len() + 4);
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&(count as u64).to_le_bytes());
    bytes.extend_from_slice(records);
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    Ok(write_atomic(path, &bytes).map_err(io(path))?)
}

/// Reads a file written by [`save`]: its count and records, checked.
fn load(path: &Path, magic: &[u8; 8], record: usize) -> Result<(usize, Vec<u8>), DataError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    if bytes.len() < 20 || &bytes[..8] != magic {
        return Err(bad(
            path,
            format!(
                "not a {} file",
                String::from_utf8_lossy(&magic[..]).trim_end_matches('1')
            ),
        ));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes(crc.try_into().expect("4 bytes"));
    if crc32fast::hash(body) != stored {
        return Err(bad(path, "damaged (checksum mismatch)"));
    }
    let count = u64::from_le_bytes(body[8..16].try_into().expect("8 bytes"));
    let records = &body[16..];
    if count.checked_mul(record as u64) != Some(records.len() as u64) {
        return Err(bad(
            path,
            format!("holds {} bytes for {count} records", records.len()),
        ));
    }
    Ok((count as usize, records.to_vec()))
}

/// Writes the sampled wells.
pub fn save_samples(path: &Path, samples: &[Sampled]) -> Result<(), DataError> {
    let mut records = Vec::with_capacity(samples.len() * SAMPLE_BYTES);
    for s in samples {
        for row in s.well.rows() {
            records.extend_from_slice(&row.to_le_bytes());
        }
        records.extend_from_slice(&s.depth.to_le_bytes());
    }
    save(path, SAMPLES_MAGIC, samples.len(), &records)
}

/// Reads the sampled wells, each checked to be a well.
pub fn load_samples(path: &Path) -> Result<Vec<Sampled>, DataError> {
    let (_, records) = load(path, SAMPLES_MAGIC, SAMPLE_BYTES)?;
    records
        .chunks_exact(SAMPLE_BYTES)
        .enumerate()
        .map(|(i, r)| {
            let mut rows = [0u16; LIVE_ROWS];
            for (k, row) in rows.iter_mut().enumerate() {
                *row = u16::from_le_bytes([r[2 * k], r[2 * k + 1]]);
            }
            let well =
                Well::from_live_rows(rows).map_err(|e| bad(path, format!("sample {i}: {e}")))?;
            let depth = u32::from_le_bytes(r[2 * LIVE_ROWS..].try_into().expect("4 bytes"));
            Ok(Sampled { well, depth })
        })
        .collect()
}

/// Writes targets.
pub fn save_targets(path: &Path, targets: &[f32]) -> Result<(), DataError> {
    let records: Vec<u8> = targets.iter().flat_map(|t| t.to_le_bytes()).collect();
    save(path, TARGETS_MAGIC, targets.len(), &records)
}

/// Reads targets; every one must be finite.
pub fn load_targets(path: &Path) -> Result<Vec<f32>, DataError> {
    let (_, records) = load(path, TARGETS_MAGIC, 4)?;
    let targets: Vec<f32> = records
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    if let Some(i) = targets.iter().position(|t| !t.is_finite()) {
        return Err(bad(path, format!("target {i} is not finite")));
    }
    Ok(targets)
}
