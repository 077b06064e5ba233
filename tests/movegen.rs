//! Move generation against the game: the golden vectors, the reference BFS,
//! and the rules that are easy to get wrong.

use hatetris::enemy::{mild_choice, Enemy, EnemyKind};
use hatetris::movegen::{Child, MoveGen, Outcome};
use hatetris::reference;
use hatetris::{Piece, Well};

use crate::util::{board, json_lines};

fn golden_outcomes(v: &serde_json::Value) -> Vec<Outcome> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|pair| Outcome {
            board: board(&pair[0]),
            lines: pair[1].as_u64().unwrap() as u8,
        })
        .collect()
}

/// Every one of the 3,001 golden wells, all seven pieces: the fast generator,
/// the reference BFS and the piece choice agree with the game exactly.
#[test]
fn movegen_matches_the_game_on_every_golden_well_and_piece() {
    let records = json_lines("movegen.jsonl.gz");
    assert_eq!(records.len(), 3001);
    let mut checked = 0;
    let mut children_total = 0;
    for rec in &records {
        let b = board(&rec["well"]);
        let well = Well::try_from_board(&b).unwrap();
        let gen = MoveGen::new(&well);
        for piece in Piece::ALL {
            let want = golden_outcomes(&rec["children"][piece.letter().to_string()]);
            let fast = gen.outcomes(piece);
            assert_eq!(fast, want, "fast movegen, piece {piece}, well {:?}", well);
            let slow = reference::outcomes(&b, piece);
            assert_eq!(slow, want, "reference BFS, piece {piece}, well {:?}", well);
            // The live children are the outcomes that don't end the game.
            let mut live = Vec::new();
            gen.children(piece, &mut live);
            live.sort_unstable();
            live.dedup();
            let want_live: Vec<Child> = want
                .iter()
                .filter(|o| !o.is_game_over())
                .map(|o| Child {
                    well: Well::try_from_board(&o.board).unwrap(),
                    lines: o.lines,
                })
                .collect();
            assert_eq!(live, want_live, "live children, piece {piece}");
            children_total += want.len();
            checked += 1;
        }
        let expected = Piece::from_letter(
            rec["hatetris_piece"]
                .as_str()
                .unwrap()
                .chars()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(mild_choice(&gen), expected, "mild choice for {:?}", well);
        let mut enemy = Enemy::new(EnemyKind::Hatetris);
        assert_eq!(
            enemy.next_piece(&well),
            expected,
            "HATETRIS choice for {:?}",
            well
        );
    }
    assert_eq!(checked, 3001 * 7);
    assert_eq!(children_total, 546_392);
}

/// `can_clear` agrees with the golden children: a piece can clear exactly
/// when one of its live outcomes cleared lines.
#[test]
fn can_clear_matches_the_golden_children() {
    let records = json_lines("movegen.jsonl.gz");
    let mut clearing = 0;
    for rec in records.iter().take(1500) {
        let b = board(&rec["well"]);
        let gen = MoveGen::new(&Well::try_from_board(&b).unwrap());
        for piece in Piece::ALL {
            let want = golden_outcomes(&rec["children"][piece.letter().to_string()])
                .iter()
                .any(|o| o.lines > 0);
            assert_eq!(gen.can_clear(piece), want, "piece {piece}, well {b:?}");
            clearing += want as usize;
        }
    }
    assert!(
        clearing > 100,
        "the sample must contain clearing wells ({clearing})"
    );
}
