//! Net files: the quantised net the search loads, and the f32 net the
//! trainer saves and resumes from.
//!
//! # Format (version 1)
//! Little-endian throughout. A 64-byte header, the payload, then a CRC-32
//! (`crc32fast`) of everything before it:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `HATENNUE` |
//! | 8 | 4 | format version, 1 |
//! | 12 | 4 | kind: 1 quantised (int16), 2 f32 training net |
//! | 16 | 4 | feature layout: 0 shared, 1 positional |
//! | 20 | 4 | inputs (table rows): 5,120 or 442,368, matching the layout |
//! | 24 | 4 | active features per well, 120 |
//! | 28 | 4 | hidden units H, 1 to 64 (128 with the feature `hidden-128`) |
//! | 32 | 4 | activation: 1 = clipped ReLU to [0, 1] |
//! | 36 | 4 | QA (i32; quantised only, else 0) |
//! | 40 | 4 | QB (i32; quantised only, else 0) |
//! | 44 | 4 | reserved, 0 |
//! | 48 | 8 | line weight (f64, cost per cleared line) |
//! | 56 | 8 | payload bytes (u64) |
//!
//! Payload of a quantised net: the table (inputs × H int16, row-major), the
//! hidden biases (H int16), the output weights (H int16), the output bias
//! (i32). Of an f32 net: the shared table (5,120 × H), the positional table
//! (442,368 × H, positional layout only), the hidden biases, the output
//! weights (H each) and the output bias, all f32.
//!
//! # Stability
//! A file names its version; this build reads version 1 only and refuses
//! any other with [`NetError::Version`]. Any change to the layout above, to
//! the meaning of a field, or to the features ([`super::features`]) is a
//! new version. The quantised net's identity in a run's settings is the
//! CRC-32 of its bytes, so a run resumes only with the very same net.
//!
//! # Errors
//! Reading checks, in order: the magic, the version, the kind, the
//! architecture fields (a field out of range is [`NetError::Architecture`]),
//! the length the header promises ([`NetError::Truncated`],
//! [`NetError::TrailingBytes`]), the checksum ([`NetError::Checksum`]),
//! then the values (non-finite f32 weights; int16 weights that could
//! overflow the accumulator). Each is a typed error with a one-line
//! message; no input panics. Files are written with
//! [`crate::folder::atomic::write_atomic`]: a temporary name, fsync, rename.

use std::path::Path;

use super::features::{Layout, ACTIVE};
use super::net::{check_hidden, Net};
use super::quant::{Acc, Block, QuantNet};
use super::NetError;
use crate::folder::atomic::write_atomic;

/// The name of the copy of its net a run folder keeps (see
/// [`crate::evaluate::Evaluator::files`]).
pub const NET_FILE: &str = "net.nnue";

/// The first eight bytes of every net file.
pub const MAGIC: &[u8; 8] = b"HATENNUE";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Header bytes.
const HEADER: usize = 64;
/// The activation code for the clipped ReLU.
const CLIPPED_RELU: u32 = 1;

/// What a net file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Quantised,
    Training,
}

impl Kind {
    fn code(self) -> u32 {
        match self {
            Kind::Quantised => 1,
            Kind::Training => 2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Quantised => "a quantised (int16) net",
            Kind::Training => "an f32 training net",
        }
    }

    fn from_code(code: u32) -> Option<Kind> {
        match code {
            1 => Some(Kind::Quantised),
            2 => Some(Kind::Training),
            _ => None,
        }
    }
}

/// The header's architecture fields.
#[derive(Clone, Copy, Debug)]
struct Header {
    kind: Kind,
    layout: Layout,
    hidden: usize,
    qa: i32,
    qb: i32,
    line_weight: f64,
}

impl Header {
    fn payload(&self) -> u64 {
        let (h, inputs) = (self.hidden as u64, self.layout.inputs() as u64);
        match self.kind {
            Kind::Quantised => 2 * inputs * h + 2 * 2 * h + 4,
            Kind::Training => {
                let positional = match self.layout {
                    Layout::Shared => 0,
                    Layout::Positional => inputs,
                };
                4 * (Layout::Shared.inputs() as u64 + positional) * h + 4 * 2 * h + 4
            }
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION,
            self.kind.code(),
            self.layout.code(),
            self.layout.inputs() as u32,
            ACTIVE as u32,
            self.hidden as u32,
            CLIPPED_RELU,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.qa.to_le_bytes());
        out.extend_from_slice(&self.qb.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.line_weight.to_le_bytes());
        out.extend_from_slice(&self.payload().to_le_bytes());
        debug_assert_eq!(out.len(), HEADER);
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Checks everything but the payload's values and returns the header and
/// the payload (see the module doc for the order of the checks).
fn parse(bytes: &[u8], want: Kind) -> Result<(Header, &[u8]), NetError> {
    let magic_len = bytes.len().min(MAGIC.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return Err(NetError::Magic {
            found: String::from_utf8_lossy(&bytes[..magic_len])
                .escape_debug()
                .to_string(),
        });
    }
    if bytes.len() < HEADER {
        return Err(NetError::Truncated {
            found: bytes.len() as u64,
            expected: HEADER as u64,
        });
    }
    let version = u32_at(bytes, 8);
    if version != VERSION {
        return Err(NetError::Version { found: version });
    }
    let kind = Kind::from_code(u32_at(bytes, 12))
        .ok_or_else(|| NetError::Architecture(format!("unknown kind {}", u32_at(bytes, 12))))?;
    if kind != want {
        return Err(NetError::WrongKind {
            found: kind.name(),
            expected: want.name(),
        });
    }
    let arch = |what: String| Err(NetError::Architecture(what));
    let Some(layout) = Layout::from_code(u32_at(bytes, 16)) else {
        return arch(format!("unknown feature layout {}", u32_at(bytes, 16)));
    };
    let inputs = u32_at(bytes, 20) as usize;
    if inputs != layout.inputs() {
        return arch(format!(
            "{inputs} inputs, but the {} layout has {}",
            layout.name(),
            layout.inputs()
        ));
    }
    if u32_at(bytes, 24) as usize != ACTIVE {
        return arch(format!(
            "{} active features (expected {ACTIVE})",
            u32_at(bytes, 24)
        ));
    }
    let hidden = u32_at(bytes, 28) as usize;
    check_hidden(hidden)?;
    if u32_at(bytes, 32) != CLIPPED_RELU {
        return arch(format!("unknown activation {}", u32_at(bytes, 32)));
    }
    if u32_at(bytes, 44) != 0 {
        return arch(format!("reserved field is {}", u32_at(bytes, 44)));
    }
    let line_weight = f64::from_le_bytes(bytes[48..56].try_into().expect("8 bytes"));
    if !line_weight.is_finite() {
        return arch(format!("line weight {line_weight}"));
    }
    let header = Header {
        kind,
        layout,
        hidden,
        qa: u32_at(bytes, 36) as i32,
        qb: u32_at(bytes, 40) as i32,
        line_weight,
    };
    let payload = u64_at(bytes, 56);
    if payload != header.payload() {
        return arch(format!(
            "payload of {payload} bytes, but the architecture needs {}",
            header.payload()
        ));
    }
    let total = HEADER as u64 + payload + 4;
    let found = bytes.len() as u64;
    if found < total {
        return Err(NetError::Truncated {
            found,
            expected: total,
        });
    }
    if found > total {
        return Err(NetError::TrailingBytes {
            extra: found - total,
        });
    }
    let end = bytes.len() - 4;
    let stored = u32_at(bytes, end);
    let computed = crc32fast::hash(&bytes[..end]);
    if stored != computed {
        return Err(NetError::Checksum { stored, computed });
    }
    Ok((header, &bytes[HEADER..end]))
}

/// Appends the CRC-32 of `out` to it.
fn seal(out: &mut Vec<u8>) {
    let crc = crc32fast::hash(out);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// The quantised net's header and payload (no checksum).
fn quant_body(q: &QuantNet) -> Vec<u8> {
    let header = Header {
        kind: Kind::Quantised,
        layout: q.layout,
        hidden: q.hidden,
        qa: q.qa,
        qb: q.qb,
        line_weight: q.line_weight,
    };
    let mut out = Vec::with_capacity(HEADER + header.payload() as usize + 4);
    header.write(&mut out);
    for row in q.table.chunks_exact(q.blocks) {
        for k in 0..q.hidden {
            out.extend_from_slice(&row[k / 16].0[k % 16].to_le_bytes());
        }
    }
    for v in [&q.bias, &q.out] {
        for k in 0..q.hidden {
            out.extend_from_slice(&v[k / 16].0[k % 16].to_le_bytes());
        }
    }
    out.extend_from_slice(&q.out_bias.to_le_bytes());
    out
}

/// The largest file read: a positional net of 64 hidden units in f32 is
/// about 113 MB.
const MAX_FILE: u64 = 256 << 20;

/// Reads a net file: the magic first (so `/dev/zero` or a wrong file stops
/// at once), then at most [`MAX_FILE`] bytes.
fn read(path: &Path) -> Result<Vec<u8>, NetError> {
    use std::io::Read;
    let err = |cause| NetError::Read {
        path: path.to_path_buf(),
        cause,
    };
    let mut file = std::fs::File::open(path).map_err(err)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(MAGIC.len() as u64)
        .read_to_end(&mut bytes)
        .map_err(err)?;
    if bytes != MAGIC[..] {
        // Not a net file (or a very short one): `parse` says which.
        return Ok(bytes);
    }
    file.take(MAX_FILE + 1 - MAGIC.len() as u64)
        .read_to_end(&mut bytes)
        .map_err(err)?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(NetError::TooLarge {
            limit_mib: MAX_FILE >> 20,
        });
    }
    Ok(bytes)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), NetError> {
    write_atomic(path, bytes).map_err(|cause| NetError::Write {
        path: path.to_path_buf(),
        cause,
    })
}

impl QuantNet {
    /// The CRC-32 of the net's file bytes (header and payload), which its
    /// file carries: the net's identity. The file format owns it, so it is
    /// computed here, from the bytes the net is written as.
    pub fn checksum(&self) -> u32 {
        crc32fast::hash(&quant_body(self))
    }

    /// The net as file bytes (see the module doc).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = quant_body(self);
        seal(&mut out);
        out
    }

    /// A net from file bytes, checked (see the module doc).
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantNet, NetError> {
        let (h, payload) = parse(bytes, Kind::Quantised)?;
        let hidden = h.hidden;
        let blocks = hidden.div_ceil(16);
        let rows = h.layout.inputs();
        let mut words = payload
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut table = vec![Block::default(); rows * blocks];
        for row in table.chunks_exact_mut(blocks) {
            for k in 0..hidden {
                row[k / 16].0[k % 16] = words.next().expect("length checked");
            }
        }
        let mut vector = || {
            let mut v = Acc::default();
            for k in 0..hidden {
                v[k / 16].0[k % 16] = words.next().expect("length checked");
            }
            v
        };
        let (bias, out) = (vector(), vector());
        let out_bias = i32::from_le_bytes(payload[payload.len() - 4..].try_into().expect("4"));
        let q = QuantNet {
            hidden,
            blocks,
            layout: h.layout,
            line_weight: h.line_weight,
            qa: h.qa,
            qb: h.qb,
            table,
            bias,
            out,
            out_bias,
        };
        q.check()?;
        Ok(q)
    }

    /// Writes the net to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        write(path, &self.to_bytes())
    }

    /// Reads a net from `path`.
    pub fn load(path: &Path) -> Result<QuantNet, NetError> {
        QuantNet::from_bytes(&read(path)?)
    }
}

impl Net {
    /// The net as file bytes (see the module doc).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = Header {
            kind: Kind::Training,
            layout: self.layout,
            hidden: self.hidden,
            qa: 0,
            qb: 0,
            line_weight: self.line_weight,
        };
        let mut out = Vec::with_capacity(HEADER + header.payload() as usize + 4);
        header.write(&mut out);
        for part in [&self.shared, &self.positional, &self.bias, &self.out] {
            for w in part.iter() {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.out_bias.to_le_bytes());
        seal(&mut out);
        out
    }

    /// A net from file bytes, checked (see the module doc).
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, NetError> {
        let (h, payload) = parse(bytes, Kind::Training)?;
        let hidden = h.hidden;
        let mut floats = payload
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let mut take = |n: usize| -> Vec<f32> { floats.by_ref().take(n).collect() };
        let shared = take(Layout::Shared.inputs() * hidden);
        let positional = match h.layout {
            Layout::Shared => Vec::new(),
            Layout::Positional => take(Layout::Positional.inputs() * hidden),
        };
        let bias = take(hidden);
        let out = take(hidden);
        let out_bias = take(1)[0];
        let net = Net {
            hidden,
            layout: h.layout,
            line_weight: h.line_weight,
            shared,
            positional,
            bias,
            out,
            out_bias,
        };
        if !net.is_finite() {
            return Err(NetError::Architecture("a weight is not finite".into()));
        }
        Ok(net)
    }

    /// Writes the net to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        write(path, &self.to_bytes())
    }

    /// Writes the net to `f32_path` (to train on) and its quantised form
    /// to `nnue_path` (to search with), each atomically, and returns the
    /// quantised net. Nothing is written if the net cannot be quantised.
    pub fn save_with_quantised(
        &self,
        f32_path: &Path,
        nnue_path: &Path,
    ) -> Result<QuantNet, NetError> {
        let quant = QuantNet::from_net(self)?;
        self.save(f32_path)?;
        quant.save(nnue_path)?;
        Ok(quant)
    }

    /// Reads a net from `path`.
    pub fn load(path: &Path) -> Result<Net, NetError> {
        Net::from_bytes(&read(path)?)
    }
}
