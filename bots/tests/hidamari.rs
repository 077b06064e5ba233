//! Rule tests for hidamari.
