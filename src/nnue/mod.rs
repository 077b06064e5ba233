//! A neural evaluator (NNUE): a one-hidden-layer network over sparse
//! pattern features, trained in f32 and run in int16.
//!
//! # What this module owns
//! - [`features`]: the 120 active binary features of a well (16 row
//!   patterns, 104 window patterns) and the two table layouts;
//! - [`net`]: the f32 network, its exact gradient, Adam with sparse rows,
//!   and a seeded generator ([`Net`], [`Trainer`]);
//! - [`quant`]: the int16 network and its scales ([`QuantNet`]);
//! - [`kernel`]: the inner loops, scalar and AVX2, bit-identical
//!   ([`Kernel`]);
//! - [`file`]: the net files (magic, version, architecture, checksum);
//! - [`eval`]: [`NetEvaluator`], the search's [`crate::evaluate::Evaluator`]
//!   with the parent's accumulator reused for its children.
//!
//! The trainer's data (master beams, training beams, targets) is not here;
//! this module is the function and how to fit it to given targets.
//!
//! # Design
//! - **Inputs**: every row as a 10-bit pattern and every 4×3 window as a
//!   12-bit pattern, 120 active features; no score input, so the value
//!   depends on the well only (equal wells, equal values).
//! - **Network**: `H` hidden units (a runtime parameter, 1 to 64, recorded
//!   in the file; 32 to 64 for real nets), clipped ReLU, one linear output.
//! - **Layout**: MEASUREMENT_PENDING
//! - **Quantisation**: int16 weights and accumulators at a scale `QA`,
//!   activations clamped to `[0, QA]`, int16 output weights at `QB`, int32
//!   output; both scales are chosen per net as large as overflow allows
//!   (at most 2¹⁴), see [`quant`].
//!
//! # The cost and the line term
//! `cost = -value - line_weight · score`, where `value` is the net's output
//! (higher is better) and `line_weight` is stored in the net file (so it
//! is part of the net's identity). The value ignores the score, as in the
//! public engine; the line term is there for the quiescent lookahead
//! ([`crate::evaluate::Lookahead`]), which scores a well by the best cost
//! along chains of hypothetical single-line clears with each hypothetical
//! line worth [`crate::evaluate::HYPOTHETICAL_LINE_WEIGHT`] (half) a real
//! one: with `line_weight = 0` a chain's clears are worth only what they do
//! to the well's shape (the public engine's rule), with a positive weight
//! they also earn their half line, as they do with the heuristic.
//!
//! The weight is in value units per line, so it belongs to the net, not to
//! the search. The intended recipe: generation 0 learns the heuristic as
//! `value = -cost_heuristic(well, score 0) / s` for a fixed scale `s`, with
//! `line_weight = 332.2211 / s` (the heuristic's line weight on the same
//! scale), so the first net's costs are the heuristic's divided by `s`,
//! half lines included; later generations, trained on values of the same
//! net, keep the same units and the same weight. Within one depth of the
//! beam a higher score always means ten fewer cells per line, which the
//! value already sees; the term mainly breaks the lookahead's tie between
//! a chain point and the well itself.

pub mod eval;
pub mod features;
pub mod file;
pub mod kernel;
pub mod net;
pub mod quant;

use std::path::PathBuf;

pub use eval::NetEvaluator;
pub use features::Layout;
pub use kernel::Kernel;
pub use net::{AdamConfig, Net, Rng, Sample, Trainer};
pub use quant::QuantNet;

/// Why a net could not be made, read or written. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The file could not be read.
    #[error("cannot read net file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write net file {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file does not start with the magic bytes.
    #[error("not a HATETRIS net file (it starts with \"{found}\", not \"HATENNUE\")")]
    Magic {
        /// The file's first bytes, escaped.
        found: String,
    },
    /// A format version this build does not read.
    #[error("net file format version {found} is not supported (this build reads version 1)")]
    Version {
        /// The file's version.
        found: u32,
    },
    /// A quantised net where a training net was expected, or the reverse.
    #[error("the file holds {found}, not {expected}")]
    WrongKind {
        /// What the file holds.
        found: &'static str,
        /// What was asked for.
        expected: &'static str,
    },
    /// A header field or a weight this build cannot use.
    #[error("unsupported net architecture: {0}")]
    Architecture(String),
    /// The file is shorter than its header says.
    #[error("net file is truncated: {found} bytes where {expected} are needed")]
    Truncated {
        /// The file's length.
        found: u64,
        /// The length it should have.
        expected: u64,
    },
    /// The file is longer than its header says.
    #[error("net file has {extra} unexpected bytes after its checksum")]
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// The checksum does not match the contents.
    #[error("net file is damaged: checksum {stored:08x} stored, {computed:08x} computed")]
    Checksum {
        /// The checksum in the file.
        stored: u32,
        /// The checksum of the contents.
        computed: u32,
    },
    /// The f32 net's weights do not fit the integer format.
    #[error("the net cannot be quantised: {0}")]
    Quantise(String),
}
