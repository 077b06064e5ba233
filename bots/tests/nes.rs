//! Rule tests for nes.
