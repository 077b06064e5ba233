//! Base2048 (stub: being written).
