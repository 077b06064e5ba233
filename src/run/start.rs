//! Where a run starts: the empty well, or a game's well after some piece
//! ([`Start`], `search --from REPLAY --at PIECE`).
//!
//! A run from a game is that game going on: its depths are the whole
//! game's piece counts (its root is depth `at`, so a well's score still
//! follows from its cells and its depth), its enemy has seen every well of
//! the game, and its best game, printed and written, is the whole game,
//! the prefix's keys as the replay has them and then the search's.
//!
//! The manifest records the start as the replay's keys up to the root's
//! lock (Base2048, the game's export format) and `at`; everything else is
//! played again from them ([`Start::play`]), so a resume, `keyframes` and
//! `verify` need nothing but the folder. An empty-well run records none,
//! so its manifest and its identity ([`super::Settings::run_id`]) are what
//! they always were.

use serde::{Deserialize, Serialize};

use super::Best;
use crate::enemy::{Enemy, EnemyKind};
use crate::game::{Event, Game};
use crate::key::Key;
use crate::piece::Piece;
use crate::replay::{self, DecodeError, Format};
use crate::well::Well;

/// A run's start in a game: the well after `at` pieces of the replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Start {
    /// Pieces locked before the run's root: the root's depth.
    pub at: u32,
    /// The game's keys up to and including the `at`-th lock, Base2048.
    pub replay: String,
}

/// Why a game gives no start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The replay does not decode: why.
    #[error("the replay does not decode: {0}")]
    Decode(String),
    /// The replay's keys run out before the piece asked for.
    #[error("--at {at} is past the replay's end: it locks {locked} pieces against {enemy}")]
    Short {
        /// Pieces asked for.
        at: u32,
        /// Pieces the replay locks.
        locked: u32,
        /// The enemy it was played against.
        enemy: EnemyKind,
    },
    /// The game ends before the piece asked for.
    #[error("--at {at} is past the game's end: piece {over} ends it against {enemy}")]
    Ended {
        /// Pieces asked for.
        at: u32,
        /// The piece that ends the game.
        over: u32,
        /// The enemy it was played against.
        enemy: EnemyKind,
    },
    /// The piece asked for ends the game: there is no well to go on from.
    #[error("--at {at}: the game is already over there (that piece ends it against {enemy})")]
    Over {
        /// Pieces asked for.
        at: u32,
        /// The enemy it was played against.
        enemy: EnemyKind,
    },
}

/// The game before a run's root, played again from its [`Start`].
#[derive(Clone, Debug)]
pub struct Prefix {
    /// The wells after 0 to `at` pieces (the empty well first, the root
    /// last).
    pub wells: Vec<Well>,
    /// The score after each of the `at` pieces.
    pub scores: Vec<u16>,
    /// The piece the enemy gave at each of the `at` wells before the root.
    pub pieces: Vec<Piece>,
    /// The keys, up to and including the `at`-th lock.
    pub keys: Vec<Key>,
}

impl Prefix {
    /// The root's depth.
    pub fn at(&self) -> u32 {
        self.pieces.len() as u32
    }

    /// The root's well.
    pub fn root(&self) -> Well {
        *self.wells.last().expect("the empty well at least")
    }

    /// The root as a best game: its score, depth and well.
    pub fn best(&self) -> Best {
        Best {
            score: self.scores.last().copied().unwrap_or(0),
            depth: self.at(),
            well: self.root(),
        }
    }

    /// The wells the game saw before the root (depths 0 to `at − 1`): its
    /// enemy's history, the root's own well apart.
    pub fn before_root(&self) -> &[Well] {
        &self.wells[..self.wells.len() - 1]
    }

    /// `kind`'s enemy as the game left it when the root's piece locked,
    /// before it is asked about the root: it has seen every well before.
    pub fn enemy(&self, kind: EnemyKind) -> Enemy {
        let mut enemy = Enemy::new(kind);
        for well in self.before_root() {
            enemy.next_piece(well);
        }
        enemy
    }
}

impl Start {
    /// The start after `at` pieces of the replay `text` against `enemy`
    /// (`None`: its last well before the game ended, or its last well if
    /// it did not end), with the game before it.
    pub fn from_replay(
        text: &str,
        at: Option<u32>,
        enemy: EnemyKind,
    ) -> Result<(Start, Prefix), StartError> {
        let keys = replay::decode(text).map_err(decode_error)?;
        let prefix = play(&keys, at, enemy)?;
        let start = Start {
            at: prefix.at(),
            replay: replay::encode(&prefix.keys, Format::Base2048),
        };
        Ok((start, prefix))
    }

    /// The game before the root, played again against `enemy`.
    pub fn play(&self, enemy: EnemyKind) -> Result<Prefix, StartError> {
        let keys = replay::decode(&self.replay).map_err(decode_error)?;
        play(&keys, Some(self.at), enemy)
    }

    /// What the run's identity adds for this start: its depth and its
    /// keys (through a digest, so the identity's text stays short).
    pub fn identity(&self) -> String {
        let digest = crate::folder::fnv1a(crate::folder::FNV_OFFSET, self.replay.as_bytes());
        format!("at={};replay={digest:016x}", self.at)
    }
}

/// A decoding error as [`StartError::Decode`] holds it (its message, so
/// a command's error chain says it once).
fn decode_error(e: DecodeError) -> StartError {
    StartError::Decode(e.to_string())
}

/// Plays `keys` against `kind` up to the `at`-th lock (`None`: the last
/// live well).
fn play(keys: &[Key], at: Option<u32>, kind: EnemyKind) -> Result<Prefix, StartError> {
    let mut game = Game::new(kind);
    let mut prefix = Prefix {
        wells: vec![Well::EMPTY],
        scores: Vec::new(),
        pieces: Vec::new(),
        keys: Vec::new(),
    };
    // The keys up to the last lock that left the game going.
    let mut used = 0;
    for (i, &key) in keys.iter().enumerate() {
        if at == Some(prefix.at()) {
            break;
        }
        match game.press(key) {
            Event::Locked { piece, .. } => {
                prefix.wells.push(game.well());
                prefix.scores.push(game.score() as u16);
                prefix.pieces.push(piece);
                used = i + 1;
            }
            Event::GameOver { .. } => {
                let over = prefix.at() + 1;
                match at {
                    None => break,
                    Some(at) if at == over => return Err(StartError::Over { at, enemy: kind }),
                    Some(at) => {
                        return Err(StartError::Ended {
                            at,
                            over,
                            enemy: kind,
                        })
                    }
                }
            }
            Event::Ignored => break,
            Event::Moved | Event::Blocked => {}
        }
    }
    if let Some(at) = at.filter(|&at| at != prefix.at()) {
        return Err(StartError::Short {
            at,
            locked: prefix.at(),
            enemy: kind,
        });
    }
    prefix.keys = keys[..used].to_vec();
    Ok(prefix)
}
