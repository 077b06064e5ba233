//! movegen (stub: being written).
#![allow(missing_docs)]
