//! The [`Host`] on the `tetanes-core` NES emulator (cargo feature `nes-emulator`).
//!
//! The user supplies the ROM; none is included, and nothing here knows its bytes.
//! [`TetanesHost::open`] reads the file, checks the iNES magic (`NES\x1a`) so a
//! wrong file gets a clear error instead of an emulator failure, and loads it.
//! `peek` reads the console's 2 KiB work RAM (mirrored through `$0000..$2000`;
//! other addresses read as 0), `set_buttons` sets controller 1, `step_frame`
//! clocks one video frame.
//!
//! Opposite directions: `tetanes-core` keeps a d-pad's rule (by default it
//! cannot hold Up with Down or Left with Right), so when [`Buttons`] holds
//! both, the later one in NES order wins (Down, Right). The driver never
//! asks for both.
//!
//! # Tested with a program of our own
//!
//! `tests/data/echo.s` (assembled with cc65 into `tests/data/echo.nes`, both
//! committed) reads controller 1 through the port at `$4016` in its NMI
//! and echoes it into RAM. The feature's tests show through it that every
//! button reaches its bit, that one [`Host::step_frame`] is one NMI (one
//! frame), and that a button set for one step registers as one press.
//!
//! Not tried here: a real cartridge (no ROM is available in this project's
//! environment); see the crate's README.

use std::path::Path;

use anyhow::{bail, Context};
use tetanes_core::control_deck::ControlDeck;
use tetanes_core::input::{JoypadBtn, Player};

use crate::host::{Buttons, Host, HostError};

/// The NES emulator as a bot host.
pub struct TetanesHost {
    deck: ControlDeck,
    frames: u64,
}

impl TetanesHost {
    /// Loads a ROM file into a fresh emulator.
    pub fn open(path: &Path) -> anyhow::Result<TetanesHost> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read ROM {}", path.display()))?;
        if bytes.len() < 16 || &bytes[..4] != b"NES\x1a" {
            bail!("{} is not an iNES ROM (no NES<1A> header)", path.display());
        }
        let mut deck = ControlDeck::new();
        let name = path
            .file_name()
            .map_or_else(|| "rom".to_string(), |n| n.to_string_lossy().into_owned());
        deck.load_rom(name, &mut bytes.as_slice())
            .map_err(|e| anyhow::anyhow!("the emulator refused {}: {e}", path.display()))?;
        Ok(TetanesHost { deck, frames: 0 })
    }
}

impl Host for TetanesHost {
    fn peek(&self, addr: u16) -> u8 {
        if addr < 0x2000 {
            self.deck.wram()[addr as usize & 0x7FF]
        } else {
            0
        }
    }

    fn set_buttons(&mut self, b: Buttons) {
        let pad = self.deck.joypad_mut(Player::One);
        for (mask, button) in [
            (Buttons::A, JoypadBtn::A),
            (Buttons::B, JoypadBtn::B),
            (Buttons::SELECT, JoypadBtn::Select),
            (Buttons::START, JoypadBtn::Start),
            (Buttons::UP, JoypadBtn::Up),
            (Buttons::DOWN, JoypadBtn::Down),
            (Buttons::LEFT, JoypadBtn::Left),
            (Buttons::RIGHT, JoypadBtn::Right),
        ] {
            pad.set_button(button, b.contains(mask));
        }
    }

    fn step_frame(&mut self) -> Result<(), HostError> {
        // The frame's cycle count is of no use to the bot.
        let _clocked = self
            .deck
            .clock_frame()
            .map_err(|e| HostError::Emulator(e.to_string()))?;
        self.frames += 1;
        Ok(())
    }

    fn frames(&self) -> u64 {
        self.frames
    }
}
