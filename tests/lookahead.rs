//! The quiescent lookahead's fast paths against their slow twins, on the
//! wells of real mid-game beams (`data/bench-wells-midgame.txt`, made by
//! [`write_mid_game_wells`]) and on random reachable wells.

use std::path::Path;

use hatetris::run::shards::Depth;
use hatetris::Well;

/// The mid-game wells: the workload of `benches/lookahead.rs`.
pub fn mid_game_wells() -> Vec<Well> {
    hatetris::bench::read_wells(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bench-wells-midgame.txt"),
    )
    .expect("data/bench-wells-midgame.txt")
}

/// Writes `data/bench-wells-midgame.txt` from the run folder named by
/// `HATETRIS_SAMPLE_RUN`: 25 wells from each depth 20 to 60, evenly spaced
/// in the depth file's order (1,025 wells). The file in the tree was made
/// from a net + lookahead search:
///
/// ```text
/// hatetris search --net data/nets/best.nnue --quiescent --width 2000 \
///     --max-depth 60 --threads 1 --out /tmp/speed-midrun
/// HATETRIS_SAMPLE_RUN=/tmp/speed-midrun cargo test --release --test tests \
///     write_mid_game_wells -- --ignored
/// ```
#[test]
#[ignore = "writes data/bench-wells-midgame.txt from a run folder"]
fn write_mid_game_wells() {
    let dir = std::env::var("HATETRIS_SAMPLE_RUN").expect("HATETRIS_SAMPLE_RUN");
    let mut text = String::new();
    for d in 20..=60 {
        let entries = Depth::open(Path::new(&dir), d, None)
            .and_then(|f| f.read_all())
            .expect("a depth file");
        let n = entries.len();
        for i in 0..25 {
            text.push_str(&entries[i * n / 25].well.to_numbers());
            text.push('\n');
        }
    }
    std::fs::write(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bench-wells-midgame.txt"),
        text,
    )
    .expect("written");
}
