//! Fuzzes the replay decoders with arbitrary text and the encoders with
//! arbitrary keys.
//!
//! Checks, beyond "no panic":
//! - whatever format [`decode_detected`] picks, [`decode_as`] in that format
//!   gives the same keys (two paths to one answer);
//! - an error's position points at a character of the input;
//! - encoding any keys and decoding them in the same format gives the keys
//!   back, plus at most one padding key;
//! - Base2048 gives back any bytes it encodes.
#![no_main]

use hatetris::replay::codec::{base2048_decode, base2048_encode, decode_detected};
use hatetris::replay::{decode, decode_as, encode, Format};
use hatetris::Key;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        check_text(s);
    }
    check_keys(data);
    assert_eq!(base2048_decode(&base2048_encode(data)).as_deref(), Ok(data));
});

fn check_text(s: &str) {
    let chars = s.chars().count();
    match decode_detected(s) {
        Ok((format, keys)) => {
            assert_eq!(decode_as(s, format).as_ref(), Ok(&keys), "{format}");
            assert_eq!(decode(s), Ok(keys));
        }
        Err(e) => {
            assert!(e.position() < chars, "{e}");
            assert_eq!(decode(s), Err(e));
        }
    }
    for format in Format::ALL {
        if let Err(e) = decode_as(s, format) {
            assert!(e.position() < chars, "{format}: {e}");
        }
    }
}

fn check_keys(data: &[u8]) {
    // Four keys per byte, so every key sequence up to the input size occurs.
    let keys: Vec<Key> = data
        .iter()
        .flat_map(|&b| [b >> 6, b >> 4, b >> 2, b].map(Key::from_code))
        .collect();
    for format in Format::ALL {
        let text = encode(&keys, format);
        let back = decode_as(&text, format).expect("encoder output decodes");
        assert_eq!(back[..keys.len()], keys[..], "{format}");
        let padding = match format {
            Format::Raw => None,
            Format::Hex => Some(Key::D),
            Format::Base65536 | Format::Base2048 => Some(Key::L),
        };
        match &back[keys.len()..] {
            [] => {}
            [extra] => assert_eq!(Some(*extra), padding, "{format}"),
            more => panic!("{format}: {} extra keys", more.len()),
        }
    }
}
