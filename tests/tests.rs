//! The integration tests: one test binary, one module per area.

mod codec;
