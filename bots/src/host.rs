//! The host a bot plays through: something with memory the bot can read and a
//! controller it can press, one video frame at a time.
//!
//! The articles' bots run inside an emulator: each frame a script reads the game's
//! RAM (the well, the falling piece, the preview) and sets the controller's buttons.
//! [`Host`] is that interface and nothing more, so the same driver code runs on
//!
//! * a simulator that lays its state out at the cartridge's RAM addresses
//!   ([`crate::nes::ramsim::RamSim`], which is also the mock bus the emulator
//!   path is tested on) or in a small memory map of its own
//!   ([`crate::hidamari::host::HidamariHost`]);
//! * a real NES emulator (`crate::nes::emulator::TetanesHost`, behind the
//!   `nes-emulator` cargo feature).
//!
//! # Design
//!
//! * Memory is read a byte at a time by address (`peek`), because that is what every
//!   emulator offers and what the public RAM maps document. A bulk read has a
//!   default implementation on top of it.
//! * Buttons are the NES controller's eight, as one byte in the order the cartridge
//!   itself stores them (`$80` A, `$40` B, `$20` Select, `$10` Start, `$08` Up,
//!   `$04` Down, `$02` Left, `$01` Right). [`Host::set_buttons`] sets what is held
//!   from the next frame on; a "tap" is a frame held and a frame released.
//! * [`Host::step_frame`] runs one frame and is the only fallible call.
//!
//! Rejected: a callback per frame (inverts control and makes the driver awkward to
//! test), and a snapshot struct of "the game state" (each game has its own map; the
//! driver decodes it, which is exactly the part worth testing).

/// The eight buttons of an NES controller, one bit each, in the cartridge's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Buttons(pub u8);

impl Buttons {
    /// Nothing pressed.
    pub const NONE: Buttons = Buttons(0);
    /// A.
    pub const A: Buttons = Buttons(0x80);
    /// B.
    pub const B: Buttons = Buttons(0x40);
    /// Select.
    pub const SELECT: Buttons = Buttons(0x20);
    /// Start.
    pub const START: Buttons = Buttons(0x10);
    /// Up.
    pub const UP: Buttons = Buttons(0x08);
    /// Down.
    pub const DOWN: Buttons = Buttons(0x04);
    /// Left.
    pub const LEFT: Buttons = Buttons(0x02);
    /// Right.
    pub const RIGHT: Buttons = Buttons(0x01);

    /// Whether every button of `other` is pressed in `self`.
    #[inline]
    pub const fn contains(self, other: Buttons) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    /// The buttons pressed in `self` but not in `before` (newly pressed).
    #[inline]
    pub const fn pressed_since(self, before: Buttons) -> Buttons {
        Buttons(self.0 & !before.0)
    }
}

impl std::ops::BitOr for Buttons {
    type Output = Buttons;
    fn bitor(self, rhs: Buttons) -> Buttons {
        Buttons(self.0 | rhs.0)
    }
}

/// Why a host could not go on.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The emulator reported an error.
    #[error("emulator: {0}")]
    Emulator(String),
    /// The game did not reach an expected state in time.
    #[error("the game did not reach {what} within {frames} frames")]
    Timeout {
        /// What was awaited.
        what: &'static str,
        /// Frames run.
        frames: u64,
    },
}

/// A machine a bot can play on: read memory, hold buttons, run frames.
pub trait Host {
    /// Reads the byte at `addr` in the machine's address space (for the NES, CPU
    /// addresses; RAM is `$0000..$0800`).
    fn peek(&self, addr: u16) -> u8;

    /// Reads `out.len()` bytes starting at `addr`.
    fn peek_into(&self, addr: u16, out: &mut [u8]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = self.peek(addr.wrapping_add(i as u16));
        }
    }

    /// Holds `buttons` from the next frame on, until changed.
    fn set_buttons(&mut self, buttons: Buttons);

    /// Runs one video frame.
    fn step_frame(&mut self) -> Result<(), HostError>;

    /// Frames run since the host was made.
    fn frames(&self) -> u64;
}
