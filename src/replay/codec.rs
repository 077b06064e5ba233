//! Replay codecs: the game's four text encodings of a key sequence, and the
//! way the game tells them apart.
//!
//! This module owns [`Format`], [`encode`], [`decode`] (the game's
//! auto-detecting decoder), [`decode_as`] (one format, no detection) and
//! [`DecodeError`]. The Base2048 alphabet itself lives in the private
//! `base2048` module; Base65536 comes from the `base65536` crate.
//!
//! # The formats
//!
//! - **raw**: one letter `L`, `R`, `D` or `U` per key.
//! - **hex**: one hex digit per pair of keys, first key in the high 2 bits
//!   (L=0, R=1, D=2, U=3); an odd count is padded with `D`; the encoder writes
//!   a space after every 4 digits, so the output ends with a space when the
//!   digit count is a multiple of 4.
//! - **Base65536** and **Base2048**: the keys are first run-length encoded
//!   into bytes (see [`keys_to_rle_bytes`]): one nybble per run of at most 4
//!   equal keys, high 2 bits the key and low 2 bits the run length minus 1,
//!   two nybbles per byte, high first, an odd count padded with nybble 0 (one
//!   extra `L`). The bytes are then written with qntm's Base65536 or Base2048.
//!
//! So `decode_as(&encode(keys, f), f)` gives back `keys`, plus one padding
//! key (`D` for hex, `L` for the run-length formats) in some cases.
//!
//! # What the game does, and what this module does
//!
//! The game (`src/replay-codecs/hatetris-replay-codec.ts`) decodes a replay
//! like this, and [`decode`] does the same:
//! 1. trim the string (JavaScript's `trim`, whose set of white space differs
//!    slightly from Rust's `str::trim`: it has U+FEFF and lacks U+0085; this
//!    module uses the JavaScript set);
//! 2. `^[ULDR]+$` → raw;
//! 3. `^[0-9A-F# ]+$` → hex; every character that is not a hex digit,
//!    i.e. `#` and space, is ignored (the game's hex decoder skips any
//!    non-digit). `#` has no meaning of its own: `"#"` alone is an empty
//!    replay;
//! 4. otherwise Base65536; if that throws, Base2048, whose error (if any) is
//!    the result.
//!
//! Consequences that are the game's and are kept on purpose:
//! - An empty or white-space-only string decodes to **no keys, without an
//!   error**: it matches neither pattern (they need at least one character),
//!   and the Base65536 decoder accepts the empty string. [`decode`] returns
//!   `Ok(vec![])`; so does [`decode_as`] for every format. There is no
//!   "empty replay" error; a caller that wants one checks `is_empty()`.
//! - A Base2048 string made only of the characters `0-9A-F` is read as hex
//!   (the key string `L` encodes to `"F"`, which decodes to `UU`), and one made
//!   only of `ULDR` is read as raw.
//! - Hex made only of the digit `D` (keys `URUR…`, up to four digits before
//!   the first space) is read as raw: `"DD"` gives `DD`, not `URUR`.
//! - The hex pattern is upper case only: `"ab"` is not hex, so it is tried as
//!   Base2048 (where it fails on its padding).
//!
//! [`decode_as`] is this module's own, since the game has no such entry
//! point. It trims like [`decode`] (the game never hands an untrimmed string
//! to a decoder) and then accepts exactly the strings the game would decode
//! in that format, with one deliberate difference: raw and hex are strict.
//! The game's hex decoder skips any character that is not a digit, and its
//! raw decoder passes any character on as a move; through the game's
//! detection neither ever sees one. [`decode_as`] rejects any character
//! outside `LRDU` (raw) or `0-9A-F`, space and `#` (hex), the characters the
//! game's detector admits.
//!
//! # Errors and positions
//!
//! Every [`DecodeError`] says what was wrong and where. Positions count
//! Unicode scalar values (Rust `char`s) from the start of the string passed
//! in, before trimming. Decoding is one linear pass per attempted format
//! (at most four) and never panics.

use super::base2048;
pub use super::format::{DecodeError, Format, ParseFormatError};
use crate::key::Key;

pub use super::base2048::{ALPHABET as BASE2048_ALPHABET, TAIL as BASE2048_TAIL};

/// Encodes keys exactly as the game's encoder for `format` does.
///
/// [`Format::Base2048`] is what the game exports today.
pub fn encode(keys: &[Key], format: Format) -> String {
    match format {
        Format::Raw => keys.iter().map(|k| k.letter()).collect(),
        Format::Hex => encode_hex(keys),
        Format::Base65536 => base65536::encode(&keys_to_rle_bytes(keys), None),
        Format::Base2048 => base2048::encode(&keys_to_rle_bytes(keys)),
    }
}

/// Decodes a replay the way the game does: trims it, then tries raw, hex,
/// Base65536 and Base2048 in turn (see the [module docs](self)).
///
/// An empty or white-space-only string gives `Ok(vec![])`, as in the game.
/// When nothing fits, the error is Base2048's, as in the game.
pub fn decode(s: &str) -> Result<Vec<Key>, DecodeError> {
    decode_detected(s).map(|(_, keys)| keys)
}

/// Like [`decode`], but also says which format the game would have used.
///
/// The empty string is reported as [`Format::Base65536`], because that is
/// the decoder that accepts it in the game.
pub fn decode_detected(s: &str) -> Result<(Format, Vec<Key>), DecodeError> {
    let (body, skipped) = js_trim(s);
    let detected = if is_raw(body) {
        decode_raw(body).map(|keys| (Format::Raw, keys))
    } else if is_hex(body) {
        decode_hex(body).map(|keys| (Format::Hex, keys))
    } else if let Ok(bytes) = base65536::decode(body, false) {
        // The game swallows any Base65536 error and moves on, so the crate's
        // error is not translated here.
        Ok((Format::Base65536, rle_bytes_to_keys(&bytes)))
    } else {
        base2048::decode(body).map(|bytes| (Format::Base2048, rle_bytes_to_keys(&bytes)))
    };
    detected.map_err(|e| e.shifted(skipped))
}

/// Decodes a replay in one given format, with no detection.
///
/// The string is trimmed as in [`decode`]. Raw and hex are strict: a
/// character outside `LRDU`, or outside `0-9A-F`, space and `#`, is an error
/// (the game would skip it). Base65536 and Base2048 accept exactly what the
/// npm packages the game uses accept. The empty string gives no keys.
pub fn decode_as(s: &str, format: Format) -> Result<Vec<Key>, DecodeError> {
    let (body, skipped) = js_trim(s);
    let keys = match format {
        Format::Raw => decode_raw(body),
        Format::Hex => decode_hex(body),
        Format::Base65536 => decode_base65536_bytes(body).map(|b| rle_bytes_to_keys(&b)),
        Format::Base2048 => base2048::decode(body).map(|b| rle_bytes_to_keys(&b)),
    };
    keys.map_err(|e| e.shifted(skipped))
}

/// Run-length encodes keys into bytes, as the game does before Base65536 or
/// Base2048.
///
/// Runs are cut greedily into pieces of at most 4 keys. Each piece is a
/// nybble: the key's code in the high 2 bits, the length minus 1 in the low
/// 2. Two nybbles make a byte, the first in the high half. An odd number of
/// nybbles is padded with nybble 0, which decodes as one extra `L`.
pub fn keys_to_rle_bytes(keys: &[Key]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(keys.len() / 2 + 1);
    // The first nybble of a byte that is not complete yet.
    let mut high: Option<u8> = None;
    let mut rest = keys;
    while let Some(&key) = rest.first() {
        let run = rest.iter().take(4).take_while(|&&k| k == key).count();
        let nybble = (key.code() << 2) | (run as u8 - 1);
        match high.take() {
            None => high = Some(nybble),
            Some(h) => bytes.push((h << 4) | nybble),
        }
        rest = &rest[run..];
    }
    if let Some(h) = high {
        bytes.push(h << 4);
    }
    bytes
}

/// Expands run-length bytes back into keys; the inverse of
/// [`keys_to_rle_bytes`], except that a padding nybble comes back as an `L`.
///
/// Every byte is valid, so this cannot fail. The output is allocated once,
/// at its exact size, and each byte is one lookup in a compile-time table.
pub fn rle_bytes_to_keys(bytes: &[u8]) -> Vec<Key> {
    let total: usize = bytes
        .iter()
        .map(|&b| usize::from(RLE_BYTE_KEYS[usize::from(b)].1))
        .sum();
    let mut keys = Vec::with_capacity(total);
    for &byte in bytes {
        let (run, len) = &RLE_BYTE_KEYS[usize::from(byte)];
        keys.extend_from_slice(&run[..usize::from(*len)]);
    }
    keys
}

/// For each run-length byte, the keys it stands for (2 to 8 of them, left
/// aligned) and how many there are. 256 × 9 bytes, built at compile time.
static RLE_BYTE_KEYS: [([Key; 8], u8); 256] = {
    let mut table = [([Key::L; 8], 0u8); 256];
    let mut byte = 0;
    while byte < 256 {
        let (keys, len) = &mut table[byte];
        // High nybble first; in each, the key's code and the run length − 1.
        let nybbles = [(byte >> 4) as u8, (byte & 0xF) as u8];
        let mut i = 0;
        while i < 2 {
            let key = Key::from_code(nybbles[i] >> 2);
            let mut run = (nybbles[i] & 3) + 1;
            while run > 0 {
                keys[*len as usize] = key;
                *len += 1;
                run -= 1;
            }
            i += 1;
        }
        byte += 1;
    }
    table
};

/// Encodes bytes in the game's Base2048 alphabet (npm `base2048` 3.0.0).
pub fn base2048_encode(bytes: &[u8]) -> String {
    base2048::encode(bytes)
}

/// Decodes a Base2048 string into bytes, rejecting what npm `base2048`
/// 3.0.0 rejects. The string is not trimmed.
pub fn base2048_decode(s: &str) -> Result<Vec<u8>, DecodeError> {
    base2048::decode(s)
}

/// The characters JavaScript's `String.prototype.trim` removes: its
/// `WhiteSpace` (TAB, VT, FF, U+FEFF and the `Zs` category) and
/// `LineTerminator` (LF, CR, U+2028, U+2029).
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | ' '
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// Trims like JavaScript; also returns how many `char`s were cut from the
/// front, so that error positions can refer to the untrimmed string.
fn js_trim(s: &str) -> (&str, usize) {
    let start = s.trim_start_matches(is_js_whitespace);
    let skipped = s[..s.len() - start.len()].chars().count();
    (start.trim_end_matches(is_js_whitespace), skipped)
}

/// The game's raw pattern, `^[ULDR]+$`.
fn is_raw(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| matches!(b, b'U' | b'L' | b'D' | b'R'))
}

/// The game's hex pattern, `^[0123456789ABCDEF# ]+$`.
fn is_hex(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F' | b'#' | b' '))
}

fn decode_raw(s: &str) -> Result<Vec<Key>, DecodeError> {
    // Byte-wise: every valid character is one ASCII byte, so the first byte
    // that is not a key letter starts the first bad character.
    if let Some(bad) = s
        .bytes()
        .position(|b| Key::from_letter(char::from(b)).is_none())
    {
        return Err(DecodeError::InvalidCharacter {
            format: Format::Raw,
            // `bad < s.len()`, so there is a character; the default is never used.
            ch: s[bad..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER),
            // Everything before `bad` is ASCII: bytes and chars agree.
            position: bad,
        });
    }
    // Every byte is now known to be one of the four letters.
    Ok(s.bytes()
        .map(|b| match b {
            b'L' => Key::L,
            b'R' => Key::R,
            b'D' => Key::D,
            _ => Key::U,
        })
        .collect())
}

/// The hex digits, indexed by the 4-bit value of a key pair.
const HEX_DIGITS: [char; 16] = [
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F',
];

fn encode_hex(keys: &[Key]) -> String {
    let digits = keys.len().div_ceil(2);
    let mut out = String::with_capacity(digits + digits / 4);
    for (i, pair) in keys.chunks(2).enumerate() {
        // An unpaired last key is encoded as if followed by `D`.
        let second = pair.get(1).copied().unwrap_or(Key::D);
        out.push(HEX_DIGITS[usize::from((pair[0].code() << 2) | second.code())]);
        if i % 4 == 3 {
            out.push(' ');
        }
    }
    out
}

fn decode_hex(s: &str) -> Result<Vec<Key>, DecodeError> {
    let mut keys = Vec::with_capacity(s.len() * 2);
    for (position, ch) in s.chars().enumerate() {
        let digit = match ch {
            '0'..='9' => ch as u8 - b'0',
            'A'..='F' => ch as u8 - b'A' + 10,
            // Separators: the game's decoder skips every non-digit.
            ' ' | '#' => continue,
            _ => {
                return Err(DecodeError::InvalidCharacter {
                    format: Format::Hex,
                    ch,
                    position,
                })
            }
        };
        keys.push(Key::from_code(digit >> 2));
        keys.push(Key::from_code(digit));
    }
    Ok(keys)
}

/// Decodes Base65536 with the `base65536` crate, which matches npm
/// `base65536` 5.0.0 on all 200 golden vectors (checked in the tests), and
/// translates its errors.
///
/// The crate's decoder is panic-free: it only looks code points up in a map
/// and pushes to a `Vec` (no indexing or arithmetic that can fail), which the
/// proptests and the fuzz target exercise. Its one-byte block U+1500–U+15FF
/// must be last; its error for a violation has no position, so the position
/// is found here.
fn decode_base65536_bytes(s: &str) -> Result<Vec<u8>, DecodeError> {
    base65536::decode(s, false).map_err(|e| match e {
        base65536::Error::InvalidCodePoint(byte_offset, ch) => DecodeError::InvalidCharacter {
            format: Format::Base65536,
            ch,
            position: s
                .get(..byte_offset)
                .map_or(0, |before| before.chars().count()),
        },
        base65536::Error::InvalidLength => DecodeError::Base65536AfterEnd {
            position: s
                .chars()
                .position(|c| ('\u{1500}'..='\u{15FF}').contains(&c))
                .map_or(0, |end| end + 1),
        },
    })
}
