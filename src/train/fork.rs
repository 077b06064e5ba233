//! Forking a training folder: a new folder that holds another's
//! generations up to one step of generation N, under settings that may
//! differ from there on, so that an experiment on a generation's samples,
//! targets or fit reuses every step before it.
//!
//! # Why
//! A generation's cost is almost all data (learn-5: 5-15 minutes of
//! training beams against 2-5 seconds of fitting and 2 minutes of gate, on
//! 2 cores), so a question about the fit or the targets is answered in 3 to
//! 10 minutes by redoing one generation from the step it changes, gated
//! against the same champion: `data/train/learn-5-fit-sweep` and
//! `data/train/learn-5-targets-sweep` were made this way by hand (copy the
//! folder, edit `train.json`, delete the later files). Done by hand it is
//! easy to keep a file that a changed setting made stale (a `rescale.json`
//! made from the old targets is read back as it is); here the step after
//! which nothing is kept is named ([`Redo`]), and every file of that step
//! and the later ones is left behind.
//!
//! # What is copied
//! The settings are the source's with the caller's changes (`train.json`);
//! the start net and the start's gate figures; the generations before
//! `at` whole (made under the source's settings, which `fork.json`
//! records beside the differences); of generation `at`, the files of the
//! steps before [`Redo`] ([`Redo::Gate`]: every file but the verdict, so a
//! gate judged again under another margin, block or slack costs seconds: `wz`'s
//! 15th gate, `wy`'s net played again under a margin, took 22 minutes on
//! one thread). The gate's positions and the hidden units cannot
//! change: the copied generations' verdicts were made on those positions,
//! the champion's figures there are read back from its gate, and the nets
//! have that size; but the rotation over games (`--gate-rotate`) may be
//! turned on (or, in `train.json`, off), since a gate then measures the
//! champion itself wherever the gate that kept it played other positions.
//! The gate's wide games (`--gate-wide`, `--gate-wide-from`,
//! `--gate-wide-rotate`) may change at any generation (but not the game
//! they start from, `--gate-wide-game`: a champion's copied games from
//! piece P were played from the source's): every gate's record
//! names the games it played, which each later reader (the wide samples,
//! `status`, `verify`) goes by, the copied verdicts stand as they were made
//! (`fork.json` records the change), and the champion plays its games
//! under the new settings at the fork's first gate, as the candidate does.
//! So a loop whose width-100,000 games cost hours a gate can go on with
//! cheaper ones from a later generation without replaying the earlier.
//! Nor can a fork that keeps generation `at`'s targets change a setting
//! that made them ([`TARGET_SETTINGS`]). The start net's wide games that
//! the fork's gate plays (`start-wide-…`, finished or not) are copied too
//! when the fork keeps the settings they are played under
//! ([`GAME_SETTINGS`]): the same net, width, start and search make the same
//! game, and one width-100,000 game from the steady state costs 5-20
//! minutes on 2 cores (learn-13's three: 32 minutes; learn-18's, from
//! longer-lived wells, about an hour each). A game the source ends after
//! the fork is made is copied when the fork's gate comes to it
//! ([`source_start_game`]). The copy is made
//! under a temporary name and renamed into place, so a killed fork leaves
//! no folder behind (only the temporary, which the next fork of that name
//! clears), and files are copied, never linked: a resumed master beam may
//! rewrite a log tail in place, which must not reach the source. No crate
//! copies a tree skipping temporaries and syncing each file, so
//! [`copy_tree`] does.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::folder::{
    config_path, generation_dir, read_config, write_json, FAR_BIN, FROM_F32, GATE_START,
    WIDE_REACH_BIN, WIDE_SAMPLES_BIN,
};
use super::reach::REACH_BIN;
use super::{Config, TrainError};
use crate::folder::atomic::{is_temporary, sync_folder};
use crate::folder::{differences as setting_differences, io};
use crate::run;

/// The first step of generation `at` that a fork does again (with every
/// later one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Redo {
    /// The master beam (nothing of generation `at` is kept).
    Master,
    /// The samples (the master beam is kept).
    Samples,
    /// The targets (the samples are kept).
    Targets,
    /// The fit, the gate and the summary (the targets are kept).
    Fit,
    /// The gate's verdict and the summary: every file of the generation is
    /// kept but those two, so its positions' outcomes and its wide games
    /// are read back and judged again, under a changed margin, block or slack
    /// alone (`JUDGE_SETTINGS`). Its gate's seconds are then the source's:
    /// its positions' (from their file) and its wide games' (from
    /// `seconds.json`), as for a gate gone on with after a kill.
    Gate,
}

impl Redo {
    /// Its name, as `--redo` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Redo::Master => "master",
            Redo::Samples => "samples",
            Redo::Targets => "targets",
            Redo::Fit => "fit",
            Redo::Gate => "gate",
        }
    }

    /// The files of generation `at` a fork keeps, and the one among them
    /// that must exist (the last step kept).
    fn kept(self) -> (&'static [&'static str], Option<&'static str>) {
        const MASTER: &[&str] = &["master.json", "master"];
        const SAMPLES: &[&str] = &[
            "master.json",
            "master",
            "samples.bin",
            WIDE_SAMPLES_BIN,
            WIDE_REACH_BIN,
        ];
        const TARGETS: &[&str] = &[
            "master.json",
            "master",
            "samples.bin",
            WIDE_SAMPLES_BIN,
            WIDE_REACH_BIN,
            "targets.bin",
            "died.bin",
            FAR_BIN,
            REACH_BIN,
            "units.json",
        ];
        match self {
            Redo::Master => (&[], None),
            Redo::Samples => (MASTER, Some("master.json")),
            Redo::Targets => (SAMPLES, Some("samples.bin")),
            Redo::Fit => (TARGETS, Some("targets.bin")),
            // Every file but the verdict's (`GATE_VERDICT`), whose being
            // there says the gate is over: nothing it played is still
            // being written.
            Redo::Gate => (&[], Some("gate.json")),
        }
    }
}

/// The settings the targets step reads: a fork that keeps generation
/// `at`'s targets ([`Redo::Fit`]) cannot change them, or the fit would read
/// targets made under others.
const TARGET_SETTINGS: &[&str] = &[
    "beam.width",
    "beam.pieces",
    "beam_lookahead",
    "lost_value",
    "learning.life_pieces",
];

/// The settings the samples step reads that a fork keeping generation
/// `at`'s samples ([`Redo::Targets`], [`Redo::Fit`]) cannot change.
const SAMPLE_SETTINGS: &[&str] = &[
    "samples",
    "heuristic_samples",
    "children",
    "chain_points",
    "learning.start_samples",
    "learning.start_every",
    "learning.start_beam.width",
    "learning.start_beam.pieces",
    "learning.wide_samples",
    "learning.wide_gates",
    "learning.wide_unread",
    "learning.wide_unread_min",
    "learning.wide_spare_starts",
];

/// The gate's settings that choose its wide starts, which the samples step
/// reads too with [`Learning::wide_spare_starts`](super::Learning::wide_spare_starts).
const SPARED_STARTS_SETTINGS: &[&str] = &["learning.gate.wide_from", "learning.gate.wide_rotate"];

/// The settings a fork that redoes generation `at`'s gate alone
/// ([`Redo::Gate`]) may change: they judge the gate's figures and make
/// none, so the outcomes and games it reads back are the ones it would
/// play.
const JUDGE_SETTINGS: &[&str] = &[
    "learning.gate.margin",
    "learning.gate.block",
    "learning.gate.wide_slack",
];

/// The files of a generation a fork that redoes its gate leaves behind:
/// the verdict (`gate.json`) and the summary made from it.
const GATE_VERDICT: &[&str] = &["gate.json", "generation.json"];

/// The settings a wide game of the gate is played under besides its net,
/// width and start (which its folder's name and the start net fix): a fork
/// that keeps them keeps the start net's games.
const GAME_SETTINGS: &[&str] = &["quiescent", "master_depth"];

/// Whether the setting `key` is one of the gate's besides its wide games,
/// [`Gate::rotate`](super::learning::Gate::rotate), its margin and block: the
/// positions a fork's copied verdicts were made on, which it cannot
/// change. The wide games it may (the module doc says why), but not the
/// game they start from (a champion's copied games from piece P were played
/// from the source's); the rotation
/// too: under it a gate measures the champion on its own positions, and
/// out of it a gate measures afresh a champion kept under it; and the
/// margin and block, which judge the figures and make none (the copied
/// verdicts stand as made).
fn positions_setting(key: &str) -> bool {
    key.starts_with("learning.gate")
        && !key.starts_with("learning.gate.wide")
        && key != "learning.gate.rotate"
        && key != "learning.gate.margin"
        && key != "learning.gate.block"
}

/// `fork.json`: where a forked folder came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Forked {
    /// The source folder, as given.
    pub source: String,
    /// The generation redone from [`Forked::redo`] on.
    pub at: u32,
    /// Its first step done again.
    pub redo: Redo,
    /// The settings that differ from the source's, as `key recorded → asked`.
    pub changed: Vec<String>,
}

impl Forked {
    /// One line: `a fork of SOURCE at generation N, from its STEP step on`,
    /// and the changed settings if any.
    pub fn describe(&self) -> String {
        let step = self.redo.name();
        let mut line = format!(
            "a fork of {} at generation {}, from its {step} step on",
            self.source, self.at
        );
        if !self.changed.is_empty() {
            line += &format!("; changed: {}", self.changed.join(", "));
        }
        line
    }
}

/// The file a fork writes beside the settings.
pub const FORK_JSON: &str = "fork.json";

/// Makes `dest`, a new training folder holding `source`'s generations
/// before `at`, and generation `at` up to the step before `redo`, under
/// `config` (see the module doc). `dest` must not exist.
pub fn fork(
    source: &Path,
    dest: &Path,
    at: u32,
    redo: Redo,
    config: &Config,
) -> Result<Forked, TrainError> {
    let refuse = |path: &Path, why: String| TrainError::Config {
        path: path.to_path_buf(),
        why,
    };
    let stored = read_config(source)?.ok_or_else(|| {
        refuse(
            source,
            "not a training folder (no train.json) to fork from".into(),
        )
    })?;
    if dest.exists() {
        return Err(refuse(
            dest,
            "already exists; a fork makes a new folder".into(),
        ));
    }
    let differences = setting_differences(&stored, config);
    if let Some(d) = differences.iter().find(|d| {
        d.key == "hidden"
            || positions_setting(&d.key)
            || d.key == "learning"
            || d.key.starts_with("learning.gate.wide_game")
    }) {
        return Err(refuse(
            &config_path(source),
            format!(
                "a fork cannot change {} ({} → {}): the copied generations were made and judged with the source's",
                d.key, d.recorded, d.asked
            ),
        ));
    }
    if let Some(d) = differences
        .iter()
        .find(|d| redo == Redo::Gate && !JUDGE_SETTINGS.contains(&d.key.as_str()))
    {
        return Err(refuse(
            &config_path(source),
            format!(
                "{} ({} → {}) is not one of the settings the gate's verdict is weighed by ({}), the only ones --redo gate may change: it keeps everything generation {at} played; fork with --redo fit (or an earlier step)",
                d.key,
                d.recorded,
                d.asked,
                JUDGE_SETTINGS.join(", ")
            ),
        ));
    }
    if let Some(d) = differences
        .iter()
        .find(|d| redo == Redo::Fit && TARGET_SETTINGS.contains(&d.key.as_str()))
    {
        return Err(refuse(
            &config_path(source),
            format!(
                "{} ({} → {}) makes the targets: fork with --redo targets (or an earlier step), since --redo fit keeps generation {at}'s",
                d.key, d.recorded, d.asked
            ),
        ));
    }
    let spared = |c: &Config| c.learning.as_ref().is_some_and(|l| l.wide_spare_starts);
    let samples_read = |key: &str| {
        SAMPLE_SETTINGS.contains(&key)
            || ((spared(&stored) || spared(config)) && SPARED_STARTS_SETTINGS.contains(&key))
    };
    if let Some(d) = differences
        .iter()
        .find(|d| matches!(redo, Redo::Targets | Redo::Fit) && samples_read(&d.key))
    {
        return Err(refuse(
            &config_path(source),
            format!(
                "{} ({} → {}) makes the samples: fork with --redo samples (or an earlier step), since --redo {} keeps generation {at}'s",
                d.key, d.recorded, d.asked, redo.name()
            ),
        ));
    }
    for g in 0..at {
        let summary = generation_dir(source, g).join("generation.json");
        if !summary.exists() {
            return Err(refuse(
                source,
                format!("generation {g} is not finished, so generation {at} cannot be forked"),
            ));
        }
    }
    let (kept, needed) = redo.kept();
    let gen_at = generation_dir(source, at);
    if let Some(file) = needed {
        if !gen_at.join(file).exists() {
            return Err(refuse(
                &gen_at,
                format!("has no {file} yet, so its later steps cannot be redone alone"),
            ));
        }
    }

    let name = dest
        .file_name()
        .ok_or_else(|| refuse(dest, "is not a folder name".into()))?;
    let temporary = dest.with_file_name(format!(".{}.fork-tmp", name.to_string_lossy()));
    if temporary.exists() {
        fs::remove_dir_all(&temporary).map_err(io(&temporary))?;
    }
    fs::create_dir_all(&temporary).map_err(io(&temporary))?;
    for file in [FROM_F32, GATE_START] {
        let from = source.join(file);
        if from.exists() {
            copy_file(&from, &temporary.join(file))?;
        }
    }
    for g in 0..at {
        copy_tree(&generation_dir(source, g), &generation_dir(&temporary, g))?;
    }
    if !differences
        .iter()
        .any(|d| GAME_SETTINGS.contains(&d.key.as_str()))
    {
        let gate = config.learning.as_ref().map(|l| &l.gate);
        for name in gate.map(|g| g.start_net_games()).unwrap_or_default() {
            let from = source.join(&name);
            if run::manifest_path(&from).exists() {
                copy_tree(&from, &temporary.join(&name))?;
            }
            let record = super::folder::wide_record_path(&from);
            if record.exists() {
                copy_file(
                    &record,
                    &super::folder::wide_record_path(&temporary.join(&name)),
                )?;
            }
        }
    }
    if redo == Redo::Gate {
        copy_tree_but(&gen_at, &generation_dir(&temporary, at), GATE_VERDICT)?;
    } else if !kept.is_empty() {
        let to = generation_dir(&temporary, at);
        fs::create_dir_all(&to).map_err(io(&to))?;
        for file in kept {
            let from = gen_at.join(file);
            if from.is_dir() {
                copy_tree(&from, &to.join(file))?;
            } else if from.exists() {
                copy_file(&from, &to.join(file))?;
            }
        }
        sync_dir(&to);
    }
    let forked = Forked {
        source: source.display().to_string(),
        at,
        redo,
        changed: differences
            .iter()
            .map(|d| format!("{} {} → {}", d.key, d.recorded, d.asked))
            .collect(),
    };
    write_json(&temporary.join(FORK_JSON), &forked)?;
    write_json(&config_path(&temporary), config)?;
    sync_dir(&temporary);
    fs::rename(&temporary, dest).map_err(io(dest))?;
    sync_folder(dest);
    Ok(forked)
}

/// The run folder of the start net's wide game `name` in the folder that
/// `dir` was forked from, when the game has ended there and is this fork's
/// game too: the same start net (`from.f32`, byte for byte), the same
/// [`GAME_SETTINGS`] and the same gate. `None` when `dir` is no fork, its
/// source is not found, or the game is not there or not over.
///
/// A fork copies the games its source has when it is made; one made
/// before the source's gate played them (`learn-18-w128`, forked at
/// generation 0's fit while `learn-18` had not reached its gate) would
/// otherwise play them again: three width-100,000 games from the steady
/// state, about 3 hours on 2 cores. A game still being played is not
/// taken (it is still being written), nor one the fork has started itself.
pub(super) fn source_start_game(
    dir: &Path,
    config: &Config,
    name: &str,
) -> Result<Option<PathBuf>, TrainError> {
    let Some(forked) = super::folder::read_json::<Forked>(&dir.join(FORK_JSON))? else {
        return Ok(None);
    };
    let Some(source) = source_dir(dir, &forked.source) else {
        return Ok(None);
    };
    let Some(stored) = read_config(&source)? else {
        return Ok(None);
    };
    let same_game = setting_differences(&stored, config)
        .iter()
        .all(|d| !GAME_SETTINGS.contains(&d.key.as_str()) && !positions_setting(&d.key));
    let same_net = match (
        fs::read(dir.join(FROM_F32)),
        fs::read(source.join(FROM_F32)),
    ) {
        (Ok(ours), Ok(theirs)) => ours == theirs,
        _ => false,
    };
    let game = source.join(name);
    let ended =
        run::read_manifest(&game).is_ok_and(|m| super::folder::game_over(&m, config.master_depth));
    Ok((same_game && same_net && ended).then_some(game))
}

/// Where the source `fork.json` names is: as recorded (relative to where
/// the fork was made, as a script that runs in one folder has it), else
/// the folder of that name beside the fork.
fn source_dir(dir: &Path, source: &str) -> Option<PathBuf> {
    let recorded = PathBuf::from(source);
    let beside = dir
        .parent()
        .zip(recorded.file_name())
        .map(|(parent, name)| parent.join(name));
    [Some(recorded), beside]
        .into_iter()
        .flatten()
        .find(|p| config_path(p).is_file())
}

/// Copies one file and syncs the copy.
fn copy_file(from: &Path, to: &Path) -> Result<(), TrainError> {
    fs::copy(from, to).map_err(io(from))?;
    fs::File::open(to)
        .and_then(|f| f.sync_all())
        .map_err(io(to))?;
    Ok(())
}

/// Copies a run folder `from` to `to` (which must not exist) whole or not
/// at all: into a temporary name first (a killed copy's is cleared by the
/// next), then renamed. Copied, not linked, for the reason in the module
/// doc.
pub(super) fn copy_run(from: &Path, to: &Path) -> Result<(), TrainError> {
    let name = to
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let parent = to.parent().unwrap_or(Path::new("."));
    for e in fs::read_dir(parent).map_err(io(parent))? {
        let path = e.map_err(io(parent))?.path();
        let stale = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&format!("{name}.tmp-")) && is_temporary(n));
        if stale {
            fs::remove_dir_all(&path).map_err(io(&path))?;
        }
    }
    let tmp = parent.join(format!("{name}.tmp-{}", std::process::id()));
    copy_tree(from, &tmp)?;
    fs::rename(&tmp, to).map_err(io(to))?;
    sync_folder(&parent.join(&name));
    Ok(())
}

/// Copies a folder's tree, leaving out temporaries and lock files, each
/// file synced.
fn copy_tree(from: &Path, to: &Path) -> Result<(), TrainError> {
    copy_tree_but(from, to, &[])
}

/// [`copy_tree`], leaving out the entries of `from` itself named in `but`.
fn copy_tree_but(from: &Path, to: &Path, but: &[&str]) -> Result<(), TrainError> {
    fs::create_dir_all(to).map_err(io(to))?;
    let mut entries: Vec<PathBuf> = fs::read_dir(from)
        .map_err(io(from))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io(from))?;
    entries.sort();
    for path in entries {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if is_temporary(name) || name == "lock" || but.contains(&name) {
            continue;
        }
        if path.is_dir() {
            copy_tree(&path, &to.join(name))?;
        } else {
            copy_file(&path, &to.join(name))?;
        }
    }
    sync_dir(to);
    Ok(())
}

/// Persists the entries of `dir` itself.
fn sync_dir(dir: &Path) {
    sync_folder(&dir.join(FORK_JSON));
}
