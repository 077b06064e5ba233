//! Every public record replay, played key by key, against the game's own
//! piece sequence, wells and scores.

use hatetris::enemy::EnemyKind;
use hatetris::game::{Event, Game};
use hatetris::well::Board;
use hatetris::{Key, Piece};

use crate::util::{board, json_lines};

pub fn enemy_of(ai: &str) -> EnemyKind {
    match ai {
        "HATETRIS" => EnemyKind::Hatetris,
        "HATETRIS Mild" => EnemyKind::Mild,
        "Brzustowski" => EnemyKind::Brzustowski,
        other => panic!("unknown ai {other}"),
    }
}

/// What a played game produced, in the golden file's terms.
pub struct Played {
    pub pieces: String,
    pub wells: Vec<Board>,
    pub scores: Vec<u32>,
    pub keys_used: usize,
    pub over: bool,
}

pub fn play(kind: EnemyKind, keys: &[Key]) -> Played {
    let mut game = Game::new(kind);
    let mut p = Played {
        pieces: game.piece().letter().to_string(),
        wells: vec![],
        scores: vec![],
        keys_used: 0,
        over: false,
    };
    for &key in keys {
        match game.press(key) {
            Event::Ignored => break,
            Event::Locked { .. } => {
                p.wells.push(*game.board());
                p.scores.push(game.score());
                p.pieces.push(game.piece().letter());
            }
            Event::GameOver { .. } => {
                p.wells.push(*game.board());
                p.scores.push(game.score());
            }
            Event::Moved | Event::Blocked => {}
        }
        p.keys_used += 1;
    }
    p.over = game.is_over();
    p
}

fn keys_of(s: &str) -> Vec<Key> {
    s.chars().map(|c| Key::from_letter(c).unwrap()).collect()
}

/// All 25 golden records: same pieces, wells after every lock, scores, final
/// score and number of keys used, including the loop-prevention records.
#[test]
fn every_record_replay_reproduces_the_game() {
    let records = json_lines("replays.jsonl");
    assert_eq!(records.len(), 25);
    for rec in &records {
        let name = rec["name"].as_str().unwrap();
        let kind = enemy_of(rec["ai"].as_str().unwrap());
        let played = play(kind, &keys_of(rec["keys"].as_str().unwrap()));
        assert_eq!(
            played.pieces,
            rec["pieces"].as_str().unwrap(),
            "{name}: pieces"
        );
        let wells: Vec<Board> = rec["wells"].as_array().unwrap().iter().map(board).collect();
        assert_eq!(played.wells.len(), wells.len(), "{name}: lock count");
        for (i, (a, b)) in played.wells.iter().zip(&wells).enumerate() {
            assert_eq!(a, b, "{name}: well after lock {}", i + 1);
        }
        let scores: Vec<u32> = rec["scores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(played.scores, scores, "{name}: scores");
        assert_eq!(
            played.over,
            rec["game_over"].as_bool().unwrap(),
            "{name}: game over"
        );
        assert_eq!(
            played.keys_used,
            rec["keys_used"].as_u64().unwrap() as usize,
            "{name}: keys used"
        );
        assert_eq!(
            played.scores.last().copied().unwrap_or(0),
            rec["expected_score"].as_u64().unwrap() as u32,
            "{name}: final score"
        );
    }
}

/// Loop prevention changes the piece in "knewjade loop basis" at spawn 281:
/// the plain min-max choice there is S, but S could lead back to a seen well,
/// so the game gives Z. An engine without the rule gets the game wrong.
#[test]
fn loop_prevention_changes_the_piece_in_the_loop_basis_record() {
    let records = json_lines("replays.jsonl");
    let rec = records
        .iter()
        .find(|r| r["name"] == "knewjade loop basis")
        .expect("record");
    let keys = keys_of(rec["keys"].as_str().unwrap());
    let with_rule = play(EnemyKind::Hatetris, &keys);
    assert_eq!(with_rule.pieces.as_bytes()[281], b'Z');
    let event = rec["loop_events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["changed_choice"] == true)
        .unwrap();
    assert_eq!(event["spawn"], 281);
    assert_eq!(event["plain_minmax"], "S");
    // Without the history (HATETRIS Mild) the same keys get S at that spawn.
    let without = play(EnemyKind::Mild, &keys);
    assert_eq!(without.pieces.as_bytes()[281], b'S');
    assert_eq!(Piece::from_letter('Z'), Some(Piece::Z));
}

/// For every record, the chain of wells alone (the empty well implied) is
/// turned back into keys that score the record's score. The keys may differ
/// from the original, the pieces and wells may not.
#[test]
fn from_wells_rebuilds_every_record() {
    for rec in json_lines("replays.jsonl") {
        let name = rec["name"].as_str().unwrap();
        let kind = enemy_of(rec["ai"].as_str().unwrap());
        let chain: Vec<Board> = rec["wells"].as_array().unwrap().iter().map(board).collect();
        let keys = hatetris::replay::keys_from_wells(&chain, kind)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let played = play(kind, &keys);
        assert_eq!(played.wells, chain, "{name}: wells");
        assert_eq!(
            played.pieces,
            rec["pieces"].as_str().unwrap(),
            "{name}: pieces"
        );
        assert_eq!(
            played.scores.last().copied().unwrap_or(0),
            rec["expected_score"].as_u64().unwrap() as u32,
            "{name}"
        );
    }
}

/// Two wells no placement links: the error names the step and both wells,
/// on one line.
#[test]
fn from_wells_names_the_step_that_does_not_link() {
    let mut b = [0u16; 20];
    b[19] = 0b11_1111_1111 >> 1; // nine cells: no single piece makes this
    let err = hatetris::replay::keys_from_wells(&[b], EnemyKind::Hatetris).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("step 1: no placement of S"), "{text}");
    assert!(text.ends_with(" 511]"), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
}

/// A well's filled cells are 4 a piece less 10 a line from the empty well
/// (what `hatetris status` reads a run's drift from, knowing only depths
/// and scores): so along every record, lock by lock.
#[test]
fn every_lock_holds_four_cells_a_piece_less_ten_a_line() {
    for rec in json_lines("replays.jsonl") {
        let name = rec["name"].as_str().unwrap();
        let kind = enemy_of(rec["ai"].as_str().unwrap());
        let keys = keys_of(rec["keys"].as_str().unwrap());
        let trace = hatetris::replay::play(&keys, kind);
        assert!(!trace.steps.is_empty(), "{name}");
        for (i, step) in trace.steps.iter().enumerate() {
            let formula = 4 * (i as i64 + 1) - 10 * i64::from(step.score);
            assert_eq!(i64::from(step.cells()), formula, "{name}: lock {}", i + 1);
        }
    }
}
