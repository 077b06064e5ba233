//! A neural evaluator (NNUE): a one-hidden-layer network over sparse
//! pattern features, trained in f32 and run in int16.
//!
//! # What this module owns
//! - [`features`]: the 120 active binary features of a well (16 row
//!   patterns, 104 window patterns) and the two table layouts;
//! - [`net`]: the f32 network, its exact gradient, and a seeded generator
//!   ([`Net`]);
//! - [`adam`]: Adam with sparse rows, and the trainer ([`Trainer`]);
//! - [`quant`]: the int16 network and its scales ([`QuantNet`]);
//! - [`simd`]: the inner loops, scalar and AVX2, bit-identical
//!   ([`Simd`]);
//! - [`file`](mod@file): the net files (magic, version, architecture, checksum);
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
//! - **Network**: `H` hidden units (a runtime parameter, 1 to
//!   [`MAX_HIDDEN`], recorded in the file; 32 to 64 for real nets), clipped
//!   ReLU, one linear output.
//! - **Layout**: shared tables at inference ([`Layout::Shared`]), chosen by
//!   the measurements below; the positional layout stays in the code and
//!   the file format so that a trainer with far more data can measure it
//!   again.
//! - **Quantisation**: int16 weights and accumulators at a scale `QA`,
//!   activations clamped to `[0, QA]`, int16 output weights at `QB`, int32
//!   output; both scales are chosen per net as large as overflow allows
//!   (at most 2¹⁴), see [`quant`].
//!
//! # The layout: shared tables, measured
//! Two ways to run the inputs' weights were measured:
//! - (a) **positional**: train a shared row per pattern plus a row per
//!   (position, pattern), fold them into one table of 442,368 rows at
//!   export: 54 MiB at H = 64, far bigger than the 2 MiB L2 cache;
//! - (b) **shared**: one row per pattern, 5,120 rows, 640 KiB at H = 64.
//!   The suggested middle way, shared weights plus a per-position bias
//!   vector per hidden unit, is (b) exactly: every position has exactly one
//!   active feature, so the per-position biases always sum to the same
//!   vector, which is the hidden bias. Position still reaches a shared net
//!   through the patterns themselves (the count of empty rows and windows
//!   is the stack's height).
//!
//! Speed, µs per child over the 297,749 children of the bench wells, one
//! thread, the hand-timed table of `cargo bench --bench nnue` (median of
//! five runs; two runs, machine shared with other jobs):
//!
//! | net, SIMD path | `cost` (full) | `costs` (reuse) |
//! |---|---|---|
//! | shared H=64, AVX2 | 0.187, 0.253 | **0.119, 0.136** |
//! | positional H=64, AVX2 | 0.430, 0.415 | 0.258, 0.248 |
//! | shared H=64, scalar | 0.567, 0.575 | 0.273, 0.349 |
//! | positional H=64, scalar | 0.902, 1.013 | 0.460, 0.444 |
//! | shared H=32, AVX2 | 0.162, 0.186 | 0.119, 0.123 |
//! | positional H=32, AVX2 | 0.338, 0.337 | 0.202, 0.202 |
//! | knewjade heuristic | 0.484, 0.458 | |
//!
//! The positional table costs about twice the time per child (cache
//! misses: each child reads about 39 rows scattered over 54 MiB). H does
//! not matter much for speed with the reuse (32 and 64 both about
//! 0.12 µs), so the trainer can choose H on the validation loss alone.
//! With the quiescent lookahead, which has no batch path and so calls
//! `cost` for each child and chain well, shared H = 64 on AVX2 took 0.332
//! and 0.430 µs per child against 0.649 and 0.739 for the heuristic with
//! the lookahead (same two runs). (The public engine's net: 4.2 µs.)
//!
//! Fit, on small data: H = 32, 6,000 random-play wells (4 to 20 pieces),
//! 2,000 held out, Adam at 10⁻³ and 3·10⁻⁴, 15 epochs, best held-out
//! loss (targets of variance 1): the normalised knewjade cost 0.482 shared
//! against 0.479 positional; holes and surface height 0.284 against 0.274.
//! No gain worth the cost at this size, while a positional training step
//! took 8 times as long (18.2 s against 2.3 s for the 15 epochs, dev
//! profile), its f32 tables and Adam moments being 442,368 × H floats each.
//! A shipped net in the shared layout is also small (H = 64: 655 KB).
//!
//! So: **shared**. With more data (learn-12's 378,566 samples, the
//! trainer's `--positional`, which starts the fit from the champion with
//! zero positional rows: `data/train/README.md`, "Probes of the
//! width-100,000 wall") the positional fit reached a held-out loss of
//! 0.406 against the shared fit's 0.404 (10 s an epoch against 1 s), and
//! its net survived 98.8 pieces a start on the record's suite against the
//! shared candidate's 98.4 and scored the same 129 lines from the empty
//! well at width 100,000, at 2.2 times the search's time a depth there:
//! still no gain. A cheaper middle
//! way, positional row features (16 × 1,024 rows) with shared windows
//! (2.6 MiB at H = 64), would be one more layout code.
//!
//! Why H stops at 64 unless the build asks for 128 (the feature
//! `hidden-128`): two nets side by side ([`Net::ensemble`], one net whose
//! value is the mean of theirs) and the 128-unit fits of `train --widen`
//! need 128, and a build that allows 128 (four more block widths in
//! [`simd`], and an accumulator of 256 bytes that every child and memo
//! carries) runs the 64-unit nets about 5 % slower (`hatetris bench search
//! --width 10000 --depths 40 --threads 2 --net data/nets/wide.nnue
//! --quiescent`, the two builds in turn, four pairs: ratios 0.97 to 1.11,
//! median 1.055), and the one ensemble tried played no better than the
//! champion (`data/train/README.md`, "Two nets side by side"), nor did a
//! 128-unit fit play better than its 64-unit twin ("Does a wider net
//! help?"). So the default build stops at 64, and an ensemble there is of
//! two nets of 32 units.
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
//!
//! The trainer's rescales shrink the weight generation after generation
//! (0.74 in `best.nnue`, 0.0026 in learn-10's generation 8), and that
//! costs nothing: the same net with the weight set by hand to 0, 0.01,
//! 0.03, 0.1, 0.3 and 1 survives 99.6, 99.6, 98.2, 97.6, 88.6 and 74.9
//! pieces a start on the record's suite against its own 100.0 (`hatetris
//! bench strength --suite data/strength/suite-3711.json`, width 300;
//! `data/train/line-weight/`).

pub mod adam;
pub mod eval;
pub mod features;
pub mod file;
pub mod net;
pub mod quant;
pub mod simd;

use std::path::PathBuf;

pub use adam::{AdamConfig, Trainer};
pub use eval::NetEvaluator;
pub use features::Layout;
pub use file::NET_FILE;
pub use net::{wider_build, Net, Rng, Sample, MAX_HIDDEN};
pub use quant::QuantNet;
pub use simd::Simd;

/// Why a net could not be made, read or written. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The file could not be read.
    #[error("cannot read net file {path}: {cause}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause (not `source`: the message already says it, and a
        /// source would be printed again after it).
        cause: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write net file {path}: {cause}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause (not `source`: the message already says it, and a
        /// source would be printed again after it).
        cause: std::io::Error,
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
    /// The file is larger than any net.
    #[error("larger than {limit_mib} MiB, not a net file")]
    TooLarge {
        /// The limit.
        limit_mib: u64,
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
