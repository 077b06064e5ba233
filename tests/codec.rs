//! Replay codecs: golden vectors from the game, the game's detection quirks,
//! every kind of bad input, a slow twin of the Base2048 codec, and property
//! tests that nothing panics and that encoding round-trips.
//!
//! Data comes from `tests/data/` (see `GOLDEN-README.md` there):
//! `base2048-vectors.jsonl` (200 key strings with the game's encodings and
//! decodings), `base2048-alphabet.txt` and `replays.jsonl`.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Instant;

use hatetris::key::keys_to_string;
use hatetris::replay::codec::{
    base2048_decode, base2048_encode, decode_detected, keys_to_rle_bytes, rle_bytes_to_keys,
    ParseFormatError, BASE2048_ALPHABET, BASE2048_TAIL,
};
use hatetris::replay::{decode, decode_as, encode, DecodeError, Format};
use hatetris::Key;
use proptest::prelude::*;
use serde_json::Value;

/// The three encodings the vectors file gives, by their field names.
const VECTOR_FORMATS: [(&str, Format); 3] = [
    ("hex", Format::Hex),
    ("Base65536", Format::Base65536),
    ("Base2048", Format::Base2048),
];

fn data_path(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn read_jsonl(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(data_path(name)).expect("read golden data");
    text.lines()
        .map(|line| serde_json::from_str(line).expect("golden data is JSON lines"))
        .collect()
}

/// Parses a string of `L R D U` letters.
fn keys(letters: &str) -> Vec<Key> {
    letters
        .chars()
        .map(|c| Key::from_letter(c).expect("golden keys are LRDU"))
        .collect()
}

fn str_field<'a>(record: &'a Value, path: &[&str]) -> &'a str {
    let mut v = record;
    for p in path {
        v = &v[*p];
    }
    v.as_str()
        .unwrap_or_else(|| panic!("field {path:?} is a string"))
}

// ---------------------------------------------------------------------------
// Golden vectors

#[test]
fn golden_vectors_encode_decode_and_decode_as_match_the_game() {
    let records = read_jsonl("base2048-vectors.jsonl");
    let (mut encoded, mut decoded, mut direct, mut raw) = (0, 0, 0, 0);
    for record in &records {
        let letters = str_field(record, &["keys"]);
        let ks = keys(letters);
        assert_eq!(record["length"].as_u64(), Some(ks.len() as u64));

        assert_eq!(encode(&ks, Format::Raw), letters);
        assert_eq!(decode(letters).unwrap(), ks, "raw {letters}");
        raw += 1;

        for (field, format) in VECTOR_FORMATS {
            let text = str_field(record, &[field]);
            assert_eq!(encode(&ks, format), text, "{field} encoding of {letters}");
            encoded += 1;
            let auto = decode(text).unwrap_or_else(|e| panic!("{field} {text:?}: {e}"));
            assert_eq!(
                keys_to_string(&auto),
                str_field(record, &["decoded", field]),
                "decode of {field} {text:?}"
            );
            decoded += 1;
            let one = decode_as(text, format).unwrap_or_else(|e| panic!("{field} {text:?}: {e}"));
            assert_eq!(
                keys_to_string(&one),
                str_field(record, &["decoded_direct", field]),
                "decode_as {field} {text:?}"
            );
            direct += 1;
        }
    }
    assert_eq!(records.len(), 200);
    assert_eq!((raw, encoded, decoded, direct), (200, 600, 600, 600));
}

#[test]
fn golden_vectors_pad_104_of_200_per_format() {
    // The README's count of records that come back with one padding key.
    let records = read_jsonl("base2048-vectors.jsonl");
    for (field, format) in VECTOR_FORMATS {
        let padded = records
            .iter()
            .filter(|r| {
                let ks = keys(str_field(r, &["keys"]));
                decode_as(str_field(r, &[field]), format).unwrap().len() == ks.len() + 1
            })
            .count();
        assert_eq!(padded, 104, "{field}");
    }
}

#[test]
fn golden_vectors_detect_their_own_format_except_the_f_quirk() {
    let records = read_jsonl("base2048-vectors.jsonl");
    let mut quirks = 0;
    for record in &records {
        for (field, format) in VECTOR_FORMATS {
            let text = str_field(record, &[field]);
            let (detected, _) = decode_detected(text).unwrap();
            if detected != format {
                // Only the key string "L", whose Base2048 form "F" looks like hex.
                assert_eq!(
                    (text, format, detected),
                    ("F", Format::Base2048, Format::Hex)
                );
                quirks += 1;
            }
        }
    }
    assert_eq!(quirks, 1);
}

#[test]
fn record_replays_decode_to_their_keys_in_every_encoding() {
    let records = read_jsonl("replays.jsonl");
    let mut checked = 0;
    for record in &records {
        let name = str_field(record, &["name"]);
        for (encoding, text) in record["encodings"].as_object().unwrap() {
            let expected = match record.get("keys_by_encoding") {
                Some(by) => str_field(by, &[encoding.as_str()]),
                None => str_field(record, &["keys"]),
            };
            let got =
                decode(text.as_str().unwrap()).unwrap_or_else(|e| panic!("{name} {encoding}: {e}"));
            assert_eq!(keys_to_string(&got), expected, "{name} {encoding}");
            checked += 1;
        }
    }
    assert_eq!(records.len(), 25);
    // 13 replays with hex, Base65536 and Base2048; 7 with Base2048 only; 5 raw.
    assert_eq!(checked, 13 * 3 + 7 + 5);
}

// ---------------------------------------------------------------------------
// The Base2048 alphabet and a slow twin of the codec

/// The alphabet file, read naively: value → char for `[11]` and `[3]`.
struct NaiveBase2048 {
    main: Vec<char>,
    tail: Vec<char>,
    /// char → (bits, value)
    lookup: HashMap<char, (usize, u32)>,
}

impl NaiveBase2048 {
    /// Read once per test binary.
    fn get() -> &'static NaiveBase2048 {
        static NAIVE: OnceLock<NaiveBase2048> = OnceLock::new();
        NAIVE.get_or_init(NaiveBase2048::load)
    }

    fn load() -> NaiveBase2048 {
        let text = std::fs::read_to_string(data_path("base2048-alphabet.txt")).unwrap();
        let (mut main, mut tail) = (Vec::new(), Vec::new());
        let mut section: Option<&mut Vec<char>> = None;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line {
                "[11]" => section = Some(&mut main),
                "[3]" => section = Some(&mut tail),
                _ => {
                    let (value, code) = line.split_once(' ').unwrap();
                    let table = section.as_deref_mut().expect("a section header first");
                    assert_eq!(value.parse::<usize>().unwrap(), table.len());
                    let cp = u32::from_str_radix(code.strip_prefix("U+").unwrap(), 16).unwrap();
                    table.push(char::from_u32(cp).unwrap());
                }
            }
        }
        let mut lookup = HashMap::new();
        for (v, &c) in main.iter().enumerate() {
            assert!(lookup.insert(c, (11, v as u32)).is_none());
        }
        for (v, &c) in tail.iter().enumerate() {
            assert!(lookup.insert(c, (3, v as u32)).is_none());
        }
        NaiveBase2048 { main, tail, lookup }
    }

    /// Bit by bit, as the format is described.
    fn encode(&self, bytes: &[u8]) -> String {
        let bits: Vec<bool> = bytes
            .iter()
            .flat_map(|&b| (0..8).rev().map(move |i| (b >> i) & 1 == 1))
            .collect();
        let mut out = String::new();
        for chunk in bits.chunks(11) {
            let width = if chunk.len() >= 4 { 11 } else { 3 };
            let mut value = 0usize;
            for i in 0..width {
                value = (value << 1) | usize::from(*chunk.get(i).unwrap_or(&true));
            }
            out.push(if width == 11 {
                self.main[value]
            } else {
                self.tail[value]
            });
        }
        out
    }

    fn decode(&self, s: &str) -> Result<Vec<u8>, DecodeError> {
        let chars: Vec<char> = s.chars().collect();
        let mut bits = Vec::new();
        for (position, &ch) in chars.iter().enumerate() {
            let Some(&(width, value)) = self.lookup.get(&ch) else {
                return Err(DecodeError::InvalidCharacter {
                    format: Format::Base2048,
                    ch,
                    position,
                });
            };
            if width == 3 && position + 1 != chars.len() {
                return Err(DecodeError::Base2048TailNotLast { position });
            }
            bits.extend((0..width).rev().map(|i| (value >> i) & 1 == 1));
        }
        let whole = bits.len() / 8 * 8;
        if !bits[whole..].iter().all(|&b| b) {
            return Err(DecodeError::Base2048Padding {
                position: chars.len() - 1,
            });
        }
        Ok(bits[..whole]
            .chunks(8)
            .map(|byte| byte.iter().fold(0u8, |acc, &b| (acc << 1) | u8::from(b)))
            .collect())
    }
}

#[test]
fn base2048_tables_match_the_alphabet_file() {
    let naive = NaiveBase2048::get();
    assert_eq!(naive.main.len(), 2048);
    assert_eq!(naive.tail.len(), 8);
    assert_eq!(BASE2048_ALPHABET.as_slice(), naive.main.as_slice());
    assert_eq!(BASE2048_TAIL.as_slice(), naive.tail.as_slice());
}

#[test]
fn base2048_matches_slow_twin_on_every_input_of_up_to_two_bytes() {
    let naive = NaiveBase2048::get();
    let mut inputs = vec![vec![]];
    inputs.extend((0..=255u8).map(|a| vec![a]));
    inputs.extend((0..=0xFFFFu32).map(|ab| vec![(ab >> 8) as u8, ab as u8]));
    for bytes in &inputs {
        let text = base2048_encode(bytes);
        assert_eq!(text, naive.encode(bytes), "{bytes:?}");
        assert_eq!(base2048_decode(&text).as_ref(), Ok(bytes), "{text:?}");
    }
    assert_eq!(inputs.len(), 1 + 256 + 65536);
}

#[test]
fn base2048_decoder_matches_slow_twin_on_every_one_and_many_two_char_strings() {
    let naive = NaiveBase2048::get();
    let mut chars: Vec<char> = naive.main.iter().chain(&naive.tail).copied().collect();
    chars.extend([
        ' ', '!', '\u{0}', 'é', '\u{1056}', '\u{1500}', '\u{FFFF}', '😀',
    ]);
    // Every second character: all tails, every 37th main character, junk.
    let mut seconds: Vec<char> = naive.tail.clone();
    seconds.extend(naive.main.iter().step_by(37));
    seconds.extend(['!', '\u{1056}', '😀']);
    let mut compared = 0;
    for &a in &chars {
        let one = a.to_string();
        assert_eq!(base2048_decode(&one), naive.decode(&one), "{one:?}");
        for &b in &seconds {
            let two: String = [a, b].into_iter().collect();
            assert_eq!(base2048_decode(&two), naive.decode(&two), "{two:?}");
            compared += 1;
        }
    }
    assert_eq!(compared, chars.len() * seconds.len());
}

// ---------------------------------------------------------------------------
// What the game does with odd input

#[test]
fn empty_and_whitespace_only_replays_decode_to_no_keys_as_in_the_game() {
    for s in ["", " ", "\n", " \t\r\n ", "\u{FEFF}", "\u{3000}\u{A0}"] {
        assert_eq!(decode(s), Ok(vec![]), "{s:?}");
        // The game's Base65536 decoder is the one that accepts "".
        assert_eq!(decode_detected(s), Ok((Format::Base65536, vec![])), "{s:?}");
        for format in Format::ALL {
            assert_eq!(decode_as(s, format), Ok(vec![]), "{format} {s:?}");
        }
    }
}

#[test]
fn trimming_uses_javascript_whitespace_not_rust_whitespace() {
    // U+0085 is white space to Rust but not to JavaScript's trim.
    assert_eq!(
        decode("\u{85}"),
        Err(DecodeError::InvalidCharacter {
            format: Format::Base2048,
            ch: '\u{85}',
            position: 0
        })
    );
    // U+FEFF is trimmed by JavaScript but not by Rust.
    assert_eq!(decode("\u{FEFF}LRDU\u{FEFF}"), Ok(keys("LRDU")));
    assert_eq!(decode("  LRDU\n"), Ok(keys("LRDU")));
}

#[test]
fn hash_and_spaces_are_ignored_in_hex() {
    assert_eq!(decode("#"), Ok(vec![]));
    assert_eq!(decode("# #"), Ok(vec![]));
    assert_eq!(decode("#A"), Ok(keys("DD")));
    assert_eq!(decode("1#2 3"), Ok(keys("LRLDLU")));
    assert_eq!(decode_detected("A A#"), Ok((Format::Hex, keys("DDDD"))));
    assert_eq!(decode_as("#0F# ", Format::Hex), Ok(keys("LLUU")));
}

#[test]
fn hex_decodes_any_number_of_digits_two_keys_each() {
    assert_eq!(decode("F"), Ok(keys("UU")));
    assert_eq!(decode("FED"), Ok(keys("UUUDUR")));
    assert_eq!(
        decode("0123 4567 89AB CDEF "),
        Ok(keys("LLLRLDLURLRRRDRUDLDRDDDUULURUDUU"))
    );
}

#[test]
fn lower_case_hex_is_not_hex_but_base2048() {
    // Read as hex, "ab" would be an empty replay (the game's hex decoder
    // skips non-digits); read as Base2048 it has bad padding.
    assert_eq!(
        decode("ab"),
        Err(DecodeError::Base2048Padding { position: 1 })
    );
    assert_eq!(decode("ab"), decode_as("ab", Format::Base2048));
    assert_eq!(
        decode_as("ab", Format::Hex),
        Err(DecodeError::InvalidCharacter {
            format: Format::Hex,
            ch: 'a',
            position: 0
        })
    );
}

#[test]
fn base2048_f_auto_decodes_as_hex() {
    assert_eq!(encode(&keys("L"), Format::Base2048), "F");
    assert_eq!(decode("F"), Ok(keys("UU")));
    assert_eq!(decode_as("F", Format::Base2048), Ok(keys("LL")));
}

#[test]
fn base2048_made_of_raw_letters_auto_decodes_as_raw() {
    // "LRDU" is four main Base2048 characters too (L=13, R=19, D=5, U=22):
    // 44 bits, five bytes and 4 bits of padding 0110, a padding mismatch.
    let s = "LRDU";
    assert_eq!(decode_detected(s), Ok((Format::Raw, keys("LRDU"))));
    assert_eq!(
        decode_as(s, Format::Base2048),
        Err(DecodeError::Base2048Padding { position: 3 })
    );
}

#[test]
fn hex_made_only_of_d_auto_decodes_as_raw() {
    // `D` is both a hex digit (keys UR) and a raw letter, and the game tries
    // raw first. Longer hex has a space inside, which raw does not allow.
    assert_eq!(encode(&keys("URUR"), Format::Hex), "DD");
    assert_eq!(decode_detected("DD"), Ok((Format::Raw, keys("DD"))));
    assert_eq!(decode_as("DD", Format::Hex), Ok(keys("URUR")));
    assert_eq!(encode(&keys("URURURUR"), Format::Hex), "DDDD ");
    assert_eq!(decode("DDDD "), Ok(keys("DDDD")));
    assert_eq!(decode("DDDD D"), Ok(keys("URURURURUR")));
}

#[test]
fn character_outside_the_base2048_alphabet_is_an_error_with_its_position() {
    let err = decode("ƾƾ!").unwrap_err();
    assert_eq!(
        err,
        DecodeError::InvalidCharacter {
            format: Format::Base2048,
            ch: '!',
            position: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "character '!' at position 2 is not in the Base2048 alphabet"
    );
    // Positions count characters of the untrimmed input.
    assert_eq!(decode("  ƾƾ!").unwrap_err().position(), 4);
    assert_eq!(
        decode_as("\n\nƾƾ!", Format::Base2048)
            .unwrap_err()
            .position(),
        4
    );
}

#[test]
fn whitespace_inside_base2048_is_an_error() {
    assert_eq!(
        decode("ƾ ƾ"),
        Err(DecodeError::InvalidCharacter {
            format: Format::Base2048,
            ch: ' ',
            position: 1
        })
    );
    assert_eq!(
        decode("ƾ\nƾ").unwrap_err().to_string(),
        "character '\\n' at position 1 is not in the Base2048 alphabet"
    );
}

#[test]
fn base2048_tail_character_before_the_end_is_an_error() {
    // "1" is a tail character; "ƾ" keeps the string from looking like hex.
    let err = decode("ƾ1ƾ").unwrap_err();
    assert_eq!(err, DecodeError::Base2048TailNotLast { position: 1 });
    assert_eq!(
        err.to_string(),
        "Base2048 tail character at position 1 is not the last character"
    );
    assert_eq!(
        decode_as("0ƾ", Format::Base2048),
        Err(DecodeError::Base2048TailNotLast { position: 0 })
    );
    // The tail error wins over a bad character after it, as in the game.
    assert_eq!(
        decode_as("7!", Format::Base2048),
        Err(DecodeError::Base2048TailNotLast { position: 0 })
    );
}

#[test]
fn base2048_padding_mismatch_is_an_error() {
    // 'G' is value 8 = 0b000_0000_1000: one byte 0x01, then 3 bits 000.
    let err = decode("G").unwrap_err();
    assert_eq!(err, DecodeError::Base2048Padding { position: 0 });
    assert!(err.to_string().starts_with("Base2048 padding mismatch"));
    // '8' is value 0; as Base2048 it has padding 000, but auto-detect sees hex.
    assert_eq!(
        decode_as("8", Format::Base2048),
        Err(DecodeError::Base2048Padding { position: 0 })
    );
    assert_eq!(decode("8"), Ok(keys("DL")));
    // A lone tail character is all padding: 111 is fine, 110 is not.
    assert_eq!(decode_as("7", Format::Base2048), Ok(vec![]));
    assert_eq!(
        decode_as("6", Format::Base2048),
        Err(DecodeError::Base2048Padding { position: 0 })
    );
}

#[test]
fn mixed_raw_and_base2048_decodes_as_base2048_like_the_game() {
    // Eight main characters are exactly 11 bytes, so the Base2048 part after
    // them stays byte-aligned and the whole string is valid Base2048.
    let tail = keys("UUUUUDDLRRRLLLLLLLLD");
    let s = format!("LRDULRDU{}", encode(&tail, Format::Base2048));
    let (format, got) = decode_detected(&s).unwrap();
    assert_eq!(format, Format::Base2048);
    let prefix = rle_bytes_to_keys(&base2048_decode("LRDULRDU").unwrap());
    assert_eq!(got[..prefix.len()], prefix[..]);
    assert_eq!(
        got[prefix.len()..],
        decode_as(&encode(&tail, Format::Base2048), Format::Base2048).unwrap()[..]
    );
    // Misaligned: three raw letters in front shift the padding.
    let s = format!("LRD{}", encode(&tail, Format::Base2048));
    assert_eq!(decode(&s), decode_as(&s, Format::Base2048));
}

#[test]
fn mixed_base65536_and_base2048_is_an_error() {
    let b65536 = encode(&keys("LRDUURDL"), Format::Base65536);
    let b2048 = encode(&keys("LRDUURDL"), Format::Base2048);
    let s = format!("{b65536}{b2048}");
    let first = b65536.chars().next().unwrap();
    // The game tries Base65536, then reports Base2048's error.
    assert_eq!(
        decode(&s),
        Err(DecodeError::InvalidCharacter {
            format: Format::Base2048,
            ch: first,
            position: 0
        })
    );
    let n = b65536.chars().count();
    assert_eq!(
        decode_as(&s, Format::Base65536),
        Err(DecodeError::InvalidCharacter {
            format: Format::Base65536,
            ch: b2048.chars().next().unwrap(),
            position: n
        })
    );
}

#[test]
fn base65536_after_its_one_byte_character_is_an_error() {
    // U+1510 is the one-byte block: it must be last.
    assert_eq!(
        decode_as("ᔐᔐ", Format::Base65536),
        Err(DecodeError::Base65536AfterEnd { position: 1 })
    );
    assert_eq!(
        decode_as(" 𤆻ᔐ𤆻", Format::Base65536),
        Err(DecodeError::Base65536AfterEnd { position: 3 })
    );
    // Auto-detect falls through to Base2048, which knows neither character.
    assert_eq!(
        decode("ᔐᔐ"),
        Err(DecodeError::InvalidCharacter {
            format: Format::Base2048,
            ch: 'ᔐ',
            position: 0
        })
    );
}

#[test]
fn raw_and_hex_decode_as_are_strict() {
    assert_eq!(
        decode_as("LRX", Format::Raw),
        Err(DecodeError::InvalidCharacter {
            format: Format::Raw,
            ch: 'X',
            position: 2
        })
    );
    assert_eq!(decode_as("LR DU", Format::Raw).unwrap_err().position(), 2);
    assert_eq!(
        decode_as("AB\tCD", Format::Hex),
        Err(DecodeError::InvalidCharacter {
            format: Format::Hex,
            ch: '\t',
            position: 2
        })
    );
}

#[test]
fn every_error_message_is_one_line() {
    let errors = [
        decode("ƾ\n\u{2028}x!").unwrap_err(),
        decode("ƾ1ƾ").unwrap_err(),
        decode("G").unwrap_err(),
        decode_as("ᔐᔐ", Format::Base65536).unwrap_err(),
        decode_as("L\u{2029}R", Format::Raw).unwrap_err(),
    ];
    for e in errors {
        let msg = e.to_string();
        assert!(
            !msg.contains(['\n', '\r', '\u{2028}', '\u{2029}']),
            "{msg:?}"
        );
    }
}

#[test]
fn format_names_parse_in_any_case_and_display_round_trips() {
    assert_eq!(Format::ALL.len(), 4);
    for format in Format::ALL {
        assert_eq!(format.to_string().parse::<Format>(), Ok(format));
        assert_eq!(
            format.to_string().to_uppercase().parse::<Format>(),
            Ok(format)
        );
    }
    assert_eq!("raw".parse(), Ok(Format::Raw));
    assert_eq!("HEX".parse(), Ok(Format::Hex));
    assert_eq!("base65536".parse(), Ok(Format::Base65536));
    assert_eq!("Base2048".parse(), Ok(Format::Base2048));
    assert_eq!(
        "b2048".parse::<Format>(),
        Err(ParseFormatError {
            input: "b2048".into()
        })
    );
    assert_eq!(format!("[{:>9}]", Format::Hex), "[      hex]");
}

#[test]
fn run_length_bytes_cut_runs_at_four_and_pad_with_l() {
    // UUUUU → runs U×4, U×1 → nybbles F, C → one byte.
    assert_eq!(keys_to_rle_bytes(&keys("UUUUU")), [0xFC]);
    // L → nybble 0, padded with nybble 0 → decodes as LL.
    assert_eq!(keys_to_rle_bytes(&keys("L")), [0x00]);
    assert_eq!(rle_bytes_to_keys(&[0x00]), keys("LL"));
    assert_eq!(keys_to_rle_bytes(&[]), Vec::<u8>::new());
    assert_eq!(rle_bytes_to_keys(&[0xFF]), keys("UUUUUUUU"));
}

#[test]
fn run_length_byte_table_matches_reading_the_nybbles_one_by_one() {
    for byte in 0..=255u8 {
        let mut expected = Vec::new();
        for nybble in [byte >> 4, byte & 0xF] {
            for _ in 0..=(nybble & 3) {
                expected.push(Key::ALL[usize::from(nybble >> 2)]);
            }
        }
        assert_eq!(rle_bytes_to_keys(&[byte]), expected, "{byte:#04x}");
    }
}

// ---------------------------------------------------------------------------
// Large input

/// A deterministic pseudo-random key sequence with runs of 1 to 8.
fn long_keys(n: usize) -> Vec<Key> {
    let mut state: u32 = 0x9E37_79B9;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let key = Key::from_code(state as u8);
        let run = 1 + (state >> 8) as usize % 8;
        out.extend(std::iter::repeat_n(key, run.min(n - out.len())));
    }
    out
}

#[test]
fn multi_megabyte_replays_decode_in_linear_time() {
    let ks = long_keys(12_000_000);
    for format in Format::ALL {
        let text = encode(&ks, format);
        let start = Instant::now();
        let got = decode_as(&text, format).unwrap();
        let elapsed = start.elapsed();
        assert!(got.len() == ks.len() || got.len() == ks.len() + 1);
        assert_eq!(got[..ks.len()], ks[..]);
        eprintln!("{format}: {} bytes decoded in {elapsed:?}", text.len());
    }
    // Several megabytes of input that fails only at its last character.
    let mut junk = encode(&ks, Format::Base2048);
    if junk.ends_with(|c| BASE2048_TAIL.contains(&c)) {
        junk.pop();
    }
    let n = junk.chars().count();
    junk.push('!');
    assert_eq!(decode(&junk).unwrap_err().position(), n);
    // A few megabytes of one character outside every alphabet.
    let junk = "!".repeat(4 << 20);
    assert_eq!(decode(&junk).unwrap_err().position(), 0);
}

/// Run by hand: `cargo test --release --test tests codec::decode_50_mb -- --ignored --nocapture`.
#[test]
#[ignore = "slow in debug builds; run by hand with --release"]
fn decode_50_mb_strings() {
    // A byte-aligned run of main Base2048 characters (a multiple of 8 of
    // them, without the last one, which may carry padding) stays valid
    // Base2048 however often it is repeated.
    let block: Vec<char> = encode(&long_keys(1_000_000), Format::Base2048)
        .chars()
        .collect();
    let aligned: String = block[..(block.len() - 1) / 8 * 8].iter().collect();
    let base2048 = aligned.repeat(50_000_000 / aligned.len() + 1);
    // Base65536 stays valid when repeated once its one-byte last character
    // (if any) is cut off.
    let mut block = encode(&long_keys(1_000_000), Format::Base65536);
    if block.ends_with(|c| ('\u{1500}'..='\u{15FF}').contains(&c)) {
        block.pop();
    }
    let base65536 = block.repeat(50_000_000 / block.len() + 1);
    for (label, s) in [
        ("Base2048", base2048.clone()),
        ("Base65536", base65536),
        ("raw", "LRDU".repeat(12_500_000)),
        ("hex", "0123 4567 89AB CDEF ".repeat(2_500_000)),
        ("Base2048 with a bad last character", format!("{base2048}!")),
        (
            "one character outside every alphabet",
            "!".repeat(50_000_000),
        ),
    ] {
        let start = Instant::now();
        let result = decode(&s);
        eprintln!(
            "{label}: {} bytes, {} chars -> {:?} in {:?}",
            s.len(),
            s.chars().count(),
            result.as_ref().map(Vec::len).map_err(|e| e.to_string()),
            start.elapsed()
        );
    }
}

// ---------------------------------------------------------------------------
// Properties

/// Characters to build hostile strings from: both alphabets, Base65536's
/// blocks, hex and raw letters, white space, and a few strays.
fn hostile_char() -> impl Strategy<Value = char> {
    let mut pool: Vec<char> = BASE2048_ALPHABET.iter().step_by(7).copied().collect();
    pool.extend(BASE2048_TAIL);
    pool.extend("LRDU0123456789ABCDEF# abcxyz!\n\t\r\u{85}\u{A0}\u{FEFF}\u{3000}".chars());
    // Base65536: one-byte block, BMP and astral two-byte blocks.
    pool.extend([
        '\u{1500}', '\u{1510}', '\u{15FF}', '\u{3400}', '\u{4E00}', '\u{A5FF}',
    ]);
    pool.extend([
        '\u{10600}',
        '\u{20000}',
        '\u{285FF}',
        '\u{1056}',
        '\u{FFFF}',
        '😀',
    ]);
    prop_oneof![
        4 => prop::sample::select(pool),
        1 => any::<char>(),
    ]
}

fn any_keys() -> impl Strategy<Value = Vec<Key>> {
    prop::collection::vec((0u8..4).prop_map(Key::from_code), 0..120)
}

fn padding_key(format: Format) -> Option<Key> {
    match format {
        Format::Raw => None,
        Format::Hex => Some(Key::D),
        Format::Base65536 | Format::Base2048 => Some(Key::L),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn decode_never_panics_on_any_string(s in "\\PC*") {
        let _ = decode(&s);
        for format in Format::ALL {
            let _ = decode_as(&s, format);
        }
    }

    #[test]
    fn decode_never_panics_on_hostile_strings(
        chars in prop::collection::vec(hostile_char(), 0..80)
    ) {
        let s: String = chars.into_iter().collect();
        let auto = decode(&s);
        for format in Format::ALL {
            let _ = decode_as(&s, format);
        }
        // Errors point at a real character of the input.
        if let Err(e) = auto {
            prop_assert!(e.position() < s.chars().count());
        }
    }

    #[test]
    fn base2048_decoder_agrees_with_slow_twin(
        chars in prop::collection::vec(hostile_char(), 0..40)
    ) {
        let s: String = chars.into_iter().collect();
        let naive = NaiveBase2048::get();
        prop_assert_eq!(base2048_decode(&s), naive.decode(&s));
    }

    #[test]
    fn base2048_encoder_agrees_with_slow_twin(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let naive = NaiveBase2048::get();
        let text = base2048_encode(&bytes);
        prop_assert_eq!(&text, &naive.encode(&bytes));
        prop_assert_eq!(base2048_decode(&text), Ok(bytes));
    }

    #[test]
    fn encode_then_decode_as_gives_the_keys_plus_at_most_one_padding_key(ks in any_keys()) {
        for format in Format::ALL {
            let text = encode(&ks, format);
            let got = decode_as(&text, format).unwrap();
            prop_assert_eq!(&got[..ks.len()], &ks[..], "{}", format);
            match got.len() - ks.len() {
                0 => {}
                1 => prop_assert_eq!(Some(got[ks.len()]), padding_key(format), "{}", format),
                extra => prop_assert!(false, "{} extra keys in {}", extra, format),
            }
        }
    }

    #[test]
    fn auto_detect_finds_raw_hex_and_base65536(ks in any_keys()) {
        prop_assume!(!ks.is_empty());
        for format in [Format::Raw, Format::Hex, Format::Base65536] {
            let text = encode(&ks, format);
            // Hex made only of `D` digits (keys "URUR..." up to 8 keys) looks
            // raw to the game; see `hex_made_only_of_d_auto_decodes_as_raw`.
            if format == Format::Hex && text.trim().bytes().all(|b| b == b'D') {
                continue;
            }
            prop_assert_eq!(decode(&text), decode_as(&text, format));
            prop_assert_eq!(decode_detected(&text).unwrap().0, format);
        }
    }
}
