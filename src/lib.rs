//! hatetris: an exact HATETRIS emulator and a search for world-record games.
//!
//! The modules, from the ground up (each imports only modules above it in
//! this list):
//!
//! **The ground floor**
//! - [`folder`]: folder tools shared by every folder the engine keeps:
//!   atomic writes, the folder lock, JSON files and JSON-lines logs, the
//!   settings checked on resume, an I/O error with its path, the FNV-1a
//!   digest files carry;
//! - [`stats`]: the mean and standard deviation, with the divisor named.
//!
//! **The game**
//! - [`well`], [`piece`], [`key`]: the 16-row bitboard well, the seven
//!   pieces with their compile-time tables, the four keys;
//! - `place` (crate-private): a placement's cells, placing a piece and
//!   clearing rows, and the cell-count arithmetic; the one place the lock
//!   rule is written;
//! - [`movegen`]: the wave-based move generator, and the clearing
//!   placements found without it;
//! - [`reference`](mod@reference): the slow twin, the game's own breadth-first search over
//!   `(x, y, o)`, and key paths;
//! - [`enemy`]: who gives the next piece in a game (HATETRIS with loop
//!   prevention, Mild, LOVETRIS, Burgiel, Brzustowski);
//! - [`reverse`]: reverse moves, the emulator run backwards;
//! - [`game`]: a game played key by key;
//! - [`replay`]: the four replay encodings, playing a replay, and wells back
//!   to keys.
//!
//! **Ranking wells**
//! - [`evaluate`]: the evaluator seam (a batch call and an identity), and
//!   the quiescent lookahead around any evaluator;
//! - [`heuristic`]: the knewjade heuristic and its weights;
//! - [`nnue`]: the neural evaluator: features, the f32 net and its training
//!   step, int16 inference (scalar and AVX2), net files.
//!
//! **Searching**
//! - [`run`]: the run folder (manifest, chained depth files, snapshots,
//!   log, [`run::verify`]) and
//!   the game rebuilt from it ([`run::keyframes`]);
//! - [`search`]: the beam search: the depth loop in named steps, one
//!   depth as a kernel over the one inner expansion loop, the adversary and
//!   observer seams, the loop-prevention ancestry, and the small in-memory
//!   search (`search::small`) that the trainer and the tuner share;
//! - [`distributed`]: the beam sharded over timely-dataflow workers, in
//!   one process or several, every enemy, each shard writing its own depth
//!   files (`docs/distributed.md`);
//! - [`launch`]: a search assembled from what a command asks for (the
//!   evaluator from its files or rebuilt from a run folder, the depth
//!   loop's options, a run started or resumed), and a command's input
//!   files read with a cap;
//! - [`plot`]: pictures, SVG and PNG with a built-in font: a run's figures
//!   by depth and a game's wells;
//! - [`strength`]: how long an evaluator survives and how many lines it
//!   clears from start positions in long games, each with the game's
//!   history: the suite of `bench strength`, and the trainer's gate (on
//!   its own positions: the suite's judging-only ones never reach it);
//! - [`train`]: the generational trainer (master beams and steady-state
//!   starts, samples, targets from small searches, a window of
//!   generations, the fit, the gate that keeps a champion, the training
//!   folder and its picture);
//! - [`tune`]: the weights tuner (CMA-ES over a fitness measured from the
//!   start wells of a reference game, for weights or any evaluator) and the
//!   fitness `compare` reports;
//! - [`bench`](mod@bench): fixed workloads that time the engine and double as
//!   determinism signatures.
#![deny(missing_docs)]

pub mod bench;
pub mod distributed;
pub mod enemy;
pub mod evaluate;
pub mod folder;
pub mod game;
pub mod heuristic;
pub mod key;
pub mod launch;
pub mod movegen;
pub mod nnue;
pub mod piece;
pub(crate) mod place;
pub mod plot;
pub mod reference;
pub mod replay;
pub mod reverse;
pub mod run;
pub mod search;
pub mod stats;
pub mod strength;
pub mod train;
pub mod tune;
pub mod well;

pub use enemy::EnemyKind;
pub use game::Game;
pub use key::Key;
pub use movegen::{Child, MoveGen};
pub use piece::Piece;
pub use well::Well;
