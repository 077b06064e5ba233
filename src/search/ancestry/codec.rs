//! The ancestry snapshot on disk (`ancestry-NNNNN.bin`): its frame and its
//! encoding, the one place either is written.
//!
//! # Why by hand
//! The snapshots were written with `bincode` 1, which is unmaintained (the
//! bincode project stopped; RUSTSEC-2025-0141). Run folders already on disk
//! hold those snapshots and must still resume, so this module writes and
//! reads exactly the bytes `bincode::serialize` produced for these structs
//! (its default: fixed-size little-endian integers, a sequence as its
//! length in a u64 then its items, a struct as its fields in order, a
//! fixed-size array as its items with no length). The fixtures in
//! `tests/data/ancestry/` were written by the bincode code before it was
//! removed; the tests here decode them to the same structure and encode
//! them back to the same bytes.
//!
//! # Layout
//! A snapshot file: the magic (8 bytes), the depth (u32), the encoding's
//! length (u64), the CRC-32 of what follows (u32), then the encoding
//! compressed with zstd. All integers are little-endian.
//!
//! The encoding (`HTANCST3`):
//! ```text
//! levels:  u64 count, then per level
//!            parents: u64 n, n × u32   (index into the previous level)
//!            wells:   u64 n, n × 10 × u16   (PackedWell's words; empty while young)
//!            in_file: u64 n, n × u32   (index in the depth's file; empty once mature)
//! current: u64 n, n × u32
//! ```
//! The previous format (`HTANCST2`, still read) had per level only
//! `wells` then `parents`, every level holding its wells.
//!
//! # Stability
//! The magic names the layout; a new layout takes a new magic. A snapshot
//! that fails any check (magic, depth, CRC, a length longer than the bytes
//! left, bytes left over) reads as `None`, never a panic. (bincode 1 read
//! past trailing bytes; `serialize` never wrote any, so refusing them
//! rejects no snapshot it made.)

use crate::well::PackedWell;

use super::{Ancestry, Level};

const SNAPSHOT_MAGIC: &[u8; 8] = b"HTANCST3";
/// The previous snapshot format, still read: every level held its wells.
const SNAPSHOT_MAGIC_V2: &[u8; 8] = b"HTANCST2";
/// Bytes of the frame before the compressed encoding.
const HEADER: usize = 24;
/// The largest encoding a snapshot may claim (64 GiB).
const MAX_RAW: u64 = 1 << 36;

impl Ancestry {
    /// The snapshot of this ancestry at `depth` (see the module doc).
    pub fn to_snapshot(&self, depth: u32) -> Vec<u8> {
        let raw = encode(self);
        let packed = zstd::bulk::compress(&raw, 3).expect("zstd compresses in memory");
        frame(SNAPSHOT_MAGIC, depth, raw.len(), &packed)
    }

    /// Reads a snapshot written by [`Ancestry::to_snapshot`] (or in the
    /// previous format) at `depth`, checked against a beam of `beam_len`
    /// entries; `None` when anything is off.
    pub fn from_snapshot(bytes: &[u8], depth: u32, beam_len: usize) -> Option<Ancestry> {
        let (magic, rest) = bytes.split_first_chunk::<8>()?;
        let v2 = match magic {
            m if m == SNAPSHOT_MAGIC => false,
            m if m == SNAPSHOT_MAGIC_V2 => true,
            _ => return None,
        };
        let (d, rest) = rest.split_first_chunk::<4>()?;
        let (raw_len, rest) = rest.split_first_chunk::<8>()?;
        let (crc, packed) = rest.split_first_chunk::<4>()?;
        let raw_len = u64::from_le_bytes(*raw_len);
        if u32::from_le_bytes(*d) != depth
            || crc32fast::hash(packed) != u32::from_le_bytes(*crc)
            || raw_len > MAX_RAW
        {
            return None;
        }
        let raw = zstd::bulk::decompress(packed, usize::try_from(raw_len).ok()?).ok()?;
        let a = match v2 {
            true => decode_v2(&raw)?,
            false => decode(&raw)?,
        };
        a.validate(beam_len)
    }
}

/// The snapshot frame around `packed` (see the module doc).
fn frame(magic: &[u8; 8], depth: u32, raw_len: usize, packed: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + packed.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&depth.to_le_bytes());
    out.extend_from_slice(&(raw_len as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(packed).to_le_bytes());
    out.extend_from_slice(packed);
    out
}

/// The `HTANCST3` encoding of `a` (bincode 1's bytes for the struct).
fn encode(a: &Ancestry) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(encoded_len(a)));
    w.len(a.levels.len());
    for level in &a.levels {
        w.u32s(&level.parents);
        w.wells(&level.wells);
        w.u32s(&level.in_file);
    }
    w.u32s(&a.current);
    debug_assert_eq!(w.0.len(), encoded_len(a));
    w.0
}

/// The length of [`encode`]'s output.
fn encoded_len(a: &Ancestry) -> usize {
    let level = |l: &Level| 24 + 4 * l.parents.len() + 20 * l.wells.len() + 4 * l.in_file.len();
    8 + a.levels.iter().map(level).sum::<usize>() + 8 + 4 * a.current.len()
}

/// Reads the `HTANCST3` encoding: the structure only (the caller
/// validates it and builds the index).
fn decode(raw: &[u8]) -> Option<Ancestry> {
    let mut r = Reader(raw);
    // Each level takes at least its three lengths.
    let count = r.len(24)?;
    let mut levels = Vec::with_capacity(count);
    for _ in 0..count {
        levels.push(Level {
            parents: r.u32s()?,
            wells: r.wells()?,
            in_file: r.u32s()?,
        });
    }
    let current = r.u32s()?;
    r.end()?;
    Some(Ancestry {
        levels,
        current,
        ..Ancestry::default()
    })
}

/// Reads the `HTANCST2` encoding, where every level held its wells.
fn decode_v2(raw: &[u8]) -> Option<Ancestry> {
    let mut r = Reader(raw);
    let count = r.len(16)?;
    let mut levels = Vec::with_capacity(count);
    for _ in 0..count {
        let wells = r.wells()?;
        let parents = r.u32s()?;
        levels.push(Level {
            parents,
            wells,
            in_file: Vec::new(),
        });
    }
    let current = r.u32s()?;
    r.end()?;
    Some(Ancestry {
        levels,
        current,
        ..Ancestry::default()
    })
}

/// Appends bincode 1's encoding of sequences.
struct Writer(Vec<u8>);

impl Writer {
    fn len(&mut self, n: usize) {
        self.0.extend_from_slice(&(n as u64).to_le_bytes());
    }

    fn u32s(&mut self, xs: &[u32]) {
        self.len(xs.len());
        for x in xs {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
    }

    fn wells(&mut self, wells: &[PackedWell]) {
        self.len(wells.len());
        for w in wells {
            for word in w.words() {
                self.0.extend_from_slice(&word.to_le_bytes());
            }
        }
    }
}

/// Reads what [`Writer`] wrote, refusing lengths the bytes cannot hold
/// (so a damaged length never allocates more than the snapshot's size).
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.0.split_at_checked(n)?;
        self.0 = tail;
        Some(head)
    }

    /// A sequence's length, when that many items of at least `item` bytes
    /// fit in what is left.
    fn len(&mut self, item: usize) -> Option<usize> {
        let n = u64::from_le_bytes(self.take(8)?.try_into().ok()?);
        let n = usize::try_from(n).ok()?;
        (n.checked_mul(item)? <= self.0.len()).then_some(n)
    }

    fn u32s(&mut self) -> Option<Vec<u32>> {
        let n = self.len(4)?;
        let bytes = self.take(4 * n)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        )
    }

    fn wells(&mut self) -> Option<Vec<PackedWell>> {
        let n = self.len(20)?;
        let bytes = self.take(20 * n)?;
        Some(
            bytes
                .chunks_exact(20)
                .map(|c| {
                    let mut words = [0u16; 10];
                    for (word, b) in words.iter_mut().zip(c.chunks_exact(2)) {
                        *word = u16::from_le_bytes([b[0], b[1]]);
                    }
                    PackedWell::from_words(words)
                })
                .collect(),
        )
    }

    /// Nothing may be left over.
    fn end(self) -> Option<()> {
        self.0.is_empty().then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The fixtures: `NAME.bin` (a snapshot file the bincode 1 code wrote)
    /// and `NAME.json` (its depth, beam length, encoding length and
    /// structure, dumped by that code).
    fn fixtures() -> Vec<(String, Vec<u8>, serde_json::Value)> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ancestry");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".bin").map(String::from)
            })
            .collect();
        names.sort();
        assert!(names.len() >= 6, "fixtures in {}: {names:?}", dir.display());
        names
            .into_iter()
            .map(|n| {
                let bin = std::fs::read(dir.join(format!("{n}.bin"))).unwrap();
                let text = std::fs::read_to_string(dir.join(format!("{n}.json"))).unwrap();
                (n, bin, serde_json::from_str(&text).unwrap())
            })
            .collect()
    }

    fn u32s(v: &serde_json::Value) -> Vec<u32> {
        let items = v.as_array().unwrap().iter();
        items.map(|x| x.as_u64().unwrap() as u32).collect()
    }

    fn words(v: &serde_json::Value) -> Vec<[u16; 10]> {
        let wells = v.as_array().unwrap().iter();
        wells
            .map(|w| {
                let w: Vec<u16> = w
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as u16)
                    .collect();
                w.try_into().unwrap()
            })
            .collect()
    }

    /// The `HTANCST2` encoding (no longer written; the fixtures' check).
    fn encode_v2(a: &Ancestry) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.len(a.levels.len());
        for level in &a.levels {
            w.wells(&level.wells);
            w.u32s(&level.parents);
        }
        w.u32s(&a.current);
        w.0
    }

    /// The raw encoding inside a snapshot file.
    fn raw_of(bin: &[u8]) -> Vec<u8> {
        let raw_len = u64::from_le_bytes(bin[12..20].try_into().unwrap());
        zstd::bulk::decompress(&bin[HEADER..], raw_len as usize).unwrap()
    }

    /// Every snapshot the bincode 1 code wrote decodes to the structure it
    /// dumped, and encodes back to the same bytes.
    #[test]
    fn snapshots_written_by_bincode_1_read_and_write_the_same_bytes() {
        for (name, bin, want) in fixtures() {
            let depth = want["depth"].as_u64().unwrap() as u32;
            let beam_len = want["beam_len"].as_u64().unwrap() as usize;
            let a = Ancestry::from_snapshot(&bin, depth, beam_len)
                .unwrap_or_else(|| panic!("{name} does not read"));
            let levels = want["ancestry"]["levels"].as_array().unwrap();
            assert_eq!(a.levels.len(), levels.len(), "{name}");
            for (d, (got, want)) in a.levels.iter().zip(levels).enumerate() {
                assert_eq!(got.parents, u32s(&want["parents"]), "{name} level {d}");
                assert_eq!(got.in_file, u32s(&want["in_file"]), "{name} level {d}");
                let got_words: Vec<[u16; 10]> = got.wells.iter().map(|w| w.words()).collect();
                assert_eq!(got_words, words(&want["wells"]), "{name} level {d}");
            }
            assert_eq!(a.current, u32s(&want["ancestry"]["current"]), "{name}");

            let raw = raw_of(&bin);
            assert_eq!(
                raw.len() as u64,
                want["raw_len"].as_u64().unwrap(),
                "{name}"
            );
            let again = match &bin[..8] {
                m if m == SNAPSHOT_MAGIC_V2 => encode_v2(&a),
                _ => encode(&a),
            };
            assert!(
                again == raw,
                "{name}: the encoding differs from bincode 1's"
            );
            if &bin[..8] == SNAPSHOT_MAGIC {
                let snapshot = a.to_snapshot(depth);
                assert_eq!(snapshot[..12], bin[..12], "{name}");
                assert_eq!(raw_of(&snapshot), raw, "{name}");
            }
        }
    }

    /// A cut, a byte too many, or a length past the end reads as nothing,
    /// never a panic or a huge allocation.
    #[test]
    fn a_damaged_encoding_reads_as_none() {
        for (name, bin, _) in fixtures() {
            let raw = raw_of(&bin);
            let decoder = match &bin[..8] {
                m if m == SNAPSHOT_MAGIC_V2 => decode_v2,
                _ => decode,
            };
            assert!(decoder(&raw).is_some(), "{name}");
            for cut in 0..raw.len() {
                assert!(decoder(&raw[..cut]).is_none(), "{name} cut at {cut}");
            }
            let mut longer = raw.clone();
            longer.push(0);
            assert!(decoder(&longer).is_none(), "{name} with a byte more");
            let mut huge = raw.clone();
            huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
            assert!(decoder(&huge).is_none(), "{name} with a huge count");
        }
    }
}
