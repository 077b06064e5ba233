//! hatris (stub: being written).
#![allow(missing_docs)]
pub mod cli;
