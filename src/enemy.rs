//! The enemies: who decides the next piece.
//!
//! The game asks its enemy for a piece each time one locks (and once at the
//! start), never earlier, and shows no preview.
//!
//! - **HATETRIS** (the default): for each piece, `highest_peak` is the best
//!   stack the player can make with it (see [`MoveGen::highest_peak`]), and
//!   `max_loops` is the largest count, in the enemy's history, of any well the
//!   piece can produce. The history counts every well the enemy was asked
//!   about, and the current well's count goes up *before* the pieces are
//!   rated. Pieces are sorted by `max_loops`, then `highest_peak`, then the
//!   order `S Z O I L J T`, and the first is given. So the enemy avoids any
//!   piece that could lead back to a seen well, and when every piece could,
//!   it gives the one whose worst repeat has been seen least.
//! - **HATETRIS Mild**: the same without the history.
//! - **LOVETRIS**: always I.
//! - **Burgiel (1997)**: S, Z, S, Z, ... regardless of the well.
//! - **Brzustowski (1992)**, "Algorithm 2": S until a well repeats, then one
//!   more S, then Z until a well repeats, then one more Z... (precisely as the
//!   game implements it; see [`Brzustowski`]).
//!
//! The history check is the expensive part of HATETRIS, so it is skipped
//! when it cannot matter: one lock changes the cell count by `4 − 10·lines`,
//! so a piece can only lead back to a seen well whose cell count is one of
//! five values. The history keeps a count of seen wells per cell count.

use std::fmt;
use std::str::FromStr;

use ahash::AHashMap;

use crate::movegen::{Child, MoveGen};
use crate::piece::Piece;
use crate::place::child_cells;
use crate::well::{Well, WIDTH};

/// Which enemy a game uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum EnemyKind {
    /// HATETRIS with loop prevention (the game's default).
    #[default]
    Hatetris,
    /// HATETRIS Mild: no loop prevention.
    Mild,
    /// LOVETRIS: always I.
    Lovetris,
    /// Burgiel 1997: S and Z alternating, starting with S.
    Burgiel,
    /// Brzustowski 1992: S/Z kinks with cycle detection.
    Brzustowski,
}

impl EnemyKind {
    /// All enemies.
    pub const ALL: [EnemyKind; 5] = [
        EnemyKind::Hatetris,
        EnemyKind::Mild,
        EnemyKind::Lovetris,
        EnemyKind::Burgiel,
        EnemyKind::Brzustowski,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EnemyKind::Hatetris => "hatetris",
            EnemyKind::Mild => "mild",
            EnemyKind::Lovetris => "lovetris",
            EnemyKind::Burgiel => "burgiel",
            EnemyKind::Brzustowski => "brzustowski",
        }
    }
    /// The piece this enemy gives in `gen`'s well after `depth` pieces when
    /// its history does not matter: always for Mild, LOVETRIS and Burgiel
    /// (S at even depths, Z at odd ones); for HATETRIS the min-max choice,
    /// which it gives unless loop prevention steps in; `None` for
    /// Brzustowski, whose piece depends on the game's past wells.
    pub fn stateless_piece(self, gen: &MoveGen, depth: u32) -> Option<Piece> {
        match self {
            EnemyKind::Hatetris | EnemyKind::Mild => Some(mild_choice(gen)),
            EnemyKind::Lovetris => Some(Piece::I),
            EnemyKind::Burgiel => Some(if depth.is_multiple_of(2) {
                Piece::S
            } else {
                Piece::Z
            }),
            EnemyKind::Brzustowski => None,
        }
    }
    /// Every piece this enemy ever gives.
    pub fn pieces(self) -> &'static [Piece] {
        match self {
            EnemyKind::Hatetris | EnemyKind::Mild => &Piece::ALL,
            EnemyKind::Lovetris => &[Piece::I],
            EnemyKind::Burgiel | EnemyKind::Brzustowski => &[Piece::S, Piece::Z],
        }
    }
}

impl serde::Serialize for EnemyKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for EnemyKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for EnemyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EnemyKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.to_ascii_lowercase();
        EnemyKind::ALL.into_iter().find(|k| k.name() == lower).ok_or_else(|| {
            format!("unknown enemy '{s}' (expected hatetris, mild, lovetris, burgiel or brzustowski)")
        })
    }
}

/// How HATETRIS rated one piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rating {
    /// Largest history count over the wells the piece can produce.
    pub max_loops: u32,
    /// Largest first-non-empty-row index over those wells.
    pub highest_peak: usize,
    /// The piece (its order breaks ties).
    pub piece: Piece,
}

/// The plain min-max choice: the piece whose best placement leaves the
/// highest stack, ties to the earlier piece in `S Z O I L J T`.
pub fn mild_choice(gen: &MoveGen) -> Piece {
    // A later piece only wins with a strictly lower peak, so its scan can
    // stop as soon as it reaches the best so far.
    let mut best = (usize::MAX, Piece::S);
    for piece in Piece::ALL {
        let peak = gen.highest_peak_below(piece, best.0);
        if peak < best.0 {
            best = (peak, piece);
        }
    }
    best.1
}

/// Wells the HATETRIS enemy has been asked about, with how often.
#[derive(Clone, Debug, Default)]
pub struct History {
    counts: AHashMap<Well, u32>,
    /// `by_cells[n]`: how many distinct seen wells have `n` cells.
    by_cells: Vec<u32>,
}

impl History {
    /// An empty history.
    pub fn new() -> History {
        History {
            counts: AHashMap::new(),
            by_cells: vec![0; 16 * WIDTH + 1],
        }
    }

    /// Counts one more visit to `well`.
    pub fn visit(&mut self, well: &Well) {
        let count = self.counts.entry(*well).or_insert(0);
        if *count == 0 {
            self.by_cells[well.cells() as usize] += 1;
        }
        *count += 1;
    }

    /// How many times `well` was visited.
    pub fn count(&self, well: &Well) -> u32 {
        self.counts.get(well).copied().unwrap_or(0)
    }

    /// Whether any seen well has a cell count a child of `well` could have.
    pub fn may_repeat_from(&self, well: &Well) -> bool {
        child_cells(well.cells()).any(|n| self.by_cells.get(n as usize).is_some_and(|&c| c > 0))
    }

    /// Number of distinct wells seen.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether nothing has been seen.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

/// Rates all seven pieces as HATETRIS does. `seen(well)` is the history
/// count of a well, which must already include the current well.
pub fn hatetris_ratings(gen: &MoveGen, seen: impl Fn(&Well) -> u32) -> [Rating; 7] {
    let mut children: Vec<Child> = Vec::new();
    Piece::ALL.map(|piece| {
        children.clear();
        gen.children(piece, &mut children);
        let max_loops = children.iter().map(|c| seen(&c.well)).max().unwrap_or(0);
        Rating {
            max_loops,
            highest_peak: gen.highest_peak(piece),
            piece,
        }
    })
}

/// The HATETRIS choice given ratings.
pub fn choose(ratings: &[Rating; 7]) -> Piece {
    ratings.iter().min().expect("seven ratings").piece
}

/// The HATETRIS choice for the well of `gen`.
///
/// `seen(well)` is the history count of a well (the current well already
/// counted). `may_repeat` is false when no child can possibly be in the
/// history (see [`History`]); then the plain min-max choice is the answer.
/// Otherwise the min-max piece's children are checked first: if none of
/// them was seen, its `max_loops` is 0, the least possible, and it wins the
/// sort outright. Only when it could repeat a well are all seven rated.
pub fn hatetris_choice(gen: &MoveGen, may_repeat: bool, seen: impl Fn(&Well) -> u32) -> Piece {
    hatetris_choice_with_children(gen, may_repeat, seen, &mut Vec::new())
}

/// [`hatetris_choice`], leaving the chosen piece's children in `children`
/// (cleared first), so a caller that expands the well does not build them
/// again and reuses one buffer.
pub fn hatetris_choice_with_children(
    gen: &MoveGen,
    may_repeat: bool,
    seen: impl Fn(&Well) -> u32,
    children: &mut Vec<Child>,
) -> Piece {
    let plain = mild_choice(gen);
    children.clear();
    gen.children(plain, children);
    if !may_repeat || children.iter().all(|c| seen(&c.well) == 0) {
        return plain;
    }
    let piece = choose(&hatetris_ratings(gen, seen));
    if piece != plain {
        children.clear();
        gen.children(piece, children);
    }
    piece
}

/// State of the Brzustowski enemy (the game's "Algorithm 2").
#[derive(Clone, Debug)]
pub struct Brzustowski {
    step: u8,
    display: Piece,
    seen: Vec<Well>,
}

impl Default for Brzustowski {
    fn default() -> Self {
        Brzustowski {
            step: 1,
            display: Piece::S,
            seen: Vec::new(),
        }
    }
}

impl Brzustowski {
    /// Gives the piece for `well` and advances the state, as the game does:
    /// the piece given is the one "displayed" by the state before the call.
    pub fn next(&mut self, well: &Well) -> Piece {
        let given = self.display;
        match self.step {
            1 | 3 => {
                let cycle = self.seen.contains(well);
                self.seen.push(*well);
                let kink = if self.step == 1 { Piece::S } else { Piece::Z };
                let other = if kink == Piece::S { Piece::Z } else { Piece::S };
                if cycle {
                    self.step += 1;
                    self.display = other;
                } else {
                    self.display = kink;
                }
            }
            2 => {
                self.step = 3;
                self.display = Piece::Z;
                self.seen.clear();
            }
            _ => {
                self.step = 1;
                self.display = Piece::S;
                self.seen.clear();
            }
        }
        given
    }
}

/// An enemy with its state.
#[derive(Clone, Debug)]
pub enum Enemy {
    /// HATETRIS and its history.
    Hatetris(History),
    /// HATETRIS Mild.
    Mild,
    /// LOVETRIS.
    Lovetris,
    /// Burgiel, with the piece to give next.
    Burgiel(Piece),
    /// Brzustowski.
    Brzustowski(Brzustowski),
}

impl Enemy {
    /// A fresh enemy of this kind.
    pub fn new(kind: EnemyKind) -> Enemy {
        match kind {
            EnemyKind::Hatetris => Enemy::Hatetris(History::new()),
            EnemyKind::Mild => Enemy::Mild,
            EnemyKind::Lovetris => Enemy::Lovetris,
            EnemyKind::Burgiel => Enemy::Burgiel(Piece::S),
            EnemyKind::Brzustowski => Enemy::Brzustowski(Brzustowski::default()),
        }
    }

    /// Which enemy this is.
    pub fn kind(&self) -> EnemyKind {
        match self {
            Enemy::Hatetris(_) => EnemyKind::Hatetris,
            Enemy::Mild => EnemyKind::Mild,
            Enemy::Lovetris => EnemyKind::Lovetris,
            Enemy::Burgiel(_) => EnemyKind::Burgiel,
            Enemy::Brzustowski(_) => EnemyKind::Brzustowski,
        }
    }

    /// The piece to spawn into `well`, updating the enemy's state.
    pub fn next_piece(&mut self, well: &Well) -> Piece {
        match self {
            Enemy::Hatetris(history) => {
                history.visit(well);
                let gen = MoveGen::new(well);
                hatetris_choice(&gen, history.may_repeat_from(well), |w| history.count(w))
            }
            Enemy::Mild => mild_choice(&MoveGen::new(well)),
            Enemy::Lovetris => Piece::I,
            Enemy::Burgiel(next) => {
                let given = *next;
                *next = if given == Piece::S {
                    Piece::Z
                } else {
                    Piece::S
                };
                given
            }
            Enemy::Brzustowski(state) => state.next(well),
        }
    }
}
