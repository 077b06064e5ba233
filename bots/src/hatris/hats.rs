//! The six hat types and their tables.
//!
//! Hats are stored in piles as their raw id (`u8`, 1 to 6, 0 for "none") so a
//! pile is a flat byte array; [`Hat`] is the typed view used at the edges.
//! All tables are `const` arrays indexed by `id - 1`, filled in from the
//! public ROM map facts in the brief (base heights, nesting, cash), so a
//! landing is two table reads and an add.

/// One of the six hat types. The discriminant is the game's own id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Hat {
    /// Top hat (id 1).
    Top = 1,
    /// Wizard hat (id 2).
    Wizard = 2,
    /// Crown (id 3).
    Crown = 3,
    /// Baseball cap (id 4).
    Cap = 4,
    /// Derby (id 5).
    Derby = 5,
    /// Cowboy hat (id 6).
    Cowboy = 6,
}

/// Number of hat types.
pub const HAT_TYPES: usize = 6;

/// Height in units of a hat lying directly on the heads (the pile floor),
/// indexed by `id - 1`.
pub const BASE_HEIGHT: [u8; HAT_TYPES] = [20, 24, 16, 12, 8, 11];

/// Units a hat adds when it lands on another: `NEST[arriving - 1][top - 1]`.
pub const NEST: [[u8; HAT_TYPES]; HAT_TYPES] = [
    // top wiz crn cap dby cow   (hat already on top of the pile)
    [2, 18, 18, 18, 18, 18], // top arriving
    [8, 4, 16, 20, 19, 19],  // wizard arriving
    [9, 10, 10, 10, 10, 10], // crown arriving
    [8, 8, 7, 6, 9, 8],      // cap arriving
    [2, 3, 3, 4, 2, 4],      // derby arriving
    [5, 6, 5, 5, 6, 5],      // cowboy arriving
];

/// Cash paid for one sold stack of five, indexed by `id - 1`.
pub const CASH: [u32; HAT_TYPES] = [150, 200, 300, 120, 50, 80];

/// The two helpers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Helper {
    /// Alexey: removes up to five hats from the bottom of a pile.
    Alexey = 0,
    /// Vladimir: swaps two piles.
    Vladimir = 1,
}

/// Which progress bar a sold stack advances, indexed by `id - 1`: crowns,
/// derbies and wizard hats feed Alexey; caps, cowboy hats and top hats feed
/// Vladimir.
pub const BAR_OF: [Helper; HAT_TYPES] = [
    Helper::Vladimir,
    Helper::Alexey,
    Helper::Alexey,
    Helper::Vladimir,
    Helper::Alexey,
    Helper::Vladimir,
];

impl Hat {
    /// All six types in id order.
    pub const ALL: [Hat; HAT_TYPES] = [
        Hat::Top,
        Hat::Wizard,
        Hat::Crown,
        Hat::Cap,
        Hat::Derby,
        Hat::Cowboy,
    ];

    /// The hat with the game's id `id` (1 to 6), or `None`.
    pub const fn from_id(id: u8) -> Option<Hat> {
        match id {
            1..=6 => Some(Hat::ALL[id as usize - 1]),
            _ => None,
        }
    }

    /// The game's id, 1 to 6.
    pub const fn id(self) -> u8 {
        self as u8
    }

    /// One capital letter for text drawings: T W K C D B.
    pub const fn letter(self) -> char {
        LETTERS[self as usize - 1]
    }

    /// The hat's name in lower case.
    pub const fn name(self) -> &'static str {
        NAMES[self as usize - 1]
    }
}

/// Letters used in drawings, indexed by `id - 1` (K for crown, B for the
/// cowboy's broad brim, so that C can mean cap).
pub const LETTERS: [char; HAT_TYPES] = ['T', 'W', 'K', 'C', 'D', 'B'];

const NAMES: [&str; HAT_TYPES] = ["top", "wizard", "crown", "cap", "derby", "cowboy"];

/// Base height of the hat with raw id `id` (1 to 6).
#[inline]
pub const fn base_height(id: u8) -> u8 {
    BASE_HEIGHT[id as usize - 1]
}

/// Units added when `arriving` lands on `top` (raw ids, 1 to 6).
#[inline]
pub const fn nest(arriving: u8, top: u8) -> u8 {
    NEST[arriving as usize - 1][top as usize - 1]
}
