//! The `hatetris` command line (stub).
fn main() {}
