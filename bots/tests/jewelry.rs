//! Rule tests for jewelry.
