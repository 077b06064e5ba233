//! A neural evaluator (NNUE): a one-hidden-layer network over sparse
//! pattern features, trained in f32 and run in int16.
//!
//! - [`features`]: the 120 active binary features of a well (16 row
//!   patterns, 104 window patterns) and the two table layouts.

pub mod features;

pub use features::Layout;
