//! Checking a whole training folder (`hatetris verify DIR` on a training
//! folder): every file a resume or a later generation reads, read in full,
//! and what the summaries record held against the files they summarise,
//! reported as a list of problems rather than stopping at the first.
//!
//! Per finished generation: `generation.json` names its own generation;
//! `master.json` is the master beam the summary records, and the master
//! beam's run folder (when it was not taken over) passes the run check
//! ([`crate::search::verify`]); `samples.bin`, `targets.bin` and (when
//! present) `died.bin`, `far.bin` and `reach.bin` decode, hold one record
//! per sample, and as many samples as the summary says, and the samples
//! from the gate's wide games (`wide-samples.bin`, with one label each in
//! `wide-reach.bin`) are the last of `samples.bin`'s; `net.f32` loads
//! and `net.nnue` is its quantisation, byte for byte; with the learning loop, `gate.json` agrees
//! with the summary's gate figures and its verdict with its own figures,
//! and `gate-positions.json`, where there is one (gates since it was
//! kept), is the verdict on the positions that `gate.json` carries on.
//! Then `champion.json` names the champion the gates on disk make, and
//! every line of `log.jsonl` parses. A generation in progress is a note,
//! as are temporary files a kill left (the next run removes them), and in a
//! copy of the folder's small files (`scripts/snapshot-train.sh`) a
//! finished generation without its data or its net, and a wide game read
//! from its record (`wide-*.json`) rather than its run folder.

use std::path::Path;

use super::data;
use super::folder::{
    generation_dir, generations, log_path, read_config, read_json, wide_record_path, FAR_BIN,
};
use super::gate::{
    champion_measure, champion_path, clears_margin, Champion, GateRecord, WideGame, GATE_CHAMPION,
    GATE_POSITIONS,
};
use super::reach::REACH_BIN;
use super::who;
use super::{Generation, Master, TrainError};
use crate::folder::atomic;
use crate::nnue::{Net, QuantNet};
use crate::strength::Summary;

/// What [`verify`] found.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Finished generations checked.
    pub generations: u32,
    /// Samples read (every generation's).
    pub samples: u64,
    /// What is wrong: a file that does not read, or disagrees with the
    /// summary that records it.
    pub problems: Vec<String>,
    /// What is odd but harmless (a generation in progress, temporaries).
    pub notes: Vec<String>,
}

impl Findings {
    /// Whether nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks the training folder `dir`. Only a folder without readable
/// settings is an `Err`; everything else is in the findings.
pub fn verify(dir: &Path) -> Result<Findings, TrainError> {
    let config = read_config(dir)?.ok_or_else(|| TrainError::Config {
        path: super::config_path(dir),
        why: "not a training folder (no train.json)".into(),
    })?;
    let mut found = Findings::default();
    let done = match generations(dir) {
        Ok(done) => done,
        Err(e) => {
            found.problems.push(e.to_string());
            return Ok(found);
        }
    };
    found.generations = done.len() as u32;
    let mut champion = None;
    for (g, summary) in done.iter().enumerate() {
        let g = g as u32;
        let gen = generation_dir(dir, g);
        let name = format!("gen-{g:03}");
        let mut problem = |what: String| found.problems.push(format!("{name}: {what}"));
        if summary.generation != g {
            problem(format!(
                "generation.json names generation {}",
                summary.generation
            ));
        }
        check_master(&gen, &summary.master, &mut problem);
        // A copy of the folder's small files (`scripts/snapshot-train.sh`)
        // keeps a finished generation's summaries and the champion's net
        // alone: the trainer makes the data again where a later generation
        // reads it, and a net that lost its gate is read by none.
        match gen.join("samples.bin").exists() {
            true => found.samples += check_data(&gen, summary, &mut problem),
            false => {
                // A copy keeps the wide samples, which need the games.
                wide_data(&gen, &mut problem);
                found.notes.push(format!(
                    "{name}: no samples or targets here (a copy of the folder's small files: \
                     the trainer makes them again where a later generation reads them)"
                ));
            }
        }
        match gen.join("net.f32").exists() || gen.join("net.nnue").exists() {
            true => check_nets(&gen, &mut problem),
            false => found.notes.push(format!(
                "{name}: its net is not here (a copy of the folder's small files keeps the champion's)"
            )),
        }
        if config.learning.is_some() {
            match read_json::<GateRecord>(&gen.join("gate.json")) {
                Ok(Some(gate)) => {
                    check_gate(&gen, g, &gate, summary, champion, &mut problem);
                    champion = gate.champion_after();
                }
                Ok(None) => {
                    problem("no gate.json, though the folder runs the learning loop".into())
                }
                Err(e) => problem(e.to_string()),
            }
        }
    }
    if config.learning.is_some() {
        match read_json::<Champion>(&champion_path(dir)) {
            Ok(Some(c)) if c.generation != champion => found.problems.push(format!(
                "champion.json names {}, but the gates on disk make {} the champion",
                who(c.generation),
                who(champion)
            )),
            Ok(Some(c)) if !dir.join(&c.net).exists() => found.problems.push(format!(
                "champion.json names {}, which is missing",
                c.net.display()
            )),
            Ok(_) => {}
            Err(e) => found.problems.push(e.to_string()),
        }
    }
    if let Err(e) = crate::folder::json::read_lines::<serde_json::Value>(&log_path(dir)) {
        found.problems.push(e.to_string());
    }
    let next = generation_dir(dir, found.generations);
    if next.is_dir() {
        found.notes.push(format!(
            "gen-{:03} is in progress (the next run goes on with it)",
            found.generations
        ));
    }
    found.notes.extend(temporaries(dir));
    Ok(found)
}

fn check_master(gen: &Path, summary: &Master, problem: &mut impl FnMut(String)) {
    match read_json::<Master>(&gen.join("master.json")) {
        Ok(Some(m)) if m != *summary => {
            problem("master.json differs from the master beam generation.json records".into())
        }
        Ok(Some(_)) => {}
        Ok(None) => problem("no master.json".into()),
        Err(e) => problem(e.to_string()),
    }
    let run = gen.join("master");
    if summary.reused_from.is_none() && run.join("manifest.json").exists() {
        match crate::search::verify(&run) {
            Ok(f) => {
                for p in f.problems {
                    problem(format!("master beam: {p}"));
                }
            }
            Err(e) => problem(format!("master beam: {e}")),
        }
    }
}

/// Checks the data files; the samples read.
fn check_data(gen: &Path, summary: &Generation, problem: &mut impl FnMut(String)) -> u64 {
    let all = match data::load_samples(&gen.join("samples.bin")) {
        Ok(s) => s,
        Err(e) => {
            problem(e.to_string());
            return 0;
        }
    };
    let samples = all.len();
    if let Some(wide) = wide_data(gen, problem) {
        if let Err(e) = super::wide::check_tail(gen, &all, &wide) {
            problem(e.to_string());
        }
    }
    if samples != summary.samples {
        problem(format!(
            "samples.bin holds {samples} samples, generation.json records {}",
            summary.samples
        ));
    }
    for file in ["targets.bin", "died.bin", FAR_BIN, REACH_BIN] {
        let path = gen.join(file);
        if file != "targets.bin" && !path.exists() {
            continue;
        }
        match data::load_targets(&path) {
            Ok(t) if t.len() != samples => problem(format!(
                "{file} holds {} records for {samples} samples",
                t.len()
            )),
            Ok(_) => {}
            Err(e) => problem(e.to_string()),
        }
    }
    samples as u64
}

/// The generation's samples from the gate's wide games, where it has
/// them, with one label each.
fn wide_data(gen: &Path, problem: &mut impl FnMut(String)) -> Option<Vec<data::Sampled>> {
    super::wide::read(gen)
        .unwrap_or_else(|e| {
            problem(e.to_string());
            None
        })
        .map(|(wide, _)| wide)
}

fn check_nets(gen: &Path, problem: &mut impl FnMut(String)) {
    let net = match Net::load(&gen.join("net.f32")) {
        Ok(n) => n,
        Err(e) => return problem(e.to_string()),
    };
    let quant = match QuantNet::load(&gen.join("net.nnue")) {
        Ok(q) => q,
        Err(e) => return problem(e.to_string()),
    };
    match QuantNet::from_net(&net) {
        Ok(made) if made.to_bytes() != quant.to_bytes() => {
            problem("net.nnue is not net.f32's quantisation".into())
        }
        Ok(_) => {}
        Err(e) => problem(format!("net.f32 does not quantise: {e}")),
    }
}

fn check_gate(
    gen: &Path,
    g: u32,
    gate: &GateRecord,
    summary: &Generation,
    champion: Option<u32>,
    problem: &mut impl FnMut(String),
) {
    if gate.generation != g {
        problem(format!("gate.json names generation {}", gate.generation));
    }
    if gate.champion != champion {
        problem(format!(
            "gate.json measured against {}, but the earlier gates make {} the champion",
            who(gate.champion),
            who(champion)
        ));
    }
    let (c, h) = (&gate.candidate, &gate.champion_figures);
    // More pieces in all decides; a tie goes to the lines, which the
    // record keeps as means only, so a tie is not checked here.
    let wins = match c.pieces.cmp(&h.pieces) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    };
    // Under a margin more pieces keep a candidate only with a paired
    // difference above it.
    let wins = match wins {
        Some(true) => Some(clears_margin(gate.pieces_difference, gate.margin)),
        w => w,
    };
    // A candidate the positions keep may still lose the wide games.
    let wins = match &gate.wide {
        Some(w) if wins == Some(true) => Some(w.candidate_holds()),
        _ => wins,
    };
    if wins.is_some_and(|w| w != gate.kept) {
        problem(format!(
            "gate.json's verdict ({}) disagrees with its figures ({} pieces in all against {}{})",
            if gate.kept { "kept" } else { "not kept" },
            c.pieces,
            h.pieces,
            match &gate.wide {
                Some(w) => format!(
                    "; {} lines in the wide games against {}",
                    w.lines().0,
                    w.lines().1
                ),
                None => String::new(),
            }
        ));
    }
    for game in gate.wide.iter().flat_map(|w| &w.candidate) {
        let run = gen.join(WideGame::folder(game.width, game.from));
        // The run folder, or where only the folder's small files were
        // copied, the game's record.
        let record = wide_record_path(&run);
        let played = match crate::run::read_manifest(&run) {
            Ok(m) => Ok((u32::from(m.best.score), m.best.depth, run)),
            Err(_) if record.exists() => match read_json::<WideGame>(&record) {
                Ok(Some(r)) => Ok((r.lines, r.pieces, record)),
                Ok(None) => Err("no record".to_string()),
                Err(e) => Err(e.to_string()),
            },
            Err(e) => Err(e.to_string()),
        };
        match played {
            Ok((lines, pieces, from)) if (lines, pieces) != (game.lines, game.pieces) => {
                problem(format!(
                    "gate.json's game at width {} ({} lines, {} pieces) is not {}'s ({lines}, {pieces})",
                    game.width,
                    game.lines,
                    game.pieces,
                    from.display(),
                ))
            }
            Ok(_) => {}
            Err(e) => problem(format!("the gate's game at width {}: {e}", game.width)),
        }
    }
    if let (Some(steady), Some(dir)) = (&gate.steady, gen.parent()) {
        // Under the rotation the champion's figures are its measure on
        // this gate's game, made at this gate or an earlier one.
        match champion_measure(dir, g + 1, gate.champion, Some(steady)) {
            Err(e) => problem(e.to_string()),
            Ok(Some(m)) if Summary::of(&m.outcomes) != gate.champion_figures => problem(format!(
                "gate.json's champion figures on {steady} are not those of its {GATE_CHAMPION}"
            )),
            Ok(Some(_)) => {}
            Ok(None) => problem(format!(
                "no {GATE_CHAMPION} measures {} on {steady}, the game of gate.json's positions",
                who(gate.champion)
            )),
        }
    }
    match read_json::<GateRecord>(&gen.join(GATE_POSITIONS)) {
        Ok(Some(p)) => {
            let same = p.generation == gate.generation
                && p.champion == gate.champion
                && p.candidate == gate.candidate
                && p.outcomes == gate.outcomes
                && p.champion_figures == gate.champion_figures
                && p.wide.is_none()
                && p.steady == gate.steady
                && gate.why.starts_with(&p.why)
                && (p.kept || !gate.kept);
            if !same {
                problem(format!(
                    "{GATE_POSITIONS} is not the verdict on the positions that gate.json carries on"
                ));
            }
        }
        Ok(None) => {}
        Err(e) => problem(e.to_string()),
    }
    match &summary.gate {
        Some(f)
            if f.kept != gate.kept
                || f.champion != gate.champion_after()
                || f.candidate_pieces != c.pieces_mean
                || f.champion_pieces != h.pieces_mean =>
        {
            problem("generation.json's gate figures differ from gate.json".into())
        }
        Some(_) => {}
        None => problem("generation.json records no gate".into()),
    }
}

/// Temporary files anywhere in the folder's first two levels.
fn temporaries(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut look = |d: &Path| {
        let Ok(entries) = std::fs::read_dir(d) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if atomic::is_temporary(&name) {
                out.push(format!(
                    "{} is a temporary file a kill left (the next run removes it)",
                    e.path().display()
                ));
            }
        }
    };
    look(dir);
    for g in 0.. {
        let gen = generation_dir(dir, g);
        if !gen.is_dir() {
            break;
        }
        look(&gen);
    }
    out
}
