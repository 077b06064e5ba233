//! Replay speed. The longest golden record, knewjade (5) (289 lines, 752
//! pieces, 10,523 keys), is padded to the 3,711-line record's 138,454 keys
//! with `UUUU` (four rotations: a no-op at the spawn, where every
//! orientation fits) right after each lock. The padded replay is also
//! written to `target/padded-replay.txt` so that the command line can be
//! timed: `time target/release/hatetris replay score @target/padded-replay.txt`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use hatetris::enemy::EnemyKind;
use hatetris::game::{Event, Game};
use hatetris::replay::{self, Format};
use hatetris::Key;

const TARGET_KEYS: usize = 138_454;

fn padded() -> (Vec<Key>, u32) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/replays.jsonl"
    ))
    .unwrap();
    let rec: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["name"] == "knewjade (5)")
        .unwrap();
    let keys: Vec<Key> = rec["keys"]
        .as_str()
        .unwrap()
        .chars()
        .map(|c| Key::from_letter(c).unwrap())
        .collect();
    let pieces = rec["pieces"].as_str().unwrap().len();
    let per_lock = (TARGET_KEYS - keys.len()) / pieces / 4;
    let mut game = Game::new(EnemyKind::Hatetris);
    let mut out = Vec::with_capacity(TARGET_KEYS);
    for &k in &keys {
        out.push(k);
        if let Event::Locked { .. } = game.press(k) {
            out.extend((0..per_lock).flat_map(|_| [Key::U; 4]));
        }
    }
    while out.len() < TARGET_KEYS {
        out.push(Key::D); // after the game ends: ignored, as in the game
    }
    (out, game.score())
}

fn replay_speed(c: &mut Criterion) {
    let (keys, score) = padded();
    let text = replay::encode(&keys, Format::Base2048);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/target/padded-replay.txt");
    std::fs::write(path, &text).unwrap();
    assert_eq!(
        replay::play(&keys, EnemyKind::Hatetris).score,
        score,
        "padding changes nothing"
    );
    let mut g = c.benchmark_group("replay_138k_keys");
    g.sample_size(10);
    g.bench_function("decode_and_play", |b| {
        b.iter(|| {
            replay::play(
                &replay::decode(black_box(&text)).unwrap(),
                EnemyKind::Hatetris,
            )
            .score
        })
    });
    g.finish();
}

criterion_group!(benches, replay_speed);
criterion_main!(benches);
