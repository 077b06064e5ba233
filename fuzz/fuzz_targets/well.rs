//! Fuzzes the well and board text parsers ([`Well`]'s `FromStr`,
//! [`Well::parse_numbers`], [`parse_board_numbers`]) with arbitrary text,
//! and every printer with arbitrary wells.
//!
//! Checks, beyond "no panic":
//! - an error message is one line;
//! - the parsers agree: a text without `.` or `#` parses to the same result
//!   through `FromStr` and [`Well::parse_numbers`], which is
//!   [`parse_board_numbers`] followed by [`Well::try_from_board`];
//! - a parsed board, and any board made from the input's bytes, printed
//!   back ([`board_to_numbers`]) parses to the same board, and to its well
//!   when it is one; drawn ([`draw_board`]), it parses to the same well, or
//!   fails with the same error, as the board;
//! - any parsed well, and any well made from the input's bytes, printed
//!   back (`Display`, [`Well::to_numbers`], [`draw_board`], JSON, packed,
//!   as a board) reads back as the same well.
#![no_main]

use hatetris::well::{
    board_to_numbers, draw_board, parse_board_numbers, Board, FULL_ROW, HEIGHT, LIVE_ROWS,
};
use hatetris::Well;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        check_text(s);
    }
    check_well(&well_from_bytes(data));
    check_board(&board_from_bytes(data));
});

fn check_text(s: &str) {
    let parsed = s.parse::<Well>();
    let numbers = Well::parse_numbers(s);
    let board = parse_board_numbers(s);
    for e in [
        parsed.as_ref().err(),
        numbers.as_ref().err(),
        board.as_ref().err(),
    ]
    .into_iter()
    .flatten()
    {
        assert!(!e.to_string().contains('\n'), "{e:?}");
    }
    if !s.contains(['.', '#']) {
        assert_eq!(
            parsed, numbers,
            "FromStr takes numbers as parse_numbers does"
        );
    }
    assert_eq!(
        numbers,
        board.clone().and_then(|b| Well::try_from_board(&b)),
        "parse_numbers is parse_board_numbers then try_from_board"
    );
    if let Ok(w) = &parsed {
        check_well(w);
    }
    if let Ok(w) = &numbers {
        check_well(w);
    }
    if let Ok(b) = &board {
        check_board(b);
    }
}

/// Every printed form of a well reads back as the well.
fn check_well(w: &Well) {
    assert!(w.rows().iter().all(|&r| r <= FULL_ROW), "{w:?}");
    assert_eq!(w.to_string().parse::<Well>(), Ok(*w), "Display");
    assert_eq!(Well::parse_numbers(&w.to_numbers()), Ok(*w), "to_numbers");
    assert_eq!(
        w.to_numbers().parse::<Well>(),
        Ok(*w),
        "to_numbers, FromStr"
    );
    assert_eq!(draw_board(&w.to_board()).parse::<Well>(), Ok(*w), "draw");
    assert_eq!(Well::try_from_board(&w.to_board()), Ok(*w), "board");
    assert_eq!(w.pack().unpack(), *w, "pack");
    let json = serde_json::to_string(w).expect("a well serialises");
    assert_eq!(serde_json::from_str::<Well>(&json).ok(), Some(*w), "{json}");
}

/// A board, printed as numbers, parses back (as a board, and as a well
/// when it is one); drawn, it parses as the board's well or fails as the
/// board does.
fn check_board(b: &Board) {
    let text = board_to_numbers(b);
    if b.iter().all(|&r| r <= FULL_ROW) {
        assert_eq!(parse_board_numbers(&text), Ok(*b), "{text}");
        let drawn = draw_board(b).parse::<Well>();
        assert_eq!(drawn, Well::try_from_board(b), "draw_board");
    } else {
        assert!(parse_board_numbers(&text).is_err(), "{text}");
    }
    // Both fail on a bad board, though not always with the same error: the
    // number parser reports the first row too wide before any row above
    // the bar.
    assert_eq!(
        Well::parse_numbers(&text).ok(),
        Well::try_from_board(b).ok(),
        "{text}"
    );
}

/// 16 rows from the input (two bytes each, masked to 10 columns).
fn well_from_bytes(data: &[u8]) -> Well {
    let mut rows = [0u16; LIVE_ROWS];
    for (r, pair) in rows.iter_mut().zip(data.chunks(2)) {
        *r = u16::from_le_bytes([pair[0], *pair.get(1).unwrap_or(&0)]) & FULL_ROW;
    }
    Well::from_live_rows(rows).expect("masked rows are valid")
}

/// 20 rows from the input's end, unmasked, so some are too wide and some
/// are above the bar.
fn board_from_bytes(data: &[u8]) -> Board {
    let mut board = [0u16; HEIGHT];
    for (r, pair) in board.iter_mut().zip(data.rchunks(2)) {
        *r = u16::from_le_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
    }
    board
}
