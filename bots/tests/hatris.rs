//! Rule tests for hatris.
