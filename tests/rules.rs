//! Tests named after the game's subtle rules, and the property test of the
//! fast move generator against the reference BFS.

use hatetris::enemy::{hatetris_ratings, Enemy, EnemyKind, History};
use hatetris::game::{Event, Game};
use hatetris::movegen::{Child, MoveGen};
use hatetris::reference::{self, fits, Pose};
use hatetris::well::{Board, FULL_ROW};
use hatetris::{Key, Piece, Well};
use proptest::prelude::*;

use crate::util::random_well;

/// Cells covered by a piece at a position, as (x, y) pairs.
fn cells(piece: Piece, pos: Pose) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    for (r, bits) in piece.shape(pos.o as usize).iter().enumerate() {
        for c in 0..4 {
            if bits >> c & 1 == 1 {
                out.push((pos.x + c, pos.y + r as i32));
            }
        }
    }
    out.sort();
    out
}

/// S in o0 at x and in o2 at x + 1 cover the same cells, but rotating them
/// lands differently: positions must be tracked over (x, y, o), not cells.
#[test]
fn s_and_z_rotation_origin_depends_on_orientation_not_cells() {
    for piece in [Piece::S, Piece::Z] {
        let a = Pose { x: 3, y: 8, o: 0 };
        let b = Pose { x: 4, y: 8, o: 2 };
        assert_eq!(cells(piece, a), cells(piece, b), "{piece}: same cells");
        assert_ne!(
            cells(piece, a.moved(Key::U)),
            cells(piece, b.moved(Key::U)),
            "{piece}: different rotations"
        );
    }
}

/// A narrow shaft where the S/Z orientation that reaches a spot matters:
/// the fast generator must agree with the BFS over (x, y, o).
#[test]
fn s_and_z_in_a_shaft_match_the_reference() {
    let well: Well = "\
##...#####
##...#####
##..######
##.#######
##.#######"
        .parse()
        .unwrap();
    let gen = MoveGen::new(&well);
    for piece in Piece::ALL {
        assert_eq!(
            gen.outcomes(piece),
            reference::outcomes(&well.to_board(), piece),
            "{piece}"
        );
    }
}

/// A lock that completes a row while part of the piece is above the bar
/// clears nothing, and the game is over.
#[test]
fn a_completed_row_above_the_bar_is_not_cleared() {
    // The golden data's one such case: an I in this well.
    let board: Board = [
        0, 0, 0, 0, 204, 476, 1021, 894, 1022, 894, 511, 511, 1022, 1022, 511, 511, 511, 511, 511,
        682,
    ];
    let well = Well::try_from_board(&board).unwrap();
    let outcomes = MoveGen::new(&well).outcomes(Piece::I);
    let unclear: Vec<_> = outcomes
        .iter()
        .filter(|o| o.board.contains(&FULL_ROW))
        .collect();
    assert_eq!(unclear.len(), 1);
    assert_eq!(unclear[0].lines, 0);
    assert!(unclear[0].is_game_over());
    assert_eq!(reference::outcomes(&board, Piece::I), outcomes);
}

/// Pressing D until the stack reaches the bar ends the game; later keys are
/// ignored and the score stays 0 (qntm's own record).
#[test]
fn game_over_when_a_lock_leaves_blocks_above_the_bar() {
    let mut game = Game::new(EnemyKind::Hatetris);
    let mut locks = 0;
    let mut over = false;
    for _ in 0..200 {
        match game.press(Key::D) {
            Event::Locked { .. } => locks += 1,
            Event::GameOver { .. } => {
                over = true;
                break;
            }
            _ => {}
        }
    }
    assert!(over);
    assert_eq!(locks + 1, 9, "nine S pieces fill the middle to the bar");
    assert!(game.is_over());
    assert_ne!(game.board()[3], 0);
    assert_eq!(game.press(Key::L), Event::Ignored);
    assert_eq!(game.score(), 0);
}

/// If the min-max piece could lead back to a seen well, HATETRIS gives
/// another piece.
#[test]
fn the_loop_rule_changes_the_piece() {
    let well = Well::EMPTY;
    let gen = MoveGen::new(&well);
    let plain = hatetris::enemy::mild_choice(&gen);
    assert_eq!(plain, Piece::S);
    // Pretend the game has seen one of S's children before.
    let mut children: Vec<Child> = Vec::new();
    gen.children(Piece::S, &mut children);
    let mut history = History::new();
    history.visit(&children[0].well);
    let mut enemy = Enemy::Hatetris(history);
    let given = enemy.next_piece(&well);
    assert_ne!(given, Piece::S);
    assert_eq!(
        given,
        Piece::Z,
        "Z is the next most hateful piece in the empty well"
    );
}

/// When every piece could lead back to a seen well, the piece whose worst
/// repeat has been seen the fewest times is given (ties by peak, then order).
#[test]
fn when_all_seven_pieces_lead_to_seen_wells_the_least_seen_is_given() {
    let well: Well = "\
#.........
##.......#
###..#####"
        .parse()
        .unwrap();
    let gen = MoveGen::new(&well);
    // Visit one line-free child of each piece a different number of times.
    let times = [5u32, 4, 6, 3, 2, 7, 2];
    let mut history = History::new();
    let mut buf = Vec::new();
    for (piece, &n) in Piece::ALL.iter().zip(&times) {
        buf.clear();
        gen.children(*piece, &mut buf);
        let child = buf.iter().find(|c| c.lines == 0).unwrap();
        for _ in 0..n {
            history.visit(&child.well);
        }
    }
    let mut counted = history.clone();
    counted.visit(&well);
    let ratings = hatetris_ratings(&gen, |w| counted.count(w));
    for (r, &n) in ratings.iter().zip(&times) {
        assert_eq!(r.max_loops, n, "{}", r.piece);
    }
    // L and T tie on two visits; the higher stack (lower peak index) wins, then L before T.
    let (l, t) = (ratings[Piece::L.index()], ratings[Piece::T.index()]);
    let expected = if (l.highest_peak, Piece::L) <= (t.highest_peak, Piece::T) {
        Piece::L
    } else {
        Piece::T
    };
    assert_eq!(Enemy::Hatetris(history).next_piece(&well), expected);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// On random reachable wells, the wave generator and the BFS give the
    /// same outcome sets for every piece, and `highest_peak` and
    /// `can_clear` agree with the outcomes.
    #[test]
    fn fast_movegen_equals_the_reference_bfs(steps in proptest::collection::vec((0u8..7, any::<u16>()), 0..60)) {
        let well = random_well(&steps);
        let gen = MoveGen::new(&well);
        let board = well.to_board();
        for piece in Piece::ALL {
            let slow = reference::outcomes(&board, piece);
            prop_assert_eq!(gen.outcomes(piece), slow.clone());
            let peak = slow.iter().map(|o| o.board.iter().position(|&r| r != 0).unwrap_or(20)).max().unwrap();
            prop_assert_eq!(gen.highest_peak(piece), peak);
            prop_assert_eq!(gen.can_clear(piece), slow.iter().any(|o| o.lines > 0));
            prop_assert!(fits(&board, piece, Pose::SPAWN));
        }
    }
}
