//! Replay codecs (stub: being written).
#![allow(missing_docs)]
use crate::key::Key;

/// A replay encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Raw,
    Hex,
    Base65536,
    Base2048,
}

/// Why a replay string could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("not implemented")]
    Todo,
}

/// Encodes keys.
pub fn encode(_keys: &[Key], _format: Format) -> String {
    unimplemented!()
}

/// Decodes with the game's auto-detection.
pub fn decode(_s: &str) -> Result<Vec<Key>, DecodeError> {
    Err(DecodeError::Todo)
}

/// Decodes as one given format.
pub fn decode_as(_s: &str, _format: Format) -> Result<Vec<Key>, DecodeError> {
    Err(DecodeError::Todo)
}
