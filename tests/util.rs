//! Shared helpers: reading the golden data and building wells.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use hatetris::movegen::MoveGen;
use hatetris::well::Board;
use hatetris::{Piece, Well};

/// Path of a file in tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads a JSON-lines file (gzip if the name ends in .gz).
pub fn json_lines(name: &str) -> Vec<serde_json::Value> {
    let file = std::fs::File::open(data(name)).expect("golden file");
    let reader: Box<dyn Read> = if name.ends_with(".gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    BufReader::new(reader)
        .lines()
        .map(|l| serde_json::from_str(&l.expect("read line")).expect("json line"))
        .collect()
}

/// A 20-integer JSON array as a board.
pub fn board(v: &serde_json::Value) -> Board {
    let rows = v.as_array().expect("array of rows");
    assert_eq!(rows.len(), 20);
    let mut b = [0u16; 20];
    for (i, r) in rows.iter().enumerate() {
        b[i] = r.as_u64().expect("row integer") as u16;
    }
    b
}

/// A reachable well: random legal placements from the empty well, each step
/// a (piece, pick) pair as proptest draws them.
pub fn random_well(steps: &[(u8, u16)]) -> Well {
    let mut well = Well::EMPTY;
    let mut buf = Vec::new();
    for &(piece, pick) in steps {
        buf.clear();
        MoveGen::new(&well).children(Piece::from_index(piece as usize % 7), &mut buf);
        if buf.is_empty() {
            break;
        }
        well = buf[pick as usize % buf.len()].well;
    }
    well
}

/// The depth files of a run folder, by name, sorted.
pub fn depth_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "beam"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every depth's beam of the run in `dir`, its root first (depth 0, or a
/// run from a game's piece count), as the union of its files (one per
/// depth, or a sharded run's one per shard, merged in well order): what a
/// sharded run must hold entry for entry.
pub fn depth_contents(dir: &std::path::Path) -> Vec<Vec<hatetris::run::store::Stored>> {
    let manifest = hatetris::run::read_manifest_file(dir).unwrap();
    (manifest.root()..=manifest.depth)
        .map(|d| {
            hatetris::run::shards::Depth::open(dir, d, manifest.shards)
                .unwrap()
                .read_all()
                .unwrap()
        })
        .collect()
}

/// The history snapshots a run folder holds (`ancestry-NNNNN.bin`: the
/// last few depths'), by name.
pub fn snapshot_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("ancestry-")
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}
